/*
 * ans_win_kernels.cuh - why this exists: issue 18's ANS decode ran at 0.47x
 * nVCOMP on text with the library's ans_k_groups latency-bound at 14 warps an
 * SM (each CTA of 2 warps stages its tiles' words whole: a 22.25 KiB pool
 * beside the 8 KiB table, 7 CTAs an SM).  This is design (a) of session 9,
 * as written in session 10 (bench/gpu/owncodecs/NOTES.md): each lane keeps
 * only a window of its next R words in shared memory (a ring in the lane's
 * own bank column, word j at slot (j mod R) x 32 + lane), topped up by
 * cp.async when any lane of the warp has fewer than R/2 + 2 words requested
 * ahead (one vote a block of 4 steps) and waited for only when some lane's
 * next 5 words are not known to have landed; a CTA of NW warps (NW tiles of
 * one chunk) shares one decode table.  8 KiB + NW x R x 128 B of dynamic
 * shared memory (at least 16 KiB: a foreign PB 12 table), against the
 * library's 30.25 KiB for 2 warps.  Same reads, checks, statuses and bytes
 * as the library (ans_dev compares every output with the input); version 1,
 * PB 12 and unaligned tiles take the library's global-memory path.  CO
 * (the `c` variants) lays a lane's window out as a row and tops the
 * windows up coalesced (answ_slot says why both).
 * Included by ans_dev.cu after the library's ans_kernels.cu (its helpers).
 */

#define ANSW_TOP(R) ((R) / 2u + 2u) /* top up a lane's window below this many words ahead */

/* Dynamic shared memory of ans_k_groups_win<NW, R>: the table, then NW rings of R x 128 B. */
#define ANSW_SMEM(NW, R)                                                                                     \
    (4u * (ANS_DT_FAST + (NW) * (R)*32u) > 4u * 4096u ? 4u * (ANS_DT_FAST + (NW) * (R)*32u) : 4u * 4096u)

/* The library's header kernel with groups of NW tiles. */
template <uint32_t NW>
static __global__ void ans_k_headers_w(size_t n, const void *const *src, const size_t *src_sizes,
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
        st = ans_chunk_check(p, len, dst ? (uint64_t)caps[i] : UINT64_MAX, &k, &t);
    s.tiles[i] = st == OC_OK ? (uint32_t)((k.sh.nsym + GROUP - 1) / GROUP) : 0u;
    s.keys[i] = st == OC_OK ? OWN_KEY_NONE : own_key(0, st);
    if (st == OC_OK && d && k.sh.tail)
        d[k.size - 1] = p[len - 1];
}

/* The library's ans_fill_table for a CTA of NT threads. */
template <uint32_t NT>
static __device__ __forceinline__ void answ_fill_table(uint32_t *dt, const uint16_t *f, const uint16_t *c,
                                                       uint32_t pb, bool fast)
{
    uint32_t m = 1u << pb, t = threadIdx.x, per = m / NT, base = t * per;
    if (per == 0) {
        per = t < m ? 1u : 0u;
        base = t;
    }
    if (per == 0)
        return;
    uint32_t r = (t & 31u) & (per - 1u);
    uint32_t sym1 = ans_slot_sym(c, base), sym = ans_slot_sym(c, base + r);
    uint32_t fs = f[sym], cs = c[sym];
    for (uint32_t k = 0; k < per; k++) {
        uint32_t slot = base + ((r + k) & (per - 1u));
        if (k && slot == base) {
            sym = sym1;
            fs = f[sym];
            cs = c[sym];
        }
        while (slot >= cs + fs && sym < 255u) {
            sym++;
            fs = f[sym];
            cs = c[sym];
        }
        uint32_t j = slot - cs;
        dt[slot] = fast ? sym | (j << 8) | (fs << 20) : sym | ((fs - 1u) << 8) | (j << 20);
    }
}

