/*
 * lz_split_copy.cuh - the copy half of the split LZ decoder: a warp per
 * chunk executes the records the parse half stored (lz_split_rec.h;
 * literal, then match), 32 records per step: one coalesced 16-byte load per
 * lane and one prefix sum give the step's output positions, then one of two
 * ways copies the step: a byte per lane (a match byte follows its source
 * back through the step's records to a literal byte or a byte written
 * before; short elements), or the literals and the matches whose source
 * lies before the step all at once, a lane per short element and the warp
 * together for long ones, then the matches that read the step's own bytes
 * in stream order.  Matches read their source from the output (no history
 * ring: bench/NOTES.md "v7", where that was the fastest of three rings).
 *
 * Why: no parser warp and no barrier per round as in the pipe decoder
 * (lz_decode_pipe.cuh), 32-bit positions, and the whole warp copying.
 *
 * The copy runs while the parse still runs (bench/NOTES.md "v9"): it
 * copies a chunk's records as the parse publishes their count in the
 * chunk's state word (oc_lzs_copy_published), and a copy warp that finds
 * a chunk no parse lane has claimed decodes it alone, running the rounds
 * parser with this copy as its sink (oc_lzs_self), so no copy warp ever
 * waits for a parse that has not started.
 *
 * Safety: the parse stored only records that passed every check, and a
 * chunk whose parse failed copies nothing (nrec 0), so the copies are
 * exactly the ranges the pipe decoder would copy.  The experiment this came
 * from (bench/gpu/dev/dev_lz_split_copy.cuh, with its ring variants) ran on
 * a 32-thread emulator against liblz4 and snappy, byte for byte.
 */
#ifndef OC_LZ_SPLIT_COPY_CUH
#define OC_LZ_SPLIT_COPY_CUH

#include "lz_device.cuh"
#include "lz_split_rec.h"

/* One step's records in shared memory (per warp). */
struct oc_lzs_slot {
    uint32_t lit_out[32], lit_src[32], lit_len[32], m_len[32], m_off[32];
};

/* A long copy by the whole warp from a source that does not overlap its
 * destination (a literal from the input, or a match with offset >= length
 * read from the output): eight independent loads in flight per lane, then
 * the stores. */
__device__ __forceinline__ void oc_lzs_warp_copy(uint8_t *dst, uint32_t op, const uint8_t *from, uint32_t len,
                                                 int lane)
{
    uint32_t j = lane;
    for (; j + 224 < len; j += 256) {
        uint8_t v[8];
#pragma unroll
        for (int u = 0; u < 8; u++)
            v[u] = from[j + 32 * u];
#pragma unroll
        for (int u = 0; u < 8; u++)
            dst[op + j + 32 * u] = v[u];
    }
    for (; j < len; j += 32)
        dst[op + j] = from[j];
}

/* A step whose literals and independent matches go at once (a lane each
 * when short, the warp together when long), then the matches that read
 * this step's bytes in stream order. */
__device__ __forceinline__ void oc_lzs_copy_parallel(const oc_lzs_slot *q, int cnt, uint32_t round_start,
                                                     const uint8_t *__restrict__ src, uint8_t *dst, int lane)
{
    int me = lane < cnt;
    uint32_t lo = 0, ll = 0, ls = 0, ml = 0, mo = 1;
    if (me) {
        lo = q->lit_out[lane];
        ll = q->lit_len[lane];
        ls = q->lit_src[lane];
        ml = q->m_len[lane];
        mo = q->m_off[lane];
    }
    uint32_t pos = lo + ll;
    uint32_t s0 = pos - mo; /* mo <= pos: checked by the parse */
    uint32_t s1 = s0 + (ml < mo ? ml : mo);
    int has_m = me && ml != 0;
    int dep = has_m && s1 > round_start;
    if (me && ll != 0 && ll <= 32)
        for (uint32_t j = 0; j < ll; j++)
            dst[lo + j] = __ldg(src + ls + j);
    if (has_m && !dep && ml <= 32) {
        uint32_t r = 0;
        for (uint32_t j = 0; j < ml; j++) {
            dst[pos + j] = dst[s0 + r];
            if (++r == mo)
                r = 0;
        }
    }
    unsigned big = __ballot_sync(OC_FULL_MASK, me && ll > 32);
    while (big) {
        int i = __ffs(big) - 1;
        big &= big - 1;
        uint32_t o = __shfl_sync(OC_FULL_MASK, lo, i), n = __shfl_sync(OC_FULL_MASK, ll, i);
        uint32_t from = __shfl_sync(OC_FULL_MASK, ls, i);
        oc_lzs_warp_copy(dst, o, src + from, n, lane);
    }
    /* long matches, independent ones first, then the dependent ones in order */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            __syncwarp();
        unsigned set = pass == 0 ? __ballot_sync(OC_FULL_MASK, has_m && !dep && ml > 32)
                                 : __ballot_sync(OC_FULL_MASK, dep);
        while (set) {
            int i = __ffs(set) - 1;
            set &= set - 1;
            uint32_t o = __shfl_sync(OC_FULL_MASK, pos, i), n = __shfl_sync(OC_FULL_MASK, ml, i);
            uint32_t f = __shfl_sync(OC_FULL_MASK, mo, i);
            uint32_t from = o - f, r = (uint32_t)lane % f, step = 32 % f;
            if (f >= n) {
                oc_lzs_warp_copy(dst, o, dst + from, n, lane);
                if (pass == 1)
                    __syncwarp();
                continue;
            }
            for (uint32_t j = lane; j < n; j += 32) { /* byte j repeats byte j % f */
                dst[o + j] = dst[from + r];
                r += step;
                if (r >= f)
                    r -= f;
            }
            if (pass == 1)
                __syncwarp();
        }
    }
}

