/*
 * zstd_decode.cu - the GPU Zstandard decompression kernel and its launcher.
 *
 * A grid of W warps (W = min(n, (scratch - ZD_COUNTER_BYTES) / slot,
 * OC_ZSTD_GPU_MAX_WARPS)); each warp takes the next chunk from a counter at
 * the start of the scratch until none is left (dynamic: chunks differ in
 * cost, and a fixed share per warp left a quarter of the SMs' warps idle at
 * the end; ncu: 11.2 of 16 warps active).  Each warp owns its tables in
 * shared memory (zd_tables, ~9.3 KiB) and one literal buffer (`slot` bytes)
 * in the scratch.  The decoder itself is zstd_decode_core.h, shared with the
 * CPU-side checks, so what CI tests on the host is what runs here.
 *
 * Batches of many small chunks take the lane-parallel kernel instead
 * (zstd_dec_lanes.h, "v6b": a warp decodes a group of G chunks, each lane
 * the FSE sequences of its own chunk, the literals decoded into the tail of
 * the chunk's own output; a chunk of another shape, or one the header rule
 * sends away, is decoded by the per-chunk core inside the same warp,
 * statuses unchanged).  The choice per batch (zl_pick): capacities <=
 * OC_ZSTD_GPU_LANE_MAX_CAPACITY or unknown on the host, groups of 4 (ZL_G)
 * for at least 7/8 of the warp slots the GPU holds, and scratch for every
 * such warp; the choice per chunk is zstd_dec_lanes.h's, from the frame,
 * block, literal and sequence headers.  bench/gpu/zstd/NOTES.md "Run 6" has
 * the design, "Run 9" why the groups are 4 chunks with their decoding
 * tables in shared memory.
 *
 * Chunks that are one frame of several blocks (zarr's MB-sized chunks) can
 * take the frame kernel (zf_decode_kernel, zstd_dec_frame.h, "v9"): a CTA
 * per frame, its entropy warps decoding the blocks into a ring of slots
 * while its executor warps run the decoded batches of sequences out of
 * order, each late match waiting only for the bytes below its source; the
 * per-chunk kernel runs after it and decodes every chunk it did not finish,
 * so statuses stay the per-chunk kernel's.  NOTES.md "Run 7" has why blocks do not execute in
 * parallel (measured on real frames), "Run 11" the executors and their A/B.
 */
#include "zstd_gpu.h"

#ifdef ZD_PROFILE
__device__ unsigned long long zd_prof[8]; /* per-phase cycles, see zstd_decode_core.h */
#endif

#include "zstd_dec_frame.h"
#include "zstd_dec_lanes.h"

#define ZD_WARPS_PER_BLOCK 4
#define ZD_COUNTER_BYTES 256 /* the next-chunk counter, keeping the slots aligned */

/* the frame kernel (zf_decode_kernel below): ZF_EXEC executor warps and ZF_ENT entropy warps a CTA */
#define ZF_EXEC 3
#define ZF_ENT 5
#define ZF_WARPS (ZF_EXEC + ZF_ENT)
#define ZF_R 8 /* slots: the blocks decoded ahead of the oldest one executing */
/* a block's literals + sequences (<= 281 KiB on the corpus at -5..19), then its batches' starts
 * (<= 1366 of 8 bytes: 43690 sequences at most) */
#define ZF_SLOT_DATA ((size_t)320 << 10)
#define ZF_SLOT (ZF_SLOT_DATA + ((size_t)12 << 10))
/* blocks of a frame on this path: libzstd cuts incompressible 4 MiB frames into ~260 */
#define ZF_MAXB 1024u
#define ZF_SYNC 256 /* the CTA's flags */
#define ZF_BLK ((((size_t)ZF_MAXB * sizeof(zd_bp_block)) + 255) & ~(size_t)255)
#define ZF_CTA_BYTES (ZF_SYNC + ZF_BLK + ZF_R * ZF_SLOT)
#define ZF_HEAD(n) ((256 + (size_t)(n) + 255) & ~(size_t)255) /* counter, done[n] */

#ifdef ZD_PROFILE

