/*
 * blosc_kernels.cu - Blosc 1.x chunks decoded on the GPU (gpu_codec.h),
 * parallel inside each chunk: the split streams of every block of every
 * chunk of the batch become ONE plain batch for the inner codec's own
 * library launch (LZ4's, Snappy's, Zstd's GPU codec, reached through the
 * algorithm table), so a few MB-sized zarr chunks fill the device at the
 * plain decoders' speed (bench/gpu/blosc/NOTES.md has the napkin math, the
 * designs and the measurements).
 *
 * Lists (the fast path, LZ4 / Snappy / Zstd chunks and memcpyed ones):
 *   1. plan: a thread per chunk reads the header (src/common/blosc_format.h,
 *      the CPU engine's own checks) and sets its status; a chunk the lists
 *      can take reserves its entries with atomic counters: its stream
 *      count in its codec's list and in the copy list, for a filtered
 *      chunk (byte shuffle or bitshuffle) a block entry per block and its
 *      decoded size in the output slab (memcpyed: a copy entry per 64 KiB);
 *   2. list: a CTA per chunk, a thread per block, walks the csize words
 *      (oc_blosc_find_stream's checks in its order) and writes an entry per
 *      stream: (source, size, destination, exact decoded size, chunk) in
 *      the codec's list, or, for a stored stream, a copy entry.  A stream
 *      decodes into the output at its place, or into the chunk's part of
 *      the slab when the chunk is filtered;
 *   3. the codecs' launches, each over its whole list: `bound` entries (the
 *      host cannot know the count without a sync), the ones nobody wrote
 *      left zero, a NULL source of 0 bytes that every codec answers with a
 *      status and no memory access;
 *   4. copy (a CTA per stored stream or memcpyed piece), unfilter (a CTA
 *      per block: slab -> output, the byte or bit unshuffle of shuffle.h,
 *      trailing bytes and unfiltered blocks copied), merge (an entry that
 *      did not decode to exactly its size fails its chunk).
 * The bound: one entry per 32 KiB of the largest capacity plus 2, per
 * chunk (2 MiB a chunk when the capacities are in device memory), at most
 * 2^19 a list; the slab: every chunk's capacity (4 MiB a chunk when not
 * known), at most 1 GiB.  A chunk whose entries or slab share do not fit,
 * a BloscLZ or zlib chunk (no library GPU codec for BloscLZ; c-blosc's
 * zlib streams follow rules of their own, blosc_zlib_core.h), and a
 * filtered chunk with blocks over 8 MiB go to the fallback.
 *
 * Fallback (the design before the lists; the chunks the lists did not
 * take): a scan of their stream counts, persistent 2-warp blocks taking a
 * stream each (binary search for the chunk, a csize walk for the stream)
 * and decoding it with the codec cores (lz4_decode_rounds.cuh,
 * snappy_decode_rounds.cuh, zstd_decode_core.h, the inflate core with
 * c-blosc's rules, our BloscLZ) in place, then an unshuffle through
 * slabs of the scratch (a filtered block over 8 MiB is CHUNK_TOO_LARGE).
 *
 * Statuses, as the CPU engine gives them: the header's (plan); then a
 * listed chunk gets its lowest bad block's layout status, else CORRUPT
 * when an inner stream does not decode to its exact size (libblosc gives
 * no reason); a fallback chunk its first failing item's.  The other chunks
 * of the batch decode as usual.  Nothing synchronises.
 */
#include "../../runtime/chunk_of.cuh"
#include "../../runtime/gpu_codec.h"
#include "blosc_enc_gpu.h"
#include "../lz4/lz4_decode_rounds.cuh"
#include "../snappy/snappy_decode_rounds.cuh"
#include "../zstd/zstd_decode_core.h"
#include "blosc_copy.cuh"
#include "blosc_list.cuh"
#include "blosc_zlib_core.h"

#include "../../../common/blosc_format.h"
#include "../../../common/blosclz.h"
#include "../../../common/shuffle.h"
#include "../../../common/algo_table.h"

#include <string.h>

#define BL_DECODE_BLOCKS 1024u           /* fallback: persistent 2-warp decode blocks */
#define BL_MEMCPY_ITEM ((uint32_t)65536) /* bytes of a memcpyed chunk per item (copy entry) */
#define BL_SLAB_MAX ((size_t)8 << 20)    /* fallback: largest shuffled block its unshuffle handles */
#define BL_SLAB_BUDGET ((size_t)256 << 20)
#define BL_ZSTD_SLOT ((size_t)ZD_BLOCK_MAX)

