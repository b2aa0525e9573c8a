/*
 * zstd_dec_frame_v8c.h - "v8c", a variant of the library's frame decoder
 * for MB-sized zstd frames (src/cuda/codecs/zstd/zstd_dec_frame.h, v8) that
 * lost its A/B, frozen here (issue 12: no losing variants in src/).
 *
 * Why it exists: in v8 the executor warp (zd_pf_block, the frame's serial
 * path) copies each block's literals and runs its matches.  In v8c the
 * warp that decoded a block's entropy also copies the block's literals to
 * their places as soon as the block's output offset is known (zd_pf_lits),
 * and the executor runs the matches only (zd_pf_block_v8c).  Measured
 * (bench/gpu/zstd/NOTES.md "Run 8"): 1.04-1.10x v8 while the executor's
 * scans were serial, 0.92x once they became ballots, so the library's
 * kernel is v8 again.  The GPU A/B of the split is the dev harness
 * zstd_bigframe.cu (its own v8c, MODE 2); this file keeps the split's host
 * mirror, zd_pf_decode_host_v8c, which tests/c/test_zstd_gpu_blocks.c
 * checks beside v8 on every frame.  A frozen copy: it keeps zd_pf_block as
 * of session 7 and does not follow the library.
 */
#ifndef OC_ZSTD_DEC_FRAME_V8C_H
#define OC_ZSTD_DEC_FRAME_V8C_H

#include "../../../src/cuda/codecs/zstd/zstd_dec_frame.h"

/* Copies block b's literals (decoded into slot, or raw in src) to their
 * places in out (the block's first output byte), so that executing the
 * block is only its matches (zd_pf_block_v8c).  Why: the
 * executor is the frame's serial path, and half of its time went to these
 * copies (v7's split, bench/gpu/zstd/NOTES.md "Run 7"); they depend on
 * nothing but the block's output offset, so the warp that decoded the
 * block's entropy does them while the executor is busy with earlier
 * blocks.  b must be ok (b->dsize bytes fit at out: checked by the caller).
 * Uses T's sequence rows.  A warp. */
OC_CORE_BIGFN void zd_pf_lits(zd_tables *T, const uint8_t *src, const zd_bp_block *b, const uint8_t *slot,
                              uint8_t *out)
{
    const uint8_t *lit = b->lit_src ? src + b->lit_src - 1 : slot;
    const zd_bp_seq *sq = (const zd_bp_seq *)(slot + ((b->lsize + 15) & ~15u));
    uint32_t bop = 0, lp = 0;
    OC_WARP_SYNC(); /* T's rows are free */
    for (uint32_t base = 0; base < b->nseq; base += ZD_SEQ_BATCH) {
        uint32_t cnt = b->nseq - base < ZD_SEQ_BATCH ? b->nseq - base : ZD_SEQ_BATCH;
        ZD_EACH_SEQ(t, cnt)
        {
            uint32_t ll = 0, ml = 0;
            if (t < cnt) {
                zd_bp_seq s = sq[base + t];
                ll = s.ll;
                ml = s.ml;
            }
            zd_stage_seq(T, t, cnt, ll, ml, 0, &bop, &lp);
        }
        OC_WARP_SYNC();
        zd_exec_literals(T, out, lit, cnt);
        OC_WARP_SYNC(); /* the next batch overwrites T's rows */
    }
    zd_copy(out + bop, lit + lp, b->lsize - lp);
    OC_WARP_SYNC();
}

/* zd_pf_block (zstd_dec_frame.h) for v8c: executes block b (its entropy
 * results in b, its slot decoded) at output position *pos of dst (capacity
 * cap), with the repeat offsets rep (updated), where zd_pf_lits has put the
 * block's literals in place already: only the matches run here.  1 on
 * success and *pos advanced; 0 where zd_decode_chunk must decode the frame.  A warp; every
 * lane keeps the same *pos and rep. */
