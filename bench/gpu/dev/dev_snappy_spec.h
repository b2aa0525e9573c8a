/*
 * dev_snappy_spec.h - v11 (issue 13, bench/NOTES.md "v11"): a Snappy chunk
 * parsed by TWO lanes, each walking about half of it, so that the split
 * decoder's wall (one lane's dependent walk of the longest chunk, ~200
 * instructions a loop turn at ~5 cycles each, one warp per scheduler) is
 * halved and each scheduler gets two independent chains.  Host C and CUDA.
 *
 * Lane A walks from the start with the library's step (snappy_split_parse.h),
 * but stops at `lim` (first the input's middle, P0 = srcn / 2).  Lane B
 * walks speculatively from P0 as if an element started there:
 *   - its checks are those that do not need the absolute output position:
 *     header and literal bytes inside the input, offset not 0, and its
 *     relative output within the capacity; the checks that do (offset
 *     within the output so far, output within the declared length) are
 *     deferred: B keeps, per stretch between two log entries, the largest
 *     offset - relative position of its copies;
 *   - it logs its first OC_SPEC_K element starts at which no literal waits
 *     for a copy (position, records and relative output there);
 *   - before its log is full, an element that fails a check means a wrong
 *     guess of the element boundary: B restarts one byte later (up to
 *     OC_SPEC_LEAD bytes after P0); after, B stops (failed).
 *   - its records go to a region of their own (recsB), the literal before
 *     a copy folded in as the library does.
 * A, at lim, looks for its own position (with no literal waiting) in B's
 * log, taking one more element at a time; found there, the two walks are
 * the same from that element on (the same bytes, the same rules), and A's
 * records up to it followed by B's records from it are the serial walk's,
 * provided B reached the end and the deferred checks hold with the true
 * output position (oc_spec_join).  In every other case (no match in the
 * log, B failed, a check fails, too many records, a declared length above
 * the capacity) A simply walks on from where it stopped, serially, as the
 * library's lane does: the statuses, sizes and records are then the
 * library's by construction, and B's work is discarded.
 *
 * Why not several lanes with the sync found early: the second half's
 * output position is known only once A has walked the first half, so B's
 * records are copied after that whatever one does; two halves in two lanes
 * of the same warp cost one shuffle a turn and no other coordination.
 */
#ifndef DEV_SNAPPY_SPEC_H
#define DEV_SNAPPY_SPEC_H

#include "../../../src/cuda/codecs/snappy/snappy_split_parse.h"

#ifndef OC_SPEC_K
#define OC_SPEC_K 16 /* log entries (32 joined as often on the corpus sample) */
#endif
#ifndef OC_SPEC_LEAD
#define OC_SPEC_LEAD 32u /* B's restarts one byte on, up to a zone's start + this */
#endif
#ifndef OC_SPEC_JUMP
#define OC_SPEC_JUMP 1024u /* then a zone this much further */
#endif
#ifndef OC_SPEC_TRIES
#define OC_SPEC_TRIES 128u /* B's restarts at most */
#endif
#ifndef OC_SPEC_MIN
#define OC_SPEC_MIN 4096u /* inputs shorter than this are walked by A alone */
#endif
/* Whether a chunk is split: long enough, and not nearly incompressible (a
 * few long literals: A's walk is short, and B would search for element
 * starts inside a literal). */
#define OC_SPEC_SPLITS(srcn, cap) ((srcn) >= OC_SPEC_MIN && (srcn) <= (cap) - (cap) / 8)
#ifndef OC_LZS_STOP
#define OC_LZS_STOP 3 /* A's step: the next element starts at or after lim */
#endif
#define OC_SPEC_NONE (-0x40000000)

typedef struct oc_spec_log {
    uint32_t ip, nrec, op; /* an element start with no literal waiting: B's records and output before it */
    int32_t seg;           /* max of offset - relative position of B's copies from here to the next entry */
} oc_spec_log;

/* B's state. */
typedef struct oc_spec_b {
    uint32_t ip, op, nrec; /* op relative to the walk's start */
    uint32_t start, zone;  /* where this attempt started; where its zone starts (first P0) */
    uint32_t tries;        /* restarts so far */
    uint32_t pend_src, pend_len;
    uint32_t nlog, lastlog; /* entries logged; the last logged position (+1, 0: none) */
    int32_t m;              /* max of offset - op since the last entry */
    int state;              /* 0 walking, 1 reached the end, 2 failed */
    int logged;             /* the log is final (full, or B ended) */
} oc_spec_b;

OC_LZS_HD void oc_spec_b_init(oc_spec_b *b, uint32_t p0)
{
    b->ip = b->start = b->zone = p0;
    b->tries = 0;
    b->op = b->nrec = b->pend_src = b->pend_len = b->nlog = b->lastlog = 0;
    b->m = OC_SPEC_NONE;
    b->state = 0;
    b->logged = 0;
}

