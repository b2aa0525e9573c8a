/*
 * lz4_fast_parse.h - the LZ4 split parse's step (oc_lz4f_step), the one the
 * library runs: the Snappy parse went 1.27x faster once a common element
 * took one step with no branch between its cases (bench/NOTES.md "v13"),
 * and the same cut for LZ4's walk took the LZ4 decode at 64 KiB from 135
 * to 169 GB/s on an H200, 1.49x nvCOMP's in the same run (bench/NOTES.md
 * "LZ4's branch-free parse step", session 10).
 *
 * oc_lz4f_fast: one whole sequence in one step when it is the common kind -
 * literal and match nibbles below 15 (no length runs) and its 18 bytes
 * (token, <= 14 literals, offset, the next token) inside the window - with
 * every check of oc_lz4s_step computed without short-circuits and one
 * test; 1 when taken (state advanced, record stored), 0 when not (state
 * untouched; the general step lz4_split_parse.h's oc_lz4s_step then parses
 * it, in its own order of checks, so every status and record is the
 * general step's by construction: tests/c/test_lz4_split_core.c compares
 * the two on every block it parses).
 * oc_lz4f_step: up to OC_LZ4F_RUN sequences on the fast path a call; when
 * the first is not taken because the window holds fewer than 18 bytes and
 * more input follows, OC_LZS_NEED (the driver refills at s->ip), as
 * oc_snaps_run does; else the general step.
 */
#ifndef OC_LZ4_FAST_PARSE_H
#define OC_LZ4_FAST_PARSE_H

#include "lz4_split_parse.h"

#define OC_LZ4F_SPAN 18u /* token + 14 literals + 2 offset bytes + the next token */
#ifndef OC_LZ4F_RUN
#define OC_LZ4F_RUN 4
#endif

OC_LZS_HD int oc_lz4f_fast(oc_lz4s_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t cap,
                           oc_lzs_rec *recs)
{
    uint32_t ip = s->ip;
    if (s->phase != 0 || whi < OC_LZ4F_SPAN || ip > whi - OC_LZ4F_SPAN)
        return 0;
    const uint8_t *p = wp + (uint32_t)(ip - wshift);
    uint32_t token = p[0];
    uint32_t lit = token >> 4, ml4 = token & 15u;
    /* lit <= 15: bytes 1 + lit and 2 + lit lie inside the span whatever it is */
    uint32_t off = (uint32_t)p[1 + lit] | ((uint32_t)p[2 + lit] << 8);
    uint32_t mo = s->op + lit, ml = ml4 + 4u;
    /* the general step's checks for such a sequence: its literal and match
     * within the capacity, a non-zero offset within the output; the input
     * checks hold inside the span (the next token is at ip + 3 + lit < whi <= srcn) */
    uint32_t ok = (uint32_t)(lit < 15u) & (uint32_t)(ml4 < 15u) & (uint32_t)(lit <= cap - s->op) &
                  (uint32_t)(off != 0u) & (uint32_t)(off <= mo) & (uint32_t)(ml <= cap - mo);
    if (!ok)
        return 0;
    oc_lz4s_put(recs, s, ip + 1u, lit, off, ml);
    s->last_ms = mo;
    s->last_me = mo + ml;
    s->any_match = 1;
    s->op = mo + ml;
    s->ip = ip + 3u + lit;
    return 1;
}

OC_LZS_HD int oc_lz4f_step(oc_lz4s_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                           uint32_t cap, oc_lzs_rec *recs)
{
    if (!oc_lz4f_fast(s, wp, wshift, whi, cap, recs)) {
        if (s->phase == 0 && whi < srcn && (s->ip >= whi || whi - s->ip < OC_LZ4F_SPAN))
            return OC_LZS_NEED;
        return oc_lz4s_step(s, wp, wshift, whi, srcn, cap, recs);
    }
    for (int k = 1; k < OC_LZ4F_RUN && oc_lz4f_fast(s, wp, wshift, whi, cap, recs); k++)
        ;
    return OC_LZS_STEP;
}

#endif /* OC_LZ4_FAST_PARSE_H */
