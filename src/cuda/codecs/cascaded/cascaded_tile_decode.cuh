/*
 * cascaded_tile_decode.cuh - the GPU's Cascaded tile decoder, written for
 * the GPU rather than run from the core's one-source model: the core's
 * cz_decode_tile (cascaded_core.h) stays the CPU decoder and the
 * definition of every status; this file reads the same bytes, gets the
 * same statuses and writes the same output, with (predicted) 5-10x fewer
 * instructions per element (bench/gpu/owncodecs/NOTES.md, "Cascaded
 * decode, v2").
 *
 * What makes it fast:
 * - a thread owns K = E / 256 CONSECUTIVE elements of every sequence (16
 *   for 4-byte types, 8 for 8-byte, 32 for 1- and 2-byte types), held in
 *   registers from one layer to the next; K divides the 256-element
 *   bit-packing block, so a thread's elements share one width and base and
 *   are one contiguous bit string, read with funnel shifts from a window
 *   of two (three for 8-byte types) words that advances a word at a time;
 * - arithmetic in 32 bits for types of up to 4 bytes (the stored value is
 *   truncated to the type: sums modulo 2^32 are sums modulo 2^(8w));
 * - a delta layer is a serial sum over the thread's K elements plus one
 *   CTA scan of the thread totals (a warp shuffle scan and 8 warp totals);
 *   RLE's run lengths likewise become run starts, and their total is the
 *   format's check (every thread sees it, so the verdict needs no extra
 *   barrier);
 * - an RLE layer is expanded by each thread for its K output positions:
 *   a binary search for its first run in the only range that can hold it
 *   (runs are at least 1 long: run r starts in [r, r + before - c]), so a
 *   layer that leaves almost every run of length 1 costs 1-2 probes, then
 *   a walk that steps to the next run when the position reaches its start;
 * - deltas after an RLE expansion (or after the value stream) are applied
 *   in registers; elements go to shared memory only before an RLE
 *   expansion and at the end, as 16-byte vectors, in buffers swizzled at
 *   16-byte granularity (vector v of a 128-byte row is stored at slot v ^
 *   row) so that those vector stores, the scalar reads of the expansion
 *   and the copy-out are free of bank conflicts or nearly so.
 * Hostile input: the parse is the core's (cz_dec_parse: every header,
 * count, width and stream extent checked against the tile), the run totals
 * are checked as the core does; every read and write stays inside the
 * workspace (a thread's fields past a stream's end are read from the stage,
 * clamped to it, and never used).
 */
#ifndef OC_CASCADED_TILE_DECODE_CUH
#define OC_CASCADED_TILE_DECODE_CUH

#include "../../../cores/cascaded/cascaded_core.h"

#define CZG_THREADS 256u /* the CTA: 8 warps */
#define CZG_WARPS (CZG_THREADS / 32u)

/* Vector stores into the workspace's element buffers and run starts. */
static_assert(offsetof(cz_ws, buf) % 16 == 0 && offsetof(cz_ws, starts) % 16 == 0,
              "cz_ws: buf and starts at multiples of 16 bytes");

/* The physical byte offset of byte b of a swizzled buffer: 16-byte vector
 * v = b / 16 sits at slot (v mod 8) ^ (row mod 8) of its 128-byte row. */
static __device__ __forceinline__ uint32_t czg_swz(uint32_t b)
{
    uint32_t v = b >> 4;
    return ((v ^ ((v >> 3) & 7u)) << 4) | (b & 15u);
}

/* Element e (W bytes) of a swizzled buffer. */
template <typename V, uint32_t W> static __device__ __forceinline__ V czg_ld(const uint8_t *buf, uint32_t e)
{
    const uint8_t *p = buf + czg_swz(e * W);
    if (W == 1)
        return (V)*p;
    if (W == 2)
        return (V) * (const uint16_t *)p;
    if (W == 4)
        return (V) * (const uint32_t *)p;
    return (V) * (const uint64_t *)p;
}