extern "C" void oc_cuda_zstd_debug_profile(unsigned long long out[8], int reset)
{
    cudaMemcpyFromSymbol(out, zd_prof, sizeof zd_prof);
    if (reset) {
        static const unsigned long long zero[8] = {0};
        cudaMemcpyToSymbol(zd_prof, zero, sizeof zero);
    }
}
#endif

static size_t zd_slot_bytes(size_t max_dst_capacity)
{
    size_t s = max_dst_capacity < ZD_BLOCK_MAX ? max_dst_capacity : ZD_BLOCK_MAX;
    if (s == 0)
        s = 1;
    return (s + 255) & ~(size_t)255;
}

/* The lane-parallel kernel's scratch per warp: a literal slot (for the
 * chunks the per-chunk core decodes) and ZL_GROUP_MAX table slots (the
 * literals of the chunks on the path go into their own outputs). */
#define ZL_GROUP_MAX                                                                                         \
    ZL_G /* the group zl_pick takes (4: the lane decode's tables in shared memory, NOTES.md "Run 9") */
static size_t zl_warp_bytes(size_t max_dst_capacity)
{
    return zd_slot_bytes(max_dst_capacity) + ZL_GROUP_MAX * ZL_TAB_ENTRIES * sizeof(zd_fse_entry);
}

/* The largest batch the scratch query sizes a frame-kernel CTA per chunk
 * for (2 an SM of a 132-SM GPU: every 4 MiB frame of a 1 GiB call at once). */
#define ZF_CTAS_MAX 264

extern "C" size_t oc_cuda_zstd_decompress_scratch_size(size_t n, size_t max_dst_capacity)
{
    size_t w = n < OC_ZSTD_GPU_MAX_WARPS ? n : OC_ZSTD_GPU_MAX_WARPS;
    if (w == 0)
        w = 1;
    size_t b = ZD_COUNTER_BYTES + w * zd_slot_bytes(max_dst_capacity);
    if (max_dst_capacity <= OC_ZSTD_GPU_LANE_MAX_CAPACITY || max_dst_capacity == SIZE_MAX) {
        /* the lane-parallel kernel: a warp per group of at least 4 chunks,
         * at most OC_ZSTD_GPU_LANE_WARPS warps */
        size_t lw = (n + 3) / 4;
        if (lw > OC_ZSTD_GPU_LANE_WARPS)
            lw = OC_ZSTD_GPU_LANE_WARPS;
        size_t bl = ZD_COUNTER_BYTES + (lw ? lw : 1) * zl_warp_bytes(max_dst_capacity);
        b = bl > b ? bl : b;
    }
    if (max_dst_capacity > ZD_BLOCK_MAX) {
        /* the frame kernel: its head, then its CTAs' areas over the same
         * bytes as the per-chunk kernel's slots (it runs first); a CTA per
         * chunk for batches it can hold at once, the only ones the automatic
         * choice gives it (larger batches: the per-chunk kernel's bytes,
         * which the named kernel then shares among fewer CTAs) */
        size_t bf = n <= ZF_CTAS_MAX ? n * ZF_CTA_BYTES : 0;
        b = ZF_HEAD(n) + (bf > b ? bf : b);
    }
    return b;
}

/* MINB: blocks per SM the register budget is cut for (3: ~165 registers, no
 * spills; 4: 128; 5: ~102).  More resident warps hide more latency; fewer
 * registers may spill.  See bench/gpu/zstd/NOTES.md for the measurements. */
template <int MINB>
__global__ void __launch_bounds__(ZD_WARPS_PER_BLOCK * 32, MINB)
    zd_decode_kernel(size_t n, const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                     const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses, uint8_t *scratch,
                     size_t slot, size_t nwarps, const uint8_t *done)
{
    __shared__ zd_tables tables[ZD_WARPS_PER_BLOCK];
    size_t warp_in_block = threadIdx.x >> 5;
    size_t warp = (size_t)blockIdx.x * ZD_WARPS_PER_BLOCK + warp_in_block;
    if (warp >= nwarps)
        return;
    zd_tables *T = &tables[warp_in_block];
    unsigned long long *next = (unsigned long long *)scratch;
    uint8_t *litbuf = scratch + ZD_COUNTER_BYTES + warp * slot;
    for (;;) {
        unsigned long long c = 0;
        if ((threadIdx.x & 31) == 0)
            c = atomicAdd(next, 1ull);
        c = __shfl_sync(0xFFFFFFFFu, c, 0);
        if (c >= n)
            break;
        if (done && done[c])
            continue; /* decoded by the frame kernel */
        size_t out = 0;
        ZD_PROF_START(t_chunk);
        oc_status st = zd_decode_chunk(T, (const uint8_t *)src_ptrs[c], src_sizes[c], (uint8_t *)dst_ptrs[c],
                                       dst_caps[c], &out, litbuf, slot);
        ZD_PROF_END(5, t_chunk);
        if ((threadIdx.x & 31) == 0) {
            if (dst_sizes)
                dst_sizes[c] = out;
            if (statuses)
                statuses[c] = st;
        }
    }
}

