/*
 * zstd_decode_core.h - a Zstandard (RFC 8878) frame decoder written once for
 * two compilers: nvcc, where one WARP decodes one chunk, and a C11 compiler,
 * where one thread does (the same code with a "warp" of one lane).
 *
 * Why one source: CI has no GPU.  Compiled for the host, this file is tested
 * against libzstd on real data, under ASan/UBSan and libFuzzer; compiled by
 * nvcc it is the body of the GPU kernel (zstd_decode.cu).
 *
 * How a warp shares the work ("warp-uniform" design):
 *   - every lane runs the whole entropy decoder redundantly: headers, FSE and
 *     Huffman tables, the sequence bitstream.  The lanes read the same bytes
 *     and compute the same values, so the warp issues each instruction once
 *     and same-address loads are broadcasts; no hand-off is needed.
 *   - the byte work is split across lanes: literal and match copies, raw and
 *     RLE blocks, table fills, the four Huffman streams (lanes 0-3) and the
 *     four XXH64 accumulators (lanes 0-3).
 *   - OC_WARP_SYNC (__syncwarp) separates phases whose data other lanes wrote:
 *     after each sequence (its bytes may be the next match's source), after
 *     each table build and literal decode, before a table is rebuilt.
 *   Tables shared by the warp (zd_tables) live in shared memory on the GPU.
 *
 * Safety: every length and offset read from the input is checked before use;
 * reads never go past the chunk, writes never past the output capacity or
 * the literal buffer.  Statuses: TRUNCATED when the input ends before the
 * frame does, OUTPUT_TOO_SMALL when the capacity is exceeded, CORRUPT for any
 * inconsistent field, CHECKSUM_MISMATCH for a bad XXH64, NEEDS_DICTIONARY for
 * a frame with a dictionary ID.
 */
#ifndef OC_ZSTD_DECODE_CORE_H
#define OC_ZSTD_DECODE_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "../../../common/bitreader.h"
#include "../../../common/portable.h"
#include "../../../common/xxh.h"
#include "opencomp.h"
#include "zstd_tables.h"

/* ZD_TRACE (host builds): print the line of every error return. */
#if defined(ZD_TRACE) && !defined(__CUDACC__)
#include <stdio.h>
#define ZD_ERR(st) (fprintf(stderr, "zd: status %d at line %d\n", (int)(st), __LINE__), (st))
#else
#define ZD_ERR(st) (st)
#endif

#define ZD_BLOCK_MAX 131072u /* Block_Maximum_Size upper bound */
/* ZD_PROFILE (nvcc, harness builds only): lane 0 of each warp adds clock64
 * cycles per phase into zd_prof[] (defined in zstd_decode.cu):
 * 0 literals section, 1 sequence tables, 2 sequence loop (with 3),
 * 3 batch execution, 4 XXH64, 5 whole chunks.  The includer defines zd_prof. */
#if defined(ZD_PROFILE) && defined(__CUDACC__)
#define ZD_PROF_START(t) long long t = clock64()
#define ZD_PROF_END(k, t)                                                                                    \
    do {                                                                                                     \
        if (OC_LANE() == 0)                                                                                  \
            atomicAdd(&zd_prof[k], (unsigned long long)(clock64() - (t)));                                   \
    } while (0)
#else
#define ZD_PROF_START(t) ((void)0)
#define ZD_PROF_END(k, t) ((void)0)
#endif

#define ZD_SEQ_BATCH 32 /* sequences decoded, then executed, together */
#define ZD_SHORT 32     /* copies up to this length run on one lane */
#define ZD_HUF_MAX_LOG 11
#define ZD_LL_MAX_LOG 9
#define ZD_ML_MAX_LOG 9
#define ZD_OF_MAX_LOG 8
#define ZD_LL_MAX_SYM 35
#define ZD_ML_MAX_SYM 52
#define ZD_OF_MAX_SYM 31

/* One FSE decoding cell: next state = base + read(nbits). */
typedef struct zd_fse_entry {
    uint16_t base;
    uint8_t nbits;
    uint8_t sym;
} zd_fse_entry;

