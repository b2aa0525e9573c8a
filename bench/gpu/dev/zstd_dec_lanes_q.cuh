/*
 * zstd_dec_lanes_q.cuh - "v6q", a dev variant of the library's lane kernel for 64 KiB zstd chunks
 * (src/cuda/codecs/zstd/zstd_dec_lanes.h, zl_group): a round's batches executed by lane quarters
 * at once instead of chunk after chunk by the whole warp (bench/gpu/zstd/NOTES.md "Run 12").
 *
 * Why: after a round's lane decode (G = 4 chunks, one lane each), the library's warp executes the
 * four batches of 32 sequences one after another, and each batch is a chain of dependent memory
 * round trips (stage, literal copies, independent matches, then the in-order matches one by one);
 * ncu puts the executor's byte copies at the top of the lane kernel's stalls ("Run 9", "Run 10")
 * and the SM issues 0.48 warps a scheduler: the warps wait, they do not issue.  The four chunks are
 * independent, so here lanes 8j..8j+7 execute chunk j's batch: each lane holds four consecutive
 * sequences (positions by a prefix sum over its 8 lanes), copies their literal runs and their
 * independent matches itself (zd_copy_lane; long literal runs by its 8 lanes), and the batch's
 * in-order matches run in sequence order by its 8 lanes (zd_match's byte rule, 8 lanes wide).
 * The four chains overlap; the work is the same bytes and the same rule as zd_exec_batch (and as
 * zl_exec_literals_ordered for batches whose literals must be copied in order).
 *
 * Used by the dev target zstd_lanes_q (zstd_lanes.cu built with ZL_QUARTERS=1: its v6 rows run
 * zl_group_q, its library rows the library).  GPU only; the harness compares every output with
 * the input and, with --damage, every status and size with the per-chunk kernel's.
 */
#ifndef OC_ZSTD_DEC_LANES_Q_CUH
#define OC_ZSTD_DEC_LANES_Q_CUH

#include "cuda/codecs/zstd/zstd_dec_lanes.h"

#define ZLQ_W 8u /* lanes a chunk's batch */
#define ZLQ_S 4u /* sequences a lane (ZL_K / ZLQ_W) */

#if ZLQ_W * ZLQ_S != ZL_K || ZL_G * ZLQ_W > 32
#error "a quarter's lanes must hold a round's batch"
#endif

static __device__ __forceinline__ uint32_t zlq_sel(const uint32_t *v, uint32_t s)
{
    return s == 0 ? v[0] : s == 1 ? v[1] : s == 2 ? v[2] : v[3];
}

/* len bytes, no overlap, by the 8 lanes of a quarter (sub: the lane's index in it) */
static __device__ __forceinline__ void zlq_copy(uint8_t *d, const uint8_t *src, uint32_t len, uint32_t sub)
{
    for (uint32_t i = sub; i < len; i += ZLQ_W)
        d[i] = src[i];
}

/* zd_match (byte i takes out[(i mod off) - off]) by the 8 lanes of a quarter */
static __device__ __forceinline__ void zlq_match(uint8_t *out, uint32_t off, uint32_t len, uint32_t sub)
{
    uint32_t r, step;
    if (off >= ZLQ_W) {
        r = sub;
        step = ZLQ_W;
    } else {
        r = sub % off;
        step = ZLQ_W % off;
    }
    const uint8_t *src = out - off;
    for (uint32_t i = sub; i < len; i += ZLQ_W) {
        out[i] = src[r];
        r += step;
        if (r >= off)
            r -= off;
    }
}

/* zl_copy_down by a quarter: each step loads its 8 bytes before any of them is stored */
static __device__ __forceinline__ void zlq_copy_down(uint8_t *d, const uint8_t *src, uint32_t len,
                                                     uint32_t sub, uint32_t gm)
{
    for (uint32_t i0 = 0; i0 < len; i0 += ZLQ_W) {
        uint32_t i = i0 + sub;
        uint8_t b = i < len ? src[i] : 0;
        __syncwarp(gm);
        if (i < len)
            d[i] = b;
        __syncwarp(gm);
    }
}

/* A round's execution: chunk j's batch (L[lane j]: k sequences in its rows of sq, positions from
 * batch_bop / batch_lp) by lanes 8j..8j+7, the g chunks at once.  Every lane of the warp calls it. */
