/*
 * dev_snappy_pair_parse.h - v11b's two-lane walk of a Snappy chunk (issue
 * 13, bench/NOTES.md "v11", "v11b"), the parse steps only: a first lane A
 * from the start, a second lane B speculatively from the middle, joined
 * where their walks meet.  Host C and CUDA, as the library's one-lane walk
 * (src/cuda/codecs/snappy/snappy_split_parse.h) it extends.
 *
 * Why it lives here: it lost on the GPU (two warps a chunk 0.91x the
 * library's one-lane walk, bench/NOTES.md "v11b: outcome"), so it left the
 * library (issue 12: winners in the library, experiments in bench/gpu/dev)
 * for snappy_fast.cu's variants pairs and pairs9, with its warp driver and
 * kernels (dev_lz_pair.cuh).  The library keeps one hook it needs, the
 * one-lane state's record bound oc_snaps_st.rmax (0xffffffff there;
 * removing it changes the library kernel's SASS).
 */
#ifndef DEV_SNAPPY_PAIR_PARSE_H
#define DEV_SNAPPY_PAIR_PARSE_H

#include "../../../src/cuda/codecs/snappy/snappy_split_parse.h"

/* What oc_snaps_a_step returns when the next element is the second lane's
 * (a parse step's fourth exit, beside lz_split_rec.h's STEP, NEED, END). */
#ifndef OC_LZS_STOP
#define OC_LZS_STOP 3
#endif

/* Two lanes a chunk (bench/NOTES.md "v11").
 *
 * The library's walk (snappy_split_parse.h) is a chain of dependent loads and checks, one element
 * after the other, and the split decoder's call lasts as long as its
 * longest chunk's walk.  So a chunk (OC_SNAPS_SPLITS) is walked by two
 * lanes, each about half of it:
 *   - lane A walks from the start with oc_snaps_step's rules but stops
 *     before the first element at or after lim (first P0 = srcn / 2;
 *     oc_snaps_a_step), storing at most s->rmax records (the bottom of the
 *     slot, while B may still store into its top);
 *   - lane B walks from P0 as if an element started there
 *     (oc_snaps_b_step), with only the checks that need no absolute
 *     output position: header and literal bytes inside the input, offset
 *     not 0, its output relative to P0 within the capacity; the others
 *     (offset within the output so far, output within the declared
 *     length) are deferred: B keeps, per stretch between two log entries,
 *     the largest offset - relative position of its copies;
 *   - B logs its first OC_SNAPS_K element starts at which no literal waits
 *     for a copy (position, records and relative output there); before its
 *     log is full, a failed check means a wrong guess of the boundary and B
 *     restarts a byte later (OC_SNAPS_LEAD bytes, then a zone OC_SNAPS_JUMP
 *     further on, OC_SNAPS_TRIES restarts at most); after, B has failed;
 *     its records go to the slot's top, from OC_SNAPS_BASE(cap);
 *   - A walks on to each entry of B's log in turn (oc_snaps_find) until it
 *     stands on one with no literal waiting: from that element on the two
 *     walks are the same (the same bytes, the same rules);
 *   - once B has reached the end, oc_snaps_join settles what B deferred
 *     with the true output position and the record count: A's records
 *     then B's from the entry are the serial walk's, status OK.
 * In every other case (no entry matched, B failed, a deferred check fails,
 * too many records, a declared length above the capacity) A walks on
 * alone from where it stands, as the one-lane walk does, so statuses,
 * sizes and records never depend on B: B's work can only be discarded.
 * The driver is dev_lz_pair.cuh's oc_lzs_parse_pair (A and B in two warps
 * of one block); the library's host test (tests/c/test_snappy_split_core.c)
 * and fuzz target (fuzz_snappy_split_core) include this file and run both
 * lanes against the library's one-lane walk on every stream they have. */
#define OC_SNAPS_K 16       /* log entries (32 joined as often on the corpus sample, bench/NOTES.md "v11") */
#define OC_SNAPS_LEAD 32u   /* B's restarts one byte on, up to a zone's start + this */
#define OC_SNAPS_JUMP 1024u /* then a zone this much further */
#define OC_SNAPS_TRIES 128u /* B's restarts at most */
#define OC_SNAPS_MIN 4096u  /* inputs shorter than this are walked by A alone */
/* Whether a chunk is split: long enough, and not nearly incompressible (a
 * few long literals: A's walk is short, and B would search for element
 * starts inside a literal). */
#define OC_SNAPS_SPLITS(srcn, cap) ((srcn) >= OC_SNAPS_MIN && (srcn) <= (cap) - (cap) / 8)
#define OC_SNAPS_NONE (-0x40000000)
/* The second lane's records go to the top of the chunk's slot, from this
 * record on (the first lane's stay below it while the second walks). */
#define OC_SNAPS_BASE(cap) (OC_LZS_MAX_RECS(cap) / 2)

typedef struct oc_snaps_log {
    uint32_t ip, nrec, op; /* an element start with no literal waiting: B's records and output before it */
    int32_t seg;           /* max of offset - relative position of B's copies from here to the next entry */
} oc_snaps_log;

