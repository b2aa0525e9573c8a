/*
 * bitcomp_kernels.cu - the GPU Bitcomp-class codec (gpu_codec.h): the
 * format's core (src/cores/bitcomp/bitcomp_core.h) run by CTAs of 8
 * warps, one tile (32 blocks of 128 elements) at a time, with the tile's
 * workspace (~35 KiB; the encoder's 68.5 KiB with the tile's input) in
 * dynamic shared memory; the CPU codec runs the same core, so the bytes
 * and statuses are the same on both engines.
 *
 * Decoding: the tile list of own_tiles.cuh (headers -> scan of tile
 * counts -> a persistent grid over every tile of the batch -> statuses),
 * each tile by the core's decoder with its element loops and its stage
 * rewritten for the GPU (bitcomp_dec_gpu.cuh: 32-bit arithmetic for 1-4
 * byte elements, the kind switched on once a block, PLANES by a run table,
 * the stage by aligned words; session 10, H200: 1.38-2.48x, 0.38x the
 * instructions on bf16).  Compressing: a persistent grid over chunks, a
 * CTA writes its chunk's tiles in order, each tile first copied into
 * shared memory by 16-byte loads a thread issues together (bc_ws_in), then
 * the core's tile encoder on the copy with, for elements of 1-4 bytes,
 * its coding choice (bc_enc_choose32, bc_enc_pick32) and its write pass
 * (bc_enc_write32) in 32-bit arithmetic and the coded tile copied out a
 * word a thread (bc_stage_out32): the same bytes as the CPU's.  Session 9
 * (staged tile, 32-bit statistics): 1.04-1.06x and then 1.6-1.9x on 1-4
 * byte columns; session 10 (the write pass, the choice's end, the copy
 * out): 1.31-1.69x more (H200, bench/gpu/owncodecs/NOTES.md).  The
 * header, tile and encode kernels' bodies are
 * own_tiles.cuh's, shared with Cascaded, run with this core's chunk check,
 * tile decoder and chunk compressor; the launches, the scan, the statuses
 * and the scratch are the batch driver's (own_common/own_batch.cu), shared
 * with Cascaded and ANS.
 */
#include "../../../common/typed_options.h"
#include "../../../cores/bitcomp/bitcomp_core.h"
#include "../own_common/own_tiles.cuh"
#include "bitcomp_dec_gpu.cuh"

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

/* A persistent grid over the batch's tiles (bitcomp_dec_gpu.cuh's tile decoder). */
static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
               own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    own_tiled_tiles(n, src, src_sizes, dst, s, bc_smem, bc_chunk_check, bc_tile_decode_gpu, BCK_WARPS);
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

/* bc_enc_choose for elements of W <= 4 bytes (session 9; session 10 kept
 * the statistics in 32 bits to the end): the statistics in 32-bit
 * arithmetic (the core keeps 64-bit minima, maxima, and/or and their 64-bit
 * warp reductions - two dependent redux.sync each - for every width), each
 * element's predecessor taken from the lane before (a shuffle) instead of a
 * second load, the ballot from the value loaded; the frames of reference
 * (bc_base32) and, for every type but f32, lane 0's comparison of the
 * candidates (bc_enc_pick32) on the 32-bit reductions; f32 blocks, whose
 * choice tries decimals, take the core's bc_enc_pick on the statistics
 * widened.  The same choices, so the same bytes (bc_dev compares them with
 * the core's; ncu on bf16: 1.74 G executed instructions instead of 2.58 G
 * in session 9).  8-byte elements take the core's bc_enc_choose. */
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

/* ---- the choice in 32-bit arithmetic (session 10) ---------------------------------- */

static __device__ __forceinline__ uint32_t bc_bits32(uint32_t x)
{
    return 32u - (uint32_t)__clz((int)x);
}

/* bc_base on 32-bit statistics (the same base: the low bits of the core's 64-bit differences). */
static __device__ __forceinline__ uint32_t bc_base32(uint32_t umin, uint32_t umax, int32_t smin, int32_t smax,
                                                     uint32_t m)
{
    uint32_t wu = bc_bits32((umax - umin) & m), ws = bc_bits32(((uint32_t)smax - (uint32_t)smin) & m);
    return ws < wu ? ((uint32_t)smin & m) : umin;
}

