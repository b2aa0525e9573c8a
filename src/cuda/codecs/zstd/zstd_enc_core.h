/*
 * zstd_enc_core.h - a Zstandard (RFC 8878) frame encoder written once for two
 * compilers: nvcc, where one WARP owns one chunk (zstd_enc.cu), and a C11
 * compiler, where one thread does (tests/c/test_zstd_gpu_enc_core.c and the
 * fuzz target round-trip it through libzstd under ASan on every commit; CI
 * has no GPU).
 *
 * What it writes: one frame per chunk, content size in the header, window =
 * chunk size (Single_Segment; chunks over 128 MiB get a 128 MiB window
 * descriptor instead so stock streaming decoders accept them), no checksum,
 * no dictionary.  Blocks of at most 128 KiB; each is Compressed, or Raw when
 * compression does not make it smaller, or RLE when it is one byte repeated.
 * At levels 1-3 the blocks after a chunk's first are compressed alone (their
 * own tables and the 64 KiB before them, no repeat offset from the block
 * before: ze_split), so the GPU runs a warp a block (ze_compress_task).
 *
 * Two variants (ze_params_for_level; levels in bench/gpu/zstd/ENC_NOTES.md):
 *   fast (negative levels): greedy matching by windows of 32 positions (one
 *     per lane on the GPU; ze_block_fast), repeat offset then one hash
 *     table (6-byte hash).
 *   lazy (level >= 1, default 3): candidates from hash buckets of the 8
 *     latest positions per hash (levels 1-3, depth 1, 4 and 8) or hash chains
 *     (levels >= 4, depth 16..32), 4-byte hash; lazy evaluation (a match one
 *     position later wins if it gains more).  Levels 2-5 run it by windows
 *     of 32 positions (ze_block_wlazy: insertion and searches one position
 *     per lane, then the parse); levels >= 6 on lane 0 (ze_block_lazy).
 *     Both give near-identical parses (same ratio to 3 decimals on the
 *     corpus).
 *   Both: literals Huffman-coded when smaller than raw (tree weights direct
 *   or FSE-compressed, whichever is smaller; 1 or 4 streams), RLE literals
 *   for one repeated byte; per code stream the cheapest of predefined, RLE
 *   or an FSE table built from the block's statistics.
 *
 * On the GPU the whole warp calls ze_compress_chunk: every lane computes the
 * same control values; the window match finders, byte copies, the
 * literals' histogram, symbol order and Huffman streams, the sequences'
 * codes and bitstream and the table reset use all lanes; the level >= 6
 * match finder, the Huffman tree, the FSE tables and state chain run on
 * lane 0 and their results are broadcast (OC_WARP_BCAST, then a warp sync
 * where the lanes read what lane 0 wrote).  Output is byte-identical
 * between the C build and the GPU (the windows are emulated in C).
 *
 * Safety: every write is checked against the capacity; OUTPUT_TOO_SMALL
 * exactly when the frame this encoder makes does not fit (the block-type
 * choice never depends on the capacity).  Reads stay inside the chunk.
 */
#ifndef OC_ZSTD_ENC_CORE_H
#define OC_ZSTD_ENC_CORE_H

/* The core along the encoder's seams: zstd_enc_common.h (limits, scratch,
 * parameters, bit writer), zstd_enc_match.h (matcher), zstd_enc_entropy.h
 * (entropy coding), and here the blocks and the frame. */
#include "zstd_enc_entropy.h"
#include "zstd_enc_match.h"

/* ---- frame ---------------------------------------------------------------------- */

/* Worst-case frame size for n bytes (header + 3 bytes per block). */
OC_CORE_FN size_t ze_bound(size_t n)
{
    return 18 + n + 3 * (n / ZE_BLOCK + 1);
}

/* Clears the heads and the links of W, where the buckets live (W->base
 * must be 0: ze_work_from, ze_next_chunk; the chains never read a link
 * before writing it); lanes [lane, lane+nlanes...) share the
 * work (sync after, on the GPU).  Before a worker's first chunk, and when
 * ze_next_chunk says so. */
