/*
 * ans_core.h - the ANS format (docs/FORMAT.md, "ANS"): byte-oriented rANS
 * with 32 interleaved states per tile of 16384 symbols, one source for the
 * CPU codec (C11) and the GPU kernels (CUDA), so both engines write the
 * same bytes and report the same statuses.
 *
 * The symbols are the chunk's bytes (|u1), or for 16-bit data (<f2, bf16,
 * <u2, <i2) the high byte of each value, the low bytes being stored as
 * they are (the exponent byte of a float16/bfloat16 carries the
 * redundancy; DietGPU's float codec does the same).  One normalised
 * frequency table per chunk (11 probability bits; a 256-bit presence map
 * and PB bits per present symbol).
 *
 * Two tile formats.  Version 2 (written): 64-bit states in [2^31, 2^63)
 * renormalised by 32-bit words, so a state takes a word every ~6 symbols
 * of text; each of the 32 states (lanes) has its own run of words, listed
 * by 32 u16 counts in the tile's head, so a lane decodes with no
 * knowledge of the others (no ballot per step on the GPU) and a lane
 * encodes with no knowledge of the others (the GPU writes a tile's words
 * from its lanes at once, after one pass that counts them).  Version 1
 * (read only, data written before): 32-bit states in [2^16, 2^32), 16-bit
 * words shared by the lanes in lane order (ballot + popcount), warp code
 * in own_simt.h's model (ans_decode_tile: on the GPU a lane per state, in
 * C a one-lane warp holding the 32 states in turn).  Everything read is
 * checked: states in range, no read past a lane's (v2) or the tile's (v1)
 * words, every state back to its start and every word used at the end;
 * anything else is CORRUPT.
 */
#ifndef OC_ANS_CORE_H
#define OC_ANS_CORE_H

#include "../own_format.h"

#define ANS_TILE 16384u /* symbols per tile */
#define ANS_LANES 32u   /* interleaved states per tile */
#define ANS_L 65536u    /* states live in [ANS_L, 2^32) */
#define ANS_PB 11u      /* the encoder's probability bits */
#define ANS_PB_MAX 12u  /* the most a stream may use */
#define ANS_TILE_HEAD (4u * ANS_LANES)
#define ANS_TABLE_MAX (1u + 32u + (256u * ANS_PB_MAX + 7u) / 8u) /* PB, presence map, frequencies */
#define ANS_VERSION 2u /* the format version the encoder writes (1 is still read) */
/* version 2 */
#define ANS2_L 0x80000000ull                             /* states live in [ANS2_L, 2^63) */
#define ANS2_TILE_HEAD (4u * ANS_LANES + 2u * ANS_LANES) /* 32 u32 stored states, 32 u16 word counts */
#define ANS2_MAX_WORDS (ANS_TILE / ANS_LANES + 1u)       /* a lane's words: one per symbol and one */

/* The symbols of a chunk of n bytes of a type of width w: split = the
 * high bytes of 16-bit values are coded, the low bytes stored. */
typedef struct ans_shape {
    uint32_t split;  /* 1 for 16-bit types */
    uint64_t nsym;   /* coded symbols */
    uint64_t lo;     /* stored low bytes (split) */
    uint32_t tail;   /* a last odd byte (split) */
    uint32_t ntiles; /* coding tiles */
} ans_shape;

OWN_HD void ans_shape_of(uint64_t n, uint32_t w, ans_shape *s)
{
    s->split = w == 2;
    s->nsym = s->split ? n / 2 : n;
    s->lo = s->split ? n / 2 : 0;
    s->tail = s->split ? (uint32_t)(n % 2) : 0u;
    s->ntiles = own_tile_count(s->nsym, ANS_TILE);
}

/* Symbol i of the chunk's data, and its stored low byte. */
OWN_HD uint32_t ans_sym(const uint8_t *data, uint32_t split, uint64_t i)
{
    return split ? data[2 * i + 1] : data[i];
}

/* ---- the frequency table ------------------------------------------------------ */

typedef struct ans_table {
    uint32_t pb;     /* probability bits */
    uint32_t nsym;   /* present symbols */
    uint16_t f[256]; /* frequencies (0: absent), summing to 2^pb */
    uint16_t c[256]; /* cumulative frequencies */
    uint32_t bytes;  /* bytes the table takes in the stream */
} ans_table;

