/*
 * bitcomp_dec_gpu.cuh - the GPU's decoding loops of the Bitcomp-class
 * format (bitcomp_kernels.cu's tile kernel): the core's tile decoder
 * (src/cores/bitcomp/bitcomp_core.h: bc_stage_in, bc_dec_parse,
 * bc_dec_blocks, written once for the CPU and the GPU and for every
 * width) with its two costly steps rewritten for the GPU, the same values:
 *
 * - the element loop (bc_dec_blocks32<W> for 1-4 byte elements in 32-bit
 *   arithmetic, bc_dec_blocks64 for 8): the block's kind switched on once
 *   a block, not once an element; a bit read of two (three) shared words
 *   and funnel shifts instead of own_bits_get's 64-bit one; typed stores,
 *   the output's alignment checked once a block; PLANES blocks (every
 *   bf16/f32 weight block) deposited by the block's run table (bc_runs:
 *   up to 4 runs of the mask, found once; an element is then a
 *   shift-and-mask a run) instead of bc_pdep's walk of the mask with two
 *   ctz a run, per element;
 * - the stage (bc_stage_in_w): the compressed tile by aligned 4-byte
 *   loads, two a word, funnel-shifted, four words a thread in flight, the
 *   edge words by bytes (nothing outside the tile is read), instead of
 *   four byte loads a word.
 *
 * Measured in session 10 (bench/gpu/dev/bc_dev, bench/gpu/owncodecs/NOTES.md).
 * The parse, the checks and the statuses stay the core's, so GPU and CPU
 * accept and reject the same streams (tests/c/test_cuda_bitcomp.c).
 */
#ifndef OC_BITCOMP_DEC_GPU_CUH
#define OC_BITCOMP_DEC_GPU_CUH

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

/* The lane's exception of a patched block (lanes below nx; the others get
 * position 0xffffffff, which no round holds, and high part 0): its 7-bit
 * position (returned) and its kx high bits (*xh), read once a block by
 * bc_dec_patched32 and bc_dec_xrank32 (k + kx <= 32). */
static __device__ __forceinline__ uint32_t bc_lane_exc32(const uint32_t *S, uint32_t x0, uint32_t kx,
                                                         uint32_t nx, uint32_t *xh)
{
    uint32_t L = OWN_LANE(), xp = 0xffffffffu;
    *xh = 0;
    if (L < nx) {
        uint32_t q = x0 + L * (7u + kx);
        xp = bc_get32(S, q, 0x7fu);
        *xh = bc_get32(S, q + 7u, bc_mask32(kx));
    }
    return xp;
}

/* Version 2's patched blocks (PDELTA, PFLT): the core's bc_dec_patched_block
 * (the same values) in the style of the loops below - 32-bit arithmetic and
 * bc_get32 for 1-4 byte elements, bc_get64 for 8, the lane's exception read
 * once a block and handed to its element's lane by a ballot and shuffles,
 * typed stores with the alignment checked once a block.  Session 11 (bc_dev
 * "patch32", H200, 1 GiB of 64 KiB chunks): 1.46-1.84x the core's loop out
 * of line (bf16 157 -> 289, orderkey 604 -> 1000, sorted_partkey 685 ->
 * 1002, f32 283 -> 498 GB/s). */
template <uint32_t W>
static __device__ __forceinline__ void bc_dec_patched32(const uint32_t *S, const bc_block *bl, uint8_t *out)
{
    const uint32_t m = W == 4 ? 0xffffffffu : (1u << (8u * W)) - 1u, L = OWN_LANE();
    const uint32_t d = bl->kind == BC_PDELTA, k = bl->k, kx = bl->kx, nx = bl->nx, cnt = bl->cnt;
    const uint32_t p0 = (uint32_t)bl->poff, km = bc_mask32(k), x0 = p0 + (cnt - d) * k;
    const uint32_t a = (uint32_t)bl->a, bb = (uint32_t)bl->b;
    const int al = ((uintptr_t)out & (W - 1u)) == 0;
    uint32_t xh, xp = bc_lane_exc32(S, x0, kx, nx, &xh);
    uint32_t carry = 0;
    for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
        uint32_t e = base + L;
        uint32_t r = e < cnt && e >= d ? bc_get32(S, p0 + (e - d) * k, km) : 0u;
        uint32_t ball = __ballot_sync(OWN_FULL, xp - base < 32u);
        while (ball) {
            uint32_t src = (uint32_t)__ffs((int)ball) - 1u;
            ball &= ball - 1u;
            uint32_t pp = __shfl_sync(OWN_FULL, xp, (int)src), hh = __shfl_sync(OWN_FULL, xh, (int)src);
            if (pp == e && e >= d && kx)
                r |= hh << k; /* kx > 0: k < 32 */
        }
        if (!d) {
            uint32_t y = (a - r) & m;
            if (e < cnt)
                bc_st32<W>(out, e, ((y >> 1) | ((y & 1u) << (8u * W - 1u))) & m, al);
        } else {
            uint32_t t = e < cnt ? (e == 0 ? a : bb + r) : 0u;
            uint32_t incl = own_warp_incl_add32(t);
            if (e < cnt)
                bc_st32<W>(out, e, (carry + incl) & m, al);
            carry += __shfl_sync(OWN_FULL, incl, 31);
        }
    }
}