/* Run start i (u16) of the swizzled starts array. */
static __device__ __forceinline__ uint32_t czg_start(const uint8_t *starts, uint32_t i)
{
    return *(const uint16_t *)(starts + czg_swz(2u * i));
}

/* Stores the thread's K elements (W bytes each, truncated) at element e0
 * of a swizzled buffer, as 16-byte vectors (K * W is 32 or 64). */
template <typename V, uint32_t W, uint32_t K>
static __device__ __forceinline__ void czg_store(uint8_t *buf, uint32_t e0, const V *x)
{
    constexpr uint32_t NWORDS = K * W / 4u;
    const uint32_t tmask = W == 1 ? 0xffu : W == 2 ? 0xffffu : 0xffffffffu;
    uint32_t wd[NWORDS];
#pragma unroll
    for (uint32_t m = 0; m < NWORDS; m++) {
        if (W == 8) {
            wd[m] = (uint32_t)((uint64_t)x[m / 2u] >> (32u * (m & 1u)));
        } else {
            constexpr uint32_t PER = W < 4u ? 4u / W : 1u; /* elements a word */
            uint32_t v = 0;
#pragma unroll
            for (uint32_t j = 0; j < PER; j++)
                v |= ((uint32_t)x[m * PER + j] & tmask) << (8u * W * j);
            wd[m] = v;
        }
    }
#pragma unroll
    for (uint32_t q = 0; q < NWORDS / 4u; q++)
        *(uint4 *)(buf + czg_swz(e0 * W + 16u * q)) =
            make_uint4(wd[4 * q], wd[4 * q + 1], wd[4 * q + 2], wd[4 * q + 3]);
}

/* Exclusive CTA-wide prefix sum of v (one per thread), the total in *all.
 * One barrier; the two slots of warp totals alternate (q counts the scans
 * of the tile in every thread), so a scan never overwrites totals that a
 * thread may still be reading from the scan before. */
template <typename V> static __device__ __forceinline__ V czg_scan(V v, uint32_t *q, V *all)
{
    __shared__ unsigned long long czg_tot[2][CZG_WARPS];
    uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5, slot = *q & 1u;
    V incl = v;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        V t = __shfl_up_sync(0xffffffffu, incl, d);
        if ((int)lane >= d)
            incl += t;
    }
    if (lane == 31u)
        czg_tot[slot][warp] = (unsigned long long)incl;
    __syncthreads();
    V pre = 0, sum = 0;
#pragma unroll
    for (uint32_t j = 0; j < CZG_WARPS; j++) {
        V t = (V)czg_tot[slot][j];
        pre += j < warp ? t : (V)0;
        sum += t;
    }
    *q += 1u;
    *all = sum;
    return pre + incl - v;
}

/* The word index i of the stage, clamped to the stage: fields past a
 * stream's end (a thread's elements past the count) are read, not used,
 * and unconditional reads keep the K values in registers (guarded ones
 * made ptxas keep them in local memory). */
#define CZG_W(i) ((i) < CZ_STAGE_WORDS - 1u ? (i) : CZ_STAGE_WORDS - 1u)

/* K consecutive b-bit fields (b <= 32) from bit `bit` of the stage S, into
 * v[0..K) (those past the stream's end are garbage). */
template <uint32_t K>
static __device__ __forceinline__ void czg_bits32(const uint32_t *S, uint32_t bit, uint32_t b, uint32_t *v)
{
    uint32_t wi = bit >> 5, sh = bit & 31u;
    uint32_t lo = S[CZG_W(wi)], hi = S[CZG_W(wi + 1u)];
    uint32_t mask = b >= 32u ? 0xffffffffu : (1u << b) - 1u;
#pragma unroll
    for (uint32_t i = 0; i < K; i++) {
        v[i] = __funnelshift_r(lo, hi, sh) & mask;
        sh += b;
        if (sh >= 32u) {
            sh -= 32u;
            wi++;
            lo = hi;
            hi = S[CZG_W(wi + 1u)];
        }
    }
}