/* Reads the table at src[0..avail): PB, the presence map, PB bits per
 * present symbol (f - 1, least significant bit first, byte padded).
 * TRUNCATED when it does not fit, CORRUPT when PB is out of 1..12, no
 * symbol is present, or the frequencies do not add up to 2^PB. */
OWN_HD oc_status ans_table_read(const uint8_t *src, uint64_t avail, ans_table *t)
{
    if (avail < 33)
        return OC_ERR_TRUNCATED;
    t->pb = src[0];
    if (t->pb < 1 || t->pb > ANS_PB_MAX)
        return OC_ERR_CORRUPT;
    uint32_t nsym = 0;
    for (uint32_t s = 0; s < 256; s++)
        nsym += (src[1 + s / 8] >> (s % 8)) & 1u;
    if (nsym == 0)
        return OC_ERR_CORRUPT;
    t->nsym = nsym;
    t->bytes = 33u + (nsym * t->pb + 7u) / 8u;
    if (avail < t->bytes)
        return OC_ERR_TRUNCATED;
    uint32_t bit = 0, sum = 0;
    for (uint32_t s = 0; s < 256; s++) {
        t->c[s] = (uint16_t)sum;
        if (!((src[1 + s / 8] >> (s % 8)) & 1u)) {
            t->f[s] = 0;
            continue;
        }
        uint32_t v = 0;
        for (uint32_t k = 0; k < t->pb; k++, bit++)
            v |= (uint32_t)((src[33 + bit / 8] >> (bit % 8)) & 1u) << k;
        t->f[s] = (uint16_t)(v + 1u);
        sum += v + 1u;
        if (sum > (1u << t->pb))
            return OC_ERR_CORRUPT;
    }
    if (sum != (1u << t->pb))
        return OC_ERR_CORRUPT;
    return OC_OK;
}

/* Writes the table of t (t->f, t->pb) to out; returns its size. */
OWN_HD uint32_t ans_table_write(const ans_table *t, uint8_t *out)
{
    out[0] = (uint8_t)t->pb;
    for (uint32_t i = 0; i < 32; i++)
        out[1 + i] = 0;
    uint32_t bit = 0;
    for (uint32_t s = 0; s < 256; s++) {
        if (!t->f[s])
            continue;
        out[1 + s / 8] |= (uint8_t)(1u << (s % 8));
        uint32_t v = t->f[s] - 1u;
        for (uint32_t k = 0; k < t->pb; k++, bit++) {
            if (bit % 8 == 0)
                out[33 + bit / 8] = 0;
            out[33 + bit / 8] |= (uint8_t)(((v >> k) & 1u) << (bit % 8));
        }
    }
    return 33u + (bit + 7u) / 8u;
}

/* The encoder's normalisation of symbol counts (total > 0) to frequencies
 * summing to 2^pb: f = max(1, count * 2^pb / total) for present symbols;
 * a shortfall goes to the most frequent symbol (the smallest on ties); an
 * excess is taken from the largest frequencies in turn (the smallest
 * symbol on ties), never below 1.  Also sets c, nsym and the size. */
OWN_HD void ans_normalize(const uint32_t *counts, uint64_t total, uint32_t pb, ans_table *t)
{
    uint32_t m = 1u << pb, sum = 0, top = 0, nsym = 0;
    for (uint32_t s = 0; s < 256; s++) {
        uint32_t f = 0;
        if (counts[s]) {
            f = (uint32_t)(((uint64_t)counts[s] << pb) / total);
            f = f ? f : 1u;
            nsym++;
            if (counts[s] > counts[top])
                top = s;
        }
        t->f[s] = (uint16_t)f;
        sum += f;
    }
    if (sum < m)
        t->f[top] = (uint16_t)(t->f[top] + (m - sum));
    while (sum > m) {
        uint32_t big = 0;
        for (uint32_t s = 1; s < 256; s++)
            if (t->f[s] > t->f[big])
                big = s;
        uint32_t take = sum - m < t->f[big] - 1u ? sum - m : t->f[big] - 1u;
        t->f[big] = (uint16_t)(t->f[big] - take);
        sum -= take;
    }
    uint32_t cum = 0;
    for (uint32_t s = 0; s < 256; s++) {
        t->c[s] = (uint16_t)cum;
        cum += t->f[s];
    }
    t->pb = pb;
    t->nsym = nsym;
    t->bytes = 33u + (nsym * pb + 7u) / 8u;
}

