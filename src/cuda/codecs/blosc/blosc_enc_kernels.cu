/*
 * blosc_enc_kernels.cu - Blosc 1.x chunks (c-blosc's format, which
 * libblosc, numcodecs and zarr v2 read) written on the GPU, parallel inside
 * each chunk: every stream of every block of every chunk of the batch
 * becomes one entry of ONE plain batch for the inner codec's own library
 * launch (the LZ4, Snappy, Deflate (zlib streams) or Zstd GPU compressor, reached through the
 * algorithm table), the decoder's lists (blosc_kernels.cu) run backwards.
 * What c-blosc decides (block size, split streams, flags, when a stream or
 * the chunk is stored) is src/common/blosc_encode.h, shared with the host
 * tests that hold it to libblosc.
 *
 *   1. plan, a thread per chunk: the chunk's plan (oc_blosc_enc_plan_chunk)
 *      and status; it reserves with atomic counters its stream entries, a
 *      slot per stream for the compressed bytes (the stream's size: c-blosc
 *      gives a compressor no more room than that) and, for a filtered
 *      chunk, its size in the filter slab;
 *   2. entries, a CTA per chunk: each stream's entry in the codec's list
 *      (source: the chunk's bytes or its filtered copy; room: its size);
 *   3. filter, a CTA per stream: the stream's byte-shuffled or bitshuffled
 *      bytes (oc_blosc_enc_filter_stream: stream k of a split block is
 *      column k, so streams are filtered independently);
 *   4. the inner codec's launch over the whole list (entries nobody wrote
 *      are zero: a NULL destination, answered with a status and no access);
 *   5. finalize, a thread per chunk: a stream that did not shrink (did not
 *      fit its room, or came out at its size) is stored, as c-blosc stores
 *      it; if the streams fit in min(capacity, nbytes + 16) the header, the
 *      block starts and the csize words are written, else the chunk is
 *      memcpyed (flag 0x02, the bytes after the header) when it fits, else
 *      OUTPUT_TOO_SMALL; level -1 (c-blosc's clevel 0) and chunks under
 *      128 bytes are memcpyed from the start, as c-blosc does;
 *   6. gather, a CTA per stream: its bytes to their place in the chunk.
 * Nothing synchronises; statuses and sizes are valid when the stream gets
 * there.
 *
 * Scratch: with the sizes on the host (cfg->src_sizes_host), exactly what
 * the batch needs: its streams' entries, slots (~ its size) and filter
 * slab (~ the filtered chunks' size), at most BE_POOL_MAX bytes each; with
 * device-only sizes, BE_UNKNOWN_BYTES a chunk.  A chunk whose share does
 * not fit gets CHUNK_TOO_LARGE (the other chunks are written).
 *
 * Levels: lz4 runs the GPU LZ4 compressor's greedy matching (c-blosc runs
 * LZ4 with an acceleration of 10 - clevel), lz4hc its lazy matching,
 * zstd the GPU Zstd encoder at c-blosc's zstd level (2 clevel - 1, 22 at
 * clevel 9) but at most 5 for clevels up to 5: our levels >= 6 are the
 * serial lazy variant (lane 0, depth 32), and our level 5 (windowed, 32
 * lanes, depth 16) already gives what c-blosc's libzstd 7-9 gives on
 * Blosc's streams (TPC-H columns, shuffled and bitshuffled 256 KiB blocks:
 * ratios within 1% of level 9, l_orderkey shuffled 3% under) at 1.9x
 * level 9's speed (H100, 256 KiB chunks: bench/gpu/blosc/NOTES.md).
 */
#include "../../runtime/gpu_codec.h"
#include "blosc_copy.cuh"
#include "blosc_enc_gpu.h"
#include "blosc_list.cuh"

#include "../../../common/algo_table.h"
#include "../../../common/blosc_encode.h"

#include <string.h>

#define BE_POOL_MAX ((uint64_t)4 << 30)      /* slots, and the filter slab, at most */
#define BE_UNKNOWN_BYTES ((uint64_t)4 << 20) /* a chunk's share when the host does not know its size */
#define BE_ENTRIES_MAX ((uint64_t)1 << 24)   /* stream entries at most */
#define BE_GRID 4096u                        /* persistent grids of the per-stream kernels */
#define BE_NONE 0xFFFFFFFFu                  /* an entry of no chunk */

