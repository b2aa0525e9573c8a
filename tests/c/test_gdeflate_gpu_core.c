/*
 * test_gdeflate_gpu_core.c - the GPU GDeflate decoder's core
 * (src/cuda/codecs/gdeflate/gdeflate_dec_core.h) compiled for the host with
 * one thread playing the warp's 32 lanes, against the CPU engine's decoder
 * (src/cpu/codecs/gdeflate/gdeflate_dec.c).  CI has no GPU: this is where
 * the logic the CUDA kernel runs is checked on every commit
 * (tests/c/test_cuda_gdeflate.c checks the GPU against the CPU engine).
 *
 * Guards:
 *   - pages of the CPU encoder at levels 1, 6 and 9 (dynamic, fixed and
 *     stored blocks; a 64 KiB stored page is two blocks) on the real corpus
 *     (bench/corpus-data when present, tu_corpus always) and odd sizes:
 *     decoded to the input, the size query (no output) agreeing, one byte
 *     short OUTPUT_TOO_SMALL;
 *   - pages of 1-4 fixed-Huffman and stored blocks from a writer written
 *     here from the format's text (a block's last round starts at its
 *     end-of-block lane, so later rounds do not start at lane 0), with
 *     matches of every length up to 1024 (GDeflate's symbol 285: 3 + 16
 *     extra bits) and their distances in later rounds: decoded to the
 *     writer's bytes by both decoders;
 *   - pages nvCOMP 6.0.0 wrote (tests/vectors/gdeflate/): the core decodes
 *     them to their recorded size and CRC-32, and agrees with the CPU
 *     decoder on their prefixes and byte flips;
 *   - damaged pages get the CPU decoder's exact status (and, when OK, its
 *     size and bytes): every prefix of short pages and sampled prefixes of
 *     long ones, byte flips anywhere, bit flips in the first 256 bytes (block
 *     headers, code lengths, the first rounds), words of random garbage,
 *     capacities 0, a few bytes, half and full; each of CORRUPT, TRUNCATED,
 *     OUTPUT_TOO_SMALL and OK must occur among them (so the comparison
 *     cannot pass vacuously);
 *   - inputs and outputs are exactly-sized heap buffers: the ASan suite
 *     faults on any read or write out of bounds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/codecs/gdeflate/gdeflate_core.h"
#include "cuda/codecs/gdeflate/gdeflate_dec_core.h"
#include "helpers/gdeflate_vectors.h"
#include "helpers/gdeflate_writer.h"
#include "helpers/test_util.h"

static gd_dec_ws g_cpu_ws;
static gd_enc_ws g_enc_ws;
static gdd_tables g_tables;
static unsigned long g_seen[4]; /* OK, CORRUPT, TRUNCATED, OUTPUT_TOO_SMALL among damaged pages */
static unsigned long g_compared;

/* The core on exactly-sized copies; dst (cap bytes) receives the output. */
static oc_status core_dec(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *got, int count_only)
{
    uint8_t *in = tu_xmalloc(n ? n : 1), *out = tu_xmalloc(cap ? cap : 1);
    if (n)
        memcpy(in, src, n);
    oc_status st = gdd_decode(&g_tables, in, n, count_only ? NULL : out, cap, got);
    if (dst && st == OC_OK && !count_only)
        memcpy(dst, out, *got);
    free(in);
    free(out);
    return st;
}

static oc_status cpu_dec(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *got)
{
    uint8_t *in = tu_xmalloc(n ? n : 1), *out = tu_xmalloc(cap ? cap : 1);
    if (n)
        memcpy(in, src, n);
    oc_status st = gd_decode(&g_cpu_ws, in, n, out, cap, got);
    if (dst && st == OC_OK)
        memcpy(dst, out, *got);
    free(in);
    free(out);
    return st;
}

/* The core and the CPU decoder agree on src[0..n) at capacity cap (and on
 * the size query); returns the status. */
static oc_status agree(const char *what, const uint8_t *src, size_t n, size_t cap)
{
    uint8_t *a = tu_xmalloc(cap ? cap : 1), *b = tu_xmalloc(cap ? cap : 1);
    size_t ga = 0, gb = 0, sa = 0, sb = 0;
    oc_status sc = cpu_dec(src, n, b, cap, &gb);
    oc_status sg = core_dec(src, n, a, cap, &ga, 0);
    CHECK_MSG(sg == sc, "%s (n %zu, cap %zu): core %s, CPU %s", what, n, cap, oc_status_name(sg),
              oc_status_name(sc));
    if (sg == sc && sc == OC_OK) {
        CHECK_SIZE_EQ(ga, gb);
        if (ga == gb)
            CHECK_MEM_EQ(a, b, ga);
    }
    oc_status qc = gd_decode(&g_cpu_ws, src, n, NULL, 0, &sb);
    oc_status qg = core_dec(src, n, NULL, 0, &sa, 1);
    CHECK_MSG(qg == qc, "%s size query (n %zu): core %s, CPU %s", what, n, oc_status_name(qg),
              oc_status_name(qc));
    if (qg == qc && qc == OC_OK)
        CHECK_SIZE_EQ(sa, sb);
    g_seen[sc == OC_OK ? 0 : sc == OC_ERR_CORRUPT ? 1 : sc == OC_ERR_TRUNCATED ? 2 : 3]++;
    g_compared++;
    free(a);
    free(b);
    return sc;
}

