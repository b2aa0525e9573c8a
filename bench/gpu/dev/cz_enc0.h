/*
 * cz_enc0.h - why this exists: until session 8 the Cascaded encoder
 * (cascaded_core.h's cz_encode_tile) ran every layer of a tile twice,
 * once to learn the coded size and once more to write, and copied the tile
 * into shared memory a byte per thread each time.  The library now runs
 * the layers once, writing into a zeroed stage (a stream is written only
 * while it ends within the raw size), and copies the tile by 16-byte
 * loads: the same bytes.  This is the encoder before, kept for the A/B
 * (cz_dev's `two-pass`) and as the reference of `make check-cz-enc0` (the
 * library's encoder against this one on the CPU: the same sizes, statuses
 * and bytes).  bench/gpu/owncodecs/NOTES.md, "Session 8", has the numbers.
 * Session 11 brought it up to the library's choices (layers that do not
 * pay dropped, format version 2's stream modes through the core's
 * cz_enc_header), so the check still compares the passes.
 * C11 like the core (own_simt.h's model).
 */
#ifndef OC_CZ_ENC0_H
#define OC_CZ_ENC0_H

#include "cores/cascaded/cascaded_core.h"

/* Loads the tile's cnt elements (raw bytes) into buf[0]. */
OWN_DEV void cz0_enc_load(cz_ws *ws, const uint8_t *src, uint32_t nbytes, uint32_t wp, uint32_t nw)
{
    uint8_t *b = (uint8_t *)ws->buf[0];
#ifdef __CUDA_ARCH__
    uint32_t lo, hi;
    cz_seg(nbytes, wp, nw, &lo, &hi);
    for (uint32_t k = lo + OWN_LANE(); k < hi; k += OWN_NLANES)
        b[k] = src[k];
#else
    if (wp == 0)
        memcpy(b, src, nbytes);
    (void)nw;
#endif
}

/* One stream: statistics, header, payload when writing. */
OWN_DEV void cz0_enc_stream(cz_ws *ws, int runs, uint32_t count, int write, uint32_t nw)
{
    OWN_RUN(nw, cz_enc_stats, ws, runs, count);
    OWN_RUN(nw, cz_enc_header, ws, runs, count, write); /* the core's since session 11 (version 2's modes) */
    if (write)
        OWN_RUN(nw, cz_enc_pack, ws, runs);
}

/* Runs the layers (rles, deltas) over the tile's ws->cnt elements at src
 * (loaded into buf[0]; the layers overwrite it): returns the coded size;
 * with `write`, the coded tile is in the stage (which the caller zeroed).
 * The bytes are those of the format whatever nw is. */
OWN_DEV uint32_t cz0_enc_layers(cz_ws *ws, const uint8_t *src, uint32_t rles, uint32_t deltas, int write,
                                uint32_t nw)
{
    uint8_t ops[CZ_MAX_OPS];
    uint32_t nops = cz_ops(rles, deltas, ops);
    uint32_t c = ws->cnt, cur = 0;
    OWN_RUN(nw, cz0_enc_load, ws, src, c * ws->w);
    if (write) {
        uint32_t cfg = rles | (deltas << 2);
        if (OWN_ONE_THREAD)
            ws->stage[0] |= cfg;
    }
    OWN_RUN(nw, cz_enc_set, ws, 0u, 1u + deltas * ws->w);
    uint32_t kd = 0;
    for (uint32_t k = 0; k < nops; k++) {
        if (ops[k] == CZ_OP_RLE) {
            OWN_RUN(nw, cz_rle_count, ws, c);
            OWN_RUN(nw, cz_rle_compact, ws, c);
            c = ws->runs;
            cur ^= 1u;
            OWN_RUN(nw, cz_enc_set, ws, cur, 0u);
            cz0_enc_stream(ws, 1, c, write, nw);
        } else {
            OWN_RUN(nw, cz_delta_fwd, ws, c, kd++, write);
            cur ^= 1u;
            OWN_RUN(nw, cz_enc_set, ws, cur, 0u);
        }
    }
    cz0_enc_stream(ws, 0, c, write, nw);
    return ws->pos;
}

/* Encodes one tile of cnt elements of w bytes at src: returns its size;
 * the coded tile is left in the stage, or, when coding does not make it
 * smaller, the size is cnt * w and the tile is stored as it is (the
 * caller copies src).  rles > CZ_MAX_RLES asks for the automatic choice.
 * Runs in every thread of the CTA. */
OWN_DEV uint32_t cz0_encode_tile(cz_ws *ws, const uint8_t *src, uint32_t cnt, uint32_t w, uint32_t rles,
                                 uint32_t deltas, uint32_t bitpack, uint32_t nw)
{
    uint32_t raw = cnt * w;
#ifdef __CUDA_ARCH__
    if (threadIdx.x == 0) {
        ws->w = w;
        ws->cnt = cnt;
        ws->bitpack = bitpack;
    }
    __syncthreads();
#else
    ws->w = w;
    ws->cnt = cnt;
    ws->bitpack = bitpack;
#endif
    uint32_t chosen = rles > CZ_MAX_RLES;
    if (chosen) {
        uint32_t best = ~0u;
        for (uint32_t i = 0; i < CZ_AUTO_CANDIDATES; i++) {
            uint32_t r, d;
            cz_auto_candidate(i, &r, &d);
            uint32_t size = cz0_enc_layers(ws, src, r, d, 0, nw);
            if (size < best) {
                best = size;
                rles = r;
                deltas = d;
            }
        }
    }
    uint32_t size = cz0_enc_layers(ws, src, rles, deltas, 0, nw);
    if (bitpack && !chosen && (rles | deltas) != 0u) { /* the library's rule: bare when smaller */
        uint32_t bare = cz0_enc_layers(ws, src, 0u, 0u, 0, nw);
        if (bare < size)
            size = bare, rles = 0u, deltas = 0u;
    }
    if (size >= raw)
        return raw;
    OWN_RUN(nw, cz_enc_zero, ws, (size + 3u) / 4u + 4u);
    cz0_enc_layers(ws, src, rles, deltas, 1, nw);
    return size;
}

/* own_tiled_compress's tile encoder of the two-pass encoder; the options are a cz_layers. */
OWN_DEV uint32_t cz0_tile_encode(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt,
                                 uint32_t dtype, uint32_t nw)
{
    const cz_layers *L = (const cz_layers *)opts;
    return cz0_encode_tile((cz_ws *)ws, tile, cnt, own_type_width(dtype), L->rles, L->deltas, L->bitpack, nw);
}

/* cz_compress_chunk with the two-pass encoder. */
OWN_DEV oc_status cz0_compress_chunk(cz_ws *ws, const uint8_t *src, uint64_t n, uint32_t dtype, cz_layers L,
                                     uint8_t *dst, uint64_t cap, uint64_t *out, uint32_t nw)
{
    *out = 0;
    uint32_t w = own_type_width(dtype);
    if (w == 0)
        return OC_ERR_INVALID_ARGUMENT;
    return own_tiled_compress_v(ws, &L, src, n, OWN_ID_CASCADED, CZ_VERSION, dtype, 0, cz_tile_elems(w), dst,
                                cap, out, nw, cz0_tile_encode, cz_tile_put, cz_bytes_copy);
}

#endif /* OC_CZ_ENC0_H */