enum { BE_CTR_ENT, BE_CTR_SLOT, BE_CTR_SLAB, BE_NCTR };

/* Per chunk: the plan kernel's, then the finalize kernel's. */
struct be_chunk {
    oc_blosc_enc_plan p;
    unsigned long long ent, slot, slab; /* first entry; offsets in the slot pool and the filter slab */
    int status;
    int memcpyed; /* finalize: the chunk is written memcpyed */
};

struct be_layout {
    size_t chunks, ctr, list, slots, slab, inner, total;
    uint64_t entries, slot_bytes, slab_bytes;
    size_t inner_size;
    oc_gpu_config icfg; /* the inner codec's launch config */
    const oc_gpu_codec *codec;
};

/* The launch's options (host side, from cfg->options). */
struct be_opts {
    int codec, level, filter;
    uint32_t typesize, blocksize;
};

static size_t be_align(size_t v)
{
    return (v + 255) & ~(size_t)255;
}

static be_opts be_opts_of(const oc_gpu_config *cfg)
{
    be_opts o;
    const oc_codec_options *op = cfg->options;
    o.codec = op ? op->blosc_codec : OC_BLOSC_LZ4;
    o.filter = op ? op->filter : OC_FILTER_NONE;
    o.typesize = op && op->typesize ? op->typesize : 1;
    o.blocksize = op ? op->blosc_blocksize : 0;
    o.level = cfg->level;
    return o;
}

/* The inner codec's algorithm and level for c-blosc's clevel. */
static oc_algorithm be_inner(const be_opts *o, int *level)
{
    int clevel = o->level < 0 ? 0 : o->level;
    switch (o->codec) {
    case OC_BLOSC_LZ4:
        *level = 1;
        return OC_ALGO_LZ4;
    case OC_BLOSC_LZ4HC:
        *level = clevel < 2 ? 2 : clevel;
        return OC_ALGO_LZ4;
    case OC_BLOSC_SNAPPY:
        *level = 0;
        return OC_ALGO_SNAPPY;
    case OC_BLOSC_ZLIB: /* c-blosc: compress2 at clevel; ours: the GPU Deflate encoder's zlib streams */
        *level = clevel < 1 ? 1 : clevel;
        return OC_ALGO_ZLIB;
    case OC_BLOSC_ZSTD:
        *level = clevel < 9 ? 2 * clevel - 1 : 22;
        if (*level < 1)
            *level = 1;
        if (clevel <= 5 && *level > 5) /* clevel 4-5: libzstd 7-9's ratio at our level 5 (file comment) */
            *level = 5;
        return OC_ALGO_ZSTD;
    default:
        *level = 0;
        return OC_ALGO_NONE;
    }
}