/* The core's bc_dec_blocks for elements of W <= 4 bytes (the same values). */
template <uint32_t W, typename PT>
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
        case BC_PDELTA:
        case BC_PFLT: /* version 2's patched blocks: the core's loop */
            PT::run(S, bl, out, W);
            break;
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

/* ---- 8-byte elements
 * ------------------------------------------------------------------ */

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

/* The patched blocks' exceptions handed out by rank: a round's exception
 * bits are one __reduce_or_sync of the lanes' 1 << (pos & 31), an
 * element's high part one shuffle from lane (exceptions of the rounds
 * before + those below it in this round): ~8 instructions a round whatever
 * the exceptions (bc_dec_patched32: ~8 an exception).  It needs the
 * positions strictly increasing (the encoder's); a block whose are not
 * (the format allows any order, ORed) takes bc_dec_patched32/64.  Session
 * 11, bc_dev "xrank" (call B2): bf16 287 -> 337, f32 494 -> 574 GB/s
 * (1.16-1.18x), orderkey 1002 -> 977 (0.98x): PFLT blocks (up to 32
 * exceptions) take it, PDELTA blocks (~4) keep bc_dec_patched32/64. */
template <uint32_t W>
static __device__ __forceinline__ void bc_dec_xrank32(const uint32_t *S, const bc_block *bl, uint8_t *out)
{
    const uint32_t m = W == 4 ? 0xffffffffu : (1u << (8u * W)) - 1u, L = OWN_LANE();
    const uint32_t d = bl->kind == BC_PDELTA, k = bl->k, kx = bl->kx, nx = bl->nx, cnt = bl->cnt;
    const uint32_t p0 = (uint32_t)bl->poff, km = bc_mask32(k), x0 = p0 + (cnt - d) * k;
    const uint32_t a = (uint32_t)bl->a, bb = (uint32_t)bl->b;
    const int al = ((uintptr_t)out & (W - 1u)) == 0;
    uint32_t xh, xp = bc_lane_exc32(S, x0, kx, nx, &xh);
    uint32_t prev = __shfl_up_sync(OWN_FULL, xp, 1);
    if (__any_sync(OWN_FULL, L > 0 && L < nx && xp <= prev)) { /* not strictly increasing */
        bc_dec_patched32<W>(S, bl, out);
        return;
    }
    uint32_t carry = 0, xc = 0;
    for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
        uint32_t e = base + L;
        uint32_t r = e < cnt && e >= d ? bc_get32(S, p0 + (e - d) * k, km) : 0u;
        uint32_t word =
            __reduce_or_sync(OWN_FULL, L < nx && (xp >> 5) == (base >> 5) ? 1u << (xp & 31u) : 0u);
        uint32_t hh =
            __shfl_sync(OWN_FULL, xh, (int)((xc + (uint32_t)__popc(word & ((1u << L) - 1u))) & 31u));
        if (((word >> L) & 1u) && e >= d && kx)
            r |= hh << k; /* kx > 0: k < 32 */
        xc += (uint32_t)__popc(word);
        if (!d) {
            uint32_t y = (a - r) & m;
            if (e < cnt)
                bc_st32<W>(out, e, ((y >> 1) | ((y & 1u) << (8u * W - 1u))) & m, al);
        } else {
            uint32_t t = e < cnt ? (e == 0 ? a : bb + r) : 0u;
            uint32_t incl = own_warp_incl_add32(t);
            if (e < cnt)
                bc_st32<W>(out, e, (carry + incl) & m, al);
            carry += __shfl_sync(OWN_FULL, incl, 31);
        }
    }
}

