/*
 * snappy_split_parse.h - the parse half of the Snappy split decoder: one
 * lane walks one Snappy raw stream front to back with the CPU scanner's
 * checks in its order (src/cpu/codecs/snappy/snappy_scan.c), which the
 * pipe decoder keeps too (snappy_kernels.cu, snappy_decode_rounds.cuh):
 *   - the preamble: TRUNCATED when the input ends inside it, CORRUPT when
 *     a sixth byte would be needed or the length exceeds 2^32 - 1;
 *   - a literal: its length bytes TRUNCATED, then past the declared length
 *     CORRUPT (so a length of 2^32 is CORRUPT), then past the input
 *     TRUNCATED;
 *   - a copy: its offset bytes TRUNCATED, then offset 0, an offset before
 *     the output start or past the declared length CORRUPT;
 *   - at the end, short of the declared length TRUNCATED; a declared length
 *     above the capacity is OUTPUT_TOO_SMALL once the whole stream has
 *     passed (the walk goes on storing no record).
 * It stores one record per copy (lz_common/lz_split_rec.h) with the
 * literal before it folded in (a literal followed by a literal, or ending
 * the stream, is a record of its own), so the copy half
 * (lz_common/lz_split_copy.cuh) sees the LZ4 shape.  Snappy's copies may
 * be 1 to 3 bytes long, so a hostile stream may need more records than
 * the slot holds (OC_LZS_MAX_RECS); the walk then ends with OC_LZS_REDO
 * and the copy warp decodes the chunk alone (the pipe's statuses either
 * way).
 *
 * The common element takes a fast path (oc_snaps_fast, bench/NOTES.md
 * "v10"): when its 5 header bytes lie in the window, the five bytes are
 * read at once, every kind's header size, length and offset computed and
 * the element's selected, its kind's checks evaluated as one predicate,
 * and one record store serves both kinds, with no branch between the kinds
 * (v13: the record stored whatever the kind, counted when it is one); a warp whose lanes sit on
 * different kinds then runs one path, not the three of oc_snaps_elem
 * (measured ~950 cycles an element that way).  Everything else (the
 * preamble, the end, a header past the window, a failed check, a full
 * slot, a declared length above the capacity) goes to oc_snaps_elem, which
 * does what it always did, so statuses, records and REDO are its own; but
 * an element at a window's end asks for the next window at once
 * (oc_snaps_run) rather than walking it on the general step.
 *
 * Resumable, as lz4_split_parse.h: every byte the step reads must lie in
 * the lane's window [.., whi) (byte p at wp[p - wshift]); a missing byte
 * returns OC_LZS_NEED with the state at the start of the element (or of
 * the preamble), which reads at most 5 bytes, all at or after s->ip and
 * below srcn, so a miss always means "refill at s->ip".  Literal bytes are
 * never read here.  Host C as well (tests/c/test_snappy_split_core.c).
 */
#ifndef OC_SNAPPY_SPLIT_PARSE_H
#define OC_SNAPPY_SPLIT_PARSE_H

#include "../lz_common/lz_split_rec.h"

/* One lane's parse state (registers on the GPU). */
typedef struct oc_snaps_st {
    uint32_t ip;       /* start of the element to parse next (0: the preamble) */
    uint32_t op;       /* output bytes so far */
    uint32_t nrec;     /* records stored */
    uint32_t ulen;     /* the declared length */
    uint32_t pend_src; /* a literal waiting for the copy after it */
    uint32_t pend_len; /* (0: none; literals are at least 1 byte) */
    uint32_t rmax;     /* records this lane may store: 0xffffffff (no bound but the slot's); v11b's
                          first lane, bench/gpu/dev/dev_snappy_pair_parse.h, stores below the second
                          lane's records (kept here: without it the kernels' SASS changes) */
    int over;          /* the declared length exceeds the capacity: no records */
    int phase;         /* 0: preamble, 1: elements */
    int status;
} oc_snaps_st;

OC_LZS_HD void oc_snaps_init(oc_snaps_st *s)
{
    s->ip = s->op = s->nrec = s->ulen = s->pend_src = s->pend_len = 0;
    s->rmax = 0xffffffffu;
    s->over = s->phase = 0;
    s->status = OC_LZS_OK;
}

/* Stores a record unless the stream outgrew the capacity; 0 when the slot
 * is full (the chunk then goes back to the copy warp). */
OC_LZS_HD int oc_snaps_put(oc_lzs_rec *recs, oc_snaps_st *s, uint32_t cap, uint32_t lit_src, uint32_t lit_len,
                           uint32_t m_off, uint32_t m_len)
{
    if (s->over)
        return 1;
    if (s->nrec >= OC_LZS_MAX_RECS(cap) || s->nrec >= s->rmax)
        return 0;
#ifdef __CUDA_ARCH__
    *(uint4 *)(recs + s->nrec) = make_uint4(lit_src, lit_len, m_off, m_len);
#else
    oc_lzs_rec r = {lit_src, lit_len, m_off, m_len};
    recs[s->nrec] = r;
#endif
    s->nrec++;
    return 1;
}

