/*
 * lz4_decode_rounds.cuh - LZ4 block decoding by rounds of sequences (decoder
 * v4), the same scheme as snappy_decode_rounds.cuh: every lane parses the
 * sequence that would start at its byte of a 32-byte window, pointer
 * doubling finds the real chain, a prefix sum gives output positions, all
 * checks run at once (the first failing sequence in stream order decides
 * the status, with the serial decoder's order of checks inside a sequence),
 * then the round goes to the pipe's copier warp (lz_decode_pipe.cuh).
 *
 * A lane's parse is speculative and bounded: every byte it reads is checked
 * against the input end first, so lanes that start inside literal data read
 * nothing out of bounds either.  The end-of-block rules (oc_lz4_end_rules)
 * are checked once the last sequence is known.
 */
#ifndef OC_LZ4_DECODE_ROUNDS_CUH
#define OC_LZ4_DECODE_ROUNDS_CUH

#include "../lz_common/lz_decode_pipe.cuh"
#include "../lz_common/lz_device.cuh"

/* The parser warp of the two-warp decoder: each validated round is queued
 * to the copier warp (lz_decode_pipe.cuh), which writes the output.  P: the
 * type of the lengths the warp exchanges (shuffles, prefix sum); uint32_t
 * halves those shuffles and is exact when srcn and cap are below 2^31 (the
 * caller's test, oc_pipe_narrow): see oc_sat.  S: where the rounds go,
 * through an oc_pipe_push overload: the pipe's queue (oc_pipe_prod), or
 * the split decoder's copy warp copying each round itself (oc_lzs_self,
 * lz_common/lz_split_copy.cuh).  (The v4 one-warp decoder with its own
 * copy is kept in bench/gpu/dev/.) */
