/*
 * ans_kernels.cu - the GPU ANS codec (gpu_codec.h) over the format's core
 * (src/cores/ans/ans_core.h: table, normalisation, the per-state steps,
 * the chunk checks), so both engines write the same bytes and statuses.
 *
 * Decoding (own_tiles.cuh's flat list): the unit is a GROUP of 4 coding
 * tiles (65536 symbols) of one chunk, one CTA of 4 warps: warp 0 reads the
 * frequency table (a warp scan over the presence map gives each symbol's
 * bits), the CTA fills the decode table (2^PB u32 entries) in shared
 * memory, then each warp decodes one tile with its 32 lanes in lockstep
 * (ans_decode_tile_warp: the core's ans_decode_tile, which the CPU codec
 * runs as a one-lane warp, with the same reads, checks and results): per
 * step a table lookup and a multiply-add per lane, and the lanes whose
 * state fell below 2^16 take one 16-bit word each from the top of the
 * stream, in lane order (ballot + popcount).  The stored bytes of 16-bit
 * data (low bytes) and of stored chunks are copied by the same CTA.
 *
 * Compressing: a CTA of 4 warps per chunk (a persistent grid over chunks):
 * histogram in shared memory, the core's normalisation on one thread, one
 * pass that counts each tile's words (the coded size decides coding or
 * storing, exactly as the CPU codec), one pass that writes the tile table,
 * one that writes the words at their final places.
 *
 * Only the kernels are here: the launches, the scan of group counts, the
 * statuses and the scratch are the batch driver's (own_common/own_batch.cu),
 * shared with Cascaded and Bitcomp.
 */
#include "../../../common/typed_options.h"
#include "../../../cores/ans/ans_core.h"
#include "../own_common/own_tiles.cuh"

#define ANS_WARPS 4u
#define ANS_THREADS (ANS_WARPS * 32u)
#define ANS_GROUP (ANS_WARPS * ANS_TILE) /* symbols per CTA unit of decoding */

/* ---- decoding -------------------------------------------------------------------- */

static __global__ void ans_k_headers(size_t n, const void *const *src, const size_t *src_sizes,
                                     void *const *dst, const size_t *caps, own_batch_scratch s)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint8_t *p = (const uint8_t *)src[i];
    size_t len = src_sizes[i];
    uint8_t *d = dst ? (uint8_t *)dst[i] : NULL;
    ans_chunk k;
    ans_table t;
    oc_status st;
    if ((p == NULL && len) || (dst && d == NULL && caps[i]))
        st = OC_ERR_INVALID_ARGUMENT;
    else
        st = ans_chunk_check(p, len, dst ? (uint64_t)caps[i] : UINT64_MAX, &k, &t);
    s.tiles[i] = st == OC_OK ? (uint32_t)((k.sh.nsym + ANS_GROUP - 1) / ANS_GROUP) : 0u;
    s.keys[i] = st == OC_OK ? OWN_KEY_NONE : own_key(0, st);
    if (st == OC_OK && d && k.sh.tail)
        d[k.size - 1] = p[len - 1];
}

/* Warp 0: the table of the chunk at p (mode 1, checked by the header
 * kernel) into f/c in shared memory; lane L takes symbols 8L..8L+7. */
static __device__ void ans_warp_table(const uint8_t *tab, uint32_t *pb_out, uint16_t *f, uint16_t *c)
{
    uint32_t lane = threadIdx.x & 31u, pb = tab[0];
    uint32_t pres = tab[1 + lane];
    uint32_t cnt = (uint32_t)__popc(pres);
    uint32_t incl = own_warp_incl_add32(cnt);
    uint32_t rank = incl - cnt, sum = 0;
    uint32_t fs[8];
    for (uint32_t j = 0; j < 8; j++) {
        fs[j] = 0;
        if ((pres >> j) & 1u) {
            uint32_t bit = rank * pb, v = 0;
            for (uint32_t b = 0; b < 3; b++) /* pb <= 12 bits span at most 3 bytes */
                if (8 * b < (bit % 8) + pb)
                    v |= (uint32_t)tab[33 + bit / 8 + b] << (8 * b);
            fs[j] = ((v >> (bit % 8)) & ((1u << pb) - 1u)) + 1u;
            rank++;
            sum += fs[j];
        }
    }
    uint32_t cincl = own_warp_incl_add32(sum);
    uint32_t cum = cincl - sum;
    for (uint32_t j = 0; j < 8; j++) {
        f[8 * lane + j] = (uint16_t)fs[j];
        c[8 * lane + j] = (uint16_t)cum;
        cum += fs[j];
    }
    if (lane == 0)
        *pb_out = pb;
}

