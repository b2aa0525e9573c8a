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
 * take the frame kernel (zf_decode_kernel, zstd_dec_frame.h, "v8"): a CTA
 * per frame, its warps 1..3 decoding the blocks' entropy into a ring of
 * slots while warp 0 executes the blocks in order; the per-chunk kernel
 * runs after it and decodes every chunk it did not finish, so statuses stay
 * the per-chunk kernel's.  NOTES.md "Run 7" has why execution stays in
 * order (measured on real frames) and the prediction.
 */
#include "zstd_gpu.h"

#ifdef ZD_PROFILE
__device__ unsigned long long zd_prof[8]; /* per-phase cycles, see zstd_decode_core.h */
#endif

#include "zstd_dec_frame.h"
#include "zstd_dec_lanes.h"

#define ZD_WARPS_PER_BLOCK 4
#define ZD_COUNTER_BYTES 256 /* the next-chunk counter, keeping the slots aligned */

/* the frame kernel (zf_decode_kernel below) */
#define ZF_WARPS 4
#define ZF_R 4                      /* slots: ZF_R - 1 blocks decoded ahead of the one executing */
#define ZF_SLOT ((size_t)320 << 10) /* a block's literals + sequences: <= 281 KiB on the corpus at -5..19 */
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

/* ---- the frame kernel (v8) for chunks that are one frame of several blocks
 * (zstd_dec_frame.h): a CTA of ZF_WARPS warps per frame, CTAs taking frames
 * from a counter.  Thread 0 scans the frame (block records into the CTA's
 * area); warps 1.. take blocks in order and decode each into slot b mod ZF_R
 * of the CTA's ring once warp 0 has executed block b - ZF_R; warp 0 executes
 * the blocks in order as their slots fill, then checks content size and
 * checksum.  (v8c, the entropy warps also copying each block's literals,
 * was 1.04-1.10x this with the executor's serial scans, and lost to it
 * (0.92x) once the scans became ballots: bench/gpu/zstd/NOTES.md "Run 8";
 * frozen in bench/gpu/dev/zstd_dec_frame_v8c.h.)  A frame it decodes gets OK, its
 * size and done[c] = 1; any other chunk (and any frame that fails here) is left to the per-chunk kernel,
 * which runs after it and gives the exact status.  The hand-over flags are in
 * the CTA's area in global memory (volatile loads after fences). */
typedef struct zf_sync {
    unsigned int next, done, fail, pad;
    int ready[ZF_R];
} zf_sync;

static __device__ __forceinline__ unsigned int zf_load(const unsigned int *p)
{
    return *(const volatile unsigned int *)p;
}

extern __shared__ zd_tables zf_tables[];

__global__ void __launch_bounds__(ZF_WARPS * 32)
    zf_decode_kernel(size_t n, const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                     const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses, uint8_t *head,
                     uint8_t *area)
{
    __shared__ zd_bp_frame sf;
    __shared__ unsigned long long s_c;
    __shared__ int s_take;
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
            sy->next = sy->done = sy->fail = 0;
            for (int r = 0; r < ZF_R; r++)
                sy->ready[r] = -1;
            s_c = c;
            s_take = take;
        }
        __syncthreads();
        unsigned long long c = s_c;
        if (c >= n)
            break;
        if (s_take) {
            const uint8_t *src = (const uint8_t *)src_ptrs[c];
            uint8_t *out = (uint8_t *)dst_ptrs[c];
            uint32_t nb = sf.nb;
            if (warp == 0) {
                uint32_t rep[3] = {1, 4, 8};
                uint64_t pos = 0;
                int ok = 1;
                for (uint32_t b = 0; b < nb && ok; b++) {
                    if (blk[b].type == 2) {
                        while ((int)zf_load((const unsigned int *)&sy->ready[b % ZF_R]) != (int)b)
                            __nanosleep(64);
                        __syncwarp();
                        __threadfence_block();
                    }
                    ok = zd_pf_block(T, src, &blk[b], rep, &pos, ring + (b % ZF_R) * ZF_SLOT, out,
                                     dst_caps[c]);
                    __syncwarp();
                    __threadfence_block();
                    if (lane == 0)
                        *(volatile unsigned int *)&sy->done = b + 1;
                }
                if (ok)
                    ok = zd_pf_end(T, src, &sf, out, pos);
                __syncwarp();
                if (lane == 0) {
                    if (ok) {
                        if (dst_sizes)
                            dst_sizes[c] = (size_t)pos;
                        if (statuses)
                            statuses[c] = OC_OK;
                        done[c] = 1;
                    } else {
                        *(volatile unsigned int *)&sy->fail = 1;
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
                    while (b >= ZF_R && zf_load(&sy->done) < b - ZF_R + 1 && !zf_load(&sy->fail))
                        __nanosleep(64);
                    __syncwarp();
                    if (zf_load(&sy->fail))
                        break;
                    zd_pf_entropy(T, src, &sf, &blk[b], ring + (b % ZF_R) * ZF_SLOT, ZF_SLOT, &blk[b]);
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
     * at once: a frame's execution is serial on one warp, so each round of
     * CTAs costs about one frame's time (H100, 1 GiB of libzstd -3 frames:
     * 4 MiB x 256 in one round 2.0-2.4x the per-chunk kernel, 1 MiB x 1024
     * in four rounds 0.53x; bench/gpu/zstd/NOTES.md "Run 7"). */
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