/* B's end: the last entry's stretch closed. */
OC_LZS_HD int oc_spec_b_end(oc_spec_b *b, oc_spec_log *log, int state)
{
    if (state == 1 && b->nlog)
        log[b->nlog - 1].seg = b->m;
    b->state = b->nlog ? state : 2;
    b->logged = 1;
    return OC_LZS_END;
}

/* A wrong guess of where an element starts: try one byte later, while the
 * log is not final; else B has failed. */
OC_LZS_HD int oc_spec_b_die(oc_spec_b *b, oc_spec_log *log, uint32_t srcn)
{
    if (b->logged || ++b->tries > OC_SPEC_TRIES)
        return oc_spec_b_end(b, log, 2);
    if (++b->start > b->zone + OC_SPEC_LEAD) { /* no element boundary found here: a zone further on */
        b->zone += OC_SPEC_JUMP;
        b->start = b->zone;
        if (b->zone > srcn - srcn / 4)
            return oc_spec_b_end(b, log, 2);
    }
    b->ip = b->start;
    b->op = b->nrec = b->pend_src = b->pend_len = b->nlog = b->lastlog = 0;
    b->m = OC_SPEC_NONE;
    return OC_LZS_STEP;
}

/* B's step: up to OC_SNAPS_RUN elements (the window contract of
 * snappy_split_parse.h: bytes at or after b->ip below whi, else NEED). */
