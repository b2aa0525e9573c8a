/*
 * dev_lz_flow.cuh - v15 (session 12, issue 18's big-chunk rows, an experiment;
 * bench/NOTES.md "v15"): LZ4 and Snappy decode of 256 KiB - 4 MiB chunks by a
 * block a chunk, v14's fused parallel parse (dev_lz_big.cuh, passes A-D)
 * followed by a copy WITHOUT rounds.  v14's copy resolved dependent matches
 * in block-wide rounds (75-83% of a chunk, ~4,000 cycles a round whatever it
 * resolved).  Here each warp takes batches of 32 records (batch k belongs to
 * warp k % NW) in order:
 *   - the batch's output start comes down a chain word in shared memory
 *     (the owner of batch k - 1 publishes start + size right after its scan;
 *     atomics, so that racecheck sees no unsynchronised shared access);
 *   - literals are copied at once, then every output byte written gets its
 *     flag byte set in a flag array beside the output (one byte a byte),
 *     after a block-scope fence (release);
 *   - a match is copied as soon as every flag of its source bytes is set
 *     (volatile word loads, then a block-scope fence: acquire), whichever
 *     warp or round wrote them; its own flags follow.
 * So a match waits exactly for the bytes it reads (the CPU check's "ideal
 * depth", 100-600 dependent matches a 1 MiB chunk against ~9,000 steps of
 * an in-order per-warp schedule).  Progress: the earliest pending match of
 * the block reads only bytes of earlier records, all written or being
 * written by warps that do not wait on it.  The flag array is zeroed by the
 * caller (cudaMemsetAsync, counted in the timing).  The records copied are
 * the ones the parse checked; a chunk whose parse failed copies nothing.
 */
#ifndef OC_DEV_LZ_FLOW_CUH
#define OC_DEV_LZ_FLOW_CUH

#include "dev_lz_big.cuh"

/* Whether every byte of [from, end) has its flag set (aligned volatile word loads; bytes of a word
 * outside the range are masked, the array has 4 bytes of slack at its end). */
__device__ __forceinline__ bool oc_flow_final(const uint8_t *fl, uint32_t from, uint32_t end)
{
    if (from >= end)
        return true;
    uintptr_t p = (uintptr_t)(fl + from), pe = (uintptr_t)(fl + end);
    for (uintptr_t a = p & ~(uintptr_t)3; a < pe; a += 4) {
        uint32_t w = *(const volatile uint32_t *)a;
        uint32_t lo = p > a ? (uint32_t)(p - a) : 0u, hi = pe - a < 4 ? (uint32_t)(pe - a) : 4u;
        uint32_t m = (hi == 4 ? 0xffffffffu : (1u << (8 * hi)) - 1u) & ~((1u << (8 * lo)) - 1u);
        if ((w & m) != (0x01010101u & m))
            return false;
    }
    return true;
}

/* A lane's flags for [op, op + len) (after its release fence). */
__device__ __forceinline__ void oc_flow_set_lane(uint8_t *fl, uint32_t op, uint32_t len)
{
    for (uint32_t j = 0; j < len; j++)
        ((volatile uint8_t *)fl)[op + j] = 1;
}

/* The warp's flags for a copy of oc_big_warp_copy: lane l wrote the bytes j = l (mod 32). */
__device__ __forceinline__ void oc_flow_set_warp(uint8_t *fl, uint32_t op, uint32_t len, int lane)
{
    for (uint32_t j = lane; j < len; j += 32)
        ((volatile uint8_t *)fl)[op + j] = 1;
}

