/*
 * bc_enc_hist.cuh - why this exists: format version 2's patched candidates
 * made the Bitcomp encoder 1.6-2.1x slower (call B, session 11: bf16 180 ->
 * 84, partkey 398 -> 252, orderkey 278 -> 155 GB/s): the first patched
 * search (bc_patch_search) re-read and recomputed every residual once a
 * candidate k.  Call B2 measured "hist" (each residual's bit length kept as
 * a byte of a lane's word, then 4 compares and a warp sum a k; the same
 * bytes) at 1.14-1.26x the library (bf16 84 -> 99, orderkey 154 -> 195, f32
 * 102 -> 116, partkey 251 -> 298 GB/s) and it moved into the core
 * (bc_patch_search, both engines).  bc_dev keeps the encoder it was
 * measured against as "reread": the library's encoder (bc_enc_choose32,
 * the core's bc_enc_choose for 8-byte elements, bc_encode_tile32,
 * bc_tile_encode_in, copied) with the first search.
 */
#ifndef BC_ENC_HIST_CUH
#define BC_ENC_HIST_CUH

/* reread: session 11's first patched search (bitcomp_core.h's before "hist"
 * moved in): every residual recomputed (64-bit, two loads for a delta) once
 * a candidate k. */
static __device__ bc_patch bcx_patch_search_h(const uint8_t *p, uint32_t w, uint32_t cnt, int delta,
                                              uint64_t base, uint64_t m)
{
    bc_patch r = {0, 0, 0, 0, base, 0};
    uint32_t bits = 8u * w, d = delta ? 1u : 0u, nv = cnt - d;
    if (!delta) { /* the base: the largest rotated value */
        uint64_t mx = 0;
        for (uint32_t e = OWN_LANE(); e < cnt; e += OWN_NLANES) {
            uint64_t y = bc_rotl1(bc_load(p + (uint64_t)e * w, w), bits);
            mx = y > mx ? y : mx;
        }
        r.base = base = own_warp_max_u64(mx);
    }
    uint64_t mx = 0;
    for (uint32_t e = d + OWN_LANE(); e < cnt; e += OWN_NLANES) {
        uint64_t q = bc_patch_res(p, w, e, delta, base, m);
        mx = q > mx ? q : mx;
    }
    uint32_t mb = own_bits64(own_warp_max_u64(mx));
    uint64_t best = ~(uint64_t)0;
    for (uint32_t k = mb; k-- > 0;) {
        uint32_t c = 0;
        for (uint32_t e = d + OWN_LANE(); e < cnt; e += OWN_NLANES)
            c += own_bits64(bc_patch_res(p, w, e, delta, base, m)) > k;
        c = own_warp_sum32(c);
        if (c > BC_NX)
            break;
        uint64_t cost = (uint64_t)nv * k + (uint64_t)c * (7u + mb - k);
        if (cost < best)
            best = cost, r.ok = 1, r.k = k, r.nx = c, r.kx = mb - k, r.bits = cost;
    }
    return r;
}

static __device__ void bcx_patch_both_h(const bc_ws *ws, const uint8_t *p, uint32_t w, uint32_t cnt,
                                        uint64_t dbase, uint64_t m, bc_patch *pd, bc_patch *pf)
{
    bc_patch none = {0, 0, 0, 0, 0, 0};
    *pd = *pf = none;
    if (ws->version < 2u || ws->algo != 0)
        return;
    if (cnt > 1)
        *pd = bcx_patch_search_h(p, w, cnt, 1, dbase, m);
    if (ws->fp)
        *pf = bcx_patch_search_h(p, w, cnt, 0, 0, m);
}

