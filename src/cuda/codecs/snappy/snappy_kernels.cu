/*
 * snappy_kernels.cu - Snappy raw format (varint length preamble, then literal
 * and copy elements) on the GPU: decoder, size reader and compressor, and
 * the GPU codec (gpu_codec.h) around them.
 *
 * Decoder, chunks of at most 64 KiB in batches of at least
 * OC_LZS_MIN_BATCH chunks: the split decoder of LZ4 (lz4_kernels.cu says
 * how it runs; lz_common/lz_split_launch.cuh is its code) with Snappy's
 * parse step (snappy_split_parse.h: a lane walks a stream, reading through
 * a window in shared memory, and stores a record per copy with the
 * literal before it) and Snappy's self-decode (oc_snappy_split_codec).
 * Scratch, routes, waves and streams as LZ4's; a chunk whose records would
 * overflow its slot (1-byte copies, hostile streams only) is given back
 * by the parse and decoded by a copy warp alone.
 *
 * Decoder, other chunks: the two-warp pipeline (lz_decode_pipe.cuh), a
 * block per chunk.  The parser warp checks every element of a round
 * against the input end (TRUNCATED), the declared length and the output
 * start (CORRUPT) (snappy_decode_rounds.cuh); a stream that ends on an
 * element boundary short of the declared length is TRUNCATED.  The copier
 * warp writes the output; when the declared length exceeds the capacity
 * it copies nothing, and a stream that passes whole is OUTPUT_TOO_SMALL.
 *
 * Statuses, in both decoders, are the CPU engine's on every input (its
 * scanner's checks in its order, src/cpu/codecs/snappy/snappy_scan.c, then
 * the capacity): tests/c/test_snappy_split_core.c on the host,
 * tests/c/test_cuda_lz_split.c on a GPU.
 *
 * Size query: the decoder's parse without the copies (the pipe's parser
 * warp with a copier that only keeps step), so a stream the decoder
 * refuses is refused by the size query too, as on the CPU (issue 11 item
 * 12; the preamble alone called cut streams OK).
 *
 * Compressor: the LZ4 greedy match finder (multi-match windows,
 * lz_device.cuh; the same 64 KiB window, a 2^11-entry table: snappy has
 * no levels), emitting snappy's literal and
 * copy-1/copy-2 elements the way the reference encoder does (copies split
 * into pieces of at most 64 bytes).
 *
 * The other decoders measured on the way (one element at a time, rounds on
 * one warp, the pipe's v6c copier) live in bench/gpu/dev/ with their
 * harness.
 */
#include "../../runtime/gpu_codec.h"
#include "../lz_common/lz_device.cuh"
#include "../lz_common/lz_split_launch.cuh"
#include "snappy_decode_rounds.cuh"
#include "snappy_gpu.h"
#include "snappy_split_parse.h"

/* Reads the varint preamble; returns its byte count, 0 if truncated, -1 if
 * invalid (a sixth byte needed, or above 2^32-1), in the CPU scanner's
 * order (the input's end first). */
__device__ int oc_snappy_preamble(const uint8_t *__restrict__ src, size_t srcn, uint32_t *len)
{
    uint64_t v = 0;
    for (int i = 0;; i++) {
        if ((size_t)i >= srcn)
            return 0;
        if (i == 5)
            return -1;
        uint32_t c = __ldg(src + i);
        v |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) {
            if (v > 0xffffffffull)
                return -1;
            *len = (uint32_t)v;
            return i + 1;
        }
    }
}

/* Whether a chunk's declared length exceeds its capacity (a preamble
 * that fails says no): such a stream is walked whole, copying nothing,
 * and called OUTPUT_TOO_SMALL only if the walk passes (the CPU engine's
 * verdict: its scanner first, then the capacity). */
__device__ __forceinline__ int oc_snappy_over(const uint8_t *__restrict__ src, size_t srcn, size_t cap)
{
    uint32_t ulen = 0;
    return oc_snappy_preamble(src, srcn, &ulen) > 0 && ulen > cap;
}

/* The parser warp's part of decoding a chunk: the preamble, then the
 * rounds (snappy_decode_rounds.cuh) into the sink pp; when the declared
 * length exceeds cap, the rounds go to pp all the same (its copier must
 * copy nothing: oc_snappy_over tells) and a stream that passes is
 * OUTPUT_TOO_SMALL.  *outn: the declared length. */
