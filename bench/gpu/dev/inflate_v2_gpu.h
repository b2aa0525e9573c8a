/*
 * inflate_v2_gpu.h - the launchers of decoders v2 and v3 (inflate_v2_kernels.cu) for
 * deflate_dev.cu: oc_cuda_inflate's arguments and contract without the
 * scratch (v2 needs none either).  Every pointer is device memory.
 */
#ifndef OC_INFLATE_V2_GPU_H
#define OC_INFLATE_V2_GPU_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "cuda/runtime/gpu_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

oc_status dev_inflate_v2(const oc_gpu_config *cfg, size_t n, const void *const *src_dev,
                         const size_t *src_sizes_dev, void *const *dst_dev, const size_t *dst_caps_dev,
                         size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream);

/* The same for decoder v3 (v2 with an 11-bit literal/length table). */
oc_status dev_inflate_v3(const oc_gpu_config *cfg, size_t n, const void *const *src_dev,
                         const size_t *src_sizes_dev, void *const *dst_dev, const size_t *dst_caps_dev,
                         size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
