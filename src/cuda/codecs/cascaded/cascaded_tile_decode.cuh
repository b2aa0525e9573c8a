/*
 * cascaded_tile_decode.cuh - the GPU's Cascaded tile decoder (v4), written
 * for the GPU rather than run from the core's one-source model: the core's
 * cz_decode_tile and cz_dec_parse (cascaded_core.h) stay the CPU decoder
 * and the definition of every status; this file reads the same bytes, gets
 * the same statuses and writes the same output (bench/gpu/owncodecs/
 * NOTES.md, "Cascaded decode, v2", "v3" and "v4").
 *
 * The tile loop (czg_tiles, the tile kernel's body): a persistent grid
 * over the batch's tiles, a CTA taking consecutive tiles and keeping the
 * chunk it found (pointers, header check) from one tile to the next, so
 * that most lookups are a compare and the tile table's two words (v3: the
 * warp's 32-way search, the chunk's pointers and its header again for
 * every tile); since session 12 warp 0 alone looks tiles up and passes
 * them to the others through shared memory (the loop keeps a few
 * registers across a tile's decode), and a CTA stages one tile at a time
 * (its bytes by cp.async: 16-byte copies of the aligned interior, words
 * at the edges, the one word past the chunk's end byte by byte; the next
 * tile's lines prefetched into L2 meanwhile), which leaves 4 CTAs an SM;
 * every warp parses the tile's stream headers itself (czg_parse_tile: the
 * core's checks, in registers), so no warp waits for another to start.
 *
 * Streams of format version 2's mode 2 (one width and base for a whole
 * stream; czg_parse_tile refuses it in a version 1 chunk, as the core
 * does) are unpacked as the packed mode with every block alike: element e
 * at bit e * width.
 *
 * The layers (v2's design):
 * - a thread owns K = E / 256 CONSECUTIVE elements of every sequence (16
 *   for 4-byte types, 8 for 8-byte, 32 for 1- and 2-byte types), held in
 *   registers from one layer to the next; K divides the 256-element
 *   bit-packing block, so a thread's elements share one width and base
 *   (found by its warp's scan of the stream's block widths) and are one
 *   contiguous bit string, read with funnel shifts from a window of two
 *   (three for 8-byte types) words that advances a word at a time;
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
 *   expansion (one buffer: a barrier before the values go in only when two
 *   RLEs follow each other, a delta's scan being one) and at the
 *   end (into the tile's stage, unread after the last run stream), as
 *   16-byte vectors, in buffers swizzled at 16-byte granularity (vector v
 *   of a 128-byte row is stored at slot v ^ row) so that those vector
 *   stores, the scalar reads of the expansion and the copy-out are free of
 *   bank conflicts or nearly so.  48.2 KiB of shared memory a CTA with one
 *   stage (czg_ws less its second, CZG_WS_ONESTAGE): 4 CTAs an SM.
 * nVCOMP's layers (RLE, delta, RLE) on 4- and 8-byte types (v4, session
 * 10: czg_decode_rdr, czg_fused) are undone in one pass instead: one CTA
 * scan of the first RLE's run lengths, the second's and sum(v[k] L1[k])
 * gives both RLEs' run starts and P[k], the delta's sum before the second
 * RLE's run k, so that y[j] = P[k] + (j - start1[k] + 1) v[k] for the
 * first RLE's run j inside run k; a thread then walks its K consecutive
 * outputs once (j steps at most once an output, k at most once a j step,
 * y += v[k]), 5 barriers a tile instead of 7.  Tiles whose two RLEs are
 * the identity (every run 1 long: packed run streams of width and base 0)
 * are the values and one delta scan.
 * Hostile input: the parse checks every header, count, width and stream
 * extent against the tile as the core does, the run totals are checked as
 * the core does; every read and write stays inside the workspace (a
 * thread's fields past a stream's end are read from the stage, clamped to
 * it, and never used) and global reads inside the chunk.
 */

#ifndef OC_CASCADED_TILE_DECODE_CUH
#define OC_CASCADED_TILE_DECODE_CUH

#include "../../../cores/cascaded/cascaded_core.h"

#define CZG_THREADS 256u /* the CTA: 8 warps */
#define CZG_WARPS (CZG_THREADS / 32u)

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

/* The thread's K elements x (positions e0.., cnt in the tile) straight
 * from registers to the tile's output, without the workspace and its
 * barrier: 16-byte stores when the thread's K elements are all there and
 * its bytes 16-byte aligned, else element by element.  4- and 8-byte
 * types; bench/gpu/dev/cz_v5.cuh's `direct` (the DIRECT instances of the
 * tile decoders; the library's are not). */
