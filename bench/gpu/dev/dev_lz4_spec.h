/*
 * dev_lz4_spec.h - v11 for LZ4 (issue 13, bench/NOTES.md "v11: LZ4"): the
 * two-lane walk of snappy_split_parse.h ("Two lanes a chunk") with LZ4's
 * sequences, host C first (lz4_spec_cpu_check.c) to see whether LZ4 blocks
 * join as often as Snappy's do.  Host C and CUDA.
 *
 * Lane A walks from the start with the library's step (lz4_split_parse.h)
 * and stops before the first sequence at or after lim.  Lane B walks from
 * P0 = srcn / 2 as if a sequence started there, with the checks that need
 * no absolute output position (lengths and offsets inside the input, offset
 * not 0, not ending on a match, its relative output within the capacity),
 * deferring the others (offset within the output so far: the largest
 * offset - relative match start per stretch between log entries; output
 * within the capacity: the final output, as lengths only add), and logs its
 * first OC_L4S_K sequence starts (position, records, relative output).  A
 * wrong guess (a failed check before the log is full) restarts B a byte
 * later, as for Snappy.  At the join, LZ4's end-of-block rules (the last
 * match at least 12 bytes from the end and its end at least 5) take the
 * last match after the joining entry from B, else A's.  Everything else:
 * A walks on alone, so statuses and records are the one-lane walk's.
 */
#ifndef DEV_LZ4_SPEC_H
#define DEV_LZ4_SPEC_H

#include "../../../src/cuda/codecs/lz4/lz4_split_parse.h"

#ifndef OC_LZS_STOP
#define OC_LZS_STOP 3 /* A's step: the next sequence starts at or after lim */
#endif

#define OC_L4S_K 64 /* log entries: 16, 32, 64 joined 91.5%, 95.8%, 98.5% of the sample's 64 KiB chunks */
#define OC_L4S_LEAD 32u
#define OC_L4S_JUMP 1024u
#define OC_L4S_TRIES 128u
#define OC_L4S_MIN 4096u
#define OC_L4S_SPLITS(srcn, cap) ((srcn) >= OC_L4S_MIN && (srcn) <= (cap) - (cap) / 8)
#define OC_L4S_NONE (-0x40000000)
#define OC_L4S_BASE(cap) (OC_LZS_MAX_RECS(cap) / 2)

typedef struct oc_l4s_log {
    uint32_t ip, nrec, op;
    int32_t seg;
} oc_l4s_log;

typedef struct oc_l4s_b {
    uint32_t ip, op, nrec, start, zone, tries, nlog;
    uint32_t last_ms, last_me, any_match; /* relative */
    int32_t m;
    int state, logged;
} oc_l4s_b;

OC_LZS_HD void oc_l4s_b_init(oc_l4s_b *b, uint32_t p0)
{
    b->ip = b->start = b->zone = p0;
    b->op = b->nrec = b->tries = b->nlog = b->last_ms = b->last_me = b->any_match = 0;
    b->m = OC_L4S_NONE;
    b->state = b->logged = 0;
}

OC_LZS_HD int oc_l4s_b_end(oc_l4s_b *b, oc_l4s_log *log, int state)
{
    if (state == 1 && b->nlog)
        log[b->nlog - 1].seg = b->m;
    b->state = b->nlog ? state : 2;
    b->logged = 1;
    return OC_LZS_END;
}

OC_LZS_HD int oc_l4s_b_die(oc_l4s_b *b, oc_l4s_log *log, uint32_t srcn)
{
    if (b->logged || ++b->tries > OC_L4S_TRIES)
        return oc_l4s_b_end(b, log, 2);
    if (++b->start > b->zone + OC_L4S_LEAD) {
        b->zone += OC_L4S_JUMP;
        b->start = b->zone;
        if (b->zone > srcn - srcn / 4)
            return oc_l4s_b_end(b, log, 2);
    }
    b->ip = b->start;
    b->op = b->nrec = b->nlog = b->last_ms = b->last_me = b->any_match = 0;
    b->m = OC_L4S_NONE;
    return OC_LZS_STEP;
}

/* B's step: one sequence (NEED with the state at its start when a byte is
 * past the window, which holds [wshift, whi)). */