static uint64_t be_min(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static be_layout be_plan_layout(const oc_gpu_config *cfg, size_t n)
{
    be_layout L;
    memset(&L, 0, sizeof L);
    be_opts o = be_opts_of(cfg);
    L.entries = L.slot_bytes = L.slab_bytes = 0;
    if (cfg->src_sizes_host) {
        for (size_t i = 0; i < n; i++) {
            oc_blosc_enc_plan p;
            memset(&p, 0, sizeof p);
            if (oc_blosc_enc_plan_chunk(o.codec, o.level, o.filter, o.typesize, cfg->src_sizes_host[i],
                                        o.blocksize, &p) != OC_OK)
                continue;
            L.entries += p.nstreams;
            if (!(p.flags & OC_BLOSC_F_MEMCPYED))
                L.slot_bytes += oc_blosc_enc_slot_bytes(&p);
            if (p.filtered)
                L.slab_bytes += be_align(p.nbytes);
        }
    } else {
        oc_blosc_enc_plan p;
        memset(&p, 0, sizeof p);
        oc_blosc_enc_plan_chunk(o.codec, o.level, o.filter, o.typesize, BE_UNKNOWN_BYTES, o.blocksize, &p);
        L.entries = (uint64_t)n * (p.nstreams + 2);
        L.slot_bytes = (p.flags & OC_BLOSC_F_MEMCPYED) ? 0 : (uint64_t)n * oc_blosc_enc_slot_bytes(&p);
        L.slab_bytes = p.filtered ? (uint64_t)n * BE_UNKNOWN_BYTES : 0;
    }
    L.entries = be_min(L.entries, BE_ENTRIES_MAX);
    L.slot_bytes = be_min(L.slot_bytes, BE_POOL_MAX);
    L.slab_bytes = be_min(L.slab_bytes, BE_POOL_MAX);
    if (L.entries == 0)
        L.entries = 1;
    int level = 0;
    oc_algorithm a = be_inner(&o, &level);
    const oc_algo_desc *d = a != OC_ALGO_NONE ? oc_algo(a) : NULL;
    L.codec = d ? d->gpu : NULL;
    L.icfg.algorithm = a;
    L.icfg.level = level;
    L.icfg.max_capacity = (size_t)-1;
    L.inner_size = L.codec && L.codec->compress_scratch ? L.codec->compress_scratch(&L.icfg, L.entries) : 0;
    L.chunks = 0;
    L.ctr = L.chunks + be_align(n * sizeof(be_chunk));
    L.list = L.ctr + 256;
    L.slots = L.list + be_align(bl_list_bytes(L.entries, 1));
    L.slab = L.slots + be_align(L.slot_bytes);
    L.inner = L.slab + be_align(L.slab_bytes);
    L.total = L.inner + be_align(L.inner_size);
    return L;
}

/* Takes k units of a pool (counter *ctr of `bound`): 1 when they fit. */
__device__ static int be_take(unsigned long long *ctr, unsigned long long k, unsigned long long bound,
                              unsigned long long *base)
{
    *base = 0;
    if (k == 0)
        return 1;
    *base = atomicAdd(ctr, k);
    return *base + k <= bound;
}

/* 1. Plan, a thread per chunk. */
__global__ void be_plan_kernel(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                               const size_t *dst_caps, be_chunk *chunks, unsigned long long *ctr,
                               unsigned long long entries, unsigned long long slot_bytes,
                               unsigned long long slab_bytes, be_opts o)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    be_chunk C;
    memset(&C, 0, sizeof C);
    size_t sn = src_sizes[i], cap = dst_caps[i];
    oc_status st = OC_OK;
    if ((src[i] == nullptr && sn != 0) || dst[i] == nullptr)
        st = OC_ERR_INVALID_ARGUMENT;
    else if (i >= BE_NONE)
        st = OC_ERR_CHUNK_TOO_LARGE;
    else
        st = oc_blosc_enc_plan_chunk(o.codec, o.level, o.filter, o.typesize, sn, o.blocksize, &C.p);
    if (st == OC_OK && (cap < OC_BLOSC_HEADER_SIZE || ((C.p.flags & OC_BLOSC_F_MEMCPYED) &&
                                                       cap < (size_t)C.p.nbytes + OC_BLOSC_HEADER_SIZE)))
        st = OC_ERR_OUTPUT_TOO_SMALL;
    if (st == OC_OK) {
        int ok = be_take(ctr + BE_CTR_ENT, C.p.nstreams, entries, &C.ent);
        if (ok && !(C.p.flags & OC_BLOSC_F_MEMCPYED))
            ok = be_take(ctr + BE_CTR_SLOT, oc_blosc_enc_slot_bytes(&C.p), slot_bytes, &C.slot);
        if (ok && C.p.filtered)
            ok = be_take(ctr + BE_CTR_SLAB, (C.p.nbytes + 255ull) & ~255ull, slab_bytes, &C.slab);
        if (!ok)
            st = OC_ERR_CHUNK_TOO_LARGE;
    }
    C.status = (int)st;
    chunks[i] = C;
}

/* 2. Entries, a CTA per chunk, a thread per stream. */
__global__ void __launch_bounds__(128)
    be_entry_kernel(size_t n, const void *const *src_ptrs, const be_chunk *chunks, bl_list L, uint8_t *slots,
                    uint8_t *slab)
{
    for (size_t c = blockIdx.x; c < n; c += gridDim.x) {
        const be_chunk *C = &chunks[c];
        if (C->status != OC_OK)
            continue;
        const uint8_t *src = (const uint8_t *)src_ptrs[c];
        int copy_only = (C->p.flags & OC_BLOSC_F_MEMCPYED) != 0;
        for (uint32_t j = threadIdx.x; j < C->p.nstreams; j += blockDim.x) {
            size_t e = C->ent + j;
            L.chunk[e] = (uint32_t)c;
            L.j[e] = j;
            if (copy_only)
                continue; /* no codec work: the gather copies the chunk */
            oc_blosc_enc_stream s;
            oc_blosc_enc_stream_at(&C->p, j, &s);
            L.src[e] =
                C->p.filtered ? (const void *)(slab + C->slab + s.in_off) : (const void *)(src + s.in_off);
            L.srcn[e] = s.len;
            L.dst[e] = slots + C->slot + oc_blosc_enc_slot_at(&C->p, j);
            L.cap[e] = s.len; /* c-blosc's room: a stream that does not shrink is stored */
        }
    }
}

