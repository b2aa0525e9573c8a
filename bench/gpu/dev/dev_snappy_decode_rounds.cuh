/*
 * dev_snappy_decode_rounds.cuh - bench/gpu/dev's copy of the library's snappy_decode_rounds.cuh as it
 * was when the one-warp rounds decoder left the library: PIPE = false
 * copies each round itself (decoder v4), PIPE = true queues it to the
 * copier warp (the library keeps only that).
 *
 * Original header: Snappy decoding by rounds of up to 32 elements
 * per warp step (decoder v4), instead of one element after another.
 *
 * Why: with few chunks per SM the one-element-at-a-time decoder is bound by
 * the latency of its dependent header loads and copies (~700 cycles per
 * element measured).  Here every lane speculatively decodes an element
 * header starting at its own byte of a 32-byte window; pointer doubling
 * over "next start = start + element length" (shuffles) finds which of
 * those starts are real; a prefix sum gives each element's output
 * position; all checks of the round run in parallel and the first failing
 * element (in stream order) decides the status, as in the serial decoder.
 * Then all literals of the round are copied (independent of each other),
 * and the copies in stream order, with a __syncwarp only before a copy
 * whose source touches bytes written by an earlier copy of the same round.
 *
 * Safety is the serial decoder's: every element is checked against the
 * input end (TRUNCATED), the declared length and the output start
 * (CORRUPT) before any byte of the round is written; the declared length
 * was checked against the capacity (OUTPUT_TOO_SMALL).
 */
#ifndef OC_DEV_SNAPPY_DECODE_ROUNDS_CUH
#define OC_DEV_SNAPPY_DECODE_ROUNDS_CUH

#include "dev_lz_decode_pipe.cuh"
#include "../../../src/cuda/codecs/lz_common/lz_device.cuh"

/* Decodes the elements after the preamble; ulen <= cap already checked.
 * PIPE: queue each validated round to the copier warp (lz_decode_pipe.cuh)
 * instead of copying; dst and ring are then unused.  P: the type of the
 * lengths the warp exchanges; uint32_t when srcn < 2^31 (oc_pipe_narrow;
 * positions are below ulen < 2^32 anyway), see oc_sat. */
