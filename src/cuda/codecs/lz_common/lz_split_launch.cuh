/*
 * lz_split_launch.cuh - the split LZ decoder's kernels and its launch, for
 * every format with a resumable parse step (LZ4: lz4/lz4_kernels.cu;
 * Snappy: snappy/snappy_kernels.cu).  Only the parse differs between
 * formats; the windows (lz_split_warp.cuh), the records and state words
 * (lz_split_rec.h), the copy (lz_split_copy.cuh), the claims, the waves
 * and the two streams are one code here, so a fix or a tuning reaches both
 * formats (bench/NOTES.md "v9": LZ4 went 93 -> 126 GB/s with it).
 *
 * A format comes in as a parser type C with
 *     typedef ... st;                            one lane's parse state
 *     enum { refill_quarters = q };              refill once q/4 of the lanes
 *                                                still parsing are dry
 *     static __device__ void init(st *);
 *     static __device__ int step(st *, const uint8_t *wp, uint32_t wshift,
 *                                uint32_t whi, uint32_t srcn, uint32_t cap,
 *                                oc_lzs_rec *recs);   OC_LZS_STEP/NEED/END
 *     static __device__ void self_decode(const uint8_t *src, uint32_t srcn,
 *                                uint8_t *dst, uint32_t cap, size_t *size_out,
 *                                int32_t *status_out, oc_lzs_slot *q, int lane);
 * (st has ip, op, nrec and status; self_decode is the pipe's rounds parser
 * with the split copy as its sink, all 32 lanes, size and status written
 * by lane 0, each pointer possibly NULL).  Which chunks the split decoder
 * takes is the same for every format (oc_lzs_takes); the codec launches
 * its pipe kernel first, which leaves those chunks alone, then
 * oc_lzs_run (see there for the waves and the streams).
 *
 * Forward progress whatever the scheduling: a parse lane and a copy warp
 * each claim a chunk with a compare-and-swap on its state word before
 * touching it; a copy warp waits only for chunks a parse lane claimed (a
 * running lane that waits for nothing) and decodes a chunk nobody claimed
 * alone, or one the parse gave back (OC_LZS_REDO), so it never waits for a
 * parse that has not started.
 */
#ifndef OC_LZ_SPLIT_LAUNCH_CUH
#define OC_LZ_SPLIT_LAUNCH_CUH

#include "../../runtime/gpu_codec.h"
#include "lz_split_copy.cuh"
#include "lz_split_warp.cuh"

/* Whether the split decoder takes a chunk (the same answer in every kernel
 * that asks): capacity at most split_cap (<= OC_LZS_MAX_CAP, the bound the
 * scratch's record slots were sized for), input below 2^31 (32-bit
 * positions), both pointers set (the pipe reports INVALID_ARGUMENT). */
__device__ __forceinline__ int oc_lzs_takes(const uint8_t *src, size_t srcn, const uint8_t *dst, size_t cap,
                                            uint32_t split_cap)
{
    return src != nullptr && dst != nullptr && cap <= split_cap && srcn <= 0x7fffffffu;
}

#define OC_LZS_PARSE_WARPS 2 /* 32 KiB of windows a block */
#define OC_LZS_COPY_WARPS 4
/* Copy blocks per SM (v9's measured grid): 9 blocks of 4 warps at 40
 * registers (5,120 registers a block) beside the parse's 2 blocks of 2
 * warps at ~100 registers (~13,300), with a block's worth to spare of an
 * SM's 65,536, so that the parse blocks find room on every SM even when
 * copy blocks got there first; OC_LZS_COPY_MIN_BLOCKS holds the copy
 * kernel to 40 registers (65,536 / (12 x 128) rounded down to 8). */
#define OC_LZS_COPY_BLOCKS_PER_SM 9
#define OC_LZS_COPY_MIN_BLOCKS 12

/* Chunks per wave of the split decoder at most: its parse lasts as long as
 * the longest chunk's walk whatever the wave's size, so a wave should fill
 * the GPU's lanes (an H100's 132 SMs x 4 schedulers x 32 lanes = 16,896
 * chunks, v8's full-scale batch at 64 KiB) and more; waves are balanced. */
#define OC_LZS_WAVE 24576u

/* Batches of fewer chunks take the pipe alone: the split decoder's time
 * has a floor, the longest chunk's walk by one lane (~5.5 ms at 64 KiB),
 * while the pipe's grows with the batch.  Measured on the H100 at 64 KiB
 * (2026-11-27, 3eddd6f, the full-scale ladder): LZ4 split 5.2 GB/s at 512
 * chunks and 38.8 at 4,096 against the pipe's ~22 and ~63 (Snappy's pipe
 * on the same corpus), 126.5 at 16,384 against ~85: the two meet near
 * 10,000 chunks. */
