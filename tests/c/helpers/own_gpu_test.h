/*
 * own_gpu_test.h - what the GPU tests of our own formats
 * (test_cuda_cascaded.c, test_cuda_bitcomp.c, test_cuda_ans.c) share,
 * written once: device buffers (helpers/dev_mem.h), the data columns'
 * type and generator, batches of chunks, compressing on either engine,
 * decoding on the GPU into capacities followed by guard bytes (checked),
 * the CPU's decode, the check that the GPU gives the CPU's status and
 * bytes on hostile streams, and the five checks every such test makes
 * (same_bytes, large_chunk, hostile, sizes, speed; each test's header
 * comment says what they guard for its codec).  A test defines
 * OWN_GPU_TEST_ALGO (its oc_algorithm) and includes this header first
 * (after _POSIX_C_SOURCE), defines options_label (how its options read in
 * the log) and calls own_gpu_begin/own_gpu_end around its checks; the
 * functions are static, in the test's own unit, because soft_check.h's
 * failure count is the test's.
 */
#ifndef OC_OWN_GPU_TEST_H
#define OC_OWN_GPU_TEST_H

#ifndef OWN_GPU_TEST_ALGO
#error "define OWN_GPU_TEST_ALGO (the test's oc_algorithm) before including own_gpu_test.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dev_mem.h"
#include "soft_check.h"
#include "opencomp.h"

#define GUARD 64
#define GUARD_BYTE 0xA5
#define MAXN 2048

static oc_context *g_cpu; /* g_gpu: dev_mem.h */
static int g_small;
static size_t g_out_skew; /* gpu_decode's outputs start this many bytes past an aligned address */
/* The data type that gpu_decode and the GPU size query pass in the options
 * (OC_TYPE_DEFAULT: none).  A GPU decoder may take it as a hint of the
 * chunks' shape (ANS: CTAs of 2 warps for 16-bit types); the bytes and
 * statuses must not depend on it. */
static oc_data_type g_decode_type;

/* The test's own: its options as the log lines name them. */
static void options_label(const oc_typed_options *t, char *buf, size_t n);

/* Creates the two contexts; 0 (after saying why) without a GPU, where the
 * test passes: CI has none, scripts/gpu-check runs it on a GPU machine.
 * OC_TEST_SMALL (as under compute-sanitizer) makes the checks small. */
static int own_gpu_begin(const char *test)
{
    if (oc_cuda_device_count() == 0) {
        printf("SKIP: %s needs a CUDA GPU (%s); run scripts/gpu-check on a GPU machine\n", test,
               oc_build_info());
        return 0;
    }
    g_small = getenv("OC_TEST_SMALL") != NULL;
    oc_context_options go = OC_CONTEXT_OPTIONS_INIT, co = OC_CONTEXT_OPTIONS_INIT;
    go.engine = OC_ENGINE_CUDA;
    co.engine = OC_ENGINE_CPU;
    REQUIRE(oc_context_create(&go, &g_gpu) == OC_OK);
    REQUIRE(oc_context_create(&co, &g_cpu) == OC_OK);
    return 1;
}

