/*
 * ans4_ref.h - why this exists: ANS format v3 (two states a lane) lost on
 * the H200 because the decoder is bound by instructions a step, not by the
 * state chain (bench/gpu/owncodecs/NOTES.md, "Session 11, call B outcome").
 * Dev format v4 ("ANS format version 4" in the NOTES) cuts the step's
 * arithmetic instead: 32-bit states in [2^16, 2^32) renormalised by 16-bit
 * words, each lane with its own run of words (v2's layout, no vote), runs
 * padded to 4 bytes so that a GPU window copies them as 4-byte units.  This
 * is its CPU reference (encoder for the dev harness ans3_dev.cu, decoder for
 * what the GPU must give back), over the core's table and chunk layout (a
 * v2 chunk with header byte 1 = 4; ans3_ref.h's chunk check and geometry).
 * Host code only (C11, and C++ in the .cu harness).
 */
#ifndef OC_ANS4_REF_H
#define OC_ANS4_REF_H

#include "ans3_ref.h"

#define ANS4_VERSION 4u
#define ANS4_L 65536u                                    /* states live in [ANS4_L, 2^32) */
#define ANS4_TILE_HEAD (4u * ANS_LANES + 2u * ANS_LANES) /* 32 u32 states, 32 u16 word counts */

/* Encodes lane `lane` of a v4 tile (symbols i = lane + 32 k of cnt) from
 * its last symbol back; the m-th 16-bit word emitted goes to end - 2 (m +
 * 1) (end NULL: counted only).  Returns the word count; the state in *s. */
static inline uint32_t ans4_encode_lane(const ans_table *t, const uint8_t *data, uint32_t split,
                                        uint64_t first, uint32_t cnt, uint32_t lane, uint8_t *end,
                                        uint32_t *s)
{
    uint32_t x = ANS4_L, nw = 0, pb = t->pb;
    if (lane < cnt) {
        for (uint32_t k = (cnt - 1 - lane) / ANS_LANES + 1; k-- > 0;) {
            uint32_t sym = ans_sym(data, split, first + lane + (uint64_t)k * ANS_LANES), f = t->f[sym];
            if ((uint64_t)x >= (uint64_t)f << (32u - pb)) {
                if (end) {
                    end[-2 * (int64_t)(nw + 1)] = (uint8_t)x;
                    end[-2 * (int64_t)(nw + 1) + 1] = (uint8_t)(x >> 8);
                }
                nw++;
                x >>= 16;
            }
            x = ((x / f) << pb) + x % f + t->c[sym];
        }
    }
    *s = x;
    return nw;
}

/* A v4 tile: its size (out NULL), or written to out: the head, then each
 * lane's words (W_l[0] first), padded with a zero u16 to 4 bytes. */
static inline uint64_t ans4_encode_tile(ans3_ws *ws, const ans_table *t, const uint8_t *data, uint32_t split,
                                        uint64_t first, uint32_t cnt, uint8_t *out)
{
    uint64_t at = ANS4_TILE_HEAD;
    for (uint32_t lane = 0; lane < ANS_LANES; lane++) {
        uint32_t st;
        uint8_t *end = ws->words + sizeof ws->words;
        uint32_t nw = ans4_encode_lane(t, data, split, first, cnt, lane, out ? end : NULL, &st);
        uint32_t padded = (nw + 1u) & ~1u;
        if (out) {
            oc_store_le32(out + 4 * lane, st);
            out[4 * ANS_LANES + 2 * lane] = (uint8_t)nw;
            out[4 * ANS_LANES + 2 * lane + 1] = (uint8_t)(nw >> 8);
            memcpy(out + at, end - 2 * nw, 2 * nw);
            if (padded != nw) {
                out[at + 2 * nw] = 0;
                out[at + 2 * nw + 1] = 0;
            }
        }
        at += 2ull * padded;
    }
    return at;
}

