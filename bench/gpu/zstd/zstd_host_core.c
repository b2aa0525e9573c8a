/*
 * zstd_host_core.c - the GPU decoder's core (src/cuda/codecs/zstd/zstd_decode_core.h)
 * compiled for the host, one lane, so the harness can demand that the GPU
 * gives exactly the CPU core's status, size and bytes on damaged inputs.
 */
#include "zstd_host_core.h"

#include "cuda/codecs/zstd/zstd_decode_core.h"

oc_status zd_host_decode(const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out_size)
{
    static _Thread_local zd_tables tables;
    static _Thread_local uint8_t lit[ZD_BLOCK_MAX];
    return zd_decode_chunk(&tables, src, n, dst, cap, out_size, lit, sizeof lit);
}
