/*
 * snappy_kernels.cu - Snappy raw format (varint length preamble, then literal
 * and copy elements) on the GPU: decoder, size reader and compressor, one
 * warp per chunk.
 *
 * Decoder: the preamble is checked against the output capacity before any
 * byte is written (OUTPUT_TOO_SMALL), every element against the input end
 * (TRUNCATED), the declared length and the output start (CORRUPT); a stream
 * that ends on an element boundary short of the declared length is
 * TRUNCATED.  Copies are warp-cooperative (lz_device.cuh).
 *
 * Compressor: the LZ4 match finder (same hash table, same 64 KiB window),
 * emitting snappy's literal and copy-1/copy-2 elements the way the reference
 * encoder does (copies split into pieces of at most 64 bytes).
 */
#include <stdlib.h>
#include <string.h>

#include "../../runtime/cuda_internal.cuh"
#include "../../runtime/gpu_codec.h"
#include "../lz_common/lz_device.cuh"
#include "snappy_decode_rounds.cuh"

/* Reads the varint preamble; returns its byte count, 0 if truncated, -1 if
 * invalid (more than 5 bytes or above 2^32-1). */
__device__ int oc_snappy_preamble(const uint8_t *__restrict__ src, size_t srcn, uint32_t *len)
{
    uint64_t v = 0;
    for (int i = 0; i < 5; i++) {
        if ((size_t)i >= srcn)
            return 0;
        uint32_t c = __ldg(src + i);
        v |= (uint64_t)(c & 0x7f) << (7 * i);
        if (!(c & 0x80)) {
            if (v > 0xffffffffull)
                return -1;
            *len = (uint32_t)v;
            return i + 1;
        }
    }
    return -1;
}

template <bool WRITE, bool ROUNDS, bool PIPE = false>
__device__ int oc_snappy_decode_warp(const uint8_t *__restrict__ src, size_t srcn, uint8_t *dst, size_t cap,
                                     size_t *outn, uint8_t *ring, int lane, oc_pipe_prod *pp = nullptr)
{
    uint32_t ulen = 0;
    int pre = oc_snappy_preamble(src, srcn, &ulen);
    if (pre == 0)
        return OC_D_TRUNCATED;
    if (pre < 0)
        return OC_D_CORRUPT;
    *outn = ulen;
    if (!WRITE)
        return OC_D_OK;
    if (ulen > cap)
        return OC_D_OUTPUT_TOO_SMALL;
    if (ROUNDS || PIPE)
        return PIPE && oc_pipe_narrow(srcn, 0)
                   ? oc_snappy_decode_rounds<PIPE, uint32_t>(src, srcn, (size_t)pre, dst, ulen, ring, lane,
                                                             pp)
                   : oc_snappy_decode_rounds<PIPE, uint64_t>(src, srcn, (size_t)pre, dst, ulen, ring, lane,
                                                             pp);
    size_t ip = (size_t)pre, op = 0, mark = 0;
    uint32_t tag = ip < srcn ? __ldg(src + ip) : 0;
    while (ip < srcn) {
        oc_prefetch_ahead(src, srcn, ip, &mark, lane);
        /* tag = src[ip], loaded ahead (see the LZ4 decoder) */
        ip++;
        uint32_t kind = tag & 3;
        if (kind == 0) {
            size_t lit = (tag >> 2) + 1;
            if (lit > 60) {
                uint32_t nb = (uint32_t)lit - 60; /* 1..4 length bytes */
                if (srcn - ip < nb)
                    return OC_D_TRUNCATED;
                uint32_t v = 0;
                for (uint32_t j = 0; j < nb; j++)
                    v |= (uint32_t)__ldg(src + ip + j) << (8 * j);
                ip += nb;
                lit = (size_t)v + 1;
            }
            if (lit > srcn - ip)
                return OC_D_TRUNCATED;
            if (lit > ulen - op)
                return OC_D_CORRUPT;
            size_t lp = ip;
            ip += lit;
            tag = ip < srcn ? __ldg(src + ip) : 0;
            oc_warp_lit_ring(dst, ring, op, src + lp, lit, lane);
            op += lit;
        } else {
            size_t len;
            uint32_t offset;
            if (kind == 1) {
                if (ip >= srcn)
                    return OC_D_TRUNCATED;
                len = ((tag >> 2) & 7) + 4;
                offset = ((tag >> 5) << 8) | __ldg(src + ip);
                ip += 1;
            } else if (kind == 2) {
                if (srcn - ip < 2)
                    return OC_D_TRUNCATED;
                len = (tag >> 2) + 1;
                offset = (uint32_t)__ldg(src + ip) | ((uint32_t)__ldg(src + ip + 1) << 8);
                ip += 2;
            } else {
                if (srcn - ip < 4)
                    return OC_D_TRUNCATED;
                len = (tag >> 2) + 1;
                offset = oc_read32(src + ip);
                ip += 4;
            }
            tag = ip < srcn ? __ldg(src + ip) : 0;
            if (offset == 0 || offset > op)
                return OC_D_CORRUPT;
            if (len > ulen - op)
                return OC_D_CORRUPT;
            __syncwarp(); /* literals and earlier copies visible to every lane */
            oc_warp_match_ring(dst, ring, op, offset, len, (size_t)offset + len <= OC_RING, lane);
            op += len;
        }
    }
    if (op != ulen)
        return OC_D_TRUNCATED;
    return OC_D_OK;
}

