/*
 * zstd_dec_ooo.cuh - dev variant "v9" of the frame kernel (bench/gpu/zstd/NOTES.md "Run 11"): a
 * frame's decoded sequences executed by E warps of its CTA at once instead of one in-order warp.
 *
 * Why: the library's frame kernel (src/cuda/codecs/zstd/zstd_dec_frame.h, "v8") takes 80-90 ms for a
 * 4 MiB frame however many frames share the call, because ONE warp executes every batch of 32
 * sequences in order (literal copies, then matches) and each batch costs ~10K cycles of dependent
 * memory round trips.  Most of that work does not depend on the batch before: literal copies never
 * do, and most matches read bytes written long before.  Only the matches whose sources lie in the
 * last few batches (or in their own batch) have to wait.
 *
 * Design: the entropy warps (NE of them, as v8's) decode blocks into a ring of R slots and also write
 * each batch's output and literal start (block-relative) after the sequences (oo_batch_starts), so an
 * executor can start any batch without walking the ones before it.  The E executor warps take the
 * frame's batches round-robin (a raw/RLE block, or a block without sequences, is one unit).  For its
 * batch, a warp: stages it (zd_stage_seq), copies every literal run (no wait), copies every independent
 * match whose source ends below the frontier (no wait), and only then, if some match is left, waits
 * until the frontier covers the bytes those matches need before the batch, and runs them (independent
 * ones a lane each, the rest in order by the whole warp, as zd_exec_matches does).  The frontier is the
 * minimum of the executors' published positions (s_pub, shared memory, atomics: warp w's value p
 * says every byte below p that w owns is written); a warp publishes the start of its next unit (or
 * the block's end) after a __threadfence_block.  Deadlock-free: every wait is on bytes at lower
 * positions, the warp owning the lowest unfinished unit never waits, and all warps of a CTA are
 * resident.  The end (content size, XXH64) is warp 0's once the frontier reaches the frame's end.
 * Same statuses rule as v8: any failure says "not this path" (the harness counts it as a failure on
 * clean frames), outputs compared with libzstd's input by the harness.
 *
 * v9s (template S = 1): the frontier is contiguous, so a late match waits for every byte below its
 * source, although most late matches read the batch just before (a host model, NOTES.md "Run 11":
 * per-sequence readiness 2-3x the in-order executor, the contiguous frontier 1.2-2x).  v9s adds
 * per-byte write stamps in shared memory (a ring of OO_W, oo_stamp_*), set after each copy and a
 * fence; a late match runs as soon as each of its source bytes is below the frontier or stamped.
 * Host check of both rules: zstd_ooo_cpu_check.c (threads, every read after its write).
 */
#ifndef ZSTD_DEC_OOO_CUH
#define ZSTD_DEC_OOO_CUH

#include "zstd_dev_xxh.cuh" /* FO = 1 (session 12's A/B baseline) */

#define OO_SEQ_AREA ((uint64_t)640 << 10) /* a slot's literals + sequences: any block fits (as PF_SLOT) */
#define OO_SLOT (OO_SEQ_AREA + ((uint64_t)64 << 10)) /* then <= 1366 batch starts (uint2) */
#define OO_EMAX 8
#define OO_RMAX 12

struct OoSync {
    unsigned int next, fail, pad0, pad1;
    int ready[OO_RMAX];
    unsigned int bdone[OO_EMAX]; /* blocks each executor is done with (slot release) */
};

static __device__ __forceinline__ unsigned int oo_load(const unsigned int *p)
{
    return *(const volatile unsigned int *)p;
}

/* The entropy warp's extra step: batch i's output and literal start (block-relative) into starts[i],
 * lane j summing the 32 sequences of batch k + j, then a warp prefix sum with a carry. */
