/*
 * lz4_kernels.cu - LZ4 block format (the standard bitstream, no frame) on the
 * GPU: the decoder, the size scanner and the compressor, and the GPU codec
 * (gpu_codec.h) around them.
 *
 * Decoder, chunks of at most 64 KiB (OC_LZS_MAX_CAP): the split decoder
 * with its copy during its parse (bench/NOTES.md "v8", "v9"), in waves of
 * at most OC_LZS_WAVE chunks: a warp parses 32 chunks, a lane each,
 * reading through shared memory (lz4_split_warp.cuh), into 16-byte records
 * in the codec's scratch, publishing each chunk's record count in its
 * state word as it goes, on the context's second stream (cfg->side);
 * meanwhile, on the caller's stream (after the parse when there is no
 * second stream), persistent copy warps copy the records as they are published
 * (lz_common/lz_split_copy.cuh).  Forward progress whatever the
 * scheduling: a parse lane and a copy warp each claim a chunk with a
 * compare-and-swap on its state word before touching it; a copy warp waits
 * only for chunks a parse lane claimed (a running lane that waits for
 * nothing) and decodes a chunk nobody claimed alone, with the pipe's
 * rounds parser and the split copy (oc_lz4_self_decode), so it never waits
 * for a parse that has not started (tests/c/test_cuda_lz4_split.c runs
 * that path on every chunk).  The parse lasts as long as its longest
 * chunk's walk (~0.5 us a sequence), so a wave must hold many chunks:
 * OC_LZS_WAVE fills an H100 several times over; the records take up to 4x
 * the output (OC_LZS_MAX_RECS), so the scratch is min(n, OC_LZS_WAVE) x
 * (16 x (cap / 4 + 1) + 4) + 16 bytes, cap the largest capacity (64 KiB
 * when the capacities are in device memory).  Which decoder takes a chunk
 * is decided per chunk on the device (oc_lz4_split_takes: capacity at
 * most 64 KiB, input below 2^31, both pointers set); no host sync.  When
 * the host reads the capacities and the largest exceeds 64 KiB, the whole
 * batch takes the pipe and no scratch is asked for.  Statuses and sizes
 * are the pipe's on every input (the same checks in the same order;
 * tests/c/test_lz4_split_core.c, test_cuda_lz4_split.c).  A chunk that
 * fails may keep some output that the copy wrote before its parse failed
 * (as the pipe's does).
 *
 * Decoder, other chunks: the two-warp pipeline (lz_decode_pipe.cuh), a block per chunk:
 * the parser warp parses rounds of up to 32 sequences at once
 * (lz4_decode_rounds.cuh) and checks every length and offset against the
 * input end (TRUNCATED), the output capacity (OUTPUT_TOO_SMALL) and the
 * output start (CORRUPT) before any byte moves, so no input can make it
 * read or write outside its chunk; the copier warp writes the output.  At
 * the end the block must keep the end-of-block rules (oc_lz4_end_rules, the
 * CPU scanner's: a cut block must not decode "OK").
 *
 * Size scanner (oc_batch_decompressed_sizes): one warp walks the sequence
 * headers one after another with the decoder's checks, writing nothing.
 *
 * Compressor: a per-warp hash table in shared memory, 32 candidate
 * positions per step (lz_device.cuh): greedy matching at levels <= 1 (the
 * default), lazy matching at levels >= 2; liblz4's end-of-block rules (the
 * last 5 bytes are literals, the last match starts at least 12 bytes before
 * the end) so any LZ4 decoder accepts the output.
 *
 * The other decoders measured on the way (one sequence at a time, rounds on
 * one warp, the pipe's v6c copier) live in bench/gpu/dev/ with their
 * harness.
 */
#include "lz4_gpu.h"
#include "lz4_decode_rounds.cuh"
#include "../lz_common/lz_device.cuh"
#include "../lz_common/lz_split_copy.cuh"
#include "lz4_split_warp.cuh"

