/*
 * cz_v4.cuh - why this exists: the Cascaded tile decoder v4 ("fused"),
 * the design named in bench/gpu/owncodecs/NOTES.md ("Session 9: the
 * targets still short"; prediction in "Session 10: Cascaded decode v4"),
 * for cz_dev's A/B against the library's v3 (cascaded_tile_decode.cuh,
 * whose helpers, parse and tile loop it reuses).  Only nVCOMP's layers
 * (2 RLEs, 1 delta: RLE, delta, RLE) on 4- and 8-byte types take the new
 * path; every other tile is the library's czg_decode_tile.
 *
 * v3 undoes the three layers one after another: the second RLE expanded
 * over the c1 positions through shared memory, the delta in registers
 * (a CTA scan), the values stored again, the first RLE's starts scanned
 * and expanded: 5 barriers and 2 expansions an element.  v4 reads the
 * three streams once (run lengths L0 of c1 runs, L1 of c2 runs, values v
 * of c2) and scans L0, L1 and sum(v[k] * L1[k]) in ONE CTA scan, which
 * gives the run starts of both RLEs and P[k], the delta's sum before run
 * k of the second RLE, so that for the first RLE's run j inside the
 * second RLE's run k
 *     y[j] = seed + sum_{i <= j} z[i] = P[k] + (j - start1[k] + 1) v[k];
 * a thread then walks its K consecutive outputs once: the output's run j
 * of the first RLE steps at most once an output, and when j steps, k
 * steps at most once and y grows by v[k].  Each thread finds its first j
 * and k by the library's bounded binary searches.  Barriers a tile: the
 * scan, the publish, the end of the walk, the output store (v3: 7).
 *
 * When both RLEs are the identity (c1 = cnt and c2 = c1, both run
 * streams packed with every block's width and base 0: every run 1 long,
 * the column has no two equal neighbours, as TPC-H partkey), the tile is
 * the values and one delta scan: no run starts, no walk.
 *
 * The same statuses as the library (both run totals checked: CORRUPT
 * otherwise; the parse is the library's) and the same bytes; cz_dev
 * checks both on real columns and on damaged chunks.  Workspace: the
 * library's czg_ws and 128 bytes (the second run-start array shares
 * czg_ws.starts with the first): P[k] in the current stage (unread after
 * the unpacks), v and then the output in czg_ws.buf.
 */

#define CZ4_S1 8320u /* byte offset of the second RLE's run starts in czg_ws.starts (65 rows of 128) */

typedef struct cz4_ws {
    czg_ws g;
    uint16_t tail[64]; /* the second run-start array's end: CZ4_S1 + 2 (4096 + 1) bytes */
} cz4_ws;
static_assert(CZ4_S1 + 2u * (CZ_TILE_BYTES / 4u + 1u) <= sizeof(((czg_ws *)0)->starts) + sizeof(cz4_ws::tail),
              "cz4_ws: room for the second run starts");

/* czg_swz(b) in two operations: b ^ ((b >> 3) & 0x70) flips the same three
 * bits (the 16-byte slot within the 128-byte row) that czg_swz's form
 * rebuilds in five; for the walk's addresses. */
static __device__ __forceinline__ uint32_t cz4_swz(uint32_t b)
{
    return b ^ ((b >> 3) & 0x70u);
}

static __device__ __forceinline__ uint32_t cz4_start(const uint8_t *starts, uint32_t i)
{
    return *(const uint16_t *)(starts + cz4_swz(2u * i));
}

template <typename V, uint32_t W> static __device__ __forceinline__ V cz4_ld(const uint8_t *buf, uint32_t e)
{
    const uint8_t *p = buf + cz4_swz(e * W);
    if (W == 4)
        return (V) * (const uint32_t *)p;
    return (V) * (const uint64_t *)p;
}

/* Exclusive CTA scans of a (u64) and b (V) with one barrier, the totals
 * in *ta and *tb; q alternates the slots as czg_scan's. */
template <typename V>
static __device__ __forceinline__ void cz4_scan2(uint64_t a, V b, uint32_t *q, uint64_t *pa, V *pb,
                                                 uint64_t *ta, V *tb)
{
    __shared__ unsigned long long cz4_tot[2][2][CZG_WARPS];
    uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, slot = *q & 1u;
    uint64_t ia = a;
    V ib = b;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        uint64_t t = __shfl_up_sync(0xffffffffu, ia, d);
        V u = __shfl_up_sync(0xffffffffu, ib, d);
        if ((int)lane >= d) {
            ia += t;
            ib += u;
        }
    }
    if (lane == 31u) {
        cz4_tot[slot][0][warp] = ia;
        cz4_tot[slot][1][warp] = (unsigned long long)ib;
    }
    __syncthreads();
    uint64_t prea = 0, suma = 0;
    V preb = 0, sumb = 0;
