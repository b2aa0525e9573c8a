/*
 * zstd_bigframe.cu - issue 14's MB-sized frames on the GPU: the library's
 * zstd decoder beside v5 (block-parallel entropy, a warp per frame
 * executing, zstd_dec_blocks.h), v7 (the same entropy, then execution a
 * warp per block with matches into unfinished output deferred to an
 * in-order pass per frame, zstd_dec_bigframe.h) and v8 (a CTA per frame:
 * three warps decode blocks' entropy into a ring of slots while the fourth
 * executes the decoded blocks in order, src/cuda/codecs/zstd/zstd_dec_frame.h; also 8 warps and
 * 8 slots), each step timed alone.
 *
 * Why: v5 lost its full-scale run without a profile (NOTES.md "Run 5"), so
 * nobody knew which step lost; v7 asks whether executing blocks in parallel
 * helps.  This harness times every step (CUDA events around each kernel),
 * so the next design starts from measured step times.
 *
 *   zstd_bigframe [--chunks 1M,4M] [--total BYTES] [--reps N] [--level L]
 *                 [--quick | --ooo | --v9only] [--v9s] [--v9cfg K[,K...]] [--minb] [--no-v8] FILE...
 *
 * The library runs three ways: its per-chunk kernel, its automatic choice
 * and its frame kernel named (oc_cuda_zstd_decompress_with).  v8b is the
 * dev v8 with L2 prefetches in the executor, v8c the dev v8 with the
 * literal copies done by the entropy warps (the executor runs the matches
 * only).  --quick: the library's three, v8, v8b and v8c only.  v9
 * (zstd_dec_ooo.cuh, NOTES.md "Run 11"): a frame's batches executed by
 * several warps at once, each waiting only for the bytes its late matches
 * read; five shapes (executor + entropy warps: 4+4, 2+2, 3+5, 2+6; 3+5 with
 * 6 slots instead of 8: the library's scratch).  --ooo: the
 * library's three, v8 and v9; --v9only: v9 alone; --v9cfg K[,K...]: those shapes;
 * --v9s: v9s too, last (v9 with per-byte write stamps: a late match waits
 * only for its own source bytes; shapes 4+4 and 3+5).  Session 12 (256 KiB - 1 MiB frames, 0.41-0.47x
 * nVCOMP): --v9cfg 7-10 are small CTAs (1+1, 1+2, 2+2 warps, 2-4 slots, registers cut so 4-8 CTAs fit
 * an SM: 1024 frames of 1 MiB at once), --minb adds the per-chunk kernel cut for 3 and 5 CTAs an SM,
 * --no-v8 drops the v8 line.
 *
 * Each FILE is cut into chunks, each compressed by libzstd (ZSTD_compress2,
 * level 3 unless --level, content size and checksum: what numcodecs/zarr
 * write), the chunks repeated in distinct memory up to --total decompressed
 * bytes (1 GiB).  The host plans the scratch (a dev shortcut: v5's plan
 * kernel did it on the device; the host scan it replaces is not timed), one
 * wave (the whole region at once).  Every output is compared with the
 * original; a frame the path gives up on is counted as a failure (clean
 * input: there must be none).  Prints GB/s of decompressed bytes (median of
 * --reps), per-step milliseconds and v7's deferred share.  v8's slots
 * (R x 640 KiB per frame, any block fits) are allocated for every frame.  Exit 0 only if
 * every output matched.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <zstd.h>

#include "cuda/codecs/zstd/zstd_gpu.h"
#include "zstd_dec_bigframe.h"

#define CUDA_OK(x)                                                                                           \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);         \
            exit(2);                                                                                         \
        }                                                                                                    \
    } while (0)

#define BF_WARPS 4

typedef std::vector<uint8_t> bytes;

/* One chunk of the batch on the path. */
struct BfChunk {
    zd_bp_frame f;
    unsigned long long off;  /* its area in the region */
    unsigned long long need; /* its bytes there */
    uint32_t ok;             /* 0: the path gave up */
};

static __device__ void bf_area(uint8_t *region, const BfChunk *x, zd_bp_block **blk, uint8_t **lits,
                               zd_bp_seq **seqs)
{
    uint8_t *a = region + x->off;
    *blk = (zd_bp_block *)a;
    *lits = a + zd_bp_blocks_bytes(&x->f);
    *seqs = (zd_bp_seq *)(*lits + ((x->f.lit_total + 15) & ~15ull));
}

/* a thread per chunk: the frame's counts (the host plans the region from them) */
__global__ void bf_scan(size_t n, const void *const *src, const size_t *ssz, const size_t *caps, BfChunk *ch)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n)
        return;
    ch[c].off = 0;
    ch[c].ok = zd_bp_scan((const uint8_t *)src[c], ssz[c], caps[c], &ch[c].f, NULL);
    ch[c].need = ch[c].ok ? zd_bp_need(&ch[c].f) : 0;
}

__global__ void bf_layout(size_t n, const void *const *src, const size_t *ssz, const size_t *caps,
                          BfChunk *ch, uint8_t *region)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n)
        return;
    zd_bp_block *blk;
    uint8_t *lits;
    zd_bp_seq *seqs;
    bf_area(region, &ch[c], &blk, &lits, &seqs);
    zd_bp_frame f;
    ch[c].ok = zd_bp_scan((const uint8_t *)src[c], ssz[c], caps[c], &f, blk) && f.nb == ch[c].f.nb;
}

/* a warp per block of the flat list (chunk << 12 | block) */
__global__ void __launch_bounds__(BF_WARPS * 32)
    bf_entropy(size_t nblk, const uint32_t *list, const void *const *src, BfChunk *ch, uint8_t *region)
{
    __shared__ zd_tables tables[BF_WARPS];
    zd_tables *T = &tables[threadIdx.x >> 5];
    size_t w = (size_t)blockIdx.x * BF_WARPS + (threadIdx.x >> 5);
    if (w >= nblk)
        return;
    uint32_t c = list[w] >> 12, i = list[w] & 0xFFF;
    if (!ch[c].ok)
        return;
    zd_bp_block *blk;
    uint8_t *lits;
    zd_bp_seq *seqs;
    bf_area(region, &ch[c], &blk, &lits, &seqs);
    if (blk[i].type == 2)
        zd_bp_entropy(T, (const uint8_t *)src[c], &ch[c].f, &blk[i], lits, seqs);
}