/* v15c (GRAN, lz_split's flowg-*; call B measured a poll at ~3,000-4,000 cycles, the flag word's L2 load
 * the top stall): a byte counter a 64-byte output granule in shared memory (4 a word, dynamic shared
 * memory of ceil(cap / 256) words), raised by the writer after its release fence (shared atomics) by the
 * bytes it wrote in that granule; a reader takes a granule whose count is full (64, or what the chunk
 * has there) as final without touching L2, and only the part of its source in an unfinished granule
 * from the flag bytes.  The flag bytes are still written.  v15d (SLEEP, flowgs-*): a warp whose poll found
 * nothing ready sleeps 200 ns, so that spinning warps leave the SM's issue slots to the other blocks'
 * parse walks (pass A cost 3x more at 8 blocks an SM than at 4 in call B). */
__device__ __forceinline__ void oc_flowg_add(uint32_t *cnt, uint32_t o, uint32_t len)
{
    for (uint32_t e = o + len; o < e;) {
        uint32_t g = o >> 6, ge = (g + 1) << 6, k = (e < ge ? e : ge) - o;
        atomicAdd(&cnt[g >> 2], k << (8 * (g & 3)));
        o += k;
    }
}

__device__ __forceinline__ bool oc_flowg_final(uint32_t *cnt, const uint8_t *fl, uint32_t from, uint32_t end,
                                               uint32_t outn)
{
    for (uint32_t g = from >> 6; from < end && (g << 6) < end; g++) {
        uint32_t c = (atomicOr(&cnt[g >> 2], 0u) >> (8 * (g & 3))) & 0xffu;
        uint32_t full = outn - (g << 6) < 64u ? outn - (g << 6) : 64u;
        if (c == full)
            continue;
        uint32_t a = from > (g << 6) ? from : (g << 6), z = end < ((g + 1) << 6) ? end : ((g + 1) << 6);
        if (!oc_flow_final(fl, a, z))
            return false;
    }
    return true;
}

/* v15b (LIT1, lz_split's flowl-*): every literal of the chunk first, by the whole block in tiles of
 * NW x 32 x OC_BIG_R records (v14's block scan places them), each record's match position stored in
 * its lit_src; a barrier; then the matches alone by flags, batches of 32 a warp, with no chain and no
 * scan (the positions are in the records) and every literal byte already final. */