/* The same for b <= 64 (8-byte types): a window of three words. */
template <uint32_t K>
static __device__ __forceinline__ void czg_bits64(const uint32_t *S, uint32_t bit, uint32_t b, uint64_t *v)
{
    uint32_t wi = bit >> 5, sh = bit & 31u;
    uint32_t w0 = S[CZG_W(wi)], w1 = S[CZG_W(wi + 1u)], w2 = S[CZG_W(wi + 2u)];
    uint64_t mask = b >= 64u ? ~0ull : (1ull << b) - 1u;
#pragma unroll
    for (uint32_t i = 0; i < K; i++) {
        uint64_t lo = __funnelshift_r(w0, w1, sh), hi = __funnelshift_r(w1, w2, sh);
        v[i] = (lo | (hi << 32)) & mask;
        sh += b;
        if (sh >= 32u) {
            sh -= 32u;
            wi++;
            w0 = w1;
            w1 = w2;
            w2 = S[CZG_W(wi + 2u)];
        }
        if (sh >= 32u) {
            sh -= 32u;
            wi++;
            w0 = w1;
            w1 = w2;
            w2 = S[CZG_W(wi + 2u)];
        }
    }
}

/* Elements [e0, e0 + nv) of stream s (parsed: ws->st[s], ws->blk[s]) as
 * V, each (base + field) mod 2^(8 ew) for a packed stream, the stored
 * element for a raw one; x[i] for i >= nv is garbage (0 when nv is 0). */
template <typename V, uint32_t K>
static __device__ __forceinline__ void czg_unpack(const cz_ws *ws, uint32_t s, uint32_t e0, uint32_t nv, V *x)
{
    const cz_stream *st = &ws->st[s];
    uint32_t ew = st->ew;
    if (nv == 0 || st->mode == 0) {
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            x[i] =
                i < nv ? (V)own_bytes_get(ws->stage, (uint64_t)st->data + (uint64_t)(e0 + i) * ew, ew) : (V)0;
        return;
    }
    const cz_block *bk = &ws->blk[s][e0 / CZ_BLOCK];
    uint32_t bit = 8u * st->data + bk->bit + (e0 % CZ_BLOCK) * bk->width;
    V base = (V)bk->base;
    if (sizeof(V) == 8) {
        uint64_t f[K];
        czg_bits64<K>(ws->stage, bit, bk->width, f);
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            x[i] = base + (V)f[i];
    } else {
        uint32_t f[K];
        czg_bits32<K>(ws->stage, bit, bk->width, f);
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            x[i] = base + (V)f[i];
    }
}

/* Undoes a delta layer with seed `seed` on the thread's elements. */
template <typename V, uint32_t K> static __device__ __forceinline__ void czg_delta(V *x, V seed, uint32_t *q)
{
    V acc = 0;
#pragma unroll
    for (uint32_t i = 0; i < K; i++) {
        acc += x[i];
        x[i] = acc;
    }
    V all;
    V pre = czg_scan<V>(acc, q, &all) + seed;
#pragma unroll
    for (uint32_t i = 0; i < K; i++)
        x[i] += pre;
}

/* Run stream s (c run lengths - 1) into the swizzled run starts, with
 * starts[c] = before, when the lengths add up to `before`; returns 0 (in
 * every thread alike) when they do not: CORRUPT, as the core's
 * cz_runs_starts. */