#define OC_LZ4_MAX_INPUT 0x7E000000u

/* The size scanner: walks the sequence headers with the decoder's checks
 * (no output, so no capacity) and returns the decoded size. */
__device__ int oc_lz4_scan_warp(const uint8_t *__restrict__ src, size_t srcn, size_t *outn, int lane)
{
    if (srcn == 0)
        return OC_D_TRUNCATED;
    size_t ip = 1, op = 0, mark = 0;
    size_t last_ms = 0, last_me = 0; /* the last match's output start and end */
    int any_match = 0;
    uint32_t token = __ldg(src);
    for (;;) {
        oc_prefetch_ahead(src, srcn, ip, &mark, lane);
        size_t lit = token >> 4;
        if (lit == 15) {
            uint32_t b;
            do {
                if (ip >= srcn)
                    return OC_D_TRUNCATED;
                b = __ldg(src + ip++);
                lit += b;
            } while (b == 255);
        }
        if (lit > srcn - ip)
            return OC_D_TRUNCATED;
        ip += lit;
        if (ip == srcn) { /* the last sequence holds literals only */
            op += lit;
            break;
        }
        if (srcn - ip < 2)
            return OC_D_TRUNCATED;
        uint32_t o0 = __ldg(src + ip), o1 = __ldg(src + ip + 1);
        op += lit;
        ip += 2;
        size_t ml = token & 15;
        if (ml == 15) {
            uint32_t b;
            do {
                if (ip >= srcn)
                    return OC_D_TRUNCATED;
                b = __ldg(src + ip++);
                ml += b;
            } while (b == 255);
        }
        ml += 4;
        uint32_t next = ip < srcn ? __ldg(src + ip) : 0;
        uint32_t offset = o0 | (o1 << 8);
        if (offset == 0 || offset > op)
            return OC_D_CORRUPT;
        last_ms = op;
        op += ml;
        last_me = op;
        any_match = 1;
        if (ip >= srcn)
            return OC_D_TRUNCATED; /* a block cannot end with a match */
        token = next;
        ip++;
    }
    int end = oc_lz4_end_rules(src, srcn, op, any_match, last_ms, last_me);
    if (end != OC_D_OK)
        return end;
    *outn = op;
    return OC_D_OK;
}

__global__ void __launch_bounds__(OC_DECODE_WARPS * 32) oc_lz4_sizes_kernel(oc_cuda_batch b)
{
    size_t chunk = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (chunk >= b.n)
        return;
    const uint8_t *src = b.src[chunk];
    size_t outn = 0;
    int st = src == nullptr ? OC_D_INVALID_ARGUMENT : oc_lz4_scan_warp(src, b.src_sizes[chunk], &outn, lane);
    if (lane == 0) {
        if (b.dst_sizes)
            b.dst_sizes[chunk] = st == OC_D_OK ? outn : 0;
        if (b.statuses)
            b.statuses[chunk] = st;
    }
}

/* Whether the split decoder takes a chunk (the same answer in every kernel
 * that asks): capacity at most split_cap (<= OC_LZS_MAX_CAP, the bound the
 * scratch's record slots were sized for), input below 2^31 (32-bit
 * positions), both pointers set (the pipe reports INVALID_ARGUMENT). */
__device__ __forceinline__ int oc_lz4_split_takes(const uint8_t *src, size_t srcn, const uint8_t *dst,
                                                  size_t cap, uint32_t split_cap)
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

/* Split decoder, parse half: chunks first .. first + count of the batch, a
 * warp per 32 chunks.  A lane first claims its chunk (state word k: 0 ->
 * CLAIM_PARSE) and leaves it to the copy warp that claimed it first; it
 * stores the records of chunk first + k at recs + k x stride and publishes
 * their count in state[k] as it goes (oc_lz4s_parse_warp).  Statuses and
 * sizes of the chunks it parses are final here. */
