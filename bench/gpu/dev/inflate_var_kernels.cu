/*
 * inflate_var_kernels.cu - the kernels and launchers of the inflate variants
 * that are not the library's, so that deflate_dev.cu times them beside the
 * library's kernel (src/cuda/codecs/deflate/inflate_kernels.cu, decoder v4)
 * on one GPU (DEFLATE_NOTES.md "Decoder v1: result, and decoders v2 / v3"):
 *   -DINF_LTB=11u -DDEV_INFLATE_LAUNCH=dev_inflate_v3 decoder v3, the
 *       library's core (since v4 moved in: v4's) with an 11-bit literal/length table (13 KiB of
 *       shared memory a warp: blocks of 2 warps, 16 warps per SM);
 *   -DDEV_V2 -DDEV_INFLATE_LAUNCH=dev_inflate_v2      decoder v2
 *       (inflate_v2_core.h, the library's until v4; blocks of 4 warps);
 * v1, v5 and v6 left (DEFLATE_NOTES.md "Decoder v1", "Decoder v5" and
 * "Decoder v6" say where their numbers and sources are).
 */
#ifdef DEV_V2
#include "inflate_v2_core.h" /* first: inflate_chunk_core.h then wraps v2 */
#endif

#include "cuda/codecs/deflate/inflate_chunk_core.h"
#include "inflate_var_gpu.h"

#ifndef DEV_INFLATE_LAUNCH
#error "build with -DDEV_INFLATE_LAUNCH=dev_inflate_v2 or _v3 (see the Makefile)"
#endif

#if defined(INF_LTB) && INF_LTB > 10
#define INF_WARPS 2 /* a block's static shared memory must stay under 48 KiB */
#define INF_MIN_BLOCKS 8
#else
#define INF_WARPS 4
#define INF_MIN_BLOCKS 6
#endif

static __global__ void __launch_bounds__(INF_WARPS * 32, INF_MIN_BLOCKS)
    inf_var_decode_kernel(oc_algorithm algo, size_t n, const void *const *src_ptrs, const size_t *src_sizes,
                          void *const *dst_ptrs, const size_t *dst_caps, size_t *dst_sizes,
                          oc_status *statuses)
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

extern "C" oc_status DEV_INFLATE_LAUNCH(const oc_gpu_config *cfg, size_t n, const void *const *src_dev,
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
    size_t blocks = (n + INF_WARPS - 1) / INF_WARPS;
    if (blocks > 0x7FFFFFFFu)
        return OC_ERR_INVALID_ARGUMENT;
    inf_var_decode_kernel<<<(unsigned)blocks, INF_WARPS * 32, 0, stream>>>(
        algo, n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, dst_sizes_dev, statuses_dev);
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}
