/*
 * zstd_dec_blocks.h - block-parallel decoding of one Zstandard frame ("v5":
 * block-parallel entropy, in-order execution), written once for nvcc and a
 * C11 compiler like zstd_decode_core.h, whose pieces it reuses.
 *
 * Why: one warp per frame leaves the GPU nearly empty for MB-sized frames
 * (zarr's chunks: 8-32 blocks of 128 KiB each) and ~70% of a warp's time is
 * entropy decoding.  The blocks of a frame depend on each other only through
 * (a) the entropy tables (Treeless literals and Repeat_Mode FSE tables reuse
 * an earlier block's), (b) the repeat offsets and (c) matches into earlier
 * output.  So a frame is decoded in four steps:
 *   1. zd_bp_scan (one thread per frame): walks the block headers and, for
 *      every block, records where its literals and sequences start, lsize,
 *      nseq and the description of each table it uses (its own or the one
 *      it inherits).  Anything unusual (several frames in a chunk, skippable
 *      frames, a header error, a frame >= 2 GiB) says "not this path".
 *   2. zd_bp_entropy (one warp per compressed block, all blocks at once):
 *      builds the tables from the recorded descriptions, decodes the literals
 *      into the block's literal slot and the sequences into its sequence slot
 *      as (literal length, match length, offset), where offsets taken from the
 *      repeat history stay symbolic ("initial rep k minus d").
 *   3. zd_bp_resolve (per frame, serial and cheap): output offsets of the
 *      blocks and their concrete initial repeat offsets.
 *   4. zd_bp_execute (one warp per frame, blocks in order): concrete offsets,
 *      the same checks and copies as zd_block, then the content size and
 *      XXH64 checks.
 * Steps 1 and 2 (and the structures) are now the library's
 * (src/cuda/codecs/zstd/zstd_dec_frame.h, where v8 uses them); steps 3 and 4
 * and the host driver stay here.
 * Every step reports only success or failure: a frame that fails anywhere is
 * decoded again from the start by zd_decode_chunk, which gives the exact
 * status.  So the rule this file keeps is one-sided: it succeeds only where
 * zd_decode_chunk succeeds, with the same bytes.
 *
 * Status: an experiment.  It ran in the library for one full-scale run
 * (H100, 2026-11-27, commit 2835d51 holds its kernels) and lost: 1 GiB of
 * libzstd -3 frames decoded at 8.0 GB/s (1 MiB) and 2.65 (4 MiB) against
 * the per-chunk kernel's 13.2 and 3.62 (bench/gpu/zstd/NOTES.md "Run 5").
 * The kernels left the library; this core stays here, tested on the host
 * (tests/c/test_zstd_gpu_blocks.c, fuzz_zstd_gpu_core), as the base of the
 * next design.
 */
#ifndef OC_ZSTD_DEC_BLOCKS_H
#define OC_ZSTD_DEC_BLOCKS_H

/* the scan and the entropy step (and v8, which uses them) are the library's */
#include "../../../src/cuda/codecs/zstd/zstd_dec_frame.h"

/* ---- 3. resolve (per frame, one thread) --------------------------------- */

/* Output offsets and initial repeat offsets of every block; 0 when a block
 * failed or the output does not fit cap (or disagrees with the content
 * size).  Writes the records: call on one lane (or every lane, identical). */
OC_CORE_BIGFN int zd_bp_resolve(const zd_bp_frame *f, zd_bp_block *blk, size_t cap)
{
    uint32_t rep[3] = {1, 4, 8};
    uint64_t pos = 0;
    for (uint32_t i = 0; i < f->nb; i++) {
        zd_bp_block *b = &blk[i];
        uint64_t d = b->bsize;
        if (b->type == 2) {
            if (!b->ok)
                return 0;
            d = b->dsize;
            uint32_t nr[3];
            for (int k = 0; k < 3; k++) {
                nr[k] = zd_bp_rep(b->rep[k], rep);
                if (nr[k] == 0)
                    return 0;
            }
            for (int k = 0; k < 3; k++) {
                b->init[k] = rep[k];
                rep[k] = nr[k];
            }
        }
        if (d > cap - pos)
            return 0;
        b->out = (uint32_t)pos;
        pos += d;
    }
    return !f->has_fcs || pos == f->fcs;
}

/* The frame's decoded size (resolved records). */
OC_CORE_FN uint64_t zd_bp_total(const zd_bp_frame *f, const zd_bp_block *blk)
{
    const zd_bp_block *l = &blk[f->nb - 1];
    return (uint64_t)l->out + (l->type == 2 ? l->dsize : l->bsize);
}

/* ---- 4. execution (a warp per frame) ------------------------------------ */

/* Writes the frame into dst (resolved records); 1 on success, 0 where
 * zd_decode_chunk must decode it again (an offset beyond the history, a bad
 * checksum). */
