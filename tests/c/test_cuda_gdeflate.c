/*
 * test_cuda_gdeflate.c - GDeflate pages decoded by the GPU engine
 * (src/cuda/codecs/gdeflate/gdeflate_kernels.cu) through the public API,
 * against the bytes they were made from and the CPU engine's statuses.
 * Skips without a GPU (CI); scripts/gpu-check runs it on one, and under
 * compute-sanitizer (OC_TEST_SMALL=1 for a shorter run).
 *
 * Guards: pages the CPU engine encodes at levels 1, 6 and 9 (dynamic,
 * fixed and stored blocks) from the real corpus (bench/corpus-data when
 * present, tu_corpus always), odd sizes and empty pages, and multi-block
 * pages of the test writer (helpers/gdeflate_writer.h), and nvCOMP 6.0.0's
 * pages (tests/vectors/gdeflate/: the CPU engine's bytes checked against
 * their recorded CRC-32), decoded in ONE batch bit-identical, with their
 * sizes; in the same batch damaged pages
 * (prefixes, bit flips, garbage) and pages given one byte too little room,
 * each with the CPU engine's status (CORRUPT, TRUNCATED, OUTPUT_TOO_SMALL or
 * OK with the same bytes); the GPU size query agreeing with the CPU's; the
 * CUDA engine reporting GDeflate decode and encode available.
 *
 * GPU compression (gdeflate_kernels.cu) at levels 1, 6 and 9 of the same
 * kinds of pages (real files, odd sizes, empty, random -> stored, runs ->
 * length symbol 285), with source and destination pointers at every byte
 * alignment, in one batch: exactly the bytes of the encoder's core compiled
 * for the host (gdeflate_enc_core.h, checked against the decoders by
 * test_gdeflate_gpu_enc_core), which the CPU engine decodes to the input;
 * nothing written past a capacity (guard bytes); each page given one byte
 * less than its size is OUTPUT_TOO_SMALL with its buffer untouched; a page
 * over 64 KiB is CHUNK_TOO_LARGE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/codecs/gdeflate/gdeflate_enc_core.h"
#include "helpers/dev_mem.h"
#include "helpers/gdeflate_vectors.h"
#include "helpers/gdeflate_writer.h"
#include "helpers/test_util.h"

static oc_context *g_cpu;

typedef struct item {
    uint8_t *page;
    size_t pn, cap;
    uint8_t *want_bytes; /* the CPU engine's output when it says OK */
    size_t want_n;
    oc_status want;
} item;

#define MAX_ITEMS 8192
static item g_items[MAX_ITEMS];
static size_t g_m;

static oc_status cpu_decode(const uint8_t *page, size_t pn, uint8_t *out, size_t cap, size_t *got)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_GDEFLATE;
    const void *sp = page;
    void *dp = out;
    oc_status st = OC_ERR_INTERNAL;
    *got = 0;
    CHECK_OK(oc_batch_decompress(g_cpu, &o, 1, &sp, &pn, &dp, &cap, got, &st));
    return st;
}

/* Adds a page (copied) decoded at capacity cap; the CPU engine says what
 * the GPU must answer. */
static void add(const uint8_t *page, size_t pn, size_t cap)
{
    if (g_m == MAX_ITEMS)
        return;
    item *x = &g_items[g_m++];
    x->page = tu_xmalloc(pn ? pn : 1);
    if (pn)
        memcpy(x->page, page, pn);
    x->pn = pn;
    x->cap = cap;
    x->want_bytes = tu_xmalloc(cap ? cap : 1);
    x->want = cpu_decode(x->page, pn, x->want_bytes, cap, &x->want_n);
}

static size_t encode(const uint8_t *data, size_t n, int level, uint8_t *page)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_GDEFLATE;
    o.level = level;
    const void *sp = data;
    void *dp = page;
    size_t cap = oc_compress_bound(OC_ALGO_GDEFLATE, n), got = 0;
    oc_status st = OC_ERR_INTERNAL;
    CHECK_OK(oc_batch_compress(g_cpu, &o, 1, &sp, &n, &dp, &cap, &got, &st));
    CHECK_OK(st);
    return got;
}

