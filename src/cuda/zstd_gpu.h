/*
 * zstd_gpu.h - the GPU Zstandard decoder's entry points, for the CUDA
 * engine's dispatch (src/cuda/) and the standalone harness
 * (bench/gpu/zstd/).
 *
 * One warp decodes one chunk (every frame in it, skippable frames skipped);
 * the entropy decoding runs warp-uniform and the byte copies are split over
 * the lanes (see zstd_decode_core.h).  Everything is enqueued on `stream`
 * without a host synchronisation: sizes and statuses are valid once the
 * stream reaches that point.
 */
#ifndef OC_ZSTD_GPU_H
#define OC_ZSTD_GPU_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "../common/oc_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * oc_cuda_zstd_decompress_scratch_size returns the bytes of DEVICE scratch
 * that oc_cuda_zstd_decompress needs for `n` chunks whose output capacities
 * are at most `max_dst_capacity` bytes each: one literal buffer per
 * resident warp (min(max_dst_capacity, 128 KiB) bytes, 256-aligned) for at
 * most OC_ZSTD_GPU_MAX_WARPS warps.  Less scratch also works (fewer warps,
 * each decoding more chunks), down to one warp's buffer.
 */
#define OC_ZSTD_GPU_MAX_WARPS 4096
OC_HIDDEN size_t oc_cuda_zstd_decompress_scratch_size(size_t n, size_t max_dst_capacity);

/*
 * oc_cuda_zstd_decompress decodes n Zstandard chunks on the GPU.
 *
 * Every array is in DEVICE memory with n entries: src_ptrs_dev[i] points to
 * src_sizes_dev[i] compressed bytes (any alignment), dst_ptrs_dev[i] to
 * dst_caps_dev[i] writable bytes.  Results: dst_sizes_dev[i] the bytes
 * written, statuses_dev[i] one of OK, CORRUPT, TRUNCATED, OUTPUT_TOO_SMALL,
 * CHECKSUM_MISMATCH (content checksum present and wrong), NEEDS_DICTIONARY
 * (the frame names a dictionary).  A frame whose content size field
 * disagrees with its blocks is CORRUPT.  An empty chunk decodes to 0 bytes.
 * statuses_dev and dst_sizes_dev may be NULL.
 *
 * `scratch` is device memory of scratch_size bytes, at least
 * oc_cuda_zstd_decompress_scratch_size(1, max_dst_capacity); it must stay
 * untouched until the stream passes this work.  `ctx` is unused today
 * (reserved for the engine's state; may be NULL).
 *
 * Returns OK once the kernel is enqueued; INVALID_ARGUMENT for NULL arrays
 * or too little scratch; CUDA if the launch fails.  Per-chunk outcomes are
 * in statuses_dev.
 */
OC_HIDDEN oc_status oc_cuda_zstd_decompress(oc_context *ctx, size_t n, const void *const *src_ptrs_dev,
                                            const size_t *src_sizes_dev, void *const *dst_ptrs_dev,
                                            const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                            oc_status *statuses_dev, size_t max_dst_capacity, void *scratch,
                                            size_t scratch_size, cudaStream_t stream);

/* Harness only: picks the kernel compiled for 3, 4 (default) or 5 resident
 * blocks of 4 warps per SM (fewer registers per thread).  Not thread-safe. */
OC_HIDDEN void oc_cuda_zstd_debug_set_min_blocks(int min_blocks);

#ifdef ZD_PROFILE
/* Harness only, builds with -DZD_PROFILE: cycles per phase summed over
 * warps (see zstd_decode_core.h); reset != 0 zeroes the counters after. */
OC_HIDDEN void oc_cuda_zstd_debug_profile(unsigned long long out[8], int reset);
#endif

#ifdef __cplusplus
}
#endif
#endif /* OC_ZSTD_GPU_H */
