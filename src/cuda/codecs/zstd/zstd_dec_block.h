/*
 * zstd_dec_block.h - one compressed block of the GPU zstd decoder core: the literals
 * section, the sequences section and their execution, batch by batch
 * (RFC 8878 3.1.1.3).
 */
#ifndef OC_ZSTD_DEC_BLOCK_H
#define OC_ZSTD_DEC_BLOCK_H

#include "zstd_dec_huf.h"

/* ---- literals section (RFC 8878 3.1.1.3.1) ---------------------------------- */

OC_CORE_BIGFN oc_status zd_literals(zd_tables *T, zd_frame_state *fs, const uint8_t *blk, size_t bsize,
                                    uint8_t *litbuf, size_t litcap, const uint8_t **lit, size_t *lsize_out,
                                    size_t *used)
{
    uint32_t lane = OC_LANE();
    uint32_t b0 = blk[0];
    uint32_t type = b0 & 3, sf = (b0 >> 2) & 3;
    if (type < 2) {
        size_t lh, lsize;
        if (sf == 0 || sf == 2) {
            lh = 1;
            lsize = b0 >> 3;
        } else if (sf == 1) {
            lh = 2;
            if (bsize < 2)
                return ZD_ERR(OC_ERR_CORRUPT);
            lsize = (b0 >> 4) + ((uint32_t)blk[1] << 4);
        } else {
            lh = 3;
            if (bsize < 3)
                return ZD_ERR(OC_ERR_CORRUPT);
            lsize = (b0 >> 4) + ((uint32_t)blk[1] << 4) + ((uint32_t)blk[2] << 12);
        }
        if (lsize > fs->block_max)
            return ZD_ERR(OC_ERR_CORRUPT);
        if (type == 0) {
            if (lh + lsize > bsize)
                return ZD_ERR(OC_ERR_CORRUPT);
            *lit = blk + lh;
            *used = lh + lsize;
        } else {
            if (lh + 1 > bsize)
                return ZD_ERR(OC_ERR_CORRUPT);
            if (lsize > litcap)
                return ZD_ERR(OC_ERR_OUTPUT_TOO_SMALL);
            uint8_t v = blk[lh];
            for (size_t i = lane; i < lsize; i += OC_NLANES)
                litbuf[i] = v;
            *lit = litbuf;
            *used = lh + 1;
        }
        *lsize_out = lsize;
        return OC_OK;
    }
    /* Compressed or Treeless */
    size_t lh = sf < 2 ? 3 : (sf == 2 ? 4 : 5);
    int bits = sf < 2 ? 10 : (sf == 2 ? 14 : 18);
    int single = sf == 0;
    if (bsize < lh)
        return ZD_ERR(OC_ERR_CORRUPT);
    uint64_t h = 0;
    for (size_t i = 0; i < lh; i++)
        h |= (uint64_t)blk[i] << (8 * i);
    size_t lsize = (size_t)((h >> 4) & ((1u << bits) - 1));
    size_t csize = (size_t)((h >> (4 + bits)) & ((1u << bits) - 1));
    if (lsize > fs->block_max || lh + csize > bsize)
        return ZD_ERR(OC_ERR_CORRUPT);
    if (!single && lsize < 6)
        return ZD_ERR(OC_ERR_CORRUPT);
    const uint8_t *p = blk + lh;
    size_t rem = csize;
    if (type == 2) {
        size_t tu;
        oc_status st = zd_read_huffman(T, p, rem, &fs->huf_log, &tu);
        if (st != OC_OK)
            return st;
        p += tu;
        rem -= tu;
    } else if (fs->huf_log == 0) {
        return ZD_ERR(OC_ERR_CORRUPT);
    }
    if (lsize > litcap)
        return ZD_ERR(OC_ERR_OUTPUT_TOO_SMALL);
    int err = 0;
    if (single) {
        for (uint32_t s = lane; s < 1; s += OC_NLANES)
            err |= zd_huf_stream(T->huf, fs->huf_log, p, rem, litbuf, lsize) != OC_OK;
    } else {
        if (rem < 6)
            return ZD_ERR(OC_ERR_CORRUPT);
        size_t s1 = oc_load_le16(p), s2 = oc_load_le16(p + 2), s3 = oc_load_le16(p + 4);
        if (6 + s1 + s2 + s3 > rem)
            return ZD_ERR(OC_ERR_CORRUPT);
        size_t s4 = rem - 6 - s1 - s2 - s3;
        size_t seg = (lsize + 3) / 4;
        if (3 * seg > lsize)
            return ZD_ERR(OC_ERR_CORRUPT);
        for (uint32_t s = lane; s < 4; s += OC_NLANES) {
            size_t off = 6 + (s > 0 ? s1 : 0) + (s > 1 ? s2 : 0) + (s > 2 ? s3 : 0);
            size_t sz = s == 0 ? s1 : s == 1 ? s2 : s == 2 ? s3 : s4;
            size_t cnt = s < 3 ? seg : lsize - 3 * seg;
            err |= zd_huf_stream(T->huf, fs->huf_log, p + off, sz, litbuf + s * seg, cnt) != OC_OK;
        }
    }
    if (OC_WARP_ANY(err))
        return ZD_ERR(OC_ERR_CORRUPT);
    *lit = litbuf;
    *lsize_out = lsize;
    *used = lh + csize;
    return OC_OK;
}

