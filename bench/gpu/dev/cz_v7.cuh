/*
 * cz_v7.cuh - why this exists: at ratios of 45-180 (orderkey.i64,
 * sorted_partkey.i64: 0.86x and 0.69x nVCOMP after session 11) a tile of
 * the library's fused path (cascaded_tile_decode.cuh, czg_fused) is 2048
 * outputs, 8 a thread, and its per-tile work (the chunk lookup and the
 * parse by every warp, three unpacks each with a warp scan of the block
 * widths, the two-level scan, two binary searches a thread, 5 barriers)
 * is paid for 8 elements.  `pair` (session 12, bench/gpu/owncodecs/
 * NOTES.md): a CTA stages two consecutive full 8-byte tiles of a chunk as
 * one byte range (their coded bytes are contiguous) and decodes both in
 * one round of barriers, warps 0-3 tile A and warps 4-7 tile B, 16
 * consecutive elements a thread: a warp's parse, unpack scans and binary
 * searches serve 16 outputs a lane instead of 8, and a tile costs half
 * the barriers.  The workspace is the library's czg_ws (3 CTAs an SM):
 * the two tiles' values and P share `buf` and the stage (A from the
 * bottom, B from the top: a tile's slots depend only on its own counts,
 * written before the barrier that exchanges them), their run starts
 * share `starts` (B's after A's, placed after that barrier).  Anything
 * else (short tiles, other widths, other layers, tiles whose two RLEs are
 * the identity, a pair whose counts do not fit, any check that fails)
 * goes to the library's decoder, tile by tile (tile B staged again), so
 * the statuses and bytes are the library's.  Included by cz_dev.cu after
 * the library's cascaded_kernels.cu.
 */

#define CZ7_CNT (CZ_TILE_BYTES / 8u)       /* elements of a full 8-byte tile: 2048 */
#define CZ7_K (2u * CZ7_CNT / CZG_THREADS) /* elements a thread: 16 */
#define CZ7_R8(x) (((x) + 7u) & ~7u)       /* 8 run starts: a 16-byte vector */

/* Exclusive scans of a (u64) and b (u64) within the thread's half of the
 * CTA (warps 0-3, 4-7), one barrier; the totals of a in each half in
 * ta[2]; each warp's word f (lane 31's) is published to every thread in
 * fl[8]. */
static __device__ __forceinline__ void cz7_scan2(uint64_t a, uint64_t b, uint32_t f, uint64_t *pa,
                                                 uint64_t *pb, uint64_t *ta, uint32_t *fl)
{
    __shared__ unsigned long long cz7_tot[2][CZG_WARPS];
    __shared__ uint32_t cz7_fl[CZG_WARPS];
    uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, h0 = warp & ~3u;
    uint64_t ia = a, ib = b;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        uint64_t t = __shfl_up_sync(0xffffffffu, ia, d);
        uint64_t u = __shfl_up_sync(0xffffffffu, ib, d);
        if ((int)lane >= d) {
            ia += t;
            ib += u;
        }
    }
    if (lane == 31u) {
        cz7_tot[0][warp] = ia;
        cz7_tot[1][warp] = ib;
        cz7_fl[warp] = f;
    }
    __syncthreads();
    uint64_t prea = 0, preb = 0, s0 = 0, s1 = 0;
#pragma unroll
    for (uint32_t j = 0; j < CZG_WARPS; j++) {
        uint64_t t = cz7_tot[0][j];
        prea += j >= h0 && j < warp ? t : 0ull;
        preb += j >= h0 && j < warp ? (uint64_t)cz7_tot[1][j] : 0ull;
        s0 += j < 4u ? t : 0ull;
        s1 += j < 4u ? 0ull : t;
        fl[j] = cz7_fl[j];
    }
    *pa = prea + ia - a;
    *pb = preb + ib - b;
    ta[0] = s0;
    ta[1] = s1;
}

/* The thread's K run starts (pre + the u16 halves of p) at entry
 * base + e0 of the swizzled starts array, only the vectors whose first
 * entry is <= c (the entries past c hold the half's total). */
