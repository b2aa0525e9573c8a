/*
 * dev_lz_split_pp.h - a parallel parse for the split decoder (v7b, an
 * experiment, bench/NOTES.md "v7"): the serial walk of dev_lz_split_parse.h
 * is the wall at 1-4 MiB chunks (one lane walks 4 MiB), so here a chunk's
 * input is cut into OC_PP_SEG-byte segments and
 *   A. a thread per segment walks speculatively from the segment's first
 *      byte (segment 0 from the true start) until an element starts at or
 *      past the segment's end, recording each element's start, output
 *      length before it and record; a wrong start lands on the true chain
 *      after a few elements as a rule (both then walk the same bytes);
 *   B. a thread per chunk joins the segments in order: the true chain
 *      enters segment k where segment k - 1's walk left; if the walk of
 *      segment k visited that position, its records from there on are the
 *      true ones, else the segment is walked again from there (serially);
 *   C. a thread per segment checks what depends on the output position
 *      (offset within the output, lengths within the capacity) and packs
 *      its true records into the chunk's contiguous list;
 *   D. a thread per chunk checks the end of the stream, and any chunk with
 *      any doubt (a failed check anywhere on the chain, a walk that died
 *      on it) is parsed again serially (oc_split_parse_*), so every status
 *      is the serial parse's.
 * Records here are one per element also for Snappy (a literal element is
 * a record without match, a copy one without literal).  Plain C (the CPU
 * check runs A-D as loops) and CUDA.
 */
#ifndef OC_DEV_LZ_SPLIT_PP_H
#define OC_DEV_LZ_SPLIT_PP_H

#include "dev_lz_split_parse.h"

#ifndef OC_PP_SEG
#define OC_PP_SEG 4096u /* input bytes per segment (-D to try others: v15's parse share) */
#endif
#define OC_PP_SEG_RECS (OC_PP_SEG / 2 + 2) /* record slots per segment */
#ifndef OC_PP_LEAD
#define OC_PP_LEAD                                                                                           \
    512u /* a walk starts this far before its segment, so that it has joined the true chain there */
#endif

/* Per segment: the walk's results (A, B) and the join's (B, C). */
typedef struct oc_pp_seg {
    uint32_t n;        /* records walked */
    uint32_t exit;     /* input position after the last element walked */
    uint32_t total;    /* output bytes of the n records */
    uint32_t dead;     /* the walk stopped on an element that cannot be */
    uint32_t first;    /* B: first true record (n: none) */
    uint32_t out_base; /* B: output position of record `first` */
    uint32_t rec_base; /* B: index of record `first` in the chunk's list */
    uint32_t pad;
} oc_pp_seg;

/* Per chunk (B, D). */
typedef struct oc_pp_chunk {
    uint32_t start; /* first element (after Snappy's preamble) */
    uint32_t ulen;  /* Snappy's declared length */
    uint32_t nrec;  /* true records */
    uint32_t out;   /* output bytes */
    uint32_t doubt; /* 1: parse serially in D */
    uint32_t pad[3];
} oc_pp_chunk;

/* A's walk (B walks again with it): elements from `at` while they start
 * below `hi`; a structurally impossible element (cut, offset 0, longer
 * than the capacity) stops it with dead = 1.  recs/pos/cum: the segment's
 * slots. */
