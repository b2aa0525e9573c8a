/*
 * own_simt.h - the execution model of the cores of opencomp's own formats
 * (Cascaded, Bitcomp, ANS): one source that compiles as C11 for the CPU
 * codecs and the host tests, and as CUDA device code for the kernels, so
 * CI tests on the host what the GPU runs.
 *
 * A core function runs as one WARP of a cooperative thread array: it gets
 * its warp index and the number of warps, and its lanes split the work in
 * lane-consecutive steps (lane l takes element base + l: conflict-free
 * shared memory, coalesced global memory).  Work shared by the warps goes
 * through a workspace struct (shared memory on the GPU) and barriers
 * between PHASES.  Under nvcc a warp has 32 lanes and the warps of a CTA
 * run a phase concurrently; in C a warp has ONE lane and the caller runs
 * the warps of a phase one after the other (own_phase_* loops), so the
 * partition of work across warps is the same code in both builds and is
 * tested on the host with any warp count.
 *
 * Warp primitives (scans, reductions, broadcasts, ballots) are shuffles on
 * the GPU and identities in C, where the warp is one lane.  The qualifiers
 * and the lane of the warp are src/common/portable.h's, little-endian
 * loads src/common/le.h's; the bit helpers here work on both sides.
 */
#ifndef OC_OWN_SIMT_H
#define OC_OWN_SIMT_H

#include <stddef.h>
#include <stdint.h>
#ifndef __CUDACC__
#include <string.h>
#endif

#include "../common/le.h"
#include "../common/portable.h"

#define OWN_DEV OC_CORE_FN /* core code: device only under nvcc */
#define OWN_HD OC_INLINE   /* arithmetic for both sides */
#define OWN_NLANES OC_NLANES
#define OWN_LANE() OC_LANE()
#define OWN_SYNCWARP() OC_WARP_SYNC()

#define OWN_FULL 0xffffffffu

/* Phases: OWN_RUN(nw, fn, args...) runs fn(args..., warp, nw) on every
 * warp of the CTA, then a barrier; in C the warps run one after the other.
 * A core's driver functions run in every thread of the CTA on the GPU
 * (their control flow reads only the workspace, after barriers: uniform)
 * and once in C.  OWN_ONE_THREAD picks the one thread that stores what
 * every thread computed (a header, a table entry). */
#ifdef __CUDA_ARCH__
#define OWN_RUN(nw, fn, ...)                                                                                 \
    do {                                                                                                     \
        fn(__VA_ARGS__, (uint32_t)(threadIdx.x >> 5), (nw));                                                 \
        __syncthreads();                                                                                     \
    } while (0)
#define OWN_ONE_THREAD (threadIdx.x == 0)
#else
#define OWN_RUN(nw, fn, ...)                                                                                 \
    do {                                                                                                     \
        for (uint32_t own_w_ = 0; own_w_ < (nw); own_w_++)                                                   \
            fn(__VA_ARGS__, own_w_, (nw));                                                                   \
    } while (0)
#define OWN_ONE_THREAD 1
#endif

/* ---- warp primitives --------------------------------------------------- */

/* Inclusive prefix sum over the lanes. */
OWN_DEV uint32_t own_warp_incl_add32(uint32_t v)
{
#ifdef __CUDA_ARCH__
    for (int d = 1; d < 32; d <<= 1) {
        uint32_t t = __shfl_up_sync(OWN_FULL, v, d);
        if ((int)OWN_LANE() >= d)
            v += t;
    }
#endif
    return v;
}

OWN_DEV uint64_t own_warp_incl_add64(uint64_t v)
{
#ifdef __CUDA_ARCH__
    for (int d = 1; d < 32; d <<= 1) {
        uint64_t t = __shfl_up_sync(OWN_FULL, v, d);
        if ((int)OWN_LANE() >= d)
            v += t;
    }
#endif
    return v;
}

/* Lane `src`'s value, for every lane. */
OWN_DEV uint32_t own_warp_bcast32(uint32_t v, uint32_t src)
{
#ifdef __CUDA_ARCH__
    return __shfl_sync(OWN_FULL, v, (int)src);
#else
    (void)src;
    return v;
#endif
}