static __device__ __forceinline__ void cz7_put_starts(uint8_t *starts, uint32_t base, uint32_t e0, uint32_t c,
                                                      uint32_t pre, const uint32_t *p)
{
    uint32_t wd[CZ7_K / 2u];
#pragma unroll
    for (uint32_t m = 0; m < CZ7_K / 2u; m++)
        wd[m] = ((pre + (p[m] & 0xffffu)) & 0xffffu) | ((pre + (p[m] >> 16)) << 16);
#pragma unroll
    for (uint32_t v = 0; v < CZ7_K / 8u; v++)
        if (e0 + 8u * v <= c)
            *(uint4 *)(starts + czg_swz(2u * (base + e0) + 16u * v)) =
                make_uint4(wd[4 * v], wd[4 * v + 1], wd[4 * v + 2], wd[4 * v + 3]);
}

/* Decodes the two full 8-byte tiles staged in stage sb (A at offset o,
 * nA bytes; B right after it, nB bytes) of a chunk of version ver into
 * dA and dB (NULL: checks only).  Returns 1 when both decoded (both OK),
 * 0 when the pair is not for this path: nothing has been written to the
 * stage or the outputs then, and the caller decodes the tiles one by one
 * with the library's decoder.  Every thread of the CTA. */
static __device__ __noinline__ int cz7_pair(uint32_t sb, uint32_t o, uint32_t nA, uint32_t nB, uint32_t ver,
                                            uint8_t *dA, uint8_t *dB)
{
    typedef uint64_t V;
    constexpr uint32_t W = 8u, K = CZ7_K, CNT = CZ7_CNT;
    czg_ws *ws = (czg_ws *)czg_smem;
    uint32_t h = threadIdx.x >> 7, ht = threadIdx.x & 127u, e0 = ht * K;
    const uint32_t *S = ws->stage[sb];
    uint32_t to = o + (h ? nA : 0u), n = h ? nB : nA;
    const uint8_t *T = (const uint8_t *)S + to;
    uint8_t *vb = (uint8_t *)ws->buf;
    czg_parse P;
    bool ok = T[0] == (2u | (1u << 2)) && czg_parse_tile(T, n, W, CNT, ver, &P);
    uint32_t hp0 = 0, hp1 = 0, hp2 = 0, c1 = 0, c2 = 0;
    if (ok) {
        hp0 = czg_hp(P, 0);
        hp1 = czg_hp(P, 1);
        hp2 = czg_hp(P, 2);
        c1 = czg_count(T, hp0);
        c2 = czg_count(T, hp1);
        ok = !(czg_ident(T, hp0, CNT) && czg_ident(T, hp1, c1));
    }
    uint32_t p0[K / 2u], p1[K / 2u], acc0 = 0, acc1 = 0;
    V acc2 = 0, x[K];
    uint32_t vbase = h ? CNT - ((c2 + 1u) & ~1u) : 0u; /* A's values from slot 0, B's up to slot CNT */
#pragma unroll
    for (uint32_t m = 0; m < K / 2u; m++)
        p0[m] = p1[m] = 0;
    if (ok) { /* warp-uniform */
        acc1 = czg_lens<K>(S, to, hp1, c2, e0, p1);
        czg_unpack<V, K>(S, to, hp2, W, e0, x); /* v */
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            acc2 += (V)czg_len<K>(p1, acc1, i) * x[i];
#pragma unroll
        for (uint32_t m = 0; m < K / 2u; m++)
            if (e0 + 2u * m < c2)
                *(uint4 *)(vb + czg_swz((vbase + e0 + 2u * m) * W)) =
                    make_uint4((uint32_t)x[2 * m], (uint32_t)(x[2 * m] >> 32), (uint32_t)x[2 * m + 1],
                               (uint32_t)(x[2 * m + 1] >> 32));
        acc0 = czg_lens<K>(S, to, hp0, c1, e0, p0);
    }
    V seed = (V)czg_bytes(T, 1u, W); /* before the barrier: P goes into the stage after it */
    uint64_t pa, pb, ta[2];
    uint32_t fl[CZG_WARPS];
    cz7_scan2((uint64_t)acc0 | ((uint64_t)acc1 << 32), (uint64_t)acc2, ok ? (c1 << 16) | c2 : ~0u, &pa, &pb,
              ta, fl);
    /* the pair's verdict, the same in every thread: each half's four warps parsed the same counts, the run
     * totals are the tiles' (the library's checks), and the two tiles' values fit in buf together */
    bool pair = true;
#pragma unroll
    for (uint32_t j = 0; j < CZG_WARPS; j++)
        pair &= fl[j] != ~0u && fl[j] == fl[j & 4u];
    uint32_t c1A = fl[0] >> 16, c2A = fl[0] & 0xffffu, c1B = fl[4] >> 16, c2B = fl[4] & 0xffffu;
    pair &= ((c2A + 1u) & ~1u) + ((c2B + 1u) & ~1u) <= CNT;
    /* both halves' run totals (every thread checks both): the core's checks */
    pair &=
        ta[0] == ((uint64_t)CNT | ((uint64_t)c1A << 32)) && ta[1] == ((uint64_t)CNT | ((uint64_t)c1B << 32));
    if (!pair)
        return 0;
    if (!dA)
        return 1;
    uint8_t *s0 = (uint8_t *)ws->starts, *s1 = s0 + CZG_S1, *Pb = (uint8_t *)ws->stage[sb];
    uint32_t b0 = h ? CZ7_R8(c1A + 1u) : 0u, b1 = h ? CZ7_R8(c2A + 1u) : 0u;
    cz7_put_starts(s0, b0, e0, c1, (uint32_t)pa, p0);
    cz7_put_starts(s1, b1, e0, c2, (uint32_t)(pa >> 32), p1);
    if (ht == 127u && c1 == CNT) /* the sentinel past the last run, beyond every thread's entries */
        *(uint16_t *)(s0 + czg_swz(2u * (b0 + c1))) = (uint16_t)CNT;
    { /* P, a 16-byte vector (2 values) at a time, from the thread's own v read back */
        V run = seed + pb;
#pragma unroll
        for (uint32_t qv = 0; qv < K / 2u; qv++) {
            if (e0 + 2u * qv < c2) {
                uint32_t off = czg_swz((vbase + e0 + 2u * qv) * W);
                uint4 in = *(const uint4 *)(vb + off);
                V v0 = (V)in.x | ((V)in.y << 32), v1 = (V)in.z | ((V)in.w << 32);
                V r1 = run + (V)czg_len<K>(p1, acc1, 2u * qv) * v0;
                *(uint4 *)(Pb + off) =
                    make_uint4((uint32_t)run, (uint32_t)(run >> 32), (uint32_t)r1, (uint32_t)(r1 >> 32));
                run = r1 + (V)czg_len<K>(p1, acc1, 2u * qv + 1u) * v1;
            }
        }
    }
    __syncthreads(); /* the starts, v and P */
    {
        uint32_t sl0 = CNT - c1, a = e0 > sl0 ? e0 - sl0 : 0u, b = (e0 < c1 - 1u ? e0 : c1 - 1u) + 1u;
        while (b - a > 1u) {
            uint32_t mid = (a + b) >> 1;
            if (czg_start2(s0, b0 + mid) <= e0)
                a = mid;
            else
                b = mid;
        }
        uint32_t j = a, sl1 = c1 - c2;
        a = j > sl1 ? j - sl1 : 0u;
        b = (j < c2 - 1u ? j : c2 - 1u) + 1u;
        while (b - a > 1u) {
            uint32_t mid = (a + b) >> 1;
            if (czg_start2(s1, b1 + mid) <= j)
                a = mid;
            else
                b = mid;
        }
        uint32_t k = a, nj = czg_start2(s0, b0 + j + 1u), nk = czg_start2(s1, b1 + k + 1u);
        V vk = czg_ld2<V, W>(vb, vbase + k);
        V y = czg_ld2<V, W>(Pb, vbase + k) + (V)(j - czg_start2(s1, b1 + k) + 1u) * vk;
#pragma unroll
        for (uint32_t i = 0; i < K; i++) {
            if (e0 + i == nj) {
                j++;
                nj = czg_start2(s0, b0 + j + 1u);
                if (j == nk) {
                    k++;
                    nk = czg_start2(s1, b1 + k + 1u);
                    vk = czg_ld2<V, W>(vb, vbase + k);
                }
                y += vk;
            }
            x[i] = y;
        }
    }
    __syncthreads();                        /* the walk's reads of buf, the stage and the starts */
    czg_store<V, W, K>(h ? Pb : vb, e0, x); /* A's outputs into buf, B's into the stage */
    __syncthreads();
    czg_copy_out(vb, CZ_TILE_BYTES, dA);
    czg_copy_out(Pb, CZ_TILE_BYTES, dB);
    return 1;
}

