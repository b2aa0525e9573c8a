/*
 * test_cuda_zstd_shapes.c - every shape of frame stock zstd writes decodes
 * on the GPU (issue 14's correctness list): the levels from -5 to 22,
 * frames without a content size, with and without a checksum, several
 * frames in one chunk, skippable frames before, between and after them,
 * raw and RLE blocks, empty and one-byte frames, and long-distance
 * (`--long`) frames whose matches reach more than the default window back.
 * The other GPU zstd tests use levels 1, 3 and 19 and one frame a chunk;
 * the host core tests (test_zstd_gpu_core.c) run these shapes one lane at a
 * time, and this runs them on the device.  Runs on a GPU machine
 * (scripts/gpu-check); without a GPU it says SKIP and passes.
 *
 * Guards, per chunk, through the public call, the per-chunk kernel and the
 * frame kernel (both forced):
 *   - each intact chunk decodes OK to its exact input, with no byte written
 *     past its size (guard bytes), and libzstd agrees;
 *   - each chunk also cut in half and with a flipped byte: the three paths
 *     give the same status and size, never OK where libzstd refuses, and
 *     an OK one is libzstd's bytes.
 * OC_TEST_SMALL=1 shrinks the data (for compute-sanitizer runs).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "cuda/runtime/cuda_engine.h"

#include "helpers/dev_batch.h"
#include "helpers/dev_mem.h"
#include "helpers/soft_check.h"
#include "helpers/tu_rng.h"
#include "helpers/zstd_ref.h"

#define MAXC 64
#define GUARD DEV_BATCH_GUARD

static tu_rng g_rng; /* seeded in main */

/* The chunks: compressed bytes, the bytes they decode to, a name. */
static uint8_t *g_comp[MAXC], *g_orig[MAXC];
static size_t g_clen[MAXC], g_olen[MAXC], g_n;
static const char *g_name[MAXC];

static void add(const char *name, uint8_t *comp, size_t clen, const uint8_t *orig, size_t olen)
{
    REQUIRE(g_n < MAXC);
    uint8_t *o = malloc(olen ? olen : 1);
    REQUIRE(o);
    memcpy(o, orig, olen);
    g_name[g_n] = name, g_comp[g_n] = comp, g_clen[g_n] = clen, g_orig[g_n] = o, g_olen[g_n] = olen;
    g_n++;
}

/* A frame with long-distance matching and window log wlog (zstd --long). */
static uint8_t *compress_long(const uint8_t *src, size_t n, int wlog, size_t *zn)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    REQUIRE(c);
    REQUIRE(!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 3)));
    REQUIRE(!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_enableLongDistanceMatching, 1)));
    REQUIRE(!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_windowLog, wlog)));
    REQUIRE(!ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1)));
    size_t cap = ZSTD_compressBound(n);
    uint8_t *out = malloc(cap);
    REQUIRE(out);
    size_t r = ZSTD_compress2(c, out, cap, src, n);
    REQUIRE(!ZSTD_isError(r));
    ZSTD_freeCCtx(c);
    *zn = r;
    return out;
}

/* Concatenation of up to four byte strings (frames, skippable frames). */
static uint8_t *concat(const uint8_t *const *part, const size_t *len, int k, size_t *total)
{
    size_t t = 0;
    for (int i = 0; i < k; i++)
        t += len[i];
    uint8_t *o = malloc(t);
    REQUIRE(o);
    for (int i = 0, at = 0; i < k; at += (int)len[i], i++)
        memcpy(o + at, part[i], len[i]);
    *total = t;
    return o;
}

/* A skippable frame (magic 0x184D2A5m) carrying n bytes of payload. */
static size_t skippable(uint8_t *out, unsigned m, size_t n)
{
    uint32_t magic = 0x184D2A50u | (m & 15u), sz = (uint32_t)n;
    for (int i = 0; i < 4; i++)
        out[i] = (uint8_t)(magic >> (8 * i)), out[4 + i] = (uint8_t)(sz >> (8 * i));
    for (size_t i = 0; i < n; i++)
        out[8 + i] = (uint8_t)tu_rng_next(&g_rng);
    return 8 + n;
}