template <typename V, uint32_t W, uint32_t K>
static __device__ __forceinline__ void czg_put(const V *x, uint32_t e0, uint32_t cnt, uint8_t *dst)
{
    uint32_t nv = cnt > e0 ? (cnt - e0 < K ? cnt - e0 : K) : 0u;
    uint8_t *d = dst + (size_t)e0 * W;
    if (nv == K && ((uintptr_t)d & 15u) == 0) {
#pragma unroll
        for (uint32_t m = 0; m < K * W / 16u; m++) {
            uint4 v;
            if (W == 8)
                v = make_uint4((uint32_t)(uint64_t)x[2 * m], (uint32_t)((uint64_t)x[2 * m] >> 32),
                               (uint32_t)(uint64_t)x[2 * m + 1], (uint32_t)((uint64_t)x[2 * m + 1] >> 32));
            else
                v = make_uint4((uint32_t)x[4 * m], (uint32_t)x[4 * m + 1], (uint32_t)x[4 * m + 2],
                               (uint32_t)x[4 * m + 3]);
            ((uint4 *)d)[m] = v;
        }
        return;
    }
    for (uint32_t i = 0; i < nv; i++)
        for (uint32_t j = 0; j < W; j++)
            d[i * W + j] = (uint8_t)((uint64_t)x[i] >> (8u * j));
}

/* The tile kernel's dynamic shared memory: the czg_ws workspace. */
extern __shared__ __align__(16) unsigned char czg_smem[];

#define CZG_STAGE_BYTES (4u * CZ_STAGE_WORDS)

typedef struct czg_ws {
    uint64_t buf[CZ_TILE_BYTES / 8];   /* the values before an RLE expansion */
    uint16_t starts[CZ_TILE_MAX + 8];  /* run starts (the fused path: both RLEs', the second at CZG_S1) */
    uint16_t tail[64];                 /* the fused path's second run starts, past `starts` */
    uint32_t stage[2][CZ_STAGE_WORDS]; /* a staged tile at offset o (its address mod 16); last, so that the
                                          library's loop of one stage (czg_tiles) takes the workspace less
                                          the second (CZG_WS_ONESTAGE); bench/gpu/dev's two-stage loops
                                          stage the next tile in it */
} czg_ws;
static_assert(CZG_STAGE_BYTES % 16u == 0 && offsetof(czg_ws, buf) % 16u == 0 &&
                  offsetof(czg_ws, starts) % 16u == 0 && offsetof(czg_ws, stage) % 16u == 0,
              "czg_ws: vector stores");

/* n (<= 8) little-endian bytes at T + pos. */
static __device__ __forceinline__ uint64_t czg_bytes(const uint8_t *T, uint32_t pos, uint32_t n)
{
    uint64_t v = 0;
    for (uint32_t j = 0; j < n; j++)
        v |= (uint64_t)T[pos + j] << (8u * j);
    return v;
}

/* A tile's layers and the places of its stream headers (16 bits each). */
typedef struct czg_parse {
    uint32_t rles, deltas, nops, dmask; /* dmask: bit k set when op k is a delta */
    uint32_t hp01, hp23;
} czg_parse;

static __device__ __forceinline__ uint32_t czg_hp(const czg_parse &P, uint32_t s)
{
    return ((s < 2u ? P.hp01 : P.hp23) >> (16u * (s & 1u))) & 0xffffu;
}

/* The core's cz_dec_parse (the same checks, the same verdict), by each
 * warp for itself: T is the staged tile of n bytes, cnt elements of w
 * bytes, of a chunk of format version ver.  Returns 1 when the tile
 * parses. */