/* Encodes data[0..n) at `level`: the page's size, the page in *page. */
static size_t encode(const uint8_t *data, size_t n, int level, uint8_t **page)
{
    size_t cap = gd_bound(n), got = 0;
    *page = tu_xmalloc(cap);
    CHECK_OK(gd_encode(&g_enc_ws, level, data, n, *page, cap, &got));
    return got;
}

/* A whole page decodes to its input; one byte short is OUTPUT_TOO_SMALL. */
static void roundtrip(const char *name, const uint8_t *data, size_t n, int level)
{
    uint8_t *page;
    size_t pn = encode(data, n, level, &page), got = 0;
    uint8_t *out = tu_xmalloc(n ? n : 1);
    oc_status st = core_dec(page, pn, out, n, &got, 0);
    CHECK_MSG(st == OC_OK, "%s n %zu level %d: %s", name, n, level, oc_status_name(st));
    if (st == OC_OK) {
        CHECK_SIZE_EQ(got, n);
        if (got == n && n)
            CHECK_MEM_EQ(out, data, n);
    }
    size_t sz = 0;
    CHECK_OK(core_dec(page, pn, NULL, 0, &sz, 1));
    CHECK_SIZE_EQ(sz, n);
    if (n)
        CHECK_STATUS(core_dec(page, pn, out, n - 1, &got, 0), OC_ERR_OUTPUT_TOO_SMALL);
    free(out);
    free(page);
}

/* Damaged copies of one page against the CPU decoder. */
static void damage(const char *name, const uint8_t *data, size_t n, int level, uint64_t seed)
{
    uint8_t *page;
    size_t pn = encode(data, n, level, &page);
    char what[160];
    size_t caps[4] = {n, n / 2, 3, 0};
    /* prefixes: all of them for short pages, sampled for long ones */
    size_t step = pn <= 600 ? 1 : pn / 300;
    for (size_t k = 0; k <= pn; k += step) {
        snprintf(what, sizeof what, "%s L%d prefix %zu/%zu", name, level, k, pn);
        agree(what, page, k, n);
    }
    tu_rng r;
    tu_rng_seed(&r, seed);
    uint8_t *m = tu_xmalloc(pn);
    for (int i = 0; i < 300; i++) {
        memcpy(m, page, pn);
        int flips = 1 + (int)tu_rng_below(&r, 3);
        size_t span = i % 2 ? pn : (pn < 256 ? pn : 256); /* half the flips land in the first 256 bytes */
        for (int f = 0; f < flips; f++)
            m[tu_rng_below(&r, span)] ^= (uint8_t)(1u << tu_rng_below(&r, 8));
        size_t cut = i % 5 == 4 ? tu_rng_below(&r, pn + 1) : pn;
        snprintf(what, sizeof what, "%s L%d flips #%d cut %zu", name, level, i, cut);
        agree(what, m, cut, caps[i % 4]);
    }
    free(m);
    free(page);
}

/* nvCOMP's pages, whole and damaged. */
static void nvcomp_vectors(void)
{
    tu_rng r;
    tu_rng_seed(&r, 600);
    char what[160];
    for (size_t i = 0; i < GDV_COUNT; i++) {
        const gdv_vector *v = &gdv_vectors[i];
        tu_buf b;
        CHECK_MSG(gdv_load(v, &b) == 0, "missing test vector %s", v->file);
        uint8_t *out = tu_xmalloc(v->raw_size);
        size_t got = 0;
        oc_status st = core_dec(b.data, b.size, out, v->raw_size, &got, 0);
        CHECK_MSG(st == OC_OK, "%s: %s", v->file, oc_status_name(st));
        CHECK_SIZE_EQ(got, v->raw_size);
        CHECK_MSG(gdv_crc32(out, got) == v->crc32, "%s: CRC-32 %08x, recorded %08x", v->file,
                  (unsigned)gdv_crc32(out, got), (unsigned)v->crc32);
        snprintf(what, sizeof what, "%s", v->file);
        CHECK_STATUS(agree(what, b.data, b.size, v->raw_size), OC_OK);
        uint8_t *m = tu_xmalloc(b.size);
        for (int k = 0; k < 200; k++) {
            memcpy(m, b.data, b.size);
            size_t cut = k % 4 == 3 ? (size_t)tu_rng_below(&r, b.size + 1) : b.size;
            if (k % 4 != 3)
                m[tu_rng_below(&r, b.size)] ^= (uint8_t)(1u << tu_rng_below(&r, 8));
            snprintf(what, sizeof what, "%s damage %d", v->file, k);
            agree(what, m, cut, k % 3 ? v->raw_size : v->raw_size / 2);
        }
        free(m);
        free(out);
        tu_buf_free(&b);
    }
}

