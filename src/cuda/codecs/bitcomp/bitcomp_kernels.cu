/*
 * bitcomp_kernels.cu - the GPU Bitcomp-class codec (gpu_codec.h): the
 * format's core (src/cores/bitcomp/bitcomp_core.h) run by CTAs of 8
 * warps, one tile (32 blocks of 128 elements) at a time, with the tile's
 * workspace (~35 KiB) in dynamic shared memory; the CPU codec runs the
 * same core, so the bytes and statuses are the same on both engines.
 *
 * Decoding: the tile list of own_tiles.cuh (headers -> scan of tile
 * counts -> a persistent grid over every tile of the batch -> statuses).
 * Compressing: a persistent grid over chunks, a CTA writes its chunk's
 * tiles in order.  No scratch for compression.
 */
#include "../../../common/typed_options.h"
#include "../../../cores/bitcomp/bitcomp_core.h"
#include "../own_common/own_tiles.cuh"

#define BCK_WARPS 8u
#define BCK_THREADS (BCK_WARPS * 32u)

/* ---- decoding ------------------------------------------------------------- */

/* One thread per chunk: the header checks (the core's), the tile count,
 * the trailing bytes that are not a whole element. */
static __global__ void bc_k_headers(size_t n, const void *const *src, const size_t *src_sizes,
                                    void *const *dst, const size_t *caps, own_batch_scratch s)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint8_t *p = (const uint8_t *)src[i];
    size_t len = src_sizes[i];
    uint8_t *d = dst ? (uint8_t *)dst[i] : NULL;
    bc_chunk k;
    oc_status st;
    if ((p == NULL && len) || (dst && d == NULL && caps[i]))
        st = OC_ERR_INVALID_ARGUMENT;
    else
        st = bc_chunk_check(p, len, dst ? (uint64_t)caps[i] : UINT64_MAX, &k);
    s.tiles[i] = st == OC_OK ? k.ntiles : 0u;
    s.keys[i] = st == OC_OK ? OWN_KEY_NONE : own_key(0, st);
    if (st == OC_OK && d) {
        uint64_t at = k.size - k.tail;
        for (uint32_t j = 0; j < k.tail; j++)
            d[at + j] = p[k.limit + j];
    }
}

/* A persistent grid over the batch's tiles. */
static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
               own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    bc_ws *ws = (bc_ws *)bc_smem;
    __shared__ size_t chunk;
    unsigned long long total = s.first[n];
    for (unsigned long long t = blockIdx.x; t < total; t += gridDim.x) {
        if (threadIdx.x == 0)
            chunk = own_find_chunk(s.first, n, t);
        __syncthreads();
        size_t i = chunk;
        uint32_t tile = (uint32_t)(t - s.first[i]);
        const uint8_t *p = (const uint8_t *)src[i];
        bc_chunk k;
        oc_status st = bc_chunk_check(p, src_sizes[i], UINT64_MAX, &k); /* OK: the header kernel said so */
        uint64_t elems = k.size / k.w, first = (uint64_t)tile * BC_TILE;
        uint32_t cnt = (uint32_t)(elems - first < BC_TILE ? elems - first : BC_TILE);
        uint64_t a = 0, b = 0;
        if (st == OC_OK)
            st = own_tile_span(p, k.table, k.ntiles, tile, k.limit, &a, &b);
        if (st == OC_OK)
            st = bc_decode_tile(ws, p + a, (uint32_t)(b - a), cnt, k.dtype,
                                dst ? (uint8_t *)dst[i] + first * k.w : NULL, BCK_WARPS);
        if (st != OC_OK && threadIdx.x == 0)
            atomicMin(&s.keys[i], own_key((unsigned long long)tile + 1, st));
        __syncthreads();
    }
}

/* The decoded size of a good chunk: its header's. */
struct bc_size_of {
    const void *const *src;
    __device__ size_t operator()(size_t i) const { return oc_load_le32((const uint8_t *)src[i] + 4); }
};

