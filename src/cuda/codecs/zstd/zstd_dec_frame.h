/*
 * zstd_dec_frame.h - a Zstandard frame of several blocks decoded by one CTA
 * ("v8", zstd_decode.cu's zd_pipe_kernel): the blocks' entropy decoding
 * spread over the CTA's warps and overlapped with the in-order execution of
 * the blocks already decoded.  Written once for nvcc and a C11 compiler like
 * zstd_decode_core.h, whose pieces it reuses.
 *
 * Why: one warp per frame (the per-chunk kernel) leaves the GPU nearly empty
 * for MB-sized frames (zarr's chunks: 8-32 blocks of 128 KiB) and spends
 * ~70% of its time in entropy decoding.  A frame's blocks depend on each
 * other through (a) the entropy tables (Treeless literals and Repeat_Mode
 * FSE tables reuse an earlier block's), (b) the repeat offsets and (c)
 * matches into earlier output.  (a) is found by a cheap walk of the block
 * headers (zd_bp_scan), so the entropy decoding of every block can run on
 * its own warp (zd_bp_entropy, repeat offsets left symbolic: "initial rep k
 * minus d").  (c) is why execution stays in order on one warp: measured on
 * real frames (bench/gpu/zstd/NOTES.md "Run 7", bench/gpu/dev/
 * zstd_bigframe_sim.c), each block's first matches read the previous
 * block's last bytes, so blocks executed in parallel (rounds, a wavefront)
 * end up serial.  The executor (zd_pf_block) resolves (b) on the way, block
 * by block.
 *
 * Steps, per frame:
 *   zd_bp_scan      one thread: block boundaries, literal and sequence
 *                   counts, and for each table the description it uses (its
 *                   own or the one it inherits); anything unusual (several
 *                   frames in a chunk, skippable or dictionary frames, a
 *                   single block, a header error) says "not this path";
 *   zd_pf_entropy   a warp per block: literals and sequences into a slot;
 *   zd_pf_block     one warp, blocks in order: repeat offsets, positions,
 *                   the same checks and copies as zd_block (v8; the host
 *                   mirror below; the GPU kernel's executors are now
 *                   zstd_decode.cu's zf_exec: several warps, the batches of
 *                   32 sequences round-robin, out of order, NOTES.md "Run 11");
 *   (v8c            not in the kernel: the entropy warp also copies its
 *                   block's literals once the block's output offset is
 *                   known, the executor then runs the matches only; it
 *                   lost to v8 once the executor's scans became ballots,
 *                   bench/gpu/zstd/NOTES.md "Run 8"; frozen in
 *                   bench/gpu/dev/zstd_dec_frame_v8c.h with its host mirror)
 *   zd_pf_end       content size and XXH64.
 * Every step reports only success or failure: a frame that fails anywhere
 * is decoded again from the start by zd_decode_chunk, which gives the exact
 * status.  So the rule this file keeps is one-sided: it succeeds only where
 * zd_decode_chunk succeeds, with the same bytes (host check:
 * tests/c/test_zstd_gpu_blocks.c; fuzz/fuzz_zstd_gpu_core.c).
 */
#ifndef OC_ZSTD_DEC_FRAME_H
#define OC_ZSTD_DEC_FRAME_H

#include "zstd_decode_core.h"

#define ZD_BP_MAX_BLOCKS 4096u /* more blocks in a frame: per-chunk path */
/* A repeat offset not yet known: ZD_SYM | k << 28 | d is "initial rep k,
 * minus d".  Concrete offsets of this path stay below 2^31 (the frame's
 * output does), so the top bit tells the two apart. */
#define ZD_SYM 0x80000000u

