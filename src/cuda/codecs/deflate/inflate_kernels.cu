/*
 * inflate_kernels.cu - the GPU Deflate / zlib / gzip decompression kernel
 * and its launcher.
 *
 * A block of INF_WARPS warps; warp w of the grid decodes chunk w (the grid
 * covers the batch, so there is no loop and no scratch).  Each warp owns an
 * inf_tables in shared memory (tables, ring, match queue: ~9 KiB); the block
 * shares the CRC-32 byte table.  The decoder itself is
 * inflate_chunk_core.h, shared with the host build that CI tests, so what
 * runs here is what the tests check.  Design and napkin math:
 * bench/gpu/dev/DEFLATE_NOTES.md.
 */
#include "inflate_chunk_core.h"
#include "inflate_gpu.h"

#define INF_WARPS 4
#define INF_MIN_BLOCKS 6 /* 24 warps per SM: shared memory allows ~6 blocks of 4 */

__global__ void __launch_bounds__(INF_WARPS * 32, INF_MIN_BLOCKS)
    inf_decode_kernel(oc_algorithm algo, size_t n, const void *const *src_ptrs, const size_t *src_sizes,
                      void *const *dst_ptrs, const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses)
{
    __shared__ inf_tables tables[INF_WARPS];
    __shared__ uint32_t crct[256];
    dck_crc_table_fill(crct, threadIdx.x, blockDim.x);
    __syncthreads();
    size_t warp = (size_t)blockIdx.x * INF_WARPS + (threadIdx.x >> 5);
    if (warp >= n)
        return;
    const uint8_t *src = (const uint8_t *)src_ptrs[warp];
    size_t srcn = src_sizes[warp];
    uint8_t *dst = (uint8_t *)dst_ptrs[warp];
    size_t cap = dst_caps[warp];
    size_t out = 0;
    oc_status st;
    if ((src == nullptr && srcn != 0) || (dst == nullptr && cap != 0))
        st = OC_ERR_INVALID_ARGUMENT;
    else
        st = inf_decode_chunk(&tables[threadIdx.x >> 5], crct, algo, src, srcn, dst, cap, &out);
    if ((threadIdx.x & 31) == 0) {
        if (dst_sizes)
            dst_sizes[warp] = st == OC_OK ? out : 0;
        if (statuses)
            statuses[warp] = st;
    }
}

extern "C" oc_status oc_cuda_inflate(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                     size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                     void *const *dst_dev, const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                     oc_status *statuses_dev, cudaStream_t stream)
{
    (void)scratch_dev;
    (void)scratch_size;
    if (cfg == NULL)
        return OC_ERR_INVALID_ARGUMENT;
    oc_algorithm algo = cfg->algorithm;
    if (algo != OC_ALGO_DEFLATE && algo != OC_ALGO_ZLIB && algo != OC_ALGO_GZIP)
        return OC_ERR_INVALID_ARGUMENT;
    if (n == 0)
        return OC_OK;
    if (!src_dev || !src_sizes_dev || !dst_dev || !dst_caps_dev)
        return OC_ERR_INVALID_ARGUMENT;
    size_t blocks = (n + INF_WARPS - 1) / INF_WARPS;
    if (blocks > 0x7FFFFFFFu)
        return OC_ERR_INVALID_ARGUMENT;
    inf_decode_kernel<<<(unsigned)blocks, INF_WARPS * 32, 0, stream>>>(
        algo, n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, dst_sizes_dev, statuses_dev);
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}
