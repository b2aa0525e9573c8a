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
 * out): 1.31-1.69x more; session 12 (each block read from the stage once
 * into registers, every statistic and both patched searches from them,
 * 8-byte elements too; patched blocks written in 32-bit arithmetic):
 * 1.23-1.59x more (H200, bench/gpu/owncodecs/NOTES.md).  The
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

/* A persistent grid over the batch's tiles (bitcomp_dec_gpu.cuh's tile
 * decoder), bounded to 6 CTAs an SM (the shared-memory limit: 36 KiB a
 * tile workspace; 40 registers instead of 64, ptxas spills a little):
 * 1.06-1.10x the 4 CTAs of 64 registers on bf16, f32 and partkey, 1.00x on
 * orderkey and sorted_partkey (bc_dev "6-ctas", sessions 11 and 12, H200;
 * bc_dev keeps the unbounded kernel as "4-ctas"). */
static __global__ void __launch_bounds__(BCK_THREADS, 6)
    bc_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
               own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    own_tiled_tiles(n, src, src_sizes, dst, s, bc_smem, bc_chunk_check, bc_tile_decode_gpu, BCK_WARPS);
}

/* ---- compression ------------------------------------------------------------ */

/* What the choice of a block of 1-4 byte elements (but f32) leaves for
 * the tile's pick (bc_enc_pick_layout): its statistics. */
typedef struct bc_pick_in {
    uint32_t umin, umax, and_, or_, nnz, f[9], bm[4];
    bc_patch pd, pf;
} bc_pick_in;

/* The encoder's workspace: the core's, then the tile's input (the largest
 * tile: 32 KiB) and the blocks' statistics for the pick, 72.9 KiB, still
 * 3 CTAs an SM (219 of 228 KiB). */
