/*
 * zstd_dec_bigframe.h - "v7": the blocks of one Zstandard frame EXECUTED in
 * parallel (a warp per block), for MB-sized frames (zarr's chunks, issue
 * 14).  Written once for nvcc and a C11 compiler like zstd_dec_blocks.h,
 * whose scan, entropy and resolve steps (v5) it reuses.
 *
 * Why: v5 decoded the blocks' literals and sequences in parallel but then
 * executed each frame on one warp, blocks in order, and lost to the
 * per-chunk kernel (NOTES.md "Run 5").  Execution can run a warp per block
 * once each block's output offset is known (zd_bp_resolve), except for the
 * matches whose source is not yet written: bytes of an earlier block (its
 * warp may not have run yet), or bytes of this block that such a match
 * writes.  So execution takes two passes:
 *   pass 1, zd_bf_exec_block (a warp per block, all blocks of all frames at
 *     once): literals always, and every match whose source is known to be
 *     final.  A match is DEFERRED (not copied; its destination marked dirty)
 *     when its source starts before the block, or touches a dirty granule of
 *     16 bytes (a 1 KiB bitmap per warp), or reads this batch's own output
 *     after a deferred match of the batch (conservative: deferring a clean
 *     match is always correct, only slower).  The deferred matches are
 *     written over the block's own consumed sequence records, in order, as
 *     (frame position, match length, offset).
 *   pass 2, zd_bf_finish (a warp per frame): the deferred matches of the
 *     frame's blocks in order (batches of 32 with zd_exec_matches: a match
 *     whose source ends before the batch's first destination runs on its own
 *     lane), then the content checksum.  Every byte a deferred match reads
 *     is then final: either written clean in pass 1, or the destination of
 *     an earlier deferred match, which this pass has already executed.
 * How much work pass 2 keeps (the deferred fraction) decides whether this
 * wins; the host test prints it for the corpus frames.
 *
 * Status: an experiment (bench/gpu/dev/zstd_bigframe.cu runs it beside the
 * library's kernel; tests/c/test_zstd_gpu_blocks.c checks it on the host
 * against libzstd, blocks executed last first).  Like v5 it reports only
 * success or failure per frame: a failed frame belongs to zd_decode_chunk.
 */
#ifndef OC_ZSTD_DEC_BIGFRAME_H
#define OC_ZSTD_DEC_BIGFRAME_H

#include "zstd_dec_blocks.h"

#define ZD_BF_GLOG 4u                                 /* dirty granule: 16 bytes */
#define ZD_BF_WORDS (ZD_BLOCK_MAX >> ZD_BF_GLOG >> 5) /* bitmap of a block: 256 words */

/* 1 when a granule of block bytes [a, e) (a < e) is marked dirty. */
OC_CORE_FN int zd_bf_dirty(const uint32_t *bm, uint32_t a, uint32_t e)
{
    uint32_t g0 = a >> ZD_BF_GLOG, g1 = (e - 1) >> ZD_BF_GLOG;
    for (uint32_t w = g0 >> 5; w <= g1 >> 5; w++) {
        uint32_t m = bm[w];
        if (w == g0 >> 5)
            m &= ~0u << (g0 & 31);
        if (w == g1 >> 5)
            m &= ~0u >> (31 - (g1 & 31));
        if (m)
            return 1;
    }
    return 0;
}

/* Marks the granules of [a, e) (a < e) dirty. */
OC_CORE_FN void zd_bf_mark(uint32_t *bm, uint32_t a, uint32_t e)
{
    uint32_t g0 = a >> ZD_BF_GLOG, g1 = (e - 1) >> ZD_BF_GLOG;
    for (uint32_t w = g0 >> 5; w <= g1 >> 5; w++) {
        uint32_t m = ~0u;
        if (w == g0 >> 5)
            m &= ~0u << (g0 & 31);
        if (w == g1 >> 5)
            m &= ~0u >> (31 - (g1 & 31));
#ifdef __CUDACC__
        atomicOr(&bm[w], m);
#else
        bm[w] |= m;
#endif
    }
}

/* What one sequence of a pass-1 batch needs (block-relative positions). */
typedef struct zd_bf_one {
    uint32_t ll, ml, off, op, lp;
    int bad, pre, dep;
} zd_bf_one;

/* Fills x for sequence (ll, ml, sym) at block position op, literal position
 * lp, in a batch starting at batch_bop; bitmap as it was before the batch. */
OC_CORE_FN void zd_bf_classify(zd_bf_one *x, const zd_bp_block *b, const uint32_t *bm, uint32_t ll,
                               uint32_t ml, uint32_t sym, uint32_t op, uint32_t lp, uint32_t batch_bop)
{
    uint32_t off = zd_bp_rep(sym, b->init);
    x->ll = ll;
    x->ml = ml;
    x->off = off;
    x->op = op;
    x->lp = lp;
    /* zd_block's history check: the source starts in the frame */
    x->bad = off == 0 || (uint64_t)off > (uint64_t)b->out + op + ll;
    x->pre = x->dep = 0;
    if (x->bad || ml == 0)
        return;
    uint32_t mpos = op + ll;
    if (off > mpos) { /* the source starts in an earlier block */
        x->pre = 1;
        return;
    }
    uint32_t s0 = mpos - off, se = ml < off ? s0 + ml : mpos; /* source bytes before the match */
    x->pre = zd_bf_dirty(bm, s0, se);
    x->dep = se > batch_bop;
}

