/*
 * dev_snappy_fast_parse.h - v10 (issue 13, bench/NOTES.md "v10"): the
 * Snappy split parse's step with a fast path for the common element, an
 * experiment beside the library's step (src/cuda/codecs/snappy/
 * snappy_split_parse.h, oc_snaps_step).
 *
 * Why: the split decoder's call lasts as long as its longest chunk's walk
 * by one lane (bench/NOTES.md "Snappy in the split decoder": ~16,300
 * elements in a 64 KiB chunk of tpch_l_extendedprice, ~900 cycles an
 * element).  The library's step branches three ways on the tag (literal,
 * copy-1, copy-2/4), each branch with its own window reads and checks, so
 * a warp whose 32 lanes sit on different kinds runs all three paths one
 * after the other every element.  Here an element whose 5 header bytes lie
 * in the window (ip + 5 <= whi) is decoded without a branch on its kind:
 * the five bytes are read at once (independent loads), every kind's length,
 * offset and header size computed and the right one selected, the checks
 * of its kind evaluated as one predicate, and the record store (literal
 * flushed by a literal, or folded into a copy) made the same for both
 * kinds.  Anything else (the preamble, the stream's end, a header that
 * reaches past the window, a failed check, a full slot, a declared length
 * above the capacity) goes to the library's step, which then does exactly
 * what it always did: statuses, records and REDO are the library step's.
 * oc_snapf_step2 and oc_snapf_step4 (the variants fast2, fast4) take up
 * to 2 or 4 elements on the fast path in one call, so the warp driver's
 * ballots and bookkeeping come once per 2 or 4 elements.
 *
 * Host C as well: snappy_fast_cpu_check.c runs the library's host test
 * (tests/c/test_snappy_split_core.c) with this step, and compares its
 * records with the library step's on real data.
 */
#ifndef DEV_SNAPPY_FAST_PARSE_H
#define DEV_SNAPPY_FAST_PARSE_H

#include "../../../src/cuda/codecs/snappy/snappy_split_parse.h"

/* One element on the fast path: 1 done (state advanced, record stored),
 * 0 not taken (state untouched). */
OC_LZS_HD int oc_snapf_fast(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                            uint32_t cap, oc_lzs_rec *recs)
{
    uint32_t ip = s->ip;
    if (!s->phase || s->over || whi < 5u || ip > whi - 5u || s->nrec >= OC_LZS_MAX_RECS(cap))
        return 0;
    const uint8_t *p = wp + (uint32_t)(ip - wshift);
    uint32_t tag = p[0], b1 = p[1], b2 = p[2], b3 = p[3], b4 = p[4];
    uint32_t kind = tag & 3, t6 = tag >> 2;
    uint32_t w = b1 | (b2 << 8) | (b3 << 16) | (b4 << 24); /* the four bytes after the tag */
    /* literal: 1 + nb header bytes (nb 1..4 length bytes when t6 >= 60) */
    uint32_t nb = t6 >= 60 ? t6 - 59 : 0;
    uint32_t lm1 = nb == 0 ? t6 : nb == 4 ? w : w & ((1u << (8 * nb)) - 1); /* length - 1 */
    uint32_t lhdr = 1 + nb;
    /* copy: 2, 3 or 5 header bytes */
    uint32_t chdr = kind == 1 ? 2 : kind == 2 ? 3 : 5;
    uint32_t clen = kind == 1 ? (t6 & 7) + 4 : t6 + 1;
    uint32_t off = kind == 1 ? ((tag >> 5) << 8) | b1 : kind == 2 ? (w & 0xffffu) : w;
    uint32_t room = s->ulen - s->op; /* op <= ulen: every element checked so */
    int lit = kind == 0;
    /* the library step's checks (its header-bytes check passes: srcn - ip >= whi - ip >= 5) */
    int ok = lit ? lm1 < room && lm1 < srcn - ip - lhdr : off != 0 && off <= s->op && clen <= room;
    if (!ok)
        return 0;
    uint32_t m_off = lit ? 0 : off, m_len = lit ? 0 : clen;
    if (!lit || s->pend_len) { /* a copy takes the literal before it; a literal flushes one */
#ifdef __CUDA_ARCH__
        *(uint4 *)(recs + s->nrec) = make_uint4(s->pend_src, s->pend_len, m_off, m_len);
#else
        oc_lzs_rec r = {s->pend_src, s->pend_len, m_off, m_len};
        recs[s->nrec] = r;
#endif
        s->nrec++;
    }
    s->pend_src = lit ? ip + lhdr : 0;
    s->pend_len = lit ? lm1 + 1 : 0;
    s->op += lit ? lm1 + 1 : clen;
    s->ip = ip + (lit ? lhdr + lm1 + 1 : chdr);
    return 1;
}

/* The step: up to n elements on the fast path, else (when the first is
 * not taken) the library's step; the same contract as oc_snaps_step. */
OC_LZS_HD int oc_snapf_stepn(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                             uint32_t cap, oc_lzs_rec *recs, int n)
{
    if (!oc_snapf_fast(s, wp, wshift, whi, srcn, cap, recs))
        return oc_snaps_step(s, wp, wshift, whi, srcn, cap, recs);
    for (int k = 1; k < n && oc_snapf_fast(s, wp, wshift, whi, srcn, cap, recs); k++)
        ;
    return OC_LZS_STEP;
}

/* The variants fast1, fast2, fast4: elements on the fast path per call. */
OC_LZS_HD int oc_snapf_step(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                            uint32_t cap, oc_lzs_rec *recs)
{
    return oc_snapf_stepn(s, wp, wshift, whi, srcn, cap, recs, 1);
}
OC_LZS_HD int oc_snapf_step2(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                             uint32_t cap, oc_lzs_rec *recs)
{
    return oc_snapf_stepn(s, wp, wshift, whi, srcn, cap, recs, 2);
}
OC_LZS_HD int oc_snapf_step4(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                             uint32_t cap, oc_lzs_rec *recs)
{
    return oc_snapf_stepn(s, wp, wshift, whi, srcn, cap, recs, 4);
}

#endif /* DEV_SNAPPY_FAST_PARSE_H */