OC_CORE_BIGFN int zd_bp_execute(zd_tables *T, const uint8_t *src, const zd_bp_frame *f,
                                const zd_bp_block *blk, const uint8_t *lits, const zd_bp_seq *seqs,
                                uint8_t *dst)
{
    uint32_t lane = OC_LANE();
    OC_WARP_SYNC(); /* the warp's previous frame is done with T */
    for (uint32_t i = 0; i < f->nb; i++) {
        const zd_bp_block *b = &blk[i];
        uint8_t *out = dst + b->out;
        if (b->type == 1) {
            uint8_t v = src[b->src];
            for (size_t j = lane; j < b->bsize; j += OC_NLANES)
                out[j] = v;
            continue;
        }
        if (b->type == 0) {
            zd_copy(out, src + b->src, b->bsize);
            continue;
        }
        const uint8_t *lit = b->lit_src ? src + b->lit_src - 1 : lits + b->lit;
        const zd_bp_seq *sq = seqs + b->seq;
        uint32_t bop = 0, lp = 0, hist = b->out;
        OC_WARP_SYNC(); /* the previous block's copies are done */
        for (uint32_t base = 0; base < b->nseq; base += ZD_SEQ_BATCH) {
            uint32_t cnt = b->nseq - base < ZD_SEQ_BATCH ? b->nseq - base : ZD_SEQ_BATCH;
#ifdef __CUDACC__
            /* lane j loads sequence j of the batch; the loop below takes
             * them in order by shuffles (32 loads in flight, not 1) */
            zd_bp_seq mine = {0, 0, 1};
            if (lane < cnt)
                mine = sq[base + lane];
#endif
            uint32_t batch_bop = bop;
            for (uint32_t j = 0; j < cnt; j++) {
#ifdef __CUDACC__
                uint32_t ll = __shfl_sync(0xFFFFFFFFu, mine.ll, j);
                uint32_t ml = __shfl_sync(0xFFFFFFFFu, mine.ml, j);
                uint32_t sym = __shfl_sync(0xFFFFFFFFu, mine.off, j);
#else
                uint32_t ll = sq[base + j].ll, ml = sq[base + j].ml, sym = sq[base + j].off;
#endif
                /* zd_block's history check, with the concrete offset */
                uint32_t off = zd_bp_rep(sym, b->init);
                if (off == 0 || (uint64_t)off > (uint64_t)hist + bop + ll)
                    return 0;
                T->sq_ll[j] = ll;
                T->sq_ml[j] = ml;
                T->sq_off[j] = off;
                T->sq_op[j] = bop;
                T->sq_lp[j] = lp;
                bop += ll + ml;
                lp += ll;
            }
            OC_WARP_SYNC();
            zd_exec_batch(T, out, lit, cnt, batch_bop);
        }
        zd_copy(out + bop, lit + lp, b->lsize - lp);
        OC_WARP_SYNC();
    }
    uint64_t total = zd_bp_total(f, blk);
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
#include <stdlib.h>

/* What zd_bp_decode_host saw in a frame it decoded (tests: each feature
 * must occur, or the test proves nothing). */
typedef struct zd_bp_stats {
    size_t blocks, treeless, repeat_mode, sym_offsets;
} zd_bp_stats;

/* zd_bp_decode_host runs the four steps on one thread, the blocks' entropy
 * last block first (no hidden dependence on order): 1 and *out_size on
 * success, 0 where the path gives up (or malloc fails).  stats may be NULL.
 * Host builds only (tests, fuzzing). */
static __attribute__((unused)) int zd_bp_decode_host(zd_tables *T, const uint8_t *src, size_t n, uint8_t *dst,
                                                     size_t cap, size_t *out_size, zd_bp_stats *stats)
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
    int ok = zd_bp_scan(src, n, cap, &f2, blk) && f2.nb == f.nb;
    for (uint32_t i = f.nb; ok && i-- > 0;)
        if (blk[i].type == 2)
            zd_bp_entropy(T, src, &f, &blk[i], lits, seqs);
    ok = ok && zd_bp_resolve(&f, blk, cap) && zd_bp_execute(T, src, &f, blk, lits, seqs, dst);
    if (ok) {
        *out_size = (size_t)zd_bp_total(&f, blk);
        for (uint32_t i = 0; stats && i < f.nb; i++) {
            const zd_bp_block *b = &blk[i];
            stats->blocks++;
            stats->treeless += b->huf != 0;
            if (b->type != 2 || b->nseq == 0)
                continue;
            for (int k = 0; k < 3; k++) /* a description before the block: Repeat_Mode */
                stats->repeat_mode += b->tab_mode[k] != 0 && b->tab[k] < b->src;
            for (uint32_t q = 0; q < b->nseq; q++)
                stats->sym_offsets += (seqs[b->seq + q].off & ZD_SYM) != 0;
        }
    }
    free(area);
    return ok;
}
#endif

#endif /* OC_ZSTD_DEC_BLOCKS_H */