template <typename S>
__device__ int oc_snappy_decode_pipe(const uint8_t *__restrict__ src, size_t srcn, size_t cap, size_t *outn,
                                     int lane, S *pp)
{
    uint32_t ulen = 0;
    int pre = oc_snappy_preamble(src, srcn, &ulen);
    if (pre == 0)
        return OC_D_TRUNCATED;
    if (pre < 0)
        return OC_D_CORRUPT;
    *outn = ulen;
    int st = oc_pipe_narrow(srcn, 0)
                 ? oc_snappy_decode_rounds<uint32_t>(src, srcn, (size_t)pre, ulen, lane, pp)
                 : oc_snappy_decode_rounds<uint64_t>(src, srcn, (size_t)pre, ulen, lane, pp);
    return st == OC_D_OK && ulen > cap ? OC_D_OUTPUT_TOO_SMALL : st;
}

/* The size query's second warp: passes the round barriers as the copier
 * does (oc_pipe_copier), copying nothing. */
static __device__ __noinline__ void oc_pipe_drain(oc_pipe_q *q)
{
    for (uint32_t r = 0;; r++) {
        oc_pipe_barrier();
        if (q->cnt[r % OC_PIPE_DEPTH] == 0)
            break;
    }
}

/* The size query: block = one chunk, warp 0 runs the decoder's parse and
 * checks with no capacity limit, warp 1 drains the rounds. */
__global__ void __launch_bounds__(64) oc_snappy_sizes_kernel(oc_cuda_batch b)
{
    __shared__ oc_pipe_q q;
    size_t chunk = blockIdx.x;
    int lane = threadIdx.x & 31;
    if (chunk >= b.n)
        return;
    if (threadIdx.x >= 32) {
        oc_pipe_drain(&q);
        return;
    }
    const uint8_t *src = b.src[chunk];
    oc_pipe_prod pp = {&q, 0};
    size_t outn = 0;
    int st = src == nullptr ? OC_D_INVALID_ARGUMENT
                            : oc_snappy_decode_pipe(src, b.src_sizes[chunk], ~(size_t)0, &outn, lane, &pp);
    oc_pipe_finish(&pp, lane);
    if (lane == 0) {
        if (b.dst_sizes)
            b.dst_sizes[chunk] = st == OC_D_OK ? outn : 0;
        if (b.statuses)
            b.statuses[chunk] = st;
    }
}

/* The Snappy parser of the split decoder (lz_common/lz_split_launch.cuh):
 * the resumable parse (snappy_split_parse.h), and a copy warp's decode of
 * a chunk no parse lane claimed or one the parse gave back: the pipe's
 * rounds parser (the same checks in the same order, so the same statuses
 * and sizes; 32-bit, as the split decoder's inputs are below 2^31 bytes)
 * with the split copy as its sink, or no sink when the declared length
 * exceeds the capacity (as oc_snappy_decode_pipe). */
struct oc_snappy_split_codec {
    typedef oc_snaps_st st;
    /* a quarter of the lanes dry: Snappy's lanes drain their windows at
       more different rates (a literal skips its bytes), and v8's harness
       measured t1 21% faster than t2 for Snappy (bench/NOTES.md "v8: outcome") */
    enum { refill_quarters = 1 };
    /* a lane a chunk: v11's two lanes a chunk lost (bench/NOTES.md "v11", "v11b") and live in
       bench/gpu/dev (dev_snappy_pair_parse.h, dev_lz_pair.cuh; snappy_fast's variants pairs, pairs9) */
    static __device__ __forceinline__ void init(st *s) { oc_snaps_init(s); }
    static __device__ __forceinline__ int step(st *s, const uint8_t *wp, uint32_t wshift, uint32_t whi,
                                               uint32_t srcn, uint32_t cap, oc_lzs_rec *recs)
    {
        return oc_snaps_step(s, wp, wshift, whi, srcn, cap, recs);
    }
    static __device__ __noinline__ void self_decode(const uint8_t *src, uint32_t srcn, uint8_t *dst,
                                                    uint32_t cap, size_t *size_out, int32_t *status_out,
                                                    oc_lzs_slot *q, int lane)
    {
        uint32_t ulen = 0;
        int pre = oc_snappy_preamble(src, srcn, &ulen), st;
        if (pre == 0) {
            st = OC_D_TRUNCATED;
        } else if (pre < 0) {
            st = OC_D_CORRUPT;
        } else if (ulen > cap) {
            oc_pipe_null none = {0};
            st = oc_snappy_decode_rounds<uint32_t>(src, srcn, (size_t)pre, ulen, lane, &none);
            st = st == OC_D_OK ? OC_D_OUTPUT_TOO_SMALL : st;
        } else {
            oc_lzs_self self = {q, src, dst, 0};
            st = oc_snappy_decode_rounds<uint32_t>(src, srcn, (size_t)pre, ulen, lane, &self);
        }
        if (lane == 0) {
            if (size_out)
                *size_out = st == OC_D_OK ? ulen : 0;
            if (status_out)
                *status_out = st;
        }
    }
};