OC_CORE_FN void ze_reset(const ze_work *W, uint32_t lane, uint32_t nlanes)
{
    for (uint32_t i = lane; i < (1u << ZE_HASH_LOG); i += nlanes)
        W->hash[i] = ZE_EMPTY;
    for (uint32_t i = lane; i < (1u << ZE_CHAIN_LOG); i += nlanes)
        W->chain[i] = ZE_EMPTY;
}

/* The frame header of an n-byte chunk (n < 4 GiB) into h (18 bytes at
 * most): content size, window = the chunk (Single_Segment) or 2^27 for
 * chunks over 128 MiB (*maxdist: the farthest a match may reach).  Returns
 * its size. */
OC_INLINE uint32_t ze_frame_header(size_t n, uint8_t *h, uint32_t *maxdist)
{
    uint32_t hl = 0;
    h[hl++] = 0x28;
    h[hl++] = 0xB5;
    h[hl++] = 0x2F;
    h[hl++] = 0xFD;
    *maxdist = (uint32_t)n;
    if (n > ((size_t)1 << ZE_BIG_WINDOW_LOG)) {
        h[hl++] = (uint8_t)(2u << 6); /* FCS 4 bytes, window descriptor */
        h[hl++] = (uint8_t)((ZE_BIG_WINDOW_LOG - 10) << 3);
        *maxdist = 1u << ZE_BIG_WINDOW_LOG;
        for (int i = 0; i < 4; i++)
            h[hl++] = (uint8_t)(n >> (8 * i));
    } else if (n < 256) {
        h[hl++] = 0x20; /* single segment, FCS 1 byte */
        h[hl++] = (uint8_t)n;
    } else if (n < 65536 + 256) {
        h[hl++] = 0x60;
        h[hl++] = (uint8_t)(n - 256);
        h[hl++] = (uint8_t)((n - 256) >> 8);
    } else {
        h[hl++] = 0xA0;
        for (int i = 0; i < 4; i++)
            h[hl++] = (uint8_t)(n >> (8 * i));
    }
    return hl;
}

/* ---- blocks compressed alone (chunks over one block, levels 1-3) ---------------
 *
 * At the bucket levels (1-3) every block of a chunk after its first is
 * compressed alone, so that the GPU can give each 128 KiB block of a large
 * chunk its own warp (zstd_enc.cu) and still write the bytes of the C
 * build: its tables hold only the ZE_BACK bytes before it (entered
 * unsearched), so its matches reach back that far (and through repeat
 * offsets, anywhere in the chunk); its repeat offsets start as values no
 * offset can equal, so its first offsets are written as new ones and its
 * Offset_Values do not depend on the blocks before it (after three new
 * offsets the decoder's history is the block's own).  The frame stays one
 * standard frame (window = the chunk).  Chunks of one block (64 KiB) and
 * the other levels are as before.  Ratio: -0.3 % at 1 MiB chunks
 * (bench/gpu/zstd/ENC_NOTES.md, session 8). */
#define ZE_BACK 65536u
#define ZE_NOREP 0xF0000000u /* no offset (< 2^27) is this, this + 16, + 32 or one less */

/* 1: the blocks of an n-byte chunk after its first are compressed alone. */
OC_INLINE int ze_split(const ze_params *P, size_t n)
{
    return P->bucket && n > ZE_BLOCK;
}

/* The start of a block compressed alone (bs > 0): the tables must hold
 * nothing (cleared, or W->base moved past the chunk); enters the ZE_BACK
 * bytes before the block into the buckets (windows of ZE_WINDOW, the
 * whole warp) and sets the repeat offsets and the insertion point. */