/* Pass 1 for block b (resolved records) of the frame whose output is dst;
 * bm: this warp's ZD_BF_WORDS-word bitmap.  1 on success (b->ndef set, the
 * deferred matches in seqs[b->seq ...]); 0 where zd_decode_chunk must
 * decode the frame (an offset beyond the history). */
OC_CORE_BIGFN int zd_bf_exec_block(zd_tables *T, uint32_t *bm, const uint8_t *src, zd_bp_block *b,
                                   const uint8_t *lits, zd_bp_seq *seqs, uint8_t *dst)
{
    uint32_t lane = OC_LANE();
    uint8_t *out = dst + b->out;
    OC_WARP_SYNC(); /* the warp's previous block is done with T and bm */
    if (b->type == 1) {
        uint8_t v = src[b->src];
        for (size_t j = lane; j < b->bsize; j += OC_NLANES)
            out[j] = v;
        if (lane == 0)
            b->ndef = 0;
        return 1;
    }
    if (b->type == 0) {
        zd_copy(out, src + b->src, b->bsize);
        if (lane == 0)
            b->ndef = 0;
        return 1;
    }
    for (uint32_t w = lane; w < ZD_BF_WORDS; w += OC_NLANES)
        bm[w] = 0;
    const uint8_t *lit = b->lit_src ? src + b->lit_src - 1 : lits + b->lit;
    zd_bp_seq *sq = seqs + b->seq;
    uint32_t bop = 0, lp = 0, ndef = 0;
    OC_WARP_SYNC();
    for (uint32_t base = 0; base < b->nseq; base += ZD_SEQ_BATCH) {
        uint32_t cnt = b->nseq - base < ZD_SEQ_BATCH ? b->nseq - base : ZD_SEQ_BATCH;
        uint32_t batch_bop = bop;
#ifdef __CUDACC__
        /* lane j: sequence j of the batch; positions by warp prefix sums */
        uint32_t ll = 0, ml = 0, sym = 1;
        if (lane < cnt) {
            zd_bp_seq s = sq[base + lane];
            ll = s.ll;
            ml = s.ml;
            sym = s.off;
        }
        uint32_t len = ll + ml, ex = len, exl = ll;
        for (uint32_t d = 1; d < 32; d <<= 1) {
            uint32_t a = __shfl_up_sync(0xFFFFFFFFu, ex, d), c = __shfl_up_sync(0xFFFFFFFFu, exl, d);
            if (lane >= d) {
                ex += a;
                exl += c;
            }
        }
        uint32_t tot = __shfl_sync(0xFFFFFFFFu, ex, 31), totl = __shfl_sync(0xFFFFFFFFu, exl, 31);
        zd_bf_one x;
        zd_bf_classify(&x, b, bm, ll, ml, sym, bop + ex - len, lp + exl - ll, batch_bop);
        int in = lane < cnt;
        if (__ballot_sync(0xFFFFFFFFu, in && x.bad))
            return 0;
        uint32_t d0 = __ballot_sync(0xFFFFFFFFu, in && x.pre);
        uint32_t dm = __ballot_sync(0xFFFFFFFFu, in && x.dep);
        uint32_t def = d0;
        if (d0) {
            uint32_t low = (uint32_t)__ffs(d0) - 1;
            def |= low < 31 ? dm & (~0u << (low + 1)) : 0;
        }
        int mine = (def >> lane) & 1;
        __syncwarp(); /* every lane has read bm */
        if (mine) {
            zd_bf_mark(bm, x.op + x.ll, x.op + x.ll + x.ml);
            uint32_t k = ndef + __popc(def & ((1u << lane) - 1));
            zd_bp_seq e;
            e.ll = b->out + x.op + x.ll;
            e.ml = x.ml;
            e.off = x.off;
            sq[k] = e; /* k <= base + lane: a record already read */
        }
        if (in) {
            T->sq_ll[lane] = x.ll;
            T->sq_ml[lane] = mine ? 0 : x.ml;
            T->sq_off[lane] = x.off;
            T->sq_op[lane] = x.op;
            T->sq_lp[lane] = x.lp;
        }
        ndef += __popc(def);
        bop += tot;
        lp += totl;
#else
        zd_bf_one x[ZD_SEQ_BATCH];
        uint32_t d0 = 0, dm = 0, def;
        for (uint32_t j = 0; j < cnt; j++) {
            zd_bp_seq s = sq[base + j];
            zd_bf_classify(&x[j], b, bm, s.ll, s.ml, s.off, bop, lp, batch_bop);
            if (x[j].bad)
                return 0;
            d0 |= (uint32_t)x[j].pre << j;
            dm |= (uint32_t)x[j].dep << j;
            bop += s.ll + s.ml;
            lp += s.ll;
        }
        def = d0;
        if (d0) {
            uint32_t low = 0;
            while (!((d0 >> low) & 1))
                low++;
            def |= low < 31 ? dm & (~0u << (low + 1)) : 0;
        }
        for (uint32_t j = 0; j < cnt; j++) {
            int mine = (def >> j) & 1;
            if (mine) {
                zd_bf_mark(bm, x[j].op + x[j].ll, x[j].op + x[j].ll + x[j].ml);
                zd_bp_seq e;
                e.ll = b->out + x[j].op + x[j].ll;
                e.ml = x[j].ml;
                e.off = x[j].off;
                sq[ndef++] = e;
            }
            T->sq_ll[j] = x[j].ll;
            T->sq_ml[j] = mine ? 0 : x[j].ml;
            T->sq_off[j] = x[j].off;
            T->sq_op[j] = x[j].op;
            T->sq_lp[j] = x[j].lp;
        }
#endif
        OC_WARP_SYNC();
        zd_exec_batch(T, out, lit, cnt, batch_bop);
    }
    zd_copy(out + bop, lit + lp, b->lsize - lp);
    if (lane == 0)
        b->ndef = ndef;
    OC_WARP_SYNC();
    return 1;
}