__global__ void bf_resolve(size_t n, const size_t *caps, BfChunk *ch, uint8_t *region)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n || !ch[c].ok)
        return;
    zd_bp_block *blk;
    uint8_t *lits;
    zd_bp_seq *seqs;
    bf_area(region, &ch[c], &blk, &lits, &seqs);
    ch[c].ok = zd_bp_resolve(&ch[c].f, blk, caps[c]);
}

/* v5's execution: a warp per frame */
__global__ void __launch_bounds__(BF_WARPS * 32)
    bf_exec5(size_t n, const void *const *src, void *const *dst, BfChunk *ch, uint8_t *region)
{
    __shared__ zd_tables tables[BF_WARPS];
    zd_tables *T = &tables[threadIdx.x >> 5];
    size_t c = (size_t)blockIdx.x * BF_WARPS + (threadIdx.x >> 5);
    if (c >= n || !ch[c].ok)
        return;
    zd_bp_block *blk;
    uint8_t *lits;
    zd_bp_seq *seqs;
    bf_area(region, &ch[c], &blk, &lits, &seqs);
    int ok = zd_bp_execute(T, (const uint8_t *)src[c], &ch[c].f, blk, lits, seqs, (uint8_t *)dst[c]);
    __syncwarp();
    if ((threadIdx.x & 31) == 0 && !ok)
        ch[c].ok = 0;
}

/* v7 pass 1: a warp per block */
__global__ void __launch_bounds__(BF_WARPS * 32)
    bf_pass1(size_t nblk, const uint32_t *list, const void *const *src, void *const *dst, BfChunk *ch,
             uint8_t *region)
{
    __shared__ zd_tables tables[BF_WARPS];
    __shared__ uint32_t bms[BF_WARPS][ZD_BF_WORDS];
    zd_tables *T = &tables[threadIdx.x >> 5];
    size_t w = (size_t)blockIdx.x * BF_WARPS + (threadIdx.x >> 5);
    if (w >= nblk)
        return;
    uint32_t c = list[w] >> 12, i = list[w] & 0xFFF;
    if (!ch[c].ok)
        return;
    zd_bp_block *blk;
    uint8_t *lits;
    zd_bp_seq *seqs;
    bf_area(region, &ch[c], &blk, &lits, &seqs);
    int ok = zd_bf_exec_block(T, bms[threadIdx.x >> 5], (const uint8_t *)src[c], &blk[i], lits, seqs,
                              (uint8_t *)dst[c]);
    __syncwarp();
    if ((threadIdx.x & 31) == 0 && !ok)
        ch[c].ok = 0;
}

/* v7 pass 2: a warp per frame */
__global__ void __launch_bounds__(BF_WARPS * 32)
    bf_pass2(size_t n, const void *const *src, void *const *dst, BfChunk *ch, uint8_t *region)
{
    __shared__ zd_tables tables[BF_WARPS];
    zd_tables *T = &tables[threadIdx.x >> 5];
    size_t c = (size_t)blockIdx.x * BF_WARPS + (threadIdx.x >> 5);
    if (c >= n || !ch[c].ok)
        return;
    zd_bp_block *blk;
    uint8_t *lits;
    zd_bp_seq *seqs;
    bf_area(region, &ch[c], &blk, &lits, &seqs);
    int ok = zd_bf_finish(T, (const uint8_t *)src[c], &ch[c].f, blk, seqs, (uint8_t *)dst[c]);
    __syncwarp();
    if ((threadIdx.x & 31) == 0 && !ok)
        ch[c].ok = 0;
}

/* v8b (dev only): the library's executor step (zd_pf_block) with L2
 * prefetches of the next batches' sequences and of the literals ahead: the
 * executor's loads come from slots that, with 256 frames in flight, are
 * mostly in DRAM, and each batch waited on them in turn. */
static __device__ __noinline__ int zd_pf_block_pf(zd_tables *T, const uint8_t *src, const zd_bp_block *b,
                                                  uint32_t *rep, uint64_t *pos, const uint8_t *slot,
                                                  uint8_t *dst, size_t cap)
{
    uint32_t lane = OC_LANE();
    uint64_t p0 = *pos;
    uint8_t *out = dst + p0;
    OC_WARP_SYNC(); /* the previous block's copies are done with T */
    if (b->type != 2) {
        if (b->bsize > cap - p0)
            return 0;
        if (b->type == 1) {
            uint8_t v = src[b->src];
            for (size_t j = lane; j < b->bsize; j += OC_NLANES)
                out[j] = v;
        } else {
            zd_copy(out, src + b->src, b->bsize);
        }
        *pos = p0 + b->bsize;
        return 1;
    }
    if (!b->ok || b->dsize > cap - p0)
        return 0;
    uint32_t init[3], nr[3];
    for (int k = 0; k < 3; k++) {
        init[k] = rep[k];
        nr[k] = zd_bp_rep(b->rep[k], rep);
        if (nr[k] == 0)
            return 0;
    }
    const uint8_t *lit = b->lit_src ? src + b->lit_src - 1 : slot;
    const zd_bp_seq *sq = (const zd_bp_seq *)(slot + ((b->lsize + 15) & ~15u));
    uint32_t bop = 0, lp = 0;
    for (uint32_t base = 0; base < b->nseq; base += ZD_SEQ_BATCH) {
        uint32_t cnt = b->nseq - base < ZD_SEQ_BATCH ? b->nseq - base : ZD_SEQ_BATCH;
        uint32_t batch_bop = bop;
        uint32_t ll = 0, ml = 0, sym = 1;
        if (lane < cnt) {
            zd_bp_seq s = sq[base + lane];
            ll = s.ll;
            ml = s.ml;
            sym = s.off;
        }
        /* L2 prefetch: the sequences of the next two batches (6 lines), the
         * literals 256-767 bytes ahead (4 lines) */
        if (lane < 6) {
            const uint8_t *p = (const uint8_t *)(sq + base + 32) + lane * 128;
            if (p < (const uint8_t *)(sq + b->nseq))
                asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
        } else if (lane < 10) {
            const uint8_t *p = lit + lp + 256 + (lane - 6) * 128;
            if (p < lit + b->lsize)
                asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
        }
        uint32_t len = ll + ml, ex = len, exl = ll;
        for (uint32_t d = 1; d < 32; d <<= 1) {
            uint32_t a = __shfl_up_sync(0xFFFFFFFFu, ex, d), c = __shfl_up_sync(0xFFFFFFFFu, exl, d);
            if (lane >= d) {
                ex += a;
                exl += c;
            }
        }
        uint32_t op = bop + ex - len, off = zd_bp_rep(sym, init);
        int bad = lane < cnt && (off == 0 || (uint64_t)off > p0 + op + ll);
        if (__ballot_sync(0xFFFFFFFFu, bad))
            return 0;
        if (lane < cnt) {
            T->sq_ll[lane] = ll;
            T->sq_ml[lane] = ml;
            T->sq_off[lane] = off;
            T->sq_op[lane] = op;
            T->sq_lp[lane] = lp + exl - ll;
        }
        bop += __shfl_sync(0xFFFFFFFFu, ex, 31);
        lp += __shfl_sync(0xFFFFFFFFu, exl, 31);
        OC_WARP_SYNC();
        zd_exec_batch(T, out, lit, cnt, batch_bop);
    }
    zd_copy(out + bop, lit + lp, b->lsize - lp);
    OC_WARP_SYNC();
    for (int k = 0; k < 3; k++)
        rep[k] = nr[k];
    *pos = p0 + b->dsize;
    return 1;
}

