/*
 * lz4_kernels.cu - LZ4 block format (the standard bitstream, no frame) on the
 * GPU: the decoder, the size scanner and the compressor, and the GPU codec
 * (gpu_codec.h) around them.
 *
 * Decoder, chunks of at most 64 KiB (OC_LZS_MAX_CAP): the split decoder
 * with its copy during its parse (bench/NOTES.md "v8", "v9"), in waves of
 * at most OC_LZS_WAVE chunks: a warp parses 32 chunks, a lane each,
 * reading through shared memory (lz_common/lz_split_warp.cuh), into
 * 16-byte records in the codec's scratch, publishing each chunk's record count in its
 * state word as it goes, on the context's second stream (cfg->side);
 * meanwhile, on the caller's stream (after the parse when there is no
 * second stream), persistent copy warps copy the records as they are published
 * (lz_common/lz_split_copy.cuh).  Forward progress whatever the
 * scheduling: a parse lane and a copy warp each claim a chunk with a
 * compare-and-swap on its state word before touching it; a copy warp waits
 * only for chunks a parse lane claimed (a running lane that waits for
 * nothing) and decodes a chunk nobody claimed alone, with the pipe's
 * rounds parser and the split copy (oc_lz4_split_codec::self_decode), so it never waits
 * for a parse that has not started (tests/c/test_cuda_lz4_split.c runs
 * that path on every chunk).  The parse lasts as long as its longest
 * chunk's walk (~0.5 us a sequence), so a wave must hold many chunks:
 * OC_LZS_WAVE fills an H100 several times over; the records take up to 4x
 * the output (OC_LZS_MAX_RECS), so the scratch is min(n, OC_LZS_WAVE) x
 * (16 x (cap / 4 + 1) + 4) + 16 bytes, cap the largest capacity (64 KiB
 * when the capacities are in device memory).  Which decoder takes a chunk
 * is decided per chunk on the device (oc_lzs_takes: capacity at
 * most 64 KiB, input below 2^31, both pointers set); no host sync.  When
 * the host reads the capacities and the largest exceeds 64 KiB, the whole
 * batch takes the pipe and no scratch is asked for.  Statuses and sizes
 * are the pipe's on every input (the same checks in the same order;
 * tests/c/test_lz4_split_core.c, test_cuda_lz4_split.c).  A chunk that
 * fails may keep some output that the copy wrote before its parse failed
 * (as the pipe's does).  The kernels, waves and streams are
 * lz_common/lz_split_launch.cuh's, shared with Snappy; the parse step
 * (lz4_fast_parse.h's branch-free step over lz4_split_parse.h's general
 * one) is this format's.
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
 * default: multi-match windows, every match starting in a window taken from
 * its probes, a 2^12-entry table), lazy matching at levels >= 2 (one match
 * a window, 2^13 entries); liblz4's end-of-block rules (the
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
#include "../lz_common/lz_split_launch.cuh"
#include "lz4_fast_parse.h"

#define OC_LZ4_MAX_INPUT 0x7E000000u

/* The greedy compressor's table: 2^12 entries of 16-bit positions a warp
 * (8 KiB: 26 resident warps an H100/H200 SM where 2^13 allowed 12; the lazy
 * one keeps OC_HT_LOG).  Measured (bench/NOTES.md "Compressors (issue 13,
 * session 8)", H200, 1 GiB of 64 KiB chunks of the mix): 25.0 GB/s at a
 * ratio of 1.866 vs nvCOMP's 17.3 at 1.809; 2^11 gave 32.1 at 1.822. */
#define OC_LZ4_GREEDY_HT_LOG 12

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
        uint32_t offset = o0 | (o1 << 8);
        if (offset == 0 || offset > op) /* before the match length: the CPU scanner's order */
            return OC_D_CORRUPT;
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
        last_ms = op;
        op += ml;
        last_me = op;
        any_match = 1;
        if (op > 0x7fffffffu) /* the CPU scanner's limit (lz4_scan.c: INT_MAX) */
            return OC_D_CHUNK_TOO_LARGE;
        if (ip >= srcn)
            return OC_D_TRUNCATED; /* a block cannot end with a match */
        token = next;
        ip++;
    }
    int end = oc_lz4_end_rules(src, srcn, op, any_match, last_ms, last_me);
    if (end != OC_D_OK)
        return end;
    if (op > 0x7fffffffu)
        return OC_D_CHUNK_TOO_LARGE;
    *outn = op;
    return OC_D_OK;
}

