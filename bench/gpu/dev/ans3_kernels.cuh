/*
 * ans3_kernels.cuh - why this exists: at 29 warps an SM the library's ANS
 * decoder (win4-16, format v2) is near issue-bound with one dependent state
 * chain a lane (session 10's ncu: 0.69 issued a cycle a scheduler, wait
 * stalls 26%), at 0.55x nVCOMP on text.  Format version 3
 * (bench/gpu/owncodecs/NOTES.md, "ANS format version 3"; CPU reference
 * ans3_ref.h) gives each lane two states, A for its even steps and B for
 * its odd ones, sharing one run of words.  This decoder is win4-16
 * (ans_win_kernels.cuh: the table shared by the CTA's NW tiles, each lane's
 * next R words in a window of shared memory, topped up by cp.async) with
 * each block of BS steps taken as BS/2 pairs: a pair looks up A and B at
 * once (two chains in flight), then renormalises both from two prefetched
 * words nw0 = W[r], nw1 = W[r+1] (A takes nw0; B takes nw1 if A took a
 * word, else nw0) and reloads the two only when either took one, so B never
 * waits for A's word.  A block reads words up to r + BS + 1, so the wait
 * covers r + BS + 2 (v2: r + 5) and the top-up rule must keep that many
 * landed: ANS3_TOP(R) - BS >= BS + 2 (checked below).  Dev only: version 3,
 * PB <= 11 and 4-aligned tiles (all the harness makes); any other tile is
 * reported CORRUPT.  Included by ans3_dev.cu after ans_win_kernels.cuh.
 */
#include "ans3_ref.h"

#define ANS3_TOP(R) ((R) / 2u + 2u) /* top up a lane's window below this many words ahead (as win) */

/* Dynamic shared memory of ans3_k_groups<NW, R>: the table (PB <= 11), then NW rings of R x 128 B (no
 * 16 KiB floor: v3's dev decoder takes no PB 12 table). */
#define ANS3_SMEM(NW, R) (4u * (ANS_DT_FAST + (NW) * (R)*32u))

/* The library's header kernel for v3 chunks (ans3_chunk_check), groups of NW tiles. */
template <uint32_t NW>
static __global__ void ans3_k_headers(size_t n, const void *const *src, const size_t *src_sizes,
                                      void *const *dst, const size_t *caps, own_batch_scratch s)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint8_t *p = (const uint8_t *)src[i];
    size_t len = src_sizes[i];
    uint8_t *d = dst ? (uint8_t *)dst[i] : NULL;
    ans_chunk k;
    ans_table t;
    oc_status st;
    if ((p == NULL && len) || (dst && d == NULL && caps[i]))
        st = OC_ERR_INVALID_ARGUMENT;
    else
        st = ans3_chunk_check(p, len, dst ? (uint64_t)caps[i] : UINT64_MAX, &k, &t);
    const uint64_t GROUP = st == OC_OK ? (uint64_t)NW * ans3_tile_of(p[3]) : 1u;
    s.tiles[i] = st == OC_OK ? (uint32_t)((k.sh.nsym + GROUP - 1) / GROUP) : 0u;
    s.keys[i] = st == OC_OK ? OWN_KEY_NONE : own_key(0, st);
    if (st == OC_OK && d && k.sh.tail)
        d[k.size - 1] = p[len - 1];
}

/* A lane's window (answ_lane: its words, the stored state A in w.s) and B. */
typedef struct ans3_lane {
    answ_lane w;
    uint32_t sb;
} ans3_lane;

/* A v3 tile's head (4-aligned, n >= the head): both states, the lane's
 * words, the counts checked against the tile's size, the window's first
 * min(R, K) words requested (answ_start for the v3 head). */