__global__ void __launch_bounds__(OC_LZS_PARSE_WARPS * 32, 1)
    oc_lz4_split_parse_kernel(oc_cuda_batch b, size_t first, size_t count, uint32_t split_cap,
                              oc_lzs_rec *recs, size_t stride, uint32_t *state)
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
    int have = mine && oc_lz4_split_takes(src, srcn, b.dst[chunk], cap, split_cap);
    uint32_t nrec = 0, outn = 0;
    int st = oc_lz4s_parse_warp(lane, have, src, have ? (uint32_t)srcn : 0, have ? (uint32_t)cap : 0,
                                recs + (have ? k * stride : 0), win[warp], have ? state + k : nullptr, &nrec,
                                &outn);
    if (have) {
        if (b.dst_sizes)
            b.dst_sizes[chunk] = outn;
        if (b.statuses)
            b.statuses[chunk] = st;
    }
}

/* A copy warp's decode of a chunk no parse lane claimed: the pipe's rounds
 * parser (the same checks in the same order, so the same statuses and
 * sizes as the parse half) with the split copy as its sink. */
static __device__ __noinline__ void oc_lz4_self_decode(const uint8_t *src, uint32_t srcn, uint8_t *dst,
                                                       uint32_t cap, size_t *size_out, int32_t *status_out,
                                                       oc_lzs_slot *q, int lane)
{
    oc_lzs_self self = {q, src, dst, 0};
    size_t outn = 0;
    int st = oc_lz4_decode_rounds<uint32_t, oc_lzs_self>(src, srcn, cap, &outn, lane, &self);
    if (lane == 0) {
        if (size_out)
            *size_out = st == OC_D_OK ? outn : 0;
        if (status_out)
            *status_out = st;
    }
}

/* Split decoder, copy half: persistent warps, each taking the wave's next
 * chunk from *next.  A chunk the split decoder takes is claimed (state
 * word 0 -> CLAIM_COPY) and decoded alone when no parse lane has claimed
 * it yet (the parse kernel not started, or not run at all); otherwise its
 * records are copied as the parse lane publishes them.  A copy warp thus
 * waits only for lanes that are running and wait for nothing: progress is
 * guaranteed whatever the scheduling, with the parse kernel before this
 * one on one stream (every chunk then published) or beside it on another. */
__global__ void __launch_bounds__(OC_LZS_COPY_WARPS * 32, OC_LZS_COPY_MIN_BLOCKS)
    oc_lz4_split_copy_kernel(oc_cuda_batch b, size_t first, size_t count, uint32_t split_cap,
                             const oc_lzs_rec *recs, size_t stride, uint32_t *state, unsigned long long *next)
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
        if (!oc_lz4_split_takes(src, srcn, dst, cap, split_cap)) /* the pipe's */
            continue;
        uint32_t w = 0;
        if (lane == 0)
            w = atomicCAS(state + c, 0u, OC_LZS_CLAIM_COPY);
        w = __shfl_sync(OC_FULL_MASK, w, 0);
        if (w == 0)
            oc_lz4_self_decode(src, (uint32_t)srcn, dst, (uint32_t)cap,
                               b.dst_sizes ? b.dst_sizes + chunk : nullptr,
                               b.statuses ? b.statuses + chunk : nullptr, q, lane);
        else
            oc_lzs_copy_published(state + c, recs + c * stride, src, dst, q, lane);
    }
}

/* The two-warp pipelined decoder (v6, lz_decode_pipe.cuh): block = one
 * chunk, warp 0 parses rounds and checks, warp 1 copies.  With split set,
 * the chunks the split decoder takes are left to it. */