/* A page of data[0..n) at `level`, whole, then (damage) cut and flipped. */
static void add_page(const uint8_t *data, size_t n, int level, int damage, tu_rng *r)
{
    static uint8_t page[70000], m[70000];
    size_t pn = encode(data, n, level, page);
    add(page, pn, n);
    if (n)
        add(page, pn, n - 1); /* OUTPUT_TOO_SMALL */
    for (int k = 0; k < damage; k++) {
        memcpy(m, page, pn);
        size_t cut = k % 3 == 0 ? (size_t)tu_rng_below(r, pn + 1) : pn;
        if (k % 3)
            for (int f = 0; f < 1 + k % 3; f++)
                m[tu_rng_below(r, k % 2 ? pn : (pn < 256 ? pn : 256))] ^= (uint8_t)(1u << tu_rng_below(r, 8));
        add(m, cut, k % 4 == 3 ? n / 2 : n);
    }
}

/* Every item in one GPU batch: statuses, sizes, bytes; then the size query. */
static void run_batch(void)
{
    size_t m = g_m;
    const void **sp = tu_xmalloc(m * sizeof *sp);
    void **dp = tu_xmalloc(m * sizeof *dp);
    size_t *pn = tu_xmalloc(m * sizeof *pn), *caps = tu_xmalloc(m * sizeof *caps),
           *sizes = tu_xmalloc(m * sizeof *sizes);
    oc_status *st = tu_xmalloc(m * sizeof *st);
    for (size_t i = 0; i < m; i++) {
        sp[i] = to_device(g_items[i].page, g_items[i].pn);
        pn[i] = g_items[i].pn;
        caps[i] = g_items[i].cap;
        dp[i] = to_device(NULL, caps[i]);
    }
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_GDEFLATE;
    CHECK_OK(oc_batch_decompress(g_gpu, &o, m, sp, pn, dp, caps, sizes, st));
    CHECK_OK(oc_context_synchronize(g_gpu));
    uint8_t *back = tu_xmalloc(1 << 20);
    size_t seen[4] = {0};
    for (size_t i = 0; i < m; i++) {
        const item *x = &g_items[i];
        CHECK_MSG(st[i] == x->want, "page %zu (%zu bytes, cap %zu): GPU %s, CPU %s", i, x->pn, x->cap,
                  oc_status_name(st[i]), oc_status_name(x->want));
        seen[x->want == OC_OK ? 0 : x->want == OC_ERR_CORRUPT ? 1 : x->want == OC_ERR_TRUNCATED ? 2 : 3]++;
        if (st[i] == OC_OK && x->want == OC_OK) {
            CHECK_SIZE_EQ(sizes[i], x->want_n);
            if (sizes[i] == x->want_n && x->want_n) {
                copy(back, dp[i], x->want_n);
                CHECK_MEM_EQ(back, x->want_bytes, x->want_n);
            }
        }
    }
    printf("GPU batch of %zu pages: OK %zu, CORRUPT %zu, TRUNCATED %zu, OUTPUT_TOO_SMALL %zu, as the CPU "
           "engine\n",
           m, seen[0], seen[1], seen[2], seen[3]);
    CHECK(seen[0] && seen[1] && seen[2] && seen[3]);
    /* the size query on device pages, against the CPU engine's */
    size_t *csz = tu_xmalloc(m * sizeof *csz);
    oc_status *cst = tu_xmalloc(m * sizeof *cst);
    const void **hp = tu_xmalloc(m * sizeof *hp);
    for (size_t i = 0; i < m; i++)
        hp[i] = g_items[i].page;
    CHECK_OK(oc_batch_decompressed_sizes(g_cpu, &o, m, hp, pn, csz, cst));
    CHECK_OK(oc_batch_decompressed_sizes(g_gpu, &o, m, sp, pn, sizes, st));
    CHECK_OK(oc_context_synchronize(g_gpu));
    for (size_t i = 0; i < m; i++) {
        CHECK_MSG(st[i] == cst[i], "size query of page %zu: GPU %s, CPU %s", i, oc_status_name(st[i]),
                  oc_status_name(cst[i]));
        if (st[i] == OC_OK && cst[i] == OC_OK)
            CHECK_SIZE_EQ(sizes[i], csz[i]);
    }
    printf("GPU size query agrees with the CPU engine on %zu pages\n", m);
    for (size_t i = 0; i < m; i++) {
        dev_free((void *)sp[i], pn[i]);
        dev_free(dp[i], caps[i]);
    }
    free(back), free(sp), free(dp), free(pn), free(caps), free(sizes), free(st), free(csz), free(cst),
        free(hp);
}

