/*
 * bc_enc_ab.cuh - why this exists: session 10 moved the Bitcomp encoder's
 * write pass and the end of its coding choice to 32-bit arithmetic for
 * 1-4 byte elements (src/cuda/codecs/bitcomp/bitcomp_kernels.cu:
 * bc_enc_write32, the word-wise bc_stage_out32, bc_enc_pick32 on 32-bit
 * statistics).  bc_dev keeps the encoder it was measured against: s9, the
 * library's after session 9 (the staged tile, bc_enc_choose32's 32-bit
 * statistics widened to 64 bits for the core's bc_base and bc_enc_pick,
 * the core's bc_enc_write and bc_stage_out), which must write the same
 * bytes.  The variants measured on the way (write32, write32-out, pick32)
 * and their numbers are in bench/gpu/owncodecs/NOTES.md.
 */
#ifndef BC_ENC_AB_CUH
#define BC_ENC_AB_CUH

/* Reduced over the warp and widened to the core's statistics (s9). */
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
static __device__ void bc_enc_choose32_s9(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
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
        bc_sums t = {fo,  fx, fbase, dorr, dx, dbase, no, nx, nbase, nnz, {bm[0], bm[1], bm[2], bm[3]},
                     {0}, {0}};
        bc_patch_both(ws, p, w, cnt, dbase, m, &t.pd, &t.pf); /* version 2's patched candidates */
        if (OWN_LANE() == 0)
            ws->umin[b] = sv.umin, ws->umax[b] = sv.umax;
        bc_enc_pick(ws, bl, p, w, cnt, m, &sv, &t);
    }
}

/* s9's tile encoder: the staged tile, bc_enc_choose32_s9, the core's write. */
static __device__ uint32_t bc_tile_encode_s9(void *ws_, const void *opts, const uint8_t *tile, uint32_t cnt,
                                             uint32_t dtype, uint32_t nw)
{
    bc_ws_in *Wi = (bc_ws_in *)ws_;
    bc_in_stage(Wi->in, tile, cnt * own_type_width(dtype));
    bc_ws *ws = &Wi->ws;
    const uint8_t *src = (const uint8_t *)Wi->in;
    uint32_t w = own_type_width(dtype), raw = cnt * w, algo = *(const uint32_t *)opts;
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, algo, BC_VERSION);
    if (w == 4)
        OWN_RUN(nw, bc_enc_choose32_s9<4>, ws, src);
    else if (w == 2)
        OWN_RUN(nw, bc_enc_choose32_s9<2>, ws, src);
    else if (w == 1)
        OWN_RUN(nw, bc_enc_choose32_s9<1>, ws, src);
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

static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode_s9(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
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
                                                     BC_TILE, d, cap, out, BCK_WARPS, bc_tile_encode_s9,
                                                     bc_tile_put, bc_bytes_copy);
                     });
}

#endif /* BC_ENC_AB_CUH */