/* One step of the warp: decodes symbol 32k + lane if `active` (writing it
 * through *o when WRITE), then renormalises.  Returns 0, or 1 when the
 * stream has fewer words left than the step needs (CORRUPT). */
template <bool WRITE>
static __device__ __forceinline__ int ans_warp_step(const uint32_t *dt, uint32_t pb, uint32_t mask,
                                                    uint32_t below, const uint8_t *words, uint32_t &x,
                                                    uint32_t &c, uint8_t *o, bool active)
{
    int need = 0;
    if (active) {
        uint32_t e = dt[x & mask];
        x = (((e >> 8) & 0xfffu) + 1u) * (x >> pb) + (e >> 20);
        if (WRITE)
            *o = (uint8_t)e;
        need = x < ANS_L;
    }
    uint32_t m = __ballot_sync(OWN_FULL, need), total = (uint32_t)__popc(m);
    if (total > c)
        return 1; /* a read before the stream's start */
    if (need) {
        const uint8_t *w = words + 2 * (c - 1 - (uint32_t)__popc(m & below));
        x = (x << 16) | (uint32_t)__ldg(w) | ((uint32_t)__ldg(w + 1) << 8);
    }
    c -= total;
    return 0;
}

/* The core's ans_decode_tile for a 32-lane warp, cut to the instructions a
 * step needs (the core's, compiled for the GPU, spent 54 per step: 64-bit
 * counters and addresses, the per-state loop the one-lane CPU build needs,
 * generic loads; ncu found the kernel issue-bound at 0.65 instructions per
 * cycle per scheduler).  Same reads, same checks in the same order, same
 * status and bytes: lane L holds the tile's state L; a step decodes symbols
 * 32k..32k+31; the lanes whose state fell below 2^16 take one word each
 * from the top of the stream in lane order.  test_cuda_ans compares it with
 * the CPU codec (the core) on real and damaged data. */
template <bool WRITE>
static __device__ __forceinline__ oc_status ans_decode_tile_warp(const uint32_t *dt, uint32_t pb,
                                                                 const uint8_t *src, uint64_t n, uint32_t cnt,
                                                                 uint8_t *out, uint32_t stride)
{
    if (n < ANS_TILE_HEAD || (n - ANS_TILE_HEAD) % 2 != 0 || n - ANS_TILE_HEAD > 0xFFFFFFFFull)
        return OC_ERR_CORRUPT;
    uint32_t lane = threadIdx.x & 31u, below = (1u << lane) - 1u;
    const uint8_t *xs = src + 4 * lane;
    uint32_t x = (uint32_t)__ldg(xs) | ((uint32_t)__ldg(xs + 1) << 8) | ((uint32_t)__ldg(xs + 2) << 16) |
                 ((uint32_t)__ldg(xs + 3) << 24);
    if (__any_sync(OWN_FULL, x < ANS_L))
        return OC_ERR_CORRUPT;
    const uint8_t *words = src + ANS_TILE_HEAD;
    uint32_t c = (uint32_t)((n - ANS_TILE_HEAD) / 2); /* words left, read from the top */
    uint32_t mask = (1u << pb) - 1u;
    uint32_t full = cnt / ANS_LANES;
    uint8_t *o = WRITE ? out + (size_t)lane * stride : NULL;
    size_t ostep = (size_t)ANS_LANES * stride;
    for (uint32_t k = 0; k < full; k++) {
        if (ans_warp_step<WRITE>(dt, pb, mask, below, words, x, c, o, true))
            return OC_ERR_CORRUPT;
        if (WRITE)
            o += ostep;
    }
    if (full * ANS_LANES < cnt &&
        ans_warp_step<WRITE>(dt, pb, mask, below, words, x, c, o, full * ANS_LANES + lane < cnt))
        return OC_ERR_CORRUPT;
    return __any_sync(OWN_FULL, c != 0 || x != ANS_L) ? OC_ERR_CORRUPT : OC_OK;
}