/* A step of short elements (span <= OC_LZS_BYTES_MAX): a byte per lane, 32
 * output bytes per sub-step; a match byte follows its source back through
 * this step's records until it reaches a literal byte or a byte written
 * before the sub-step. */
#define OC_LZS_BYTES_MAX 1024u
__device__ __forceinline__ void oc_lzs_copy_bytes(const oc_lzs_slot *q, int cnt, uint32_t round_start,
                                                  uint32_t round_end, const uint8_t *__restrict__ src,
                                                  uint8_t *dst, int lane)
{
    int me = lane < cnt;
    uint32_t S = 0xffffffffu, L = 0, O = 1, LS = 0;
    if (me) {
        S = q->lit_out[lane] - round_start;
        L = q->lit_len[lane];
        O = q->m_off[lane];
        LS = q->lit_src[lane];
    }
    uint32_t span = round_end - round_start;
    uint32_t below = 0;
    for (uint32_t base = 0; base < span; base += 32) {
        uint32_t bit = me && S >= base && S - base < 32 ? 1u << (S - base) : 0u;
        uint32_t starts = __reduce_or_sync(OC_FULL_MASK, bit);
        int e = (int)(below + __popc(starts & (0xffffffffu >> (31 - lane)))) - 1;
        below += __popc(starts);
        int src_lane = e < 0 ? 0 : e & 31;
        uint32_t eS = __shfl_sync(OC_FULL_MASK, S, src_lane);
        uint32_t eL = __shfl_sync(OC_FULL_MASK, L, src_lane);
        uint32_t eO = __shfl_sync(OC_FULL_MASK, O, src_lane);
        uint32_t eLS = __shfl_sync(OC_FULL_MASK, LS, src_lane);
        uint32_t t = base + (uint32_t)lane;
        if (t < span) {
            uint32_t d = t - eS;
            uint8_t v;
            if (d < eL) {
                v = __ldg(src + eLS + d);
            } else {
                uint32_t k = d - eL;
                uint32_t u = round_start + eS + eL - eO + (k < eO ? k : k % eO);
                int ee = e;
                for (;;) {
                    if (u < round_start + base) { /* written before this sub-step */
                        v = dst[u];
                        break;
                    }
                    while (q->lit_out[ee] > u)
                        ee--;
                    uint32_t s = q->lit_out[ee], l = q->lit_len[ee];
                    uint32_t dd = u - s;
                    if (dd < l) {
                        v = __ldg(src + q->lit_src[ee] + dd);
                        break;
                    }
                    uint32_t o = q->m_off[ee], kk = dd - l;
                    u = s + l - o + (kk < o ? kk : kk % o);
                }
            }
            dst[round_start + t] = v;
        }
        __syncwarp();
    }
}

/* One group of up to 32 records (lane < cnt holds record `lane`: literal
 * ll bytes from input offset ls, match ml bytes at distance mo) whose output
 * starts at op; returns where it ends.  All 32 lanes call it; q is the
 * warp's slot. */
__device__ __forceinline__ uint32_t oc_lzs_copy_group(uint32_t op, int cnt, uint32_t ls, uint32_t ll,
                                                      uint32_t mo, uint32_t ml,
                                                      const uint8_t *__restrict__ src, uint8_t *dst,
                                                      oc_lzs_slot *q, int lane)
{
    if (lane >= cnt)
        ls = 0, ll = 0, mo = 1, ml = 0;
    uint32_t out = ll + ml, incl = out;
    for (int d = 1; d < 32; d <<= 1) {
        uint32_t t = __shfl_up_sync(OC_FULL_MASK, incl, d);
        if (lane >= d)
            incl += t;
    }
    uint32_t total = __shfl_sync(OC_FULL_MASK, incl, 31);
    if (lane < cnt) {
        q->lit_out[lane] = op + incl - out;
        q->lit_src[lane] = ls;
        q->lit_len[lane] = ll;
        q->m_len[lane] = ml;
        q->m_off[lane] = mo ? mo : 1;
    }
    __syncwarp();
    uint32_t start = op, end = op + total;
    if (total <= OC_LZS_BYTES_MAX && total <= 48u * (uint32_t)cnt)
        oc_lzs_copy_bytes(q, cnt, start, end, src, dst, lane);
    else
        oc_lzs_copy_parallel(q, cnt, start, src, dst, lane);
    __syncwarp();
    return end;
}

