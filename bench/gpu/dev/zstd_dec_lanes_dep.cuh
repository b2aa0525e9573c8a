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

/* The library's lane record, prepare step and lane decode as of session 7
 * (tables in the chunks' global slots, groups of 8), which zl_group_dep
 * was measured with; the library's now keep the tables in shared memory
 * (zstd_dec_lanes.h, NOTES.md "Run 9"). */
/* One lane's chunk: the per-sequence state of zd_block's loop, plus what
 * the finish step needs.  Registers on the GPU. */
typedef struct zld_lane {
    oc_bitrd r;
    const zd_fse_entry *ll, *ml, *of;
    const uint8_t *lit;
    uint8_t *dst;
    uint32_t lls, ofs, mls;
    uint32_t r0, r1, r2;
    uint32_t left;      /* sequences not yet decoded */
    uint32_t bop, lp;   /* output and literal position (the block starts the output) */
    uint32_t ls;        /* literal count */
    uint32_t lim, bmax; /* min(cap, block max), block max */
    uint32_t batch_bop; /* bop when this round's batch began */
    uint32_t batch_lp;  /* lp when this round's batch began */
    uint32_t k;         /* sequences in this round's batch */
    uint32_t state;     /* ZL_* */
    uint32_t lit_out;   /* the literals are in dst, from lbase on (not raw) */
    uint32_t lbase;     /* content size - literal count, when lit_out */
    uint32_t ordered;   /* this round's literal copies must run in order */
    uint32_t has_fcs, checksum, want;
    uint64_t fcs;
    uint64_t cap;
} zld_lane;

/* Step 1 for one chunk, by the whole warp (every lane computes the same
 * *rec): 1 if the chunk has this path's shape, the rule takes it, and its
 * literals, tables and first states are ready; 0 if zd_decode_chunk must
 * decode it. */
