/*
 * dev_lz_smem_parse.h - the parse of the split decoder made resumable, so
 * that it can read its input through a small window in shared memory (v8,
 * an experiment, bench/NOTES.md "v8"): one lane still walks one chunk with
 * the checks of dev_lz_split_parse.h in their order and writes the same
 * 16-byte records, but every input byte it reads must lie in the lane's
 * window [.., whi) (byte p at wp[p - wshift], 32-bit arithmetic).  When a
 * byte is missing, the step returns OC_SMEM_NEED with the state at the
 * start of the phase that missed, and the warp (dev_lz_smem_warp.cuh)
 * refills the window there with coalesced loads; a phase longer than a
 * whole window (an LZ4 length run of hundreds of 255 bytes) is parsed from
 * global memory instead (wp = src, wshift = 0, whi = srcn).
 *
 * Why: v7's lane-per-chunk parse spent 60-85% of the split decoder's time
 * because 32 lanes walking 32 streams issue divergent byte loads to 32
 * different lines (32 L1 wavefronts each); from shared memory the same
 * loads cost a few bank conflicts.  (Measured: the parse got 25% faster
 * at 64 KiB chunks and no faster at 256 KiB and 1 MiB; a sequence costs a
 * lane ~1,000 cycles either way: bench/NOTES.md "v8: outcome".)
 *
 * Phases: LZ4 0 = token, literal length, literal (skipped), 1 = offset,
 * match length, record; Snappy 0 = preamble, 1 = elements (each element's
 * header is at most 5 bytes: a phase never exceeds a window of >= 21
 * bytes).  A phase reads only bytes at or after its start and below srcn
 * (every read is preceded by the serial parse's bound check), so a miss
 * always means "refill at s->ip".  Host C++ and CUDA (the CPU check runs
 * it with windows of random size and alignment against the serial parse:
 * same statuses, sizes and records).
 */
#ifndef OC_DEV_LZ_SMEM_PARSE_H
#define OC_DEV_LZ_SMEM_PARSE_H

#include "dev_lz_split_parse.h"

#define OC_SMEM_STEP 0 /* a sequence (LZ4) or element (Snappy) parsed */
#define OC_SMEM_NEED 1 /* a byte at or after s->ip is not in the window */
#define OC_SMEM_END 2  /* finished: s->status (and s->op, s->nrec) final */

/* One lane's parse state (registers on the GPU). */
typedef struct oc_smem_st {
    uint32_t ip;      /* start of the phase to run next */
    uint32_t op;      /* output bytes so far */
    uint32_t nrec;    /* records written */
    uint32_t lit_src; /* LZ4 phase 1: the sequence's literal; Snappy: the pending literal */
    uint32_t lit;
    uint32_t aux;     /* LZ4 phase 1: the token's match nibble; Snappy: 1 = a literal is pending */
    uint32_t last_ms; /* LZ4: the last match's start and end */
    uint32_t last_me;
    uint32_t ulen; /* Snappy: the declared length; LZ4: 1 = a match was seen */
    int phase;
    int status;
} oc_smem_st;

OC_SPLIT_HD void oc_smem_init(oc_smem_st *s)
{
    s->ip = s->op = s->nrec = s->lit_src = s->lit = s->aux = s->last_ms = s->last_me = s->ulen = 0;
    s->phase = 0;
    s->status = OC_SPLIT_OK;
}

OC_SPLIT_HD void oc_smem_put(oc_split_rec *recs, oc_smem_st *s, uint32_t lit_src, uint32_t lit_len,
                             uint32_t m_off, uint32_t m_len)
{
#ifdef __CUDA_ARCH__
    *(uint4 *)(recs + s->nrec) = make_uint4(lit_src, lit_len, m_off, m_len);
#else
    oc_split_rec r = {lit_src, lit_len, m_off, m_len};
    recs[s->nrec] = r;
#endif
    s->nrec++;
}

#define OC_SMEM_END_WITH(st_)                                                                                \
    do {                                                                                                     \
        s->status = (st_);                                                                                   \
        return OC_SMEM_END;                                                                                  \
    } while (0)
/* read byte p (p < srcn is checked before, as in the serial parse) */
#define OC_SMEM_GET(v_, p_)                                                                                  \
    do {                                                                                                     \
        if ((p_) >= whi)                                                                                     \
            return OC_SMEM_NEED;                                                                             \
        (v_) = wp[(uint32_t)((p_)-wshift)];                                                                  \
    } while (0)

