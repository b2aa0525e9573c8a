/*
 * lz_decode_pipe.cuh - the two-warp pipelined decoder (v6) shared by LZ4 and
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
 * Hand-off: a ring of OC_PIPE_DEPTH slots; slot k has a "full" named barrier
 * (1 + k: the parser arrives, the copier waits) and an "empty" one
 * (1 + OC_PIPE_DEPTH + k: the copier arrives, the parser waits), 64 threads
 * each, so every barrier has at most one phase outstanding.  A slot with
 * cnt == 0 ends the chunk; the parser then waits out the copier's remaining
 * "empty" arrivals, so no barrier is left half-complete at exit.
 *
 * Safety: the parser queues only rounds whose every element passed the
 * checks, so the copier copies exactly the ranges the v4 decoders would.
 */
#ifndef OC_LZ_DECODE_PIPE_CUH
#define OC_LZ_DECODE_PIPE_CUH

#include "lz_device.cuh"

#define OC_PIPE_DEPTH 6

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

/* The parser's side: the queue and the number of rounds pushed. */
struct oc_pipe_prod {
    oc_pipe_q *q;
    uint32_t r;
};

__device__ __forceinline__ void oc_bar_sync64(uint32_t id)
{
    asm volatile("bar.sync %0, 64;" ::"r"(id) : "memory");
}

__device__ __forceinline__ void oc_bar_arrive64(uint32_t id)
{
    asm volatile("bar.arrive %0, 64;" ::"r"(id) : "memory");
}

/* Parser: queue one round (lane < cnt holds element `lane`); cnt == 0 ends. */
__device__ __forceinline__ void oc_pipe_push(oc_pipe_prod *pp, int cnt, int lane, uint64_t lit_out,
                                             uint64_t lit_src, uint64_t lit_len, uint64_t m_len,
                                             uint32_t m_off)
{
    uint32_t k = pp->r % OC_PIPE_DEPTH;
    __syncwarp();
    if (pp->r >= OC_PIPE_DEPTH)
        oc_bar_sync64(1 + OC_PIPE_DEPTH + k); /* the copier is done with slot k */
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
    __syncwarp();
    oc_bar_arrive64(1 + k);
    pp->r++;
}

/* Parser: the end slot, then the copier's outstanding "empty" arrivals. */
__device__ __forceinline__ void oc_pipe_finish(oc_pipe_prod *pp, int lane)
{
    oc_pipe_push(pp, 0, lane, 0, 0, 0, 0, 0);
    /* the copier arrived on "empty" for every round but the end one; the
     * parser has waited on those of rounds < r_end - DEPTH already */
    uint32_t r_end = pp->r - 1;
    uint32_t t = r_end >= OC_PIPE_DEPTH - 1 ? r_end - (OC_PIPE_DEPTH - 1) : 0;
    for (; t < r_end; t++)
        oc_bar_sync64(1 + OC_PIPE_DEPTH + t % OC_PIPE_DEPTH);
}

/* Copier: executes queued rounds until the end slot. */
static __device__ __noinline__ void oc_pipe_copier(oc_pipe_q *q, const uint8_t *__restrict__ src,
                                                   uint8_t *dst, uint8_t *ring, int lane)
{
    for (uint32_t r = 0;; r++) {
        uint32_t k = r % OC_PIPE_DEPTH;
        __syncwarp();
        oc_bar_sync64(1 + k);
        int cnt = (int)q->cnt[k];
        if (cnt == 0)
            break;
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
        __syncwarp();
        oc_bar_arrive64(1 + OC_PIPE_DEPTH + k);
    }
}

#endif /* OC_LZ_DECODE_PIPE_CUH */