/* The stream lists (see the file comment, "Lists"). */
#define BL_LIST_STREAM ((size_t)32 << 10)         /* entries per chunk: one per 32 KiB of capacity, + 2 */
#define BL_LIST_UNKNOWN_CAP ((size_t)2 << 20)     /* the capacity assumed when the host does not know it */
#define BL_LIST_MAX ((size_t)1 << 19)             /* entries per list at most */
#define BL_OUT_SLAB_MAX ((size_t)1 << 30)         /* filtered chunks' decoded bytes, at most */
#define BL_OUT_SLAB_UNKNOWN_CAP ((size_t)4 << 20) /* slab bytes a chunk, when the host does not know */
/* given to an inner codec at most: Zstd's per-chunk kernel takes a 128 KiB
 * slot a warp, 4096 warps (512 MiB) at most; at 256 MiB it ran half of them
 * inside Blosc, 1.2-1.3x slower than on the same streams as a plain batch
 * (bench/gpu/blosc/NOTES.md, session 7) */
#define BL_INNER_SCRATCH_MAX ((size_t)520 << 20)
#define BL_INNER_MIN_CAP ((size_t)65537) /* above LZ4's split decoder's 64 KiB */
#define BL_NCODECS 3                     /* the lists: LZ4, Snappy, Zstd */
#define BL_KERNEL_GRID 2048u             /* persistent grids of our own list kernels */

/* Counters (device, zeroed per call): entries taken from each list, bytes
 * of the output slab. */
enum { BL_CTR_COPY = BL_NCODECS, BL_CTR_BLK, BL_CTR_SLAB, BL_NCTR };

/* A copy: a stored stream, or a 64 KiB piece of a memcpyed chunk (n 0: none). */
struct bl_copy {
    const uint8_t *src;
    uint8_t *dst;
    size_t n;
};

/* A block of a filtered chunk: its decoded (filtered) bytes in the slab,
 * where it goes, its size, typesize and filter (oc_blosc_block_filter);
 * for the unfilter's word paths (bl_unfilter_words) byte column j of the
 * filtered block (el = bsz / t bytes) at part[j]: in the slab, or where a
 * stored stream lies in the source (not copied to the slab first). */
#define BL_PARTS 8
struct bl_blk {
    const uint8_t *slab;
    uint8_t *dst;
    const uint8_t *part[BL_PARTS];
    uint32_t bsz;
    uint16_t t;
    uint16_t filter; /* 0: none; also the padding */
};

/* 1 when the unfilter's word paths take a block: byte shuffle or
 * bitshuffle (a whole number of 8-element groups) of typesize 4 or 8 into
 * element-aligned output.  They read the block by byte columns
 * (bl_blk.part), so the list kernel leaves such a block's stored streams
 * in the source. */
__device__ static int bl_unfilter_words(int filter, uint32_t t, uint32_t bsz, const uint8_t *dst)
{
    uint32_t el = t ? bsz / t : 0;
    return (t == 4 || t == 8) && ((uintptr_t)dst & (t - 1)) == 0 &&
           (filter == 1 || (filter == 2 && el % 8 == 0 && el > 0));
}

/* Per chunk: taken by the plan, read by the list and status kernels. */
struct bl_chunk {
    unsigned long long code, copy, blk, slab; /* first entry of each list; slab offset */
    unsigned long long layout;                /* (block << 32 | status) of the first bad block, or ~0 */
    int listed;                               /* 1: the lists decode it; 0: the fallback kernels */
    int fail;                                 /* a listed inner stream did not decode to its size */
};

/* Scratch layout (bytes, each part 256-aligned). */
struct bl_layout {
    size_t prefix, status, chunks, ctr, lists, copies, blks, inner, slab, total;
    size_t slab_size, nslabs; /* fallback's unshuffle slabs (inside the slab region) */
    size_t bound;             /* entries per list */
    size_t out_slab;          /* bytes of the slab the lists' filtered chunks take */
    size_t inner_size;        /* the inner codecs' scratch (also the fallback's zstd buffers) */
    oc_gpu_config icfg;       /* the inner codecs' launch config (algorithm set per launch) */
};

static size_t bl_align(size_t v)
{
    return (v + 255) & ~(size_t)255;
}

/* The inner codecs (their rows of the algorithm table) by list. */
static const oc_algorithm bl_codec_algo[BL_NCODECS] = {OC_ALGO_LZ4, OC_ALGO_SNAPPY, OC_ALGO_ZSTD};