/* The general step: the preamble, or one element, or the end.  srcn <
 * 2^31, cap <= OC_LZS_MAX_CAP; recs has room for OC_LZS_MAX_RECS(cap)
 * records. */
OC_LZS_HD int oc_snaps_elem(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                            uint32_t cap, oc_lzs_rec *recs)
{
    uint32_t ip = s->ip;
    if (s->phase == 0) {
        uint64_t v = 0;
        for (uint32_t i = 0;; i++) {
            if (i >= srcn)
                OC_LZS_END_WITH(OC_LZS_TRUNCATED);
            if (i == 5) /* a sixth byte: more than 32 bits */
                OC_LZS_END_WITH(OC_LZS_CORRUPT);
            uint32_t c;
            OC_LZS_GET(c, i);
            v |= (uint64_t)(c & 0x7f) << (7 * i);
            if (!(c & 0x80)) {
                ip = i + 1;
                break;
            }
        }
        if (v > 0xffffffffu)
            OC_LZS_END_WITH(OC_LZS_CORRUPT);
        s->ulen = (uint32_t)v;
        s->over = v > cap;
        s->phase = 1;
        s->ip = ip;
    }
    if (ip >= srcn) { /* the end */
        if (s->op != s->ulen)
            OC_LZS_END_WITH(OC_LZS_TRUNCATED);
        if (s->over)
            OC_LZS_END_WITH(OC_LZS_OUTPUT_TOO_SMALL);
        if (s->pend_len && !oc_snaps_put(recs, s, cap, s->pend_src, s->pend_len, 0, 0))
            OC_LZS_END_WITH(OC_LZS_REDO);
        OC_LZS_END_WITH(OC_LZS_OK);
    }
    uint32_t tag;
    OC_LZS_GET(tag, ip);
    uint32_t kind = tag & 3;
    if (kind == 0) {
        uint64_t lit = (tag >> 2) + 1;
        uint32_t hdr = 1;
        if (lit > 60) {
            uint32_t nb = (uint32_t)lit - 60;
            hdr = 1 + nb;
            if (srcn - ip < hdr)
                OC_LZS_END_WITH(OC_LZS_TRUNCATED);
            uint32_t w = 0;
            for (uint32_t j = 0; j < nb; j++) {
                uint32_t c;
                OC_LZS_GET(c, ip + 1 + j);
                w |= c << (8 * j);
            }
            lit = (uint64_t)w + 1;
        }
        if (s->op + lit > s->ulen)
            OC_LZS_END_WITH(OC_LZS_CORRUPT);
        if (lit > srcn - ip - hdr)
            OC_LZS_END_WITH(OC_LZS_TRUNCATED);
        if (s->pend_len && !oc_snaps_put(recs, s, cap, s->pend_src, s->pend_len, 0, 0))
            OC_LZS_END_WITH(OC_LZS_REDO);
        s->pend_src = ip + hdr;
        s->pend_len = (uint32_t)lit;
        s->op += (uint32_t)lit;
        s->ip = ip + hdr + (uint32_t)lit;
        return OC_LZS_STEP;
    }
    uint32_t hdr = kind == 1 ? 2 : kind == 2 ? 3 : 5;
    if (srcn - ip < hdr)
        OC_LZS_END_WITH(OC_LZS_TRUNCATED);
    uint32_t len, off, b1, b2, b3, b4;
    OC_LZS_GET(b1, ip + 1);
    if (kind == 1) {
        len = ((tag >> 2) & 7) + 4;
        off = ((tag >> 5) << 8) | b1;
    } else {
        OC_LZS_GET(b2, ip + 2);
        len = (tag >> 2) + 1;
        off = b1 | (b2 << 8);
        if (kind == 3) {
            OC_LZS_GET(b3, ip + 3);
            OC_LZS_GET(b4, ip + 4);
            off |= (b3 << 16) | (b4 << 24);
        }
    }
    if (off == 0 || off > s->op || (uint64_t)s->op + len > s->ulen)
        OC_LZS_END_WITH(OC_LZS_CORRUPT);
    if (!oc_snaps_put(recs, s, cap, s->pend_src, s->pend_len, off, len))
        OC_LZS_END_WITH(OC_LZS_REDO);
    s->pend_src = s->pend_len = 0;
    s->op += len;
    s->ip = ip + hdr;
    return OC_LZS_STEP;
}

/* One element on the fast path: 1 when taken (state advanced, record
 * stored), 0 when not (state untouched; oc_snaps_elem then parses it). */