/* The test's exit status, after its verdict line. */
static int own_gpu_end(const char *test)
{
    oc_context_destroy(g_gpu);
    oc_context_destroy(g_cpu);
    printf("%s: %s\n", test, g_failures ? "FAILED" : "passed");
    return g_failures != 0;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- data ----------------------------------------------------------------------- */

typedef struct column {
    const char *name;
    oc_data_type type;
    uint8_t *data;
    size_t size;
} column;

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

static uint8_t *read_file(const char *path, size_t max, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    uint8_t *buf = malloc(max ? max : 1);
    REQUIRE(buf);
    *n = fread(buf, 1, max, f);
    fclose(f);
    return buf;
}

/* ---- batches ---------------------------------------------------------------------- */

typedef struct batch {
    size_t n;
    const uint8_t *src[MAXN];
    size_t len[MAXN];
} batch;

static void batch_of(batch *b, const uint8_t *data, size_t size, size_t chunk, size_t max_chunks)
{
    b->n = 0;
    for (size_t off = 0; off < size && b->n < max_chunks; off += chunk) {
        b->src[b->n] = data + off;
        b->len[b->n++] = size - off < chunk ? size - off : chunk;
    }
}

/* Compresses b with `ctx` (host buffers for the CPU, device buffers for
 * the GPU); returns the streams in one host buffer (slot `slot` each). */
static uint8_t *compress(oc_context *ctx, int gpu, const batch *b, const oc_typed_options *t, size_t slot,
                         size_t *sizes, oc_status *st)
{
    size_t in_total = 0;
    for (size_t i = 0; i < b->n; i++)
        in_total += b->len[i];
    uint8_t *host = malloc(b->n * slot + 1);
    REQUIRE(host);
    const void *sp[MAXN];
    void *dp[MAXN];
    size_t caps[MAXN];
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OWN_GPU_TEST_ALGO;
    o.typed = *t;
    if (!gpu) {
        for (size_t i = 0; i < b->n; i++)
            sp[i] = b->src[i], dp[i] = host + i * slot, caps[i] = slot;
        CHECK(oc_batch_compress(ctx, &o, b->n, sp, b->len, dp, caps, sizes, st) == OC_OK);
        return host;
    }
    uint8_t *din = dev_alloc(in_total), *dout = dev_alloc(b->n * slot);
    size_t off = 0;
    for (size_t i = 0; i < b->n; i++) {
        copy(din + off, b->src[i], b->len[i]);
        sp[i] = din + off, dp[i] = dout + i * slot, caps[i] = slot;
        off += b->len[i];
    }
    CHECK(oc_batch_compress(ctx, &o, b->n, sp, b->len, dp, caps, sizes, st) == OC_OK);
    REQUIRE(oc_context_synchronize(ctx) == OC_OK);
    copy(host, dout, b->n * slot);
    dev_free(din, in_total);
    dev_free(dout, b->n * slot);
    return host;
}

/* Decodes n streams on the GPU into capacities caps[i] (+ guard bytes,
 * checked), the first g_out_skew bytes into the buffer (1: every output at
 * an odd address when the capacities are even); out (host) gets each
 * region. */
static void gpu_decode(size_t n, const uint8_t *const *src, const size_t *len, const size_t *caps,
                       uint8_t **out, size_t *sizes, oc_status *st)
{
    size_t in_total = 0, out_total = g_out_skew;
    for (size_t i = 0; i < n; i++)
        in_total += len[i], out_total += caps[i] + GUARD;
    uint8_t *din = dev_alloc(in_total), *dout = dev_alloc(out_total);
    uint8_t *fill = malloc(out_total + 1);
    REQUIRE(fill);
    memset(fill, GUARD_BYTE, out_total);
    copy(dout, fill, out_total);
    const void *sp[MAXN];
    void *dp[MAXN];
    size_t io = 0, oo = g_out_skew;
    for (size_t i = 0; i < n; i++) {
        /* each stream exactly sized: compute-sanitizer sees any overread */
        copy(din + io, src[i], len[i]);
        sp[i] = din + io, dp[i] = dout + oo;
        io += len[i], oo += caps[i] + GUARD;
    }
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OWN_GPU_TEST_ALGO;
    o.typed.data_type = g_decode_type;
    CHECK(oc_batch_decompress(g_gpu, &o, n, sp, len, dp, caps, sizes, st) == OC_OK);
    REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    copy(fill, dout, out_total);
    oo = g_out_skew;
    for (size_t i = 0; i < n; i++) {
        if (out) {
            out[i] = malloc(caps[i] + 1);
            REQUIRE(out[i]);
            memcpy(out[i], fill + oo, caps[i]);
        }
        for (size_t g = 0; g < GUARD; g++)
            EXPECT(fill[oo + caps[i] + g] == GUARD_BYTE, "chunk %zu: byte %zu past the capacity written", i,
                   g);
        oo += caps[i] + GUARD;
    }
    free(fill);
    dev_free(din, in_total);
    dev_free(dout, out_total);
}

static oc_status cpu_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *size)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OWN_GPU_TEST_ALGO;
    const void *sp = src;
    void *dp = dst;
    oc_status st = OC_ERR_INTERNAL;
    CHECK(oc_batch_decompress(g_cpu, &o, 1, &sp, &n, &dp, &cap, size, &st) == OC_OK);
    return st;
}

/* ---- hostile input: the GPU gives the CPU's status and bytes ----------------------- */

