/*
 * ans4_kernels.cuh - why this exists: the dev GPU decoder of ANS format v4
 * (bench/gpu/owncodecs/NOTES.md, "ANS format version 4"; CPU reference
 * ans4_ref.h): 32-bit states renormalised by 16-bit words, each lane with
 * its own run.  v3 showed the library's decoder is bound by instructions a
 * step; this loop is win4-16's (ans_win_kernels.cuh: one table a CTA, each
 * lane's next R 4-byte units of words in a window of shared memory, topped
 * up by cp.async with the same rule) with a 32-bit step: the update is one
 * 32-bit multiply-add and two field extracts, the renormalisation a
 * compare, a predicated shift-or and, for the next word, a predicated load
 * of the unit holding it and a 16-bit extract.  The lane's counter u = r x
 * 64 (r: 16-bit words taken) gives the unit's slot (u & (R - 1) x 128) and
 * the half (bit 6).  A block of 4 steps reads words up to r + 4, i.e.
 * units up to r / 2 + 2: answ_top's "units up to r + 5 landed" covers it.
 * Dev only: version 4, PB <= 11, 4-aligned tiles; any other tile is
 * reported CORRUPT.  Included by ans3_dev.cu after ans3_kernels.cuh.
 */
#include "ans4_ref.h"

/* The header kernel for v4 chunks, groups of NW tiles. */
template <uint32_t NW>
static __global__ void ans4_k_headers(size_t n, const void *const *src, const size_t *src_sizes,
                                      void *const *dst, const size_t *caps, own_batch_scratch s)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint64_t GROUP = (uint64_t)NW * ANS_TILE;
    const uint8_t *p = (const uint8_t *)src[i];
    size_t len = src_sizes[i];
    uint8_t *d = dst ? (uint8_t *)dst[i] : NULL;
    ans_chunk k;
    ans_table t;
    oc_status st;
    if ((p == NULL && len) || (dst && d == NULL && caps[i]))
        st = OC_ERR_INVALID_ARGUMENT;
    else
        st = ans4_chunk_check(p, len, dst ? (uint64_t)caps[i] : UINT64_MAX, &k, &t);
    s.tiles[i] = st == OC_OK ? (uint32_t)((k.sh.nsym + GROUP - 1) / GROUP) : 0u;
    s.keys[i] = st == OC_OK ? OWN_KEY_NONE : own_key(0, st);
    if (st == OC_OK && d && k.sh.tail)
        d[k.size - 1] = p[len - 1];
}

/* A lane's window (answ_lane in 4-byte units: kw its units, wb its first)
 * and its 16-bit word count K. */
typedef struct ans4_lane {
    answ_lane w;
    uint32_t K;
} ans4_lane;

/* A v4 tile's head: the lane's state and words, the tile's size against
 * the padded runs, the pad word of an odd run (0, else CORRUPT), the
 * window's first min(R, units) requested. */
template <uint32_t R>
static __device__ __forceinline__ oc_status ans4_start(const uint8_t *src, uint64_t n, uint32_t ring,
                                                       ans4_lane *L)
{
    uint32_t lane = threadIdx.x & 31u;
    L->w.s = ans2_ld32<true>(src + 4 * lane);
    L->K = (uint32_t)__ldg(src + 4 * ANS_LANES + 2 * lane) |
           ((uint32_t)__ldg(src + 4 * ANS_LANES + 2 * lane + 1) << 8);
    L->w.kw = (L->K + 1u) / 2u;
    uint32_t incl = own_warp_incl_add32(L->w.kw);
    L->w.fe = 0;
    if (ANS4_TILE_HEAD + 4ull * __shfl_sync(OWN_FULL, incl, 31) != n)
        return OC_ERR_CORRUPT;
    L->w.off = incl - L->w.kw;
    L->w.w0 = src + ANS4_TILE_HEAD;
    L->w.wb = L->w.w0 + 4ull * L->w.off;
    L->w.ring = ring;
    bool badpad = (L->K & 1u) && (ans2_ld32<true>(L->w.wb + 4ull * (L->K / 2u)) >> 16) != 0u;
    if (__any_sync(OWN_FULL, badpad))
        return OC_ERR_CORRUPT;
    answ_request<R, false>(L->w, L->w.kw < R ? L->w.kw : R);
    L->w.fe = L->w.kw < R ? L->w.kw : R;
    return OC_OK;
}

/* The 16-bit word at counter u (u = r x 64) from the lane's column sh. */
template <uint32_t R> static __device__ __forceinline__ uint32_t ans4_word(uint32_t sh, uint32_t u)
{
    return (ans2_lds32(sh + (u & ((R - 1u) << 7))) >> ((u >> 2) & 16u)) & 0xffffu;
}

