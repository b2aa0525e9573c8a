/*
 * lz4_split_parse.h - the parse half of the LZ4 split decoder: one lane
 * walks one LZ4 block front to back with the pipe decoder's checks in its
 * order per sequence (literal length TRUNCATED, literal against the
 * capacity, offset and match length TRUNCATED, offset CORRUPT, match
 * against the capacity, a block that ends on a match TRUNCATED), then the
 * end-of-block rules (oc_lz4_end_rules), and stores one record per
 * sequence (lz_common/lz_split_rec.h).  The copy half
 * (lz_common/lz_split_copy.cuh) then executes the records of the chunks
 * whose walk ended OK.
 *
 * Resumable, so that the input can come through a small window in shared
 * memory (lz_common/lz_split_warp.cuh): every byte the step reads must lie in the
 * lane's window [.., whi) (byte p at wp[p - wshift], 32-bit arithmetic).
 * When a byte is missing the step returns OC_LZS_NEED with the state at
 * the start of the phase that missed (phase 0: token, literal length and
 * the skipped literal; phase 1: offset, match length, record), and the
 * warp refills the window at s->ip.  A phase reads only bytes at or after
 * its start and below srcn (every read follows the bound check the serial
 * walk makes), so a miss always means "refill at s->ip"; a phase longer
 * than a whole window (a length run of hundreds of 255 bytes) is run again
 * on the whole input (wp = src, wshift = 0, whi = srcn).
 *
 * Why this shape: bench/NOTES.md "v7", "v8" (a lane per chunk costs ~0.3
 * warp instructions per output byte where the rounds parser costs ~4; read
 * through shared memory the walk got 25% faster at 64 KiB chunks).  Host C
 * as well (tests/c/test_lz4_split_core.c drives it through windows of many
 * sizes and alignments against the CPU engine's scanner).
 */
#ifndef OC_LZ4_SPLIT_PARSE_H
#define OC_LZ4_SPLIT_PARSE_H

#include "../lz_common/lz_split_rec.h"

/* One lane's parse state (registers on the GPU). */
typedef struct oc_lz4s_st {
    uint32_t ip;      /* start of the phase to run next */
    uint32_t op;      /* output bytes so far */
    uint32_t nrec;    /* records stored */
    uint32_t lit_src; /* phase 1: the sequence's literal */
    uint32_t lit;
    uint32_t ml4;     /* phase 1: the token's match nibble */
    uint32_t last_ms; /* the last match's output start and end */
    uint32_t last_me;
    uint32_t any_match;
    int phase;
    int status;
} oc_lz4s_st;

OC_LZS_HD void oc_lz4s_init(oc_lz4s_st *s)
{
    s->ip = s->op = s->nrec = s->lit_src = s->lit = s->ml4 = s->last_ms = s->last_me = s->any_match = 0;
    s->phase = 0;
    s->status = OC_LZS_OK;
}

OC_LZS_HD void oc_lz4s_put(oc_lzs_rec *recs, oc_lz4s_st *s, uint32_t lit_src, uint32_t lit_len,
                           uint32_t m_off, uint32_t m_len)
{
#ifdef __CUDA_ARCH__
    *(uint4 *)(recs + s->nrec) = make_uint4(lit_src, lit_len, m_off, m_len);
#else
    oc_lzs_rec r = {lit_src, lit_len, m_off, m_len};
    recs[s->nrec] = r;
#endif
    s->nrec++;
}

/* Length runs saturate here (the serial walk sums in 64 bits): a saturated
 * length exceeds both srcn - ip (srcn < 2^31) and the capacity, so it
 * fails the same check the exact one fails, and the run is still read to
 * its end, so the statuses and the bytes read are the serial walk's. */
#define OC_LZS_SAT 0x7fffffffu

/* One LZ4 sequence (or what is left of it).  srcn < 2^31, cap <=
 * OC_LZS_MAX_CAP; recs has room for OC_LZS_MAX_RECS(cap) records. */
OC_LZS_HD int oc_lz4s_step(oc_lz4s_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                           uint32_t cap, oc_lzs_rec *recs)
{
    uint32_t ip = s->ip;
    if (s->phase == 0) {
        if (ip >= srcn) /* an empty block, or one that ends on a match */
            OC_LZS_END_WITH(OC_LZS_TRUNCATED);
        uint32_t token;
        OC_LZS_GET(token, ip);
        ip++;
        uint32_t lit = token >> 4;
        if (lit == 15) {
            uint32_t b;
            do {
                if (ip >= srcn)
                    OC_LZS_END_WITH(OC_LZS_TRUNCATED);
                OC_LZS_GET(b, ip);
                ip++;
                lit += b;
                lit = lit < OC_LZS_SAT ? lit : OC_LZS_SAT;
            } while (b == 255);
        }
        if (lit > srcn - ip)
            OC_LZS_END_WITH(OC_LZS_TRUNCATED);
        if (lit > cap - s->op)
            OC_LZS_END_WITH(OC_LZS_OUTPUT_TOO_SMALL);
        uint32_t lit_src = ip;
        ip += lit;
        if (ip == srcn) { /* the literals-only sequence ends the block */
            oc_lz4s_put(recs, s, lit_src, lit, 0, 0);
            s->op += lit;
            s->ip = ip;
            /* end-of-block rules (oc_lz4_end_rules); srcn == 1: byte 0 was
             * read from this window */
            if (s->op == 0 && (srcn != 1 || wp[(uint32_t)(0u - wshift)] != 0))
                OC_LZS_END_WITH(OC_LZS_CORRUPT);
            if (s->any_match && (s->op - s->last_me < 5 || s->op - s->last_ms < 12))
                OC_LZS_END_WITH(OC_LZS_CORRUPT);
            OC_LZS_END_WITH(OC_LZS_OK);
        }
        s->lit_src = lit_src;
        s->lit = lit;
        s->ml4 = token & 15;
        s->phase = 1;
        s->ip = ip;
    }
    /* phase 1 */
    if (srcn - ip < 2)
        OC_LZS_END_WITH(OC_LZS_TRUNCATED);
    uint32_t b0, b1;
    OC_LZS_GET(b0, ip);
    OC_LZS_GET(b1, ip + 1);
    uint32_t off = b0 | (b1 << 8);
    ip += 2;
    uint32_t ml = s->ml4;
    if (ml == 15) {
        uint32_t b;
        do {
            if (ip >= srcn)
                OC_LZS_END_WITH(OC_LZS_TRUNCATED);
            OC_LZS_GET(b, ip);
            ip++;
            ml += b;
            ml = ml < OC_LZS_SAT ? ml : OC_LZS_SAT;
        } while (b == 255);
    }
    ml += 4;
    uint32_t mo = s->op + s->lit;
    if (off == 0 || off > mo)
        OC_LZS_END_WITH(OC_LZS_CORRUPT);
    if (ml > cap - mo)
        OC_LZS_END_WITH(OC_LZS_OUTPUT_TOO_SMALL);
    if (ip >= srcn)
        OC_LZS_END_WITH(OC_LZS_TRUNCATED);
    oc_lz4s_put(recs, s, s->lit_src, s->lit, off, ml);
    s->last_ms = mo;
    s->last_me = mo + ml;
    s->any_match = 1;
    s->op = s->last_me;
    s->phase = 0;
    s->ip = ip;
    return OC_LZS_STEP;
}

#undef OC_LZS_GET
#undef OC_LZS_END_WITH

#endif /* OC_LZ4_SPLIT_PARSE_H */
