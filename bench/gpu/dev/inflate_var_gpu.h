/*
 * inflate_var_gpu.h - the launchers of the inflate variants beside the
 * library's (inflate_var_kernels.cu) for deflate_dev.cu: oc_cuda_inflate's
 * arguments and contract without the scratch (none needs any).  Every
 * pointer is device memory.
 */
#ifndef OC_INFLATE_VAR_GPU_H
#define OC_INFLATE_VAR_GPU_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "cuda/runtime/gpu_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decoder v3: the library's core with an 11-bit literal/length table. */
oc_status dev_inflate_v3(const oc_gpu_config *cfg, size_t n, const void *const *src_dev,
                         const size_t *src_sizes_dev, void *const *dst_dev, const size_t *dst_caps_dev,
                         size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream);

/* Decoder v2 (inflate_v2_core.h), the library's until decoder v4. */
oc_status dev_inflate_v2(const oc_gpu_config *cfg, size_t n, const void *const *src_dev,
                         const size_t *src_sizes_dev, void *const *dst_dev, const size_t *dst_caps_dev,
                         size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