static __device__ __forceinline__ int czg_parse_tile(const uint8_t *T, uint32_t n, uint32_t w, uint32_t cnt,
                                                     uint32_t ver, czg_parse *P)
{
    uint32_t lane = threadIdx.x & 31u;
    uint32_t cfg = T[0];
    uint32_t rles = cfg & 3u, deltas = (cfg >> 2) & 3u;
    if (n < 1 || (cfg >> 4) != 0)
        return 0;
    uint32_t nops = 0, dmask = 0, m = rles > deltas ? rles : deltas;
    for (uint32_t i = 0; i < m; i++) {
        if (i < rles)
            nops++;
        if (i < deltas) {
            dmask |= 1u << nops;
            nops++;
        }
    }
    uint32_t pos = 1u + deltas * w, c = cnt, hp01 = 0, hp23 = 0;
    if (pos > n)
        return 0;
    for (uint32_t s = 0; s <= rles; s++) {
        uint32_t before = c;
        if (pos + 3u > n)
            return 0;
        uint32_t count = (uint32_t)T[pos] | ((uint32_t)T[pos + 1] << 8), mode = T[pos + 2];
        uint32_t ew = s < rles ? CZ_RUN_BYTES : w;
        if (count == 0 || count > before || (s == rles && count != before) ||
            mode > (ver >= 2u ? CZ_MODE_FOR : CZ_MODE_PACKED))
            return 0;
        c = count;
        uint32_t size;
        if (mode == CZ_MODE_RAW) {
            size = 3u + count * ew;
        } else if (mode == CZ_MODE_FOR) { /* one width, one base */
            if (pos + 4u + ew > n)
                return 0;
            uint32_t width = T[pos + 3u];
            if (width > 8u * ew)
                return 0;
            size = 4u + ew + (count * width + 7u) / 8u;
        } else {
            uint32_t nb = (count + CZ_BLOCK - 1u) / CZ_BLOCK, wpos = pos + 3u, data = wpos + nb + nb * ew;
            if (data > n)
                return 0;
            uint32_t width = 0, bits = 0;
            if (lane < nb) { /* nb <= 32: count <= 8192 */
                width = T[wpos + lane];
                bits = (lane + 1u < nb ? CZ_BLOCK : count - lane * CZ_BLOCK) * width;
            }
            if (__any_sync(0xffffffffu, width > 8u * ew))
                return 0;
            size = (data - pos) + (own_warp_sum32(bits) + 7u) / 8u;
        }
        if (pos + size > n)
            return 0;
        if (s < 2u)
            hp01 |= pos << (16u * (s & 1u));
        else
            hp23 |= pos << (16u * (s & 1u));
        pos += size;
    }
    if (pos != n)
        return 0;
    P->rles = rles;
    P->deltas = deltas;
    P->nops = nops;
    P->dmask = dmask;
    P->hp01 = hp01;
    P->hp23 = hp23;
    return 1;
}

/* The element count of the stream whose header is at hp. */
static __device__ __forceinline__ uint32_t czg_count(const uint8_t *T, uint32_t hp)
{
    return (uint32_t)T[hp] | ((uint32_t)T[hp + 1] << 8);
}

/* Elements [e0, e0 + K) of the (parsed) stream at hp, of ew bytes, as V,
 * each (base + field) mod 2^(8 ew) for a packed stream, the stored element
 * for a raw one: the block's width, bit offset and base found by the warp
 * (a scan of the block widths, then the thread's block by a shuffle: K
 * divides the block, so the thread's elements share it).  S: the stage's
 * words, o: the tile's offset in it.  x[i] for i >= nv is garbage (0 when
 * nv is 0).  All lanes of the warp call it. */
template <typename V, uint32_t K>
static __device__ __forceinline__ void czg_unpack(const uint32_t *S, uint32_t o, uint32_t hp, uint32_t ew,
                                                  uint32_t e0, V *x)
{
    const uint8_t *T = (const uint8_t *)S + o;
    uint32_t lane = threadIdx.x & 31u;
    uint32_t count = czg_count(T, hp), mode = T[hp + 2];
    uint32_t nv = count > e0 ? (count - e0 < K ? count - e0 : K) : 0u;
    if (mode == CZ_MODE_RAW) {
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            x[i] = i < nv ? (V)czg_bytes(T, hp + 3u + (e0 + i) * ew, ew) : (V)0;
        return;
    }
    uint32_t bw, bit, bpos;
    if (mode == CZ_MODE_FOR) { /* one width and one base: element e at bit e * width */
        bw = T[hp + 3u];
        bpos = hp + 4u;
        bit = 8u * (o + hp + 4u + ew) + e0 * bw;
    } else {
        uint32_t nb = (count + CZ_BLOCK - 1u) / CZ_BLOCK, wpos = hp + 3u, data = wpos + nb + nb * ew;
        uint32_t width = 0, bits = 0;
        if (lane < nb) {
            width = T[wpos + lane];
            bits = (lane + 1u < nb ? CZ_BLOCK : count - lane * CZ_BLOCK) * width;
        }
        uint32_t incl = own_warp_incl_add32(bits);
        uint32_t b = e0 / CZ_BLOCK; /* < 32 */
        bw = __shfl_sync(0xffffffffu, width, b);
        uint32_t boff = __shfl_sync(0xffffffffu, incl - bits, b);
        bpos = wpos + nb + b * ew;
        bit = 8u * (o + data) + boff + (e0 % CZ_BLOCK) * bw;
    }
    if (nv == 0) {
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            x[i] = 0;
        return;
    }
    V base = (V)czg_bytes(T, bpos, ew);
    if (sizeof(V) == 8) {
        uint64_t f[K];
        czg_bits64<K>(S, bit, bw, f);
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            x[i] = base + (V)f[i];
    } else {
        uint32_t f[K];
        czg_bits32<K>(S, bit, bw, f);
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            x[i] = base + (V)f[i];
    }
}

