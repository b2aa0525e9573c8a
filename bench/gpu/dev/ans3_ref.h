/*
 * ans3_ref.h - why this exists: ANS format version 3 (two interleaved
 * states a lane, 64 a tile; bench/gpu/owncodecs/NOTES.md, "ANS format
 * version 3") is a dev experiment of issue 18: the GPU decoder it allows
 * (ans3_kernels.cuh) is measured against the library's v2 decoder before
 * the library, its encoder and docs/FORMAT.md move.  This is its CPU
 * reference, written from the NOTES' text: the encoder that makes v3
 * chunks of real data for the dev harness (ans3_dev.cu) and the decoder
 * that says what the GPU must give back (bytes and statuses).  A v3 chunk
 * is a v2 chunk with header byte 1 = 3 and another tile; the table, the
 * padding, the tile table and the stored low bytes are the core's
 * (src/cores/ans/ans_core.h), used as they are.  Host code only (C11, and
 * C++ in the .cu harness); the library's v1/v2 are untouched.
 */
#ifndef OC_ANS3_REF_H
#define OC_ANS3_REF_H

#include "cores/ans/ans_core.h"

#include <string.h>

#define ANS3_VERSION 3u
#define ANS3_TILE_HEAD (8u * ANS_LANES + 2u * ANS_LANES) /* 32 u32 A, 32 u32 B, 32 u16 counts */
#define ANS3_TSHIFT_MAX 1u /* header flags: tiles of 16384 << flags symbols (0 or 1) */
#define ANS3_MAX_WORDS                                                                                       \
    ((ANS_TILE << ANS3_TSHIFT_MAX) / ANS_LANES + 2u) /* a lane's words: one a symbol, two flushes */

/* A v3 chunk's tile: 16384 symbols (flags 0) or 32768 (flags 1: each state codes 512 symbols a tile as
 * v2's do, so the ratio is v2's). */
OWN_HD uint32_t ans3_tile_of(uint32_t flags)
{
    return ANS_TILE << flags;
}

/* The workspace of the v3 reference codec. */
typedef struct ans3_ws {
    uint32_t dt[1u << ANS_PB_MAX];
    uint32_t counts[256];
    uint8_t words[4u * ANS_LANES * ANS3_MAX_WORDS]; /* a tile's words, written from the end */
} ans3_ws;

/* Encodes lane `lane` of a v3 tile of cnt symbols (symbol i = ans_sym(data,
 * split, first + i); the lane's are i = lane + 32 k, state k mod 2) from its
 * last symbol back, then B's flush, then A's; the m-th word emitted goes to
 * end - 4 (m + 1) (end NULL: counted only).  Returns the word count; the
 * stored states in *sa, *sb. */
static inline uint32_t ans3_encode_lane(const ans_table *t, const uint8_t *data, uint32_t split,
                                        uint64_t first, uint32_t cnt, uint32_t lane, uint8_t *end,
                                        uint32_t *sa, uint32_t *sb)
{
    uint64_t x[2] = {ANS2_L, ANS2_L};
    uint32_t nw = 0, pb = t->pb;
    if (lane < cnt) {
        for (uint32_t k = (cnt - 1 - lane) / ANS_LANES + 1; k-- > 0;) {
            uint32_t sym = ans_sym(data, split, first + lane + (uint64_t)k * ANS_LANES), f = t->f[sym];
            uint64_t v = x[k & 1u];
            if (v >= (uint64_t)f << (63u - pb)) {
                if (end)
                    oc_store_le32(end - 4ull * (nw + 1), (uint32_t)v);
                nw++;
                v >>= 32;
            }
            x[k & 1u] = ((v / f) << pb) + v % f + t->c[sym];
        }
    }
    for (int h = 1; h >= 0; h--) { /* B first: the decoder reads A's word first */
        if (x[h] >> 32) {
            if (end)
                oc_store_le32(end - 4ull * (nw + 1), (uint32_t)x[h]);
            nw++;
            x[h] >>= 32;
        }
    }
    *sa = (uint32_t)x[0];
    *sb = (uint32_t)x[1];
    return nw;
}

/* A v3 tile: its size (out NULL), or written to out (as ans2_encode_tile_c). */
static inline uint64_t ans3_encode_tile(ans3_ws *ws, const ans_table *t, const uint8_t *data, uint32_t split,
                                        uint64_t first, uint32_t cnt, uint8_t *out)
{
    uint8_t *end = ws->words + sizeof ws->words;
    uint64_t words = 0;
    for (uint32_t lane = ANS_LANES; lane-- > 0;) {
        uint32_t sa, sb;
        uint32_t nw =
            ans3_encode_lane(t, data, split, first, cnt, lane, out ? end - 4 * words : NULL, &sa, &sb);
        words += nw;
        if (out) {
            oc_store_le32(out + 4 * lane, sa);
            oc_store_le32(out + 4 * (ANS_LANES + lane), sb);
            out[8 * ANS_LANES + 2 * lane] = (uint8_t)nw;
            out[8 * ANS_LANES + 2 * lane + 1] = (uint8_t)(nw >> 8);
        }
    }
    if (out)
        memcpy(out + ANS3_TILE_HEAD, end - 4 * words, 4 * words);
    return ANS3_TILE_HEAD + 4 * words;
}