static __global__ void __launch_bounds__(ANS_THREADS)
    ans_k_groups(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 own_batch_scratch s)
{
    __shared__ uint32_t dt[1u << ANS_PB_MAX];
    __shared__ uint16_t f[256], c[256];
    __shared__ uint32_t pb;
    __shared__ size_t chunk;
    __shared__ ans_chunk k;
    unsigned long long total = s.first[n];
    uint32_t warp = threadIdx.x >> 5;
    for (unsigned long long g = blockIdx.x; g < total; g += gridDim.x) {
        if (threadIdx.x == 0) {
            chunk = own_find_chunk(s.first, n, g);
            /* the header kernel checked it whole; the layout is enough here */
            ans_chunk_geometry((const uint8_t *)src[chunk], &k);
        }
        __syncthreads();
        size_t i = chunk;
        const uint8_t *p = (const uint8_t *)src[i];
        uint8_t *d = dst ? (uint8_t *)dst[i] : NULL;
        uint32_t group = (uint32_t)(g - s.first[i]);
        uint64_t first = (uint64_t)group * ANS_GROUP;
        uint64_t last = first + ANS_GROUP < k.sh.nsym ? first + ANS_GROUP : k.sh.nsym;
        if (k.mode == 1) {
            if (warp == 0)
                ans_warp_table(p + k.tables, &pb, f, c);
            __syncthreads();
            /* the decode table: a warp per symbol, its lanes over its slots */
            for (uint32_t sym = warp; sym < 256; sym += ANS_WARPS)
                for (uint32_t j = threadIdx.x & 31u; j < f[sym]; j += 32)
                    dt[c[sym] + j] = sym | ((uint32_t)(f[sym] - 1u) << 8) | (j << 20);
            __syncthreads();
            uint32_t tile = group * ANS_WARPS + warp;
            if (tile < k.sh.ntiles) {
                uint64_t a = 0, b = 0, tfirst = (uint64_t)tile * ANS_TILE;
                uint32_t cnt = (uint32_t)(k.sh.nsym - tfirst < ANS_TILE ? k.sh.nsym - tfirst : ANS_TILE);
                oc_status st = own_tile_span(p, k.tile_tab, k.sh.ntiles, tile, k.limit, &a, &b);
                if (st == OC_OK) {
                    uint8_t *o = d ? d + (k.sh.split ? 2 * tfirst + 1 : tfirst) : NULL;
                    st = o ? ans_decode_tile_warp<true>(dt, pb, p + a, b - a, cnt, o, k.sh.split ? 2u : 1u)
                           : ans_decode_tile_warp<false>(dt, pb, p + a, b - a, cnt, o, 1u);
                }
                if (st != OC_OK && (threadIdx.x & 31u) == 0)
                    atomicMin(&s.keys[i], own_key((unsigned long long)tile + 1, st));
            }
        }
        /* the stored bytes of this group's symbols */
        if (d) {
            for (uint64_t j = first + threadIdx.x; j < last; j += ANS_THREADS) {
                if (k.sh.split) {
                    d[2 * j] = p[k.limit + j];
                    if (k.mode == 0)
                        d[2 * j + 1] = p[k.raw + j];
                } else if (k.mode == 0) {
                    d[j] = p[k.raw + j];
                }
            }
        }
        __syncthreads();
    }
}

/* ---- compression -------------------------------------------------------------------- */