/* ---- sequences (RFC 8878 3.1.1.3.2 and 3.1.1.4) ----------------------------- */

OC_CORE_BIGFN oc_status zd_seq_table(zd_fse_entry *t, int *log, uint32_t mode, const int16_t *defnorm,
                                     int defn, int deflog, int max_sym, int max_log, const uint8_t *xbits,
                                     const uint8_t **pp, const uint8_t *end)
{
    int16_t norm[64];
    if (mode == 0) {
        for (int i = 0; i < defn; i++)
            norm[i] = defnorm[i];
        *log = deflog;
        return zd_build_fse(t, norm, defn, deflog, xbits);
    }
    if (mode == 1) {
        if (*pp >= end)
            return ZD_ERR(OC_ERR_CORRUPT);
        uint8_t s = **pp;
        (*pp)++;
        if (s > max_sym)
            return ZD_ERR(OC_ERR_CORRUPT);
        t[0].sym = s;
        t[0].nbits = 0;
        t[0].base = (uint16_t)(xbits ? (uint32_t)xbits[s] << 11 : 0u);
        *log = 0;
        return OC_OK;
    }
    if (mode == 2) {
        int l, nsym;
        size_t used;
        oc_status st = zd_read_ncount(*pp, (size_t)(end - *pp), max_sym, max_log, norm, &l, &nsym, &used);
        if (st != OC_OK)
            return st;
        *pp += used;
        *log = l;
        return zd_build_fse(t, norm, nsym, l, xbits);
    }
    return *log < 0 ? OC_ERR_CORRUPT : OC_OK; /* Repeat_Mode */
}

/* Copies len bytes to out+op from src (literals, never overlapping). */
OC_CORE_FN void zd_copy(uint8_t *out, const uint8_t *src, size_t len)
{
    for (size_t i = OC_LANE(); i < len; i += OC_NLANES)
        out[i] = src[i];
}

/* Copies a match of len bytes at distance off (>= 1) ending before out.
 * Byte i takes out[i - off] = out[(i mod off) - off]: every source byte
 * precedes the copy, so lanes never wait on each other. */
OC_CORE_FN void zd_match(uint8_t *out, size_t off, size_t len)
{
    uint32_t lane = OC_LANE();
    size_t r, step;
    if (off >= OC_NLANES) {
        r = lane;
        step = OC_NLANES;
    } else {
        r = lane % off;
        step = OC_NLANES % off;
    }
    const uint8_t *src = out - off;
    for (size_t i = lane; i < len; i += OC_NLANES) {
        out[i] = src[r];
        r += step;
        if (r >= off)
            r -= off;
    }
}

/* Copies len bytes on this lane alone, 8 loads in flight before 8 stores.
 * Source and destination must not overlap. */
