/*
 * batch.c - the public batched calls: argument checks shared by both
 * engines, then the engine choice.  An engine never sees a NULL array (when
 * n > 0), an invalid algorithm or an unresolved level.
 *
 * Engine choice: the context's engine if it names one (CUDA without a usable
 * device is NO_DEVICE); with AUTO, the CUDA engine when it is usable and the
 * data (src_ptrs, or src_ptrs[0]'s buffer) is in device or managed memory,
 * else the CPU engine.  Device data whose algorithm has no GPU codec for
 * the operation (or, for Blosc compression, whose inner codec has none:
 * blosclz) is staged through the CPU engine here (staging.c): the
 * choice is this layer's, never the CUDA engine's.  A shuffle filter
 * around a codec (oc_codec_options.filter) runs on the CUDA engine
 * (src/cuda/runtime/cuda_filter.h) when the host can read the source
 * sizes (compression) or capacities (decompression), which size its slab
 * in the engine's scratch; with those arrays in device or managed memory
 * the call is staged.  The
 * WITH_UNCOMPRESSED_SIZE kind (a size header per chunk) runs on both
 * engines with the same header check (src/common/wus.h); on the CUDA
 * engine its size query reads the headers alone (no codec size query is
 * needed), and detection (OC_ALGO_NONE) is staged as for RAW chunks.
 *
 * oc_batch_decompress_packed and oc_batch_compress_packed (one source and
 * one destination buffer, offsets instead of pointers): on the CUDA engine
 * a kernel builds the pointer arrays from the offsets (cuda_engine.cu), so
 * offsets that live on the GPU cost the host nothing per chunk; the
 * synchronous paths (the CPU engine, staged work) build them here.
 */
#include "../common/blosc_encode.h"
#include "../common/oc_internal.h"
#include "../common/shuffle.h"
#include "../common/typed_options.h"
#include "../cpu/cpu_engine.h"
#include "../cuda/runtime/cuda_engine.h"
#include "staging.h"

