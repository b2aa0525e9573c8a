/*
 * zstd_dec_pipe.h - "v8": one Zstandard frame decoded by one CTA, its
 * blocks' entropy decoding spread over several warps and overlapped with the
 * in-order execution of the blocks already decoded (a pipeline), for
 * MB-sized frames (zarr's chunks, issue 14).  Written once for nvcc and a
 * C11 compiler; reuses v5's scan and per-block entropy step
 * (zstd_dec_blocks.h).
 *
 * Why: the host measurements of Run 7 (bench/gpu/zstd/NOTES.md,
 * zstd_bigframe_sim.c) show that a frame's matches cannot be executed a
 * block per warp: each block's first matches read the previous block's last
 * bytes, so rounds or a wavefront end up serial.  Execution stays one warp
 * per frame, in order; what can run in parallel is the entropy decoding
 * (~70% of the per-chunk kernel's time).  v5 did that in separate kernels
 * with every block's literals and sequences in DRAM (1-2 waves of a 1 GiB
 * region), and lost.  v8 keeps them in a ring of R slots per frame (the CTA's
 * entropy warps fill slot b mod R once the executor has finished block b-R),
 * so the scratch is R slots per CTA, the data is consumed while it is still
 * in L2, and execution starts as soon as block 0 is decoded.
 *
 * This file holds what the executor does per block (zd_pf_block: the
 * resolve of v5 done incrementally, in order, and the execution with batch
 * positions from warp prefix sums); the kernel with its warps' hand-over is
 * in bench/gpu/dev/zstd_bigframe.cu.  zd_pf_decode_host runs the same
 * steps on one thread for the host tests (tests/c/test_zstd_gpu_blocks.c).
 * Like v5 it reports only success or failure: a frame that fails belongs to
 * zd_decode_chunk.
 */
#ifndef OC_ZSTD_DEC_PIPE_H
#define OC_ZSTD_DEC_PIPE_H

#include "zstd_dec_blocks.h"

/* Bytes of one slot: a block's literals (16-aligned) and its sequences. */
OC_CORE_FN uint64_t zd_pf_slot_need(const zd_bp_block *b)
{
    return (((uint64_t)b->lsize + 15) & ~(uint64_t)15) + (uint64_t)b->nseq * sizeof(zd_bp_seq);
}

/* Entropy-decodes block b (record in blk, read only here) into a slot:
 * literals at slot, sequences after them.  Writes the results into *res
 * (dsize, rep, ok). A warp; all lanes get the same answer. */
OC_CORE_BIGFN void zd_pf_entropy(zd_tables *T, const uint8_t *src, const zd_bp_frame *f, const zd_bp_block *b,
                                 uint8_t *slot, uint64_t slot_bytes, zd_bp_block *res)
{
    zd_bp_block x = *b;
    x.lit = 0;
    x.seq = 0;
    x.ok = 0;
    if (zd_pf_slot_need(b) <= slot_bytes)
        zd_bp_entropy(T, src, f, &x, slot, (zd_bp_seq *)(slot + ((b->lsize + 15) & ~15u)));
    if (OC_LANE() == 0) {
        res->dsize = x.dsize;
        res->rep[0] = x.rep[0];
        res->rep[1] = x.rep[1];
        res->rep[2] = x.rep[2];
        res->ok = x.ok;
    }
    OC_WARP_SYNC();
}

/* Executes block b (its entropy results in b, its slot decoded) at output
 * position *pos of dst (capacity cap), with the repeat offsets rep (updated).
 * 1 on success and *pos advanced; 0 where zd_decode_chunk must decode the
 * frame.  A warp; every lane keeps the same *pos and rep. */
