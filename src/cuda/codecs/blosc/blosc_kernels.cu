/*
 * blosc_kernels.cu - Blosc 1.x chunks decoded on the GPU (gpu_codec.h),
 * parallel inside each chunk: every split stream of every block of every
 * chunk of the batch is one work item, so a few MB-sized zarr chunks fill
 * the device (bench/gpu/blosc/NOTES.md has the napkin math and the design).
 *
 *   1. plan: a thread per chunk reads the header (src/common/blosc_format.h,
 *      the CPU engine's own checks), counts its work items (memcpyed: one
 *      per 64 KiB; else every stream of every block) and sets its status;
 *   2. scan: one block turns the counts into a prefix table (n + 1);
 *   3. decode: persistent 2-warp blocks take items in turn; an item finds
 *      its chunk by binary search in the prefix table and its stream by
 *      walking at most 15 csize words from the block's start (every offset
 *      checked).  The stream decodes into dst at its place in the block
 *      (the shuffled layout when the block is shuffled): stored streams are
 *      copied, LZ4 and Snappy run the library's two-warp pipeline
 *      (lz4_decode_rounds.cuh, snappy_decode_rounds.cuh), Zstd the zstd
 *      core (zstd_decode_core.h) on warp 0, zlib the shared inflate core
 *      on warp 0 with c-blosc's rules (blosc_zlib_core.h), BloscLZ our
 *      decoder (src/common/blosclz.h) on lane 0.  Every inner codec c-blosc
 *      1.x writes decodes here; the zstd and inflate tables share one
 *      union in shared memory (an item uses one of them);
 *   4. unshuffle: for each shuffled block (item with stream 0), the block
 *      is copied into the block's slab of scratch and written back
 *      unshuffled (src/common/shuffle.h's rules, a thread per element or per
 *      8-element group); a block larger than the slab is CHUNK_TOO_LARGE;
 *   5. finish: statuses and sizes.
 *
 * A failing stream sets its chunk's status (first writer wins, atomicCAS):
 * CORRUPT for any inner stream that does not decode to its exact size, as
 * the CPU engine says when libblosc refuses one; the other chunks of the
 * batch decode as usual.  Nothing synchronises.
 */
#include "../../runtime/gpu_codec.h"
#include "../lz4/lz4_decode_rounds.cuh"
#include "../snappy/snappy_decode_rounds.cuh"
#include "../zstd/zstd_decode_core.h"
#include "blosc_zlib_core.h"

#include "../../../common/blosc_format.h"
#include "../../../common/blosclz.h"
#include "../../../common/shuffle.h"

#define BL_DECODE_BLOCKS 1024u           /* persistent 2-warp decode blocks */
#define BL_MEMCPY_ITEM ((uint32_t)65536) /* bytes of a memcpyed chunk per item */
#define BL_SLAB_MAX ((size_t)8 << 20)    /* largest shuffled block the unshuffle handles */
#define BL_SLAB_BUDGET ((size_t)256 << 20)
#define BL_ZSTD_SLOT ((size_t)ZD_BLOCK_MAX)

/* Scratch layout (bytes, each part 256-aligned). */
struct bl_layout {
    size_t prefix, status, zstd, slab, total;
    size_t slab_size, nslabs;
};

static size_t bl_align(size_t v)
{
    return (v + 255) & ~(size_t)255;
}

static bl_layout bl_plan_layout(size_t n, size_t max_capacity)
{
    bl_layout L;
    L.slab_size = bl_align(max_capacity < BL_SLAB_MAX ? (max_capacity ? max_capacity : 1) : BL_SLAB_MAX);
    L.nslabs = BL_SLAB_BUDGET / L.slab_size;
    if (L.nslabs > 1024)
        L.nslabs = 1024;
    if (L.nslabs == 0)
        L.nslabs = 1;
    L.prefix = 0;
    L.status = L.prefix + bl_align((n + 1) * sizeof(unsigned long long));
    L.zstd = L.status + bl_align(n * sizeof(int));
    L.slab = L.zstd + BL_DECODE_BLOCKS * BL_ZSTD_SLOT;
    L.total = L.slab + L.nslabs * L.slab_size;
    return L;
}