/* Decode table entry of a slot: symbol | (f - 1) << 8 | (slot - c) << 20. */
OWN_HD uint32_t ans_dentry(const ans_table *t, uint32_t slot)
{
    uint32_t lo = 0, hi = 255; /* the last symbol with c <= slot and f > 0 */
    while (lo < hi) {
        uint32_t mid = (lo + hi + 1) / 2;
        if (t->c[mid] <= slot)
            lo = mid;
        else
            hi = mid - 1;
    }
    while (t->f[lo] == 0) /* symbols after the last present one share its c */
        lo--;
    return lo | ((uint32_t)(t->f[lo] - 1u) << 8) | ((slot - t->c[lo]) << 20);
}

/* One decoding step of a state: the symbol, and the new state (before
 * renormalisation). */
OWN_HD uint32_t ans_dstep(uint32_t e, uint32_t pb, uint32_t *x)
{
    uint32_t f = ((e >> 8) & 0xfffu) + 1u;
    *x = f * (*x >> pb) + (e >> 20);
    return e & 0xffu;
}

/* One encoding step of a state for a symbol of frequency f, cumulative c:
 * the word emitted first when the state is too large (returns 1). */
OWN_HD int ans_estep(uint32_t *x, uint32_t f, uint32_t c, uint32_t pb, uint32_t *word)
{
    int emit = (uint64_t)*x >= ((uint64_t)f << (32u - pb));
    if (emit) {
        *word = *x & 0xffffu;
        *x >>= 16;
    }
    *x = ((*x / f) << pb) + (*x % f) + c;
    return emit;
}

/* ---- chunks -------------------------------------------------------------------- */

/* Header, then:
 *   u8 mode: 0 the symbols stored, 1 rANS
 *   mode 0: nsym bytes
 *   mode 1: the table, (version 2) zero bytes up to a multiple of 4, ntiles
 *           u32 tile end offsets (from the byte after them), the tiles
 *           (v1: 32 u32 final states, 16-bit words; v2: 32 u32 stored
 *           states, 32 u16 word counts, each lane's 32-bit words)
 *   then, for 16-bit types, the low bytes and the odd last byte */
typedef struct ans_chunk {
    uint32_t version, w, mode;
    uint64_t size; /* decoded bytes */
    ans_shape sh;
    uint32_t tables;   /* offset of the frequency table (mode 1) */
    uint32_t tile_tab; /* offset of the tile end table */
    uint64_t limit;    /* where the tiles end (the stored low bytes start) */
    uint64_t raw;      /* mode 0: where the stored symbols start */
} ans_chunk;

OWN_HD uint64_t ans_bound(uint64_t n)
{
    return OWN_HEADER_SIZE + 1u + n; /* the symbols stored when coding does not pay */
}

/* Checks a chunk's header, table, tile table and total length (as
 * cz_chunk_check); fills t with the table (mode 1). */
