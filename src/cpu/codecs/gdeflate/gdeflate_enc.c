/*
 * gdeflate_enc.c - the GDeflate page encoder (gdeflate_core.h): a
 * hash-chain LZ77 parse (greedy, lazy by one position from level 4), one
 * deflate block for the page (dynamic Huffman codes limited to 15 bits,
 * the fixed codes or stored bytes, whichever is smallest), its bits dealt
 * to the 32 lanes in the order the decoder visits them, then the words
 * serialised by replaying the decoder's refills (docs/FORMAT.md,
 * "GDeflate").
 *
 * Why two passes: a refill of lane t loads bits that lane t has not been
 * given yet at that point of the visit order, so each lane's bits are
 * written first and the word order is decided afterwards from the log of
 * visits (lane, bits consumed), exactly as the decoder will consume them.
 */
#include <string.h>

#include "../../../common/deflate_tables.h"
#include "gdeflate_core.h"

#define MIN_MATCH 3
#define MAX_MATCH 258
#define WINDOW 32768

/* ---- LZ77 parse ---------------------------------------------------------- */

static inline uint32_t hash3(const uint8_t *p)
{
    uint32_t v = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];
    return (v * 2654435761u) >> 17;
}

static inline void insert(gd_enc_ws *ws, const uint8_t *src, size_t n, size_t i)
{
    if (i + MIN_MATCH > n)
        return;
    uint32_t h = hash3(src + i);
    ws->prev[i] = ws->head[h];
    ws->head[h] = (int32_t)i;
}

/* The longest match for position i among the positions already inserted
 * (at most `depth` of them, stopping at one of `nice` bytes): its length (0
 * when under MIN_MATCH). */
static unsigned find(const gd_enc_ws *ws, const uint8_t *src, size_t n, size_t i, unsigned depth,
                     unsigned nice, unsigned *dist)
{
    if (i + MIN_MATCH > n)
        return 0;
    size_t maxlen = n - i < MAX_MATCH ? n - i : MAX_MATCH;
    unsigned best = MIN_MATCH - 1;
    int32_t c = ws->head[hash3(src + i)];
    while (c >= 0 && i - (size_t)c <= WINDOW && depth--) {
        const uint8_t *a = src + c, *b = src + i;
        if (a[best] == b[best] && a[0] == b[0]) {
            size_t l = 0;
            while (l < maxlen && a[l] == b[l])
                l++;
            if (l > best) {
                best = (unsigned)l;
                *dist = (unsigned)(i - (size_t)c);
                if (l == maxlen || l >= nice)
                    break;
            }
        }
        c = ws->prev[c];
    }
    return best >= MIN_MATCH ? best : 0;
}

/* The symbols of src: sym_len 0 for a literal (sym_val the byte), else a
 * match of sym_len bytes at distance sym_val.  Returns their count. */
static size_t parse(gd_enc_ws *ws, int level, const uint8_t *src, size_t n)
{
    static const unsigned depths[9] = {4, 8, 16, 32, 64, 128, 256, 1024, 4096};
    static const unsigned nices[9] = {16, 32, 32, 64, 128, 128, 258, 258, 258};
    unsigned depth = depths[level - 1], nice = nices[level - 1];
    int lazy = level >= 4;
    for (size_t h = 0; h < (1u << 15); h++)
        ws->head[h] = -1;
    size_t i = 0, k = 0;
    while (i < n) {
        unsigned dist = 0, len = find(ws, src, n, i, depth, nice, &dist);
        insert(ws, src, n, i);
        if (lazy && len && len < 32 && i + 1 < n) {
            unsigned d2 = 0, l2 = find(ws, src, n, i + 1, depth, nice, &d2);
            if (l2 > len) {
                ws->sym_len[k] = 0;
                ws->sym_val[k++] = src[i];
                i++;
                insert(ws, src, n, i);
                len = l2;
                dist = d2;
            }
        }
        if (len) {
            ws->sym_len[k] = (uint16_t)len;
            ws->sym_val[k++] = (uint16_t)dist;
            for (unsigned j = 1; j < len; j++)
                insert(ws, src, n, i + j);
            i += len;
        } else {
            ws->sym_len[k] = 0;
            ws->sym_val[k++] = src[i];
            i++;
        }
    }
    return k;
}

/* ---- deflate's codes ------------------------------------------------------ */

/* GDeflate's length symbols (deflate_tables.h): 257..284 for 3..257 as in
 * RFC 1951, and 258 as 285 with 16 extra bits (255), the code nvCOMP
 * writes for it; 285 is not 258 in GDeflate. */