/* The two-warp pipelined decoder (v6, lz_decode_pipe.cuh): block = one
 * chunk, warp 0 parses rounds and checks, warp 1 copies (or, when the
 * declared length exceeds the capacity, passes the rounds copying
 * nothing).  With split set, the chunks the split decoder takes are left
 * to it. */
__global__ void __launch_bounds__(64)
    oc_snappy_decompress_pipe_kernel(oc_cuda_batch b, int split, uint32_t split_cap)
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
    int valid = src != nullptr && (dst != nullptr || cap == 0);
    if (threadIdx.x >= 32) {
        if (valid && oc_snappy_over(src, srcn, cap))
            oc_pipe_drain(&q);
        else
            oc_pipe_copier(&q, src, dst, ring, lane);
        return;
    }
    oc_pipe_prod pp = {&q, 0};
    size_t outn = 0;
    int st;
    if (!valid)
        st = OC_D_INVALID_ARGUMENT;
    else
        st = oc_snappy_decode_pipe(src, srcn, cap, &outn, lane, &pp);
    oc_pipe_finish(&pp, lane);
    if (lane == 0) {
        if (b.dst_sizes)
            b.dst_sizes[chunk] = st == OC_D_OK ? outn : 0;
        if (b.statuses)
            b.statuses[chunk] = st;
    }
}

/* The compressor's table: 2^11 entries of 16-bit positions a warp (4 KiB:
 * 32 resident warps an H100/H200 SM, by registers, where 2^13 allowed 12).
 * Measured (bench/NOTES.md "Compressors (issue 13, session 8)", H200, 1 GiB
 * of 64 KiB chunks of the mix): 27.6 GB/s at a ratio of 1.870 vs nvCOMP's
 * 22.6 at 1.842; 2^12 gave 23.1 at 1.906, too close to nvCOMP's speed. */
#define OC_SNAPPY_HT_LOG 11

/* Bytes of a literal element header for lit >= 1 bytes. */
__device__ __forceinline__ size_t oc_snappy_lit_header(size_t lit)
{
    size_t v = lit - 1;
    return v < 60 ? 1 : v < 256 ? 2 : v < 65536 ? 3 : v < (1u << 24) ? 4 : 5;
}

/* Bytes of the copy elements for a match of len >= 4 at offset < 65536. */
__device__ __forceinline__ size_t oc_snappy_copy_bytes(size_t len, uint32_t offset)
{
    size_t bytes = 0;
    while (len >= 68) {
        bytes += 3;
        len -= 64;
    }
    if (len > 64) {
        bytes += 3;
        len -= 60;
    }
    return bytes + ((len < 12 && offset < 2048) ? 2 : 3);
}

