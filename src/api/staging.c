/*
 * staging.c - device data for work the GPU codecs do not cover: the API
 * layer's choice of engine when an algorithm's table row has no GPU codec
 * for the operation (today: deflate, zlib, gzip and zstd size queries), and
 * the whole-buffer layer's cases the device path does not run (host output
 * buffers, containers without an index, gzip members, RAW zstd; see
 * docs/ARCHITECTURE.md).
 *
 * What it does: synchronises the context's stream, copies the argument
 * arrays and the chunks to host memory, runs the CPU engine through the
 * public API on a private CPU context (cached in the context, created with
 * the caller's thread count and host allocator, freed with it), and copies
 * results back.  Correct and simple, not fast: these calls synchronise the
 * host and move every byte over PCIe twice.  The decision is the API's:
 * the CUDA engine never calls back into the API.
 */
#include <stdlib.h>
#include <string.h>

#include "staging.h"

/* The private CPU context (created on first use; freed by oc_context_destroy). */
static oc_status staging_cpu(oc_context *ctx, oc_context **out)
{
    if (ctx->staging_cpu == NULL) {
        oc_context_options o = ctx->opts;
        o.engine = OC_ENGINE_CPU;
        o.cuda_stream = NULL;
        o.progress = NULL;
        o.progress_opaque = NULL;
        FORWARD_IF_ERROR(oc_context_create(&o, &ctx->staging_cpu));
    }
    *out = ctx->staging_cpu;
    return OC_OK;
}

/* A synchronous copy between any two kinds of memory. */
static oc_status copy_any(oc_context *ctx, void *dst, const void *src, size_t n)
{
    if (n == 0)
        return OC_OK;
    FORWARD_IF_ERROR(oc_memory_copy(ctx, dst, src, n));
    return oc_context_synchronize(ctx);
}

oc_status oc_staged_batch(oc_context *ctx, const oc_codec_options *options, int op, size_t n,
                          const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                          const size_t *dst_caps, size_t *out_sizes, oc_status *statuses)
{
    oc_context *cpu = NULL;
    FORWARD_IF_ERROR(staging_cpu(ctx, &cpu));
    FORWARD_IF_ERROR(oc_context_synchronize(ctx));
    oc_status st = OC_OK;
    size_t words = n ? n : 1;
    const void **hs = (const void **)calloc(words, sizeof(void *));
    size_t *hss = (size_t *)calloc(words, sizeof(size_t));
    void **hd = (void **)calloc(words, sizeof(void *));
    size_t *hdc = (size_t *)calloc(words, sizeof(size_t));
    size_t *hds = (size_t *)calloc(words, sizeof(size_t));
    oc_status *hst = (oc_status *)calloc(words, sizeof(oc_status));
    const void **in = (const void **)calloc(words, sizeof(void *));
    void **out = (void **)calloc(words, sizeof(void *));
    uint8_t *in_buf = NULL, *out_buf = NULL;
    size_t in_total = 0, out_total = 0;
    if (!hs || !hss || !hd || !hdc || !hds || !hst || !in || !out) {
        st = OC_ERR_OUT_OF_MEMORY;
        goto done;
    }
    if ((st = copy_any(ctx, hs, src_ptrs, n * sizeof(void *))) != OC_OK ||
        (st = copy_any(ctx, hss, src_sizes, n * sizeof(size_t))) != OC_OK)
        goto done;
    if (op != 2 && ((st = copy_any(ctx, hd, dst_ptrs, n * sizeof(void *))) != OC_OK ||
                    (st = copy_any(ctx, hdc, dst_caps, n * sizeof(size_t))) != OC_OK))
        goto done;
    for (size_t i = 0; i < n; i++) {
        in_total += hss[i];
        out_total += op != 2 ? hdc[i] : 0;
    }
    in_buf = (uint8_t *)malloc(in_total ? in_total : 1);
    out_buf = (uint8_t *)malloc(out_total ? out_total : 1);
    if (!in_buf || !out_buf) {
        st = OC_ERR_OUT_OF_MEMORY;
        goto done;
    }
    {
        size_t io = 0, oo = 0;
        for (size_t i = 0; i < n; i++) {
            in[i] = hs[i] ? in_buf + io : NULL;
            if (hs[i] && (st = copy_any(ctx, in_buf + io, hs[i], hss[i])) != OC_OK)
                goto done;
            io += hss[i];
            if (op != 2) {
                out[i] = hd[i] ? out_buf + oo : NULL;
                oo += hdc[i];
            }
        }
    }
    if (op == 0)
        st = oc_batch_compress(cpu, options, n, in, hss, out, hdc, hds, hst);
    else if (op == 1)
        st = oc_batch_decompress(cpu, options, n, in, hss, out, hdc, hds, hst);
    else
        st = oc_batch_decompressed_sizes(cpu, options, n, in, hss, hds, hst);
    if (st != OC_OK)
        goto done;
    if (op != 2)
        for (size_t i = 0; i < n; i++)
            if (hst[i] == OC_OK && hd[i] && (st = copy_any(ctx, hd[i], out[i], hds[i])) != OC_OK)
                goto done;
    if (out_sizes && (st = copy_any(ctx, out_sizes, hds, n * sizeof(size_t))) != OC_OK)
        goto done;
    if (statuses)
        st = copy_any(ctx, statuses, hst, n * sizeof(oc_status));
done:
    free(hs), free(hss), free(hd), free(hdc), free(hds), free(hst), free(in), free(out);
    free(in_buf), free(out_buf);
    return st;
}