static unsigned len_code(unsigned len) /* 0..28 */
{
    if (len == MAX_MATCH)
        return 28;
    unsigned c = 0;
    while (c < 27 && gdeflate_len_base[c + 1] <= len)
        c++;
    return c;
}

static unsigned dist_code(unsigned dist) /* 0..29: the window is deflate's 32 KiB */
{
    unsigned c = 0;
    while (c < 29 && gdeflate_dist_base[c + 1] <= dist)
        c++;
    return c;
}

/* Huffman code lengths of freq[0..n) limited to `limit` bits; at least two
 * symbols must have a frequency (the caller sees to it), so every code is
 * complete.  Two-queue tree over the sorted leaves, then the lengths over
 * the limit folded back by splitting the deepest leaves above it. */
static void huff_lengths(const uint32_t *freq, unsigned n, unsigned limit, uint8_t *lens)
{
    unsigned sym[288], m = 0;
    for (unsigned s = 0; s < n; s++) {
        lens[s] = 0;
        if (freq[s])
            sym[m++] = s;
    }
    for (unsigned a = 1; a < m; a++) { /* by frequency, then symbol */
        unsigned s = sym[a], b = a;
        while (b > 0 && (freq[sym[b - 1]] > freq[s] || (freq[sym[b - 1]] == freq[s] && sym[b - 1] > s))) {
            sym[b] = sym[b - 1];
            b--;
        }
        sym[b] = s;
    }
    uint64_t w[576];
    unsigned parent[576], depth[576];
    for (unsigned a = 0; a < m; a++)
        w[a] = freq[sym[a]];
    unsigned leaf = 0, inner = m;
    for (unsigned next = m; next < 2 * m - 1; next++) {
        unsigned pick[2];
        for (int j = 0; j < 2; j++)
            pick[j] = (leaf < m && (inner >= next || w[leaf] <= w[inner])) ? leaf++ : inner++;
        w[next] = w[pick[0]] + w[pick[1]];
        parent[pick[0]] = parent[pick[1]] = next;
    }
    unsigned count[290] = {0};
    depth[2 * m - 2] = 0;
    for (unsigned a = 2 * m - 2; a-- > 0;)
        depth[a] = depth[parent[a]] + 1;
    for (unsigned a = 0; a < m; a++)
        count[depth[a] > limit ? limit : depth[a]]++;
    uint64_t kraft = 0;
    for (unsigned l = 1; l <= limit; l++)
        kraft += (uint64_t)count[l] << (limit - l);
    while (kraft > ((uint64_t)1 << limit)) {
        count[limit]--;
        for (unsigned l = limit - 1; l > 0; l--)
            if (count[l]) {
                count[l]--;
                count[l + 1] += 2;
                break;
            }
        kraft--;
    }
    /* the least frequent symbols take the longest codes */
    unsigned a = 0;
    for (unsigned l = limit; l > 0; l--)
        for (unsigned c = 0; c < count[l]; c++)
            lens[sym[a++]] = (uint8_t)l;
}

/* Canonical codes of lens[0..n), bit-reversed (deflate sends them MSB first). */
static void huff_codes(const uint8_t *lens, unsigned n, uint16_t *codes)
{
    unsigned count[16] = {0}, next[16], code = 0;
    for (unsigned s = 0; s < n; s++)
        count[lens[s]]++;
    count[0] = 0;
    for (unsigned l = 1; l <= 15; l++) {
        next[l] = code;
        code = (code + count[l]) << 1;
    }
    for (unsigned s = 0; s < n; s++) {
        unsigned l = lens[s], rev = 0;
        if (!l) {
            codes[s] = 0;
            continue;
        }
        unsigned c = next[l]++;
        for (unsigned b = 0; b < l; b++)
            rev |= ((c >> b) & 1u) << (l - 1 - b);
        codes[s] = (uint16_t)rev;
    }
}

/* ---- the lanes --------------------------------------------------------------- */

typedef struct gd_writer {
    gd_enc_ws *ws;
    uint64_t acc[GD_LANES];
    uint32_t accn[GD_LANES];
    uint32_t nw[GD_LANES];    /* words stored per lane */
    uint32_t since[GD_LANES]; /* bits given to the lane since its last visit ended */
    size_t nvis;
    int overflow; /* a lane or the visit log ran out of room (the page is then stored) */
} gd_writer;