__device__ __forceinline__ int oc_snappy_emit(uint8_t *dst, size_t cap, size_t *op, const uint8_t *lits,
                                              size_t lit, int has_match, uint32_t offset, size_t len,
                                              int lane)
{
    size_t need =
        (lit ? oc_snappy_lit_header(lit) + lit : 0) + (has_match ? oc_snappy_copy_bytes(len, offset) : 0);
    if (need > cap - *op)
        return 0;
    size_t o = *op;
    if (lit) {
        size_t v = lit - 1;
        size_t h = oc_snappy_lit_header(lit);
        if (lane == 0) {
            if (h == 1) {
                dst[o] = (uint8_t)(v << 2);
            } else {
                dst[o] = (uint8_t)((58 + h) << 2); /* tags 60..63: 1..4 length bytes */
                for (size_t j = 1; j < h; j++)
                    dst[o + j] = (uint8_t)(v >> (8 * (j - 1)));
            }
        }
        o += h;
        oc_warp_copy_in(dst + o, lits, lit, lane);
        o += lit;
    }
    if (has_match) {
        /* lane 0 writes the (few) copy elements */
        if (lane == 0) {
            size_t l = len;
            while (l > 0) {
                size_t piece = l >= 68 ? 64 : l > 64 ? 60 : l;
                if (piece < 12 && offset < 2048) {
                    dst[o] = (uint8_t)(1 | ((piece - 4) << 2) | ((offset >> 8) << 5));
                    dst[o + 1] = (uint8_t)offset;
                    o += 2;
                } else {
                    dst[o] = (uint8_t)(2 | ((piece - 1) << 2));
                    dst[o + 1] = (uint8_t)offset;
                    dst[o + 2] = (uint8_t)(offset >> 8);
                    o += 3;
                }
                l -= piece;
            }
        }
        o = __shfl_sync(OC_FULL_MASK, o, 0);
    }
    *op = o;
    return 1;
}

/* oc_snappy_emit for the greedy parse (lz_device.cuh's oc_greedy_parse). */
struct oc_snappy_writer {
    static __device__ __forceinline__ int emit(uint8_t *dst, size_t cap, size_t *op, const uint8_t *lits,
                                               size_t lit, int has_match, uint32_t offset, size_t len,
                                               int lane)
    {
        return oc_snappy_emit(dst, cap, op, lits, lit, has_match, offset, len, lane);
    }
};

__global__ void __launch_bounds__(OC_COMPRESS_WARPS * 32) oc_snappy_compress_kernel(oc_cuda_batch b)
{
    __shared__ uint16_t tables[OC_COMPRESS_WARPS][(1 << OC_SNAPPY_HT_LOG)];
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
    if (n > 0xffffffffull) {
        st = OC_D_CHUNK_TOO_LARGE;
        goto done;
    }
    {
        /* preamble: varint of n */
        uint32_t v = (uint32_t)n;
        size_t pre = 1;
        while (v >= 128) {
            v >>= 7;
            pre++;
        }
        if (pre > cap) {
            st = OC_D_OUTPUT_TOO_SMALL;
            goto done;
        }
        if (lane == 0) {
            uint32_t x = (uint32_t)n;
            for (size_t j = 0; j < pre; j++, x >>= 7)
                dst[j] = (uint8_t)((x & 0x7f) | (j + 1 < pre ? 0x80 : 0));
        }
        op = pre;
        oc_table_clear(table, lane, (1 << OC_SNAPPY_HT_LOG));
        size_t start_end = n >= 13 ? n - 11 : 0;
        size_t match_end = n >= 5 ? n - 5 : 0;
        size_t anchor = 0;
        /* greedy: multi-match windows (lz_device.cuh) */
        if (!oc_greedy_parse<OC_SNAPPY_HT_LOG, oc_snappy_writer>(src, n, table, start_end, match_end, dst,
                                                                 cap, &op, &anchor, lane)) {
            st = OC_D_OUTPUT_TOO_SMALL;
            goto done;
        }
        if (!oc_snappy_emit(dst, cap, &op, src + anchor, n - anchor, 0, 0, 0, lane))
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

static oc_status oc_snappy_gpu_compress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                        size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                        void *const *dst_dev, const size_t *dst_caps_dev,
                                        size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream)
{
    (void)scratch_dev, (void)scratch_size, (void)cfg; /* snappy has no levels: greedy matching */
    oc_cuda_batch b =
        oc_cuda_batch_of(n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, dst_sizes_dev, statuses_dev);
    oc_snappy_compress_kernel<<<oc_blocks_for(n, OC_COMPRESS_WARPS), OC_COMPRESS_WARPS * 32, 0, stream>>>(b);
    return oc_launched();
}

/* Scratch: the split decoder's (lz_split_launch.cuh's oc_lzs_scratch:
 * none for batches the pipe decodes alone, nor for the size query). */
static size_t oc_snappy_gpu_decompress_scratch(const oc_gpu_config *cfg, size_t n)
{
    return oc_lzs_scratch(cfg, n, OC_LZS_AUTO);
}

static size_t oc_snappy_gpu_split_scratch(const oc_gpu_config *cfg, size_t n)
{
    return oc_lzs_scratch(cfg, n, OC_LZS_SPLIT);
}

/* The decoder: the pipe over the whole batch (it leaves the split
 * decoder's chunks at once), then the split decoder in waves
 * (oc_lzs_run, the parse on the context's second stream cfg->side when
 * there is one), as LZ4's (lz4_kernels.cu).  OC_LZS_COPY_ONLY (tests
 * only) runs no parse: the copy warps decode every chunk alone. */
static oc_status oc_snappy_decompress_run(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                          size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                          void *const *dst_dev, const size_t *dst_caps_dev,
                                          size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream,
                                          enum oc_lzs_mode mode)
{
    oc_cuda_batch b =
        oc_cuda_batch_of(n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, dst_sizes_dev, statuses_dev);
    uint32_t split_cap = 0;
    size_t wave = oc_lzs_wave(scratch_dev, scratch_size, cfg, n, mode, &split_cap);
    oc_snappy_decompress_pipe_kernel<<<(unsigned)n, 64, 0, stream>>>(b, wave > 0, split_cap);
    if (wave == 0 || cudaPeekAtLastError() != cudaSuccess)
        return oc_launched();
    return oc_lzs_run<oc_snappy_split_codec>(scratch_dev, cfg->side, mode != OC_LZS_COPY_ONLY, b, split_cap,
                                             wave, stream);
}

static oc_status oc_snappy_gpu_decompress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                          size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                          void *const *dst_dev, const size_t *dst_caps_dev,
                                          size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream)
{
    return oc_snappy_decompress_run(scratch_dev, scratch_size, cfg, n, src_dev, src_sizes_dev, dst_dev,
                                    dst_caps_dev, dst_sizes_dev, statuses_dev, stream, OC_LZS_AUTO);
}

