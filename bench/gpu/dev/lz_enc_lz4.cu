/*
 * lz_enc_lz4.cu - the LZ4 compressor variants of dev_lz_enc.cuh beside the
 * library's kernel (lz4_kernels.cu, included whole), for lz_enc_dev.
 */
#include "../../../src/cuda/codecs/lz4/lz4_kernels.cu"
#define LZE_SNAPPY 0
#define LZE_LAUNCH lze_launch_lz4
#include "dev_lz_enc.cuh"