static __device__ __noinline__ int zd_pf_block_m(zd_tables *T, const uint8_t *src, const zd_bp_block *b,
                                                 uint32_t *rep, uint64_t *pos, const uint8_t *slot,
                                                 uint8_t *dst, size_t cap)
{
    uint32_t lane = OC_LANE();
    uint64_t p0 = *pos;
    uint8_t *out = dst + p0;
    OC_WARP_SYNC(); /* the previous block's copies are done with T */
    if (b->type != 2) {
        if (b->bsize > cap - p0)
            return 0;
        if (b->type == 1) {
            uint8_t v = src[b->src];
            for (size_t j = lane; j < b->bsize; j += OC_NLANES)
                out[j] = v;
        } else {
            zd_copy(out, src + b->src, b->bsize);
        }
        *pos = p0 + b->bsize;
        return 1;
    }
    if (!b->ok || b->dsize > cap - p0)
        return 0;
    uint32_t init[3], nr[3];
    for (int k = 0; k < 3; k++) {
        init[k] = rep[k];
        nr[k] = zd_bp_rep(b->rep[k], rep);
        if (nr[k] == 0)
            return 0;
    }
    const zd_bp_seq *sq = (const zd_bp_seq *)(slot + ((b->lsize + 15) & ~15u));
    uint32_t bop = 0;
    for (uint32_t base = 0; base < b->nseq; base += ZD_SEQ_BATCH) {
        uint32_t cnt = b->nseq - base < ZD_SEQ_BATCH ? b->nseq - base : ZD_SEQ_BATCH;
        uint32_t batch_bop = bop;
        uint32_t ll = 0, ml = 0, sym = 1;
        if (lane < cnt) {
            zd_bp_seq s = sq[base + lane];
            ll = s.ll;
            ml = s.ml;
            sym = s.off;
        }
        uint32_t len = ll + ml, ex = len, exl = ll;
        for (uint32_t d = 1; d < 32; d <<= 1) {
            uint32_t a = __shfl_up_sync(0xFFFFFFFFu, ex, d), c = __shfl_up_sync(0xFFFFFFFFu, exl, d);
            if (lane >= d) {
                ex += a;
                exl += c;
            }
        }
        uint32_t op = bop + ex - len, off = zd_bp_rep(sym, init);
        int bad = lane < cnt && (off == 0 || (uint64_t)off > p0 + op + ll);
        if (__ballot_sync(0xFFFFFFFFu, bad))
            return 0;
        if (lane < cnt) {
            T->sq_ll[lane] = ll;
            T->sq_ml[lane] = ml;
            T->sq_off[lane] = off;
            T->sq_op[lane] = op;
        }
        bop += __shfl_sync(0xFFFFFFFFu, ex, 31);
        OC_WARP_SYNC();
        zd_exec_matches(T, out, cnt, batch_bop); /* the literals are in place */
    }
    OC_WARP_SYNC();
    for (int k = 0; k < 3; k++)
        rep[k] = nr[k];
    *pos = p0 + b->dsize;
    return 1;
}

/* v8c (dev only): the entropy warp that decoded block b also copies its
 * literals into the output, once the block's output offset is known (a
 * chain over the blocks: each claimer publishes the next block's offset), so
 * the in-order executor runs only the matches (zd_pf_block_m).  v7 showed
 * the literal copies are half of in-order execution. */
static __device__ void bf_lits(const zd_bp_block *b, const uint8_t *slot, const uint8_t *src, uint8_t *dst)
{
    uint32_t lane = threadIdx.x & 31;
    const uint8_t *lit = b->lit_src ? src + b->lit_src - 1 : slot;
    const zd_bp_seq *sq = (const zd_bp_seq *)(slot + ((b->lsize + 15) & ~15u));
    uint32_t bop = 0, lp = 0;
    for (uint32_t base = 0; base < b->nseq; base += 32) {
        uint32_t cnt = b->nseq - base < 32 ? b->nseq - base : 32;
        uint32_t ll = 0, ml = 0;
        if (lane < cnt) {
            zd_bp_seq q = sq[base + lane];
            ll = q.ll;
            ml = q.ml;
        }
        uint32_t len = ll + ml, ex = len, exl = ll;
        for (uint32_t d = 1; d < 32; d <<= 1) {
            uint32_t x = __shfl_up_sync(0xFFFFFFFFu, ex, d), y = __shfl_up_sync(0xFFFFFFFFu, exl, d);
            if (lane >= d) {
                ex += x;
                exl += y;
            }
        }
        if (lane < cnt)
            zd_copy_lane(dst + bop + ex - len, lit + lp + exl - ll, ll);
        bop += __shfl_sync(0xFFFFFFFFu, ex, 31);
        lp += __shfl_sync(0xFFFFFFFFu, exl, 31);
    }
    for (uint32_t i = lane; i < b->lsize - lp; i += 32)
        dst[bop + i] = lit[lp + i];
}

/* v8: a CTA of NW warps per frame; warp 0 executes the blocks in order,
 * warps 1.. decode their entropy into a ring of R slots (src/cuda/codecs/zstd/zstd_dec_frame.h).
 * With R slots at most R - 1 blocks are decoded ahead of the one executing.
 * The hand-over flags live in global memory (per frame), read with volatile
 * loads; the warps' tables are dynamic shared memory (NW x ~10 KiB). */
