/*
 * bc_dec32.cuh - why this exists: the library's Bitcomp decoder runs bf16
 * weights at 0.33x nVCOMP (H200, 160 / 493 GB/s) and is issue-bound (ncu,
 * H100, bf16: 0.59 issued a scheduler, 7.9 warp-instructions an element).
 * Its element loop (the core's bc_dec_blocks) is written for every width:
 * a 64-bit bit read (own_bits_get), a switch on the block's kind per
 * element, and for PLANES blocks (every bf16 and f32 weight block)
 * bc_pdep, a loop over the mask's runs with two 64-bit ctz per run, per
 * element.  bc_dec_blocks32<W> is the same decoding for elements of W <= 4
 * bytes in 32-bit arithmetic: the kind switch hoisted out of the element
 * loop (a loop per kind), a bit read of two shared words and a funnel
 * shift, and PLANES' deposit by a run table found once a block (up to 4
 * runs, each element then a fixed shift-and-mask per run; masks of more
 * runs take bc_pdep).  dec-all also takes 8-byte elements out of the
 * core's loop (bc_dec_blocks64: the same hoisting, a bit read of three
 * words and two funnel shifts, 64-bit run tables).  dec-in is dec-all
 * with the compressed tile staged by aligned 4-byte loads (bc_stage_in_w:
 * two a word, funnel-shifted, four words a thread in flight; the words at
 * the tile's two edges by bytes, so nothing outside the tile is read)
 * instead of the core's four byte loads a word.  The same output
 * (bc_dev checks every byte against the input); the parse, the statuses and the format are the core's.  An
 * experiment for bc_dev; it moves into the library only after a measured
 * win (bench/gpu/owncodecs/NOTES.md).
 */
#ifndef BC_DEC32_CUH
#define BC_DEC32_CUH

/* k (<= 32) bits at bit p of the stage (two words: the stage keeps slack). */
static __device__ __forceinline__ uint32_t bc_get32(const uint32_t *S, uint32_t p, uint32_t km)
{
    uint32_t i = p >> 5;
    return __funnelshift_r(S[i], S[i + 1], p & 31u) & km;
}

static __device__ __forceinline__ uint32_t bc_mask32(uint32_t k)
{
    return k >= 32u ? 0xffffffffu : (1u << k) - 1u;
}

template <uint32_t W>
static __device__ __forceinline__ void bc_st32(uint8_t *out, uint32_t e, uint32_t v, int al)
{
    if (al) {
        if (W == 4)
            ((uint32_t *)out)[e] = v;
        else if (W == 2)
            ((uint16_t *)out)[e] = (uint16_t)v;
        else
            out[e] = (uint8_t)v;
    } else {
        for (uint32_t b = 0; b < W; b++)
            out[(uint64_t)e * W + b] = (uint8_t)(v >> (8 * b));
    }
}

/* A PLANES mask's runs of ones (up to 4): element bits x deposit as
 * OR over r of ((x >> in[r]) & m[r]) << lo[r]; more runs: ok = 0. */
typedef struct bc_runs {
    uint32_t lo[4], in[4], m[4];
    int ok;
} bc_runs;

static __device__ __forceinline__ bc_runs bc_runs_of(uint32_t mask)
{
    bc_runs r;
    uint32_t in = 0;
#pragma unroll
    for (int q = 0; q < 4; q++) {
        r.lo[q] = r.in[q] = r.m[q] = 0;
        if (mask) {
            uint32_t lo = (uint32_t)__ffs((int)mask) - 1u, t = mask >> lo;
            uint32_t len = ~t ? (uint32_t)__ffs((int)~t) - 1u : 32u - lo;
            uint32_t mm = bc_mask32(len);
            r.lo[q] = lo, r.in[q] = in, r.m[q] = mm;
            in += len;
            mask &= ~(mm << lo);
        }
    }
    r.ok = mask == 0;
    return r;
}