/* ---- compression ---------------------------------------------------------------- */

#define GUARD 16
#define MAX_ENC 600
#define BIG_CAP 80000 /* the capacity given to the page over 64 KiB (CHUNK_TOO_LARGE) */

static gde_shared g_gde;

/* Pages srcs[i] (ns[i] bytes) compressed on the GPU at `level` in one batch
 * (at byte offset i % 4 on both sides), against the host build of the
 * encoder's core; then every page again one byte short. */
static void compress_batch(int level, const uint8_t *const *srcs, const size_t *ns, size_t m)
{
    static void *scratch;
    if (!scratch)
        scratch = tu_xmalloc(gde_scratch_bytes(9));
    const void **sp = tu_xmalloc(m * sizeof *sp);
    void **dp = tu_xmalloc(m * sizeof *dp);
    size_t *caps = tu_xmalloc(m * sizeof *caps), *got = tu_xmalloc(m * sizeof *got),
           *want = tu_xmalloc(m * sizeof *want), *nn = tu_xmalloc(m * sizeof *nn);
    oc_status *st = tu_xmalloc(m * sizeof *st);
    uint8_t **ref = tu_xmalloc(m * sizeof *ref), *back = tu_xmalloc(65536 + 1);
    uint8_t **sbase = tu_xmalloc(m * sizeof *sbase), **dbase = tu_xmalloc(m * sizeof *dbase);
    uint8_t *host = tu_xmalloc(BIG_CAP + 2 * GUARD); /* the largest capacity plus its guard */
    for (size_t i = 0; i < m; i++) {
        size_t a = i % 4, bound = oc_compress_bound(OC_ALGO_GDEFLATE, ns[i]);
        nn[i] = ns[i];
        sbase[i] = to_device(NULL, ns[i] + 4);
        if (ns[i])
            CHECK_OK(oc_memory_copy(g_gpu, sbase[i] + a, srcs[i], ns[i]));
        sp[i] = sbase[i] + a;
        caps[i] = ns[i] > GDE_MAX_PAGE ? BIG_CAP : bound;
        if (caps[i] > BIG_CAP) { /* the guard pass below would write past `host` */
            fprintf(stderr, "page %zu: bound %zu is past the test's buffers (%d)\n", i, caps[i], BIG_CAP);
            exit(1);
        }
        dbase[i] = to_device(NULL, caps[i] + GUARD + 4);
        dp[i] = dbase[i] + a;
        ref[i] = tu_xmalloc(caps[i] ? caps[i] : 1);
        want[i] = 0;
        oc_status rs = gde_compress_page(&g_gde, scratch, level, srcs[i], ns[i], ref[i], caps[i], &want[i]);
        CHECK_STATUS(rs, ns[i] > GDE_MAX_PAGE ? OC_ERR_CHUNK_TOO_LARGE : OC_OK);
    }
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < m; i++) { /* guard bytes over the whole buffer */
            memset(host, 0xA5, caps[i] + GUARD);
            CHECK_OK(oc_memory_copy(g_gpu, dp[i], host, caps[i] + GUARD));
            if (pass == 1)
                caps[i] = want[i] ? want[i] - 1 : 0;
        }
        oc_codec_options o = OC_CODEC_OPTIONS_INIT;
        o.algorithm = OC_ALGO_GDEFLATE;
        o.level = level;
        CHECK_OK(oc_batch_compress(g_gpu, &o, m, sp, nn, dp, caps, got, st));
        CHECK_OK(oc_context_synchronize(g_gpu));
        for (size_t i = 0; i < m; i++) {
            size_t full = pass == 0 ? caps[i] : want[i] + 0;
            CHECK_OK(oc_memory_copy(g_gpu, host, dp[i], (pass == 0 ? caps[i] : full) + GUARD));
            CHECK_OK(oc_context_synchronize(g_gpu));
            if (ns[i] > GDE_MAX_PAGE) {
                CHECK_MSG(st[i] == OC_ERR_CHUNK_TOO_LARGE, "page of %zu bytes: %s", ns[i],
                          oc_status_name(st[i]));
                continue;
            }
            if (pass == 1) {
                CHECK_MSG(st[i] == OC_ERR_OUTPUT_TOO_SMALL,
                          "level %d page %zu (%zu bytes) one byte short: %s", level, i, ns[i],
                          oc_status_name(st[i]));
                for (size_t k = 0; k < full + GUARD; k++)
                    CHECK_MSG(host[k] == 0xA5, "level %d page %zu one byte short: byte %zu written", level, i,
                              k);
                continue;
            }
            CHECK_MSG(st[i] == OC_OK && got[i] == want[i],
                      "level %d page %zu (%zu bytes at +%zu): GPU %s, %zu bytes; host core %zu", level, i,
                      ns[i], i % 4, oc_status_name(st[i]), got[i], want[i]);
            CHECK_MEM_EQ(host, ref[i], want[i]);
            for (size_t k = want[i]; k < caps[i] + GUARD; k++)
                CHECK_MSG(host[k] == 0xA5, "level %d page %zu: byte %zu past the page written", level, i, k);
            size_t dn = 0;
            CHECK_OK(cpu_decode(host, got[i], back, 65536, &dn));
            CHECK_SIZE_EQ(dn, ns[i]);
            if (dn == ns[i] && dn)
                CHECK_MEM_EQ(back, srcs[i], dn);
        }
    }
    for (size_t i = 0; i < m; i++) {
        oc_memory_free(g_gpu, OC_MEMORY_DEVICE, sbase[i], ns[i] + 4);
        oc_memory_free(g_gpu, OC_MEMORY_DEVICE, dbase[i],
                       (ns[i] > GDE_MAX_PAGE ? BIG_CAP : oc_compress_bound(OC_ALGO_GDEFLATE, ns[i])) + GUARD +
                           4);
        free(ref[i]);
    }
    printf("GPU compression, level %d: %zu pages as the host core writes them, decoded by the CPU engine\n",
           level, m);
    free(sp), free(dp), free(caps), free(got), free(want), free(nn), free(st), free(ref), free(back),
        free(sbase), free(dbase), free(host);
}