OC_CORE_FN void ze_block_alone(const ze_work *W, const uint8_t *src, uint32_t bs, uint32_t be, uint32_t *rep,
                               uint32_t *ins)
{
    rep[0] = ZE_NOREP;
    rep[1] = ZE_NOREP + 16u;
    rep[2] = ZE_NOREP + 32u;
    *ins = bs;
    if (be - bs <= 8) /* no position is searched */
        return;
    for (uint32_t p = bs > ZE_BACK ? bs - ZE_BACK : 0; p < bs; p += ZE_WINDOW) {
        uint32_t to = bs - p < ZE_WINDOW ? bs : p + ZE_WINDOW;
#ifdef __CUDACC__
        uint32_t skip[ZE_WAYS];
        ze_bucket_window(W, src, p, to, skip);
#else
        ze_bucket_window(W, src, p, to, NULL);
#endif
    }
}

/* Block [bs, be) of src (window maxdist) as a block at dst[pos..cap): its
 * 3-byte header, then its body, Compressed when smaller than Raw, RLE when
 * one byte repeated; rep and *ins as the block leaves them.  Returns the
 * position after it, or (size_t)-1 when it does not fit (the type choice
 * never depends on cap).  The whole warp. */
OC_CORE_FN size_t ze_block(const ze_work *W, ze_tables *T, const ze_params *P, const uint8_t *src,
                           uint32_t bs, uint32_t be, uint32_t maxdist, uint32_t last, uint32_t *rep,
                           uint32_t *ins, uint8_t *dst, size_t pos, size_t cap)
{
    uint32_t lane = OC_LANE();
    uint32_t bsz = be - bs;
    size_t rem = cap - pos;
    uint32_t same = 1;
    for (uint32_t i = bs + 1; i < be && same; i++)
        same = src[i] == src[bs];
    uint32_t type, body;
    if (same && bsz > 1) {
        type = 1;
        body = 1;
        if (rem < 4)
            return (size_t)-1;
        if (lane == 0)
            dst[pos + 3] = src[bs];
    } else {
        uint32_t saved[3] = {rep[0], rep[1], rep[2]};
        uint32_t nlit = 0, nseq = 0;
        ZE_PHASE(0);
        if (P->lazy == 2) {
            nseq = ze_block_wlazy(W, src, bs, be, maxdist, rep, P, ins, &nlit);
        } else if (P->lazy) { /* lane 0 finds the matches, the others get the results */
            if (lane == 0)
                nseq = ze_block_lazy(W, src, bs, be, maxdist, rep, P, ins, &nlit);
            nseq = OC_WARP_BCAST(nseq);
            nlit = OC_WARP_BCAST(nlit);
            *ins = OC_WARP_BCAST(*ins);
            rep[0] = OC_WARP_BCAST(rep[0]);
            rep[1] = OC_WARP_BCAST(rep[1]);
            rep[2] = OC_WARP_BCAST(rep[2]);
        } else {
            nseq = ze_block_fast(W, src, bs, be, maxdist, rep, &nlit);
        }
        OC_WARP_SYNC();
        ZE_PHASE(1);
        /* compressed only if smaller than raw; never past the capacity;
         * the literals section by the warp (histogram and Huffman
         * streams by the lanes), the sequences section on lane 0 */
        size_t lim = pos + 3 + (rem - 3 < bsz - 1 ? rem - 3 : bsz - 1);
        size_t e = lim + 1;
        if (rem >= 3) {
            e = ze_literals(T, W->lit, nlit, dst, pos + 3, lim);
            ZE_PHASE(2);
            if (e <= lim)
                ze_seq_codes(T, W->seq, nseq);
            if (lane == 0 && e <= lim) /* header, tables, FSE states */
                e = ze_sequences(T, W->seq, nseq, P->fse_built, dst, e, lim, (uint32_t *)(void *)W->lit);
            e = OC_WARP_BCAST(e);
            OC_WARP_SYNC();           /* lane 0's marks and final states, seen by every lane */
            if (e <= lim && nseq > 0) /* the bitstream by the lanes (the literals are written) */
                e = ze_seq_stream_warp(T, W->seq, (const uint32_t *)(const void *)W->lit, nseq, dst, e, lim,
                                       T->huf.edge);
        }
        e = OC_WARP_BCAST(e);
        ZE_PHASE(3);
        if (e <= lim) {
            type = 2;
            body = (uint32_t)(e - pos - 3);
        } else {
            rep[0] = saved[0];
            rep[1] = saved[1];
            rep[2] = saved[2];
            type = 0;
            body = bsz;
            if (rem < 3 + (size_t)bsz)
                return (size_t)-1;
            for (uint32_t i = lane; i < bsz; i += OC_NLANES)
                dst[pos + 3 + i] = src[bs + i];
        }
    }
    uint32_t bh = last | (type << 1) | ((type == 1 ? bsz : body) << 3);
    if (lane == 0) {
        dst[pos] = (uint8_t)bh;
        dst[pos + 1] = (uint8_t)(bh >> 8);
        dst[pos + 2] = (uint8_t)(bh >> 16);
    }
    OC_WARP_SYNC();
    return pos + 3 + body;
}