/* Two layouts of a warp's windows (R x 128 B):
 *   CO false: word j of lane L at row (j mod R), column L (bank L: the lanes'
 *             reads never conflict); each lane copies its own words (4-byte
 *             cp.async, 32 lanes on 32 different lines: an L1 wavefront a
 *             word);
 *   CO true:  lane L's row of R words, word j at (j + L) mod R (banks (j +
 *             L) mod 32); the warp copies one lane's range at a time, its
 *             consecutive words by consecutive lanes (coalesced, and no
 *             bank conflicts on the writes), at the price of a loop over
 *             the 32 lanes and two shuffles a lane per top-up.
 * A lane reads its words through a counter u = (r + bias) << SH (bias L, SH
 * 2 for CO, else 0 and 7): word r's slot is sh + (u & (R - 1) << SH), one
 * LOP3 and an add. */
template <bool CO> struct answ_lay {
    static constexpr uint32_t SH = CO ? 2u : 7u;
};

/* The shared address of word j of lane l2 in the warp's windows (ring: their base). */
template <uint32_t R, bool CO>
static __device__ __forceinline__ uint32_t answ_slot(uint32_t ring, uint32_t l2, uint32_t j)
{
    return CO ? ring + 4u * (l2 * R + ((j + l2) & (R - 1u))) : ring + 4u * l2 + ((j & (R - 1u)) << 7);
}

/* A lane's window state across a v2 tile. */
typedef struct answ_lane {
    const uint8_t *wb; /* the lane's first word in global memory */
    const uint8_t *w0; /* the tile's first word (CO: lanes copy for each other) */
    uint32_t off;      /* the lane's first word's index in the tile's words */
    uint32_t s;        /* the stored state */
    uint32_t kw;       /* the lane's words */
    uint32_t ring;     /* the warp's windows (shared address) */
    uint32_t fe;       /* words requested: [0, fe) */
} answ_lane;

