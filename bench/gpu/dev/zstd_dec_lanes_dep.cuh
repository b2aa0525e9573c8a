/*
 * zstd_dec_lanes_dep.cuh - "ZL_DEPGROUPS", a variant of the library's lane
 * kernel for 64 KiB zstd chunks (src/cuda/codecs/zstd/zstd_dec_lanes.h,
 * zl_group) that lost its A/B, frozen here beside its harness.
 *
 * Why it exists: the lane kernel executes each round's matches chunk after
 * chunk with the whole warp, and a batch's dependent (in-order) matches
 * then run on one lane each, one after another.  This variant queues every
 * chunk's dependent matches of the round and runs them for all (up to 8)
 * chunks of the group at once, 4 lanes a chunk.  Measured (bench/gpu/zstd/
 * NOTES.md "Run 8"): 1.06x with the executor's serial scans, 0.98-1.00x
 * once the scans became ballots, so it left the library (issue 12: no
 * losing variants under compile-time switches in src/).
 *
 * Used by the dev target zstd_lanes_dep (zstd_lanes.cu built with
 * ZL_DEPGROUPS=1: its v6 rows run zl_group_dep, its library rows the
 * library).  GPU only (the host mirror never ran it).  A frozen copy: it
 * keeps zl_group as of session 7 and does not follow the library.
 */
#ifndef OC_ZSTD_DEC_LANES_DEP_CUH
#define OC_ZSTD_DEC_LANES_DEP_CUH

#include "cuda/codecs/zstd/zstd_dec_lanes.h"

/* A round's serial matches run for all chunks of the group at once, a
 * group of 4 lanes per chunk, instead of chunk after chunk with the whole
 * warp.  zl_matches_queue: the batch staged in T: its independent matches a lane
 * each (zd_exec_matches' rule), its other matches into q (mpos, off, ml;
 * in order); returns how many. */
OC_CORE_FN uint32_t zl_matches_queue(zd_tables *T, uint8_t *out, uint32_t cnt, uint32_t bop, uint32_t *q)
{
    uint32_t lane = OC_LANE(), mpos = 0, off = 0, ml = 0;
    OC_WARP_SYNC();
    if (lane < cnt) {
        mpos = T->sq_op[lane] + T->sq_ll[lane];
        off = T->sq_off[lane];
        ml = T->sq_ml[lane];
    }
    int indep = zd_match_indep(mpos, off, ml, bop);
    if (indep)
        zd_copy_lane(out + mpos, out + mpos - off, ml);
    uint32_t dep = __ballot_sync(0xFFFFFFFFu, !indep);
    if (!indep) {
        uint32_t at = 3 * (uint32_t)__popc(dep & ((1u << lane) - 1u));
        q[at] = mpos;
        q[at + 1] = off;
        q[at + 2] = ml;
    }
    OC_WARP_SYNC(); /* the next batch overwrites T->sq_*, the group phase reads q */
    return (uint32_t)__popc(dep);
}

/* zd_match by n lanes (sub = 0 .. n-1 of them): byte i from the bytes
 * before the match, (i mod off) - off, as zd_match does. */
OC_CORE_FN void zl_match_n(uint8_t *out, uint32_t off, uint32_t len, uint32_t sub, uint32_t n)
{
    uint32_t r, step;
    if (off >= n) {
        r = sub;
        step = n;
    } else {
        r = sub % off;
        step = n % off;
    }
    const uint8_t *src = out - off;
    for (uint32_t i = sub; i < len; i += n) {
        out[i] = src[r];
        r += step;
        if (r >= off)
            r -= off;
    }
}

/* zl_group (zstd_dec_lanes.h) with the round's queued matches run by
 * groups of 4 lanes (g <= 8; larger groups keep zd_exec_matches).
 * zl_group's comment: decodes chunks first .. first+g-1 (g <= 32) of a batch by one warp:
 * steps 1-3 above, then zd_decode_chunk for every chunk the path left.
 * L: ZL_SLOT-indexed lane states (one on the GPU, g on the host); sq: the
 * warp's ZL_SQ_WORDS(g) words (shared memory on the GPU); slot: the warp's
 * literal buffer of litcap bytes, for zd_decode_chunk; tabs: g table slots
 * of ZL_TAB_ENTRIES entries.
 * Writes dst_sizes[c] and statuses[c] (each may be NULL).  Returns how many
 * of the g chunks the path decoded (the rest went to zd_decode_chunk). */