static const oc_gpu_codec *bl_codec(int l)
{
    const oc_algo_desc *d = oc_algo(bl_codec_algo[l]);
    return d ? d->gpu : NULL;
}

static bl_layout bl_plan_layout(size_t n, size_t max_capacity)
{
    bl_layout L;
    int known = max_capacity != (size_t)-1;
    L.slab_size = bl_align(max_capacity < BL_SLAB_MAX ? (max_capacity ? max_capacity : 1) : BL_SLAB_MAX);
    L.nslabs = BL_SLAB_BUDGET / L.slab_size;
    if (L.nslabs > 1024)
        L.nslabs = 1024;
    if (L.nslabs == 0)
        L.nslabs = 1;
    /* entries per list: a chunk's streams, if they average 32 KiB or more */
    size_t cap = known ? max_capacity : BL_LIST_UNKNOWN_CAP;
    size_t per = cap / BL_LIST_STREAM + 2;
    L.bound = n > BL_LIST_MAX / per ? BL_LIST_MAX : n * per;
    /* the slab: every chunk's capacity (4 MiB a chunk when not known), at most 1 GiB */
    size_t scap = !known                  ? BL_OUT_SLAB_UNKNOWN_CAP
                  : cap == 0              ? 1
                  : cap < BL_OUT_SLAB_MAX ? cap
                                          : BL_OUT_SLAB_MAX;
    scap = bl_align(scap);
    L.out_slab = n > BL_OUT_SLAB_MAX / scap ? BL_OUT_SLAB_MAX : n * scap;
    /* the inner codecs' streams are at most a block of the largest chunk
     * (of any chunk when the host does not know the capacities); told at
     * least BL_INNER_MIN_CAP, so LZ4 takes its pipe decoder, with no scratch */
    size_t icap = known && cap < OC_BLOSC_MAX_BLOCKSIZE ? cap : OC_BLOSC_MAX_BLOCKSIZE;
    memset(&L.icfg, 0, sizeof L.icfg); /* no side stream: the inner launches run on `stream` alone */
    L.icfg.algorithm = OC_ALGO_NONE;
    L.icfg.max_capacity = icap > BL_INNER_MIN_CAP ? icap : BL_INNER_MIN_CAP;
    L.inner_size = BL_DECODE_BLOCKS * BL_ZSTD_SLOT;
    for (int l = 0; l < BL_NCODECS; l++) {
        const oc_gpu_codec *c = bl_codec(l);
        if (c == NULL || c->decompress_scratch == NULL)
            continue;
        oc_gpu_config ic = L.icfg;
        ic.algorithm = bl_codec_algo[l];
        size_t want = c->decompress_scratch(&ic, L.bound);
        want = want < BL_INNER_SCRATCH_MAX ? want : BL_INNER_SCRATCH_MAX;
        L.inner_size = want > L.inner_size ? want : L.inner_size;
    }
    L.prefix = 0;
    L.status = L.prefix + bl_align((n + 1) * sizeof(unsigned long long));
    L.chunks = L.status + bl_align(n * sizeof(int));
    L.ctr = L.chunks + bl_align(n * sizeof(bl_chunk));
    L.lists = L.ctr + 256;
    L.copies = L.lists + BL_NCODECS * bl_align(bl_list_bytes(L.bound, 0));
    L.blks = L.copies + bl_align(L.bound * sizeof(bl_copy));
    L.inner = L.blks + bl_align(L.bound * sizeof(bl_blk));
    L.slab = L.inner + bl_align(L.inner_size);
    size_t slab = L.out_slab > L.nslabs * L.slab_size ? L.out_slab : L.nslabs * L.slab_size;
    L.total = L.slab + bl_align(slab);
    return L;
}

/* List l's arrays in the scratch (blosc_list.cuh). */
static bl_list bl_list_at(uint8_t *s, const bl_layout *L, int l)
{
    return bl_list_carve(s + L->lists + (size_t)l * bl_align(bl_list_bytes(L->bound, 0)), L->bound, 0);
}

