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
 * Before it, chunks that are one frame of several blocks take the
 * block-parallel path (zstd_dec_blocks.h, kernels below: a warp per block
 * for the entropy decoding, a warp per frame executing); the per-chunk
 * kernel then skips the chunks that path finished and decodes the rest.
 */
#include "zstd_gpu.h"

#ifdef ZD_PROFILE
__device__ unsigned long long zd_prof[8]; /* per-phase cycles, see zstd_decode_core.h */
#endif

#include "zstd_dec_blocks.h"

#define ZD_WARPS_PER_BLOCK 4
#define ZD_COUNTER_BYTES 256 /* the next-chunk counter, keeping the slots aligned */

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

static size_t zd_bp_bytes(size_t n, size_t max_dst_capacity);

static size_t zd_slot_bytes(size_t max_dst_capacity)
{
    size_t s = max_dst_capacity < ZD_BLOCK_MAX ? max_dst_capacity : ZD_BLOCK_MAX;
    if (s == 0)
        s = 1;
    return (s + 255) & ~(size_t)255;
}

extern "C" size_t oc_cuda_zstd_decompress_scratch_size(size_t n, size_t max_dst_capacity)
{
    size_t w = n < OC_ZSTD_GPU_MAX_WARPS ? n : OC_ZSTD_GPU_MAX_WARPS;
    if (w == 0)
        w = 1;
    return ZD_COUNTER_BYTES + w * zd_slot_bytes(max_dst_capacity) + zd_bp_bytes(n, max_dst_capacity);
}

extern "C" size_t oc_cuda_zstd_decompress_bp_scratch_size(size_t n, size_t max_dst_capacity)
{
    return zd_bp_bytes(n, max_dst_capacity);
}

/* ---- the block-parallel path for frames of several blocks (v5) ------------
 * zstd_dec_blocks.h has the decoder; here the kernels that run it, all
 * enqueued without a host synchronisation (the host never learns what the
 * scan found: every launch is fixed, and work items that have nothing to do
 * exit):
 *   zd_bp_scan_kernel    a thread per chunk: is it one frame of >= 2 blocks,
 *                        and how much scratch does it need?
 *   zd_bp_plan_kernel    one warp: places the frames, in chunk order, in
 *                        waves of the region (a frame never straddles two),
 *                        numbers their blocks
 *   per wave, ZD_BP_WAVES times:
 *     zd_bp_layout_kernel  a thread per frame writes its block records
 *     zd_bp_entropy_kernel a warp per compressed block: literals, sequences
 *     zd_bp_exec_kernel    a warp per frame: resolve, execute, checks
 * and then zd_decode_kernel decodes every chunk not done (single-block
 * chunks, chunks the scan refused, frames that failed: it gives the exact
 * status).  Scratch after the per-chunk kernel's: ZD_BP_HEAD bytes of
 * counters, a zd_bp_chunk per chunk, then the region. */
#define ZD_BP_WAVES 4
#define ZD_BP_HEAD 256
#define ZD_BP_REGION_MAX ((size_t)1 << 30)
#define ZD_BP_REGION_MIN ((size_t)8 << 20)

typedef struct zd_bp_chunk {
    zd_bp_frame f;
    unsigned long long need, off; /* bytes of the frame's area, its offset in the region */
    uint32_t nb, bfirst;          /* blocks, number of the first (over all frames) */
    uint32_t wave, state;         /* state: 0 per-chunk kernel, 1 this path, 2 done */
} zd_bp_chunk;

/* counters and ranges at the start of the head (unsigned ints) */
typedef struct zd_bp_head {
    unsigned int ent[ZD_BP_WAVES], exec[ZD_BP_WAVES];    /* work counters */
    unsigned int bfirst[ZD_BP_WAVES], bend[ZD_BP_WAVES]; /* blocks of the wave */
    unsigned int cfirst[ZD_BP_WAVES], cend[ZD_BP_WAVES]; /* chunks of the wave */
} zd_bp_head;

static __device__ __forceinline__ int zd_bp_done(const zd_bp_chunk *bp, size_t c)
{
    return bp[c].state == 2;
}

__global__ void __launch_bounds__(128)
    zd_bp_scan_kernel(size_t n, const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                      const size_t *dst_caps, zd_bp_chunk *ch, unsigned long long region)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n)
        return;
    zd_bp_chunk x;
    x.need = x.off = 0;
    x.nb = x.bfirst = x.wave = x.state = 0;
    const uint8_t *src = (const uint8_t *)src_ptrs[c];
    if (src && dst_ptrs[c] && zd_bp_scan(src, src_sizes[c], dst_caps[c], &x.f, NULL)) {
        unsigned long long need = (zd_bp_need(&x.f) + 15) & ~15ull;
        if (need <= region) {
            x.need = need;
            x.nb = x.f.nb;
            x.state = 1;
        }
    }
    ch[c] = x;
}