OC_CORE_BIGFN int zd_pf_block_v8c(zd_tables *T, const uint8_t *src, const zd_bp_block *b, uint32_t *rep,
                                  uint64_t *pos, const uint8_t *slot, uint8_t *dst, size_t cap)
{
    uint32_t lane = OC_LANE();
    uint64_t p0 = *pos;
    uint8_t *out = dst + p0;
    OC_WARP_SYNC(); /* the previous block's copies are done with T */
    if (b->type != 2) {
        if (b->bsize > cap - p0)
            return 0;
        if (b->type == 1) {
            uint8_t v = src[b->src];
            for (size_t j = lane; j < b->bsize; j += OC_NLANES)
                out[j] = v;
        } else {
            zd_copy(out, src + b->src, b->bsize);
        }
        *pos = p0 + b->bsize;
        return 1;
    }
    if (!b->ok || b->dsize > cap - p0)
        return 0;
    uint32_t init[3], nr[3];
    for (int k = 0; k < 3; k++) {
        init[k] = rep[k];
        nr[k] = zd_bp_rep(b->rep[k], rep);
        if (nr[k] == 0)
            return 0;
    }
    const zd_bp_seq *sq = (const zd_bp_seq *)(slot + ((b->lsize + 15) & ~15u));
    uint32_t bop = 0, lp = 0;
    for (uint32_t base = 0; base < b->nseq; base += ZD_SEQ_BATCH) {
        uint32_t cnt = b->nseq - base < ZD_SEQ_BATCH ? b->nseq - base : ZD_SEQ_BATCH;
        uint32_t batch_bop = bop;
        int bad = 0;
        ZD_EACH_SEQ(t, cnt)
        {
            uint32_t ll = 0, ml = 0, sym = 1;
            if (t < cnt) {
                zd_bp_seq s = sq[base + t];
                ll = s.ll;
                ml = s.ml;
                sym = s.off;
            }
            uint32_t off = zd_bp_rep(sym, init);
            uint32_t op = zd_stage_seq(T, t, cnt, ll, ml, off, &bop, &lp);
            bad |= t < cnt && (off == 0 || (uint64_t)off > p0 + op + ll);
        }
        if (OC_WARP_ANY(bad))
            return 0;
        OC_WARP_SYNC();
        zd_exec_matches(T, out, cnt, batch_bop);
    }
    OC_WARP_SYNC();
    for (int k = 0; k < 3; k++)
        rep[k] = nr[k];
    *pos = p0 + b->dsize;
    return 1;
}

#ifndef __CUDACC__
#include <stdlib.h>

/* zd_pf_decode_host_v8c: v8c on one thread with R = 2 slots (block b's
 * entropy decoded into slot b mod 2 just before it is executed, so a slot
 * is reused as the kernel reuses it): each block's literals are copied
 * first (zd_pf_lits) at the offset the v8c kernel's chain gave it (the sum
 * of the earlier blocks' sizes, a failed block counting 0), then its
 * matches executed (zd_pf_block_v8c).  1 and *out_size on success. */
static __attribute__((unused)) int zd_pf_decode_host_v8c(zd_tables *T, const uint8_t *src, size_t n,
                                                         uint8_t *dst, size_t cap, size_t *out_size,
                                                         uint64_t slot_bytes)
{
    zd_bp_frame f, f2;
    if (!zd_bp_scan(src, n, cap, &f, NULL))
        return 0;
    zd_bp_block *blk = (zd_bp_block *)malloc(f.nb * sizeof(zd_bp_block));
    uint8_t *slots = (uint8_t *)malloc(2 * slot_bytes);
    int ok = blk && slots && zd_bp_scan(src, n, cap, &f2, blk) && f2.nb == f.nb;
    uint32_t rep[3] = {1, 4, 8};
    uint64_t pos = 0, chain = 0;
    for (uint32_t i = 0; ok && i < f.nb; i++) {
        uint8_t *slot = slots + (i & 1) * slot_bytes;
        uint64_t size = blk[i].bsize;
        if (blk[i].type == 2) {
            zd_pf_entropy(T, src, &f, &blk[i], slot, slot_bytes, &blk[i]);
            size = blk[i].ok ? blk[i].dsize : 0;
            if (blk[i].ok && chain + size <= cap)
                zd_pf_lits(T, src, &blk[i], slot, dst + chain);
        }
        chain += size;
        ok = zd_pf_block_v8c(T, src, &blk[i], rep, &pos, slot, dst, cap);
    }
    ok = ok && zd_pf_end(T, src, &f, dst, pos);
    if (ok)
        *out_size = (size_t)pos;
    free(blk);
    free(slots);
    return ok;
}
#endif

#endif /* OC_ZSTD_DEC_FRAME_V8C_H */
