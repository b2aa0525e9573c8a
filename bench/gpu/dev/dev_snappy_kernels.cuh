/*
 * dev_snappy_kernels.cuh - the Snappy decoders that left the library (src/cuda/codecs/snappy/) when
 * the two-warp pipeline became the only one, as they were then: one
 * element at a time on one warp (decoder v3, "serial"), rounds on one warp
 * (v4, "rounds"), and the pipe kernel with the copier switch (v6c / v6d).
 * Measured in bench/NOTES.md; harness: lz_variants.cu.
 */
#ifndef OC_DEV_SNAPPY_KERNELS_CUH
#define OC_DEV_SNAPPY_KERNELS_CUH

#include "../../../src/cuda/codecs/lz_common/lz_device.cuh"
#include "dev_snappy_decode_rounds.cuh"

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

#endif /* OC_DEV_SNAPPY_KERNELS_CUH */