static oc_status oc_snappy_gpu_decompress_split(void *scratch_dev, size_t scratch_size,
                                                const oc_gpu_config *cfg, size_t n,
                                                const void *const *src_dev, const size_t *src_sizes_dev,
                                                void *const *dst_dev, const size_t *dst_caps_dev,
                                                size_t *dst_sizes_dev, oc_status *statuses_dev,
                                                cudaStream_t stream)
{
    return oc_snappy_decompress_run(scratch_dev, scratch_size, cfg, n, src_dev, src_sizes_dev, dst_dev,
                                    dst_caps_dev, dst_sizes_dev, statuses_dev, stream, OC_LZS_SPLIT);
}

static oc_status oc_snappy_gpu_decompress_copy_only(void *scratch_dev, size_t scratch_size,
                                                    const oc_gpu_config *cfg, size_t n,
                                                    const void *const *src_dev, const size_t *src_sizes_dev,
                                                    void *const *dst_dev, const size_t *dst_caps_dev,
                                                    size_t *dst_sizes_dev, oc_status *statuses_dev,
                                                    cudaStream_t stream)
{
    return oc_snappy_decompress_run(scratch_dev, scratch_size, cfg, n, src_dev, src_sizes_dev, dst_dev,
                                    dst_caps_dev, dst_sizes_dev, statuses_dev, stream, OC_LZS_COPY_ONLY);
}

static oc_status oc_snappy_gpu_sizes(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                     size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                     void *const *dst_dev, const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                     oc_status *statuses_dev, cudaStream_t stream)
{
    (void)scratch_dev, (void)scratch_size, (void)cfg;
    oc_cuda_batch b =
        oc_cuda_batch_of(n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, dst_sizes_dev, statuses_dev);
    oc_snappy_sizes_kernel<<<(unsigned)n, 64, 0, stream>>>(b);
    return oc_launched();
}

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_snappy = {NULL,
                                                               oc_snappy_gpu_compress,
                                                               oc_snappy_gpu_decompress_scratch,
                                                               oc_snappy_gpu_decompress,
                                                               oc_snappy_gpu_sizes,
                                                               1};

/* Tests only (snappy_gpu.h): the split decoder whatever the batch's size,
 * and its copy kernel alone; the scratch of a split decode. */
extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_snappy_split = {
    NULL, NULL, oc_snappy_gpu_split_scratch, oc_snappy_gpu_decompress_split, NULL, 1};
extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_snappy_copy_only = {
    NULL, NULL, oc_snappy_gpu_split_scratch, oc_snappy_gpu_decompress_copy_only, NULL, 1};
