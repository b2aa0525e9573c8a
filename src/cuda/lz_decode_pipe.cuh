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
 * Safety: the parser queues only rounds whose every element passed the
 * checks, so the copier copies exactly the ranges the v4 decoders would.
 */
#ifndef OC_LZ_DECODE_PIPE_CUH
#define OC_LZ_DECODE_PIPE_CUH

#include "lz_device.cuh"

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

/* Copier: executes queued rounds until the end slot. */
static __device__ __noinline__ void oc_pipe_copier(oc_pipe_q *q, const uint8_t *__restrict__ src,
                                                   uint8_t *dst, uint8_t *ring, int lane)
{
    for (uint32_t r = 0;; r++) {
        uint32_t k = r % OC_PIPE_DEPTH;
        oc_pipe_barrier(); /* round r is in slot k; the parser fills the other one */
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
    }
}

#endif /* OC_LZ_DECODE_PIPE_CUH */
