/*
 * gdeflate_dec.c - the GDeflate page decoder (gdeflate_core.h), one lane
 * at a time in the order the format's 32-lane decoder visits them, so that
 * the word stream is consumed exactly as the specification serialises it.
 *
 * Lengths and distances are GDeflate's (deflate_tables.h: symbol 285 is
 * 3 + 16 extra bits, distance symbols 30-31 are Deflate64's), so a match
 * may be up to 65538 bytes long and reach back up to 65536 bytes.
 *
 * Safety: every word is read with a bound check (past src's end a word is
 * zero and its bits are counted as absent: consuming one is TRUNCATED);
 * code lengths, Huffman codes, lengths and distances are checked before
 * use; a match is placed (its room checked against the output) when its
 * length is read and copied when its lane comes round again, from bytes
 * that are all written by then (docs/FORMAT.md, "GDeflate").  Huffman
 * tables are flat (2^longest-code entries), built per block.
 */
#include <string.h>

#include "../../../common/deflate_tables.h"
#include "gdeflate_core.h"

/* One lane's bit buffer: `cnt` bits buffered, of which the low `real`
 * come from src (the rest are the zeros loaded past its end). */
typedef struct gd_reader {
    uint64_t buf[GD_LANES];
    uint32_t cnt[GD_LANES];
    uint32_t real[GD_LANES];
    const uint8_t *src;
    size_t n, pos;
} gd_reader;

/* Refill lane t from the shared word stream while it holds under 32 bits. */
static inline void gd_ensure(gd_reader *r, unsigned t)
{
    if (r->cnt[t] >= 32)
        return;
    uint32_t w = 0, have = 0;
    if (r->pos < r->n) {
        size_t left = r->n - r->pos;
        if (left >= 4) {
            w = oc_load_le32(r->src + r->pos);
            have = 32;
        } else {
            for (size_t i = 0; i < left; i++)
                w |= (uint32_t)r->src[r->pos + i] << (8 * i);
            have = (uint32_t)left * 8;
        }
    }
    if (r->real[t] == r->cnt[t]) /* real bits stay contiguous from the bottom */
        r->real[t] += have;
    r->buf[t] |= (uint64_t)w << r->cnt[t];
    r->cnt[t] += 32;
    if (r->pos <= r->n)
        r->pos += 4;
}

/* Removes n (<= 32, <= cnt by construction) bits of lane t; TRUNCATED when
 * one of them lies past the end of src. */
static inline oc_status gd_pop(gd_reader *r, unsigned t, unsigned n, uint32_t *v)
{
    SAFETY_CHECK(n <= r->real[t], OC_ERR_TRUNCATED);
    *v = (uint32_t)(r->buf[t] & (((uint64_t)1 << n) - 1));
    r->buf[t] >>= n;
    r->cnt[t] -= n;
    r->real[t] -= n;
    return OC_OK;
}

/* Builds a flat decode table of `nsym` code lengths: entries (sym | len <<
 * 9), 0 where no code maps.  *bits = the longest length (0: no codes).
 * Over-subscribed codes are CORRUPT; an incomplete code only when empty or
 * a single codeword of one bit (RFC 1951 3.2.7's one distance code). */
static oc_status gd_build(const uint8_t *lens, unsigned nsym, uint16_t *table, unsigned *bits)
{
    unsigned count[16] = {0};
    for (unsigned s = 0; s < nsym; s++)
        count[lens[s]]++;
    count[0] = 0;
    unsigned maxlen = 0, used = 0;
    int32_t left = 1;
    for (unsigned l = 1; l <= 15; l++) {
        left = left * 2 - (int32_t)count[l];
        SAFETY_CHECK(left >= 0, OC_ERR_CORRUPT);
        if (count[l])
            maxlen = l;
        used += count[l];
    }
    SAFETY_CHECK(left == 0 || used == 0 || (used == 1 && count[1] == 1), OC_ERR_CORRUPT);
    *bits = maxlen;
    size_t size = (size_t)1 << maxlen;
    memset(table, 0, size * sizeof *table);
    unsigned next[16], code = 0; /* next[l]: the next canonical code of length l */
    for (unsigned l = 1; l <= 15; l++) {
        next[l] = code;
        code = (code + count[l]) << 1;
    }
    for (unsigned s = 0; s < nsym; s++) {
        unsigned l = lens[s];
        if (!l)
            continue;
        unsigned c = next[l]++, rev = 0;
        for (unsigned i = 0; i < l; i++)
            rev |= ((c >> i) & 1u) << (l - 1 - i);
        for (size_t e = rev; e < size; e += (size_t)1 << l)
            table[e] = (uint16_t)(s | l << 9);
    }
    return OC_OK;
}

