/*
 * dev_lz_split_copy.cuh - the second half of the split decoder (v7, an
 * experiment, bench/NOTES.md "v7"): a warp per chunk executes the records
 * that dev_lz_split_parse.h wrote (literal, then match), 32 records per
 * step, with the library copier's three ways of copying a step
 * (src/cuda/codecs/lz_common/lz_decode_pipe.cuh: bytes per lane, v6d;
 * all at once then dependent matches in order, v6c; element after element)
 * rewritten with 32-bit positions (chunks and capacities below 2^32).
 *
 * Why: no parser warp, no named barrier per round, no 64-bit index math;
 * the records come with one coalesced 16-byte load per lane and one prefix
 * sum, and the history ring (R bytes of shared memory per warp; R = 0: none,
 * matches read the output) is a template parameter, so its price in
 * occupancy can be measured.  Also compiled on the host by
 * lz_split_cpu_check.c's warp emulator (OC_SPLIT_EMU), which runs 32 lanes
 * as threads and checks every byte against liblz4 and snappy.
 *
 * Safety: the parse half stored only records that passed every check, and
 * a chunk whose parse failed copies nothing, so the copies are exactly the
 * ranges the library decoder would copy.
 */
#ifndef OC_DEV_LZ_SPLIT_COPY_CUH
#define OC_DEV_LZ_SPLIT_COPY_CUH

#include "dev_lz_split_parse.h"

#ifndef OC_SPLIT_EMU
#define OC_SPLIT_DEV __device__ __forceinline__
#define OC_SPLIT_FULL 0xffffffffu
#endif

/* One step's records in shared memory (per warp). */
struct oc_split_slot {
    uint32_t lit_out[32], lit_src[32], lit_len[32], m_len[32], m_off[32];
};

/* A long copy by the whole warp from a source that does not overlap its
 * destination (a literal from the input, or a match with offset >= length
 * read from the output): eight independent loads in flight per lane, then
 * the stores (the library's oc_warp_lit_ring does the same). */
template <uint32_t R>
OC_SPLIT_DEV void oc_split_warp_copy(uint8_t *dst, uint32_t op, const uint8_t *from, uint32_t len,
                                     uint8_t *ring, int lane)
{
    uint32_t j = lane;
    for (; j + 224 < len; j += 256) {
        uint8_t v[8];
#pragma unroll
        for (int u = 0; u < 8; u++)
            v[u] = from[j + 32 * u];
#pragma unroll
        for (int u = 0; u < 8; u++) {
            dst[op + j + 32 * u] = v[u];
            if (R)
                ring[(op + j + 32 * u) & (R - 1)] = v[u];
        }
    }
    for (; j < len; j += 32) {
        uint8_t v = from[j];
        dst[op + j] = v;
        if (R)
            ring[(op + j) & (R - 1)] = v;
    }
}

/* Element after element, the warp sharing each copy (any step). */
template <uint32_t R>
OC_SPLIT_DEV void oc_split_copy_serial(const oc_split_slot *q, int cnt, const uint8_t *__restrict__ src,
                                       uint8_t *dst, uint8_t *ring, int lane)
{
    for (int i = 0; i < cnt; i++) {
        uint32_t lo = q->lit_out[i], ll = q->lit_len[i], ls = q->lit_src[i], ml = q->m_len[i],
                 mo = q->m_off[i];
        oc_split_warp_copy<R>(dst, lo, src + ls, ll, ring, lane);
        __syncwarp();
        if (ml) {
            uint32_t op = lo + ll, from = op - mo;
            /* in stream order the ring holds the last R bytes */
            int use_ring = R && (uint64_t)mo + ml <= R;
            if (!use_ring && mo >= ml) {
                oc_split_warp_copy<R>(dst, op, dst + from, ml, ring, lane);
                __syncwarp();
                continue;
            }
            uint32_t r = (uint32_t)lane % mo, step = 32 % mo;
            for (uint32_t j = lane; j < ml; j += 32) {
                uint32_t at = mo >= ml ? j : r; /* byte j repeats byte j % mo */
                uint8_t v = use_ring ? ring[(from + at) & (R - 1)] : dst[from + at];
                dst[op + j] = v;
                if (R)
                    ring[(op + j) & (R - 1)] = v;
                r += step;
                if (r >= mo)
                    r -= mo;
            }
            __syncwarp();
        }
    }
}

/* v6c's way for a step whose output spans at most R bytes (any span when
 * R = 0): literals and matches whose source lies wholly before the step at
 * once (a lane each when short, the warp together when long), then the
 * matches that read this step's bytes in stream order. */