/* A tile of the library's switch (czg_tiles), staged in stage sb at offset o. */
static __device__ __forceinline__ oc_status cz7_one(uint32_t sb, const czg_tile &T, uint32_t o)
{
    oc_status st = (oc_status)T.st;
    if (st != OC_OK)
        return st;
    switch (T.w) {
    case 1:
        return czg_decode_tile<uint32_t, 1>(sb, o, T.src, T.n, T.cnt, T.ver, T.dst);
    case 2:
        return czg_decode_tile<uint32_t, 2>(sb, o, T.src, T.n, T.cnt, T.ver, T.dst);
    case 4:
        return czg_decode_rdr<uint32_t, 4>(sb, o, T.src, T.n, T.cnt, T.ver, T.dst);
    default:
        return czg_decode_rdr<uint64_t, 8>(sb, o, T.src, T.n, T.cnt, T.ver, T.dst);
    }
}

/* Tiles A and B go through the pair path when both are full 8-byte tiles
 * of one chunk, coded (not stored), contiguous, and fit one stage. */
static __device__ __forceinline__ bool cz7_pairable(const czg_tile &A, const czg_tile &B)
{
    return A.valid && B.valid && A.chunk == B.chunk && A.st == OC_OK && B.st == OC_OK && A.w == 8u &&
           B.w == 8u && A.cnt == CZ7_CNT && B.cnt == CZ7_CNT && A.n < CZ_TILE_BYTES && B.n < CZ_TILE_BYTES &&
           A.n > 0 && B.n > 0 && B.src == A.src + A.n &&
           ((uintptr_t)A.src & 15u) + A.n + B.n <= CZG_STAGE_BYTES;
}