static __device__ void oo_batch_starts(const zd_bp_seq *sq, uint32_t nseq, uint2 *starts)
{
    uint32_t lane = threadIdx.x & 31, nbt = (nseq + 31) / 32, co = 0, cl = 0;
    for (uint32_t k = 0; k < nbt; k += 32) {
        uint32_t i = k + lane, so = 0, sl = 0;
        if (i < nbt) {
            uint32_t e = i * 32 + 32 < nseq ? i * 32 + 32 : nseq;
#pragma unroll 4
            for (uint32_t j = i * 32; j < e; j++) {
                zd_bp_seq s = sq[j];
                so += s.ll + s.ml;
                sl += s.ll;
            }
        }
        uint32_t xo = so, xl = sl;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            uint32_t a = __shfl_up_sync(0xFFFFFFFFu, xo, d), b = __shfl_up_sync(0xFFFFFFFFu, xl, d);
            if (lane >= (uint32_t)d) {
                xo += a;
                xl += b;
            }
        }
        if (i < nbt)
            starts[i] = make_uint2(co + xo - so, cl + xl - sl);
        co += __shfl_sync(0xFFFFFFFFu, xo, 31);
        cl += __shfl_sync(0xFFFFFFFFu, xl, 31);
    }
}

/* The frontier: every byte below it is written (the executors' published minimum). */
template <int E> static __device__ __forceinline__ uint32_t oo_frontier(unsigned int *s_pub)
{
    uint32_t lane = threadIdx.x & 31;
    uint32_t v = lane < (uint32_t)E ? atomicOr(&s_pub[lane], 0u) : 0xFFFFFFFFu;
    return __reduce_min_sync(0xFFFFFFFFu, v);
}

/* Warp w: every byte it owns below p is written (after a fence). */
static __device__ __forceinline__ void oo_publish(unsigned int *s_pub, uint32_t w, uint32_t p)
{
    __syncwarp();
    __threadfence_block();
    if ((threadIdx.x & 31) == 0)
        atomicMax(&s_pub[w], p);
    __syncwarp();
}

/* The matches of the batch staged in T (block at out + pos of the frame, batch at bop): the ready
 * independent ones now, the rest after the frontier covers what they read before the batch.  0 when
 * the frame failed elsewhere while waiting. */
template <int E>
static __device__ int oo_matches(zd_tables *T, uint8_t *o, uint32_t cnt, uint32_t bop, uint32_t pos,
                                 unsigned int *s_pub, const OoSync *sy)
{
    uint32_t lane = threadIdx.x & 31;
    __syncwarp();
    uint32_t mpos = 0, off = 0, ml = 0;
    if (lane < cnt) {
        mpos = T->sq_op[lane] + T->sq_ll[lane];
        off = T->sq_off[lane];
        ml = T->sq_ml[lane];
    }
    int indep = zd_match_indep(mpos, off, ml, bop);
    uint32_t sstart = pos + mpos - off, send = sstart + ml, bstart = pos + bop;
    uint32_t fr = oo_frontier<E>(s_pub);
    __threadfence_block();
    int now = ml == 0 || (indep && send <= fr);
    if (now && ml)
        zd_copy_lane(o + mpos, o + mpos - off, ml);
    if (__ballot_sync(0xFFFFFFFFu, !now) == 0u) {
        __syncwarp();
        return 1;
    }
    /* what the rest read before the batch: [.., min(send, bstart)) */
    uint32_t need = now || sstart >= bstart ? 0u : (send < bstart ? send : bstart);
    need = __reduce_max_sync(0xFFFFFFFFu, need);
    while (fr < need) {
        if (oo_load(&sy->fail))
            return 0;
        __nanosleep(32);
        fr = oo_frontier<E>(s_pub);
    }
    __threadfence_block();
    if (!now && indep)
        zd_copy_lane(o + mpos, o + mpos - off, ml);
    uint32_t dep = __ballot_sync(0xFFFFFFFFu, !indep);
    __syncwarp();
    for (; dep; dep &= dep - 1) {
        int j = __ffs(dep) - 1;
        uint32_t mj = __shfl_sync(0xFFFFFFFFu, mpos, j), oj = __shfl_sync(0xFFFFFFFFu, off, j);
        uint32_t lj = __shfl_sync(0xFFFFFFFFu, ml, j);
        zd_match(o + mj, oj, lj);
        __syncwarp();
    }
    __syncwarp(); /* the next batch overwrites T->sq_* */
    return 1;
}

