/*
 * test_cuda_wus.c - the WITH_UNCOMPRESSED_SIZE kind of the batched layer
 * (oc_codec_options.kind) on the CUDA engine (src/cuda/runtime/cuda_wus.cu:
 * each chunk's 8-byte header written and read on the device around the
 * codec), against the CPU engine on the same inputs, for LZ4, Snappy,
 * Zstd, Deflate and Cascaded (a typed format: an int32 column).
 *
 * Guards: (1) the GPU writes each header (the chunk's size) before exactly
 * the stream it writes in RAW mode, its sizes count the header, and for
 * Cascaded (whose GPU encoder writes the CPU's bytes) the CPU's bytes;
 * (2) the CPU engine decodes the GPU's chunks and the GPU the CPU's, both
 * to the input, with the argument arrays in host and in device memory;
 * (3) one batch of hostile chunks (every length 0..7, a NULL pointer, a
 * size one byte more than the stream can decode to, 2^64-1, exactly that
 * most, one more and one less than the stream holds, a capacity one byte
 * short, good chunks among them) gives on the GPU exactly the CPU
 * engine's status and size per chunk, for decoding and for the size
 * query, and a chunk refused before decoding has nothing written (guard
 * bytes); (4) compression into 0..8 bytes is OUTPUT_TOO_SMALL with size 0
 * and nothing written, as on the CPU.
 *
 * Without a GPU (CI) the test says so and passes; scripts/gpu-check runs
 * it on a GPU machine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/le.h"
#include "opencomp.h"

#include "helpers/dev_mem.h"
#include "helpers/soft_check.h"

#define GUARD 64
#define GUARD_BYTE 0xA5
#define NCHUNK 7
#define MAXV 24

static oc_context *g_cpu; /* g_gpu: helpers/dev_mem.h */

static const size_t g_sizes[NCHUNK] = {4, 776, 4096, 65536, 64300, 131072, 262140};

/* ---- memory ---------------------------------------------------------- */

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    REQUIRE(p);
    return p;
}

/* ---- data ------------------------------------------------------------- */

/* A license text, then text-like bytes of a small alphabet. */
static uint8_t *make_text(size_t n)
{
    uint8_t *d = xmalloc(n);
    size_t k = 0;
    FILE *f = fopen("/usr/share/common-licenses/GPL-3", "rb");
    if (f) {
        k = fread(d, 1, n / 2, f);
        fclose(f);
    }
    for (uint32_t x = 2463534242u; k < n; k++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        d[k] = (uint8_t)("etaoin shrdlu\n"[x % 14]);
    }
    return d;
}

/* An int32 column of slowly growing keys with runs (Cascaded's shape). */
static uint8_t *make_column(size_t n)
{
    uint8_t *d = xmalloc(n);
    uint32_t x = 12345u, v = 1000;
    for (size_t k = 0; k + 4 <= n; k += 4) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        if (x % 5 == 0)
            v += x % 7;
        memcpy(d + k, &v, 4);
    }
    memset(d + (n & ~(size_t)3), 0, n & 3);
    return d;
}

static oc_codec_options options(oc_algorithm a, int kind)
{
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = a;
    o.kind = (uint8_t)kind;
    if (a == OC_ALGO_CASCADED)
        o.typed.data_type = OC_TYPE_I32;
    return o;
}

static uint64_t max_decoded(oc_algorithm a, uint64_t n)
{
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    REQUIRE(oc_algorithm_get_info(a, &info) == OC_OK);
    return n * info.max_expansion + 65536;
}

/* ---- a batch of chunks on the device ------------------------------------ */

/* n host chunks copied into one device buffer; ptrs[i] point into it. */
typedef struct dbatch {
    uint8_t *base;
    size_t total;
    const void *ptrs[MAXV];
} dbatch;