OC_CORE_FN void zd_copy_lane(uint8_t *d, const uint8_t *src, uint32_t len)
{
    for (uint32_t t = 0; t < len; t += 8) {
        uint8_t b[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        uint32_t n = len - t < 8 ? len - t : 8;
#ifdef __CUDACC__
#pragma unroll
#endif
        for (uint32_t q = 0; q < 8; q++)
            if (q < n)
                b[q] = src[t + q];
#ifdef __CUDACC__
#pragma unroll
#endif
        for (uint32_t q = 0; q < 8; q++)
            if (q < n)
                d[t + q] = b[q];
    }
}

/* Stages sequence t of a batch of cnt <= ZD_SEQ_BATCH into T's rows (ll,
 * ml, off) with its output and literal positions, block-relative: *bop and
 * *lp are the positions at the batch's start and advance past it.  Returns
 * sequence t's output position.  The executors whose sequences were
 * decoded earlier (zstd_dec_frame.h, zstd_dec_lanes.h) share it.  GPU: one
 * call by the whole warp, lane t holding sequence t (ll = ml = 0 on the
 * lanes >= cnt): a warp prefix sum.  Host: a call per sequence, t = 0 ..
 * cnt - 1 in order.  ZD_EACH_SEQ(t, cnt) is that loop on either side. */
#ifdef __CUDACC__
#define ZD_EACH_SEQ(t, cnt) for (uint32_t t = OC_LANE(), t##_once = 1; t##_once; t##_once = 0)
#else
#define ZD_EACH_SEQ(t, cnt) for (uint32_t t = 0; t < (cnt); t++)
#endif
OC_CORE_FN uint32_t zd_stage_seq(zd_tables *T, uint32_t t, uint32_t cnt, uint32_t ll, uint32_t ml,
                                 uint32_t off, uint32_t *bop, uint32_t *lp)
{
#ifdef __CUDACC__
    uint32_t len = ll + ml, ex = len, exl = ll; /* inclusive sums */
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        uint32_t a = __shfl_up_sync(0xFFFFFFFFu, ex, d), c = __shfl_up_sync(0xFFFFFFFFu, exl, d);
        if (t >= (uint32_t)d) {
            ex += a;
            exl += c;
        }
    }
    uint32_t op = *bop + ex - len, lpt = *lp + exl - ll;
    *bop += __shfl_sync(0xFFFFFFFFu, ex, 31);
    *lp += __shfl_sync(0xFFFFFFFFu, exl, 31);
#else
    uint32_t op = *bop, lpt = *lp;
    *bop += ll + ml;
    *lp += ll;
#endif
    if (t < cnt) {
        T->sq_ll[t] = ll;
        T->sq_ml[t] = ml;
        T->sq_off[t] = off;
        T->sq_op[t] = op;
        T->sq_lp[t] = lpt;
    }
    return op;
}

/* Executes the batch of cnt sequences recorded in T (positions relative to
 * out = the block's first output byte; the batch starts at out + bop).
 * Literal copies never depend on each other: all run at once, one sequence
 * per lane (long ones by the whole warp).  A match whose source ends before
 * the batch starts, without overlapping itself, is independent too; the
 * remaining matches run in order, each by the whole warp. */
OC_CORE_FN int zd_match_indep(uint32_t mpos, uint32_t off, uint32_t ml, uint32_t bop)
{
    return ml <= ZD_SHORT && off >= ml && (size_t)mpos + ml <= (size_t)bop + off;
}

/* The two halves of zd_exec_batch: every literal copy of the batch, then
 * every match (the lane-parallel path, zstd_dec_lanes.h, runs the literal
 * half in order when its literals sit in the output).  On the GPU the long
 * literal runs and the in-order matches are found by a ballot over the
 * lanes' own rows, not by a serial scan of all 32 (H100: lane kernel
 * 1.08-1.10x, frame kernel's executor 1.06-1.27x; bench/gpu/zstd/NOTES.md
 * "Run 8"); the host keeps the scan. */
