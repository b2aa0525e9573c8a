/*
 * dev_snappy_fast_parse.h - v10's variants of the Snappy split parse step
 * (issue 13, bench/NOTES.md "v10"), for the A/B in snappy_fast.cu and the
 * host check in snappy_fast_cpu_check.c.
 *
 * v10's fast path for the common element now lives in the library
 * (src/cuda/codecs/snappy/snappy_split_parse.h: oc_snaps_fast, and
 * oc_snaps_step taking up to OC_SNAPS_RUN elements on it a call); the
 * variants here are that code with other run lengths, and the step as it
 * was before v10 (oc_snaps_elem alone: a branch per kind), so the
 * measurements can be repeated:
 *   v9     oc_snaps_elem: the preamble, one element or the end, per call
 *   fast1  up to 1 element on the fast path a call, else oc_snaps_elem
 *   fast2  up to 2
 *   fast4  up to 4
 */
#ifndef DEV_SNAPPY_FAST_PARSE_H
#define DEV_SNAPPY_FAST_PARSE_H

#include "../../../src/cuda/codecs/snappy/snappy_split_parse.h"

OC_LZS_HD int oc_snapf_v9(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                          uint32_t cap, oc_lzs_rec *recs)
{
    return oc_snaps_elem(s, wp, wshift, whi, srcn, cap, recs);
}
OC_LZS_HD int oc_snapf_step(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                            uint32_t cap, oc_lzs_rec *recs)
{
    return oc_snaps_run(s, wp, wshift, whi, srcn, cap, recs, 1);
}
OC_LZS_HD int oc_snapf_step2(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                             uint32_t cap, oc_lzs_rec *recs)
{
    return oc_snaps_run(s, wp, wshift, whi, srcn, cap, recs, 2);
}
OC_LZS_HD int oc_snapf_step4(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                             uint32_t cap, oc_lzs_rec *recs)
{
    return oc_snaps_run(s, wp, wshift, whi, srcn, cap, recs, 4);
}

#endif /* DEV_SNAPPY_FAST_PARSE_H */