static __device__ __noinline__ void zlq_exec_round(const uint32_t *sq, uint32_t g, const zl_lane *L)
{
    uint32_t lane = threadIdx.x & 31, j = lane / ZLQ_W, sub = lane % ZLQ_W;
    uint32_t gm = 0xFFu << (j * ZLQ_W);
    uint32_t jj = j < g ? j : 0;
    uint32_t k = __shfl_sync(0xFFFFFFFFu, L[0].k, (int)jj);
    uint32_t bb = __shfl_sync(0xFFFFFFFFu, L[0].batch_bop, (int)jj);
    uint32_t blp = __shfl_sync(0xFFFFFFFFu, L[0].batch_lp, (int)jj);
    uint32_t ordered = __shfl_sync(0xFFFFFFFFu, L[0].ordered, (int)jj);
    uint8_t *d =
        (uint8_t *)(uintptr_t)__shfl_sync(0xFFFFFFFFu, (unsigned long long)(uintptr_t)L[0].dst, (int)jj);
    const uint8_t *lit = (const uint8_t *)(uintptr_t)__shfl_sync(
        0xFFFFFFFFu, (unsigned long long)(uintptr_t)L[0].lit, (int)jj);
    if (j >= g)
        k = 0;
    const uint32_t *r_ll = sq + (0 * g + jj) * ZL_KS, *r_ml = sq + (1 * g + jj) * ZL_KS;
    const uint32_t *r_off = sq + (2 * g + jj) * ZL_KS;
    uint32_t ll[ZLQ_S], ml[ZLQ_S], off[ZLQ_S], op[ZLQ_S], lp[ZLQ_S], so = 0, sl = 0;
#pragma unroll
    for (uint32_t s = 0; s < ZLQ_S; s++) {
        uint32_t t = sub * ZLQ_S + s;
        int v = t < k;
        ll[s] = v ? r_ll[t] : 0;
        ml[s] = v ? r_ml[t] : 0;
        off[s] = v ? r_off[t] : 0;
        op[s] = so;
        lp[s] = sl;
        so += ll[s] + ml[s];
        sl += ll[s];
    }
    /* the quarter's exclusive prefix sums (segments of 8 lanes) */
    uint32_t xo = so, xl = sl;
#pragma unroll
    for (uint32_t dd = 1; dd < ZLQ_W; dd <<= 1) {
        uint32_t a = __shfl_up_sync(0xFFFFFFFFu, xo, dd, ZLQ_W),
                 c = __shfl_up_sync(0xFFFFFFFFu, xl, dd, ZLQ_W);
        if (sub >= dd) {
            xo += a;
            xl += c;
        }
    }
#pragma unroll
    for (uint32_t s = 0; s < ZLQ_S; s++) {
        op[s] += bb + xo - so;
        lp[s] += blp + xl - sl;
    }
    if (k == 0)
        return;
    /* 1. literal runs (zd_exec_literals, or zl_exec_literals_ordered) */
    if (ordered) {
        for (uint32_t t = 0; t < k; t++) {
            uint32_t s = t % ZLQ_S;
            int ow = (int)(j * ZLQ_W + t / ZLQ_S);
            uint32_t lt = __shfl_sync(gm, zlq_sel(ll, s), ow), ot = __shfl_sync(gm, zlq_sel(op, s), ow);
            uint32_t pt = __shfl_sync(gm, zlq_sel(lp, s), ow);
            zlq_copy_down(d + ot, lit + pt, lt, sub, gm);
        }
    } else {
#pragma unroll
        for (uint32_t s = 0; s < ZLQ_S; s++)
            if (ll[s] <= ZD_SHORT)
                zd_copy_lane(d + op[s], lit + lp[s], ll[s]);
#pragma unroll
        for (uint32_t s = 0; s < ZLQ_S; s++) {
            for (uint32_t longs = __ballot_sync(gm, ll[s] > ZD_SHORT) & gm; longs; longs &= longs - 1) {
                int ow = __ffs(longs) - 1;
                uint32_t lt = __shfl_sync(gm, ll[s], ow), ot = __shfl_sync(gm, op[s], ow);
                uint32_t pt = __shfl_sync(gm, lp[s], ow);
                zlq_copy(d + ot, lit + pt, lt, sub);
            }
        }
    }
    __syncwarp(gm);
    /* 2. matches: the independent ones a lane each, the rest in sequence order by the quarter */
    uint32_t dep = 0; /* bit t: sequence t of the batch runs in order */
#pragma unroll
    for (uint32_t s = 0; s < ZLQ_S; s++) {
        uint32_t mpos = op[s] + ll[s];
        int indep = ml[s] == 0 || zd_match_indep(mpos, off[s], ml[s], bb);
        if (indep && ml[s])
            zd_copy_lane(d + mpos, d + mpos - off[s], ml[s]);
        uint32_t b8 = (__ballot_sync(gm, !indep) >> (j * ZLQ_W)) & 0xFFu;
#pragma unroll
        for (uint32_t q = 0; q < ZLQ_W; q++)
            if (b8 >> q & 1u)
                dep |= 1u << (q * ZLQ_S + s);
    }
    __syncwarp(gm);
    for (; dep; dep &= dep - 1) {
        uint32_t t = (uint32_t)__ffs(dep) - 1, s = t % ZLQ_S;
        int ow = (int)(j * ZLQ_W + t / ZLQ_S);
        uint32_t mj = __shfl_sync(gm, zlq_sel(op, s) + zlq_sel(ll, s), ow);
        uint32_t oj = __shfl_sync(gm, zlq_sel(off, s), ow), lj = __shfl_sync(gm, zlq_sel(ml, s), ow);
        zlq_match(d + mj, oj, lj, sub);
        __syncwarp(gm);
    }
}

/* The library's zl_group (zstd_dec_lanes.h, session 12's main) with step 2's execution replaced by
 * zlq_exec_round; steps 1 and 3 unchanged. */