template <uint32_t R>
OC_SPLIT_DEV void oc_split_copy_parallel(const oc_split_slot *q, int cnt, uint32_t round_start,
                                         uint32_t round_end, const uint8_t *__restrict__ src, uint8_t *dst,
                                         uint8_t *ring, int lane)
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
    int ring_ok = R && has_m && round_end - s0 <= R;
    if (me && ll != 0 && ll <= 32) {
        for (uint32_t j = 0; j < ll; j++) {
            uint8_t v = __ldg(src + ls + j);
            dst[lo + j] = v;
            if (R)
                ring[(lo + j) & (R - 1)] = v;
        }
    }
    if (has_m && !dep && ml <= 32) {
        uint32_t r = 0;
        for (uint32_t j = 0; j < ml; j++) {
            uint8_t v = ring_ok ? ring[(s0 + r) & (R - 1)] : dst[s0 + r];
            dst[pos + j] = v;
            if (R)
                ring[(pos + j) & (R - 1)] = v;
            if (++r == mo)
                r = 0;
        }
    }
    unsigned big = __ballot_sync(OC_SPLIT_FULL, me && ll > 32);
    while (big) {
        int i = __ffs(big) - 1;
        big &= big - 1;
        uint32_t o = __shfl_sync(OC_SPLIT_FULL, lo, i), n = __shfl_sync(OC_SPLIT_FULL, ll, i);
        uint32_t from = __shfl_sync(OC_SPLIT_FULL, ls, i);
        oc_split_warp_copy<R>(dst, o, src + from, n, ring, lane);
    }
    /* long matches, independent ones first, then the dependent ones in order */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            __syncwarp();
        unsigned set = pass == 0 ? __ballot_sync(OC_SPLIT_FULL, has_m && !dep && ml > 32)
                                 : __ballot_sync(OC_SPLIT_FULL, dep);
        while (set) {
            int i = __ffs(set) - 1;
            set &= set - 1;
            uint32_t o = __shfl_sync(OC_SPLIT_FULL, pos, i), n = __shfl_sync(OC_SPLIT_FULL, ml, i);
            uint32_t f = __shfl_sync(OC_SPLIT_FULL, mo, i);
            int ro = __shfl_sync(OC_SPLIT_FULL, ring_ok, i);
            uint32_t from = o - f, r = (uint32_t)lane % f, step = 32 % f;
            if (!ro && f >= n) {
                oc_split_warp_copy<R>(dst, o, dst + from, n, ring, lane);
                if (pass == 1)
                    __syncwarp();
                continue;
            }
            for (uint32_t j = lane; j < n; j += 32) {
                uint32_t at = f >= n ? j : r;
                uint8_t v = ro ? ring[(from + at) & (R - 1)] : dst[from + at];
                dst[o + j] = v;
                if (R)
                    ring[(o + j) & (R - 1)] = v;
                r += step;
                if (r >= f)
                    r -= f;
            }
            if (pass == 1)
                __syncwarp();
        }
    }
}

/* v6d's way for a step of short elements (span <= OC_SPLIT_BYTES_MAX <= R
 * or R = 0): a byte per lane, 32 output bytes per sub-step; a match byte
 * follows its source back through this step's records until it reaches a
 * literal byte or a byte written before the sub-step. */
#define OC_SPLIT_BYTES_MAX 1024u
template <uint32_t R>
OC_SPLIT_DEV void oc_split_copy_bytes(const oc_split_slot *q, int cnt, uint32_t round_start,
                                      uint32_t round_end, const uint8_t *__restrict__ src, uint8_t *dst,
                                      uint8_t *ring, int lane)
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
        uint32_t starts = __reduce_or_sync(OC_SPLIT_FULL, bit);
        int e = (int)(below + __popc(starts & (0xffffffffu >> (31 - lane)))) - 1;
        below += __popc(starts);
        int src_lane = e < 0 ? 0 : e & 31;
        uint32_t eS = __shfl_sync(OC_SPLIT_FULL, S, src_lane);
        uint32_t eL = __shfl_sync(OC_SPLIT_FULL, L, src_lane);
        uint32_t eO = __shfl_sync(OC_SPLIT_FULL, O, src_lane);
        uint32_t eLS = __shfl_sync(OC_SPLIT_FULL, LS, src_lane);
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
                        v = R && round_end - u <= R ? ring[u & (R - 1)] : dst[u];
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
            if (R)
                ring[(round_start + t) & (R - 1)] = v;
        }
        __syncwarp();
    }
}

/* The copy half for one chunk: recs[0 .. nrec) in stream order. */
template <uint32_t R>
OC_SPLIT_DEV void oc_split_copy_chunk(const oc_split_rec *recs, uint32_t nrec,
                                      const uint8_t *__restrict__ src, uint8_t *dst, oc_split_slot *q,
                                      uint8_t *ring, int lane)
{
    uint32_t op = 0;
    for (uint32_t g = 0; g < nrec; g += 32) {
        int cnt = nrec - g < 32 ? (int)(nrec - g) : 32;
        uint32_t ls = 0, ll = 0, mo = 1, ml = 0;
        if (lane < cnt) {
#ifdef OC_SPLIT_EMU
            oc_split_rec r = recs[g + lane];
            ls = r.lit_src, ll = r.lit_len, mo = r.m_off, ml = r.m_len;
#else
            uint4 r = __ldg((const uint4 *)(recs + g + lane));
            ls = r.x, ll = r.y, mo = r.z, ml = r.w;
#endif
        }
        uint32_t out = ll + ml, incl = out;
        for (int d = 1; d < 32; d <<= 1) {
            uint32_t t = __shfl_up_sync(OC_SPLIT_FULL, incl, d);
            if (lane >= d)
                incl += t;
        }
        uint32_t total = __shfl_sync(OC_SPLIT_FULL, incl, 31);
        if (lane < cnt) {
            q->lit_out[lane] = op + incl - out;
            q->lit_src[lane] = ls;
            q->lit_len[lane] = ll;
            q->m_len[lane] = ml;
            q->m_off[lane] = mo ? mo : 1;
        }
        __syncwarp();
        uint32_t start = op, end = op + total;
        if (total <= OC_SPLIT_BYTES_MAX && total <= 48u * (uint32_t)cnt)
            oc_split_copy_bytes<R>(q, cnt, start, end, src, dst, ring, lane);
        else if (R == 0 || total <= R)
            oc_split_copy_parallel<R>(q, cnt, start, end, src, dst, ring, lane);
        else
            oc_split_copy_serial<R>(q, cnt, src, dst, ring, lane);
        __syncwarp();
        op = end;
    }
}

#endif /* OC_DEV_LZ_SPLIT_COPY_CUH */