oc_status oc_staged_buffer_compress(oc_context *ctx, const oc_buffer_options *options, const void *src,
                                    uint64_t src_size, void *dst, uint64_t dst_capacity, uint64_t *dst_size)
{
    if (ctx == NULL || dst_size == NULL || options == NULL)
        return OC_ERR_INVALID_ARGUMENT;
    if (src_size > SIZE_MAX / 2)
        return OC_ERR_INVALID_ARGUMENT;
    oc_context *cpu = NULL;
    FORWARD_IF_ERROR(staging_cpu(ctx, &cpu));
    FORWARD_IF_ERROR(oc_context_synchronize(ctx));
    size_t bound = oc_buffer_compress_bound(options, src_size);
    size_t cap = bound && bound < dst_capacity ? bound : (size_t)dst_capacity;
    uint8_t *hs = (uint8_t *)malloc(src_size ? (size_t)src_size : 1);
    uint8_t *hd = (uint8_t *)malloc(cap ? cap : 1);
    oc_status st = hs && hd ? OC_OK : OC_ERR_OUT_OF_MEMORY;
    if (st == OC_OK)
        st = copy_any(ctx, hs, src, (size_t)src_size);
    if (st == OC_OK)
        st = oc_buffer_compress(cpu, options, hs, src_size, hd, cap, dst_size);
    if (st == OC_OK)
        st = copy_any(ctx, dst, hd, (size_t)*dst_size);
    if (st != OC_OK)
        *dst_size = 0;
    free(hs);
    free(hd);
    return st;
}

oc_status oc_staged_buffer_decompress(oc_context *ctx, const oc_buffer_options *hint, const void *src,
                                      uint64_t src_size, void *dst, uint64_t dst_capacity, uint64_t *dst_size,
                                      uint64_t *failed_chunk)
{
    if (ctx == NULL || dst_size == NULL)
        return OC_ERR_INVALID_ARGUMENT;
    if (src_size > SIZE_MAX / 2 || dst_capacity > SIZE_MAX / 2)
        return OC_ERR_INVALID_ARGUMENT;
    oc_context *cpu = NULL;
    FORWARD_IF_ERROR(staging_cpu(ctx, &cpu));
    FORWARD_IF_ERROR(oc_context_synchronize(ctx));
    uint8_t *hs = (uint8_t *)malloc(src_size ? (size_t)src_size : 1);
    oc_status st = hs ? copy_any(ctx, hs, src, (size_t)src_size) : OC_ERR_OUT_OF_MEMORY;
    uint8_t *hd = NULL;
    size_t cap = (size_t)dst_capacity;
    if (st == OC_OK) {
        /* host room for what the stream says it holds, never more than the caller's */
        uint64_t need = 0;
        if (oc_buffer_decompressed_size(cpu, hint, hs, src_size, &need) == OC_OK && need < cap)
            cap = (size_t)need;
        hd = (uint8_t *)malloc(cap ? cap : 1);
        if (hd == NULL)
            st = OC_ERR_OUT_OF_MEMORY;
    }
    if (st == OC_OK)
        st = oc_buffer_decompress(cpu, hint, hs, src_size, hd, cap, dst_size, failed_chunk);
    if (st == OC_ERR_OUTPUT_TOO_SMALL && cap < dst_capacity) /* size query was wrong: give it all */
        st = OC_ERR_CORRUPT;
    if (st == OC_OK)
        st = copy_any(ctx, dst, hd, (size_t)*dst_size);
    if (st != OC_OK)
        *dst_size = 0;
    free(hs);
    free(hd);
    return st;
}
