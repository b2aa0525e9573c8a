/*
 * cuda_internal.cuh - what the .cu files of the CUDA engine share and nothing
 * else sees: the per-context engine state, the device-side description of a
 * batch, and the kernel launchers of each codec.
 *
 * A batch reaches the kernels as one oc_cuda_batch whose arrays are all
 * device-accessible (the caller's own device arrays, or the engine's staged
 * copies in device scratch), so one kernel serves host and device layouts.
 * No C++ runtime features (new, exceptions, guarded statics) are used, so
 * the static library links into plain C programs.
 */
#ifndef OC_CUDA_INTERNAL_CUH
#define OC_CUDA_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_engine.h"

/* One batch as the kernels see it.  Every pointer is device-accessible;
 * dst_sizes and statuses may be NULL (then nothing is written there). */
struct oc_cuda_batch {
    size_t n;
    const uint8_t *const *src;
    const size_t *src_sizes;
    uint8_t *const *dst;
    const size_t *dst_caps;
    size_t *dst_sizes;
    int32_t *statuses; /* oc_status values */
};

/* Kernel launchers (asynchronous on `stream`; return the launch error). */
cudaError_t oc_cuda_lz4_compress_launch(const oc_cuda_batch &b, cudaStream_t stream);
cudaError_t oc_cuda_lz4_decompress_launch(const oc_cuda_batch &b, int write_output, cudaStream_t stream);
cudaError_t oc_cuda_snappy_compress_launch(const oc_cuda_batch &b, cudaStream_t stream);
cudaError_t oc_cuda_snappy_decompress_launch(const oc_cuda_batch &b, int write_output, cudaStream_t stream);

/* 1 when the compressors use lazy matching (OC_CUDA_LZ_MATCH=lazy; default
 * greedy until measured on a GPU); read once. */
int oc_cuda_lazy_matching(void);
/* The pipe decoders' copier: 1 = v6d (byte per lane for rounds of short
 * elements, the default), 0 = v6c (OC_CUDA_PIPE_COPIER=v6c); read once. */
int oc_cuda_pipe_copier_bytes(void);

/* Host-staged path (cuda_staged.cu) for algorithms without kernels; op is
 * 0 compress, 1 decompress, 2 decompressed sizes.  Synchronises. */
oc_status oc_cuda_staged_batch(oc_context *ctx, const oc_codec_options *options, int op, size_t n,
                               const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                               const size_t *dst_caps, size_t *out_sizes, oc_status *statuses);
/* The slot of the engine state that holds the staged path's CPU context
 * (creates the engine state if needed; NULL when out of memory). */
oc_context **oc_cuda_state_cpu_ctx(oc_context *ctx);

/* Worst-case compressed sizes, same as liblz4's and snappy's bounds. */
static inline size_t oc_cuda_lz4_bound(size_t n)
{
    return n + n / 255 + 16;
}
static inline size_t oc_cuda_snappy_bound(size_t n)
{
    return 32 + n + n / 6;
}

#endif /* OC_CUDA_INTERNAL_CUH */