/* bc_enc_pick without decimals (flt == 0), lane 0, the same choice. */
static __device__ void bc_enc_pick32(const bc_ws *ws, bc_block *bl, const uint8_t *p, uint32_t w,
                                     uint32_t cnt, uint32_t m, uint32_t umin, uint32_t umax, uint32_t and_,
                                     uint32_t or_, const uint32_t *f, uint32_t nnz, const uint32_t *bm,
                                     const bc_patch *pd, const bc_patch *pf)
{
    /* f: fo, fx, fbase, do, dx, dbase, no, nx, nbase */
    if (OWN_LANE() != 0)
        return;
    uint32_t fs = f[0] ? (uint32_t)__ffs((int)f[0]) - 1u : 0u, fk = bc_bits32(f[1] >> fs);
    uint32_t ds = f[3] ? (uint32_t)__ffs((int)f[3]) - 1u : 0u, dk = bc_bits32(f[4] >> ds);
    uint32_t ns = f[6] ? (uint32_t)__ffs((int)f[6]) - 1u : 0u, nk = bc_bits32(f[7] >> ns);
    uint32_t mask = (and_ ^ or_) & m, best;
    bl->cnt = cnt;
    bl->nx = bl->kx = 0;
    if (umin == umax) {
        bl->kind = bl->wire = BC_CONST;
        bl->a = umin;
    } else {
        bl->kind = BC_FOR, bl->wire = fs ? BC_FOR_S : BC_FOR, bl->k = fk, bl->s = fs, bl->a = f[2];
        best = 8u * bc_header_size(bl->wire, w, cnt) + cnt * fk;
        if (ws->algo == 0 && cnt > 1) {
            uint32_t dw = ds ? BC_DELTA_S : BC_DELTA;
            uint32_t c = 8u * bc_header_size(dw, w, cnt) + (cnt - 1u) * dk;
            if (c < best) {
                best = c;
                bl->kind = BC_DELTA, bl->wire = dw, bl->k = dk, bl->s = ds, bl->a = bc_load(p, w),
                bl->b = f[5];
            }
        }
        if (ws->algo == 0) {
            uint32_t c = 16u * w + cnt * (uint32_t)__popc(mask); /* bc_header_size(PLANES) = 2w */
            if (c < best) {
                best = c;
                bl->kind = bl->wire = BC_PLANES, bl->a = mask, bl->b = and_ & m;
            }
        }
        if (nnz < cnt) {
            uint32_t c = 8u * bc_header_size(BC_SPARSE, w, cnt) + nnz * nk;
            if (c < best) {
                best = c;
                bl->kind = bl->wire = BC_SPARSE, bl->k = nk, bl->s = ns, bl->a = f[8], bl->nnz = nnz;
                for (uint32_t q = 0; q < 4; q++)
                    bl->bitmap[q] = bm[q];
            }
        }
        uint64_t best64 = best;
        bc_patch_pick(bl, p, w, cnt, pd, pf, &best64);
    }
    bl->hsize = bc_header_size(bl->wire, w, cnt);
    bl->pbits = bc_payload_bits(bl);
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
        uint32_t aumin = __reduce_min_sync(OWN_FULL, a.umin), aumax = __reduce_max_sync(OWN_FULL, a.umax);
        int32_t asmin = __reduce_min_sync(OWN_FULL, (int)a.smin),
                asmax = __reduce_max_sync(OWN_FULL, (int)a.smax);
        uint32_t aand = __reduce_and_sync(OWN_FULL, a.and_), aor = __reduce_or_sync(OWN_FULL, a.or_);
        uint32_t dumin = __reduce_min_sync(OWN_FULL, d.umin), dumax = __reduce_max_sync(OWN_FULL, d.umax);
        int32_t dsmin = __reduce_min_sync(OWN_FULL, (int)d.smin),
                dsmax = __reduce_max_sync(OWN_FULL, (int)d.smax);
        uint32_t zumin = __reduce_min_sync(OWN_FULL, z.umin), zumax = __reduce_max_sync(OWN_FULL, z.umax);
        int32_t zsmin = __reduce_min_sync(OWN_FULL, (int)z.smin),
                zsmax = __reduce_max_sync(OWN_FULL, (int)z.smax);
        nnz = own_warp_sum32(nnz);
        uint32_t fb = bc_base32(aumin, aumax, asmin, asmax, m32);
        uint32_t db = cnt > 1 ? bc_base32(dumin, dumax, dsmin, dsmax, m32) : 0u;
        uint32_t nb = nnz ? bc_base32(zumin, zumax, zsmin, zsmax, m32) : 0u;
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
        if (OWN_LANE() == 0)
            ws->umin[b] = aumin, ws->umax[b] = aumax;
        uint32_t f[9] = {__reduce_or_sync(OWN_FULL, fo32), __reduce_max_sync(OWN_FULL, fx32), fb,
                         __reduce_or_sync(OWN_FULL, do32), __reduce_max_sync(OWN_FULL, dx32), db,
                         __reduce_or_sync(OWN_FULL, no32), __reduce_max_sync(OWN_FULL, nx32), nb};
        bc_patch pd, pf;
        bc_patch_both(ws, p, w, cnt, db, m, &pd, &pf);
        if (ws->flt == 0) {
            bc_enc_pick32(ws, bl, p, w, cnt, m32, aumin, aumax, aand, aor, f, nnz, bm, &pd, &pf);
        } else { /* f32: the core's choice, decimals tried, on the widened statistics */
            bc_stats sv = {aumin, aumax, aand, aor, (int64_t)asmin, (int64_t)asmax};
            bc_sums t = {f[0], f[1], fb, f[3], f[4], db, f[6], f[7], nb, nnz, {bm[0], bm[1], bm[2], bm[3]},
                         pd,   pf};
            bc_enc_pick(ws, bl, p, w, cnt, m, &sv, &t);
        }
    }
}

