/*
 * dev_lz_decode_pipe.cuh - bench/gpu/dev's copy of the library's
 * lz_decode_pipe.cuh (src/cuda/codecs/lz_common/) as it was when the
 * variants left the library: the copier keeps the `bytes` switch between
 * v6d (1, what the library runs) and v6c (0: no byte-per-lane rounds).
 *
 * Original header:  the two-warp pipelined decoder (v6) shared by LZ4 and
 * Snappy: per chunk, a parser warp runs the rounds parse (the v4 decoders'
 * steps 1-5: speculative headers, chain, prefix sum, every check) and queues
 * each round's validated records in shared memory; a copier warp of the same
 * block executes them in stream order (literal, then match).
 *
 * Why: with ~4 chunks per SM at 64 KiB, one warp per chunk exposes every
 * latency of the parse (shuffle chains) and of the copies (global and ring
 * loads) one after the other; here they overlap, and the copier reads its
 * records with broadcast shared loads instead of shuffles.
 *
 * Hand-off: two slots (double buffering) and one named barrier (id 1, the
 * block's 64 threads) that both warps pass once per round, with bar.sync
 * on both sides: at its i-th instance the parser has written round i and
 * the copier has finished round i - 1, so the parser then fills the slot
 * the copier just left while the copier runs round i.  Parsing round i + 1
 * thus overlaps copying round i.  A slot with cnt == 0 ends the chunk (both
 * warps have then passed the barrier equally often).  v6a (measured on the
 * H200, bench/NOTES.md) used a 6-deep queue with bar.arrive/bar.sync
 * pairs; racecheck reported hazards on it, so this version (v6b, not yet
 * measured) uses only bar.sync on both sides, the plain barrier pattern.
 *
 * Reviewed for races (round 3, by reading): the parser writes slot r % 2
 * only before its r-th barrier and the copier reads it only between its
 * r-th and (r+1)-th, so slot r % 2 is written again (round r + 2) only
 * after the copier's (r+1)-th barrier; cnt is written by lane 0 before the
 * barrier and read by the copier after it.  Every exit of the parse (any
 * status, invalid arguments) goes through oc_pipe_finish, so both warps
 * pass the barrier equally often, and a block decodes one chunk, so slots
 * are never reused across chunks.  The parser touches neither the ring nor
 * the output.  Inside the copier, each phase below reads only bytes that
 * are written before the phase (and synchronised by __syncwarp) and writes
 * distinct ring slots.  No hazard found; v6a's racecheck failure (a 6-deep
 * queue with bar.arrive) stays unattributed.
 *
 * Copies: rounds of short elements (v6d, oc_pipe_copy_bytes) a byte per
 * lane with no ordering inside the round; other rounds whose output fits
 * the ring copy their literals and the matches that read only earlier
 * rounds all at once, a lane per short element, then the matches that read
 * this round in stream order (v6c, oc_pipe_copy_parallel); the rest
 * element after element.
 *
 * Parsers (v6e): 32-bit lengths in the warp exchanges for chunks and
 * capacities below 2 GiB (oc_sat, oc_pipe_narrow), 64-bit otherwise.
 *
 * Safety: the parser queues only rounds whose every element passed the
 * checks, so the copier copies exactly the ranges the v4 decoders would.
 */
#ifndef OC_DEV_LZ_DECODE_PIPE_CUH
#define OC_DEV_LZ_DECODE_PIPE_CUH

#include "../../../src/cuda/codecs/lz_common/lz_device.cuh"

#define OC_PIPE_DEPTH 2

/* One round's records per slot; element i = literal (lit_len bytes from
 * input offset lit_src to output lit_out) then match (m_len bytes at
 * offset m_off, written at lit_out + lit_len). */
struct oc_pipe_q {
    uint64_t lit_out[OC_PIPE_DEPTH][32];
    uint64_t lit_src[OC_PIPE_DEPTH][32];
    uint64_t lit_len[OC_PIPE_DEPTH][32];
    uint64_t m_len[OC_PIPE_DEPTH][32];
    uint32_t m_off[OC_PIPE_DEPTH][32];
    uint32_t cnt[OC_PIPE_DEPTH];
};

/* Narrow (32-bit) lengths in the parser's exchanges (v6e): the shuffles
 * and the prefix sum of a round carry P-typed lengths.  Each lane parses
 * in 64 bits and saturates to P; with srcn and cap below 2^31 (the kernel
 * tests oc_pipe_narrow), every element up to and including the first one
 * that fails a check carries its exact value or a saturated one that fails
 * that element's own check just as the exact value would (a saturated
 * length exceeds srcn or cap), the exclusive prefix of those elements is
 * below 2^31, and the exclusive prefix is recovered as incl - e_out modulo
 * 2^32, exact even when incl wraps.  Elements after the first failure are
 * ignored, and a round without failure sums to at most cap.  So statuses
 * and positions equal the 64-bit parse's.  P = uint64_t is the identity. */