/* Compresses src[0..n) of type dtype (1- or 2-byte) into a v3 chunk: the
 * core's ans_compress_chunk_v with v3 tiles (the same table, padding, mode
 * choice and stored bytes). */
static inline oc_status ans3_compress_chunk(ans3_ws *ws, const uint8_t *src, uint64_t n, uint32_t dtype,
                                            uint32_t tshift, uint8_t *dst, uint64_t cap, uint64_t *out)
{
    *out = 0;
    if (tshift > ANS3_TSHIFT_MAX)
        return OC_ERR_INVALID_ARGUMENT;
    const uint32_t TS = ans3_tile_of(tshift);
    uint32_t w = own_type_width(dtype);
    if (w == 0 || w > 2)
        return OC_ERR_INVALID_ARGUMENT;
    if (n > OWN_MAX_CHUNK)
        return OC_ERR_CHUNK_TOO_LARGE;
    ans_shape sh;
    ans_shape_of(n, w, &sh);
    sh.ntiles = own_tile_count(sh.nsym, TS);
    ans_table t;
    memset(&t, 0, sizeof t);
    uint64_t coded = ~(uint64_t)0;
    if (sh.nsym) {
        for (uint32_t s = 0; s < 256; s++)
            ws->counts[s] = 0;
        for (uint64_t i = 0; i < sh.nsym; i++)
            ws->counts[ans_sym(src, sh.split, i)]++;
        ans_normalize(ws->counts, sh.nsym, ANS_PB, &t);
        coded = OWN_HEADER_SIZE + 1u + t.bytes + 4ull * sh.ntiles;
        coded += (4u - coded % 4u) % 4u;
        for (uint32_t k = 0; k < sh.ntiles; k++)
            coded += ans3_encode_tile(ws, &t, src, sh.split, (uint64_t)k * TS, own_tile_elems(sh.nsym, TS, k),
                                      NULL);
    }
    uint64_t stored = OWN_HEADER_SIZE + 1u + sh.nsym;
    uint32_t mode = coded < stored;
    uint64_t total = (mode ? coded : stored) + sh.lo + sh.tail;
    if (total > cap)
        return OC_ERR_OUTPUT_TOO_SMALL;
    own_header_write_v(dst, OWN_ID_ANS, ANS3_VERSION, dtype, tshift, (uint32_t)n);
    dst[OWN_HEADER_SIZE] = (uint8_t)mode;
    uint64_t pos = OWN_HEADER_SIZE + 1u;
    if (mode) {
        pos += ans_table_write(&t, dst + pos);
        while (pos % 4u)
            dst[pos++] = 0;
        uint64_t tab = pos, base = pos + 4ull * sh.ntiles;
        pos = base;
        for (uint32_t k = 0; k < sh.ntiles; k++) {
            pos += ans3_encode_tile(ws, &t, src, sh.split, (uint64_t)k * TS, own_tile_elems(sh.nsym, TS, k),
                                    dst + pos);
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

/* The core's ans_chunk_check for a chunk of version `version` exactly (3,
 * or the dev v4 of ans4_ref.h, which shares the chunk layout): header,
 * table, padding, tile table, total length.  OWN_HD: the dev header
 * kernels call it too. */
OWN_HD oc_status ans3_chunk_check_v(const uint8_t *src, size_t n, uint64_t cap, ans_chunk *k, ans_table *t,
                                    uint32_t version)
{
    own_header h;
    oc_status st = own_header_read_v(src, n, OWN_ID_ANS, version, &h);
    if (st != OC_OK)
        return st;
    if (h.version != version)
        return OC_ERR_CORRUPT;
    k->version = h.version;
    k->w = own_type_width(h.dtype);
    if (h.flags > ANS3_TSHIFT_MAX || k->w > 2)
        return OC_ERR_CORRUPT;
    k->size = h.size;
    ans_shape_of(h.size, k->w, &k->sh);
    k->sh.ntiles = own_tile_count(k->sh.nsym, ans3_tile_of(h.flags));
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
        uint32_t pad = (4u - k->tile_tab % 4u) % 4u;
        if ((uint64_t)k->tile_tab + pad > n)
            return OC_ERR_TRUNCATED;
        for (uint32_t i = 0; i < pad; i++)
            if (src[k->tile_tab + i] != 0)
                return OC_ERR_CORRUPT;
        k->tile_tab += pad;
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

OWN_HD oc_status ans3_chunk_check(const uint8_t *src, size_t n, uint64_t cap, ans_chunk *k, ans_table *t)
{
    return ans3_chunk_check_v(src, n, cap, k, t, ANS3_VERSION);
}

/* The core's ans_chunk_geometry for a v3 chunk that ans3_chunk_check
 * accepted (its tiles of ans3_tile_of(flags) symbols). */
OWN_HD void ans3_chunk_geometry(const uint8_t *src, ans_chunk *k)
{
    k->version = src[1];
    k->w = own_type_width(src[2]);
    k->size = oc_load_le32(src + 4);
    ans_shape_of(k->size, k->w, &k->sh);
    k->sh.ntiles = own_tile_count(k->sh.nsym, ans3_tile_of(src[3]));
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
    k->tile_tab += (4u - k->tile_tab % 4u) % 4u;
    uint64_t last = k->sh.ntiles ? oc_load_le32(src + k->tile_tab + 4ull * (k->sh.ntiles - 1)) : 0;
    k->limit = (uint64_t)k->tile_tab + 4ull * k->sh.ntiles + last;
}

/* Decodes lane `lane` of a v3 tile (NOTES' decoding, line for line):
 * stored states sa, sb, words w[0..nw) (u32, read upward), the symbols
 * i = lane + 32 k < cnt to out[i * stride] (out NULL: checks only).
 * dt: ans_dentry's entries.  Returns 0, or 1 for CORRUPT. */
static inline int ans3_decode_lane(const uint32_t *dt, uint32_t pb, uint32_t sa, uint32_t sb,
                                   const uint8_t *w, uint32_t nw, uint32_t lane, uint32_t cnt, uint8_t *out,
                                   uint32_t stride)
{
    if (sa == 0 || sb == 0)
        return 1;
    uint64_t x[2] = {sa, sb}, mask = (1u << pb) - 1u;
    uint32_t r = 0;
    for (int h = 0; h < 2; h++) {
        if (x[h] < ANS2_L) {
            if (r == nw)
                return 1;
            x[h] = (x[h] << 32) | oc_load_le32(w + 4ull * r++);
        }
    }
    uint32_t k = 0;
    for (uint32_t i = lane; i < cnt; i += ANS_LANES, k++) {
        uint64_t v = x[k & 1u];
        uint32_t e = dt[v & mask];
        v = (uint64_t)(((e >> 8) & 0xfffu) + 1u) * (v >> pb) + (e >> 20);
        if (out)
            out[(uint64_t)i * stride] = (uint8_t)e;
        if (v < ANS2_L) {
            if (r == nw)
                return 1;
            v = (v << 32) | oc_load_le32(w + 4ull * r++);
        }
        x[k & 1u] = v;
    }
    return r != nw || x[0] != ANS2_L || x[1] != ANS2_L;
}

/* Decodes a v3 tile (src[0..n)) of cnt symbols: OK or CORRUPT (also a
 * tile shorter than its head, or not exactly its head and its words). */
static inline oc_status ans3_decode_tile(const uint32_t *dt, uint32_t pb, const uint8_t *src, uint64_t n,
                                         uint32_t cnt, uint8_t *out, uint32_t stride)
{
    if (n < ANS3_TILE_HEAD)
        return OC_ERR_CORRUPT;
    uint64_t at = ANS3_TILE_HEAD;
    for (uint32_t l = 0; l < ANS_LANES; l++)
        at += 4ull * oc_load_le16(src + 8 * ANS_LANES + 2 * l);
    if (at != n)
        return OC_ERR_CORRUPT;
    at = ANS3_TILE_HEAD;
    int bad = 0;
    for (uint32_t l = 0; l < ANS_LANES; l++) {
        uint32_t nw = oc_load_le16(src + 8 * ANS_LANES + 2 * l);
        bad |= ans3_decode_lane(dt, pb, oc_load_le32(src + 4 * l), oc_load_le32(src + 4 * (ANS_LANES + l)),
                                src + at, nw, l, cnt, out, stride);
        at += 4ull * nw;
    }
    return bad ? OC_ERR_CORRUPT : OC_OK;
}

/* Decodes a v3 chunk (the core's ans_decompress_chunk with v3 tiles). */
static inline oc_status ans3_decompress_chunk(ans3_ws *ws, const uint8_t *src, size_t n, uint8_t *dst,
                                              uint64_t cap, uint64_t *out)
{
    ans_chunk k;
    ans_table t;
    memset(&k, 0, sizeof k);
    memset(&t, 0, sizeof t);
    *out = 0;
    oc_status st = ans3_chunk_check(src, n, dst ? cap : UINT64_MAX, &k, &t);
    if (st != OC_OK)
        return st;
    if (k.mode == 1) {
        for (uint32_t slot = 0; slot < (1u << t.pb); slot++)
            ws->dt[slot] = ans_dentry(&t, slot);
        const uint32_t TS = ans3_tile_of(src[3]);
        for (uint32_t tile = 0; tile < k.sh.ntiles; tile++) {
            uint64_t a, b, first = (uint64_t)tile * TS;
            uint32_t cnt = own_tile_elems(k.sh.nsym, TS, tile);
            st = own_tile_span(src, k.tile_tab, k.sh.ntiles, tile, k.limit, &a, &b);
            if (st == OC_OK) {
                uint8_t *o = dst ? dst + (k.sh.split ? 2 * first + 1 : first) : NULL;
                st = ans3_decode_tile(ws->dt, t.pb, src + a, b - a, cnt, o, k.sh.split ? 2u : 1u);
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

#endif /* OC_ANS3_REF_H */
