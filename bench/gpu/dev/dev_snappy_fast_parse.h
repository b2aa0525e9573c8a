/*
 * dev_snappy_fast_parse.h - v10's variants of the Snappy split parse step
 * (issue 13, bench/NOTES.md "v10"), for the A/B in snappy_fast.cu and the
 * host check in snappy_fast_cpu_check.c.
 *
 * v10's fast path for the common element now lives in the library
 * (src/cuda/codecs/snappy/snappy_split_parse.h: oc_snaps_fast, and
 * oc_snaps_step taking up to OC_SNAPS_RUN elements on it a call and asking
 * for the next window at a window's end, v10b); the variants here are the
 * steps measured on the way, so the measurements can be repeated:
 *   v9     oc_snaps_elem: the preamble, one element or the end, per call
 *          (the step before v10, a branch per kind)
 *   fast1  up to 1 element on the fast path a call, else oc_snaps_elem
 *   fast2  up to 2
 *   fast4  up to 4 (v10 as measured in call A: the window's end on
 *          oc_snaps_elem)
 *   flat   v13: the library's step (v10b) with no branch between the
 *          kinds in the fast path (1.27x; the library's oc_snaps_fast
 *          since 09d8d7e, so `flat` and `library` now run the same step)
 */
#ifndef DEV_SNAPPY_FAST_PARSE_H
#define DEV_SNAPPY_FAST_PARSE_H

#include "../../../src/cuda/codecs/snappy/snappy_split_parse.h"

OC_LZS_HD int oc_snapf_v9(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                          uint32_t cap, oc_lzs_rec *recs)
{
    return oc_snaps_elem(s, wp, wshift, whi, srcn, cap, recs);
}
/* Up to n elements on the fast path, else oc_snaps_elem (v10 without
 * v10b's early refill). */
OC_LZS_HD int oc_snapf_stepn(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                             uint32_t cap, oc_lzs_rec *recs, int n)
{
    if (!oc_snaps_fast(s, wp, wshift, whi, srcn, cap, recs))
        return oc_snaps_elem(s, wp, wshift, whi, srcn, cap, recs);
    for (int k = 1; k < n && oc_snaps_fast(s, wp, wshift, whi, srcn, cap, recs); k++)
        ;
    return OC_LZS_STEP;
}
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
/* v13 `flat` (bench/NOTES.md "v13"): oc_snaps_fast without a branch
 * between the kinds: both kinds' checks computed and one selected, and the
 * record stored whatever the kind (at s->nrec, inside the slot: the entry
 * check holds nrec below OC_LZS_MAX_RECS), counted only when it is one (a
 * copy, or a literal flushing one).  A record stored and not counted lies
 * at or after the count this lane publishes, so no copy warp reads it, and
 * the next record overwrites it.  Why: lanes of a warp on different kinds
 * ran both sides of oc_snaps_fast's branches; on v12's clocks a file of
 * copies only (tpch_l_quantity) walked 0.32 us an element, the files
 * mixing literals and copies 0.43-0.49. */
OC_LZS_HD int oc_snapf_flat_fast(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                                 uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
{
    uint32_t ip = s->ip;
    if (!s->phase || s->over || whi < 5u || ip > whi - 5u || s->nrec >= OC_LZS_MAX_RECS(cap) ||
        s->nrec >= s->rmax)
        return 0;
    const uint8_t *p = wp + (uint32_t)(ip - wshift);
    uint32_t tag = p[0], b1 = p[1], b2 = p[2], b3 = p[3], b4 = p[4];
    uint32_t kind = tag & 3, t6 = tag >> 2;
    uint32_t w = b1 | (b2 << 8) | (b3 << 16) | (b4 << 24);
    uint32_t nb = t6 >= 60 ? t6 - 59 : 0;
    uint32_t lm1 = nb == 0 ? t6 : nb == 4 ? w : w & ((1u << (8 * nb)) - 1);
    uint32_t lhdr = 1 + nb;
    uint32_t chdr = kind == 1 ? 2 : kind == 2 ? 3 : 5;
    uint32_t clen = kind == 1 ? (t6 & 7) + 4 : t6 + 1;
    uint32_t off = kind == 1 ? ((tag >> 5) << 8) | b1 : kind == 2 ? (w & 0xffffu) : w;
    uint32_t room = s->ulen - s->op;
    uint32_t lit = kind == 0;
    /* oc_snaps_fast's checks, both kinds' without short-circuits, one selected */
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
/* oc_snaps_step (v10b: OC_SNAPS_RUN elements, the next window at a
 * window's end) with oc_snapf_flat_fast. */
OC_LZS_HD int oc_snapf_flat(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                            uint32_t cap, oc_lzs_rec *recs)
{
    if (!oc_snapf_flat_fast(s, wp, wshift, whi, srcn, cap, recs)) {
        if (s->phase && whi < srcn && (s->ip >= whi || whi - s->ip < 5u))
            return OC_LZS_NEED;
        return oc_snaps_elem(s, wp, wshift, whi, srcn, cap, recs);
    }
    for (int k = 1; k < OC_SNAPS_RUN && oc_snapf_flat_fast(s, wp, wshift, whi, srcn, cap, recs); k++)
        ;
    return OC_LZS_STEP;
}
/* the library's step (v10b), for the host check */
OC_LZS_HD int oc_snapf_lib(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                           uint32_t cap, oc_lzs_rec *recs)
{
    return oc_snaps_step(s, wp, wshift, whi, srcn, cap, recs);
}

#endif /* DEV_SNAPPY_FAST_PARSE_H */
