/*
 * inflate_core.h - a raw Deflate (RFC 1951) decoder written once for two
 * compilers: nvcc, where one WARP decodes one stream, and a C11 compiler,
 * where one thread does (the same code with a "warp" of one lane).
 *
 * Why one source: CI has no GPU.  Compiled for the host, this file is tested
 * against zlib and libdeflate on real data, under ASan/UBSan and libFuzzer
 * (tests/c/test_inflate_gpu_core.c, fuzz/fuzz_inflate_gpu_core.c); compiled
 * by nvcc it is the body of the GPU kernel (inflate_kernels.cu).  The design
 * and its napkin math are in bench/gpu/dev/DEFLATE_NOTES.md.
 *
 * How a warp shares the work:
 *   - Huffman tables are built by all lanes together in shared memory: the
 *     counts per code length come from ballots, each lane fills every 32nd
 *     entry of the table by a search over the (at most 10) left-justified
 *     length limits, and a second pass merges two short literal codes into
 *     one "two literals" entry.  Codes longer than the table (rare) are
 *     marked SLOW and decoded canonically from per-length first codes.
 *   - the symbols are decoded in rounds (decoder v4 of DEFLATE_NOTES.md):
 *     after each refill, lane j decodes the whole item (a literal, a
 *     literal pair, or a length with its distance) that would start at bit
 *     j, and the warp follows the chain of item ends from bit 0, one
 *     shuffle an item, up to bit 32 or the first item that is not complete
 *     or does not fit the batch.  The lanes on the chain store their
 *     literals into a per-warp ring in shared memory and their matches into
 *     a queue of (start, length, distance), all at once.  A round that
 *     places nothing (end of block, a code longer than the table, an error,
 *     a full batch, counting) decodes one symbol warp-uniformly instead:
 *     every lane runs the same bit reader and look-ups on the same values.
 *   - when the queue is full or the ring nearly so, the batch is flushed:
 *     32 output bytes per step, a lane per byte.  A lane finds the match
 *     that owns its byte from a ballot of the match starts in the step, maps
 *     a match byte to its source (start - distance + (k mod distance), so a
 *     run of distance 1 resolves at once), follows sources that fall in the
 *     same step through the queue (each hop goes to an earlier match), and
 *     reads the byte from the ring (recent bytes) or the output (older
 *     ones).  Each step ends with one __syncwarp and writes its 32 bytes
 *     with one coalesced store.
 *
 * Safety: input words are read only when they lie inside [src, src+n);
 * near the ends the bytes are assembled one by one and the stream is padded
 * with zero bits.  Reading a zero bit that is not in the stream is
 * TRUNCATED (checked at every slow refill, block header, flush and end, and
 * before any other error is reported).  Writes stay below the capacity:
 * when the output would pass it, decoding continues without writing
 * ("counting") so that a damaged or cut stream is still CORRUPT or
 * TRUNCATED, and only a stream that is whole is OUTPUT_TOO_SMALL.  Other
 * statuses: CORRUPT for block type 3, a stored length whose complement
 * disagrees, over-subscribed or incomplete codes (an empty distance code and
 * a single one-bit code are allowed, as zlib does), an unused codeword, too
 * many symbols, a repeat with nothing to repeat, literal/length symbols
 * 286-287, distance symbols 30-31 and distances beyond the output.
 *
 * The one-symbol code is lean (decoder v2 of DEFLATE_NOTES.md, the
 * library's until v4; v1's copy left bench/gpu/dev in session 7),
 * because the warp issues each of its instructions for 32 lanes: the batch
 * lives in 32-bit registers (p, the
 * bytes of the batch so far; plim, the room from its start), so one compare
 * per literal covers the capacity, counting and flush tests, and whatever
 * fails it takes a slow path with the full tests; a literal pair is stored
 * by lanes 0 and 1 with one predicated store; the next input word is loaded
 * ahead (nw), so a refill waits on no load, and the TRUNCATED test runs only
 * where a refill passes the chunk's whole words.  INF_LTB, the
 * literal/length table's bits (10), is a parameter only for
 * bench/gpu/dev's v3 build (11).
 */

#ifndef OC_INFLATE_CORE_H
#define OC_INFLATE_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "opencomp.h"

#include "../../../common/portable.h"
#include "inflate_huff_core.h"