/* Compresses src[0..n) into a v4 chunk (ans3_compress_chunk with v4 tiles). */
static inline oc_status ans4_compress_chunk(ans3_ws *ws, const uint8_t *src, uint64_t n, uint32_t dtype,
                                            uint8_t *dst, uint64_t cap, uint64_t *out)
{
    *out = 0;
    uint32_t w = own_type_width(dtype);
    if (w == 0 || w > 2)
        return OC_ERR_INVALID_ARGUMENT;
    if (n > OWN_MAX_CHUNK)
        return OC_ERR_CHUNK_TOO_LARGE;
    ans_shape sh;
    ans_shape_of(n, w, &sh);
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
            coded += ans4_encode_tile(ws, &t, src, sh.split, (uint64_t)k * ANS_TILE,
                                      own_tile_elems(sh.nsym, ANS_TILE, k), NULL);
    }
    uint64_t stored = OWN_HEADER_SIZE + 1u + sh.nsym;
    uint32_t mode = coded < stored;
    uint64_t total = (mode ? coded : stored) + sh.lo + sh.tail;
    if (total > cap)
        return OC_ERR_OUTPUT_TOO_SMALL;
    own_header_write_v(dst, OWN_ID_ANS, ANS4_VERSION, dtype, 0, (uint32_t)n);
    dst[OWN_HEADER_SIZE] = (uint8_t)mode;
    uint64_t pos = OWN_HEADER_SIZE + 1u;
    if (mode) {
        pos += ans_table_write(&t, dst + pos);
        while (pos % 4u)
            dst[pos++] = 0;
        uint64_t tab = pos, base = pos + 4ull * sh.ntiles;
        pos = base;
        for (uint32_t k = 0; k < sh.ntiles; k++) {
            pos += ans4_encode_tile(ws, &t, src, sh.split, (uint64_t)k * ANS_TILE,
                                    own_tile_elems(sh.nsym, ANS_TILE, k), dst + pos);
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

/* A v4 chunk's check: ans3_chunk_check_v for version 4, flags 0 only. */
OWN_HD oc_status ans4_chunk_check(const uint8_t *src, size_t n, uint64_t cap, ans_chunk *k, ans_table *t)
{
    oc_status st = ans3_chunk_check_v(src, n, cap, k, t, ANS4_VERSION);
    if (st == OC_OK && src[3] != 0)
        return OC_ERR_CORRUPT;
    return st;
}

/* Decodes lane `lane` of a v4 tile: state s, words w (u16, nw of them,
 * read upward), symbols to out[i * stride] (NULL: checks only).  Returns 0,
 * or 1 for CORRUPT. */
static inline int ans4_decode_lane(const uint32_t *dt, uint32_t pb, uint32_t s, const uint8_t *w, uint32_t nw,
                                   uint32_t lane, uint32_t cnt, uint8_t *out, uint32_t stride)
{
    if (s < ANS4_L)
        return 1;
    uint32_t x = s, mask = (1u << pb) - 1u, r = 0;
    for (uint32_t i = lane; i < cnt; i += ANS_LANES) {
        uint32_t e = dt[x & mask];
        x = (((e >> 8) & 0xfffu) + 1u) * (x >> pb) + (e >> 20);
        if (out)
            out[(uint64_t)i * stride] = (uint8_t)e;
        if (x < ANS4_L) {
            if (r == nw)
                return 1;
            x = (x << 16) | oc_load_le16(w + 2ull * r++);
        }
    }
    return r != nw || x != ANS4_L;
}

/* Decodes a v4 tile (src[0..n)) of cnt symbols: OK or CORRUPT (a tile not
 * exactly its head and its padded runs, or a non-zero pad word). */
static inline oc_status ans4_decode_tile(const uint32_t *dt, uint32_t pb, const uint8_t *src, uint64_t n,
                                         uint32_t cnt, uint8_t *out, uint32_t stride)
{
    if (n < ANS4_TILE_HEAD)
        return OC_ERR_CORRUPT;
    uint64_t at = ANS4_TILE_HEAD;
    for (uint32_t l = 0; l < ANS_LANES; l++)
        at += 4ull * ((oc_load_le16(src + 4 * ANS_LANES + 2 * l) + 1u) / 2u);
    if (at != n)
        return OC_ERR_CORRUPT;
    at = ANS4_TILE_HEAD;
    int bad = 0;
    for (uint32_t l = 0; l < ANS_LANES; l++) {
        uint32_t nw = oc_load_le16(src + 4 * ANS_LANES + 2 * l);
        if (nw & 1u)
            bad |= oc_load_le16(src + at + 2ull * nw) != 0;
        bad |= ans4_decode_lane(dt, pb, oc_load_le32(src + 4 * l), src + at, nw, l, cnt, out, stride);
        at += 4ull * ((nw + 1u) / 2u);
    }
    return bad ? OC_ERR_CORRUPT : OC_OK;
}

/* Decodes a v4 chunk (ans3_decompress_chunk with v4 tiles). */
static inline oc_status ans4_decompress_chunk(ans3_ws *ws, const uint8_t *src, size_t n, uint8_t *dst,
                                              uint64_t cap, uint64_t *out)
{
    ans_chunk k;
    ans_table t;
    memset(&k, 0, sizeof k);
    memset(&t, 0, sizeof t);
    *out = 0;
    oc_status st = ans4_chunk_check(src, n, dst ? cap : UINT64_MAX, &k, &t);
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
                st = ans4_decode_tile(ws->dt, t.pb, src + a, b - a, cnt, o, k.sh.split ? 2u : 1u);
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

#endif /* OC_ANS4_REF_H */