/* Tile t, the one after A, located only when A can start a pair (other
 * tiles pay no second lookup). */
static __device__ __forceinline__ void cz7_locate2(size_t n, const void *const *src, const size_t *src_sizes,
                                                   void *const *dst, const own_batch_scratch &s,
                                                   unsigned long long t, unsigned long long end, czg_chunk *C,
                                                   const czg_tile &A, czg_tile *B)
{
    if (A.valid && A.w == 8u && A.cnt == CZ7_CNT && A.st == OC_OK)
        czg_locate_kept(n, src, src_sizes, dst, s, t, end, C, B);
    else
        B->valid = 0;
}

/* The library's loop (consecutive tiles a CTA, the kept chunk lookup, the
 * next item staged while one decodes) over items of one tile or a pair. */
static __device__ __forceinline__ void cz7_tiles(size_t n, const void *const *src, const size_t *src_sizes,
                                                 void *const *dst, own_batch_scratch s)
{
    czg_ws *ws = (czg_ws *)czg_smem;
    unsigned long long total = s.first[n];
    unsigned long long per = (total + gridDim.x - 1) / gridDim.x;
    unsigned long long t0 = blockIdx.x * per, end = t0 + per < total ? t0 + per : total;
    uint32_t sa0 = (uint32_t)__cvta_generic_to_shared(ws->stage[0]);
    czg_tile cur, cur2, nxt, nxt2;
    czg_chunk C;
    C.first = C.next = 0;
    uint32_t cidx = ~0u, cval = 0, sb = 0;
    czg_locate_kept(n, src, src_sizes, dst, s, t0, end, &C, &cur);
    cz7_locate2(n, src, src_sizes, dst, s, t0 + 1, end, &C, cur, &cur2);
    bool pair = cz7_pairable(cur, cur2);
    {
        czg_tile both = cur;
        if (pair) {
            both.n = cur.n + cur2.n;
            both.cnt = cur.cnt + cur2.cnt;
        }
        czg_issue(sa0, both, &cidx, &cval);
    }
    for (unsigned long long t = t0; t < end;) {
        unsigned long long tn = t + (pair ? 2u : 1u);
        czg_locate_kept(n, src, src_sizes, dst, s, tn, end, &C, &nxt);
        cz7_locate2(n, src, src_sizes, dst, s, tn + 1, end, &C, nxt, &nxt2);
        bool npair = cz7_pairable(nxt, nxt2);
        if (cidx != ~0u)
            ws->stage[sb][cidx] = cval;
        cidx = ~0u;
        asm volatile("cp.async.wait_all;" ::: "memory");
        __syncthreads(); /* stage sb is whole; every thread is past the item before (stage sb ^ 1 free) */
        {
            czg_tile both = nxt;
            if (npair) {
                both.n = nxt.n + nxt2.n;
                both.cnt = nxt.cnt + nxt2.cnt;
            }
            czg_issue(sa0 + (sb ^ 1u) * CZG_STAGE_BYTES, both, &cidx, &cval);
        }
        uint32_t o = (uint32_t)((uintptr_t)cur.src & 15u);
        oc_status st = OC_OK, st2 = OC_OK;
        if (pair && cz7_pair(sb, o, cur.n, cur2.n, cur.ver, cur.dst, cur2.dst)) {
            /* both OK */
        } else {
            st = cz7_one(sb, cur, o);
            if (pair) { /* tile B again, alone in stage sb (the decode of A may have written over it) */
                uint32_t ci = ~0u, cv = 0, o2 = (uint32_t)((uintptr_t)cur2.src & 15u);
                __syncthreads(); /* every thread is past tile A */
                czg_issue(sa0 + sb * CZG_STAGE_BYTES, cur2, &ci, &cv);
                if (ci != ~0u)
                    ws->stage[sb][ci] = cv;
                asm volatile("cp.async.wait_all;" ::: "memory");
                __syncthreads();
                st2 = cz7_one(sb, cur2, o2);
            }
        }
        if (st != OC_OK && threadIdx.x == 0)
            atomicMin(&s.keys[cur.chunk], own_key((unsigned long long)cur.tile + 1, st));
        if (pair && st2 != OC_OK && threadIdx.x == 0)
            atomicMin(&s.keys[cur2.chunk], own_key((unsigned long long)cur2.tile + 1, st2));
        cur = nxt;
        cur2 = nxt2;
        pair = npair;
        sb ^= 1u;
        t = tn;
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
}

/* pair at 2 CTAs an SM (128 registers: no spills), to weigh the spills against the warps */
static __global__ void __launch_bounds__(CZ_THREADS, 2)
    cz7b_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 own_batch_scratch s)
{
    cz7_tiles(n, src, src_sizes, dst, s);
}

