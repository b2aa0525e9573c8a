/*
 * bc_enc_lane.cuh - why this exists: session 12 moved "lanepick" into the
 * library's Bitcomp encoder (bitcomp_kernels.cu: the choice of a block of
 * 1-4 byte elements but f32 leaves its statistics in shared memory, then
 * warp 0 picks the tile's 32 blocks at once, a lane a block, and lays the
 * tile out; before, lane 0 of each block's warp picked: ~200 scalar
 * instructions a block issued by a whole warp).  bc_dev keeps the encoder
 * it was measured against as "pw": the library's between the session's two
 * moves (the choice from registers with the pick in the block's warp),
 * copied.  Numbers in bench/gpu/owncodecs/NOTES.md (session 12).
 */
#ifndef BC_ENC_LANE_CUH
#define BC_ENC_LANE_CUH

/* pw's choice (the library's at 265fc79): the blocks of warp wp: statistics, frames, patched searches from
 * the registers, then the pick (bc_enc_pick32; f32: the core's bc_enc_pick). */
template <uint32_t W>
static __device__ void bcp_enc_choose32(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
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

/* pw's tile encoder: the library's with the choice above (layout by warp 0 alone). */
static __device__ uint32_t bcp_encode_tile32(bc_ws *ws, const uint8_t *src, uint32_t cnt, uint32_t dtype,
                                             uint32_t algo, uint32_t nw)
{
    uint32_t w = own_type_width(dtype), raw = cnt * w;
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, algo, BC_VERSION);
    if (w == 4)
        OWN_RUN(nw, bcp_enc_choose32<4>, ws, src);
    else if (w == 2)
        OWN_RUN(nw, bcp_enc_choose32<2>, ws, src);
    else if (w == 1)
        OWN_RUN(nw, bcp_enc_choose32<1>, ws, src);
    else
        OWN_RUN(nw, bc_enc_choose64, ws, src);
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

static __device__ uint32_t bcp_tile_encode_in(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt,
                                              uint32_t dtype, uint32_t nw)
{
    bc_ws_in *W = (bc_ws_in *)ws;
    bc_in_stage(W->in, tile, cnt * own_type_width(dtype));
    return bcp_encode_tile32(&W->ws, (const uint8_t *)W->in, cnt, dtype, *(const uint32_t *)opts, nw);
}

static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode_pw(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
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
                                                     BC_TILE, d, cap, out, BCK_WARPS, bcp_tile_encode_in,
                                                     bc_tile_put32, bc_bytes_copy);
                     });
}

#endif /* BC_ENC_LANE_CUH */
