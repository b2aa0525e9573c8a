/*
 * test_cuda_packed.c - oc_batch_decompress_packed: chunks in one source
 * buffer decoded into one destination buffer, given by offsets (issue 16:
 * the Python one-buffer decode passes offsets that live on the GPU, and the
 * CUDA engine builds the pointer arrays with a kernel instead of the host).
 *
 * Guards, for LZ4, Snappy and Zstd, with and without a byte-shuffle filter:
 *   (1) on the CPU engine every chunk decodes to its input, with exactly the
 *       statuses and sizes of oc_batch_decompress on the same chunks given
 *       by pointers;
 *   (2) a chunk whose source or destination range leaves its buffer
 *       (offset past the end, offset + size past it, a size of 2^64-1 that
 *       wraps) is INVALID_ARGUMENT with size 0 and nothing written in the
 *       destination (guard bytes), and its neighbours still decode; a
 *       capacity one byte short is OUTPUT_TOO_SMALL as with pointers;
 *   (3) on a GPU (when there is one), the same batch on device buffers with
 *       the four arrays in device memory and in host memory, the sizes and
 *       statuses in host and in device memory, gives the CPU engine's
 *       statuses, sizes and bytes (the filter's case takes the staged path:
 *       device arrays copied to the host first);
 *   (4) oc_batch_compress_packed on both engines and both kinds of arrays:
 *       every in-range chunk's stream decodes (CPU engine, by pointers) to
 *       its input, the out-of-range chunks are INVALID_ARGUMENT with size 0
 *       and nothing written, a slot too small is OUTPUT_TOO_SMALL, and no
 *       byte outside the slots is written.
 * Without a GPU the test says so after the CPU part and passes;
 * scripts/gpu-check runs it on a GPU machine.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencomp.h"

#include "helpers/dev_mem.h"
#include "helpers/soft_check.h"

#define NCH 9
#define GUARD 0xA5

static oc_context *g_cpu;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    REQUIRE(p);
    return p;
}

/* A batch: NCH chunks of different sizes compressed by the CPU engine into
 * one source buffer (gaps between them), their decoded places in one
 * destination buffer, and the per-chunk arguments, some of them hostile. */
typedef struct {
    uint8_t *input;  /* the decoded bytes, laid out as in dst */
    size_t in_bytes; /* = dst_bytes */
    uint8_t *src;    /* compressed chunks */
    size_t src_bytes;
    size_t so[NCH], ss[NCH], dof[NCH], dc[NCH];
    oc_status want[NCH]; /* from oc_batch_decompress with pointers (hostile chunks: INVALID_ARGUMENT) */
    size_t want_size[NCH];
} batch;

static const size_t g_len[NCH] = {4096, 70000, 1, 65536, 30000, 5000, 65536, 12345, 777};

static void make_batch(batch *b, const oc_codec_options *o)
{
    memset(b, 0, sizeof *b);
    size_t off = 0;
    for (int i = 0; i < NCH; i++) {
        b->dof[i] = off;
        b->dc[i] = g_len[i];
        off += g_len[i] + 100; /* a gap: nothing decodes there */
    }
    b->in_bytes = off;
    b->input = xmalloc(off);
    for (size_t k = 0; k < off; k++) /* compressible, not trivial */
        b->input[k] = (uint8_t)((k * 7 + (k >> 9) * 13) % 61 + (k % 1000 < 300 ? k % 5 : 0));
    size_t cap = 0;
    size_t bound[NCH];
    for (int i = 0; i < NCH; i++)
        cap += (bound[i] = oc_compress_bound(o->algorithm, g_len[i])) + 64;
    uint8_t *tmp = xmalloc(cap);
    const void *sp[NCH];
    void *dp[NCH];
    size_t len[NCH], got[NCH];
    oc_status st[NCH];
    size_t coff[NCH], c = 0;
    for (int i = 0; i < NCH; i++) {
        sp[i] = b->input + b->dof[i];
        len[i] = g_len[i];
        coff[i] = c;
        dp[i] = tmp + c;
        c += bound[i] + 64;
    }
    oc_codec_options co = *o;
    REQUIRE(oc_batch_compress(g_cpu, &co, NCH, sp, len, dp, bound, got, st) == OC_OK);
    size_t s = 0;
    b->src = xmalloc(cap);
    for (int i = 0; i < NCH; i++) {
        REQUIRE(st[i] == OC_OK);
        s += 37; /* unaligned gaps */
        b->so[i] = s;
        b->ss[i] = got[i];
        memcpy(b->src + s, tmp + coff[i], got[i]);
        s += got[i];
    }
    b->src_bytes = s;
    free(tmp);
    /* hostile arguments: 2 source past the end, 4 size wraps, 6 destination
     * past the end, 8 capacity one byte short (a codec status, not a range one) */
    b->so[2] = b->src_bytes + 1;
    b->ss[4] = SIZE_MAX;
    b->dof[6] = b->in_bytes - 10;
    b->dc[8] = g_len[8] - 1;
    /* what oc_batch_decompress says of the in-range chunks, given by pointers */
    const void *ps[NCH];
    void *pd[NCH];
    size_t pss[NCH], pdc[NCH];
    uint8_t *scratch = xmalloc(b->in_bytes);
    for (int i = 0; i < NCH; i++) {
        int bad = i == 2 || i == 4 || i == 6;
        ps[i] = b->src + (bad ? 0 : b->so[i]);
        pss[i] = bad ? 0 : b->ss[i];
        pd[i] = scratch + (bad ? 0 : b->dof[i]);
        pdc[i] = bad ? 0 : b->dc[i];
    }
    REQUIRE(oc_batch_decompress(g_cpu, o, NCH, ps, pss, pd, pdc, b->want_size, b->want) == OC_OK);
    for (int i = 0; i < NCH; i++)
        if (i == 2 || i == 4 || i == 6) {
            b->want[i] = OC_ERR_INVALID_ARGUMENT;
            b->want_size[i] = 0;
        }
    CHECK(b->want[0] == OC_OK && b->want[1] == OC_OK && b->want[8] == OC_ERR_OUTPUT_TOO_SMALL);
    free(scratch);
}