/* ---- v9s: per-byte write stamps (the model's per-sequence readiness; NOTES.md "Run 11") ----------
 * A ring of OO_W 16-bit stamps in shared memory: stamp[y mod OO_W] = oo_ep(y) once byte y of the
 * frame is written (stored after a __threadfence_block that follows the byte's store).  A late match
 * is ready when each source byte is below the frontier or carries its own stamp: a slot overwritten
 * by a later position (y + k OO_W) only makes the reader wait for the frontier.  Epochs are 15 bits
 * with a valid bit: positions 2^29 apart share one, far more than the executors' spread (R blocks). */
#define OO_WLOG 14
#define OO_W (1u << OO_WLOG)
static __device__ __forceinline__ unsigned short oo_ep(uint32_t y)
{
    return (unsigned short)(0x8000u | ((y >> OO_WLOG) & 0x7FFFu));
}
static __device__ __forceinline__ void oo_stamp_lane(unsigned short *st, uint32_t d, uint32_t len)
{
    for (uint32_t i = 0; i < len; i++)
        ((volatile unsigned short *)st)[(d + i) & (OO_W - 1)] = oo_ep(d + i);
}
static __device__ void oo_stamp_warp(unsigned short *st, uint32_t d, uint32_t len)
{
    if (len > OO_W) {
        d += len - OO_W;
        len = OO_W;
    }
    for (uint32_t i = threadIdx.x & 31; i < len; i += 32)
        ((volatile unsigned short *)st)[(d + i) & (OO_W - 1)] = oo_ep(d + i);
}
/* bytes [s, e) of the frame written: below the frontier f, or each stamped (at most 64 checked) */
static __device__ __forceinline__ int oo_ready(const unsigned short *st, uint32_t s, uint32_t e, uint32_t f)
{
    if (e <= f)
        return 1;
    if (s < f)
        s = f;
    if (e - s > 64)
        return 0;
    for (uint32_t y = s; y < e; y++)
        if (((const volatile unsigned short *)st)[y & (OO_W - 1)] != oo_ep(y))
            return 0;
    return 1;
}
/* the same check by the whole warp (all lanes get the answer) */
static __device__ __forceinline__ int oo_ready_warp(const unsigned short *st, uint32_t s, uint32_t e,
                                                    uint32_t f)
{
    if (e <= f)
        return 1;
    if (s < f)
        s = f;
    if (e - s > 64)
        return 0;
    uint32_t lane = threadIdx.x & 31;
    int ok = 1;
    for (uint32_t y = s + lane; y < e; y += 32)
        ok &= ((const volatile unsigned short *)st)[y & (OO_W - 1)] == oo_ep(y);
    return __all_sync(0xFFFFFFFFu, ok);
}

/* v9s's matches (and the stamps of the batch's literals): the independent ones as soon as their
 * source bytes are written, each on its lane; then the in-order ones, each once the bytes it reads
 * before the batch are written.  0 when the frame failed elsewhere while waiting. */