#pragma unroll
    for (uint32_t j = 0; j < CZG_WARPS; j++) {
        uint64_t t = cz4_tot[slot][0][j];
        V u = (V)cz4_tot[slot][1][j];
        prea += j < warp ? t : 0ull;
        preb += j < warp ? u : (V)0;
        suma += t;
        sumb += u;
    }
    *q += 1u;
    *pa = prea + ia - a;
    *pb = preb + ib - b;
    *ta = suma;
    *tb = sumb;
}

/* 1 when the run stream at hp holds `before` runs, packed, every block's
 * width and base 0 (every run 1 long); the warp's verdict. */
static __device__ __forceinline__ bool cz4_ident(const uint8_t *T, uint32_t hp, uint32_t before)
{
    uint32_t count = czg_count(T, hp);
    if (count != before || T[hp + 2] != 1u)
        return false;
    uint32_t lane = threadIdx.x & 31u, nb = (count + CZ_BLOCK - 1u) / CZ_BLOCK, wpos = hp + 3u,
             bpos = wpos + nb;
    bool ok = lane >= nb || (T[wpos + lane] == 0 && T[bpos + 2u * lane] == 0 && T[bpos + 2u * lane + 1u] == 0);
    return __all_sync(0xffffffffu, ok);
}

/* Stores the thread's K run starts (pre + the u16 halves of p) at entry
 * e0 of the swizzled starts array. */
template <uint32_t K>
static __device__ __forceinline__ void cz4_starts(uint8_t *starts, uint32_t e0, uint32_t pre, const uint32_t *p)
{
    uint32_t wd[K / 2u];
#pragma unroll
    for (uint32_t m = 0; m < K / 2u; m++)
        wd[m] = ((pre + (p[m] & 0xffffu)) & 0xffffu) | ((pre + (p[m] >> 16)) << 16);
#pragma unroll
    for (uint32_t v = 0; v < K / 8u; v++)
        *(uint4 *)(starts + czg_swz(2u * e0 + 16u * v)) =
            make_uint4(wd[4 * v], wd[4 * v + 1], wd[4 * v + 2], wd[4 * v + 3]);
}

/* The run stream at hp (c runs, thread's entries e0..e0+K) as local
 * exclusive prefixes, u16 pairs in p[K/2], the thread's total returned. */
template <uint32_t K>
static __device__ __forceinline__ uint32_t cz4_lens(const uint32_t *S, uint32_t o, uint32_t hp, uint32_t c,
                                                    uint32_t e0, uint32_t *p)
{
    uint32_t nv = c > e0 ? (c - e0 < K ? c - e0 : K) : 0u;
    uint32_t f[K];
    czg_unpack<uint32_t, K>(S, o, hp, CZ_RUN_BYTES, e0, f);
    uint32_t acc = 0;
#pragma unroll
    for (uint32_t i = 0; i < K; i++) {
        if (i & 1u)
            p[i / 2u] |= acc << 16;
        else
            p[i / 2u] = acc & 0xffffu;
        acc += i < nv ? (f[i] & 0xffffu) + 1u : 0u;
    }
    return acc;
}

/* Run i's length from the u16 prefixes p (the thread's total: acc). */
template <uint32_t K>
static __device__ __forceinline__ uint32_t cz4_len(const uint32_t *p, uint32_t acc, uint32_t i)
{
    uint32_t lo = i & 1u ? p[i / 2u] >> 16 : p[i / 2u] & 0xffffu;
    uint32_t hi = i + 1u < K ? ((i + 1u) & 1u ? p[(i + 1u) / 2u] >> 16 : p[(i + 1u) / 2u] & 0xffffu) : acc;
    return (hi - lo) & 0xffffu;
}

/* The fused decode of a tile with layers RLE, delta, RLE (parsed: P).
 * FLAT (`fused-flat`): the walk without branches (every output loads the
 * next run starts and v at its possibly stepped j and k, and adds v when j
 * stepped), instead of nested ifs that ptxas turns into branches with
 * reconvergence points (~33 instructions an output when both RLEs step). */