static void free_batch(batch *b)
{
    free(b->input);
    free(b->src);
}

/* The decoded buffer against the input: every OK chunk equal, the gaps and
 * every refused chunk's range untouched (GUARD). */
static void check_output(const char *what, const batch *b, const uint8_t *out, const oc_status *st,
                         const size_t *sz)
{
    for (int i = 0; i < NCH; i++) {
        EXPECT(st[i] == b->want[i], "%s chunk %d: status %s, expected %s", what, i, oc_status_name(st[i]),
               oc_status_name(b->want[i]));
        EXPECT(sz[i] == b->want_size[i], "%s chunk %d: size %zu, expected %zu", what, i, sz[i],
               b->want_size[i]);
        if (b->want[i] == OC_OK)
            EXPECT(memcmp(out + b->dof[i], b->input + b->dof[i], g_len[i]) == 0, "%s chunk %d: bytes differ",
                   what, i);
    }
    for (size_t k = 0; k < b->in_bytes; k++) {
        int inside = 0;
        for (int i = 0; i < NCH && !inside; i++)
            inside = (b->want[i] == OC_OK || b->want[i] == OC_ERR_OUTPUT_TOO_SMALL) && k >= b->dof[i] &&
                     k < b->dof[i] + b->dc[i];
        if (!inside && out[k] != GUARD) {
            EXPECT(0, "%s: byte %zu outside every decoded chunk was written", what, k);
            break;
        }
    }
}

static void cpu_case(const oc_codec_options *o, const batch *b)
{
    uint8_t *out = xmalloc(b->in_bytes);
    memset(out, GUARD, b->in_bytes);
    size_t sz[NCH];
    oc_status st[NCH];
    CHECK(oc_batch_decompress_packed(g_cpu, o, NCH, b->src, b->src_bytes, b->so, b->ss, out, b->in_bytes,
                                     b->dof, b->dc, sz, st) == OC_OK);
    check_output("cpu", b, out, st, sz);
    /* argument errors of the call itself */
    CHECK(oc_batch_decompress_packed(g_cpu, o, NCH, NULL, 0, b->so, b->ss, out, b->in_bytes, b->dof, b->dc,
                                     sz, st) == OC_ERR_INVALID_ARGUMENT);
    CHECK(oc_batch_decompress_packed(g_cpu, o, NCH, b->src, b->src_bytes, b->so, NULL, out, b->in_bytes,
                                     b->dof, b->dc, sz, st) == OC_ERR_INVALID_ARGUMENT);
    CHECK(oc_batch_decompress_packed(g_cpu, o, 0, NULL, 0, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL) ==
          OC_OK);
    free(out);
}

