/*
 * portable.h - the one set of qualifiers for code that compiles both as
 * host C11 and as CUDA device code (the container layout, the checksums,
 * the zstd cores), so the host tests run what the GPU runs.
 *
 *   OC_HD             __host__ __device__ under nvcc, nothing in C
 *   OC_INLINE         a small helper for both sides: static inline OC_HD
 *   OC_CORE_FN        a "core" function: device-only (warp code) under nvcc,
 *   OC_CORE_BIGFN       plain static in C; _BIGFN is never inlined on the GPU
 *                     and may go unused in C (a file that includes a core
 *                     for one of its functions: Blosc's zlib streams)
 *   OC_CORE_CONST     a constant table: __constant__ memory under nvcc
 *   OC_LANE()         the calling lane of the warp (0 in C) and the lanes
 *   OC_NLANES           working together (32, or 1 in C: a one-lane warp)
 *   OC_WARP_SYNC()    __syncwarp (nothing in C)
 *   OC_WARP_ANY(p)    any lane's p (p itself in C)
 *   OC_WARP_BCAST(v)  lane 0's v (v itself in C)
 *   OC_WARP_BALLOT(p) the lanes whose p holds, as a bit mask (p ? 1 : 0 in C)
 *   OC_WARP_OR(v)     the OR of every lane's 32-bit v (v itself in C)
 *   oc_popc32(v)      the number of set bits of v
 *   oc_highbit32(v)   index of the highest set bit of v != 0
 *   oc_lowbit32(v)    index of the lowest set bit of v != 0
 */
#ifndef OC_PORTABLE_H
#define OC_PORTABLE_H

#include <stdint.h>

#ifdef __CUDACC__
#define OC_HD __host__ __device__
#define OC_INLINE static __forceinline__ __host__ __device__
#define OC_CORE_FN static __device__ __forceinline__
#define OC_CORE_BIGFN static __device__ __noinline__
#define OC_CORE_CONST static __constant__ const
#define OC_LANE() ((uint32_t)threadIdx.x & 31u)
#define OC_NLANES 32u
#define OC_WARP_SYNC() __syncwarp()
#define OC_WARP_ANY(p) __any_sync(0xffffffffu, (p))
#define OC_WARP_BCAST(v) __shfl_sync(0xffffffffu, (v), 0)
#define OC_WARP_BALLOT(p) __ballot_sync(0xffffffffu, (p))
#define OC_WARP_OR(v) __reduce_or_sync(0xffffffffu, (v))
#else
#define OC_HD
#define OC_INLINE static inline
#define OC_CORE_FN static inline
#define OC_CORE_BIGFN static __attribute__((unused))
#define OC_CORE_CONST static const
#define OC_LANE() 0u
#define OC_NLANES 1u
#define OC_WARP_SYNC() ((void)0)
#define OC_WARP_ANY(p) (p)
#define OC_WARP_BCAST(v) (v)
#define OC_WARP_BALLOT(p) ((p) ? 1u : 0u)
#define OC_WARP_OR(v) (v)
#endif

OC_INLINE int oc_highbit32(uint32_t v)
{
#ifdef __CUDA_ARCH__
    return 31 - __clz((int)v);
#else
    return 31 - __builtin_clz(v);
#endif
}

OC_INLINE int oc_lowbit32(uint32_t v)
{
#ifdef __CUDA_ARCH__
    return __ffs((int)v) - 1;
#else
    return __builtin_ctz(v);
#endif
}

OC_INLINE uint32_t oc_popc32(uint32_t v)
{
#ifdef __CUDA_ARCH__
    return (uint32_t)__popc(v);
#else
    return (uint32_t)__builtin_popcount(v);
#endif
}

#endif /* OC_PORTABLE_H */