/* One block of a frame, as the scan records it (and the later steps fill). */
typedef struct zd_bp_block {
    uint32_t src, bsize;         /* content offset in the chunk, content size (RLE: run length) */
    uint32_t type;               /* 0 raw, 1 RLE, 2 compressed */
    uint32_t huf, huf_end;       /* Treeless literals: the Huffman description they reuse */
    uint32_t tab[3], tab_end[3]; /* LL, OF, ML: description (mode 1: the symbol byte) and its block's end */
    uint32_t tab_mode[3];        /* 0 predefined, 1 RLE, 2 FSE description (Repeat_Mode resolved) */
    uint32_t lit_src;            /* raw literals: their chunk offset + 1; 0: in the literal slot */
    uint32_t lit, lsize;         /* literal slot (offset in the frame's literal area), literal count */
    uint32_t seq, nseq;          /* first sequence in the frame's sequence area, count */
    uint32_t bits;               /* chunk offset of the sequences' FSE bitstream */
    /* zd_bp_entropy */
    uint32_t dsize;  /* decoded bytes of the block */
    uint32_t rep[3]; /* repeat offsets after the block, in terms of those before it */
    uint32_t ok;     /* 1: literals and sequences decoded */
    /* zd_bp_resolve */
    uint32_t out;     /* first output byte of the block */
    uint32_t init[3]; /* concrete repeat offsets before the block */
    /* bench/gpu/dev/zstd_dec_bigframe.h (v7, an experiment): matches
     * deferred to its in-order pass */
    uint32_t ndef;
} zd_bp_block;

/* One decoded sequence. */
typedef struct zd_bp_seq {
    uint32_t ll, ml, off;
} zd_bp_seq;

/* The frame, as the scan finds it. */
typedef struct zd_bp_frame {
    uint32_t nb;         /* blocks */
    uint32_t ncomp;      /* compressed blocks */
    uint32_t block_max;  /* min(window, 128 KiB) */
    uint32_t checksum;   /* 1: an XXH64 follows the blocks at `end` */
    uint32_t end;        /* chunk offset after the last block */
    uint32_t has_fcs;    /* content size present */
    uint64_t fcs;        /* content size */
    uint64_t lit_total;  /* literal slot bytes */
    uint64_t nseq_total; /* sequences */
} zd_bp_frame;

/* Bytes of a frame's area in the scratch: the block records, the literal
 * slots (16-aligned) and the sequences. */
OC_CORE_FN uint64_t zd_bp_blocks_bytes(const zd_bp_frame *f)
{
    return ((uint64_t)f->nb * sizeof(zd_bp_block) + 15) & ~(uint64_t)15;
}
OC_CORE_FN uint64_t zd_bp_need(const zd_bp_frame *f)
{
    return zd_bp_blocks_bytes(f) + ((f->lit_total + 15) & ~(uint64_t)15) + f->nseq_total * sizeof(zd_bp_seq);
}

/* ---- 1. the scan -------------------------------------------------------- */

/* Walks the one frame that must fill src[0..n) and, when blk is not NULL,
 * records its blocks there (f->nb of them: call once with NULL to count).
 * Returns 1 when the frame may take this path (cap: the output capacity),
 * 0 when the chunk belongs to zd_decode_chunk: not exactly one frame,
 * skippable or dictionary frames, a single block, an error in any header,
 * Repeat_Mode or Treeless without an earlier table, sizes >= 2 GiB.  Plain
 * C on one thread: no warp operations. */