OC_CORE_BIGFN uint32_t zl_group_dep(zd_tables *T, zl_lane *L, uint32_t *sq, size_t first, uint32_t g,
                                    const void *const *src_ptrs, const size_t *src_sizes,
                                    void *const *dst_ptrs, const size_t *dst_caps, size_t *dst_sizes,
                                    oc_status *statuses, uint8_t *slot, size_t litcap, zd_fse_entry *tabs)
{
    /* 1. prepare, chunk by chunk */
    ZL_PROF_START(t_prep);
    ZL_EACH(l, ZL_MAX_GROUP)
    {
        L[ZL_SLOT(l)].state = ZL_NONE;
    }
    for (uint32_t j = 0; j < g; j++) {
        size_t c = first + j;
        zl_lane rec;
        int ok = zl_prepare(T, (const uint8_t *)src_ptrs[c], src_sizes[c], (uint8_t *)dst_ptrs[c],
                            dst_caps[c], tabs + (size_t)j * ZL_TAB_ENTRIES, &rec);
        ZL_EACH(l, g)
        {
            if (l == j) {
                if (ok)
                    L[ZL_SLOT(l)] = rec;
                else
                    L[ZL_SLOT(l)].state = ZL_FAIL;
            }
        }
    }
    ZL_PROF_END(0, t_prep);
    /* 2. rounds: every lane decodes a batch of its chunk, the warp executes
     * them chunk by chunk */
    uint32_t ndep = 0; /* lane j: chunk j's queued matches of this round */
    for (;;) {
        int any = 0;
        ZL_PROF_START(t_dec);
        OC_WARP_SYNC(); /* the last round's batches were copied out of sq */
        ZL_EACH(l, g)
        {
            zl_lane *z = &L[ZL_SLOT(l)];
            z->k = 0;
            if (z->state == ZL_RUN) {
                zl_decode_batch(z, sq, l, g);
                any |= z->k > 0;
            }
        }
        int more = OC_WARP_ANY(any);
        ZL_PROF_END(1, t_dec);
        if (!more)
            break;
        ZL_PROF_START(t_ex);
        OC_WARP_SYNC();
        for (uint32_t j = 0; j < g; j++) {
            uint32_t k = ZL_U32(L, k, j);
            if (k == 0)
                continue;
            uint32_t bb = ZL_U32(L, batch_bop, j), blp = ZL_U32(L, batch_lp, j);
            uint32_t ordered = ZL_U32(L, ordered, j);
            uint8_t *d = ZL_PTR(uint8_t *, L, dst, j);
            const uint8_t *lit = ZL_PTR(const uint8_t *, L, lit, j);
            zl_stage_batch(T, sq, g, j, k, bb, blp);
            OC_WARP_SYNC();
            if (ordered)
                zl_exec_literals_ordered(T, d, lit, k);
            else
                zd_exec_literals(T, d, lit, k);
            /* T's FSE tables are free during the rounds (the lane path's
             * tables are in tabs; zd_decode_chunk runs after them): 3 KiB
             * of queue for 8 chunks, so larger groups keep zd_exec_matches */
            if (g <= 8) {
                uint32_t nq = zl_matches_queue(T, d, k, bb, (uint32_t *)(void *)T->ll + 3 * ZL_K * j);
                if (OC_LANE() == j)
                    ndep = nq;
            } else {
                zd_exec_matches(T, d, k, bb);
            }
        }
        {
            /* the queued matches, chunk q's by lanes 4q .. 4q+3, in order */
            uint32_t grp = OC_LANE() >> 2, sub = OC_LANE() & 3;
            uint32_t mine = __shfl_sync(0xFFFFFFFFu, ndep, (int)grp);
            uint8_t *dg = ZL_PTR(uint8_t *, L, dst, grp);
            uint32_t steps = ndep;
            for (int x = 16; x > 0; x >>= 1) {
                uint32_t o = __shfl_xor_sync(0xFFFFFFFFu, steps, x);
                steps = o > steps ? o : steps;
            }
            const uint32_t *qq = (const uint32_t *)(const void *)T->ll + 3 * ZL_K * grp;
            for (uint32_t st = 0; st < steps; st++) {
                if (grp < g && st < mine)
                    zl_match_n(dg + qq[3 * st], qq[3 * st + 1], qq[3 * st + 2], sub, 4);
                OC_WARP_SYNC();
            }
            ndep = 0;
        }
        ZL_PROF_END(2, t_ex);
    }
    /* 3. finish: zd_block's trailing literals, zd_frame's content size */
    ZL_PROF_START(t_fin);
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
            /* literals in dst: the trailing ones are in place already
             * (bop + ls - lp == content size, checked above) */
            if (!ZL_U32(L, lit_out, j))
                zd_copy(d + bop, lit + lp, ls - lp);
            out = bop + (ls - lp);
            OC_WARP_SYNC();
            if (ZL_U32(L, checksum, j) && (uint32_t)zd_xxh64(T, d, out) != ZL_U32(L, want, j))
                state = ZL_FAIL;
        }
        on_path += state == ZL_OK;
        if (state != ZL_OK) {
            /* 4. everything else: the per-chunk core, from the start */
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
    ZL_PROF_END(3, t_fin);
    return on_path;
}

#endif /* OC_ZSTD_DEC_LANES_DEP_CUH */