static uint8_t *read_file(const char *path, size_t want, size_t *got)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *b = malloc(want);
    REQUIRE(b);
    *got = fread(b, 1, want, f);
    fclose(f);
    return b;
}

static void build(int small)
{
    size_t tn = 0, en = 0;
    size_t text_want = small ? (256u << 10) : (1u << 20);
    uint8_t *text = read_file(OC_SOURCE_DIR "/bench/corpus-sample/text_linux_docs.txt", text_want, &tn);
    uint8_t *elf = read_file(OC_SOURCE_DIR "/bench/corpus-sample/elf_gdb_cmake_libstdcxx.tar", 65536, &en);
    if (!text || !elf || tn < text_want || en < 65536) {
        free(text), free(elf);
        return;
    }
    size_t zn;
    /* every level band: negative (fast), 1-2, 3-4 (dfast), lazy, btlazy2, btopt, btultra */
    static const int levels[] = {-5, -1, 1, 2, 3, 4, 6, 9, 12, 15, 19, 22};
    static const char *lnames[] = {"text -5", "text -1", "text 1",  "text 2",  "text 3",  "text 4",
                                   "text 6",  "text 9",  "text 12", "text 15", "text 19", "text 22"};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        if (small && i % 3 != 0)
            continue;
        uint8_t *z = zstd_ref_compress(text, tn, levels[i], (int)(i & 1), 1, 0, &zn);
        add(lnames[i], z, zn, text, tn);
    }
    uint8_t *z = zstd_ref_compress(elf, 65536, 19, 1, 1, 0, &zn);
    add("elf 64 KiB 19", z, zn, elf, 65536);
    /* no content size in the header (streamed frames), with and without a checksum */
    z = zstd_ref_compress(text, tn, 3, 1, 0, 0, &zn);
    add("no content size, checksum", z, zn, text, tn);
    z = zstd_ref_compress(text, tn, 1, 0, 0, 20000, &zn);
    add("no content size, flushed blocks", z, zn, text, tn);

    /* several frames a chunk, and skippable frames around and between them */
    size_t h = tn / 2, l1, l2, l3;
    uint8_t *f1 = zstd_ref_compress(text, h, 1, 1, 1, 0, &l1);
    uint8_t *f2 = zstd_ref_compress(text + h, tn - h, 19, 0, 0, 0, &l2);
    uint8_t *f3 = zstd_ref_compress(elf, 65536, 3, 1, 1, 0, &l3);
    uint8_t *cat = malloc(tn + 65536);
    REQUIRE(cat);
    memcpy(cat, text, tn);
    memcpy(cat + tn, elf, 65536);
    {
        const uint8_t *p[] = {f1, f2};
        size_t l[] = {l1, l2};
        z = concat(p, l, 2, &zn);
        add("two frames", z, zn, text, tn);
    }
    {
        const uint8_t *p[] = {f1, f2, f3};
        size_t l[] = {l1, l2, l3};
        z = concat(p, l, 3, &zn);
        add("three frames", z, zn, cat, tn + 65536);
    }
    uint8_t s0[8 + 100], s1[8 + 0], s2[8 + 4096];
    size_t k0 = skippable(s0, 0, 100), k1 = skippable(s1, 7, 0), k2 = skippable(s2, 15, 4096);
    {
        const uint8_t *p[] = {s0, f1, s1, f2};
        size_t l[] = {k0, l1, k1, l2};
        z = concat(p, l, 4, &zn);
        add("skippable, frame, skippable, frame", z, zn, text, tn);
    }
    {
        const uint8_t *p[] = {f3, s2};
        size_t l[] = {l3, k2};
        z = concat(p, l, 2, &zn);
        add("frame, skippable", z, zn, elf, 65536);
    }
    free(f1), free(f2), free(f3), free(cat);

    /* raw blocks (random bytes), RLE blocks (one byte repeated), both in one frame */
    size_t rn = small ? 200000 : 600000;
    uint8_t *mix = malloc(3 * rn);
    REQUIRE(mix);
    for (size_t i = 0; i < rn; i++)
        mix[i] = (uint8_t)tu_rng_next(&g_rng);
    memset(mix + rn, 0x5A, rn);
    memcpy(mix + 2 * rn, text, rn < tn ? rn : tn);
    size_t mn = 2 * rn + (rn < tn ? rn : tn);
    z = zstd_ref_compress(mix, rn, 3, 1, 1, 0, &zn);
    add("raw blocks", z, zn, mix, rn);
    z = zstd_ref_compress(mix + rn, rn, 3, 0, 1, 0, &zn);
    add("RLE blocks", z, zn, mix + rn, rn);
    z = zstd_ref_compress(mix, mn, 3, 1, 0, 0, &zn);
    add("raw, RLE and compressed blocks", z, zn, mix, mn);
    free(mix);

    /* empty and one-byte frames */
    uint8_t one = 'x';
    z = zstd_ref_compress(&one, 0, 3, 1, 1, 0, &zn);
    add("empty, checksum", z, zn, &one, 0);
    z = zstd_ref_compress(&one, 0, 3, 0, 0, 0, &zn);
    add("empty, no content size", z, zn, &one, 0);
    z = zstd_ref_compress(&one, 1, 3, 1, 1, 0, &zn);
    add("one byte", z, zn, &one, 1);

    /* --long: a random stretch repeated after more than the default window
     * (8 MiB at level 3), so only long-distance matching finds it */
    size_t a = small ? (256u << 10) : (1u << 20), gap = small ? (9u << 20) : (10u << 20);
    size_t ln = 2 * a + gap;
    uint8_t *lg = malloc(ln);
    REQUIRE(lg);
    for (size_t i = 0; i < a + gap; i++)
        lg[i] = (uint8_t)tu_rng_next(&g_rng);
    memcpy(lg + a + gap, lg, a);
    z = compress_long(lg, ln, 27, &zn);
    EXPECT(zn < ln - a / 2, "--long frame of %zu bytes: %zu compressed, the repeat not found", ln, zn);
    add("--long, window 2^27", z, zn, lg, ln);
    free(lg);
    free(text), free(elf);
}

