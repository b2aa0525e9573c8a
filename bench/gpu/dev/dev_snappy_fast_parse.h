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
/* the library's step (v10b), for the host check */
OC_LZS_HD int oc_snapf_lib(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                           uint32_t cap, oc_lzs_rec *recs)
{
    return oc_snaps_step(s, wp, wshift, whi, srcn, cap, recs);
}

#endif /* DEV_SNAPPY_FAST_PARSE_H */