static void same_status(const char *what, size_t n, const uint8_t *const *src, const size_t *len,
                        const size_t *cap)
{
    uint8_t *out[MAXN];
    size_t gs[MAXN];
    oc_status gst[MAXN];
    gpu_decode(n, src, len, cap, out, gs, gst);
    for (size_t i = 0; i < n; i++) {
        uint8_t *ref = malloc(cap[i] + 1);
        size_t cs = 0;
        oc_status cst = cpu_decode(src[i], len[i], ref, cap[i], &cs);
        EXPECT(gst[i] == cst, "%s #%zu (%zu bytes): GPU %s, CPU %s", what, i, len[i], oc_status_name(gst[i]),
               oc_status_name(cst));
        if (gst[i] == OC_OK && cst == OC_OK)
            EXPECT(gs[i] == cs && !memcmp(out[i], ref, cs), "%s #%zu: GPU bytes differ", what, i);
        free(ref);
        free(out[i]);
    }
}

/* ---- (1) the same bytes, both ways ---------------------------------------------- */

static void same_bytes(const column *c, size_t chunk, size_t max_chunks, const oc_typed_options *t)
{
    char label[64];
    options_label(t, label, sizeof label);
    batch b;
    batch_of(&b, c->data, c->size, chunk, max_chunks);
    size_t slot = oc_compress_bound(OWN_GPU_TEST_ALGO, chunk);
    size_t cs[MAXN], gs[MAXN];
    oc_status cst[MAXN], gst[MAXN];
    uint8_t *cpu = compress(g_cpu, 0, &b, t, slot, cs, cst);
    uint8_t *gpu = compress(g_gpu, 1, &b, t, slot, gs, gst);
    size_t comp = 0;
    const uint8_t *streams[MAXN] = {0};
    for (size_t i = 0; i < b.n; i++) {
        EXPECT(cst[i] == OC_OK && gst[i] == OC_OK, "%s chunk %zu: statuses %d/%d", c->name, i, cst[i],
               gst[i]);
        EXPECT(cs[i] == gs[i] && !memcmp(cpu + i * slot, gpu + i * slot, cs[i]),
               "%s %s chunk %zu: GPU bytes differ from the CPU's (%zu vs %zu)", c->name, label, i, gs[i],
               cs[i]);
        streams[i] = gpu + i * slot;
        comp += gs[i];
    }
    /* the GPU decodes the streams; the CPU decodes them too */
    uint8_t *out[MAXN];
    size_t ds[MAXN];
    oc_status dst[MAXN];
    gpu_decode(b.n, streams, gs, b.len, out, ds, dst);
    for (size_t i = 0; i < b.n; i++) {
        EXPECT(dst[i] == OC_OK && ds[i] == b.len[i] && !memcmp(out[i], b.src[i], b.len[i]),
               "%s chunk %zu: GPU decode %d size %zu", c->name, i, dst[i], ds[i]);
        uint8_t *back = malloc(b.len[i] + 1);
        size_t got = 0;
        EXPECT(cpu_decode(streams[i], gs[i], back, b.len[i], &got) == OC_OK && got == b.len[i] &&
                   !memcmp(back, b.src[i], b.len[i]),
               "%s chunk %zu: CPU decode of the GPU stream", c->name, i);
        free(back);
        free(out[i]);
    }
    printf("%-24s %-26s chunk %7zu: %zu chunks, ratio %.3f, GPU = CPU bytes\n", c->name, label, chunk, b.n,
           comp ? (double)c->size / (double)comp : 0.0);
    free(cpu);
    free(gpu);
}

/* ---- (2) one large chunk ---------------------------------------------------------- */

static void large_chunk(const column *c, const oc_typed_options *t)
{
    batch b = {1, {c->data}, {c->size}};
    size_t slot = oc_compress_bound(OWN_GPU_TEST_ALGO, c->size), size = 0;
    oc_status st = OC_ERR_INTERNAL;
    uint8_t *cpu = compress(g_cpu, 0, &b, t, slot, &size, &st);
    REQUIRE(st == OC_OK);
    const uint8_t *s = cpu;
    uint8_t *out = NULL;
    size_t ds = 0;
    oc_status dst = OC_ERR_INTERNAL;
    gpu_decode(1, &s, &size, &c->size, &out, &ds, &dst);
    EXPECT(dst == OC_OK && ds == c->size && !memcmp(out, c->data, c->size), "one chunk of %zu bytes: %d",
           c->size, dst);
    printf("one chunk of %zu bytes: decoded on the GPU\n", c->size);
    free(out);
    free(cpu);
}