/* Compresses src[0..n) into one frame at dst (capacity cap).  W's heads
 * must hold no position at or above W->base (ze_reset, or ze_next_chunk
 * after the chunk before); T initialised by ze_tables_init.  Chunks must
 * be < 4 GiB.  A chunk whose blocks are compressed alone (ze_split) has
 * its tables cleared before each block after the first (the GPU's block
 * tasks, ze_compress_task, give the same bytes). */
OC_CORE_BIGFN oc_status ze_compress_chunk(const ze_work *W, ze_tables *T, const uint8_t *src, size_t n,
                                          uint8_t *dst, size_t cap, size_t *out, int level)
{
    *out = 0;
    if (n >= ((size_t)1 << 32))
        return OC_ERR_CHUNK_TOO_LARGE;
    ze_params P = ze_params_for_level(level);
    uint8_t h[18];
    uint32_t maxdist;
    size_t hl = ze_frame_header(n, h, &maxdist);
    uint32_t lane = OC_LANE();
    if (hl > cap)
        return OC_ERR_OUTPUT_TOO_SMALL;
    for (size_t i = lane; i < hl; i += OC_NLANES)
        dst[i] = h[i];
    size_t pos = hl;
    if (n == 0) {
        if (pos + 3 > cap)
            return OC_ERR_OUTPUT_TOO_SMALL;
        if (lane == 0) {
            dst[pos] = 1; /* last, raw, size 0 */
            dst[pos + 1] = 0;
            dst[pos + 2] = 0;
        }
        *out = pos + 3;
        return OC_OK;
    }
    int split = ze_split(&P, n);
    uint32_t rep[3] = {1, 4, 8};
    uint32_t ins = 0;
    for (uint32_t bs = 0; bs < n;) {
        uint32_t bsz = (uint32_t)(n - bs) < ZE_BLOCK ? (uint32_t)(n - bs) : ZE_BLOCK;
        uint32_t be = bs + bsz;
        if (split && bs > 0) {
            ze_reset(W, lane, OC_NLANES);
            OC_WARP_SYNC();
            ze_block_alone(W, src, bs, be, rep, &ins);
        }
        pos = ze_block(W, T, &P, src, bs, be, maxdist, be == n, rep, &ins, dst, pos, cap);
        if (pos == (size_t)-1)
            return OC_ERR_OUTPUT_TOO_SMALL;
        bs = be;
    }
    *out = pos;
    return OC_OK;
}

/* ---- a task a block (zstd_enc.cu) -------------------------------------------
 *
 * A chunk that ze_split splits runs as a task per block when its capacity
 * holds the frame of Raw blocks (ze_split_bytes): block k is compressed
 * (ze_compress_task) into its place in that frame, the header with block
 * 0; when all are done, ze_gather moves them down in order.  Same bytes as
 * ze_compress_chunk. */

/* The size of the n-byte chunk's frame of Raw blocks (n > 0). */
OC_INLINE size_t ze_split_bytes(size_t n)
{
    uint8_t h[18];
    uint32_t maxdist;
    return ze_frame_header(n, h, &maxdist) + n + 3 * ((n + ZE_BLOCK - 1) / ZE_BLOCK);
}

