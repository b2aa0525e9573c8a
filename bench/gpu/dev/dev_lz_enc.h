/*
 * dev_lz_enc.h - the interface between lz_enc_dev.cu (the harness) and the
 * compressor variants of dev_lz_enc.cuh, built once per format (lz_enc_lz4.cu,
 * lz_enc_snappy.cu: the library's two codec sources cannot share one unit).
 */
#ifndef DEV_LZ_ENC_H
#define DEV_LZ_ENC_H

#include <cuda_runtime.h>

#include "../../../src/cuda/codecs/lz_common/lz_device.cuh"

/* One variant: hash table entries 2^ht_log a warp, skip (31 = none), many
 * (1: one writer per hash as the library; 0: every lane writes), multi (0:
 * one match a window as the library; 1, 2: dev_lz_enc.cuh's MULTI). */
typedef struct lze_variant {
    const char *name;
    int ht_log;
    int skip;
    int many;
    int multi;
} lze_variant;

/* Launch variant v (0 = the library's kernel) on batch *b in stream s; 0 on
 * success, -1 for no such variant, -2 for a launch error.  *info (when not
 * NULL) gets the variant's row; b NULL only fills *info. */
extern "C" int lze_launch_lz4(int v, const oc_cuda_batch *b, cudaStream_t s, const lze_variant **info);
extern "C" int lze_launch_snappy(int v, const oc_cuda_batch *b, cudaStream_t s, const lze_variant **info);

#endif