template <uint32_t R>
static __device__ __forceinline__ oc_status ans3_start(const uint8_t *src, uint64_t n, uint32_t ring,
                                                       ans3_lane *L)
{
    uint32_t lane = threadIdx.x & 31u;
    L->w.s = ans2_ld32<true>(src + 4 * lane);
    L->sb = ans2_ld32<true>(src + 4 * (ANS_LANES + lane));
    L->w.kw = (uint32_t)__ldg(src + 8 * ANS_LANES + 2 * lane) |
              ((uint32_t)__ldg(src + 8 * ANS_LANES + 2 * lane + 1) << 8);
    uint32_t incl = own_warp_incl_add32(L->w.kw);
    L->w.fe = 0;
    if (ANS3_TILE_HEAD + 4ull * __shfl_sync(OWN_FULL, incl, 31) != n)
        return OC_ERR_CORRUPT;
    L->w.off = incl - L->w.kw;
    L->w.w0 = src + ANS3_TILE_HEAD;
    L->w.wb = L->w.w0 + 4ull * L->w.off;
    L->w.ring = ring;
    answ_request<R, false>(L->w, L->w.kw < R ? L->w.kw : R);
    L->w.fe = L->w.kw < R ? L->w.kw : R;
    return OC_OK;
}

/* answ_top with a block of BS steps that reads words up to r + BS + 1. */
template <uint32_t R, uint32_t BS>
static __device__ __forceinline__ void ans3_top(answ_lane &L, uint32_t r, uint32_t &fc)
{
    const uint32_t TOP = ANS3_TOP(R);
    static_assert(TOP >= 2u * BS + 2u, "the window must keep a block's words and the two ahead landed");
    bool low = L.fe < L.kw && L.fe - r < TOP;
    uint32_t need = r + BS + 2u < L.kw ? r + BS + 2u : L.kw;
    if (!__any_sync(OWN_FULL, low || fc < need))
        return;
    uint32_t old = L.fe;
    bool issued = false;
    if (__any_sync(OWN_FULL, low)) {
        uint32_t want = r + R < L.kw ? r + R : L.kw;
        answ_request<R, false>(L, want);
        L.fe = want;
        issued = true;
    }
    if (__any_sync(OWN_FULL, fc < need)) {
        if (issued) {
            answ_wait<false, 1>();
            fc = old;
        } else {
            answ_wait<false, 0>();
            fc = L.fe;
        }
    }
}

/* Below 2^31, x takes word w (rn: it did); on 32-bit halves with selects. */
static __device__ __forceinline__ bool ans3_take(uint64_t &x, uint32_t w)
{
    uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> 32);
    bool rn = hi == 0u && lo < 0x80000000u;
    hi = rn ? lo : hi;
    lo = rn ? w : lo;
    asm("mov.b64 %0, {%1, %2};" : "=l"(x) : "r"(lo), "r"(hi));
    return rn;
}

/* The lane's words r and r + 1 from its window column (u = r << 7). */
template <uint32_t R>
static __device__ __forceinline__ void ans3_load2(uint32_t sh, uint32_t u, uint32_t &nw0, uint32_t &nw1)
{
    nw0 = ans2_lds32(sh + (u & ((R - 1u) << 7)));
    nw1 = ans2_lds32(sh + ((u + 128u) & ((R - 1u) << 7)));
}

/* A pair's renormalisation: A then B, from nw0/nw1; the two words reloaded if either took one. */
template <uint32_t R>
static __device__ __forceinline__ void ans3_renorm2(uint64_t &xa, uint64_t &xb, uint32_t &nw0, uint32_t &nw1,
                                                    uint32_t &u, uint32_t sh)
{
    bool ra = ans3_take(xa, nw0);
    bool rb = ans3_take(xb, ra ? nw1 : nw0);
    u += (ra ? 128u : 0u) + (rb ? 128u : 0u);
    if (ra || rb)
        ans3_load2<R>(sh, u, nw0, nw1);
}

/* One step's renormalisation (the tail's single steps). */
template <uint32_t R>
static __device__ __forceinline__ void ans3_renorm1(uint64_t &x, uint32_t &nw0, uint32_t &nw1, uint32_t &u,
                                                    uint32_t sh)
{
    if (ans3_take(x, nw0)) {
        u += 128u;
        ans3_load2<R>(sh, u, nw0, nw1);
    }
}