OWN_HD oc_status ans_chunk_check(const uint8_t *src, size_t n, uint64_t cap, ans_chunk *k, ans_table *t)
{
    own_header h;
    oc_status st = own_header_read_v(src, n, OWN_ID_ANS, ANS_VERSION, &h);
    if (st != OC_OK)
        return st;
    k->version = h.version;
    k->w = own_type_width(h.dtype);
    if (h.flags != 0 || k->w > 2)
        return OC_ERR_CORRUPT;
    k->size = h.size;
    ans_shape_of(h.size, k->w, &k->sh);
    if (n < OWN_HEADER_SIZE + 1u)
        return OC_ERR_TRUNCATED;
    k->mode = src[OWN_HEADER_SIZE];
    uint64_t need;
    if (k->mode == 0) {
        k->raw = OWN_HEADER_SIZE + 1u;
        k->limit = k->raw + k->sh.nsym;
        need = k->limit + k->sh.lo + k->sh.tail;
    } else if (k->mode == 1) {
        k->tables = OWN_HEADER_SIZE + 1u;
        st = ans_table_read(src + k->tables, n - k->tables, t);
        if (st != OC_OK)
            return st;
        k->tile_tab = k->tables + t->bytes;
        if (k->version >= 2) { /* zero bytes up to a multiple of 4 */
            uint32_t pad = (4u - k->tile_tab % 4u) % 4u;
            if ((uint64_t)k->tile_tab + pad > n)
                return OC_ERR_TRUNCATED;
            for (uint32_t i = 0; i < pad; i++)
                if (src[k->tile_tab + i] != 0)
                    return OC_ERR_CORRUPT;
            k->tile_tab += pad;
        }
        uint64_t base = (uint64_t)k->tile_tab + 4ull * k->sh.ntiles;
        if (base > n)
            return OC_ERR_TRUNCATED;
        uint64_t last = k->sh.ntiles ? oc_load_le32(src + k->tile_tab + 4ull * (k->sh.ntiles - 1)) : 0;
        k->limit = base + last;
        need = k->limit + k->sh.lo + k->sh.tail;
    } else {
        return OC_ERR_CORRUPT;
    }
    if (need > n)
        return OC_ERR_TRUNCATED;
    if (need < n)
        return OC_ERR_CORRUPT;
    if (h.size > cap)
        return OC_ERR_OUTPUT_TOO_SMALL;
    return OC_OK;
}

/* The layout of a chunk that ans_chunk_check accepted, without reading
 * the frequencies again (the GPU's tile kernels: cheap). */
OWN_HD void ans_chunk_geometry(const uint8_t *src, ans_chunk *k)
{
    k->version = src[1];
    k->w = own_type_width(src[2]);
    k->size = oc_load_le32(src + 4);
    ans_shape_of(k->size, k->w, &k->sh);
    k->mode = src[OWN_HEADER_SIZE];
    k->raw = OWN_HEADER_SIZE + 1u;
    k->tables = OWN_HEADER_SIZE + 1u;
    if (k->mode == 0) {
        k->limit = k->raw + k->sh.nsym;
        return;
    }
    const uint8_t *tab = src + k->tables;
    uint32_t nsym = 0;
    for (uint32_t b = 0; b < 32; b++) {
#ifdef __CUDA_ARCH__
        nsym += (uint32_t)__popc(tab[1 + b]);
#else
        nsym += (uint32_t)__builtin_popcount(tab[1 + b]);
#endif
    }
    k->tile_tab = k->tables + 33u + (nsym * tab[0] + 7u) / 8u;
    if (k->version >= 2)
        k->tile_tab += (4u - k->tile_tab % 4u) % 4u;
    uint64_t last = k->sh.ntiles ? oc_load_le32(src + k->tile_tab + 4ull * (k->sh.ntiles - 1)) : 0;
    k->limit = (uint64_t)k->tile_tab + 4ull * k->sh.ntiles + last;
}

/* Copies the stored parts of a chunk to dst: the low bytes and odd byte of
 * 16-bit data, and the symbols of a mode-0 chunk. */
OWN_HD void ans_copy_stored(const uint8_t *src, const ans_chunk *k, uint8_t *dst, uint64_t from, uint64_t to)
{
    /* symbol / value indices [from, to) */
    for (uint64_t i = from; i < to; i++) {
        if (k->sh.split) {
            dst[2 * i] = src[k->limit + i];
            if (k->mode == 0)
                dst[2 * i + 1] = src[k->raw + i];
        } else if (k->mode == 0) {
            dst[i] = src[k->raw + i];
        }
    }
}

/* ---- tiles: one warp each ----------------------------------------------------------- */

/* A warp codes a tile's 32 states: lane l of an OWN_NLANES-lane warp holds
 * states l, l + OWN_NLANES, ... (one on the GPU, all 32 in C, in order), so
 * the one source below is what both engines run. */
#define ANS_SPL (ANS_LANES / OWN_NLANES)

/* Decodes a tile (its bytes src[0..n)) of cnt symbols with decode table dt
 * (2^pb entries, ans_dentry); symbol i goes to out[i * stride] (NULL:
 * checks only).  Every lane returns the same status: OK or CORRUPT. */
