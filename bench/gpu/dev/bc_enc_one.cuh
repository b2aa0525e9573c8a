/*
 * bc_enc_one.cuh - why this exists: Bitcomp-class compression runs at
 * 0.13-0.37x nVCOMP (session 11, H200) and its per-block choice for 1-4 byte
 * elements (bc_enc_choose32) reads the staged block from shared memory once
 * a statistic: the values' statistics, the frames' maxima, PDELTA's
 * residual lengths, PFLT's maximum and its residual lengths (5 passes, each
 * with a load and, for deltas, two shuffles an element).  "onepass": the
 * block read once into registers (4 elements a lane: e = L, L+32, L+64,
 * L+96, each with its predecessor by one shuffle), every candidate's
 * statistics and both patched searches from those registers, the library's
 * pick (bc_enc_pick32, or the core's bc_enc_pick for f32 with its decimal
 * passes), layout and write pass unchanged: the same choice, so the same
 * bytes (bc_dev compares them with the library's).  Prediction in
 * bench/gpu/owncodecs/NOTES.md (session 12).
 */
#ifndef BC_ENC_ONE_CUH
#define BC_ENC_ONE_CUH

#define BCO_PER (BC_BLOCK / OWN_NLANES) /* elements a lane holds: 4 */

/* The core's bc_patch_search from residuals in registers (has[j]: element
 * j of the lane is a residual; r[j] its value): the same k, nx, kx, bits. */