#ifdef __CUDACC__
#define INF_SHFL(v, x) __shfl_sync(0xffffffffu, (v), (x)) /* lane x's v */
#else
#define INF_SHFL(v, x) ((void)(x), (v)) /* one lane: x is 0 */
#endif

/* Literal/length table bits (bench/gpu/dev builds its v3 with 11). */
#ifndef INF_LTB
#define INF_LTB INF_TB
#endif
#define INF_RING 2048u  /* per-warp ring of recent output bytes (power of 2) */
#define INF_QMAX 64u    /* matches queued per batch */
#define INF_MAXLEN 258u /* longest match */

/* The warp's tables and buffers in shared memory (about 9.9 KiB). */
typedef struct inf_tables {
    uint32_t lit[1u << INF_LTB];
    uint32_t dist[1u << INF_DTB]; /* the precode table lives here while lengths are read */
    inf_canon lcan, dcan;
    uint16_t lsyms[INF_NLIT];
    uint16_t dsyms[INF_NDIST];
    uint8_t lens[INF_NLIT + INF_NDIST]; /* litlen then distance code lengths */
    uint8_t ring[INF_RING];
    uint32_t q_pl[INF_QMAX]; /* start offset in the batch (low 16) | length << 16 */
    uint32_t q_dist[INF_QMAX];
} inf_tables;

/* ---- forward bit reader --------------------------------------------------------
 * The stream is read as aligned 32-bit words of the chunk's address: word k
 * holds the bytes at base + 4k .. base + 4k + 3, base = src rounded down to
 * 4.  A word is loaded directly when all its bytes lie in [src, src + n);
 * otherwise its bytes are assembled one by one and bytes outside the chunk
 * read as zero.  bb holds bl unread bits (LSB first); inf_refill tops it up
 * to 33..64 bits whenever 32 or fewer remain, so after a refill at least 32
 * bits can be consumed without another. */
typedef struct inf_br {
    const uint8_t *base;
    size_t n;    /* chunk bytes */
    uint32_t o;  /* src - base (0..3) */
    size_t k;    /* next word to load */
    size_t k_lo; /* words k_lo .. k_hi-1 lie wholly in the chunk */
    size_t k_hi;
    size_t span; /* k_hi - k_lo, or 0: word k is whole iff k - k_lo < span */
    uint64_t bb;
    uint32_t bl;
    uint32_t nw; /* word k, already loaded */
    int over;    /* a zero bit past the end was consumed: TRUNCATED */
} inf_br;

OC_CORE_FN uint32_t inf_word_slow(const inf_br *r, size_t k)
{
    uint32_t w = 0;
    for (uint32_t i = 0; i < 4; i++) {
        size_t a = 4 * k + i; /* address offset from base */
        if (a >= r->o && a - r->o < r->n)
            w |= (uint32_t)r->base[a] << (8 * i);
    }
    return w;
}

OC_CORE_FN uint32_t inf_word(const inf_br *r, size_t k)
{
    if (k - r->k_lo < r->span) {
#ifdef __CUDACC__
        return __ldg((const unsigned int *)r->base + k); /* the input is read-only during the kernel */
#else
        uint32_t w;
        memcpy(&w, r->base + 4 * k, 4);
        return w; /* little-endian hosts (x86-64, aarch64) */
#endif
    }
    return inf_word_slow(r, k);
}

/* Bits consumed so far, from the start of the chunk. */
OC_CORE_FN size_t inf_br_consumed(const inf_br *r)
{
    return 32 * r->k - 8 * (size_t)r->o - r->bl;
}

OC_CORE_FN void inf_br_check_over(inf_br *r)
{
    if (inf_br_consumed(r) > 8 * r->n)
        r->over = 1;
}

OC_CORE_FN void inf_refill(inf_br *r)
{
    if (r->bl <= 32) {
        if (r->k - r->k_lo >= r->span)
            inf_br_check_over(r);
        r->bb |= (uint64_t)r->nw << r->bl;
        r->k++;
        r->bl += 32;
        r->nw = inf_word(r, r->k);
    }
}

/* Positions the reader at byte `pos` of the chunk (pos <= n). */
OC_CORE_FN void inf_br_seek(inf_br *r, size_t pos)
{
    size_t a = pos + r->o;
    r->k = a >> 2;
    uint32_t skip = 8 * (uint32_t)(a & 3);
    r->bb = (uint64_t)inf_word(r, r->k) >> skip;
    r->bl = 32 - skip;
    r->k++;
    r->nw = inf_word(r, r->k);
    inf_refill(r);
}

