/*
 * dev_batch.h - one batch through the CUDA engine as the GPU tests run it
 * (test_cuda_zstd_dispatch.c, test_cuda_zstd_enc.c, test_cuda_zstd_lanes.c,
 * test_cuda_lz_codecs.c, test_cuda_deflate.c), written once: the inputs copied into one device
 * buffer, the outputs in slots of caps[i] bytes each followed by
 * DEV_BATCH_GUARD guard bytes (0xA5), the argument arrays in host or in
 * device memory, the slots copied back to out_host (every slot with its
 * guard, in order: dev_batch_slots) and a changed guard byte counted
 * as a failure (soft_check.h).  Sizes and statuses are set to 12345 and
 * INTERNAL before the call, so a chunk the engine never answers shows.
 * The call is the engine's own (oc_cuda_batch_*) or, with
 * DEV_BATCH_PUBLIC, the public one (oc_batch_*: argument checks and
 * dispatch too).  The context is dev_mem.h's g_gpu, which dev_gpu_begin
 * points at the engine's own context g_ctx (the SKIP without a GPU
 * written once too); src/ must be on the include path.
 */
#ifndef OC_DEV_BATCH_H
#define OC_DEV_BATCH_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/runtime/cuda_engine.h"
#include "dev_mem.h"
#include "soft_check.h"

/* The GPU tests' context: the CUDA engine's own (no public context around
 * it), set up by dev_gpu_begin; g_gpu (dev_mem.h) points here. */
static oc_context g_ctx;

/* Sets up g_ctx and g_gpu; without a GPU says SKIP for `test` and returns 0
 * (the test then passes, as CI has no GPU; scripts/gpu-check runs it). */
static inline int dev_gpu_begin(const char *test)
{
    if (!oc_cuda_available()) {
        printf("SKIP: %s needs a CUDA GPU (engine: %s); run scripts/gpu-check on a GPU machine\n", test,
               oc_cuda_build_info());
        return 0;
    }
    memset(&g_ctx, 0, sizeof(g_ctx));
    g_ctx.opts = (oc_context_options)OC_CONTEXT_OPTIONS_INIT;
    g_gpu = &g_ctx;
    return 1;
}

#define DEV_BATCH_GUARD 32
#define DEV_BATCH_GUARD_BYTE 0xA5

/* What dev_batch_run calls. */
enum { DEV_BATCH_DECOMPRESS = 0, DEV_BATCH_COMPRESS = 1, DEV_BATCH_SIZES = 2 };
/* Zstandard decompression with the GPU decoder's kernel named
 * (oc_cuda_zstd_decompress_forced; not with DEV_BATCH_PUBLIC). */
enum { DEV_BATCH_ZSTD_PER_CHUNK = 3, DEV_BATCH_ZSTD_LANES = 4, DEV_BATCH_ZSTD_FRAMES = 5 };

/* dev_batch_run's flags. */
#define DEV_BATCH_DEVICE_ARRAYS 1 /* pointer, size and status arrays in device memory */
#define DEV_BATCH_PUBLIC 2        /* oc_batch_* rather than the engine's oc_cuda_batch_* */
#define DEV_BATCH_ODD_INPUTS 4    /* a byte of gap before every odd-numbered input: odd addresses */

/* The bytes of out_host for n slots of caps[i] bytes and their guards;
 * off (unless NULL) gets where each slot starts. */
static inline size_t dev_batch_slots(size_t n, const size_t *caps, size_t *off)
{
    size_t t = 0;
    for (size_t i = 0; i < n; i++) {
        if (off)
            off[i] = t;
        t += caps[i] + DEV_BATCH_GUARD;
    }
    return t;
}

/* op (DEV_BATCH_*) with options o over in[i] (host, len[i] bytes): into
 * capacities caps[i] (compress, decompress; out_host gets the slots), or
 * the size query (caps and out_host unused, may be NULL); sizes and st get
 * the results on the host. */