template <typename P = uint64_t, typename S = oc_pipe_prod>
__device__ __noinline__ int oc_lz4_decode_rounds(const uint8_t *__restrict__ src, size_t srcn, size_t cap,
                                                 size_t *outn, int lane, S *pp)
{
    if (srcn == 0)
        return OC_D_TRUNCATED;
    size_t ip = 0, op = 0, mark = 0;
    uint64_t last_ms = 0, last_me = 0; /* the last match's output start and end */
    int any_match = 0;
    for (;;) {
        oc_prefetch_ahead(src, srcn, ip, &mark, lane);
        /* 1. the sequence that would start at s = ip + lane */
        size_t s = ip + lane;
        int early = OC_D_OK, late = OC_D_OK, has_match = 0;
        uint64_t lit = 0, ml = 0, elen = 1;
        uint32_t lit_at = 1, offset = 0; /* literals start at s + lit_at */
        if (s >= srcn) {
            early = OC_D_TRUNCATED;
        } else {
            uint32_t token = __ldg(src + s);
            size_t q = s + 1;
            lit = token >> 4;
            if (lit == 15) {
                uint32_t b;
                do {
                    if (q >= srcn) {
                        early = OC_D_TRUNCATED;
                        break;
                    }
                    b = __ldg(src + q++);
                    lit += b;
                } while (b == 255);
            }
            lit_at = (uint32_t)(q - s);
            if (early == OC_D_OK && lit > srcn - q)
                early = OC_D_TRUNCATED;
            if (early == OC_D_OK) {
                q += lit;
                if (q < srcn) {
                    has_match = 1;
                    if (srcn - q < 2) {
                        late = OC_D_TRUNCATED;
                    } else {
                        offset = (uint32_t)__ldg(src + q) | ((uint32_t)__ldg(src + q + 1) << 8);
                        q += 2;
                        ml = token & 15;
                        if (ml == 15) {
                            uint32_t b;
                            do {
                                if (q >= srcn) {
                                    late = OC_D_TRUNCATED;
                                    break;
                                }
                                b = __ldg(src + q++);
                                ml += b;
                            } while (b == 255);
                        }
                        ml += 4;
                    }
                }
            }
            elen = q - s;
        }

        /* 2. the chain of real starts (a sequence without a match ends the block) */
        uint32_t nxt = (early == OC_D_OK && late == OC_D_OK && has_match && (uint64_t)lane + elen < 32 &&
                        (uint64_t)s + elen < srcn)
                           ? lane + (uint32_t)elen
                           : 32;
        P lit_x = oc_sat<P>(lit), ml_x = oc_sat<P>(ml), elen_x = oc_sat<P>(elen);
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
        int cnt = __popc(__ballot_sync(OC_FULL_MASK, pos < 32));
        int me = lane < cnt;
        uint32_t p = pos & 31;

        /* 3. sequence `lane`'s fields */
        int e_early = __shfl_sync(OC_FULL_MASK, early, p);
        int e_late = __shfl_sync(OC_FULL_MASK, late, p);
        int e_has = __shfl_sync(OC_FULL_MASK, has_match, p);
        P e_lit = __shfl_sync(OC_FULL_MASK, lit_x, p);
        P e_ml = __shfl_sync(OC_FULL_MASK, ml_x, p);
        P e_elen = __shfl_sync(OC_FULL_MASK, elen_x, p);
        uint32_t e_at = __shfl_sync(OC_FULL_MASK, lit_at, p);
        uint32_t e_off = __shfl_sync(OC_FULL_MASK, offset, p);
        P e_out = me ? (P)(e_lit + (e_has ? e_ml : 0)) : (P)0;

        /* 4. output positions */
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

        /* 5. checks in the serial decoder's order */
        int st = OC_D_OK;
        if (me) {
            uint64_t mo = e_op + e_lit; /* output position of the match */
            if (e_early != OC_D_OK)
                st = e_early;
            else if (e_lit > cap - e_op)
                st = OC_D_OUTPUT_TOO_SMALL;
            else if (!e_has)
                st = OC_D_OK;
            else if (e_late != OC_D_OK)
                st = e_late;
            else if (e_off == 0 || e_off > mo)
                st = OC_D_CORRUPT;
            else if (e_ml > cap - mo)
                st = OC_D_OUTPUT_TOO_SMALL;
            else if ((uint64_t)(ip + p) + e_elen >= srcn)
                st = OC_D_TRUNCATED; /* a block cannot end with a match */
        }
        unsigned fail = __ballot_sync(OC_FULL_MASK, st != OC_D_OK);
        if (fail)
            return __shfl_sync(OC_FULL_MASK, st, __ffs(fail) - 1);

        /* 6. the round goes to the copier warp (or to S's copy) */
        oc_pipe_push(pp, cnt, lane, e_op, ip + p + e_at, e_lit, e_has ? e_ml : 0, e_off);
        /* the last match of the round, for the end-of-block rules */
        unsigned with = __ballot_sync(OC_FULL_MASK, me && e_has);
        if (with) {
            int i = 31 - __clz((int)with);
            uint64_t ms = __shfl_sync(OC_FULL_MASK, e_op + e_lit, i);
            uint64_t ml_i = __shfl_sync(OC_FULL_MASK, (uint64_t)e_ml, i);
            last_ms = ms;
            last_me = ms + ml_i;
            any_match = 1;
        }
        op = (size_t)round_end;
        uint32_t last_p = __shfl_sync(OC_FULL_MASK, p, cnt - 1);
        int last_has = __shfl_sync(OC_FULL_MASK, has_match, last_p);
        P last_len = __shfl_sync(OC_FULL_MASK, elen_x, last_p);
        ip += last_p + last_len;
        if (!last_has)
            break; /* the literals-only sequence ended the block (ip == srcn) */
    }
    int end = oc_lz4_end_rules(src, srcn, op, any_match, last_ms, last_me);
    if (end != OC_D_OK)
        return end;
    *outn = op;
    return OC_D_OK;
}

#endif /* OC_LZ4_DECODE_ROUNDS_CUH */