OWN_DEV oc_status ans_decode_tile(const uint32_t *dt, uint32_t pb, const uint8_t *src, uint64_t n,
                                  uint32_t cnt, uint8_t *out, uint32_t stride)
{
    if (n < ANS_TILE_HEAD || (n - ANS_TILE_HEAD) % 2 != 0)
        return OC_ERR_CORRUPT;
    uint32_t lane = OWN_LANE(), below = lane ? (OWN_FULL >> (32u - lane)) : 0u;
    uint32_t x[ANS_SPL];
    int low = 0;
    for (uint32_t j = 0; j < ANS_SPL; j++) {
        x[j] = oc_load_le32(src + 4 * (j * OWN_NLANES + lane));
        low |= x[j] < ANS_L;
    }
    if (own_warp_any(low))
        return OC_ERR_CORRUPT;
    const uint8_t *words = src + ANS_TILE_HEAD;
    uint64_t c = (n - ANS_TILE_HEAD) / 2; /* words left, read from the top */
    uint32_t mask = (1u << pb) - 1u;
    uint32_t steps = (cnt + ANS_LANES - 1) / ANS_LANES;
    for (uint32_t k = 0; k < steps; k++) {
        for (uint32_t j = 0; j < ANS_SPL; j++) { /* the states of a step in increasing order */
            uint32_t i = k * ANS_LANES + j * OWN_NLANES + lane;
            int active = i < cnt;
            int need = 0;
            if (active) {
                uint32_t s = ans_dstep(dt[x[j] & mask], pb, &x[j]);
                if (out)
                    out[(uint64_t)i * stride] = (uint8_t)s;
                need = x[j] < ANS_L;
            }
            uint32_t m = own_ballot(need), total = own_popc32(m);
            if (total > c)
                return OC_ERR_CORRUPT; /* a read before the stream's start */
            if (need) {
                uint64_t at = 2 * (c - 1 - own_popc32(m & below));
                x[j] = (x[j] << 16) | oc_load_le16(words + at);
            }
            c -= total;
        }
    }
    int off = c != 0;
    for (uint32_t j = 0; j < ANS_SPL; j++)
        off |= x[j] != ANS_L;
    return own_warp_any(off) ? OC_ERR_CORRUPT : OC_OK;
}

/* Encodes a tile of cnt symbols (symbol i = ans_sym(data, split, first +
 * i)) with table t; returns its size (128 + 2 x its words).  out NULL:
 * sizes only; else the tile goes to out (at least 128 + 2 cnt bytes).  The
 * steps run backwards and a step's words are appended from its highest
 * state down, so the decoder reads them in increasing state order. */
OWN_DEV uint64_t ans_encode_tile(const ans_table *t, const uint8_t *data, uint32_t split, uint64_t first,
                                 uint32_t cnt, uint8_t *out)
{
    uint32_t lane = OWN_LANE(), below = lane ? (OWN_FULL >> (32u - lane)) : 0u;
    uint32_t x[ANS_SPL];
    for (uint32_t j = 0; j < ANS_SPL; j++)
        x[j] = ANS_L;
    uint64_t nw = 0;
    uint32_t steps = (cnt + ANS_LANES - 1) / ANS_LANES;
    for (uint32_t k = steps; k-- > 0;) {
        for (uint32_t j = ANS_SPL; j-- > 0;) {
            uint32_t i = k * ANS_LANES + j * OWN_NLANES + lane, word = 0;
            int emit = 0;
            if (i < cnt) {
                uint32_t s = ans_sym(data, split, first + i);
                emit = ans_estep(&x[j], t->f[s], t->c[s], t->pb, &word);
            }
            uint32_t m = own_ballot(emit), total = own_popc32(m);
            if (emit && out) { /* the highest emitting lane first */
                uint64_t at = ANS_TILE_HEAD + 2 * (nw + total - 1 - own_popc32(m & below));
                out[at] = (uint8_t)word;
                out[at + 1] = (uint8_t)(word >> 8);
            }
            nw += total;
        }
    }
    if (out)
        for (uint32_t j = 0; j < ANS_SPL; j++)
            oc_store_le32(out + 4 * (j * OWN_NLANES + lane), x[j]);
    return ANS_TILE_HEAD + 2 * nw;
}

/* ---- version 2 tiles: a lane per state, each with its own words ------------------------ */