static void batch_to_device(dbatch *b, size_t n, const void *const *host, const size_t *sizes)
{
    b->total = 0;
    for (size_t i = 0; i < n; i++)
        b->total += sizes[i];
    b->base = dev_alloc(b->total);
    size_t off = 0;
    for (size_t i = 0; i < n; i++) {
        b->ptrs[i] = host[i] ? b->base + off : NULL;
        if (host[i])
            copy(b->base + off, host[i], sizes[i]);
        off += sizes[i];
    }
}

/* The same pointer and size arrays in device memory (one allocation). */
static void *arrays_on_device(size_t n, const void *a, const void *b, const void *c, const void *d)
{
    uint8_t *p = dev_alloc(4 * n * 8);
    const void *src[4] = {a, b, c, d};
    for (int k = 0; k < 4; k++)
        if (src[k])
            copy(p + (size_t)k * n * 8, src[k], n * 8);
    return p;
}

/* ---- (1), (2): round trips ------------------------------------------------ */

static void round_trip(oc_algorithm a, const uint8_t *data)
{
    const char *name = oc_algorithm_name(a);
    const void *src[NCHUNK];
    size_t bound[NCHUNK], wcap[NCHUNK], off = 0, total_in = 0, total_w = 0;
    for (int i = 0; i < NCHUNK; i++) {
        src[i] = data + off;
        off += g_sizes[i];
        bound[i] = oc_compress_bound(a, g_sizes[i]);
        REQUIRE(bound[i] > 0);
        wcap[i] = bound[i] + 8;
        total_in += g_sizes[i];
        total_w += wcap[i];
    }
    uint8_t *d_in = dev_alloc(total_in), *d_w = dev_alloc(total_w), *d_raw = dev_alloc(total_w),
            *d_out = dev_alloc(total_in + GUARD);
    copy(d_in, data, total_in);
    const void *dsrc[NCHUNK];
    void *dw[NCHUNK], *draw[NCHUNK], *dout[NCHUNK];
    size_t o1 = 0, o2 = 0;
    for (int i = 0; i < NCHUNK; i++) {
        dsrc[i] = d_in + o1;
        dout[i] = d_out + o1;
        dw[i] = d_w + o2;
        draw[i] = d_raw + o2;
        o1 += g_sizes[i];
        o2 += wcap[i];
    }
    oc_codec_options wo = options(a, OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE), ro = options(a, OC_BITSTREAM_RAW);
    size_t wsz[NCHUNK], rsz[NCHUNK], got[NCHUNK], qs[NCHUNK];
    oc_status st[NCHUNK], rst[NCHUNK];

    /* (1) GPU compression: header + the RAW stream */
    CHECK(oc_batch_compress(g_gpu, &wo, NCHUNK, dsrc, g_sizes, dw, wcap, wsz, st) == OC_OK);
    CHECK(oc_batch_compress(g_gpu, &ro, NCHUNK, dsrc, g_sizes, draw, bound, rsz, rst) == OC_OK);
    REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    uint8_t *h_w = xmalloc(total_w), *h_raw = xmalloc(total_w);
    copy(h_w, d_w, total_w);
    copy(h_raw, d_raw, total_w);
    const void *hw[NCHUNK];
    o2 = 0;
    for (int i = 0; i < NCHUNK; i++) {
        hw[i] = h_w + o2;
        EXPECT(st[i] == OC_OK && rst[i] == OC_OK, "%s chunk %d: GPU compress %s / RAW %s", name, i,
               oc_status_name(st[i]), oc_status_name(rst[i]));
        if (st[i] == OC_OK && rst[i] == OC_OK) {
            EXPECT(wsz[i] == rsz[i] + 8, "%s chunk %d: WUS size %zu, RAW %zu", name, i, wsz[i], rsz[i]);
            EXPECT(oc_load_le64(h_w + o2) == g_sizes[i], "%s chunk %d: header %llu for %zu bytes", name, i,
                   (unsigned long long)oc_load_le64(h_w + o2), g_sizes[i]);
            CHECK(wsz[i] == rsz[i] + 8 && memcmp(h_w + o2 + 8, h_raw + o2, rsz[i]) == 0);
        }
        o2 += wcap[i];
    }

    /* (2) the CPU decodes the GPU's chunks */
    uint8_t *h_out = xmalloc(total_in);
    void *hout[NCHUNK];
    o1 = 0;
    for (int i = 0; i < NCHUNK; i++) {
        hout[i] = h_out + o1;
        o1 += g_sizes[i];
    }
    CHECK(oc_batch_decompress(g_cpu, &wo, NCHUNK, hw, wsz, hout, g_sizes, got, st) == OC_OK);
    for (int i = 0; i < NCHUNK; i++)
        EXPECT(st[i] == OC_OK && got[i] == g_sizes[i] && memcmp(hout[i], src[i], g_sizes[i]) == 0,
               "%s chunk %d: CPU decode of the GPU's chunk: %s, %zu bytes", name, i, oc_status_name(st[i]),
               got[i]);

    /* the CPU's chunks: Cascaded's bytes are the GPU's */
    uint8_t *h_cw = xmalloc(total_w);
    void *cw[NCHUNK];
    size_t csz[NCHUNK];
    o2 = 0;
    for (int i = 0; i < NCHUNK; i++) {
        cw[i] = h_cw + o2;
        o2 += wcap[i];
    }
    CHECK(oc_batch_compress(g_cpu, &wo, NCHUNK, src, g_sizes, cw, wcap, csz, st) == OC_OK);
    for (int i = 0; i < NCHUNK; i++) {
        REQUIRE(st[i] == OC_OK);
        if (a == OC_ALGO_CASCADED)
            EXPECT(csz[i] == wsz[i] && memcmp(cw[i], hw[i], csz[i]) == 0,
                   "cascaded chunk %d: the GPU's WUS bytes are not the CPU's", i);
    }

    /* the GPU decodes the CPU's chunks and its own, arrays in host and in device memory */
    for (int pass = 0; pass < 2; pass++) {
        dbatch cb;
        batch_to_device(&cb, NCHUNK, (const void *const *)cw, csz);
        const void *const *sp = cb.ptrs;
        const size_t *ss = csz;
        void *const *dp = dout;
        const size_t *dc = g_sizes;
        size_t *gs = got, *qq = qs;
        oc_status *sts = st;
        uint8_t *arr = NULL, *res = NULL;
        if (pass == 1) { /* every array in device memory */
            arr = arrays_on_device(NCHUNK, cb.ptrs, csz, dout, g_sizes);
            res = dev_alloc(3 * NCHUNK * 8);
            sp = (const void *const *)arr;
            ss = (const size_t *)(arr + NCHUNK * 8);
            dp = (void *const *)(arr + 2 * NCHUNK * 8);
            dc = (const size_t *)(arr + 3 * NCHUNK * 8);
            gs = (size_t *)res;
            qq = (size_t *)(res + NCHUNK * 8);
            sts = (oc_status *)(res + 2 * NCHUNK * 8);
        }
        CHECK(oc_batch_decompress(g_gpu, &wo, NCHUNK, sp, ss, dp, dc, gs, sts) == OC_OK);
        REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
        if (pass == 1) {
            copy(got, gs, sizeof got);
            copy(st, sts, NCHUNK * sizeof(oc_status));
        }
        memset(h_out, 0, total_in);
        copy(h_out, d_out, total_in);
        for (int i = 0; i < NCHUNK; i++)
            EXPECT(st[i] == OC_OK && got[i] == g_sizes[i] && memcmp(hout[i], src[i], g_sizes[i]) == 0,
                   "%s chunk %d (arrays in %s memory): GPU decode of the CPU's chunk: %s, %zu bytes", name, i,
                   pass ? "device" : "host", oc_status_name(st[i]), got[i]);
        CHECK(oc_batch_decompressed_sizes(g_gpu, &wo, NCHUNK, sp, ss, qq, sts) == OC_OK);
        REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
        if (pass == 1) {
            copy(qs, qq, sizeof qs);
            copy(st, sts, NCHUNK * sizeof(oc_status));
        }
        for (int i = 0; i < NCHUNK; i++)
            EXPECT(st[i] == OC_OK && qs[i] == g_sizes[i], "%s chunk %d: GPU size query %s, %zu", name, i,
                   oc_status_name(st[i]), qs[i]);
        if (pass == 1) {
            dev_free(arr, 4 * NCHUNK * 8);
            dev_free(res, 3 * NCHUNK * 8);
        }
        dev_free(cb.base, cb.total);
    }
    /* the GPU's own chunks, on the GPU */
    CHECK(oc_batch_decompress(g_gpu, &wo, NCHUNK, (const void *const *)dw, wsz, dout, g_sizes, got, st) ==
          OC_OK);
    REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    copy(h_out, d_out, total_in);
    for (int i = 0; i < NCHUNK; i++)
        EXPECT(st[i] == OC_OK && got[i] == g_sizes[i] && memcmp(hout[i], src[i], g_sizes[i]) == 0,
               "%s chunk %d: GPU decode of its own chunk: %s", name, i, oc_status_name(st[i]));

    dev_free(d_in, total_in);
    dev_free(d_w, total_w);
    dev_free(d_raw, total_w);
    dev_free(d_out, total_in + GUARD);
    free(h_w);
    free(h_raw);
    free(h_out);
    free(h_cw);
}

