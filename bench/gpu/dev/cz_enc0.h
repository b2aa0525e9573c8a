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

/* Stream header (warp 0): chooses raw or packed, computes the block bit
 * offsets and the stream size, and, when `write`, puts the header bytes
 * at ws->pos (the payload follows).  Advances ws->pos by the size. */
OWN_DEV void cz0_enc_header(cz_ws *ws, int runs, uint32_t count, int write, uint32_t wp, uint32_t nw)
{
    (void)nw;
    if (wp != 0)
        return;
    uint32_t ew = runs ? CZ_RUN_BYTES : ws->w;
    uint32_t nb = (count + CZ_BLOCK - 1u) / CZ_BLOCK;
    uint32_t carry = 0;
    for (uint32_t b0 = 0; b0 < nb; b0 += OWN_NLANES) {
        uint32_t b = b0 + OWN_LANE();
        uint32_t bits = 0;
        if (b < nb) {
            uint32_t bc = b + 1 < nb ? CZ_BLOCK : count - b * CZ_BLOCK;
            bits = bc * ws->blk[0][b].width;
        }
        uint32_t incl = own_warp_incl_add32(bits);
        if (b < nb)
            ws->blk[0][b].bit = carry + incl - bits;
        carry += own_warp_last32(incl);
    }
    uint32_t packed = 3u + nb + nb * ew + (carry + 7u) / 8u;
    uint32_t rawsz = 3u + count * ew;
    uint32_t mode = ws->bitpack && packed < rawsz;
    uint32_t pos = ws->pos;
    cz_stream *st = &ws->st[0];
    if (OWN_LANE() == 0) {
        st->count = count;
        st->ew = ew;
        st->mode = mode;
        st->nb = nb;
        st->size = mode ? packed : rawsz;
        st->data = pos + 3u + (mode ? nb + nb * ew : 0u);
    }
    uint32_t size = mode ? packed : rawsz;
    if (write) {
        uint32_t *S = ws->stage;
        if (OWN_LANE() == 0)
            own_put_bits(S, 8ull * pos, (uint64_t)count | ((uint64_t)mode << 16), 24);
        if (mode) {
            for (uint32_t b = OWN_LANE(); b < nb; b += OWN_NLANES) {
                own_put_bits(S, 8ull * (pos + 3u + b), ws->blk[0][b].width, 8);
                own_put_bits(S, 8ull * (pos + 3u + nb + b * ew), ws->blk[0][b].base, 8u * ew);
            }
        }
    }
    OWN_SYNCWARP();
    if (OWN_LANE() == 0)
        ws->pos = pos + size;
}

/* One stream: statistics, header, payload when writing. */
OWN_DEV void cz0_enc_stream(cz_ws *ws, int runs, uint32_t count, int write, uint32_t nw)
{
    OWN_RUN(nw, cz_enc_stats, ws, runs, count);
    OWN_RUN(nw, cz0_enc_header, ws, runs, count, write);
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
    if (rles > CZ_MAX_RLES) {
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
    return own_tiled_compress(ws, &L, src, n, OWN_ID_CASCADED, dtype, 0, cz_tile_elems(w), dst, cap, out, nw,
                              cz0_tile_encode, cz_tile_put, cz_bytes_copy);
}

#endif /* OC_CZ_ENC0_H */