OC_CORE_BIGFN int zld_prepare(zd_tables *T, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                              zd_fse_entry *tab, zld_lane *rec)
{
    /* zd_frame's header checks */
    if (n < 6 || oc_load_le32(src) != 0xFD2FB528u)
        return 0;
    size_t ip = 4;
    uint32_t fhd = src[ip];
    uint32_t fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, checksum = (fhd >> 2) & 1, did_flag = fhd & 3;
    if ((fhd & 8) || did_flag != 0)
        return 0;
    size_t fcs_size = fcs_flag == 0 ? (single ? 1 : 0) : (fcs_flag == 1 ? 2 : (fcs_flag == 2 ? 4 : 8));
    size_t hsize = 1 + (single ? 0 : 1) + fcs_size;
    if (n - ip < hsize)
        return 0;
    const uint8_t *h = src + ip + 1;
    uint64_t window = 0;
    if (!single) {
        uint32_t wd = *h++;
        uint32_t wlog = 10 + (wd >> 3);
        uint64_t base = 1ull << wlog;
        window = base + (base >> 3) * (wd & 7);
    }
    uint64_t fcs = 0;
    for (size_t i = 0; i < fcs_size; i++)
        fcs |= (uint64_t)h[i] << (8 * i);
    if (fcs_size == 2)
        fcs += 256;
    if (single)
        window = fcs;
    if (fcs_size == 0 || fcs > cap)
        return 0; /* the literals' place in dst needs the content size */
    ip += hsize;
    zd_frame_state fs;
    fs.huf_log = 0;
    fs.ll_log = fs.ml_log = fs.of_log = -1;
    fs.rep[0] = 1;
    fs.rep[1] = 4;
    fs.rep[2] = 8;
    fs.block_max = window < ZD_BLOCK_MAX ? (size_t)window : ZD_BLOCK_MAX;
    if (fcs > fs.block_max)
        return 0; /* one block cannot hold it (and positions stay 32-bit) */
    /* exactly one block, compressed and last, then the checksum, then the
     * end of the chunk */
    if (n - ip < 3)
        return 0;
    uint32_t bh = oc_load_le24(src + ip);
    ip += 3;
    size_t bsize = bh >> 3;
    if ((bh & 7) != 5 || bsize > fs.block_max || bsize < 1 || n - ip < bsize)
        return 0;
    if (n - ip - bsize != (checksum ? 4u : 0u))
        return 0;
    const uint8_t *blk = src + ip;
    /* the choice, from the literal and sequence section headers */
    uint32_t ltype;
    size_t ls, lused;
    if (!zl_lit_header(blk, bsize, &ltype, &ls, &lused) || lused >= bsize || ls > fcs)
        return 0;
    uint32_t nseq = blk[lused];
    if (ltype != 0 && nseq != 0 && ZL_LIT_HEAVY(ls, fcs))
        return 0; /* see the top of the file */
    /* zd_block up to its sequence loop, the literals into dst[fcs - ls, fcs) */
    const uint8_t *lit;
    size_t lsize, used;
    if (zd_literals(T, &fs, blk, bsize, dst + (fcs - ls), ls, &lit, &lsize, &used) != OC_OK || lsize != ls ||
        used != lused)
        return 0;
    OC_WARP_SYNC();
    const uint8_t *sp = blk + used, *se = blk + bsize;
    if (sp >= se)
        return 0;
    nseq = *sp++;
    if (nseq >= 128) {
        if (nseq == 255) {
            if (se - sp < 2)
                return 0;
            nseq = oc_load_le16(sp) + 0x7F00;
            sp += 2;
        } else {
            if (se - sp < 1)
                return 0;
            nseq = ((nseq - 128) << 8) + *sp++;
        }
    }
    if (nseq == 0 && sp != se)
        return 0;
    zld_lane z;
    z.state = ZL_DONE;
    if (nseq > 0) {
        if (sp >= se)
            return 0;
        uint32_t modes = *sp++;
        if (modes & 3)
            return 0;
        oc_status st = zd_seq_table(tab, &fs.ll_log, modes >> 6, oc_zstd_ll_default, 36, 6, ZD_LL_MAX_SYM,
                                    ZD_LL_MAX_LOG, oc_zstd_ll_bits, &sp, se);
        if (st == OC_OK)
            st = zd_seq_table(tab + ZL_TAB_OF, &fs.of_log, (modes >> 4) & 3, oc_zstd_of_default, 29, 5,
                              ZD_OF_MAX_SYM, ZD_OF_MAX_LOG, NULL, &sp, se);
        if (st == OC_OK)
            st = zd_seq_table(tab + ZL_TAB_ML, &fs.ml_log, (modes >> 2) & 3, oc_zstd_ml_default, 53, 6,
                              ZD_ML_MAX_SYM, ZD_ML_MAX_LOG, oc_zstd_ml_bits, &sp, se);
        OC_WARP_SYNC(); /* the tables are read by one lane from here on */
        if (st != OC_OK || zd_brd_init(&z.r, sp, (size_t)(se - sp)) != OC_OK)
            return 0;
        oc_bitrd_refill(&z.r);
        z.lls = oc_bitrd_read(&z.r, fs.ll_log);
        z.ofs = oc_bitrd_read(&z.r, fs.of_log);
        z.mls = oc_bitrd_read(&z.r, fs.ml_log);
        z.state = ZL_RUN;
    } else {
        z.lls = z.ofs = z.mls = 0;
    }
    z.ll = tab;
    z.of = tab + ZL_TAB_OF;
    z.ml = tab + ZL_TAB_ML;
    z.lit = lit;
    z.dst = dst;
    z.r0 = 1;
    z.r1 = 4;
    z.r2 = 8;
    z.left = nseq;
    z.bop = z.lp = 0;
    z.ls = (uint32_t)lsize;
    z.bmax = (uint32_t)fs.block_max;
    z.lim = cap < fs.block_max ? (uint32_t)cap : z.bmax;
    z.batch_bop = 0;
    z.batch_lp = 0;
    z.k = 0;
    z.lit_out = ltype != 0;
    z.lbase = (uint32_t)(fcs - ls);
    z.ordered = 0;
    z.has_fcs = fcs_size > 0;
    z.fcs = fcs;
    z.checksum = checksum;
    z.want = checksum ? oc_load_le32(src + n - 4) : 0;
    z.cap = cap;
    *rec = z;
    return 1;
}