OC_CORE_BIGFN int zd_bp_scan(const uint8_t *src, size_t n, size_t cap, zd_bp_frame *f, zd_bp_block *blk)
{
    if (n < 5 || n >= ZD_SYM || cap >= ZD_SYM || oc_load_le32(src) != 0xFD2FB528u)
        return 0;
    size_t ip = 4;
    uint32_t fhd = src[ip];
    uint32_t fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, did_flag = fhd & 3;
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
        uint64_t base = 1ull << (10 + (wd >> 3));
        window = base + (base >> 3) * (wd & 7);
    }
    uint64_t fcs = 0;
    for (size_t i = 0; i < fcs_size; i++)
        fcs |= (uint64_t)h[i] << (8 * i);
    if (fcs_size == 2)
        fcs += 256;
    if (single)
        window = fcs;
    if (fcs_size > 0 && fcs > cap)
        return 0;
    ip += hsize;
    f->block_max = (uint32_t)(window < ZD_BLOCK_MAX ? window : ZD_BLOCK_MAX);
    f->checksum = (fhd >> 2) & 1;
    f->has_fcs = fcs_size > 0;
    f->fcs = fcs;
    f->nb = f->ncomp = 0;
    f->lit_total = f->nseq_total = 0;
    /* the tables in force: Huffman [huf, huf_end), FSE modes and descriptions */
    uint32_t huf = 0, huf_end = 0;
    uint32_t tmode[3] = {4, 4, 4}, tab[3] = {0, 0, 0}, tend[3] = {0, 0, 0};
    for (;;) {
        if (n - ip < 3 || f->nb >= ZD_BP_MAX_BLOCKS)
            return 0;
        uint32_t bh = oc_load_le24(src + ip);
        ip += 3;
        uint32_t last = bh & 1, type = (bh >> 1) & 3;
        size_t bsize = bh >> 3;
        if (type == 3 || bsize > f->block_max)
            return 0;
        zd_bp_block b;
        b.src = (uint32_t)ip;
        b.bsize = (uint32_t)bsize;
        b.type = type;
        b.huf = b.huf_end = 0;
        b.lit_src = 0;
        b.lit = b.lsize = b.nseq = b.bits = 0;
        b.seq = (uint32_t)f->nseq_total;
        b.dsize = b.ok = b.out = b.ndef = 0;
        for (int k = 0; k < 3; k++) {
            b.tab[k] = b.tab_end[k] = 0;
            b.tab_mode[k] = 0;
            b.rep[k] = b.init[k] = 0;
        }
        if (type == 1) {
            if (n - ip < 1)
                return 0;
            ip += 1;
        } else {
            if (n - ip < bsize)
                return 0;
            if (type == 2) {
                /* the literals section header (as zd_literals reads it) */
                const uint8_t *p = src + ip;
                if (bsize < 1)
                    return 0;
                uint32_t b0 = p[0], lt = b0 & 3, sf = (b0 >> 2) & 3;
                size_t lh, lsize, used;
                if (lt < 2) {
                    if (sf == 0 || sf == 2) {
                        lh = 1;
                        lsize = b0 >> 3;
                    } else if (sf == 1) {
                        lh = 2;
                        if (bsize < 2)
                            return 0;
                        lsize = (b0 >> 4) + ((uint32_t)p[1] << 4);
                    } else {
                        lh = 3;
                        if (bsize < 3)
                            return 0;
                        lsize = (b0 >> 4) + ((uint32_t)p[1] << 4) + ((uint32_t)p[2] << 12);
                    }
                    if (lsize > f->block_max)
                        return 0;
                    if (lt == 0) {
                        if (lh + lsize > bsize)
                            return 0;
                        b.lit_src = (uint32_t)(ip + lh + 1);
                        used = lh + lsize;
                    } else {
                        if (lh + 1 > bsize)
                            return 0;
                        used = lh + 1;
                    }
                } else {
                    lh = sf < 2 ? 3 : (sf == 2 ? 4 : 5);
                    int bits = sf < 2 ? 10 : (sf == 2 ? 14 : 18);
                    if (bsize < lh)
                        return 0;
                    uint64_t hv = 0;
                    for (size_t i = 0; i < lh; i++)
                        hv |= (uint64_t)p[i] << (8 * i);
                    lsize = (size_t)((hv >> 4) & ((1u << bits) - 1));
                    size_t csize = (size_t)((hv >> (4 + bits)) & ((1u << bits) - 1));
                    if (lsize > f->block_max || lh + csize > bsize || (sf != 0 && lsize < 6))
                        return 0;
                    if (lt == 2) {
                        huf = (uint32_t)(ip + lh);
                        huf_end = (uint32_t)(ip + lh + csize);
                    } else {
                        if (huf == 0)
                            return 0;
                        b.huf = huf;
                        b.huf_end = huf_end;
                    }
                    used = lh + csize;
                }
                b.lsize = (uint32_t)lsize;
                if (b.lit_src == 0) {
                    b.lit = (uint32_t)f->lit_total;
                    f->lit_total += lsize;
                }
                /* the sequences section header (as zd_block reads it) */
                const uint8_t *sp = p + used, *se = p + bsize;
                if (sp >= se)
                    return 0;
                uint32_t nseq = *sp++;
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
                if (nseq > 0) {
                    if (sp >= se)
                        return 0;
                    uint32_t modes = *sp++;
                    if (modes & 3)
                        return 0;
                    for (int k = 0; k < 3; k++) {
                        uint32_t m = (modes >> (6 - 2 * k)) & 3;
                        if (m == 0) {
                            tmode[k] = 0;
                        } else if (m == 1) {
                            if (sp >= se)
                                return 0;
                            tmode[k] = 1;
                            tab[k] = (uint32_t)(sp - src);
                            tend[k] = (uint32_t)(se - src);
                            sp++;
                        } else if (m == 2) {
                            int16_t norm[64];
                            int l, nsym;
                            size_t u;
                            int max_sym = k == 0 ? ZD_LL_MAX_SYM : k == 1 ? ZD_OF_MAX_SYM : ZD_ML_MAX_SYM;
                            int max_log = k == 0 ? ZD_LL_MAX_LOG : k == 1 ? ZD_OF_MAX_LOG : ZD_ML_MAX_LOG;
                            if (zd_read_ncount(sp, (size_t)(se - sp), max_sym, max_log, norm, &l, &nsym,
                                               &u) != OC_OK)
                                return 0;
                            tmode[k] = 2;
                            tab[k] = (uint32_t)(sp - src);
                            tend[k] = (uint32_t)(se - src);
                            sp += u;
                        } else if (tmode[k] == 4) {
                            return 0; /* Repeat_Mode with no table yet */
                        }
                        b.tab_mode[k] = tmode[k];
                        b.tab[k] = tab[k];
                        b.tab_end[k] = tend[k];
                    }
                    b.nseq = nseq;
                    b.bits = (uint32_t)(sp - src);
                    f->nseq_total += nseq;
                }
                f->ncomp++;
            }
            ip += bsize;
        }
        if (blk)
            blk[f->nb] = b;
        f->nb++;
        if (last)
            break;
    }
    f->end = (uint32_t)ip;
    if (f->checksum)
        ip += 4;
    /* exactly one frame, of several blocks */
    return ip == n && f->nb >= 2;
}