static void compress_checks(int small)
{
    const uint8_t *srcs[MAX_ENC];
    size_t ns[MAX_ENC], m = 0;
    tu_buf bufs[TU_CORPUS_MAX + 8];
    size_t nb = tu_corpus(bufs, TU_CORPUS_MAX, 65536);
    static const size_t sizes[] = {0, 1, 31, 33, 1000, 32769, 65535, 65536};
    for (size_t i = 0; i < nb; i++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            srcs[m] = bufs[i].data;
            ns[m++] = sizes[s] < bufs[i].size ? sizes[s] : bufs[i].size;
        }
    static const char *const files[] = {"text_linux_docs.txt",     "tpch_l_comment.txt",
                                        "tpch_l_partkey.i32",      "sorted_partkey.i64",
                                        "weights_minilm_l0-1.f32", "elf_gdb_cmake_libstdcxx.tar"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/bench/corpus-data/%s", OC_SOURCE_DIR, files[f]);
        tu_buf *b = &bufs[nb];
        if (tu_read_file(path, (small ? 4u : 24u) * 65536, b) != 0) {
            tu_buf_free(b);
            continue;
        }
        nb++;
        for (size_t off = 0; off < b->size && m + 2 < MAX_ENC; off += 65536) {
            srcs[m] = b->data + off;
            ns[m++] = b->size - off < 65536 ? b->size - off : 65536;
        }
    }
    uint8_t *runs = tu_xmalloc(65537);
    memset(runs, 'z', 65537); /* matches of 258: symbol 285 */
    srcs[m] = runs, ns[m++] = 65536;
    srcs[m] = runs, ns[m++] = 65537; /* CHUNK_TOO_LARGE */
    static const int levels[] = {1, 6, 9};
    for (int l = 0; l < 3; l++)
        if (!small || levels[l] != 9)
            compress_batch(levels[l], srcs, ns, m);
    for (size_t i = 0; i < nb; i++)
        tu_buf_free(&bufs[i]);
    free(runs);
}