/* ---- the frame kernel for chunks that are one frame of several blocks (zstd_dec_frame.h): a CTA
 * of ZF_EXEC + ZF_ENT warps per frame, CTAs taking frames from a counter.  Thread 0 scans the frame
 * (block records into the CTA's area); the entropy warps take blocks in order and decode each into
 * slot b mod ZF_R of the CTA's ring once every executor is done with block b - ZF_R, and write each
 * batch's output and literal start after it (zf_batch_starts); the executor warps take the frame's
 * batches of 32 sequences round-robin and execute them out of order ("v9", bench/gpu/zstd/NOTES.md
 * "Run 11"; v8 had one executor warp, in order): literal runs and independent matches whose source
 * lies below the frontier at once, the rest once the frontier covers what they read before the
 * batch.  The frontier is the minimum of the executors' published positions (s_pub, shared memory,
 * atomics): warp w's value p says every byte below p that w owns is written.  Every wait is on bytes
 * at lower positions and all warps of a CTA are resident, so the lowest unfinished batch always
 * progresses.  Warp 0 checks content size and checksum once the frontier reaches the frame's end.  A
 * frame it decodes gets OK, its size and done[c] = 1; any other chunk (and any frame that fails here)
 * is left to the per-chunk kernel, which runs after it and gives the exact status.  The hand-over
 * flags between entropy and executor warps are in the CTA's area in global memory (volatile loads
 * after fences). */
typedef struct zf_sync {
    unsigned int next, fail, pad0, pad1;
    int ready[ZF_R];
    unsigned int bdone[ZF_EXEC]; /* blocks each executor is done with (slot release) */
} zf_sync;

static __device__ __forceinline__ unsigned int zf_load(const unsigned int *p)
{
    return *(const volatile unsigned int *)p;
}

/* An entropy warp's last step for a block: batch i's output and literal start (block-relative) into
 * starts[i]; lane j sums the 32 sequences of batch k + j, then a warp prefix sum with a carry. */
static __device__ void zf_batch_starts(const zd_bp_seq *sq, uint32_t nseq, uint2 *starts)
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

/* The frontier: every byte of the frame below it is written. */
static __device__ __forceinline__ uint32_t zf_frontier(unsigned int *s_pub)
{
    uint32_t lane = threadIdx.x & 31;
    uint32_t v = lane < ZF_EXEC ? atomicOr(&s_pub[lane], 0u) : 0xFFFFFFFFu;
    return __reduce_min_sync(0xFFFFFFFFu, v);
}

/* Executor w: every byte it owns below p is written (after a fence). */
static __device__ __forceinline__ void zf_publish(unsigned int *s_pub, uint32_t w, uint32_t p)
{
    __syncwarp();
    __threadfence_block();
    if ((threadIdx.x & 31) == 0)
        atomicMax(&s_pub[w], p);
    __syncwarp();
}

/* The matches of the batch staged in T (the block at out + pos of the frame, the batch at bop): the
 * independent ones whose sources are written now, the rest once the frontier covers what they read
 * before the batch (those a lane each, the in-batch dependent ones in order by the warp, as
 * zd_exec_matches).  0 when the frame failed elsewhere while waiting. */