OC_SPLIT_FN void oc_pp_walk(int snappy, const uint8_t *src, size_t srcn, size_t cap, size_t at, size_t lo,
                            size_t hi, oc_split_rec *recs, uint32_t *pos, uint32_t *cum, oc_pp_seg *sg)
{
    size_t ip = at, n = 0, s = at;
    uint64_t out = 0;
    uint32_t dead = 0;
again:
    while (ip < hi) {
        oc_split_ahead(src, srcn, ip);
        s = ip;
        uint32_t ls = 0, ll = 0, mo = 0, ml = 0;
        if (!snappy) {
            uint32_t token = OC_SPLIT_LD(src + ip);
            ip++;
            size_t lit = token >> 4;
            if (lit == 15) {
                uint32_t b;
                do {
                    if (ip >= srcn) {
                        dead = 1;
                        break;
                    }
                    b = OC_SPLIT_LD(src + ip);
                    ip++;
                    lit += b;
                } while (b == 255);
                if (dead)
                    break;
            }
            if (lit > srcn - ip || lit > cap) {
                dead = 1;
                break;
            }
            ls = (uint32_t)ip;
            ll = (uint32_t)lit;
            ip += lit;
            if (ip < srcn) {
                if (srcn - ip < 2) {
                    dead = 1;
                    break;
                }
                mo = (uint32_t)OC_SPLIT_LD(src + ip) | ((uint32_t)OC_SPLIT_LD(src + ip + 1) << 8);
                ip += 2;
                size_t m = token & 15;
                if (m == 15) {
                    uint32_t b;
                    do {
                        if (ip >= srcn) {
                            dead = 1;
                            break;
                        }
                        b = OC_SPLIT_LD(src + ip);
                        ip++;
                        m += b;
                    } while (b == 255);
                    if (dead)
                        break;
                }
                m += 4;
                if (mo == 0 || m > cap || ip >= srcn) {
                    dead = 1;
                    break;
                }
                ml = (uint32_t)m;
            }
        } else {
            uint32_t tag = OC_SPLIT_LD(src + ip);
            uint32_t kind = tag & 3;
            if (kind == 0) {
                size_t lit = (tag >> 2) + 1, hdr = 1;
                if (lit > 60) {
                    size_t nb = lit - 60;
                    hdr = 1 + nb;
                    if (srcn - ip < hdr) {
                        dead = 1;
                        break;
                    }
                    uint32_t w = 0;
                    for (size_t j = 0; j < nb; j++)
                        w |= (uint32_t)OC_SPLIT_LD(src + ip + 1 + j) << (8 * j);
                    lit = (size_t)w + 1;
                }
                if (ip + hdr + lit > srcn || lit > cap) {
                    dead = 1;
                    break;
                }
                ls = (uint32_t)(ip + hdr);
                ll = (uint32_t)lit;
                ip += hdr + lit;
            } else {
                size_t hdr = kind == 1 ? 2 : kind == 2 ? 3 : 5;
                if (srcn - ip < hdr) {
                    dead = 1;
                    break;
                }
                if (kind == 1) {
                    ml = ((tag >> 2) & 7) + 4;
                    mo = ((tag >> 5) << 8) | OC_SPLIT_LD(src + ip + 1);
                } else {
                    ml = (tag >> 2) + 1;
                    mo = (uint32_t)OC_SPLIT_LD(src + ip + 1) | ((uint32_t)OC_SPLIT_LD(src + ip + 2) << 8);
                    if (kind == 3)
                        mo |= ((uint32_t)OC_SPLIT_LD(src + ip + 3) << 16) |
                              ((uint32_t)OC_SPLIT_LD(src + ip + 4) << 24);
                }
                if (mo == 0) {
                    dead = 1;
                    break;
                }
                ip += hdr;
            }
        }
        if (s < lo) /* the lead-in before the segment: walked, not recorded */
            continue;
        if (out + ll + ml > 0xffffffffu) { /* no true chain gets here (cap < 2^32) */
            dead = 1;
            break;
        }
        pos[n] = (uint32_t)s;
        cum[n] = (uint32_t)out;
        size_t k = n;
        oc_split_put(recs, &k, ls, ll, mo, ml);
        n++;
        out += (uint64_t)ll + ml;
    }
    if (dead && s < lo) { /* a wrong start in the lead-in: try the next byte */
        dead = 0;
        ip = s + 1;
        goto again;
    }
    sg->n = (uint32_t)n;
    sg->exit = (uint32_t)ip;
    sg->total = (uint32_t)out;
    sg->dead = dead;
}

/* Segments of a chunk of srcn input bytes (at least one). */
OC_SPLIT_HD size_t oc_pp_nsegs(size_t srcn)
{
    return srcn ? (srcn + OC_PP_SEG - 1) / OC_PP_SEG : 1;
}

/* Snappy's preamble (the serial parse's rules); 0 = doubt. */
OC_SPLIT_FN int oc_pp_preamble(const uint8_t *src, size_t srcn, size_t cap, uint32_t *start, uint32_t *ulen)
{
    uint64_t v = 0;
    size_t ip = 0;
    for (;;) {
        if (ip >= srcn || ip == 5)
            return 0;
        uint32_t c = OC_SPLIT_LD(src + ip);
        v |= (uint64_t)(c & 0x7f) << (7 * ip);
        ip++;
        if (!(c & 0x80))
            break;
    }
    if (v > 0xffffffffu || v > cap)
        return 0;
    *start = (uint32_t)ip;
    *ulen = (uint32_t)v;
    return 1;
}

/* A: segment k of a chunk (its slots at recs/pos/cum + k * OC_PP_SEG_RECS).
 * Segment 0 starts at the true start (after the preamble); a chunk whose
 * preamble fails is left to D (doubt, set by B). */
OC_SPLIT_FN void oc_pp_pass_a(int snappy, const uint8_t *src, size_t srcn, size_t cap, size_t k,
                              oc_split_rec *recs, uint32_t *pos, uint32_t *cum, oc_pp_seg *sg)
{
    size_t lo = k * OC_PP_SEG, hi = lo + OC_PP_SEG < srcn ? lo + OC_PP_SEG : srcn;
    if (k == 0 && snappy) {
        uint32_t start = 0, ulen = 0;
        if (!oc_pp_preamble(src, srcn, cap, &start, &ulen)) {
            sg->n = 0, sg->exit = 0, sg->total = 0, sg->dead = 1;
            return;
        }
        lo = start;
    }
    size_t at = k == 0 ? lo : lo > OC_PP_LEAD ? lo - OC_PP_LEAD : 0;
    oc_pp_walk(snappy, src, srcn, cap, at, lo, hi, recs, pos, cum, sg);
}

