/*
 * zstd_enc_gpu.h - the GPU Zstandard compressor's entry points, for the CUDA
 * engine's dispatch (cuda_engine.cu).
 *
 * One warp owns one chunk: the warp resets the match tables together, lane 0
 * finds the matches and entropy-codes the blocks (zstd_enc_core.h; the same
 * source is the C build that CI tests).  Output: one standard frame per chunk
 * (content size in the header, window = chunk size, no checksum), which
 * libzstd and `zstd -d` decode.  Everything is enqueued on `stream` without a
 * host synchronisation.
 */
#ifndef OC_ZSTD_ENC_GPU_H
#define OC_ZSTD_ENC_GPU_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "../common/oc_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * oc_cuda_zstd_compress_scratch_size returns the bytes of DEVICE scratch that
 * oc_cuda_zstd_compress needs to give each of n chunks its own worker (one
 * warp with ~1 MiB of match tables, sequence and literal buffers) for at
 * most OC_ZSTD_ENC_MAX_WARPS workers.  Less scratch also works (fewer
 * workers, each compressing more chunks), down to one worker's slice.
 */
#define OC_ZSTD_ENC_MAX_WARPS 1024
OC_HIDDEN size_t oc_cuda_zstd_compress_scratch_size(size_t n);

/*
 * oc_cuda_zstd_compress compresses n chunks on the GPU at `level` (0 =
 * default = 3, or 1 with OC_CUDA_ZSTD_ENC_DEFAULT=fast in the environment;
 * <= 1 the fast variant, >= 2 the lazy variants: see zstd_enc_core.h and
 * bench/gpu/zstd/ENC_NOTES.md).
 *
 * Every array is in DEVICE memory with n entries: src_ptrs_dev[i] points to
 * src_sizes_dev[i] bytes, dst_ptrs_dev[i] to dst_caps_dev[i] writable bytes.
 * Results: dst_sizes_dev[i] the frame's size, statuses_dev[i] OK,
 * OUTPUT_TOO_SMALL (the frame does not fit; nothing is written past the
 * capacity), CHUNK_TOO_LARGE (>= 4 GiB) or INVALID_ARGUMENT (NULL chunk
 * pointer).  statuses_dev and dst_sizes_dev may be NULL.
 *
 * `scratch` is device memory of scratch_size bytes, at least
 * oc_cuda_zstd_compress_scratch_size(1); it must stay untouched until the
 * stream passes this work.  `ctx` is unused today (may be NULL).
 *
 * Returns OK once the kernel is enqueued; INVALID_ARGUMENT for NULL arrays or
 * too little scratch; CUDA if the launch fails.
 */
OC_HIDDEN oc_status oc_cuda_zstd_compress(oc_context *ctx, size_t n, const void *const *src_ptrs_dev,
                                          const size_t *src_sizes_dev, void *const *dst_ptrs_dev,
                                          const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                          oc_status *statuses_dev, int level, void *scratch,
                                          size_t scratch_size, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* OC_ZSTD_ENC_GPU_H */
