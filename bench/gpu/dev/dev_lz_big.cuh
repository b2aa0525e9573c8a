/*
 * dev_lz_big.cuh - v14 (issue 13, session 11, an experiment; bench/NOTES.md
 * "v14"): LZ4 and Snappy decode of big chunks (256 KiB - 4 MiB) by a BLOCK
 * per chunk, because the library's two-warp pipe decodes a chunk with one
 * parsing warp and one copying warp, so 256 chunks of 4 MiB keep ~2 warps an
 * SM busy.  Here every phase of a chunk is spread over NW warps:
 *   1. v7b's parallel parse (dev_lz_split_pp.h) fused into one kernel: A, a
 *      thread per 4 KiB input segment walks speculatively; B, thread 0 joins
 *      the segments (rewalking the few whose walk missed the true chain);
 *      C, a thread per segment checks positions and packs the true records;
 *      D, thread 0 checks the end of the stream, or parses the chunk
 *      serially when anything was in doubt, so statuses are the serial
 *      parse's (and for LZ4 the CPU scanner's verdict, as the library's).
 *   2. the copy in tiles of NW x 32 x OC_BIG_R records: a block prefix sum
 *      gives each record its output position; every literal is copied at
 *      once (no dependency); then the matches in rounds (multi-round
 *      resolution): hwm = the output position of the first unresolved match
 *      of the tile; everything before hwm is final, so every match whose
 *      source lies before hwm (or in its own thread's already-final run of
 *      records) is copied this round, in parallel.  The first unresolved
 *      match is always ready, so every round resolves at least one match.
 * Short copies (<= 32 bytes) by their own lane, byte by byte in ascending
 * order (overlapping matches repeat correctly); long ones by the whole warp.
 * Safety: the records copied are the ones the parse checked (offsets within
 * the output so far, lengths within the capacity); a chunk whose parse
 * failed copies nothing.
 */
#ifndef OC_DEV_LZ_BIG_CUH
#define OC_DEV_LZ_BIG_CUH

#include "dev_lz_split_pp.h"

#define OC_BIG_R 4       /* records a thread holds in a tile */
#define OC_BIG_SHORT 32u /* copies up to this long: by their own lane */

struct oc_big_pp {
    oc_split_rec *recs; /* OC_PP_SEG_RECS per segment */
    uint32_t *pos, *cum;
    oc_pp_seg *segs;
    oc_pp_chunk *chunks;
    const size_t *seg0; /* the first segment of each chunk */
};

/* Exclusive block prefix sum of v (every thread calls); *total gets the sum. */
template <int NW> __device__ __forceinline__ uint32_t oc_big_scan(uint32_t v, uint32_t *total, uint32_t *sw)
{
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    uint32_t x = v;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        uint32_t y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d)
            x += y;
    }
    if (lane == 31)
        sw[warp] = x;
    __syncthreads();
    uint32_t before = 0, all = 0;
#pragma unroll
    for (int w = 0; w < NW; w++) {
        uint32_t t = sw[w];
        before += w < warp ? t : 0;
        all += t;
    }
    __syncthreads(); /* sw is reused by the next call */
    *total = all;
    return before + x - v;
}

/* The whole warp copies len bytes to dst + op from `from` (the input when
 * input, else the output before op); rep (the match offset when it is below
 * len, else 0) repeats the source.  Eight loads in flight a lane before
 * their stores (the source never overlaps what this copy writes: with rep it
 * reads only the rep bytes before op). */
__device__ __forceinline__ void oc_big_warp_copy(uint8_t *dst, uint32_t op, const uint8_t *from, uint32_t len,
                                                 uint32_t rep, bool input, int lane)
{
    uint32_t j = lane;
    for (; j + 224 < len; j += 256) {
        uint8_t v[8];
#pragma unroll
        for (int u = 0; u < 8; u++) {
            uint32_t at = j + 32 * u;
            at = rep ? at % rep : at;
            v[u] = input ? __ldg(from + at) : from[at];
        }
#pragma unroll
        for (int u = 0; u < 8; u++)
            dst[op + j + 32 * u] = v[u];
    }
    for (; j < len; j += 32)
        dst[op + j] = input ? __ldg(from + j) : from[rep ? j % rep : j];
}

