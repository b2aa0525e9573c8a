/*
 * test_cuda_filter.c - the stand-alone filters (oc_codec_options.filter:
 * byte shuffle, bitshuffle) on the CUDA engine (src/cuda/runtime/
 * cuda_filter.cu, around any GPU codec), against the CPU engine.
 *
 * Guards, for byte shuffle and bitshuffle at typesizes 1, 2, 3, 4, 8 and
 * 16, around LZ4 and Zstd, on a numeric column cut into chunks whose sizes
 * are not multiples of the typesize (and for bitshuffle: element counts
 * that are and are not multiples of 8, where the chunk goes unfiltered),
 * sizes 0 and 1 among them:
 *   (1) the engine's own call (oc_cuda_batch_compress: no staging is
 *       possible there) filters on the GPU: each chunk, decoded by the CPU
 *       engine WITHOUT the filter, is the host's forward filter of the
 *       input (shuffle.h's oc_filter_buffer), and decoded by the CPU
 *       engine WITH it, the input;
 *   (2) the GPU decodes the CPU engine's filtered chunks to the input, with
 *       the engine's call and the public one, argument arrays in host
 *       memory (the GPU path) and in device memory (staged through the
 *       host: the same bytes and statuses);
 *   (3) damaged chunks (truncated, a byte flipped, a capacity one byte
 *       short, garbage, empty): the GPU's status and size with the filter
 *       are its status and size without it, and the CPU engine's when the
 *       two engines' codecs agree without the filter; a chunk that decodes
 *       gives the host's inverse filter of the unfiltered decode; no byte
 *       past a capacity is written (guard bytes);
 *   (4) the WITH_UNCOMPRESSED_SIZE kind with a filter: the GPU's chunks
 *       decode on the CPU and the CPU's on the GPU.
 * OC_TEST_SMALL (compute-sanitizer runs) cuts the chunks to at most 64 KiB
 * and runs Zstd at typesize 3 only.
 *
 * `test_cuda_filter --speed [MiB]` (default 256) prints, never checks, what
 * the filter costs: GPU LZ4 compression and decoding of 1 MiB chunks of a
 * column with each filter (typesizes 4 and 8) against the same codec work
 * without it (the column filtered on the host; the chunks decoded without
 * the filter), best of 3, and the filter pass's GB/s from the difference
 * (bench/gpu/blosc/NOTES.md).
 *
 * Without a GPU (CI) the test says so and passes; scripts/gpu-check runs it
 * on a GPU machine.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/shuffle.h"
#include "opencomp.h"

#include "helpers/dev_batch.h"
#include "helpers/dev_mem.h"
#include "helpers/soft_check.h"

#define MAXN 16

static oc_context *g_cpu;
static int g_small;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    REQUIRE(p);
    return p;
}

/* Elements of t bytes, little-endian, slowly growing with noise in the low
 * bits: what the filters are for. */
static uint8_t *make_column(size_t n, uint32_t t)
{
    uint8_t *d = xmalloc(n);
    uint64_t x = 0x9E3779B97F4A7C15ull, v = 1000;
    for (size_t k = 0; k < n; k += t) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        v += x % 5;
        uint64_t e = v ^ (x >> 61);
        for (uint32_t j = 0; j < t && k + j < n; j++)
            d[k + j] = j < 8 ? (uint8_t)(e >> (8 * j)) : (uint8_t)(x >> (8 * (j & 7)));
    }
    return d;
}

/* The chunk sizes for typesize t: not multiples of t, element counts
 * multiples of 8 and not, 0 and 1. */
static size_t chunk_sizes(uint32_t t, size_t *len)
{
    size_t scale = g_small ? 1 : 16, n = 0;
    len[n++] = 0;
    len[n++] = 1;
    len[n++] = (size_t)t * 8 * 512 * scale;                             /* whole groups of 8 */
    len[n++] = (size_t)t * 8 * 512 * scale + t / 2 + 1;                 /* + trailing bytes */
    len[n++] = (size_t)t * (8 * 300 * scale + 3) + (t > 1 ? t - 1 : 0); /* elements not a multiple of 8 */
    len[n++] = 4093 * scale;
    len[n++] = (size_t)t * 8 * 3 + 1;
    len[n++] = 65536 * scale + 7;
    return n;
}

static oc_codec_options opts(oc_algorithm a, int filter, uint32_t t)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = a;
    o.level = a == OC_ALGO_ZSTD ? 3 : 0;
    o.filter = (uint8_t)filter;
    o.typesize = (uint8_t)t;
    return o;
}

