/*
 * adler32.h - Adler-32 (RFC 1950, the zlib trailer) for the host and the
 * GPU, continued from `adler` (start with 1) like zlib's adler32.  Sums are
 * reduced every 5552 bytes (zlib's NMAX: the largest run whose sums cannot
 * overflow 32 bits).  Tested against zlib (tests/c/test_common_primitives.c).
 */
#ifndef OC_ADLER32_H
#define OC_ADLER32_H

#include <stdint.h>

#include "portable.h"

#define OC_ADLER_MOD 65521u
#define OC_ADLER_NMAX 5552u

OC_INLINE uint32_t oc_adler32(uint32_t adler, const uint8_t *p, uint64_t len)
{
    uint32_t a = adler & 0xffff, b = adler >> 16;
    while (len > 0) {
        uint32_t n = len < OC_ADLER_NMAX ? (uint32_t)len : OC_ADLER_NMAX;
        len -= n;
        for (uint32_t i = 0; i < n; i++) {
            a += p[i];
            b += a;
        }
        p += n;
        a %= OC_ADLER_MOD;
        b %= OC_ADLER_MOD;
    }
    return (b << 16) | a;
}

#endif /* OC_ADLER32_H */
