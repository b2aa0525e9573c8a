/*
 * bc_enc_write32.cuh - why this exists: the library's Bitcomp encoder is
 * issue-bound (H200, ncu: 0.68 issued a scheduler; bf16 6.5
 * warp-instructions a byte) at 0.14-0.36x nVCOMP.  Session 9 cut its
 * statistics pass to 32-bit arithmetic for elements of 1-4 bytes
 * (bc_enc_choose32: 0.67x the instructions); its write pass is still the
 * core's bc_enc_write, written for every width: a load through bc_load's
 * run-time width switch, a switch on the block's kind per element, a
 * 64-bit own_put_bits (64-bit positions and shifts, up to three shared
 * atomicOr), and for PLANES blocks (bf16 and f32 weights) bc_pext, a loop
 * over the mask's runs with two 64-bit ctz per run, per element.
 *
 * bc_enc_write32<W> writes the same bits for W <= 4 in 32-bit arithmetic:
 * the kind switch hoisted out of the element loop, a typed load from the
 * staged tile, DELTA's predecessor by a shuffle (bc_ld32_pair), a 32-bit
 * put (one or two atomicOr), and PLANES' extraction by the block's run
 * table found once (bc_dec32.cuh's bc_runs: up to 4 runs, more take
 * bc_pext).  write32-out also copies the coded tile out a word a thread
 * (one shared load, four byte stores) instead of the core's byte a thread
 * (bc_stage_out).  The headers, the choice and the layout are the
 * library's, so the bytes must be the library's (bc_dev compares every
 * slot).  An experiment for bc_dev; it moves into the library only after
 * a measured win (bench/gpu/owncodecs/NOTES.md).
 */
#ifndef BC_ENC_WRITE32_CUH
#define BC_ENC_WRITE32_CUH

#include "bc_dec32.cuh"

/* ORs the k (<= 32) bits of x into the stage at bit p (the words start zeroed). */
static __device__ __forceinline__ void bc_put32(uint32_t *S, uint32_t p, uint32_t x, uint32_t k)
{
    uint32_t i = p >> 5, sh = p & 31u;
    atomicOr(&S[i], x << sh);
    if (sh + k > 32u)
        atomicOr(&S[i + 1], x >> (32u - sh));
}

/* A PLANES mask's run table for extraction: OR over r of ((v >> lo[r]) & m[r]) << in[r]. */
static __device__ __forceinline__ uint32_t bc_ext_runs(uint32_t v, const bc_runs *r)
{
    return ((v >> r->lo[0]) & r->m[0]) | (((v >> r->lo[1]) & r->m[1]) << r->in[1]) |
           (((v >> r->lo[2]) & r->m[2]) << r->in[2]) | (((v >> r->lo[3]) & r->m[3]) << r->in[3]);
}

/* Block b's kind byte and header (lane 0): the core's bc_enc_write's. */
static __device__ void bc_enc_header(uint32_t *S, const bc_block *bl, uint32_t b, uint32_t bits)
{
    uint64_t h = 8ull * bl->hoff;
    own_put_bits(S, 8ull * b, bl->wire, 8);
    switch (bl->kind) {
    case BC_CONST:
        own_put_bits(S, h, bl->a, bits);
        break;
    case BC_FOR:
    case BC_DELTA: {
        uint32_t sh = bl->wire == BC_FOR_S || bl->wire == BC_DELTA_S;
        own_put_bits(S, h, bl->k | (bl->s << 8), 8u + 8u * sh);
        own_put_bits(S, h + 8u + 8u * sh, bl->a, bits);
        if (bl->kind == BC_DELTA)
            own_put_bits(S, h + 8u + 8u * sh + bits, bl->b, bits);
        break;
    }
    case BC_PLANES:
        own_put_bits(S, h, bl->a, bits);
        own_put_bits(S, h + bits, bl->b, bits);
        break;
    case BC_DEC:
        own_put_bits(S, h, bl->s | (bl->k << 8), 16);
        own_put_bits(S, h + 16, bl->a, bits);
        break;
    default: {
        uint32_t bm = (bl->cnt + 7u) / 8u;
        for (uint32_t q = 0; q < bm; q++)
            own_put_bits(S, h + 8ull * q, (bl->bitmap[q / 4] >> (8 * (q % 4))) & 0xffu, 8);
        own_put_bits(S, h + 8ull * bm, bl->k | (bl->s << 8), 16);
        own_put_bits(S, h + 8ull * bm + 16, bl->a, bits);
        break;
    }
    }
}