template <bool WRITE, bool ROUNDS>
__global__ void __launch_bounds__(OC_DECODE_WARPS * 32) oc_snappy_decompress_kernel(oc_cuda_batch b)
{
    __shared__ uint8_t rings[WRITE ? OC_DECODE_WARPS : 1][WRITE ? OC_RING : 1];
    size_t chunk = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    uint8_t *ring = rings[WRITE ? threadIdx.x / 32 : 0];
    if (chunk >= b.n)
        return;
    const uint8_t *src = b.src[chunk];
    size_t srcn = b.src_sizes[chunk];
    uint8_t *dst = WRITE ? b.dst[chunk] : nullptr;
    size_t cap = WRITE ? b.dst_caps[chunk] : 0;
    size_t outn = 0;
    int st;
    if (src == nullptr || (WRITE && dst == nullptr && cap != 0))
        st = OC_D_INVALID_ARGUMENT;
    else
        st = oc_snappy_decode_warp<WRITE, ROUNDS>(src, srcn, dst, cap, &outn, ring, lane);
    if (lane == 0) {
        if (b.dst_sizes)
            b.dst_sizes[chunk] = st == OC_D_OK ? outn : 0;
        if (b.statuses)
            b.statuses[chunk] = st;
    }
}

/* The two-warp pipelined decoder (v6, lz_decode_pipe.cuh): block = one
 * chunk, warp 0 parses rounds and checks, warp 1 copies. */
__global__ void __launch_bounds__(64) oc_snappy_decompress_pipe_kernel(oc_cuda_batch b, int bytes)
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
    if (threadIdx.x >= 32) {
        oc_pipe_copier(&q, src, dst, ring, lane, bytes);
        return;
    }
    oc_pipe_prod pp = {&q, 0};
    size_t outn = 0;
    int st;
    if (src == nullptr || (dst == nullptr && cap != 0))
        st = OC_D_INVALID_ARGUMENT;
    else
        st = oc_snappy_decode_warp<true, true, true>(src, srcn, dst, cap, &outn, ring, lane, &pp);
    oc_pipe_finish(&pp, lane);
    if (lane == 0) {
        if (b.dst_sizes)
            b.dst_sizes[chunk] = st == OC_D_OK ? outn : 0;
        if (b.statuses)
            b.statuses[chunk] = st;
    }
}

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

template <bool LAZY>
__global__ void __launch_bounds__(OC_COMPRESS_WARPS * 32) oc_snappy_compress_kernel(oc_cuda_batch b)
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
        oc_table_clear(table, lane);
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
            if (!oc_snappy_emit(dst, cap, &op, src + anchor, m.pos - anchor, 1, (uint32_t)(m.pos - m.ref),
                                m.len, lane)) {
                st = OC_D_OUTPUT_TOO_SMALL;
                goto done;
            }
            p = m.pos + m.len;
            anchor = p;
            if (lane == 0 && p - 2 < start_end)
                table[oc_hash4(oc_read32(src + p - 2))] = (uint16_t)(p - 2);
            __syncwarp();
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

/* Decoder choice: rounds (v4), one element at a time (v3) by
 * OC_CUDA_SNAPPY_DECODER=serial, or the two-warp pipeline (v6, default) by
 * OC_CUDA_SNAPPY_DECODER=pipe; read once.  Returns 0 serial, 1 rounds,
 * 2 pipe. */