/* 3. Filter, a CTA per stream of a filtered chunk. */
__global__ void __launch_bounds__(256)
    be_filter_kernel(const void *const *src_ptrs, const be_chunk *chunks, bl_list L,
                     const unsigned long long *ctr, unsigned long long entries, uint8_t *slab)
{
    unsigned long long m = ctr[BE_CTR_ENT] < entries ? ctr[BE_CTR_ENT] : entries;
    for (unsigned long long e = blockIdx.x; e < m; e += gridDim.x) {
        uint32_t c = L.chunk[e];
        if (c == BE_NONE)
            continue;
        const be_chunk *C = &chunks[c];
        if (C->status != OC_OK || !C->p.filtered)
            continue;
        oc_blosc_enc_stream s;
        oc_blosc_enc_stream_at(&C->p, L.j[e], &s);
        const uint8_t *blk = (const uint8_t *)src_ptrs[c] + (size_t)s.block * C->p.blocksize;
        oc_blosc_enc_filter_stream(&C->p, &s, blk, slab + C->slab + s.in_off, threadIdx.x, blockDim.x);
    }
}

/* 5. Finalize, a thread per chunk: stored streams, the chunk's form, its
 * header and tables. */
__global__ void be_finalize_kernel(size_t n, void *const *dst_ptrs, const size_t *dst_caps, be_chunk *chunks,
                                   bl_list L)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    be_chunk *C = &chunks[i];
    if (C->status != OC_OK)
        return;
    uint8_t *dst = (uint8_t *)dst_ptrs[i];
    size_t cap = dst_caps[i];
    const oc_blosc_enc_plan *p = &C->p;
    uint64_t whole = (uint64_t)p->nbytes + OC_BLOSC_HEADER_SIZE;
    int memcpyed = (p->flags & OC_BLOSC_F_MEMCPYED) != 0;
    if (!memcpyed) {
        uint32_t *fin = L.fin + C->ent;
        for (uint32_t j = 0; j < p->nstreams; j++) {
            size_t e = C->ent + j, len = L.srcn[e];
            fin[j] = (uint32_t)(L.st[e] == OC_OK && L.got[e] > 0 && L.got[e] < len ? L.got[e] : len);
        }
        uint64_t total = oc_blosc_enc_total(p, fin);
        if (total <= (cap < whole ? cap : whole)) {
            oc_blosc_enc_write_tables(p, fin, dst, L.off + C->ent);
            oc_blosc_put_header(dst, p->flags, p->typesize, p->nbytes, p->blocksize, (uint32_t)total);
            C->memcpyed = 0;
            return;
        }
        memcpyed = 1;
    }
    if (cap < whole) {
        C->status = OC_ERR_OUTPUT_TOO_SMALL;
        return;
    }
    oc_blosc_put_header(dst, (uint8_t)(p->flags | OC_BLOSC_F_MEMCPYED), p->typesize, p->nbytes, p->blocksize,
                        (uint32_t)whole);
    C->memcpyed = memcpyed;
}

/* 6. Gather, a CTA per stream: compressed bytes from the slot, stored ones
 * from the (filtered) input, a memcpyed chunk's from the plain input. */
__global__ void __launch_bounds__(256)
    be_gather_kernel(const void *const *src_ptrs, void *const *dst_ptrs, const be_chunk *chunks, bl_list L,
                     const unsigned long long *ctr, unsigned long long entries, const uint8_t *slab)
{
    unsigned long long m = ctr[BE_CTR_ENT] < entries ? ctr[BE_CTR_ENT] : entries;
    for (unsigned long long e = blockIdx.x; e < m; e += gridDim.x) {
        uint32_t c = L.chunk[e];
        if (c == BE_NONE)
            continue;
        const be_chunk *C = &chunks[c];
        if (C->status != OC_OK)
            continue;
        oc_blosc_enc_stream s;
        oc_blosc_enc_stream_at(&C->p, L.j[e], &s);
        const uint8_t *src = (const uint8_t *)src_ptrs[c];
        uint8_t *dst = (uint8_t *)dst_ptrs[c];
        if (C->memcpyed)
            bl_copy_cta(dst + OC_BLOSC_HEADER_SIZE + s.in_off, src + s.in_off, s.len);
        else if (L.fin[e] == s.len)
            bl_copy_cta(dst + L.off[e], C->p.filtered ? slab + C->slab + s.in_off : src + s.in_off, s.len);
        else
            bl_copy_cta(dst + L.off[e], (const uint8_t *)L.dst[e], L.fin[e]);
    }
}

