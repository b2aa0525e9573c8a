/*
 * cz_enc1.h - why this exists: the Cascaded encoder (cascaded_core.h's
 * cz_encode_tile) runs every layer of a tile twice, once to learn the
 * coded size (is it below the raw size?) and once more to write the bytes,
 * and loads the tile into shared memory a byte per thread each time.  On
 * the H100 it compresses at 0.58x nVCOMP on i32 columns (cz_dev, session 7
 * call B).  This is the encoder with one writing pass (the stage zeroed
 * first, each stream written only while it ends within the raw size, so a
 * tile that comes out larger never writes past the stage, and is stored
 * raw as before) and, on the GPU, the tile loaded by 16-byte copies.  The
 * same bytes as the core's encoder for every input: a C11 source like the
 * core (own_simt.h's model), checked on the host against cz_compress_chunk
 * by cz_enc1_cpu_check.c and on the GPU by cz_dev (bench/gpu/owncodecs/
 * NOTES.md, "Cascaded compression in one pass").
 *
 * cz1_compress_chunk(..., vload): vload 1 loads the tile by 16-byte
 * copies where the tile is 16-byte aligned (GPU only; C copies with
 * memcpy either way), 0 a byte per thread as the core does.
 */
#ifndef OC_CZ_ENC1_H
#define OC_CZ_ENC1_H

#include "cores/cascaded/cascaded_core.h"

/* The tile's cnt * w bytes into buf[0]: 16-byte copies when vload and
 * src is 16-byte aligned (buf[0] is: the workspace is, and the stage before
 * it is a multiple of 16 bytes), else a byte per thread. */
OWN_DEV void cz1_enc_load(cz_ws *ws, const uint8_t *src, uint32_t nbytes, uint32_t vload, uint32_t wp,
                          uint32_t nw)
{
#ifdef __CUDA_ARCH__
    uint8_t *b = (uint8_t *)ws->buf[0];
    uint32_t lo, hi;
    if (vload && ((uintptr_t)src & 15u) == 0) {
        uint32_t v = nbytes / 16u;
        cz_seg(v, wp, nw, &lo, &hi);
        for (uint32_t k = lo + OWN_LANE(); k < hi; k += OWN_NLANES)
            ((uint4 *)b)[k] = __ldg((const uint4 *)src + k);
        if (wp == nw - 1u)
            for (uint32_t k = 16u * v + OWN_LANE(); k < nbytes; k += OWN_NLANES)
                b[k] = src[k];
        return;
    }
    cz_seg(nbytes, wp, nw, &lo, &hi);
    for (uint32_t k = lo + OWN_LANE(); k < hi; k += OWN_NLANES)
        b[k] = src[k];
#else
    (void)vload;
    if (wp == 0)
        memcpy(ws->buf[0], src, nbytes);
    (void)nw;
#endif
}

/* cz_enc_header with one change: the header bytes are written only when
 * the stream ends within the tile's raw size (ws->cnt * ws->w), so that
 * the stage (raw size + 64 bytes) is never written past; a stream that
 * ends beyond it makes the tile raw anyway (its size only grows). */
OWN_DEV void cz1_enc_header(cz_ws *ws, int runs, uint32_t count, int write, uint32_t wp, uint32_t nw)
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
    if (write && pos + size <= ws->cnt * ws->w) {
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

/* One stream: statistics, header, and the payload when writing and the
 * stream ends within the raw size (ws->pos is its end after the header). */
OWN_DEV void cz1_enc_stream(cz_ws *ws, int runs, uint32_t count, int write, uint32_t nw)
{
    OWN_RUN(nw, cz_enc_stats, ws, runs, count);
    OWN_RUN(nw, cz1_enc_header, ws, runs, count, write);
    if (write && ws->pos <= ws->cnt * ws->w)
        OWN_RUN(nw, cz_enc_pack, ws, runs);
}

/* cz_enc_layers through cz1_enc_stream and cz1_enc_load. */
OWN_DEV uint32_t cz1_enc_layers(cz_ws *ws, const uint8_t *src, uint32_t rles, uint32_t deltas, int write,
                                uint32_t vload, uint32_t nw)
{
    uint8_t ops[CZ_MAX_OPS];
    uint32_t nops = cz_ops(rles, deltas, ops);
    uint32_t c = ws->cnt, cur = 0;
    OWN_RUN(nw, cz1_enc_load, ws, src, c * ws->w, vload);
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
            cz1_enc_stream(ws, 1, c, write, nw);
        } else {
            OWN_RUN(nw, cz_delta_fwd, ws, c, kd++, write);
            cur ^= 1u;
            OWN_RUN(nw, cz_enc_set, ws, cur, 0u);
        }
    }
    cz1_enc_stream(ws, 0, c, write, nw);
    return ws->pos;
}

/* cz_encode_tile in one writing pass: the stage is zeroed over the raw
 * size (and the layer seeds' bytes, for tiny tiles), then the layers run
 * once with writes; the automatic choice still sizes its candidates
 * without writing.  The same return value and stage bytes [0, size). */
OWN_DEV uint32_t cz1_encode_tile(cz_ws *ws, const uint8_t *src, uint32_t cnt, uint32_t w, uint32_t rles,
                                 uint32_t deltas, uint32_t bitpack, uint32_t vload, uint32_t nw)
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
            uint32_t size = cz1_enc_layers(ws, src, r, d, 0, vload, nw);
            if (size < best) {
                best = size;
                rles = r;
                deltas = d;
            }
        }
    }
    /* bytes written: within the raw size (cz1_enc_header's rule), the
     * configuration byte and the delta seeds (1 + 3 * 8 bytes) */
    uint32_t zb = raw > 32u ? raw : 32u;
    OWN_RUN(nw, cz_enc_zero, ws, (zb + 3u) / 4u + 4u);
    uint32_t size = cz1_enc_layers(ws, src, rles, deltas, 1, vload, nw);
    return size >= raw ? raw : size;
}

/* own_tiled_compress's tile encoder; the options are a cz1_opts. */
typedef struct cz1_opts {
    cz_layers L;
    uint32_t vload;
} cz1_opts;

OWN_DEV uint32_t cz1_tile_encode(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt,
                                 uint32_t dtype, uint32_t nw)
{
    const cz1_opts *o = (const cz1_opts *)opts;
    return cz1_encode_tile((cz_ws *)ws, tile, cnt, own_type_width(dtype), o->L.rles, o->L.deltas,
                           o->L.bitpack, o->vload, nw);
}

/* cz_compress_chunk with cz1_encode_tile. */
OWN_DEV oc_status cz1_compress_chunk(cz_ws *ws, const uint8_t *src, uint64_t n, uint32_t dtype, cz_layers L,
                                     uint32_t vload, uint8_t *dst, uint64_t cap, uint64_t *out, uint32_t nw)
{
    *out = 0;
    uint32_t w = own_type_width(dtype);
    if (w == 0)
        return OC_ERR_INVALID_ARGUMENT;
    cz1_opts o;
    o.L = L;
    o.vload = vload;
    return own_tiled_compress(ws, &o, src, n, OWN_ID_CASCADED, dtype, 0, cz_tile_elems(w), dst, cap, out, nw,
                              cz1_tile_encode, cz_tile_put, cz_bytes_copy);
}

#endif /* OC_CZ_ENC1_H */