/* Requests every lane's words [fe, want) (want - fe <= R), and commits them as one group. */
template <uint32_t R, bool CO>
static __device__ __forceinline__ void answ_request(const answ_lane &L, uint32_t want)
{
    uint32_t lane = threadIdx.x & 31u;
    if (!CO) {
        for (uint32_t j = L.fe; j < want; j++)
            ans_copy_word(answ_slot<R, false>(L.ring, lane, j), L.wb + 4u * j);
    } else {
        __syncwarp(); /* the lanes' reads of the slots before other lanes' copies over them */
        uint32_t pk = L.fe | (want << 16); /* both < 2^16 */
        uint32_t m = __ballot_sync(OWN_FULL, want > L.fe);
        while (m) {
            uint32_t l2 = (uint32_t)__ffs((int)m) - 1u;
            m &= m - 1u;
            uint32_t p2 = __shfl_sync(OWN_FULL, pk, l2), o2 = __shfl_sync(OWN_FULL, L.off, l2);
            uint32_t j = (p2 & 0xffffu) + lane;
            if (j < (p2 >> 16))
                ans_copy_word(answ_slot<R, true>(L.ring, l2, j), L.w0 + 4ull * (o2 + j));
        }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/* Waits for every group but the newest N (0 or 1); with CO, other lanes
 * made the copies, so the warp synchronises after. */
template <bool CO, int N> static __device__ __forceinline__ void answ_wait(void)
{
    if (N == 0)
        asm volatile("cp.async.wait_group 0;" ::: "memory");
    else
        asm volatile("cp.async.wait_group 1;" ::: "memory");
    if (CO)
        __syncwarp();
}

/* A v2 tile's head (src: 4-aligned, n >= the head): the lane's state and
 * words, the check of the counts against the tile's size (the library's,
 * in the same order: CORRUPT if they disagree), and the window's first
 * min(R, K) words requested (committed, not waited for: the decode table
 * is built meanwhile). */
template <uint32_t R, bool CO>
static __device__ __forceinline__ oc_status answ_start(const uint8_t *src, uint64_t n, uint32_t ring,
                                                       answ_lane *L)
{
    uint32_t lane = threadIdx.x & 31u;
    L->s = ans2_ld32<true>(src + 4 * lane);
    L->kw = (uint32_t)__ldg(src + 4 * ANS_LANES + 2 * lane) |
            ((uint32_t)__ldg(src + 4 * ANS_LANES + 2 * lane + 1) << 8);
    uint32_t incl = own_warp_incl_add32(L->kw);
    L->fe = 0;
    if (ANS2_TILE_HEAD + 4ull * __shfl_sync(OWN_FULL, incl, 31) != n)
        return OC_ERR_CORRUPT;
    L->off = incl - L->kw;
    L->w0 = src + ANS2_TILE_HEAD;
    L->wb = L->w0 + 4ull * L->off;
    L->ring = ring;
    answ_request<R, CO>(*L, L->kw < R ? L->kw : R);
    L->fe = L->kw < R ? L->kw : R;
    return OC_OK;
}

/* Before a block of up to 4 steps (which read words up to r + 4): tops up
 * the windows if any lane has fewer than ANSW_TOP words requested ahead
 * (each lane to min(r + R, K): word j overwrites word j - R < r, already
 * taken), then, if some lane's words up to r + 4 are not known to have
 * landed (fc), waits for every group but the one just committed (whose
 * words start at or past r + TOP - 4 >= r + 5), or for all.  One vote
 * when neither is needed (nearly every block). */
template <uint32_t R, bool CO>
static __device__ __forceinline__ void answ_top(answ_lane &L, uint32_t r, uint32_t &fc)
{
    const uint32_t TOP = ANSW_TOP(R);
    bool low = L.fe < L.kw && L.fe - r < TOP;
    uint32_t need = r + 5u < L.kw ? r + 5u : L.kw;
    if (!__any_sync(OWN_FULL, low || fc < need))
        return;
    uint32_t old = L.fe;
    bool issued = false;
    if (__any_sync(OWN_FULL, low)) {
        uint32_t want = r + R < L.kw ? r + R : L.kw;
        answ_request<R, CO>(L, want);
        L.fe = want;
        issued = true;
    }
    if (__any_sync(OWN_FULL, fc < need)) {
        if (issued) {
            answ_wait<CO, 1>();
            fc = old;
        } else {
            answ_wait<CO, 0>();
            fc = L.fe;
        }
    }
}

/* The library's v2 renormalisation with the word from the lane's window
 * (u: the lane's counter, see answ_lay). */
template <uint32_t R, bool CO>
static __device__ __forceinline__ void answ_renorm(uint64_t &x, uint32_t &nw, uint32_t &u, uint32_t kwu,
                                                   uint32_t sh)
{
    const uint32_t SH = answ_lay<CO>::SH;
    uint32_t lo = (uint32_t)x, hi = (uint32_t)(x >> 32);
    bool rn = hi == 0u && lo < 0x80000000u;
    hi = rn ? lo : hi;
    lo = rn ? nw : lo;
    u += rn ? 1u << SH : 0u;
    if (rn && u < kwu)
        nw = ans2_lds32(sh + (u & ((R - 1u) << SH)));
    asm("mov.b64 %0, {%1, %2};" : "=l"(x) : "r"(lo), "r"(hi));
}

/* The library's ans2_decode_tile_warp (FAST table: PB <= 11) with the
 * words from the lane's window; the head was read by answ_start. */
template <bool WRITE, uint32_t STRIDE, uint32_t R, bool CO>
static __device__ __forceinline__ oc_status answ_decode_tile(const uint32_t *dt, uint32_t pb, answ_lane &L,
                                                             uint32_t cnt, uint8_t *out, const uint8_t *lo)
{
    const uint32_t SH = answ_lay<CO>::SH;
    uint32_t lane = threadIdx.x & 31u;
    answ_wait<CO, 0>(); /* the first window */
    uint32_t fc = L.fe; /* words known to have landed */
    uint32_t bias = CO ? lane : 0u;
    /* the lane's counter u = (r + bias) << SH and its end; K < 2^16: no overflow */
    uint32_t kwu = (L.kw + bias) << SH, u = bias << SH;
    uint32_t sh = CO ? L.ring + 4u * lane * R : L.ring + 4u * lane; /* the lane's row or column */
    uint32_t nw = L.kw ? ans2_lds32(answ_slot<R, CO>(L.ring, lane, 0)) : 0u;
    uint64_t x = L.s;
    if (x < ANS2_L) {
        x = (x << 32) | nw;
        u += 1u << SH;
        if (u < kwu)
            nw = ans2_lds32(answ_slot<R, CO>(L.ring, lane, 1));
    }
    uint32_t mask = (1u << pb) - 1u;
    uint32_t dsh = __shfl_sync(OWN_FULL, (uint32_t)__cvta_generic_to_shared(dt), 0);
    uint32_t full = cnt / ANS_LANES;
    uint8_t *o = WRITE ? out + (size_t)lane * (STRIDE == 1 ? 1u : 2u) : NULL;
    const bool LO = WRITE && STRIDE != 1;
    const uint8_t *l = LO ? lo + lane : NULL;
    uint32_t q[ANS2_BLOCK];
#pragma unroll
    for (uint32_t i = 0; i < ANS2_BLOCK; i++)
        q[i] = LO && i < full ? (uint32_t)__ldg(l + (size_t)i * ANS_LANES) : 0u;
    uint32_t k = 0;
    for (; k + ANS2_BLOCK <= full; k += ANS2_BLOCK) {
        answ_top<R, CO>(L, (u >> SH) - bias, fc);
        uint32_t nq[ANS2_BLOCK];
        if (LO) {
#pragma unroll
            for (uint32_t i = 0; i < ANS2_BLOCK; i++)
                nq[i] = k + ANS2_BLOCK + i < full
                            ? (uint32_t)__ldg(l + (size_t)(k + ANS2_BLOCK + i) * ANS_LANES)
                            : 0u;
            if (k + ANS2_PF_STEPS < full)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(l + (size_t)(k + ANS2_PF_STEPS) * ANS_LANES));
        }
#pragma unroll
        for (uint32_t i = 0; i < ANS2_BLOCK; i++) {
            uint32_t e = ans2_lds32(dsh + 4u * ((uint32_t)x & mask));
            x = ans2_dstep<true>(e, pb, x);
            if (WRITE)
                ans2_put<STRIDE>(o, (size_t)(k + i) * ANS_LANES, e, q[i]);
            answ_renorm<R, CO>(x, nw, u, kwu, sh);
        }
        if (LO) {
#pragma unroll
            for (uint32_t i = 0; i < ANS2_BLOCK; i++)
                q[i] = nq[i];
        }
    }
    answ_top<R, CO>(L, (u >> SH) - bias, fc); /* the tail reads words up to r + 4 too */
#pragma unroll
    for (uint32_t i = 0; i + 1 < ANS2_BLOCK; i++) {
        if (k + i < full) {
            uint32_t e = ans2_lds32(dsh + 4u * ((uint32_t)x & mask));
            x = ans2_dstep<true>(e, pb, x);
            if (WRITE)
                ans2_put<STRIDE>(o, (size_t)(k + i) * ANS_LANES, e, q[i]);
            answ_renorm<R, CO>(x, nw, u, kwu, sh);
        }
    }
    if (full * ANS_LANES + lane < cnt) {
        uint32_t e = ans2_lds32(dsh + 4u * ((uint32_t)x & mask));
        x = ans2_dstep<true>(e, pb, x);
        if (WRITE)
            ans2_put<STRIDE>(o, (size_t)full * ANS_LANES, e,
                             LO ? (uint32_t)__ldg(l + (size_t)full * ANS_LANES) : 0u);
        if (x < ANS2_L) {
            x = (x << 32) | nw;
            u += 1u << SH;
        }
    }
    /* no copy may still be in flight when the next group's windows reuse the rings */
    answ_wait<CO, 0>();
    int bad = L.s == 0 || u != kwu || x != ANS2_L;
    return __any_sync(OWN_FULL, bad) ? OC_ERR_CORRUPT : OC_OK;
}

/* A windowed tile on the path its output calls for (ans_decode_any's
 * conventions: out is the first byte, or for 16-bit values out - 1 the
 * first value). */
template <bool WRITE, uint32_t R, bool CO>
static __device__ __forceinline__ oc_status answ_decode(const uint32_t *dt, uint32_t pb, answ_lane &L,
                                                        uint32_t cnt, uint8_t *out, uint32_t stride,
                                                        const uint8_t *lo)
{
    if (stride == 1)
        return answ_decode_tile<WRITE, 1, R, CO>(dt, pb, L, cnt, out, lo);
    if (WRITE)
        out -= 1;
    if (((uintptr_t)out & 1u) == 0)
        return answ_decode_tile<WRITE, 2, R, CO>(dt, pb, L, cnt, out, lo);
    return answ_decode_tile<WRITE, 3, R, CO>(dt, pb, L, cnt, out, lo);
}

/* Registers a thread allowed (65536 / (threads x CTAs)): the CTAs an SM the shared memory allows. */
#define ANSW_MINB(NW, R) ((NW) == 4u ? ((R) == 16u ? 10u : 8u) : 12u)

/* The library's ans_k_groups with groups of NW tiles and the words of a v2
 * tile of PB <= 11 at a 4-aligned place through its warp's windows (all
 * other tiles: global memory, as the library's fallback). */
template <uint32_t NW, uint32_t R, bool CO>
static __global__ void __launch_bounds__(NW * 32u, ANSW_MINB(NW, R))
    ans_k_groups_win(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                     own_batch_scratch s)
{
    extern __shared__ uint32_t ans_sm[]; /* ANSW_SMEM(NW, R) bytes: the table, the rings */
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
                ans_chunk_geometry((const uint8_t *)src[ci], &k);
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
            bool has = tile < k.sh.ntiles, win = false;
            uint64_t a = 0, b = 0, tfirst = (uint64_t)tile * ANS_TILE;
            oc_status st = OC_OK;
            answ_lane L;
            L.fe = 0;
            if (has) {
                st = own_tile_span(p, k.tile_tab, k.sh.ntiles, tile, k.limit, &a, &b);
                win = st == OC_OK && k.version >= 2 && __ldg(p + k.tables) <= ANS_PB &&
                      ((uintptr_t)(p + a) & 3u) == 0 && b - a >= ANS2_TILE_HEAD;
                if (win)
                    st = answ_start<R, CO>(p + a, b - a, ring, &L);
            }
            if (warp == 0)
                ans_warp_table(p + k.tables, &pb, f, c);
            __syncthreads();
            answ_fill_table<NT>(dt, f, c, pb, k.version >= 2 && pb <= 11u);
            __syncthreads();
            if (has) {
                if (st == OC_OK) {
                    uint32_t cnt = (uint32_t)(k.sh.nsym - tfirst < ANS_TILE ? k.sh.nsym - tfirst : ANS_TILE);
                    uint8_t *o = d ? d + (k.sh.split ? 2 * tfirst + 1 : tfirst) : NULL;
                    const uint8_t *lo = p + k.limit + tfirst;
                    uint32_t stride = k.sh.split ? 2u : 1u;
                    if (win)
                        st = o ? answ_decode<true, R, CO>(dt, pb, L, cnt, o, stride, lo)
                               : answ_decode<false, R, CO>(dt, pb, L, cnt, o, 1u, lo);
                    else
                        st = o ? ans_decode_any<true>(k.version, dt, pb, p + a, b - a, cnt, o, stride, lo)
                               : ans_decode_any<false>(k.version, dt, pb, p + a, b - a, cnt, o, 1u, lo);
                }
                if (st != OC_OK && lane == 0)
                    atomicMin(&s.keys[i], own_key((unsigned long long)tile + 1, st));
            }
        }
        if (d && (k.mode == 0 || (k.sh.split && k.version == 1))) {
            for (uint64_t j = first + threadIdx.x; j < last; j += NT) {
                if (k.sh.split) {
                    d[2 * j] = p[k.limit + j];
                    if (k.mode == 0)
                        d[2 * j + 1] = p[k.raw + j];
                } else if (k.mode == 0) {
                    d[j] = p[k.raw + j];
                }
            }
        }
        __syncthreads();
    }
}