__device__ static unsigned long long bl_align_d(unsigned long long v)
{
    return (v + 255) & ~255ull;
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

/* Whether the chunk's blocks pass through the output slab: some block has a
 * filter to undo (the filter depends on the block's size only through
 * bitshuffle's "at least one element"). */
__device__ static int bl_filtered(const oc_blosc_header *h)
{
    return !(h->flags & OC_BLOSC_F_MEMCPYED) && h->nblocks > 0 &&
           (oc_blosc_block_filter(h, h->blocksize) != 0 || oc_blosc_block_filter(h, h->last_size) != 0);
}

/* Takes k entries of a list (counter *ctr, `bound` entries): 1 when they
 * fit; the counter keeps what it gave, so a list, once full, stays full. */
__device__ static int bl_take(unsigned long long *ctr, unsigned long long k, unsigned long long bound,
                              unsigned long long *base)
{
    *base = 0;
    if (k == 0)
        return 1;
    *base = atomicAdd(ctr, k);
    return *base + k <= bound;
}

/* The list an inner codec's streams go to, -1 for the fallback's codecs
 * (BloscLZ: no library GPU codec; zlib: c-blosc's rules differ from a zlib
 * chunk's, blosc_zlib_core.h). */
__device__ static int bl_list_of(const oc_blosc_header *h)
{
    return h->format == OC_BLOSC_FMT_LZ4      ? 0
           : h->format == OC_BLOSC_FMT_SNAPPY ? 1
           : h->format == OC_BLOSC_FMT_ZSTD   ? 2
                                              : -1;
}

/* Plan, a thread per chunk: the header (status), then the lists' entries
 * for a chunk they can take; counts[i]: the fallback's items (0 for a
 * listed chunk). */
__global__ void bl_plan_kernel(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                               const size_t *dst_caps, unsigned long long *counts, int *status,
                               bl_chunk *chunks, unsigned long long *ctr, unsigned long long bound,
                               unsigned long long out_slab)
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
    bl_chunk C;
    C.code = C.copy = C.blk = C.slab = 0;
    C.layout = ~0ull;
    C.listed = 0;
    C.fail = 0;
    unsigned long long items = st == OC_OK ? bl_items(&h) : 0;
    if (st == OC_OK && i <= 0xFFFFFFFFu) {
        int memcpyed = (h.flags & OC_BLOSC_F_MEMCPYED) != 0, filt = bl_filtered(&h);
        int l = bl_list_of(&h);
        if (memcpyed) {
            C.listed = bl_take(ctr + BL_CTR_COPY, items, bound, &C.copy);
        } else if (h.nblocks == 0) {
            C.listed = 1;
        } else if (l >= 0 && !(filt && h.blocksize > BL_SLAB_MAX)) {
            /* (a filtered block over BL_SLAB_MAX stays with the fallback,
             * which says CHUNK_TOO_LARGE, as it always has) */
            C.listed =
                bl_take(ctr + l, items, bound, &C.code) && bl_take(ctr + BL_CTR_COPY, items, bound, &C.copy);
            if (C.listed && filt)
                C.listed = bl_take(ctr + BL_CTR_BLK, h.nblocks, bound, &C.blk) &&
                           bl_take(ctr + BL_CTR_SLAB, bl_align_d(h.nbytes), out_slab, &C.slab);
        }
    }
    chunks[i] = C;
    counts[i] = C.listed ? 0 : items;
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
        size_t c = oc_chunk_of(prefix, n, it);
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
        size_t c = oc_chunk_of(prefix, n, it);
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

/* ---- the lists' kernels ---------------------------------------------------- */

/* List, a CTA per listed chunk (grid-stride): walks the csize words of its
 * blocks (a thread per block, the checks of oc_blosc_find_stream in its
 * order) and writes an entry per stream: a stored stream into the copy
 * list, the others into the codec's list, each to decode into the output
 * or, for a filtered chunk, into the chunk's part of the slab; a filtered
 * chunk also gets a block entry per block.  A block whose walk fails
 * records its status; the lowest such block's is the chunk's (what the CPU
 * engine's layout check says first). */
__global__ void __launch_bounds__(128)
    bl_list_kernel(size_t n, const void *const *src_ptrs, void *const *dst_ptrs, const int *status,
                   bl_chunk *chunks, bl_list l0, bl_list l1, bl_list l2, bl_copy *copies, bl_blk *blks,
                   uint8_t *slab)
{
    for (size_t c = blockIdx.x; c < n; c += gridDim.x) {
        bl_chunk *C = &chunks[c];
        if (status[c] != OC_OK || !C->listed)
            continue;
        const uint8_t *src = (const uint8_t *)src_ptrs[c];
        uint8_t *dst = (uint8_t *)dst_ptrs[c];
        oc_blosc_header h;
        oc_blosc_parse_header(src, ((size_t)oc_load_le32(src + 12)), &h); /* checked by the plan */
        if (h.flags & OC_BLOSC_F_MEMCPYED) {
            size_t pieces = (h.nbytes + BL_MEMCPY_ITEM - 1) / BL_MEMCPY_ITEM;
            for (size_t k = threadIdx.x; k < pieces; k += blockDim.x) {
                size_t off = k * BL_MEMCPY_ITEM;
                bl_copy *e = &copies[C->copy + k];
                e->src = src + OC_BLOSC_HEADER_SIZE + off;
                e->dst = dst + off;
                e->n = h.nbytes - off < BL_MEMCPY_ITEM ? h.nbytes - off : BL_MEMCPY_ITEM;
            }
            continue;
        }
        int filt = bl_filtered(&h), li = bl_list_of(&h);
        bl_list L = li == 0 ? l0 : li == 1 ? l1 : l2;
        uint8_t *out = filt ? slab + C->slab : dst;
        uint32_t table_end = OC_BLOSC_HEADER_SIZE + 4u * h.nblocks;
        for (uint32_t b = threadIdx.x; b < h.nblocks; b += blockDim.x) {
            uint32_t bsz = oc_blosc_block_size(&h, b), ns = oc_blosc_block_streams(&h, b), dsize = bsz / ns;
            bl_blk *eb = filt ? &blks[C->blk + b] : nullptr;
            int words = 0; /* the unfilter reads this block by columns: stored streams stay put */
            if (filt) {
                eb->slab = out + (size_t)b * h.blocksize;
                eb->dst = dst + (size_t)b * h.blocksize;
                eb->bsz = bsz;
                eb->t = h.typesize;
                eb->filter = (uint16_t)oc_blosc_block_filter(&h, bsz);
                words =
                    bl_unfilter_words(eb->filter, h.typesize, bsz, eb->dst) && (ns == 1 || ns == h.typesize);
                for (uint32_t j = 0; j < BL_PARTS; j++)
                    eb->part[j] = eb->slab + (size_t)j * (bsz / h.typesize);
            }
            uint32_t pos = oc_load_le32(src + OC_BLOSC_HEADER_SIZE + 4u * b);
            oc_status bad = OC_OK;
            if (pos < table_end || pos > h.cbytes)
                bad = OC_ERR_CORRUPT;
            for (uint32_t k = 0; bad == OC_OK && k < ns; k++) {
                if (h.cbytes - pos < 4) {
                    bad = OC_ERR_TRUNCATED;
                    break;
                }
                uint32_t cs = oc_load_le32(src + pos);
                pos += 4;
                if (cs > 0x7FFFFFFFu || cs == 0)
                    bad = OC_ERR_CORRUPT;
                else if (cs > h.cbytes - pos)
                    bad = OC_ERR_TRUNCATED;
                if (bad != OC_OK)
                    break;
                size_t j = (size_t)b * h.nsplits + k, o = (size_t)b * h.blocksize + (size_t)k * dsize;
                if (cs == dsize && words) { /* stored: the unfilter reads it in place */
                    if (ns == 1)
                        for (uint32_t q = 0; q < h.typesize; q++)
                            eb->part[q] = src + pos + (size_t)q * (bsz / h.typesize);
                    else
                        eb->part[k] = src + pos;
                } else if (cs == dsize) {
                    bl_copy *e = &copies[C->copy + j];
                    e->src = src + pos;
                    e->dst = out + o;
                    e->n = dsize;
                } else {
                    j += C->code;
                    L.src[j] = src + pos;
                    L.srcn[j] = cs;
                    L.dst[j] = out + o;
                    L.cap[j] = dsize;
                    L.chunk[j] = (uint32_t)c;
                }
                pos += cs;
            }
            if (bad != OC_OK)
                atomicMin(&C->layout, ((unsigned long long)b << 32) | (unsigned)bad);
        }
    }
}

/* Copy list: a CTA per entry (stored streams, memcpyed chunks' pieces). */
__global__ void __launch_bounds__(256)
    bl_copy_kernel(const bl_copy *copies, const unsigned long long *ctr, unsigned long long bound)
{
    unsigned long long m = ctr[BL_CTR_COPY] < bound ? ctr[BL_CTR_COPY] : bound;
    for (unsigned long long i = blockIdx.x; i < m; i += gridDim.x) {
        bl_copy e = copies[i];
        if (e.n)
            bl_copy_cta(e.dst, e.src, e.n);
    }
}

/* Bit unshuffle of el elements of T bytes (shuffle.h's layout: bit rows
 * 8j..8j+7 are byte column j, e.part[j]), a lane per Q consecutive groups
 * of 8 elements (Q = 2: one 16-bit load per bit row, half the load
 * requests of byte loads; dev bench blosc_unshuffle: 0.82 ms a GiB
 * against 1.10 at typesize 8), a warp
 * per 32 lanes' groups: a group's 8 elements built in registers (byte j
 * of element r is bit row 8j..8j+7's column, transposed), staged in
 * shared memory (32 x 9 words of W a warp, the ninth against bank
 * conflicts) and stored by the warp, a group of the Q in turn, as whole
 * groups of consecutive elements (32 or 64 bytes: whole sectors; a lane
 * storing its own group's 8 words wrote 32 sectors of 8 bytes per
 * instruction).
 * A warp's slice of `stage` is BL_STAGE_WORDS 8-byte words whatever W: the
 * warps of a CTA move on to the next block entry without a barrier, so one
 * warp may unshuffle a typesize-4 block while another still does a
 * typesize-8 one, and slices sized by W overlapped (warp 2's of 4 bytes
 * was warp 1's of 8: the intermittent failure of session 6's call B,
 * bench/gpu/blosc/NOTES.md). */
#define BL_STAGE_WORDS (32 * 9)
template <typename W, int T, int Q, typename U>
__device__ static __forceinline__ void bl_bitunshuffle_words(uint8_t *dst, const bl_blk &e, size_t el,
                                                             uint64_t *stage)
{
    size_t row = el / 8, rw = row / Q; /* Q = 2: row even (bl_bitunshuffle_block) */
    unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    W *st = (W *)(stage + warp * BL_STAGE_WORDS); /* 8-byte words: the same slice for every W */
    W *out = (W *)dst;
    for (size_t u0 = (size_t)warp * 32; u0 < rw; u0 += (size_t)nwarps * 32) { /* warp-uniform */
        size_t u = u0 + lane; /* word column: groups Q u .. Q u + Q - 1 */
        W w[Q][8];
#pragma unroll
        for (int q = 0; q < Q; q++)
#pragma unroll
            for (int r = 0; r < 8; r++)
                w[q][r] = 0;
        if (u < rw) {
#pragma unroll
            for (int j = 0; j < T; j++) {
                const uint8_t *pj = e.part[j];
                uint32_t v[8];
                if (sizeof(U) == 2 && ((uintptr_t)pj & 1)) { /* a stored stream at an odd address */
#pragma unroll
                    for (int b = 0; b < 8; b++)
                        v[b] = (uint32_t)pj[(size_t)b * row + 2 * u] |
                               (uint32_t)pj[(size_t)b * row + 2 * u + 1] << 8;
                } else {
#pragma unroll
                    for (int b = 0; b < 8; b++)
                        v[b] = ((const U *)(pj + (size_t)b * row))[u];
                }
#pragma unroll
                for (int q = 0; q < Q; q++) {
                    uint64_t x = 0;
#pragma unroll
                    for (int b = 0; b < 8; b++)
                        x |= (uint64_t)((v[b] >> (8 * q)) & 0xFF) << (8 * b);
                    x = oc_transpose8x8(x);
#pragma unroll
                    for (int r = 0; r < 8; r++)
                        w[q][r] |= (W)((x >> (8 * r)) & 0xFF) << (8 * j);
                }
            }
        }
        size_t ne = (rw - u0 < 32 ? rw - u0 : 32) * 8; /* elements of this warp's lanes, a group each */
#pragma unroll
        for (int q = 0; q < Q; q++) { /* lane l's group q: group Q (u0 + l) + q */
#pragma unroll
            for (int r = 0; r < 8; r++)
                st[lane * 9 + r] = w[q][r];
            __syncwarp();
            for (size_t k = lane; k < ne; k += 32)
                out[((size_t)Q * (u0 + (k >> 3)) + q) * 8 + (k & 7)] = st[(k >> 3) * 9 + (k & 7)];
            __syncwarp();
        }
    }
}

/* The bit unshuffle of a typesize-4 or -8 block (bl_unfilter_words): two
 * groups a lane (16-bit loads from the columns at even addresses, byte
 * pairs from a stored stream at an odd one) when the rows are of an even
 * number of bytes, else a group a lane. */
template <typename W, int T>
__device__ static __forceinline__ void bl_bitunshuffle_block(uint8_t *dst, const bl_blk &e, size_t el,
                                                             uint64_t *stage)
{
    if ((el / 8) % 2 == 0)
        bl_bitunshuffle_words<W, T, 2, uint16_t>(dst, e, el, stage);
    else
        bl_bitunshuffle_words<W, T, 1, uint8_t>(dst, e, el, stage);
}

/* Unfilter: a CTA per block entry, slab -> output (the filter undone, the
 * trailing bytes and unfiltered blocks copied), in two launches over the
 * entries: BIT 1 takes the bit unshuffles of bl_bitunshuffle_block (80
 * registers: 3 CTAs an SM), BIT 0 all other entries, so the byte unshuffle
 * and the copies keep their occupancy (one kernel for both cost the byte
 * unshuffle of typesize 8 1.07 -> 1.33 ms a GiB under ncu, call A of
 * session 7). */
template <int BIT>
__global__ void __launch_bounds__(256)
    bl_unfilter_kernel(const bl_blk *blks, const unsigned long long *ctr, unsigned long long bound)
{
    __shared__ uint64_t stage[BIT ? (256 / 32) * BL_STAGE_WORDS : 1]; /* bl_bitunshuffle_words' staging */
    unsigned long long m = ctr[BL_CTR_BLK] < bound ? ctr[BL_CTR_BLK] : bound;
    for (unsigned long long i = blockIdx.x; i < m; i += gridDim.x) {
        bl_blk e = blks[i];
        if (e.bsz == 0)
            continue; /* an entry of a chunk that did not take the lists */
        size_t t = e.t, el = e.bsz / t, done = 0;
        int words = bl_unfilter_words(e.filter, (uint32_t)t, e.bsz, e.dst);
        if ((words && e.filter == 2) != BIT)
            continue; /* the other launch's */
        if (BIT) {
            if (t == 4)
                bl_bitunshuffle_block<uint32_t, 4>(e.dst, e, el, stage);
            else
                bl_bitunshuffle_block<uint64_t, 8>(e.dst, e, el, stage);
            done = el * t;
            if (done < e.bsz) /* a short last block (one stream: part[0] is its start) */
                bl_copy_cta(e.dst + done, e.part[0] + done, e.bsz - done);
            continue;
        }
        if (words) { /* byte unshuffle by columns (e.part) */
            if (t == 4) {
                for (size_t k = threadIdx.x; k < el; k += blockDim.x)
                    ((uint32_t *)e.dst)[k] = (uint32_t)e.part[0][k] | (uint32_t)e.part[1][k] << 8 |
                                             (uint32_t)e.part[2][k] << 16 | (uint32_t)e.part[3][k] << 24;
            } else {
                for (size_t k = threadIdx.x; k < el; k += blockDim.x) {
                    uint64_t v = 0;
#pragma unroll
                    for (int j = 0; j < 8; j++)
                        v |= (uint64_t)e.part[j][k] << (8 * j);
                    ((uint64_t *)e.dst)[k] = v;
                }
            }
            done = el * t;
            if (done < e.bsz) /* a short last block (one stream: part[0] is its start) */
                bl_copy_cta(e.dst + done, e.part[0] + done, e.bsz - done);
            continue;
        }
        if (e.filter == 1) {
            for (size_t k = threadIdx.x; k < el; k += blockDim.x)
                oc_unshuffle_bytes(e.dst, e.slab, el, (uint32_t)t, k, k + 1);
            done = el * t;
        } else if (e.filter == 2 && el % 8 == 0 && el > 0) {
            for (size_t g = threadIdx.x; g < el / 8; g += blockDim.x)
                oc_bitunshuffle_groups(e.dst, e.slab, el, (uint32_t)t, g, g + 1);
            done = el * t;
        }
        if (done < e.bsz)
            bl_copy_cta(e.dst + done, e.slab + done, e.bsz - done);
    }
}

/* Merge: a thread per entry of the codec lists; an entry that did not
 * decode to exactly its stream's size fails its chunk. */
__global__ void bl_merge_kernel(bl_list l0, bl_list l1, bl_list l2, bl_chunk *chunks,
                                const unsigned long long *ctr, unsigned long long bound)
{
    for (int l = 0; l < BL_NCODECS; l++) {
        bl_list L = l == 0 ? l0 : l == 1 ? l1 : l2;
        unsigned long long m = ctr[l] < bound ? ctr[l] : bound;
        for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < m;
             i += (unsigned long long)gridDim.x * blockDim.x)
            if (L.src[i] != nullptr && (L.st[i] != OC_OK || L.got[i] != L.cap[i]))
                chunks[L.chunk[i]].fail = 1;
    }
}

