/*
 * bitcomp_kernels.cu - the GPU Bitcomp-class codec (gpu_codec.h): the
 * format's core (src/cores/bitcomp/bitcomp_core.h) run by CTAs of 8
 * warps, one tile (32 blocks of 128 elements) at a time, with the tile's
 * workspace (~35 KiB; the encoder's 68.5 KiB with the tile's input) in
 * dynamic shared memory; the CPU codec runs the same core, so the bytes
 * and statuses are the same on both engines.
 *
 * Decoding: the tile list of own_tiles.cuh (headers -> scan of tile
 * counts -> a persistent grid over every tile of the batch -> statuses).
 * Compressing: a persistent grid over chunks, a CTA writes its chunk's
 * tiles in order, each tile first copied into shared memory by 16-byte
 * loads a thread issues together (bc_ws_in), then the core's tile encoder
 * on the copy, whose coding choice for elements of 1-4 bytes is
 * bc_enc_choose32 here (the same statistics in 32-bit arithmetic): the
 * same bytes as the CPU's.  Both since session 9: 1.04-1.06x and then
 * 1.6-1.9x on 1-4 byte columns (H200, bench/gpu/owncodecs/NOTES.md).  The
 * header, tile and encode kernels' bodies are
 * own_tiles.cuh's, shared with Cascaded, run with this core's chunk check,
 * tile decoder and chunk compressor; the launches, the scan, the statuses
 * and the scratch are the batch driver's (own_common/own_batch.cu), shared
 * with Cascaded and ANS.
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
    own_tiled_headers(n, src, src_sizes, dst, caps, s, bc_chunk_check);
}

/* A persistent grid over the batch's tiles. */
static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
               own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    own_tiled_tiles(n, src, src_sizes, dst, s, bc_smem, bc_chunk_check, bc_tile_decode, BCK_WARPS);
}

/* ---- compression ------------------------------------------------------------ */

/* The encoder's workspace: the core's, then the tile's input (the largest
 * tile: 32 KiB), 68.5 KiB, still 3 CTAs an SM (206 of 228 KiB). */
typedef struct bc_ws_in {
    bc_ws ws;
    uint4 in[BC_TILE_MAX_BYTES / 16u];
} bc_ws_in;

/* bytes of src into in (every thread of the CTA; then a barrier): 16-byte
 * loads where src is 16-byte aligned (a batch's tiles are where their
 * chunks are), the rest by bytes. */
static __device__ __forceinline__ void bc_in_stage(uint4 *in, const uint8_t *src, uint32_t bytes)
{
    uint32_t t = threadIdx.x, nt = BCK_THREADS, done = 0; /* 8 uint4 loads a thread in flight */
    if (((uintptr_t)src & 15u) == 0) {
        const uint4 *s = (const uint4 *)src;
        uint32_t n16 = bytes / 16u;
        for (uint32_t k0 = 0; k0 < n16; k0 += 8u * nt) {
            uint4 r[8];
#pragma unroll
            for (uint32_t u = 0; u < 8; u++) {
                uint32_t k = k0 + u * nt + t;
                if (k < n16)
                    r[u] = __ldg(s + k);
            }
#pragma unroll
            for (uint32_t u = 0; u < 8; u++) {
                uint32_t k = k0 + u * nt + t;
                if (k < n16)
                    in[k] = r[u];
            }
        }
        done = n16 * 16u;
    }
    for (uint32_t k = done + t; k < bytes; k += nt)
        ((uint8_t *)in)[k] = src[k];
    __syncthreads();
}

/* bc_enc_choose for elements of W <= 4 bytes (session 9): the statistics
 * in 32-bit arithmetic (the core keeps 64-bit minima, maxima, and/or and
 * their 64-bit warp reductions - two dependent redux.sync each - for every
 * width), and each element's predecessor taken from the lane before (a
 * shuffle) instead of a second load, the ballot from the value loaded.
 * The same statistics, widened to the core's 64-bit ones before the
 * choice, so the same bytes (bc_dev compares them with the core's; ncu on
 * bf16: 1.74 G executed instructions instead of 2.58 G).  8-byte elements
 * take the core's bc_enc_choose. */
template <uint32_t W> static __device__ __forceinline__ uint32_t bc_ld32(const uint8_t *p, uint32_t e)
{
    if (W == 4)
        return ((const uint32_t *)p)[e];
    if (W == 2)
        return ((const uint16_t *)p)[e];
    return p[e];
}

/* Element e of a block of cnt (0 past it) and, in *pv, its predecessor: the
 * lane before's element by shuffle, lane 0's the last lane's of the previous
 * round (*carry, 0 at the block's start). */
template <uint32_t W>
static __device__ __forceinline__ uint32_t bc_ld32_pair(const uint8_t *p, uint32_t e, uint32_t cnt,
                                                        uint32_t *carry, uint32_t *pv)
{
    uint32_t v = e < cnt ? bc_ld32<W>(p, e) : 0u;
    uint32_t up = __shfl_up_sync(OWN_FULL, v, 1);
    *pv = OWN_LANE() == 0 ? *carry : up;
    *carry = __shfl_sync(OWN_FULL, v, 31);
    return v;
}