template <bool PIPE, typename P = uint64_t>
__device__ __noinline__ int oc_snappy_decode_rounds(const uint8_t *__restrict__ src, size_t srcn, size_t ip,
                                                    uint8_t *dst, uint32_t ulen, uint8_t *ring, int lane,
                                                    oc_pipe_prod *pp)
{
    size_t op = 0, mark = 0;
    while (ip < srcn) {
        oc_prefetch_ahead(src, srcn, ip, &mark, lane);
        /* 1. the element that would start at s = ip + lane */
        size_t s = ip + lane;
        uint32_t tag = s < srcn ? __ldg(src + s) : 0;
        uint32_t kind = tag & 3;
        uint32_t hdr = 1, olen = 0, off = 0;
        int bad = s >= srcn ? OC_D_TRUNCATED : OC_D_OK; /* a start past the end is never on the chain */
        uint64_t lit = 0;
        if (kind == 0) {
            uint32_t l = tag >> 2;
            if (l < 60) {
                lit = l + 1;
            } else {
                uint32_t nb = l - 59;
                hdr = 1 + nb;
                if (srcn - s < hdr) {
                    bad = OC_D_TRUNCATED;
                } else {
                    uint32_t v = 0;
                    for (uint32_t j = 0; j < nb; j++)
                        v |= (uint32_t)__ldg(src + s + 1 + j) << (8 * j);
                    lit = (uint64_t)v + 1;
                }
            }
        } else {
            hdr = kind == 1 ? 2 : kind == 2 ? 3 : 5;
            if (s < srcn && srcn - s < hdr) {
                bad = OC_D_TRUNCATED;
            } else if (s < srcn) {
                if (kind == 1) {
                    olen = ((tag >> 2) & 7) + 4;
                    off = ((tag >> 5) << 8) | __ldg(src + s + 1);
                } else {
                    olen = (tag >> 2) + 1;
                    off = (uint32_t)__ldg(src + s + 1) | ((uint32_t)__ldg(src + s + 2) << 8);
                    if (kind == 3)
                        off |= ((uint32_t)__ldg(src + s + 3) << 16) | ((uint32_t)__ldg(src + s + 4) << 24);
                }
            }
        }
        uint64_t elen = hdr + lit; /* compressed bytes of this element */

        /* 2. which starts are real: chain from lane 0 by pointer doubling */
        /* an element ending at or past the input end is the last of the chain */
        uint32_t nxt = (bad == OC_D_OK && (uint64_t)lane + elen < 32 && (uint64_t)s + elen < srcn)
                           ? lane + (uint32_t)elen
                           : 32;
        P lit_x = oc_sat<P>(lit), elen_x = oc_sat<P>(elen);
        uint32_t pos; /* start (window offset) of element number `lane` of this round */
        if (__shfl_sync(OC_FULL_MASK, nxt, 0) == 32) {
            pos = lane == 0 ? 0 : 32; /* one element fills the window: no chain to find */
        } else {
            uint32_t J[5];
            J[0] = nxt;
#pragma unroll
            for (int k = 1; k < 5; k++) {
                uint32_t t = __shfl_sync(OC_FULL_MASK, J[k - 1], J[k - 1] & 31);
                J[k] = J[k - 1] < 32 ? t : 32;
            }
            pos = 0;
#pragma unroll
            for (int k = 0; k < 5; k++) {
                uint32_t t = __shfl_sync(OC_FULL_MASK, J[k], pos & 31);
                if ((lane >> k) & 1)
                    pos = pos < 32 ? t : 32;
            }
        }
        unsigned on_chain = __ballot_sync(OC_FULL_MASK, pos < 32);
        int cnt = __popc(on_chain); /* elements in this round (a prefix of the lanes) */
        int me = lane < cnt;
        uint32_t p = pos & 31;

        /* 3. element `lane`'s fields, from the lane where it starts */
        uint32_t e_kind = __shfl_sync(OC_FULL_MASK, kind, p);
        uint32_t e_hdr = __shfl_sync(OC_FULL_MASK, hdr, p);
        uint32_t e_olen = __shfl_sync(OC_FULL_MASK, olen, p);
        uint32_t e_off = __shfl_sync(OC_FULL_MASK, off, p);
        P e_lit = __shfl_sync(OC_FULL_MASK, lit_x, p);
        int e_bad = __shfl_sync(OC_FULL_MASK, bad, p);
        P e_out = e_kind == 0 ? e_lit : (P)e_olen;
        if (!me)
            e_out = 0;

        /* 4. output positions: exclusive prefix sum */
        P incl = e_out;
        if (cnt == 1) {
            incl = __shfl_sync(OC_FULL_MASK, e_out, 0);
        } else {
#pragma unroll
            for (int d = 1; d < 32; d <<= 1) {
                P t = __shfl_up_sync(OC_FULL_MASK, incl, d);
                if (lane >= d)
                    incl += t;
            }
        }
        uint64_t e_op = op + (P)(incl - e_out); /* exact up to the first failing element, see oc_sat */
        uint64_t round_end = op + __shfl_sync(OC_FULL_MASK, incl, 31);

        /* 5. checks, all elements at once; the first failure wins */
        int st = OC_D_OK;
        if (me) {
            if (e_bad != OC_D_OK)
                st = e_bad;
            else if (e_kind == 0)
                st = (uint64_t)(ip + p + e_hdr) + e_lit > srcn ? OC_D_TRUNCATED
                     : e_op + e_lit > ulen                     ? OC_D_CORRUPT
                                                               : OC_D_OK;
            else
                st = (e_off == 0 || e_off > e_op || e_op + e_olen > ulen) ? OC_D_CORRUPT : OC_D_OK;
        }
        unsigned fail = __ballot_sync(OC_FULL_MASK, st != OC_D_OK);
        if (fail)
            return __shfl_sync(OC_FULL_MASK, st, __ffs(fail) - 1);

        if (PIPE) {
            int is_lit = e_kind == 0;
            oc_pipe_push(pp, cnt, lane, e_op, ip + p + e_hdr, is_lit ? e_lit : 0, is_lit ? 0 : e_olen, e_off);
            goto next_round;
        }
        {
            /* 6a. literals (they read only the input) */
            unsigned lits = __ballot_sync(OC_FULL_MASK, me && e_kind == 0);
            while (lits) {
                int i = __ffs(lits) - 1;
                lits &= lits - 1;
                uint64_t o = __shfl_sync(OC_FULL_MASK, e_op, i);
                uint64_t n = __shfl_sync(OC_FULL_MASK, e_lit, i);
                uint32_t start = __shfl_sync(OC_FULL_MASK, p + e_hdr, i);
                oc_warp_lit_ring(dst, ring, (size_t)o, src + ip + start, (size_t)n, lane);
            }
            __syncwarp();
            /* 6b. copies, in stream order */
            unsigned copies = __ballot_sync(OC_FULL_MASK, me && e_kind != 0);
            /* earlier copies of this round wrote inside [first_copy, last_copy_end) */
            uint64_t first_copy = ~(uint64_t)0, last_copy_end = 0;
            while (copies) {
                int i = __ffs(copies) - 1;
                copies &= copies - 1;
                uint64_t o = __shfl_sync(OC_FULL_MASK, e_op, i);
                uint32_t n = __shfl_sync(OC_FULL_MASK, e_olen, i);
                uint32_t f = __shfl_sync(OC_FULL_MASK, e_off, i);
                uint64_t s0 = o - f, s1 = s0 + (n < f ? n : f); /* bytes this copy reads */
                if (s1 > first_copy && s0 < last_copy_end)
                    __syncwarp();
                if (first_copy == ~(uint64_t)0)
                    first_copy = o;
                last_copy_end = o + n;
                /* the ring holds the source only if nothing written since aliases it */
                oc_warp_match_ring(dst, ring, (size_t)o, f, n, round_end - s0 <= OC_RING, lane);
            }
            __syncwarp();
        }
    next_round:
        op = (size_t)round_end;
        /* next round starts after the last element of this one */
        uint32_t last_p = __shfl_sync(OC_FULL_MASK, p, cnt - 1);
        P last_len = __shfl_sync(OC_FULL_MASK, elen_x, last_p);
        ip += last_p + last_len;
    }
    return op == ulen ? OC_D_OK : OC_D_TRUNCATED;
}

#endif /* OC_DEV_SNAPPY_DECODE_ROUNDS_CUH */
