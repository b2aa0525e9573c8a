/*
 * blosc_copy.cuh - the one CTA-wide byte copy of the Blosc kernels (the
 * decoder's stored streams and unfiltered blocks, the encoder's gather of
 * streams into chunks): any alignment, word stores, and no read outside
 * src[0..n).
 */
#ifndef OC_BLOSC_COPY_CUH
#define OC_BLOSC_COPY_CUH

#include <stddef.h>
#include <stdint.h>

/* Copies n bytes with the CTA: 4-byte stores (16-byte ones when both are
 * 16-aligned), the source's words joined by funnel shifts when the two are
 * not aligned alike.  Reads only aligned words holding a byte of
 * src[0..n) (so nothing outside its allocation). */
__device__ static void bl_copy_cta(uint8_t *__restrict__ dst, const uint8_t *__restrict__ src, size_t n)
{
    size_t head = (4 - ((uintptr_t)dst & 3)) & 3;
    head = head < n ? head : n;
    for (size_t j = threadIdx.x; j < head; j += blockDim.x)
        dst[j] = src[j];
    dst += head, src += head, n -= head;
    uint32_t *d = (uint32_t *)dst;
    unsigned sh = (unsigned)((uintptr_t)src & 3);
    size_t words = n / 4, fast = words;
    if (sh == 0) {
        const uint32_t *s = (const uint32_t *)src;
        if (((uintptr_t)dst & 15) == 0 && ((uintptr_t)src & 15) == 0) {
            const uint4 *s4 = (const uint4 *)src;
            uint4 *d4 = (uint4 *)dst;
            size_t q = n / 16;
            for (size_t j = threadIdx.x; j < q; j += blockDim.x)
                d4[j] = s4[j];
            for (size_t j = 4 * q + threadIdx.x; j < words; j += blockDim.x)
                d[j] = s[j];
        } else {
            for (size_t j = threadIdx.x; j < words; j += blockDim.x)
                d[j] = s[j];
        }
    } else {
        /* word j joins aligned words a[j] and a[j + 1] of a = src - sh;
         * a[j + 1] ends at src byte 4j + 7 - sh, which must be < n */
        const uint32_t *a = (const uint32_t *)(src - sh);
        fast = n + sh >= 8 ? (n + sh - 8) / 4 + 1 : 0;
        fast = fast < words ? fast : words;
        for (size_t j = threadIdx.x; j < fast; j += blockDim.x)
            d[j] = __funnelshift_r(a[j], a[j + 1], 8 * sh);
    }
    for (size_t j = 4 * fast + threadIdx.x; j < n; j += blockDim.x)
        dst[j] = src[j];
}

#endif /* OC_BLOSC_COPY_CUH */