/* Pass 2 for a frame whose blocks all passed pass 1: the deferred matches
 * in order, then the checksum.  1 on success. */
OC_CORE_BIGFN int zd_bf_finish(zd_tables *T, const uint8_t *src, const zd_bp_frame *f, const zd_bp_block *blk,
                               const zd_bp_seq *seqs, uint8_t *dst)
{
    uint32_t lane = OC_LANE();
    OC_WARP_SYNC();
    for (uint32_t i = 0; i < f->nb; i++) {
        const zd_bp_block *b = &blk[i];
        if (b->type != 2)
            continue;
        const zd_bp_seq *dl = seqs + b->seq;
        for (uint32_t base = 0; base < b->ndef; base += ZD_SEQ_BATCH) {
            uint32_t cnt = b->ndef - base < ZD_SEQ_BATCH ? b->ndef - base : ZD_SEQ_BATCH;
            for (uint32_t j = lane; j < cnt; j += OC_NLANES) {
                zd_bp_seq e = dl[base + j];
                T->sq_ll[j] = 0;
                T->sq_ml[j] = e.ml;
                T->sq_off[j] = e.off;
                T->sq_op[j] = e.ll;
                T->sq_lp[j] = 0;
            }
            uint32_t first = dl[base].ll;
            OC_WARP_SYNC();
            zd_exec_matches(T, dst, cnt, first);
        }
    }
    OC_WARP_SYNC();
    if (f->checksum) {
        uint32_t want = oc_load_le32(src + f->end);
        uint64_t got = zd_xxh64(T, dst, zd_bp_total(f, blk));
        if ((uint32_t)got != want)
            return 0;
    }
    return 1;
}

#ifndef __CUDACC__
/* zd_bf_decode_host runs v7 on one thread: scan, entropy (last block
 * first), resolve, pass 1 (last block first: no block may rely on an
 * earlier one having run), pass 2.  1 and *out_size on success.  *ndef and
 * *nseq (may be NULL) count the deferred matches and all sequences. */
static __attribute__((unused)) int zd_bf_decode_host(zd_tables *T, const uint8_t *src, size_t n, uint8_t *dst,
                                                     size_t cap, size_t *out_size, size_t *ndef, size_t *nseq)
{
    zd_bp_frame f, f2;
    if (!zd_bp_scan(src, n, cap, &f, NULL))
        return 0;
    uint8_t *area = (uint8_t *)malloc(zd_bp_need(&f) + 16);
    if (!area)
        return 0;
    zd_bp_block *blk = (zd_bp_block *)area;
    uint8_t *lits = area + zd_bp_blocks_bytes(&f);
    zd_bp_seq *seqs = (zd_bp_seq *)(lits + ((f.lit_total + 15) & ~(uint64_t)15));
    uint32_t bm[ZD_BF_WORDS];
    int ok = zd_bp_scan(src, n, cap, &f2, blk) && f2.nb == f.nb;
    for (uint32_t i = f.nb; ok && i-- > 0;)
        if (blk[i].type == 2)
            zd_bp_entropy(T, src, &f, &blk[i], lits, seqs);
    ok = ok && zd_bp_resolve(&f, blk, cap);
    for (uint32_t i = f.nb; ok && i-- > 0;)
        ok = zd_bf_exec_block(T, bm, src, &blk[i], lits, seqs, dst);
    ok = ok && zd_bf_finish(T, src, &f, blk, seqs, dst);
    if (ok) {
        *out_size = (size_t)zd_bp_total(&f, blk);
        for (uint32_t i = 0; i < f.nb; i++) {
            if (ndef)
                *ndef += blk[i].ndef;
            if (nseq)
                *nseq += blk[i].nseq;
        }
    }
    free(area);
    return ok;
}
#endif

#endif /* OC_ZSTD_DEC_BIGFRAME_H */
