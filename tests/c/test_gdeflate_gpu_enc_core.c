/*
 * test_gdeflate_gpu_enc_core.c - the GPU GDeflate encoder's core
 * (src/cuda/codecs/gdeflate/gdeflate_enc_core.h) compiled for the host, one
 * thread playing the warp's 32 lanes: the code (and so the bytes) the CUDA
 * kernel runs.  CI has no GPU: this is where the encoder is checked on
 * every commit (tests/c/test_cuda_gdeflate.c checks the GPU writes these
 * bytes).
 *
 * Guards: at every level 1-9, pages of real files (bench/corpus-data when
 * present, tu_corpus always) and generated data (runs that need GDeflate's
 * length symbol 285, random bytes -> stored blocks, one byte and empty ->
 * fixed blocks, sizes around the 32 KiB segment and the 64 KiB page)
 * decode to the input with the CPU engine's GDeflate decoder and with the
 * GPU decoder's core; dynamic, fixed and stored pages all occur; a page is
 * a multiple of 4 bytes, at least 128, never above oc_compress_bound;
 * encoding is deterministic; a capacity one byte short (and 0) is
 * OUTPUT_TOO_SMALL with nothing written; a page over 64 KiB is
 * CHUNK_TOO_LARGE; inputs and outputs are exactly-sized heap buffers (the
 * ASan suite faults on any access out of bounds).  Sizes against the CPU
 * engine's encoder are printed, and over the sample level 6 must not be
 * larger than the CPU encoder's level 1 (compressed sizes, never bytes,
 * are compared).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/codecs/gdeflate/gdeflate_core.h"
#include "cuda/codecs/gdeflate/gdeflate_dec_core.h"
#include "cuda/codecs/gdeflate/gdeflate_enc_core.h"
#include "helpers/test_util.h"

static gde_shared g_shared;
static void *g_scratch;
static gd_dec_ws g_cpu_ws;
static gd_enc_ws g_enc_ws;
static gdd_tables g_tables;
static size_t g_types[3]; /* pages seen of each block type (stored, fixed, dynamic) */
static size_t g_sum[3];   /* sample: core level 1, core level 6, CPU encoder level 1 */
static unsigned long g_pages;

/* The core into an exactly-sized buffer of cap bytes, from an exactly-sized copy of the input. */
static oc_status enc(int level, const uint8_t *src, size_t n, uint8_t **out, size_t cap, size_t *size)
{
    uint8_t *in = tu_xmalloc(n ? n : 1);
    if (n)
        memcpy(in, src, n);
    *out = tu_xmalloc(cap ? cap : 1);
    memset(*out, 0xA5, cap ? cap : 1);
    oc_status st = gde_compress_page(&g_shared, g_scratch, level, in, n, *out, cap, size);
    free(in);
    return st;
}

/* One page at one level: both decoders read it back; deterministic; one byte short. */
static size_t check_page(const char *name, const uint8_t *src, size_t n, int level)
{
    size_t bound = oc_compress_bound(OC_ALGO_GDEFLATE, n), size = 0;
    uint8_t *page;
    oc_status st = enc(level, src, n, &page, bound, &size);
    CHECK_MSG(st == OC_OK && size <= bound && size % 4 == 0 && size >= 128,
              "%s n %zu level %d: %s, %zu bytes (bound %zu)", name, n, level, oc_status_name(st), size,
              bound);
    if (st != OC_OK) {
        free(page);
        return 0;
    }
    g_pages++;
    g_types[(page[0] >> 1) & 3]++; /* lane 0's first word opens with BFINAL, BTYPE */
    /* exactly-sized copies for the decoders */
    uint8_t *pg = tu_xmalloc(size), *out = tu_xmalloc(n ? n : 1);
    memcpy(pg, page, size);
    size_t got = 0;
    st = gd_decode(&g_cpu_ws, pg, size, out, n, &got);
    CHECK_MSG(st == OC_OK && got == n && (n == 0 || memcmp(out, src, n) == 0),
              "%s n %zu level %d: the CPU decoder says %s, %zu bytes", name, n, level, oc_status_name(st),
              got);
    memset(out, 0, n ? n : 1);
    got = 0;
    st = gdd_decode(&g_tables, pg, size, out, n, &got);
    CHECK_MSG(st == OC_OK && got == n && (n == 0 || memcmp(out, src, n) == 0),
              "%s n %zu level %d: the GPU decoder's core says %s, %zu bytes", name, n, level,
              oc_status_name(st), got);
    /* deterministic, and exact about the capacity */
    uint8_t *again;
    size_t size2 = 0;
    st = enc(level, src, n, &again, size, &size2);
    CHECK_MSG(st == OC_OK && size2 == size && memcmp(again, page, size) == 0,
              "%s n %zu level %d: not deterministic", name, n, level);
    free(again);
    st = enc(level, src, n, &again, size - 1, &size2);
    CHECK_MSG(st == OC_ERR_OUTPUT_TOO_SMALL && size2 == 0, "%s n %zu level %d: one byte short gives %s", name,
              n, level, oc_status_name(st));
    for (size_t i = 0; i + 1 < size; i++)
        CHECK_MSG(again[i] == 0xA5, "%s n %zu level %d: one byte short wrote byte %zu", name, n, level, i);
    free(again);
    st = enc(level, src, n, &again, 0, &size2);
    CHECK_MSG(st == OC_ERR_OUTPUT_TOO_SMALL, "%s n %zu level %d: no room gives %s", name, n, level,
              oc_status_name(st));
    free(again);
    free(pg);
    free(out);
    free(page);
    return size;
}