__global__ void __launch_bounds__(64)
    oc_lz4_decompress_pipe_kernel(oc_cuda_batch b, int split, uint32_t split_cap)
{
    __shared__ uint8_t ring[OC_RING];
    __shared__ oc_pipe_q q;
    size_t chunk = blockIdx.x;
    int lane = threadIdx.x & 31;
    if (chunk >= b.n)
        return;
    const uint8_t *src = b.src[chunk];
    size_t srcn = b.src_sizes[chunk];
    uint8_t *dst = b.dst[chunk];
    size_t cap = b.dst_caps[chunk];
    if (split && oc_lz4_split_takes(src, srcn, dst, cap, split_cap)) /* the whole block */
        return;
    if (threadIdx.x >= 32) {
        oc_pipe_copier(&q, src, dst, ring, lane);
        return;
    }
    oc_pipe_prod pp = {&q, 0};
    size_t outn = 0;
    int st;
    if (src == nullptr || (dst == nullptr && cap != 0))
        st = OC_D_INVALID_ARGUMENT;
    else
        st = oc_pipe_narrow(srcn, cap) ? oc_lz4_decode_rounds<uint32_t>(src, srcn, cap, &outn, lane, &pp)
                                       : oc_lz4_decode_rounds<uint64_t>(src, srcn, cap, &outn, lane, &pp);
    oc_pipe_finish(&pp, lane);
    if (lane == 0) {
        if (b.dst_sizes)
            b.dst_sizes[chunk] = st == OC_D_OK ? outn : 0;
        if (b.statuses)
            b.statuses[chunk] = st;
    }
}

/* Write an LZ4 length extension (value >= 15 already taken by the nibble):
 * (v - 15) / 255 bytes of 255 then the remainder, warp-parallel. */
__device__ __forceinline__ size_t oc_lz4_put_len(uint8_t *dst, size_t v, int lane)
{
    size_t rest = v - 15;
    size_t full = rest / 255;
    for (size_t j = lane; j < full; j += 32)
        dst[j] = 255;
    if (lane == 0)
        dst[full] = (uint8_t)(rest - full * 255);
    return full + 1;
}

/* Emit one sequence: literals src[anchor, anchor+lit) then (if has_match) a
 * match of ml >= 4 bytes at `offset`.  Returns 0 if it does not fit. */
__device__ __forceinline__ int oc_lz4_emit(uint8_t *dst, size_t cap, size_t *op, const uint8_t *lits,
                                           size_t lit, int has_match, uint32_t offset, size_t ml, int lane)
{
    size_t need = 1 + lit + (lit >= 15 ? 1 + (lit - 15) / 255 : 0);
    if (has_match)
        need += 2 + (ml - 4 >= 15 ? 1 + (ml - 4 - 15) / 255 : 0);
    if (need > cap - *op)
        return 0;
    size_t o = *op;
    uint32_t tok_lit = lit >= 15 ? 15 : (uint32_t)lit;
    uint32_t tok_ml = has_match ? (ml - 4 >= 15 ? 15 : (uint32_t)(ml - 4)) : 0;
    if (lane == 0)
        dst[o] = (uint8_t)((tok_lit << 4) | tok_ml);
    o++;
    if (lit >= 15)
        o += oc_lz4_put_len(dst + o, lit, lane);
    oc_warp_copy_in(dst + o, lits, lit, lane);
    o += lit;
    if (has_match) {
        if (lane == 0) {
            dst[o] = (uint8_t)offset;
            dst[o + 1] = (uint8_t)(offset >> 8);
        }
        o += 2;
        if (ml - 4 >= 15)
            o += oc_lz4_put_len(dst + o, ml - 4, lane);
    }
    *op = o;
    return 1;
}