template <typename P> __device__ __forceinline__ P oc_sat(uint64_t v)
{
    return v > (uint64_t)(P) ~(P)0 ? (P) ~(P)0 : (P)v;
}

__device__ __forceinline__ int oc_pipe_narrow(size_t srcn, size_t cap)
{
    return srcn < ((size_t)1 << 31) && cap < ((size_t)1 << 31);
}

/* The parser's side: the queue and the number of rounds pushed. */
struct oc_pipe_prod {
    oc_pipe_q *q;
    uint32_t r;
};

/* The round barrier: both warps of the block (64 threads), whole warps. */
__device__ __forceinline__ void oc_pipe_barrier(void)
{
    __syncwarp();
    asm volatile("bar.sync 1, 64;" ::: "memory");
}

/* Parser: queue one round (lane < cnt holds element `lane`); cnt == 0 ends. */
__device__ __forceinline__ void oc_pipe_push(oc_pipe_prod *pp, int cnt, int lane, uint64_t lit_out,
                                             uint64_t lit_src, uint64_t lit_len, uint64_t m_len,
                                             uint32_t m_off)
{
    uint32_t k = pp->r % OC_PIPE_DEPTH; /* the copier left this slot at the last barrier */
    oc_pipe_q *q = pp->q;
    if (lane < cnt) {
        q->lit_out[k][lane] = lit_out;
        q->lit_src[k][lane] = lit_src;
        q->lit_len[k][lane] = lit_len;
        q->m_len[k][lane] = m_len;
        q->m_off[k][lane] = m_off;
    }
    if (lane == 0)
        q->cnt[k] = (uint32_t)cnt;
    oc_pipe_barrier();
    pp->r++;
}

/* Parser: the end slot. */
__device__ __forceinline__ void oc_pipe_finish(oc_pipe_prod *pp, int lane)
{
    oc_pipe_push(pp, 0, lane, 0, 0, 0, 0, 0);
}

/* Copier, one round in stream order, one element after another, the warp
 * sharing each copy (any round; the only way for rounds whose output spans
 * more than the ring). */
__device__ __forceinline__ void oc_pipe_copy_serial(const oc_pipe_q *q, uint32_t k, int cnt,
                                                    const uint8_t *__restrict__ src, uint8_t *dst,
                                                    uint8_t *ring, int lane)
{
    for (int i = 0; i < cnt; i++) {
        uint64_t lo = q->lit_out[k][i], ll = q->lit_len[k][i], ls = q->lit_src[k][i];
        uint64_t ml = q->m_len[k][i];
        uint32_t mo = q->m_off[k][i];
        if (ll) {
            oc_warp_lit_ring(dst, ring, (size_t)lo, src + ls, (size_t)ll, lane);
            __syncwarp();
        }
        if (ml) {
            /* in stream order the ring holds the last OC_RING bytes */
            oc_warp_match_ring(dst, ring, (size_t)(lo + ll), mo, (size_t)ml, (uint64_t)mo + ml <= OC_RING,
                               lane);
            __syncwarp();
        }
    }
}

/* Copier, one round whose output spans at most OC_RING bytes (so no two of
 * its output positions share a ring slot), v6c: every literal, and every
 * match whose source lies wholly before the round ("independent"), is
 * copied at once, each lane its own element when it is short (<= 32
 * bytes), the warp together for longer ones; then the matches that read
 * bytes of this round, in stream order.  Text-like data has ~8 short
 * elements per round: one lane each instead of the whole warp one after
 * another.  A match reads the ring when nothing this round writes can
 * share a slot with its source (round_end - source start <= OC_RING, the
 * v4 decoders' rule), else the output. */