OC_CORE_FN void inf_br_init(inf_br *r, const uint8_t *src, size_t n)
{
    r->o = (uint32_t)((uintptr_t)src & 3u);
    r->base = src - r->o;
    r->n = n;
    r->k_lo = (r->o + 3) >> 2;
    r->k_hi = (r->o + n) >> 2;
    r->span = r->k_hi > r->k_lo ? r->k_hi - r->k_lo : 0;
    r->over = 0;
    inf_br_seek(r, 0);
}

OC_CORE_FN uint32_t inf_bits(inf_br *r, uint32_t nb) /* nb <= 32 - needs a refill before if bl may be short */
{
    uint32_t v = (uint32_t)r->bb & ((1u << nb) - 1u);
    r->bb >>= nb;
    r->bl -= nb;
    return v;
}

/* The status to report for an error found while decoding: a stream that was
 * over-read is TRUNCATED whatever else went wrong. */
OC_CORE_FN oc_status inf_fail(inf_br *r, oc_status st)
{
    inf_br_check_over(r);
    return r->over ? OC_ERR_TRUNCATED : st;
}

/* ---- block headers ----------------------------------------------------------------- */

/* Fixed Huffman codes (RFC 1951 3.2.6). */
OC_CORE_BIGFN oc_status inf_fixed_tables(inf_tables *T)
{
    uint32_t lane = OC_LANE();
    OC_WARP_SYNC();
    for (uint32_t s = lane; s < INF_NLIT + INF_NDIST; s += OC_NLANES)
        T->lens[s] = (uint8_t)(s < 144 ? 8 : s < 256 ? 9 : s < 280 ? 7 : s < 288 ? 8 : 5);
    OC_WARP_SYNC();
    oc_status st = inf_build(T->lens, INF_NLIT, INF_TABLE_LIT, T->lit, INF_LTB, &T->lcan, T->lsyms);
    if (st == OC_OK)
        st = inf_build(T->lens + INF_NLIT, INF_NDIST, INF_TABLE_DIST, T->dist, INF_DTB, &T->dcan, T->dsyms);
    return st;
}

/* Dynamic Huffman block header (RFC 1951 3.2.7), after BFINAL/BTYPE. */
OC_CORE_BIGFN oc_status inf_dynamic_tables(inf_tables *T, inf_br *r)
{
    uint32_t lane = OC_LANE();
    inf_refill(r);
    uint32_t hlit = inf_bits(r, 5) + 257, hdist = inf_bits(r, 5) + 1, hclen = inf_bits(r, 4) + 4;
    if (hlit > 286 || hdist > 30)
        return inf_fail(r, INF_ERR(OC_ERR_CORRUPT));
    /* precode lengths: 3 bits each, in rfc1951_precode_order; the pre table borrows T->dist */
    uint8_t pl[19];
    for (uint32_t i = 0; i < 19; i++)
        pl[i] = 0;
    for (uint32_t i = 0; i < hclen; i++) {
        inf_refill(r);
        pl[rfc1951_precode_order[i]] = (uint8_t)inf_bits(r, 3);
    }
    OC_WARP_SYNC(); /* the previous block's copies and tables are done with */
    if (lane == 0)
        for (uint32_t i = 0; i < 19; i++)
            T->lens[i] = pl[i];
    OC_WARP_SYNC();
    oc_status st = inf_build(T->lens, 19, INF_TABLE_PRE, T->dist, INF_PTB, &T->dcan, T->dsyms);
    if (st != OC_OK)
        return inf_fail(r, st);
    /* the code lengths themselves; every lane decodes them, lane 0 stores */
    uint32_t total = hlit + hdist, i = 0, prev = 0;
    while (i < total) {
        inf_refill(r);
        uint32_t e = T->dist[(uint32_t)r->bb & ((1u << INF_PTB) - 1)];
        if (INF_KIND(e) == INF_K_BAD)
            return inf_fail(r, INF_ERR(OC_ERR_CORRUPT));
        inf_bits(r, INF_CLEN(e));
        uint32_t sym = e & 0xFFu, rep, val;
        if (sym < 16) {
            rep = 1;
            val = sym;
            prev = sym;
        } else if (sym == 16) {
            if (i == 0)
                return inf_fail(r, INF_ERR(OC_ERR_CORRUPT));
            rep = 3 + inf_bits(r, 2);
            val = prev;
        } else if (sym == 17) {
            rep = 3 + inf_bits(r, 3);
            val = 0;
            prev = 0;
        } else {
            rep = 11 + inf_bits(r, 7);
            val = 0;
            prev = 0;
        }
        if (rep > total - i)
            return inf_fail(r, INF_ERR(OC_ERR_CORRUPT));
        for (uint32_t j = lane; j < rep; j += OC_NLANES) {
            uint32_t at = i + j; /* litlen lengths at 0.., distance lengths at INF_NLIT.. */
            at = at < hlit ? at : INF_NLIT + (at - hlit);
            T->lens[at + 0] = (uint8_t)val; /* written after the precode table is no longer read */
        }
        i += rep;
    }
    OC_WARP_SYNC();
    /* unlisted symbols are unused */
    for (uint32_t s = hlit + lane; s < INF_NLIT; s += OC_NLANES)
        T->lens[s] = 0;
    for (uint32_t s = hdist + lane; s < INF_NDIST; s += OC_NLANES)
        T->lens[INF_NLIT + s] = 0;
    OC_WARP_SYNC();
    if (T->lens[256] == 0)
        return inf_fail(r, INF_ERR(OC_ERR_CORRUPT)); /* no end-of-block code */
    st = inf_build(T->lens, INF_NLIT, INF_TABLE_LIT, T->lit, INF_LTB, &T->lcan, T->lsyms);
    if (st == OC_OK)
        st = inf_build(T->lens + INF_NLIT, INF_NDIST, INF_TABLE_DIST, T->dist, INF_DTB, &T->dcan, T->dsyms);
    return st == OC_OK ? OC_OK : inf_fail(r, st);
}

