/*
 * cuda_filter.cu - the stand-alone byte shuffle and bitshuffle on the CUDA
 * engine (cuda_filter.h): a scan gives each chunk its part of the slab and
 * its tiles, then a persistent grid takes tiles of any chunk of the batch
 * (chunk_of.cuh) and runs src/common/shuffle.h's element-range loops, the
 * same loops as the CPU engine's oc_filter_buffer and the Blosc decoder's
 * unfilter (blosc_kernels.cu, generic path), so the bytes are the CPU
 * engine's by construction.  A tile is FT_TILE elements (a thread an
 * element for byte shuffle, a group of 8 for bitshuffle); the bytes a
 * filter leaves (the trailing size % typesize, or a whole bitshuffled
 * chunk of a non-multiple-of-8 element count) are copied in FT_COPY-byte
 * tiles.  Memory-bound and simple: one pass each way beside a codec that
 * is many times slower; the Blosc decoder's word paths (4- and 8-byte
 * elements) are the faster design if this ever shows in a profile.
 */
#include <cuda_runtime.h>

#include "../../common/shuffle.h"
#include "chunk_of.cuh"
#include "cuda_filter.h"

#define FT_TILE ((size_t)2048)     /* elements a filter tile (a multiple of 8) */
#define FT_COPY ((size_t)65536)    /* bytes a copy tile */
#define FT_PART_ALIGN ((size_t)64) /* each chunk's slab part from a 64-byte boundary */
#define FT_THREADS 256
#define FT_GRID 2048u
#define FT_SCAN_THREADS 1024

/* The scratch: the codec's pointer array, the slab offsets and tile
 * firsts (n + 1 words each), the codec's sizes and statuses
 * (decompression), each from a 256-byte boundary; then the slab. */
typedef struct ft_arrays {
    void **ptrs;               /* the codec's src (compression) or dst (decompression) pointers */
    unsigned long long *off;   /* slab offset of each chunk's part; off[n]: the parts' total */
    unsigned long long *first; /* each chunk's first tile; first[n]: the tiles' total */
    size_t *sizes;             /* decompression: the codec's sizes */
    oc_status *st;             /* decompression: the codec's statuses */
    uint8_t *slab;
    size_t slab_size;
} ft_arrays;

static size_t ft_align(size_t x)
{
    return (x + 255) & ~(size_t)255;
}

static size_t ft_arrays_size(size_t n)
{
    return 4 * ft_align((n + 1) * 8) + ft_align(n * sizeof(oc_status));
}

extern "C" size_t oc_filter_scratch_size(size_t n, const size_t *sizes_host)
{
    size_t total = ft_arrays_size(n);
    for (size_t i = 0; i < n; i++) {
        size_t part = (sizes_host[i] + FT_PART_ALIGN - 1) & ~(FT_PART_ALIGN - 1);
        if (part < sizes_host[i] || total + part < total)
            return (size_t)-1;
        total += part;
    }
    return total;
}

static ft_arrays ft_carve(void *scratch_dev, size_t scratch_size, size_t n)
{
    uint8_t *p = (uint8_t *)scratch_dev;
    size_t w = ft_align((n + 1) * 8), head = ft_arrays_size(n);
    ft_arrays a;
    a.ptrs = (void **)p;
    a.off = (unsigned long long *)(p + w);
    a.first = (unsigned long long *)(p + 2 * w);
    a.sizes = (size_t *)(p + 3 * w);
    a.st = (oc_status *)(p + 4 * w);
    a.slab = p + head;
    a.slab_size = scratch_size > head ? scratch_size - head : 0;
    return a;
}

/* Tiles of a chunk of at most `size` bytes: the filter's, then the copy's
 * (a bound: a chunk that decodes to fewer bytes needs no more). */
static __device__ unsigned long long ft_tiles(size_t size, uint32_t t)
{
    return (size / t + FT_TILE - 1) / FT_TILE + (size + FT_COPY - 1) / FT_COPY;
}

/* One CTA: every chunk's slab part and first tile (exclusive prefix sums
 * over contiguous ranges a thread), and the codec's pointers into the
 * slab.  A batch whose parts overrun the slab (the host sized it from the
 * same arrays: it cannot) gets NULL pointers and no tiles. */