#define PF_SLOT ((uint64_t)640 << 10) /* 128 KiB of literals + 43690 sequences: any block fits */
#define PF_RMAX 8

struct PfSync {
    unsigned int next, done, fail, pad;
    int ready[PF_RMAX];
};

static __device__ __forceinline__ unsigned int pf_load(const unsigned int *p)
{
    return *(const volatile unsigned int *)p;
}

extern __shared__ zd_tables pf_tables[];

template <int NW, int R, int MODE> /* MODE 0: v8, 1: v8b (prefetch), 2: v8c (literals by the entropy warps) */
__global__ void __launch_bounds__(NW * 32)
    bf_pipe(size_t n, const void *const *srcs, void *const *dsts, const size_t *caps, BfChunk *ch,
            uint8_t *region, uint8_t *slots, PfSync *syncs)
{
    size_t c = blockIdx.x;
    if (c >= n || !ch[c].ok)
        return;
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    zd_tables *T = &pf_tables[warp];
    PfSync *sy = &syncs[c];
    zd_bp_block *blk;
    uint8_t *lits;
    zd_bp_seq *seqs;
    bf_area(region, &ch[c], &blk, &lits, &seqs);
    if (threadIdx.x == 0) {
        sy->next = sy->done = sy->fail = sy->pad = 0; /* pad: v8c's offset chain */
        for (int r = 0; r < R; r++)
            sy->ready[r] = -1;
        blk[0].out = 0;
    }
    __syncthreads();
    const zd_bp_frame *f = &ch[c].f;
    uint32_t nb = f->nb;
    uint8_t *ring = slots + c * R * PF_SLOT;
    const uint8_t *src = (const uint8_t *)srcs[c];
    uint8_t *out = (uint8_t *)dsts[c];
    if (warp == 0) {
        uint32_t rep[3] = {1, 4, 8};
        uint64_t pos = 0;
        int ok = 1;
        for (uint32_t b = 0; b < nb && ok; b++) {
            if (blk[b].type == 2) {
                while ((int)pf_load((const unsigned int *)&sy->ready[b % R]) != (int)b && !pf_load(&sy->fail))
                    __nanosleep(64);
                __syncwarp();
                __threadfence_block();
                if (pf_load(&sy->fail)) {
                    ok = 0;
                    break;
                }
            }
            uint8_t *slot = ring + (b % R) * PF_SLOT;
            ok = MODE == 1   ? zd_pf_block_pf(T, src, &blk[b], rep, &pos, slot, out, caps[c])
                 : MODE == 2 ? zd_pf_block_m(T, src, &blk[b], rep, &pos, slot, out, caps[c])
                             : zd_pf_block(T, src, &blk[b], rep, &pos, slot, out, caps[c]);
            __syncwarp();
            __threadfence_block();
            if (lane == 0)
                *(volatile unsigned int *)&sy->done = b + 1;
        }
        if (ok)
            ok = zd_pf_end(T, src, f, out, pos);
        __syncwarp();
        if (lane == 0) {
            if (!ok)
                *(volatile unsigned int *)&sy->fail = 1;
            ch[c].ok = ok;
        }
    } else {
        for (;;) {
            unsigned int b = 0;
            if (lane == 0)
                b = atomicAdd(&sy->next, 1u);
            b = __shfl_sync(0xFFFFFFFFu, b, 0);
            if (b >= nb || pf_load(&sy->fail))
                break;
            if (blk[b].type != 2) {
                if (MODE == 2) { /* the offset chain: wait for this block's, publish the next one's */
                    while (pf_load(&sy->pad) != b && !pf_load(&sy->fail))
                        __nanosleep(32);
                    __syncwarp();
                    __threadfence_block();
                    if (lane == 0) {
                        if (b + 1 < nb)
                            blk[b + 1].out = blk[b].out + blk[b].bsize;
                        __threadfence_block();
                        *(volatile unsigned int *)&sy->pad = b + 1;
                    }
                }
                continue;
            }
            while (b >= R && pf_load(&sy->done) < b - R + 1 && !pf_load(&sy->fail))
                __nanosleep(64);
            __syncwarp();
            if (pf_load(&sy->fail))
                break;
            zd_pf_entropy(T, src, f, &blk[b], ring + (b % R) * PF_SLOT, PF_SLOT, &blk[b]);
            __syncwarp();
            __threadfence_block();
            if (MODE == 2) {
                while (pf_load(&sy->pad) != b && !pf_load(&sy->fail))
                    __nanosleep(32);
                __syncwarp();
                __threadfence_block();
                uint32_t base = blk[b].out, size = blk[b].ok ? blk[b].dsize : 0;
                __syncwarp();
                if (lane == 0) {
                    if (b + 1 < nb)
                        blk[b + 1].out = base + size;
                    __threadfence_block();
                    *(volatile unsigned int *)&sy->pad = b + 1;
                }
                if (blk[b].ok && (uint64_t)base + size <= caps[c])
                    bf_lits(&blk[b], ring + (b % R) * PF_SLOT, src, out + base);
                __syncwarp();
                __threadfence_block();
            }
            if (lane == 0)
                *(volatile int *)&sy->ready[b % R] = (int)b;
        }
    }
}

#include "zstd_dec_ooo.cuh" /* v9: several executor warps a frame (bf_ooo) */

/* ---- host ------------------------------------------------------------------ */

static bytes read_file(const char *path, size_t max)
{
    bytes b(max);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    b.resize(fread(b.data(), 1, max, f));
    fclose(f);
    return b;
}

static bytes zcompress(const uint8_t *p, size_t n, int level)
{
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    bytes out(ZSTD_compressBound(n));
    size_t r = ZSTD_compress2(c, out.data(), out.size(), p, n);
    ZSTD_freeCCtx(c);
    if (ZSTD_isError(r))
        exit(2);
    out.resize(r);
    return out;
}

static size_t parse_size(const char *s)
{
    char *e;
    double v = strtod(s, &e);
    if (*e == 'K' || *e == 'k')
        v *= 1024;
    else if (*e == 'M' || *e == 'm')
        v *= 1024 * 1024;
    else if (*e == 'G' || *e == 'g')
        v *= 1024.0 * 1024 * 1024;
    return (size_t)v;
}

static double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