/* The warp's shared tables (about 9.3 KiB). */
typedef struct zd_tables {
    uint16_t huf[1u << ZD_HUF_MAX_LOG]; /* symbol | nbits << 8 */
    zd_fse_entry ll[1u << ZD_LL_MAX_LOG];
    zd_fse_entry ml[1u << ZD_ML_MAX_LOG];
    zd_fse_entry of[1u << ZD_OF_MAX_LOG];
    zd_fse_entry hw[64]; /* Huffman weights, accuracy log <= 6 */
    uint64_t xxh[4];
    /* one batch of decoded sequences, executed together (zd_exec_batch) */
    uint32_t sq_ll[ZD_SEQ_BATCH], sq_ml[ZD_SEQ_BATCH], sq_off[ZD_SEQ_BATCH];
    uint32_t sq_op[ZD_SEQ_BATCH], sq_lp[ZD_SEQ_BATCH]; /* output / literal position from the block start */
} zd_tables;

/* Per-frame entropy state, identical in every lane (registers). */
typedef struct zd_frame_state {
    int huf_log;                /* 0: no Huffman table yet in this frame */
    int ll_log, ml_log, of_log; /* -1: no table yet (Repeat_Mode is corrupt) */
    uint32_t rep[3];
    size_t block_max;
} zd_frame_state;

/* ---- backward bit reader (FSE and Huffman bitstreams): common/bitreader.h */

/* Starts a reader over [p, p+size); CORRUPT if empty or the last byte has no
 * end marker. */
OC_CORE_FN oc_status zd_brd_init(oc_bitrd *r, const uint8_t *p, size_t size)
{
    return oc_bitrd_init(r, p, size) == 0 ? OC_OK : ZD_ERR(OC_ERR_CORRUPT);
}

/* ---- FSE table description (RFC 8878 4.1.1) ---------------------------------
 * Reads normalized counts from [p, p+avail) (forward bit reads,
 * common/bitreader.h).  On success *log, *nsym and *used (bytes) are set;
 * norm[] holds nsym counts (-1 = "less than 1"). */
OC_CORE_BIGFN oc_status zd_read_ncount(const uint8_t *p, size_t avail, int max_sym, int max_log,
                                       int16_t *norm, int *log_out, int *nsym_out, size_t *used)
{
    if (avail < 1)
        return ZD_ERR(OC_ERR_CORRUPT);
    int log = (p[0] & 15) + 5;
    if (log > max_log)
        return ZD_ERR(OC_ERR_CORRUPT);
    size_t bit = 4;
    int remaining = (1 << log) + 1; /* values 0..remaining-? as the RFC: probability points left + 1 */
    int threshold = 1 << log;
    int nbits = log + 1;
    int sym = 0;
    while (remaining > 1 && sym <= max_sym) {
        int maxv = (2 * threshold - 1) - remaining;
        uint32_t v = oc_bits_forward(p, avail, bit, nbits);
        int count;
        if ((int)(v & (uint32_t)(threshold - 1)) < maxv) {
            count = (int)(v & (uint32_t)(threshold - 1));
            bit += (size_t)(nbits - 1);
        } else {
            count = (int)(v & (uint32_t)(2 * threshold - 1));
            if (count >= threshold)
                count -= maxv;
            bit += (size_t)nbits;
        }
        count -= 1;
        remaining -= count < 0 ? -count : count;
        norm[sym++] = (int16_t)count;
        if (count == 0) {
            for (;;) {
                uint32_t rep = oc_bits_forward(p, avail, bit, 2);
                bit += 2;
                for (uint32_t i = 0; i < rep; i++) {
                    if (sym > max_sym)
                        return ZD_ERR(OC_ERR_CORRUPT);
                    norm[sym++] = 0;
                }
                if (rep != 3)
                    break;
                if ((bit >> 3) > avail)
                    return ZD_ERR(OC_ERR_CORRUPT);
            }
        }
        while (remaining < threshold && threshold > 1) {
            nbits--;
            threshold >>= 1;
        }
        if ((bit >> 3) > avail)
            return ZD_ERR(OC_ERR_CORRUPT);
    }
    if (remaining != 1 || sym > max_sym + 1)
        return ZD_ERR(OC_ERR_CORRUPT);
    size_t bytes = (bit + 7) >> 3;
    if (bytes > avail)
        return ZD_ERR(OC_ERR_CORRUPT);
    *log_out = log;
    *nsym_out = sym;
    *used = bytes;
    return OC_OK;
}