/* One warp, chunks in order, 32 at a time: lane j loads chunk base + j;
 * the chunks of this path among them (a ballot) are placed one after the
 * other with values every lane has (shuffles); lane j stores its own. */
__global__ void zd_bp_plan_kernel(size_t n, zd_bp_chunk *ch, zd_bp_head *head, unsigned long long region)
{
    uint32_t lane = threadIdx.x;
    unsigned long long pos = 0;
    uint32_t wave = 0, blocks = 0;
    for (size_t base = 0; base < n; base += 32) {
        size_t c = base + lane;
        unsigned long long need = 0, off = 0;
        uint32_t nb = 0, st = 0, w = 0, bf = blocks;
        if (c < n && ch[c].state == 1) {
            need = ch[c].need;
            nb = ch[c].nb;
            st = 1;
        }
        for (unsigned m = __ballot_sync(0xFFFFFFFFu, st == 1); m != 0; m &= m - 1) {
            uint32_t j = (uint32_t)__ffs(m) - 1;
            unsigned long long nj = __shfl_sync(0xFFFFFFFFu, need, j);
            uint32_t bj = __shfl_sync(0xFFFFFFFFu, nb, j);
            if (pos + nj > region) { /* the next wave; a frame never straddles two */
                wave++;
                pos = 0;
            }
            if (wave >= ZD_BP_WAVES) {
                if (lane == j) { /* no room left: the per-chunk kernel */
                    st = 0;
                    nb = 0;
                    bf = blocks;
                }
                continue;
            }
            if (lane == 0) {
                if (head->cend[wave] == 0) {
                    head->cfirst[wave] = (unsigned)(base + j);
                    head->bfirst[wave] = blocks;
                }
                head->cend[wave] = (unsigned)(base + j + 1);
                head->bend[wave] = blocks + bj;
            }
            if (lane == j) {
                off = pos;
                w = wave;
                bf = blocks;
            }
            pos += nj;
            blocks += bj;
            if (lane > j && st != 1)
                bf = blocks; /* chunks not on the path: nb 0, first block = the next one's */
        }
        if (c < n) {
            ch[c].off = off;
            ch[c].wave = w;
            ch[c].bfirst = bf;
            ch[c].nb = nb;
            ch[c].state = st;
        }
    }
}

/* The frame's area in the region: block records, literal slots, sequences. */
static __device__ __forceinline__ void zd_bp_area(uint8_t *region, const zd_bp_chunk *x, zd_bp_block **blk,
                                                  uint8_t **lits, zd_bp_seq **seqs)
{
    uint8_t *a = region + x->off;
    *blk = (zd_bp_block *)a;
    *lits = a + zd_bp_blocks_bytes(&x->f);
    *seqs = (zd_bp_seq *)(*lits + ((x->f.lit_total + 15) & ~15ull));
}

__global__ void __launch_bounds__(128)
    zd_bp_layout_kernel(size_t n, const void *const *src_ptrs, const size_t *src_sizes,
                        const size_t *dst_caps, zd_bp_chunk *ch, uint8_t *region, uint32_t wave)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= n || ch[c].state != 1 || ch[c].wave != wave)
        return;
    zd_bp_block *blk;
    uint8_t *lits;
    zd_bp_seq *seqs;
    zd_bp_area(region, &ch[c], &blk, &lits, &seqs);
    zd_bp_frame f;
    if (!zd_bp_scan((const uint8_t *)src_ptrs[c], src_sizes[c], dst_caps[c], &f, blk) || f.nb != ch[c].nb)
        ch[c].state = 0; /* cannot happen: the same scan said yes */
}