OWN_DEV uint64_t own_warp_bcast64(uint64_t v, uint32_t src)
{
#ifdef __CUDA_ARCH__
    return __shfl_sync(OWN_FULL, v, (int)src);
#else
    (void)src;
    return v;
#endif
}

/* The last lane's value: the total of an inclusive scan. */
#define own_warp_last32(v) own_warp_bcast32((v), OWN_NLANES - 1u)
#define own_warp_last64(v) own_warp_bcast64((v), OWN_NLANES - 1u)

OWN_DEV uint32_t own_warp_sum32(uint32_t v)
{
#ifdef __CUDA_ARCH__
    return __reduce_add_sync(OWN_FULL, v);
#else
    return v;
#endif
}

OWN_DEV uint32_t own_warp_or32(uint32_t v)
{
#ifdef __CUDA_ARCH__
    return __reduce_or_sync(OWN_FULL, v);
#else
    return v;
#endif
}

OWN_DEV uint32_t own_warp_max32(uint32_t v)
{
#ifdef __CUDA_ARCH__
    return __reduce_max_sync(OWN_FULL, v);
#else
    return v;
#endif
}

/* 1 bit per lane, lane l in bit l. */
OWN_DEV uint32_t own_ballot(int p)
{
#ifdef __CUDA_ARCH__
    return __ballot_sync(OWN_FULL, p);
#else
    return p ? 1u : 0u;
#endif
}

OWN_DEV int own_warp_any(int p)
{
#ifdef __CUDA_ARCH__
    return __any_sync(OWN_FULL, p);
#else
    return p;
#endif
}

/* Min / max of 64-bit values over the lanes, unsigned and signed, and
 * AND / OR: on the GPU by redux.sync on the 32-bit halves (the high
 * halves' extreme, then the low halves' among the lanes that hold it; a
 * signed order compares the high halves signed and the low ones unsigned):
 * 3-4 instructions instead of 5 rounds of two shuffles, a 64-bit compare
 * and two selects (~35; the Bitcomp encoder runs ~25 of these a block of
 * 128 elements, ~4 warp-instructions an element). */
OWN_DEV uint64_t own_warp_min_u64(uint64_t v)
{
#ifdef __CUDA_ARCH__
    uint32_t hi = (uint32_t)(v >> 32), lo = (uint32_t)v;
    uint32_t h = __reduce_min_sync(OWN_FULL, hi);
    uint32_t l = __reduce_min_sync(OWN_FULL, hi == h ? lo : 0xffffffffu);
    v = ((uint64_t)h << 32) | l;
#endif
    return v;
}

OWN_DEV uint64_t own_warp_max_u64(uint64_t v)
{
#ifdef __CUDA_ARCH__
    uint32_t hi = (uint32_t)(v >> 32), lo = (uint32_t)v;
    uint32_t h = __reduce_max_sync(OWN_FULL, hi);
    uint32_t l = __reduce_max_sync(OWN_FULL, hi == h ? lo : 0u);
    v = ((uint64_t)h << 32) | l;
#endif
    return v;
}

OWN_DEV int64_t own_warp_min_s64(int64_t v)
{
#ifdef __CUDA_ARCH__
    int hi = (int)((uint64_t)v >> 32);
    uint32_t lo = (uint32_t)v;
    int h = __reduce_min_sync(OWN_FULL, hi);
    uint32_t l = __reduce_min_sync(OWN_FULL, hi == h ? lo : 0xffffffffu);
    v = (int64_t)(((uint64_t)(uint32_t)h << 32) | l);
#endif
    return v;
}

OWN_DEV int64_t own_warp_max_s64(int64_t v)
{
#ifdef __CUDA_ARCH__
    int hi = (int)((uint64_t)v >> 32);
    uint32_t lo = (uint32_t)v;
    int h = __reduce_max_sync(OWN_FULL, hi);
    uint32_t l = __reduce_max_sync(OWN_FULL, hi == h ? lo : 0u);
    v = (int64_t)(((uint64_t)(uint32_t)h << 32) | l);
#endif
    return v;
}