/* One LZ4 sequence (or what is left of it): oc_split_parse_lz4's body. */
OC_SPLIT_HD int oc_smem_lz4_step(oc_smem_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                                 uint32_t srcn, uint32_t cap, oc_split_rec *recs)
{
    uint32_t ip = s->ip;
    if (s->phase == 0) {
        if (srcn == 0)
            OC_SMEM_END_WITH(OC_SPLIT_TRUNCATED);
        if (ip >= srcn)
            OC_SMEM_END_WITH(OC_SPLIT_TRUNCATED);
        uint32_t token;
        OC_SMEM_GET(token, ip);
        ip++;
        size_t lit = token >> 4;
        if (lit == 15) {
            uint32_t b;
            do {
                if (ip >= srcn)
                    OC_SMEM_END_WITH(OC_SPLIT_TRUNCATED);
                OC_SMEM_GET(b, ip);
                ip++;
                lit += b;
            } while (b == 255);
        }
        if (lit > (size_t)(srcn - ip))
            OC_SMEM_END_WITH(OC_SPLIT_TRUNCATED);
        if (lit > (size_t)(cap - s->op))
            OC_SMEM_END_WITH(OC_SPLIT_OUTPUT_TOO_SMALL);
        uint32_t lit_src = ip;
        ip += (uint32_t)lit;
        if (ip == srcn) { /* the literals-only sequence ends the block */
            oc_smem_put(recs, s, lit_src, (uint32_t)lit, 0, 0);
            s->op += (uint32_t)lit;
            s->ip = ip;
            /* end-of-block rules (oc_lz4_end_rules) */
            if (s->op == 0 && (srcn != 1 || wp[(uint32_t)(0u - wshift)] !=
                                                0)) /* srcn == 1: byte 0 was read from this window */
                OC_SMEM_END_WITH(OC_SPLIT_CORRUPT);
            if (s->ulen && (s->op - s->last_me < 5 || s->op - s->last_ms < 12))
                OC_SMEM_END_WITH(OC_SPLIT_CORRUPT);
            OC_SMEM_END_WITH(OC_SPLIT_OK);
        }
        s->lit_src = lit_src;
        s->lit = (uint32_t)lit;
        s->aux = token & 15;
        s->phase = 1;
        s->ip = ip;
    }
    /* phase 1 */
    if (srcn - ip < 2)
        OC_SMEM_END_WITH(OC_SPLIT_TRUNCATED);
    uint32_t b0, b1;
    OC_SMEM_GET(b0, ip);
    OC_SMEM_GET(b1, ip + 1);
    uint32_t off = b0 | (b1 << 8);
    ip += 2;
    size_t ml = s->aux;
    if (ml == 15) {
        uint32_t b;
        do {
            if (ip >= srcn)
                OC_SMEM_END_WITH(OC_SPLIT_TRUNCATED);
            OC_SMEM_GET(b, ip);
            ip++;
            ml += b;
        } while (b == 255);
    }
    ml += 4;
    uint32_t mo = s->op + s->lit;
    if (off == 0 || off > mo)
        OC_SMEM_END_WITH(OC_SPLIT_CORRUPT);
    if (ml > (size_t)(cap - mo))
        OC_SMEM_END_WITH(OC_SPLIT_OUTPUT_TOO_SMALL);
    if (ip >= srcn)
        OC_SMEM_END_WITH(OC_SPLIT_TRUNCATED);
    oc_smem_put(recs, s, s->lit_src, s->lit, off, (uint32_t)ml);
    s->last_ms = mo;
    s->last_me = mo + (uint32_t)ml;
    s->ulen = 1;
    s->op = s->last_me;
    s->phase = 0;
    s->ip = ip;
    return OC_SMEM_STEP;
}

/* One Snappy element (phase 1) or the preamble (phase 0):
 * oc_split_parse_snappy's body. */
