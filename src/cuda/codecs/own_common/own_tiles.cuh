/*
 * own_tiles.cuh - what the GPU codecs of our own formats (Cascaded,
 * Bitcomp, ANS) share: a chunk is made of independent tiles, so a batch is
 * decoded as one flat list of tiles over every chunk, whatever the chunk
 * sizes (thousands of 64 KiB chunks, or one chunk of a gigabyte spread over
 * the whole GPU).  A codec writes its kernels (they run its core) and hands
 * them to the batch driver (own_batch.cu) in an own_gpu_kernels table; the
 * driver does every launch, so the orchestration below is written once.
 * The tiled formats (Cascaded, Bitcomp) share their header, tile and
 * encode kernels' bodies too (own_tiled_headers, own_tiled_tiles,
 * own_tiled_encode).
 *
 * Decoding a batch: the codec's header kernel checks every chunk's header
 * and writes its tile count (0 for a failed chunk, whose status is then
 * known) -> an exclusive scan of the counts gives every chunk's first tile
 * and the total -> the codec's tile kernel, a persistent grid of CTAs,
 * takes tiles t, t + grid, ...; each finds its chunk by a warp's 32-way
 * search over the first tiles -> a failing tile records (tile index + 1, status) with
 * atomicMin in its chunk's key, so the chunk's status is that of its first
 * failing tile, as the CPU's sequential decoder reports -> a kernel turns
 * the keys into statuses and sizes (a good chunk's size: its header's).
 * The scan: per block of 1024 counts, then one block over the block totals
 * (in passes of 1024), then the block offsets added back.  Compressing: the
 * codec's encode kernel over a persistent grid of CTAs, one chunk each.
 */
#ifndef OC_OWN_TILES_CUH
#define OC_OWN_TILES_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "../../runtime/chunk_of.cuh"
#include <string.h>

#include "../../../cores/own_format.h"
#include "../../runtime/gpu_codec.h"

#define OWN_KEY_NONE 0xffffffffffffffffull

/* Per-chunk scratch of a decode: tile counts, first tiles (+ the total at
 * [n]), failure keys, block totals of the scan. */
typedef struct own_batch_scratch {
    uint32_t *tiles;
    unsigned long long *first;
    unsigned long long *keys;
    unsigned long long *bsum;
} own_batch_scratch;

/* A chunk-level failure (before any tile) sorts before every tile's. */
static __device__ __forceinline__ unsigned long long own_key(unsigned long long tile_plus_one, oc_status st)
{
    return (tile_plus_one << 8) | (unsigned long long)(unsigned)st;
}

/* ---- the kernels of the tiled formats (Cascaded, Bitcomp) ----------------------
 * Their header and tile kernels, written once: a codec's kernel calls
 * these with its own check and tile decoder (own_format.h), constants the
 * compiler inlines, as if the kernel were written out for the codec. */

/* One thread per chunk: the header checks, the tile count, the trailing
 * bytes that are not a whole element. */
static __device__ __forceinline__ void own_tiled_headers(size_t n, const void *const *src,
                                                         const size_t *src_sizes, void *const *dst,
                                                         const size_t *caps, own_batch_scratch s,
                                                         own_tiled_check_fn check)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint8_t *p = (const uint8_t *)src[i];
    size_t len = src_sizes[i];
    uint8_t *d = dst ? (uint8_t *)dst[i] : NULL;
    own_tiled k;
    oc_status st;
    if ((p == NULL && len) || (dst && d == NULL && caps[i]))
        st = OC_ERR_INVALID_ARGUMENT;
    else
        st = check(p, len, dst ? (uint64_t)caps[i] : UINT64_MAX, &k);
    s.tiles[i] = st == OC_OK ? k.ntiles : 0u;
    s.keys[i] = st == OC_OK ? OWN_KEY_NONE : own_key(0, st);
    if (st == OC_OK && d) {
        uint64_t at = k.size - k.tail;
        for (uint32_t j = 0; j < k.tail; j++)
            d[at + j] = p[k.limit + j];
    }
}

/* A persistent grid over the batch's tiles, a CTA of nw warps a tile, with
 * the tile workspace ws. */