static void put(gd_writer *w, unsigned t, uint32_t v, unsigned n)
{
    w->acc[t] |= (uint64_t)v << w->accn[t];
    w->accn[t] += n;
    w->since[t] += n;
    if (w->accn[t] >= 32) {
        if (w->nw[t] < GD_LANE_WORDS)
            w->ws->lane_words[t][w->nw[t]++] = (uint32_t)w->acc[t];
        else
            w->overflow = 1;
        w->acc[t] >>= 32;
        w->accn[t] -= 32;
    }
}

/* The end of a visit of lane t: the decoder refills it here. */
static void visit_end(gd_writer *w, unsigned t)
{
    if (w->nvis < GD_MAX_VISITS)
        w->ws->visits[w->nvis++] = (uint16_t)(t | w->since[t] << 5);
    else
        w->overflow = 1;
    w->since[t] = 0;
}

/* Serialises the words: the first of each lane, then one word for each
 * refill the decoder makes, in visit order (zeros past a lane's bits). */
static oc_status serialise(gd_writer *w, uint8_t *dst, size_t cap, size_t *out)
{
    for (unsigned t = 0; t < GD_LANES; t++)
        if (w->accn[t]) { /* the partial last word */
            if (w->nw[t] >= GD_LANE_WORDS)
                return OC_ERR_INTERNAL;
            w->ws->lane_words[t][w->nw[t]++] = (uint32_t)w->acc[t];
            w->acc[t] = 0;
            w->accn[t] = 0;
        }
    uint32_t cnt[GD_LANES], next[GD_LANES];
    size_t o = 0;
    for (unsigned t = 0; t < GD_LANES; t++) {
        SAFETY_CHECK(cap - o >= 4, OC_ERR_OUTPUT_TOO_SMALL);
        oc_store_le32(dst + o, w->nw[t] ? w->ws->lane_words[t][0] : 0);
        o += 4;
        cnt[t] = 32;
        next[t] = 1;
    }
    for (size_t v = 0; v < w->nvis; v++) {
        unsigned t = w->ws->visits[v] & 31u, c = w->ws->visits[v] >> 5;
        if (c > cnt[t])
            return OC_ERR_INTERNAL; /* a visit took more than the lane held */
        cnt[t] -= c;
        if (cnt[t] < 32) {
            SAFETY_CHECK(cap - o >= 4, OC_ERR_OUTPUT_TOO_SMALL);
            uint32_t word = next[t] < w->nw[t] ? w->ws->lane_words[t][next[t]] : 0;
            next[t]++;
            oc_store_le32(dst + o, word);
            o += 4;
            cnt[t] += 32;
        }
    }
    for (unsigned t = 0; t < GD_LANES; t++)
        if (next[t] < w->nw[t])
            return OC_ERR_INTERNAL; /* bits the decoder would never load */
    *out = o;
    return OC_OK;
}

/* ---- blocks -------------------------------------------------------------------- */

typedef struct gd_codes {
    uint8_t lit_len[288], dist_len[32], pre_len[19];
    uint16_t lit_code[288], dist_code[32], pre_code[19];
    unsigned nlit, ndist, nclen;
    uint8_t rle_sym[320]; /* the code lengths, run-length coded */
    uint8_t rle_extra[320];
    unsigned nrle;
} gd_codes;

/* The run-length coding of the code lengths (symbols 16, 17, 18). */
static void rle_lengths(gd_codes *c)
{
    uint8_t all[320];
    unsigned total = c->nlit + c->ndist;
    memcpy(all, c->lit_len, c->nlit);
    memcpy(all + c->nlit, c->dist_len, c->ndist);
    c->nrle = 0;
    for (unsigned i = 0; i < total;) {
        unsigned run = 1;
        while (i + run < total && all[i + run] == all[i])
            run++;
        if (all[i] == 0 && run >= 3) {
            unsigned r = run > 138 ? 138 : run;
            c->rle_sym[c->nrle] = r >= 11 ? 18 : 17;
            c->rle_extra[c->nrle++] = (uint8_t)(r >= 11 ? r - 11 : r - 3);
            i += r;
        } else if (all[i] != 0 && run >= 4) {
            c->rle_sym[c->nrle] = all[i];
            c->rle_extra[c->nrle++] = 0;
            unsigned r = run - 1 > 6 ? 6 : run - 1;
            c->rle_sym[c->nrle] = 16;
            c->rle_extra[c->nrle++] = (uint8_t)(r - 3);
            i += 1 + r;
        } else {
            c->rle_sym[c->nrle] = all[i];
            c->rle_extra[c->nrle++] = 0;
            i++;
        }
    }
}