static int g_fail = 0;
static int g_quick = 0;  /* --quick: no v5, v7 or 8-warp v8 */
static int g_ooo = 0;    /* --ooo: the library's three, v8 (4 warps) and v9 only */
static int g_v9only = 0; /* --v9only: v9 alone (for the sanitizers) */
/* --v9cfg K[,K...]: those v9 shapes alone (0: 4+4, 1: 2+2, 2: 3+5, 3: 2+6, 4: v9s 4+4, 5: v9s 3+5, 6: 3+5
 * with 6 slots; session 12's small CTAs for 256 KiB - 1 MiB frames, registers cut so the CTAs an SM
 * hold every frame of a 1 GiB batch of 1 MiB at once: 7: 1+1 with 2 slots, 8: 1+1 with 4 slots, both
 * 8 CTAs an SM; 9: 1+2 with 3 slots, 6 an SM; 10: 2+2 with 3 slots, 4 an SM; 11: 3+5 with 8 slots and
 * the end's XXH64 as before session 12, byte loads, zstd_dev_xxh.cuh: the baseline of 2, whose end is the
 * library's zd_pf_end).  None given: 0-3 and 6
 * (and 4-5 with --v9s) */
static unsigned g_v9cfg = 0;
#define BF_NCFG 12
static int g_v9s = 0;  /* --v9s: the v9s shapes (4, 5) instead of v9's (0-3) */
static int g_minb = 0; /* --minb: the library's per-chunk kernel also at MINB 3 and 5 */
static int g_nov8 = 0; /* --no-v8: no v8 line (the small v9 shapes' runs) */

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* a timeout keeps the lines already printed */
    std::vector<size_t> chunks = {1u << 20, 4u << 20};
    size_t total = (size_t)1 << 30;
    int reps = 5, level = 3;
    std::vector<const char *> files;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--chunks") && a + 1 < argc) {
            chunks.clear();
            std::string s = argv[++a];
            size_t p = 0;
            while (p < s.size()) {
                size_t q = s.find(',', p);
                if (q == std::string::npos)
                    q = s.size();
                chunks.push_back(parse_size(s.substr(p, q - p).c_str()));
                p = q + 1;
            }
        } else if (!strcmp(argv[a], "--total") && a + 1 < argc) {
            total = parse_size(argv[++a]);
        } else if (!strcmp(argv[a], "--reps") && a + 1 < argc) {
            reps = atoi(argv[++a]);
        } else if (!strcmp(argv[a], "--ooo")) {
            g_ooo = g_quick = 1;
        } else if (!strcmp(argv[a], "--v9only")) {
            g_v9only = g_ooo = g_quick = 1;
        } else if (!strcmp(argv[a], "--v9s")) {
            g_v9s = 1;
        } else if (!strcmp(argv[a], "--v9cfg") && a + 1 < argc) {
            for (const char *q = argv[++a]; *q; q++)
                if (*q >= '0' && *q <= '9') {
                    int k = (int)strtol(q, (char **)&q, 10);
                    if (k < BF_NCFG)
                        g_v9cfg |= 1u << k;
                    if (!*q)
                        break;
                }
        } else if (!strcmp(argv[a], "--no-v8")) {
            g_nov8 = 1;
        } else if (!strcmp(argv[a], "--minb")) {
            g_minb = 1;
        } else if (!strcmp(argv[a], "--quick")) {
            g_quick = 1;
        } else if (!strcmp(argv[a], "--level") && a + 1 < argc) {
            level = atoi(argv[++a]);
        } else {
            files.push_back(argv[a]);
        }
    }
    if (files.empty()) {
        fprintf(stderr,
                "usage: zstd_bigframe [--chunks 1M,4M] [--total B] [--reps N] [--level L] "
                "[--quick | --ooo | --v9only] [--v9s] [--v9cfg K[,K...]] [--minb] [--no-v8] FILE...\n");
        return 2;
    }
    cudaStream_t s = 0;
    cudaEvent_t ev[8];
    for (auto &e : ev)
        CUDA_OK(cudaEventCreate(&e));
    for (size_t cs : chunks) {
        for (const char *path : files) {
            bytes data = read_file(path, (size_t)64 << 20);
            std::vector<bytes> z;
            std::vector<size_t> rawoff, rawlen;
            for (size_t p = 0; p + cs <= data.size() || (p == 0 && data.size() > 0); p += cs) {
                size_t m = std::min(cs, data.size() - p);
                z.push_back(zcompress(data.data() + p, m, level));
                rawoff.push_back(p);
                rawlen.push_back(m);
                if (m < cs)
                    break;
            }
            size_t m = z.size(), per = 0;
            for (size_t i = 0; i < m; i++)
                per += rawlen[i];
            size_t copies = std::max<size_t>(1, total / per), n = m * copies;
            /* upload: compressed chunks and outputs in distinct memory */
            std::vector<size_t> coff(n), ooff(n), ssz(n), cap(n);
            size_t ct = 0, ot = 0;
            for (size_t i = 0; i < n; i++) {
                coff[i] = ct;
                ssz[i] = z[i % m].size();
                ct += (ssz[i] + 255) & ~(size_t)255;
                ooff[i] = ot;
                cap[i] = rawlen[i % m];
                ot += (cap[i] + 255) & ~(size_t)255;
            }
            uint8_t *dcomp, *dout;
            CUDA_OK(cudaMalloc(&dcomp, ct));
            CUDA_OK(cudaMalloc(&dout, ot));
            {
                bytes hc(ct);
                for (size_t i = 0; i < n; i++)
                    memcpy(hc.data() + coff[i], z[i % m].data(), ssz[i]);
                CUDA_OK(cudaMemcpy(dcomp, hc.data(), ct, cudaMemcpyHostToDevice));
            }
            std::vector<void *> sp(n), dp(n);
            for (size_t i = 0; i < n; i++) {
                sp[i] = dcomp + coff[i];
                dp[i] = dout + ooff[i];
            }
            void **dsrc, **ddst;
            size_t *dssz, *dcap, *ddsz;
            oc_status *dst_st;
            CUDA_OK(cudaMalloc(&dsrc, n * sizeof(void *)));
            CUDA_OK(cudaMalloc(&ddst, n * sizeof(void *)));
            CUDA_OK(cudaMalloc(&dssz, n * sizeof(size_t)));
            CUDA_OK(cudaMalloc(&dcap, n * sizeof(size_t)));
            CUDA_OK(cudaMalloc(&ddsz, n * sizeof(size_t)));
            CUDA_OK(cudaMalloc(&dst_st, n * sizeof(oc_status)));
            CUDA_OK(cudaMemcpy(dsrc, sp.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
            CUDA_OK(cudaMemcpy(ddst, dp.data(), n * sizeof(void *), cudaMemcpyHostToDevice));
            CUDA_OK(cudaMemcpy(dssz, ssz.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
            CUDA_OK(cudaMemcpy(dcap, cap.data(), n * sizeof(size_t), cudaMemcpyHostToDevice));
            double gb = (double)(per * copies) / 1e9;
            bytes host(ot);
            auto verify = [&](const char *what) {
                CUDA_OK(cudaMemcpy(host.data(), dout, ot, cudaMemcpyDeviceToHost));
                size_t bad = 0;
                for (size_t i = 0; i < n; i++)
                    bad += memcmp(host.data() + ooff[i], data.data() + rawoff[i % m], cap[i]) != 0;
                if (bad) {
                    g_fail++;
                    fprintf(stderr, "FAIL %s %s chunk %zu: %zu of %zu outputs differ\n", what, path, cs, bad,
                            n);
                }
            };
            /* the library (as oc_gpu_bench calls it: device arrays, capacity unknown) */
            {
                oc_gpu_config cfg{};
                cfg.algorithm = OC_ALGO_ZSTD;
                cfg.max_capacity = (size_t)-1;
                size_t scr = oc_cuda_zstd_decompress_scratch_size(n, cfg.max_capacity);
                void *scratch;
                CUDA_OK(cudaMalloc(&scratch, scr));
                /* the per-chunk kernel, the automatic choice, the frame kernel named */
                /* --minb: the per-chunk kernel cut for 3 and 5 CTAs an SM too (165 / 102 registers) */
                static const int kinds[5] = {OC_ZSTD_DEC_PER_CHUNK, OC_ZSTD_DEC_AUTO, OC_ZSTD_DEC_FRAMES,
                                             OC_ZSTD_DEC_PER_CHUNK, OC_ZSTD_DEC_PER_CHUNK},
                                 minb[5] = {4, 4, 4, 3, 5};
                static const char *names[5] = {"library per-chunk kernel", "library auto",
                                               "library frame kernel", "library per-chunk kernel MINB 3",
                                               "library per-chunk kernel MINB 5"};
                for (int k = 0; k < (g_minb ? 5 : 3) && !g_v9only; k++) {
                    std::vector<double> t;
                    oc_cuda_zstd_debug_set_min_blocks(minb[k]);
                    for (int r = 0; r <= reps; r++) {
                        CUDA_OK(cudaMemset(dout, 0, ot));
                        CUDA_OK(cudaMemset(dst_st, 0xFF, n * sizeof(oc_status)));
                        CUDA_OK(cudaEventRecord(ev[0], s));
                        oc_status st = oc_cuda_zstd_decompress_with(
                            scratch, scr, &cfg, kinds[k], n, (const void *const *)dsrc, dssz,
                            (void *const *)ddst, dcap, ddsz, dst_st, s);
                        CUDA_OK(cudaEventRecord(ev[1], s));
                        CUDA_OK(cudaEventSynchronize(ev[1]));
                        if (st != OC_OK)
                            exit(2);
                        float ms;
                        CUDA_OK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
                        if (r > 0)
                            t.push_back(ms);
                    }
                    std::vector<oc_status> hs(n);
                    CUDA_OK(cudaMemcpy(hs.data(), dst_st, n * sizeof(oc_status), cudaMemcpyDeviceToHost));
                    size_t notok = 0;
                    for (auto x : hs)
                        notok += x != OC_OK;
                    if (notok) {
                        g_fail++;
                        fprintf(stderr, "FAIL %s: %zu chunks not OK\n", names[k], notok);
                    }
                    verify(names[k]);
                    if (k == 0)
                        printf("%s chunk %zu KiB x %zu:\n", path, cs >> 10, n);
                    printf("  %s %.2f GB/s (%.2f ms)\n", names[k], gb / (median(t) / 1e3), median(t));
                }
                oc_cuda_zstd_debug_set_min_blocks(4);
                cudaFree(scratch);
            }
            /* v5 / v7: host plan (one wave) */
            std::vector<BfChunk> hch(n);
            std::vector<uint32_t> list;
            size_t region = 0, nseq = 0;
            BfChunk *dch;
            CUDA_OK(cudaMalloc(&dch, n * sizeof(BfChunk)));
            bf_scan<<<(unsigned)((n + 127) / 128), 128>>>(n, (const void *const *)dsrc, dssz, dcap, dch);
            CUDA_OK(cudaMemcpy(hch.data(), dch, n * sizeof(BfChunk), cudaMemcpyDeviceToHost));
            for (size_t i = 0; i < n; i++) {
                BfChunk &x = hch[i];
                if (!x.ok) {
                    fprintf(stderr, "FAIL: chunk %zu not on the path\n", i);
                    g_fail++;
                    continue;
                }
                x.off = region;
                region += (x.need + 255) & ~(size_t)255;
                nseq += x.f.nseq_total;
                for (uint32_t b = 0; b < x.f.nb; b++)
                    list.push_back((uint32_t)i << 12 | b);
            }
            uint8_t *dregion;
            uint32_t *dlist;
            CUDA_OK(cudaMalloc(&dregion, region + 256));
            CUDA_OK(cudaMalloc(&dlist, list.size() * sizeof(uint32_t)));
            CUDA_OK(cudaMemcpy(dlist, list.data(), list.size() * sizeof(uint32_t), cudaMemcpyHostToDevice));
            size_t nb = list.size();
            unsigned tg = (unsigned)((n + 127) / 128), bg = (unsigned)((nb + BF_WARPS - 1) / BF_WARPS),
                     fg = (unsigned)((n + BF_WARPS - 1) / BF_WARPS);
            for (int v = 5; v <= 7 && !g_quick; v += 2) {
                std::vector<double> step[5], tot;
                for (int r = 0; r <= reps; r++) {
                    CUDA_OK(cudaMemcpy(dch, hch.data(), n * sizeof(BfChunk), cudaMemcpyHostToDevice));
                    CUDA_OK(cudaMemset(dout, 0, ot));
                    CUDA_OK(cudaEventRecord(ev[0], s));
                    bf_layout<<<tg, 128, 0, s>>>(n, (const void *const *)dsrc, dssz, dcap, dch, dregion);
                    CUDA_OK(cudaEventRecord(ev[1], s));
                    bf_entropy<<<bg, BF_WARPS * 32, 0, s>>>(nb, dlist, (const void *const *)dsrc, dch,
                                                            dregion);
                    CUDA_OK(cudaEventRecord(ev[2], s));
                    bf_resolve<<<tg, 128, 0, s>>>(n, dcap, dch, dregion);
                    CUDA_OK(cudaEventRecord(ev[3], s));
                    if (v == 5) {
                        bf_exec5<<<fg, BF_WARPS * 32, 0, s>>>(n, (const void *const *)dsrc,
                                                              (void *const *)ddst, dch, dregion);
                        CUDA_OK(cudaEventRecord(ev[4], s));
                    } else {
                        bf_pass1<<<bg, BF_WARPS * 32, 0, s>>>(nb, dlist, (const void *const *)dsrc,
                                                              (void *const *)ddst, dch, dregion);
                        CUDA_OK(cudaEventRecord(ev[4], s));
                        bf_pass2<<<fg, BF_WARPS * 32, 0, s>>>(n, (const void *const *)dsrc,
                                                              (void *const *)ddst, dch, dregion);
                    }
                    CUDA_OK(cudaEventRecord(ev[5], s));
                    CUDA_OK(cudaEventSynchronize(ev[5]));
                    CUDA_OK(cudaGetLastError());
                    if (r == 0)
                        continue;
                    for (int k = 0; k < 5; k++) {
                        float ms;
                        CUDA_OK(cudaEventElapsedTime(&ms, ev[k], ev[k + 1]));
                        step[k].push_back(ms);
                    }
                    float ms;
                    CUDA_OK(cudaEventElapsedTime(&ms, ev[0], ev[5]));
                    tot.push_back(ms);
                }
                std::vector<BfChunk> back(n);
                CUDA_OK(cudaMemcpy(back.data(), dch, n * sizeof(BfChunk), cudaMemcpyDeviceToHost));
                size_t gaveup = 0;
                for (auto &x : back)
                    gaveup += !x.ok;
                if (gaveup) {
                    g_fail++;
                    fprintf(stderr, "FAIL v%d: %zu frames gave up\n", v, gaveup);
                }
                verify(v == 5 ? "v5" : "v7");
                printf("  v%d %.2f GB/s (%.2f ms): layout %.2f, entropy %.2f, resolve %.2f, %s %.2f, %s %.2f "
                       "ms\n",
                       v, gb / (median(tot) / 1e3), median(tot), median(step[0]), median(step[1]),
                       median(step[2]), v == 5 ? "execute" : "pass1", median(step[3]), v == 5 ? "-" : "pass2",
                       median(step[4]));
                if (v == 7) {
                    /* deferred share: the block records of the first copy */
                    size_t ndef = 0, ns = 0;
                    for (size_t i = 0; i < m; i++) {
                        std::vector<zd_bp_block> blk(hch[i].f.nb);
                        CUDA_OK(cudaMemcpy(blk.data(), dregion + hch[i].off, blk.size() * sizeof(zd_bp_block),
                                           cudaMemcpyDeviceToHost));
                        for (auto &b : blk) {
                            ndef += b.ndef;
                            ns += b.nseq;
                        }
                    }
                    printf("  v7 deferred %zu of %zu sequences (%.1f%%); region %.0f MiB, %zu blocks\n", ndef,
                           ns, 100.0 * ndef / (ns ? ns : 1), region / 1048576.0, nb);
                }
            }
            /* v8: layout, then the pipeline (a CTA per frame), two shapes */
            for (int cfgi = 0; cfgi < 4; cfgi++) {
                if ((g_quick && cfgi == 1) || (g_ooo && cfgi > 0) || g_v9only || g_nov8)
                    continue;
                int nw = cfgi == 1 ? 8 : 4, rr = nw;
                void (*kern)(size_t, const void *const *, void *const *, const size_t *, BfChunk *, uint8_t *,
                             uint8_t *, PfSync *) = cfgi == 0   ? bf_pipe<4, 4, 0>
                                                    : cfgi == 1 ? bf_pipe<8, 8, 0>
                                                    : cfgi == 2 ? bf_pipe<4, 4, 1>
                                                                : bf_pipe<4, 4, 2>;
                unsigned smem = (unsigned)(nw * sizeof(zd_tables));
                CUDA_OK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
                uint8_t *dslots;
                PfSync *dsync;
                CUDA_OK(cudaMalloc(&dslots, n * rr * PF_SLOT));
                CUDA_OK(cudaMalloc(&dsync, n * sizeof(PfSync)));
                std::vector<double> step[2], tot;
                for (int r = 0; r <= reps; r++) {
                    CUDA_OK(cudaMemcpy(dch, hch.data(), n * sizeof(BfChunk), cudaMemcpyHostToDevice));
                    CUDA_OK(cudaMemset(dout, 0, ot));
                    CUDA_OK(cudaEventRecord(ev[0], s));
                    bf_layout<<<tg, 128, 0, s>>>(n, (const void *const *)dsrc, dssz, dcap, dch, dregion);
                    CUDA_OK(cudaEventRecord(ev[1], s));
                    kern<<<(unsigned)n, nw * 32, smem, s>>>(n, (const void *const *)dsrc, (void *const *)ddst,
                                                            dcap, dch, dregion, dslots, dsync);
                    CUDA_OK(cudaEventRecord(ev[2], s));
                    CUDA_OK(cudaEventSynchronize(ev[2]));
                    CUDA_OK(cudaGetLastError());
                    if (r == 0)
                        continue;
                    for (int k = 0; k < 2; k++) {
                        float ms;
                        CUDA_OK(cudaEventElapsedTime(&ms, ev[k], ev[k + 1]));
                        step[k].push_back(ms);
                    }
                    float ms;
                    CUDA_OK(cudaEventElapsedTime(&ms, ev[0], ev[2]));
                    tot.push_back(ms);
                }
                std::vector<BfChunk> back(n);
                CUDA_OK(cudaMemcpy(back.data(), dch, n * sizeof(BfChunk), cudaMemcpyDeviceToHost));
                size_t gaveup = 0;
                for (auto &x : back)
                    gaveup += !x.ok;
                if (gaveup) {
                    g_fail++;
                    fprintf(stderr, "FAIL v8: %zu frames gave up\n", gaveup);
                }
                verify("v8");
                printf("  v8%s %.2f GB/s (%.2f ms): layout %.2f, pipeline %.2f ms (%d warps a frame, %d "
                       "slots%s)\n",
                       cfgi == 2   ? "b"
                       : cfgi == 3 ? "c"
                                   : "",
                       gb / (median(tot) / 1e3), median(tot), median(step[0]), median(step[1]), nw, rr,
                       cfgi == 2   ? ", L2 prefetch"
                       : cfgi == 3 ? ", literals by the entropy warps"
                                   : "");
                cudaFree(dslots);
                cudaFree(dsync);
            }
            /* v9: layout, then E executor warps and NE entropy warps a frame (zstd_dec_ooo.cuh) */
            if (g_v9only)
                printf("%s chunk %zu KiB x %zu:\n", path, cs >> 10, n);
            for (int cfgi = 0; cfgi < BF_NCFG; cfgi++) {
                if ((g_v9cfg && !(g_v9cfg >> cfgi & 1)) ||
                    (!g_v9cfg && (cfgi >= 7 || (cfgi >= 4 && cfgi < 6 && !g_v9s))))
                    continue;
                static const int ee[BF_NCFG] = {4, 2, 3, 2, 4, 3, 3, 1, 1, 1, 2, 3},
                                 ne[BF_NCFG] = {4, 2, 5, 6, 4, 5, 5, 1, 1, 2, 2, 5},
                                 rs[BF_NCFG] = {8, 4, 8, 8, 8, 8, 6, 2, 4, 3, 3, 8};
                int nw = ee[cfgi] + ne[cfgi], rr = rs[cfgi];
                void (*kern)(size_t, const void *const *, void *const *, const size_t *, BfChunk *, uint8_t *,
                             uint8_t *, OoSync *) = cfgi == 0    ? bf_ooo<4, 4, 8, 0>
                                                    : cfgi == 1  ? bf_ooo<2, 2, 4, 0>
                                                    : cfgi == 2  ? bf_ooo<3, 5, 8, 0>
                                                    : cfgi == 3  ? bf_ooo<2, 6, 8, 0>
                                                    : cfgi == 4  ? bf_ooo<4, 4, 8, 1>
                                                    : cfgi == 5  ? bf_ooo<3, 5, 8, 1>
                                                    : cfgi == 6  ? bf_ooo<3, 5, 6, 0>
                                                    : cfgi == 7  ? bf_ooo<1, 1, 2, 0, 8>
                                                    : cfgi == 8  ? bf_ooo<1, 1, 4, 0, 8>
                                                    : cfgi == 9  ? bf_ooo<1, 2, 3, 0, 6>
                                                    : cfgi == 10 ? bf_ooo<2, 2, 3, 0, 4>
                                                                 : bf_ooo<3, 5, 8, 0, 1, 1>;
                unsigned smem = (unsigned)(nw * sizeof(zd_tables) + (cfgi == 4 || cfgi == 5 ? OO_W * 2 : 0));
                CUDA_OK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
                /* two CTAs an SM (256 frames at once on 132 SMs) need the largest shared-memory carveout */
                CUDA_OK(cudaFuncSetAttribute(kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                                             cudaSharedmemCarveoutMaxShared));
                int per_sm = 0;
                CUDA_OK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, nw * 32, smem));
                uint8_t *dslots;
                OoSync *dsync;
                CUDA_OK(cudaMalloc(&dslots, n * rr * OO_SLOT));
                CUDA_OK(cudaMalloc(&dsync, n * sizeof(OoSync)));
                std::vector<double> step[2], tot;
                for (int r = 0; r <= reps; r++) {
                    CUDA_OK(cudaMemcpy(dch, hch.data(), n * sizeof(BfChunk), cudaMemcpyHostToDevice));
                    CUDA_OK(cudaMemset(dout, 0, ot));
                    CUDA_OK(cudaEventRecord(ev[0], s));
                    bf_layout<<<tg, 128, 0, s>>>(n, (const void *const *)dsrc, dssz, dcap, dch, dregion);
                    CUDA_OK(cudaEventRecord(ev[1], s));
                    kern<<<(unsigned)n, nw * 32, smem, s>>>(n, (const void *const *)dsrc, (void *const *)ddst,
                                                            dcap, dch, dregion, dslots, dsync);
                    CUDA_OK(cudaEventRecord(ev[2], s));
                    CUDA_OK(cudaEventSynchronize(ev[2]));
                    CUDA_OK(cudaGetLastError());
                    if (r == 0)
                        continue;
                    for (int k = 0; k < 2; k++) {
                        float ms;
                        CUDA_OK(cudaEventElapsedTime(&ms, ev[k], ev[k + 1]));
                        step[k].push_back(ms);
                    }
                    float ms;
                    CUDA_OK(cudaEventElapsedTime(&ms, ev[0], ev[2]));
                    tot.push_back(ms);
                }
                std::vector<BfChunk> back(n);
                CUDA_OK(cudaMemcpy(back.data(), dch, n * sizeof(BfChunk), cudaMemcpyDeviceToHost));
                size_t gaveup = 0;
                for (auto &x : back)
                    gaveup += !x.ok;
                if (gaveup) {
                    g_fail++;
                    fprintf(stderr, "FAIL v9 %d+%d: %zu frames gave up\n", ee[cfgi], ne[cfgi], gaveup);
                }
                verify("v9");
                printf("  v9%s %.2f GB/s (%.2f ms): layout %.2f, pipeline %.2f ms (%d executor + %d entropy "
                       "warps a frame, %d slots, %d CTAs an SM)\n",
                       cfgi == 4 || cfgi == 5 ? "s"
                       : cfgi == 11           ? " old-xxh"
                                              : "",
                       gb / (median(tot) / 1e3), median(tot), median(step[0]), median(step[1]), ee[cfgi],
                       ne[cfgi], rr, per_sm);
                cudaFree(dslots);
                cudaFree(dsync);
            }
            (void)nseq;
            cudaFree(dch);
            cudaFree(dregion);
            cudaFree(dlist);
            cudaFree(dcomp);
            cudaFree(dout);
            cudaFree(dsrc);
            cudaFree(ddst);
            cudaFree(dssz);
            cudaFree(dcap);
            cudaFree(ddsz);
            cudaFree(dst_st);
        }
    }
    printf(g_fail ? "FAILED (%d)\n" : "all outputs verified\n", g_fail);
    return g_fail != 0;
}
