/*
 * bc_enc_lane.cuh - why this exists: the Bitcomp encoder's pick (lane 0 of
 * the block's warp comparing the candidates, bc_enc_pick32: ~200 scalar
 * instructions a block issued by the whole warp) and layout (warp 0) run
 * once a block with one lane active.  "lanepick" (bc_dev; 1-4 byte
 * elements but f32, whose pick's decimal passes are warp-collective; the
 * library's path otherwise): the choice phase leaves each block's
 * statistics in shared memory, then warp 0 picks all 32 blocks of the
 * tile at once, a lane a block (the same scalar code), and lays the tile
 * out in the same phase.  The same choices, so the same bytes (bc_dev
 * checks).  Prediction in bench/gpu/owncodecs/NOTES.md (session 12).
 */
#ifndef BC_ENC_LANE_CUH
#define BC_ENC_LANE_CUH

/* A block's statistics between the choice and the pick. */
typedef struct bcl_st {
    uint32_t umin, umax, and_, or_, nnz, f[9], bm[4];
    bc_patch pd, pf;
} bcl_st;

/* The workspace: the library's (bc_ws first: the phases take it as a bc_ws *), then the statistics. */
typedef struct bcl_ws {
    bc_ws_in in;
    bcl_st st[BC_BLOCKS];
} bcl_ws;

/* bc_enc_pick32 for any lane (the same scalar code). */
static __device__ __forceinline__ void bcl_pick32(const bc_ws *ws, bc_block *bl, const uint8_t *p, uint32_t w,
                                                  uint32_t cnt, uint32_t m, uint32_t umin, uint32_t umax,
                                                  uint32_t and_, uint32_t or_, const uint32_t *f,
                                                  uint32_t nnz, const uint32_t *bm, const bc_patch *pd,
                                                  const bc_patch *pf)
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

/* The library's bc_enc_choose32 up to the pick; the statistics to shared memory. */
template <uint32_t W>
static __device__ void bcl_choose32(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
{
    const uint32_t w = W, bits = 8u * W;
    const uint64_t m = own_mask64(bits);
    const uint32_t m32 = (uint32_t)m, L = OWN_LANE();
    const int patched = ws->version >= 2u && ws->algo == 0;
    for (uint32_t b = wp; b < ws->nb; b += nw) {
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
        if (L == 0) { /* the statistics for the pick (warp 0, a lane a block) */
            bcl_st *t = &((bcl_ws *)ws)->st[b];
            t->umin = aumin, t->umax = aumax, t->and_ = aand, t->or_ = aor, t->nnz = nnz;
            for (uint32_t q = 0; q < 9; q++)
                t->f[q] = f[q];
            for (uint32_t q = 0; q < 4; q++)
                t->bm[q] = bm[q];
            t->pd = pd, t->pf = pf;
        }
    }
}

/* The pick of every block (warp 0, a lane a block), then the layout (warp 0). */
template <uint32_t W>
static __device__ void bcl_pick_layout(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
{
    if (wp != 0)
        return;
    uint32_t b = OWN_LANE();
    if (b < ws->nb) {
        const bcl_st *t = &((const bcl_ws *)ws)->st[b];
        bcl_pick32(ws, &ws->blk[b], src + (uint64_t)b * BC_BLOCK * W, W, bc_block_count(ws->cnt, b),
                   W == 4 ? 0xffffffffu : (1u << (8u * W)) - 1u, t->umin, t->umax, t->and_, t->or_, t->f,
                   t->nnz, t->bm, &t->pd, &t->pf);
    }
    __syncwarp();
    bc_enc_layout(ws, wp, nw);
}

template <uint32_t W>
static __device__ uint32_t bcl_encode_tile(bc_ws *ws, const uint8_t *src, uint32_t cnt, uint32_t dtype,
                                           uint32_t algo, uint32_t nw)
{
    uint32_t raw = cnt * W;
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, algo, BC_VERSION);
    OWN_RUN(nw, bcl_choose32<W>, ws, src);
    OWN_RUN(nw, bcl_pick_layout<W>, ws, src);
    uint32_t size = ws->size;
    if (size >= raw)
        return raw;
    OWN_RUN(nw, bc_enc_zero, ws, (size + 3u) / 4u + 4u);
    OWN_RUN(nw, bc_enc_write32<W>, ws, src);
    return size;
}

static __device__ uint32_t bcl_tile_encode(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt,
                                           uint32_t dtype, uint32_t nw)
{
    uint32_t w = own_type_width(dtype), algo = *(const uint32_t *)opts;
    if (w > 4 || dtype == OC_TYPE_F32 || BC_BLOCKS > OWN_NLANES)
        return bc_tile_encode_in(ws, opts, tile, cnt, dtype, nw);
    bc_ws_in *Wi = (bc_ws_in *)ws;
    bc_in_stage(Wi->in, tile, cnt * w);
    const uint8_t *s = (const uint8_t *)Wi->in;
    if (w == 4)
        return bcl_encode_tile<4>(&Wi->ws, s, cnt, dtype, algo, nw);
    if (w == 2)
        return bcl_encode_tile<2>(&Wi->ws, s, cnt, dtype, algo, nw);
    return bcl_encode_tile<1>(&Wi->ws, s, cnt, dtype, algo, nw);
}

static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode_lane(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                     const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype,
                     uint32_t algo)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    bcl_ws *ws = (bcl_ws *)bc_smem;
    own_tiled_encode(n, src, src_sizes, dst, caps, dst_sizes, statuses,
                     [=](const uint8_t *p, size_t len, uint8_t *d, size_t cap, uint64_t *out) {
                         *out = 0;
                         if (own_type_width(dtype) == 0 || algo > 1)
                             return OC_ERR_INVALID_ARGUMENT;
                         uint32_t a = algo;
                         return own_tiled_compress_v(ws, &a, p, len, OWN_ID_BITCOMP, BC_VERSION, dtype, algo,
                                                     BC_TILE, d, cap, out, BCK_WARPS, bcl_tile_encode,
                                                     bc_tile_put32, bc_bytes_copy);
                     });
}

#endif /* BC_ENC_LANE_CUH */
