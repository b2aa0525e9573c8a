/*
 * bc_enc_reg.cuh - why this exists: the Bitcomp encoder stages every tile
 * in shared memory (bc_in_stage: a copy and a barrier), chooses each
 * block's coding from the stage, and reads the stage again in the write
 * pass.  "regtile" (1-4 byte elements whose tile is W-aligned in global
 * memory; else the library's path): a warp loads its 4 blocks of the tile
 * straight from global memory into registers (16 values a lane), chooses
 * each block's coding from them (the library's bc_enc_choose32 arithmetic),
 * and after the layout writes every block's bits from the same registers
 * (the library's 32-bit patched write): no stage of the input, no reload.
 * The same choices and bits, so the same bytes (bc_dev checks them).
 * Prediction in bench/gpu/owncodecs/NOTES.md (session 12).
 */
#ifndef BC_ENC_REG_CUH
#define BC_ENC_REG_CUH

#define BCR_BPW (BC_BLOCKS / BCK_WARPS) /* blocks a warp holds: 4 */

/* Block b's choice from its values in registers (v[j]: element 32j + lane). */
template <uint32_t W>
static __device__ __forceinline__ void bcr_choose_block(bc_ws *ws, uint32_t b, const uint8_t *p,
                                                        const uint32_t *v, uint32_t cnt)
{
    const uint32_t w = W, bits = 8u * W;
    const uint64_t m = own_mask64(bits);
    const uint32_t m32 = (uint32_t)m, L = OWN_LANE();
    const int patched = ws->version >= 2u && ws->algo == 0;
    bc_block *bl = &ws->blk[b];
    uint32_t dv[BC_PER_LANE], ok[BC_PER_LANE], okd[BC_PER_LANE], prev = 0;
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
        ok[j] = e < cnt;
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
    uint32_t fo32 = 0, fx32 = 0, do32 = 0, dx32 = 0, no32 = 0, nx32 = 0, y[BC_PER_LANE], ymax = 0;
#pragma unroll
    for (uint32_t j = 0; j < BC_PER_LANE; j++) {
        uint32_t r = (v[j] - fb) & m32, dd = (dv[j] - db) & m32, q = (v[j] - nb) & m32;
        if (ok[j])
            fo32 |= r, fx32 = max(fx32, r);
        if (okd[j])
            do32 |= dd, dx32 = max(dx32, dd);
        if (ok[j] && v[j])
            no32 |= q, nx32 = max(nx32, q);
        y[j] = ((v[j] << 1) | (v[j] >> (bits - 1u))) & m32;
        if (ok[j])
            ymax = max(ymax, y[j]);
    }
    if (L == 0)
        ws->umin[b] = aumin, ws->umax[b] = aumax;
    uint32_t f[9] = {__reduce_or_sync(OWN_FULL, fo32), __reduce_max_sync(OWN_FULL, fx32), fb,
                     __reduce_or_sync(OWN_FULL, do32), __reduce_max_sync(OWN_FULL, dx32), db,
                     __reduce_or_sync(OWN_FULL, no32), __reduce_max_sync(OWN_FULL, nx32), nb};
    bc_patch pd = {0, 0, 0, 0, 0, 0}, pf = pd;
    if (patched && cnt > 1) {
        uint32_t r[BC_PER_LANE];
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++)
            r[j] = (dv[j] - db) & m32;
        pd = bc_patch_regs32(r, okd, cnt - 1u, db);
    }
    if (patched && ws->fp) {
        uint32_t base = __reduce_max_sync(OWN_FULL, ymax), r[BC_PER_LANE];
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++)
            r[j] = (base - y[j]) & m32;
        pf = bc_patch_regs32(r, ok, cnt, base);
    }
    uint32_t bml[4] = {bm[0], bm[1], bm[2], bm[3]};
    if (ws->flt == 0) {
        bc_enc_pick32(ws, bl, p, w, cnt, m32, aumin, aumax, aand, aor, f, nnz, bml, &pd, &pf);
    } else {
        bc_stats sv = {aumin, aumax, aand, aor, (int64_t)asmin, (int64_t)asmax};
        bc_sums t = {f[0], f[1], fb, f[3], f[4], db, f[6], f[7], nb, nnz, {bml[0], bml[1], bml[2], bml[3]},
                     pd,   pf};
        bc_enc_pick(ws, bl, p, w, cnt, m, &sv, &t);
    }
}