/* CPU engine, host data: (compress 1 / decompress 0) of n chunks into
 * slots of caps[i] bytes at out (in order). */
static void cpu_run(int compress, const oc_codec_options *o, size_t n, const uint8_t *const *in,
                    const size_t *len, const size_t *caps, uint8_t *out, size_t *sizes, oc_status *st)
{
    void *dst[MAXN];
    size_t off = 0;
    for (size_t i = 0; i < n; i++)
        dst[i] = out + off, off += caps[i];
    oc_status r = compress
                      ? oc_batch_compress(g_cpu, o, n, (const void *const *)in, len, dst, caps, sizes, st)
                      : oc_batch_decompress(g_cpu, o, n, (const void *const *)in, len, dst, caps, sizes, st);
    CHECK(r == OC_OK);
}

static const char *fname(int f)
{
    return f == 1 ? "shuffle" : "bitshuffle";
}

static void one(oc_algorithm a, int filter, uint32_t t)
{
    const char *an = oc_algorithm_name(a);
    size_t len[MAXN], caps[MAXN], total = 0;
    size_t n = chunk_sizes(t, len);
    for (size_t i = 0; i < n; i++)
        total += len[i];
    uint8_t *data = make_column(total, t);
    const uint8_t *in[MAXN];
    size_t ctot = 0, off = 0, cap_total = 0;
    for (size_t i = 0; i < n; i++) {
        in[i] = data + off;
        off += len[i];
        caps[i] = oc_compress_bound(a, len[i]);
        ctot += caps[i];
    }
    oc_codec_options fo = opts(a, filter, t), po = opts(a, 0, t);
    size_t gs[MAXN], cs[MAXN], ds[MAXN], rs[MAXN];
    oc_status gst[MAXN], cst[MAXN], dst_[MAXN], rst[MAXN];

    /* (1) the engine's own call: the GPU filters, then the codec */
    uint8_t *gout = xmalloc(dev_batch_slots(n, caps, NULL));
    size_t goff[MAXN];
    dev_batch_slots(n, caps, goff);
    dev_batch_run(DEV_BATCH_COMPRESS, &fo, n, in, len, caps, 0, gout, gs, gst);
    const uint8_t *gchunk[MAXN];
    for (size_t i = 0; i < n; i++) {
        gchunk[i] = gout + goff[i];
        EXPECT(gst[i] == OC_OK, "%s %s t%u chunk %zu (%zu B): GPU compress %s", an, fname(filter), t, i,
               len[i], oc_status_name(gst[i]));
        if (gst[i] != OC_OK)
            gs[i] = 0;
    }
    uint8_t *raw = xmalloc(total), *back = xmalloc(total), *want = xmalloc(total);
    cpu_run(0, &po, n, gchunk, gs, len, raw, rs, rst);
    cpu_run(0, &fo, n, gchunk, gs, len, back, ds, dst_);
    off = 0;
    for (size_t i = 0; i < n; i++) {
        oc_filter_buffer(want + off, in[i], len[i], t, filter, 0);
        if (gst[i] == OC_OK) {
            EXPECT(rst[i] == OC_OK && rs[i] == len[i] && memcmp(raw + off, want + off, len[i]) == 0,
                   "%s %s t%u chunk %zu (%zu B): the GPU's filtered bytes are not the host's", an,
                   fname(filter), t, i, len[i]);
            EXPECT(dst_[i] == OC_OK && ds[i] == len[i] && memcmp(back + off, in[i], len[i]) == 0,
                   "%s %s t%u chunk %zu: the CPU does not decode the GPU's chunk (%s)", an, fname(filter), t,
                   i, oc_status_name(dst_[i]));
        }
        off += len[i];
    }

    /* (2) the CPU's chunks decoded on the GPU: engine call, public call with
     * host arrays (the GPU path) and with device arrays (staged) */
    uint8_t *cout = xmalloc(ctot);
    cpu_run(1, &fo, n, in, len, caps, cout, cs, cst);
    const uint8_t *cchunk[MAXN];
    off = 0;
    for (size_t i = 0; i < n; i++) {
        cchunk[i] = cout + off;
        off += caps[i];
        REQUIRE(cst[i] == OC_OK);
        cap_total += len[i];
    }
    uint8_t *dout = xmalloc(dev_batch_slots(n, len, NULL));
    size_t doff[MAXN];
    dev_batch_slots(n, len, doff);
    static const int flags[3] = {0, DEV_BATCH_PUBLIC, DEV_BATCH_PUBLIC | DEV_BATCH_DEVICE_ARRAYS};
    for (int f = 0; f < 3; f++) {
        dev_batch_run(DEV_BATCH_DECOMPRESS, &fo, n, cchunk, cs, len, flags[f], dout, ds, dst_);
        for (size_t i = 0; i < n; i++)
            EXPECT(dst_[i] == OC_OK && ds[i] == len[i] && memcmp(dout + doff[i], in[i], len[i]) == 0,
                   "%s %s t%u chunk %zu (%zu B), flags %d: GPU decode %s, %zu bytes", an, fname(filter), t, i,
                   len[i], flags[f], oc_status_name(dst_[i]), ds[i]);
    }

    /* (3) damaged chunks: cut, flipped, short capacity, garbage, empty */
    const uint8_t *bad[MAXN];
    size_t blen[MAXN], bcap[MAXN], nb = 0;
    uint8_t *flip = xmalloc(ctot), *junk = xmalloc(4096);
    memcpy(flip, cout, ctot);
    for (size_t k = 0; k < 4096; k++)
        junk[k] = (uint8_t)(k * 131u + 7u);
    for (size_t i = 0; i < n && nb + 5 <= MAXN; i++) {
        if (len[i] < 64)
            continue;
        size_t o2 = (size_t)(cchunk[i] - cout);
        bad[nb] = cchunk[i], blen[nb] = cs[i] - 1, bcap[nb++] = len[i]; /* cut */
        flip[o2 + cs[i] / 2] ^= 0x5A;
        bad[nb] = flip + o2, blen[nb] = cs[i], bcap[nb++] = len[i];     /* a byte flipped */
        bad[nb] = cchunk[i], blen[nb] = cs[i], bcap[nb++] = len[i] - 1; /* capacity one short */
    }
    bad[nb] = junk, blen[nb] = 4096, bcap[nb++] = 65536;
    bad[nb] = junk, blen[nb] = 0, bcap[nb++] = 64;
    size_t maxcap = 0;
    for (size_t i = 0; i < nb; i++)
        maxcap += bcap[i];
    uint8_t *g1 = xmalloc(dev_batch_slots(nb, bcap, NULL)), *g0 = xmalloc(dev_batch_slots(nb, bcap, NULL));
    uint8_t *c1 = xmalloc(maxcap), *c0 = xmalloc(maxcap), *inv = xmalloc(maxcap);
    size_t boff[MAXN], s1[MAXN], s0[MAXN], t1[MAXN], t0[MAXN];
    oc_status q1[MAXN], q0[MAXN], p1[MAXN], p0[MAXN];
    dev_batch_slots(nb, bcap, boff);
    dev_batch_run(DEV_BATCH_DECOMPRESS, &fo, nb, bad, blen, bcap, 0, g1, s1, q1);
    dev_batch_run(DEV_BATCH_DECOMPRESS, &po, nb, bad, blen, bcap, 0, g0, s0, q0);
    cpu_run(0, &fo, nb, bad, blen, bcap, c1, t1, p1);
    cpu_run(0, &po, nb, bad, blen, bcap, c0, t0, p0);
    for (size_t i = 0; i < nb; i++) {
        /* a failed chunk's size is 0 (the CPU engine's rule; the filter
         * passes only an OK chunk's size on), an OK one's the codec's */
        EXPECT(q1[i] == q0[i] && (q1[i] == OC_OK ? s1[i] == s0[i] : s1[i] == 0),
               "%s %s t%u damaged %zu: GPU %s/%zu with the filter, %s/%zu without", an, fname(filter), t, i,
               oc_status_name(q1[i]), s1[i], oc_status_name(q0[i]), s0[i]);
        if (q0[i] == p0[i])
            EXPECT(q1[i] == p1[i] && s1[i] == t1[i], "%s %s t%u damaged %zu: GPU %s/%zu, CPU %s/%zu", an,
                   fname(filter), t, i, oc_status_name(q1[i]), s1[i], oc_status_name(p1[i]), t1[i]);
        if (q1[i] == OC_OK && q0[i] == OC_OK && s1[i] == s0[i]) {
            oc_filter_buffer(inv, g0 + boff[i], s0[i], t, filter, 1);
            EXPECT(memcmp(inv, g1 + boff[i], s1[i]) == 0,
                   "%s %s t%u damaged %zu: decoded bytes not unfiltered", an, fname(filter), t, i);
        }
    }

    /* (4) WITH_UNCOMPRESSED_SIZE and the filter */
    oc_codec_options wo = fo;
    wo.kind = OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE;
    size_t wcap[MAXN];
    for (size_t i = 0; i < n; i++)
        wcap[i] = caps[i] + 8;
    uint8_t *wout = xmalloc(dev_batch_slots(n, wcap, NULL));
    size_t woff[MAXN], ws[MAXN];
    oc_status wst[MAXN];
    dev_batch_slots(n, wcap, woff);
    dev_batch_run(DEV_BATCH_COMPRESS, &wo, n, in, len, wcap, 0, wout, ws, wst);
    const uint8_t *wchunk[MAXN];
    for (size_t i = 0; i < n; i++) {
        wchunk[i] = wout + woff[i];
        EXPECT(wst[i] == OC_OK, "%s %s t%u chunk %zu: GPU WUS compress %s", an, fname(filter), t, i,
               oc_status_name(wst[i]));
        if (wst[i] != OC_OK)
            ws[i] = 0;
    }
    cpu_run(0, &wo, n, wchunk, ws, len, back, ds, dst_);
    off = 0;
    for (size_t i = 0; i < n; i++) {
        EXPECT(dst_[i] == OC_OK && ds[i] == len[i] && memcmp(back + off, in[i], len[i]) == 0,
               "%s %s t%u chunk %zu: CPU decode of the GPU's WUS chunk %s", an, fname(filter), t, i,
               oc_status_name(dst_[i]));
        off += len[i];
    }
    dev_batch_run(DEV_BATCH_DECOMPRESS, &wo, n, wchunk, ws, len, 0, dout, ds, dst_);
    for (size_t i = 0; i < n; i++)
        EXPECT(dst_[i] == OC_OK && ds[i] == len[i] && memcmp(dout + doff[i], in[i], len[i]) == 0,
               "%s %s t%u chunk %zu: GPU decode of a WUS chunk %s", an, fname(filter), t, i,
               oc_status_name(dst_[i]));

    free(data), free(gout), free(raw), free(back), free(want), free(cout), free(dout);
    free(flip), free(junk), free(g1), free(g0), free(c1), free(c0), free(inv), free(wout);
    (void)cap_total;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Best of 3 after a warm-up, seconds: one engine call over n chunks
 * (pointer arrays dp: sources then destinations, in device memory; size
 * arrays on the host, as the filter needs them). */
static double best_of(int compress, const oc_codec_options *o, size_t n, void **dp, const size_t *srcn,
                      const size_t *caps, size_t *sizes, oc_status *st)
{
    double best = 1e30;
    for (int r = 0; r < 4; r++) {
        double t0 = now();
        oc_status c = compress ? oc_cuda_batch_compress(&g_ctx, o, n, (const void *const *)dp, srcn, dp + n,
                                                        caps, sizes, st)
                               : oc_cuda_batch_decompress(&g_ctx, o, n, (const void *const *)dp, srcn, dp + n,
                                                          caps, sizes, st);
        CHECK(c == OC_OK);
        REQUIRE(oc_cuda_synchronize(&g_ctx) == OC_OK);
        double s = now() - t0;
        best = r > 0 && s < best ? s : best;
    }
    for (size_t i = 0; i < n; i++)
        CHECK(st[i] == OC_OK);
    return best;
}

/* --speed: see the file comment.  The codec sees the same bytes with and
 * without the filter, so the difference is the filter's pass: compression
 * of the column with the filter against compression of the column
 * filtered on the host without it (the same chunks come out); decoding of
 * those chunks with the filter against without it. */
static void speed(size_t mib)
{
    const size_t chunk = (size_t)1 << 20, n = mib ? mib : 1, total = n * chunk;
    printf("GPU filter cost, %zu chunks of 1 MiB, LZ4, best of 3 (ms; the filter pass's GB/s from the "
           "difference)\n",
           n);
    printf("%-10s %3s %9s %9s %9s %9s %9s %9s\n", "filter", "ts", "enc", "enc+f", "f GB/s", "dec", "dec+f",
           "f GB/s");
    uint32_t tss[2] = {4, 8};
    size_t bound = oc_compress_bound(OC_ALGO_LZ4, chunk);
    size_t *hs = xmalloc(n * 8), *hc = xmalloc(n * 8), *cs = xmalloc(n * 8), *c0 = xmalloc(n * 8),
           *ds = xmalloc(n * 8);
    oc_status *hst = xmalloc(n * sizeof(oc_status));
    void **ptr = xmalloc(n * 8 * 2);
    for (size_t i = 0; i < n; i++)
        hs[i] = chunk, hc[i] = bound;
    for (int k = 0; k < 2; k++) {
        uint32_t t = tss[k];
        uint8_t *h = make_column(total, t), *hf = xmalloc(total);
        uint8_t *d_in = to_device(h, total), *d_f = dev_alloc(total), *d_c = dev_alloc(n * bound),
                *d_out = dev_alloc(total);
        for (int f = 1; f <= 2; f++) {
            oc_codec_options o0 = opts(OC_ALGO_LZ4, 0, t), o1 = opts(OC_ALGO_LZ4, f, t);
            for (size_t i = 0; i < n; i++)
                oc_filter_buffer(hf + i * chunk, h + i * chunk, chunk, t, f, 0);
            copy(d_f, hf, total);
            double e[2], d[2];
            for (int w = 0; w < 2; w++) { /* 0: the host-filtered column, no filter; 1: the filter */
                for (size_t i = 0; i < n; i++)
                    ptr[i] = (w ? d_in : d_f) + i * chunk, ptr[n + i] = d_c + i * bound;
                void **dp = to_device(ptr, n * 8 * 2);
                e[w] = best_of(1, w ? &o1 : &o0, n, dp, hs, hc, w ? cs : c0, hst);
                dev_free(dp, n * 8 * 2);
            }
            for (size_t i = 0; i < n; i++)
                CHECK(cs[i] == c0[i]); /* the codec saw the same bytes */
            for (size_t i = 0; i < n; i++)
                ptr[i] = d_c + i * bound, ptr[n + i] = d_out + i * chunk;
            void **dp = to_device(ptr, n * 8 * 2);
            for (int w = 0; w < 2; w++)
                d[w] = best_of(0, w ? &o1 : &o0, n, dp, cs, hs, ds, hst);
            dev_free(dp, n * 8 * 2);
            uint8_t *back = xmalloc(total);
            copy(back, d_out, total);
            CHECK(memcmp(back, h, total) == 0);
            free(back);
            double ge = (double)total / (e[1] - e[0]) / 1e9, gd = (double)total / (d[1] - d[0]) / 1e9;
            printf("%-10s %3u %9.3f %9.3f %9.1f %9.3f %9.3f %9.1f\n", fname(f), t, e[0] * 1e3, e[1] * 1e3,
                   e[1] > e[0] ? ge : 0.0, d[0] * 1e3, d[1] * 1e3, d[1] > d[0] ? gd : 0.0);
        }
        dev_free(d_in, total), dev_free(d_f, total), dev_free(d_c, n * bound), dev_free(d_out, total);
        free(h), free(hf);
    }
    free(hs), free(hc), free(cs), free(c0), free(ds), free(hst), free(ptr);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* a run cut short by a timeout still shows how far it got */
    if (!dev_gpu_begin("test_cuda_filter"))
        return 0;
    if (argc > 1 && strcmp(argv[1], "--speed") == 0) {
        speed(argc > 2 ? (size_t)strtoull(argv[2], NULL, 10) : 256);
        oc_cuda_context_release(&g_ctx);
        return g_failures != 0;
    }
    g_small = getenv("OC_TEST_SMALL") != NULL;
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CPU;
    REQUIRE(oc_context_create(&co, &g_cpu) == OC_OK);
    static const uint32_t ts[6] = {1, 2, 3, 4, 8, 16};
    static const oc_algorithm algos[2] = {OC_ALGO_LZ4, OC_ALGO_ZSTD};
    for (int a = 0; a < 2; a++)
        for (int f = 1; f <= 2; f++)
            for (int k = 0; k < 6; k++) {
                if (g_small && algos[a] == OC_ALGO_ZSTD && ts[k] != 3) /* sanitizers: zstd at one typesize */
                    continue;
                int before = g_failures;
                one(algos[a], f, ts[k]);
                printf("  %-5s %-10s typesize %2u: %s\n", oc_algorithm_name(algos[a]), fname(f), ts[k],
                       g_failures == before ? "ok" : "FAILED");
            }
    oc_context_destroy(g_cpu);
    oc_cuda_context_release(&g_ctx);
    if (g_failures)
        printf("test_cuda_filter: %d failure(s)\n", g_failures);
    else
        printf("test_cuda_filter: OK\n");
    return g_failures != 0;
}