/* The GPU: arrays in device or host memory, results in device or host memory. */
static void gpu_case(const char *name, const oc_codec_options *o, const batch *b)
{
    uint8_t *src_d = to_device(b->src, b->src_bytes);
    uint8_t *out_d = dev_alloc(b->in_bytes);
    uint8_t *out = xmalloc(b->in_bytes);
    size_t *arr_d = dev_alloc(4 * NCH * sizeof(size_t));
    copy(arr_d, b->so, sizeof b->so);
    copy(arr_d + NCH, b->ss, sizeof b->ss);
    copy(arr_d + 2 * NCH, b->dof, sizeof b->dof);
    copy(arr_d + 3 * NCH, b->dc, sizeof b->dc);
    size_t *res_d = dev_alloc(NCH * (sizeof(size_t) + sizeof(oc_status)));
    for (int arrays_dev = 0; arrays_dev < 2; arrays_dev++)
        for (int results_dev = 0; results_dev < 2; results_dev++) {
            char what[160];
            snprintf(what, sizeof what, "gpu %s, arrays in %s memory, results in %s memory", name,
                     arrays_dev ? "device" : "host", results_dev ? "device" : "host");
            memset(out, GUARD, b->in_bytes);
            copy(out_d, out, b->in_bytes);
            size_t sz[NCH];
            oc_status st[NCH];
            for (int i = 0; i < NCH; i++)
                sz[i] = 12345, st[i] = OC_ERR_CUDA;
            const size_t *so = arrays_dev ? arr_d : b->so, *ss = arrays_dev ? arr_d + NCH : b->ss;
            const size_t *dof = arrays_dev ? arr_d + 2 * NCH : b->dof,
                         *dc = arrays_dev ? arr_d + 3 * NCH : b->dc;
            size_t *szp = results_dev ? res_d : sz;
            oc_status *stp = results_dev ? (oc_status *)(res_d + NCH) : st;
            oc_status call = oc_batch_decompress_packed(g_gpu, o, NCH, src_d, b->src_bytes, so, ss, out_d,
                                                        b->in_bytes, dof, dc, szp, stp);
            EXPECT(call == OC_OK, "%s: %s", what, oc_status_name(call));
            dev_mem_require(oc_context_synchronize(g_gpu), "synchronize");
            if (results_dev) {
                copy(sz, res_d, sizeof sz);
                copy(st, res_d + NCH, sizeof st);
            }
            copy(out, out_d, b->in_bytes);
            check_output(what, b, out, st, sz);
        }
    dev_free(res_d, NCH * (sizeof(size_t) + sizeof(oc_status)));
    dev_free(arr_d, 4 * NCH * sizeof(size_t));
    dev_free(out_d, b->in_bytes);
    dev_free(src_d, b->src_bytes);
    free(out);
}

/* (4): compression into slots of one buffer.  engine_ctx: g_cpu or g_gpu; on the GPU the buffers are
 * device memory and the arrays in device (arrays_dev) or host memory. */
