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

/* The copy half for one chunk: recs[0 .. nrec) in stream order, into dst.
 * All 32 lanes call it; q is the warp's slot. */
__device__ __forceinline__ void oc_lzs_copy_chunk(const oc_lzs_rec *recs, uint32_t nrec,
                                                  const uint8_t *__restrict__ src, uint8_t *dst,
                                                  oc_lzs_slot *q, int lane)
{
    uint32_t op = 0;
    for (uint32_t g = 0; g < nrec; g += 32) {
        int cnt = nrec - g < 32 ? (int)(nrec - g) : 32;
        uint32_t ls = 0, ll = 0, mo = 1, ml = 0;
        if (lane < cnt) {
            uint4 r = __ldg((const uint4 *)(recs + g + lane));
            ls = r.x, ll = r.y, mo = r.z, ml = r.w;
        }
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
        op = end;
    }
}

#endif /* OC_LZ_SPLIT_COPY_CUH */