static __global__ void __launch_bounds__(CZ_THREADS, 3)
    cz7_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                own_batch_scratch s)
{
    cz7_tiles(n, src, src_sizes, dst, s);
}

/* `single`: the library's tile loop before session 12's lean loop: every
 * warp locates every tile (czg_locate_kept), the current and next tile and
 * the kept chunk in every thread's registers across the decode (200 bytes
 * of spills a thread at 80 registers). */
static __device__ __forceinline__ void cz7s_tiles(size_t n, const void *const *src, const size_t *src_sizes,
                                                  void *const *dst, own_batch_scratch s)
{
    czg_ws *ws = (czg_ws *)czg_smem;
    unsigned long long total = s.first[n];
    unsigned long long per = (total + gridDim.x - 1) / gridDim.x;
    unsigned long long t0 = blockIdx.x * per, end = t0 + per < total ? t0 + per : total;
    uint32_t sa0 = (uint32_t)__cvta_generic_to_shared(ws->stage[0]);
    czg_tile cur, nxt;
    czg_chunk C;
    C.first = C.next = 0;
    uint32_t cidx = ~0u, cval = 0, sb = 0;
    czg_locate_kept(n, src, src_sizes, dst, s, t0, end, &C, &cur);
    czg_issue(sa0, cur, &cidx, &cval);
    for (unsigned long long t = t0; t < end; t++) {
        czg_locate_kept(n, src, src_sizes, dst, s, t + 1, end, &C, &nxt);
        if (cidx != ~0u)
            ws->stage[sb][cidx] = cval;
        cidx = ~0u;
        asm volatile("cp.async.wait_all;" ::: "memory");
        __syncthreads(); /* stage sb is whole; every thread is past the tile before (stage sb ^ 1 free) */
        czg_issue(sa0 + (sb ^ 1u) * CZG_STAGE_BYTES, nxt, &cidx, &cval);
        oc_status st = (oc_status)cur.st;
        if (st == OC_OK) {
            uint32_t o = (uint32_t)((uintptr_t)cur.src & 15u);
            switch (cur.w) {
            case 1:
                st = czg_decode_tile<uint32_t, 1>(sb, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            case 2:
                st = czg_decode_tile<uint32_t, 2>(sb, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            case 4:
                st = czg_decode_rdr<uint32_t, 4>(sb, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            default:
                st = czg_decode_rdr<uint64_t, 8>(sb, o, cur.src, cur.n, cur.cnt, cur.ver, cur.dst);
                break;
            }
        }
        if (st != OC_OK && threadIdx.x == 0)
            atomicMin(&s.keys[cur.chunk], own_key((unsigned long long)cur.tile + 1, st));
        cur = nxt;
        sb ^= 1u;
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
}

static __global__ void __launch_bounds__(CZ_THREADS, 3)
    cz7s_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 own_batch_scratch s)
{
    cz7s_tiles(n, src, src_sizes, dst, s);
}

/* ---- lean loops (session 12, after call B) --------------------------------------------------------
 * Call B's profile of the library on orderkey.i64: latency-bound (0.53 issued a cycle a scheduler,
 * 0.94 eligible warps), long-scoreboard stalls 20% (the tile loop's 336-byte stack: 768 threads an SM
 * x 336 bytes does not fit the ~58 KiB of L1 beside 3 x 65.8 KiB of shared memory, so the spills go to
 * L2), and the chunk lookup by every warp ~17% of the instructions.  The library's loop is now lean
 * (czg_tiles: one tile an item, its descriptor in shared memory, located by warp 0 alone; since call
 * B2 with one stage at 4 CTAs an SM); `single` above is the loop before it, `lean` below the lean
 * loop with two stages.  `lean-pair` (and at 2 CTAs an SM, `lean-pair-2cta`): the same with
 * items of a pair of 8-byte tiles (cz7_pair), so that pair's decode no longer carries four czg_tiles
 * and a czg_chunk in registers. */

typedef struct cz8_item {
    czg_tile a, b; /* b: the pair's second tile (valid only with pair) */
    int pair;
} cz8_item;

/* Warp 0: the item at tile t (C: the kept chunk, in shared memory), into *I. */
template <bool PAIR>
static __device__ __forceinline__ void cz8_locate(size_t n, const void *const *src, const size_t *src_sizes,
                                                  void *const *dst, const own_batch_scratch &s,
                                                  unsigned long long t, unsigned long long end,
                                                  czg_chunk *shC, cz8_item *I)
{
    czg_chunk C = *shC;
    czg_tile A, B;
    czg_locate_kept(n, src, src_sizes, dst, s, t, end, &C, &A);
    B.valid = 0;
    if (PAIR)
        cz7_locate2(n, src, src_sizes, dst, s, t + 1, end, &C, A, &B);
    int pair = PAIR && cz7_pairable(A, B);
    __syncwarp();
    if ((threadIdx.x & 31u) == 0) {
        I->a = A;
        I->b = B;
        I->pair = pair;
        *shC = C;
    }
}

/* Starts copying item I into the stage at shared address sa. */
static __device__ __forceinline__ void cz8_issue(uint32_t sa, const cz8_item *I, uint32_t *cidx,
                                                 uint32_t *cval)
{
    czg_tile both = I->a;
    if (I->pair) {
        both.n = I->a.n + I->b.n;
        both.cnt = I->a.cnt + I->b.cnt;
    }
    czg_issue(sa, both, cidx, cval);
}

template <bool PAIR>
static __device__ __forceinline__ void cz8_tiles(size_t n, const void *const *src, const size_t *src_sizes,
                                                 void *const *dst, own_batch_scratch s)
{
    __shared__ cz8_item cz8_it[3];
    __shared__ czg_chunk cz8_C;
    czg_ws *ws = (czg_ws *)czg_smem;
    unsigned long long total = s.first[n];
    unsigned long long per = (total + gridDim.x - 1) / gridDim.x;
    unsigned long long t0 = blockIdx.x * per, end = t0 + per < total ? t0 + per : total;
    uint32_t sa0 = (uint32_t)__cvta_generic_to_shared(ws->stage[0]);
    uint32_t warp = threadIdx.x >> 5;
    if (warp == 0) {
        if (threadIdx.x == 0)
            cz8_C.first = cz8_C.next = 0;
        __syncwarp();
        cz8_locate<PAIR>(n, src, src_sizes, dst, s, t0, end, &cz8_C, &cz8_it[0]);
    }
    __syncthreads();
    uint32_t cidx = ~0u, cval = 0, sb = 0, k = 0;
    cz8_issue(sa0, &cz8_it[0], &cidx, &cval);
    for (unsigned long long t = t0; t < end;) {
        const cz8_item *I = &cz8_it[k], *N = &cz8_it[k == 2u ? 0u : k + 1u];
        unsigned long long tn = t + (I->pair ? 2u : 1u);
        if (warp == 0)
            cz8_locate<PAIR>(n, src, src_sizes, dst, s, tn, end, &cz8_C, (cz8_item *)N);
        if (cidx != ~0u)
            ws->stage[sb][cidx] = cval;
        cidx = ~0u;
        asm volatile("cp.async.wait_all;" ::: "memory");
        __syncthreads(); /* stage sb whole, item N located; every thread past the item before */
        cz8_issue(sa0 + (sb ^ 1u) * CZG_STAGE_BYTES, N, &cidx, &cval);
        bool pair = PAIR && I->pair;
        uint32_t o = (uint32_t)((uintptr_t)I->a.src & 15u);
        oc_status st = OC_OK, st2 = OC_OK;
        if (pair && cz7_pair(sb, o, I->a.n, I->b.n, I->a.ver, I->a.dst, I->b.dst)) {
            /* both OK */
        } else {
            st = cz7_one(sb, I->a, o);
            if (pair) { /* tile B again, alone in stage sb */
                uint32_t ci = ~0u, cv = 0, o2 = (uint32_t)((uintptr_t)I->b.src & 15u);
                __syncthreads();
                czg_issue(sa0 + sb * CZG_STAGE_BYTES, I->b, &ci, &cv);
                if (ci != ~0u)
                    ws->stage[sb][ci] = cv;
                asm volatile("cp.async.wait_all;" ::: "memory");
                __syncthreads();
                st2 = cz7_one(sb, I->b, o2);
            }
        }
        /* thread 0 is in warp 0, which writes item slots: it reads I before its next locate */
        if (st != OC_OK && threadIdx.x == 0)
            atomicMin(&s.keys[I->a.chunk], own_key((unsigned long long)I->a.tile + 1, st));
        if (pair && st2 != OC_OK && threadIdx.x == 0)
            atomicMin(&s.keys[I->b.chunk], own_key((unsigned long long)I->b.tile + 1, st2));
        k = k == 2u ? 0u : k + 1u;
        sb ^= 1u;
        t = tn;
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
}

static __global__ void __launch_bounds__(CZ_THREADS, 3)
    cz8p_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 own_batch_scratch s)
{
    cz8_tiles<true>(n, src, src_sizes, dst, s);
}

static __global__ void __launch_bounds__(CZ_THREADS, 2)
    cz8p2_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                  own_batch_scratch s)
{
    cz8_tiles<true>(n, src, src_sizes, dst, s);
}

/* `lean` (session 12, call B2: in the library until the one-stage loop below replaced it): the
 * library's lean loop with two stages at 3 CTAs an SM, the next tile copied in by cp.async while one
 * decodes.  1.15-1.27x `single`; the one-stage loop (czg_tiles now) +9-10% over it. */
static __device__ __forceinline__ void cz8l_tiles(size_t n, const void *const *src, const size_t *src_sizes,
                                                  void *const *dst, own_batch_scratch s)
{
    __shared__ czg_tile cz8l_slot[3];
    __shared__ czg_chunk cz8l_kept;
    czg_ws *ws = (czg_ws *)czg_smem;
    unsigned long long total = s.first[n];
    unsigned long long per = (total + gridDim.x - 1) / gridDim.x;
    unsigned long long t0 = blockIdx.x * per, end = t0 + per < total ? t0 + per : total;
    uint32_t sa0 = (uint32_t)__cvta_generic_to_shared(ws->stage[0]);
    if (threadIdx.x < 32u) {
        if (threadIdx.x == 0)
            cz8l_kept.first = cz8l_kept.next = 0;
        __syncwarp();
        czg_locate_slot(n, src, src_sizes, dst, s, t0, end, &cz8l_kept, &cz8l_slot[0]);
    }
    __syncthreads();
    uint32_t cidx = ~0u, cval = 0, sb = 0, k = 0;
    czg_issue(sa0, cz8l_slot[0], &cidx, &cval);
    for (unsigned long long t = t0; t < end; t++) {
        const czg_tile *cur = &cz8l_slot[k], *nxt = &cz8l_slot[k == 2u ? 0u : k + 1u];
        if (threadIdx.x < 32u)
            czg_locate_slot(n, src, src_sizes, dst, s, t + 1, end, &cz8l_kept, (czg_tile *)nxt);
        if (cidx != ~0u)
            ws->stage[sb][cidx] = cval;
        cidx = ~0u;
        asm volatile("cp.async.wait_all;" ::: "memory");
        __syncthreads(); /* stage sb is whole, the next tile located; every thread is past the tile before */
        czg_issue(sa0 + (sb ^ 1u) * CZG_STAGE_BYTES, *nxt, &cidx, &cval);
        oc_status st = (oc_status)cur->st;
        if (st == OC_OK) {
            uint32_t o = (uint32_t)((uintptr_t)cur->src & 15u);
            switch (cur->w) {
            case 1:
                st = czg_decode_tile<uint32_t, 1>(sb, o, cur->src, cur->n, cur->cnt, cur->ver, cur->dst);
                break;
            case 2:
                st = czg_decode_tile<uint32_t, 2>(sb, o, cur->src, cur->n, cur->cnt, cur->ver, cur->dst);
                break;
            case 4:
                st = czg_decode_rdr<uint32_t, 4>(sb, o, cur->src, cur->n, cur->cnt, cur->ver, cur->dst);
                break;
            default:
                st = czg_decode_rdr<uint64_t, 8>(sb, o, cur->src, cur->n, cur->cnt, cur->ver, cur->dst);
                break;
            }
        }
        /* thread 0 is in warp 0, the slots' writer: it reads cur before its next lookup */
        if (st != OC_OK && threadIdx.x == 0)
            atomicMin(&s.keys[cur->chunk], own_key((unsigned long long)cur->tile + 1, st));
        k = k == 2u ? 0u : k + 1u;
        sb ^= 1u;
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
}

static __global__ void __launch_bounds__(CZ_THREADS, 3)
    cz8l_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 own_batch_scratch s)
{
    cz8l_tiles(n, src, src_sizes, dst, s);
}