static oc_status check_options(const oc_codec_options *o)
{
    RETURN_ERROR_IF(!OC_OPTIONS_SIZE_OK(o, oc_codec_options), OC_ERR_INVALID_ARGUMENT);
    for (size_t i = 0; i < sizeof(o->reserved) / sizeof(o->reserved[0]); i++)
        RETURN_ERROR_IF(o->reserved[i] != 0, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF((unsigned)o->algorithm >= OC_ALGO_COUNT, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(o->filter > OC_FILTER_BITSHUFFLE || o->blosc_codec > OC_BLOSC_ZSTD ||
                        o->kind > OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE,
                    OC_ERR_INVALID_ARGUMENT);
    return oc_typed_check(&o->typed, o->algorithm);
}

static int on_device(const void *p)
{
    oc_memory_kind k = oc_pointer_kind(p);
    return k == OC_MEMORY_DEVICE || k == OC_MEMORY_MANAGED;
}

/* 1 when a shuffle filter runs around the codec (shuffle.h's rule, both
 * engines') and the CUDA engine cannot size its slab: the sizes that do
 * (`sizes`: the source sizes or the capacities) are not host-readable. */
static int filter_staged(const oc_codec_options *o, const size_t *sizes)
{
    uint32_t t;
    return oc_filter_of(o->filter, o->typesize, o->algorithm == OC_ALGO_BLOSC, &t) && on_device(sizes);
}

/* 1 when the CUDA engine has what operation `op` (0 compress, 1
 * decompress, 2 decompressed sizes) needs; else the work is staged.  The
 * WITH_UNCOMPRESSED_SIZE size query of a known algorithm reads only the
 * headers (src/cuda/runtime/cuda_wus.h).  sizes: the source sizes
 * (compression) or the capacities (decompression). */
static int cuda_runs(const oc_codec_options *o, int op, const size_t *sizes)
{
    if (op == 2 && o->kind == OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE && o->algorithm != OC_ALGO_NONE)
        return 1;
    if (op == 0 && o->algorithm == OC_ALGO_BLOSC && !oc_blosc_gpu_encodes(o->blosc_codec))
        return 0; /* blosclz chunks: libblosc on the CPU engine */
    return oc_cuda_has_op(o->algorithm, op) && (op == 2 || !filter_staged(o, sizes));
}

/* Which engine runs this call: OC_ENGINE_CPU or OC_ENGINE_CUDA, or a status. */
static oc_status choose_engine(const oc_context *ctx, size_t n, const void *const *src_ptrs,
                               oc_engine *engine)
{
    switch (ctx->opts.engine) {
    case OC_ENGINE_CPU:
        *engine = OC_ENGINE_CPU;
        return OC_OK;
    case OC_ENGINE_CUDA:
        RETURN_ERROR_IF(oc_cuda_forked(), OC_ERR_FORKED);
        RETURN_ERROR_IF(!oc_cuda_available(), OC_ERR_NO_DEVICE);
        *engine = OC_ENGINE_CUDA;
        return OC_OK;
    default:
        *engine = OC_ENGINE_CPU;
        if (n > 0 && oc_cuda_available() && (on_device(src_ptrs) || on_device(src_ptrs[0])))
            *engine = OC_ENGINE_CUDA;
        return OC_OK;
    }
}

oc_status oc_batch_compress(oc_context *ctx, const oc_codec_options *options, size_t n,
                            const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                            const size_t *dst_capacities, size_t *dst_sizes, oc_status *statuses)
{
    RETURN_ERROR_IF(ctx == NULL || options == NULL, OC_ERR_INVALID_ARGUMENT);
    FORWARD_IF_ERROR(check_options(options));
    RETURN_ERROR_IF(options->algorithm == OC_ALGO_NONE, OC_ERR_INVALID_ARGUMENT);
    int level = 0;
    FORWARD_IF_ERROR(oc_resolve_level(options->algorithm, options->level, &level));
    /* dst_sizes is how the caller learns each chunk's size: required. */
    RETURN_ERROR_IF(n > 0 && (!src_ptrs || !src_sizes || !dst_ptrs || !dst_capacities || !dst_sizes),
                    OC_ERR_INVALID_ARGUMENT);
    oc_engine engine;
    FORWARD_IF_ERROR(choose_engine(ctx, n, src_ptrs, &engine));
    if (engine == OC_ENGINE_CUDA && n > 0 && !cuda_runs(options, 0, src_sizes))
        return oc_staged_batch(ctx, options, 0, n, src_ptrs, src_sizes, dst_ptrs, dst_capacities, dst_sizes,
                               statuses);
    if (engine == OC_ENGINE_CUDA)
        return oc_cuda_batch_compress(ctx, options, n, src_ptrs, src_sizes, dst_ptrs, dst_capacities,
                                      dst_sizes, statuses);
    return oc_cpu_batch_compress(ctx, options, options->algorithm, level, n, src_ptrs, src_sizes, dst_ptrs,
                                 dst_capacities, dst_sizes, statuses);
}

oc_status oc_batch_decompress(oc_context *ctx, const oc_codec_options *options, size_t n,
                              const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                              const size_t *dst_capacities, size_t *dst_sizes, oc_status *statuses)
{
    static const oc_codec_options defaults = OC_CODEC_OPTIONS_INIT;
    RETURN_ERROR_IF(ctx == NULL, OC_ERR_INVALID_ARGUMENT);
    if (!options)
        options = &defaults;
    FORWARD_IF_ERROR(check_options(options));
    RETURN_ERROR_IF(n > 0 && (!src_ptrs || !src_sizes || !dst_ptrs || !dst_capacities),
                    OC_ERR_INVALID_ARGUMENT);
    oc_engine engine;
    FORWARD_IF_ERROR(choose_engine(ctx, n, src_ptrs, &engine));
    if (engine == OC_ENGINE_CUDA && n > 0 && !cuda_runs(options, 1, dst_capacities))
        return oc_staged_batch(ctx, options, 1, n, src_ptrs, src_sizes, dst_ptrs, dst_capacities, dst_sizes,
                               statuses);
    if (engine == OC_ENGINE_CUDA)
        return oc_cuda_batch_decompress(ctx, options, n, src_ptrs, src_sizes, dst_ptrs, dst_capacities,
                                        dst_sizes, statuses);
    return oc_cpu_batch_decompress(ctx, options, options->algorithm, n, src_ptrs, src_sizes, dst_ptrs,
                                   dst_capacities, dst_sizes, statuses);
}

oc_status oc_batch_decompressed_sizes(oc_context *ctx, const oc_codec_options *options, size_t n,
                                      const void *const *src_ptrs, const size_t *src_sizes, size_t *sizes,
                                      oc_status *statuses)
{
    static const oc_codec_options defaults = OC_CODEC_OPTIONS_INIT;
    RETURN_ERROR_IF(ctx == NULL, OC_ERR_INVALID_ARGUMENT);
    if (!options)
        options = &defaults;
    FORWARD_IF_ERROR(check_options(options));
    RETURN_ERROR_IF(n > 0 && (!src_ptrs || !src_sizes || !sizes), OC_ERR_INVALID_ARGUMENT);
    oc_engine engine;
    FORWARD_IF_ERROR(choose_engine(ctx, n, src_ptrs, &engine));
    if (engine == OC_ENGINE_CUDA && n > 0 && !cuda_runs(options, 2, NULL))
        return oc_staged_batch(ctx, options, 2, n, src_ptrs, src_sizes, NULL, NULL, sizes, statuses);
    if (engine == OC_ENGINE_CUDA)
        return oc_cuda_batch_decompressed_sizes(ctx, options, n, src_ptrs, src_sizes, sizes, statuses);
    return oc_cpu_batch_decompressed_sizes(ctx, options, options->algorithm, n, src_ptrs, src_sizes, sizes,
                                           statuses);
}

/* ---- one source buffer, one destination buffer, offsets ------------------ */

/* A synchronous copy between any two kinds of memory (staging.c's rule). */
static oc_status packed_copy(oc_context *ctx, void *dst, const void *src, size_t n)
{
    FORWARD_IF_ERROR(oc_memory_copy(ctx, dst, src, n));
    return oc_context_synchronize(ctx);
}

/* The host side of the packed calls (op 0 compress, 1 decompress), for
 * host-readable arrays whose call is synchronous (the CPU engine, or work
 * the CUDA engine stages): pointer arrays built here, an out-of-range chunk
 * given sizes 0 (so nothing of it is read or written), then its status and
 * size set once the call has returned (statuses and dst_sizes may be
 * device memory: copied there). */
static oc_status packed_on_host(oc_context *ctx, const oc_codec_options *options, int op, size_t n,
                                const uint8_t *src, size_t src_bytes, const size_t *so, const size_t *ss,
                                uint8_t *dst, size_t dst_bytes, const size_t *dof, const size_t *dc,
                                size_t *dst_sizes, oc_status *statuses)
{
    size_t *blk = (size_t *)oc_host_alloc(ctx, 4 * n * sizeof(size_t));
    RETURN_ERROR_IF(blk == NULL, OC_ERR_OUT_OF_MEMORY);
    const void **sp = (const void **)(void *)blk;
    size_t *sz = blk + n, *cap = blk + 3 * n;
    void **dp = (void **)(void *)(blk + 2 * n);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        int out = so[i] > src_bytes || ss[i] > src_bytes - so[i] || dof[i] > dst_bytes ||
                  dc[i] > dst_bytes - dof[i];
        bad += (size_t)out;
        sp[i] = src + (out ? 0 : so[i]);
        sz[i] = out ? 0 : ss[i];
        dp[i] = dst + (out ? 0 : dof[i]);
        cap[i] = out ? 0 : dc[i];
    }
    oc_status st =
        op == 0 ? oc_batch_compress(ctx, options, n, sp, sz, (void *const *)dp, cap, dst_sizes, statuses)
                : oc_batch_decompress(ctx, options, n, sp, sz, (void *const *)dp, cap, dst_sizes, statuses);
    for (size_t i = 0; st == OC_OK && bad && i < n; i++) {
        if (!(so[i] > src_bytes || ss[i] > src_bytes - so[i] || dof[i] > dst_bytes ||
              dc[i] > dst_bytes - dof[i]))
            continue;
        const size_t zero = 0;
        const oc_status inv = OC_ERR_INVALID_ARGUMENT;
        if (statuses)
            st = on_device(statuses) ? packed_copy(ctx, &statuses[i], &inv, sizeof inv)
                                     : (statuses[i] = inv, OC_OK);
        if (st == OC_OK && dst_sizes)
            st = on_device(dst_sizes) ? packed_copy(ctx, &dst_sizes[i], &zero, sizeof zero)
                                      : (dst_sizes[i] = 0, OC_OK);
    }
    oc_host_free(ctx, blk, 4 * n * sizeof(size_t));
    return st;
}

/* Both packed calls: the engine's choice, the CUDA engine's kernel path, or
 * the host side (device arrays copied to the host first). */
static oc_status packed_call(oc_context *ctx, const oc_codec_options *options, int op, size_t n,
                             const void *src, size_t src_bytes, const size_t *src_offsets,
                             const size_t *src_sizes, void *dst, size_t dst_bytes, const size_t *dst_offsets,
                             const size_t *dst_capacities, size_t *dst_sizes, oc_status *statuses)
{
    RETURN_ERROR_IF(n > ((size_t)1 << 40), OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(!src || !dst || !src_offsets || !src_sizes || !dst_offsets || !dst_capacities,
                    OC_ERR_INVALID_ARGUMENT);
    const size_t *arr[4] = {src_offsets, src_sizes, dst_offsets, dst_capacities};
    int dev_arrays = 0;
    for (int k = 0; k < 4; k++)
        dev_arrays |= oc_pointer_kind(arr[k]) == OC_MEMORY_DEVICE;
    oc_engine engine;
    const void *first[1] = {src};
    FORWARD_IF_ERROR(choose_engine(ctx, 1, first, &engine));
    RETURN_ERROR_IF(engine == OC_ENGINE_CPU && (dev_arrays || on_device(src) || on_device(dst)),
                    OC_ERR_INVALID_ARGUMENT);
    if (engine == OC_ENGINE_CUDA && cuda_runs(options, op, op == 0 ? src_sizes : dst_capacities))
        return (op == 0 ? oc_cuda_batch_compress_packed : oc_cuda_batch_decompress_packed)(
            ctx, options, n, src, src_bytes, src_offsets, src_sizes, dst, dst_bytes, dst_offsets,
            dst_capacities, dst_sizes, statuses);
    if (!dev_arrays && !on_device(dst_capacities) && !on_device(src_sizes))
        return packed_on_host(ctx, options, op, n, (const uint8_t *)src, src_bytes, src_offsets, src_sizes,
                              (uint8_t *)dst, dst_bytes, dst_offsets, dst_capacities, dst_sizes, statuses);
    /* work the CUDA engine stages, with device arrays: the arrays to the host first */
    size_t *h = (size_t *)oc_host_alloc(ctx, 4 * n * sizeof(size_t));
    RETURN_ERROR_IF(h == NULL, OC_ERR_OUT_OF_MEMORY);
    oc_status st = OC_OK;
    for (int k = 0; k < 4 && st == OC_OK; k++)
        st = packed_copy(ctx, h + k * n, arr[k], n * sizeof(size_t));
    if (st == OC_OK)
        st = packed_call(ctx, options, op, n, src, src_bytes, h, h + n, dst, dst_bytes, h + 2 * n, h + 3 * n,
                         dst_sizes, statuses);
    /* the CUDA engine may still read the staged arrays (a filter's call on host sizes) */
    if (st == OC_OK)
        st = oc_context_synchronize(ctx);
    oc_host_free(ctx, h, 4 * n * sizeof(size_t));
    return st;
}

oc_status oc_batch_decompress_packed(oc_context *ctx, const oc_codec_options *options, size_t n,
                                     const void *src, size_t src_bytes, const size_t *src_offsets,
                                     const size_t *src_sizes, void *dst, size_t dst_bytes,
                                     const size_t *dst_offsets, const size_t *dst_capacities,
                                     size_t *dst_sizes, oc_status *statuses)
{
    static const oc_codec_options defaults = OC_CODEC_OPTIONS_INIT;
    RETURN_ERROR_IF(ctx == NULL, OC_ERR_INVALID_ARGUMENT);
    if (!options)
        options = &defaults;
    FORWARD_IF_ERROR(check_options(options));
    if (n == 0)
        return OC_OK;
    return packed_call(ctx, options, 1, n, src, src_bytes, src_offsets, src_sizes, dst, dst_bytes,
                       dst_offsets, dst_capacities, dst_sizes, statuses);
}

oc_status oc_batch_compress_packed(oc_context *ctx, const oc_codec_options *options, size_t n,
                                   const void *src, size_t src_bytes, const size_t *src_offsets,
                                   const size_t *src_sizes, void *dst, size_t dst_bytes,
                                   const size_t *dst_offsets, const size_t *dst_capacities, size_t *dst_sizes,
                                   oc_status *statuses)
{
    RETURN_ERROR_IF(ctx == NULL || options == NULL, OC_ERR_INVALID_ARGUMENT);
    FORWARD_IF_ERROR(check_options(options));
    RETURN_ERROR_IF(options->algorithm == OC_ALGO_NONE, OC_ERR_INVALID_ARGUMENT);
    int level = 0;
    FORWARD_IF_ERROR(oc_resolve_level(options->algorithm, options->level, &level));
    if (n == 0)
        return OC_OK;
    RETURN_ERROR_IF(dst_sizes == NULL, OC_ERR_INVALID_ARGUMENT);
    return packed_call(ctx, options, 0, n, src, src_bytes, src_offsets, src_sizes, dst, dst_bytes,
                       dst_offsets, dst_capacities, dst_sizes, statuses);
}