/* The tasks of a chunk of n bytes with capacity cap: its blocks when they
 * run as tasks, else 1 (ze_compress_chunk). */
OC_INLINE size_t ze_tasks(size_t n, size_t cap, int level)
{
    ze_params P = ze_params_for_level(level);
    if (!ze_split(&P, n) || n >= ((size_t)1 << 32) || cap < ze_split_bytes(n))
        return 1;
    return (n + ZE_BLOCK - 1) / ZE_BLOCK;
}

/* Task k of the chunk src[0..n) (ze_tasks > 1; dst holds ze_split_bytes):
 * block k at its place in the frame of Raw blocks, the frame header with
 * block 0.  W's tables must hold nothing (no position at or above
 * W->base). */
OC_CORE_BIGFN void ze_compress_task(const ze_work *W, ze_tables *T, const uint8_t *src, size_t n, uint32_t k,
                                    uint8_t *dst, int level)
{
    ze_params P = ze_params_for_level(level);
    uint8_t h[18];
    uint32_t maxdist;
    size_t hl = ze_frame_header(n, h, &maxdist);
    uint32_t lane = OC_LANE();
    if (k == 0)
        for (size_t i = lane; i < hl; i += OC_NLANES)
            dst[i] = h[i];
    uint32_t bs = k * ZE_BLOCK;
    uint32_t be = (uint32_t)(n - bs) < ZE_BLOCK ? (uint32_t)n : bs + ZE_BLOCK;
    uint32_t rep[3] = {1, 4, 8};
    uint32_t ins = 0;
    if (bs > 0)
        ze_block_alone(W, src, bs, be, rep, &ins);
    size_t pos = hl + (size_t)k * (3 + ZE_BLOCK);
    ze_block(W, T, &P, src, bs, be, maxdist, be == n, rep, &ins, dst, pos, pos + 3 + (be - bs));
}

/* After every task of the chunk (n bytes) at dst: moves its blocks down
 * to follow each other (the whole warp; on the GPU the other warps' bytes
 * are read from L2, after their fence); returns the frame's size. */
OC_CORE_FN size_t ze_gather(uint8_t *dst, size_t n)
{
    uint8_t h[18];
    uint32_t maxdist, lane = OC_LANE();
    size_t hl = ze_frame_header(n, h, &maxdist), pos = hl;
    size_t nb = (n + ZE_BLOCK - 1) / ZE_BLOCK;
    for (size_t k = 0; k < nb; k++) {
        const uint8_t *b = dst + hl + k * (3 + ZE_BLOCK);
#ifdef __CUDACC__
        uint32_t bh = (uint32_t)__ldcg(b) | ((uint32_t)__ldcg(b + 1) << 8) | ((uint32_t)__ldcg(b + 2) << 16);
#else
        uint32_t bh = (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16);
#endif
        size_t sz = 3 + (((bh >> 1) & 3u) == 1 ? 1 : bh >> 3);
        uint8_t *d = dst + pos;
        if (d != b) /* down: d < b; each step reads before it writes, and no step reads what one wrote */
            for (size_t o = 0; o < sz; o += 8 * OC_NLANES) {
                uint8_t v[8];
                for (int u = 0; u < 8; u++) {
                    size_t i = o + u * OC_NLANES + lane;
#ifdef __CUDACC__
                    v[u] = i < sz ? __ldcg(b + i) : 0;
#else
                    v[u] = i < sz ? b[i] : 0;
#endif
                }
                OC_WARP_SYNC();
                for (int u = 0; u < 8; u++) {
                    size_t i = o + u * OC_NLANES + lane;
                    if (i < sz)
                        d[i] = v[u];
                }
                OC_WARP_SYNC();
            }
        pos += sz;
    }
    return pos;
}

#endif /* OC_ZSTD_ENC_CORE_H */