/* Records [g0, g1) of one chunk in stream order (op: the output bytes
 * before record g0), into dst; returns the output end.  Record i is at
 * recs[i] below na and at recs[i + shift] from na on (a chunk walked by
 * two lanes, bench/gpu/dev/dev_lz_pair.cuh's oc_lzs_parse_pair; na 0xffffffff: one
 * run).  The records are read through L2 (__ldcg): the parse that writes
 * them may run at the same time on another SM (lz4_kernels.cu), whose
 * lines this SM's L1 must not serve stale.  All 32 lanes call it; q is
 * the warp's slot. */
__device__ __forceinline__ uint32_t oc_lzs_copy_range(const oc_lzs_rec *recs, uint32_t g0, uint32_t g1,
                                                      uint32_t op, uint32_t na, uint32_t shift,
                                                      const uint8_t *__restrict__ src, uint8_t *dst,
                                                      oc_lzs_slot *q, int lane)
{
    for (uint32_t g = g0; g < g1; g += 32) {
        int cnt = g1 - g < 32 ? (int)(g1 - g) : 32;
        uint32_t ls = 0, ll = 0, mo = 1, ml = 0;
        if (lane < cnt) {
            uint32_t i = g + (uint32_t)lane;
            uint4 r = __ldcg((const uint4 *)(recs + (i < na ? i : i + shift)));
            ls = r.x, ll = r.y, mo = r.z, ml = r.w;
        }
        op = oc_lzs_copy_group(op, cnt, ls, ll, mo, ml, src, dst, q, lane);
    }
    return op;
}

/* The sink that lets a warp run a rounds parser (lz4/lz4_decode_rounds.cuh,
 * written for the pipe's queue) and copy each validated round itself with
 * the copy above: the split decoder's copy warp decoding a whole chunk
 * alone (lz4_kernels.cu, "self-decode").  Positions are 32-bit: the split
 * path takes chunks of at most OC_LZS_MAX_CAP output bytes and inputs
 * below 2^31. */
struct oc_lzs_self {
    oc_lzs_slot *q;
    const uint8_t *src;
    uint8_t *dst;
    uint32_t op; /* output bytes copied so far */
};

/* The rounds parser's push (the overload of lz_decode_pipe.cuh's for the
 * pipe's queue): one validated round, lane < cnt holding element `lane`
 * (its lit_out is the running sum the copy recomputes). */
__device__ __forceinline__ void oc_pipe_push(oc_lzs_self *s, int cnt, int lane, uint64_t lit_out,
                                             uint64_t lit_src, uint64_t lit_len, uint64_t m_len,
                                             uint32_t m_off)
{
    (void)lit_out;
    s->op = oc_lzs_copy_group(s->op, cnt, (uint32_t)lit_src, (uint32_t)lit_len, m_off, (uint32_t)m_len,
                              s->src, s->dst, s->q, lane);
}

/* The copy of a chunk that a parse lane claimed and may still be parsing
 * (state: its state word, lz_split_rec.h): the records are copied as
 * their count is published, 32 at a time until the parse says DONE, then
 * the rest; in between the warp polls the word through L2 (volatile) with
 * __nanosleep.  The lane that claimed the chunk is resident and waits for
 * nothing, so the count always reaches DONE.  Every lane reads the word
 * and the warp goes by the smallest value seen (counts only grow), so each
 * lane has itself read a count at least as high as the records it reads
 * after its __threadfence.  A chunk whose parse failed ends with count 0:
 * what was copied stays (as the pipe decoder leaves the rounds before a
 * failure), nothing more is copied.  seg (a chunk walked by two lanes;
 * NULL for one): where the records of the second lane start, read once
 * the count is final (the parse writes it before).  Returns 1 when the
 * parse gave the chunk back (REDO: the caller decodes it alone), else 0. */
__device__ __forceinline__ int oc_lzs_copy_published(const uint32_t *state, const uint2 *seg,
                                                     const oc_lzs_rec *recs, const uint8_t *__restrict__ src,
                                                     uint8_t *dst, oc_lzs_slot *q, int lane)
{
    const volatile uint32_t *pub = state;
    uint32_t done = 0, op = 0, na = 0xffffffffu, shift = 0;
    for (;;) {
        uint32_t p = __reduce_min_sync(OC_FULL_MASK, *pub);
        uint32_t avail = p & OC_LZS_COUNT_MASK;
        int ended = (p & OC_LZS_DONE) != 0;
        uint32_t upto = avail <= done ? done : ended ? avail : done + (avail - done) / 32 * 32;
        if (upto > done) {
            __threadfence(); /* the count before the records */
            if (ended && seg) {
                uint2 sg = __ldcg(seg);
                na = sg.x, shift = sg.y;
            }
            op = oc_lzs_copy_range(recs, done, upto, op, na, shift, src, dst, q, lane);
            done = upto;
            continue;
        }
        if (ended)
            return (p & OC_LZS_REDO_BIT) != 0;
        __nanosleep(256);
    }
}

#endif /* OC_LZ_SPLIT_COPY_CUH */