/* ---- (3), (4): hostile headers, small capacities -------------------------- */

static void hostile(oc_algorithm a, const uint8_t *data)
{
    const char *name = oc_algorithm_name(a);
    oc_codec_options wo = options(a, OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE);
    /* one good chunk of 30000 bytes from the CPU engine */
    const size_t want = 30000;
    size_t cap = oc_compress_bound(a, want) + 8, n = 0;
    uint8_t *good = xmalloc(cap);
    const void *s = data;
    void *d = good;
    oc_status cs;
    REQUIRE(oc_batch_compress(g_cpu, &wo, 1, &s, &want, &d, &cap, &n, &cs) == OC_OK && cs == OC_OK);
    uint64_t most = max_decoded(a, n - 8);

    /* the variants: bytes, size, capacity */
    const void *vp[MAXV];
    size_t vs[MAXV], vc[MAXV];
    uint8_t *own[MAXV];
    size_t nv = 0;
    for (size_t k = 0; k < 8; k++) { /* TRUNCATED */
        vp[nv] = good, vs[nv] = k, vc[nv] = want, own[nv] = NULL;
        nv++;
    }
    vp[nv] = NULL, vs[nv] = 100, vc[nv] = want, own[nv] = NULL; /* INVALID_ARGUMENT */
    nv++;
    const uint64_t headers[6] = {most + 1, UINT64_MAX, most, want + 1, want - 1, want};
    const size_t caps[6] = {want + 64, want + 64, want + 64, want + 64, want + 64, want - 1};
    for (int h = 0; h < 6; h++) {
        own[nv] = xmalloc(n);
        memcpy(own[nv], good, n);
        oc_store_le64(own[nv], headers[h]);
        vp[nv] = own[nv], vs[nv] = n, vc[nv] = caps[h];
        nv++;
    }
    for (int g = 0; g < 2; g++) { /* good chunks among the bad */
        vp[nv] = good, vs[nv] = n, vc[nv] = g ? want : want + 64, own[nv] = NULL;
        nv++;
    }
    REQUIRE(nv <= MAXV);

    /* the CPU engine's verdicts */
    uint8_t *h_out = xmalloc(nv * (want + 64 + GUARD));
    void *hdst[MAXV], *ddst[MAXV];
    size_t cpu_got[MAXV], gpu_got[MAXV], cpu_q[MAXV], gpu_q[MAXV];
    oc_status cpu_st[MAXV], gpu_st[MAXV], cpu_qst[MAXV], gpu_qst[MAXV];
    for (size_t i = 0; i < nv; i++)
        hdst[i] = h_out + i * (want + 64 + GUARD);
    CHECK(oc_batch_decompress(g_cpu, &wo, nv, vp, vs, hdst, vc, cpu_got, cpu_st) == OC_OK);
    CHECK(oc_batch_decompressed_sizes(g_cpu, &wo, nv, vp, vs, cpu_q, cpu_qst) == OC_OK);

    /* the GPU's, into guard bytes */
    dbatch vb;
    batch_to_device(&vb, nv, vp, vs);
    uint8_t *d_out = dev_alloc(nv * (want + 64 + GUARD));
    memset(h_out, GUARD_BYTE, nv * (want + 64 + GUARD));
    copy(d_out, h_out, nv * (want + 64 + GUARD));
    for (size_t i = 0; i < nv; i++)
        ddst[i] = d_out + i * (want + 64 + GUARD);
    CHECK(oc_batch_decompress(g_gpu, &wo, nv, vb.ptrs, vs, ddst, vc, gpu_got, gpu_st) == OC_OK);
    CHECK(oc_batch_decompressed_sizes(g_gpu, &wo, nv, vb.ptrs, vs, gpu_q, gpu_qst) == OC_OK);
    REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    copy(h_out, d_out, nv * (want + 64 + GUARD));
    for (size_t i = 0; i < nv; i++) {
        EXPECT(gpu_st[i] == cpu_st[i] && gpu_got[i] == cpu_got[i],
               "%s variant %zu (%zu bytes, capacity %zu): decode GPU %s %zu, CPU %s %zu", name, i, vs[i],
               vc[i], oc_status_name(gpu_st[i]), gpu_got[i], oc_status_name(cpu_st[i]), cpu_got[i]);
        EXPECT(gpu_qst[i] == cpu_qst[i] && gpu_q[i] == cpu_q[i],
               "%s variant %zu (%zu bytes): size query GPU %s %zu, CPU %s %zu", name, i, vs[i],
               oc_status_name(gpu_qst[i]), gpu_q[i], oc_status_name(cpu_qst[i]), cpu_q[i]);
        /* nothing past the capacity; nothing at all where the header is
         * refused (variants 0-11 and 14) */
        const uint8_t *o = (const uint8_t *)hdst[i];
        size_t from = i <= 11 || i == 14 ? 0 : vc[i];
        int intact = 1;
        for (size_t k = from; k < want + 64 + GUARD; k++)
            intact &= o[k] == GUARD_BYTE;
        EXPECT(intact, "%s variant %zu: bytes written from %zu on", name, i, from);
        if (gpu_st[i] == OC_OK)
            CHECK(memcmp(o, data, want) == 0);
    }
    /* the statuses the header check owns, spelled out */
    for (size_t k = 0; k < 8; k++)
        CHECK(gpu_st[k] == OC_ERR_TRUNCATED && gpu_qst[k] == OC_ERR_TRUNCATED);
    CHECK(gpu_st[8] == OC_ERR_INVALID_ARGUMENT && gpu_qst[8] == OC_ERR_INVALID_ARGUMENT);
    CHECK(gpu_st[9] == OC_ERR_CORRUPT && gpu_qst[9] == OC_ERR_CORRUPT);
    CHECK(gpu_st[10] == OC_ERR_CORRUPT && gpu_qst[10] == OC_ERR_CORRUPT);
    CHECK(gpu_st[11] == OC_ERR_OUTPUT_TOO_SMALL && gpu_qst[11] == OC_OK && gpu_q[11] == most);
    CHECK(gpu_st[12] == OC_ERR_SIZE_MISMATCH && gpu_st[13] == OC_ERR_SIZE_MISMATCH);
    CHECK(gpu_st[14] == OC_ERR_OUTPUT_TOO_SMALL);
    CHECK(gpu_st[15] == OC_OK && gpu_st[16] == OC_OK && gpu_got[15] == want && gpu_got[16] == want);

    /* (4) compression into 0..8 bytes */
    uint8_t *d_small = dev_alloc(9 * (8 + GUARD));
    uint8_t h_small[9 * (8 + GUARD)];
    memset(h_small, GUARD_BYTE, sizeof h_small);
    copy(d_small, h_small, sizeof h_small);
    const void *ssrc[9];
    void *sdst[9], *hsdst[9];
    size_t ssz[9], scap[9], gsz[9], csz2[9];
    oc_status gst[9], cst[9];
    uint8_t *d_in = dev_alloc(want);
    copy(d_in, data, want);
    for (int c = 0; c < 9; c++) {
        ssrc[c] = d_in;
        ssz[c] = want;
        scap[c] = (size_t)c;
        sdst[c] = d_small + c * (8 + GUARD);
        hsdst[c] = h_small + c * (8 + GUARD);
    }
    CHECK(oc_batch_compress(g_gpu, &wo, 9, ssrc, ssz, sdst, scap, gsz, gst) == OC_OK);
    REQUIRE(oc_context_synchronize(g_gpu) == OC_OK);
    copy(h_small, d_small, sizeof h_small);
    for (int c = 0; c < 9; c++)
        ssrc[c] = data;
    uint8_t c_small[9 * (8 + GUARD)];
    for (int c = 0; c < 9; c++)
        hsdst[c] = c_small + c * (8 + GUARD);
    CHECK(oc_batch_compress(g_cpu, &wo, 9, ssrc, ssz, hsdst, scap, csz2, cst) == OC_OK);
    for (int c = 0; c < 9; c++) {
        int intact = 1;
        for (size_t k = 0; k < 8 + GUARD; k++)
            intact &= h_small[c * (8 + GUARD) + k] == GUARD_BYTE;
        EXPECT(gst[c] == OC_ERR_OUTPUT_TOO_SMALL && gsz[c] == 0 && intact && cst[c] == gst[c] && csz2[c] == 0,
               "%s: compression into %d bytes: GPU %s %zu (untouched %d), CPU %s", name, c,
               oc_status_name(gst[c]), gsz[c], intact, oc_status_name(cst[c]));
    }

    dev_free(d_small, 9 * (8 + GUARD));
    dev_free(d_in, want);
    dev_free(vb.base, vb.total);
    dev_free(d_out, nv * (want + 64 + GUARD));
    for (size_t i = 0; i < nv; i++)
        free(own[i]);
    free(h_out);
    free(good);
}