/* B: the join, one chunk, its nseg segments in order. */
OC_SPLIT_FN void oc_pp_pass_b(int snappy, const uint8_t *src, size_t srcn, size_t cap, size_t nseg,
                              oc_split_rec *recs, uint32_t *pos, uint32_t *cum, oc_pp_seg *segs,
                              oc_pp_chunk *ch)
{
    uint32_t start = 0, ulen = 0;
    ch->doubt = 0;
    ch->nrec = 0;
    ch->out = 0;
    if (snappy ? !oc_pp_preamble(src, srcn, cap, &start, &ulen) : srcn == 0) {
        ch->doubt = 1;
        return;
    }
    ch->start = start;
    ch->ulen = ulen;
    size_t e = start;
    uint64_t out = 0, nrec = 0;
    int ended = srcn == start; /* Snappy: nothing after the preamble */
    for (size_t k = 0; k < nseg; k++) {
        oc_pp_seg *sg = segs + k;
        size_t hi = (k + 1) * OC_PP_SEG < srcn ? (k + 1) * OC_PP_SEG : srcn;
        uint32_t *kp = pos + k * OC_PP_SEG_RECS;
        sg->first = sg->n;
        sg->out_base = (uint32_t)out;
        sg->rec_base = (uint32_t)nrec;
        if (ended || e >= hi)
            continue;
        /* the walk's element that starts at e, if any */
        size_t a = 0, b = sg->n;
        while (a < b) {
            size_t m = (a + b) / 2;
            if (kp[m] < e)
                a = m + 1;
            else
                b = m;
        }
        if (a == sg->n || kp[a] != e) {
#ifdef OC_PP_REWALKS
            OC_PP_REWALKS++;
#endif
            oc_pp_walk(snappy, src, srcn, cap, e, e, hi, recs + k * OC_PP_SEG_RECS, kp,
                       cum + k * OC_PP_SEG_RECS, sg);
            a = 0;
        }
        if (sg->dead) {
            ch->doubt = 1;
            return;
        }
        sg->first = (uint32_t)a;
        out += sg->total - cum[k * OC_PP_SEG_RECS + a];
        nrec += sg->n - a;
        e = sg->exit;
        if (e >= srcn) {
            ended = 1;
            /* LZ4: the last sequence holds literals only */
            if (!snappy && (sg->n == 0 || recs[k * OC_PP_SEG_RECS + sg->n - 1].m_len != 0)) {
                ch->doubt = 1;
                return;
            }
        }
    }
    if (!ended || out > cap) {
        ch->doubt = 1;
        return;
    }
    ch->nrec = (uint32_t)nrec;
    ch->out = (uint32_t)out;
}

/* C: segment k's true records, checked at their output positions and
 * packed into the chunk's list (dst_recs: the chunk's contiguous list). */
OC_SPLIT_FN void oc_pp_pass_c(int snappy, size_t cap, size_t k, const oc_split_rec *recs, const oc_pp_seg *sg,
                              oc_pp_chunk *ch, oc_split_rec *dst_recs)
{
    if (ch->doubt)
        return;
    uint64_t op = sg->out_base, lim = snappy ? ch->ulen : cap;
    const oc_split_rec *r = recs + k * OC_PP_SEG_RECS;
    size_t w = sg->rec_base;
    for (uint32_t i = sg->first; i < sg->n; i++) {
        oc_split_rec x = r[i];
        if (x.lit_len > lim - op) {
            ch->doubt = 1; /* every writer writes 1 */
            return;
        }
        op += x.lit_len;
        if (x.m_len && (x.m_off > op || x.m_len > lim - op)) {
            ch->doubt = 1;
            return;
        }
        op += x.m_len;
        oc_split_put(dst_recs, &w, x.lit_src, x.lit_len, x.m_off, x.m_len);
    }
}

/* D: the end of the stream, or the serial parse for a chunk in doubt.
 * Returns the status; *nrec and *outn as oc_split_parse_* give them. */
OC_SPLIT_FN int oc_pp_pass_d(int snappy, const uint8_t *src, size_t srcn, size_t cap, const oc_pp_chunk *ch,
                             oc_split_rec *dst_recs, size_t *nrec, size_t *outn)
{
    int ok = !ch->doubt;
    if (ok && snappy) {
        ok = ch->out == ch->ulen;
    } else if (ok) { /* LZ4's end-of-block rules (oc_lz4_end_rules) */
        uint64_t op = ch->out;
        if (op == 0)
            ok = srcn == 1 && OC_SPLIT_LD(src) == 0;
        else if (ch->nrec >= 2) {
            uint64_t last_me = op - dst_recs[ch->nrec - 1].lit_len;
            uint64_t last_ms = last_me - dst_recs[ch->nrec - 2].m_len;
            ok = op - last_me >= 5 && op - last_ms >= 12;
        }
    }
    if (ok) {
        *nrec = ch->nrec;
        *outn = ch->out;
        return OC_SPLIT_OK;
    }
    return snappy ? oc_split_parse_snappy(src, srcn, cap, dst_recs, nrec, outn)
                  : oc_split_parse_lz4(src, srcn, cap, dst_recs, nrec, outn);
}

#endif /* OC_DEV_LZ_SPLIT_PP_H */
