/*
 * own_tiles.cuh - the batch plumbing the GPU codecs of our own formats
 * (Cascaded, and the typed formats to come) share: a chunk is made of
 * independent tiles, so a batch is decoded as one flat list of tiles over
 * every chunk, whatever the chunk sizes (thousands of 64 KiB chunks, or one
 * chunk of a gigabyte spread over the whole GPU).
 *
 * Decoding a batch: a kernel checks every chunk's header and writes its
 * tile count (0 for a failed chunk, whose status is then known) -> an
 * exclusive scan of the counts gives every chunk's first tile and the
 * total -> a persistent grid of CTAs takes tiles t, t + grid, ...; each
 * finds its chunk by binary search over the first tiles -> a failing tile
 * records (tile index + 1, status) with atomicMin in its chunk's key, so
 * the chunk's status is that of its first failing tile, as the CPU's
 * sequential decoder reports -> a kernel turns the keys into statuses and
 * sizes.  The scan: per block of 1024 counts, then one block over the
 * block totals (in passes of 1024), then the block offsets added back.
 */
#ifndef OC_OWN_TILES_CUH
#define OC_OWN_TILES_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "../../runtime/gpu_codec.h"

#define OWN_SCAN_BLOCK 1024u
#define OWN_KEY_NONE 0xffffffffffffffffull

/* Per-chunk scratch of a decode: tile counts, first tiles (+ the total at
 * [n]), failure keys, block totals of the scan. */
typedef struct own_batch_scratch {
    uint32_t *tiles;
    unsigned long long *first;
    unsigned long long *keys;
    unsigned long long *bsum;
} own_batch_scratch;

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

/* The chunk that owns tile t: the last i with first[i] <= t. */
static __device__ size_t own_find_chunk(const unsigned long long *first, size_t n, unsigned long long t)
{
    size_t lo = 0, hi = n; /* first[lo] <= t < first[hi] (first[n] = total > t) */
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (first[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* A chunk-level failure (before any tile) sorts before every tile's. */
static __device__ __forceinline__ unsigned long long own_key(unsigned long long tile_plus_one, oc_status st)
{
    return (tile_plus_one << 8) | (unsigned long long)(unsigned)st;
}

/* Statuses and sizes from the keys: OK chunks get `size_of(i)`. */
template <typename SizeFn>
static __global__ void own_k_finalize(size_t n, const unsigned long long *keys, size_t *dst_sizes,
                                      oc_status *statuses, SizeFn size_of)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    unsigned long long k = keys[i];
    oc_status st = k == OWN_KEY_NONE ? OC_OK : (oc_status)(k & 0xffu);
    if (statuses)
        statuses[i] = st;
    if (dst_sizes)
        dst_sizes[i] = st == OC_OK ? size_of(i) : 0;
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

#endif /* OC_OWN_TILES_CUH */
