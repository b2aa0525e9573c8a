/*
 * gdeflate_var_kernel.cuh - the GDeflate decoder kernel of the library
 * (src/cuda/codecs/gdeflate/gdeflate_kernels.cu: a warp per page, 4 warps a
 * block), written once for gdeflate_dev.cu's variants: each .cu that
 * includes it sets DEV_GDD_CORE (the decoder core to include: the
 * library's gdeflate_dec_core.h or a frozen copy here, such as
 * gdeflate_v2_core.h) and DEV_GDD_LAUNCH (its launcher's name) first, so
 * the A/B differs only in the core.  DEV_GDD_MINB, if set, is the blocks an
 * SM must hold (__launch_bounds__'s second argument: ptxas then keeps the
 * registers under 65536 / (MINB * 128)), for occupancy variants.  Decode
 * only (no size query).
 */
#include DEV_GDD_CORE

#define DEV_GDD_WARPS 4

#ifdef DEV_GDD_MINB
#define DEV_GDD_BOUNDS __launch_bounds__(DEV_GDD_WARPS * 32, DEV_GDD_MINB)
#else
#define DEV_GDD_BOUNDS __launch_bounds__(DEV_GDD_WARPS * 32)
#endif
static __global__ void DEV_GDD_BOUNDS dev_gdd_kernel(size_t n, const void *const *src_ptrs,
                                                     const size_t *src_sizes, void *const *dst_ptrs,
                                                     const size_t *dst_caps, size_t *dst_sizes,
                                                     oc_status *statuses)
{
    __shared__ gdd_tables tables[DEV_GDD_WARPS];
    uint32_t w = threadIdx.x >> 5;
    size_t page = (size_t)blockIdx.x * DEV_GDD_WARPS + w;
    if (page >= n)
        return;
    size_t out = 0;
    oc_status st = gdd_decode(&tables[w], (const uint8_t *)src_ptrs[page], src_sizes[page],
                              (uint8_t *)dst_ptrs[page], dst_caps[page], &out);
    if ((threadIdx.x & 31) == 0) {
        dst_sizes[page] = st == OC_OK ? out : 0;
        statuses[page] = st;
    }
}

extern "C" void DEV_GDD_LAUNCH(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                               const size_t *caps, size_t *sizes, oc_status *statuses)
{
    size_t blocks = (n + DEV_GDD_WARPS - 1) / DEV_GDD_WARPS;
    if (blocks)
        dev_gdd_kernel<<<(unsigned)blocks, DEV_GDD_WARPS * 32>>>(n, src, src_sizes, dst, caps, sizes,
                                                                 statuses);
}
