/*
 * zstd_decode.cu - the GPU Zstandard decompression kernel and its launcher.
 *
 * A grid of W warps (W = min(n, (scratch - ZD_COUNTER_BYTES) / slot,
 * OC_ZSTD_GPU_MAX_WARPS)); each warp takes the next chunk from a counter at
 * the start of the scratch until none is left (dynamic: chunks differ in
 * cost, and a fixed share per warp left a quarter of the SMs' warps idle at
 * the end; ncu: 11.2 of 16 warps active).  Each warp owns its tables in
 * shared memory (zd_tables, ~9.3 KiB) and one literal buffer (`slot` bytes)
 * in the scratch.  The decoder itself is zstd_decode_core.h, shared with the
 * CPU-side checks, so what CI tests on the host is what runs here.
 */
#include "zstd_gpu.h"

#ifdef ZD_PROFILE
__device__ unsigned long long zd_prof[8]; /* per-phase cycles, see zstd_decode_core.h */
#endif

#include "zstd_decode_core.h"

#define ZD_WARPS_PER_BLOCK 4
#define ZD_COUNTER_BYTES 256 /* the next-chunk counter, keeping the slots aligned */

#ifdef ZD_PROFILE

extern "C" void oc_cuda_zstd_debug_profile(unsigned long long out[8], int reset)
{
    cudaMemcpyFromSymbol(out, zd_prof, sizeof zd_prof);
    if (reset) {
        static const unsigned long long zero[8] = {0};
        cudaMemcpyToSymbol(zd_prof, zero, sizeof zero);
    }
}
#endif

static size_t zd_slot_bytes(size_t max_dst_capacity)
{
    size_t s = max_dst_capacity < ZD_BLOCK_MAX ? max_dst_capacity : ZD_BLOCK_MAX;
    if (s == 0)
        s = 1;
    return (s + 255) & ~(size_t)255;
}

extern "C" size_t oc_cuda_zstd_decompress_scratch_size(size_t n, size_t max_dst_capacity)
{
    size_t w = n < OC_ZSTD_GPU_MAX_WARPS ? n : OC_ZSTD_GPU_MAX_WARPS;
    if (w == 0)
        w = 1;
    return ZD_COUNTER_BYTES + w * zd_slot_bytes(max_dst_capacity);
}

/* MINB: blocks per SM the register budget is cut for (3: ~165 registers, no
 * spills; 4: 128; 5: ~102).  More resident warps hide more latency; fewer
 * registers may spill.  See bench/gpu/zstd/NOTES.md for the measurements. */
template <int MINB>
__global__ void __launch_bounds__(ZD_WARPS_PER_BLOCK * 32, MINB)
    zd_decode_kernel(size_t n, const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                     const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses, uint8_t *scratch,
                     size_t slot, size_t nwarps)
{
    __shared__ zd_tables tables[ZD_WARPS_PER_BLOCK];
    size_t warp_in_block = threadIdx.x >> 5;
    size_t warp = (size_t)blockIdx.x * ZD_WARPS_PER_BLOCK + warp_in_block;
    if (warp >= nwarps)
        return;
    zd_tables *T = &tables[warp_in_block];
    unsigned long long *next = (unsigned long long *)scratch;
    uint8_t *litbuf = scratch + ZD_COUNTER_BYTES + warp * slot;
    for (;;) {
        unsigned long long c = 0;
        if ((threadIdx.x & 31) == 0)
            c = atomicAdd(next, 1ull);
        c = __shfl_sync(0xFFFFFFFFu, c, 0);
        if (c >= n)
            break;
        size_t out = 0;
        ZD_PROF_START(t_chunk);
        oc_status st = zd_decode_chunk(T, (const uint8_t *)src_ptrs[c], src_sizes[c], (uint8_t *)dst_ptrs[c],
                                       dst_caps[c], &out, litbuf, slot);
        ZD_PROF_END(5, t_chunk);
        if ((threadIdx.x & 31) == 0) {
            if (dst_sizes)
                dst_sizes[c] = out;
            if (statuses)
                statuses[c] = st;
        }
    }
}

static int g_zd_min_blocks = 4; /* best in run 2 (NOTES.md) */

extern "C" void oc_cuda_zstd_debug_set_min_blocks(int min_blocks)
{
    g_zd_min_blocks = min_blocks;
}

extern "C" oc_status oc_cuda_zstd_decompress(void *scratch, size_t scratch_size, const oc_gpu_config *cfg,
                                             size_t n, const void *const *src_ptrs_dev,
                                             const size_t *src_sizes_dev, void *const *dst_ptrs_dev,
                                             const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                             oc_status *statuses_dev, cudaStream_t stream)
{
    size_t max_dst_capacity = cfg->max_capacity;
    if (n == 0)
        return OC_OK;
    if (!src_ptrs_dev || !src_sizes_dev || !dst_ptrs_dev || !dst_caps_dev || !scratch)
        return OC_ERR_INVALID_ARGUMENT;
    size_t slot = zd_slot_bytes(max_dst_capacity);
    if (scratch_size < ZD_COUNTER_BYTES + slot)
        return OC_ERR_INVALID_ARGUMENT;
    size_t w = (scratch_size - ZD_COUNTER_BYTES) / slot;
    if (w > n)
        w = n;
    if (w > OC_ZSTD_GPU_MAX_WARPS)
        w = OC_ZSTD_GPU_MAX_WARPS;
    if (w == 0)
        return OC_ERR_INVALID_ARGUMENT;
    unsigned blocks = (unsigned)((w + ZD_WARPS_PER_BLOCK - 1) / ZD_WARPS_PER_BLOCK);
    if (cudaMemsetAsync(scratch, 0, sizeof(unsigned long long), stream) != cudaSuccess)
        return OC_ERR_CUDA;
#define ZD_LAUNCH(M)                                                                                         \
    zd_decode_kernel<M><<<blocks, ZD_WARPS_PER_BLOCK * 32, 0, stream>>>(                                     \
        n, src_ptrs_dev, src_sizes_dev, dst_ptrs_dev, dst_caps_dev, dst_sizes_dev, statuses_dev,             \
        (uint8_t *)scratch, slot, w)
    if (g_zd_min_blocks == 3)
        ZD_LAUNCH(3);
    else if (g_zd_min_blocks == 5)
        ZD_LAUNCH(5);
    else
        ZD_LAUNCH(4);
#undef ZD_LAUNCH
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}