/* Run stream at hp (c run lengths - 1) into the swizzled run starts
 * (starts[c] = before) when they add up to `before`; 0 (in every thread)
 * when they do not: CORRUPT, as the core's cz_runs_starts.  The stores follow the scan's barrier, so
 * they never meet a previous expansion's reads. */
template <uint32_t K>
static __device__ __forceinline__ int czg_runs(const uint32_t *S, uint32_t o, uint32_t hp, uint8_t *starts,
                                               uint32_t c, uint32_t before, uint32_t e0, uint32_t *q)
{
    uint32_t nv = c > e0 ? (c - e0 < K ? c - e0 : K) : 0u;
    uint32_t len[K];
    czg_unpack<uint32_t, K>(S, o, hp, CZ_RUN_BYTES, e0, len);
    uint32_t acc = 0;
#pragma unroll
    for (uint32_t i = 0; i < K; i++) {
        uint32_t l = i < nv ? (len[i] & 0xffffu) + 1u : 0u;
        len[i] = acc;
        acc += l;
    }
    uint32_t all;
    uint32_t pre = czg_scan<uint32_t>(acc, q, &all);
    if (all != before)
        return 0;
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
 * thread's positions [e0, e0 + K) of the `before` outputs (0 past them):
 * run r starts in [r, r + before - c], so the search for the thread's
 * first run covers only that range; runs are >= 1 long, so the walk steps
 * at most once a position. */
template <typename V, uint32_t W, uint32_t K>
static __device__ __forceinline__ void czg_expand(const uint8_t *starts, const uint8_t *vals, uint32_t c,
                                                  uint32_t before, uint32_t e0, V *x)
{
    uint32_t nv = before > e0 ? (before - e0 < K ? before - e0 : K) : 0u;
    if (nv == 0) {
#pragma unroll
        for (uint32_t i = 0; i < K; i++)
            x[i] = 0;
        return;
    }
    uint32_t slack = before - c;
    uint32_t a = e0 > slack ? e0 - slack : 0u;
    uint32_t b = (e0 < c - 1u ? e0 : c - 1u) + 1u;
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
        if (e0 + i == next && i < nv) {
            r++;
            next = czg_start(starts, r + 1u);
        }
        x[i] = czg_ld<V, W>(vals, r);
    }
}

/* Decodes the tile staged in stage sb (at offset o; n bytes, cnt elements
 * of W bytes; src: the tile in global memory, for a stored tile), as the
 * core's cz_decode_tile: the same statuses and output (dst NULL: checks
 * only).  Every thread of the CTA; every return is the CTA's.  Not
 * inlined: each width's instance gets the kernel's 80 registers to itself
 * (ptxas, sm_90: the 4- and 8-byte instances do not spill, the 1- and
 * 2-byte ones, 32 elements a thread, 16 bytes). */
template <typename V, uint32_t W, bool DIRECT = false>
static __device__ __noinline__ oc_status czg_decode_tile(uint32_t sb, uint32_t o, const uint8_t *src,
                                                         uint32_t n, uint32_t cnt, uint32_t ver, uint8_t *dst)
{
    czg_ws *ws = (czg_ws *)czg_smem;
    constexpr uint32_t K = (W <= 2u ? CZ_TILE_MAX : CZ_TILE_BYTES / W) / CZG_THREADS;
    uint32_t raw = cnt * W;
    if (n > raw)
        return OC_ERR_CORRUPT;
    if (n == raw) { /* stored: not staged */
        if (dst)
            OWN_RUN(CZG_WARPS, cz_copy_bytes, src, n, dst);
        return OC_OK;
    }
    const uint32_t *S = ws->stage[sb];
    const uint8_t *T = (const uint8_t *)S + o;
    czg_parse P;
    if (!czg_parse_tile(T, n, W, cnt, ver, &P))
        return OC_ERR_CORRUPT;
    uint32_t rles = P.rles, e0 = threadIdx.x * K, q = 0;
    uint32_t c = czg_count(T, czg_hp(P, rles));
    V x[K];
    czg_unpack<V, K>(S, o, czg_hp(P, rles), W, e0, x);
    bool sread = true;  /* the stage read since the last barrier */
    bool bread = false; /* the values buffer read (an expansion) since the last barrier */
    uint32_t s = rles, d = P.deltas;
    uint8_t *vals = (uint8_t *)ws->buf, *starts = (uint8_t *)ws->starts;
    for (uint32_t k = P.nops; k-- > 0;) {
        if ((P.dmask >> k) & 1u) {
            d--;
            czg_delta<V, K>(x, (V)czg_bytes(T, 1u + d * W, W), &q);
            bread = false;
        } else {
            s--;
            uint32_t before = s ? czg_count(T, czg_hp(P, s - 1u)) : cnt;
            if (bread)
                __syncthreads(); /* two RLEs in a row: the last expansion may still read the values */
            czg_store<V, W, K>(vals, e0, x); /* before the run scan: x is dead during it */
            if (!czg_runs<K>(S, o, czg_hp(P, s), starts, c, before, e0, &q))
                return OC_ERR_CORRUPT;
            __syncthreads(); /* the values and the starts */
            czg_expand<V, W, K>(starts, vals, c, before, e0, x);
            bread = true;
            c = before;
        }
        sread = false;
    }
    if (DIRECT && W >= 4u && dst) {
        czg_put<V, W, K>(x, e0, cnt, dst);
    } else if (dst) {
        uint8_t *out = (uint8_t *)ws->stage[sb]; /* nothing reads the stage past the last run stream */
        if (sread)
            __syncthreads(); /* no layer: the values' unpack read it */
        czg_store<V, W, K>(out, e0, x);
        __syncthreads();
        czg_copy_out(out, raw, dst);
    }
    return OC_OK;
}