typedef struct bc_ws_in {
    bc_ws ws;
    uint4 in[BC_TILE_MAX_BYTES / 16u];
    bc_pick_in pick[BC_BLOCKS];
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
 * in session 9).  Session 12 ("onepass", bc_dev): the block read from the
 * stage once into registers (4 elements a lane, each one's predecessor by
 * one shuffle) and every statistic - the frames' maxima, PDELTA's and
 * PFLT's residual lengths included - computed from them (before: 3 passes
 * over the stage on integers, 5 on floats); 8-byte elements the same in
 * 64-bit (bc_enc_choose64; before: the core's bc_enc_choose). */
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

/* bc_enc_pick without decimals (flt == 0), the same choice; scalar, in the
 * lane that calls it (bc_enc_pick_layout: a lane a block). */
static __device__ __forceinline__ void bc_enc_pick32_one(const bc_ws *ws, bc_block *bl, const uint8_t *p,
                                                         uint32_t w, uint32_t cnt, uint32_t m, uint32_t umin,
                                                         uint32_t umax, uint32_t and_, uint32_t or_,
                                                         const uint32_t *f, uint32_t nnz, const uint32_t *bm,
                                                         const bc_patch *pd, const bc_patch *pf)
{
    /* f: fo, fx, fbase, do, dx, dbase, no, nx, nbase */
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

#define BC_PER_LANE (BC_BLOCK / OWN_NLANES) /* elements of a block a lane holds: 4 */

/* The core's bc_patch_search from the bit lengths of the lane's residuals
 * (len[j]: element j's, 0 where it is no residual): the same k, nx, kx,
 * bits.  bc_patch_regs32 and bc_patch_regs64 measure the lengths. */
static __device__ __forceinline__ bc_patch bc_patch_lens(const uint32_t *len, uint32_t nv, uint64_t base)
{
    bc_patch out = {0, 0, 0, 0, base, 0};
    uint32_t mb = 0;
#pragma unroll
    for (uint32_t j = 0; j < BC_PER_LANE; j++)
        mb = max(mb, len[j]);
    mb = __reduce_max_sync(OWN_FULL, mb);
    uint32_t best = 0xffffffffu;
    for (uint32_t k = mb; k-- > 0;) {
        uint32_t c = 0;
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++)
            c += len[j] > k;
        c = __reduce_add_sync(OWN_FULL, c);
        if (c > BC_NX)
            break;
        uint32_t cost = nv * k + c * (7u + mb - k);
        if (cost < best)
            best = cost, out.ok = 1, out.k = k, out.nx = c, out.kx = mb - k, out.bits = cost;
    }
    return out;
}

/* bc_patch_lens of residuals in registers (has[j]: element j of the lane
 * is a residual; r[j] its value). */
static __device__ __forceinline__ bc_patch bc_patch_regs32(const uint32_t *r, const uint32_t *has,
                                                           uint32_t nv, uint64_t base)
{
    uint32_t len[BC_PER_LANE];
#pragma unroll
    for (uint32_t j = 0; j < BC_PER_LANE; j++)
        len[j] = has[j] ? bc_bits32(r[j]) : 0u;
    return bc_patch_lens(len, nv, base);
}

/* The blocks of warp wp: statistics, frames, patched searches from the
 * registers, then the pick (bc_enc_pick32; f32: the core's bc_enc_pick). */
template <uint32_t W>
static __device__ void bc_enc_choose32(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
{
    const uint32_t w = W, bits = 8u * W;
    const uint64_t m = own_mask64(bits);
    const uint32_t m32 = (uint32_t)m, L = OWN_LANE();
    const int patched = ws->version >= 2u && ws->algo == 0;
    for (uint32_t b = wp; b < ws->nb; b += nw) {
        bc_block *bl = &ws->blk[b];
        uint32_t cnt = bc_block_count(ws->cnt, b);
        const uint8_t *p = src + (uint64_t)b * BC_BLOCK * w;
        uint32_t v[BC_PER_LANE], dv[BC_PER_LANE], ok[BC_PER_LANE], okd[BC_PER_LANE];
        uint32_t prev = 0;
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++) { /* the one read of the block */
            uint32_t e = j * OWN_NLANES + L;
            ok[j] = e < cnt;
            v[j] = ok[j] ? bc_ld32<W>(p, e) : 0u;
        }
        bc_stats32 a, d, z;
        bc_s32_init(&a);
        bc_s32_init(&d);
        bc_s32_init(&z);
        uint32_t nnz = 0, bm[BC_PER_LANE];
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++) {
            uint32_t e = j * OWN_NLANES + L;
            uint32_t up = __shfl_up_sync(OWN_FULL, v[j], 1);
            uint32_t pv = L == 0 ? prev : up;
            prev = __shfl_sync(OWN_FULL, v[j], 31);
            dv[j] = (v[j] - pv) & m32;
            okd[j] = ok[j] && e > 0;
            if (ok[j])
                bc_s32_add<W>(&a, v[j]);
            if (okd[j])
                bc_s32_add<W>(&d, dv[j]);
            if (ok[j] && v[j]) {
                bc_s32_add<W>(&z, v[j]);
                nnz++;
            }
            bm[j] = own_ballot(ok[j] && v[j] != 0);
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
        nnz = __reduce_add_sync(OWN_FULL, nnz);
        uint32_t fb = bc_base32(aumin, aumax, asmin, asmax, m32);
        uint32_t db = cnt > 1 ? bc_base32(dumin, dumax, dsmin, dsmax, m32) : 0u;
        uint32_t nb = nnz ? bc_base32(zumin, zumax, zsmin, zsmax, m32) : 0u;
        uint32_t fo32 = 0, fx32 = 0, do32 = 0, dx32 = 0, no32 = 0, nx32 = 0;
        uint32_t y[BC_PER_LANE], ymax = 0;
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++) {
            uint32_t r = (v[j] - fb) & m32, dd = (dv[j] - db) & m32, q = (v[j] - nb) & m32;
            if (ok[j])
                fo32 |= r, fx32 = max(fx32, r);
            if (okd[j])
                do32 |= dd, dx32 = max(dx32, dd);
            if (ok[j] && v[j])
                no32 |= q, nx32 = max(nx32, q);
            y[j] = ((v[j] << 1) | (v[j] >> (bits - 1u))) & m32; /* PFLT's rotation */
            if (ok[j])
                ymax = max(ymax, y[j]);
        }
        if (L == 0)
            ws->umin[b] = aumin, ws->umax[b] = aumax;
        uint32_t f[9] = {__reduce_or_sync(OWN_FULL, fo32), __reduce_max_sync(OWN_FULL, fx32), fb,
                         __reduce_or_sync(OWN_FULL, do32), __reduce_max_sync(OWN_FULL, dx32), db,
                         __reduce_or_sync(OWN_FULL, no32), __reduce_max_sync(OWN_FULL, nx32), nb};
        bc_patch pd = {0, 0, 0, 0, 0, 0}, pf = pd;
        if (patched && cnt > 1) { /* PDELTA: the deltas minus dmin */
            uint32_t r[BC_PER_LANE];
#pragma unroll
            for (uint32_t j = 0; j < BC_PER_LANE; j++)
                r[j] = (dv[j] - db) & m32;
            pd = bc_patch_regs32(r, okd, cnt - 1u, db);
        }
        if (patched && ws->fp) { /* PFLT: the maximum minus the rotated values */
            uint32_t base = __reduce_max_sync(OWN_FULL, ymax), r[BC_PER_LANE];
#pragma unroll
            for (uint32_t j = 0; j < BC_PER_LANE; j++)
                r[j] = (base - y[j]) & m32;
            pf = bc_patch_regs32(r, ok, cnt, base);
        }
        uint32_t bml[4] = {bm[0], bm[1], bm[2], bm[3]};
        if (ws->flt == 0) { /* the statistics for the tile's pick (bc_enc_pick_layout) */
            bc_pick_in *t = &((bc_ws_in *)ws)->pick[b];
            if (L == 0) {
                t->umin = aumin, t->umax = aumax, t->and_ = aand, t->or_ = aor, t->nnz = nnz;
                for (uint32_t q = 0; q < 9; q++)
                    t->f[q] = f[q];
                for (uint32_t q = 0; q < 4; q++)
                    t->bm[q] = bml[q];
                t->pd = pd, t->pf = pf;
            }
        } else { /* f32: the core's choice, decimals tried, on the widened statistics */
            bc_stats sv = {aumin, aumax, aand, aor, (int64_t)asmin, (int64_t)asmax};
            bc_sums t = {
                f[0], f[1], fb, f[3], f[4], db, f[6], f[7], nb, nnz, {bml[0], bml[1], bml[2], bml[3]},
                pd,   pf};
            bc_enc_pick(ws, bl, p, w, cnt, m, &sv, &t);
        }
    }
}