__global__ void __launch_bounds__(ZD_WARPS_PER_BLOCK * 32)
    zd_bp_entropy_kernel(const void *const *src_ptrs, zd_bp_chunk *ch, zd_bp_head *head, uint8_t *region,
                         uint32_t wave)
{
    __shared__ zd_tables tables[ZD_WARPS_PER_BLOCK];
    zd_tables *T = &tables[threadIdx.x >> 5];
    uint32_t first = head->bfirst[wave], end = head->bend[wave];
    uint32_t c0 = head->cfirst[wave], c1 = head->cend[wave];
    for (;;) {
        unsigned int g = 0;
        if ((threadIdx.x & 31) == 0)
            g = atomicAdd(&head->ent[wave], 1u);
        g = __shfl_sync(0xFFFFFFFFu, g, 0) + first;
        if (g >= end)
            break;
        /* the chunk: the last of [c0, c1) whose first block is <= g */
        uint32_t lo = c0, hi = c1 - 1;
        while (lo < hi) {
            uint32_t mid = (lo + hi + 1) >> 1;
            if (ch[mid].bfirst <= g)
                lo = mid;
            else
                hi = mid - 1;
        }
        const zd_bp_chunk *x = &ch[lo];
        if (x->state != 1 || x->wave != wave || g - x->bfirst >= x->nb)
            continue;
        zd_bp_block *blk;
        uint8_t *lits;
        zd_bp_seq *seqs;
        zd_bp_area(region, x, &blk, &lits, &seqs);
        zd_bp_block *b = &blk[g - x->bfirst];
        if (b->type == 2)
            zd_bp_entropy(T, (const uint8_t *)src_ptrs[lo], &x->f, b, lits, seqs);
    }
}

__global__ void __launch_bounds__(ZD_WARPS_PER_BLOCK * 32)
    zd_bp_exec_kernel(const void *const *src_ptrs, void *const *dst_ptrs, const size_t *dst_caps,
                      size_t *dst_sizes, oc_status *statuses, zd_bp_chunk *ch, zd_bp_head *head,
                      uint8_t *region, uint32_t wave)
{
    __shared__ zd_tables tables[ZD_WARPS_PER_BLOCK];
    zd_tables *T = &tables[threadIdx.x >> 5];
    uint32_t lane = threadIdx.x & 31;
    uint32_t c0 = head->cfirst[wave], c1 = head->cend[wave];
    for (;;) {
        unsigned int c = 0;
        if (lane == 0)
            c = atomicAdd(&head->exec[wave], 1u);
        c = __shfl_sync(0xFFFFFFFFu, c, 0) + c0;
        if (c >= c1)
            break;
        zd_bp_chunk *x = &ch[c];
        if (x->state != 1 || x->wave != wave)
            continue;
        zd_bp_block *blk;
        uint8_t *lits;
        zd_bp_seq *seqs;
        zd_bp_area(region, x, &blk, &lits, &seqs);
        int ok = 0;
        if (lane == 0)
            ok = zd_bp_resolve(&x->f, blk, dst_caps[c]);
        ok = __shfl_sync(0xFFFFFFFFu, ok, 0);
        __syncwarp();
        if (ok)
            ok = zd_bp_execute(T, (const uint8_t *)src_ptrs[c], &x->f, blk, lits, seqs,
                               (uint8_t *)dst_ptrs[c]);
        __syncwarp();
        if (lane == 0) {
            if (ok) {
                if (dst_sizes)
                    dst_sizes[c] = (size_t)zd_bp_total(&x->f, blk);
                if (statuses)
                    statuses[c] = OC_OK;
            }
            x->state = ok ? 2 : 0;
        }
    }
}

/* Bytes of the path's scratch for n chunks of at most max_dst_capacity
 * bytes (0: the path is off, for batches of single-block chunks): a region
 * of twice the capacities (a frame needs 0.05-1.6x its output), 8 MiB to
 * 1 GiB. */
static size_t zd_bp_bytes(size_t n, size_t max_dst_capacity)
{
    if (max_dst_capacity <= ZD_BLOCK_MAX || n == 0 || n >= ((size_t)1 << 31))
        return 0;
    /* capacities unknown (device arrays): room for frames of up to 4 MiB */
    size_t per = max_dst_capacity == (size_t)-1 ? ((size_t)4 << 20) : max_dst_capacity;
    size_t region = n > ZD_BP_REGION_MAX / (2 * per) ? ZD_BP_REGION_MAX : 2 * per * n;
    if (region < ZD_BP_REGION_MIN)
        region = ZD_BP_REGION_MIN;
    region &= ~(size_t)255; /* the per-chunk kernel's part follows, aligned */
    return ZD_BP_HEAD + ((n * sizeof(zd_bp_chunk) + 255) & ~(size_t)255) + region;
}

/* MINB: blocks per SM the register budget is cut for (3: ~165 registers, no
 * spills; 4: 128; 5: ~102).  More resident warps hide more latency; fewer
 * registers may spill.  See bench/gpu/zstd/NOTES.md for the measurements. */