OC_LZS_HD int oc_spec_b_step(oc_spec_b *b, oc_spec_log *log, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                             uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
{
    for (int k = 0; k < OC_SNAPS_RUN; k++) {
        uint32_t ip = b->ip;
        if (ip >= srcn) { /* the end (elements never reach past it) */
            if (b->pend_len) {
                if (b->nrec >= OC_LZS_MAX_RECS(cap))
                    return oc_spec_b_end(b, log, 2);
#ifdef __CUDA_ARCH__
                *(uint4 *)(recs + b->nrec) = make_uint4(b->pend_src, b->pend_len, 0, 0);
#else
                oc_lzs_rec r = {b->pend_src, b->pend_len, 0, 0};
                recs[b->nrec] = r;
#endif
                b->nrec++;
                b->pend_len = 0;
            }
            return oc_spec_b_end(b, log, 1);
        }
        /* the window holds [wshift, whi); a restart may go back before it */
        uint32_t at = ip - wshift, wl = whi - wshift, tag, b1 = 0, b2 = 0, b3 = 0, b4 = 0;
        if (wl >= 5u && at <= wl - 5u) {
            const uint8_t *p = wp + at;
            tag = p[0], b1 = p[1], b2 = p[2], b3 = p[3], b4 = p[4];
        } else if (whi < srcn || at >= wl) {
            return k ? OC_LZS_STEP : OC_LZS_NEED; /* the next window, at ip */
        } else {                                  /* the input's last bytes, all in the window */
            tag = wp[at];
            if (ip + 1 < srcn)
                b1 = wp[at + 1];
            if (ip + 2 < srcn)
                b2 = wp[at + 2];
            if (ip + 3 < srcn)
                b3 = wp[at + 3];
        }
        if (!b->pend_len && !b->logged && b->lastlog != ip + 1) { /* an entry */
            if (b->nlog)
                log[b->nlog - 1].seg = b->m;
            oc_spec_log e = {ip, b->nrec, b->op, OC_SPEC_NONE};
            log[b->nlog++] = e;
            b->lastlog = ip + 1;
            b->m = OC_SPEC_NONE;
            if (b->nlog == OC_SPEC_K)
                b->logged = 1;
        }
        uint32_t kind = tag & 3, t6 = tag >> 2, left = srcn - ip;
        uint32_t w = b1 | (b2 << 8) | (b3 << 16) | (b4 << 24);
        if (kind == 0) {
            uint32_t nb = t6 >= 60 ? t6 - 59 : 0;
            uint32_t lm1 = nb == 0 ? t6 : nb == 4 ? w : w & ((1u << (8 * nb)) - 1);
            uint32_t hdr = 1 + nb;
            if (hdr > left || lm1 >= left - hdr || lm1 >= cap - b->op) {
                if (oc_spec_b_die(b, log, srcn) == OC_LZS_END)
                    return OC_LZS_END;
                return OC_LZS_STEP; /* the restart reads from its own position: the window may not hold it */
            }
            if (b->pend_len) {
                if (b->nrec >= OC_LZS_MAX_RECS(cap))
                    return oc_spec_b_end(b, log, 2);
#ifdef __CUDA_ARCH__
                *(uint4 *)(recs + b->nrec) = make_uint4(b->pend_src, b->pend_len, 0, 0);
#else
                oc_lzs_rec r = {b->pend_src, b->pend_len, 0, 0};
                recs[b->nrec] = r;
#endif
                b->nrec++;
            }
            b->pend_src = ip + hdr;
            b->pend_len = lm1 + 1;
            b->op += lm1 + 1;
            b->ip = ip + hdr + lm1 + 1;
        } else {
            uint32_t hdr = kind == 1 ? 2 : kind == 2 ? 3 : 5;
            uint32_t len = kind == 1 ? (t6 & 7) + 4 : t6 + 1;
            uint32_t off = kind == 1 ? ((tag >> 5) << 8) | b1 : kind == 2 ? (w & 0xffffu) : w;
            if (hdr > left || off == 0 || off > cap || len > cap - b->op) {
                if (oc_spec_b_die(b, log, srcn) == OC_LZS_END)
                    return OC_LZS_END;
                return OC_LZS_STEP;
            }
            if (b->nrec >= OC_LZS_MAX_RECS(cap))
                return oc_spec_b_end(b, log, 2);
            int32_t d = (int32_t)off - (int32_t)b->op;
            b->m = d > b->m ? d : b->m;
#ifdef __CUDA_ARCH__
            *(uint4 *)(recs + b->nrec) = make_uint4(b->pend_src, b->pend_len, off, len);
#else
            oc_lzs_rec r = {b->pend_src, b->pend_len, off, len};
            recs[b->nrec] = r;
#endif
            b->nrec++;
            b->pend_src = b->pend_len = 0;
            b->op += len;
            b->ip = ip + hdr;
        }
    }
    return OC_LZS_STEP;
}

/* A's step: the library's (oc_snaps_run), but no element starting at or
 * after lim (OC_LZS_STOP then; lim 0xffffffff: none). */
OC_LZS_HD int oc_spec_a_step(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                             uint32_t cap, oc_lzs_rec *recs, uint32_t lim)
{
    if (s->phase && s->ip >= lim)
        return OC_LZS_STOP;
    if (!oc_snaps_fast(s, wp, wshift, whi, srcn, cap, recs)) {
        if (s->phase && whi < srcn && (s->ip >= whi || whi - s->ip < 5u))
            return OC_LZS_NEED;
        return oc_snaps_elem(s, wp, wshift, whi, srcn, cap, recs);
    }
    for (int k = 1; k < OC_SNAPS_RUN && s->ip < lim && oc_snaps_fast(s, wp, wshift, whi, srcn, cap, recs);
         k++)
        ;
    return OC_LZS_STEP;
}

/* A at an element start at or after lim, with B's log final: 1 when it is
 * an entry of B's log (*j then that entry), 0 when A should walk on to
 * *lim (the next entry's position, or the next element when A is on an
 * entry with a literal waiting), -1 when no entry can match any more (A
 * walks on alone).  *j is where the search resumes (entries are in
 * increasing position). */
OC_LZS_HD int oc_spec_find(const oc_snaps_st *s, const oc_spec_log *log, uint32_t nlog, uint32_t *j,
                           uint32_t *lim)
{
    if (s->over)
        return -1;
    uint32_t k = *j;
    while (k < nlog && log[k].ip < s->ip)
        k++;
    *j = k;
    if (k >= nlog)
        return -1;
    if (log[k].ip == s->ip) {
        if (s->pend_len == 0)
            return 1;
        *lim = s->ip + 1;
    } else {
        *lim = log[k].ip;
    }
    return 0;
}

/* The join at entry j of B's log, B having reached the end: 1 when the
 * deferred checks hold with the true output position (A's s->op there)
 * and the records fit (then s is the serial walk's final state: status
 * OK, op, nrec; B's records [log[j].nrec, b_nrec) follow A's), else 0. */
OC_LZS_HD int oc_spec_join(oc_snaps_st *s, const oc_spec_log *log, uint32_t nlog, uint32_t j, uint32_t b_op,
                           uint32_t b_nrec, uint32_t cap)
{
    int32_t need = OC_SPEC_NONE;
    for (uint32_t k = j; k < nlog; k++)
        need = log[k].seg > need ? log[k].seg : need;
    uint32_t more = b_op - log[j].op, recs = b_nrec - log[j].nrec;
    if (need > (int32_t)s->op - (int32_t)log[j].op || s->ulen - s->op != more ||
        recs > OC_LZS_MAX_RECS(cap) - s->nrec)
        return 0;
    s->op += more;
    s->nrec += recs;
    s->ip = 0xffffffffu;
    s->status = OC_LZS_OK;
    return 1;
}

#endif /* DEV_SNAPPY_SPEC_H */