static __device__ __forceinline__ uint32_t bc_dep_runs(uint32_t x, const bc_runs *r)
{
    return ((x & r->m[0]) << r->lo[0]) | (((x >> r->in[1]) & r->m[1]) << r->lo[1]) |
           (((x >> r->in[2]) & r->m[2]) << r->lo[2]) | (((x >> r->in[3]) & r->m[3]) << r->lo[3]);
}

/* The core's bc_dec_blocks for elements of W <= 4 bytes (the same values). */
template <uint32_t W>
static __device__ void bc_dec_blocks32(bc_ws *ws, uint8_t *dst, uint32_t wp, uint32_t nw)
{
    if (!dst)
        return;
    const uint32_t *S = ws->stage;
    const uint32_t m = W == 4 ? 0xffffffffu : (1u << (8u * W)) - 1u;
    const uint32_t L = OWN_LANE();
    for (uint32_t b = wp; b < ws->nb; b += nw) {
        const bc_block *bl = &ws->blk[b];
        uint8_t *out = dst + (uint64_t)b * BC_BLOCK * W;
        int al = ((uintptr_t)out & (W - 1u)) == 0;
        uint32_t kind = bl->kind, cnt = bl->cnt, k = bl->k, s = bl->s, p0 = (uint32_t)bl->poff;
        uint32_t a = (uint32_t)bl->a, bb = (uint32_t)bl->b;
        switch (kind) {
        case BC_CONST:
            for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                bc_st32<W>(out, e, a, al);
            break;
        case BC_FOR: {
            uint32_t km = bc_mask32(k);
            for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                bc_st32<W>(out, e, (a + (bc_get32(S, p0 + e * k, km) << s)) & m, al);
            break;
        }
        case BC_PLANES: {
            uint32_t kb = (uint32_t)__popc(a), km = bc_mask32(kb);
            bc_runs r = bc_runs_of(a);
            if (r.ok) {
                for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                    bc_st32<W>(out, e, bb | bc_dep_runs(bc_get32(S, p0 + e * kb, km), &r), al);
            } else {
                for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                    bc_st32<W>(out, e, bb | (uint32_t)bc_pdep(bc_get32(S, p0 + e * kb, km), a), al);
            }
            break;
        }
        case BC_DELTA: { /* first, then running sums of dmin + shifted values */
            uint32_t km = bc_mask32(k), carry = 0;
            for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
                uint32_t e = base + L, t = 0;
                if (e < cnt)
                    t = e == 0 ? a : bb + (bc_get32(S, p0 + (e - 1) * k, km) << s);
                uint32_t incl = own_warp_incl_add32(t);
                if (e < cnt)
                    bc_st32<W>(out, e, (carry + incl) & m, al);
                carry += __shfl_sync(OWN_FULL, incl, 31);
            }
            break;
        }
        case BC_SPARSE: {
            uint32_t km = bc_mask32(k);
            for (uint32_t e = L; e < cnt; e += OWN_NLANES) {
                uint32_t v = 0, q = e / 32u;
                if ((bl->bitmap[q] >> (e % 32u)) & 1u) {
                    uint32_t rank = (uint32_t)__popc(bl->bitmap[q] & ((1u << (e % 32u)) - 1u));
                    for (uint32_t j = 0; j < q; j++)
                        rank += (uint32_t)__popc(bl->bitmap[j]);
                    v = (a + (bc_get32(S, p0 + rank * k, km) << s)) & m;
                }
                bc_st32<W>(out, e, v, al);
            }
            break;
        }
        default: /* DEC (f32): the core's arithmetic */
            for (uint32_t e = L; e < cnt; e += OWN_NLANES) {
                uint64_t v = bc_dec_value(
                    own_sext((bl->a + own_bits_get(S, bl->poff + (uint64_t)e * k, k)) & m, 8u * W), s,
                    ws->flt);
                bc_st32<W>(out, e, (uint32_t)v, al);
            }
            break;
        }
    }
}

/* ---- 8-byte elements (dec-all) ---------------------------------------------------- */

