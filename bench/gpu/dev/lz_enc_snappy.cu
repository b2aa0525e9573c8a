/*
 * lz_enc_snappy.cu - the Snappy compressor variants of dev_lz_enc.cuh beside
 * the library's kernel (snappy_kernels.cu, included whole), for lz_enc_dev.
 */
#include "../../../src/cuda/codecs/snappy/snappy_kernels.cu"
#define LZE_SNAPPY 1
#define LZE_LAUNCH lze_launch_snappy
#include "dev_lz_enc.cuh"