/* The chunk's items (header checked; 0 on a bad header or short output). */
__device__ static unsigned long long bl_items(const oc_blosc_header *h)
{
    if (h->flags & OC_BLOSC_F_MEMCPYED)
        return (h->nbytes + BL_MEMCPY_ITEM - 1) / BL_MEMCPY_ITEM;
    if (h->nblocks == 0)
        return 0;
    return (unsigned long long)(h->nblocks - 1) * h->nsplits + oc_blosc_block_streams(h, h->nblocks - 1);
}

__global__ void bl_plan_kernel(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                               const size_t *dst_caps, unsigned long long *counts, int *status)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    oc_blosc_header h;
    oc_status st;
    if (src[i] == nullptr || (dst[i] == nullptr && dst_caps[i] != 0))
        st = OC_ERR_INVALID_ARGUMENT;
    else
        st = oc_blosc_parse_header((const uint8_t *)src[i], src_sizes[i], &h);
    if (st == OC_OK && h.nbytes > dst_caps[i])
        st = OC_ERR_OUTPUT_TOO_SMALL;
    counts[i] = st == OC_OK ? bl_items(&h) : 0;
    status[i] = (int)st;
}

/* Exclusive prefix of counts[0..n) into prefix[0..n], one block of 1024. */
__global__ void __launch_bounds__(1024) bl_scan_kernel(size_t n, unsigned long long *prefix)
{
    __shared__ unsigned long long part[1024];
    size_t per = (n + 1023) / 1024, lo = threadIdx.x * per, hi = lo + per < n ? lo + per : n;
    unsigned long long s = 0;
    for (size_t k = lo; k < hi; k++)
        s += prefix[k];
    part[threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long run = 0;
        for (int k = 0; k < 1024; k++) {
            unsigned long long v = part[k];
            part[k] = run;
            run += v;
        }
        prefix[n] = run;
    }
    __syncthreads();
    unsigned long long run = part[threadIdx.x];
    for (size_t k = lo; k < hi; k++) {
        unsigned long long v = prefix[k];
        prefix[k] = run;
        run += v;
    }
}

/* The chunk of item `it`: the last c with prefix[c] <= it (prefix[n] > it). */
__device__ static size_t bl_chunk_of(const unsigned long long *prefix, size_t n, unsigned long long it)
{
    size_t lo = 0, hi = n; /* prefix[lo] <= it < prefix[hi] */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (prefix[mid] <= it)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

__device__ static void bl_fail(int *status, size_t c, int st)
{
    atomicCAS(status + c, (int)OC_OK, st);
}

/* Item -> (block, stream) of a non-memcpyed chunk. */
__device__ static void bl_block_stream(const oc_blosc_header *h, unsigned long long k, uint32_t *b,
                                       uint32_t *s)
{
    unsigned long long bb = k / h->nsplits;
    if (bb >= h->nblocks)
        bb = h->nblocks - 1;
    *b = (uint32_t)bb;
    *s = (uint32_t)(k - bb * h->nsplits);
}

/* Snappy: the preamble then the rounds (parser warp). */
__device__ static int bl_snappy_parse(const uint8_t *src, size_t srcn, size_t cap, size_t *outn, int lane,
                                      oc_pipe_prod *pp)
{
    uint64_t v = 0;
    int pre = -1;
    for (int i = 0; i < 5 && (size_t)i < srcn; i++) {
        uint32_t c = src[i];
        v |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) {
            pre = i + 1;
            break;
        }
    }
    if (pre < 0 || v != cap)
        return OC_D_CORRUPT;
    *outn = (size_t)v;
    return oc_snappy_decode_rounds<uint32_t>(src, srcn, (size_t)pre, (size_t)v, lane, pp);
}