template <bool SNAPPY, int NW, bool CLK, bool LIT1, bool GRAN = false, bool SLEEP = false>
__global__ void __launch_bounds__(NW * 32, 1024 / (NW * 32))
    oc_flow_kernel(oc_cuda_batch b, oc_big_pp p, oc_split_rec *recs, const size_t *rec_base, uint32_t *nrecs,
                   uint8_t *flags, const size_t *uoff, unsigned long long *clk)
{
    extern __shared__ uint32_t s_cnt[]; /* GRAN: ceil(cap / 256) words (the caller's dynamic size) */
    __shared__ uint32_t s_n, s_outn;
    __shared__ unsigned long long s_chain; /* (batch << 32) | its output start */
    __shared__ uint32_t s_sw[NW];
    size_t c = blockIdx.x;
    if (c >= b.n)
        return;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const uint8_t *src = b.src[c];
    size_t srcn = b.src_sizes[c], cap = b.dst_caps[c];
    uint8_t *dst = b.dst[c];
    uint8_t *fl = flags + uoff[c];
    size_t g0 = p.seg0[c], ns = oc_pp_nsegs(srcn), at0 = g0 * OC_PP_SEG_RECS;
    oc_split_rec *cr = recs + rec_base[c];
    unsigned long long *ck = CLK ? clk + c * OC_BIG_CLK : nullptr; /* zeroed by the caller */
    unsigned long long t_prev = clock64(), t_now;
#define OC_FLOW_TICK(i)                                                                                      \
    do {                                                                                                     \
        if (CLK && tid == 0) {                                                                               \
            t_now = clock64();                                                                               \
            ck[i] += t_now - t_prev;                                                                         \
            t_prev = t_now;                                                                                  \
        }                                                                                                    \
    } while (0)

    /* 1. the parallel parse, A to D (v14's) */
    for (size_t k = tid; k < ns; k += NW * 32) {
        size_t at = (g0 + k) * OC_PP_SEG_RECS;
        oc_pp_pass_a(SNAPPY, src, srcn, cap, k, p.recs + at, p.pos + at, p.cum + at, p.segs + g0 + k);
    }
    __syncthreads();
    OC_FLOW_TICK(0);
    if (tid == 0)
        oc_pp_pass_b(SNAPPY, src, srcn, cap, ns, p.recs + at0, p.pos + at0, p.cum + at0, p.segs + g0,
                     p.chunks + c);
    __syncthreads();
    OC_FLOW_TICK(1);
    for (size_t k = tid; k < ns; k += NW * 32)
        oc_pp_pass_c(SNAPPY, cap, k, p.recs + at0, p.segs + g0 + k, p.chunks + c, cr);
    __syncthreads();
    OC_FLOW_TICK(2);
    if (GRAN)
        for (size_t q = tid; q < (cap + 255) / 256; q += NW * 32)
            s_cnt[q] = 0;
    if (tid == 0) {
        size_t nrec = 0, outn = 0;
        int st = oc_pp_pass_d(SNAPPY, src, srcn, cap, p.chunks + c, cr, &nrec, &outn);
        if (!SNAPPY)
            st = oc_lz4_cpu_verdict(st, src, srcn, 0); /* the library's statuses (800048d) */
        nrecs[c] = st == OC_SPLIT_OK ? (uint32_t)nrec : 0;
        b.dst_sizes[c] = st == OC_SPLIT_OK ? outn : 0;
        b.statuses[c] = st;
        s_n = st == OC_SPLIT_OK ? (uint32_t)nrec : 0;
        s_chain = 0; /* batch 0 starts at 0 */
        s_outn = st == OC_SPLIT_OK ? (uint32_t)outn : 0;
    }
    __syncthreads();
    OC_FLOW_TICK(3);
    const uint32_t n = s_n, nb = (n + 31) / 32, outn = s_outn;

    if (LIT1) {
        /* 2a. v15b: the literals, tile after tile (v14's scan), match positions into lit_src */
        const uint32_t tile = NW * 32 * OC_BIG_R;
        uint32_t base = 0;
        for (uint32_t t0 = 0; t0 < n; t0 += tile) {
            uint32_t lo[OC_BIG_R], ll[OC_BIG_R], ls[OC_BIG_R], sum = 0;
#pragma unroll
            for (int r = 0; r < OC_BIG_R; r++) {
                uint32_t i = t0 + (uint32_t)tid * OC_BIG_R + r;
                oc_split_rec x = {0, 0, 0, 0};
                if (i < n)
                    x = cr[i];
                ls[r] = x.lit_src, ll[r] = x.lit_len;
                lo[r] = sum;
                sum += x.lit_len + x.m_len;
            }
            uint32_t total = 0, mine = base + oc_big_scan<NW>(sum, &total, s_sw);
            base += total;
#pragma unroll
            for (int r = 0; r < OC_BIG_R; r++) {
                lo[r] += mine;
                uint32_t i = t0 + (uint32_t)tid * OC_BIG_R + r;
                bool lng = ll[r] > OC_BIG_SHORT;
                if (!lng) {
                    oc_big_lane_copy(dst, lo[r], src + ls[r], ll[r], 0, true);
                    oc_flow_set_lane(fl, lo[r], ll[r]);
                }
                unsigned m = __ballot_sync(0xffffffffu, lng);
                while (m) {
                    int l = __ffs(m) - 1;
                    m &= m - 1;
                    uint32_t o = __shfl_sync(0xffffffffu, lo[r], l), s = __shfl_sync(0xffffffffu, ls[r], l),
                             n2 = __shfl_sync(0xffffffffu, ll[r], l);
                    oc_big_warp_copy(dst, o, src + s, n2, 0, true, lane);
                    oc_flow_set_warp(fl, o, n2, lane);
                }
                if (i < n)
                    cr[i].lit_src = lo[r] + ll[r]; /* the match's output position */
            }
        }
        __syncthreads(); /* every literal byte, its flag and every position before the matches */
        if (CLK && tid == 0) {
            t_now = clock64();
            ck[4] += t_now - t_prev;
            t_prev = t_now;
        }
        /* 2b. the matches by flags */
        for (uint32_t k = (uint32_t)warp; k < nb; k += NW) {
            uint32_t i = k * 32 + (uint32_t)lane;
            oc_split_rec x = {0, 0, 0, 0};
            if (i < n)
                x = cr[i];
            const uint32_t mp = x.lit_src, from = mp - x.m_off, end = x.m_off < x.m_len ? mp : from + x.m_len;
            const uint32_t rep = x.m_off < x.m_len ? x.m_off : 0;
            bool pend = x.m_len != 0;
            if (CLK && tid == 0)
                ck[7]++;
            while (__any_sync(0xffffffffu, pend)) {
                bool ready = pend && oc_flow_final(fl, from, end);
                if (CLK && tid == 0)
                    ck[6]++;
                __threadfence_block(); /* acquire */
                __syncwarp();
                bool lm = ready && x.m_len > OC_BIG_SHORT;
                if (ready && !lm)
                    oc_big_lane_copy(dst, mp, dst + from, x.m_len, rep, false);
                const unsigned mm = __ballot_sync(0xffffffffu, lm);
                for (unsigned m = mm; m;) {
                    int l = __ffs(m) - 1;
                    m &= m - 1;
                    uint32_t o = __shfl_sync(0xffffffffu, mp, l), fr = __shfl_sync(0xffffffffu, from, l),
                             n2 = __shfl_sync(0xffffffffu, x.m_len, l),
                             off = __shfl_sync(0xffffffffu, x.m_off, l);
                    oc_big_warp_copy(dst, o, dst + fr, n2, off < n2 ? off : 0, false, lane);
                }
                __threadfence_block(); /* release */
                if (ready && !lm)
                    oc_flow_set_lane(fl, mp, x.m_len);
                for (unsigned m = mm; m;) {
                    int l = __ffs(m) - 1;
                    m &= m - 1;
                    oc_flow_set_warp(fl, __shfl_sync(0xffffffffu, mp, l),
                                     __shfl_sync(0xffffffffu, x.m_len, l), lane);
                }
                pend = pend && !ready;
            }
        }
    }

    /* 2. the copy: batches of 32 records, each warp its own in order */
    for (uint32_t k = (uint32_t)warp; !LIT1 && k < nb; k += NW) {
        uint32_t i = k * 32 + (uint32_t)lane;
        oc_split_rec x = {0, 0, 0, 0};
        if (i < n)
            x = cr[i];
        const uint32_t len = x.lit_len + x.m_len;
        uint32_t inc = len;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            uint32_t y = __shfl_up_sync(0xffffffffu, inc, d);
            if (lane >= d)
                inc += y;
        }
        const uint32_t total = __shfl_sync(0xffffffffu, inc, 31);
        uint32_t start = 0;
        if (lane == 0) {
            unsigned long long v; /* atomics: the chain word is shared between warps without a barrier */
            while (((v = atomicAdd(&s_chain, 0ull)) >> 32) != k)
                ;
            start = (uint32_t)v;
            atomicExch(&s_chain, ((unsigned long long)(k + 1) << 32) | (start + total));
        }
        start = __shfl_sync(0xffffffffu, start, 0);
        const uint32_t lo = start + inc - len, mp = lo + x.lit_len;

        /* literals, then their flags */
        bool lng = x.lit_len > OC_BIG_SHORT;
        if (!lng)
            oc_big_lane_copy(dst, lo, src + x.lit_src, x.lit_len, 0, true);
        const unsigned ml = __ballot_sync(0xffffffffu, lng);
        for (unsigned m = ml; m;) {
            int l = __ffs(m) - 1;
            m &= m - 1;
            uint32_t o = __shfl_sync(0xffffffffu, lo, l), s = __shfl_sync(0xffffffffu, x.lit_src, l),
                     n2 = __shfl_sync(0xffffffffu, x.lit_len, l);
            oc_big_warp_copy(dst, o, src + s, n2, 0, true, lane);
        }
        __threadfence_block(); /* release: the bytes before their flags */
        if (!lng) {
            oc_flow_set_lane(fl, lo, x.lit_len);
            if (GRAN)
                oc_flowg_add(s_cnt, lo, x.lit_len);
        }
        for (unsigned m = ml; m;) {
            int l = __ffs(m) - 1;
            m &= m - 1;
            uint32_t o = __shfl_sync(0xffffffffu, lo, l), n2 = __shfl_sync(0xffffffffu, x.lit_len, l);
            oc_flow_set_warp(fl, o, n2, lane);
            if (GRAN) { /* every lane's bytes (fenced above) before lane 0 counts them */
                __syncwarp();
                if (lane == 0) {
                    __threadfence_block();
                    oc_flowg_add(s_cnt, o, n2);
                }
            }
        }

        /* matches, each when its source's flags are set */
        const uint32_t from = mp - x.m_off, end = x.m_off < x.m_len ? mp : from + x.m_len;
        const uint32_t rep = x.m_off < x.m_len ? x.m_off : 0;
        bool pend = x.m_len != 0;
        if (CLK && tid == 0)
            ck[7]++;
        while (__any_sync(0xffffffffu, pend)) {
            bool ready =
                pend && (GRAN ? oc_flowg_final(s_cnt, fl, from, end, outn) : oc_flow_final(fl, from, end));
            if (SLEEP && !__any_sync(0xffffffffu, ready))
                __nanosleep(
                    200); /* v15d: a warp with nothing ready yields its issue slots (the walks of A) */
            if (CLK && tid == 0)
                ck[6]++;
            __threadfence_block(); /* acquire: the flags before the bytes */
            __syncwarp();          /* and for the lanes of a warp copy */
            bool lm = ready && x.m_len > OC_BIG_SHORT;
            if (ready && !lm)
                oc_big_lane_copy(dst, mp, dst + from, x.m_len, rep, false);
            const unsigned mm = __ballot_sync(0xffffffffu, lm);
            for (unsigned m = mm; m;) {
                int l = __ffs(m) - 1;
                m &= m - 1;
                uint32_t o = __shfl_sync(0xffffffffu, mp, l), fr = __shfl_sync(0xffffffffu, from, l),
                         n2 = __shfl_sync(0xffffffffu, x.m_len, l),
                         off = __shfl_sync(0xffffffffu, x.m_off, l);
                oc_big_warp_copy(dst, o, dst + fr, n2, off < n2 ? off : 0, false, lane);
            }
            __threadfence_block(); /* release */
            if (ready && !lm) {
                oc_flow_set_lane(fl, mp, x.m_len);
                if (GRAN)
                    oc_flowg_add(s_cnt, mp, x.m_len);
            }
            for (unsigned m = mm; m;) {
                int l = __ffs(m) - 1;
                m &= m - 1;
                uint32_t o = __shfl_sync(0xffffffffu, mp, l), n2 = __shfl_sync(0xffffffffu, x.m_len, l);
                oc_flow_set_warp(fl, o, n2, lane);
                if (GRAN) {
                    __syncwarp();
                    if (lane == 0) {
                        __threadfence_block();
                        oc_flowg_add(s_cnt, o, n2);
                    }
                }
            }
            pend = pend && !ready;
        }
    }
    if (CLK)
        __syncthreads();
    OC_FLOW_TICK(5);
#undef OC_FLOW_TICK
}

#endif /* OC_DEV_LZ_FLOW_CUH */