/* k (<= 64) bits at bit p of the stage (three words: the stage keeps slack). */
static __device__ __forceinline__ uint64_t bc_get64(const uint32_t *S, uint32_t p, uint64_t km)
{
    uint32_t i = p >> 5, sh = p & 31u, w1 = S[i + 1];
    uint32_t lo = __funnelshift_r(S[i], w1, sh), hi = __funnelshift_r(w1, S[i + 2], sh);
    return ((uint64_t)hi << 32 | lo) & km;
}

typedef struct bc_runs64 {
    uint64_t m[4];
    uint32_t lo[4], in[4];
    int ok;
} bc_runs64;

static __device__ __forceinline__ bc_runs64 bc_runs64_of(uint64_t mask)
{
    bc_runs64 r;
    uint32_t in = 0;
#pragma unroll
    for (int q = 0; q < 4; q++) {
        r.lo[q] = r.in[q] = 0, r.m[q] = 0;
        if (mask) {
            uint32_t lo = bc_ctz64(mask);
            uint64_t t = mask >> lo;
            uint32_t len = ~t ? bc_ctz64(~t) : 64u - lo;
            uint64_t mm = own_mask64(len);
            r.lo[q] = lo, r.in[q] = in, r.m[q] = mm;
            in += len;
            mask &= ~(mm << lo);
        }
    }
    r.ok = mask == 0;
    return r;
}

static __device__ __forceinline__ uint64_t bc_dep_runs64(uint64_t x, const bc_runs64 *r)
{
    return ((x & r->m[0]) << r->lo[0]) | (((x >> r->in[1]) & r->m[1]) << r->lo[1]) |
           (((x >> r->in[2]) & r->m[2]) << r->lo[2]) | (((x >> r->in[3]) & r->m[3]) << r->lo[3]);
}

static __device__ __forceinline__ void bc_st64(uint8_t *out, uint32_t e, uint64_t v, int al)
{
    if (al)
        ((uint64_t *)out)[e] = v;
    else
        for (uint32_t b = 0; b < 8; b++)
            out[(uint64_t)e * 8u + b] = (uint8_t)(v >> (8 * b));
}

/* The core's bc_dec_blocks for 8-byte elements (the same values): the kind
 * switch out of the element loop, bc_get64, PLANES by a run table. */
static __device__ void bc_dec_blocks64(bc_ws *ws, uint8_t *dst, uint32_t wp, uint32_t nw)
{
    if (!dst)
        return;
    const uint32_t *S = ws->stage;
    const uint32_t L = OWN_LANE();
    for (uint32_t b = wp; b < ws->nb; b += nw) {
        const bc_block *bl = &ws->blk[b];
        uint8_t *out = dst + (uint64_t)b * BC_BLOCK * 8u;
        int al = ((uintptr_t)out & 7u) == 0;
        uint32_t kind = bl->kind, cnt = bl->cnt, k = bl->k, s = bl->s, p0 = (uint32_t)bl->poff;
        uint64_t a = bl->a, bb = bl->b;
        switch (kind) {
        case BC_CONST:
            for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                bc_st64(out, e, a, al);
            break;
        case BC_FOR: {
            uint64_t km = own_mask64(k);
            for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                bc_st64(out, e, a + (bc_get64(S, p0 + e * k, km) << s), al);
            break;
        }
        case BC_PLANES: {
            uint32_t kb = bc_popc64(a);
            uint64_t km = own_mask64(kb);
            bc_runs64 r = bc_runs64_of(a);
            if (r.ok) {
                for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                    bc_st64(out, e, bb | bc_dep_runs64(bc_get64(S, p0 + e * kb, km), &r), al);
            } else {
                for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                    bc_st64(out, e, bb | bc_pdep(bc_get64(S, p0 + e * kb, km), a), al);
            }
            break;
        }
        case BC_DELTA: {
            uint64_t km = own_mask64(k), carry = 0;
            for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
                uint32_t e = base + L;
                uint64_t t = 0;
                if (e < cnt)
                    t = e == 0 ? a : bb + (bc_get64(S, p0 + (e - 1) * k, km) << s);
                uint64_t incl = own_warp_incl_add64(t);
                if (e < cnt)
                    bc_st64(out, e, carry + incl, al);
                carry += own_warp_last64(incl);
            }
            break;
        }
        case BC_SPARSE: {
            uint64_t km = own_mask64(k);
            for (uint32_t e = L; e < cnt; e += OWN_NLANES) {
                uint64_t v = 0;
                uint32_t q = e / 32u;
                if ((bl->bitmap[q] >> (e % 32u)) & 1u) {
                    uint32_t rank = (uint32_t)__popc(bl->bitmap[q] & ((1u << (e % 32u)) - 1u));
                    for (uint32_t j = 0; j < q; j++)
                        rank += (uint32_t)__popc(bl->bitmap[j]);
                    v = a + (bc_get64(S, p0 + rank * k, km) << s);
                }
                bc_st64(out, e, v, al);
            }
            break;
        }
        default: /* DEC (f64): the core's arithmetic */
            for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                bc_st64(out, e,
                        bc_dec_value((int64_t)(a + own_bits_get(S, bl->poff + (uint64_t)e * k, k)), s, 8u),
                        al);
            break;
        }
    }
}

