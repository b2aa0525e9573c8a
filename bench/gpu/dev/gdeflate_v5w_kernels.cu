/*
 * gdeflate_v5w_kernels.cu - GDeflate decoder v5w for gdeflate_dev.cu: the
 * library's core and kernel (v4 at 64 registers, 8 blocks of 4 warps an
 * SM) with a lane's own copy by aligned 32-bit words (GDEFLATE_NOTES.md,
 * "Decoder v5w"): the <= 9 words covering the source are all loaded before
 * the first store (v4: up to 4 groups of 8 byte loads, each a round trip
 * its stores wait on), the bytes taken out by funnel shifts, stored byte by
 * byte as before.  The byte path stays where the aligned words would start
 * before the page's output or end past the round's first match (a0: bytes
 * there may be written by other lanes in the same round).
 */
#include <stddef.h>
#include <stdint.h>

#define GDD_V5W_SHORT 32u /* the core's GDD_SHORT: an own copy is at most this long */

static __device__ __forceinline__ void dev_gdd_copy_own_words(uint8_t *dst, size_t at, uint32_t len,
                                                              uint32_t dist, size_t a0)
{
    uint8_t *o = dst + at;
    const uint8_t *s = o - dist;
    uintptr_t sa = (uintptr_t)s, lo = sa & ~(uintptr_t)3, hi = (sa + len + 3) & ~(uintptr_t)3;
    if (lo < (uintptr_t)dst || hi > (uintptr_t)(dst + a0) || len > GDD_V5W_SHORT) {
        for (uint32_t k = 0; k < len; k++) /* the byte path (rare: page start, the round's edge) */
            o[k] = s[k];
        return;
    }
    const uint32_t *w = (const uint32_t *)lo;
    uint32_t nw = (uint32_t)((hi - lo) >> 2), sh = (uint32_t)(sa & 3) * 8, v[9];
#pragma unroll
    for (uint32_t i = 0; i < 9; i++)
        v[i] = i < nw ? w[i] : 0;
#pragma unroll
    for (uint32_t q = 0; q < 8; q++) {
        uint32_t x = __funnelshift_r(v[q], v[q + 1], sh);
#pragma unroll
        for (uint32_t b = 0; b < 4; b++)
            if (4 * q + b < len)
                o[4 * q + b] = (uint8_t)(x >> (8 * b));
    }
}

#define GDD_COPY_OWN(dst, at, len, dist, a0) dev_gdd_copy_own_words(dst, at, len, dist, a0)
#define DEV_GDD_CORE "cuda/codecs/gdeflate/gdeflate_dec_core.h"
#define DEV_GDD_LAUNCH dev_gdd_v5w
#define DEV_GDD_MINB 8
#include "gdeflate_var_kernel.cuh"