template <typename V, uint32_t W, bool FLAT>
static __device__ __forceinline__ oc_status cz4_fused(uint32_t sb, uint32_t o, const czg_parse &Pp, uint32_t cnt,
                                                      uint8_t *dst)
{
    czg_ws *ws = (czg_ws *)czg_smem;
    constexpr uint32_t K = CZ_TILE_BYTES / W / CZG_THREADS;
    const uint32_t *S = ws->stage[sb];
    const uint8_t *T = (const uint8_t *)S + o;
    uint32_t raw = cnt * W, e0 = threadIdx.x * K, q = 0;
    uint32_t hp0 = czg_hp(Pp, 0), hp1 = czg_hp(Pp, 1), hp2 = czg_hp(Pp, 2);
    uint32_t c1 = czg_count(T, hp0), c2 = czg_count(T, hp1);
    V seed = (V)czg_bytes(T, 1u, W);
    uint8_t *vb = (uint8_t *)ws->buf;
    V x[K];
    if (cz4_ident(T, hp0, cnt) && cz4_ident(T, hp1, c1)) { /* the values and the delta */
        czg_unpack<V, K>(S, o, hp2, W, e0, x);
        czg_delta<V, K>(x, seed, &q);
        if (dst) {
            czg_store<V, W, K>(vb, e0, x); /* buf: unread in this tile */
            __syncthreads();
            czg_copy_out(vb, raw, dst);
        }
        return OC_OK;
    }
    /* the three streams, one scan; v goes to buf at once (unread until the walk), so that it is not
     * held in registers across the scan */
    uint32_t p0[K / 2u], p1[K / 2u];
    uint32_t acc1 = cz4_lens<K>(S, o, hp1, c2, e0, p1);
    czg_unpack<V, K>(S, o, hp2, W, e0, x); /* v */
    V acc2 = 0;
#pragma unroll
    for (uint32_t i = 0; i < K; i++)
        acc2 += (V)cz4_len<K>(p1, acc1, i) * x[i];
    czg_store<V, W, K>(vb, e0, x);
    uint32_t acc0 = cz4_lens<K>(S, o, hp0, c1, e0, p0);
    uint64_t pa, ta;
    V pb, tb;
    cz4_scan2<V>((uint64_t)acc0 | ((uint64_t)acc1 << 32), acc2, &q, &pa, &pb, &ta, &tb);
    if ((uint32_t)ta != cnt || (uint32_t)(ta >> 32) != c1)
        return OC_ERR_CORRUPT;
    if (!dst)
        return OC_OK;
    uint8_t *s0 = (uint8_t *)ws->starts, *s1 = s0 + CZ4_S1, *Pb = (uint8_t *)ws->stage[sb];
    cz4_starts<K>(s0, e0, (uint32_t)pa, p0);
    cz4_starts<K>(s1, e0, (uint32_t)(pa >> 32), p1);
    if (threadIdx.x == CZG_THREADS - 1u) {
        if (c1 == CZG_THREADS * K)
            *(uint16_t *)(s0 + czg_swz(2u * c1)) = (uint16_t)cnt;
        if (c2 == CZG_THREADS * K)
            *(uint16_t *)(s1 + czg_swz(2u * c2)) = (uint16_t)c1;
    }
    { /* P, a 16-byte vector at a time from the thread's own v (its stores, read back) */
        constexpr uint32_t E = 16u / W;
        V run = seed + pb;
#pragma unroll
        for (uint32_t qv = 0; qv < K / E; qv++) {
            uint32_t off = czg_swz(e0 * W + 16u * qv);
            uint4 in = *(const uint4 *)(vb + off);
            uint32_t wi[4] = {in.x, in.y, in.z, in.w}, wo[4];
#pragma unroll
            for (uint32_t e = 0; e < E; e++) {
                V v = W == 8u ? (V)((uint64_t)wi[2 * e] | ((uint64_t)wi[2 * e + 1] << 32)) : (V)wi[e];
                if (W == 8u) {
                    wo[2 * e] = (uint32_t)(uint64_t)run;
                    wo[2 * e + 1] = (uint32_t)((uint64_t)run >> 32);
                } else {
                    wo[e] = (uint32_t)run;
                }
                run += (V)cz4_len<K>(p1, acc1, qv * E + e) * v;
            }
            *(uint4 *)(Pb + off) = make_uint4(wo[0], wo[1], wo[2], wo[3]);
        }
    }
    __syncthreads(); /* the starts, v and P */
    uint32_t nv = cnt > e0 ? (cnt - e0 < K ? cnt - e0 : K) : 0u;
    if (nv == 0) {
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            x[i] = 0;
    } else {
        uint32_t sl0 = cnt - c1, a = e0 > sl0 ? e0 - sl0 : 0u, b = (e0 < c1 - 1u ? e0 : c1 - 1u) + 1u;
        while (b - a > 1u) {
            uint32_t mid = (a + b) >> 1;
            if (cz4_start(s0, mid) <= e0)
                a = mid;
            else
                b = mid;
        }
        uint32_t j = a, sl1 = c1 - c2;
        a = j > sl1 ? j - sl1 : 0u;
        b = (j < c2 - 1u ? j : c2 - 1u) + 1u;
        while (b - a > 1u) {
            uint32_t mid = (a + b) >> 1;
            if (cz4_start(s1, mid) <= j)
                a = mid;
            else
                b = mid;
        }
        uint32_t k = a, nj = cz4_start(s0, j + 1u), nk = cz4_start(s1, k + 1u);
        V vk = cz4_ld<V, W>(vb, k);
        V y = cz4_ld<V, W>(Pb, k) + (V)(j - cz4_start(s1, k) + 1u) * vk;
        if (FLAT) {
#pragma unroll
            for (uint32_t i = 0; i < K; i++) {
                uint32_t sj = e0 + i == nj && i < nv; /* j steps (then j + 1 <= c1 - 1) */
                j += sj;
                uint32_t sk = sj & (j == nk); /* k steps with it */
                k += sk;
                nj = cz4_start(s0, j + 1u); /* j + 1 <= c1, k + 1 <= c2: inside the starts */
                nk = cz4_start(s1, k + 1u);
                vk = cz4_ld<V, W>(vb, k);
                y += sj ? vk : (V)0;
                x[i] = y;
            }
        } else {
#pragma unroll
            for (uint32_t i = 0; i < K; i++) {
                if (e0 + i == nj && i < nv) {
                    j++;
                    nj = cz4_start(s0, j + 1u);
                    if (j == nk) {
                        k++;
                        nk = cz4_start(s1, k + 1u);
                        vk = cz4_ld<V, W>(vb, k);
                    }
                    y += vk;
                }
                x[i] = y;
            }
        }
    }
    __syncthreads(); /* the walk's reads of buf */
    czg_store<V, W, K>(vb, e0, x);
    __syncthreads();
    czg_copy_out(vb, raw, dst);
    return OC_OK;
}

