/*
 * lz4_gpu.h - what the CUDA engine reaches of the LZ4 GPU codec besides its
 * table entry (oc_gpu_codec_lz4, gpu_codec.h): two codecs for tests only
 * (cuda_engine.h, oc_cuda_lz_decompress_forced), so that they drive the
 * split decoder on batches of any size (the public codec gives batches of
 * fewer than OC_LZS_MIN_BATCH chunks to the pipe alone), and its copy
 * kernel alone, whose self-decode path (a copy warp that finds a chunk no
 * parse lane has claimed decodes it alone) then runs on every chunk,
 * deterministically.  Not for anything but tests.
 */
#ifndef OC_LZ4_GPU_H
#define OC_LZ4_GPU_H

#include "../../runtime/gpu_codec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Decompression only: the split decoder (parse and copy) whatever the
 * batch's size; the same without the parse. */
OC_HIDDEN extern const oc_gpu_codec oc_gpu_codec_lz4_split;
OC_HIDDEN extern const oc_gpu_codec oc_gpu_codec_lz4_copy_only;

#ifdef __cplusplus
}
#endif
#endif /* OC_LZ4_GPU_H */