__device__ __forceinline__ void oc_pipe_copy_parallel(const oc_pipe_q *q, uint32_t k, int cnt,
                                                      uint64_t round_start, uint64_t round_end,
                                                      const uint8_t *__restrict__ src, uint8_t *dst,
                                                      uint8_t *ring, int lane)
{
    int me = lane < cnt;
    uint64_t lo = 0, ll = 0, ls = 0, ml = 0;
    uint32_t mo = 1;
    if (me) {
        lo = q->lit_out[k][lane];
        ll = q->lit_len[k][lane];
        ls = q->lit_src[k][lane];
        ml = q->m_len[k][lane];
        mo = q->m_off[k][lane];
    }
    uint64_t pos = lo + ll; /* where the match goes */
    uint64_t s0 = pos - mo; /* its source (mo <= pos: checked by the parser) */
    uint64_t s1 = s0 + (ml < mo ? ml : mo);
    int has_m = me && ml != 0;
    int dep = has_m && s1 > round_start; /* reads bytes of this round */
    int ring_ok = has_m && round_end - s0 <= OC_RING;
    /* 1a. short literals and short independent matches: one lane each */
    if (me && ll != 0 && ll <= 32) {
        for (uint32_t j = 0; j < (uint32_t)ll; j++) {
            uint8_t v = __ldg(src + ls + j);
            dst[lo + j] = v;
            ring[(lo + j) & OC_RING_MASK] = v;
        }
    }
    if (has_m && !dep && ml <= 32) {
        uint32_t r = 0; /* byte j repeats source byte j % mo */
        for (uint32_t j = 0; j < (uint32_t)ml; j++) {
            uint8_t v = ring_ok ? ring[(s0 + r) & OC_RING_MASK] : dst[s0 + r];
            dst[pos + j] = v;
            ring[(pos + j) & OC_RING_MASK] = v;
            if (++r == mo)
                r = 0;
        }
    }
    /* 1b. long ones: the warp together, one element after another */
    unsigned big = __ballot_sync(OC_FULL_MASK, me && ll > 32);
    while (big) {
        int i = __ffs(big) - 1;
        big &= big - 1;
        uint64_t o = __shfl_sync(OC_FULL_MASK, lo, i), n = __shfl_sync(OC_FULL_MASK, ll, i);
        uint64_t from = __shfl_sync(OC_FULL_MASK, ls, i);
        oc_warp_lit_ring(dst, ring, (size_t)o, src + from, (size_t)n, lane);
    }
    big = __ballot_sync(OC_FULL_MASK, has_m && !dep && ml > 32);
    while (big) {
        int i = __ffs(big) - 1;
        big &= big - 1;
        uint64_t o = __shfl_sync(OC_FULL_MASK, pos, i), n = __shfl_sync(OC_FULL_MASK, ml, i);
        uint32_t f = __shfl_sync(OC_FULL_MASK, mo, i);
        int ro = __shfl_sync(OC_FULL_MASK, ring_ok, i);
        oc_warp_match_ring(dst, ring, (size_t)o, f, (size_t)n, ro, lane);
    }
    __syncwarp();
    /* 2. matches that read this round's bytes, in stream order */
    unsigned deps = __ballot_sync(OC_FULL_MASK, dep);
    while (deps) {
        int i = __ffs(deps) - 1;
        deps &= deps - 1;
        uint64_t o = __shfl_sync(OC_FULL_MASK, pos, i), n = __shfl_sync(OC_FULL_MASK, ml, i);
        uint32_t f = __shfl_sync(OC_FULL_MASK, mo, i);
        int ro = __shfl_sync(OC_FULL_MASK, ring_ok, i);
        oc_warp_match_ring(dst, ring, (size_t)o, f, (size_t)n, ro, lane);
        __syncwarp();
    }
}

/* v6d: rounds of short elements are copied a byte per lane, 32 output
 * bytes per step, with no ordering inside the round at all.  Byte t of the
 * round belongs to element e = (number of element starts <= t) - 1, found
 * for all lanes at once from one __reduce_or_sync of the starts that fall
 * in the step's 32 bytes.  A literal byte is read from the input; a match
 * byte at k bytes into a match of offset o equals the byte at
 * match start - o + (k mod o) (the overlap rule), and when that position is
 * still inside the round the lane follows it to its element (walking the
 * queued starts down in shared memory; each step moves strictly earlier)
 * until it reaches a literal byte or a byte before the step (written by
 * an earlier round, or by an earlier step of this round and made visible
 * by the __syncwarp that ends each step).  So no lane ever reads a byte
 * its own step writes: one __syncwarp per step, no per-element shuffles
 * or barriers.  Such a byte is read from the ring when nothing this round
 * writes shares its slot (round_end - position <= OC_RING, the v4
 * decoders' rule; always so for bytes of this round, which spans less
 * than the ring), else from the output.  Requires round_end - round_start
 * <= OC_PIPE_BYTES_MAX (<= OC_RING). */