/* ---- (3) hostile input ------------------------------------------------------------ */

/* 0: hostile()'s full lists; else about this many prefixes and as many byte
 * flips a stream, spread over it (a test's racecheck-sized run) */
static size_t g_hostile_sample;

static void hostile(const column *c, const oc_typed_options *t)
{
    size_t chunk = 65536, slot = oc_compress_bound(OWN_GPU_TEST_ALGO, chunk);
    batch b;
    batch_of(&b, c->data, c->size < chunk ? c->size : chunk, chunk, 1);
    size_t size = 0;
    oc_status st;
    uint8_t *s = compress(g_cpu, 0, &b, t, slot, &size, &st);
    REQUIRE(st == OC_OK);
    /* prefixes: all of them up to 600 bytes, then a sample */
    const uint8_t *src[MAXN] = {NULL};
    size_t len[MAXN] = {0}, cap[MAXN] = {0}, n = 0;
    for (size_t k = 0; k < size && n < MAXN; k += g_hostile_sample ? 1 + size / g_hostile_sample
                                                  : k < 600        ? 1
                                                                   : 1 + size / 400) {
        uint8_t *p = malloc(k + 1);
        memcpy(p, s, k);
        src[n] = p, len[n] = k, cap[n++] = chunk;
    }
    same_status("prefix", n, src, len, cap);
    for (size_t i = 0; i < n; i++)
        free((void *)src[i]);
    /* byte flips everywhere (sampled), and small capacities */
    n = 0;
    for (size_t k = 0; k < size && n < MAXN; k += 1 + size / (g_hostile_sample ? g_hostile_sample : 1500)) {
        uint8_t *p = malloc(size);
        memcpy(p, s, size);
        p[k] ^= (uint8_t)(1u << (k % 8));
        src[n] = p, len[n] = size, cap[n++] = (k % 5 == 0) ? (k * 37) % chunk : chunk;
    }
    same_status("flip", n, src, len, cap);
    for (size_t i = 0; i < n; i++)
        free((void *)src[i]);
    /* a tile table whose ends decrease, and one past the chunk */
    uint8_t *p = malloc(size), *q = malloc(size);
    memcpy(p, s, size);
    memcpy(q, s, size);
    p[8] = p[12], p[9] = p[13], p[10] = (uint8_t)(p[14] + 1), p[11] = p[15];
    q[8 + 4 * 3] ^= 0x40;
    const uint8_t *two[2] = {p, q};
    size_t two_len[2] = {size, size}, two_cap[2] = {chunk, chunk};
    same_status("tile table", 2, two, two_len, two_cap);
    free(p);
    free(q);
    /* (5) one byte too little output */
    size_t one = b.len[0] - 1;
    const uint8_t *ss = s;
    same_status("capacity - 1", 1, &ss, &size, &one);
    uint8_t *dummy = NULL;
    size_t gsz = 0;
    oc_status gst = OC_OK;
    gpu_decode(1, &ss, &size, &one, &dummy, &gsz, &gst);
    EXPECT(gst == OC_ERR_OUTPUT_TOO_SMALL, "decode into one byte less: %s", oc_status_name(gst));
    free(dummy);
    size_t tight = size - 1, got = 0;
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OWN_GPU_TEST_ALGO;
    o.typed = *t;
    uint8_t *din = dev_alloc(b.len[0]), *dout = dev_alloc(tight);
    copy(din, b.src[0], b.len[0]);
    const void *sp = din;
    void *dp = dout;
    oc_status cst = OC_OK;
    CHECK(oc_batch_compress(g_gpu, &o, 1, &sp, b.len, &dp, &tight, &got, &cst) == OC_OK);
    REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    EXPECT(cst == OC_ERR_OUTPUT_TOO_SMALL, "compress into one byte less: %s", oc_status_name(cst));
    dev_free(din, b.len[0]);
    dev_free(dout, tight);
    free(s);
}

/* ---- (4) the size query ------------------------------------------------------------ */