/* The core's bc_decode_tile with bc_dec_blocks32 for widths 1, 2 and 4
 * (ALL: and bc_dec_blocks64 for 8). */
template <int ALL>
static __device__ oc_status bc_decode_tile32(bc_ws *ws, const uint8_t *src, uint32_t n, uint32_t cnt,
                                             uint32_t dtype, uint8_t *dst, uint32_t nw)
{
    uint32_t w = own_type_width(dtype), raw = cnt * w;
    if (n > raw)
        return OC_ERR_CORRUPT;
    if (n == raw) {
        if (dst)
            OWN_RUN(nw, bc_copy_bytes, src, n, dst);
        return OC_OK;
    }
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, 0u);
    OWN_RUN(nw, bc_stage_in, ws, src, n);
    OWN_RUN(nw, bc_dec_parse, ws, n);
    if (ws->status != OC_OK)
        return (oc_status)ws->status;
    if (w == 4)
        OWN_RUN(nw, bc_dec_blocks32<4>, ws, dst);
    else if (w == 2)
        OWN_RUN(nw, bc_dec_blocks32<2>, ws, dst);
    else if (w == 1)
        OWN_RUN(nw, bc_dec_blocks32<1>, ws, dst);
    else if (ALL)
        OWN_RUN(nw, bc_dec_blocks64, ws, dst);
    else
        OWN_RUN(nw, bc_dec_blocks, ws, dst);
    return OC_OK;
}

template <int ALL>
static __device__ oc_status bc_tile_decode32(void *ws, const uint8_t *tile, uint32_t len, uint32_t cnt,
                                             const own_tiled *k, uint8_t *out, uint32_t nw)
{
    return bc_decode_tile32<ALL>((bc_ws *)ws, tile, len, cnt, k->dtype, out, nw);
}

/* dec32: the library's tile kernel with bc_tile_decode32. */
static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_tiles32(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    own_tiled_tiles(n, src, src_sizes, dst, s, bc_smem, bc_chunk_check, bc_tile_decode32<0>, BCK_WARPS);
}

/* dec32-6: the same bounded to 6 CTAs an SM (the shared-memory limit; the
 * library's 62 registers allow 4). */
static __global__ void __launch_bounds__(BCK_THREADS, 6)
    bc_k_tiles32_6(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                   own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    own_tiled_tiles(n, src, src_sizes, dst, s, bc_smem, bc_chunk_check, bc_tile_decode32<0>, BCK_WARPS);
}

/* dec-all: dec32 and bc_dec_blocks64 for 8-byte elements (the library's bounds). */
static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_tiles_all(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                   own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    own_tiled_tiles(n, src, src_sizes, dst, s, bc_smem, bc_chunk_check, bc_tile_decode32<1>, BCK_WARPS);
}

/* ---- the compressed tile staged by words (dec-in) ------------------------------------ */