template <bool LAZY>
__global__ void __launch_bounds__(OC_COMPRESS_WARPS * 32) oc_lz4_compress_kernel(oc_cuda_batch b)
{
    __shared__ uint16_t tables[OC_COMPRESS_WARPS][OC_HT_SIZE];
    int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    size_t chunk = (size_t)blockIdx.x * OC_COMPRESS_WARPS + warp;
    if (chunk >= b.n)
        return;
    uint16_t *table = tables[warp];
    const uint8_t *src = b.src[chunk];
    size_t n = b.src_sizes[chunk];
    uint8_t *dst = b.dst[chunk];
    size_t cap = b.dst_caps[chunk];
    size_t op = 0;
    int st = OC_D_OK;
    if ((src == nullptr && n != 0) || dst == nullptr) {
        st = OC_D_INVALID_ARGUMENT;
        goto done;
    }
    if (n > OC_LZ4_MAX_INPUT) {
        st = OC_D_CHUNK_TOO_LARGE;
        goto done;
    }
    {
        oc_table_clear(table, lane);
        /* liblz4's end rules: match starts < n - 11, matches end <= n - 5. */
        size_t start_end = n >= 13 ? n - 11 : 0;
        size_t match_end = n >= 5 ? n - 5 : 0;
        size_t anchor = 0, p = 0;
        oc_match m;
        size_t mark = 0;
        while (p < start_end) {
            oc_prefetch_ahead(src, n, p, &mark, lane);
            if (!oc_find_match<LAZY>(src, table, p, start_end, match_end, lane, &m)) {
                p += 32;
                continue;
            }
            oc_extend_back(src, anchor, &m);
            if (!oc_lz4_emit(dst, cap, &op, src + anchor, m.pos - anchor, 1, (uint32_t)(m.pos - m.ref), m.len,
                             lane)) {
                st = OC_D_OUTPUT_TOO_SMALL;
                goto done;
            }
            p = m.pos + m.len;
            anchor = p;
            if (lane == 0 && p - 2 < start_end)
                table[oc_hash4(oc_read32(src + p - 2))] = (uint16_t)(p - 2);
            __syncwarp();
        }
        if (!oc_lz4_emit(dst, cap, &op, src + anchor, n - anchor, 0, 0, 0, lane))
            st = OC_D_OUTPUT_TOO_SMALL;
    }
done:
    if (lane == 0) {
        if (b.dst_sizes)
            b.dst_sizes[chunk] = st == OC_D_OK ? op : 0;
        if (b.statuses)
            b.statuses[chunk] = st;
    }
}

static unsigned oc_blocks_for(size_t n, unsigned warps_per_block)
{
    return (unsigned)((n + warps_per_block - 1) / warps_per_block);
}

