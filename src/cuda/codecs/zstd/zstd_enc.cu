/*
 * zstd_enc.cu - the GPU Zstandard compressor: the kernel around
 * zstd_enc_core.h (one warp per chunk) and its launcher (zstd_gpu.h).
 *
 * Each warp is a worker with its own slice of device scratch (match tables,
 * sequences, literals, entropy tables); workers take the next chunk from a
 * counter at the scratch's start (atomicAdd; zeroed by the launcher), so any
 * scratch size from one slice up serves any batch, and a worker that drew
 * quick chunks (raw, runs) takes more (a fixed chunk = worker, worker +
 * workers, ... left the last workers with up to ~2x the mean work on mixed
 * data: ENC_NOTES.md "Where the time goes").  The warp clears the hash table together and runs
 * the chunk together: the fast variant's match finder and the byte copies
 * use every lane; the level >= 6 match finder and the entropy coding's
 * serial parts (Huffman tree, FSE tables and state chain) run on lane 0
 * (zstd_enc_core.h).
 */
#include <stdlib.h>
#include <string.h>

#include "zstd_gpu.h"

#include "zstd_enc_core.h"

#define ZE_WARPS_PER_BLOCK 2
/* 20 warps an SM resident: 96 registers (the engine's scratch gives ~17 workers an SM;
 * without the bound ptxas takes 128, 16 an SM, and the last workers would wait) */
#define ZE_MIN_BLOCKS 10

#define ZE_COUNTER_BYTES 256 /* the next chunk to take (unsigned long long), before the slices */

static size_t ze_slice_bytes(void)
{
    size_t s = ZE_SCRATCH_BYTES + sizeof(ze_tables);
    return (s + 255) & ~(size_t)255;
}

extern "C" size_t oc_cuda_zstd_compress_scratch_size(size_t n)
{
    size_t w = n < OC_ZSTD_ENC_MAX_WARPS ? n : OC_ZSTD_ENC_MAX_WARPS;
    if (w == 0)
        w = 1;
    return ZE_COUNTER_BYTES + w * ze_slice_bytes();
}

__global__ void __launch_bounds__(ZE_WARPS_PER_BLOCK * 32, ZE_MIN_BLOCKS)
    ze_compress_kernel(size_t n, const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                       const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses, int level,
                       uint8_t *scratch, size_t slice, size_t nwarps)
{
    size_t warp = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    uint32_t lane = threadIdx.x & 31u;
    if (warp >= nwarps)
        return;
    unsigned long long *next = (unsigned long long *)(void *)scratch;
    uint8_t *mem = scratch + ZE_COUNTER_BYTES + warp * slice;
    ze_work W = ze_work_from(mem);
    ze_tables *T = (ze_tables *)(mem + ZE_SCRATCH_BYTES);
    if (lane == 0)
        ze_tables_init(T);
    __syncwarp();
    size_t done = 0; /* the worker's chunk before: its heads go stale by W.base, not by clearing */
    int clear = 1;
    for (;;) {
        unsigned long long c = 0;
        if (lane == 0)
            c = atomicAdd(next, 1ull);
        c = __shfl_sync(0xffffffffu, c, 0);
        if (c >= n)
            break;
        const uint8_t *src = (const uint8_t *)src_ptrs[c];
        size_t sn = src_sizes[c];
        if (!clear)
            clear = ze_next_chunk(&W, done, sn);
        if (clear) {
            ze_reset(&W, lane, 32);
            __syncwarp();
            clear = 0;
        }
        done = sn;
        uint8_t *dst = (uint8_t *)dst_ptrs[c];
        size_t out = 0;
        oc_status st;
        if ((src == nullptr && sn != 0) || dst == nullptr)
            st = OC_ERR_INVALID_ARGUMENT;
        else /* the whole warp: matching by lanes, entropy coding on lane 0 */
            st = ze_compress_chunk(&W, T, src, sn, dst, dst_caps[c], &out, level);
        if (lane == 0) {
            if (dst_sizes)
                dst_sizes[c] = st == OC_OK ? out : 0;
            if (statuses)
                statuses[c] = st;
        }
        __syncwarp();
    }
}

/* The level comes resolved (the algorithm table's default, 3, for 0). */
extern "C" oc_status oc_cuda_zstd_compress(void *scratch, size_t scratch_size, const oc_gpu_config *cfg,
                                           size_t n, const void *const *src_ptrs_dev,
                                           const size_t *src_sizes_dev, void *const *dst_ptrs_dev,
                                           const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                           oc_status *statuses_dev, cudaStream_t stream)
{
    int level = cfg->level;
    if (n == 0)
        return OC_OK;
    if (!src_ptrs_dev || !src_sizes_dev || !dst_ptrs_dev || !dst_caps_dev || !scratch)
        return OC_ERR_INVALID_ARGUMENT;
    size_t slice = ze_slice_bytes();
    size_t w = scratch_size > ZE_COUNTER_BYTES ? (scratch_size - ZE_COUNTER_BYTES) / slice : 0;
    if (w > n)
        w = n;
    if (w > OC_ZSTD_ENC_MAX_WARPS)
        w = OC_ZSTD_ENC_MAX_WARPS;
    if (w == 0)
        return OC_ERR_INVALID_ARGUMENT;
    if (cudaMemsetAsync(scratch, 0, sizeof(unsigned long long), stream) != cudaSuccess)
        return OC_ERR_CUDA;
    unsigned blocks = (unsigned)((w + ZE_WARPS_PER_BLOCK - 1) / ZE_WARPS_PER_BLOCK);
    ze_compress_kernel<<<blocks, ZE_WARPS_PER_BLOCK * 32, 0, stream>>>(
        n, src_ptrs_dev, src_sizes_dev, dst_ptrs_dev, dst_caps_dev, dst_sizes_dev, statuses_dev, level,
        (uint8_t *)scratch, slice, w);
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}