/* Words of garbage: mostly CORRUPT and TRUNCATED, now and then a page. */
static void garbage(void)
{
    tu_rng r;
    tu_rng_seed(&r, 1515);
    uint8_t buf[1024];
    char what[64];
    for (int i = 0; i < 3000; i++) {
        size_t n = (size_t)tu_rng_below(&r, sizeof buf + 1);
        for (size_t k = 0; k < n; k++)
            buf[k] = (uint8_t)tu_rng_next(&r);
        if (i % 3 == 0 && n > 0)
            buf[0] = (uint8_t)((buf[0] & ~6u) | (i % 2 ? 2u : 0u)); /* fixed or stored blocks, often */
        snprintf(what, sizeof what, "garbage #%d", i);
        agree(what, buf, n, i % 2 ? 65536 : 64);
    }
}

static void multi_block(void)
{
    tu_rng r;
    tu_rng_seed(&r, 4242);
    uint8_t *page = tu_xmalloc(65536), *data = tu_xmalloc(MB_MAX_DATA);
    uint8_t *m = tu_xmalloc(65536);
    char what[96];
    for (int i = 0; i < 150; i++) {
        size_t dn = 0, pn = mb_random_page(&r, page, data, &dn), got = 0;
        uint8_t *out = tu_xmalloc(dn ? dn : 1);
        snprintf(what, sizeof what, "multi-block page #%d", i);
        CHECK_STATUS(agree(what, page, pn, dn), OC_OK);
        CHECK_OK(core_dec(page, pn, out, dn, &got, 0));
        CHECK_SIZE_EQ(got, dn);
        if (got == dn && dn)
            CHECK_MEM_EQ(out, data, dn);
        free(out);
        for (int k = 0; k < 20; k++) {
            memcpy(m, page, pn);
            size_t cut = k % 2 ? pn : (size_t)tu_rng_below(&r, pn + 1);
            if (k % 4 < 3)
                m[tu_rng_below(&r, pn)] ^= (uint8_t)(1u << tu_rng_below(&r, 8));
            snprintf(what, sizeof what, "multi-block page #%d damage %d", i, k);
            agree(what, m, cut, k % 3 ? dn : dn / 2);
        }
    }
    free(m);
    free(page);
    free(data);
}

/* Real files (the benchmark corpus, when this checkout has it) in 64 KiB pages. */
static void corpus_files(void)
{
    static const char *const files[] = {"text_linux_docs.txt",     "tpch_l_comment.txt",
                                        "tpch_l_partkey.i32",      "tpch_l_extendedprice.f64",
                                        "weights_minilm_l0-1.f32", "elf_gdb_cmake_libstdcxx.tar"};
    int found = 0;
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/bench/corpus-data/%s", OC_SOURCE_DIR, files[f]);
        tu_buf b;
        if (tu_read_file(path, 4 << 20, &b) != 0) {
            tu_buf_free(&b); /* tu_read_file leaves a 1-byte buffer on failure */
            continue;
        }
        found++;
        size_t pages = 0;
        for (size_t off = 0; off < b.size && pages < 12; off += 7 * 65536, pages++) {
            size_t n = b.size - off < 65536 ? b.size - off : 65536;
            roundtrip(files[f], b.data + off, n, pages % 2 ? 9 : 1);
        }
        damage(files[f], b.data, b.size < 65536 ? b.size : 65536, 6, 77 + f);
        tu_buf_free(&b);
    }
    printf("bench/corpus-data: %d files%s\n", found, found ? "" : " (not in this checkout: tu_corpus only)");
}

int main(void)
{
    tu_buf corpus[TU_CORPUS_MAX];
    size_t nc = tu_corpus(corpus, TU_CORPUS_MAX, 65536);
    static const size_t sizes[] = {0, 1, 2, 3, 31, 32, 33, 100, 1000, 4097, 65535, 65536};
    static const int levels[] = {1, 6, 9};
    for (size_t i = 0; i < nc; i++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            for (size_t l = 0; l < 3; l++) {
                size_t n = sizes[s] < corpus[i].size ? sizes[s] : corpus[i].size;
                roundtrip(corpus[i].name, corpus[i].data, n, levels[l]);
            }
        damage(corpus[i].name, corpus[i].data, corpus[i].size < 3000 ? corpus[i].size : 3000, 6, 10 + i);
        damage(corpus[i].name, corpus[i].data, corpus[i].size, 1, 20 + i);
    }
    for (size_t i = 0; i < nc; i++)
        tu_buf_free(&corpus[i]);
    corpus_files();
    nvcomp_vectors();
    multi_block();
    garbage();
    printf("%lu damaged pages compared: OK %lu, CORRUPT %lu, TRUNCATED %lu, OUTPUT_TOO_SMALL %lu\n",
           g_compared, g_seen[0], g_seen[1], g_seen[2], g_seen[3]);
    CHECK(g_seen[0] > 0 && g_seen[1] > 0 && g_seen[2] > 0 && g_seen[3] > 0);
    printf("test_gdeflate_gpu_core: ok\n");
    return 0;
}