/* Decodes one symbol of lane t with `table` (bits wide). */
static inline oc_status gd_decode_sym(gd_reader *r, unsigned t, const uint16_t *table, unsigned bits,
                                      unsigned *sym)
{
    SAFETY_CHECK(bits > 0, OC_ERR_CORRUPT); /* an empty code used */
    uint16_t e = table[r->buf[t] & (((uint64_t)1 << bits) - 1)];
    SAFETY_CHECK(e != 0, OC_ERR_CORRUPT); /* no codeword (incomplete code) */
    uint32_t unused;
    FORWARD_IF_ERROR(gd_pop(r, t, e >> 9, &unused));
    *sym = e & 0x1ffu;
    return OC_OK;
}

/* A match placed by lane t's length code, copied at its next visit. */
typedef struct gd_pending {
    size_t at[GD_LANES];
    uint32_t len[GD_LANES];
    uint32_t mask; /* bit t: lane t has one */
} gd_pending;

/* Lane t reads its distance and copies its pending match. */
static oc_status gd_copy(gd_reader *r, unsigned t, gd_pending *p, const uint16_t *dtab, unsigned dbits,
                         uint8_t *dst)
{
    unsigned sym;
    uint32_t extra;
    FORWARD_IF_ERROR(gd_decode_sym(r, t, dtab, dbits, &sym)); /* < 32: the code has at most 32 symbols */
    FORWARD_IF_ERROR(gd_pop(r, t, gdeflate_dist_extra[sym], &extra));
    size_t dist = (size_t)gdeflate_dist_base[sym] + extra, at = p->at[t];
    SAFETY_CHECK(dist <= at, OC_ERR_CORRUPT); /* before the start of the page */
    if (dst) {
        uint8_t *o = dst + at;
        const uint8_t *s = o - dist;
        for (uint32_t i = 0; i < p->len[t]; i++)
            o[i] = s[i]; /* forward, byte by byte: overlapping copies repeat */
    }
    p->mask &= ~(1u << t);
    return OC_OK;
}

/* The code lengths of a dynamic block: header, precode, run-length coded
 * lengths (lane 0, then round-robin from lane 0). */
static oc_status gd_dynamic_lens(gd_reader *r, gd_dec_ws *ws, unsigned *nlit, unsigned *ndist)
{
    uint32_t hlit, hdist, hclen, v;
    FORWARD_IF_ERROR(gd_pop(r, 0, 5, &hlit));
    FORWARD_IF_ERROR(gd_pop(r, 0, 5, &hdist));
    FORWARD_IF_ERROR(gd_pop(r, 0, 4, &hclen));
    gd_ensure(r, 0);
    *nlit = hlit + 257;
    *ndist = hdist + 1;
    uint8_t pre[19] = {0};
    for (unsigned i = 0; i < hclen + 4; i++) {
        FORWARD_IF_ERROR(gd_pop(r, i, 3, &v));
        pre[rfc1951_precode_order[i]] = (uint8_t)v;
        gd_ensure(r, i);
    }
    unsigned pbits;
    FORWARD_IF_ERROR(gd_build(pre, 19, ws->litlen, &pbits));
    unsigned total = *nlit + *ndist, i = 0, t = 0;
    while (i < total) {
        unsigned sym, rep;
        uint8_t val;
        FORWARD_IF_ERROR(gd_decode_sym(r, t, ws->litlen, pbits, &sym));
        if (sym < 16) {
            rep = 1;
            val = (uint8_t)sym;
        } else if (sym == 16) {
            SAFETY_CHECK(i > 0, OC_ERR_CORRUPT); /* nothing to repeat */
            FORWARD_IF_ERROR(gd_pop(r, t, 2, &v));
            rep = 3 + v;
            val = ws->lens[i - 1];
        } else if (sym == 17) {
            FORWARD_IF_ERROR(gd_pop(r, t, 3, &v));
            rep = 3 + v;
            val = 0;
        } else {
            FORWARD_IF_ERROR(gd_pop(r, t, 7, &v));
            rep = 11 + v;
            val = 0;
        }
        SAFETY_CHECK(rep <= total - i, OC_ERR_CORRUPT); /* a run past the last length */
        memset(ws->lens + i, val, rep);
        i += rep;
        gd_ensure(r, t);
        t = (t + 1) % GD_LANES;
    }
    return OC_OK;
}

