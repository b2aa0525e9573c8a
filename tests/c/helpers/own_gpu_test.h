/*
 * own_gpu_test.h - what the GPU tests of our own formats
 * (test_cuda_cascaded.c, test_cuda_bitcomp.c, test_cuda_ans.c) share,
 * written once: device buffers through the public API, the data columns'
 * type and generator, batches of chunks, compressing on either engine,
 * decoding on the GPU into capacities followed by guard bytes (checked),
 * the CPU's decode, and the check that the GPU gives the CPU's status and
 * bytes on hostile streams.  A test defines OWN_GPU_TEST_ALGO (its
 * oc_algorithm) and includes this header first (after
 * _POSIX_C_SOURCE); the functions are static, in the test's own unit,
 * because soft_check.h's failure count is the test's.
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

#include "soft_check.h"
#include "opencomp.h"

#define GUARD 64
#define GUARD_BYTE 0xA5
#define MAXN 2048

static oc_context *g_gpu, *g_cpu;
static int g_small;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void *dev_alloc(size_t n)
{
    void *p = NULL;
    REQUIRE(oc_memory_alloc(g_gpu, OC_MEMORY_DEVICE, n ? n : 1, &p) == OC_OK);
    return p;
}
static void dev_free(void *p, size_t n)
{
    oc_memory_free(g_gpu, OC_MEMORY_DEVICE, p, n ? n : 1);
}
static void copy(void *dst, const void *src, size_t n)
{
    if (n) {
        REQUIRE(oc_memory_copy(g_gpu, dst, src, n) == OC_OK);
        REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    }
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
 * checked); out (host) gets each region. */
static void gpu_decode(size_t n, const uint8_t *const *src, const size_t *len, const size_t *caps,
                       uint8_t **out, size_t *sizes, oc_status *st)
{
    size_t in_total = 0, out_total = 0;
    for (size_t i = 0; i < n; i++)
        in_total += len[i], out_total += caps[i] + GUARD;
    uint8_t *din = dev_alloc(in_total), *dout = dev_alloc(out_total);
    uint8_t *fill = malloc(out_total + 1);
    REQUIRE(fill);
    memset(fill, GUARD_BYTE, out_total);
    copy(dout, fill, out_total);
    const void *sp[MAXN];
    void *dp[MAXN];
    size_t io = 0, oo = 0;
    for (size_t i = 0; i < n; i++) {
        /* each stream exactly sized: compute-sanitizer sees any overread */
        copy(din + io, src[i], len[i]);
        sp[i] = din + io, dp[i] = dout + oo;
        io += len[i], oo += caps[i] + GUARD;
    }
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OWN_GPU_TEST_ALGO;
    CHECK(oc_batch_decompress(g_gpu, &o, n, sp, len, dp, caps, sizes, st) == OC_OK);
    REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    copy(fill, dout, out_total);
    oo = 0;
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

#endif /* OC_OWN_GPU_TEST_H */