/* ---- the write pass in 32-bit arithmetic (session 10) ------------------------------ */

/* ORs the k (<= 32) bits of x into the stage at bit p (the words start zeroed). */
static __device__ __forceinline__ void bc_put32(uint32_t *S, uint32_t p, uint32_t x, uint32_t k)
{
    uint32_t i = p >> 5, sh = p & 31u;
    atomicOr(&S[i], x << sh);
    if (sh + k > 32u)
        atomicOr(&S[i + 1], x >> (32u - sh));
}

/* A PLANES mask's run table for extraction: OR over r of ((v >> lo[r]) & m[r]) << in[r]. */
static __device__ __forceinline__ uint32_t bc_ext_runs(uint32_t v, const bc_runs *r)
{
    return ((v >> r->lo[0]) & r->m[0]) | (((v >> r->lo[1]) & r->m[1]) << r->in[1]) |
           (((v >> r->lo[2]) & r->m[2]) << r->in[2]) | (((v >> r->lo[3]) & r->m[3]) << r->in[3]);
}

/* Block b's kind byte and header (lane 0): the core's bc_enc_write's. */
static __device__ void bc_enc_header(uint32_t *S, const bc_block *bl, uint32_t b, uint32_t bits)
{
    uint64_t h = 8ull * bl->hoff;
    own_put_bits(S, 8ull * b, bl->wire, 8);
    switch (bl->kind) {
    case BC_CONST:
        own_put_bits(S, h, bl->a, bits);
        break;
    case BC_FOR:
    case BC_DELTA: {
        uint32_t sh = bl->wire == BC_FOR_S || bl->wire == BC_DELTA_S;
        own_put_bits(S, h, bl->k | (bl->s << 8), 8u + 8u * sh);
        own_put_bits(S, h + 8u + 8u * sh, bl->a, bits);
        if (bl->kind == BC_DELTA)
            own_put_bits(S, h + 8u + 8u * sh + bits, bl->b, bits);
        break;
    }
    case BC_PLANES:
        own_put_bits(S, h, bl->a, bits);
        own_put_bits(S, h + bits, bl->b, bits);
        break;
    case BC_DEC:
        own_put_bits(S, h, bl->s | (bl->k << 8), 16);
        own_put_bits(S, h + 16, bl->a, bits);
        break;
    case BC_PDELTA:
    case BC_PFLT:
        bc_enc_header_patched(S, bl, bits);
        break;
    default: {
        uint32_t bm = (bl->cnt + 7u) / 8u;
        for (uint32_t q = 0; q < bm; q++)
            own_put_bits(S, h + 8ull * q, (bl->bitmap[q / 4] >> (8 * (q % 4))) & 0xffu, 8);
        own_put_bits(S, h + 8ull * bm, bl->k | (bl->s << 8), 16);
        own_put_bits(S, h + 8ull * bm + 16, bl->a, bits);
        break;
    }
    }
}

/* The core's bc_enc_write for elements of W <= 4 bytes (the same bits):
 * the kind switched on once a block (the core: once an element), typed
 * loads from the staged tile, DELTA's predecessor by a shuffle, a 32-bit
 * put of one or two atomicOr (the core's own_put_bits: 64-bit positions
 * and shifts, up to three), PLANES' extraction by the block's run table
 * (bitcomp_dec_gpu.cuh's bc_runs; more than 4 runs: bc_pext).  Session 10,
 * with bc_stage_out32 and bc_enc_pick32: 1.31-1.69x on bf16, f32, i32. */