oc_status gd_decode(gd_dec_ws *ws, const uint8_t *src, size_t n, uint8_t *dst, size_t cap, size_t *out)
{
    gd_reader r;
    memset(&r, 0, sizeof r);
    r.src = src;
    r.n = n;
    for (unsigned t = 0; t < GD_LANES; t++)
        gd_ensure(&r, t);
    if (!dst)
        cap = SIZE_MAX;
    size_t pos = 0;
    uint32_t final = 0;
    *out = 0;
    while (!final) {
        uint32_t type, v;
        FORWARD_IF_ERROR(gd_pop(&r, 0, 1, &final));
        FORWARD_IF_ERROR(gd_pop(&r, 0, 2, &type));
        gd_ensure(&r, 0);
        unsigned t = 0;
        gd_pending p;
        p.mask = 0;
        unsigned lbits = 0, dbits = 0;
        const uint16_t *ltab = ws->litlen, *dtab = ws->dist;
        if (type == 0) { /* stored: LEN (16 bits, lane 0), then bytes round-robin from lane 0 */
            FORWARD_IF_ERROR(gd_pop(&r, 0, 16, &v));
            SAFETY_CHECK(v <= cap - pos, OC_ERR_OUTPUT_TOO_SMALL);
            for (uint32_t i = 0; i < v; i++) {
                uint32_t byte;
                FORWARD_IF_ERROR(gd_pop(&r, t, 8, &byte));
                if (dst)
                    dst[pos] = (uint8_t)byte;
                pos++;
                gd_ensure(&r, t);
                t = (t + 1) % GD_LANES;
            }
        } else {
            SAFETY_CHECK(type != 3, OC_ERR_CORRUPT);
            unsigned nlit = 288, ndist = 32;
            if (type == 2) {
                FORWARD_IF_ERROR(gd_dynamic_lens(&r, ws, &nlit, &ndist));
            } else {
                memset(ws->lens, 8, 144);
                memset(ws->lens + 144, 9, 112);
                memset(ws->lens + 256, 7, 24);
                memset(ws->lens + 280, 8, 8);
                memset(ws->lens + 288, 5, 32);
            }
            FORWARD_IF_ERROR(gd_build(ws->lens, nlit, ws->litlen, &lbits));
            FORWARD_IF_ERROR(gd_build(ws->lens + nlit, ndist, ws->dist, &dbits));
            for (;;) { /* one visit of lane t a step */
                if (p.mask & (1u << t)) {
                    FORWARD_IF_ERROR(gd_copy(&r, t, &p, dtab, dbits, dst));
                } else {
                    unsigned sym;
                    FORWARD_IF_ERROR(gd_decode_sym(&r, t, ltab, lbits, &sym));
                    if (sym < 256) {
                        SAFETY_CHECK(pos < cap, OC_ERR_OUTPUT_TOO_SMALL);
                        if (dst)
                            dst[pos] = (uint8_t)sym;
                        pos++;
                    } else if (sym == 256) {
                        break; /* end of block: this lane's refill comes in the last round */
                    } else {
                        SAFETY_CHECK(sym < 286, OC_ERR_CORRUPT);
                        /* 285: 3 + 16 extra bits (a visit then takes at most 15 + 16 bits) */
                        FORWARD_IF_ERROR(gd_pop(&r, t, gdeflate_len_extra[sym - 257], &v));
                        uint32_t len = gdeflate_len_base[sym - 257] + v;
                        SAFETY_CHECK(len <= cap - pos, OC_ERR_OUTPUT_TOO_SMALL);
                        p.at[t] = pos;
                        p.len[t] = len;
                        p.mask |= 1u << t;
                        pos += len;
                    }
                }
                gd_ensure(&r, t);
                t = (t + 1) % GD_LANES;
            }
        }
        /* The last round: from the current lane, once round every lane, the
         * pending matches copied and each lane refilled. */
        for (unsigned k = 0; k < GD_LANES; k++) {
            if (p.mask & (1u << t))
                FORWARD_IF_ERROR(gd_copy(&r, t, &p, dtab, dbits, dst));
            gd_ensure(&r, t);
            t = (t + 1) % GD_LANES;
        }
    }
    *out = pos;
    return OC_OK;
}