/* ---- output: batches of queued matches ------------------------------------------ */

/* Where decoded bytes go: `out` (the start of this stream's output), its
 * capacity, and the batch in flight: [bstart, op) with nq queued matches. */
typedef struct inf_out {
    uint8_t *out;
    size_t cap;
    size_t op;     /* bytes produced (or counted, once `counting`) */
    size_t bstart; /* start of the batch not yet written to out */
    uint32_t nq;
    int counting; /* the capacity was passed: only count from here on */
} inf_out;

/* Writes the batch [bstart, op) to out: literals are in the ring, nq
 * matches in the queue.  See the file comment.  (Arguments by value, so the
 * caller's decoder state stays in registers.) */
OC_CORE_BIGFN void inf_flush(inf_tables *T, uint8_t *out, size_t bstart, size_t op, uint32_t nq)
{
    uint32_t lane = OC_LANE();
    uint32_t span = (uint32_t)(op - bstart);
    size_t ring_lo = op > INF_RING ? op - INF_RING : 0; /* oldest position still in the ring */
    OC_WARP_SYNC();                                     /* literals and queue entries written by lane 0 */
    uint32_t qi = 0;
    int carry = -1; /* the match that started before this step, if any */
    INF_COUNT(flushes, 1);
    for (uint32_t s = 0; s < span; s += OC_NLANES) {
        uint32_t j = qi + lane;
        uint32_t st = j < nq ? (T->q_pl[j] & 0xFFFFu) : 0xFFFFFFFFu;
        uint32_t bit = st < s + OC_NLANES ? 1u << (st - s) : 0u;
        uint32_t mask = OC_WARP_OR(bit);
        uint32_t x = s + lane;
        if (x < span) {
            int in_match = 0;
            uint8_t v = 0;
            int done = 0;
            uint32_t y = x; /* position being resolved, in the batch */
            while (!done) {
                uint32_t below = y - s == 31 ? 0xFFFFFFFFu : (2u << (y - s)) - 1u;
                uint32_t kk = oc_popc32(mask & below);
                int m = kk ? (int)(qi + kk - 1) : carry;
                uint32_t pl = m >= 0 ? T->q_pl[m] : 0;
                uint32_t mst = pl & 0xFFFFu, mln = pl >> 16;
                if (m < 0 || y >= mst + mln) { /* a literal of this batch */
                    v = T->ring[(bstart + y) & (INF_RING - 1)];
                    done = 1;
                } else {
                    if (y == x)
                        in_match = 1;
                    uint32_t d = T->q_dist[m], k = y - mst;
                    if (k >= d)
                        k %= d;
                    size_t src = bstart + mst - d + k;
                    if (src >= bstart + s) {
                        INF_COUNT(hops, 1);
                        y = (uint32_t)(src - bstart); /* resolved later in this step: follow it */
                    } else {
                        v = src >= ring_lo ? T->ring[src & (INF_RING - 1)] : out[src];
                        INF_COUNT(ring_reads, src >= ring_lo);
                        INF_COUNT(global_reads, src < ring_lo);
                        done = 1;
                    }
                }
            }
            if (in_match)
                T->ring[(bstart + x) & (INF_RING - 1)] = v;
            out[bstart + x] = v;
        }
        uint32_t nnew = oc_popc32(mask);
        if (nnew)
            carry = (int)(qi + nnew - 1);
        qi += nnew;
        OC_WARP_SYNC();
    }
}