OC_CORE_FN void zd_exec_literals(zd_tables *T, uint8_t *out, const uint8_t *lit, uint32_t cnt)
{
    uint32_t lane = OC_LANE();
#ifdef __CUDACC__
    /* the long runs found by a ballot and taken from their lanes' registers
     * (shuffles), not by a serial scan of T's 32 rows */
    uint32_t ll = 0, op = 0, lp = 0;
    if (lane < cnt) {
        ll = T->sq_ll[lane];
        op = T->sq_op[lane];
        lp = T->sq_lp[lane];
    }
    if (ll <= ZD_SHORT)
        zd_copy_lane(out + op, lit + lp, ll);
    for (uint32_t longs = __ballot_sync(0xFFFFFFFFu, ll > ZD_SHORT); longs; longs &= longs - 1) {
        int j = __ffs(longs) - 1;
        uint32_t lj = __shfl_sync(0xFFFFFFFFu, ll, j), oj = __shfl_sync(0xFFFFFFFFu, op, j);
        uint32_t pj = __shfl_sync(0xFFFFFFFFu, lp, j);
        zd_copy(out + oj, lit + pj, lj);
    }
#else
    for (uint32_t j = lane; j < cnt; j += OC_NLANES) {
        uint32_t ll = T->sq_ll[j];
        if (ll <= ZD_SHORT)
            zd_copy_lane(out + T->sq_op[j], lit + T->sq_lp[j], ll);
    }
    for (uint32_t j = 0; j < cnt; j++) {
        uint32_t ll = T->sq_ll[j];
        if (ll > ZD_SHORT)
            zd_copy(out + T->sq_op[j], lit + T->sq_lp[j], ll);
    }
#endif
}

#ifdef __CUDACC__
/* The matches of a batch whose source another lane's copy writes (dep: their
 * lanes), each by the whole warp, in sequence order; mpos, off and ml are
 * the calling lane's match (zd_exec_matches, and zstd_decode.cu's
 * out-of-order executors). */
static __device__ __forceinline__ void zd_dep_matches(uint8_t *out, uint32_t dep, uint32_t mpos, uint32_t off,
                                                      uint32_t ml)
{
    for (; dep; dep &= dep - 1) {
        int j = __ffs(dep) - 1;
        uint32_t mj = __shfl_sync(0xFFFFFFFFu, mpos, j), oj = __shfl_sync(0xFFFFFFFFu, off, j);
        uint32_t lj = __shfl_sync(0xFFFFFFFFu, ml, j);
        zd_match(out + mj, oj, lj);
        __syncwarp();
    }
}
#endif

OC_CORE_FN void zd_exec_matches(zd_tables *T, uint8_t *out, uint32_t cnt, uint32_t bop)
{
    uint32_t lane = OC_LANE();
    OC_WARP_SYNC();
#ifdef __CUDACC__
    /* the dependent matches found by a ballot and taken from their lanes'
     * registers, in order (the independent ones first, as below) */
    uint32_t mpos = 0, off = 0, ml = 0;
    if (lane < cnt) {
        mpos = T->sq_op[lane] + T->sq_ll[lane];
        off = T->sq_off[lane];
        ml = T->sq_ml[lane];
    }
    int indep = zd_match_indep(mpos, off, ml, bop);
    if (indep)
        zd_copy_lane(out + mpos, out + mpos - off, ml);
    uint32_t dep = __ballot_sync(0xFFFFFFFFu, !indep);
    OC_WARP_SYNC();
    zd_dep_matches(out, dep, mpos, off, ml);
    OC_WARP_SYNC(); /* the next batch overwrites T->sq_* */
#else
    for (uint32_t j = lane; j < cnt; j += OC_NLANES) {
        uint32_t mpos = T->sq_op[j] + T->sq_ll[j], off = T->sq_off[j], ml = T->sq_ml[j];
        if (zd_match_indep(mpos, off, ml, bop))
            zd_copy_lane(out + mpos, out + mpos - off, ml);
    }
    OC_WARP_SYNC();
    for (uint32_t j = 0; j < cnt; j++) {
        uint32_t mpos = T->sq_op[j] + T->sq_ll[j], off = T->sq_off[j], ml = T->sq_ml[j];
        if (!zd_match_indep(mpos, off, ml, bop)) {
            zd_match(out + mpos, off, ml);
            OC_WARP_SYNC();
        }
    }
    OC_WARP_SYNC(); /* the next batch overwrites T->sq_* */
#endif
}