/* ---- the fused path (v4): nVCOMP's layers in one pass ---------------------- */

#define CZG_S1 8320u /* byte offset of the second RLE's run starts in czg_ws.starts (65 rows of 128) */
static_assert(CZG_S1 + 2u * (CZ_TILE_BYTES / 4u + 1u) <=
                  sizeof(((czg_ws *)0)->starts) + sizeof(((czg_ws *)0)->tail),
              "czg_ws: room for the second run starts");

/* czg_swz(b) in two operations: b ^ ((b >> 3) & 0x70) flips the same three
 * bits (the 16-byte slot within the 128-byte row) that czg_swz's form
 * rebuilds in five; for the walk's addresses. */
static __device__ __forceinline__ uint32_t czg_swz2(uint32_t b)
{
    return b ^ ((b >> 3) & 0x70u);
}

static __device__ __forceinline__ uint32_t czg_start2(const uint8_t *starts, uint32_t i)
{
    return *(const uint16_t *)(starts + czg_swz2(2u * i));
}

template <typename V, uint32_t W> static __device__ __forceinline__ V czg_ld2(const uint8_t *buf, uint32_t e)
{
    const uint8_t *p = buf + czg_swz2(e * W);
    if (W == 4)
        return (V) * (const uint32_t *)p;
    return (V) * (const uint64_t *)p;
}

/* Exclusive CTA scans of a (u64) and b (V) with one barrier, the totals
 * in *ta and *tb; q alternates the slots as czg_scan's. */
template <typename V>
static __device__ __forceinline__ void czg_scan2(uint64_t a, V b, uint32_t *q, uint64_t *pa, V *pb,
                                                 uint64_t *ta, V *tb)
{
    __shared__ unsigned long long czg_tot2[2][2][CZG_WARPS];
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
        czg_tot2[slot][0][warp] = ia;
        czg_tot2[slot][1][warp] = (unsigned long long)ib;
    }
    __syncthreads();
    uint64_t prea = 0, suma = 0;
    V preb = 0, sumb = 0;