#define OC_LZS_MIN_BATCH 10240u

/* How a launch decodes: the public codecs decide by the batch (split when
 * it has OC_LZS_MIN_BATCH chunks or more); tests force the split decoder,
 * or its copy kernel alone (lz4_gpu.h, snappy_gpu.h). */
enum oc_lzs_mode { OC_LZS_AUTO, OC_LZS_SPLIT, OC_LZS_COPY_ONLY };

/* A format's last word on a chunk its parse lane finished with status st
 * (OC_LZS_*): the status itself, unless the format specialises this (LZ4,
 * lz4_kernels.cu: a refused block is rescanned in the CPU scanner's order,
 * so its status is the CPU engine's).  Runs on the parse lane alone, off
 * the decoding path. */
template <class C> __device__ __forceinline__ int oc_lzs_verdict(int st, const uint8_t *src, size_t srcn)
{
    (void)src, (void)srcn;
    return st;
}

/* Split decoder, parse half: chunks first .. first + count of the batch, a
 * warp per 32 chunks.  A lane first claims its chunk (state word k: 0 ->
 * CLAIM_PARSE) and leaves it to the copy warp that claimed it first; it
 * stores the records of chunk first + k at recs + k x stride and publishes
 * their count in state[k] as it goes (oc_lzs_parse_warp).  Statuses and
 * sizes of the chunks it parses are final here, but for a chunk it gives
 * back (OC_LZS_REDO), which the copy warp decodes. */
template <class C>
__global__ void __launch_bounds__(OC_LZS_PARSE_WARPS * 32, 1)
    oc_lzs_parse_kernel(oc_cuda_batch b, size_t first, size_t count, uint32_t split_cap, oc_lzs_rec *recs,
                        size_t stride, uint32_t *state)
{
    __shared__ __align__(16) uint8_t win[OC_LZS_PARSE_WARPS][32 * OC_LZS_WIN];
    int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    size_t k0 = ((size_t)blockIdx.x * OC_LZS_PARSE_WARPS + warp) * 32;
    if (k0 >= count) /* the whole warp */
        return;
    size_t k = k0 + lane;
    int in = k < count;
    /* the claim first, before any load: the copy warps that start at the same time find the
       chunk claimed (a chunk the pipe takes is claimed too, and left alone by both) */
    int mine = in && atomicCAS(state + k, 0u, OC_LZS_CLAIM_PARSE) == 0u;
    size_t chunk = first + k;
    const uint8_t *src = in ? b.src[chunk] : nullptr;
    size_t srcn = in ? b.src_sizes[chunk] : 0, cap = in ? b.dst_caps[chunk] : 0;
    int have = mine && oc_lzs_takes(src, srcn, b.dst[chunk], cap, split_cap);
    uint32_t nrec = 0, outn = 0;
    int st = oc_lzs_parse_warp<C>(lane, have, src, have ? (uint32_t)srcn : 0, have ? (uint32_t)cap : 0,
                                  recs + (have ? k * stride : 0), win[warp], have ? state + k : nullptr,
                                  &nrec, &outn);
    if (have && st != OC_LZS_REDO) {
        if (b.dst_sizes)
            b.dst_sizes[chunk] = outn;
        if (b.statuses)
            b.statuses[chunk] = oc_lzs_verdict<C>(st, src, srcn);
    }
}

/* Split decoder, copy half: persistent warps, each taking the wave's next
 * chunk from *next.  A chunk the split decoder takes is claimed (state
 * word 0 -> CLAIM_COPY) and decoded alone when no parse lane has claimed
 * it yet (the parse kernel not started, or not run at all); otherwise its
 * records are copied as the parse lane publishes them, and the chunk is
 * decoded alone if the parse gives it back.  A copy warp thus waits only
 * for lanes that are running and wait for nothing: progress is guaranteed
 * whatever the scheduling, with the parse kernel before this one on one
 * stream (every chunk then published) or beside it on another.  segs: the
 * wave's seg words (oc_lzs_copy_published: a chunk whose records come in
 * two runs); the library's parse stores one run a chunk, so this kernel
 * reads none (bench/gpu/dev/dev_lz_pair.cuh's copy kernel, for v11b's two
 * lanes a chunk, does). */
