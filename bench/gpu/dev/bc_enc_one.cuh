/*
 * bc_enc_one.cuh - why this exists: session 12 moved "onepass" into the
 * library's Bitcomp encoder (src/cuda/codecs/bitcomp/bitcomp_kernels.cu:
 * each block read from the stage once into registers, every statistic and
 * both patched searches from them, 8-byte elements too; the patched
 * blocks' write pass in 32-bit arithmetic).  bc_dev keeps the encoder it
 * was measured against as "s11": the library's after session 11
 * (bc_enc_choose32's passes over the stage, the core's bc_enc_choose for
 * 8-byte elements, the core's 64-bit patched write), copied.  The numbers
 * are in bench/gpu/owncodecs/NOTES.md (session 12).
 */
#ifndef BC_ENC_ONE_CUH
#define BC_ENC_ONE_CUH

/* s11's choice: passes over the staged block. */
template <uint32_t W>
static __device__ void bcs_enc_choose32(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
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

/* s11's write pass: patched blocks by the core's 64-bit bc_enc_write_patched. */
template <uint32_t W>
static __device__ void bcs_enc_write32(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
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

static __device__ uint32_t bcs_encode_tile32(bc_ws *ws, const uint8_t *src, uint32_t cnt, uint32_t dtype,
                                             uint32_t algo, uint32_t nw)
{
    uint32_t w = own_type_width(dtype), raw = cnt * w;
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, algo, BC_VERSION);
    if (w == 4)
        OWN_RUN(nw, bcs_enc_choose32<4>, ws, src);
    else if (w == 2)
        OWN_RUN(nw, bcs_enc_choose32<2>, ws, src);
    else if (w == 1)
        OWN_RUN(nw, bcs_enc_choose32<1>, ws, src);
    else
        OWN_RUN(nw, bc_enc_choose, ws, src);
    OWN_RUN(nw, bc_enc_layout, ws);
    uint32_t size = ws->size;
    if (size >= raw)
        return raw;
    OWN_RUN(nw, bc_enc_zero, ws, (size + 3u) / 4u + 4u);
    if (w == 4)
        OWN_RUN(nw, bcs_enc_write32<4>, ws, src);
    else if (w == 2)
        OWN_RUN(nw, bcs_enc_write32<2>, ws, src);
    else if (w == 1)
        OWN_RUN(nw, bcs_enc_write32<1>, ws, src);
    else
        OWN_RUN(nw, bc_enc_write, ws, src);
    return size;
}

static __device__ uint32_t bcs_tile_encode_in(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt,
                                              uint32_t dtype, uint32_t nw)
{
    bc_ws_in *W = (bc_ws_in *)ws;
    bc_in_stage(W->in, tile, cnt * own_type_width(dtype));
    return bcs_encode_tile32(&W->ws, (const uint8_t *)W->in, cnt, dtype, *(const uint32_t *)opts, nw);
}

static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode_s11(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
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
                                                     BC_TILE, d, cap, out, BCK_WARPS, bcs_tile_encode_in,
                                                     bc_tile_put32, bc_bytes_copy);
                     });
}

#endif /* BC_ENC_ONE_CUH */
