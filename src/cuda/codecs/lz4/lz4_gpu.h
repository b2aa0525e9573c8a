/*
 * lz4_gpu.h - what the CUDA engine reaches of the LZ4 GPU codec besides its
 * table entry (oc_gpu_codec_lz4, gpu_codec.h): the launch that runs only the
 * split decoder's copy kernel, so that tests can drive its self-decode path
 * (a copy warp that finds a chunk no parse lane has claimed decodes it
 * alone) on every chunk, deterministically (cuda_engine.h,
 * oc_cuda_lz4_decompress_copy_only).  Not for anything but tests.
 */
#ifndef OC_LZ4_GPU_H
#define OC_LZ4_GPU_H

#include "../../runtime/gpu_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* As oc_gpu_codec_lz4.decompress (the same scratch), without the parse. */
OC_HIDDEN oc_status oc_lz4_gpu_decompress_copy_only(void *scratch_dev, size_t scratch_size,
                                                    const oc_gpu_config *cfg, size_t n,
                                                    const void *const *src_dev, const size_t *src_sizes_dev,
                                                    void *const *dst_dev, const size_t *dst_caps_dev,
                                                    size_t *dst_sizes_dev, oc_status *statuses_dev,
                                                    cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif /* OC_LZ4_GPU_H */