/* bc_lane_exc32 for 8-byte elements (bc_dec_patched64, bc_dec_xrank64). */
static __device__ __forceinline__ uint32_t bc_lane_exc64(const uint32_t *S, uint32_t x0, uint32_t kx,
                                                         uint32_t nx, uint64_t *xh)
{
    uint32_t L = OWN_LANE(), xp = 0xffffffffu;
    *xh = 0;
    if (L < nx) {
        uint32_t q = x0 + L * (7u + kx);
        xp = (uint32_t)bc_get64(S, q, 0x7fu);
        *xh = bc_get64(S, q + 7u, own_mask64(kx));
    }
    return xp;
}

static __device__ __forceinline__ void bc_dec_patched64(const uint32_t *S, const bc_block *bl, uint8_t *out)
{
    const uint32_t L = OWN_LANE();
    const uint32_t d = bl->kind == BC_PDELTA, k = bl->k, kx = bl->kx, nx = bl->nx, cnt = bl->cnt;
    const uint32_t p0 = (uint32_t)bl->poff, x0 = p0 + (cnt - d) * k;
    const uint64_t km = own_mask64(k), a = bl->a, bb = bl->b;
    const int al = ((uintptr_t)out & 7u) == 0;
    uint64_t xh;
    uint32_t xp = bc_lane_exc64(S, x0, kx, nx, &xh);
    uint64_t carry = 0;
    for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
        uint32_t e = base + L;
        uint64_t r = e < cnt && e >= d ? bc_get64(S, p0 + (e - d) * k, km) : 0u;
        uint32_t ball = __ballot_sync(OWN_FULL, xp - base < 32u);
        while (ball) {
            uint32_t src = (uint32_t)__ffs((int)ball) - 1u;
            ball &= ball - 1u;
            uint32_t pp = __shfl_sync(OWN_FULL, xp, (int)src);
            uint64_t hh = __shfl_sync(OWN_FULL, xh, (int)src);
            if (pp == e && e >= d && kx)
                r |= hh << k; /* kx > 0: k < 64 */
        }
        if (!d) {
            if (e < cnt)
                bc_st64(out, e, bc_rotr1(a - r, 64u), al);
        } else {
            uint64_t t = e < cnt ? (e == 0 ? a : bb + r) : 0u;
            uint64_t incl = own_warp_incl_add64(t);
            if (e < cnt)
                bc_st64(out, e, carry + incl, al);
            carry += own_warp_last64(incl);
        }
    }
}

static __device__ __forceinline__ void bc_dec_xrank64(const uint32_t *S, const bc_block *bl, uint8_t *out)
{
    const uint32_t L = OWN_LANE();
    const uint32_t d = bl->kind == BC_PDELTA, k = bl->k, kx = bl->kx, nx = bl->nx, cnt = bl->cnt;
    const uint32_t p0 = (uint32_t)bl->poff, x0 = p0 + (cnt - d) * k;
    const uint64_t km = own_mask64(k), a = bl->a, bb = bl->b;
    const int al = ((uintptr_t)out & 7u) == 0;
    uint64_t xh;
    uint32_t xp = bc_lane_exc64(S, x0, kx, nx, &xh);
    uint32_t prev = __shfl_up_sync(OWN_FULL, xp, 1);
    if (__any_sync(OWN_FULL, L > 0 && L < nx && xp <= prev)) {
        bc_dec_patched64(S, bl, out);
        return;
    }
    uint64_t carry = 0;
    uint32_t xc = 0;
    for (uint32_t base = 0; base < cnt; base += OWN_NLANES) {
        uint32_t e = base + L;
        uint64_t r = e < cnt && e >= d ? bc_get64(S, p0 + (e - d) * k, km) : 0u;
        uint32_t word =
            __reduce_or_sync(OWN_FULL, L < nx && (xp >> 5) == (base >> 5) ? 1u << (xp & 31u) : 0u);
        uint64_t hh =
            __shfl_sync(OWN_FULL, xh, (int)((xc + (uint32_t)__popc(word & ((1u << L) - 1u))) & 31u));
        if (((word >> L) & 1u) && e >= d && kx)
            r |= hh << k; /* kx > 0: k < 64 */
        xc += (uint32_t)__popc(word);
        if (!d) {
            if (e < cnt)
                bc_st64(out, e, bc_rotr1(a - r, 64u), al);
        } else {
            uint64_t t = e < cnt ? (e == 0 ? a : bb + r) : 0u;
            uint64_t incl = own_warp_incl_add64(t);
            if (e < cnt)
                bc_st64(out, e, carry + incl, al);
            carry += own_warp_last64(incl);
        }
    }
}