/* Gives at least two symbols of freq[0..n) a frequency, so the code is
 * complete (a one-codeword code is legal deflate but not every decoder's). */
static void two_symbols(uint32_t *freq, unsigned n)
{
    unsigned used = 0;
    for (unsigned s = 0; s < n; s++)
        used += freq[s] != 0;
    for (unsigned s = 0; s < n && used < 2; s++)
        if (!freq[s]) {
            freq[s] = 1;
            used++;
        }
}

static const uint8_t extra_of_rle[19] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7};

/* The dynamic codes of the symbols and their size in bits. */
static uint64_t dynamic_codes(const gd_enc_ws *ws, size_t nsym, gd_codes *c)
{
    uint32_t lf[288] = {0}, df[30] = {0}, pf[19] = {0};
    uint64_t extra = 0;
    for (size_t k = 0; k < nsym; k++) {
        if (!ws->sym_len[k]) {
            lf[ws->sym_val[k]]++;
        } else {
            unsigned lc = len_code(ws->sym_len[k]), dc = dist_code(ws->sym_val[k]);
            lf[257 + lc]++;
            df[dc]++;
            extra += gdeflate_len_extra[lc] + gdeflate_dist_extra[dc];
        }
    }
    lf[256] = 1;
    two_symbols(lf, 286);
    two_symbols(df, 30);
    huff_lengths(lf, 286, 15, c->lit_len);
    huff_lengths(df, 30, 15, c->dist_len);
    c->nlit = 286;
    while (c->nlit > 257 && !c->lit_len[c->nlit - 1])
        c->nlit--;
    c->ndist = 30;
    while (c->ndist > 1 && !c->dist_len[c->ndist - 1])
        c->ndist--;
    rle_lengths(c);
    for (unsigned i = 0; i < c->nrle; i++)
        pf[c->rle_sym[i]]++;
    two_symbols(pf, 19);
    huff_lengths(pf, 19, 7, c->pre_len);
    c->nclen = 19;
    while (c->nclen > 4 && !c->pre_len[rfc1951_precode_order[c->nclen - 1]])
        c->nclen--;
    huff_codes(c->lit_len, 286, c->lit_code);
    huff_codes(c->dist_len, 30, c->dist_code);
    huff_codes(c->pre_len, 19, c->pre_code);
    uint64_t bits = 3 + 14 + 3 * (uint64_t)c->nclen + extra;
    for (unsigned i = 0; i < c->nrle; i++)
        bits += c->pre_len[c->rle_sym[i]] + extra_of_rle[c->rle_sym[i]];
    for (unsigned s = 0; s < 286; s++)
        bits += (uint64_t)lf[s] * c->lit_len[s];
    for (unsigned s = 0; s < 30; s++)
        bits += (uint64_t)df[s] * c->dist_len[s];
    return bits;
}

static uint64_t fixed_codes(const gd_enc_ws *ws, size_t nsym, gd_codes *c)
{
    memset(c->lit_len, 8, 144);
    memset(c->lit_len + 144, 9, 112);
    memset(c->lit_len + 256, 7, 24);
    memset(c->lit_len + 280, 8, 8);
    memset(c->dist_len, 5, 32);
    huff_codes(c->lit_len, 288, c->lit_code);
    huff_codes(c->dist_len, 32, c->dist_code);
    uint64_t bits = 3 + 7;
    for (size_t k = 0; k < nsym; k++) {
        if (!ws->sym_len[k]) {
            bits += c->lit_len[ws->sym_val[k]];
        } else {
            unsigned lc = len_code(ws->sym_len[k]), dc = dist_code(ws->sym_val[k]);
            bits += c->lit_len[257 + lc] + gdeflate_len_extra[lc] + 5 + gdeflate_dist_extra[dc];
        }
    }
    return bits;
}

/* A Huffman block's symbols: lane t's visit is a literal, a length (its
 * distance then waits for the lane's next visit) or a pending distance;
 * after the end-of-block code, one last round of the pending distances. */