OC_CORE_FN void inf_out_flush(inf_tables *T, inf_out *o)
{
    inf_flush(T, o->out, o->bstart, o->op, o->nq);
    o->bstart = o->op;
    o->nq = 0;
}

/* ---- one stream ------------------------------------------------------------------ */

/* The batch's registers (the file comment): the output so far is
 * o.bstart + p in every mode.  plim_l bounds p for a literal's fast path,
 * plim_m for a match's: min(capacity left, RING - MAXLEN) from the batch
 * start; once counting, nothing is written or queued (plim_m = 0) and
 * literals only count (plim_l = 2^30; the ring they are stored in is no
 * longer read).  rb is the ring slot of the batch start; hist = min(bstart,
 * 65536), all that a distance (<= 32768) needs of the output before it. */
OC_CORE_FN void inf_batch_regs(const inf_out *o, uint32_t *plim_l, uint32_t *plim_m, uint32_t *rb,
                               uint32_t *hist)
{
    size_t room = o->cap - o->bstart; /* bstart <= cap unless counting */
    uint32_t lim = room < INF_RING - INF_MAXLEN ? (uint32_t)room : INF_RING - INF_MAXLEN;
    *plim_l = o->counting ? 1u << 30 : lim;
    *plim_m = o->counting ? 0 : lim;
    *rb = (uint32_t)o->bstart & (INF_RING - 1);
    *hist = o->bstart < 65536 ? (uint32_t)o->bstart : 65536u;
}

/* The refill of the symbol loop: TRUNCATED (break) as soon as a refill
 * finds that padding was consumed. */
#define INF_LOOP_REFILL()                                                                                    \
    if (r.bl <= 32) {                                                                                        \
        if (r.k - r.k_lo >= r.span) {                                                                        \
            inf_br_check_over(&r);                                                                           \
            if (r.over) {                                                                                    \
                st = OC_ERR_TRUNCATED;                                                                       \
                break;                                                                                       \
            }                                                                                                \
        }                                                                                                    \
        r.bb |= (uint64_t)r.nw << r.bl;                                                                      \
        r.k++;                                                                                               \
        r.bl += 32;                                                                                          \
        r.nw = inf_word(&r, r.k);                                                                            \
    }

/* Decodes the Huffman-coded data of one block with the tables in T.  The
 * reader and the output state are copied into locals (registers) for the
 * loop and written back at the end.  Fast paths: a literal (pair) or a
 * match that fits the batch; everything else is v1's code on o.op. */