/* Builds an FSE decoding table (RFC 8878 4.1.1, "From normalized distribution
 * to decoding tables").  Every lane computes it; all write the same values. */
OC_CORE_BIGFN oc_status zd_build_fse(zd_fse_entry *t, const int16_t *norm, int nsym, int log,
                                     const uint8_t *xbits)
{
    uint32_t size = 1u << log;
    uint32_t high = size - 1;
    uint16_t next[64];
    for (int s = 0; s < nsym; s++) {
        if (norm[s] == -1) {
            t[high].sym = (uint8_t)s;
            high--;
            next[s] = 1;
        } else {
            next[s] = (uint16_t)(norm[s] > 0 ? norm[s] : 0);
        }
    }
    uint32_t step = (size >> 1) + (size >> 3) + 3, mask = size - 1, pos = 0;
    for (int s = 0; s < nsym; s++) {
        for (int i = 0; i < norm[s]; i++) {
            t[pos].sym = (uint8_t)s;
            do {
                pos = (pos + step) & mask;
            } while (pos > high);
        }
    }
    if (pos != 0)
        return ZD_ERR(OC_ERR_CORRUPT);
    for (uint32_t u = 0; u < size; u++) {
        uint8_t s = t[u].sym;
        uint32_t ns = next[s]++;
        int nb = log - oc_highbit32(ns);
        t[u].nbits = (uint8_t)nb;
        t[u].base = (uint16_t)(((ns << nb) - size) | (xbits ? (uint32_t)xbits[s] << 11 : 0u));
    }
    return OC_OK;
}

/* ---- Huffman tree description (RFC 8878 4.2.1) ------------------------------ */