static __device__ __forceinline__ void own_tiled_tiles(size_t n, const void *const *src,
                                                       const size_t *src_sizes, void *const *dst,
                                                       own_batch_scratch s, void *ws,
                                                       own_tiled_check_fn check, own_tile_decode_fn decode,
                                                       uint32_t nw)
{
    __shared__ size_t chunk;
    unsigned long long total = s.first[n];
    for (unsigned long long t = blockIdx.x; t < total; t += gridDim.x) {
        if (threadIdx.x < 32) {
            size_t c = oc_chunk_of_warp(s.first, n, t);
            if (threadIdx.x == 0)
                chunk = c;
        }
        __syncthreads();
        size_t i = chunk;
        uint32_t tile = (uint32_t)(t - s.first[i]);
        const uint8_t *p = (const uint8_t *)src[i];
        own_tiled k;
        oc_status st = check(p, src_sizes[i], UINT64_MAX, &k); /* OK: the header kernel said so */
        uint64_t elems = k.size / k.w, first = (uint64_t)tile * k.per_tile;
        uint32_t cnt = own_tile_elems(elems, k.per_tile, tile);
        uint64_t a = 0, b = 0;
        if (st == OC_OK)
            st = own_tile_span(p, k.table, k.ntiles, tile, k.limit, &a, &b);
        if (st == OC_OK)
            st = decode(ws, p + a, (uint32_t)(b - a), cnt, &k, dst ? (uint8_t *)dst[i] + first * k.w : NULL,
                        nw);
        if (st != OC_OK && threadIdx.x == 0)
            atomicMin(&s.keys[i], own_key((unsigned long long)tile + 1, st));
        __syncthreads();
    }
}

/* A persistent grid over the batch's chunks, a CTA a chunk: the pointer
 * checks, the core's chunk compressor, the chunk's size and status (each
 * chunk's tiles go in order: a tile's place depends on the sizes before
 * it).  `compress(p, len, d, cap, &out)` is the kernel's lambda binding its
 * workspace, trailing arguments and warps to the core's compressor
 * (cz_compress_chunk, bc_compress_chunk: own_format.h's own_tiled_compress),
 * inlined as a constant is. */
template <typename Compress>
static __device__ __forceinline__ void
own_tiled_encode(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 const size_t *caps, size_t *dst_sizes, oc_status *statuses, Compress compress)
{
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
            st = compress(p, len, d, cap, &out);
        if (threadIdx.x == 0) {
            if (dst_sizes)
                dst_sizes[c] = st == OC_OK ? (size_t)out : 0;
            if (statuses)
                statuses[c] = st;
        }
        __syncthreads();
    }
}

/* ---- the batch driver (own_batch.cu) ------------------------------------------
 * A codec's kernels, as the driver launches them (every pointer a DEVICE
 * array of n entries, as in gpu_codec.h):
 *   headers<<<ceil(n / 256), 256>>>(size_t n, const void *const *src,
 *       const size_t *src_sizes, void *const *dst, const size_t *caps,
 *       own_batch_scratch s): s.tiles[i] and s.keys[i] of every chunk (dst
 *       and caps NULL for a size query);
 *   tiles<<<persistent grid, tile_threads, tile_smem>>>(size_t n,
 *       const void *const *src, const size_t *src_sizes, void *const *dst,
 *       own_batch_scratch s): every tile of s.first's list;
 *   encode<<<min(persistent grid, n), encode_threads, encode_smem>>>(size_t n,
 *       const void *const *src, const size_t *src_sizes, void *const *dst,
 *       const size_t *caps, size_t *dst_sizes, oc_status *statuses, ...): a
 *       CTA per chunk; its trailing arguments (what it takes of the
 *       config) are those encode_args appends with own_encode_arg.
 * A smem of 0 launches with no dynamic shared memory and leaves the
 * kernel's attributes alone. */
#define OWN_ENCODE_MAX_ARGS 4

typedef struct own_encode_args {
    unsigned long long slot[OWN_ENCODE_MAX_ARGS][2]; /* the values, 16 bytes each at most */
    void *args[OWN_ENCODE_MAX_ARGS];                 /* cudaLaunchKernel's pointers to them */
    unsigned n;
} own_encode_args;