static __device__ __forceinline__ bc_patch bco_patch_regs(const uint32_t *r, const uint32_t *has, uint32_t nv,
                                                          uint64_t base)
{
    bc_patch out = {0, 0, 0, 0, base, 0};
    uint32_t len[BCO_PER], mb = 0;
#pragma unroll
    for (uint32_t j = 0; j < BCO_PER; j++) {
        len[j] = has[j] ? bc_bits32(r[j]) : 0u;
        mb = max(mb, len[j]);
    }
    mb = __reduce_max_sync(OWN_FULL, mb);
    uint32_t best = 0xffffffffu;
    for (uint32_t k = mb; k-- > 0;) {
        uint32_t c = 0;
#pragma unroll
        for (uint32_t j = 0; j < BCO_PER; j++)
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

template <uint32_t W>
static __device__ void bco_enc_choose32(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
{
    const uint32_t w = W, bits = 8u * W;
    const uint64_t m = own_mask64(bits);
    const uint32_t m32 = (uint32_t)m, L = OWN_LANE();
    const int patched = ws->version >= 2u && ws->algo == 0;
    for (uint32_t b = wp; b < ws->nb; b += nw) {
        bc_block *bl = &ws->blk[b];
        uint32_t cnt = bc_block_count(ws->cnt, b);
        const uint8_t *p = src + (uint64_t)b * BC_BLOCK * w;
        uint32_t v[BCO_PER], dv[BCO_PER], ok[BCO_PER], okd[BCO_PER];
        uint32_t prev = 0;
#pragma unroll
        for (uint32_t j = 0; j < BCO_PER; j++) { /* the one read of the block */
            uint32_t e = j * OWN_NLANES + L;
            ok[j] = e < cnt;
            v[j] = ok[j] ? bc_ld32<W>(p, e) : 0u;
        }
        bc_stats32 a, d, z;
        bc_s32_init(&a);
        bc_s32_init(&d);
        bc_s32_init(&z);
        uint32_t nnz = 0, bm[BCO_PER];
#pragma unroll
        for (uint32_t j = 0; j < BCO_PER; j++) {
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
        uint32_t y[BCO_PER], ymax = 0;
#pragma unroll
        for (uint32_t j = 0; j < BCO_PER; j++) {
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
            uint32_t r[BCO_PER];
#pragma unroll
            for (uint32_t j = 0; j < BCO_PER; j++)
                r[j] = (dv[j] - db) & m32;
            pd = bco_patch_regs(r, okd, cnt - 1u, db);
        }
        if (patched && ws->fp) { /* PFLT: the maximum minus the rotated values */
            uint32_t base = __reduce_max_sync(OWN_FULL, ymax), r[BCO_PER];
#pragma unroll
            for (uint32_t j = 0; j < BCO_PER; j++)
                r[j] = (base - y[j]) & m32;
            pf = bco_patch_regs(r, ok, cnt, base);
        }
        uint32_t bml[4] = {bm[0], bm[1], bm[2], bm[3]};
        if (ws->flt == 0) {
            bc_enc_pick32(ws, bl, p, w, cnt, m32, aumin, aumax, aand, aor, f, nnz, bml, &pd, &pf);
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
static __device__ __forceinline__ bc_patch bco_patch_regs64(const uint64_t *r, const uint32_t *has,
                                                            uint32_t nv, uint64_t base)
{
    bc_patch out = {0, 0, 0, 0, base, 0};
    uint32_t len[BCO_PER], mb = 0;
#pragma unroll
    for (uint32_t j = 0; j < BCO_PER; j++) {
        len[j] = has[j] ? own_bits64(r[j]) : 0u;
        mb = max(mb, len[j]);
    }
    mb = __reduce_max_sync(OWN_FULL, mb);
    uint32_t best = 0xffffffffu;
    for (uint32_t k = mb; k-- > 0;) {
        uint32_t c = 0;
#pragma unroll
        for (uint32_t j = 0; j < BCO_PER; j++)
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

static __device__ void bco_enc_choose64(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
{
    const uint32_t w = 8, bits = 64, L = OWN_LANE();
    const uint64_t m = own_mask64(bits);
    const int patched = ws->version >= 2u && ws->algo == 0;
    for (uint32_t b = wp; b < ws->nb; b += nw) {
        bc_block *bl = &ws->blk[b];
        uint32_t cnt = bc_block_count(ws->cnt, b);
        const uint8_t *p = src + (uint64_t)b * BC_BLOCK * w;
        uint64_t v[BCO_PER], dv[BCO_PER], prev = 0;
        uint32_t ok[BCO_PER], okd[BCO_PER];
#pragma unroll
        for (uint32_t j = 0; j < BCO_PER; j++) {
            uint32_t e = j * OWN_NLANES + L;
            ok[j] = e < cnt;
            v[j] = ok[j] ? ((const uint64_t *)p)[e] : 0u; /* the stage is 16-byte aligned */
        }
        bc_stats sv, sd, sn;
        bc_stats_init(&sv);
        bc_stats_init(&sd);
        bc_stats_init(&sn);
        uint32_t nnz = 0, bm[BCO_PER];
#pragma unroll
        for (uint32_t j = 0; j < BCO_PER; j++) {
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
        uint64_t fo = 0, fx = 0, dorr = 0, dx = 0, no = 0, nx = 0, y[BCO_PER], ymax = 0;
#pragma unroll
        for (uint32_t j = 0; j < BCO_PER; j++) {
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
            uint64_t r[BCO_PER];
#pragma unroll
            for (uint32_t j = 0; j < BCO_PER; j++)
                r[j] = dv[j] - dbase;
            t.pd = bco_patch_regs64(r, okd, cnt - 1u, dbase);
        }
        if (patched && ws->fp) {
            uint64_t base = own_warp_max_u64(ymax), r[BCO_PER];
#pragma unroll
            for (uint32_t j = 0; j < BCO_PER; j++)
                r[j] = base - y[j];
            t.pf = bco_patch_regs64(r, ok, cnt, base);
        }
        if (L == 0)
            ws->umin[b] = sv.umin, ws->umax[b] = sv.umax;
        bc_enc_pick(ws, bl, p, w, cnt, m, &sv, &t);
    }
}

/* "onepass-pw": onepass and, for 1-4 byte elements, the patched blocks'
 * write pass in 32-bit arithmetic (the library's bc_enc_write32 sends
 * PDELTA/PFLT blocks to the core's bc_enc_write_patched: 64-bit residuals,
 * a delta's two loads, own_put_bits' 64-bit positions): the residual from
 * one load and a shuffle, bc_put32's one or two atomicOr.  The same bits
 * (k + kx <= 8W <= 32, positions < 128). */
template <uint32_t W>
static __device__ __forceinline__ void bco_write_patched32(uint32_t *S, const bc_block *bl, const uint8_t *p)
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

/* The library's bc_enc_write32 with the patched blocks above. */
template <uint32_t W>
static __device__ void bco_enc_write32(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
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
            bco_write_patched32<W>(S, bl, p);
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
                (void)bc_dec_exact(bc_ld32<W>(p, e), s, ws->flt, &d);
                own_put_bits(S, bl->poff + (uint64_t)e * k, ((uint64_t)d - bl->a) & m, k);
            }
            break;
        }
    }
}

/* The library's bc_encode_tile32 with the choice above (and bco_enc_choose64 for 8 bytes). */
template <int PW>
static __device__ uint32_t bco_encode_tile32(bc_ws *ws, const uint8_t *src, uint32_t cnt, uint32_t dtype,
                                             uint32_t algo, uint32_t nw)
{
    uint32_t w = own_type_width(dtype), raw = cnt * w;
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, algo, BC_VERSION);
    if (w == 4)
        OWN_RUN(nw, bco_enc_choose32<4>, ws, src);
    else if (w == 2)
        OWN_RUN(nw, bco_enc_choose32<2>, ws, src);
    else if (w == 1)
        OWN_RUN(nw, bco_enc_choose32<1>, ws, src);
    else
        OWN_RUN(nw, bco_enc_choose64, ws, src);
    OWN_RUN(nw, bc_enc_layout, ws);
    uint32_t size = ws->size;
    if (size >= raw)
        return raw;
    OWN_RUN(nw, bc_enc_zero, ws, (size + 3u) / 4u + 4u);
    if (w == 4 && PW)
        OWN_RUN(nw, bco_enc_write32<4>, ws, src);
    else if (w == 4)
        OWN_RUN(nw, bc_enc_write32<4>, ws, src);
    else if (w == 2 && PW)
        OWN_RUN(nw, bco_enc_write32<2>, ws, src);
    else if (w == 2)
        OWN_RUN(nw, bc_enc_write32<2>, ws, src);
    else if (w == 1 && PW)
        OWN_RUN(nw, bco_enc_write32<1>, ws, src);
    else if (w == 1)
        OWN_RUN(nw, bc_enc_write32<1>, ws, src);
    else
        OWN_RUN(nw, bc_enc_write, ws, src);
    return size;
}

template <int PW>
static __device__ uint32_t bco_tile_encode_in(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt,
                                              uint32_t dtype, uint32_t nw)
{
    bc_ws_in *W = (bc_ws_in *)ws;
    bc_in_stage(W->in, tile, cnt * own_type_width(dtype));
    return bco_encode_tile32<PW>(&W->ws, (const uint8_t *)W->in, cnt, dtype, *(const uint32_t *)opts, nw);
}

static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode_one(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                    const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype, uint32_t algo)
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
                                                     BC_TILE, d, cap, out, BCK_WARPS, bco_tile_encode_in<0>,
                                                     bc_tile_put32, bc_bytes_copy);
                     });
}

static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode_one_pw(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
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
                                                     BC_TILE, d, cap, out, BCK_WARPS, bco_tile_encode_in<1>,
                                                     bc_tile_put32, bc_bytes_copy);
                     });
}

#endif /* BC_ENC_ONE_CUH */