int main(void)
{
    if (!oc_engine_available(OC_ENGINE_CUDA)) {
        printf("SKIP: test_cuda_gdeflate needs a CUDA GPU; run scripts/gpu-check on a GPU machine\n");
        return 0;
    }
    int small = getenv("OC_TEST_SMALL") != NULL;
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CUDA;
    CHECK_OK(oc_context_create(&co, &g_gpu));
    co.engine = OC_ENGINE_CPU;
    CHECK_OK(oc_context_create(&co, &g_cpu));
    CHECK_EQ(oc_algorithm_decode_available(OC_ENGINE_CUDA, OC_ALGO_GDEFLATE), 1);
    CHECK_EQ(oc_algorithm_available(OC_ENGINE_CUDA, OC_ALGO_GDEFLATE), 1);
    compress_checks(small);

    tu_rng r;
    tu_rng_seed(&r, 2026);
    tu_buf corpus[TU_CORPUS_MAX];
    size_t nc = tu_corpus(corpus, TU_CORPUS_MAX, 65536);
    static const size_t sizes[] = {0, 1, 31, 33, 1000, 65535, 65536};
    for (size_t i = 0; i < nc; i++) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s] < corpus[i].size ? sizes[s] : corpus[i].size;
            add_page(corpus[i].data, n, 1 + 4 * (int)(s % 3), s == 6 ? (small ? 10 : 40) : 0, &r);
        }
    }
    for (size_t i = 0; i < nc; i++)
        tu_buf_free(&corpus[i]);
    static const char *const files[] = {"text_linux_docs.txt",     "tpch_l_comment.txt",
                                        "tpch_l_partkey.i32",      "tpch_l_extendedprice.f64",
                                        "weights_minilm_l0-1.f32", "elf_gdb_cmake_libstdcxx.tar"};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[512];
        snprintf(path, sizeof path, "%s/bench/corpus-data/%s", OC_SOURCE_DIR, files[f]);
        tu_buf b;
        if (tu_read_file(path, (small ? 1u : 8u) << 20, &b) != 0) {
            tu_buf_free(&b); /* tu_read_file leaves a 1-byte buffer on failure */
            continue;
        }
        for (size_t off = 0, k = 0; off < b.size; off += 65536, k++) {
            size_t n = b.size - off < 65536 ? b.size - off : 65536;
            add_page(b.data + off, n, 1 + (int)(k % 9), k % 16 == 0 ? 8 : 0, &r);
        }
        tu_buf_free(&b);
    }
    uint8_t *page = tu_xmalloc(65536), *data = tu_xmalloc(MB_MAX_DATA), *m = tu_xmalloc(65536);
    for (int i = 0; i < (small ? 40 : 200); i++) {
        size_t dn = 0, pn = mb_random_page(&r, page, data, &dn);
        add(page, pn, dn);
        memcpy(m, page, pn);
        m[tu_rng_below(&r, pn)] ^= (uint8_t)(1u << tu_rng_below(&r, 8));
        add(m, i % 2 ? pn : (size_t)tu_rng_below(&r, pn + 1), dn);
    }
    for (size_t i = 0; i < GDV_COUNT; i++) { /* nvCOMP's pages, whole, one byte short, damaged */
        const gdv_vector *v = &gdv_vectors[i];
        tu_buf b;
        CHECK_MSG(gdv_load(v, &b) == 0, "missing test vector %s", v->file);
        CHECK(g_m < MAX_ITEMS);
        add(b.data, b.size, v->raw_size);
        const item *x = &g_items[g_m - 1];
        CHECK_MSG(x->want == OC_OK && x->want_n == v->raw_size &&
                      gdv_crc32(x->want_bytes, x->want_n) == v->crc32,
                  "%s on the CPU engine: %s, %zu bytes", v->file, oc_status_name(x->want), x->want_n);
        add(b.data, b.size, v->raw_size - 1);
        for (int k = 0; k < 8; k++) {
            memcpy(m, b.data, b.size);
            m[tu_rng_below(&r, b.size)] ^= (uint8_t)(1u << tu_rng_below(&r, 8));
            add(m, k % 2 ? b.size : (size_t)tu_rng_below(&r, b.size + 1), v->raw_size);
        }
        tu_buf_free(&b);
    }
    for (int i = 0; i < 200; i++) { /* garbage */
        size_t n = (size_t)tu_rng_below(&r, 2048);
        for (size_t k = 0; k < n; k++)
            m[k] = (uint8_t)tu_rng_next(&r);
        add(m, n, 65536);
    }
    free(page), free(data), free(m);
    run_batch();
    for (size_t i = 0; i < g_m; i++)
        free(g_items[i].page), free(g_items[i].want_bytes);
    oc_context_destroy(g_gpu);
    oc_context_destroy(g_cpu);
    printf("test_cuda_gdeflate: ok\n");
    return 0;
}