static __global__ void __launch_bounds__(ANS_THREADS)
    ans_k_encode(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype)
{
    __shared__ uint32_t counts[256];
    __shared__ ans_table t;
    __shared__ unsigned long long coded_words;
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    uint32_t w = own_type_width(dtype);
    for (size_t ci = blockIdx.x; ci < n; ci += gridDim.x) {
        const uint8_t *p = (const uint8_t *)src[ci];
        uint64_t len = src_sizes[ci];
        uint8_t *d = (uint8_t *)dst[ci];
        uint64_t cap = caps[ci];
        oc_status st = OC_OK;
        if ((p == NULL && len) || (d == NULL && cap))
            st = OC_ERR_INVALID_ARGUMENT;
        else if (w == 0 || w > 2)
            st = OC_ERR_INVALID_ARGUMENT;
        else if (len > OWN_MAX_CHUNK)
            st = OC_ERR_CHUNK_TOO_LARGE;
        ans_shape sh;
        ans_shape_of(len, w ? w : 1u, &sh);
        uint64_t total = 0;
        if (st == OC_OK) {
            for (uint32_t s = threadIdx.x; s < 256; s += ANS_THREADS)
                counts[s] = 0;
            if (threadIdx.x == 0)
                coded_words = 0;
            __syncthreads();
            for (uint64_t j = threadIdx.x; j < sh.nsym; j += ANS_THREADS) {
                /* lanes with the same symbol add once (few distinct exponent bytes) */
                uint32_t sym = ans_sym(p, sh.split, j);
                uint32_t peers = __match_any_sync(__activemask(), sym);
                if ((int)lane == __ffs((int)peers) - 1)
                    atomicAdd(&counts[sym], (uint32_t)__popc(peers));
            }
            __syncthreads();
            if (threadIdx.x == 0 && sh.nsym)
                ans_normalize(counts, sh.nsym, ANS_PB, &t);
            __syncthreads();
            /* pass 1: every tile's words */
            if (sh.nsym) {
                for (uint32_t tile = warp; tile < sh.ntiles; tile += ANS_WARPS) {
                    uint64_t first = (uint64_t)tile * ANS_TILE;
                    uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile);
                    uint64_t size = ans_encode_tile(&t, p, sh.split, first, cnt, NULL);
                    if (lane == 0)
                        atomicAdd(&coded_words, (unsigned long long)size);
                }
            }
            __syncthreads();
            uint64_t coded =
                sh.nsym ? OWN_HEADER_SIZE + 1u + t.bytes + 4ull * sh.ntiles + coded_words : ~0ull;
            uint64_t stored = OWN_HEADER_SIZE + 1u + sh.nsym;
            uint32_t mode = coded < stored;
            total = (mode ? coded : stored) + sh.lo + sh.tail;
            if (total > cap) {
                st = OC_ERR_OUTPUT_TOO_SMALL;
            } else {
                uint64_t pos = OWN_HEADER_SIZE + 1u;
                if (threadIdx.x == 0) {
                    own_header_write(d, OWN_ID_ANS, dtype, 0, (uint32_t)len);
                    d[OWN_HEADER_SIZE] = (uint8_t)mode;
                    if (mode)
                        ans_table_write(&t, d + pos);
                }
                if (mode) {
                    uint64_t tab = pos + t.bytes, base = tab + 4ull * sh.ntiles;
                    /* pass 2: tile sizes into the tile table, then end offsets */
                    for (uint32_t tile = warp; tile < sh.ntiles; tile += ANS_WARPS) {
                        uint64_t first = (uint64_t)tile * ANS_TILE;
                        uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile);
                        uint64_t size = ans_encode_tile(&t, p, sh.split, first, cnt, NULL);
                        if (lane == 0)
                            oc_store_le32(d + tab + 4ull * tile, (uint32_t)size);
                    }
                    __syncthreads();
                    if (warp == 0) {
                        uint32_t carry = 0;
                        for (uint32_t b0 = 0; b0 < sh.ntiles; b0 += 32) {
                            uint32_t tile = b0 + lane;
                            uint32_t size = tile < sh.ntiles ? oc_load_le32(d + tab + 4ull * tile) : 0u;
                            uint32_t incl = own_warp_incl_add32(size);
                            if (tile < sh.ntiles)
                                oc_store_le32(d + tab + 4ull * tile, carry + incl);
                            carry += own_warp_last32(incl);
                            __syncwarp();
                        }
                    }
                    __syncthreads();
                    /* pass 3: the tiles at their places */
                    for (uint32_t tile = warp; tile < sh.ntiles; tile += ANS_WARPS) {
                        uint64_t first = (uint64_t)tile * ANS_TILE;
                        uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, tile);
                        uint64_t at = base + (tile ? oc_load_le32(d + tab + 4ull * (tile - 1)) : 0u);
                        ans_encode_tile(&t, p, sh.split, first, cnt, d + at);
                    }
                    pos = base + coded_words;
                } else {
                    for (uint64_t j = threadIdx.x; j < sh.nsym; j += ANS_THREADS)
                        d[pos + j] = (uint8_t)ans_sym(p, sh.split, j);
                    pos += sh.nsym;
                }
                for (uint64_t j = threadIdx.x; j < sh.lo; j += ANS_THREADS)
                    d[pos + j] = p[2 * j];
                if (sh.tail && threadIdx.x == 0)
                    d[pos + sh.lo] = p[len - 1];
            }
        }
        if (threadIdx.x == 0) {
            if (dst_sizes)
                dst_sizes[ci] = st == OC_OK ? (size_t)total : 0;
            if (statuses)
                statuses[ci] = st;
        }
        __syncthreads();
    }
}

/* The encoder's trailing argument: the data type. */
static void ans_encode_args(const oc_gpu_config *cfg, own_encode_args *a)
{
    uint32_t dtype = (uint32_t)oc_typed_data_type(&cfg->typed);
    own_encode_arg(a, &dtype, sizeof dtype);
}

/* ---- the codec -------------------------------------------------------------------- */

static const own_gpu_kernels ans_kernels = {
    (const void *)ans_k_headers, /* headers */
    (const void *)ans_k_groups,  /* tiles: a group of 4 tiles per CTA */
    ANS_THREADS,                 /* tile_threads */
    0,                           /* tile_smem: static shared memory only */
    (const void *)ans_k_encode,  /* encode */
    ANS_THREADS,                 /* encode_threads */
    0,                           /* encode_smem */
    ans_encode_args};

OWN_GPU_LAUNCHES(ans, ans_kernels)

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_ans = {NULL, ans_compress, oc_own_gpu_decompress_scratch,
                                                            ans_decompress, ans_sizes};
