/*
 * algo_list.h - the algorithm table as the tests see it: every algorithm
 * the library knows, read through the public API (oc_algorithm_get_info
 * for 1, 2, 3, ... until UNSUPPORTED), with its row.  Tests that cover
 * "every algorithm" loop over this list instead of writing one out, so a
 * new algorithm is covered without editing them; a test that means a
 * subset says which property picks it (self-identifying, a NATIVE
 * container, the largest chunk), not which names.
 *
 * Header-only, with no CHECK macro of its own, so that both families of
 * test helpers (test_util.h, test_buffer_util.h) can include it.  Names
 * are prefixed ta_.
 */
#ifndef OC_TEST_ALGO_LIST_H
#define OC_TEST_ALGO_LIST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencomp.h"

#define TA_MAX 64

typedef struct ta_list {
    size_t n;
    oc_algorithm_info info[TA_MAX]; /* info[i].algorithm is the value */
} ta_list;

/* Fills *l with every algorithm whose CPU engine both encodes and decodes
 * it (the engine every test can run), in table order.  Exits the test if
 * the table cannot be read or is empty. */
static inline void ta_algorithms(ta_list *l)
{
    l->n = 0;
    for (int a = 1;; a++) {
        oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
        oc_status st = oc_algorithm_get_info((oc_algorithm)a, &info);
        if (st == OC_ERR_UNSUPPORTED)
            break;
        if (st != OC_OK || l->n == TA_MAX) {
            fprintf(stderr, "algo_list.h: algorithm %d: %s\n", a, oc_status_name(st));
            exit(1);
        }
        if (oc_algorithm_available(OC_ENGINE_CPU, (oc_algorithm)a))
            l->info[l->n++] = info;
    }
    if (l->n == 0) {
        fprintf(stderr, "algo_list.h: no algorithm on the CPU engine\n");
        exit(1);
    }
}

/* The row of `a` (exits the test for a value the table does not hold). */
static inline oc_algorithm_info ta_info(oc_algorithm a)
{
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    oc_status st = oc_algorithm_get_info(a, &info);
    if (st != OC_OK) {
        fprintf(stderr, "algo_list.h: algorithm %d: %s\n", (int)a, oc_status_name(st));
        exit(1);
    }
    return info;
}

/* n, or the algorithm's largest chunk where that is smaller (GDeflate's
 * 64 KiB page): the most one RAW chunk of `a` may hold. */
static inline size_t ta_clamp_chunk(oc_algorithm a, size_t n)
{
    oc_algorithm_info info = ta_info(a);
    return info.max_chunk_size && n > info.max_chunk_size ? (size_t)info.max_chunk_size : n;
}

/* 1 if `a` has a NATIVE container, the whole-buffer layer's default kind
 * (Blosc has none: its chunks travel RAW or WITH_UNCOMPRESSED_SIZE); asked
 * of the library, whose NATIVE bound is 0 without one. */
static inline int ta_has_native(oc_algorithm a)
{
    oc_buffer_options o = OC_BUFFER_OPTIONS_INIT;
    o.algorithm = a;
    o.kind = OC_BITSTREAM_NATIVE;
    return oc_buffer_compress_bound(&o, 1) != 0;
}

static inline oc_status ta_discard(void *opaque, const void *data, size_t size)
{
    (void)opaque, (void)data, (void)size;
    return OC_OK;
}

/* 1 if the streaming layer writes a's NATIVE container (the standard
 * containers: ours records the content size up front, Blosc has none);
 * asked of the library, whose stream writer is UNSUPPORTED otherwise. */
static inline int ta_streams(oc_algorithm a)
{
    oc_buffer_options o = OC_BUFFER_OPTIONS_INIT;
    o.algorithm = a;
    oc_context *ctx = NULL;
    oc_stream_writer *w = NULL;
    if (oc_context_create(NULL, &ctx) != OC_OK) {
        fprintf(stderr, "algo_list.h: no context\n");
        exit(1);
    }
    oc_status st = oc_stream_writer_create(ctx, &o, OC_SIZE_UNKNOWN, ta_discard, NULL, &w);
    oc_stream_writer_destroy(w);
    oc_context_destroy(ctx);
    if (st != OC_OK && st != OC_ERR_UNSUPPORTED) {
        fprintf(stderr, "algo_list.h: %s: stream writer: %s\n", oc_algorithm_name(a), oc_status_name(st));
        exit(1);
    }
    return st == OC_OK;
}

/* The algorithm a's NATIVE container reads back as (oc_buffer_inspect of
 * a small one): a itself, or the algorithm whose container it writes
 * (deflate and zlib write gzip's); OC_ALGO_NONE without a container. */
static inline oc_algorithm ta_native_as(oc_algorithm a)
{
    if (!ta_has_native(a))
        return OC_ALGO_NONE;
    static const unsigned char in[16] = "0123456789abcdef";
    unsigned char out[4096];
    oc_buffer_options o = OC_BUFFER_OPTIONS_INIT;
    o.algorithm = a;
    oc_context *ctx = NULL;
    uint64_t n = 0;
    oc_frame_info fi;
    memset(&fi, 0, sizeof fi);
    fi.struct_size = sizeof fi;
    if (oc_context_create(NULL, &ctx) != OC_OK ||
        oc_buffer_compress(ctx, &o, in, sizeof in, out, sizeof out, &n) != OC_OK ||
        oc_buffer_inspect(out, n, NULL, &fi) != OC_OK) {
        fprintf(stderr, "algo_list.h: %s: no NATIVE container to inspect\n", oc_algorithm_name(a));
        exit(1);
    }
    oc_context_destroy(ctx);
    return fi.algorithm;
}

#endif /* OC_TEST_ALGO_LIST_H */