static oc_status oc_launched(void)
{
    return cudaGetLastError() == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

/* ---- the GPU codec (gpu_codec.h) ------------------------------------------ */

/* Chunks per wave of the split decoder at most: its parse lasts as long as
 * the longest chunk's walk whatever the wave's size, so a wave should fill
 * the GPU's lanes (an H100's 132 SMs x 4 schedulers x 32 lanes = 16,896
 * chunks, v8's full-scale batch at 64 KiB) and more; waves are balanced. */
#define OC_LZS_WAVE 24576u

/* Batches of fewer chunks take the pipe alone: the split decoder's time
 * has a floor, the longest chunk's walk by one lane (~5.5 ms at 64 KiB),
 * while the pipe's grows with the batch.  Measured on the H100 at 64 KiB
 * (2026-11-27, 3eddd6f, the full-scale ladder): split 5.2 GB/s at 512
 * chunks and 38.8 at 4,096 against the pipe's ~22 and ~63 (Snappy's pipe
 * on the same corpus), 126.5 at 16,384 against ~85: the two meet near
 * 10,000 chunks. */
#define OC_LZS_MIN_BATCH 10240u

/* How a launch decodes: the public codec decides by the batch (split when
 * it has OC_LZS_MIN_BATCH chunks or more); tests force the split decoder,
 * or its copy kernel alone (lz4_gpu.h). */
enum oc_lz4_mode { OC_LZ4_AUTO, OC_LZ4_SPLIT, OC_LZ4_COPY_ONLY };

/* Whether the split decoder may take chunks of this batch, and the
 * capacity its record slots are sized for (*split_cap). */
static int oc_lz4_split_plan(const oc_gpu_config *cfg, size_t n, enum oc_lz4_mode mode, uint32_t *split_cap)
{
    if (mode == OC_LZ4_AUTO && n < OC_LZS_MIN_BATCH)
        return 0;
    size_t m = cfg->max_capacity; /* SIZE_MAX: not known on the host */
    if (m != (size_t)-1 && m > OC_LZS_MAX_CAP)
        return 0;
    *split_cap = m < OC_LZS_MAX_CAP ? (uint32_t)m : OC_LZS_MAX_CAP;
    return 1;
}

/* Scratch bytes per chunk of a wave: its record slots, then its state
 * word; the wave adds OC_LZS_FIXED (the copy warps' counter, alignment). */
#define OC_LZS_FIXED 16u
static size_t oc_lz4_split_chunk_bytes(uint32_t split_cap)
{
    return OC_LZS_MAX_RECS((size_t)split_cap) * sizeof(oc_lzs_rec) + sizeof(uint32_t);
}

/* Scratch: min(n, OC_LZS_WAVE) chunks' worth for the split decoder (none
 * when it takes no chunk, as for batches the pipe decodes alone, and none
 * for the size query).  Less serves too (smaller waves); too little for
 * one chunk, and the pipe decodes the whole batch. */
static size_t oc_lz4_scratch(const oc_gpu_config *cfg, size_t n, enum oc_lz4_mode mode)
{
    uint32_t split_cap;
    if (cfg->sizes_only || !oc_lz4_split_plan(cfg, n, mode, &split_cap))
        return 0;
    return (n < OC_LZS_WAVE ? n : OC_LZS_WAVE) * oc_lz4_split_chunk_bytes(split_cap) + OC_LZS_FIXED;
}

static size_t oc_lz4_gpu_decompress_scratch(const oc_gpu_config *cfg, size_t n)
{
    return oc_lz4_scratch(cfg, n, OC_LZ4_AUTO);
}

static size_t oc_lz4_gpu_split_scratch(const oc_gpu_config *cfg, size_t n)
{
    return oc_lz4_scratch(cfg, n, OC_LZ4_SPLIT);
}

static oc_status oc_lz4_gpu_compress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                     size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                     void *const *dst_dev, const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                     oc_status *statuses_dev, cudaStream_t stream)
{
    (void)scratch_dev, (void)scratch_size;
    oc_cuda_batch b =
        oc_cuda_batch_of(n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, dst_sizes_dev, statuses_dev);
    unsigned blocks = oc_blocks_for(n, OC_COMPRESS_WARPS);
    if (cfg->level >= 2) /* lazy matching from level 2 (where the CPU engine runs LZ4HC) */
        oc_lz4_compress_kernel<true><<<blocks, OC_COMPRESS_WARPS * 32, 0, stream>>>(b);
    else
        oc_lz4_compress_kernel<false><<<blocks, OC_COMPRESS_WARPS * 32, 0, stream>>>(b);
    return oc_launched();
}

/* The most shared memory on every SM for both split kernels, so that an SM
 * running copy blocks need not be reconfigured before parse blocks fit
 * beside them: set once per device and process (a benign race: setting it
 * twice sets the same value). */
static cudaError_t oc_lz4_split_carveout(void)
{
    static unsigned long long done; /* a bit per device (devices 0-63; others set it every time) */
    int dev = 0;
    cudaError_t e = cudaGetDevice(&dev);
    if (e != cudaSuccess)
        return e;
    unsigned long long bit = dev >= 0 && dev < 64 ? 1ull << dev : 0;
    if (bit & __atomic_load_n(&done, __ATOMIC_RELAXED))
        return cudaSuccess;
    e = cudaFuncSetAttribute(oc_lz4_split_copy_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                             cudaSharedmemCarveoutMaxShared);
    if (e == cudaSuccess)
        e = cudaFuncSetAttribute(oc_lz4_split_parse_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared);
    if (e == cudaSuccess)
        __atomic_fetch_or(&done, bit, __ATOMIC_RELAXED);
    return e;
}