static void put_symbols(gd_writer *w, const gd_enc_ws *ws, size_t nsym, const gd_codes *c)
{
    uint16_t pdist[GD_LANES];
    uint32_t pending = 0;
    unsigned t = 0;
    size_t k = 0;
    for (;;) {
        if (pending & (1u << t)) {
            unsigned d = pdist[t], dc = dist_code(d);
            put(w, t, c->dist_code[dc], c->dist_len[dc]);
            put(w, t, d - gdeflate_dist_base[dc], gdeflate_dist_extra[dc]);
            pending &= ~(1u << t);
        } else if (k == nsym) {
            put(w, t, c->lit_code[256], c->lit_len[256]);
            break;
        } else if (!ws->sym_len[k]) {
            unsigned b = ws->sym_val[k++];
            put(w, t, c->lit_code[b], c->lit_len[b]);
        } else {
            unsigned l = ws->sym_len[k], lc = len_code(l);
            put(w, t, c->lit_code[257 + lc], c->lit_len[257 + lc]);
            put(w, t, l - gdeflate_len_base[lc], gdeflate_len_extra[lc]);
            pdist[t] = ws->sym_val[k++];
            pending |= 1u << t;
        }
        visit_end(w, t);
        t = (t + 1) % GD_LANES;
    }
    for (unsigned r = 0; r < GD_LANES; r++) {
        if (pending & (1u << t)) {
            unsigned d = pdist[t], dc = dist_code(d);
            put(w, t, c->dist_code[dc], c->dist_len[dc]);
            put(w, t, d - gdeflate_dist_base[dc], gdeflate_dist_extra[dc]);
        }
        visit_end(w, t);
        t = (t + 1) % GD_LANES;
    }
}

static void put_dynamic_header(gd_writer *w, const gd_codes *c)
{
    put(w, 0, 1u | 2u << 1, 3); /* BFINAL, BTYPE = 2 */
    visit_end(w, 0);
    put(w, 0, c->nlit - 257, 5);
    put(w, 0, c->ndist - 1, 5);
    put(w, 0, c->nclen - 4, 4);
    visit_end(w, 0);
    for (unsigned i = 0; i < c->nclen; i++) { /* lane i */
        put(w, i, c->pre_len[rfc1951_precode_order[i]], 3);
        visit_end(w, i);
    }
    unsigned t = 0;
    for (unsigned i = 0; i < c->nrle; i++) {
        unsigned s = c->rle_sym[i];
        put(w, t, c->pre_code[s], c->pre_len[s]);
        put(w, t, c->rle_extra[i], extra_of_rle[s]);
        visit_end(w, t);
        t = (t + 1) % GD_LANES;
    }
}

/* Stored blocks of at most 65535 bytes: header and LEN in lane 0, the
 * bytes round-robin from lane 0, then the last round of refills. */
static void put_stored(gd_writer *w, const uint8_t *src, size_t n)
{
    size_t done = 0;
    do {
        size_t len = n - done > 65535 ? 65535 : n - done;
        unsigned final = done + len == n;
        put(w, 0, final, 3); /* BTYPE = 0 */
        visit_end(w, 0);
        put(w, 0, (uint32_t)len, 16);
        unsigned t = 0;
        for (size_t i = 0; i < len; i++) {
            put(w, t, src[done + i], 8);
            visit_end(w, t);
            t = (t + 1) % GD_LANES;
        }
        for (unsigned r = 0; r < GD_LANES; r++) {
            visit_end(w, t);
            t = (t + 1) % GD_LANES;
        }
        done += len;
    } while (done < n);
}

oc_status gd_encode(gd_enc_ws *ws, int level, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                    size_t *out)
{
    RETURN_ERROR_IF(n > GD_MAX_PAGE, OC_ERR_CHUNK_TOO_LARGE);
    RETURN_ERROR_IF(level < 1 || level > 9, OC_ERR_INVALID_ARGUMENT);
    *out = 0;
    size_t nsym = parse(ws, level, src, n);
    gd_codes dyn, fix;
    uint64_t dbits = dynamic_codes(ws, nsym, &dyn), fbits = fixed_codes(ws, nsym, &fix);
    uint64_t sbits = 19 * (uint64_t)(n / 65535 + (n % 65535 != 0 || n == 0)) + 8 * (uint64_t)n;
    gd_writer w;
    memset(&w, 0, sizeof w);
    w.ws = ws;
    if (dbits < sbits || fbits < sbits) {
        if (dbits < fbits) {
            put_dynamic_header(&w, &dyn);
            put_symbols(&w, ws, nsym, &dyn);
        } else {
            put(&w, 0, 1u | 1u << 1, 3); /* BFINAL, BTYPE = 1 */
            visit_end(&w, 0);
            put_symbols(&w, ws, nsym, &fix);
        }
        if (!w.overflow)
            return serialise(&w, dst, cap, out);
        memset(&w, 0, sizeof w); /* too many bits for a lane: store instead */
        w.ws = ws;
    }
    put_stored(&w, src, n);
    if (w.overflow)
        return OC_ERR_INTERNAL;
    return serialise(&w, dst, cap, out);
}