/* One lane copies len <= OC_BIG_SHORT bytes to dst + op from `from`, 8
 * loads in flight before their stores; rep as above. */
__device__ __forceinline__ void oc_big_lane_copy(uint8_t *dst, uint32_t op, const uint8_t *from, uint32_t len,
                                                 uint32_t rep, bool input)
{
    uint32_t r = 0;
    for (uint32_t j0 = 0; j0 < len; j0 += 8) {
        uint8_t v[8];
#pragma unroll
        for (int u = 0; u < 8; u++) {
            uint32_t at = rep ? r : j0 + u;
            if (j0 + u < len)
                v[u] = input ? __ldg(from + at) : from[at];
            r = r + 1 == rep ? 0 : r + 1;
        }
#pragma unroll
        for (int u = 0; u < 8; u++)
            if (j0 + u < len)
                dst[op + j0 + u] = v[u];
    }
}

/* v14b: whether every record of the tile whose match part overlaps
 * [from, end) has been copied: before this round (done < rr), or by this
 * warp in an earlier slot of it.  me, ms: the tile's match ends and starts
 * (both non-decreasing); done: the round each record's match was copied in
 * (1: none to copy, 0: not yet). */
template <int NW>
__device__ __forceinline__ bool oc_big_sources_done(uint32_t from, uint32_t end, const uint32_t *ms,
                                                    const uint32_t *me, const volatile uint16_t *done,
                                                    uint32_t rr, int warp, int slot)
{
    const uint32_t tile = NW * 32 * OC_BIG_R;
    uint32_t a = 0, b = tile; /* the first record whose match ends after from */
    while (a < b) {
        uint32_t m = (a + b) / 2;
        if (me[m] > from)
            b = m;
        else
            a = m + 1;
    }
    for (uint32_t q = a; q < tile && ms[q] < end; q++) {
        if (me[q] == ms[q])
            continue;
        uint32_t d = done[q];
        if (d == 0 || (d >= rr && !((int)(q / OC_BIG_R / 32) == warp && (int)(q % OC_BIG_R) < slot)))
            return false;
    }
    return true;
}

/* Phase clocks (CLK, an instantiation of its own so that the timed kernel carries none; lz_split runs it
 * as its checking run): thread 0 of chunk c's block
 * adds at clk + c * OC_BIG_CLK (zeroed by the caller) the SM cycles of pass A, B, C, D, the tiles' scans
 * and literals, the tiles' rounds, then the rounds and the tiles (counts). */
#define OC_BIG_CLK 8

