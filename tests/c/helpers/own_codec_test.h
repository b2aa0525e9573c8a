/*
 * own_codec_test.h - what the CPU tests of our own formats
 * (test_codec_cascaded.c, test_codec_bitcomp.c, test_codec_ans.c) and of
 * GDeflate (test_codec_gdeflate.c) share,
 * written once: one chunk decoded and size-queried through the public
 * batched API, a decode of an exactly-sized heap copy that checks the
 * guard bytes, the size query's agreement and the bytes, and the corpus
 * files.  A test defines OWN_CODEC_TEST_ALGO (its oc_algorithm) and
 * includes this header; it creates g_ctx.  The helpers are static inline,
 * so a test that needs only some of them builds without warnings.
 */
#ifndef OC_OWN_CODEC_TEST_H
#define OC_OWN_CODEC_TEST_H

#ifndef OWN_CODEC_TEST_ALGO
#error "define OWN_CODEC_TEST_ALGO (the test's oc_algorithm) before including own_codec_test.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

static oc_context *g_ctx;

static inline oc_status decode1(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *got)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OWN_CODEC_TEST_ALGO;
    const void *sp = src;
    void *dp = dst;
    oc_status st = OC_ERR_INTERNAL;
    size_t g = 0;
    CHECK_OK(oc_batch_decompress(g_ctx, &o, 1, &sp, &n, &dp, &cap, &g, &st));
    if (got)
        *got = g;
    return st;
}

static inline oc_status size1(const uint8_t *src, size_t n, size_t *size)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OWN_CODEC_TEST_ALGO;
    const void *sp = src;
    oc_status st = OC_ERR_INTERNAL;
    CHECK_OK(oc_batch_decompressed_sizes(g_ctx, &o, 1, &sp, &n, size, &st));
    return st;
}

/* Decodes an exactly-sized heap copy (ASan sees a one-byte overread). */
static inline oc_status decode_copy(const uint8_t *src, size_t n, size_t cap, const uint8_t *expect,
                                    size_t expect_n)
{
    uint8_t *in = tu_xmalloc(n ? n : 1);
    if (n)
        memcpy(in, src, n);
    uint8_t *out = tu_xmalloc(cap + 16);
    tu_fill_guard(out + cap, 16);
    size_t got = 0, sz = 0;
    oc_status st = decode1(in, n, out, cap, &got);
    CHECK_GUARD(out + cap, 16);
    oc_status st2 = size1(in, n, &sz);
    if (st == OC_OK) {
        CHECK(got <= cap);
        CHECK_MSG(st2 == OC_OK && sz == got, "size query %s %zu, decoding %zu", oc_status_name(st2), sz, got);
        if (expect)
            CHECK_MSG(got == expect_n && !memcmp(out, expect, got), "decoded %zu bytes, expected %zu", got,
                      expect_n);
    } else if (st != OC_ERR_OUTPUT_TOO_SMALL) {
        CHECK_MSG(st2 == st, "size query %s, decoding %s", oc_status_name(st2), oc_status_name(st));
    }
    free(in);
    free(out);
    return st;
}

static inline uint8_t *corpus_file(const char *file, size_t max, size_t *n)
{
    const char *dir = getenv("OC_CORPUS_DIR");
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir ? dir : OC_SOURCE_DIR "/bench/corpus-data", file);
    tu_buf b;
    if (tu_read_file(path, max, &b) != 0 || b.size == 0) {
        tu_buf_free(&b);
        return NULL;
    }
    *n = b.size;
    return b.data;
}

#endif /* OC_OWN_CODEC_TEST_H */