/* Finish, a thread per chunk: a listed chunk's status is its first bad
 * block's, else CORRUPT when a stream failed; the fallback's chunks have
 * theirs in status[]. */
__global__ void bl_finish_kernel(size_t n, const void *const *src_ptrs, const int *status,
                                 const bl_chunk *chunks, size_t *dst_sizes, oc_status *statuses)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int st = status[i];
    if (st == OC_OK && chunks[i].listed) {
        if (chunks[i].layout != ~0ull)
            st = (int)(unsigned)(chunks[i].layout & 0xFFFFFFFFu);
        else if (chunks[i].fail)
            st = OC_ERR_CORRUPT;
    }
    if (dst_sizes)
        dst_sizes[i] = st == OC_OK ? oc_load_le32((const uint8_t *)src_ptrs[i] + 4) : 0;
    if (statuses)
        statuses[i] = (oc_status)st;
}

static size_t bl_decompress_scratch(const oc_gpu_config *cfg, size_t n)
{
    return bl_plan_layout(n, cfg->max_capacity).total;
}

static unsigned bl_grid(unsigned long long items, unsigned max)
{
    return items == 0 ? 1u : items < max ? (unsigned)items : max;
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
    bl_chunk *chunks = (bl_chunk *)(s + L.chunks);
    unsigned long long *ctr = (unsigned long long *)(s + L.ctr);
    bl_copy *copies = (bl_copy *)(s + L.copies);
    bl_blk *blks = (bl_blk *)(s + L.blks);
    bl_list lists[BL_NCODECS];
    for (int l = 0; l < BL_NCODECS; l++)
        lists[l] = bl_list_at(s, &L, l);
    unsigned long long B = L.bound;
    unsigned g = (unsigned)((n + 255) / 256);
    /* counters and every list entry zero: an entry nobody writes is a no-op */
    if (cudaMemsetAsync(s + L.ctr, 0, L.inner - L.ctr, stream) != cudaSuccess)
        return OC_ERR_CUDA;
    bl_plan_kernel<<<g, 256, 0, stream>>>(n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, prefix, status,
                                          chunks, ctr, B, L.out_slab);
    bl_list_kernel<<<bl_grid(n, 65535u), 128, 0, stream>>>(n, src_dev, dst_dev, status, chunks, lists[0],
                                                           lists[1], lists[2], copies, blks, s + L.slab);
    /* the inner codecs' library launches over their lists, `bound` entries each */
    for (int l = 0; l < BL_NCODECS; l++) {
        const oc_gpu_codec *c = bl_codec(l);
        if (c == NULL || c->decompress == NULL)
            return OC_ERR_INTERNAL;
        oc_gpu_config ic = L.icfg;
        ic.algorithm = bl_codec_algo[l];
        size_t want = c->decompress_scratch ? c->decompress_scratch(&ic, B) : 0;
        want = want < L.inner_size ? want : L.inner_size;
        oc_status st = c->decompress(want ? s + L.inner : NULL, want, &ic, B, lists[l].src, lists[l].srcn,
                                     lists[l].dst, lists[l].cap, lists[l].got, lists[l].st, stream);
        if (st != OC_OK)
            return st;
    }
    bl_copy_kernel<<<bl_grid(B, BL_KERNEL_GRID), 256, 0, stream>>>(copies, ctr, B);
    bl_unfilter_kernel<0><<<bl_grid(B, BL_KERNEL_GRID), 256, 0, stream>>>(blks, ctr, B);
    bl_unfilter_kernel<1><<<bl_grid(B, BL_KERNEL_GRID), 256, 0, stream>>>(blks, ctr, B);
    bl_merge_kernel<<<bl_grid((B + 255) / 256, BL_KERNEL_GRID), 256, 0, stream>>>(lists[0], lists[1],
                                                                                  lists[2], chunks, ctr, B);
    /* the fallback: the chunks the lists did not take */
    bl_scan_kernel<<<1, 1024, 0, stream>>>(n, prefix);
    bl_decode_kernel<<<BL_DECODE_BLOCKS, 64, 0, stream>>>(n, src_dev, dst_dev, prefix, status, s + L.inner);
    bl_unshuffle_kernel<<<(unsigned)L.nslabs, 1024, 0, stream>>>(n, src_dev, dst_dev, prefix, status,
                                                                 s + L.slab, L.slab_size);
    bl_finish_kernel<<<g, 256, 0, stream>>>(n, src_dev, status, chunks, dst_sizes_dev, statuses_dev);
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

/* Decoding here, compression in blosc_enc_kernels.cu (lz4, lz4hc, snappy,
 * zlib and zstd chunks; the API layer host-stages blosclz ones through
 * libblosc, and the size query). */
extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_blosc = {
    oc_blosc_gpu_compress_scratch, oc_blosc_gpu_compress, bl_decompress_scratch, bl_decompress, NULL};