/* The CPU engine's encoder's page size, for the sample. */
static size_t cpu_size(const uint8_t *src, size_t n, int level)
{
    size_t cap = gd_bound(n), got = 0;
    uint8_t *p = tu_xmalloc(cap);
    CHECK_OK(gd_encode(&g_enc_ws, level, src, n, p, cap, &got));
    free(p);
    return got;
}

/* Pages of data[0..n): every level on the first, levels 1 and 6 on the rest (into the sample). */
static void check_input(const char *name, const uint8_t *data, size_t n, int sample)
{
    size_t pages = 0;
    for (size_t off = 0; off < n || (n == 0 && off == 0); off += GDE_MAX_PAGE, pages++) {
        size_t m = n - off < GDE_MAX_PAGE ? n - off : GDE_MAX_PAGE;
        if (pages == 0)
            for (int level = 2; level <= 9; level++)
                if (level != 6)
                    check_page(name, data + off, m, level);
        size_t a = check_page(name, data + off, m, 1), b = check_page(name, data + off, m, 6);
        if (sample) {
            g_sum[0] += a;
            g_sum[1] += b;
            g_sum[2] += cpu_size(data + off, m, 1);
        }
        if (n == 0)
            break;
    }
}

int main(void)
{
    g_scratch = tu_xmalloc(gde_scratch_bytes(9));
    tu_buf corpus[TU_CORPUS_MAX];
    size_t nc = tu_corpus(corpus, TU_CORPUS_MAX, 3 * 65536 + 1000);
    for (size_t i = 0; i < nc; i++) {
        check_input(corpus[i].name, corpus[i].data, corpus[i].size, 1);
        tu_buf_free(&corpus[i]);
    }
    static const char *const files[] = {"text_linux_docs.txt",        "tpch_l_comment.txt",
                                        "tpch_l_partkey.i32",         "tpch_l_extendedprice.f64",
                                        "sorted_partkey.i64",         "weights_minilm_l0-1.f32",
                                        "elf_gdb_cmake_libstdcxx.tar"};
    int found = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/bench/corpus-data/%s", OC_SOURCE_DIR, files[f]);
        tu_buf b;
        if (tu_read_file(path, 2 * 65536, &b) != 0) {
            tu_buf_free(&b);
            continue;
        }
        found++;
        check_input(files[f], b.data, b.size, 1);
        tu_buf_free(&b);
    }
    printf("bench/corpus-data: %d files%s\n", found, found ? "" : " (not in this checkout: tu_corpus only)");
    size_t n = 70000;
    uint8_t *col = tu_xmalloc(n);
    memset(col, 'z', n); /* matches of 258: GDeflate's symbol 285 with 16 extra bits */
    check_input("runs", col, 65536, 0);
    for (size_t i = 0; i < n; i++) /* runs of 1-3 repeated bytes */
        col[i] = (uint8_t)("abc"[(i / 7) % 3]);
    static const size_t sizes[] = {0, 1, 2, 31, 33, 128, 1000, 32767, 32768, 32769, 65535, 65536};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        check_input("segment edges", col, sizes[k], 0);
    tu_fill_random(col, n, 7);
    check_input("random", col, 65536, 0);
    check_input("random, short", col, 5000, 0);
    uint8_t *page;
    size_t got = 0;
    CHECK_STATUS(enc(1, col, 65537, &page, 80000, &got), OC_ERR_CHUNK_TOO_LARGE);
    free(page);
    free(col);
    printf("%lu pages: %zu stored, %zu fixed, %zu dynamic\n", g_pages, g_types[0], g_types[1], g_types[2]);
    CHECK(g_types[0] && g_types[1] && g_types[2]);
    printf("sample: level 1 %zu bytes, level 6 %zu; the CPU engine's encoder at level 1 %zu\n", g_sum[0],
           g_sum[1], g_sum[2]);
    CHECK_MSG(g_sum[1] <= g_sum[2], "sample: level 6 (%zu bytes) above the CPU encoder's level 1 (%zu)",
              g_sum[1], g_sum[2]);
    free(g_scratch);
    printf("test_gdeflate_gpu_enc_core: ok\n");
    return 0;
}