/* The decoder: the pipe over the whole batch (it leaves the split
 * decoder's chunks at once), then the split decoder in waves.  Per wave:
 * the state words and the counter zeroed on `stream`; with a second
 * stream (cfg->side, the device's greatest priority), the parse forks onto
 * it and the copy runs beside it on `stream`, the parse joined back before
 * the next wave (which reuses the scratch); the priority has the block
 * scheduler start the parse's blocks first when both kernels wait to
 * start, so that its lanes claim their chunks before copy warps look at
 * them (a copy warp that finds a chunk unclaimed decodes it alone, slower:
 * correct either way).  Without a second stream the copy runs after the
 * parse on `stream`.  OC_LZ4_COPY_ONLY (tests only) runs no parse: the
 * copy warps decode every chunk alone. */
static oc_status oc_lz4_decompress_run(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                       size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                       void *const *dst_dev, const size_t *dst_caps_dev,
                                       size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream,
                                       enum oc_lz4_mode mode)
{
    int parse = mode != OC_LZ4_COPY_ONLY;
    oc_cuda_batch b =
        oc_cuda_batch_of(n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, dst_sizes_dev, statuses_dev);
    uint32_t split_cap = 0;
    size_t wave = 0, per = 0;
    if (oc_lz4_split_plan(cfg, n, mode, &split_cap) && scratch_dev != NULL &&
        ((uintptr_t)scratch_dev & 15) == 0 && scratch_size > OC_LZS_FIXED) {
        per = oc_lz4_split_chunk_bytes(split_cap);
        wave = (scratch_size - OC_LZS_FIXED) / per;
        wave = wave < n ? wave : n;
        wave = wave < OC_LZS_WAVE ? wave : OC_LZS_WAVE;
    }
    int split = wave > 0;
    oc_lz4_decompress_pipe_kernel<<<(unsigned)n, 64, 0, stream>>>(b, split, split_cap);
    if (!split)
        return oc_launched();
    size_t waves = (n + wave - 1) / wave;
    wave = (n + waves - 1) / waves;                     /* balanced: no small last wave */
    size_t stride = OC_LZS_MAX_RECS((size_t)split_cap); /* records per chunk */
    oc_lzs_rec *recs = (oc_lzs_rec *)scratch_dev;
    uint32_t *state = (uint32_t *)(recs + wave * stride);
    size_t state_bytes = (wave + (wave & 1)) * sizeof(uint32_t); /* the counter 8-byte aligned after it */
    unsigned long long *next = (unsigned long long *)((uint8_t *)state + state_bytes);
    const oc_gpu_side *side = parse ? cfg->side : NULL;
    int sms = side ? side->sm_count : 0, dev = 0;
    if (sms <= 0 &&
        (cudaGetDevice(&dev) != cudaSuccess ||
         cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess || sms <= 0)) {
        (void)cudaGetLastError();
        return OC_ERR_CUDA;
    }
    if (side && oc_lz4_split_carveout() != cudaSuccess)
        return OC_ERR_CUDA;
    for (size_t first = 0; first < n; first += wave) {
        size_t count = n - first < wave ? n - first : wave;
        size_t pw = 32 * OC_LZS_PARSE_WARPS;
        size_t cblocks = oc_blocks_for(count, OC_LZS_COPY_WARPS);
        size_t most = (size_t)sms * OC_LZS_COPY_BLOCKS_PER_SM;
        cudaStream_t ps = side ? side->stream : stream; /* the parse's stream */
        if (cudaMemsetAsync(state, 0, state_bytes + sizeof(*next), stream) != cudaSuccess)
            break;
        if (side && (cudaEventRecord(side->fork, stream) != cudaSuccess ||
                     cudaStreamWaitEvent(ps, side->fork, 0) != cudaSuccess))
            break;
        if (parse)
            oc_lz4_split_parse_kernel<<<(unsigned)((count + pw - 1) / pw), (unsigned)pw, 0, ps>>>(
                b, first, count, split_cap, recs, stride, state);
        oc_lz4_split_copy_kernel<<<(unsigned)(cblocks < most ? cblocks : most), OC_LZS_COPY_WARPS * 32, 0,
                                   stream>>>(b, first, count, split_cap, recs, stride, state, next);
        if (side && (cudaEventRecord(side->join, ps) != cudaSuccess ||
                     cudaStreamWaitEvent(stream, side->join, 0) != cudaSuccess))
            break;
        if (cudaPeekAtLastError() != cudaSuccess)
            break;
    }
    return oc_launched();
}