/* Block b's bits from its values in registers (bc_enc_write32's, the same bits). */
template <uint32_t W>
static __device__ __forceinline__ void bcr_write_block(bc_ws *ws, uint32_t b, const uint8_t *p,
                                                       const uint32_t *v)
{
    uint32_t *S = ws->stage;
    const uint32_t m = W == 4 ? 0xffffffffu : (1u << (8u * W)) - 1u, L = OWN_LANE();
    const bc_block *bl = &ws->blk[b];
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
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++) {
            uint32_t e = j * OWN_NLANES + L;
            if (e < cnt)
                bc_put32(S, p0 + e * k, ((v[j] - a) & m) >> s, k);
        }
        break;
    case BC_DELTA: {
        uint32_t prev = 0;
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++) {
            uint32_t e = j * OWN_NLANES + L;
            uint32_t up = __shfl_up_sync(OWN_FULL, v[j], 1), pv = L == 0 ? prev : up;
            prev = __shfl_sync(OWN_FULL, v[j], 31);
            if (e < cnt && e > 0)
                bc_put32(S, p0 + (e - 1) * k, (((v[j] - pv) - bb) & m) >> s, k);
        }
        break;
    }
    case BC_PLANES: {
        uint32_t kb = (uint32_t)__popc(a);
        bc_runs r = bc_runs_of(a);
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++) {
            uint32_t e = j * OWN_NLANES + L;
            if (e < cnt)
                bc_put32(S, p0 + e * kb, r.ok ? bc_ext_runs(v[j], &r) : (uint32_t)bc_pext(v[j], a), kb);
        }
        break;
    }
    case BC_PDELTA:
    case BC_PFLT: {
        const uint32_t d = kind == BC_PDELTA, kx = bl->kx, xw = 7u + kx, x0 = p0 + (cnt - d) * k;
        const uint32_t base = d ? bb : a, km = k >= 32u ? 0xffffffffu : (1u << k) - 1u;
        uint32_t carry = 0, prev = 0;
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++) {
            uint32_t e = j * OWN_NLANES + L;
            uint32_t up = __shfl_up_sync(OWN_FULL, v[j], 1), pv = L == 0 ? prev : up;
            prev = __shfl_sync(OWN_FULL, v[j], 31);
            int has = e < cnt && e >= d;
            uint32_t r =
                d ? ((v[j] - pv) - base) & m : (base - (((v[j] << 1) | (v[j] >> (8u * W - 1u))) & m)) & m;
            r = has ? r : 0u;
            int exc = has && bc_bits32(r) > k;
            uint32_t ball = __ballot_sync(OWN_FULL, exc);
            uint32_t rank = carry + (uint32_t)__popc(ball & ((1u << L) - 1u));
            carry += (uint32_t)__popc(ball);
            if (has && k)
                bc_put32(S, p0 + (e - d) * k, r & km, k);
            if (exc) {
                bc_put32(S, x0 + rank * xw, e, 7u);
                if (kx)
                    bc_put32(S, x0 + rank * xw + 7u, r >> k, kx);
            }
        }
        break;
    }
    case BC_SPARSE:
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++) {
            uint32_t e = j * OWN_NLANES + L;
            if (e < cnt && v[j]) {
                uint32_t rank = (uint32_t)__popc(bl->bitmap[j] & ((1u << L) - 1u));
                for (uint32_t q = 0; q < j; q++)
                    rank += (uint32_t)__popc(bl->bitmap[q]);
                bc_put32(S, p0 + rank * k, ((v[j] - a) & m) >> s, k);
            }
        }
        break;
    default: /* DEC (f32): the core's arithmetic */
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++) {
            uint32_t e = j * OWN_NLANES + L;
            if (e < cnt) {
                int64_t dd = 0;
                (void)bc_dec_exact(v[j], s, ws->flt, &dd);
                own_put_bits(S, bl->poff + (uint64_t)e * k, ((uint64_t)dd - bl->a) & m, k);
            }
        }
        break;
    }
}