static inline void dev_batch_run(int op, const oc_codec_options *o, size_t n, const uint8_t *const *in,
                                 const size_t *len, const size_t *caps, int flags, uint8_t *out_host,
                                 size_t *sizes, oc_status *st)
{
    int outputs = op != DEV_BATCH_SIZES;
    size_t in_total = 0, out_total = outputs ? dev_batch_slots(n, caps, NULL) : 0;
    for (size_t i = 0; i < n; i++)
        in_total += len[i] + ((flags & DEV_BATCH_ODD_INPUTS) && (i & 1));
    uint8_t *d_in = dev_alloc(in_total), *d_out = outputs ? dev_alloc(out_total) : NULL;
    const void **src = malloc((n ? n : 1) * sizeof *src);
    void **dst = malloc((n ? n : 1) * sizeof *dst);
    REQUIRE(src && dst);
    if (outputs) {
        uint8_t *fill = malloc(out_total ? out_total : 1);
        REQUIRE(fill);
        memset(fill, DEV_BATCH_GUARD_BYTE, out_total);
        copy(d_out, fill, out_total);
        free(fill);
    }
    uint8_t *pack = malloc(in_total ? in_total : 1);
    REQUIRE(pack);
    size_t io = 0, oo = 0;
    for (size_t i = 0; i < n; i++) {
        io += (flags & DEV_BATCH_ODD_INPUTS) && (i & 1);
        if (len[i])
            memcpy(pack + io, in[i], len[i]);
        src[i] = d_in + io;
        dst[i] = outputs ? d_out + oo : NULL;
        io += len[i];
        oo += outputs ? caps[i] + DEV_BATCH_GUARD : 0;
        sizes[i] = 12345;
        st[i] = OC_ERR_INTERNAL;
    }
    copy(d_in, pack, in_total); /* one copy: the gaps go up unset */
    free(pack);
    int pub = (flags & DEV_BATCH_PUBLIC) != 0;
    const size_t w = n * sizeof(size_t);
    const void *const *a_src = src;
    const size_t *a_len = len, *a_caps = caps;
    void *const *a_dst = dst;
    size_t *a_sizes = sizes;
    oc_status *a_st = st;
    uint8_t *a = NULL;
    if (flags & DEV_BATCH_DEVICE_ARRAYS) { /* the same arrays, in device memory */
        a = dev_alloc(6 * w);
        copy(a, src, w);
        copy(a + w, len, w);
        copy(a + 2 * w, dst, w);
        if (outputs)
            copy(a + 3 * w, caps, w);
        copy(a + 4 * w, sizes, w);
        copy(a + 5 * w, st, n * sizeof(oc_status));
        a_src = (const void *const *)a, a_len = (const size_t *)(a + w), a_dst = (void *const *)(a + 2 * w);
        a_caps = (const size_t *)(a + 3 * w), a_sizes = (size_t *)(a + 4 * w),
        a_st = (oc_status *)(a + 5 * w);
    }
    oc_status r;
    if (op == DEV_BATCH_COMPRESS)
        r = pub ? oc_batch_compress(g_gpu, o, n, a_src, a_len, a_dst, a_caps, a_sizes, a_st)
                : oc_cuda_batch_compress(g_gpu, o, n, a_src, a_len, a_dst, a_caps, a_sizes, a_st);
    else if (op == DEV_BATCH_ZSTD_PER_CHUNK || op == DEV_BATCH_ZSTD_LANES || op == DEV_BATCH_ZSTD_FRAMES)
        r = oc_cuda_zstd_decompress_forced(g_gpu, op - DEV_BATCH_ZSTD_PER_CHUNK, n, a_src, a_len, a_dst,
                                           a_caps, a_sizes, a_st);
    else if (op == DEV_BATCH_DECOMPRESS)
        r = pub ? oc_batch_decompress(g_gpu, o, n, a_src, a_len, a_dst, a_caps, a_sizes, a_st)
                : oc_cuda_batch_decompress(g_gpu, o, n, a_src, a_len, a_dst, a_caps, a_sizes, a_st);
    else
        r = pub ? oc_batch_decompressed_sizes(g_gpu, o, n, a_src, a_len, a_sizes, a_st)
                : oc_cuda_batch_decompressed_sizes(g_gpu, o, n, a_src, a_len, a_sizes, a_st);
    CHECK(r == OC_OK);
    REQUIRE((pub ? oc_context_synchronize(g_gpu) : oc_cuda_synchronize(g_gpu)) == OC_OK);
    if (a) {
        copy(sizes, a + 4 * w, w);
        copy(st, a + 5 * w, n * sizeof(oc_status));
        dev_free(a, 6 * w);
    }
    if (outputs) {
        copy(out_host, d_out, out_total);
        oo = 0;
        for (size_t i = 0; i < n; i++) {
            for (size_t g = 0; g < DEV_BATCH_GUARD; g++)
                if (out_host[oo + caps[i] + g] != DEV_BATCH_GUARD_BYTE) {
                    fprintf(stderr, "chunk %zu: write past capacity %zu\n", i, caps[i]);
                    g_failures++;
                    break;
                }
            oo += caps[i] + DEV_BATCH_GUARD;
        }
        dev_free(d_out, out_total);
    }
    free(src);
    free(dst);
    dev_free(d_in, in_total);
}

#endif /* OC_DEV_BATCH_H */
