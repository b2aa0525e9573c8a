/*
 * deflate_enc_kernels.cu - the GPU Deflate / zlib / gzip compression kernel
 * and its launcher.
 *
 * A grid of W warps (W = min(n, scratch / per-warp scratch, DE_MAX_WARPS));
 * warp w compresses chunks w, w + W, ...  Each warp owns a de_shared in
 * shared memory (hash table of the greedy parser, or a block's histograms,
 * codes and output staging: 8 KiB; 20 warps an SM, register bound) and
 * de_scratch_bytes(level) of the scratch (the
 * segment's items; for the lazy parser its buckets).  The compressor is
 * deflate_enc_core.h, shared with the host build that CI tests, so the GPU
 * writes the bytes the tests checked.  Levels and ratios:
 * bench/gpu/dev/DEFLATE_NOTES.md.
 */
#include "deflate_enc_core.h"
#include "deflate_enc_gpu.h"

#define DE_WARPS 2

__global__ void __launch_bounds__(DE_WARPS * 32)
    de_compress_kernel(oc_algorithm algo, int level, size_t n, const void *const *src_ptrs,
                       const size_t *src_sizes, void *const *dst_ptrs, const size_t *dst_caps,
                       size_t *dst_sizes, oc_status *statuses, uint8_t *scratch, size_t slot, size_t nwarps)
{
    __shared__ de_shared shared[DE_WARPS];
    __shared__ uint32_t crct[256];
    dck_crc_table_fill(crct, threadIdx.x, blockDim.x);
    __syncthreads();
    size_t warp = (size_t)blockIdx.x * DE_WARPS + (threadIdx.x >> 5);
    if (warp >= nwarps)
        return;
    de_shared *S = &shared[threadIdx.x >> 5];
    void *mine = scratch + warp * slot;
    for (size_t c = warp; c < n; c += nwarps) {
        const uint8_t *src = (const uint8_t *)src_ptrs[c];
        size_t srcn = src_sizes[c];
        uint8_t *dst = (uint8_t *)dst_ptrs[c];
        size_t cap = dst_caps[c], out = 0;
        oc_status st;
        if ((src == nullptr && srcn != 0) || (dst == nullptr && cap != 0))
            st = OC_ERR_INVALID_ARGUMENT;
        else
            st = de_compress_chunk(S, mine, crct, algo, level, src, srcn, dst, cap, &out);
        if ((threadIdx.x & 31) == 0) {
            if (dst_sizes)
                dst_sizes[c] = st == OC_OK ? out : 0;
            if (statuses)
                statuses[c] = st;
        }
        __syncwarp();
    }
}

static size_t de_slot(int level)
{
    return (de_scratch_bytes(level) + 255) & ~(size_t)255;
}

extern "C" size_t oc_cuda_deflate_compress_scratch_size(int level, size_t n)
{
    size_t w = n < DE_MAX_WARPS ? n : DE_MAX_WARPS;
    return (w ? w : 1) * de_slot(level);
}

extern "C" oc_status oc_cuda_deflate_compress(void *scratch_dev, size_t scratch_size,
                                              const oc_gpu_config *cfg, size_t n, const void *const *src_dev,
                                              const size_t *src_sizes_dev, void *const *dst_dev,
                                              const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                              oc_status *statuses_dev, cudaStream_t stream)
{
    if (cfg == NULL)
        return OC_ERR_INVALID_ARGUMENT;
    oc_algorithm algo = cfg->algorithm;
    if (algo != OC_ALGO_DEFLATE && algo != OC_ALGO_ZLIB && algo != OC_ALGO_GZIP)
        return OC_ERR_INVALID_ARGUMENT;
    if (n == 0)
        return OC_OK;
    if (!src_dev || !src_sizes_dev || !dst_dev || !dst_caps_dev || !scratch_dev)
        return OC_ERR_INVALID_ARGUMENT;
    int level = cfg->level < 1 ? 6 : cfg->level > 12 ? 12 : cfg->level;
    size_t slot = de_slot(level);
    size_t w = scratch_size / slot;
    if (w > n)
        w = n;
    if (w > DE_MAX_WARPS)
        w = DE_MAX_WARPS;
    if (w == 0)
        return OC_ERR_INVALID_ARGUMENT;
    unsigned blocks = (unsigned)((w + DE_WARPS - 1) / DE_WARPS);
    de_compress_kernel<<<blocks, DE_WARPS * 32, 0, stream>>>(algo, level, n, src_dev, src_sizes_dev, dst_dev,
                                                             dst_caps_dev, dst_sizes_dev, statuses_dev,
                                                             (uint8_t *)scratch_dev, slot, w);
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}