static __global__ void __launch_bounds__(FT_SCAN_THREADS)
    ft_scan_kernel(ft_arrays a, uint32_t t, size_t n, const void *const *data_dev, const size_t *sizes_dev)
{
    __shared__ unsigned long long s_part[FT_SCAN_THREADS], s_tile[FT_SCAN_THREADS];
    __shared__ int s_over;
    size_t per = (n + FT_SCAN_THREADS - 1) / FT_SCAN_THREADS;
    size_t i0 = threadIdx.x * per < n ? threadIdx.x * per : n, i1 = i0 + per < n ? i0 + per : n;
    unsigned long long part = 0, tile = 0;
    for (size_t i = i0; i < i1; i++) {
        size_t s = sizes_dev[i];
        part += (s + FT_PART_ALIGN - 1) & ~(FT_PART_ALIGN - 1);
        tile += data_dev[i] ? ft_tiles(s, t) : 0;
    }
    s_part[threadIdx.x] = part;
    s_tile[threadIdx.x] = tile;
    __syncthreads();
    if (threadIdx.x == 0) { /* exclusive scan of the per-thread sums */
        unsigned long long p = 0, q = 0;
        for (int k = 0; k < FT_SCAN_THREADS; k++) {
            unsigned long long dp = s_part[k], dq = s_tile[k];
            s_part[k] = p, s_tile[k] = q;
            p += dp, q += dq;
        }
        s_over = p > a.slab_size;
        a.off[n] = p;
        a.first[n] = s_over ? 0 : q;
    }
    __syncthreads();
    part = s_part[threadIdx.x], tile = s_tile[threadIdx.x];
    for (size_t i = i0; i < i1; i++) {
        size_t s = sizes_dev[i];
        a.off[i] = part;
        a.first[i] = s_over ? 0 : tile;
        a.ptrs[i] = data_dev[i] == NULL || s_over ? NULL : a.slab + part;
        part += (s + FT_PART_ALIGN - 1) & ~(FT_PART_ALIGN - 1);
        tile += data_dev[i] ? ft_tiles(s, t) : 0;
    }
}

/* Tile u of a chunk of `size` bytes, src -> dst (forward or inverse). */
static __device__ void ft_tile(uint8_t *dst, const uint8_t *src, size_t size, int mode, uint32_t t,
                               int inverse, unsigned long long u)
{
    size_t e = size / t;
    int applied = mode == 1 || (mode == 2 && e % 8 == 0 && e > 0);
    size_t done = applied ? e * t : 0, ftiles = applied ? (e + FT_TILE - 1) / FT_TILE : 0;
    if (u < ftiles) {
        size_t i0 = (size_t)u * FT_TILE, i1 = i0 + FT_TILE < e ? i0 + FT_TILE : e;
        if (mode == 1) {
            for (size_t i = i0 + threadIdx.x; i < i1; i += blockDim.x) {
                if (inverse)
                    oc_unshuffle_bytes(dst, src, e, t, i, i + 1);
                else
                    oc_shuffle_bytes(dst, src, e, t, i, i + 1);
            }
        } else {
            for (size_t g = i0 / 8 + threadIdx.x; g < i1 / 8; g += blockDim.x) {
                if (inverse)
                    oc_bitunshuffle_groups(dst, src, e, t, g, g + 1);
                else
                    oc_bitshuffle_groups(dst, src, e, t, g, g + 1);
            }
        }
        return;
    }
    size_t c0 = done + (size_t)(u - ftiles) * FT_COPY;
    if (c0 >= size)
        return; /* a bound's tile past what this chunk needs */
    size_t c1 = c0 + FT_COPY < size ? c0 + FT_COPY : size;
    for (size_t k = c0 + threadIdx.x; k < c1; k += blockDim.x)
        dst[k] = src[k];
}