/* The decoder without (or with an unknown) OC_CUDA_SNAPPY_DECODER: 2, the pipe (v6d/v6e):
 * measured in gpu-check's run of commit dac81d69e978 (H200, 64 KiB chunks)
 * at 2.6x the rounds decoder corpus-wide, passing every GPU test, memcheck
 * and racecheck; gpu-check's VARIANTS keeps the rounds decoder tested. */
#define OC_SNAPPY_DECODER_DEFAULT 2
static int oc_cuda_snappy_rounds(void)
{
    static volatile int mode = -1;
    if (mode < 0) {
        const char *e = getenv("OC_CUDA_SNAPPY_DECODER");
        mode = !e                         ? OC_SNAPPY_DECODER_DEFAULT
               : strcmp(e, "serial") == 0 ? 0
               : strcmp(e, "rounds") == 0 ? 1
               : strcmp(e, "pipe") == 0   ? 2
                                          : OC_SNAPPY_DECODER_DEFAULT;
    }
    return mode;
}

static cudaError_t oc_snappy_decompress_launch(const oc_cuda_batch &b, int write_output, cudaStream_t stream)
{
    const unsigned wpb = OC_DECODE_WARPS;
    unsigned blocks = (unsigned)((b.n + wpb - 1) / wpb);
    if (write_output && oc_cuda_snappy_rounds() == 2)
        oc_snappy_decompress_pipe_kernel<<<(unsigned)b.n, 64, 0, stream>>>(b, oc_cuda_pipe_copier_bytes());
    else if (write_output && oc_cuda_snappy_rounds())
        oc_snappy_decompress_kernel<true, true><<<blocks, wpb * 32, 0, stream>>>(b);
    else if (write_output)
        oc_snappy_decompress_kernel<true, false><<<blocks, wpb * 32, 0, stream>>>(b);
    else
        oc_snappy_decompress_kernel<false, false><<<blocks, wpb * 32, 0, stream>>>(b);
    return cudaGetLastError();
}

static cudaError_t oc_snappy_compress_launch(const oc_cuda_batch &b, cudaStream_t stream)
{
    unsigned blocks = (unsigned)((b.n + OC_COMPRESS_WARPS - 1) / OC_COMPRESS_WARPS);
    if (oc_cuda_lazy_matching())
        oc_snappy_compress_kernel<true><<<blocks, OC_COMPRESS_WARPS * 32, 0, stream>>>(b);
    else
        oc_snappy_compress_kernel<false><<<blocks, OC_COMPRESS_WARPS * 32, 0, stream>>>(b);
    return cudaGetLastError();
}

/* ---- the GPU codec (gpu_codec.h): no scratch, one warp or block per chunk -- */

static oc_status oc_snappy_gpu_compress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                        size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                        void *const *dst_dev, const size_t *dst_caps_dev,
                                        size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream)
{
    (void)scratch_dev, (void)scratch_size, (void)cfg;
    oc_cuda_batch b =
        oc_cuda_batch_of(n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, dst_sizes_dev, statuses_dev);
    return oc_snappy_compress_launch(b, stream) == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

static oc_status oc_snappy_gpu_decompress(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                          size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                          void *const *dst_dev, const size_t *dst_caps_dev,
                                          size_t *dst_sizes_dev, oc_status *statuses_dev, cudaStream_t stream)
{
    (void)scratch_dev, (void)scratch_size, (void)cfg;
    oc_cuda_batch b =
        oc_cuda_batch_of(n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, dst_sizes_dev, statuses_dev);
    return oc_snappy_decompress_launch(b, 1, stream) == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

static oc_status oc_snappy_gpu_sizes(void *scratch_dev, size_t scratch_size, const oc_gpu_config *cfg,
                                     size_t n, const void *const *src_dev, const size_t *src_sizes_dev,
                                     void *const *dst_dev, const size_t *dst_caps_dev, size_t *dst_sizes_dev,
                                     oc_status *statuses_dev, cudaStream_t stream)
{
    (void)scratch_dev, (void)scratch_size, (void)cfg;
    oc_cuda_batch b =
        oc_cuda_batch_of(n, src_dev, src_sizes_dev, dst_dev, dst_caps_dev, dst_sizes_dev, statuses_dev);
    return oc_snappy_decompress_launch(b, 0, stream) == cudaSuccess ? OC_OK : OC_ERR_CUDA;
}

extern "C" OC_HIDDEN const oc_gpu_codec oc_gpu_codec_snappy = {NULL, oc_snappy_gpu_compress, NULL,
                                                               oc_snappy_gpu_decompress, oc_snappy_gpu_sizes};