/* The words of lane `lane` of a v2 tile at src (whose head was read):
 * where they start (from the tile's first byte) and how many. */
OWN_HD uint64_t ans2_lane_words(const uint8_t *src, uint32_t lane, uint32_t *count)
{
    uint64_t at = ANS2_TILE_HEAD;
    for (uint32_t l = 0; l < lane; l++)
        at += 4ull * oc_load_le16(src + 4 * ANS_LANES + 2 * l);
    *count = oc_load_le16(src + 4 * ANS_LANES + 2 * lane);
    return at;
}

/* Decodes lane `lane` of a v2 tile: stored state s, words w[0..nw) (u32,
 * read upward), the symbols i = lane + 32 k < cnt to out[i * stride]
 * (out NULL: checks only).  Returns 0, or 1 for CORRUPT: a stored state
 * 0, a word needed when none is left, words left over, or a state other
 * than 2^31 at the end. */
OWN_HD int ans2_decode_lane(const uint32_t *dt, uint32_t pb, uint32_t s, const uint8_t *w, uint32_t nw,
                            uint32_t lane, uint32_t cnt, uint8_t *out, uint32_t stride)
{
    if (s == 0)
        return 1;
    uint64_t x = s, mask = (1u << pb) - 1u;
    uint32_t r = 0;
    if (x < ANS2_L) {
        if (r == nw)
            return 1;
        x = (x << 32) | oc_load_le32(w + 4ull * r++);
    }
    for (uint32_t i = lane; i < cnt; i += ANS_LANES) {
        uint32_t e = dt[x & mask];
        x = (uint64_t)(((e >> 8) & 0xfffu) + 1u) * (x >> pb) + (e >> 20);
        if (out)
            out[(uint64_t)i * stride] = (uint8_t)e;
        if (x < ANS2_L) {
            if (r == nw)
                return 1;
            x = (x << 32) | oc_load_le32(w + 4ull * r++);
        }
    }
    return r != nw || x != ANS2_L;
}

/* Decodes a v2 tile (its bytes src[0..n)) of cnt symbols, as
 * ans_decode_tile; the lanes are independent, so a warp's lanes take
 * them in turn.  Every lane returns the same status: OK or CORRUPT (also
 * a tile shorter than its head, or not exactly its head and its words). */
OWN_DEV oc_status ans2_decode_tile(const uint32_t *dt, uint32_t pb, const uint8_t *src, uint64_t n,
                                   uint32_t cnt, uint8_t *out, uint32_t stride)
{
    if (n < ANS2_TILE_HEAD)
        return OC_ERR_CORRUPT;
    uint32_t last = 0;
    uint64_t at_last = ans2_lane_words(src, ANS_LANES - 1, &last);
    if (at_last + 4ull * last != n)
        return OC_ERR_CORRUPT;
    int bad = 0;
    for (uint32_t j = 0; j < ANS_SPL; j++) {
        uint32_t lane = j * OWN_NLANES + OWN_LANE(), nw;
        uint64_t at = ans2_lane_words(src, lane, &nw);
        bad |= ans2_decode_lane(dt, pb, oc_load_le32(src + 4 * lane), src + at, nw, lane, cnt, out, stride);
    }
    return own_warp_any(bad) ? OC_ERR_CORRUPT : OC_OK;
}

/* Encodes lane `lane` of a tile of cnt symbols (symbol i = ans_sym(data,
 * split, first + i), the lane's being i = lane + 32 k), from its last
 * symbol back; returns its word count and its stored state in *s.  end
 * non-NULL: the m-th word emitted goes to end - 4 (m + 1), so the lane's
 * words end at `end` and the decoder reads them upward. */