/* The tile from registers (every thread of the CTA; BCK_WARPS warps). */
template <uint32_t W>
static __device__ uint32_t bcr_encode_tile(bc_ws *ws, const uint8_t *g, uint32_t cnt, uint32_t dtype,
                                           uint32_t algo, uint32_t nw)
{
    const uint32_t raw = cnt * W, wp = threadIdx.x >> 5, L = OWN_LANE(), nb = (cnt + BC_BLOCK - 1) / BC_BLOCK;
    uint32_t v[BCR_BPW][BC_PER_LANE];
#pragma unroll
    for (uint32_t i = 0; i < BCR_BPW; i++) /* the tile's one read: every load in flight together */
#pragma unroll
        for (uint32_t j = 0; j < BC_PER_LANE; j++) {
            uint32_t e = (wp + i * BCK_WARPS) * BC_BLOCK + j * OWN_NLANES + L;
            v[i][j] = e < cnt ? (W == 4   ? __ldg((const uint32_t *)g + e)
                                 : W == 2 ? (uint32_t)__ldg((const unsigned short *)g + e)
                                          : (uint32_t)__ldg(g + e))
                              : 0u;
        }
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, algo, BC_VERSION);
#pragma unroll
    for (uint32_t i = 0; i < BCR_BPW; i++) {
        uint32_t b = wp + i * BCK_WARPS;
        if (b < nb)
            bcr_choose_block<W>(ws, b, g + (uint64_t)b * BC_BLOCK * W, v[i], bc_block_count(cnt, b));
    }
    __syncthreads();
    OWN_RUN(nw, bc_enc_layout, ws);
    uint32_t size = ws->size;
    if (size >= raw)
        return raw;
    OWN_RUN(nw, bc_enc_zero, ws, (size + 3u) / 4u + 4u);
#pragma unroll
    for (uint32_t i = 0; i < BCR_BPW; i++) {
        uint32_t b = wp + i * BCK_WARPS;
        if (b < nb)
            bcr_write_block<W>(ws, b, g + (uint64_t)b * BC_BLOCK * W, v[i]);
    }
    __syncthreads();
    return size;
}

/* regtile's tile encoder: 1-4 byte elements W-aligned from registers; the library's otherwise. */
static __device__ uint32_t bcr_tile_encode(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt,
                                           uint32_t dtype, uint32_t nw)
{
    uint32_t w = own_type_width(dtype), algo = *(const uint32_t *)opts;
    bc_ws_in *Wi = (bc_ws_in *)ws;
    if (nw == BCK_WARPS && w <= 4 && ((uintptr_t)tile & (w - 1u)) == 0) {
        if (w == 4)
            return bcr_encode_tile<4>(&Wi->ws, tile, cnt, dtype, algo, nw);
        if (w == 2)
            return bcr_encode_tile<2>(&Wi->ws, tile, cnt, dtype, algo, nw);
        return bcr_encode_tile<1>(&Wi->ws, tile, cnt, dtype, algo, nw);
    }
    return bc_tile_encode_in(ws, opts, tile, cnt, dtype, nw);
}

static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode_reg(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
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
                                                     BC_TILE, d, cap, out, BCK_WARPS, bcr_tile_encode,
                                                     bc_tile_put32, bc_bytes_copy);
                     });
}

#endif /* BC_ENC_REG_CUH */
