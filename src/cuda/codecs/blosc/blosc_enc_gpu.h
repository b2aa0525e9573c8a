/*
 * blosc_enc_gpu.h - the GPU Blosc encoder's scratch size and launch
 * (blosc_enc_kernels.cu), which the Blosc GPU codec row
 * (blosc_kernels.cu's oc_gpu_codec_blosc) names; gpu_codec.h's argument
 * order and rules.
 */
#ifndef OC_BLOSC_ENC_GPU_H
#define OC_BLOSC_ENC_GPU_H

#include "../../runtime/gpu_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Device scratch for compressing n chunks with cfg (cfg->options: the
 * inner codec, filter, typesize and block size; cfg->src_sizes_host, when
 * not NULL, sizes it to the batch). */
OC_HIDDEN size_t oc_blosc_gpu_compress_scratch(const oc_gpu_config *cfg, size_t n);

/* Compresses n chunks into c-blosc 1.x chunks (lz4, lz4hc, snappy and zstd
 * inner codecs; UNSUPPORTED for the others: the API host-stages them). */
OC_HIDDEN oc_status oc_blosc_gpu_compress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                          size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                          void *const *dst_dev, const size_t *dst_caps_dev,
                                          size_t *dst_sizes_dev, oc_status *statuses_dev,
                                          cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* OC_BLOSC_ENC_GPU_H */