static __device__ int zf_matches(zd_tables *T, uint8_t *o, uint32_t cnt, uint32_t bop, uint32_t pos,
                                 unsigned int *s_pub, const zf_sync *sy)
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
    uint32_t fr = zf_frontier(s_pub);
    __threadfence_block();
    int now = ml == 0 || (indep && send <= fr);
    if (now && ml)
        zd_copy_lane(o + mpos, o + mpos - off, ml);
    if (__ballot_sync(0xFFFFFFFFu, !now) == 0u) {
        __syncwarp();
        return 1;
    }
    uint32_t need = now || sstart >= bstart ? 0u : (send < bstart ? send : bstart);
    need = __reduce_max_sync(0xFFFFFFFFu, need);
    while (fr < need) {
        if (zf_load(&sy->fail))
            return 0;
        __nanosleep(32);
        fr = zf_frontier(s_pub);
    }
    __threadfence_block();
    if (!now && indep)
        zd_copy_lane(o + mpos, o + mpos - off, ml);
    uint32_t dep = __ballot_sync(0xFFFFFFFFu, !indep);
    __syncwarp();
    zd_dep_matches(o, dep, mpos, off, ml);
    __syncwarp(); /* the next batch overwrites T->sq_* */
    return 1;
}

/* Executor warp w: its units (a batch of 32 sequences; a raw/RLE block or a block without sequences
 * is one unit) of every block, in order, with zd_pf_block's checks.  1 and *total on success. */
