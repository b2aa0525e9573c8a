/*
 * own_batch.cu - the batch driver of the GPU codecs of our own formats
 * (Cascaded, Bitcomp, ANS), written once for the three: argument checks,
 * the decode's per-chunk scratch, the launches of a codec's kernels (its
 * own_gpu_kernels table, own_tiles.cuh) in order, the scan of tile counts
 * between them and the statuses after, and the persistent grids.  The
 * kernels that run a codec's core stay in its folder; everything here is
 * the same for every codec, and launches them by address
 * (cudaLaunchKernel) on the caller's stream, with no synchronisation.
 */
#include "own_tiles.cuh"

#include "../../../common/le.h"

#define OWN_SCAN_BLOCK 1024u

/* ---- the decode's scratch --------------------------------------------------- */

static inline size_t own_align256(size_t x)
{
    return (x + 255) & ~(size_t)255;
}

static inline size_t own_batch_scratch_size(size_t n)
{
    size_t nb = (n + OWN_SCAN_BLOCK - 1) / OWN_SCAN_BLOCK;
    return own_align256(n * 4) + own_align256((n + 1) * 8) + own_align256(n * 8) + own_align256((nb + 1) * 8);
}

static inline oc_status own_batch_scratch_carve(void *scratch, size_t size, size_t n, own_batch_scratch *s)
{
    if (scratch == NULL || size < own_batch_scratch_size(n))
        return OC_ERR_INVALID_ARGUMENT;
    uint8_t *p = (uint8_t *)scratch;
    s->tiles = (uint32_t *)p;
    p += own_align256(n * 4);
    s->first = (unsigned long long *)p;
    p += own_align256((n + 1) * 8);
    s->keys = (unsigned long long *)p;
    p += own_align256(n * 8);
    s->bsum = (unsigned long long *)p;
    return OC_OK;
}

/* ---- the scan of tile counts ------------------------------------------------- */

/* Block-level exclusive scan of 1024 values (one per thread). */
static __device__ unsigned long long own_block_excl_scan(unsigned long long v, unsigned long long *total)
{
    __shared__ unsigned long long warp_sums[32];
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    unsigned long long incl = v;
    for (int d = 1; d < 32; d <<= 1) {
        unsigned long long t = __shfl_up_sync(0xffffffffu, incl, d);
        if ((int)lane >= d)
            incl += t;
    }
    if (lane == 31)
        warp_sums[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        unsigned long long w = lane < (blockDim.x >> 5) ? warp_sums[lane] : 0;
        unsigned long long wi = w;
        for (int d = 1; d < 32; d <<= 1) {
            unsigned long long t = __shfl_up_sync(0xffffffffu, wi, d);
            if ((int)lane >= d)
                wi += t;
        }
        warp_sums[lane] = wi - w; /* exclusive per warp */
        if (lane == 31 && total)
            *total = wi;
    }
    __syncthreads();
    unsigned long long r = warp_sums[warp] + incl - v;
    __syncthreads();
    return r;
}

static __global__ void own_k_scan_blocks(const uint32_t *tiles, size_t n, unsigned long long *first,
                                         unsigned long long *bsum)
{
    __shared__ unsigned long long tot;
    size_t i = (size_t)blockIdx.x * OWN_SCAN_BLOCK + threadIdx.x;
    unsigned long long v = i < n ? tiles[i] : 0;
    unsigned long long e = own_block_excl_scan(v, &tot);
    if (i < n)
        first[i] = e;
    __syncthreads();
    if (threadIdx.x == 0)
        bsum[blockIdx.x] = tot;
}

/* One block: exclusive scan of the nb block totals in place, in passes of
 * 1024, and the grand total into first[n]. */
static __global__ void own_k_scan_top(unsigned long long *bsum, size_t nb, unsigned long long *first,
                                      size_t n)
{
    __shared__ unsigned long long tot;
    unsigned long long carry = 0;
    for (size_t base = 0; base < nb; base += OWN_SCAN_BLOCK) {
        size_t i = base + threadIdx.x;
        unsigned long long v = i < nb ? bsum[i] : 0;
        unsigned long long e = own_block_excl_scan(v, &tot);
        if (i < nb)
            bsum[i] = carry + e;
        __syncthreads();
        carry += tot;
        __syncthreads();
    }
    if (threadIdx.x == 0)
        first[n] = carry;
}

static __global__ void own_k_scan_add(unsigned long long *first, size_t n, const unsigned long long *bsum)
{
    size_t i = (size_t)blockIdx.x * OWN_SCAN_BLOCK + threadIdx.x;
    if (i < n)
        first[i] += bsum[blockIdx.x];
}

/* first[0..n) = exclusive scan of tiles[0..n), first[n] = the total. */
static inline cudaError_t own_scan_tiles(const own_batch_scratch *s, size_t n, cudaStream_t stream)
{
    size_t nb = (n + OWN_SCAN_BLOCK - 1) / OWN_SCAN_BLOCK;
    own_k_scan_blocks<<<(unsigned)nb, OWN_SCAN_BLOCK, 0, stream>>>(s->tiles, n, s->first, s->bsum);
    own_k_scan_top<<<1, OWN_SCAN_BLOCK, 0, stream>>>(s->bsum, nb, s->first, n);
    own_k_scan_add<<<(unsigned)nb, OWN_SCAN_BLOCK, 0, stream>>>(s->first, n, s->bsum);
    return cudaGetLastError();
}