static oc_status bc_decode_launch(void *scratch, size_t scratch_size, const oc_gpu_config *cfg, size_t n,
                                  const void *const *src, const size_t *src_sizes, void *const *dst,
                                  const size_t *caps, size_t *dst_sizes, oc_status *statuses,
                                  cudaStream_t stream)
{
    (void)cfg;
    if (n == 0)
        return OC_OK;
    own_batch_scratch s;
    if (!src || !src_sizes || (dst && !caps) || (!dst && !dst_sizes))
        return OC_ERR_INVALID_ARGUMENT;
    FORWARD_IF_ERROR(own_batch_scratch_carve(scratch, scratch_size, n, &s));
    unsigned blocks = (unsigned)((n + 255) / 256);
    bc_k_headers<<<blocks, 256, 0, stream>>>(n, src, src_sizes, dst, caps, s);
    if (own_scan_tiles(&s, n, stream) != cudaSuccess)
        return OC_ERR_CUDA;
    size_t smem = sizeof(bc_ws);
    if (cudaFuncSetAttribute(bc_k_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        return OC_ERR_CUDA;
    }
    unsigned grid = own_persistent_grid((const void *)bc_k_tiles, BCK_THREADS, smem);
    bc_k_tiles<<<grid, BCK_THREADS, smem, stream>>>(n, src, src_sizes, dst, s);
    bc_size_of sz = {src};
    own_k_finalize<<<blocks, 256, 0, stream>>>(n, s.keys, dst_sizes, statuses, sz);
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

static oc_status bc_decompress(void *scratch, size_t scratch_size, const oc_gpu_config *cfg, size_t n,
                               const void *const *src, const size_t *src_sizes, void *const *dst,
                               const size_t *caps, size_t *dst_sizes, oc_status *statuses,
                               cudaStream_t stream)
{
    if (n && (!dst || !caps))
        return OC_ERR_INVALID_ARGUMENT;
    return bc_decode_launch(scratch, scratch_size, cfg, n, src, src_sizes, dst, caps, dst_sizes, statuses,
                            stream);
}

/* The size query decodes every tile without writing (the statuses are
 * decoding's, as the CPU codec's size query gives them). */
static oc_status bc_sizes(void *scratch, size_t scratch_size, const oc_gpu_config *cfg, size_t n,
                          const void *const *src, const size_t *src_sizes, void *const *dst,
                          const size_t *caps, size_t *dst_sizes, oc_status *statuses, cudaStream_t stream)
{
    (void)dst, (void)caps;
    return bc_decode_launch(scratch, scratch_size, cfg, n, src, src_sizes, NULL, NULL, dst_sizes, statuses,
                            stream);
}

static size_t bc_decompress_scratch(const oc_gpu_config *cfg, size_t n)
{
    (void)cfg;
    return own_batch_scratch_size(n ? n : 1);
}

/* ---- compression ------------------------------------------------------------ */

static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_encode(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype, uint32_t algo)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    bc_ws *ws = (bc_ws *)bc_smem;
    for (size_t c = blockIdx.x; c < n; c += gridDim.x) {
        const uint8_t *p = (const uint8_t *)src[c];
        size_t len = src_sizes[c];
        uint8_t *d = (uint8_t *)dst[c];
        size_t cap = caps[c];
        uint64_t out = 0;
        oc_status st;
        if ((p == NULL && len) || (d == NULL && cap))
            st = OC_ERR_INVALID_ARGUMENT;
        else
            st = bc_compress_chunk(ws, p, len, dtype, algo, d, cap, &out, BCK_WARPS);
        if (threadIdx.x == 0) {
            if (dst_sizes)
                dst_sizes[c] = st == OC_OK ? (size_t)out : 0;
            if (statuses)
                statuses[c] = st;
        }
        __syncthreads();
    }
}

static oc_status bc_compress(void *scratch, size_t scratch_size, const oc_gpu_config *cfg, size_t n,
                             const void *const *src, const size_t *src_sizes, void *const *dst,
                             const size_t *caps, size_t *dst_sizes, oc_status *statuses, cudaStream_t stream)
{
    (void)scratch, (void)scratch_size;
    if (n == 0)
        return OC_OK;
    if (!src || !src_sizes || !dst || !caps)
        return OC_ERR_INVALID_ARGUMENT;
    uint32_t algo = (uint32_t)cfg->typed.algorithm_type;
    uint32_t dtype = (uint32_t)oc_typed_data_type(&cfg->typed);
    size_t smem = sizeof(bc_ws);
    if (cudaFuncSetAttribute(bc_k_encode, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        return OC_ERR_CUDA;
    }
    size_t grid = own_persistent_grid((const void *)bc_k_encode, BCK_THREADS, smem);
    if (grid > n)
        grid = n;
    bc_k_encode<<<(unsigned)grid, BCK_THREADS, smem, stream>>>(n, src, src_sizes, dst, caps, dst_sizes,
                                                               statuses, dtype, algo);
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_bitcomp = {NULL, bc_compress, bc_decompress_scratch,
                                                                bc_decompress, bc_sizes};