static __device__ int zf_exec(zd_tables *T, const uint8_t *src, const zd_bp_block *blk, uint32_t nb,
                              uint8_t *ring, uint8_t *out, size_t cap, zf_sync *sy, unsigned int *s_pub,
                              uint32_t w, uint32_t *total)
{
    uint32_t lane = threadIdx.x & 31;
    uint32_t rep[3] = {1, 4, 8}, pos = 0, g = 0;
    for (uint32_t b = 0; b < nb; b++) {
        const zd_bp_block *bk = &blk[b];
        uint8_t *slot = ring + (b % ZF_R) * ZF_SLOT;
        if (bk->type == 2) {
            while ((int)zf_load((const unsigned int *)&sy->ready[b % ZF_R]) != (int)b) {
                if (zf_load(&sy->fail))
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
            if (g % ZF_EXEC == w) {
                if (bk->type == 1) {
                    uint8_t v = src[bk->src];
                    for (uint32_t j = lane; j < bk->bsize; j += 32)
                        o[j] = v;
                } else {
                    zd_copy(o, src + bk->src, bk->bsize);
                }
            }
            g++;
            pos += bk->bsize;
            zf_publish(s_pub, w, pos);
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
        const uint2 *starts = (const uint2 *)(slot + ZF_SLOT_DATA);
        uint32_t nseq = bk->nseq, nbt = (nseq + 31) / 32, units = nbt ? nbt : 1;
        for (uint32_t i = (w + ZF_EXEC - g % ZF_EXEC) % ZF_EXEC; i < units; i += ZF_EXEC) {
            if (nbt == 0) {
                zd_copy(o, lit, bk->lsize);
                break;
            }
            uint2 st = starts[i];
            uint32_t bop = st.x, lp = st.y, b0 = bop;
            zf_publish(s_pub, w, pos + bop); /* everything this warp owns before the unit is written */
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
            if (!zf_matches(T, o, cnt, b0, pos, s_pub, sy))
                return 0;
            if (i == nbt - 1) /* the block's last literals */
                zd_copy(o + bop, lit + lp, bk->lsize - lp);
            __syncwarp();
        }
        for (int k = 0; k < 3; k++)
            rep[k] = nr[k];
        g += units;
        pos += bk->dsize;
        zf_publish(s_pub, w, pos);
        if (lane == 0)
            *(volatile unsigned int *)&sy->bdone[w] = b + 1;
    }
    *total = pos;
    return 1;
}

extern __shared__ zd_tables zf_tables[];

__global__ void __launch_bounds__(ZF_WARPS * 32, 2)
    zf_decode_kernel(size_t n, const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                     const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses, uint8_t *head,
                     uint8_t *area)
{
    __shared__ zd_bp_frame sf;
    __shared__ unsigned long long s_c;
    __shared__ int s_take;
    __shared__ unsigned int s_pub[ZF_EXEC];
    uint32_t warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    zd_tables *T = &zf_tables[warp];
    uint8_t *my = area + (size_t)blockIdx.x * ZF_CTA_BYTES;
    zf_sync *sy = (zf_sync *)my;
    zd_bp_block *blk = (zd_bp_block *)(my + ZF_SYNC);
    uint8_t *ring = my + ZF_SYNC + ZF_BLK;
    uint8_t *done = head + 256;
    for (;;) {
        if (threadIdx.x == 0) {
            unsigned long long c = atomicAdd((unsigned long long *)head, 1ull);
            int take = 0;
            if (c < n && src_ptrs[c] && dst_ptrs[c]) {
                const uint8_t *src = (const uint8_t *)src_ptrs[c];
                zd_bp_frame f;
                take = zd_bp_scan(src, src_sizes[c], dst_caps[c], &f, NULL) && f.nb <= ZF_MAXB &&
                       zd_bp_scan(src, src_sizes[c], dst_caps[c], &f, blk);
                sf = f;
            }
            sy->next = sy->fail = 0;
            for (int r = 0; r < ZF_R; r++)
                sy->ready[r] = -1;
            for (int v = 0; v < ZF_EXEC; v++)
                sy->bdone[v] = 0;
            s_c = c;
            s_take = take;
        }
        if (threadIdx.x < ZF_EXEC)
            s_pub[threadIdx.x] = 0;
        __syncthreads();
        unsigned long long c = s_c;
        if (c >= n)
            break;
        if (s_take) {
            const uint8_t *src = (const uint8_t *)src_ptrs[c];
            uint8_t *out = (uint8_t *)dst_ptrs[c];
            uint32_t nb = sf.nb;
            if (warp < ZF_EXEC) {
                uint32_t total = 0;
                int ok = zf_exec(T, src, blk, nb, ring, out, dst_caps[c], sy, s_pub, warp, &total);
                __syncwarp();
                if (!ok && lane == 0)
                    *(volatile unsigned int *)&sy->fail = 1;
                if (warp == 0) {
                    if (ok) {
                        while (zf_frontier(s_pub) < total) {
                            if (zf_load(&sy->fail)) {
                                ok = 0;
                                break;
                            }
                            __nanosleep(64);
                        }
                        __syncwarp();
                        __threadfence_block();
                    }
                    if (ok)
                        ok = zd_pf_end(T, src, &sf, out, total);
                    __syncwarp();
                    if (lane == 0) {
                        if (ok) {
                            if (dst_sizes)
                                dst_sizes[c] = (size_t)total;
                            if (statuses)
                                statuses[c] = OC_OK;
                            done[c] = 1;
                        } else {
                            *(volatile unsigned int *)&sy->fail = 1;
                        }
                    }
                }
            } else {
                for (;;) {
                    unsigned int b = 0;
                    if (lane == 0)
                        b = atomicAdd(&sy->next, 1u);
                    b = __shfl_sync(0xFFFFFFFFu, b, 0);
                    if (b >= nb || zf_load(&sy->fail))
                        break;
                    if (blk[b].type != 2)
                        continue;
                    for (;;) { /* slot b mod ZF_R is free once every executor is done with block b - ZF_R */
                        uint32_t d = lane < ZF_EXEC ? zf_load(&sy->bdone[lane]) : 0xFFFFFFFFu;
                        d = __reduce_min_sync(0xFFFFFFFFu, d);
                        if (b < ZF_R || d >= b - ZF_R + 1 || zf_load(&sy->fail))
                            break;
                        __nanosleep(64);
                    }
                    __syncwarp();
                    __threadfence_block();
                    if (zf_load(&sy->fail))
                        break;
                    uint8_t *slot = ring + (b % ZF_R) * ZF_SLOT;
                    zd_pf_entropy(T, src, &sf, &blk[b], slot, ZF_SLOT_DATA, &blk[b]);
                    __syncwarp();
                    __threadfence_block();
                    if (blk[b].ok && blk[b].nseq)
                        zf_batch_starts((const zd_bp_seq *)(slot + ((blk[b].lsize + 15) & ~15u)), blk[b].nseq,
                                        (uint2 *)(slot + ZF_SLOT_DATA));
                    __syncwarp();
                    __threadfence_block();
                    if (lane == 0)
                        *(volatile int *)&sy->ready[b % ZF_R] = (int)b;
                }
            }
        }
        __syncthreads(); /* the CTA's records, ring and flags are free again */
    }
}

/* The lane-parallel kernel (zstd_dec_lanes.h): a warp takes the next group
 * of g chunks from the counter and decodes it with zl_group.  Its sequence
 * rows are dynamic shared memory (ZL_SQ_WORDS(g) words a warp); its literal
 * slot (litcap bytes) and g <= ZL_GROUP_MAX table slots are its
 * zl_warp_bytes of the scratch after the counter. */
extern __shared__ uint32_t zl_sq_rows[];

__global__ void __launch_bounds__(ZD_WARPS_PER_BLOCK * 32, 4)
    zl_decode_kernel(size_t n, const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                     const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses, uint8_t *scratch,
                     size_t litcap, uint32_t g, size_t nwarps)
{
    __shared__ zd_tables tables[ZD_WARPS_PER_BLOCK];
    size_t wib = threadIdx.x >> 5;
    size_t warp = (size_t)blockIdx.x * ZD_WARPS_PER_BLOCK + wib;
    if (warp >= nwarps)
        return;
    uint32_t *sq = zl_sq_rows + wib * ZL_DYN_WORDS;
    uint16_t *slot3 = (uint16_t *)(void *)(sq + ZL_SQ_WORDS(ZL_G));
    size_t per_warp = litcap + ZL_GROUP_MAX * ZL_TAB_ENTRIES * sizeof(zd_fse_entry);
    uint8_t *lits = scratch + ZD_COUNTER_BYTES + warp * per_warp;
    zd_fse_entry *tabs = (zd_fse_entry *)(lits + litcap);
    unsigned long long *next = (unsigned long long *)scratch;
    zl_lane L[1];
    uint32_t LG[1];
    for (;;) {
        unsigned long long grp = 0;
        if ((threadIdx.x & 31) == 0)
            grp = atomicAdd(next, 1ull);
        grp = __shfl_sync(0xFFFFFFFFu, grp, 0);
        size_t first = (size_t)grp * g;
        if (first >= n)
            break;
        uint32_t m = n - first < g ? (uint32_t)(n - first) : g;
        zl_group(&tables[wib], L, LG, sq, slot3, first, m, src_ptrs, src_sizes, dst_ptrs, dst_caps, dst_sizes,
                 statuses, lits, litcap, tabs);
    }
}

/* Picks the lane-parallel kernel's group size for a batch: ZL_G (4) if
 * its groups fill at least 7/8 of the warp slots the GPU holds and the
 * scratch holds a zl_warp_bytes slice for each of those warps; 0 (the
 * per-chunk kernel) otherwise, or when the largest capacity is known on
 * the host and exceeds OC_ZSTD_GPU_LANE_MAX_CAPACITY.  forced
 * (OC_ZSTD_DEC_LANES, tests and harness): groups of 4 whatever the batch's
 * size, as far as the scratch goes.  Why 7/8: a group is G chunks of one
 * warp, so a batch too small to give every warp slot a group leaves SMs
 * idle that the per-chunk kernel (one chunk a warp) would fill.  Why 4: a
 * group's decoding tables live in shared memory (zstd_dec_lanes.h), and 4
 * chunks' fit beside 16 warps an SM (G = 8 with tables in global memory
 * was best before, NOTES.md "Run 6" and "Run 9").  *warps and *smem: the
 * launch. */
static uint32_t zl_pick(size_t n, size_t max_cap, size_t scratch_size, int forced, size_t *warps,
                        unsigned *smem)
{
    /* SIZE_MAX: capacities in device memory, unknown here.  The batch is
     * then judged by its count alone: a batch that gives groups of >= 4
     * chunks to 7/8 of the warp slots has >= ~7400 chunks, i.e. chunks of
     * ~145 KiB at most in a 1 GiB call; larger or multi-block chunks are
     * decoded by the per-chunk core inside the lane kernel, each by its
     * warp (bench/gpu/zstd/NOTES.md, "V1": the full-scale instrument passes
     * device arrays, as nvCOMP's API does). */
    if ((max_cap > OC_ZSTD_GPU_LANE_MAX_CAPACITY && max_cap != SIZE_MAX) ||
        scratch_size < ZD_COUNTER_BYTES + zl_warp_bytes(max_cap))
        return 0;
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    /* the largest rows any launch takes, set for every launch (always the
     * same value, so concurrent callers agree) */
    if (cudaFuncSetAttribute(zl_decode_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             (int)(ZD_WARPS_PER_BLOCK * ZL_DYN_WORDS * 4)) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    size_t fit = (scratch_size - ZD_COUNTER_BYTES) / zl_warp_bytes(max_cap);
    {
        uint32_t g = ZL_G;
        unsigned sm = ZD_WARPS_PER_BLOCK * ZL_DYN_WORDS * 4;
        int per_sm = 0;
        if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, zl_decode_kernel, ZD_WARPS_PER_BLOCK * 32,
                                                          sm) != cudaSuccess ||
            per_sm < 1) {
            cudaGetLastError(); /* a failed query is no launch error */
            return 0;
        }
        size_t resident = (size_t)sms * (size_t)per_sm * ZD_WARPS_PER_BLOCK;
        size_t groups = (n + g - 1) / g;
        size_t w = groups < resident ? groups : resident;
        if (forced || (8 * w >= 7 * resident && fit >= w)) {
            *warps = w < fit ? w : fit;
            *smem = sm;
            return g;
        }
    }
    return 0;
}

/* The frame kernel's CTAs for a batch (0: not this batch): capacities
 * larger than a block or unknown (device arrays), and room in the scratch
 * for its head, at least one CTA's area, and after the head the per-chunk
 * kernel's counter and one slot.  At most n, the CTAs the GPU holds at
 * once and the CTA areas the scratch holds (the CTAs loop over the frames). */
static size_t zf_pick(size_t n, size_t max_cap, size_t scratch_size, size_t slot)
{
    if (max_cap <= ZD_BLOCK_MAX || n >= ((size_t)1 << 31))
        return 0;
    size_t hb = ZF_HEAD(n);
    if (scratch_size < hb + ZF_CTA_BYTES || scratch_size < hb + ZD_COUNTER_BYTES + slot)
        return 0;
    int dev = 0, sms = 0, per_sm = 0;
    unsigned smem = ZF_WARPS * sizeof(zd_tables);
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
        cudaFuncSetAttribute(zf_decode_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem) !=
            cudaSuccess ||
        /* two CTAs of 8 warps an SM (the 8 warps' tables: ~80 KiB each) need the largest carveout */
        cudaFuncSetAttribute(zf_decode_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, zf_decode_kernel, ZF_WARPS * 32, smem) !=
            cudaSuccess ||
        per_sm < 1) {
        cudaGetLastError(); /* a failed query is no launch error */
        return 0;
    }
    size_t ctas = (scratch_size - hb) / ZF_CTA_BYTES, resident = (size_t)sms * (size_t)per_sm;
    if (ctas > resident)
        ctas = resident;
    if (ctas > n)
        ctas = n;
    return ctas;
}