OWN_HD uint32_t ans2_encode_lane(const ans_table *t, const uint8_t *data, uint32_t split, uint64_t first,
                                 uint32_t cnt, uint32_t lane, uint8_t *end, uint32_t *s)
{
    uint64_t x = ANS2_L;
    uint32_t nw = 0, pb = t->pb;
    if (lane < cnt) {
        for (uint32_t i = lane + (cnt - 1 - lane) / ANS_LANES * ANS_LANES;; i -= ANS_LANES) {
            uint32_t sym = ans_sym(data, split, first + i), f = t->f[sym];
            if (x >= (uint64_t)f << (63u - pb)) {
                if (end)
                    oc_store_le32(end - 4ull * (nw + 1), (uint32_t)x);
                nw++;
                x >>= 32;
            }
            x = ((x / f) << pb) + x % f + t->c[sym];
            if (i < ANS_LANES)
                break;
        }
    }
    if (x >> 32) { /* the stored state is 32 bits: its low half becomes the lane's first word */
        if (end)
            oc_store_le32(end - 4ull * (nw + 1), (uint32_t)x);
        nw++;
        x >>= 32;
    }
    *s = (uint32_t)x;
    return nw;
}

#ifndef __CUDACC__
/* ---- the C codec: a one-lane warp per tile, tiles in turn --------------------------- */

/* The workspace of the C codec. */
typedef struct ans_ws {
    uint32_t dt[1u << ANS_PB_MAX];
    uint32_t counts[256];
    uint8_t words[4u * ANS_LANES * ANS2_MAX_WORDS]; /* a v2 tile's words, written from the end */
} ans_ws;

/* A v2 tile: its size (out NULL), or written to out: the lanes from the
 * last encode into ws->words downward, each ending where the next lane's
 * words start, then the head and the words go to out. */
static inline uint64_t ans2_encode_tile_c(ans_ws *ws, const ans_table *t, const uint8_t *data, uint32_t split,
                                          uint64_t first, uint32_t cnt, uint8_t *out)
{
    uint8_t *end = ws->words + sizeof ws->words;
    uint64_t words = 0;
    for (uint32_t lane = ANS_LANES; lane-- > 0;) {
        uint32_t st;
        uint32_t nw = ans2_encode_lane(t, data, split, first, cnt, lane, out ? end - 4 * words : NULL, &st);
        words += nw;
        if (out) {
            oc_store_le32(out + 4 * lane, st);
            out[4 * ANS_LANES + 2 * lane] = (uint8_t)nw;
            out[4 * ANS_LANES + 2 * lane + 1] = (uint8_t)(nw >> 8);
        }
    }
    if (out)
        memcpy(out + ANS2_TILE_HEAD, end - 4 * words, 4 * words);
    return ANS2_TILE_HEAD + 4 * words;
}

/* One tile of either version: its size, or written to out. */
static inline uint64_t ans_encode_tile_v(ans_ws *ws, uint32_t version, const ans_table *t,
                                         const uint8_t *data, uint32_t split, uint64_t first, uint32_t cnt,
                                         uint8_t *out)
{
    return version == 1 ? ans_encode_tile(t, data, split, first, cnt, out)
                        : ans2_encode_tile_c(ws, t, data, split, first, cnt, out);
}

/* Compresses src[0..n) of type dtype (1- or 2-byte types) into dst in
 * format version `version` (1 or 2; the codec writes ANS_VERSION, the
 * tests and the fuzzer also 1): the table when coding is smaller than
 * storing the symbols, else mode 0. */