#define OC_PIPE_BYTES_MAX 1024u
__device__ __forceinline__ void oc_pipe_copy_bytes(const oc_pipe_q *q, uint32_t k, int cnt,
                                                   uint64_t round_start, uint64_t round_end,
                                                   const uint8_t *__restrict__ src, uint8_t *dst,
                                                   uint8_t *ring, int lane)
{
    int me = lane < cnt;
    /* element `lane`: start relative to the round, literal length, match
     * offset, literal source (32-bit: the round spans <= 1 KiB and a
     * literal inside it is shorter still) */
    uint32_t S = 0xffffffffu, L = 0, O = 1;
    uint64_t LS = 0;
    if (me) {
        S = (uint32_t)(q->lit_out[k][lane] - round_start);
        L = (uint32_t)q->lit_len[k][lane];
        O = q->m_off[k][lane];
        LS = q->lit_src[k][lane];
    }
    uint32_t span = (uint32_t)(round_end - round_start);
    uint32_t below = 0; /* element starts before this step's first byte */
    for (uint32_t base = 0; base < span; base += 32) {
        uint32_t bit = me && S >= base && S - base < 32 ? 1u << (S - base) : 0u;
        uint32_t starts = __reduce_or_sync(OC_FULL_MASK, bit);
        int e = (int)(below + __popc(starts & (0xffffffffu >> (31 - lane)))) - 1;
        below += __popc(starts);
        int src_lane = e < 0 ? 0 : e & 31; /* e >= 0 for every byte of the round */
        uint32_t eS = __shfl_sync(OC_FULL_MASK, S, src_lane);
        uint32_t eL = __shfl_sync(OC_FULL_MASK, L, src_lane);
        uint32_t eO = __shfl_sync(OC_FULL_MASK, O, src_lane);
        uint64_t eLS = __shfl_sync(OC_FULL_MASK, LS, src_lane);
        uint32_t t = base + (uint32_t)lane;
        if (t < span) {
            uint32_t d = t - eS;
            uint8_t v;
            if (d < eL) {
                v = __ldg(src + eLS + d);
            } else {
                /* absolute position of the byte this one repeats */
                uint64_t u = round_start + eS + eL - eO + ((d - eL) < eO ? d - eL : (d - eL) % eO);
                int ee = e;
                for (;;) {
                    if (u < round_start + base) { /* written before this step */
                        v = round_end - u <= OC_RING ? ring[u & OC_RING_MASK] : dst[u];
                        break;
                    }
                    while (q->lit_out[k][ee] > u) /* its element: an earlier one */
                        ee--;
                    uint64_t s = q->lit_out[k][ee], l = q->lit_len[k][ee];
                    uint64_t dd = u - s;
                    if (dd < l) {
                        v = __ldg(src + q->lit_src[k][ee] + dd);
                        break;
                    }
                    uint32_t o = q->m_off[k][ee];
                    uint64_t kk = dd - l;
                    u = s + l - o + (kk < o ? kk : kk % o);
                }
            }
            dst[round_start + t] = v;
            ring[(round_start + t) & OC_RING_MASK] = v;
        }
        __syncwarp(); /* this step's bytes are read by the next steps */
    }
}

/* The copier's choice of copy per round (v6d, default for the pipe
 * decoders; OC_CUDA_PIPE_COPIER=v6c keeps v6c's): rounds of short elements
 * a byte per lane, other rounds that fit the ring v6c's way, the rest one
 * element after another. */
__device__ __forceinline__ int oc_pipe_bytes_round(uint64_t span, int cnt)
{
    return span <= OC_PIPE_BYTES_MAX && span <= 48u * (uint64_t)cnt;
}

/* Copier: executes queued rounds until the end slot.  bytes: v6d's byte
 * per lane copy for rounds of short elements (0: v6c). */
static __device__ __noinline__ void oc_pipe_copier(oc_pipe_q *q, const uint8_t *__restrict__ src,
                                                   uint8_t *dst, uint8_t *ring, int lane, int bytes)
{
    for (uint32_t r = 0;; r++) {
        uint32_t k = r % OC_PIPE_DEPTH;
        oc_pipe_barrier(); /* round r is in slot k; the parser fills the other one */
        int cnt = (int)q->cnt[k];
        if (cnt == 0)
            break;
        uint64_t round_start = q->lit_out[k][0];
        uint64_t round_end = q->lit_out[k][cnt - 1] + q->lit_len[k][cnt - 1] + q->m_len[k][cnt - 1];
        if (bytes && oc_pipe_bytes_round(round_end - round_start, cnt))
            oc_pipe_copy_bytes(q, k, cnt, round_start, round_end, src, dst, ring, lane);
        else if (round_end - round_start <= OC_RING)
            oc_pipe_copy_parallel(q, k, cnt, round_start, round_end, src, dst, ring, lane);
        else
            oc_pipe_copy_serial(q, k, cnt, src, dst, ring, lane);
        __syncwarp();
    }
}

#endif /* OC_DEV_LZ_DECODE_PIPE_CUH */