/* The same for 8-byte elements: the core's bc_enc_choose (64-bit
 * statistics, its reductions, bc_enc_pick with f64's decimals) with the
 * block read once into registers and both patched searches from them. */
static __device__ __forceinline__ bc_patch bc_patch_regs64(const uint64_t *r, const uint32_t *has,
                                                           uint32_t nv, uint64_t base)
{
    uint32_t len[BC_PER_LANE];
#pragma unroll
    for (uint32_t j = 0; j < BC_PER_LANE; j++)
        len[j] = has[j] ? own_bits64(r[j]) : 0u;
    return bc_patch_lens(len, nv, base);
}

static __device__ void bc_enc_choose64(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
{
    const uint32_t w = 8, bits = 64, L = OWN_LANE();
    const uint64_t m = own_mask64(bits);
    const int patched = ws->version >= 2u && ws->algo == 0;
    for (uint32_t b = wp; b < ws->nb; b += nw) {
        bc_block *bl = &ws->blk[b];
        uint32_t cnt = bc_block_count(ws->cnt, b);
        const uint8_t *p = src + (uint64_t)b * BC_BLOCK * w;
        uint64_t v[BC_PER_LANE], dv[BC_PER_LANE], prev = 0;
        uint32_t ok[BC_PER_LANE], okd[BC_PER_LANE];
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++) {
            uint32_t e = j * OWN_NLANES + L;
            ok[j] = e < cnt;
            v[j] = ok[j] ? ((const uint64_t *)p)[e] : 0u; /* the stage is 16-byte aligned */
        }
        bc_stats sv, sd, sn;
        bc_stats_init(&sv);
        bc_stats_init(&sd);
        bc_stats_init(&sn);
        uint32_t nnz = 0, bm[BC_PER_LANE];
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++) {
            uint32_t e = j * OWN_NLANES + L;
            uint64_t up = __shfl_up_sync(OWN_FULL, v[j], 1);
            uint64_t pv = L == 0 ? prev : up;
            prev = __shfl_sync(OWN_FULL, v[j], 31);
            dv[j] = v[j] - pv;
            okd[j] = ok[j] && e > 0;
            if (ok[j])
                bc_stats_add(&sv, v[j], bits);
            if (okd[j])
                bc_stats_add(&sd, dv[j], bits);
            if (ok[j] && v[j]) {
                bc_stats_add(&sn, v[j], bits);
                nnz++;
            }
            bm[j] = own_ballot(ok[j] && v[j] != 0);
        }
        bc_stats_reduce(&sv);
        bc_stats_reduce(&sd);
        bc_stats_reduce(&sn);
        nnz = __reduce_add_sync(OWN_FULL, nnz);
        uint64_t fbase = bc_base(sv.umin, sv.umax, sv.smin, sv.smax, m);
        uint64_t dbase = cnt > 1 ? bc_base(sd.umin, sd.umax, sd.smin, sd.smax, m) : 0;
        uint64_t nbase = nnz ? bc_base(sn.umin, sn.umax, sn.smin, sn.smax, m) : 0;
        uint64_t fo = 0, fx = 0, dorr = 0, dx = 0, no = 0, nx = 0, y[BC_PER_LANE], ymax = 0;
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++) {
            uint64_t r = v[j] - fbase, dd = dv[j] - dbase, q = v[j] - nbase;
            if (ok[j])
                fo |= r, fx = r > fx ? r : fx;
            if (okd[j])
                dorr |= dd, dx = dd > dx ? dd : dx;
            if (ok[j] && v[j])
                no |= q, nx = q > nx ? q : nx;
            y[j] = bc_rotl1(v[j], bits);
            if (ok[j])
                ymax = y[j] > ymax ? y[j] : ymax;
        }
        fo = own_warp_or64(fo), dorr = own_warp_or64(dorr), no = own_warp_or64(no);
        fx = own_warp_max_u64(fx), dx = own_warp_max_u64(dx), nx = own_warp_max_u64(nx);
        bc_sums t = {fo,  fx, fbase, dorr, dx, dbase, no, nx, nbase, nnz, {bm[0], bm[1], bm[2], bm[3]},
                     {0}, {0}};
        if (patched && cnt > 1) {
            uint64_t r[BC_PER_LANE];
#pragma unroll
            for (uint32_t j = 0; j < BC_PER_LANE; j++)
                r[j] = dv[j] - dbase;
            t.pd = bc_patch_regs64(r, okd, cnt - 1u, dbase);
        }
        if (patched && ws->fp) {
            uint64_t base = own_warp_max_u64(ymax), r[BC_PER_LANE];
#pragma unroll
            for (uint32_t j = 0; j < BC_PER_LANE; j++)
                r[j] = base - y[j];
            t.pf = bc_patch_regs64(r, ok, cnt, base);
        }
        if (L == 0)
            ws->umin[b] = sv.umin, ws->umax[b] = sv.umax;
        bc_enc_pick(ws, bl, p, w, cnt, m, &sv, &t);
    }
}