#pragma unroll
    for (uint32_t j = 0; j < CZG_WARPS; j++) {
        uint64_t t = czg_tot2[slot][0][j];
        V u = (V)czg_tot2[slot][1][j];
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
static __device__ __forceinline__ bool czg_ident(const uint8_t *T, uint32_t hp, uint32_t before)
{
    uint32_t count = czg_count(T, hp);
    if (count != before)
        return false;
    if (T[hp + 2] == CZ_MODE_FOR) /* width 0, base 0 (u16) */
        return T[hp + 3] == 0 && T[hp + 4] == 0 && T[hp + 5] == 0;
    if (T[hp + 2] != CZ_MODE_PACKED)
        return false;
    uint32_t lane = threadIdx.x & 31u, nb = (count + CZ_BLOCK - 1u) / CZ_BLOCK, wpos = hp + 3u,
             bpos = wpos + nb;
    bool ok =
        lane >= nb || (T[wpos + lane] == 0 && T[bpos + 2u * lane] == 0 && T[bpos + 2u * lane + 1u] == 0);
    return __all_sync(0xffffffffu, ok);
}

/* Stores the thread's K run starts (pre + the u16 halves of p) at entry
 * e0 of the swizzled starts array. */
template <uint32_t K>
static __device__ __forceinline__ void czg_put_starts(uint8_t *starts, uint32_t e0, uint32_t pre,
                                                      const uint32_t *p)
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
static __device__ __forceinline__ uint32_t czg_lens(const uint32_t *S, uint32_t o, uint32_t hp, uint32_t c,
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
static __device__ __forceinline__ uint32_t czg_len(const uint32_t *p, uint32_t acc, uint32_t i)
{
    uint32_t lo = i & 1u ? p[i / 2u] >> 16 : p[i / 2u] & 0xffffu;
    uint32_t hi = i + 1u < K ? ((i + 1u) & 1u ? p[(i + 1u) / 2u] >> 16 : p[(i + 1u) / 2u] & 0xffffu) : acc;
    return (hi - lo) & 0xffffu;
}

/* The fused decode of a tile with layers RLE, delta, RLE (parsed: P).
 */
template <typename V, uint32_t W, bool DIRECT = false>
static __device__ __forceinline__ oc_status czg_fused(uint32_t sb, uint32_t o, const czg_parse &Pp,
                                                      uint32_t cnt, uint8_t *dst)
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
    if (czg_ident(T, hp0, cnt) && czg_ident(T, hp1, c1)) { /* the values and the delta */
        czg_unpack<V, K>(S, o, hp2, W, e0, x);
        czg_delta<V, K>(x, seed, &q);
        if (DIRECT && dst) {
            czg_put<V, W, K>(x, e0, cnt, dst);
        } else if (dst) {
            czg_store<V, W, K>(vb, e0, x); /* buf: unread in this tile */
            __syncthreads();
            czg_copy_out(vb, raw, dst);
        }
        return OC_OK;
    }
    /* the three streams, one scan; v goes to buf at once (unread until the walk), so that it is not
     * held in registers across the scan */
    uint32_t p0[K / 2u], p1[K / 2u];
    uint32_t acc1 = czg_lens<K>(S, o, hp1, c2, e0, p1);
    czg_unpack<V, K>(S, o, hp2, W, e0, x); /* v */
    V acc2 = 0;
#pragma unroll
    for (uint32_t i = 0; i < K; i++)
        acc2 += (V)czg_len<K>(p1, acc1, i) * x[i];
    czg_store<V, W, K>(vb, e0, x);
    uint32_t acc0 = czg_lens<K>(S, o, hp0, c1, e0, p0);
    uint64_t pa, ta;
    V pb, tb;
    czg_scan2<V>((uint64_t)acc0 | ((uint64_t)acc1 << 32), acc2, &q, &pa, &pb, &ta, &tb);
    if ((uint32_t)ta != cnt || (uint32_t)(ta >> 32) != c1)
        return OC_ERR_CORRUPT;
    if (!dst)
        return OC_OK;
    uint8_t *s0 = (uint8_t *)ws->starts, *s1 = s0 + CZG_S1, *Pb = (uint8_t *)ws->stage[sb];
    czg_put_starts<K>(s0, e0, (uint32_t)pa, p0);
    czg_put_starts<K>(s1, e0, (uint32_t)(pa >> 32), p1);
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
                run += (V)czg_len<K>(p1, acc1, qv * E + e) * v;
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
            if (czg_start2(s0, mid) <= e0)
                a = mid;
            else
                b = mid;
        }
        uint32_t j = a, sl1 = c1 - c2;
        a = j > sl1 ? j - sl1 : 0u;
        b = (j < c2 - 1u ? j : c2 - 1u) + 1u;
        while (b - a > 1u) {
            uint32_t mid = (a + b) >> 1;
            if (czg_start2(s1, mid) <= j)
                a = mid;
            else
                b = mid;
        }
        uint32_t k = a, nj = czg_start2(s0, j + 1u), nk = czg_start2(s1, k + 1u);
        V vk = czg_ld2<V, W>(vb, k);
        V y = czg_ld2<V, W>(Pb, k) + (V)(j - czg_start2(s1, k) + 1u) * vk;
#pragma unroll
        for (uint32_t i = 0; i < K; i++) {
            if (e0 + i == nj && i < nv) {
                j++;
                nj = czg_start2(s0, j + 1u);
                if (j == nk) {
                    k++;
                    nk = czg_start2(s1, k + 1u);
                    vk = czg_ld2<V, W>(vb, k);
                }
                y += vk;
            }
            x[i] = y;
        }
    }
    if (DIRECT) {
        czg_put<V, W, K>(x, e0, cnt, dst);
        return OC_OK;
    }
    __syncthreads(); /* the walk's reads of buf */
    czg_store<V, W, K>(vb, e0, x);
    __syncthreads();
    czg_copy_out(vb, raw, dst);
    return OC_OK;
}

/* A tile of 4 or 8-byte elements: nVCOMP's layers (RLE, delta, RLE) by the
 * fused path, every other staged tile by czg_decode_tile. */
template <typename V, uint32_t W, bool DIRECT = false>
static __device__ __noinline__ oc_status czg_decode_rdr(uint32_t sb, uint32_t o, const uint8_t *src,
                                                        uint32_t n, uint32_t cnt, uint32_t ver, uint8_t *dst)
{
    czg_ws *ws = (czg_ws *)czg_smem;
    const uint8_t *T = (const uint8_t *)ws->stage[sb] + o;
    if (n == 0 || n >= cnt * W || T[0] != (2u | (1u << 2)))
        return czg_decode_tile<V, W, DIRECT>(sb, o, src, n, cnt, ver, dst);
    czg_parse P;
    if (!czg_parse_tile(T, n, W, cnt, ver, &P))
        return OC_ERR_CORRUPT;
    return czg_fused<V, W, DIRECT>(sb, o, P, cnt, dst);
}