/* Appends the next trailing argument of an encode kernel (size <= 16
 * bytes, at most OWN_ENCODE_MAX_ARGS of them): a copy of *v. */
static inline void own_encode_arg(own_encode_args *a, const void *v, size_t size)
{
    memcpy(a->slot[a->n], v, size);
    a->args[a->n] = a->slot[a->n];
    a->n++;
}

typedef struct own_gpu_kernels {
    const void *headers;
    const void *tiles;
    unsigned tile_threads;
    size_t tile_smem;
    const void *encode;
    unsigned encode_threads;
    size_t encode_smem;
    void (*encode_args)(const oc_gpu_config *cfg, own_encode_args *a);
} own_gpu_kernels;

#ifdef __cplusplus
extern "C" {
#endif

/* gpu_codec.h's launches and decompress scratch, run with codec k's
 * kernels.  Decompression needs own_batch_scratch's per-chunk arrays
 * (oc_own_gpu_decompress_scratch, which also serves the size query);
 * compression none. */
OC_HIDDEN oc_status oc_own_gpu_compress(const own_gpu_kernels *k, const oc_gpu_config *cfg, size_t n,
                                        const void *const *src_dev, const size_t *src_sizes_dev,
                                        void *const *dst_dev, const size_t *dst_caps_dev,
                                        size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream);
OC_HIDDEN oc_status oc_own_gpu_decompress(const own_gpu_kernels *k, void *scratch_dev, size_t scratch_size,
                                          size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                          void *const *dst_dev, const size_t *dst_caps_dev,
                                          size_t *dst_sizes_dev, oc_status *statuses_dev,
                                          cudaStream_t stream);
OC_HIDDEN oc_status oc_own_gpu_sizes(const own_gpu_kernels *k, void *scratch_dev, size_t scratch_size,
                                     size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                     size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream);
OC_HIDDEN size_t oc_own_gpu_decompress_scratch(const oc_gpu_config *cfg, size_t n);

#ifdef __cplusplus
}
#endif

/* The compress, decompress and decompressed_sizes launches (gpu_codec.h's
 * signature) of the codec whose kernels are the own_gpu_kernels `k`, named
 * prefix_compress, prefix_decompress and prefix_sizes, for its
 * oc_gpu_codec (whose decompress_scratch is oc_own_gpu_decompress_scratch). */
#define OWN_GPU_LAUNCHES(prefix, k)                                                                          \
    static oc_status prefix##_compress(void *scratch, size_t scratch_size, const oc_gpu_config *cfg,         \
                                       size_t n, const void *const *src, const size_t *src_sizes,            \
                                       void *const *dst, const size_t *caps, size_t *dst_sizes,              \
                                       oc_status *statuses, cudaStream_t stream)                             \
    {                                                                                                        \
        (void)scratch, (void)scratch_size;                                                                   \
        return oc_own_gpu_compress(&(k), cfg, n, src, src_sizes, dst, caps, dst_sizes, statuses, stream);    \
    }                                                                                                        \
    static oc_status prefix##_decompress(void *scratch, size_t scratch_size, const oc_gpu_config *cfg,       \
                                         size_t n, const void *const *src, const size_t *src_sizes,          \
                                         void *const *dst, const size_t *caps, size_t *dst_sizes,            \
                                         oc_status *statuses, cudaStream_t stream)                           \
    {                                                                                                        \
        (void)cfg;                                                                                           \
        return oc_own_gpu_decompress(&(k), scratch, scratch_size, n, src, src_sizes, dst, caps, dst_sizes,   \
                                     statuses, stream);                                                      \
    }                                                                                                        \
    static oc_status prefix##_sizes(void *scratch, size_t scratch_size, const oc_gpu_config *cfg, size_t n,  \
                                    const void *const *src, const size_t *src_sizes, void *const *dst,       \
                                    const size_t *caps, size_t *dst_sizes, oc_status *statuses,              \
                                    cudaStream_t stream)                                                     \
    {                                                                                                        \
        (void)cfg, (void)dst, (void)caps;                                                                    \
        return oc_own_gpu_sizes(&(k), scratch, scratch_size, n, src, src_sizes, dst_sizes, statuses,         \
                                stream);                                                                     \
    }

#endif /* OC_OWN_TILES_CUH */