OC_SPLIT_HD int oc_smem_snappy_step(oc_smem_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                                    uint32_t srcn, uint32_t cap, oc_split_rec *recs)
{
    uint32_t ip = s->ip;
    if (s->phase == 0) {
        uint64_t v = 0;
        for (;;) {
            if (ip == 5)
                OC_SMEM_END_WITH(OC_SPLIT_CORRUPT);
            if (ip >= srcn)
                OC_SMEM_END_WITH(OC_SPLIT_TRUNCATED);
            uint32_t c;
            OC_SMEM_GET(c, ip);
            v |= (uint64_t)(c & 0x7f) << (7 * ip);
            ip++;
            if (!(c & 0x80))
                break;
        }
        if (v > 0xffffffffu)
            OC_SMEM_END_WITH(OC_SPLIT_CORRUPT);
        s->ulen = (uint32_t)v;
        s->op = 0;
        if (s->ulen > cap) {
            s->op = s->ulen; /* the size the serial parse reports (*outn = ulen) */
            OC_SMEM_END_WITH(OC_SPLIT_OUTPUT_TOO_SMALL);
        }
        s->phase = 1;
        s->ip = ip;
        return OC_SMEM_STEP;
    }
    if (ip >= srcn) { /* the end: flush the pending literal */
        if (s->aux)
            oc_smem_put(recs, s, s->lit_src, s->lit, 0, 0);
        s->aux = 0;
        uint32_t ulen = s->ulen, op = s->op;
        s->op = ulen;
        OC_SMEM_END_WITH(op == ulen ? OC_SPLIT_OK : OC_SPLIT_TRUNCATED);
    }
    uint32_t tag;
    OC_SMEM_GET(tag, ip);
    uint32_t kind = tag & 3;
    if (kind == 0) {
        size_t lit = (tag >> 2) + 1, hdr = 1;
        if (lit > 60) {
            uint32_t nb = (uint32_t)lit - 60;
            hdr = 1 + nb;
            if (srcn - ip < hdr)
                OC_SMEM_END_WITH(OC_SPLIT_TRUNCATED);
            uint32_t w = 0;
            for (uint32_t j = 0; j < nb; j++) {
                uint32_t b;
                OC_SMEM_GET(b, ip + 1 + j);
                w |= b << (8 * j);
            }
            lit = (size_t)w + 1;
        }
        if (ip + hdr + lit > srcn)
            OC_SMEM_END_WITH(OC_SPLIT_TRUNCATED);
        if (s->op + lit > s->ulen) {
            s->op = s->ulen;
            OC_SMEM_END_WITH(OC_SPLIT_CORRUPT);
        }
        if (s->aux)
            oc_smem_put(recs, s, s->lit_src, s->lit, 0, 0);
        s->aux = 1;
        s->lit_src = ip + (uint32_t)hdr;
        s->lit = (uint32_t)lit;
        s->ip = ip + (uint32_t)(hdr + lit);
        s->op += (uint32_t)lit;
        return OC_SMEM_STEP;
    }
    uint32_t hdr = kind == 1 ? 2 : kind == 2 ? 3 : 5;
    if (srcn - ip < hdr)
        OC_SMEM_END_WITH(OC_SPLIT_TRUNCATED);
    uint32_t olen, off, b1, b2, b3, b4;
    OC_SMEM_GET(b1, ip + 1);
    if (kind == 1) {
        olen = ((tag >> 2) & 7) + 4;
        off = ((tag >> 5) << 8) | b1;
    } else {
        olen = (tag >> 2) + 1;
        OC_SMEM_GET(b2, ip + 2);
        off = b1 | (b2 << 8);
        if (kind == 3) {
            OC_SMEM_GET(b3, ip + 3);
            OC_SMEM_GET(b4, ip + 4);
            off |= (b3 << 16) | (b4 << 24);
        }
    }
    if (off == 0 || off > s->op || (size_t)s->op + olen > s->ulen) {
        s->op = s->ulen;
        OC_SMEM_END_WITH(OC_SPLIT_CORRUPT);
    }
    oc_smem_put(recs, s, s->aux ? s->lit_src : 0, s->aux ? s->lit : 0, off, olen);
    s->aux = 0;
    s->ip = ip + hdr;
    s->op += olen;
    return OC_SMEM_STEP;
}

#undef OC_SMEM_GET
#undef OC_SMEM_END_WITH

/* The output size a finished parse reports (the serial parse's *outn:
 * LZ4 the bytes decoded, Snappy the declared length once read). */
OC_SPLIT_HD uint32_t oc_smem_outn(const oc_smem_st *s)
{
    return s->op;
}

#endif /* OC_DEV_LZ_SMEM_PARSE_H */