template <uint32_t W> static __device__ __forceinline__ int32_t bc_sext32(uint32_t v)
{
    return W == 4 ? (int32_t)v : (int32_t)(v << (32u - 8u * W)) >> (32u - 8u * W);
}

typedef struct bc_stats32 {
    uint32_t umin, umax, and_, or_;
    int32_t smin, smax;
} bc_stats32;

static __device__ __forceinline__ void bc_s32_init(bc_stats32 *st)
{
    st->umin = 0xffffffffu, st->umax = 0, st->and_ = 0xffffffffu, st->or_ = 0;
    st->smin = INT32_MAX, st->smax = INT32_MIN;
}

template <uint32_t W> static __device__ __forceinline__ void bc_s32_add(bc_stats32 *st, uint32_t v)
{
    int32_t sv = bc_sext32<W>(v);
    st->umin = min(st->umin, v), st->umax = max(st->umax, v);
    st->smin = min(st->smin, sv), st->smax = max(st->smax, sv);
    st->and_ &= v, st->or_ |= v;
}

/* Reduced over the warp and widened to the core's statistics. */
static __device__ __forceinline__ bc_stats bc_s32_reduce(bc_stats32 st)
{
    bc_stats r;
    r.umin = __reduce_min_sync(OWN_FULL, st.umin);
    r.umax = __reduce_max_sync(OWN_FULL, st.umax);
    r.smin = (int64_t)__reduce_min_sync(OWN_FULL, (int)st.smin);
    r.smax = (int64_t)__reduce_max_sync(OWN_FULL, (int)st.smax);
    r.and_ = __reduce_and_sync(OWN_FULL, st.and_);
    r.or_ = __reduce_or_sync(OWN_FULL, st.or_);
    return r;
}

template <uint32_t W>
static __device__ void bc_enc_choose32(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
{
    const uint32_t w = W, bits = 8u * W;
    const uint64_t m = own_mask64(bits);
    const uint32_t m32 = (uint32_t)m;
    for (uint32_t b = wp; b < ws->nb; b += nw) {
        bc_block *bl = &ws->blk[b];
        uint32_t cnt = bc_block_count(ws->cnt, b);
        const uint8_t *p = src + (uint64_t)b * BC_BLOCK * w;
        bc_stats32 a, d, z;
        bc_s32_init(&a);
        bc_s32_init(&d);
        bc_s32_init(&z);
        uint32_t nnz = 0, bm[4] = {0, 0, 0, 0}, carry = 0;
        for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
            uint32_t e = base + OWN_LANE();
            uint32_t pv, v = bc_ld32_pair<W>(p, e, cnt, &carry, &pv);
            if (e < cnt) {
                bc_s32_add<W>(&a, v);
                if (e > 0)
                    bc_s32_add<W>(&d, (v - pv) & m32);
                if (v) {
                    bc_s32_add<W>(&z, v);
                    nnz++;
                }
            }
            uint32_t ball = own_ballot(e < cnt && v != 0);
            if (OWN_LANE() == 0)
                bm[base / 32] = ball;
        }
        bc_stats sv = bc_s32_reduce(a), sd = bc_s32_reduce(d), sn = bc_s32_reduce(z);
        nnz = own_warp_sum32(nnz);
        uint64_t fbase = bc_base(sv.umin, sv.umax, sv.smin, sv.smax, m);
        uint64_t dbase = cnt > 1 ? bc_base(sd.umin, sd.umax, sd.smin, sd.smax, m) : 0;
        uint64_t nbase = nnz ? bc_base(sn.umin, sn.umax, sn.smin, sn.smax, m) : 0;
        uint32_t fb = (uint32_t)fbase, db = (uint32_t)dbase, nb = (uint32_t)nbase;
        uint32_t fo32 = 0, fx32 = 0, do32 = 0, dx32 = 0, no32 = 0, nx32 = 0;
        carry = 0;
        for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
            uint32_t e = base + OWN_LANE();
            uint32_t pv, v = bc_ld32_pair<W>(p, e, cnt, &carry, &pv);
            if (e < cnt) {
                uint32_t r = (v - fb) & m32;
                fo32 |= r;
                fx32 = max(fx32, r);
                if (e > 0) {
                    uint32_t dd = ((v - pv) - db) & m32;
                    do32 |= dd;
                    dx32 = max(dx32, dd);
                }
                if (v) {
                    uint32_t q = (v - nb) & m32;
                    no32 |= q;
                    nx32 = max(nx32, q);
                }
            }
        }
        uint64_t fo = __reduce_or_sync(OWN_FULL, fo32), dorr = __reduce_or_sync(OWN_FULL, do32),
                 no = __reduce_or_sync(OWN_FULL, no32);
        uint64_t fx = __reduce_max_sync(OWN_FULL, fx32), dx = __reduce_max_sync(OWN_FULL, dx32),
                 nx = __reduce_max_sync(OWN_FULL, nx32);
        /* decimals (f32 only here) and the choice: the core's, one code for both */
        bc_sums t = {fo, fx, fbase, dorr, dx, dbase, no, nx, nbase, nnz, {bm[0], bm[1], bm[2], bm[3]}};
        bc_enc_pick(ws, bl, p, w, cnt, m, &sv, &t);
    }
}