template <uint32_t K>
static __device__ __forceinline__ int czg_runs(cz_ws *ws, uint32_t s, uint32_t c, uint32_t before,
                                               uint32_t e0, uint32_t *q)
{
    uint8_t *starts = (uint8_t *)ws->starts;
    uint32_t nv = c > e0 ? (c - e0 < K ? c - e0 : K) : 0u;
    uint32_t len[K];
    czg_unpack<uint32_t, K>(ws, s, e0, nv, len);
    uint32_t acc = 0;
#pragma unroll
    for (uint32_t i = 0; i < K; i++) {
        uint32_t l = i < nv ? (len[i] & 0xffffu) + 1u : 0u;
        len[i] = acc; /* exclusive, within the thread */
        acc += l;
    }
    uint32_t all;
    uint32_t pre = czg_scan<uint32_t>(acc, q, &all);
    if (all != before)
        return 0;
    /* every position >= c gets the total, `before`: starts[c] is the
     * sentinel; the position 256 K (c = E) has no owner: the last thread */
    uint32_t wd[K / 2u];
#pragma unroll
    for (uint32_t m = 0; m < K / 2u; m++)
        wd[m] = ((pre + len[2 * m]) & 0xffffu) | ((pre + len[2 * m + 1]) << 16);
#pragma unroll
    for (uint32_t v = 0; v < K / 8u; v++)
        *(uint4 *)(starts + czg_swz(2u * e0 + 16u * v)) =
            make_uint4(wd[4 * v], wd[4 * v + 1], wd[4 * v + 2], wd[4 * v + 3]);
    if (c == CZG_THREADS * K && threadIdx.x == CZG_THREADS - 1u)
        *(uint16_t *)(starts + czg_swz(2u * c)) = (uint16_t)before;
    return 1;
}

/* Expands the c values of `vals` (swizzled) by the run starts into the
 * thread's positions [e0, e0 + K) of the `before` outputs (0 past them). */
template <typename V, uint32_t W, uint32_t K>
static __device__ __forceinline__ void czg_expand(const cz_ws *ws, const uint8_t *vals, uint32_t c,
                                                  uint32_t before, uint32_t e0, V *x)
{
    const uint8_t *starts = (const uint8_t *)ws->starts;
    uint32_t nv = before > e0 ? (before - e0 < K ? before - e0 : K) : 0u;
    if (nv == 0) {
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            x[i] = 0; /* the values stored before the layer are dead: not kept in registers */
        return;
    }
    /* run r starts in [r, r + before - c]: the run of e0 is in [a, b) */
    uint32_t slack = before - c;
    uint32_t a = e0 > slack ? e0 - slack : 0u;
    uint32_t b = (e0 < c - 1u ? e0 : c - 1u) + 1u; /* starts[a] <= e0 < starts[b] */
    while (b - a > 1u) {
        uint32_t mid = (a + b) >> 1;
        if (czg_start(starts, mid) <= e0)
            a = mid;
        else
            b = mid;
    }
    uint32_t r = a, next = czg_start(starts, r + 1u);
#pragma unroll
    for (uint32_t i = 0; i < K; i++) {
        /* runs are >= 1 long: at most one step; none past the outputs, so
         * r stays below c (x[i] for i >= nv: a value, unused) */
        if (e0 + i == next && i < nv) {
            r++;
            next = czg_start(starts, r + 1u);
        }
        x[i] = czg_ld<V, W>(vals, r);
    }
}

/* Copies the swizzled buffer's first n bytes to dst (the whole CTA). */
static __device__ __forceinline__ void czg_copy_out(const uint8_t *buf, uint32_t n, uint8_t *dst)
{
    uint32_t from = 0;
    if (((uintptr_t)dst & 15u) == 0) {
        uint32_t nv = n / 16u;
        for (uint32_t v = threadIdx.x; v < nv; v += CZG_THREADS)
            ((uint4 *)dst)[v] = *(const uint4 *)(buf + czg_swz(16u * v));
        from = 16u * nv;
    }
    for (uint32_t k = from + threadIdx.x; k < n; k += CZG_THREADS)
        dst[k] = buf[czg_swz(k)];
}

/* The tile kernel's dynamic shared memory: the cz_ws workspace. */
extern __shared__ __align__(16) unsigned char czg_smem[];