/* One v4 step's state update (FAST table: sym | (slot - c) << 8 | f << 20). */
static __device__ __forceinline__ uint32_t ans4_dstep(uint32_t e, uint32_t pb, uint32_t x)
{
    return (e >> 20) * (x >> pb) + ((e >> 8) & 0xfffu);
}

/* Below 2^16, x takes the word nw and the next word is loaded. */
template <uint32_t R>
static __device__ __forceinline__ void ans4_renorm(uint32_t &x, uint32_t &nw, uint32_t &u, uint32_t sh)
{
    bool rn = x < ANS4_L;
    x = rn ? (x << 16) | nw : x;
    u += rn ? 64u : 0u;
    if (rn)
        nw = ans4_word<R>(sh, u);
}

/* A v4 tile by a warp through the windows (ans4_ref.h's ans4_decode_tile:
 * the same bytes and status), FAST table (PB <= 11). */
template <bool WRITE, uint32_t STRIDE, uint32_t R>
static __device__ __forceinline__ oc_status ans4_decode_tile(const uint32_t *dt, uint32_t pb, ans4_lane &L4,
                                                             uint32_t cnt, uint8_t *out, const uint8_t *lo)
{
    const uint32_t BS = ANS2_BLOCK;
    answ_lane &L = L4.w;
    uint32_t lane = threadIdx.x & 31u;
    answ_wait<false, 0>(); /* the first window */
    uint32_t fc = L.fe;
    uint32_t kwu = L4.K << 6, u = 0;
    uint32_t sh = L.ring + 4u * lane;
    uint32_t nw = ans4_word<R>(sh, 0u); /* in the ring whatever K: a word past K is never kept (u != kwu) */
    uint32_t x = L.s;
    uint32_t mask = (1u << pb) - 1u;
    uint32_t dsh = __shfl_sync(OWN_FULL, (uint32_t)__cvta_generic_to_shared(dt), 0);
    uint32_t full = cnt / ANS_LANES;
    uint8_t *o = WRITE ? out + (size_t)lane * (STRIDE == 1 ? 1u : 2u) : NULL;
    const bool LO = WRITE && STRIDE != 1;
    const uint8_t *l = LO ? lo + lane : NULL;
    uint32_t q[BS];
#pragma unroll
    for (uint32_t i = 0; i < BS; i++)
        q[i] = LO && i < full ? (uint32_t)__ldg(l + (size_t)i * ANS_LANES) : 0u;
    uint32_t k = 0;
    for (; k + BS <= full; k += BS) {
        answ_top<R, false>(L, u >> 7, fc);
        uint32_t nq[BS];
        if (LO) {
#pragma unroll
            for (uint32_t i = 0; i < BS; i++)
                nq[i] = k + BS + i < full ? (uint32_t)__ldg(l + (size_t)(k + BS + i) * ANS_LANES) : 0u;
            if (k + ANS2_PF_STEPS < full)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(l + (size_t)(k + ANS2_PF_STEPS) * ANS_LANES));
        }
#pragma unroll
        for (uint32_t i = 0; i < BS; i++) {
            uint32_t e = ans2_lds32(dsh + 4u * (x & mask));
            x = ans4_dstep(e, pb, x);
            if (WRITE)
                ans2_put<STRIDE>(o, (size_t)(k + i) * ANS_LANES, e, q[i]);
            ans4_renorm<R>(x, nw, u, sh);
        }
        if (LO) {
#pragma unroll
            for (uint32_t i = 0; i < BS; i++)
                q[i] = nq[i];
        }
    }
    answ_top<R, false>(L, u >> 7, fc); /* the tail reads words up to r + 4 too */
#pragma unroll
    for (uint32_t i = 0; i + 1 < BS; i++) {
        if (k + i < full) {
            uint32_t e = ans2_lds32(dsh + 4u * (x & mask));
            x = ans4_dstep(e, pb, x);
            if (WRITE)
                ans2_put<STRIDE>(o, (size_t)(k + i) * ANS_LANES, e, q[i]);
            ans4_renorm<R>(x, nw, u, sh);
        }
    }
    if (full * ANS_LANES + lane < cnt) {
        uint32_t e = ans2_lds32(dsh + 4u * (x & mask));
        x = ans4_dstep(e, pb, x);
        if (WRITE)
            ans2_put<STRIDE>(o, (size_t)full * ANS_LANES, e,
                             LO ? (uint32_t)__ldg(l + (size_t)full * ANS_LANES) : 0u);
        if (x < ANS4_L) {
            x = (x << 16) | nw;
            u += 64u;
        }
    }
    answ_wait<false, 0>(); /* no copy in flight when the next group reuses the rings */
    int bad = L.s < ANS4_L || u != kwu || x != ANS4_L;
    return __any_sync(OWN_FULL, bad) ? OC_ERR_CORRUPT : OC_OK;
}