template <int E>
static __device__ int oos_matches(zd_tables *T, uint8_t *o, uint32_t cnt, uint32_t bop, uint32_t pos,
                                  unsigned int *s_pub, const OoSync *sy, unsigned short *st)
{
    uint32_t lane = threadIdx.x & 31;
    __syncwarp();
    uint32_t mpos = 0, off = 0, ml = 0, ll = 0, op = 0;
    if (lane < cnt) {
        ll = T->sq_ll[lane];
        op = T->sq_op[lane];
        mpos = op + ll;
        off = T->sq_off[lane];
        ml = T->sq_ml[lane];
    }
    int indep = zd_match_indep(mpos, off, ml, bop);
    uint32_t sstart = pos + mpos - off, send = sstart + ml, bstart = pos + bop;
    uint32_t fr = oo_frontier<E>(s_pub);
    int now = ml == 0 || (indep && oo_ready(st, sstart, send, fr));
    __threadfence_block();
    if (now && ml)
        zd_copy_lane(o + mpos, o + mpos - off, ml);
    __syncwarp();
    __threadfence_block();
    if (ll <= ZD_SHORT)
        oo_stamp_lane(st, pos + op, ll);
    for (uint32_t longs = __ballot_sync(0xFFFFFFFFu, ll > ZD_SHORT); longs; longs &= longs - 1) {
        int j = __ffs(longs) - 1;
        oo_stamp_warp(st, pos + __shfl_sync(0xFFFFFFFFu, op, j), __shfl_sync(0xFFFFFFFFu, ll, j));
    }
    if (now && ml)
        oo_stamp_lane(st, pos + mpos, ml);
    int pend = !now && indep;
    while (__any_sync(0xFFFFFFFFu, pend)) {
        int did = 0;
        if (pend && oo_ready(st, sstart, send, fr)) {
            __threadfence_block();
            zd_copy_lane(o + mpos, o + mpos - off, ml);
            did = 1;
        }
        __syncwarp();
        if (__any_sync(0xFFFFFFFFu, did)) {
            __threadfence_block();
            if (did)
                oo_stamp_lane(st, pos + mpos, ml);
            pend &= !did;
        } else {
            if (oo_load(&sy->fail))
                return 0;
            __nanosleep(32);
            fr = oo_frontier<E>(s_pub);
        }
    }
    uint32_t dep = __ballot_sync(0xFFFFFFFFu, !indep);
    __syncwarp();
    for (; dep; dep &= dep - 1) {
        int j = __ffs(dep) - 1;
        uint32_t mj = __shfl_sync(0xFFFFFFFFu, mpos, j), oj = __shfl_sync(0xFFFFFFFFu, off, j);
        uint32_t lj = __shfl_sync(0xFFFFFFFFu, ml, j);
        uint32_t sj = pos + mj - oj, ej = sj + lj < bstart ? sj + lj : bstart;
        if (sj < bstart) {
            while (!oo_ready_warp(st, sj, ej, fr)) {
                if (oo_load(&sy->fail))
                    return 0;
                __nanosleep(32);
                fr = oo_frontier<E>(s_pub);
            }
            __threadfence_block();
        }
        zd_match(o + mj, oj, lj);
        __syncwarp();
        __threadfence_block();
        oo_stamp_warp(st, pos + mj, lj);
        __syncwarp();
    }
    __syncwarp(); /* the next batch overwrites T->sq_* */
    return 1;
}