/* The library's choice (bitcomp_kernels.cu, bitcomp_core.h) with the search above. */
template <uint32_t W>
static __device__ void bcx_enc_choose32_h(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
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
        bcx_patch_both_h(ws, p, w, cnt, db, m, &pd, &pf);
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

static __device__ void bcx_enc_choose_h(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
{
    uint32_t w = ws->w, bits = 8u * w;
    uint64_t m = own_mask64(bits);
    for (uint32_t b = wp; b < ws->nb; b += nw) {
        bc_block *bl = &ws->blk[b];
        uint32_t cnt = bc_block_count(ws->cnt, b);
        const uint8_t *p = src + (uint64_t)b * BC_BLOCK * w;
        bc_stats sv, sd, sn;
        bc_stats_init(&sv);
        bc_stats_init(&sd);
        bc_stats_init(&sn);
        uint32_t nnz = 0, bm[4] = {0, 0, 0, 0};
        for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
            uint32_t e = base + OWN_LANE();
            if (e < cnt) {
                uint64_t v = bc_load(p + (uint64_t)e * w, w);
                bc_stats_add(&sv, v, bits);
                if (e > 0)
                    bc_stats_add(&sd, (v - bc_load(p + (uint64_t)(e - 1) * w, w)) & m, bits);
                if (v) {
                    bc_stats_add(&sn, v, bits);
                    nnz++;
                }
            }
            uint32_t ball = own_ballot(e < cnt && bc_load(p + (uint64_t)(e < cnt ? e : 0) * w, w) != 0);
#ifdef __CUDA_ARCH__
            if (OWN_LANE() == 0)
                bm[base / 32] = ball;
#else
            bm[e / 32] |= ball << (e % 32);
#endif
        }
        bc_stats_reduce(&sv);
        bc_stats_reduce(&sd);
        bc_stats_reduce(&sn);
        nnz = own_warp_sum32(nnz);
        uint64_t fbase = bc_base(sv.umin, sv.umax, sv.smin, sv.smax, m);
        uint64_t dbase = cnt > 1 ? bc_base(sd.umin, sd.umax, sd.smin, sd.smax, m) : 0;
        uint64_t nbase = nnz ? bc_base(sn.umin, sn.umax, sn.smin, sn.smax, m) : 0;
        /* second pass: common trailing zeros and largest value of each coding */
        uint64_t fo = 0, fx = 0, dorr = 0, dx = 0, no = 0, nx = 0;
        for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
            uint32_t e = base + OWN_LANE();
            if (e < cnt) {
                uint64_t v = bc_load(p + (uint64_t)e * w, w);
                uint64_t r = (v - fbase) & m;
                fo |= r;
                fx = r > fx ? r : fx;
                if (e > 0) {
                    uint64_t d = ((v - bc_load(p + (uint64_t)(e - 1) * w, w)) - dbase) & m;
                    dorr |= d;
                    dx = d > dx ? d : dx;
                }
                if (v) {
                    uint64_t q = (v - nbase) & m;
                    no |= q;
                    nx = q > nx ? q : nx;
                }
            }
        }
        fo = own_warp_or64(fo), dorr = own_warp_or64(dorr), no = own_warp_or64(no);
        fx = own_warp_max_u64(fx), dx = own_warp_max_u64(dx), nx = own_warp_max_u64(nx);
        bc_sums t = {fo,  fx, fbase, dorr, dx, dbase, no, nx, nbase, nnz, {bm[0], bm[1], bm[2], bm[3]},
                     {0}, {0}};
        bcx_patch_both_h(ws, p, w, cnt, dbase, m, &t.pd, &t.pf);
        if (OWN_LANE() == 0)
            ws->umin[b] = sv.umin, ws->umax[b] = sv.umax;
        bc_enc_pick(ws, bl, p, w, cnt, m, &sv, &t);
    }
}

static __device__ uint32_t bcx_encode_tile32_h(bc_ws *ws, const uint8_t *src, uint32_t cnt, uint32_t dtype,
                                               uint32_t algo, uint32_t nw)
{
    uint32_t w = own_type_width(dtype), raw = cnt * w;
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, algo, BC_VERSION);
    if (w == 4)
        OWN_RUN(nw, bcx_enc_choose32_h<4>, ws, src);
    else if (w == 2)
        OWN_RUN(nw, bcx_enc_choose32_h<2>, ws, src);
    else if (w == 1)
        OWN_RUN(nw, bcx_enc_choose32_h<1>, ws, src);
    else
        OWN_RUN(nw, bcx_enc_choose_h, ws, src);
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

static __device__ uint32_t bcx_tile_encode_in_h(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt,
                                                uint32_t dtype, uint32_t nw)
{
    bc_ws_in *W = (bc_ws_in *)ws;
    bc_in_stage(W->in, tile, cnt * own_type_width(dtype));
    return bcx_encode_tile32_h(&W->ws, (const uint8_t *)W->in, cnt, dtype, *(const uint32_t *)opts, nw);
}

static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode_reread(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                       const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype,
                       uint32_t algo)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    bc_ws_in *ws = (bc_ws_in *)bc_smem;
    own_tiled_encode(n, src, src_sizes, dst, caps, dst_sizes, statuses,
                     [=](const uint8_t *p, size_t len, uint8_t *d, size_t cap, uint64_t *out) {
                         *out = 0;
                         if (own_type_width(dtype) == 0 || algo > 1)
                             return OC_ERR_INVALID_ARGUMENT;
                         uint32_t a = algo;
                         return own_tiled_compress_v(ws, &a, p, len, OWN_ID_BITCOMP, BC_VERSION, dtype, algo,
                                                     BC_TILE, d, cap, out, BCK_WARPS, bcx_tile_encode_in_h,
                                                     bc_tile_put32, bc_bytes_copy);
                     });
}

#endif /* BC_ENC_HIST_CUH */