/* Decodes one tile of cnt elements of W bytes (V: the register type,
 * uint32_t up to 4 bytes, uint64_t for 8) with the workspace in czg_smem,
 * as the core's cz_decode_tile does: the same statuses, the same output
 * (dst NULL: checks only).  Runs in every thread of a CTA of CZG_THREADS.
 * Not inlined: each width's instance gets the kernel's 80 registers to
 * itself (inlined together with the tile loop, ptxas spilled ~700 bytes
 * in the layer loops; apart, none there), and it names the shared array
 * itself so that its accesses stay shared-memory ones. */
template <typename V, uint32_t W>
static __device__ __noinline__ oc_status czg_decode_tile(const uint8_t *src, uint32_t n, uint32_t cnt,
                                                         uint8_t *dst)
{
    cz_ws *ws = (cz_ws *)czg_smem;
    constexpr uint32_t K = (W <= 2u ? CZ_TILE_MAX : CZ_TILE_BYTES / W) / CZG_THREADS;
    const uint32_t nw = CZG_WARPS;
    uint32_t raw = cnt * W;
    if (n > raw)
        return OC_ERR_CORRUPT; /* coded tiles are smaller than their elements */
    if (n == raw) {            /* a tile whose coding did not pay is stored */
        if (dst)
            OWN_RUN(nw, cz_copy_bytes, src, n, dst);
        return OC_OK;
    }
    OWN_RUN(nw, cz_stage_in, ws, src, n);
    if (threadIdx.x == 0) {
        ws->w = W;
        ws->cnt = cnt;
    }
    __syncthreads();
    OWN_RUN(nw, cz_dec_parse, ws, n);
    if (ws->status != OC_OK)
        return (oc_status)ws->status;
    uint32_t rles = ws->nstreams - 1u, nops = ws->nops;
    uint32_t c = ws->st[rles].count, e0 = threadIdx.x * K, q = 0, cur = 0;
    V x[K];
    czg_unpack<V, K>(ws, rles, e0, c > e0 ? (c - e0 < K ? c - e0 : K) : 0u, x);
    uint32_t s = rles, d = nops - rles;
    for (uint32_t k = nops; k-- > 0;) {
        if (ws->ops[k] == CZ_OP_DELTA) {
            d--;
            czg_delta<V, K>(x, (V)ws->seed[d], &q);
        } else {
            uint8_t *vals = (uint8_t *)ws->buf[cur];
            czg_store<V, W, K>(vals, e0, x);
            s--;
            /* the count before this layer: the previous run stream's, or the tile's */
            uint32_t before = s ? ws->st[s - 1].count : cnt;
            if (!czg_runs<K>(ws, s, c, before, e0, &q))
                return OC_ERR_CORRUPT;
            __syncthreads(); /* the values and the starts */
            czg_expand<V, W, K>(ws, vals, c, before, e0, x);
            cur ^= 1u;
            c = before;
        }
    }
    if (dst) {
        uint8_t *out = (uint8_t *)ws->buf[cur];
        czg_store<V, W, K>(out, e0, x);
        __syncthreads();
        czg_copy_out(out, raw, dst);
    }
    return OC_OK;
}

/* own_tile_decode_fn for the tile kernel: the instance of the tile's
 * element width (1, 2, 4 or 8: the chunk's header was checked). */
static __device__ __forceinline__ oc_status czg_tile_decode(void *ws, const uint8_t *tile, uint32_t len,
                                                            uint32_t cnt, const own_tiled *k, uint8_t *out,
                                                            uint32_t nw)
{
    (void)ws, (void)nw; /* czg_smem, CZG_WARPS */
    switch (k->w) {
    case 1:
        return czg_decode_tile<uint32_t, 1>(tile, len, cnt, out);
    case 2:
        return czg_decode_tile<uint32_t, 2>(tile, len, cnt, out);
    case 4:
        return czg_decode_tile<uint32_t, 4>(tile, len, cnt, out);
    default:
        return czg_decode_tile<uint64_t, 8>(tile, len, cnt, out);
    }
}

#endif /* OC_CASCADED_TILE_DECODE_CUH */
