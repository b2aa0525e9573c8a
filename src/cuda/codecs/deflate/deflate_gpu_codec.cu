/*
 * deflate_gpu_codec.cu - the GPU codec (gpu_codec.h) of the Deflate
 * family: one codec for the deflate, zlib and gzip rows of the algorithm
 * table (the launch reads cfg->algorithm).  Decompression runs the inflate
 * kernel (inflate_kernels.cu); compression and size queries have no GPU
 * code yet, so the API layer host-stages them.  Kept apart from the kernels
 * so the development harness (bench/gpu/dev/) links the kernels alone.
 */
#include "inflate_gpu.h"

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_deflate = {NULL, NULL, NULL, oc_cuda_inflate, NULL};