/* The tile's picks and layout (warp 0): for 1-4 byte elements but f32,
 * every block's pick at once, a lane a block, from the statistics its
 * choice left (session 12, bc_dev "lanepick": the pick was lane 0 of each
 * block's warp, ~200 scalar instructions a block issued by a whole warp;
 * H200, 1.05x on bf16, 1.03x on partkey, the same bytes); then the core's
 * layout. */
template <uint32_t W>
static __device__ void bc_enc_pick_layout(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
{
    if (wp != 0)
        return;
    uint32_t b = OWN_LANE();
    if (ws->flt == 0 && b < ws->nb) {
        const bc_pick_in *t = &((const bc_ws_in *)ws)->pick[b];
        bc_enc_pick32_one(ws, &ws->blk[b], src + (uint64_t)b * BC_BLOCK * W, W, bc_block_count(ws->cnt, b),
                          W == 4 ? 0xffffffffu : (1u << (8u * W)) - 1u, t->umin, t->umax, t->and_, t->or_,
                          t->f, t->nnz, t->bm, &t->pd, &t->pf);
    }
    __syncwarp();
    bc_enc_layout(ws, wp, nw);
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

/* A patched block's payload (PDELTA, PFLT) for elements of W <= 4 bytes:
 * the core's bc_enc_write_patched (the same bits: every value's k low
 * bits, then the exceptions in element order ranked by a ballot) with the
 * residual from one typed load and a shuffle, in 32-bit arithmetic, and
 * bc_put32's one or two atomicOr (the core: 64-bit residuals, a delta's
 * two loads, own_put_bits' 64-bit positions).  k + kx <= 8W <= 32. */
template <uint32_t W>
static __device__ __forceinline__ void bc_enc_write_patched32(uint32_t *S, const bc_block *bl,
                                                              const uint8_t *p)
{
    const uint32_t m = W == 4 ? 0xffffffffu : (1u << (8u * W)) - 1u, L = OWN_LANE();
    const uint32_t d = bl->kind == BC_PDELTA, k = bl->k, kx = bl->kx, cnt = bl->cnt, xw = 7u + kx;
    const uint32_t p0 = (uint32_t)bl->poff, x0 = p0 + (cnt - d) * k;
    const uint32_t base = d ? (uint32_t)bl->b : (uint32_t)bl->a, km = k >= 32u ? 0xffffffffu : (1u << k) - 1u;
    uint32_t carry = 0, prev = 0;
    for (uint32_t b0 = 0; b0 < cnt; b0 += OWN_NLANES) {
        uint32_t e = b0 + L;
        uint32_t v = e < cnt ? bc_ld32<W>(p, e) : 0u;
        uint32_t up = __shfl_up_sync(OWN_FULL, v, 1), pv = L == 0 ? prev : up;
        prev = __shfl_sync(OWN_FULL, v, 31);
        int has = e < cnt && e >= d;
        uint32_t r = d ? ((v - pv) - base) & m : (base - (((v << 1) | (v >> (8u * W - 1u))) & m)) & m;
        r = has ? r : 0u;
        int exc = has && bc_bits32(r) > k;
        uint32_t ball = __ballot_sync(OWN_FULL, exc);
        uint32_t rank = carry + (uint32_t)__popc(ball & ((1u << L) - 1u));
        carry += (uint32_t)__popc(ball);
        if (has && k)
            bc_put32(S, p0 + (e - d) * k, r & km, k);
        if (exc) { /* k < 32 */
            bc_put32(S, x0 + rank * xw, e, 7u);
            if (kx)
                bc_put32(S, x0 + rank * xw + 7u, r >> k, kx);
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
            bc_enc_write_patched32<W>(S, bl, p);
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
        OWN_RUN(nw, bc_enc_choose64, ws, src);
    if (w == 4)
        OWN_RUN(nw, bc_enc_pick_layout<4>, ws, src);
    else if (w == 2)
        OWN_RUN(nw, bc_enc_pick_layout<2>, ws, src);
    else if (w == 1)
        OWN_RUN(nw, bc_enc_pick_layout<1>, ws, src);
    else
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