OC_LZS_HD int oc_l4s_b_step(oc_l4s_b *b, oc_l4s_log *log, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                            uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
{
    uint32_t ip = b->ip, wl = whi - wshift;
#define L4S_GET(v_, p_)                                                                                      \
    do {                                                                                                     \
        if ((uint32_t)((p_)-wshift) >= wl)                                                                   \
            return OC_LZS_NEED;                                                                              \
        (v_) = wp[(uint32_t)((p_)-wshift)];                                                                  \
    } while (0)
    if (ip >= srcn) /* ended on a match: not a block's end */
        return oc_l4s_b_die(b, log, srcn);
    uint32_t token, t;
    L4S_GET(token, ip);
    uint32_t p = ip + 1, lit = token >> 4;
    if (lit == 15) {
        do {
            if (p >= srcn)
                return oc_l4s_b_die(b, log, srcn);
            L4S_GET(t, p);
            p++;
            lit += t;
            lit = lit < OC_LZS_SAT ? lit : OC_LZS_SAT;
        } while (t == 255);
    }
    if (lit > srcn - p || lit > cap - b->op)
        return oc_l4s_b_die(b, log, srcn);
    uint32_t lit_src = p;
    p += lit;
    if (!b->logged && (b->nlog == 0 || log[b->nlog - 1].ip != ip)) { /* an entry: a sequence start */
        if (b->nlog)
            log[b->nlog - 1].seg = b->m;
        oc_l4s_log e = {ip, b->nrec, b->op, OC_L4S_NONE};
        log[b->nlog++] = e;
        b->m = OC_L4S_NONE;
        if (b->nlog == OC_L4S_K)
            b->logged = 1;
    }
    if (p == srcn) { /* the last sequence */
        if (b->nrec >= OC_LZS_MAX_RECS(cap) - OC_L4S_BASE(cap))
            return oc_l4s_b_end(b, log, 2);
        oc_lz4s_st tmp;
        tmp.nrec = b->nrec;
        oc_lz4s_put(recs, &tmp, lit_src, lit, 0, 0);
        b->nrec++;
        b->op += lit;
        b->ip = p;
        return oc_l4s_b_end(b, log, 1);
    }
    if (srcn - p < 2)
        return oc_l4s_b_die(b, log, srcn);
    uint32_t b0, b1;
    L4S_GET(b0, p);
    L4S_GET(b1, p + 1);
    uint32_t off = b0 | (b1 << 8);
    p += 2;
    uint32_t ml = token & 15;
    if (ml == 15) {
        do {
            if (p >= srcn)
                return oc_l4s_b_die(b, log, srcn);
            L4S_GET(t, p);
            p++;
            ml += t;
            ml = ml < OC_LZS_SAT ? ml : OC_LZS_SAT;
        } while (t == 255);
    }
    ml += 4;
    uint32_t mo = b->op + lit;
    if (off == 0 || ml > cap - mo || p >= srcn)
        return oc_l4s_b_die(b, log, srcn);
    if (b->nrec >= OC_LZS_MAX_RECS(cap) - OC_L4S_BASE(cap))
        return oc_l4s_b_end(b, log, 2);
    int32_t d = (int32_t)off - (int32_t)mo;
    b->m = d > b->m ? d : b->m;
    oc_lz4s_st tmp;
    tmp.nrec = b->nrec;
    oc_lz4s_put(recs, &tmp, lit_src, lit, off, ml);
    b->nrec++;
    b->last_ms = mo;
    b->last_me = mo + ml;
    b->any_match = 1;
    b->op = mo + ml;
    b->ip = p;
    return OC_LZS_STEP;
#undef L4S_GET
}

/* A's step: the library's, but no sequence starting at or after lim. */
OC_LZS_HD int oc_l4s_a_step(oc_lz4s_st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi, uint32_t srcn,
                            uint32_t cap, oc_lzs_rec *recs, uint32_t lim)
{
    if (s->phase == 0 && s->ip >= lim)
        return OC_LZS_STOP;
    return oc_lz4s_step(s, wp, wshift, whi, srcn, cap, recs);
}

OC_LZS_HD int oc_l4s_find(const oc_lz4s_st *s, const oc_l4s_log *log, uint32_t nlog, uint32_t *j,
                          uint32_t *lim)
{
    uint32_t k = *j;
    while (k < nlog && log[k].ip < s->ip)
        k++;
    *j = k;
    if (k >= nlog)
        return -1;
    if (log[k].ip == s->ip)
        return 1;
    *lim = log[k].ip;
    return 0;
}

/* The join at entry j, B having reached the block's end (b: its final
 * state): 1 when every deferred check holds (s then final, OK). */
OC_LZS_HD int oc_l4s_join(oc_lz4s_st *s, const oc_l4s_log *log, uint32_t nlog, uint32_t j, const oc_l4s_b *b,
                          uint32_t cap)
{
    int32_t need = OC_L4S_NONE;
    for (uint32_t k = j; k < nlog; k++)
        need = log[k].seg > need ? log[k].seg : need;
    uint32_t more = b->op - log[j].op, recs = b->nrec - log[j].nrec;
    if (need > (int32_t)s->op - (int32_t)log[j].op || more > cap - s->op ||
        recs > OC_LZS_MAX_RECS(cap) - s->nrec)
        return 0;
    uint32_t end = s->op + more, any = s->any_match, ms = s->last_ms, me = s->last_me;
    if (b->any_match && b->last_ms >= log[j].op) { /* B's last match lies after the entry */
        any = 1;
        ms = s->op + (b->last_ms - log[j].op);
        me = s->op + (b->last_me - log[j].op);
    }
    if (end == 0 || (any && (end - me < 5 || end - ms < 12)))
        return 0;
    s->op = end;
    s->nrec += recs;
    s->ip = 0xffffffffu;
    s->status = OC_LZS_OK;
    return 1;
}

#endif /* DEV_LZ4_SPEC_H */