/* ---- 2. entropy decoding of one compressed block (a warp) ---------------- */

/* Decodes block b's literals into lits + b->lit and its sequences into
 * seqs[b->seq ...]; sets b->dsize, b->rep and b->ok (0 on any error). */
OC_CORE_BIGFN void zd_bp_entropy(zd_tables *T, const uint8_t *src, const zd_bp_frame *f, zd_bp_block *b,
                                 uint8_t *lits, zd_bp_seq *seqs)
{
    zd_frame_state fs;
    fs.huf_log = 0;
    fs.ll_log = fs.ml_log = fs.of_log = -1;
    fs.block_max = f->block_max;
    OC_WARP_SYNC(); /* the warp's previous block is done with the tables */
    if (OC_LANE() == 0)
        b->ok = 0;
    const uint8_t *blk = src + b->src;
    oc_status st = OC_OK;
    if (b->huf != 0) {
        size_t tu;
        st = zd_read_huffman(T, src + b->huf, b->huf_end - b->huf, &fs.huf_log, &tu);
        if (st != OC_OK)
            return;
    }
    const uint8_t *lit;
    size_t lsize, used;
    OC_WARP_SYNC();
    st = zd_literals(T, &fs, blk, b->bsize, lits + b->lit, b->lsize, &lit, &lsize, &used);
    OC_WARP_SYNC();
    if (st != OC_OK || lsize != b->lsize)
        return;
    uint32_t r0 = ZD_SYM, r1 = ZD_SYM | 1u << 28, r2 = ZD_SYM | 2u << 28;
    uint32_t bop = 0, lp32 = 0, ls32 = (uint32_t)lsize, bmax = f->block_max;
    if (b->nseq > 0) {
        const uint8_t *pp = src + b->tab[0];
        st = zd_seq_table(T->ll, &fs.ll_log, b->tab_mode[0], oc_zstd_ll_default, 36, 6, ZD_LL_MAX_SYM,
                          ZD_LL_MAX_LOG, oc_zstd_ll_bits, &pp, src + b->tab_end[0]);
        pp = src + b->tab[1];
        if (st == OC_OK)
            st = zd_seq_table(T->of, &fs.of_log, b->tab_mode[1], oc_zstd_of_default, 29, 5, ZD_OF_MAX_SYM,
                              ZD_OF_MAX_LOG, NULL, &pp, src + b->tab_end[1]);
        pp = src + b->tab[2];
        if (st == OC_OK)
            st = zd_seq_table(T->ml, &fs.ml_log, b->tab_mode[2], oc_zstd_ml_default, 53, 6, ZD_ML_MAX_SYM,
                              ZD_ML_MAX_LOG, oc_zstd_ml_bits, &pp, src + b->tab_end[2]);
        OC_WARP_SYNC();
        if (st != OC_OK)
            return;
        oc_bitrd r;
        if (zd_brd_init(&r, src + b->bits, b->src + b->bsize - b->bits) != OC_OK)
            return;
        oc_bitrd_refill(&r);
        uint32_t lls = oc_bitrd_read(&r, fs.ll_log);
        uint32_t ofs = oc_bitrd_read(&r, fs.of_log);
        uint32_t mls = oc_bitrd_read(&r, fs.ml_log);
        uint32_t nseq = b->nseq;
        zd_bp_seq *out = seqs + b->seq;
        for (uint32_t i = 0; i < nseq; i++) {
            zd_fse_entry le = T->ll[lls], me = T->ml[mls], oe = T->of[ofs];
            uint32_t ofc = oe.sym;
            oc_bitrd_refill(&r);
            uint32_t ofv = (1u << ofc) + oc_bitrd_read(&r, (int)ofc);
            uint32_t mlx = oc_bitrd_read(&r, me.base >> 11);
            if (r.c + (le.base >> 11) + le.nbits + me.nbits + oe.nbits > 64)
                oc_bitrd_refill(&r);
            uint32_t llx = oc_bitrd_read(&r, le.base >> 11);
            uint32_t ml = oc_zstd_ml_base[me.sym] + mlx;
            uint32_t ll = oc_zstd_ll_base[le.sym] + llx;
            uint32_t off;
            if (ofv > 3) {
                off = ofv - 3;
                r2 = r1;
                r1 = r0;
                r0 = off;
            } else {
                uint32_t idx = ofv - 1 + (ll == 0 ? 1u : 0u);
                if (idx == 0) {
                    off = r0;
                } else if (idx == 1) {
                    off = r1;
                    r1 = r0;
                    r0 = off;
                } else if (idx == 2) {
                    off = r2;
                    r2 = r1;
                    r1 = r0;
                    r0 = off;
                } else {
                    /* rep0 - 1: symbolic d grows by one (d < 2^28: nseq < 2^17) */
                    off = (r0 & ZD_SYM) ? r0 + 1 : r0 - 1;
                    r2 = r1;
                    r1 = r0;
                    r0 = off;
                }
            }
            if (i + 1 < nseq) {
                lls = (le.base & 0x7FFu) + oc_bitrd_read(&r, le.nbits);
                mls = (me.base & 0x7FFu) + oc_bitrd_read(&r, me.nbits);
                ofs = oe.base + oc_bitrd_read(&r, oe.nbits);
            }
            /* zd_block's checks that need no output position; a concrete
             * offset >= 2^31 exceeds any history of this path's frames */
            if (oc_bitrd_pos(&r) < 0 || ll > ls32 - lp32 || off == 0 || (off >= ZD_SYM && ofv > 3))
                return;
            uint32_t len = ll + ml;
            if (len > bmax - bop)
                return;
            if (OC_LANE() == 0) {
                out[i].ll = ll;
                out[i].ml = ml;
                out[i].off = off;
            }
            bop += len;
            lp32 += ll;
        }
        if (oc_bitrd_pos(&r) != 0)
            return;
    }
    uint32_t tail = ls32 - lp32;
    if (tail > bmax - bop)
        return;
    if (OC_LANE() == 0) {
        b->dsize = bop + tail;
        b->rep[0] = r0;
        b->rep[1] = r1;
        b->rep[2] = r2;
        b->ok = 1;
    }
    OC_WARP_SYNC();
}

/* The concrete value of repeat offset v given the initial ones, or 0 where
 * it would not be a valid offset (zd_block would have failed). */
OC_CORE_FN uint32_t zd_bp_rep(uint32_t v, const uint32_t *init)
{
    if (!(v & ZD_SYM))
        return v;
    uint32_t k = (v >> 28) & 3, d = v & 0x0FFFFFFFu;
    return init[k] > d ? init[k] - d : 0;
}

/* ---- v8: slots, the executor ---------------------------------------------- */

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

/* Executes block b (its entropy results in b, its slot decoded), literals
 * and matches, at output position *pos of dst (capacity cap), with the
 * repeat offsets rep (updated).  1 on success and *pos advanced; 0 where
 * zd_decode_chunk must decode the frame.  A warp; every lane keeps the same
 * *pos and rep. */
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
#include <stdlib.h>

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

#endif /* OC_ZSTD_DEC_FRAME_H */