/* Runs the batch through one path (a DEV_BATCH_* op with its flags). */
static void run_path(int op, int flags, size_t n, uint8_t **comp, const size_t *clen, const size_t *caps,
                     uint8_t *out, size_t *sz, oc_status *st)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_ZSTD;
    dev_batch_run(op, &o, n, (const uint8_t *const *)comp, clen, caps, flags, out, sz, st);
}

int main(void)
{
    if (!dev_gpu_begin("test_cuda_zstd_shapes"))
        return 0;
    int small = getenv("OC_TEST_SMALL") != NULL;
    tu_rng_seed(&g_rng, 0x9E3779B97F4A7C15ull);
    build(small);
    if (g_n == 0) {
        printf("SKIP: test_cuda_zstd_shapes needs bench/corpus-sample\n");
        return 0;
    }
    /* each chunk intact, cut in half, and with a byte flipped */
    size_t n = 3 * g_n;
    uint8_t **comp = calloc(n, sizeof *comp);
    size_t *clen = calloc(n, sizeof *clen), *caps = calloc(n, sizeof *caps), *off = calloc(n, sizeof *off);
    REQUIRE(comp && clen && caps && off);
    for (size_t i = 0; i < g_n; i++)
        for (size_t v = 0; v < 3; v++) {
            size_t k = 3 * i + v;
            comp[k] = malloc(g_clen[i]);
            REQUIRE(comp[k]);
            memcpy(comp[k], g_comp[i], g_clen[i]);
            clen[k] = v == 1 ? g_clen[i] / 2 : g_clen[i];
            if (v == 2)
                comp[k][tu_rng_below(&g_rng, g_clen[i])] ^= (uint8_t)(1u << tu_rng_below(&g_rng, 8));
            caps[k] = g_olen[i];
        }
    size_t total = dev_batch_slots(n, caps, off), maxo = 1;
    for (size_t k = 0; k < n; k++)
        maxo = caps[k] > maxo ? caps[k] : maxo;
    uint8_t *out[3], *ref = malloc(maxo);
    size_t *sz[3];
    oc_status *st[3];
    REQUIRE(ref);
    static const int ops[3] = {DEV_BATCH_DECOMPRESS, DEV_BATCH_ZSTD_PER_CHUNK, DEV_BATCH_ZSTD_FRAMES};
    static const int flags[3] = {DEV_BATCH_PUBLIC, 0, DEV_BATCH_DEVICE_ARRAYS};
    static const char *paths[3] = {"public call", "per-chunk kernel", "frame kernel"};
    for (int p = 0; p < 3; p++) {
        out[p] = malloc(total), sz[p] = calloc(n, sizeof(size_t)), st[p] = calloc(n, sizeof(oc_status));
        REQUIRE(out[p] && sz[p] && st[p]);
        run_path(ops[p], flags[p], n, comp, clen, caps, out[p], sz[p], st[p]);
    }
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    REQUIRE(dctx);
    REQUIRE(!ZSTD_isError(ZSTD_DCtx_setParameter(dctx, ZSTD_d_windowLogMax, 27)));
    size_t refused = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = k / 3, v = k % 3;
        size_t r = ZSTD_decompressDCtx(dctx, ref, caps[k], comp[k], clen[k]);
        int lib_ok = !ZSTD_isError(r);
        if (v == 0)
            EXPECT(lib_ok && r == g_olen[i], "%s: libzstd %s", g_name[i],
                   lib_ok ? "short" : ZSTD_getErrorName(r));
        for (int p = 0; p < 3; p++) {
            const uint8_t *o = out[p] + off[k];
            if (v == 0)
                EXPECT(st[p][k] == OC_OK && sz[p][k] == g_olen[i] && memcmp(o, g_orig[i], g_olen[i]) == 0,
                       "%s, %s: %s, %zu bytes of %zu%s", g_name[i], paths[p], oc_status_name(st[p][k]),
                       sz[p][k], g_olen[i], st[p][k] == OC_OK ? " (or other bytes)" : "");
            else if (st[p][k] == OC_OK)
                EXPECT(lib_ok && r == sz[p][k] && memcmp(o, ref, r) == 0, "%s (%s), %s: OK where libzstd %s",
                       g_name[i], v == 1 ? "cut" : "flipped", paths[p],
                       lib_ok ? "differs" : ZSTD_getErrorName(r));
            if (p > 0)
                EXPECT(st[p][k] == st[0][k] && sz[p][k] == sz[0][k], "%s (variant %zu): %s %s %zu, %s %s %zu",
                       g_name[i], v, paths[p], oc_status_name(st[p][k]), sz[p][k], paths[0],
                       oc_status_name(st[0][k]), sz[0][k]);
            if (st[p][k] == OC_OK)
                for (size_t b = sz[p][k]; b < caps[k] + GUARD; b++)
                    if (o[b] != DEV_BATCH_GUARD_BYTE) {
                        EXPECT(0, "%s (variant %zu), %s: byte %zu past its size %zu written", g_name[i], v,
                               paths[p], b, sz[p][k]);
                        break;
                    }
        }
        refused += v > 0 && st[0][k] != OC_OK;
    }
    ZSTD_freeDCtx(dctx);
    EXPECT(refused > 0, "no damaged chunk refused: the damage checks ran on nothing");
    printf("  %zu shapes, %zu chunks (intact, cut, flipped) through 3 paths: %zu damaged ones refused\n", g_n,
           n, refused);

    oc_cuda_context_release(&g_ctx);
    for (size_t k = 0; k < n; k++)
        free(comp[k]);
    for (size_t i = 0; i < g_n; i++)
        free(g_comp[i]), free(g_orig[i]);
    for (int p = 0; p < 3; p++)
        free(out[p]), free(sz[p]), free(st[p]);
    free(comp), free(clen), free(caps), free(off), free(ref);
    if (g_failures) {
        printf("test_cuda_zstd_shapes: %d failures\n", g_failures);
        return 1;
    }
    printf(
        "test_cuda_zstd_shapes: every shape decodes on the GPU as libzstd decodes it, all checks passed\n");
    return 0;
}