/* A v3 tile by a warp through the windows (ans3_ref.h's ans3_decode_tile:
 * the same bytes and status), FAST table (PB <= 11). */
template <bool WRITE, uint32_t STRIDE, uint32_t R, uint32_t BS>
static __device__ __forceinline__ oc_status ans3_decode_tile(const uint32_t *dt, uint32_t pb, ans3_lane &L3,
                                                             uint32_t cnt, uint8_t *out, const uint8_t *lo)
{
    static_assert(BS % 2u == 0u, "blocks of pairs");
    answ_lane &L = L3.w;
    uint32_t lane = threadIdx.x & 31u;
    answ_wait<false, 0>(); /* the first window */
    uint32_t fc = L.fe;
    uint32_t kwu = L.kw << 7, u = 0;
    uint32_t sh = L.ring + 4u * lane; /* the lane's column */
    uint32_t nw0, nw1;
    ans3_load2<R>(sh, 0u, nw0, nw1); /* in the ring whatever K: a word past K is never kept (u != kwu) */
    uint64_t xa = L.s, xb = L3.sb;
    ans3_renorm2<R>(xa, xb, nw0, nw1, u, sh); /* A's first word, then B's */
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
        ans3_top<R, BS>(L, u >> 7, fc);
        uint32_t nq[BS];
        if (LO) {
#pragma unroll
            for (uint32_t i = 0; i < BS; i++)
                nq[i] = k + BS + i < full ? (uint32_t)__ldg(l + (size_t)(k + BS + i) * ANS_LANES) : 0u;
            if (k + ANS2_PF_STEPS < full)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(l + (size_t)(k + ANS2_PF_STEPS) * ANS_LANES));
        }
#pragma unroll
        for (uint32_t i = 0; i < BS; i += 2) {
            uint32_t ea = ans2_lds32(dsh + 4u * ((uint32_t)xa & mask));
            uint32_t eb = ans2_lds32(dsh + 4u * ((uint32_t)xb & mask));
            xa = ans2_dstep<true>(ea, pb, xa);
            xb = ans2_dstep<true>(eb, pb, xb);
            if (WRITE) {
                ans2_put<STRIDE>(o, (size_t)(k + i) * ANS_LANES, ea, q[i]);
                ans2_put<STRIDE>(o, (size_t)(k + i + 1) * ANS_LANES, eb, q[i + 1]);
            }
            ans3_renorm2<R>(xa, xb, nw0, nw1, u, sh);
        }
        if (LO) {
#pragma unroll
            for (uint32_t i = 0; i < BS; i++)
                q[i] = nq[i];
        }
    }
    ans3_top<R, BS>(L, u >> 7, fc); /* the tail reads words up to r + BS + 1 too */
#pragma unroll
    for (uint32_t i = 0; i + 1 < BS; i++) { /* k is even: step k + i uses A for even i */
        if (k + i < full) {
            uint64_t &x = (i & 1u) ? xb : xa;
            uint32_t e = ans2_lds32(dsh + 4u * ((uint32_t)x & mask));
            x = ans2_dstep<true>(e, pb, x);
            if (WRITE)
                ans2_put<STRIDE>(o, (size_t)(k + i) * ANS_LANES, e, q[i]);
            ans3_renorm1<R>(x, nw0, nw1, u, sh);
        }
    }
    if (full * ANS_LANES + lane < cnt) { /* the last, partial step: state full mod 2 */
        uint64_t x = (full & 1u) ? xb : xa;
        uint32_t e = ans2_lds32(dsh + 4u * ((uint32_t)x & mask));
        x = ans2_dstep<true>(e, pb, x);
        if (WRITE)
            ans2_put<STRIDE>(o, (size_t)full * ANS_LANES, e,
                             LO ? (uint32_t)__ldg(l + (size_t)full * ANS_LANES) : 0u);
        if (ans3_take(x, nw0))
            u += 128u;
        if (full & 1u)
            xb = x;
        else
            xa = x;
    }
    answ_wait<false, 0>(); /* no copy in flight when the next group reuses the rings */
    int bad = L.s == 0 || L3.sb == 0 || u != kwu || xa != ANS2_L || xb != ANS2_L;
    return __any_sync(OWN_FULL, bad) ? OC_ERR_CORRUPT : OC_OK;
}

