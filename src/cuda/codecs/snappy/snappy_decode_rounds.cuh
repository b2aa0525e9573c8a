/*
 * snappy_decode_rounds.cuh - Snappy decoding by rounds of up to 32 elements
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
 * Then the round goes to the pipe's copier warp (lz_decode_pipe.cuh).
 *
 * Safety is the serial decoder's: every element is checked against the
 * input end (TRUNCATED), the declared length and the output start
 * (CORRUPT) before any byte of the round is written; the declared length
 * was checked against the capacity (OUTPUT_TOO_SMALL).  The checks run in
 * the CPU scanner's order (src/cpu/codecs/snappy/snappy_scan.c): a
 * literal past the declared length is CORRUPT before it is TRUNCATED.
 */
#ifndef OC_SNAPPY_DECODE_ROUNDS_CUH
#define OC_SNAPPY_DECODE_ROUNDS_CUH

#include "../lz_common/lz_decode_pipe.cuh"
#include "../lz_common/lz_device.cuh"

/* A sink that copies nothing (the rounds parser's push, as
 * lz_decode_pipe.cuh's for the pipe's queue): the walk of a stream whose
 * declared length exceeds the capacity, which must still pass whole before
 * it is called OUTPUT_TOO_SMALL (the CPU scanner's verdict first). */
struct oc_pipe_null {
    int unused;
};
__device__ __forceinline__ void oc_pipe_push(oc_pipe_null *s, int cnt, int lane, uint64_t lit_out,
                                             uint64_t lit_src, uint64_t lit_len, uint64_t m_len,
                                             uint32_t m_off)
{
    (void)s, (void)cnt, (void)lane, (void)lit_out, (void)lit_src, (void)lit_len, (void)m_len, (void)m_off;
}

/* The parser warp of the two-warp decoder: decodes the elements after the
 * preamble (ulen <= cap already checked, or nothing is copied) and queues
 * each validated round to the copier warp (lz_decode_pipe.cuh), or to
 * another sink S with an oc_pipe_push (the split decoder's self-decode,
 * lz_split_copy.cuh's oc_lzs_self; oc_pipe_null).  P: the type of the lengths the
 * warp exchanges; uint32_t when srcn < 2^31 (oc_pipe_narrow; positions are
 * below ulen < 2^32 anyway), see oc_sat.  (The one-warp decoder that copies
 * each round itself is kept in bench/gpu/dev/.) */
template <typename P = uint64_t, typename S = oc_pipe_prod>
__device__ __noinline__ int oc_snappy_decode_rounds(const uint8_t *__restrict__ src, size_t srcn, size_t ip,
                                                    uint32_t ulen, int lane, S *pp)
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
                    if (v == 0xffffffffu) /* 2^32 bytes: past any declared length, in every P */
                        bad = OC_D_CORRUPT;
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
            else if (e_kind == 0) /* the CPU scanner's order: past the declared length first */
                st = e_op + e_lit > ulen                         ? OC_D_CORRUPT
                     : (uint64_t)(ip + p + e_hdr) + e_lit > srcn ? OC_D_TRUNCATED
                                                                 : OC_D_OK;
            else
                st = (e_off == 0 || e_off > e_op || e_op + e_olen > ulen) ? OC_D_CORRUPT : OC_D_OK;
        }
        unsigned fail = __ballot_sync(OC_FULL_MASK, st != OC_D_OK);
        if (fail)
            return __shfl_sync(OC_FULL_MASK, st, __ffs(fail) - 1);

        /* 6. the round goes to the copier warp */
        int is_lit = e_kind == 0;
        oc_pipe_push(pp, cnt, lane, e_op, ip + p + e_hdr, is_lit ? e_lit : 0, is_lit ? 0 : e_olen, e_off);
        op = (size_t)round_end;
        /* next round starts after the last element of this one */
        uint32_t last_p = __shfl_sync(OC_FULL_MASK, p, cnt - 1);
        P last_len = __shfl_sync(OC_FULL_MASK, elen_x, last_p);
        ip += last_p + last_len;
    }
    return op == ulen ? OC_D_OK : OC_D_TRUNCATED;
}

#endif /* OC_SNAPPY_DECODE_ROUNDS_CUH */