/* A tile of the batch, as every warp finds it for itself. */
typedef struct czg_tile {
    const uint8_t *src, *cend; /* the tile; the chunk's end */
    uint8_t *dst;
    size_t chunk;
    uint32_t n, cnt, w, tile, ver; /* ver: the chunk's format version */
    int st, valid;
} czg_tile;

/* The chunk a CTA's tiles are in, kept from one tile to the next
 * (a CTA's tiles are consecutive, so most lookups are a compare instead
 * of the warp's search, the chunk's pointers and its header check). */
typedef struct czg_chunk {
    unsigned long long first, next; /* its tiles: [first, next) */
    size_t i;
    const uint8_t *p;
    size_t len;
    uint8_t *d;
    own_tiled k;
    oc_status st;
} czg_chunk;

/* Tile t of the batch (own_tiled_tiles' lookup: the calling warp's 32-way
 * search, the chunk's pointers and header check), with the chunk found
 * before reused when tile t is in it. */
static __device__ __forceinline__ void czg_locate_kept(size_t n, const void *const *src,
                                                       const size_t *src_sizes, void *const *dst,
                                                       const own_batch_scratch &s, unsigned long long t,
                                                       unsigned long long end, czg_chunk *C, czg_tile *T)
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
    T->ver = k.version;
    T->st = st;
}

static __device__ __forceinline__ void czg_cp16(uint32_t sa, const uint8_t *g)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(sa), "l"(g) : "memory");
}

static __device__ __forceinline__ void czg_cp4(uint32_t sa, const uint8_t *g)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(sa), "l"(g) : "memory");
}

/* Starts copying a coded tile into the stage at shared address sa (at the
 * tile's offset mod 16): the 16-byte pieces inside the chunk by 16-byte
 * copies, else word by word; the one word past the chunk's end (the last
 * tile's, at most) byte by byte into (*cidx, *cval), stored by the caller
 * before the barrier that publishes the stage.  Bytes of the stage outside
 * the tile are whatever was there. */