OWN_DEV uint64_t own_warp_and64(uint64_t v)
{
#ifdef __CUDA_ARCH__
    v = ((uint64_t)__reduce_and_sync(OWN_FULL, (uint32_t)(v >> 32)) << 32) |
        __reduce_and_sync(OWN_FULL, (uint32_t)v);
#endif
    return v;
}

OWN_DEV uint64_t own_warp_or64(uint64_t v)
{
#ifdef __CUDA_ARCH__
    v = ((uint64_t)__reduce_or_sync(OWN_FULL, (uint32_t)(v >> 32)) << 32) |
        __reduce_or_sync(OWN_FULL, (uint32_t)v);
#endif
    return v;
}

/* ---- bits ---------------------------------------------------------------- */

OWN_HD uint32_t own_popc32(uint32_t x)
{
#ifdef __CUDA_ARCH__
    return (uint32_t)__popc(x);
#else
    return (uint32_t)__builtin_popcount(x);
#endif
}

/* Bits needed to write x (0 for 0). */
OWN_HD uint32_t own_bits64(uint64_t x)
{
#ifdef __CUDA_ARCH__
    return 64u - (uint32_t)__clzll((long long)x);
#else
    return x ? 64u - (uint32_t)__builtin_clzll(x) : 0u;
#endif
}

/* The low k bits set (k <= 64). */
OWN_HD uint64_t own_mask64(uint32_t k)
{
    return k >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << k) - 1u);
}

/* Sign-extends the low `bits` bits of x (1 <= bits <= 64). */
OWN_HD int64_t own_sext(uint64_t x, uint32_t bits)
{
    uint32_t s = 64u - bits;
    return (int64_t)(x << s) >> s;
}

/* ---- word-aligned bit streams in a workspace -----------------------------
 * A stream of bytes held in 32-bit words (byte i = bits 8(i%4).. of word
 * i/4), read as a little-endian bit string: bit p is bit p%8 of byte p/8.
 * Readers may touch up to 3 words past the last meaningful one: workspaces
 * keep that slack zeroed. */

/* k (<= 64) bits starting at bit p. */
OWN_HD uint64_t own_bits_get(const uint32_t *wd, uint64_t p, uint32_t k)
{
    if (k == 0)
        return 0;
    uint64_t i = p >> 5;
    uint32_t s = (uint32_t)(p & 31u);
    uint64_t lo = (uint64_t)wd[i] | ((uint64_t)wd[i + 1] << 32);
    uint64_t v = lo >> s;
    if (s + k > 64)
        v |= (uint64_t)wd[i + 2] << (64u - s);
    return v & own_mask64(k);
}

/* ORs `nbits` (<= 64) bits of v into the word stream S at bit position p
 * (atomic on the GPU: lanes share words; the words start zeroed). */
OWN_DEV void own_put_bits(uint32_t *S, uint64_t p, uint64_t v, uint32_t nbits)
{
    if (nbits == 0)
        return;
    uint64_t i = p >> 5;
    uint32_t s = (uint32_t)(p & 31u);
    uint32_t w0 = (uint32_t)(v << s);
    uint32_t w1 = s ? (uint32_t)(v >> (32u - s)) : (uint32_t)(v >> 32);
    uint32_t w2 = s ? (uint32_t)(v >> (64u - s)) : 0u;
#ifdef __CUDA_ARCH__
    atomicOr(&S[i], w0);
    if (s + nbits > 32)
        atomicOr(&S[i + 1], w1);
    if (s + nbits > 64)
        atomicOr(&S[i + 2], w2);
#else
    S[i] |= w0;
    if (s + nbits > 32)
        S[i + 1] |= w1;
    if (s + nbits > 64)
        S[i + 2] |= w2;
#endif
}

/* The byte at byte offset i of a word buffer. */
OWN_HD uint32_t own_byte_get(const uint32_t *wd, uint64_t i)
{
    return (wd[i >> 2] >> (8u * (uint32_t)(i & 3u))) & 0xffu;
}

OWN_HD uint64_t own_bytes_get(const uint32_t *wd, uint64_t i, uint32_t n)
{
    uint64_t v = 0;
    for (uint32_t k = 0; k < n; k++)
        v |= (uint64_t)own_byte_get(wd, i + k) << (8 * k);
    return v;
}

#endif /* OC_OWN_SIMT_H */
