/*
 * deflate_gpu_codec.cu - the GPU codec (gpu_codec.h) of the Deflate
 * family: one codec for the deflate, zlib and gzip rows of the algorithm
 * table (the launches read cfg->algorithm).  Compression runs the
 * compressor kernel (deflate_enc_kernels.cu) with its worker scratch,
 * decompression the inflate kernel (inflate_kernels.cu, no scratch); size
 * queries have no GPU code, so the API layer host-stages them.  Kept apart
 * from the kernels so the development harness (bench/gpu/dev/) links the
 * kernels alone.
 */
#include "deflate_enc_gpu.h"
#include "inflate_gpu.h"

/* A worker slice per chunk, at most 512 MiB (workers then loop). */
static size_t deflate_compress_scratch(const oc_gpu_config *cfg, size_t n)
{
    size_t b = oc_cuda_deflate_compress_scratch_size(cfg->level, n);
    return b < ((size_t)512 << 20) ? b : ((size_t)512 << 20);
}

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_deflate = {
    deflate_compress_scratch, oc_cuda_deflate_compress, NULL, oc_cuda_inflate, NULL};