/* Aligned word j of the tile at src (the 4 bytes at src - q + 4j, q = src & 3),
 * its bytes outside [src, src + n) zero: loaded whole inside, by bytes at the edges. */
static __device__ __forceinline__ uint32_t bc_aligned_word(const uint8_t *src, uint32_t q, uint32_t n,
                                                           uint32_t j)
{
    int64_t lo = 4ll * j - q; /* first byte, relative to src */
    if (lo >= 0 && lo + 4 <= (int64_t)n)
        return *(const uint32_t *)(src + lo);
    uint32_t v = 0;
    for (int32_t b = 0; b < 4; b++)
        if (lo + b >= 0 && lo + b < (int64_t)n)
            v |= (uint32_t)src[lo + b] << (8 * b);
    return v;
}

/* The core's bc_stage_in (the same stage: n bytes, zeros after them to
 * (n + 3) / 4 + 4 words) by aligned words, every thread of the CTA. */
static __device__ void bc_stage_in_w(bc_ws *ws, const uint8_t *src, uint32_t n, uint32_t wp, uint32_t nw)
{
    const uint32_t nt = nw * OWN_NLANES, t = wp * OWN_NLANES + OWN_LANE();
    uint32_t words = (n + 3u) / 4u + 4u, q = (uint32_t)((uintptr_t)src & 3u), sh = 8u * q;
    for (uint32_t k0 = 0; k0 < words; k0 += 4u * nt) {
        uint32_t a[4], b[4];
#pragma unroll
        for (uint32_t u = 0; u < 4; u++) {
            uint32_t k = k0 + u * nt + t;
            a[u] = b[u] = 0;
            if (4u * k < n + q) { /* an aligned word that holds a byte of the tile */
                a[u] = bc_aligned_word(src, q, n, k);
                b[u] = q ? bc_aligned_word(src, q, n, k + 1u) : 0u;
            }
        }
#pragma unroll
        for (uint32_t u = 0; u < 4; u++) {
            uint32_t k = k0 + u * nt + t;
            if (k < words)
                ws->stage[k] = __funnelshift_r(a[u], b[u], sh);
        }
    }
}

/* dec-all's tile decoder with bc_stage_in_w. */
static __device__ oc_status bc_decode_tile_in(bc_ws *ws, const uint8_t *src, uint32_t n, uint32_t cnt,
                                              uint32_t dtype, uint8_t *dst, uint32_t nw)
{
    uint32_t w = own_type_width(dtype), raw = cnt * w;
    if (n > raw)
        return OC_ERR_CORRUPT;
    if (n == raw) {
        if (dst)
            OWN_RUN(nw, bc_copy_bytes, src, n, dst);
        return OC_OK;
    }
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, 0u);
    OWN_RUN(nw, bc_stage_in_w, ws, src, n);
    OWN_RUN(nw, bc_dec_parse, ws, n);
    if (ws->status != OC_OK)
        return (oc_status)ws->status;
    if (w == 4)
        OWN_RUN(nw, bc_dec_blocks32<4>, ws, dst);
    else if (w == 2)
        OWN_RUN(nw, bc_dec_blocks32<2>, ws, dst);
    else if (w == 1)
        OWN_RUN(nw, bc_dec_blocks32<1>, ws, dst);
    else
        OWN_RUN(nw, bc_dec_blocks64, ws, dst);
    return OC_OK;
}

static __device__ oc_status bc_tile_decode_in(void *ws, const uint8_t *tile, uint32_t len, uint32_t cnt,
                                              const own_tiled *k, uint8_t *out, uint32_t nw)
{
    return bc_decode_tile_in((bc_ws *)ws, tile, len, cnt, k->dtype, out, nw);
}

static __global__ void __launch_bounds__(BCK_THREADS)
    bc_k_tiles_in(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                  own_batch_scratch s)
{
    extern __shared__ __align__(16) unsigned char bc_smem[];
    own_tiled_tiles(n, src, src_sizes, dst, s, bc_smem, bc_chunk_check, bc_tile_decode_in, BCK_WARPS);
}

#endif /* BC_DEC32_CUH */
