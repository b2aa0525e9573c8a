/*
 * gdeflate_kernels.cu - GDeflate on the CUDA engine: the page decoder
 * kernel, the page encoder kernel, their launchers (decompression, the size
 * query, compression) and the GPU codec (gpu_codec.h) the algorithm table
 * names.
 *
 * Encoder: a grid of W worker warps (W = min(n, scratch / slice,
 * DE_MAX_WARPS), 2 per block); warp w encodes pages w, w + W, ... with
 * gdeflate_enc_core.h (the Deflate compressor's parse and codes, GDeflate's
 * lanes), its gde_shared in shared memory (~16.6 KiB) and a slice of the
 * scratch (the page's items; the lazy parser's buckets).  The same core
 * compiled for the host is what tests/c/test_gdeflate_gpu_enc_core.c checks.
 *
 * A block of GDD_WARPS warps; warp w of the grid decodes page w (the grid
 * covers the batch: no loop, no scratch).  Each warp owns a gdd_tables in
 * shared memory (~6.3 KiB) and runs gdeflate_dec_core.h, the format's 32
 * lanes being the warp's 32 threads; that core is shared with the host
 * build CI tests against the CPU decoder (tests/c/test_gdeflate_gpu_core.c),
 * so what runs here is what the tests check.
 */
#include "gdeflate_dec_core.h"
#include "gdeflate_enc_core.h"

#include "../deflate/deflate_enc_gpu.h"

#include "../../runtime/gpu_codec.h"

#define GDD_WARPS 4
/* Blocks an SM must hold: 8 (32 warps) keeps ptxas at 64 registers, where
 * 80 held an SM to 6 blocks (24 warps); the extra warps hide the copies' and
 * look-ups' latency: 1.08x the 80-register build of the same core
 * (GDEFLATE_NOTES.md, "Decoder v4").  Shared memory allows 8 (25.6 KiB a
 * block). */
#define GDD_MIN_BLOCKS 8

/* sizes_only: the size query (decode without writing; dst arrays unused). */
__global__ void __launch_bounds__(GDD_WARPS * 32, GDD_MIN_BLOCKS)
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

/* ---- the encoder ------------------------------------------------------------------ */

#define GDE_WARPS 2

__global__ void __launch_bounds__(GDE_WARPS * 32)
    gde_kernel(int level, size_t n, const void *const *src_ptrs, const size_t *src_sizes,
               void *const *dst_ptrs, const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses,
               uint8_t *scratch, size_t slot, size_t nwarps)
{
    __shared__ gde_shared shared[GDE_WARPS];
    size_t warp = (size_t)blockIdx.x * GDE_WARPS + (threadIdx.x >> 5);
    if (warp >= nwarps)
        return; /* the whole warp */
    gde_shared *G = &shared[threadIdx.x >> 5];
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
            st = gde_compress_page(G, mine, level, src, srcn, dst, cap, &out);
        if ((threadIdx.x & 31) == 0) {
            if (dst_sizes)
                dst_sizes[c] = st == OC_OK ? out : 0;
            if (statuses)
                statuses[c] = st;
        }
        __syncwarp();
    }
}

static int gde_level(const oc_gpu_config *cfg)
{
    return cfg->level < 1 ? 6 : cfg->level > 9 ? 9 : cfg->level;
}

static size_t gde_slot(int level)
{
    return (gde_scratch_bytes(level) + 255) & ~(size_t)255;
}

/* A worker slice per page (0.25 MiB at level 1, 0.55 MiB at 6, 1.3 at 9), at most
 * DE_MAX_WARPS slices and 512 MiB (workers then loop). */
static size_t gde_compress_scratch(const oc_gpu_config *cfg, size_t n)
{
    size_t w = n < DE_MAX_WARPS ? n : DE_MAX_WARPS, b = (w ? w : 1) * gde_slot(gde_level(cfg));
    return b < ((size_t)512 << 20) ? b : ((size_t)512 << 20);
}

/* gpu_codec.h compression: every array in device memory, n entries;
 * statuses OK, OUTPUT_TOO_SMALL (nothing past the capacity is written),
 * CHUNK_TOO_LARGE (a page over 64 KiB) or INVALID_ARGUMENT (a NULL chunk
 * pointer). */
static oc_status gde_compress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg, size_t n,
                              const void *const *src_dev, const size_t *src_sizes_dev, void *const *dst_dev,
                              const size_t *dst_caps_dev, size_t *dst_sizes_dev, oc_status *statuses_dev,
                              cudaStream_t stream)
{
    if (cfg == NULL || cfg->algorithm != OC_ALGO_GDEFLATE)
        return OC_ERR_INVALID_ARGUMENT;
    if (n == 0)
        return OC_OK;
    if (!src_dev || !src_sizes_dev || !dst_dev || !dst_caps_dev || !scratch_dev)
        return OC_ERR_INVALID_ARGUMENT;
    int level = gde_level(cfg);
    size_t slot = gde_slot(level), w = scratch_size / slot;
    if (w > n)
        w = n;
    if (w > DE_MAX_WARPS)
        w = DE_MAX_WARPS;
    if (w == 0)
        return OC_ERR_INVALID_ARGUMENT;
    unsigned blocks = (unsigned)((w + GDE_WARPS - 1) / GDE_WARPS);
    gde_kernel<<<blocks, GDE_WARPS * 32, 0, stream>>>(level, n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev,
                                                      dst_sizes_dev, statuses_dev, (uint8_t *)scratch_dev,
                                                      slot, w);
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_gdeflate = {gde_compress_scratch, gde_compress, NULL,
                                                                 gdd_decompress, gdd_sizes};