static void sizes(const column *c, const oc_typed_options *t)
{
    batch b;
    batch_of(&b, c->data, c->size, 65536, 64);
    size_t slot = oc_compress_bound(OWN_GPU_TEST_ALGO, 65536), cs[MAXN];
    oc_status st[MAXN];
    uint8_t *s = compress(g_cpu, 0, &b, t, slot, cs, st);
    s[3 * slot + 20] ^= 0x11; /* one chunk damaged */
    size_t in_total = b.n * slot;
    uint8_t *din = dev_alloc(in_total);
    copy(din, s, in_total);
    const void *sp[MAXN];
    for (size_t i = 0; i < b.n; i++)
        sp[i] = din + i * slot;
    size_t gsz[MAXN], csz[MAXN];
    oc_status gst[MAXN], cst2[MAXN];
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OWN_GPU_TEST_ALGO;
    o.typed.data_type = g_decode_type;
    CHECK(oc_batch_decompressed_sizes(g_gpu, &o, b.n, sp, cs, gsz, gst) == OC_OK);
    REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    o.typed.data_type = OC_TYPE_DEFAULT;
    for (size_t i = 0; i < b.n; i++)
        sp[i] = s + i * slot;
    CHECK(oc_batch_decompressed_sizes(g_cpu, &o, b.n, sp, cs, csz, cst2) == OC_OK);
    for (size_t i = 0; i < b.n; i++)
        EXPECT(gst[i] == cst2[i] && (gst[i] != OC_OK || gsz[i] == csz[i]),
               "size query chunk %zu: %s %zu vs %s %zu", i, oc_status_name(gst[i]), gsz[i],
               oc_status_name(cst2[i]), csz[i]);
    dev_free(din, in_total);
    free(s);
}

/* ---- speed (printed, never checked) --------------------------------------------------- */

static void speed(const column *c, const oc_typed_options *t)
{
    size_t chunk = 65536, total = (size_t)1 << 30, n = total / chunk;
    size_t slot = oc_compress_bound(OWN_GPU_TEST_ALGO, chunk);
    uint8_t *din = dev_alloc(total), *dcomp = dev_alloc(n * slot), *dout = dev_alloc(total);
    for (size_t off = 0; off < total; off += c->size)
        copy(din + off, c->data, total - off < c->size ? total - off : c->size);
    const void **sp = malloc(n * sizeof *sp);
    void **cp = malloc(n * sizeof *cp), **op = malloc(n * sizeof *op);
    size_t *len = malloc(n * sizeof *len), *caps = malloc(n * sizeof *caps), *cs = malloc(n * sizeof *cs);
    oc_status *st = malloc(n * sizeof *st);
    REQUIRE(sp && cp && op && len && caps && cs && st);
    for (size_t i = 0; i < n; i++)
        sp[i] = din + i * chunk, cp[i] = dcomp + i * slot, op[i] = dout + i * chunk, len[i] = chunk,
        caps[i] = slot;
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OWN_GPU_TEST_ALGO;
    o.typed = *t;
    double tc = 1e9, td = 1e9;
    for (int r = 0; r < 3; r++) {
        double t0 = now();
        CHECK(oc_batch_compress(g_gpu, &o, n, sp, len, cp, caps, cs, st) == OC_OK);
        REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
        double t1 = now();
        CHECK(oc_batch_decompress(g_gpu, &o, n, (const void *const *)cp, cs, op, len, NULL, st) == OC_OK);
        REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
        double t2 = now();
        tc = t1 - t0 < tc ? t1 - t0 : tc;
        td = t2 - t1 < td ? t2 - t1 : td;
    }
    size_t comp = 0;
    for (size_t i = 0; i < n; i++)
        comp += cs[i];
    char label[64];
    options_label(t, label, sizeof label);
    printf("speed %-22s %s: 1 GiB of 64 KiB chunks, ratio %.2f, compress %.1f GB/s, decompress %.1f GB/s "
           "(wall clock, host arrays)\n",
           c->name, label, (double)total / (double)comp, (double)total / tc / 1e9, (double)total / td / 1e9);
    dev_free(din, total);
    dev_free(dcomp, n * slot);
    dev_free(dout, total);
    free(sp), free(cp), free(op), free(len), free(caps), free(cs), free(st);
}

#endif /* OC_OWN_GPU_TEST_H */