OC_CORE_BIGFN oc_status inf_huffman_block(inf_tables *T, inf_br *rp, inf_out *outp)
{
    uint32_t lane = OC_LANE();
    inf_br r = *rp;
    inf_out o = *outp;
    oc_status st = OC_OK;
    uint32_t p = (uint32_t)(o.op - o.bstart), plim_l = 0, plim_m = 0, rb = 0, hist = 0;
    if (o.counting) {
        o.bstart = o.op;
        p = 0;
    }
    inf_batch_regs(&o, &plim_l, &plim_m, &rb, &hist);
    if (r.over)
        st = OC_ERR_TRUNCATED; /* v1 tested the flag before the first symbol */
    while (st == OC_OK) {
        INF_LOOP_REFILL();
        /* a round: the items starting at bits 0 .. OC_NLANES-1, a lane each */
        {
            uint64_t v = r.bb >> lane; /* bits lane .. lane+63 of the stream: bl + 32 - lane of them real */
            uint32_t sh = r.bl - lane; /* bl >= 33 > lane */
            if (sh < 64)
                v |= (uint64_t)r.nw << sh;
            uint32_t e = T->lit[(uint32_t)v & ((1u << INF_LTB) - 1)];
            uint32_t kind = INF_KIND(e), nbits = INF_TOTAL(e), osz = 1 + kind, ism = 0, dist = 0;
            uint32_t ok = kind <= INF_K_LIT2;
            if (kind == INF_K_LEN) {
                osz = (e & 0x1FFu) + (((uint32_t)v >> INF_CLEN(e)) & ((1u << INF_EXTRA(e)) - 1u));
                uint32_t dv = (uint32_t)(v >> nbits);
                uint32_t d = T->dist[dv & ((1u << INF_DTB) - 1)];
                ok = INF_KIND(d) == INF_K_LEN;
                dist = (d & 0xFFFFu) + ((dv >> INF_CLEN(d)) & ((1u << INF_EXTRA(d)) - 1u));
                nbits += INF_TOTAL(d);
                ism = 1;
            }
            ok = ok && nbits <= r.bl + 32 - lane;
            uint32_t info = (lane + nbits) | (osz << 8) | (ism << 17) | (ok << 18);
            /* the chain from bit 0: x the item's bit, run the bytes and nm the matches before it */
            uint32_t lim = plim_m > p ? plim_m - p : 0, qroom = INF_QMAX - o.nq;
            uint32_t x = 0, run = 0, nm = 0, on = 0, myoff = 0, myq = 0;
            while (x < OC_NLANES) {
                uint32_t in = INF_SHFL(info, x);
                uint32_t isz = (in >> 8) & 0x1FFu, im = (in >> 17) & 1u;
                if (!(in >> 18) || run + isz > lim || nm + im > qroom)
                    break;
                if (lane == x) {
                    on = 1;
                    myoff = run;
                    myq = nm;
                }
                run += isz;
                nm += im;
                x = in & 0xFFu;
            }
            /* a distance beyond the output so far ends the round before its item (the one-symbol code reports
             * it) */
            uint32_t bad = OC_WARP_BALLOT(on && ism && dist > hist + p + myoff);
            if (bad) {
                uint32_t f = (uint32_t)oc_lowbit32(bad);
                on = on && lane < f;
                run = INF_SHFL(myoff, f);
                nm = INF_SHFL(myq, f);
                x = f;
            }
            if (x > 0) {
                if (on) {
                    uint32_t at = p + myoff;
                    if (ism) {
                        T->q_pl[o.nq + myq] = at | (osz << 16);
                        T->q_dist[o.nq + myq] = dist;
                    } else {
                        T->ring[(rb + at) & (INF_RING - 1)] = (uint8_t)e;
                        if (kind)
                            T->ring[(rb + at + 1) & (INF_RING - 1)] = (uint8_t)(e >> 8);
                    }
                }
                p += run;
                o.nq += nm;
                if (x < r.bl) {
                    r.bb >>= x;
                    r.bl -= x;
                } else { /* into the loaded word */
                    uint32_t y = x - r.bl;
                    r.bb = y < 32 ? (uint64_t)(r.nw >> y) : 0;
                    r.bl = 32 - y;
                    r.k++;
                    r.nw = inf_word(&r, r.k);
                    if (r.k - 1 - r.k_lo >= r.span) {
                        inf_br_check_over(&r);
                        if (r.over) {
                            st = OC_ERR_TRUNCATED;
                            break;
                        }
                    }
                }
                if (o.nq == INF_QMAX) {
                    o.op = o.bstart + p;
                    inf_out_flush(T, &o);
                    p = 0;
                    inf_batch_regs(&o, &plim_l, &plim_m, &rb, &hist);
                }
                continue;
            }
        }
        /* one symbol, where the round placed nothing */
        uint32_t e = T->lit[(uint32_t)r.bb & ((1u << INF_LTB) - 1)];
        if (INF_KIND(e) == INF_K_SLOW) {
            INF_COUNT(slow, 1);
            e = inf_slow(&T->lcan, T->lsyms, INF_TABLE_LIT, INF_LTB, r.bb);
        }
        if (e < (INF_K_LEN << 29)) { /* one or two literals */
            uint32_t kind = INF_KIND(e), cnt = 1 + kind, nb = INF_TOTAL(e);
            INF_COUNT(lookups, 1);
            INF_COUNT(literals, cnt);
            r.bb >>= nb;
            r.bl -= nb;
            if (p + cnt <= plim_l) {
#ifdef __CUDACC__
                /* lane 1 stores a LIT2's second literal: one predicated
                 * store (written in PTX: nvcc makes `if` a divergent branch) */
                uint32_t at = (uint32_t)__cvta_generic_to_shared(&T->ring[(rb + p + lane) & (INF_RING - 1)]);
                asm volatile("{\n\t.reg .pred q;\n\tsetp.le.u32 q, %0, %1;\n\t@q st.shared.u8 [%2], %3;\n\t}"
                             :
                             : "r"(lane), "r"(kind), "r"(at), "r"(e >> (8 * (lane & 1)))
                             : "memory");
#else
                T->ring[(rb + p) & (INF_RING - 1)] = (uint8_t)e;
                if (kind)
                    T->ring[(rb + p + 1) & (INF_RING - 1)] = (uint8_t)(e >> 8);
#endif
                p += cnt;
                continue;
            }
            /* v1's path: the capacity, the batch's end, or counting */
            o.op = o.bstart + p;
            if (!o.counting && o.cap - o.op < cnt) {
                if (o.op > o.bstart)
                    inf_out_flush(T, &o);
                o.counting = 1;
            }
            if (!o.counting) {
                if (lane == 0) {
                    T->ring[o.op & (INF_RING - 1)] = (uint8_t)e;
                    if (kind == INF_K_LIT2)
                        T->ring[(o.op + 1) & (INF_RING - 1)] = (uint8_t)(e >> 8);
                }
                o.op += cnt;
                if (o.op - o.bstart > INF_RING - INF_MAXLEN)
                    inf_out_flush(T, &o);
            } else {
                o.op += cnt;
                o.bstart = o.op;
            }
            p = (uint32_t)(o.op - o.bstart);
            inf_batch_regs(&o, &plim_l, &plim_m, &rb, &hist);
            continue;
        }
        if (INF_KIND(e) == INF_K_EOB) {
            r.bb >>= INF_TOTAL(e);
            r.bl -= INF_TOTAL(e);
            break;
        }
        if (INF_KIND(e) != INF_K_LEN) {
            st = inf_fail(&r, INF_ERR(OC_ERR_CORRUPT));
            break;
        }
        uint32_t clen = INF_CLEN(e), nb = INF_TOTAL(e);
        uint32_t len = (e & 0x1FFu) + (((uint32_t)r.bb >> clen) & ((1u << INF_EXTRA(e)) - 1u));
        r.bb >>= nb;
        r.bl -= nb;
        INF_LOOP_REFILL();
        uint32_t d = T->dist[(uint32_t)r.bb & ((1u << INF_DTB) - 1)];
        if (INF_KIND(d) == INF_K_SLOW)
            d = inf_slow(&T->dcan, T->dsyms, INF_TABLE_DIST, INF_DTB, r.bb);
        if (INF_KIND(d) != INF_K_LEN) {
            st = inf_fail(&r, INF_ERR(OC_ERR_CORRUPT));
            break;
        }
        uint32_t dclen = INF_CLEN(d), dnb = INF_TOTAL(d);
        uint32_t dist = (d & 0xFFFFu) + (((uint32_t)r.bb >> dclen) & ((1u << INF_EXTRA(d)) - 1u));
        r.bb >>= dnb;
        r.bl -= dnb;
        INF_COUNT(matches, 1);
        INF_COUNT(match_bytes, len);
        if (dist > hist + p) { /* beyond the output so far */
            st = inf_fail(&r, INF_ERR(OC_ERR_CORRUPT));
            break;
        }
        if (p + len <= plim_m) {
            if (lane == 0) {
                T->q_pl[o.nq] = p | (len << 16);
                T->q_dist[o.nq] = dist;
            }
            p += len;
            if (++o.nq == INF_QMAX) {
                o.op = o.bstart + p;
                inf_out_flush(T, &o);
                p = 0;
                inf_batch_regs(&o, &plim_l, &plim_m, &rb, &hist);
            }
            continue;
        }
        /* v1's path */
        o.op = o.bstart + p;
        if (!o.counting && o.cap - o.op < len) {
            if (o.op > o.bstart)
                inf_out_flush(T, &o);
            o.counting = 1;
        }
        if (!o.counting) {
            if (lane == 0) {
                T->q_pl[o.nq] = (uint32_t)(o.op - o.bstart) | (len << 16);
                T->q_dist[o.nq] = dist;
            }
            o.nq++;
            o.op += len;
            if (o.nq == INF_QMAX || o.op - o.bstart > INF_RING - INF_MAXLEN)
                inf_out_flush(T, &o);
        } else {
            o.op += len;
            o.bstart = o.op;
        }
        p = (uint32_t)(o.op - o.bstart);
        inf_batch_regs(&o, &plim_l, &plim_m, &rb, &hist);
    }
    o.op = o.bstart + p;
    *rp = r;
    *outp = o;
    return st;
}