static inline oc_status ans_compress_chunk_v(ans_ws *ws, uint32_t version, const uint8_t *src, uint64_t n,
                                             uint32_t dtype, uint8_t *dst, uint64_t cap, uint64_t *out)
{
    *out = 0;
    uint32_t w = own_type_width(dtype);
    if (w == 0 || w > 2)
        return OC_ERR_INVALID_ARGUMENT;
    if (n > OWN_MAX_CHUNK)
        return OC_ERR_CHUNK_TOO_LARGE;
    ans_shape sh;
    ans_shape_of(n, w, &sh);
    ans_table t = {0};
    uint64_t coded = ~(uint64_t)0;
    if (sh.nsym) {
        for (uint32_t s = 0; s < 256; s++)
            ws->counts[s] = 0;
        for (uint64_t i = 0; i < sh.nsym; i++)
            ws->counts[ans_sym(src, sh.split, i)]++;
        ans_normalize(ws->counts, sh.nsym, ANS_PB, &t);
        coded = OWN_HEADER_SIZE + 1u + t.bytes + 4ull * sh.ntiles;
        if (version >= 2)
            coded += (4u - coded % 4u) % 4u;
        for (uint32_t k = 0; k < sh.ntiles; k++) {
            uint64_t first = (uint64_t)k * ANS_TILE;
            uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, k);
            coded += ans_encode_tile_v(ws, version, &t, src, sh.split, first, cnt, NULL);
        }
    }
    uint64_t stored = OWN_HEADER_SIZE + 1u + sh.nsym;
    uint32_t mode = coded < stored;
    uint64_t total = (mode ? coded : stored) + sh.lo + sh.tail;
    if (total > cap)
        return OC_ERR_OUTPUT_TOO_SMALL;
    own_header_write_v(dst, OWN_ID_ANS, version, dtype, 0, (uint32_t)n);
    dst[OWN_HEADER_SIZE] = (uint8_t)mode;
    uint64_t pos = OWN_HEADER_SIZE + 1u;
    if (mode) {
        pos += ans_table_write(&t, dst + pos);
        while (version >= 2 && pos % 4u)
            dst[pos++] = 0;
        uint64_t tab = pos, base = pos + 4ull * sh.ntiles;
        pos = base;
        for (uint32_t k = 0; k < sh.ntiles; k++) {
            uint64_t first = (uint64_t)k * ANS_TILE;
            uint32_t cnt = own_tile_elems(sh.nsym, ANS_TILE, k);
            pos += ans_encode_tile_v(ws, version, &t, src, sh.split, first, cnt, dst + pos);
            oc_store_le32(dst + tab + 4ull * k, (uint32_t)(pos - base));
        }
    } else {
        for (uint64_t i = 0; i < sh.nsym; i++)
            dst[pos + i] = (uint8_t)ans_sym(src, sh.split, i);
        pos += sh.nsym;
    }
    for (uint64_t i = 0; i < sh.lo; i++)
        dst[pos + i] = src[2 * i];
    pos += sh.lo;
    if (sh.tail)
        dst[pos++] = src[n - 1];
    *out = pos;
    return OC_OK;
}

/* Compresses src[0..n) in the format version the codec writes. */
static inline oc_status ans_compress_chunk(ans_ws *ws, const uint8_t *src, uint64_t n, uint32_t dtype,
                                           uint8_t *dst, uint64_t cap, uint64_t *out)
{
    return ans_compress_chunk_v(ws, ANS_VERSION, src, n, dtype, dst, cap, out);
}

/* Decodes a chunk tile after tile (dst NULL: checks only, as the size
 * query does); the first failing tile's status is the chunk's. */
static inline oc_status ans_decompress_chunk(ans_ws *ws, const uint8_t *src, size_t n, uint8_t *dst,
                                             uint64_t cap, uint64_t *out)
{
    ans_chunk k = {0};
    ans_table t = {0};
    *out = 0;
    oc_status st = ans_chunk_check(src, n, dst ? cap : UINT64_MAX, &k, &t);
    if (st != OC_OK)
        return st;
    if (k.mode == 1) {
        for (uint32_t slot = 0; slot < (1u << t.pb); slot++)
            ws->dt[slot] = ans_dentry(&t, slot);
        for (uint32_t tile = 0; tile < k.sh.ntiles; tile++) {
            uint64_t a, b, first = (uint64_t)tile * ANS_TILE;
            uint32_t cnt = own_tile_elems(k.sh.nsym, ANS_TILE, tile);
            st = own_tile_span(src, k.tile_tab, k.sh.ntiles, tile, k.limit, &a, &b);
            if (st == OC_OK) {
                uint8_t *o = dst ? dst + (k.sh.split ? 2 * first + 1 : first) : NULL;
                st = k.version == 1
                         ? ans_decode_tile(ws->dt, t.pb, src + a, b - a, cnt, o, k.sh.split ? 2u : 1u)
                         : ans2_decode_tile(ws->dt, t.pb, src + a, b - a, cnt, o, k.sh.split ? 2u : 1u);
            }
            if (st != OC_OK)
                return st;
        }
    }
    if (dst) {
        ans_copy_stored(src, &k, dst, 0, k.sh.split ? k.sh.lo : (k.mode == 0 ? k.sh.nsym : 0));
        if (k.sh.tail)
            dst[k.size - 1] = src[n - 1];
    }
    *out = k.size;
    return OC_OK;
}
#endif /* !__CUDACC__ */

#endif /* OC_ANS_CORE_H */