template <class C>
__global__ void __launch_bounds__(OC_LZS_COPY_WARPS * 32, OC_LZS_COPY_MIN_BLOCKS)
    oc_lzs_copy_kernel(oc_cuda_batch b, size_t first, size_t count, uint32_t split_cap,
                       const oc_lzs_rec *recs, size_t stride, uint32_t *state, const uint2 *segs,
                       unsigned long long *next)
{
    __shared__ oc_lzs_slot slots[OC_LZS_COPY_WARPS];
    int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    oc_lzs_slot *q = &slots[warp];
    for (;;) {
        unsigned long long c = 0;
        if (lane == 0)
            c = atomicAdd(next, 1ull);
        c = __shfl_sync(OC_FULL_MASK, c, 0);
        if (c >= count)
            return;
        size_t chunk = first + c;
        const uint8_t *src = b.src[chunk];
        uint8_t *dst = b.dst[chunk];
        size_t srcn = b.src_sizes[chunk], cap = b.dst_caps[chunk];
        if (!oc_lzs_takes(src, srcn, dst, cap, split_cap)) /* the pipe's */
            continue;
        uint32_t w = 0;
        if (lane == 0)
            w = atomicCAS(state + c, 0u, OC_LZS_CLAIM_COPY);
        w = __shfl_sync(OC_FULL_MASK, w, 0);
        if (w != 0 && !oc_lzs_copy_published(state + c, nullptr, recs + c * stride, src, dst, q, lane))
            continue;
        C::self_decode(src, (uint32_t)srcn, dst, (uint32_t)cap, b.dst_sizes ? b.dst_sizes + chunk : nullptr,
                       b.statuses ? b.statuses + chunk : nullptr, q, lane);
    }
}

/* Whether the split decoder may take chunks of this batch, and the
 * capacity its record slots are sized for (*split_cap). */
static inline int oc_lzs_plan(const oc_gpu_config *cfg, size_t n, enum oc_lzs_mode mode, uint32_t *split_cap)
{
    if (mode == OC_LZS_AUTO && n < OC_LZS_MIN_BATCH)
        return 0;
    size_t m = cfg->max_capacity; /* SIZE_MAX: not known on the host */
    if (m != (size_t)-1 && m > OC_LZS_MAX_CAP)
        return 0;
    *split_cap = m < OC_LZS_MAX_CAP ? (uint32_t)m : OC_LZS_MAX_CAP;
    return 1;
}

/* Scratch bytes per chunk of a wave: its record slots, its seg word (a
 * chunk walked by two lanes: where the second lane's records start; read
 * only by bench/gpu/dev's v11b, which shares this layout), then its state
 * word; the wave adds OC_LZS_FIXED (the copy warps' counter, alignment). */
#define OC_LZS_FIXED 16u
static inline size_t oc_lzs_chunk_bytes(uint32_t split_cap)
{
    return OC_LZS_MAX_RECS((size_t)split_cap) * sizeof(oc_lzs_rec) + sizeof(uint2) + sizeof(uint32_t);
}

/* Scratch: min(n, OC_LZS_WAVE) chunks' worth for the split decoder (none
 * when it takes no chunk, as for batches the pipe decodes alone, and none
 * for the size query).  Less serves too (smaller waves); too little for
 * one chunk, and the pipe decodes the whole batch. */
static inline size_t oc_lzs_scratch(const oc_gpu_config *cfg, size_t n, enum oc_lzs_mode mode)
{
    uint32_t split_cap;
    if (cfg->sizes_only || !oc_lzs_plan(cfg, n, mode, &split_cap))
        return 0;
    return (n < OC_LZS_WAVE ? n : OC_LZS_WAVE) * oc_lzs_chunk_bytes(split_cap) + OC_LZS_FIXED;
}

/* The chunks per wave the scratch allows (0: the split decoder takes no
 * chunk, the pipe decodes the whole batch), and *split_cap. */
static inline size_t oc_lzs_wave(const void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                 size_t n, enum oc_lzs_mode mode, uint32_t *split_cap)
{
    *split_cap = 0;
    if (!oc_lzs_plan(cfg, n, mode, split_cap) || scratch_dev == NULL || ((uintptr_t)scratch_dev & 15) != 0 ||
        scratch_size <= OC_LZS_FIXED)
        return 0;
    size_t wave = (scratch_size - OC_LZS_FIXED) / oc_lzs_chunk_bytes(*split_cap);
    wave = wave < n ? wave : n;
    return wave < OC_LZS_WAVE ? wave : OC_LZS_WAVE;
}

/* The most shared memory on every SM for both split kernels, so that an SM
 * running copy blocks need not be reconfigured before parse blocks fit
 * beside them: set once per device, process and format (a benign race:
 * setting it twice sets the same value). */