template <bool WRITE, uint32_t R>
static __device__ __forceinline__ oc_status ans4_decode(const uint32_t *dt, uint32_t pb, ans4_lane &L,
                                                        uint32_t cnt, uint8_t *out, uint32_t stride,
                                                        const uint8_t *lo)
{
    if (stride == 1)
        return ans4_decode_tile<WRITE, 1, R>(dt, pb, L, cnt, out, lo);
    if (WRITE)
        out -= 1;
    if (((uintptr_t)out & 1u) == 0)
        return ans4_decode_tile<WRITE, 2, R>(dt, pb, L, cnt, out, lo);
    return ans4_decode_tile<WRITE, 3, R>(dt, pb, L, cnt, out, lo);
}

/* ans3_k_groups for v4 chunks (tiles of 16384): NW tiles of a chunk a CTA,
 * one table, windows of R units, MINB CTAs an SM. */
template <uint32_t NW, uint32_t R, uint32_t MINB>
static __global__ void __launch_bounds__(NW * 32u, MINB)
    ans4_k_groups(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                  own_batch_scratch s)
{
    extern __shared__ uint32_t ans_sm[]; /* ANS3_SMEM(NW, R) bytes: the table, the rings */
    __shared__ uint16_t f[256], c[256];
    __shared__ uint32_t pb;
    __shared__ size_t chunk;
    __shared__ ans_chunk k;
    const uint32_t NT = NW * 32u;
    const uint64_t GROUP = (uint64_t)NW * ANS_TILE;
    uint32_t *dt = ans_sm;
    unsigned long long total = s.first[n];
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31u;
    uint32_t ring = (uint32_t)__cvta_generic_to_shared(ans_sm + ANS_DT_FAST) + warp * R * 128u;
    (void)src_sizes;
    for (unsigned long long g = blockIdx.x; g < total; g += gridDim.x) {
        if (warp == 0) {
            size_t ci = oc_chunk_of_warp(s.first, n, g);
            if (lane == 0) {
                chunk = ci;
                ans3_chunk_geometry((const uint8_t *)src[ci], &k);
            }
        }
        __syncthreads();
        size_t i = chunk;
        const uint8_t *p = (const uint8_t *)src[i];
        uint8_t *d = dst ? (uint8_t *)dst[i] : NULL;
        uint32_t group = (uint32_t)(g - s.first[i]);
        uint64_t first = (uint64_t)group * GROUP;
        uint64_t last = first + GROUP < k.sh.nsym ? first + GROUP : k.sh.nsym;
        if (k.mode == 1) {
            uint32_t tile = group * NW + warp;
            bool has = tile < k.sh.ntiles;
            uint64_t a = 0, b = 0, tfirst = (uint64_t)tile * ANS_TILE;
            oc_status st = OC_OK;
            ans4_lane L;
            L.w.fe = 0;
            if (has) {
                st = own_tile_span(p, k.tile_tab, k.sh.ntiles, tile, k.limit, &a, &b);
                if (st == OC_OK && !(__ldg(p + k.tables) <= ANS_PB && ((uintptr_t)(p + a) & 3u) == 0 &&
                                     b - a >= ANS4_TILE_HEAD))
                    st = OC_ERR_CORRUPT; /* dev: PB 12 or unaligned v4 tiles are not taken */
                if (st == OC_OK)
                    st = ans4_start<R>(p + a, b - a, ring, &L);
            }
            if (warp == 0)
                ans_warp_table(p + k.tables, &pb, f, c);
            __syncthreads();
            answ_fill_table<NT>(dt, f, c, pb, pb <= 11u);
            __syncthreads();
            if (has) {
                if (st == OC_OK) {
                    uint32_t cnt = (uint32_t)(k.sh.nsym - tfirst < ANS_TILE ? k.sh.nsym - tfirst : ANS_TILE);
                    uint8_t *o = d ? d + (k.sh.split ? 2 * tfirst + 1 : tfirst) : NULL;
                    const uint8_t *lo = p + k.limit + tfirst;
                    uint32_t stride = k.sh.split ? 2u : 1u;
                    st = o ? ans4_decode<true, R>(dt, pb, L, cnt, o, stride, lo)
                           : ans4_decode<false, R>(dt, pb, L, cnt, o, 1u, lo);
                }
                if (st != OC_OK && lane == 0)
                    atomicMin(&s.keys[i], own_key((unsigned long long)tile + 1, st));
            }
        }
        if (d && k.mode == 0) {
            for (uint64_t j = first + threadIdx.x; j < last; j += NT) {
                if (k.sh.split) {
                    d[2 * j] = p[k.limit + j];
                    d[2 * j + 1] = p[k.raw + j];
                } else {
                    d[j] = p[k.raw + j];
                }
            }
        }
        __syncthreads();
    }
}