/* B's state. */
typedef struct oc_snaps_b {
    uint32_t ip, op, nrec; /* op relative to the walk's start */
    uint32_t start, zone;  /* where this attempt started; where its zone starts (first P0) */
    uint32_t tries;        /* restarts so far */
    uint32_t pend_src, pend_len;
    uint32_t nlog, lastlog; /* entries logged; the last logged position (+1, 0: none) */
    int32_t m;              /* max of offset - op since the last entry */
    int state;              /* 0 walking, 1 reached the end, 2 failed */
    int logged;             /* the log is final (full, or B ended) */
} oc_snaps_b;

OC_LZS_HD void oc_snaps_b_init(oc_snaps_b *b, uint32_t p0)
{
    b->ip = b->start = b->zone = p0;
    b->tries = 0;
    b->op = b->nrec = b->pend_src = b->pend_len = b->nlog = b->lastlog = 0;
    b->m = OC_SNAPS_NONE;
    b->state = 0;
    b->logged = 0;
}

/* B's end: the last entry's stretch closed. */
OC_LZS_HD int oc_snaps_b_end(oc_snaps_b *b, oc_snaps_log *log, int state)
{
    if (state == 1 && b->nlog)
        log[b->nlog - 1].seg = b->m;
    b->state = b->nlog ? state : 2;
    b->logged = 1;
    return OC_LZS_END;
}

/* A wrong guess of where an element starts: try one byte later, while the
 * log is not final; else B has failed. */
OC_LZS_HD int oc_snaps_b_die(oc_snaps_b *b, oc_snaps_log *log, uint32_t srcn)
{
    if (b->logged || ++b->tries > OC_SNAPS_TRIES)
        return oc_snaps_b_end(b, log, 2);
    if (++b->start > b->zone + OC_SNAPS_LEAD) { /* no element boundary found here: a zone further on */
        b->zone += OC_SNAPS_JUMP;
        b->start = b->zone;
        if (b->zone > srcn - srcn / 4)
            return oc_snaps_b_end(b, log, 2);
    }
    b->ip = b->start;
    b->op = b->nrec = b->pend_src = b->pend_len = b->nlog = b->lastlog = 0;
    b->m = OC_SNAPS_NONE;
    return OC_LZS_STEP;
}

/* B's step: up to OC_SNAPS_RUN elements (the window contract of
 * snappy_split_parse.h: bytes at or after b->ip below whi, else NEED). */
OC_LZS_HD int oc_snaps_b_step(oc_snaps_b *b, oc_snaps_log *log, const uint8_t *wp, uint32_t wshift,
                              uint32_t whi, uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
{
    for (int k = 0; k < OC_SNAPS_RUN; k++) {
        uint32_t ip = b->ip;
        if (ip >= srcn) { /* the end (elements never reach past it) */
            if (b->pend_len) {
                if (b->nrec >= OC_LZS_MAX_RECS(cap) - OC_SNAPS_BASE(cap))
                    return oc_snaps_b_end(b, log, 2);
#ifdef __CUDA_ARCH__
                *(uint4 *)(recs + b->nrec) = make_uint4(b->pend_src, b->pend_len, 0, 0);
#else
                oc_lzs_rec r = {b->pend_src, b->pend_len, 0, 0};
                recs[b->nrec] = r;
#endif
                b->nrec++;
                b->pend_len = 0;
            }
            return oc_snaps_b_end(b, log, 1);
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
            oc_snaps_log e = {ip, b->nrec, b->op, OC_SNAPS_NONE};
            log[b->nlog++] = e;
            b->lastlog = ip + 1;
            b->m = OC_SNAPS_NONE;
            if (b->nlog == OC_SNAPS_K)
                b->logged = 1;
        }
        uint32_t kind = tag & 3, t6 = tag >> 2, left = srcn - ip;
        uint32_t w = b1 | (b2 << 8) | (b3 << 16) | (b4 << 24);
        if (kind == 0) {
            uint32_t nb = t6 >= 60 ? t6 - 59 : 0;
            uint32_t lm1 = nb == 0 ? t6 : nb == 4 ? w : w & ((1u << (8 * nb)) - 1);
            uint32_t hdr = 1 + nb;
            if (hdr > left || lm1 >= left - hdr || lm1 >= cap - b->op) {
                if (oc_snaps_b_die(b, log, srcn) == OC_LZS_END)
                    return OC_LZS_END;
                return OC_LZS_STEP; /* the restart reads from its own position: the window may not hold it */
            }
            if (b->pend_len) {
                if (b->nrec >= OC_LZS_MAX_RECS(cap) - OC_SNAPS_BASE(cap))
                    return oc_snaps_b_end(b, log, 2);
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
                if (oc_snaps_b_die(b, log, srcn) == OC_LZS_END)
                    return OC_LZS_END;
                return OC_LZS_STEP;
            }
            if (b->nrec >= OC_LZS_MAX_RECS(cap) - OC_SNAPS_BASE(cap))
                return oc_snaps_b_end(b, log, 2);
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
OC_LZS_HD int oc_snaps_a_step(oc_snaps_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
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
OC_LZS_HD int oc_snaps_find(const oc_snaps_st *s, const oc_snaps_log *log, uint32_t nlog, uint32_t *j,
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
OC_LZS_HD int oc_snaps_join(oc_snaps_st *s, const oc_snaps_log *log, uint32_t nlog, uint32_t j, uint32_t b_op,
                            uint32_t b_nrec, uint32_t cap)
{
    int32_t need = OC_SNAPS_NONE;
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

#endif /* DEV_SNAPPY_PAIR_PARSE_H */
