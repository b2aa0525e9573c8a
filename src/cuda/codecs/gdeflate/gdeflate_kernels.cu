/*
 * gdeflate_kernels.cu - GDeflate on the CUDA engine: the page decoder
 * kernel, its launchers (decompression and the size query) and the GPU
 * codec (gpu_codec.h) the algorithm table names.  Compression has no kernel
 * yet: the API host-stages it through the CPU engine's encoder, as it does
 * for Blosc.
 *
 * A block of GDD_WARPS warps; warp w of the grid decodes page w (the grid
 * covers the batch: no loop, no scratch).  Each warp owns a gdd_tables in
 * shared memory (~6.3 KiB) and runs gdeflate_dec_core.h, the format's 32
 * lanes being the warp's 32 threads; that core is shared with the host
 * build CI tests against the CPU decoder (tests/c/test_gdeflate_gpu_core.c),
 * so what runs here is what the tests check.
 */
#include "gdeflate_dec_core.h"

#include "../../runtime/gpu_codec.h"

#define GDD_WARPS 4

/* sizes_only: the size query (decode without writing; dst arrays unused). */
__global__ void __launch_bounds__(GDD_WARPS * 32)
    gdd_kernel(int sizes_only, size_t n, const void *const *src_ptrs, const size_t *src_sizes,
               void *const *dst_ptrs, const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses)
{
    __shared__ gdd_tables tables[GDD_WARPS];
    uint32_t w = threadIdx.x >> 5;
    size_t page = (size_t)blockIdx.x * GDD_WARPS + w;
    if (page >= n)
        return; /* the whole warp */
    const uint8_t *src = (const uint8_t *)src_ptrs[page];
    size_t srcn = src_sizes[page], out = 0, cap = 0;
    uint8_t *dst = NULL;
    oc_status st;
    if (!sizes_only) {
        dst = (uint8_t *)dst_ptrs[page];
        cap = dst_caps[page];
    }
    if ((src == NULL && srcn != 0) || (!sizes_only && dst == NULL && cap != 0)) {
        st = OC_ERR_INVALID_ARGUMENT;
    } else {
        /* an empty output (NULL, capacity 0) still decodes, to OUTPUT_TOO_SMALL unless the page is
         * empty: the core takes NULL as "count only", so it gets a pointer it never writes through */
        if (!sizes_only && dst == NULL)
            dst = (uint8_t *)&tables[w];
        st = gdd_decode(&tables[w], src, srcn, dst, cap, &out);
    }
    if ((threadIdx.x & 31) == 0) {
        if (dst_sizes)
            dst_sizes[page] = st == OC_OK ? out : 0;
        if (statuses)
            statuses[page] = st;
    }
}

static oc_status gdd_launch(int sizes_only, const oc_gpu_config *cfg, size_t n, const void *const *src_dev,
                            const size_t *src_sizes_dev, void *const *dst_dev, const size_t *dst_caps_dev,
                            size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream)
{
    if (cfg == NULL || cfg->algorithm != OC_ALGO_GDEFLATE)
        return OC_ERR_INVALID_ARGUMENT;
    if (n == 0)
        return OC_OK;
    if (!src_dev || !src_sizes_dev || (!sizes_only && (!dst_dev || !dst_caps_dev)))
        return OC_ERR_INVALID_ARGUMENT;
    size_t blocks = (n + GDD_WARPS - 1) / GDD_WARPS;
    if (blocks > 0x7FFFFFFFu)
        return OC_ERR_INVALID_ARGUMENT;
    gdd_kernel<<<(unsigned)blocks, GDD_WARPS * 32, 0, stream>>>(
        sizes_only, n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, dst_sizes_dev, statuses_dev);
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

/* gpu_codec.h launches: every array in device memory, n entries; statuses
 * as the CPU engine's (OK, CORRUPT, TRUNCATED, OUTPUT_TOO_SMALL, and
 * INVALID_ARGUMENT for a NULL chunk pointer with a nonzero size). */
static oc_status gdd_decompress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg, size_t n,
                                const void *const *src_dev, const size_t *src_sizes_dev, void *const *dst_dev,
                                const size_t *dst_caps_dev, size_t *dst_sizes_dev, oc_status *statuses_dev,
                                cudaStream_t stream)
{
    (void)scratch_dev;
    (void)scratch_size;
    return gdd_launch(0, cfg, n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, dst_sizes_dev, statuses_dev,
                      stream);
}

/* The size query decodes without writing: decoding's statuses, as on the CPU. */
static oc_status gdd_sizes(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg, size_t n,
                           const void *const *src_dev, const size_t *src_sizes_dev, void *const *dst_dev,
                           const size_t *dst_caps_dev, size_t *dst_sizes_dev, oc_status *statuses_dev,
                           cudaStream_t stream)
{
    (void)scratch_dev;
    (void)scratch_size;
    (void)dst_dev;
    (void)dst_caps_dev;
    return gdd_launch(1, cfg, n, src_dev, src_sizes_dev, NULL, NULL, dst_sizes_dev, statuses_dev, stream);
}

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_gdeflate = {NULL, NULL, NULL, gdd_decompress, gdd_sizes};