/* 7. Results, a thread per chunk. */
__global__ void be_finish_kernel(size_t n, void *const *dst_ptrs, const be_chunk *chunks, size_t *dst_sizes,
                                 oc_status *statuses)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int st = chunks[i].status;
    if (dst_sizes)
        dst_sizes[i] = st == OC_OK ? oc_load_le32((const uint8_t *)dst_ptrs[i] + 12) : 0;
    if (statuses)
        statuses[i] = (oc_status)st;
}

extern "C" size_t oc_blosc_gpu_compress_scratch(const oc_gpu_config *cfg, size_t n)
{
    return be_plan_layout(cfg, n).total;
}

static unsigned be_grid(unsigned long long items, unsigned max)
{
    return items == 0 ? 1u : items < max ? (unsigned)items : max;
}

extern "C" oc_status oc_blosc_gpu_compress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                           size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                           void *const *dst_dev, const size_t *dst_caps_dev,
                                           size_t *dst_sizes_dev, oc_status *statuses_dev,
                                           cudaStream_t stream)
{
    if (n == 0)
        return OC_OK;
    be_opts o = be_opts_of(cfg);
    if (!oc_blosc_gpu_encodes(o.codec))
        return OC_ERR_UNSUPPORTED;
    be_layout L = be_plan_layout(cfg, n);
    if (!src_dev || !src_sizes_dev || !dst_dev || !dst_caps_dev || !scratch_dev || scratch_size < L.total)
        return OC_ERR_INVALID_ARGUMENT;
    if (L.codec == NULL || L.codec->compress == NULL)
        return OC_ERR_INTERNAL;
    uint8_t *s = (uint8_t *)scratch_dev;
    be_chunk *chunks = (be_chunk *)(s + L.chunks);
    unsigned long long *ctr = (unsigned long long *)(s + L.ctr);
    bl_list list = bl_list_carve(s + L.list, L.entries, 1);
    unsigned long long B = L.entries;
    unsigned g = (unsigned)((n + 255) / 256);
    /* counters and list zero (an entry nobody writes is a no-op for the
     * codec), entries' chunks BE_NONE */
    if (cudaMemsetAsync(s + L.ctr, 0, L.slots - L.ctr, stream) != cudaSuccess ||
        cudaMemsetAsync(list.chunk, 0xFF, B * sizeof(uint32_t), stream) != cudaSuccess)
        return OC_ERR_CUDA;
    be_plan_kernel<<<g, 256, 0, stream>>>(n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, chunks, ctr, B,
                                          L.slot_bytes, L.slab_bytes, o);
    be_entry_kernel<<<be_grid(n, 65535u), 128, 0, stream>>>(n, src_dev, chunks, list, s + L.slots,
                                                            s + L.slab);
    be_filter_kernel<<<be_grid(B, BE_GRID), 256, 0, stream>>>(src_dev, chunks, list, ctr, B, s + L.slab);
    if (o.level >= 0) { /* (level -1: every chunk memcpyed, no stream to compress) */
        oc_status st = L.codec->compress(L.inner_size ? s + L.inner : NULL, L.inner_size, &L.icfg, B,
                                         list.src, list.srcn, list.dst, list.cap, list.got, list.st, stream);
        if (st != OC_OK)
            return st;
    }
    be_finalize_kernel<<<g, 256, 0, stream>>>(n, dst_dev, dst_caps_dev, chunks, list);
    be_gather_kernel<<<be_grid(B, BE_GRID), 256, 0, stream>>>(src_dev, dst_dev, chunks, list, ctr, B,
                                                              s + L.slab);
    be_finish_kernel<<<g, 256, 0, stream>>>(n, dst_dev, chunks, dst_sizes_dev, statuses_dev);
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}