/* Compression: each chunk's bytes filtered into its slab part. */
static __global__ void __launch_bounds__(FT_THREADS)
    ft_forward_kernel(ft_arrays a, int mode, uint32_t t, size_t n, const void *const *src_dev,
                      const size_t *src_sizes_dev)
{
    unsigned long long total = a.first[n];
    for (unsigned long long u = blockIdx.x; u < total; u += gridDim.x) {
        size_t i = oc_chunk_of(a.first, n, u);
        uint8_t *out = (uint8_t *)a.ptrs[i];
        if (out != NULL)
            ft_tile(out, (const uint8_t *)src_dev[i], src_sizes_dev[i], mode, t, 0, u - a.first[i]);
    }
}

/* Decompression: the codec's results passed on; each chunk that decoded
 * unfiltered from its slab part into its output. */
static __global__ void __launch_bounds__(FT_THREADS)
    ft_inverse_kernel(ft_arrays a, int mode, uint32_t t, size_t n, void *const *dst_dev,
                      size_t *dst_sizes_dev, oc_status *statuses_dev)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (dst_sizes_dev)
            dst_sizes_dev[i] = a.st[i] == OC_OK ? a.sizes[i] : 0;
        if (statuses_dev)
            statuses_dev[i] = a.st[i];
    }
    unsigned long long total = a.first[n];
    for (unsigned long long u = blockIdx.x; u < total; u += gridDim.x) {
        size_t i = oc_chunk_of(a.first, n, u);
        const uint8_t *in = (const uint8_t *)a.ptrs[i];
        /* the codec never reports more than the capacity (gpu_codec.h); the
         * part's size bounds it anyway */
        size_t size = a.sizes[i], room = (size_t)(a.off[i + 1] - a.off[i]);
        if (in != NULL && a.st[i] == OC_OK && size <= room)
            ft_tile((uint8_t *)dst_dev[i], in, size, mode, t, 1, u - a.first[i]);
    }
}

static oc_status ft_launched(void)
{
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

extern "C" oc_status oc_filter_launch_before(void *scratch_dev, size_t scratch_size, int decode, int mode,
                                             uint32_t t, size_t n, const void *const *src_dev,
                                             const size_t *src_sizes_dev, void *const *dst_dev,
                                             const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                             oc_status *statuses_dev, oc_filter_codec_args *args,
                                             cudaStream_t stream)
{
    if (scratch_dev == NULL || args == NULL || n == 0 || t == 0 || (mode != 1 && mode != 2) ||
        scratch_size < ft_arrays_size(n))
        return OC_ERR_INVALID_ARGUMENT;
    ft_arrays a = ft_carve(scratch_dev, scratch_size, n);
    args->src_dev = src_dev;
    args->src_sizes_dev = src_sizes_dev;
    args->dst_dev = dst_dev;
    args->dst_caps_dev = dst_caps_dev;
    args->dst_sizes_dev = dst_sizes_dev;
    args->statuses_dev = statuses_dev;
    if (!decode) {
        ft_scan_kernel<<<1, FT_SCAN_THREADS, 0, stream>>>(a, t, n, src_dev, src_sizes_dev);
        ft_forward_kernel<<<FT_GRID, FT_THREADS, 0, stream>>>(a, mode, t, n, src_dev, src_sizes_dev);
        args->src_dev = (const void *const *)a.ptrs;
    } else {
        ft_scan_kernel<<<1, FT_SCAN_THREADS, 0, stream>>>(a, t, n, (const void *const *)dst_dev,
                                                          dst_caps_dev);
        args->dst_dev = a.ptrs;
        args->dst_sizes_dev = a.sizes;
        args->statuses_dev = a.st;
    }
    return ft_launched();
}

extern "C" oc_status oc_filter_launch_after(void *scratch_dev, int mode, uint32_t t, size_t n,
                                            void *const *dst_dev, size_t *dst_sizes_dev,
                                            oc_status *statuses_dev, cudaStream_t stream)
{
    if (scratch_dev == NULL || n == 0 || t == 0 || (mode != 1 && mode != 2))
        return OC_ERR_INVALID_ARGUMENT;
    /* the slab's size is not needed here: the offsets bound every part */
    ft_arrays a = ft_carve(scratch_dev, ft_arrays_size(n), n);
    ft_inverse_kernel<<<FT_GRID, FT_THREADS, 0, stream>>>(a, mode, t, n, dst_dev, dst_sizes_dev,
                                                          statuses_dev);
    return ft_launched();
}