__global__ void __launch_bounds__(64)
    bl_decode_kernel(size_t n, const void *const *src_ptrs, void *const *dst_ptrs,
                     const unsigned long long *prefix, int *status, uint8_t *zstd_scratch)
{
    __shared__ uint8_t ring[OC_RING];
    __shared__ oc_pipe_q q;
    __shared__ union {
        zd_tables zd;   /* zstd streams */
        inf_tables inf; /* zlib streams */
    } tables;
    __shared__ int skip_sh;
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned long long total = prefix[n];
    uint8_t *litbuf = zstd_scratch + (size_t)blockIdx.x * BL_ZSTD_SLOT;
    for (unsigned long long it = blockIdx.x; it < total; it += gridDim.x) {
        size_t c = bl_chunk_of(prefix, n, it);
        /* other blocks may fail this chunk meanwhile: one read, shared, so
         * both warps take the same path (the pipe's barriers need both) */
        if (threadIdx.x == 0)
            skip_sh = status[c] != OC_OK;
        __syncthreads();
        int skip = skip_sh;
        __syncthreads();
        if (skip)
            continue;
        const uint8_t *src = (const uint8_t *)src_ptrs[c];
        uint8_t *dst = (uint8_t *)dst_ptrs[c];
        oc_blosc_header h;
        oc_blosc_parse_header(src, ((size_t)oc_load_le32(src + 12)), &h); /* checked by the plan */
        unsigned long long k = it - prefix[c];
        if (h.flags & OC_BLOSC_F_MEMCPYED) {
            size_t off = (size_t)k * BL_MEMCPY_ITEM;
            size_t len = h.nbytes - off < BL_MEMCPY_ITEM ? h.nbytes - off : BL_MEMCPY_ITEM;
            for (size_t j = threadIdx.x; j < len; j += 64)
                dst[off + j] = src[OC_BLOSC_HEADER_SIZE + off + j];
            continue;
        }
        uint32_t b, s;
        bl_block_stream(&h, k, &b, &s);
        oc_blosc_stream str;
        oc_status fst = oc_blosc_find_stream(src, &h, b, s, &str);
        if (fst != OC_OK) {
            if (threadIdx.x == 0)
                bl_fail(status, c, fst);
            continue;
        }
        const uint8_t *in = src + str.offset;
        uint8_t *out = dst + str.out;
        if (str.stored) {
            for (size_t j = threadIdx.x; j < str.dsize; j += 64)
                out[j] = in[j];
            continue;
        }
        int st = OC_D_OK;
        size_t got = 0;
        if (h.format == OC_BLOSC_FMT_LZ4 || h.format == OC_BLOSC_FMT_SNAPPY) {
            if (warp == 1) {
                oc_pipe_copier(&q, in, out, ring, lane);
            } else {
                oc_pipe_prod pp = {&q, 0};
                st = h.format == OC_BLOSC_FMT_LZ4
                         ? oc_lz4_decode_rounds<uint32_t>(in, str.csize, str.dsize, &got, lane, &pp)
                         : bl_snappy_parse(in, str.csize, str.dsize, &got, lane, &pp);
                oc_pipe_finish(&pp, lane);
            }
        } else if (warp == 0) {
            if (h.format == OC_BLOSC_FMT_ZSTD) {
                st = (int)zd_decode_chunk(&tables.zd, in, str.csize, out, str.dsize, &got, litbuf,
                                          BL_ZSTD_SLOT);
            } else if (h.format == OC_BLOSC_FMT_BLOSCLZ) {
                if (lane == 0)
                    st = (int)oc_blosclz_decode(in, str.csize, out, str.dsize, &got);
                st = __shfl_sync(0xffffffffu, st, 0);
                got = __shfl_sync(0xffffffffu, got, 0);
            } else { /* OC_BLOSC_FMT_ZLIB, the last format the header allows */
                st = (int)blz_zlib_decode(&tables.inf, in, str.csize, out, str.dsize, &got);
            }
        }
        if (warp == 0 && lane == 0 && (st != OC_D_OK || got != str.dsize))
            bl_fail(status, c, OC_ERR_CORRUPT);
        __syncthreads();
    }
}