template <bool WRITE, uint32_t R, uint32_t BS>
static __device__ __forceinline__ oc_status ans3_decode(const uint32_t *dt, uint32_t pb, ans3_lane &L,
                                                        uint32_t cnt, uint8_t *out, uint32_t stride,
                                                        const uint8_t *lo)
{
    if (stride == 1)
        return ans3_decode_tile<WRITE, 1, R, BS>(dt, pb, L, cnt, out, lo);
    if (WRITE)
        out -= 1;
    if (((uintptr_t)out & 1u) == 0)
        return ans3_decode_tile<WRITE, 2, R, BS>(dt, pb, L, cnt, out, lo);
    return ans3_decode_tile<WRITE, 3, R, BS>(dt, pb, L, cnt, out, lo);
}

/* ans_k_groups_win for v3 chunks: NW tiles of a chunk a CTA (tiles of
 * 16384 or 32768 symbols, the chunk's flags), one table, windows of R
 * words, blocks of BS steps; MINB CTAs an SM for the register budget. */
template <uint32_t NW, uint32_t R, uint32_t BS, uint32_t MINB>
static __global__ void __launch_bounds__(NW * 32u, MINB)
    ans3_k_groups(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                  own_batch_scratch s)
{
    extern __shared__ uint32_t ans_sm[]; /* ANS3_SMEM(NW, R) bytes: the table, the rings */
    __shared__ uint16_t f[256], c[256];
    __shared__ uint32_t pb, ts;
    __shared__ size_t chunk;
    __shared__ ans_chunk k;
    const uint32_t NT = NW * 32u;
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
                ts = ans3_tile_of(((const uint8_t *)src[ci])[3]);
            }
        }
        __syncthreads();
        size_t i = chunk;
        const uint8_t *p = (const uint8_t *)src[i];
        uint8_t *d = dst ? (uint8_t *)dst[i] : NULL;
        uint32_t group = (uint32_t)(g - s.first[i]), TS = ts;
        const uint64_t GROUP = (uint64_t)NW * TS;
        uint64_t first = (uint64_t)group * GROUP;
        uint64_t last = first + GROUP < k.sh.nsym ? first + GROUP : k.sh.nsym;
        if (k.mode == 1) {
            uint32_t tile = group * NW + warp;
            bool has = tile < k.sh.ntiles;
            uint64_t a = 0, b = 0, tfirst = (uint64_t)tile * TS;
            oc_status st = OC_OK;
            ans3_lane L;
            L.w.fe = 0;
            if (has) {
                st = own_tile_span(p, k.tile_tab, k.sh.ntiles, tile, k.limit, &a, &b);
                if (st == OC_OK && !(__ldg(p + k.tables) <= ANS_PB && ((uintptr_t)(p + a) & 3u) == 0 &&
                                     b - a >= ANS3_TILE_HEAD))
                    st = OC_ERR_CORRUPT; /* dev: PB 12 or unaligned v3 tiles are not taken */
                if (st == OC_OK)
                    st = ans3_start<R>(p + a, b - a, ring, &L);
            }
            if (warp == 0)
                ans_warp_table(p + k.tables, &pb, f, c);
            __syncthreads();
            answ_fill_table<NT>(dt, f, c, pb, pb <= 11u);
            __syncthreads();
            if (has) {
                if (st == OC_OK) {
                    uint32_t cnt = (uint32_t)(k.sh.nsym - tfirst < TS ? k.sh.nsym - tfirst : TS);
                    uint8_t *o = d ? d + (k.sh.split ? 2 * tfirst + 1 : tfirst) : NULL;
                    const uint8_t *lo = p + k.limit + tfirst;
                    uint32_t stride = k.sh.split ? 2u : 1u;
                    st = o ? ans3_decode<true, R, BS>(dt, pb, L, cnt, o, stride, lo)
                           : ans3_decode<false, R, BS>(dt, pb, L, cnt, o, 1u, lo);
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