/* Step 2 on one lane: up to ZL_K sequences of its chunk into its rows of sq
 * (row f of lane l at sq + (f * g + l) * ZL_KS).  The per-sequence code and
 * checks are zd_block's (the frame has one block: no history before it).
 * A failed check makes the chunk ZL_FAIL (zd_decode_chunk redoes it). */
OC_CORE_FN void zld_decode_batch(zld_lane *z, uint32_t *sq, uint32_t l, uint32_t g)
{
    uint32_t *s_ll = sq + (0 * g + l) * ZL_KS, *s_ml = sq + (1 * g + l) * ZL_KS;
    uint32_t *s_off = sq + (2 * g + l) * ZL_KS;
    oc_bitrd r = z->r;
    uint32_t lls = z->lls, ofs = z->ofs, mls = z->mls;
    uint32_t r0 = z->r0, r1 = z->r1, r2 = z->r2;
    uint32_t bop = z->bop, lp32 = z->lp, ls32 = z->ls, lim = z->lim;
    uint32_t left = z->left;
    uint32_t k = 0;
    z->batch_bop = bop;
    z->batch_lp = lp32;
    while (k < ZL_K && left > 0) {
        zd_fse_entry le = zl_entry(z->ll, lls), me = zl_entry(z->ml, mls), oe = zl_entry(z->of, ofs);
        uint32_t ofc = oe.sym;
        oc_bitrd_refill(&r);
        uint32_t ofv = (1u << ofc) + oc_bitrd_read(&r, (int)ofc);
        uint32_t mlx = oc_bitrd_read(&r, me.base >> 11);
        if (r.c + (le.base >> 11) + le.nbits + me.nbits + oe.nbits > 64)
            oc_bitrd_refill(&r);
        uint32_t llx = oc_bitrd_read(&r, le.base >> 11);
        uint32_t ml = oc_zstd_ml_base[me.sym] + mlx;
        uint32_t ll = oc_zstd_ll_base[le.sym] + llx;
        uint32_t off = zd_offset(ofv, ll, &r0, &r1, &r2);
        left--;
        if (left > 0) {
            lls = (le.base & 0x7FFu) + oc_bitrd_read(&r, le.nbits);
            mls = (me.base & 0x7FFu) + oc_bitrd_read(&r, me.nbits);
            ofs = oe.base + oc_bitrd_read(&r, oe.nbits);
        }
        uint32_t len = ll + ml;
        if (oc_bitrd_pos(&r) < 0 || ll > ls32 - lp32 || off == 0 || (uint64_t)off > (uint64_t)bop + ll ||
            len > lim - bop) {
            z->state = ZL_FAIL;
            z->k = 0;
            return;
        }
        s_ll[k] = ll;
        s_ml[k] = ml;
        s_off[k] = off;
        bop += len;
        lp32 += ll;
        k++;
    }
    if (left == 0) {
        if (oc_bitrd_pos(&r) != 0) {
            z->state = ZL_FAIL;
            z->k = 0;
            return;
        }
        z->state = ZL_DONE;
    }
    z->r = r;
    z->lls = lls;
    z->ofs = ofs;
    z->mls = mls;
    z->r0 = r0;
    z->r1 = r1;
    z->r2 = r2;
    z->bop = bop;
    z->lp = lp32;
    z->left = left;
    z->k = k;
    /* the batch's literals may be read only after its writes when its last
     * write passes its first literal (literals in dst) */
    z->ordered = z->lit_out && bop > z->lbase + z->batch_lp;
}

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
OC_CORE_BIGFN uint32_t zl_group_dep(zd_tables *T, zld_lane *L, uint32_t *sq, size_t first, uint32_t g,
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
        zld_lane rec;
        int ok = zld_prepare(T, (const uint8_t *)src_ptrs[c], src_sizes[c], (uint8_t *)dst_ptrs[c],
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
            zld_lane *z = &L[ZL_SLOT(l)];
            z->k = 0;
            if (z->state == ZL_RUN) {
                zld_decode_batch(z, sq, l, g);
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
        zld_lane *z = &L[ZL_SLOT(l)];
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