int main(void)
{
    if (oc_cuda_device_count() == 0) {
        printf("SKIP: test_cuda_wus needs a CUDA GPU (%s); run scripts/gpu-check on a GPU machine\n",
               oc_build_info());
        return 0;
    }
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CUDA;
    REQUIRE(oc_context_create(&co, &g_gpu) == OC_OK);
    co.engine = OC_ENGINE_CPU;
    REQUIRE(oc_context_create(&co, &g_cpu) == OC_OK);
    size_t total = 0;
    for (int i = 0; i < NCHUNK; i++)
        total += g_sizes[i];
    uint8_t *text = make_text(total), *column = make_column(total);
    static const oc_algorithm algos[5] = {OC_ALGO_LZ4, OC_ALGO_SNAPPY, OC_ALGO_ZSTD, OC_ALGO_DEFLATE,
                                          OC_ALGO_CASCADED};
    for (int k = 0; k < 5; k++) {
        const uint8_t *data = algos[k] == OC_ALGO_CASCADED ? column : text;
        int before = g_failures;
        round_trip(algos[k], data);
        hostile(algos[k], data);
        printf("  %-8s %s\n", oc_algorithm_name(algos[k]), g_failures == before ? "ok" : "FAILED");
    }
    free(text);
    free(column);
    oc_context_destroy(g_gpu);
    oc_context_destroy(g_cpu);
    if (g_failures)
        printf("test_cuda_wus: %d failure(s)\n", g_failures);
    else
        printf("test_cuda_wus: OK\n");
    return g_failures != 0;
}