static void compress_case(const char *what, const oc_codec_options *o, const batch *b, oc_context *engine_ctx,
                          int arrays_dev)
{
    size_t so[NCH], ss[NCH], dof[NCH], dc[NCH], off = 0;
    for (int i = 0; i < NCH; i++) {
        so[i] = b->dof[i];
        ss[i] = g_len[i];
        dc[i] = oc_compress_bound(o->algorithm, g_len[i]);
        dof[i] = off;
        off += dc[i] + 50;
    }
    size_t dst_bytes = off;
    so[2] = b->in_bytes + 1; /* source past the end */
    ss[4] = SIZE_MAX;        /* a size that wraps */
    dof[6] = dst_bytes - 10; /* destination past the end */
    dc[8] = 4;               /* a slot too small */
    uint8_t *dst = xmalloc(dst_bytes);
    memset(dst, GUARD, dst_bytes);
    size_t sz[NCH];
    oc_status st[NCH];
    oc_status call;
    if (engine_ctx == g_cpu) {
        call = oc_batch_compress_packed(g_cpu, o, NCH, b->input, b->in_bytes, so, ss, dst, dst_bytes, dof, dc,
                                        sz, st);
    } else {
        uint8_t *src_d = to_device(b->input, b->in_bytes), *dst_d = to_device(dst, dst_bytes);
        size_t *arr_d = dev_alloc(4 * NCH * sizeof(size_t));
        copy(arr_d, so, sizeof so);
        copy(arr_d + NCH, ss, sizeof ss);
        copy(arr_d + 2 * NCH, dof, sizeof dof);
        copy(arr_d + 3 * NCH, dc, sizeof dc);
        call = oc_batch_compress_packed(
            g_gpu, o, NCH, src_d, b->in_bytes, arrays_dev ? arr_d : so, arrays_dev ? arr_d + NCH : ss, dst_d,
            dst_bytes, arrays_dev ? arr_d + 2 * NCH : dof, arrays_dev ? arr_d + 3 * NCH : dc, sz, st);
        dev_mem_require(oc_context_synchronize(g_gpu), "synchronize");
        copy(dst, dst_d, dst_bytes);
        dev_free(arr_d, 4 * NCH * sizeof(size_t));
        dev_free(dst_d, dst_bytes);
        dev_free(src_d, b->in_bytes);
    }
    EXPECT(call == OC_OK, "%s: %s", what, oc_status_name(call));
    for (int i = 0; i < NCH; i++) {
        if (i == 2 || i == 4 || i == 6) {
            EXPECT(st[i] == OC_ERR_INVALID_ARGUMENT && sz[i] == 0, "%s chunk %d: %s, size %zu", what, i,
                   oc_status_name(st[i]), sz[i]);
            continue;
        }
        if (i == 8) {
            EXPECT(st[i] == OC_ERR_OUTPUT_TOO_SMALL, "%s chunk 8: %s", what, oc_status_name(st[i]));
            continue;
        }
        EXPECT(st[i] == OC_OK && sz[i] > 0 && sz[i] <= dc[i], "%s chunk %d: %s, size %zu", what, i,
               oc_status_name(st[i]), sz[i]);
        if (st[i] != OC_OK)
            continue;
        uint8_t *back = xmalloc(g_len[i]);
        const void *sp = dst + dof[i];
        void *bp = back;
        size_t got = 0, cap = g_len[i];
        oc_status ds = OC_ERR_CUDA;
        CHECK(oc_batch_decompress(g_cpu, o, 1, &sp, &sz[i], &bp, &cap, &got, &ds) == OC_OK);
        EXPECT(ds == OC_OK && got == g_len[i] && memcmp(back, b->input + b->dof[i], g_len[i]) == 0,
               "%s chunk %d: its stream does not decode to its input (%s)", what, i, oc_status_name(ds));
        free(back);
    }
    for (size_t k = 0; k < dst_bytes; k++) {
        int inside = 0;
        for (int i = 0; i < NCH && !inside; i++)
            inside =
                (st[i] == OC_OK || st[i] == OC_ERR_OUTPUT_TOO_SMALL) && k >= dof[i] && k < dof[i] + dc[i];
        if (!inside && dst[k] != GUARD) {
            EXPECT(0, "%s: byte %zu outside every slot was written", what, k);
            break;
        }
    }
    free(dst);
}

int main(void)
{
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.num_threads = 2;
    REQUIRE(oc_context_create(&co, &g_cpu) == OC_OK);
    int gpu = oc_engine_available(OC_ENGINE_CUDA);
    if (gpu) {
        oc_context_options go = OC_CONTEXT_OPTIONS_INIT;
        go.engine = OC_ENGINE_CUDA;
        REQUIRE(oc_context_create(&go, &g_gpu) == OC_OK);
    }
    const oc_algorithm algs[] = {OC_ALGO_LZ4, OC_ALGO_SNAPPY, OC_ALGO_ZSTD};
    int ran = 0;
    for (size_t a = 0; a < sizeof algs / sizeof algs[0]; a++)
        for (int filt = 0; filt < 2; filt++) {
            if (!oc_algorithm_available(OC_ENGINE_CPU, algs[a]))
                continue;
            oc_codec_options o = OC_CODEC_OPTIONS_INIT;
            o.algorithm = algs[a];
            o.filter = filt ? OC_FILTER_SHUFFLE : OC_FILTER_NONE;
            o.typesize = filt ? 4 : 0;
            batch b;
            make_batch(&b, &o);
            cpu_case(&o, &b);
            char name[64], what[128];
            snprintf(name, sizeof name, "%s%s", oc_algorithm_name(algs[a]), filt ? " + shuffle" : "");
            snprintf(what, sizeof what, "compress cpu %s", name);
            compress_case(what, &o, &b, g_cpu, 0);
            if (gpu) {
                gpu_case(name, &o, &b);
                for (int ad = 0; ad < 2; ad++) {
                    snprintf(what, sizeof what, "compress gpu %s, arrays in %s memory", name,
                             ad ? "device" : "host");
                    compress_case(what, &o, &b, g_gpu, ad);
                }
            }
            free_batch(&b);
            ran++;
        }
    if (g_gpu)
        oc_context_destroy(g_gpu);
    oc_context_destroy(g_cpu);
    if (g_failures) {
        fprintf(stderr, "test_cuda_packed: %d failure(s)\n", g_failures);
        return 1;
    }
    printf("test_cuda_packed: OK (%d cases%s)\n", ran, gpu ? ", CPU and GPU" : ", CPU only: no GPU");
    return 0;
}
