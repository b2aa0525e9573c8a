/*
 * dev_lz4_kernels.cuh - the LZ4 decoders that left the library (src/cuda/codecs/lz4/) when
 * the two-warp pipeline became the only one, as they were then: one
 * element at a time on one warp (decoder v3, "serial"), rounds on one warp
 * (v4, "rounds"), and the pipe kernel with the copier switch (v6c / v6d).
 * Measured in bench/NOTES.md; harness: lz_variants.cu.
 */
#ifndef OC_DEV_LZ4_KERNELS_CUH
#define OC_DEV_LZ4_KERNELS_CUH

#include "dev_lz4_decode_rounds.cuh"
#include "../../../src/cuda/codecs/lz_common/lz_device.cuh"

#define OC_LZ4_MAX_INPUT 0x7E000000u

/* Parses a whole sequence header before its copies and loads the next token
 * before the match copy, so those loads overlap the copies instead of
 * waiting behind them (the warp is latency-bound: few chunks per SM). */
template <bool WRITE>
__device__ int oc_lz4_decode_warp(const uint8_t *__restrict__ src, size_t srcn, uint8_t *dst, size_t cap,
                                  size_t *outn, uint8_t *ring, int lane)
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
        if (lit > cap - op)
            return OC_D_OUTPUT_TOO_SMALL;
        size_t lp = ip;
        ip += lit;
        if (ip == srcn) { /* the last sequence holds literals only */
            if (WRITE)
                oc_warp_lit_ring(dst, ring, op, src + lp, lit, lane);
            op += lit;
            break;
        }
        if (srcn - ip < 2)
            return OC_D_TRUNCATED;
        uint32_t o0 = __ldg(src + ip), o1 = __ldg(src + ip + 1);
        if (WRITE)
            oc_warp_lit_ring(dst, ring, op, src + lp, lit, lane);
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
        if (ml > cap - op)
            return OC_D_OUTPUT_TOO_SMALL;
        if (WRITE) {
            __syncwarp(); /* literals and earlier matches visible to every lane */
            oc_warp_match_ring(dst, ring, op, offset, ml, (size_t)offset + ml <= OC_RING, lane);
        }
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

template <bool WRITE, bool ROUNDS>
__global__ void __launch_bounds__(OC_DECODE_WARPS * 32) oc_lz4_decompress_kernel(oc_cuda_batch b)
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
    size_t cap = WRITE ? b.dst_caps[chunk] : ~(size_t)0;
    size_t outn = 0;
    int st;
    if (src == nullptr || (WRITE && dst == nullptr && cap != 0))
        st = OC_D_INVALID_ARGUMENT;
    else
        st = ROUNDS ? oc_lz4_decode_rounds<false>(src, srcn, dst, cap, &outn, ring, lane, nullptr)
                    : oc_lz4_decode_warp<WRITE>(src, srcn, dst, cap, &outn, ring, lane);
    if (lane == 0) {
        if (b.dst_sizes)
            b.dst_sizes[chunk] = st == OC_D_OK ? outn : 0;
        if (b.statuses)
            b.statuses[chunk] = st;
    }
}

/* The two-warp pipelined decoder (v6, lz_decode_pipe.cuh): block = one
 * chunk, warp 0 parses rounds and checks, warp 1 copies. */
__global__ void __launch_bounds__(64) oc_lz4_decompress_pipe_kernel(oc_cuda_batch b, int bytes)
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
        st = oc_pipe_narrow(srcn, cap)
                 ? oc_lz4_decode_rounds<true, uint32_t>(src, srcn, dst, cap, &outn, ring, lane, &pp)
                 : oc_lz4_decode_rounds<true, uint64_t>(src, srcn, dst, cap, &outn, ring, lane, &pp);
    oc_pipe_finish(&pp, lane);
    if (lane == 0) {
        if (b.dst_sizes)
            b.dst_sizes[chunk] = st == OC_D_OK ? outn : 0;
        if (b.statuses)
            b.statuses[chunk] = st;
    }
}

#endif /* OC_DEV_LZ4_KERNELS_CUH */
