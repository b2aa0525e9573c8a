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

/* Compresses src[0..n) into one frame at dst (capacity cap).  W's heads
 * must hold no position at or above W->base (ze_reset, or ze_next_chunk
 * after the chunk before); T initialised by ze_tables_init.
 * Chunks must be < 4 GiB. */
OC_CORE_BIGFN oc_status ze_compress_chunk(const ze_work *W, ze_tables *T, const uint8_t *src, size_t n,
                                          uint8_t *dst, size_t cap, size_t *out, int level)
{
    *out = 0;
    if (n >= ((size_t)1 << 32))
        return OC_ERR_CHUNK_TOO_LARGE;
    ze_params P = ze_params_for_level(level);
    /* frame header */
    uint8_t h[18];
    size_t hl = 0;
    h[hl++] = 0x28;
    h[hl++] = 0xB5;
    h[hl++] = 0x2F;
    h[hl++] = 0xFD;
    uint32_t maxdist = (uint32_t)n;
    if (n > ((size_t)1 << ZE_BIG_WINDOW_LOG)) {
        h[hl++] = (uint8_t)(2u << 6); /* FCS 4 bytes, window descriptor */
        h[hl++] = (uint8_t)((ZE_BIG_WINDOW_LOG - 10) << 3);
        maxdist = 1u << ZE_BIG_WINDOW_LOG;
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
    uint32_t rep[3] = {1, 4, 8};
    uint32_t ins = 0;
    for (uint32_t bs = 0; bs < n;) {
        uint32_t bsz = (uint32_t)(n - bs) < ZE_BLOCK ? (uint32_t)(n - bs) : ZE_BLOCK;
        uint32_t be = bs + bsz;
        uint32_t last = be == n;
        size_t rem = cap - pos;
        uint32_t same = 1;
        for (uint32_t i = bs + 1; i < be && same; i++)
            same = src[i] == src[bs];
        uint32_t type, body;
        if (same && bsz > 1) {
            type = 1;
            body = 1;
            if (rem < 4)
                return OC_ERR_OUTPUT_TOO_SMALL;
            if (lane == 0)
                dst[pos + 3] = src[bs];
        } else {
            uint32_t saved[3] = {rep[0], rep[1], rep[2]};
            uint32_t nlit = 0, nseq = 0;
            ZE_PHASE(0);
            if (P.lazy == 2) {
                nseq = ze_block_wlazy(W, src, bs, be, maxdist, rep, &P, &ins, &nlit);
            } else if (P.lazy) { /* lane 0 finds the matches, the others get the results */
                if (lane == 0)
                    nseq = ze_block_lazy(W, src, bs, be, maxdist, rep, &P, &ins, &nlit);
                nseq = OC_WARP_BCAST(nseq);
                nlit = OC_WARP_BCAST(nlit);
                ins = OC_WARP_BCAST(ins);
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
                    e = ze_sequences(T, W->seq, nseq, P.fse_built, dst, e, lim, (uint32_t *)(void *)W->lit);
                e = OC_WARP_BCAST(e);
                OC_WARP_SYNC();           /* lane 0's marks and final states, seen by every lane */
                if (e <= lim && nseq > 0) /* the bitstream by the lanes (the literals are written) */
                    e = ze_seq_stream_warp(T, W->seq, (const uint32_t *)(const void *)W->lit, nseq, dst, e,
                                           lim, T->huf.edge);
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
                    return OC_ERR_OUTPUT_TOO_SMALL;
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
        pos += 3 + body;
        bs = be;
    }
    *out = pos;
    return OC_OK;
}

#endif /* OC_ZSTD_ENC_CORE_H */