template <class C> static cudaError_t oc_lzs_carveout(void)
{
    static unsigned long long done; /* a bit per device (devices 0-63; others set it every time) */
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return e;
    unsigned long long bit = dev >= 0 && dev < 64 ? 1ull << dev : 0;
    if (bit & __atomic_load_n(&done, __ATOMIC_RELAXED))
        return cudaSuccess;
    e = cudaFuncSetAttribute(oc_lzs_copy_kernel<C>, cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(oc_lzs_parse_kernel<C>, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared);
    if (e == cudaSuccess)
        __atomic_fetch_or(&done, bit, __ATOMIC_RELAXED);
    return e;
}

/* The split decoder over the batch b in waves of at most `wave` chunks
 * (oc_lzs_wave; > 0), after the codec's pipe kernel (which left these
 * chunks alone) on `stream`.  Per wave: the state words and the counter
 * zeroed on `stream`; with a second stream (side, the device's greatest
 * priority), the parse forks onto it and the copy runs beside it on
 * `stream`, the parse joined back before the next wave (which reuses the
 * scratch); the priority has the block scheduler start the parse's blocks
 * first when both kernels wait to start, so that its lanes claim their
 * chunks before copy warps look at them (a copy warp that finds a chunk
 * unclaimed decodes it alone, slower: correct either way).  Without a
 * second stream the copy runs after the parse on `stream`.  parse 0
 * (tests only) runs no parse: the copy warps decode every chunk alone. */
template <class C>
static oc_status oc_lzs_run(void *scratch_dev, const oc_gpu_side *side, int parse, const oc_cuda_batch &b,
                            uint32_t split_cap, size_t wave, cudaStream_t stream)
{
    size_t n = b.n;
    size_t waves = (n + wave - 1) / wave;
    wave = (n + waves - 1) / waves;                     /* balanced: no small last wave */
    size_t stride = OC_LZS_MAX_RECS((size_t)split_cap); /* records per chunk */
    oc_lzs_rec *recs = (oc_lzs_rec *)scratch_dev;
    uint2 *segs = (uint2 *)(recs + wave * stride);
    uint32_t *state = (uint32_t *)(segs + wave);
    size_t state_bytes = (wave + (wave & 1)) * sizeof(uint32_t); /* the counter 8-byte aligned after it */
    unsigned long long *next = (unsigned long long *)((uint8_t *)state + state_bytes);
    if (!parse)
        side = NULL;
    int sms = side ? side->sm_count : 0, dev = 0;
    if (sms <= 0 &&
        (cudaGetDevice(&dev) != cudaSuccess ||
         cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0)) {
        (void)cudaGetLastError();
        return OC_ERR_CUDA;
    }
    if (side && oc_lzs_carveout<C>() != cudaSuccess)
        return OC_ERR_CUDA;
    for (size_t first = 0; first < n; first += wave) {
        size_t count = n - first < wave ? n - first : wave;
        size_t pw = 32 * OC_LZS_PARSE_WARPS; /* chunks a parse block */
        size_t cblocks = (count + OC_LZS_COPY_WARPS - 1) / OC_LZS_COPY_WARPS;
        size_t most = (size_t)sms * OC_LZS_COPY_BLOCKS_PER_SM;
        cudaStream_t ps = side ? side->stream : stream; /* the parse's stream */
        if (cudaMemsetAsync(state, 0, state_bytes + sizeof(*next), stream) != cudaSuccess)
            break;
        if (side && (cudaEventRecord(side->fork, stream) != cudaSuccess ||
                     cudaStreamWaitEvent(ps, side->fork, 0) != cudaSuccess))
            break;
        unsigned pblocks = (unsigned)((count + pw - 1) / pw);
        if (parse)
            oc_lzs_parse_kernel<C><<<pblocks, OC_LZS_PARSE_WARPS * 32, 0, ps>>>(b, first, count, split_cap,
                                                                                recs, stride, state);
        oc_lzs_copy_kernel<C>
            <<<(unsigned)(cblocks < most ? cblocks : most), OC_LZS_COPY_WARPS * 32, 0, stream>>>(
                b, first, count, split_cap, recs, stride, state, segs, next);
        if (side && (cudaEventRecord(side->join, ps) != cudaSuccess ||
                     cudaStreamWaitEvent(stream, side->join, 0) != cudaSuccess))
            break;
        if (cudaPeekAtLastError() != cudaSuccess)
            break;
    }
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

#endif /* OC_LZ_SPLIT_LAUNCH_CUH */