/* Unshuffle every shuffled block (the item of its stream 0) through a slab. */
__global__ void __launch_bounds__(1024)
    bl_unshuffle_kernel(size_t n, const void *const *src_ptrs, void *const *dst_ptrs,
                        const unsigned long long *prefix, int *status, uint8_t *slabs, size_t slab_size)
{
    __shared__ int skip_sh;
    uint8_t *slab = slabs + (size_t)blockIdx.x * slab_size;
    unsigned long long total = prefix[n];
    for (unsigned long long it = blockIdx.x; it < total; it += gridDim.x) {
        size_t c = bl_chunk_of(prefix, n, it);
        if (threadIdx.x == 0)
            skip_sh = status[c] != OC_OK;
        __syncthreads();
        int skip = skip_sh;
        __syncthreads();
        if (skip)
            continue;
        const uint8_t *src = (const uint8_t *)src_ptrs[c];
        oc_blosc_header h;
        oc_blosc_parse_header(src, ((size_t)oc_load_le32(src + 12)), &h);
        if ((h.flags & OC_BLOSC_F_MEMCPYED) || !(h.flags & (OC_BLOSC_F_SHUFFLE | OC_BLOSC_F_BITSHUFFLE)))
            continue;
        uint32_t b, s;
        bl_block_stream(&h, it - prefix[c], &b, &s);
        if (s != 0)
            continue;
        uint32_t bsz = oc_blosc_block_size(&h, b), t = h.typesize;
        size_t e = bsz / t;
        int filter =
            oc_blosc_block_filter(&h, bsz); /* libblosc's pick: both flags with typesize 1 bitshuffle */
        int bit = filter == 2;
        if (filter == 0 || (bit && (e % 8 != 0 || e == 0)))
            continue; /* the identity */
        if (bsz > slab_size) {
            if (threadIdx.x == 0)
                bl_fail(status, c, OC_ERR_CHUNK_TOO_LARGE);
            continue;
        }
        uint8_t *blk = (uint8_t *)dst_ptrs[c] + (size_t)b * h.blocksize;
        for (size_t j = threadIdx.x; j < (size_t)e * t; j += blockDim.x)
            slab[j] = blk[j];
        __syncthreads();
        if (!bit) {
            for (size_t i = threadIdx.x; i < e; i += blockDim.x)
                oc_unshuffle_bytes(blk, slab, e, t, i, i + 1);
        } else {
            for (size_t g = threadIdx.x; g < e / 8; g += blockDim.x)
                oc_bitunshuffle_groups(blk, slab, e, t, g, g + 1);
        }
        __syncthreads();
    }
}

__global__ void bl_finish_kernel(size_t n, const void *const *src_ptrs, const int *status, size_t *dst_sizes,
                                 oc_status *statuses)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int st = status[i];
    if (dst_sizes)
        dst_sizes[i] = st == OC_OK ? oc_load_le32((const uint8_t *)src_ptrs[i] + 4) : 0;
    if (statuses)
        statuses[i] = (oc_status)st;
}

static size_t bl_decompress_scratch(const oc_gpu_config *cfg, size_t n)
{
    return bl_plan_layout(n, cfg->max_capacity).total;
}

static oc_status bl_decompress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg, size_t n,
                               const void *const *src_dev, const size_t *src_sizes_dev, void *const *dst_dev,
                               const size_t *dst_caps_dev, size_t *dst_sizes_dev, oc_status *statuses_dev,
                               cudaStream_t stream)
{
    if (n == 0)
        return OC_OK;
    bl_layout L = bl_plan_layout(n, cfg->max_capacity);
    if (!src_dev || !src_sizes_dev || !dst_dev || !dst_caps_dev || !scratch_dev || scratch_size < L.total)
        return OC_ERR_INVALID_ARGUMENT;
    uint8_t *s = (uint8_t *)scratch_dev;
    unsigned long long *prefix = (unsigned long long *)(s + L.prefix);
    int *status = (int *)(s + L.status);
    unsigned g = (unsigned)((n + 255) / 256);
    bl_plan_kernel<<<g, 256, 0, stream>>>(n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, prefix, status);
    bl_scan_kernel<<<1, 1024, 0, stream>>>(n, prefix);
    bl_decode_kernel<<<BL_DECODE_BLOCKS, 64, 0, stream>>>(n, src_dev, dst_dev, prefix, status, s + L.zstd);
    bl_unshuffle_kernel<<<(unsigned)L.nslabs, 1024, 0, stream>>>(n, src_dev, dst_dev, prefix, status,
                                                                 s + L.slab, L.slab_size);
    bl_finish_kernel<<<g, 256, 0, stream>>>(n, src_dev, status, dst_sizes_dev, statuses_dev);
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

/* Decoding on the GPU; compression and the size query are host-staged (the
 * API layer runs libblosc on the CPU engine). */
extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_blosc = {NULL, NULL, bl_decompress_scratch,
                                                              bl_decompress, NULL};