/* The core's bc_encode_tile with bc_enc_choose32 for widths 1, 2 and 4. */
static __device__ uint32_t bc_encode_tile32(bc_ws *ws, const uint8_t *src, uint32_t cnt, uint32_t dtype,
                                            uint32_t algo, uint32_t nw)
{
    uint32_t w = own_type_width(dtype), raw = cnt * w;
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, algo);
    if (w == 4)
        OWN_RUN(nw, bc_enc_choose32<4>, ws, src);
    else if (w == 2)
        OWN_RUN(nw, bc_enc_choose32<2>, ws, src);
    else if (w == 1)
        OWN_RUN(nw, bc_enc_choose32<1>, ws, src);
    else
        OWN_RUN(nw, bc_enc_choose, ws, src);
    OWN_RUN(nw, bc_enc_layout, ws);
    uint32_t size = ws->size;
    if (size >= raw)
        return raw;
    OWN_RUN(nw, bc_enc_zero, ws, (size + 3u) / 4u + 4u);
    OWN_RUN(nw, bc_enc_write, ws, src);
    return size;
}

/* own_tiled_compress's tile encoder: the tile staged, then the core's
 * (bc_encode_tile32: bc_enc_choose32 for widths 1-4). */
static __device__ uint32_t bc_tile_encode_in(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt,
                                             uint32_t dtype, uint32_t nw)
{
    bc_ws_in *W = (bc_ws_in *)ws;
    bc_in_stage(W->in, tile, cnt * own_type_width(dtype));
    return bc_encode_tile32(&W->ws, (const uint8_t *)W->in, cnt, dtype, *(const uint32_t *)opts, nw);
}

/* The core's bc_compress_chunk with the staged tile encoder. */
static __device__ oc_status bc_compress_chunk_in(bc_ws_in *ws, const uint8_t *src, uint64_t n, uint32_t dtype,
                                                 uint32_t algo, uint8_t *dst, uint64_t cap, uint64_t *out,
                                                 uint32_t nw)
{
    *out = 0;
    if (own_type_width(dtype) == 0 || algo > 1)
        return OC_ERR_INVALID_ARGUMENT;
    return own_tiled_compress(ws, &algo, src, n, OWN_ID_BITCOMP, dtype, algo, BC_TILE, dst, cap, out, nw,
                              bc_tile_encode_in, bc_tile_put, bc_bytes_copy);
}

/* 3 CTAs an SM (~80 registers, ~112 bytes of spills): 1.16-1.20x the 2
 * CTAs of 96 registers on the H100 (bc_dev, bench/gpu/owncodecs/NOTES.md);
 * the tile staged (bc_ws_in) since session 9. */
static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype, uint32_t algo)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    bc_ws_in *ws = (bc_ws_in *)bc_smem;
    own_tiled_encode(n, src, src_sizes, dst, caps, dst_sizes, statuses,
                     [=](const uint8_t *p, size_t len, uint8_t *d, size_t cap, uint64_t *out) {
                         return bc_compress_chunk_in(ws, p, len, dtype, algo, d, cap, out, BCK_WARPS);
                     });
}

/* The encoder's trailing arguments: the data type, the algorithm_type. */
static void bc_encode_args(const oc_gpu_config *cfg, own_encode_args *a)
{
    uint32_t algo = (uint32_t)cfg->typed.algorithm_type;
    uint32_t dtype = (uint32_t)oc_typed_data_type(&cfg->typed);
    own_encode_arg(a, &dtype, sizeof dtype);
    own_encode_arg(a, &algo, sizeof algo);
}

/* ---- the codec -------------------------------------------------------------- */

static const own_gpu_kernels bc_kernels = {(const void *)bc_k_headers, /* headers */
                                           (const void *)bc_k_tiles,   /* tiles: a tile per CTA */
                                           BCK_THREADS,                /* tile_threads */
                                           sizeof(bc_ws),              /* tile_smem: the tile workspace */
                                           (const void *)bc_k_encode,  /* encode */
                                           BCK_THREADS,                /* encode_threads */
                                           sizeof(bc_ws_in),           /* encode_smem: + the tile's input */
                                           bc_encode_args};

OWN_GPU_LAUNCHES(bc, bc_kernels)

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_bitcomp = {
    NULL, bc_compress, oc_own_gpu_decompress_scratch, bc_decompress, bc_sizes};