OC_CORE_BIGFN oc_status zd_read_huffman(zd_tables *T, const uint8_t *p, size_t avail, int *log_out,
                                        size_t *used)
{
    uint8_t w[256];
    int nw = 0;
    if (avail < 1)
        return ZD_ERR(OC_ERR_CORRUPT);
    uint32_t hb = p[0];
    if (hb < 128) {
        size_t csz = hb;
        if (csz == 0 || 1 + csz > avail)
            return ZD_ERR(OC_ERR_CORRUPT);
        int16_t norm[16];
        int log, nsym;
        size_t nc;
        oc_status st = zd_read_ncount(p + 1, csz, 12, 6, norm, &log, &nsym, &nc);
        if (st != OC_OK)
            return st;
        st = zd_build_fse(T->hw, norm, nsym, log, NULL);
        OC_WARP_SYNC();
        if (st != OC_OK)
            return st;
        oc_bitrd r;
        st = zd_brd_init(&r, p + 1 + nc, csz - nc);
        if (st != OC_OK)
            return st;
        uint32_t s1 = oc_bitrd_read(&r, log), s2 = oc_bitrd_read(&r, log);
        for (;;) {
            if (nw > 253)
                return ZD_ERR(OC_ERR_CORRUPT);
            zd_fse_entry e = T->hw[s1];
            w[nw++] = e.sym;
            oc_bitrd_refill(&r);
            s1 = e.base + oc_bitrd_read(&r, e.nbits);
            if (oc_bitrd_pos(&r) < 0) {
                w[nw++] = T->hw[s2].sym;
                break;
            }
            if (nw > 253)
                return ZD_ERR(OC_ERR_CORRUPT);
            e = T->hw[s2];
            w[nw++] = e.sym;
            oc_bitrd_refill(&r);
            s2 = e.base + oc_bitrd_read(&r, e.nbits);
            if (oc_bitrd_pos(&r) < 0) {
                w[nw++] = T->hw[s1].sym;
                break;
            }
        }
        *used = 1 + csz;
    } else {
        nw = (int)hb - 127;
        size_t bytes = (size_t)(nw + 1) / 2;
        if (1 + bytes > avail)
            return ZD_ERR(OC_ERR_CORRUPT);
        for (int i = 0; i < nw; i++)
            w[i] = (uint8_t)((i & 1) ? (p[1 + i / 2] & 15) : (p[1 + i / 2] >> 4));
        *used = 1 + bytes;
    }
    uint32_t sum = 0;
    for (int i = 0; i < nw; i++) {
        if (w[i] > ZD_HUF_MAX_LOG)
            return ZD_ERR(OC_ERR_CORRUPT);
        sum += (1u << w[i]) >> 1;
    }
    if (sum == 0)
        return ZD_ERR(OC_ERR_CORRUPT);
    int maxbits = oc_highbit32(sum) + 1;
    if (maxbits > ZD_HUF_MAX_LOG)
        return ZD_ERR(OC_ERR_CORRUPT);
    uint32_t rest = (1u << maxbits) - sum;
    if (rest & (rest - 1))
        return ZD_ERR(OC_ERR_CORRUPT);
    w[nw++] = (uint8_t)(oc_highbit32(rest) + 1);
    /* rank starts: weight 1 (longest codes) first, natural symbol order */
    uint32_t start[ZD_HUF_MAX_LOG + 2];
    uint32_t cnt[ZD_HUF_MAX_LOG + 2];
    for (int i = 0; i <= ZD_HUF_MAX_LOG + 1; i++)
        cnt[i] = 0;
    for (int i = 0; i < nw; i++)
        cnt[w[i]]++;
    if (cnt[1] < 2 || (cnt[1] & 1))
        return ZD_ERR(OC_ERR_CORRUPT);
    uint32_t acc = 0;
    for (int k = 1; k <= maxbits; k++) {
        start[k] = acc;
        acc += cnt[k] << (k - 1);
    }
    OC_WARP_SYNC(); /* nobody still decodes with the previous table */
    for (int s = 0; s < nw; s++) {
        int k = w[s];
        if (k == 0)
            continue;
        uint32_t len = 1u << (k - 1);
        uint16_t v = (uint16_t)(s | ((maxbits + 1 - k) << 8));
        uint32_t at = start[k];
        start[k] += len;
        for (uint32_t i = OC_LANE(); i < len; i += OC_NLANES)
            T->huf[at + i] = v;
    }
    OC_WARP_SYNC();
    *log_out = maxbits;
    return OC_OK;
}

/* Decodes one Huffman stream of `count` symbols into out[]. */
OC_CORE_FN oc_status zd_huf_stream(const uint16_t *huf, int log, const uint8_t *p, size_t size, uint8_t *out,
                                   size_t count)
{
    oc_bitrd r;
    oc_status st = zd_brd_init(&r, p, size);
    if (st != OC_OK)
        return st;
    size_t i = 0;
    for (; i + 4 <= count; i += 4) { /* 4 codes of <= 11 bits per refill */
        oc_bitrd_refill(&r);
        for (int q = 0; q < 4; q++) {
            uint32_t e = huf[oc_bitrd_peek(&r, log)];
            out[i + (size_t)q] = (uint8_t)e;
            r.c += e >> 8;
        }
        if (oc_bitrd_pos(&r) < -64)
            return ZD_ERR(OC_ERR_CORRUPT);
    }
    for (; i < count; i++) {
        oc_bitrd_refill(&r);
        uint32_t e = huf[oc_bitrd_peek(&r, log)];
        out[i] = (uint8_t)e;
        r.c += e >> 8;
    }
    int endpos = oc_bitrd_pos(&r);
#if defined(ZD_TRACE) && !defined(__CUDACC__)
    if (endpos != 0)
        fprintf(stderr, "zd: huffman stream end pos %d size %zu count %zu log %d\n", endpos, size, count,
                log);
#endif
    return endpos == 0 ? OC_OK : OC_ERR_CORRUPT;
}

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