/* The core's bc_enc_write for elements of W <= 4 bytes (the same bits). */
template <uint32_t W>
static __device__ void bc_enc_write32(bc_ws *ws, const uint8_t *src, uint32_t wp, uint32_t nw)
{
    uint32_t *S = ws->stage;
    const uint32_t m = W == 4 ? 0xffffffffu : (1u << (8u * W)) - 1u;
    const uint32_t L = OWN_LANE();
    for (uint32_t b = wp; b < ws->nb; b += nw) {
        const bc_block *bl = &ws->blk[b];
        const uint8_t *p = src + (uint64_t)b * BC_BLOCK * W;
        if (L == 0)
            bc_enc_header(S, bl, b, 8u * W);
        uint32_t kind = bl->kind, cnt = bl->cnt, k = bl->k, s = bl->s, p0 = (uint32_t)bl->poff;
        uint32_t a = (uint32_t)bl->a, bb = (uint32_t)bl->b;
        switch (kind) {
        case BC_CONST:
            break;
        case BC_FOR:
            for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                bc_put32(S, p0 + e * k, ((bc_ld32<W>(p, e) - a) & m) >> s, k);
            break;
        case BC_DELTA: {
            uint32_t carry = 0;
            for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
                uint32_t e = base + L, pv, v = bc_ld32_pair<W>(p, e, cnt, &carry, &pv);
                if (e < cnt && e > 0)
                    bc_put32(S, p0 + (e - 1) * k, (((v - pv) - bb) & m) >> s, k);
            }
            break;
        }
        case BC_PLANES: {
            uint32_t kb = (uint32_t)__popc(a);
            bc_runs r = bc_runs_of(a);
            if (r.ok) {
                for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                    bc_put32(S, p0 + e * kb, bc_ext_runs(bc_ld32<W>(p, e), &r), kb);
            } else {
                for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                    bc_put32(S, p0 + e * kb, (uint32_t)bc_pext(bc_ld32<W>(p, e), a), kb);
            }
            break;
        }
        case BC_SPARSE:
            for (uint32_t e = L; e < cnt; e += OWN_NLANES) {
                uint32_t v = bc_ld32<W>(p, e), q = e / 32u;
                if (v) {
                    uint32_t rank = (uint32_t)__popc(bl->bitmap[q] & ((1u << (e % 32u)) - 1u));
                    for (uint32_t j = 0; j < q; j++)
                        rank += (uint32_t)__popc(bl->bitmap[j]);
                    bc_put32(S, p0 + rank * k, ((v - a) & m) >> s, k);
                }
            }
            break;
        default: /* DEC (f32): the core's arithmetic */
            for (uint32_t e = L; e < cnt; e += OWN_NLANES) {
                int64_t d = 0;
                (void)bc_dec_exact(bc_ld32<W>(p, e), s, ws->flt, &d); /* exact: the choice checked it */
                own_put_bits(S, bl->poff + (uint64_t)e * k, ((uint64_t)d - bl->a) & m, k);
            }
            break;
        }
    }
}

/* bc_encode_tile32 (the library's) with bc_enc_write32 for widths 1, 2 and 4. */
static __device__ uint32_t bc_encode_tile32w(bc_ws *ws, const uint8_t *src, uint32_t cnt, uint32_t dtype,
                                             uint32_t algo, uint32_t nw)
{
    uint32_t w = own_type_width(dtype), raw = cnt * w;
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, algo);
    if (w == 4)
        OWN_RUN(nw, bc_enc_choose32<4>, ws, src);
    else if (w == 2)
        OWN_RUN(nw, bc_enc_choose32<2>, ws, src);
    else if (w == 1)
        OWN_RUN(nw, bc_enc_choose32<1>, ws, src);
    else
        OWN_RUN(nw, bc_enc_choose, ws, src);
    OWN_RUN(nw, bc_enc_layout, ws);
    uint32_t size = ws->size;
    if (size >= raw)
        return raw;
    OWN_RUN(nw, bc_enc_zero, ws, (size + 3u) / 4u + 4u);
    if (w == 4)
        OWN_RUN(nw, bc_enc_write32<4>, ws, src);
    else if (w == 2)
        OWN_RUN(nw, bc_enc_write32<2>, ws, src);
    else if (w == 1)
        OWN_RUN(nw, bc_enc_write32<1>, ws, src);
    else
        OWN_RUN(nw, bc_enc_write, ws, src);
    return size;
}

static __device__ uint32_t bc_tile_encode_w32(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt,
                                              uint32_t dtype, uint32_t nw)
{
    bc_ws_in *W = (bc_ws_in *)ws;
    bc_in_stage(W->in, tile, cnt * own_type_width(dtype));
    return bc_encode_tile32w(&W->ws, (const uint8_t *)W->in, cnt, dtype, *(const uint32_t *)opts, nw);
}

/* The coded tile out, a word of the stage a thread (the core's: a byte a thread). */
static __device__ void bc_stage_out32(const bc_ws *ws, uint32_t n, uint8_t *dst, uint32_t wp, uint32_t nw)
{
    uint32_t words = (n + 3u) / 4u;
    for (uint32_t k = wp * OWN_NLANES + OWN_LANE(); k < words; k += nw * OWN_NLANES) {
        uint32_t x = ws->stage[k], at = 4u * k;
#pragma unroll
        for (uint32_t j = 0; j < 4; j++)
            if (at + j < n)
                dst[at + j] = (uint8_t)(x >> (8u * j));
    }
}

static __device__ void bc_tile_put32(void *ws, uint32_t size, uint8_t *dst, uint32_t nw)
{
    OWN_RUN(nw, bc_stage_out32, (const bc_ws *)ws, size, dst);
}

/* The library's bc_k_encode with the write32 tile encoder (out32: and bc_tile_put32). */
template <int OUT32>
static __global__ void __launch_bounds__(BCK_THREADS, 3)
    bc_k_encode_w32(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                    const size_t *caps, size_t *dst_sizes, oc_status *statuses, uint32_t dtype, uint32_t algo)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    bc_ws_in *ws = (bc_ws_in *)bc_smem;
    own_tiled_encode(n, src, src_sizes, dst, caps, dst_sizes, statuses,
                     [=](const uint8_t *p, size_t len, uint8_t *d, size_t cap, uint64_t *out) {
                         *out = 0;
                         if (own_type_width(dtype) == 0 || algo > 1)
                             return OC_ERR_INVALID_ARGUMENT;
                         uint32_t a = algo;
                         return own_tiled_compress(ws, &a, p, len, OWN_ID_BITCOMP, dtype, algo, BC_TILE, d,
                                                   cap, out, BCK_WARPS, bc_tile_encode_w32,
                                                   OUT32 ? bc_tile_put32 : bc_tile_put, bc_bytes_copy);
                     });
}

#endif /* BC_ENC_WRITE32_CUH */