template <bool SNAPPY, int NW, bool DEPS, bool CLK>
__global__ void __launch_bounds__(NW * 32, 1024 / (NW * 32))
    oc_big_kernel(oc_cuda_batch b, oc_big_pp p, oc_split_rec *recs, const size_t *rec_base, uint32_t *nrecs,
                  unsigned long long *clk)
{
    __shared__ uint32_t s_n, s_hwm;
    __shared__ uint32_t s_sw[NW];
    __shared__ uint32_t s_ms[DEPS ? NW * 32 * OC_BIG_R : 1], s_me[DEPS ? NW * 32 * OC_BIG_R : 1];
    __shared__ uint16_t s_done[DEPS ? NW * 32 * OC_BIG_R : 1];
    size_t c = blockIdx.x;
    if (c >= b.n)
        return;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const uint8_t *src = b.src[c];
    size_t srcn = b.src_sizes[c], cap = b.dst_caps[c];
    uint8_t *dst = b.dst[c];
    size_t g0 = p.seg0[c], ns = oc_pp_nsegs(srcn), at0 = g0 * OC_PP_SEG_RECS;
    oc_split_rec *cr = recs + rec_base[c];
    unsigned long long *ck = CLK ? clk + c * OC_BIG_CLK : nullptr; /* zeroed by the caller */
    unsigned long long t_prev = clock64(), t_now;
#define OC_BIG_TICK(i)                                                                                       \
    do {                                                                                                     \
        if (CLK && tid == 0) {                                                                               \
            t_now = clock64();                                                                               \
            ck[i] += t_now - t_prev;                                                                         \
            t_prev = t_now;                                                                                  \
        }                                                                                                    \
    } while (0)

    /* 1. the parallel parse, A to D */
    for (size_t k = tid; k < ns; k += NW * 32) {
        size_t at = (g0 + k) * OC_PP_SEG_RECS;
        oc_pp_pass_a(SNAPPY, src, srcn, cap, k, p.recs + at, p.pos + at, p.cum + at, p.segs + g0 + k);
    }
    __syncthreads();
    OC_BIG_TICK(0);
    if (tid == 0)
        oc_pp_pass_b(SNAPPY, src, srcn, cap, ns, p.recs + at0, p.pos + at0, p.cum + at0, p.segs + g0,
                     p.chunks + c);
    __syncthreads();
    OC_BIG_TICK(1);
    for (size_t k = tid; k < ns; k += NW * 32)
        oc_pp_pass_c(SNAPPY, cap, k, p.recs + at0, p.segs + g0 + k, p.chunks + c, cr);
    __syncthreads();
    OC_BIG_TICK(2);
    if (tid == 0) {
        size_t nrec = 0, outn = 0;
        int st = oc_pp_pass_d(SNAPPY, src, srcn, cap, p.chunks + c, cr, &nrec, &outn);
        if (!SNAPPY)
            st = oc_lz4_cpu_verdict(st, src, srcn, 0); /* the library's statuses (800048d) */
        nrecs[c] = st == OC_SPLIT_OK ? (uint32_t)nrec : 0;
        b.dst_sizes[c] = st == OC_SPLIT_OK ? outn : 0;
        b.statuses[c] = st;
        s_n = st == OC_SPLIT_OK ? (uint32_t)nrec : 0;
    }
    __syncthreads();
    OC_BIG_TICK(3);
    const uint32_t n = s_n;

    /* 2. the copy, tile after tile */
    const uint32_t tile = NW * 32 * OC_BIG_R;
    uint32_t base = 0; /* output position of the tile's first record */
    for (uint32_t t0 = 0; t0 < n; t0 += tile) {
        uint32_t lo[OC_BIG_R], ll[OC_BIG_R], ls[OC_BIG_R], mo[OC_BIG_R], ml[OC_BIG_R];
        uint32_t sum = 0;
#pragma unroll
        for (int r = 0; r < OC_BIG_R; r++) {
            uint32_t i = t0 + (uint32_t)tid * OC_BIG_R + r;
            oc_split_rec x = {0, 0, 0, 0};
            if (i < n)
                x = cr[i];
            ls[r] = x.lit_src, ll[r] = x.lit_len, mo[r] = x.m_off, ml[r] = x.m_len;
            lo[r] = sum;
            sum += x.lit_len + x.m_len;
        }
        uint32_t total = 0, mine = base + oc_big_scan<NW>(sum, &total, s_sw);
#pragma unroll
        for (int r = 0; r < OC_BIG_R; r++)
            lo[r] += mine;
        const uint32_t my_end = mine + sum;
        base += total;

        /* literals: no dependency */
#pragma unroll
        for (int r = 0; r < OC_BIG_R; r++) {
            bool lng = ll[r] > OC_BIG_SHORT;
            if (!lng)
                oc_big_lane_copy(dst, lo[r], src + ls[r], ll[r], 0, true);
            unsigned m = __ballot_sync(0xffffffffu, lng);
            while (m) {
                int l = __ffs(m) - 1;
                m &= m - 1;
                uint32_t o = __shfl_sync(0xffffffffu, lo[r], l), s = __shfl_sync(0xffffffffu, ls[r], l),
                         len = __shfl_sync(0xffffffffu, ll[r], l);
                oc_big_warp_copy(dst, o, src + s, len, 0, true, lane);
            }
        }
        uint32_t pend = 0; /* bit r: record r's match not yet copied */
#pragma unroll
        for (int r = 0; r < OC_BIG_R; r++) {
            pend |= ml[r] ? 1u << r : 0u;
            if (DEPS) {
                uint32_t k = (uint32_t)tid * OC_BIG_R + r;
                s_ms[k] = lo[r] + ll[r];
                s_me[k] = lo[r] + ll[r] + ml[r];
                s_done[k] = ml[r] ? 0 : 1;
            }
        }
        uint32_t rr = 1; /* v14b: this round's number (s_done) */
        OC_BIG_TICK(4);
        if (CLK && tid == 0)
            ck[7]++;

        /* matches, in rounds */
        for (;;) {
            /* f: the output position of my first unresolved match (my records before it are final) */
            uint32_t f = my_end;
#pragma unroll
            for (int r = OC_BIG_R - 1; r >= 0; r--)
                if (pend >> r & 1)
                    f = lo[r] + ll[r];
            if (tid == 0)
                s_hwm = 0xffffffffu;
            __syncthreads(); /* also: every write of the last round is visible */
            if (pend)
                atomicMin(&s_hwm, f);
            __syncthreads();
            const uint32_t hwm = s_hwm;
            if (hwm == 0xffffffffu)
                break;
            if (CLK && tid == 0)
                ck[6]++;
            const uint32_t lo0 = lo[0];
            rr++;
#pragma unroll
            for (int r = 0; r < OC_BIG_R; r++) {
                uint32_t mp = lo[r] + ll[r], from = mp - mo[r];
                uint32_t end = mo[r] < ml[r] ? mp : from + ml[r];
                bool ready = (pend >> r & 1) && (end <= hwm || (end <= f && (from >= lo0 || lo0 <= hwm)));
                if (DEPS && (pend >> r & 1) && !ready)
                    ready = oc_big_sources_done<NW>(from, end, s_ms, s_me, s_done, rr, warp, r);
                bool lng = ready && ml[r] > OC_BIG_SHORT;
                if (ready && !lng)
                    oc_big_lane_copy(dst, mp, dst + from, ml[r], mo[r] < ml[r] ? mo[r] : 0, false);
                unsigned m = __ballot_sync(0xffffffffu, lng);
                __syncwarp(); /* the lanes' short copies before a long one reads them */
                while (m) {
                    int l = __ffs(m) - 1;
                    m &= m - 1;
                    uint32_t o = __shfl_sync(0xffffffffu, mp, l), fr = __shfl_sync(0xffffffffu, from, l),
                             len = __shfl_sync(0xffffffffu, ml[r], l),
                             off = __shfl_sync(0xffffffffu, mo[r], l);
                    oc_big_warp_copy(dst, o, dst + fr, len, off < len ? off : 0, false, lane);
                    __syncwarp();
                }
                if (ready) {
                    pend &= ~(1u << r);
                    if (DEPS)
                        s_done[(uint32_t)tid * OC_BIG_R + r] = (uint16_t)rr;
                    if (f == mp) { /* my run of final records grows to my next unresolved match */
                        f = my_end;
#pragma unroll
                        for (int q = OC_BIG_R - 1; q > r; q--)
                            if (pend >> q & 1)
                                f = lo[q] + ll[q];
                    }
                }
                if (DEPS)
                    __syncwarp(); /* this slot's s_done before the next slot reads it */
            }
            __syncthreads(); /* the round's writes before the next hwm */
        }
        __syncthreads(); /* the tile's writes before the next tile reads them */
        OC_BIG_TICK(5);
    }
#undef OC_BIG_TICK
}

#endif /* OC_DEV_LZ_BIG_CUH */