static __device__ __forceinline__ void czg_issue(uint32_t sa, const czg_tile &T, uint32_t *cidx,
                                                 uint32_t *cval)
{
    if (!T.valid || T.st != OC_OK || T.n >= T.cnt * T.w)
        return;
    uintptr_t g = (uintptr_t)T.src, ge = g + T.n, hi = (uintptr_t)T.cend;
    uint32_t o = (uint32_t)(g & 15u);
    uintptr_t g0 = g - o;
    uint32_t Q = (o + T.n + 15u) / 16u;
    for (uint32_t qi = threadIdx.x; qi < Q; qi += CZG_THREADS) {
        uintptr_t a = g0 + 16u * qi;
        if (a >= g && a + 16u <= hi) { /* inside the chunk: from the tile's first byte on */
            czg_cp16(sa + 16u * qi, (const uint8_t *)a);
            continue;
        }
        for (uint32_t j = 0; j < 4; j++) {
            uintptr_t wa = a + 4u * j;
            if (wa + 4u <= g || wa >= ge)
                continue; /* no byte of the tile */
            if (wa >= g - (g & 3u) && wa + 4u <= hi) {
                czg_cp4(sa + 16u * qi + 4u * j, (const uint8_t *)wa); /* its bytes before g: the chunk's */
            } else {
                uint32_t v = 0;
                for (uint32_t bq = 0; bq < 4; bq++)
                    if (wa + bq >= g && wa + bq < ge)
                        v |= (uint32_t) * (const uint8_t *)(wa + bq) << (8u * bq);
                *cidx = 4u * qi + j;
                *cval = v;
            }
        }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
}

/* Warp 0: tile t into the slot *T (the kept chunk *C, both in shared
 * memory: the other warps carry neither across a tile). */
static __device__ __forceinline__ void czg_locate_slot(size_t n, const void *const *src,
                                                       const size_t *src_sizes, void *const *dst,
                                                       const own_batch_scratch &s, unsigned long long t,
                                                       unsigned long long end, czg_chunk *shC, czg_tile *T)
{
    czg_chunk C = *shC;
    czg_tile x;
    czg_locate_kept(n, src, src_sizes, dst, s, t, end, &C, &x);
    __syncwarp();
    if ((threadIdx.x & 31u) == 0) {
        *T = x;
        *shC = C;
    }
}

/* Bytes of the tile kernel's workspace: czg_ws less its second stage (the
 * tile loop below stages one tile at a time; bench/gpu/dev's two-stage
 * loops take the whole czg_ws). */
#define CZG_WS_ONESTAGE (offsetof(czg_ws, stage) + CZG_STAGE_BYTES)

/* The tile kernel's body: a persistent grid over the batch's tiles, CTA b
 * taking the consecutive tiles [b per, (b + 1) per), one stage, 4 CTAs an
 * SM (session 12, bench/gpu/owncodecs/NOTES.md: 1.25-1.4x the loop
 * before on TPC-H keys and dates).  Warp 0 alone finds each tile (its
 * chunk kept from one tile to the next, czg_locate_kept) and writes it to
 * a slot in shared memory that the others read after the barrier that
 * publishes the stage: three slots, so that warp 0 writing tile k + 2's
 * never meets a warp still reading tile k's; with the tiles and the chunk
 * in every thread's registers across the decode, the loop spilled 200
 * bytes a thread, which do not fit in L1 beside the workspaces, and every
 * warp repeated the lookup.  A tile: its bytes copied into the stage by
 * cp.async (czg_issue), while warp 0 locates the next tile and prefetches
 * its lines into L2; a barrier (the stage whole); the decode; a barrier
 * (every thread past the stage and the buffers). */
static __device__ __forceinline__ void czg_tiles(size_t n, const void *const *src, const size_t *src_sizes,
                                                 void *const *dst, own_batch_scratch s)
{
    __shared__ czg_tile czg_slot[3];
    __shared__ czg_chunk czg_kept;
    czg_ws *ws = (czg_ws *)czg_smem;
    unsigned long long total = s.first[n];
    unsigned long long per = (total + gridDim.x - 1) / gridDim.x;
    unsigned long long t0 = blockIdx.x * per, end = t0 + per < total ? t0 + per : total;
    uint32_t sa0 = (uint32_t)__cvta_generic_to_shared(ws->stage[0]);
    if (threadIdx.x < 32u) {
        if (threadIdx.x == 0)
            czg_kept.first = czg_kept.next = 0;
        __syncwarp();
        czg_locate_slot(n, src, src_sizes, dst, s, t0, end, &czg_kept, &czg_slot[0]);
    }
    __syncthreads();
    uint32_t k = 0;
    for (unsigned long long t = t0; t < end; t++) {
        const czg_tile *cur = &czg_slot[k], *nxt = &czg_slot[k == 2u ? 0u : k + 1u];
        uint32_t cidx = ~0u, cval = 0;
        czg_issue(sa0, *cur, &cidx, &cval);
        if (threadIdx.x < 32u) {
            czg_locate_slot(n, src, src_sizes, dst, s, t + 1, end, &czg_kept, (czg_tile *)nxt);
            __syncwarp();
            const czg_tile &T = *nxt;
            if (T.valid && T.st == OC_OK && T.n < T.cnt * T.w) { /* its lines into L2, a line a lane */
                uintptr_t g = (uintptr_t)T.src & ~(uintptr_t)127u, ge = (uintptr_t)T.src + T.n;
                for (uintptr_t a = g + 128u * threadIdx.x; a < ge; a += 128u * 32u)
                    asm volatile("prefetch.global.L2 [%0];" ::"l"(a));
            }
        }
        if (cidx != ~0u)
            ws->stage[0][cidx] = cval;
        asm volatile("cp.async.wait_all;" ::: "memory");
        __syncthreads(); /* stage 0 is whole, the next tile located */
        oc_status st = (oc_status)cur->st;
        if (st == OC_OK) {
            uint32_t o = (uint32_t)((uintptr_t)cur->src & 15u);
            switch (cur->w) {
            case 1:
                st = czg_decode_tile<uint32_t, 1>(0, o, cur->src, cur->n, cur->cnt, cur->ver, cur->dst);
                break;
            case 2:
                st = czg_decode_tile<uint32_t, 2>(0, o, cur->src, cur->n, cur->cnt, cur->ver, cur->dst);
                break;
            case 4:
                st = czg_decode_rdr<uint32_t, 4>(0, o, cur->src, cur->n, cur->cnt, cur->ver, cur->dst);
                break;
            default:
                st = czg_decode_rdr<uint64_t, 8>(0, o, cur->src, cur->n, cur->cnt, cur->ver, cur->dst);
                break;
            }
        }
        /* thread 0 is in warp 0, the slots' writer: it reads cur before its next lookup */
        if (st != OC_OK && threadIdx.x == 0)
            atomicMin(&s.keys[cur->chunk], own_key((unsigned long long)cur->tile + 1, st));
        k = k == 2u ? 0u : k + 1u;
        __syncthreads(); /* every thread past the tile (the stage and the buffers) */
    }
}

#endif /* OC_CASCADED_TILE_DECODE_CUH */
