/*
 * dev_snappy_word_parse.cuh - v12's `word` step (issue 13, bench/NOTES.md
 * "v12"): the library's Snappy parse step (src/cuda/codecs/snappy/
 * snappy_split_parse.h: oc_snaps_run with oc_snaps_fast) with the fast
 * path's five header bytes read from the shared-memory window as two
 * aligned 4-byte words and one 64-bit shift, instead of five byte loads.
 *
 * Why: the five LDS.U8 of each element sit on the walk's dependent chain
 * and each may conflict in the banks (NOTES.md "v12": 73% of the parse's
 * shared wavefronts excessive); two loads queue less.  The words may reach
 * up to 3 bytes past the window's valid bytes (into the 4-byte gap of a
 * skewed window, or the next lane's window, or the kernel's 16-byte pad:
 * read, never used), so this step serves the shared-memory window only:
 * the driver's fallback on the input itself (a phase longer than a window)
 * keeps the library's step, which reads no byte past the input.  CUDA
 * only; everything but the reads is oc_snaps_fast / oc_snaps_run line for
 * line, so statuses, records and REDO are the library's.
 */
#ifndef DEV_SNAPPY_WORD_PARSE_CUH
#define DEV_SNAPPY_WORD_PARSE_CUH

#include "../../../src/cuda/codecs/snappy/snappy_split_parse.h"

/* oc_snaps_fast with the header read as two words (wp 4-byte aligned). */
__device__ __forceinline__ int dev_snapw_fast(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift,
                                              uint32_t whi, uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
{
    uint32_t ip = s->ip;
    if (!s->phase || s->over || whi < 5u || ip > whi - 5u || s->nrec >= OC_LZS_MAX_RECS(cap) ||
        s->nrec >= s->rmax)
        return 0;
    uint32_t at = (uint32_t)(ip - wshift);
    const uint32_t *q = (const uint32_t *)(wp + (at & ~3u));
    uint64_t v = (((uint64_t)q[1] << 32) | q[0]) >> (8 * (at & 3u)); /* bytes at .. at + 4 from bit 0 */
    uint32_t tag = (uint32_t)v & 0xffu, b1 = (uint32_t)(v >> 8) & 0xffu;
    uint32_t kind = tag & 3, t6 = tag >> 2;
    uint32_t w = (uint32_t)(v >> 8); /* the four bytes after the tag */
    uint32_t nb = t6 >= 60 ? t6 - 59 : 0;
    uint32_t lm1 = nb == 0 ? t6 : nb == 4 ? w : w & ((1u << (8 * nb)) - 1);
    uint32_t lhdr = 1 + nb;
    uint32_t chdr = kind == 1 ? 2 : kind == 2 ? 3 : 5;
    uint32_t clen = kind == 1 ? (t6 & 7) + 4 : t6 + 1;
    uint32_t off = kind == 1 ? ((tag >> 5) << 8) | b1 : kind == 2 ? (w & 0xffffu) : w;
    uint32_t room = s->ulen - s->op;
    int lit = kind == 0;
    int ok = lit ? lm1 < room && lm1 < srcn - ip - lhdr : off != 0 && off <= s->op && clen <= room;
    if (!ok)
        return 0;
    uint32_t m_off = lit ? 0 : off, m_len = lit ? 0 : clen;
    if (!lit || s->pend_len) {
        *(uint4 *)(recs + s->nrec) = make_uint4(s->pend_src, s->pend_len, m_off, m_len);
        s->nrec++;
    }
    s->pend_src = lit ? ip + lhdr : 0;
    s->pend_len = lit ? lm1 + 1 : 0;
    s->op += lit ? lm1 + 1 : clen;
    s->ip = ip + (lit ? lhdr + lm1 + 1 : chdr);
    return 1;
}

/* oc_snaps_step (oc_snaps_run, OC_SNAPS_RUN elements) with dev_snapw_fast. */
__device__ __forceinline__ int dev_snapw_step(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift,
                                              uint32_t whi, uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
{
    if (!dev_snapw_fast(s, wp, wshift, whi, srcn, cap, recs)) {
        if (s->phase && whi < srcn && (s->ip >= whi || whi - s->ip < 5u))
            return OC_LZS_NEED;
        return oc_snaps_elem(s, wp, wshift, whi, srcn, cap, recs);
    }
    for (int k = 1; k < OC_SNAPS_RUN && dev_snapw_fast(s, wp, wshift, whi, srcn, cap, recs); k++)
        ;
    return OC_LZS_STEP;
}

#endif /* DEV_SNAPPY_WORD_PARSE_CUH */