/* Statuses and sizes from the keys: OK chunks get their header's size. */
static __global__ void own_k_finalize(size_t n, const unsigned long long *keys, size_t *dst_sizes,
                                      oc_status *statuses, const void *const *src)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long k = keys[i];
    oc_status st = k == OWN_KEY_NONE ? OC_OK : (oc_status)(k & 0xffu);
    if (statuses)
        statuses[i] = st;
    if (dst_sizes)
        dst_sizes[i] = st == OC_OK ? oc_load_le32((const uint8_t *)src[i] + 4) : 0;
}

/* CTAs of `threads` threads with `smem` bytes of dynamic shared memory that
 * fit on the device at once (the persistent grid). */
static inline unsigned own_persistent_grid(const void *kernel, int threads, size_t smem)
{
    int dev = 0, sms = 0, per = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        sms = 132;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernel, threads, smem) != cudaSuccess || per < 1)
        per = 1;
    (void)cudaGetLastError();
    return (unsigned)(sms * per);
}

/* ---- the launches ---------------------------------------------------------- */

/* Lets `kernel` have smem bytes of dynamic shared memory (none asked: as it is). */
static oc_status own_allow_smem(const void *kernel, size_t smem)
{
    if (smem &&
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) != cudaSuccess) {
        (void)cudaGetLastError();
        return OC_ERR_CUDA;
    }
    return OC_OK;
}

/* The decode of a batch (dst NULL: a size query, every tile checked and
 * nothing written, so the statuses are decoding's, as the CPU codec's size
 * query gives them). */
static oc_status own_decode(const own_gpu_kernels *k, void *scratch, size_t scratch_size, size_t n,
                            const void *const *src, const size_t *src_sizes, void *const *dst,
                            const size_t *caps, size_t *dst_sizes, oc_status *statuses, cudaStream_t stream)
{
    if (n == 0)
        return OC_OK;
    own_batch_scratch s;
    if (!src || !src_sizes || (dst && !caps) || (!dst && !dst_sizes))
        return OC_ERR_INVALID_ARGUMENT;
    FORWARD_IF_ERROR(own_batch_scratch_carve(scratch, scratch_size, n, &s));
    unsigned blocks = (unsigned)((n + 255) / 256);
    void *hargs[] = {&n, &src, &src_sizes, &dst, &caps, &s};
    (void)cudaLaunchKernel(k->headers, dim3(blocks), dim3(256), hargs, 0, stream);
    if (own_scan_tiles(&s, n, stream) != cudaSuccess)
        return OC_ERR_CUDA;
    FORWARD_IF_ERROR(own_allow_smem(k->tiles, k->tile_smem));
    unsigned grid = own_persistent_grid(k->tiles, (int)k->tile_threads, k->tile_smem);
    void *targs[] = {&n, &src, &src_sizes, &dst, &s};
    (void)cudaLaunchKernel(k->tiles, dim3(grid), dim3(k->tile_threads), targs, k->tile_smem, stream);
    own_k_finalize<<<blocks, 256, 0, stream>>>(n, s.keys, dst_sizes, statuses, src);
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

oc_status oc_own_gpu_decompress(const own_gpu_kernels *k, void *scratch, size_t scratch_size, size_t n,
                                const void *const *src, const size_t *src_sizes, void *const *dst,
                                const size_t *caps, size_t *dst_sizes, oc_status *statuses,
                                cudaStream_t stream)
{
    if (n && (!dst || !caps))
        return OC_ERR_INVALID_ARGUMENT;
    return own_decode(k, scratch, scratch_size, n, src, src_sizes, dst, caps, dst_sizes, statuses, stream);
}

oc_status oc_own_gpu_sizes(const own_gpu_kernels *k, void *scratch, size_t scratch_size, size_t n,
                           const void *const *src, const size_t *src_sizes, size_t *dst_sizes,
                           oc_status *statuses, cudaStream_t stream)
{
    return own_decode(k, scratch, scratch_size, n, src, src_sizes, NULL, NULL, dst_sizes, statuses, stream);
}

size_t oc_own_gpu_decompress_scratch(const oc_gpu_config *cfg, size_t n)
{
    (void)cfg;
    return own_batch_scratch_size(n ? n : 1);
}

/* A CTA per chunk over a persistent grid (no more CTAs than chunks). */
oc_status oc_own_gpu_compress(const own_gpu_kernels *k, const oc_gpu_config *cfg, size_t n,
                              const void *const *src, const size_t *src_sizes, void *const *dst,
                              const size_t *caps, size_t *dst_sizes, oc_status *statuses, cudaStream_t stream)
{
    if (n == 0)
        return OC_OK;
    if (!src || !src_sizes || !dst || !caps)
        return OC_ERR_INVALID_ARGUMENT;
    own_encode_args extra = {};
    k->encode_args(cfg, &extra);
    FORWARD_IF_ERROR(own_allow_smem(k->encode, k->encode_smem));
    size_t grid = own_persistent_grid(k->encode, (int)k->encode_threads, k->encode_smem);
    if (grid > n)
        grid = n;
    void *args[7 + OWN_ENCODE_MAX_ARGS] = {&n, &src, &src_sizes, &dst, &caps, &dst_sizes, &statuses};
    for (unsigned i = 0; i < extra.n; i++)
        args[7 + i] = extra.args[i];
    (void)cudaLaunchKernel(k->encode, dim3((unsigned)grid), dim3(k->encode_threads), args, k->encode_smem,
                           stream);
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}