OC_CORE_BIGFN void zd_exec_batch(zd_tables *T, uint8_t *out, const uint8_t *lit, uint32_t cnt, uint32_t bop)
{
    zd_exec_literals(T, out, lit, cnt);
    zd_exec_matches(T, out, cnt, bop);
}

OC_CORE_BIGFN oc_status zd_block(zd_tables *T, zd_frame_state *fs, const uint8_t *blk, size_t bsize,
                                 uint8_t *dst, size_t cap, size_t *op_io, size_t frame_start, uint8_t *litbuf,
                                 size_t litcap)
{
    const uint8_t *lit;
    size_t lsize, used;
    OC_WARP_SYNC(); /* the previous block's copies are done with litbuf and tables */
    if (bsize < 1)
        return ZD_ERR(OC_ERR_CORRUPT);
    ZD_PROF_START(t_lit);
    oc_status st = zd_literals(T, fs, blk, bsize, litbuf, litcap, &lit, &lsize, &used);
    ZD_PROF_END(0, t_lit);
    if (st != OC_OK)
        return st;
    OC_WARP_SYNC();
    const uint8_t *sp = blk + used, *se = blk + bsize;
    if (sp >= se)
        return ZD_ERR(OC_ERR_CORRUPT);
    uint32_t nseq = *sp++;
    if (nseq >= 128) {
        if (nseq == 255) {
            if (se - sp < 2)
                return ZD_ERR(OC_ERR_CORRUPT);
            nseq = oc_load_le16(sp) + 0x7F00;
            sp += 2;
        } else {
            if (se - sp < 1)
                return ZD_ERR(OC_ERR_CORRUPT);
            nseq = ((nseq - 128) << 8) + *sp++;
        }
    }
    /* No sequences: the section ends right after its count, whichever of
     * the 1-3 byte forms wrote the zero (zstd's golden-decompression-errors
     * zeroSeq_extraneous.zst; its valid zeroSeq_2B.zst uses the 2-byte form). */
    if (nseq == 0 && sp != se)
        return ZD_ERR(OC_ERR_CORRUPT);
    size_t op = *op_io, bstart = op;
    size_t lp = 0;
    if (nseq > 0) {
        if (sp >= se)
            return ZD_ERR(OC_ERR_CORRUPT);
        uint32_t modes = *sp++;
        if (modes & 3)
            return ZD_ERR(OC_ERR_CORRUPT);
        ZD_PROF_START(t_tab);
        st = zd_seq_table(T->ll, &fs->ll_log, modes >> 6, oc_zstd_ll_default, 36, 6, ZD_LL_MAX_SYM,
                          ZD_LL_MAX_LOG, oc_zstd_ll_bits, &sp, se);
        if (st == OC_OK)
            st = zd_seq_table(T->of, &fs->of_log, (modes >> 4) & 3, oc_zstd_of_default, 29, 5, ZD_OF_MAX_SYM,
                              ZD_OF_MAX_LOG, NULL, &sp, se);
        if (st == OC_OK)
            st = zd_seq_table(T->ml, &fs->ml_log, (modes >> 2) & 3, oc_zstd_ml_default, 53, 6, ZD_ML_MAX_SYM,
                              ZD_ML_MAX_LOG, oc_zstd_ml_bits, &sp, se);
        OC_WARP_SYNC();
        ZD_PROF_END(1, t_tab);
        ZD_PROF_START(t_seq);
        if (st != OC_OK) {
            fs->ll_log = fs->of_log = fs->ml_log = -1;
            return st;
        }
        oc_bitrd r;
        st = zd_brd_init(&r, sp, (size_t)(se - sp));
        if (st != OC_OK)
            return st;
        oc_bitrd_refill(&r);
        uint32_t lls = oc_bitrd_read(&r, fs->ll_log);
        uint32_t ofs = oc_bitrd_read(&r, fs->of_log);
        uint32_t mls = oc_bitrd_read(&r, fs->ml_log);
        uint32_t r0 = fs->rep[0], r1 = fs->rep[1], r2 = fs->rep[2];
        uint32_t k = 0;
        /* block-relative 32-bit positions keep the per-sequence checks short */
        uint32_t bop = 0, lp32 = 0, batch_bop = 0, ls32 = (uint32_t)lsize;
        uint32_t bmax = (uint32_t)fs->block_max;
        uint32_t lim = cap - bstart < fs->block_max ? (uint32_t)(cap - bstart) : bmax;
        uint64_t hist = bstart - frame_start;
        for (uint32_t i = 0; i < nseq; i++) {
            zd_fse_entry le = T->ll[lls], me = T->ml[mls], oe = T->of[ofs];
            /* extra-bit counts ride in base's top 5 bits (zd_build_fse), so
             * the bit position never waits on a code-table load */
            uint32_t ofc = oe.sym;
            oc_bitrd_refill(&r); /* offset <= 31 + match length <= 16 bits */
            uint32_t ofv = (1u << ofc) + oc_bitrd_read(&r, (int)ofc);
            uint32_t mlx = oc_bitrd_read(&r, me.base >> 11);
            /* literal length <= 16 + states <= 26 bits: most sequences
             * still have them in the accumulator (a refill is ~30
             * instructions and a load on the dependent chain) */
            if (r.c + (le.base >> 11) + le.nbits + me.nbits + oe.nbits > 64)
                oc_bitrd_refill(&r);
            uint32_t llx = oc_bitrd_read(&r, le.base >> 11);
            uint32_t ml = oc_zstd_ml_base[me.sym] + mlx;
            uint32_t ll = oc_zstd_ll_base[le.sym] + llx;
            uint32_t off = zd_offset(ofv, ll, &r0, &r1, &r2);
            if (i + 1 < nseq) {
                lls = (le.base & 0x7FFu) + oc_bitrd_read(&r, le.nbits);
                mls = (me.base & 0x7FFu) + oc_bitrd_read(&r, me.nbits);
                ofs = oe.base + oc_bitrd_read(&r, oe.nbits);
            }
            if (oc_bitrd_pos(&r) < 0 || ll > ls32 - lp32 || off == 0 || (uint64_t)off > hist + bop + ll)
                return ZD_ERR(OC_ERR_CORRUPT);
            uint32_t len = ll + ml;
            if (len > lim - bop)
                return len > bmax - bop ? ZD_ERR(OC_ERR_CORRUPT) : ZD_ERR(OC_ERR_OUTPUT_TOO_SMALL);
            /* every lane records the same values */
            T->sq_ll[k] = ll;
            T->sq_ml[k] = ml;
            T->sq_off[k] = off;
            T->sq_op[k] = bop;
            T->sq_lp[k] = lp32;
            bop += len;
            lp32 += ll;
            if (++k == ZD_SEQ_BATCH || i + 1 == nseq) {
                OC_WARP_SYNC();
                ZD_PROF_START(t_ex);
                zd_exec_batch(T, dst + bstart, lit, k, batch_bop);
                ZD_PROF_END(3, t_ex);
                k = 0;
                batch_bop = bop;
            }
        }
        op = bstart + bop;
        lp = lp32;
        ZD_PROF_END(2, t_seq);
        if (oc_bitrd_pos(&r) != 0)
            return ZD_ERR(OC_ERR_CORRUPT);
        fs->rep[0] = r0;
        fs->rep[1] = r1;
        fs->rep[2] = r2;
    }
    size_t tail = lsize - lp;
    if (tail > fs->block_max - (op - bstart))
        return ZD_ERR(OC_ERR_CORRUPT);
    if (tail > cap - op)
        return ZD_ERR(OC_ERR_OUTPUT_TOO_SMALL);
    zd_copy(dst + op, lit + lp, tail);
    op += tail;
    *op_io = op;
    return OC_OK;
}

#endif /* OC_ZSTD_DEC_BLOCK_H */