OC_CORE_BIGFN int zd_pf_block(zd_tables *T, const uint8_t *src, const zd_bp_block *b, uint32_t *rep,
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
    const uint8_t *lit = b->lit_src ? src + b->lit_src - 1 : slot;
    const zd_bp_seq *sq = (const zd_bp_seq *)(slot + ((b->lsize + 15) & ~15u));
    uint32_t bop = 0, lp = 0;
    for (uint32_t base = 0; base < b->nseq; base += ZD_SEQ_BATCH) {
        uint32_t cnt = b->nseq - base < ZD_SEQ_BATCH ? b->nseq - base : ZD_SEQ_BATCH;
        uint32_t batch_bop = bop;
#ifdef __CUDACC__
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
        uint32_t op = bop + ex - len, off = zd_bp_rep(sym, init);
        int bad = lane < cnt && (off == 0 || (uint64_t)off > p0 + op + ll);
        if (__ballot_sync(0xFFFFFFFFu, bad))
            return 0;
        if (lane < cnt) {
            T->sq_ll[lane] = ll;
            T->sq_ml[lane] = ml;
            T->sq_off[lane] = off;
            T->sq_op[lane] = op;
            T->sq_lp[lane] = lp + exl - ll;
        }
        bop += __shfl_sync(0xFFFFFFFFu, ex, 31);
        lp += __shfl_sync(0xFFFFFFFFu, exl, 31);
#else
        for (uint32_t j = 0; j < cnt; j++) {
            zd_bp_seq s = sq[base + j];
            uint32_t off = zd_bp_rep(s.off, init);
            if (off == 0 || (uint64_t)off > p0 + bop + s.ll)
                return 0;
            T->sq_ll[j] = s.ll;
            T->sq_ml[j] = s.ml;
            T->sq_off[j] = off;
            T->sq_op[j] = bop;
            T->sq_lp[j] = lp;
            bop += s.ll + s.ml;
            lp += s.ll;
        }
#endif
        OC_WARP_SYNC();
        zd_exec_batch(T, out, lit, cnt, batch_bop);
    }
    zd_copy(out + bop, lit + lp, b->lsize - lp);
    OC_WARP_SYNC();
    for (int k = 0; k < 3; k++)
        rep[k] = nr[k];
    *pos = p0 + b->dsize;
    return 1;
}

/* The frame's end: content size and checksum.  1 when both agree. */
OC_CORE_BIGFN int zd_pf_end(zd_tables *T, const uint8_t *src, const zd_bp_frame *f, const uint8_t *dst,
                            uint64_t total)
{
    if (f->has_fcs && total != f->fcs)
        return 0;
    OC_WARP_SYNC();
    if (f->checksum) {
        uint32_t want = oc_load_le32(src + f->end);
        uint64_t got = zd_xxh64(T, dst, total);
        if ((uint32_t)got != want)
            return 0;
    }
    return 1;
}

#ifndef __CUDACC__
/* zd_pf_decode_host: v8 on one thread with R = 2 slots (block b's entropy
 * decoded into slot b mod 2 just before it is executed, so a slot is
 * reused as the kernel reuses it).  1 and *out_size on success. */
static __attribute__((unused)) int zd_pf_decode_host(zd_tables *T, const uint8_t *src, size_t n, uint8_t *dst,
                                                     size_t cap, size_t *out_size, uint64_t slot_bytes)
{
    zd_bp_frame f, f2;
    if (!zd_bp_scan(src, n, cap, &f, NULL))
        return 0;
    zd_bp_block *blk = (zd_bp_block *)malloc(f.nb * sizeof(zd_bp_block));
    uint8_t *slots = (uint8_t *)malloc(2 * slot_bytes);
    int ok = blk && slots && zd_bp_scan(src, n, cap, &f2, blk) && f2.nb == f.nb;
    uint32_t rep[3] = {1, 4, 8};
    uint64_t pos = 0;
    for (uint32_t i = 0; ok && i < f.nb; i++) {
        uint8_t *slot = slots + (i & 1) * slot_bytes;
        if (blk[i].type == 2)
            zd_pf_entropy(T, src, &f, &blk[i], slot, slot_bytes, &blk[i]);
        ok = zd_pf_block(T, src, &blk[i], rep, &pos, slot, dst, cap);
    }
    ok = ok && zd_pf_end(T, src, &f, dst, pos);
    if (ok)
        *out_size = (size_t)pos;
    free(blk);
    free(slots);
    return ok;
}
#endif

#endif /* OC_ZSTD_DEC_PIPE_H */