OC_CORE_BIGFN void zd_exec_batch(zd_tables *T, uint8_t *out, const uint8_t *lit, uint32_t cnt, uint32_t bop)
{
    uint32_t lane = OC_LANE();
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
    OC_WARP_SYNC();
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
            oc_bitrd_refill(&r); /* literal length <= 16 + states <= 26 bits */
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
                    off = r0 - 1;
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

/* ---- XXH64 of the frame's output (common/xxh.h), four lanes on lanes 0-3 - */

OC_CORE_BIGFN uint64_t zd_xxh64(zd_tables *T, const uint8_t *p, size_t len)
{
    size_t stripes = len / 32;
    if (len >= 32) {
        OC_WARP_SYNC();
        for (uint32_t l = OC_LANE(); l < 4; l += OC_NLANES)
            T->xxh[l] = oc_xxh64_lane(p, stripes, l, 0);
        OC_WARP_SYNC();
    }
    return oc_xxh64_finish(T->xxh, p + 32 * stripes, len, 0);
}

/* ---- frames --------------------------------------------------------------- */

/* Decodes one frame starting at src[*ip] (its magic number already checked)
 * into dst[*op..cap). */
OC_CORE_BIGFN oc_status zd_frame(zd_tables *T, const uint8_t *src, size_t n, size_t *ip_io, uint8_t *dst,
                                 size_t cap, size_t *op_io, uint8_t *litbuf, size_t litcap)
{
    size_t ip = *ip_io + 4, op = *op_io;
    if (n - ip < 1)
        return ZD_ERR(OC_ERR_TRUNCATED);
    uint32_t fhd = src[ip];
    uint32_t fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, checksum = (fhd >> 2) & 1, did_flag = fhd & 3;
    if (fhd & 8)
        return ZD_ERR(OC_ERR_CORRUPT);
    size_t did_size = did_flag == 3 ? 4 : did_flag;
    size_t fcs_size = fcs_flag == 0 ? (single ? 1 : 0) : (fcs_flag == 1 ? 2 : (fcs_flag == 2 ? 4 : 8));
    size_t hsize = 1 + (single ? 0 : 1) + did_size + fcs_size;
    if (n - ip < hsize)
        return ZD_ERR(OC_ERR_TRUNCATED);
    const uint8_t *h = src + ip + 1;
    uint64_t window = 0;
    if (!single) {
        uint32_t wd = *h++;
        uint32_t wlog = 10 + (wd >> 3);
        uint64_t base = 1ull << wlog;
        window = base + (base >> 3) * (wd & 7);
    }
    uint32_t did = 0;
    for (size_t i = 0; i < did_size; i++)
        did |= (uint32_t)h[i] << (8 * i);
    h += did_size;
    uint64_t fcs = 0;
    int has_fcs = fcs_size > 0;
    for (size_t i = 0; i < fcs_size; i++)
        fcs |= (uint64_t)h[i] << (8 * i);
    if (fcs_size == 2)
        fcs += 256;
    if (did != 0)
        return ZD_ERR(OC_ERR_NEEDS_DICTIONARY);
    if (single)
        window = fcs;
    if (has_fcs && fcs > cap - op)
        return ZD_ERR(OC_ERR_OUTPUT_TOO_SMALL);
    ip += hsize;
    size_t frame_start = op;
    zd_frame_state fs;
    fs.huf_log = 0;
    fs.ll_log = fs.ml_log = fs.of_log = -1;
    fs.rep[0] = 1;
    fs.rep[1] = 4;
    fs.rep[2] = 8;
    fs.block_max = window < ZD_BLOCK_MAX ? (size_t)window : ZD_BLOCK_MAX;
    for (;;) {
        if (n - ip < 3)
            return ZD_ERR(OC_ERR_TRUNCATED);
        uint32_t bh = oc_load_le24(src + ip);
        ip += 3;
        uint32_t last = bh & 1, type = (bh >> 1) & 3;
        size_t bsize = bh >> 3;
        if (type == 3 || bsize > fs.block_max)
            return ZD_ERR(OC_ERR_CORRUPT);
        if (type == 1) {
            if (n - ip < 1)
                return ZD_ERR(OC_ERR_TRUNCATED);
            if (bsize > cap - op)
                return ZD_ERR(OC_ERR_OUTPUT_TOO_SMALL);
            uint8_t v = src[ip];
            for (size_t i = OC_LANE(); i < bsize; i += OC_NLANES)
                dst[op + i] = v;
            ip += 1;
            op += bsize;
        } else {
            if (n - ip < bsize)
                return ZD_ERR(OC_ERR_TRUNCATED);
            if (type == 0) {
                if (bsize > cap - op)
                    return ZD_ERR(OC_ERR_OUTPUT_TOO_SMALL);
                zd_copy(dst + op, src + ip, bsize);
                op += bsize;
            } else {
                oc_status st = zd_block(T, &fs, src + ip, bsize, dst, cap, &op, frame_start, litbuf, litcap);
                if (st != OC_OK)
                    return st;
            }
            ip += bsize;
        }
        if (last)
            break;
    }
    OC_WARP_SYNC();
    if (has_fcs && (uint64_t)(op - frame_start) != fcs)
        return ZD_ERR(OC_ERR_CORRUPT);
    if (checksum) {
        if (n - ip < 4)
            return ZD_ERR(OC_ERR_TRUNCATED);
        uint32_t want = oc_load_le32(src + ip);
        ip += 4;
        ZD_PROF_START(t_xxh);
        uint64_t got = zd_xxh64(T, dst + frame_start, op - frame_start);
        ZD_PROF_END(4, t_xxh);
        if ((uint32_t)got != want)
            return ZD_ERR(OC_ERR_CHECKSUM_MISMATCH);
    }
    *ip_io = ip;
    *op_io = op;
    return OC_OK;
}

/* Decodes every frame of src[0..n) into dst[0..cap): Zstandard frames are
 * decoded one after another, skippable frames skipped.  *out_size receives
 * the bytes written so far (also on error).  litbuf holds litcap bytes
 * (literals of one block; at most ZD_BLOCK_MAX are ever needed). */
OC_CORE_BIGFN oc_status zd_decode_chunk(zd_tables *T, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                        size_t *out_size, uint8_t *litbuf, size_t litcap)
{
    size_t ip = 0, op = 0;
    /* An empty input is a frame cut before its magic number (as libzstd and
     * the CPU engine say), not an empty success. */
    oc_status st = n == 0 ? ZD_ERR(OC_ERR_TRUNCATED) : OC_OK;
    while (ip < n) {
        if (n - ip < 4) {
            /* A proper prefix of a frame or skippable magic is cut short;
             * other bytes are not a frame at all (the CPU engine's rule). */
            int zstd = 1, skip = 1;
            for (size_t i = 0; i < n - ip; i++) {
                uint8_t b = src[ip + i];
                zstd &= b == (uint8_t)(0xFD2FB528u >> (8 * i));
                skip &= i == 0 ? (b & 0xF0) == 0x50 : b == (uint8_t)(0x184D2A50u >> (8 * i));
            }
            st = zstd || skip ? ZD_ERR(OC_ERR_TRUNCATED) : ZD_ERR(OC_ERR_CORRUPT);
            break;
        }
        uint32_t magic = oc_load_le32(src + ip);
        if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) {
            if (n - ip < 8) {
                st = OC_ERR_TRUNCATED;
                break;
            }
            size_t fsz = oc_load_le32(src + ip + 4);
            if (fsz > n - ip - 8) {
                st = OC_ERR_TRUNCATED;
                break;
            }
            ip += 8 + fsz;
            continue;
        }
        if (magic != 0xFD2FB528u) {
            st = OC_ERR_CORRUPT;
            break;
        }
        st = zd_frame(T, src, n, &ip, dst, cap, &op, litbuf, litcap);
        if (st != OC_OK)
            break;
    }
    OC_WARP_SYNC();
    *out_size = op;
    return st;
}

#endif /* OC_ZSTD_DECODE_CORE_H */