/* Executor warp w of E: its units of every block, in order.  1 and *total on success. */
template <int E, int R, int S> /* S 1: v9s, write stamps in st */
static __device__ int oo_exec(zd_tables *T, const uint8_t *src, const zd_bp_block *blk, uint32_t nb,
                              uint8_t *ring, uint8_t *out, size_t cap, OoSync *sy, unsigned int *s_pub,
                              uint32_t w, uint32_t *total, unsigned short *st)
{
    uint32_t lane = threadIdx.x & 31;
    uint32_t rep[3] = {1, 4, 8}, pos = 0, g = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const zd_bp_block *bk = &blk[b];
        uint8_t *slot = ring + (b % R) * OO_SLOT;
        if (bk->type == 2) {
            while ((int)oo_load((const unsigned int *)&sy->ready[b % R]) != (int)b) {
                if (oo_load(&sy->fail))
                    return 0;
                __nanosleep(64);
            }
            __syncwarp();
            __threadfence_block();
        }
        uint8_t *o = out + pos;
        if (bk->type != 2) {
            if (bk->bsize > cap - pos)
                return 0;
            if (g % E == w) {
                if (bk->type == 1) {
                    uint8_t v = src[bk->src];
                    for (uint32_t j = lane; j < bk->bsize; j += 32)
                        o[j] = v;
                } else {
                    zd_copy(o, src + bk->src, bk->bsize);
                }
                if (S) {
                    __syncwarp();
                    __threadfence_block();
                    oo_stamp_warp(st, pos, bk->bsize);
                }
            }
            g++;
            pos += bk->bsize;
            oo_publish(s_pub, w, pos);
            if (lane == 0)
                *(volatile unsigned int *)&sy->bdone[w] = b + 1;
            continue;
        }
        if (!bk->ok || bk->dsize > cap - pos)
            return 0;
        uint32_t init[3], nr[3];
        for (int k = 0; k < 3; k++) {
            init[k] = rep[k];
            nr[k] = zd_bp_rep(bk->rep[k], rep);
            if (nr[k] == 0)
                return 0;
        }
        const uint8_t *lit = bk->lit_src ? src + bk->lit_src - 1 : slot;
        const zd_bp_seq *sq = (const zd_bp_seq *)(slot + ((bk->lsize + 15) & ~15u));
        const uint2 *starts = (const uint2 *)(slot + OO_SEQ_AREA);
        uint32_t nseq = bk->nseq, nbt = (nseq + 31) / 32, units = nbt ? nbt : 1;
        for (uint32_t i = (w + E - g % E) % E; i < units; i += E) {
            if (nbt == 0) {
                zd_copy(o, lit, bk->lsize);
                if (S) {
                    __syncwarp();
                    __threadfence_block();
                    oo_stamp_warp(st, pos, bk->lsize);
                }
                break;
            }
            uint2 sb = starts[i];
            uint32_t bop = sb.x, lp = sb.y, b0 = bop;
            oo_publish(s_pub, w, pos + bop); /* everything this warp owns before the unit is written */
            uint32_t cnt = nseq - i * 32 < 32 ? nseq - i * 32 : 32;
            uint32_t ll = 0, ml = 0, sym = 1;
            if (lane < cnt) {
                zd_bp_seq s = sq[i * 32 + lane];
                ll = s.ll;
                ml = s.ml;
                sym = s.off;
            }
            uint32_t off = zd_bp_rep(sym, init);
            uint32_t op = zd_stage_seq(T, lane, cnt, ll, ml, off, &bop, &lp);
            int bad = lane < cnt && (off == 0 || (uint64_t)off > (uint64_t)pos + op + ll);
            if (__any_sync(0xFFFFFFFFu, bad))
                return 0;
            __syncwarp();
            zd_exec_literals(T, o, lit, cnt);
            if (!(S ? oos_matches<E>(T, o, cnt, b0, pos, s_pub, sy, st)
                    : oo_matches<E>(T, o, cnt, b0, pos, s_pub, sy)))
                return 0;
            if (i == nbt - 1) { /* the block's last literals */
                zd_copy(o + bop, lit + lp, bk->lsize - lp);
                if (S) {
                    __syncwarp();
                    __threadfence_block();
                    oo_stamp_warp(st, pos + bop, bk->lsize - lp);
                }
            }
            __syncwarp();
        }
        for (int k = 0; k < 3; k++)
            rep[k] = nr[k];
        g += units;
        pos += bk->dsize;
        oo_publish(s_pub, w, pos);
        if (lane == 0)
            *(volatile unsigned int *)&sy->bdone[w] = b + 1;
    }
    *total = pos;
    return 1;
}

extern __shared__ zd_tables oo_tables[];

/* A CTA of E + NE warps per frame (one wave: the harness launches a CTA per frame); the frame's
 * blocks were recorded by bf_layout. */
/* S 1: v9s (write stamps, OO_W x 2 bytes of shared memory more); MB: CTAs an SM the registers are cut
 * for (session 12's small shapes, 1 + 1 warps at 8 an SM: 1024 frames of 1 MiB in one wave) */
template <int E, int NE, int R, int S, int MB = 1,
          int FO = 0> /* FO 1: the end's XXH64 as before session 12 */