/* The status of a block a decoder refused (st: CORRUPT, TRUNCATED or
 * OUTPUT_TOO_SMALL), as the CPU engine gives it: the CPU engine scans the
 * whole block before it looks at the capacity (codec_lz4.c), so a block
 * that overflows and is damaged further on is CORRUPT or TRUNCATED there,
 * and its scanner checks an offset before it reads the match length (the
 * decoders read the length first).  The decoders stop at the first
 * failure in their own order; this scan (the CPU scanner's order), run
 * only on a refused block, gives the CPU engine's verdict.  Any lanes may
 * call it, each for its own block. */
__device__ __noinline__ int oc_lz4_cpu_verdict(int st, const uint8_t *__restrict__ src, size_t srcn, int lane)
{
    if (st != OC_D_CORRUPT && st != OC_D_TRUNCATED && st != OC_D_OUTPUT_TOO_SMALL)
        return st;
    size_t outn = 0;
    int scan = oc_lz4_scan_warp(src, srcn, &outn, lane);
    return scan == OC_D_OK ? st : scan; /* valid: the capacity was the failure */
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

/* The LZ4 parser of the split decoder (lz_split_launch.cuh): the
 * resumable parse (lz4_fast_parse.h, over lz4_split_parse.h), and a copy warp's decode of a chunk
 * no parse lane claimed: the pipe's rounds parser (the same checks in the
 * same order, so the same statuses and sizes as the parse half) with the
 * split copy as its sink. */
struct oc_lz4_split_codec {
    typedef oc_lz4s_st st;
    enum { refill_quarters = 2 }; /* half the lanes dry (v8: smem-w512-t2) */
    static __device__ __forceinline__ void init(st *s) { oc_lz4s_init(s); }
    static __device__ __forceinline__ int step(st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                                               uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
    {
        return oc_lz4f_step(s, wp, wshift, whi, srcn, cap, recs);
    }
    static __device__ __noinline__ void self_decode(const uint8_t *src, uint32_t srcn, uint8_t *dst,
                                                    uint32_t cap, size_t *size_out, int32_t *status_out,
                                                    oc_lzs_slot *q, int lane)
    {
        oc_lzs_self self = {q, src, dst, 0};
        size_t outn = 0;
        int st = oc_lz4_decode_rounds<uint32_t, oc_lzs_self>(src, srcn, cap, &outn, lane, &self);
        st = oc_lz4_cpu_verdict(st, src, srcn, lane);
        if (lane == 0) {
            if (size_out)
                *size_out = st == OC_D_OK ? outn : 0;
            if (status_out)
                *status_out = st;
        }
    }
};

/* The split parse's statuses (lz_split_launch.cuh): a refused block is
 * rescanned, as in the pipe and the self-decode. */
template <>
__device__ __forceinline__ int oc_lzs_verdict<oc_lz4_split_codec>(int st, const uint8_t *src, size_t srcn)
{
    return oc_lz4_cpu_verdict(st, src, srcn, 0);
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
    if (split && oc_lzs_takes(src, srcn, dst, cap, split_cap)) /* the whole block */
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
    st = oc_lz4_cpu_verdict(st, src, srcn, lane);
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

/* oc_lz4_emit for the greedy parse (lz_device.cuh's oc_greedy_parse). */
struct oc_lz4_writer {
    static __device__ __forceinline__ int emit(uint8_t *dst, size_t cap, size_t *op, const uint8_t *lits,
                                               size_t lit, int has_match, uint32_t offset, size_t ml,
                                               int lane)
    {
        return oc_lz4_emit(dst, cap, op, lits, lit, has_match, offset, ml, lane);
    }
};

template <bool LAZY>
__global__ void __launch_bounds__(OC_COMPRESS_WARPS * 32) oc_lz4_compress_kernel(oc_cuda_batch b)
{
    __shared__ uint16_t tables[OC_COMPRESS_WARPS][LAZY ? OC_HT_SIZE : (1 << OC_LZ4_GREEDY_HT_LOG)];
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
        oc_table_clear(table, lane, LAZY ? OC_HT_SIZE : (1 << OC_LZ4_GREEDY_HT_LOG));
        /* liblz4's end rules: match starts < n - 11, matches end <= n - 5. */
        size_t start_end = n >= 13 ? n - 11 : 0;
        size_t match_end = n >= 5 ? n - 5 : 0;
        size_t anchor = 0, p = 0;
        oc_match m;
        size_t mark = 0;
        /* greedy: multi-match windows (lz_device.cuh) */
        if (!LAZY && !oc_greedy_parse<OC_LZ4_GREEDY_HT_LOG, oc_lz4_writer>(
                         src, n, table, start_end, match_end, dst, cap, &op, &anchor, lane)) {
            st = OC_D_OUTPUT_TOO_SMALL;
            goto done;
        }
        /* lazy (levels >= 2): one match a window (oc_find_match) */
        while (LAZY && p < start_end) {
            oc_prefetch_ahead(src, n, p, &mark, lane);
            if (!oc_find_match(src, table, p, start_end, match_end, lane, &m)) {
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

static size_t oc_lz4_gpu_decompress_scratch(const oc_gpu_config *cfg, size_t n)
{
    return oc_lzs_scratch(cfg, n, OC_LZS_AUTO);
}

static size_t oc_lz4_gpu_split_scratch(const oc_gpu_config *cfg, size_t n)
{
    return oc_lzs_scratch(cfg, n, OC_LZS_SPLIT);
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

/* The decoder: the pipe over the whole batch (it leaves the split
 * decoder's chunks at once), then the split decoder in waves
 * (lz_split_launch.cuh's oc_lzs_run, the parse on the context's second
 * stream cfg->side when there is one).  OC_LZS_COPY_ONLY (tests only)
 * runs no parse: the copy warps decode every chunk alone.  A template over
 * the split codec (its parse step) so that bench/gpu/dev/lz_split.cu runs
 * this same sequence with the general step beside the library's. */
template <typename SplitCodec>
static oc_status oc_lz4_decode_batch(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                     const oc_cuda_batch &b, cudaStream_t stream, enum oc_lzs_mode mode)
{
    uint32_t split_cap = 0;
    size_t wave = oc_lzs_wave(scratch_dev, scratch_size, cfg, b.n, mode, &split_cap);
    oc_lz4_decompress_pipe_kernel<<<(unsigned)b.n, 64, 0, stream>>>(b, wave > 0, split_cap);
    if (wave == 0 || cudaPeekAtLastError() != cudaSuccess)
        return oc_launched();
    return oc_lzs_run<SplitCodec>(scratch_dev, cfg->side, mode != OC_LZS_COPY_ONLY, b, split_cap, wave,
                                  stream);
}

static oc_status oc_lz4_decompress_run(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                       size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                       void *const *dst_dev, const size_t *dst_caps_dev,
                                       size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream,
                                       enum oc_lzs_mode mode)
{
    oc_cuda_batch b =
        oc_cuda_batch_of(n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, dst_sizes_dev, statuses_dev);
    return oc_lz4_decode_batch<oc_lz4_split_codec>(scratch_dev, scratch_size, cfg, b, stream, mode);
}

static oc_status oc_lz4_gpu_decompress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                       size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                       void *const *dst_dev, const size_t *dst_caps_dev,
                                       size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream)
{
    return oc_lz4_decompress_run(scratch_dev, scratch_size, cfg, n, src_dev, src_sizes_dev, dst_dev,
                                 dst_caps_dev, dst_sizes_dev, statuses_dev, stream, OC_LZS_AUTO);
}

static oc_status oc_lz4_gpu_decompress_split(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                             size_t n, const void *const *src_dev,
                                             const size_t *src_sizes_dev, void *const *dst_dev,
                                             const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                             oc_status *statuses_dev, cudaStream_t stream)
{
    return oc_lz4_decompress_run(scratch_dev, scratch_size, cfg, n, src_dev, src_sizes_dev, dst_dev,
                                 dst_caps_dev, dst_sizes_dev, statuses_dev, stream, OC_LZS_SPLIT);
}

static oc_status oc_lz4_gpu_decompress_copy_only(void *scratch_dev, size_t scratch_size,
                                                 const oc_gpu_config *cfg, size_t n,
                                                 const void *const *src_dev, const size_t *src_sizes_dev,
                                                 void *const *dst_dev, const size_t *dst_caps_dev,
                                                 size_t *dst_sizes_dev, oc_status *statuses_dev,
                                                 cudaStream_t stream)
{
    return oc_lz4_decompress_run(scratch_dev, scratch_size, cfg, n, src_dev, src_sizes_dev, dst_dev,
                                 dst_caps_dev, dst_sizes_dev, statuses_dev, stream, OC_LZS_COPY_ONLY);
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