/* A tile as the library's czg_decode_tile, with nVCOMP's layers on 4- and
 * 8-byte types by the fused path. */
template <typename V, uint32_t W, bool FLAT>
static __device__ __noinline__ oc_status cz4_decode_tile(uint32_t sb, uint32_t o, const uint8_t *src, uint32_t n,
                                                         uint32_t cnt, uint8_t *dst)
{
    czg_ws *ws = (czg_ws *)czg_smem;
    const uint8_t *T = (const uint8_t *)ws->stage[sb] + o;
    if (n == 0 || n >= cnt * W || T[0] != (2u | (1u << 2)))
        return czg_decode_tile<V, W>(sb, o, src, n, cnt, dst);
    czg_parse P;
    if (!czg_parse_tile(T, n, W, cnt, &P))
        return OC_ERR_CORRUPT;
    return cz4_fused<V, W, FLAT>(sb, o, P, cnt, dst);
}

#ifndef CZ4_HOST_CHECK /* the tile loop and kernel: not in cz_v4_cpu_check.cpp */
/* The chunk a CTA's tiles are in, kept from one tile to the next
 * (`fused-contig`: a CTA's tiles are consecutive, so most lookups are a
 * compare instead of the warp's search, the chunk's pointers and its
 * header check). */
typedef struct cz4_chunk {
    unsigned long long first, next; /* its tiles: [first, next) */
    size_t i;
    const uint8_t *p;
    size_t len;
    uint8_t *d;
    own_tiled k;
    oc_status st;
} cz4_chunk;