static int g_zd_min_blocks = 4; /* best in run 2 (NOTES.md) */

extern "C" void oc_cuda_zstd_debug_set_min_blocks(int min_blocks)
{
    g_zd_min_blocks = min_blocks;
}

extern "C" oc_status oc_cuda_zstd_decompress_with(void *scratch, size_t scratch_size,
                                                  const oc_gpu_config *cfg, int kernel, size_t n,
                                                  const void *const *src_ptrs_dev,
                                                  const size_t *src_sizes_dev, void *const *dst_ptrs_dev,
                                                  const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                                  oc_status *statuses_dev, cudaStream_t stream)
{
    size_t max_dst_capacity = cfg->max_capacity;
    if (n == 0)
        return OC_OK;
    if (!src_ptrs_dev || !src_sizes_dev || !dst_ptrs_dev || !dst_caps_dev || !scratch)
        return OC_ERR_INVALID_ARGUMENT;
    size_t slot = zd_slot_bytes(max_dst_capacity);
    if (scratch_size < ZD_COUNTER_BYTES + slot)
        return OC_ERR_INVALID_ARGUMENT;
    size_t lw = 0;
    unsigned lsmem = 0;
    uint32_t g = kernel == OC_ZSTD_DEC_PER_CHUNK || kernel == OC_ZSTD_DEC_FRAMES
                     ? 0
                     : zl_pick(n, max_dst_capacity, scratch_size, kernel == OC_ZSTD_DEC_LANES, &lw, &lsmem);
    if (g) {
        if (cudaMemsetAsync(scratch, 0, sizeof(unsigned long long), stream) != cudaSuccess)
            return OC_ERR_CUDA;
        zl_decode_kernel<<<(unsigned)((lw + ZD_WARPS_PER_BLOCK - 1) / ZD_WARPS_PER_BLOCK),
                           ZD_WARPS_PER_BLOCK * 32, lsmem, stream>>>(
            n, src_ptrs_dev, src_sizes_dev, dst_ptrs_dev, dst_caps_dev, dst_sizes_dev, statuses_dev,
            (uint8_t *)scratch, slot, g, lw);
        return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
    }
    /* chunks of several blocks: the frame kernel first, where capacities
     * may exceed a block (or are unknown), then the per-chunk kernel for
     * everything it left.  Chosen automatically when every chunk gets a CTA
     * at once: each round of CTAs costs about one frame's time (H100, 1 GiB
     * of libzstd -3 frames: 4 MiB x 256 in one round 2.0-2.4x the per-chunk
     * kernel, 1 MiB x 1024 in four rounds 0.53x, bench/gpu/zstd/NOTES.md
     * "Run 7"; with v9's executors 4 MiB x 256 is 1.35-1.41x v8 and 1 MiB
     * frames a CTA each still lose, "Run 11"). */
    const uint8_t *done = NULL;
    size_t fctas = kernel == OC_ZSTD_DEC_PER_CHUNK || kernel == OC_ZSTD_DEC_LANES
                       ? 0
                       : zf_pick(n, max_dst_capacity, scratch_size, slot);
    if (kernel == OC_ZSTD_DEC_AUTO && n > fctas)
        fctas = 0;
    if (fctas) {
        uint8_t *head = (uint8_t *)scratch;
        size_t hb = ZF_HEAD(n);
        if (cudaMemsetAsync(head, 0, 256 + n, stream) != cudaSuccess)
            return OC_ERR_CUDA;
        zf_decode_kernel<<<(unsigned)fctas, ZF_WARPS * 32, ZF_WARPS * sizeof(zd_tables), stream>>>(
            n, src_ptrs_dev, src_sizes_dev, dst_ptrs_dev, dst_caps_dev, dst_sizes_dev, statuses_dev, head,
            head + hb);
        if (cudaGetLastError() != cudaSuccess)
            return OC_ERR_CUDA;
        done = head + 256;
        scratch = head + hb;
        scratch_size -= hb;
    }
    size_t w = (scratch_size - ZD_COUNTER_BYTES) / slot;
    if (w > n)
        w = n;
    if (w > OC_ZSTD_GPU_MAX_WARPS)
        w = OC_ZSTD_GPU_MAX_WARPS;
    if (w == 0)
        return OC_ERR_INVALID_ARGUMENT;
    unsigned blocks = (unsigned)((w + ZD_WARPS_PER_BLOCK - 1) / ZD_WARPS_PER_BLOCK);
    if (cudaMemsetAsync(scratch, 0, sizeof(unsigned long long), stream) != cudaSuccess)
        return OC_ERR_CUDA;
#define ZD_LAUNCH(M)                                                                                         \
    zd_decode_kernel<M><<<blocks, ZD_WARPS_PER_BLOCK * 32, 0, stream>>>(                                     \
        n, src_ptrs_dev, src_sizes_dev, dst_ptrs_dev, dst_caps_dev, dst_sizes_dev, statuses_dev,             \
        (uint8_t *)scratch, slot, w, done)
    if (g_zd_min_blocks == 3)
        ZD_LAUNCH(3);
    else if (g_zd_min_blocks == 5)
        ZD_LAUNCH(5);
    else
        ZD_LAUNCH(4);
#undef ZD_LAUNCH
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

extern "C" oc_status oc_cuda_zstd_decompress(void *scratch, size_t scratch_size, const oc_gpu_config *cfg,
                                             size_t n, const void *const *src_ptrs_dev,
                                             const size_t *src_sizes_dev, void *const *dst_ptrs_dev,
                                             const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                             oc_status *statuses_dev, cudaStream_t stream)
{
    return oc_cuda_zstd_decompress_with(scratch, scratch_size, cfg, OC_ZSTD_DEC_AUTO, n, src_ptrs_dev,
                                        src_sizes_dev, dst_ptrs_dev, dst_caps_dev, dst_sizes_dev,
                                        statuses_dev, stream);
}