OC_LZS_HD int oc_snaps_fast(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                            uint32_t cap, oc_lzs_rec *recs)
{
    uint32_t ip = s->ip;
    if (!s->phase || s->over || whi < 5u || ip > whi - 5u || s->nrec >= OC_LZS_MAX_RECS(cap) ||
        s->nrec >= s->rmax)
        return 0;
    const uint8_t *p = wp + (uint32_t)(ip - wshift);
    uint32_t tag = p[0], b1 = p[1], b2 = p[2], b3 = p[3], b4 = p[4];
    uint32_t kind = tag & 3, t6 = tag >> 2;
    uint32_t w = b1 | (b2 << 8) | (b3 << 16) | (b4 << 24); /* the four bytes after the tag */
    /* literal: 1 + nb header bytes (nb 1..4 length bytes when t6 >= 60) */
    uint32_t nb = t6 >= 60 ? t6 - 59 : 0;
    uint32_t lm1 = nb == 0 ? t6 : nb == 4 ? w : w & ((1u << (8 * nb)) - 1); /* its length - 1 */
    uint32_t lhdr = 1 + nb;
    /* copy: 2, 3 or 5 header bytes */
    uint32_t chdr = kind == 1 ? 2 : kind == 2 ? 3 : 5;
    uint32_t clen = kind == 1 ? (t6 & 7) + 4 : t6 + 1;
    uint32_t off = kind == 1 ? ((tag >> 5) << 8) | b1 : kind == 2 ? (w & 0xffffu) : w;
    uint32_t room = s->ulen - s->op; /* op <= ulen: every element checked so */
    uint32_t lit = kind == 0;
    /* oc_snaps_elem's checks (its header-bytes check passes: srcn - ip >= whi - ip >= 5), both
       kinds' without a branch, one selected; the record stored whatever the kind (at nrec, inside
       the slot), counted when it is one (a copy, or a literal flushing one): no branch between
       the kinds, which a warp whose lanes sit on both ran one after the other (bench/NOTES.md
       "v13": 1.27x).  A record stored and not counted lies at or after the count the lane
       publishes, where no copy warp reads, and the next record overwrites it. */
    uint32_t okl = (uint32_t)(lm1 < room) & (uint32_t)(lm1 < srcn - ip - lhdr);
    uint32_t okc = (uint32_t)(off != 0) & (uint32_t)(off <= s->op) & (uint32_t)(clen <= room);
    if (!(lit ? okl : okc))
        return 0;
    uint32_t m_off = lit ? 0 : off, m_len = lit ? 0 : clen;
#ifdef __CUDA_ARCH__
    *(uint4 *)(recs + s->nrec) = make_uint4(s->pend_src, s->pend_len, m_off, m_len);
#else
    oc_lzs_rec r = {s->pend_src, s->pend_len, m_off, m_len};
    recs[s->nrec] = r;
#endif
    s->nrec += (uint32_t)(!lit) | (uint32_t)(s->pend_len != 0);
    s->pend_src = lit ? ip + lhdr : 0;
    s->pend_len = lit ? lm1 + 1 : 0;
    s->op += lit ? lm1 + 1 : clen;
    s->ip = ip + (lit ? lhdr + lm1 + 1 : chdr);
    return 1;
}

/* Elements on the fast path per call of oc_snaps_step at most, so that the
 * warp driver's ballots come once per so many elements (bench/NOTES.md
 * "v10": 1, 2 and 4 measured 121.4, 128.2 and 129.1 GB/s on an H100). */
#define OC_SNAPS_RUN 4

/* Up to n elements on the fast path; when the first is not taken because
 * its header may reach past the window (fewer than 5 bytes left in it and
 * more input after it), the next window (OC_LZS_NEED: the driver refills
 * at s->ip, after which 5 bytes are in the window unless the input ends
 * first), not the general step: that one ran at every window's end, and
 * whenever any of a warp's 32 lanes ran it the whole warp waited (v10b);
 * else the general step. */
OC_LZS_HD int oc_snaps_run(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                           uint32_t cap, oc_lzs_rec *recs, int n)
{
    if (!oc_snaps_fast(s, wp, wshift, whi, srcn, cap, recs)) {
        if (s->phase && whi < srcn && (s->ip >= whi || whi - s->ip < 5u))
            return OC_LZS_NEED;
        return oc_snaps_elem(s, wp, wshift, whi, srcn, cap, recs);
    }
    for (int k = 1; k < n && oc_snaps_fast(s, wp, wshift, whi, srcn, cap, recs); k++)
        ;
    return OC_LZS_STEP;
}

/* The step the warp driver calls (lz_split_warp.cuh; the contract of the
 * header above): the preamble, or one or more elements, or the end. */
OC_LZS_HD int oc_snaps_step(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                            uint32_t cap, oc_lzs_rec *recs)
{
    return oc_snaps_run(s, wp, wshift, whi, srcn, cap, recs, OC_SNAPS_RUN);
}

#endif /* OC_SNAPPY_SPLIT_PARSE_H */