/* Copies a stored block of len bytes from the chunk at byte pos. */
OC_CORE_BIGFN void inf_stored_copy(inf_tables *T, const inf_br *r, size_t pos, inf_out *o, size_t len)
{
    uint32_t lane = OC_LANE();
    const uint8_t *src = r->base + r->o + pos;
    size_t op = o->op;
    size_t ring_from = op + len > INF_RING ? op + len - INF_RING : 0;
    for (size_t i = lane; i < len; i += OC_NLANES) {
        uint8_t v = src[i];
        o->out[op + i] = v;
        if (op + i >= ring_from)
            T->ring[(op + i) & (INF_RING - 1)] = v;
    }
    OC_WARP_SYNC();
}

/* inf_inflate decodes one raw Deflate stream from src (n bytes; the stream
 * may end before the chunk does) into dst (cap bytes).  On OK *in_used is
 * the stream's length in bytes (the last one partly used) and *out_size the
 * bytes written; on OUTPUT_TOO_SMALL *out_size is the size the stream
 * needs.  Every lane returns the same status. */
OC_CORE_BIGFN oc_status inf_inflate(inf_tables *T, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                    size_t *in_used, size_t *out_size)
{
    inf_br r;
    inf_out o;
    inf_br_init(&r, src, n);
    o.out = dst;
    o.cap = cap;
    o.op = 0;
    o.bstart = 0;
    o.nq = 0;
    o.counting = 0;
    int have_fixed = 0;
    *out_size = 0;
    for (;;) {
        inf_refill(&r);
        uint32_t hdr = inf_bits(&r, 3);
        uint32_t type = hdr >> 1;
        oc_status st = OC_OK;
        inf_br_check_over(&r);
        if (r.over)
            return OC_ERR_TRUNCATED;
        if (type == 0) { /* stored: byte-align, LEN, NLEN, LEN bytes */
            uint32_t drop = r.bl & 7u;
            r.bb >>= drop;
            r.bl -= drop;
            uint32_t len = inf_bits(&r, 16);
            inf_refill(&r);
            uint32_t nlen = inf_bits(&r, 16);
            inf_br_check_over(&r);
            if (r.over)
                return OC_ERR_TRUNCATED;
            if ((len ^ nlen) != 0xFFFFu)
                return INF_ERR(OC_ERR_CORRUPT);
            size_t pos = inf_br_consumed(&r) >> 3;
            if (len > n - pos)
                return OC_ERR_TRUNCATED;
            if (!o.counting && o.op > o.bstart)
                inf_out_flush(T, &o);
            if (!o.counting && len > cap - o.op)
                o.counting = 1;
            if (!o.counting)
                inf_stored_copy(T, &r, pos, &o, len);
            o.op += len;
            o.bstart = o.op;
            inf_br_seek(&r, pos + len);
        } else if (type == 1) {
            INF_COUNT(fixed_blocks, 1);
            if (!have_fixed)
                st = inf_fixed_tables(T);
            have_fixed = 1;
            if (st == OC_OK)
                st = inf_huffman_block(T, &r, &o);
        } else if (type == 2) {
            INF_COUNT(dynamic_blocks, 1);
            have_fixed = 0;
            st = inf_dynamic_tables(T, &r);
            if (st == OC_OK)
                st = inf_huffman_block(T, &r, &o);
        } else {
            return inf_fail(&r, INF_ERR(OC_ERR_CORRUPT));
        }
        if (st != OC_OK)
            return inf_fail(&r, st);
        if (hdr & 1)
            break;
    }
    if (!o.counting && o.op > o.bstart)
        inf_out_flush(T, &o);
    inf_br_check_over(&r);
    if (r.over)
        return OC_ERR_TRUNCATED;
    *out_size = o.op;
    if (o.counting)
        return OC_ERR_OUTPUT_TOO_SMALL;
    *in_used = (inf_br_consumed(&r) + 7) >> 3;
    return OC_OK;
}

#endif /* OC_INFLATE_CORE_H */