static __device__ uint32_t zl_group_q(zd_tables *T, zl_lane *L, uint32_t *LG, uint32_t *sq, uint16_t *slot3,
                                      size_t first, uint32_t g, const void *const *src_ptrs,
                                      const size_t *src_sizes, void *const *dst_ptrs, const size_t *dst_caps,
                                      size_t *dst_sizes, oc_status *statuses, uint8_t *slot, size_t litcap,
                                      zd_fse_entry *tabs)
{
    /* 1. prepare, chunk by chunk */
    ZL_EACH(l, ZL_G)
    {
        L[ZL_SLOT(l)].state = ZL_NONE;
    }
    for (uint32_t j = 0; j < g; j++) {
        size_t c = first + j;
        zl_lane rec;
        uint32_t logs = 0;
        int ok = zl_prepare(T, (const uint8_t *)src_ptrs[c], src_sizes[c], (uint8_t *)dst_ptrs[c],
                            dst_caps[c], tabs + (size_t)j * ZL_TAB_ENTRIES, &rec, &logs);
        ZL_EACH(l, g)
        {
            if (l == j) {
                if (ok) {
                    L[ZL_SLOT(l)] = rec;
                    LG[ZL_SLOT(l)] = logs;
                } else {
                    L[ZL_SLOT(l)].state = ZL_FAIL;
                }
            }
        }
    }
    OC_WARP_SYNC();
    uint32_t *xt = zl_xt(T);
    for (uint32_t j = 0; j < g; j++) {
        if (ZL_U32(L, state, j) != ZL_RUN)
            continue;
        uint32_t logs = ZL_W32(LG, j);
        zl_convert(zl_tslot(T, slot3, j), tabs + (size_t)j * ZL_TAB_ENTRIES, logs);
    }
    for (uint32_t i = OC_LANE(); i < ZL_XT_ML + 53u; i += OC_NLANES)
        xt[i] = i < ZL_XT_ML ? oc_zstd_ll_base[i] | (uint32_t)oc_zstd_ll_bits[i] << 24
                             : oc_zstd_ml_base[i - ZL_XT_ML] | (uint32_t)oc_zstd_ml_bits[i - ZL_XT_ML] << 24;
    OC_WARP_SYNC();
    /* 2. rounds: every lane decodes a batch of its chunk, the quarters execute them at once */
    for (;;) {
        int any = 0;
        OC_WARP_SYNC(); /* the last round's batches were copied out of sq */
        ZL_EACH(l, g)
        {
            zl_lane *z = &L[ZL_SLOT(l)];
            z->k = 0;
            if (z->state == ZL_RUN) {
                zl_decode_batch(z, zl_tslot(T, slot3, l), LG[ZL_SLOT(l)], xt, sq, l, g);
                any |= z->k > 0;
            }
        }
        int more = OC_WARP_ANY(any);
        if (!more)
            break;
        OC_WARP_SYNC();
        zlq_exec_round(sq, g, L);
        OC_WARP_SYNC();
    }
    /* 3. finish: zd_block's trailing literals, zd_frame's content size */
    ZL_EACH(l, g)
    {
        zl_lane *z = &L[ZL_SLOT(l)];
        if (z->state == ZL_DONE) {
            uint32_t tail = z->ls - z->lp;
            uint64_t op = (uint64_t)z->bop + tail;
            if (tail > z->bmax - z->bop || op > z->cap || (z->has_fcs && op != z->fcs))
                z->state = ZL_FAIL;
            else
                z->state = ZL_OK;
        }
    }
    uint32_t on_path = 0;
    for (uint32_t j = 0; j < g; j++) {
        size_t c = first + j;
        uint32_t state = ZL_U32(L, state, j);
        oc_status st = OC_OK;
        size_t out = 0;
        if (state == ZL_OK) {
            uint8_t *d = ZL_PTR(uint8_t *, L, dst, j);
            const uint8_t *lit = ZL_PTR(const uint8_t *, L, lit, j);
            uint32_t bop = ZL_U32(L, bop, j), lp = ZL_U32(L, lp, j), ls = ZL_U32(L, ls, j);
            OC_WARP_SYNC();
            if (!ZL_U32(L, lit_out, j))
                zd_copy(d + bop, lit + lp, ls - lp);
            out = bop + (ls - lp);
            OC_WARP_SYNC();
            if (ZL_U32(L, checksum, j) && (uint32_t)zd_xxh64(T, d, out) != ZL_U32(L, want, j))
                state = ZL_FAIL;
        }
        on_path += state == ZL_OK;
        if (state != ZL_OK) {
            OC_WARP_SYNC();
            st = zd_decode_chunk(T, (const uint8_t *)src_ptrs[c], src_sizes[c], (uint8_t *)dst_ptrs[c],
                                 dst_caps[c], &out, slot, litcap);
        }
        if (OC_LANE() == 0) {
            if (dst_sizes)
                dst_sizes[c] = out;
            if (statuses)
                statuses[c] = st;
        }
    }
    OC_WARP_SYNC();
    return on_path;
}

#endif /* OC_ZSTD_DEC_LANES_Q_CUH */