/* czg_locate, with the chunk found before reused when tile t is in it. */
static __device__ __forceinline__ void cz4_locate(size_t n, const void *const *src, const size_t *src_sizes,
                                                  void *const *dst, const own_batch_scratch &s,
                                                  unsigned long long t, unsigned long long end, cz4_chunk *C,
                                                  czg_tile *T)
{
    T->valid = t < end;
    if (!T->valid)
        return;
    if (t < C->first || t >= C->next) {
        size_t i = oc_chunk_of_warp(s.first, n, t);
        C->i = i;
        C->first = s.first[i];
        C->next = s.first[i + 1];
        C->p = (const uint8_t *)src[i];
        C->len = src_sizes[i];
        C->d = dst ? (uint8_t *)dst[i] : NULL;
        C->st = cz_chunk_check(C->p, C->len, UINT64_MAX, &C->k); /* OK: the header kernel said so */
    }
    uint32_t tile = (uint32_t)(t - C->first);
    const own_tiled &k = C->k;
    uint64_t elems = k.size / k.w, first = (uint64_t)tile * k.per_tile;
    uint32_t cnt = own_tile_elems(elems, k.per_tile, tile);
    uint64_t a = 0, b = 0;
    oc_status st = C->st;
    if (st == OC_OK)
        st = own_tile_span(C->p, k.table, k.ntiles, tile, k.limit, &a, &b);
    T->src = C->p + a;
    T->cend = C->p + C->len;
    T->dst = C->d ? C->d + first * k.w : NULL;
    T->chunk = C->i;
    T->n = (uint32_t)(b - a);
    T->cnt = cnt;
    T->w = k.w;
    T->tile = tile;
    T->st = st;
}

/* czg_tiles with cz4_decode_tile<FLAT> for 4- and 8-byte types; CONTIG: CTA b
 * takes the consecutive tiles [b per, (b + 1) per) instead of b, b + grid,
 * ..., with the chunk lookup kept (cz4_locate). */
template <bool CONTIG, bool FLAT>
static __device__ __forceinline__ void cz4_tiles(size_t n, const void *const *src, const size_t *src_sizes,
                                                 void *const *dst, own_batch_scratch s)
{
    czg_ws *ws = (czg_ws *)czg_smem;
    unsigned long long total = s.first[n];
    unsigned long long t0 = blockIdx.x, end = total, step = gridDim.x;
    if (CONTIG) {
        unsigned long long per = (total + gridDim.x - 1) / gridDim.x;
        t0 = blockIdx.x * per;
        end = t0 + per < total ? t0 + per : total;
        step = 1;
    }
    uint32_t sa0 = (uint32_t)__cvta_generic_to_shared(ws->stage[0]);
    czg_tile cur, nxt;
    cz4_chunk C;
    C.first = C.next = 0;
    uint32_t cidx = ~0u, cval = 0, sb = 0;
    if (CONTIG)
        cz4_locate(n, src, src_sizes, dst, s, t0, end, &C, &cur);
    else
        czg_locate(n, src, src_sizes, dst, s, t0, total, &cur);
    czg_issue(sa0, cur, &cidx, &cval);
    for (unsigned long long t = t0; t < end; t += step) {
        if (CONTIG)
            cz4_locate(n, src, src_sizes, dst, s, t + step, end, &C, &nxt);
        else
            czg_locate(n, src, src_sizes, dst, s, t + step, total, &nxt);
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
                st = czg_decode_tile<uint32_t, 1>(sb, o, cur.src, cur.n, cur.cnt, cur.dst);
                break;
            case 2:
                st = czg_decode_tile<uint32_t, 2>(sb, o, cur.src, cur.n, cur.cnt, cur.dst);
                break;
            case 4:
                st = cz4_decode_tile<uint32_t, 4, FLAT>(sb, o, cur.src, cur.n, cur.cnt, cur.dst);
                break;
            default:
                st = cz4_decode_tile<uint64_t, 8, FLAT>(sb, o, cur.src, cur.n, cur.cnt, cur.dst);
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
    cz4_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                own_batch_scratch s)
{
    cz4_tiles<false, false>(n, src, src_sizes, dst, s);
}

static __global__ void __launch_bounds__(CZ_THREADS, 3)
    cz4c_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 own_batch_scratch s)
{
    cz4_tiles<true, false>(n, src, src_sizes, dst, s);
}

static __global__ void __launch_bounds__(CZ_THREADS, 3)
    cz4f_k_tiles(size_t n, const void *const *src, const size_t *src_sizes, void *const *dst,
                 own_batch_scratch s)
{
    cz4_tiles<false, true>(n, src, src_sizes, dst, s);
}
#endif