template <uint32_t W>
static __device__ void bc_enc_write32(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
{
    uint32_t *S = ws->stage;
    const uint32_t m = W == 4 ? 0xffffffffu : (1u << (8u * W)) - 1u;
    const uint32_t L = OWN_LANE();
    for (uint32_t b = wp; b < ws->nb; b += nw) {
        const bc_block *bl = &ws->blk[b];
        const uint8_t *p = src + (uint64_t)b * BC_BLOCK * W;
        if (L == 0 && ws->uni) {
            if (b == 0)
                bc_enc_tile_header(S, bl, 8u * W);
        } else if (L == 0) {
            bc_enc_header(S, bl, b, 8u * W);
        }
        uint32_t kind = bl->kind, cnt = bl->cnt, k = bl->k, s = bl->s, p0 = (uint32_t)bl->poff;
        uint32_t a = (uint32_t)bl->a, bb = (uint32_t)bl->b;
        switch (kind) {
        case BC_CONST:
            break;
        case BC_FOR:
            for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                bc_put32(S, p0 + e * k, ((bc_ld32<W>(p, e) - a) & m) >> s, k);
            break;
        case BC_DELTA: {
            uint32_t carry = 0;
            for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
                uint32_t e = base + L, pv, v = bc_ld32_pair<W>(p, e, cnt, &carry, &pv);
                if (e < cnt && e > 0)
                    bc_put32(S, p0 + (e - 1) * k, (((v - pv) - bb) & m) >> s, k);
            }
            break;
        }
        case BC_PLANES: {
            uint32_t kb = (uint32_t)__popc(a);
            bc_runs r = bc_runs_of(a);
            if (r.ok) {
                for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                    bc_put32(S, p0 + e * kb, bc_ext_runs(bc_ld32<W>(p, e), &r), kb);
            } else {
                for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                    bc_put32(S, p0 + e * kb, (uint32_t)bc_pext(bc_ld32<W>(p, e), a), kb);
            }
            break;
        }
        case BC_PDELTA:
        case BC_PFLT:
            bc_enc_write_patched(S, bl, p, W, m);
            break;
        case BC_SPARSE:
            for (uint32_t e = L; e < cnt; e += OWN_NLANES) {
                uint32_t v = bc_ld32<W>(p, e), q = e / 32u;
                if (v) {
                    uint32_t rank = (uint32_t)__popc(bl->bitmap[q] & ((1u << (e % 32u)) - 1u));
                    for (uint32_t j = 0; j < q; j++)
                        rank += (uint32_t)__popc(bl->bitmap[j]);
                    bc_put32(S, p0 + rank * k, ((v - a) & m) >> s, k);
                }
            }
            break;
        default: /* DEC (f32): the core's arithmetic */
            for (uint32_t e = L; e < cnt; e += OWN_NLANES) {
                int64_t d = 0;
                (void)bc_dec_exact(bc_ld32<W>(p, e), s, ws->flt, &d); /* exact: the choice checked it */
                own_put_bits(S, bl->poff + (uint64_t)e * k, ((uint64_t)d - bl->a) & m, k);
            }
            break;
        }
    }
}

/* The coded tile out, a word of the stage a thread (the core's: a byte a thread). */
static __device__ void bc_stage_out32(const bc_ws *ws, uint32_t n, uint8_t *dst, uint32_t wp, uint32_t nw)
{
    uint32_t words = (n + 3u) / 4u;
    for (uint32_t k = wp * OWN_NLANES + OWN_LANE(); k < words; k += nw * OWN_NLANES) {
        uint32_t x = ws->stage[k], at = 4u * k;
#pragma unroll
        for (uint32_t j = 0; j < 4; j++)
            if (at + j < n)
                dst[at + j] = (uint8_t)(x >> (8u * j));
    }
}

static __device__ void bc_tile_put32(void *ws, uint32_t size, uint8_t *dst, uint32_t nw)
{
    OWN_RUN(nw, bc_stage_out32, (const bc_ws *)ws, size, dst);
}

/* The core's bc_encode_tile with bc_enc_choose32 and bc_enc_write32 for
 * widths 1, 2 and 4. */
static __device__ uint32_t bc_encode_tile32(bc_ws *ws, const uint8_t *src, uint32_t cnt, uint32_t dtype,
                                            uint32_t algo, uint32_t nw)
{
    uint32_t w = own_type_width(dtype), raw = cnt * w;
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, algo, BC_VERSION);
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
    if (w == 4)
        OWN_RUN(nw, bc_enc_write32<4>, ws, src);
    else if (w == 2)
        OWN_RUN(nw, bc_enc_write32<2>, ws, src);
    else if (w == 1)
        OWN_RUN(nw, bc_enc_write32<1>, ws, src);
    else
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
    return own_tiled_compress_v(ws, &algo, src, n, OWN_ID_BITCOMP, BC_VERSION, dtype, algo, BC_TILE, dst, cap,
                                out, nw, bc_tile_encode_in, bc_tile_put32, bc_bytes_copy);
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