__global__ void __launch_bounds__((E + NE) * 32, MB)
    bf_ooo(size_t n, const void *const *srcs, void *const *dsts, const size_t *caps, BfChunk *ch,
           uint8_t *region, uint8_t *slots, OoSync *syncs)
{
    __shared__ unsigned int s_pub[E];
    size_t c = blockIdx.x;
    if (c >= n || !ch[c].ok)
        return;
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    zd_tables *T = &oo_tables[warp];
    OoSync *sy = &syncs[c];
    zd_bp_block *blk;
    uint8_t *lits;
    zd_bp_seq *seqs;
    bf_area(region, &ch[c], &blk, &lits, &seqs);
    if (threadIdx.x == 0) {
        sy->next = sy->fail = 0;
        for (int r = 0; r < R; r++)
            sy->ready[r] = -1;
        for (int v = 0; v < E; v++)
            sy->bdone[v] = 0;
    }
    if (threadIdx.x < E)
        s_pub[threadIdx.x] = 0;
    unsigned short *st = (unsigned short *)(oo_tables + E + NE);
    if (S)
        for (uint32_t i = threadIdx.x; i < OO_W; i += (E + NE) * 32)
            st[i] = 0;
    __syncthreads();
    const zd_bp_frame *f = &ch[c].f;
    uint32_t nb = f->nb;
    uint8_t *ring = slots + c * R * OO_SLOT;
    const uint8_t *src = (const uint8_t *)srcs[c];
    uint8_t *out = (uint8_t *)dsts[c];
    if (warp < (uint32_t)E) {
        uint32_t total = 0;
        int ok = oo_exec<E, R, S>(T, src, blk, nb, ring, out, caps[c], sy, s_pub, warp, &total, st);
        __syncwarp();
        if (!ok && lane == 0)
            *(volatile unsigned int *)&sy->fail = 1;
        if (warp == 0) {
            if (ok) {
                while (oo_frontier<E>(s_pub) < total) {
                    if (oo_load(&sy->fail)) {
                        ok = 0;
                        break;
                    }
                    __nanosleep(64);
                }
                __syncwarp();
                __threadfence_block();
            }
            if (ok)
                ok = FO ? zdo_pf_end(T, src, f, out, total) : zd_pf_end(T, src, f, out, total);
            __syncwarp();
            if (lane == 0)
                ch[c].ok = ok;
        }
    } else {
        for (;;) {
            unsigned int b = 0;
            if (lane == 0)
                b = atomicAdd(&sy->next, 1u);
            b = __shfl_sync(0xFFFFFFFFu, b, 0);
            if (b >= nb || oo_load(&sy->fail))
                break;
            if (blk[b].type != 2)
                continue;
            for (;;) { /* slot b mod R is free once every executor is done with block b - R */
                uint32_t d = lane < (uint32_t)E ? oo_load(&sy->bdone[lane]) : 0xFFFFFFFFu;
                d = __reduce_min_sync(0xFFFFFFFFu, d);
                if (b < (unsigned int)R || d >= b - R + 1 || oo_load(&sy->fail))
                    break;
                __nanosleep(64);
            }
            __syncwarp();
            __threadfence_block();
            if (oo_load(&sy->fail))
                break;
            uint8_t *slot = ring + (b % R) * OO_SLOT;
            zd_pf_entropy(T, src, f, &blk[b], slot, OO_SEQ_AREA, &blk[b]);
            __syncwarp();
            __threadfence_block();
            if (blk[b].ok && blk[b].nseq)
                oo_batch_starts((const zd_bp_seq *)(slot + ((blk[b].lsize + 15) & ~15u)), blk[b].nseq,
                                (uint2 *)(slot + OO_SEQ_AREA));
            __syncwarp();
            __threadfence_block();
            if (lane == 0)
                *(volatile int *)&sy->ready[b % R] = (int)b;
        }
    }
}

#endif /* ZSTD_DEC_OOO_CUH */
