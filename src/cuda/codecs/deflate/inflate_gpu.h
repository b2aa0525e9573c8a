/*
 * inflate_gpu.h - the GPU Deflate / zlib / gzip decoder's entry point, for
 * the CUDA engine's dispatch (src/cuda/) and the development harness
 * (bench/gpu/dev/).
 *
 * One warp decodes one chunk (inflate_chunk_core.h: raw Deflate, zlib with
 * its Adler-32, gzip members with CRC-32 and ISIZE, all verified on the
 * device).  Everything is enqueued on `stream` without a host
 * synchronisation: sizes and statuses are valid once the stream reaches that
 * point.
 */
#ifndef OC_INFLATE_GPU_H
#define OC_INFLATE_GPU_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "../../runtime/gpu_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * oc_cuda_inflate decodes n chunks of cfg->algorithm (OC_ALGO_DEFLATE,
 * OC_ALGO_ZLIB or OC_ALGO_GZIP) on the GPU; a gpu_codec.h launch.
 *
 * Every array is in DEVICE memory with n entries: src_dev[i] points to
 * src_sizes_dev[i] compressed bytes (any alignment), dst_dev[i] to
 * dst_caps_dev[i] writable bytes.  Results: dst_sizes_dev[i] the bytes
 * written (0 on failure), statuses_dev[i] one of OK, CORRUPT, TRUNCATED,
 * OUTPUT_TOO_SMALL, CHECKSUM_MISMATCH (Adler-32, CRC-32, gzip FHCRC),
 * SIZE_MISMATCH (gzip ISIZE), NEEDS_DICTIONARY (zlib preset dictionary),
 * INVALID_ARGUMENT (a NULL chunk pointer) - the CPU engine's status for the
 * same chunk (see inflate_chunk_core.h).  statuses_dev and dst_sizes_dev may
 * be NULL.  No scratch is used (each warp's tables and history ring are in
 * shared memory): scratch_dev may be NULL.
 *
 * Returns OK once the kernel is enqueued; INVALID_ARGUMENT for NULL arrays
 * or another algorithm; CUDA if the launch fails.
 */
OC_HIDDEN oc_status oc_cuda_inflate(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                    size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                    void *const *dst_dev, const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                    oc_status *statuses_dev, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* OC_INFLATE_GPU_H */