/* The loops below take the patched blocks' decoder as a type (PT::run(S,
 * bl, out, w)), so that bench/gpu/dev/bc_dev can measure another against
 * this one; the library's is bc_patched_lib. */
struct bc_patched_lib {
    static __device__ __forceinline__ void run(const uint32_t *S, const bc_block *bl, uint8_t *out,
                                               uint32_t w)
    {
        if (bl->kind == BC_PFLT) { /* exceptions by rank (floats: many a block) */
            if (w == 4)
                bc_dec_xrank32<4>(S, bl, out);
            else if (w == 2)
                bc_dec_xrank32<2>(S, bl, out);
            else if (w == 1)
                bc_dec_xrank32<1>(S, bl, out);
            else
                bc_dec_xrank64(S, bl, out);
        } else if (w == 4) { /* PDELTA: one exception a step (few a block) */
            bc_dec_patched32<4>(S, bl, out);
        } else if (w == 2) {
            bc_dec_patched32<2>(S, bl, out);
        } else if (w == 1) {
            bc_dec_patched32<1>(S, bl, out);
        } else {
            bc_dec_patched64(S, bl, out);
        }
    }
};

/* The core's bc_dec_blocks for 8-byte elements (the same values): the kind
 * switch out of the element loop, bc_get64, PLANES by a run table. */
template <typename PT>
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
        case BC_PDELTA:
        case BC_PFLT: /* version 2's patched blocks: the core's loop */
            PT::run(S, bl, out, 8u);
            break;
        default: /* DEC (f64): the core's arithmetic */
            for (uint32_t e = L; e < cnt; e += OWN_NLANES)
                bc_st64(out, e,
                        bc_dec_value((int64_t)(a + own_bits_get(S, bl->poff + (uint64_t)e * k, k)), s, 8u),
                        al);
            break;
        }
    }
}

/* ---- the compressed tile staged by words
 * ------------------------------------------------ */

/* Aligned word j of the tile at src (the 4 bytes at src - q + 4j, q = src & 3),
 * its bytes outside [src, src + n) zero: loaded whole inside, by bytes at the
 * edges. */
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

/* The core's bc_decode_tile with the loops above: the same values and statuses.
 */
template <typename PT = bc_patched_lib>
static __device__ oc_status bc_decode_tile_gpu(bc_ws *ws, const uint8_t *src, uint32_t n, uint32_t cnt,
                                               uint32_t dtype, uint32_t version, uint8_t *dst, uint32_t nw)
{
    uint32_t w = own_type_width(dtype), raw = cnt * w;
    if (n > raw)
        return OC_ERR_CORRUPT;
    if (n == raw) {
        if (dst)
            OWN_RUN(nw, bc_copy_bytes, src, n, dst);
        return OC_OK;
    }
    OWN_RUN(nw, bc_set_tile, ws, dtype, cnt, 0u, version);
    OWN_RUN(nw, bc_stage_in_w, ws, src, n);
    OWN_RUN(nw, bc_dec_parse, ws, n);
    if (ws->status != OC_OK)
        return (oc_status)ws->status;
    if (w == 4)
        OWN_RUN(nw, (bc_dec_blocks32<4, PT>), ws, dst);
    else if (w == 2)
        OWN_RUN(nw, (bc_dec_blocks32<2, PT>), ws, dst);
    else if (w == 1)
        OWN_RUN(nw, (bc_dec_blocks32<1, PT>), ws, dst);
    else
        OWN_RUN(nw, bc_dec_blocks64<PT>, ws, dst);
    return OC_OK;
}

/* own_tiled_tiles' tile decoder (own_tile_decode_fn). */
static __device__ oc_status bc_tile_decode_gpu(void *ws, const uint8_t *tile, uint32_t len, uint32_t cnt,
                                               const own_tiled *k, uint8_t *out, uint32_t nw)
{
    return bc_decode_tile_gpu<bc_patched_lib>((bc_ws *)ws, tile, len, cnt, k->dtype, k->version, out, nw);
}

#endif /* OC_BITCOMP_DEC_GPU_CUH */