template <int MINB>
__global__ void __launch_bounds__(ZD_WARPS_PER_BLOCK * 32, MINB)
    zd_decode_kernel(size_t n, const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                     const size_t *dst_caps, size_t *dst_sizes, oc_status *statuses, uint8_t *scratch,
                     size_t slot, size_t nwarps, const struct zd_bp_chunk *bp)
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
        if (bp && zd_bp_done(bp, c))
            continue;
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

static int g_zd_min_blocks = 4; /* best in run 2 (NOTES.md) */

extern "C" void oc_cuda_zstd_debug_set_min_blocks(int min_blocks)
{
    g_zd_min_blocks = min_blocks;
}

extern "C" oc_status oc_cuda_zstd_decompress(void *scratch, size_t scratch_size, const oc_gpu_config *cfg,
                                             size_t n, const void *const *src_ptrs_dev,
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
    /* the block-parallel path takes its whole part of the scratch, or none */
    size_t bp_bytes = zd_bp_bytes(n, max_dst_capacity);
    if (bp_bytes == 0 || scratch_size < ZD_COUNTER_BYTES + slot + bp_bytes)
        bp_bytes = 0;
    size_t legacy_bytes = scratch_size - bp_bytes;
    if (legacy_bytes < ZD_COUNTER_BYTES + slot)
        return OC_ERR_INVALID_ARGUMENT;
    size_t w = (legacy_bytes - ZD_COUNTER_BYTES) / slot;
    if (w > n)
        w = n;
    if (w > OC_ZSTD_GPU_MAX_WARPS)
        w = OC_ZSTD_GPU_MAX_WARPS;
    if (w == 0)
        return OC_ERR_INVALID_ARGUMENT;
    zd_bp_chunk *bp = NULL;
    if (bp_bytes != 0) { /* first in the scratch: its records stay aligned */
        uint8_t *base = (uint8_t *)scratch;
        scratch = base + bp_bytes;
        zd_bp_head *head = (zd_bp_head *)base;
        bp = (zd_bp_chunk *)(base + ZD_BP_HEAD);
        size_t chunks_bytes = (n * sizeof(zd_bp_chunk) + 255) & ~(size_t)255;
        uint8_t *region = base + ZD_BP_HEAD + chunks_bytes;
        unsigned long long rsize = bp_bytes - ZD_BP_HEAD - chunks_bytes;
        unsigned tgrid = (unsigned)((n + 127) / 128);
        if (cudaMemsetAsync(head, 0, ZD_BP_HEAD, stream) != cudaSuccess)
            return OC_ERR_CUDA;
        zd_bp_scan_kernel<<<tgrid, 128, 0, stream>>>(n, src_ptrs_dev, src_sizes_dev, dst_ptrs_dev,
                                                     dst_caps_dev, bp, rsize);
        zd_bp_plan_kernel<<<1, 32, 0, stream>>>(n, bp, head, rsize);
        /* a warp per block or frame, several resident per SM; they take work
         * from the wave's counter, so any count works */
        unsigned wgrid = 1024;
        for (uint32_t wave = 0; wave < ZD_BP_WAVES; wave++) {
            zd_bp_layout_kernel<<<tgrid, 128, 0, stream>>>(n, src_ptrs_dev, src_sizes_dev, dst_caps_dev, bp,
                                                           region, wave);
            zd_bp_entropy_kernel<<<wgrid, ZD_WARPS_PER_BLOCK * 32, 0, stream>>>(src_ptrs_dev, bp, head,
                                                                                region, wave);
            zd_bp_exec_kernel<<<wgrid, ZD_WARPS_PER_BLOCK * 32, 0, stream>>>(
                src_ptrs_dev, dst_ptrs_dev, dst_caps_dev, dst_sizes_dev, statuses_dev, bp, head, region,
                wave);
        }
    }
    unsigned blocks = (unsigned)((w + ZD_WARPS_PER_BLOCK - 1) / ZD_WARPS_PER_BLOCK);
    if (cudaMemsetAsync(scratch, 0, sizeof(unsigned long long), stream) != cudaSuccess)
        return OC_ERR_CUDA;
#define ZD_LAUNCH(M)                                                                                         \
    zd_decode_kernel<M><<<blocks, ZD_WARPS_PER_BLOCK * 32, 0, stream>>>(                                     \
        n, src_ptrs_dev, src_sizes_dev, dst_ptrs_dev, dst_caps_dev, dst_sizes_dev, statuses_dev,             \
        (uint8_t *)scratch, slot, w, bp)
    if (g_zd_min_blocks == 3)
        ZD_LAUNCH(3);
    else if (g_zd_min_blocks == 5)
        ZD_LAUNCH(5);
    else
        ZD_LAUNCH(4);
#undef ZD_LAUNCH
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}