static oc_status oc_lz4_gpu_decompress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                       size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                       void *const *dst_dev, const size_t *dst_caps_dev,
                                       size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream)
{
    return oc_lz4_decompress_run(scratch_dev, scratch_size, cfg, n, src_dev, src_sizes_dev, dst_dev,
                                 dst_caps_dev, dst_sizes_dev, statuses_dev, stream, OC_LZ4_AUTO);
}

static oc_status oc_lz4_gpu_decompress_split(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                             size_t n, const void *const *src_dev,
                                             const size_t *src_sizes_dev, void *const *dst_dev,
                                             const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                             oc_status *statuses_dev, cudaStream_t stream)
{
    return oc_lz4_decompress_run(scratch_dev, scratch_size, cfg, n, src_dev, src_sizes_dev, dst_dev,
                                 dst_caps_dev, dst_sizes_dev, statuses_dev, stream, OC_LZ4_SPLIT);
}

static oc_status oc_lz4_gpu_decompress_copy_only(void *scratch_dev, size_t scratch_size,
                                                 const oc_gpu_config *cfg, size_t n,
                                                 const void *const *src_dev, const size_t *src_sizes_dev,
                                                 void *const *dst_dev, const size_t *dst_caps_dev,
                                                 size_t *dst_sizes_dev, oc_status *statuses_dev,
                                                 cudaStream_t stream)
{
    return oc_lz4_decompress_run(scratch_dev, scratch_size, cfg, n, src_dev, src_sizes_dev, dst_dev,
                                 dst_caps_dev, dst_sizes_dev, statuses_dev, stream, OC_LZ4_COPY_ONLY);
}

static oc_status oc_lz4_gpu_sizes(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg, size_t n,
                                  const void *const *src_dev, const size_t *src_sizes_dev,
                                  void *const *dst_dev, const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                  oc_status *statuses_dev, cudaStream_t stream)
{
    (void)scratch_dev, (void)scratch_size, (void)cfg;
    oc_cuda_batch b =
        oc_cuda_batch_of(n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, dst_sizes_dev, statuses_dev);
    oc_lz4_sizes_kernel<<<oc_blocks_for(n, OC_DECODE_WARPS), OC_DECODE_WARPS * 32, 0, stream>>>(b);
    return oc_launched();
}

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_lz4 = {
    NULL, oc_lz4_gpu_compress, oc_lz4_gpu_decompress_scratch, oc_lz4_gpu_decompress, oc_lz4_gpu_sizes, 1};

/* Tests only (lz4_gpu.h): the split decoder whatever the batch's size, and
 * its copy kernel alone; the scratch of a split decode. */
extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_lz4_split = {
    NULL, NULL, oc_lz4_gpu_split_scratch, oc_lz4_gpu_decompress_split, NULL, 1};
extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_lz4_copy_only = {
    NULL, NULL, oc_lz4_gpu_split_scratch, oc_lz4_gpu_decompress_copy_only, NULL, 1};
