/*
 * deflate_enc_gpu.h - the GPU Deflate / zlib / gzip compressor's entry
 * points, for the codec (deflate_gpu_codec.cu) and the development harness
 * (bench/gpu/dev/).
 *
 * One warp compresses one chunk (deflate_enc_core.h): standard streams any
 * inflater reads, at the API's levels 1..12 (1 greedy, 2..12 lazy with
 * more candidates per position as the level rises).  Enqueued on `stream`
 * without a host synchronisation.
 */
#ifndef OC_DEFLATE_ENC_GPU_H
#define OC_DEFLATE_ENC_GPU_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "../../runtime/gpu_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DE_MAX_WARPS 4096 /* resident worker warps at most; they loop over the chunks */

/*
 * oc_cuda_deflate_compress_scratch_size returns the bytes of DEVICE scratch
 * that oc_cuda_deflate_compress wants for n chunks at `level` (1..12): one
 * worker slice per warp (the segment's items, and for levels >= 2 the match
 * finder's buckets: ~0.17 MiB at level 1, ~0.4 MiB at 6, ~1.2 MiB at 12)
 * for min(n, DE_MAX_WARPS) warps.  Less also works (fewer warps, each
 * compressing more chunks), down to one slice.
 */
OC_HIDDEN size_t oc_cuda_deflate_compress_scratch_size(int level, size_t n);

/*
 * oc_cuda_deflate_compress compresses n chunks as cfg->algorithm
 * (OC_ALGO_DEFLATE, _ZLIB or _GZIP) at cfg->level; a gpu_codec.h launch.
 * Every array is in DEVICE memory with n entries: src_dev[i] points to
 * src_sizes_dev[i] bytes, dst_dev[i] to dst_caps_dev[i] writable bytes
 * (oc_compress_bound always suffices).  Results: dst_sizes_dev[i] the
 * stream's length (0 on failure), statuses_dev[i] OK, OUTPUT_TOO_SMALL
 * (the stream does not fit; nothing past the capacity is written) or
 * INVALID_ARGUMENT (a NULL chunk pointer).  scratch_dev: scratch_size bytes
 * of device memory, at least one slice.
 */
OC_HIDDEN oc_status oc_cuda_deflate_compress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                             size_t n, const void *const *src_dev,
                                             const size_t *src_sizes_dev, void *const *dst_dev,
                                             const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                             oc_status *statuses_dev, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* OC_DEFLATE_ENC_GPU_H */
