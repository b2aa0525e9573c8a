/*
 * shuffle.h - byte shuffle and bitshuffle, the two filters of Blosc and of
 * opencomp's filter option (any codec, oc_codec_options.filter), for host
 * C11 and CUDA device code (portable.h).  Plain loops over element ranges,
 * so a GPU kernel gives each thread a range and the host runs the whole
 * buffer; tests/c/test_blosc_core.c checks them against c-blosc's output.
 *
 * Byte shuffle of n bytes with typesize t (e = n / t whole elements):
 * shuffled[j * e + i] = plain[i * t + j] for i < e, j < t: byte j of every
 * element, then byte j + 1 ...; the trailing n % t bytes stay as they are.
 *
 * Bitshuffle (the bitshuffle library's layout, as c-blosc uses it): only
 * when e is a multiple of 8 (otherwise the buffer stays as it is, as
 * c-blosc stores it); then for each bit k = 8 * j + b of an element (byte
 * j, bit b from the least significant), a row of e bits, element i at bit
 * i % 8 of row byte i / 8: shuffled[k * e / 8 + i / 8] bit (i % 8) =
 * plain[i * t + j] bit b.  The trailing n % t bytes stay as they are.
 */
#ifndef OC_SHUFFLE_H
#define OC_SHUFFLE_H

#include <stddef.h>
#include <stdint.h>

#include "portable.h"

/* Byte shuffle, elements [i0, i1) of e = n / t (dst and src do not overlap). */
OC_INLINE void oc_shuffle_bytes(uint8_t *dst, const uint8_t *src, size_t e, uint32_t t, size_t i0, size_t i1)
{
    for (size_t i = i0; i < i1; i++)
        for (uint32_t j = 0; j < t; j++)
            dst[j * e + i] = src[i * t + j];
}

/* Byte unshuffle, elements [i0, i1). */
OC_INLINE void oc_unshuffle_bytes(uint8_t *dst, const uint8_t *src, size_t e, uint32_t t, size_t i0,
                                  size_t i1)
{
    for (size_t i = i0; i < i1; i++)
        for (uint32_t j = 0; j < t; j++)
            dst[i * t + j] = src[j * e + i];
}

/* 8x8 bit transpose: in[r] bit c -> out[c] bit r (rows and columns LSB first). */
OC_INLINE uint64_t oc_transpose8x8(uint64_t x)
{
    uint64_t t;
    t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAull;
    x = x ^ t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCull;
    x = x ^ t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ull;
    x = x ^ t ^ (t << 28);
    return x;
}

/* Bitshuffle, groups [g0, g1) of 8 elements of e (a multiple of 8): for
 * each byte j of the group's elements, one byte of each of the 8 rows
 * 8j..8j+7. */
OC_INLINE void oc_bitshuffle_groups(uint8_t *dst, const uint8_t *src, size_t e, uint32_t t, size_t g0,
                                    size_t g1)
{
    size_t row = e / 8;
    for (size_t g = g0; g < g1; g++)
        for (uint32_t j = 0; j < t; j++) {
            uint64_t x = 0;
            for (uint32_t r = 0; r < 8; r++) /* byte r of x = byte j of element 8g + r */
                x |= (uint64_t)src[(g * 8 + r) * t + j] << (8 * r);
            x = oc_transpose8x8(x); /* byte b of x = bit b of the 8 elements */
            for (uint32_t b = 0; b < 8; b++)
                dst[(8 * (size_t)j + b) * row + g] = (uint8_t)(x >> (8 * b));
        }
}

/* Bit unshuffle, groups [g0, g1). */
OC_INLINE void oc_bitunshuffle_groups(uint8_t *dst, const uint8_t *src, size_t e, uint32_t t, size_t g0,
                                      size_t g1)
{
    size_t row = e / 8;
    for (size_t g = g0; g < g1; g++)
        for (uint32_t j = 0; j < t; j++) {
            uint64_t x = 0;
            for (uint32_t b = 0; b < 8; b++)
                x |= (uint64_t)src[(8 * (size_t)j + b) * row + g] << (8 * b);
            x = oc_transpose8x8(x);
            for (uint32_t r = 0; r < 8; r++)
                dst[(g * 8 + r) * t + j] = (uint8_t)(x >> (8 * r));
        }
}

/* The filters of a whole buffer (host; dst and src do not overlap):
 * mode 1 byte shuffle, 2 bitshuffle; `inverse` undoes them.  Bytes the
 * filter leaves alone are copied. */
OC_INLINE void oc_filter_buffer(uint8_t *dst, const uint8_t *src, size_t n, uint32_t t, int mode, int inverse)
{
    size_t e = t ? n / t : 0, done = 0;
    if (mode == 1 && t > 1) {
        if (inverse)
            oc_unshuffle_bytes(dst, src, e, t, 0, e);
        else
            oc_shuffle_bytes(dst, src, e, t, 0, e);
        done = e * t;
    } else if (mode == 2 && e % 8 == 0 && e > 0) {
        if (inverse)
            oc_bitunshuffle_groups(dst, src, e, t, 0, e / 8);
        else
            oc_bitshuffle_groups(dst, src, e, t, 0, e / 8);
        done = e * t;
    }
    for (size_t k = done; k < n; k++)
        dst[k] = src[k];
}

/* The filter an engine runs around a codec (oc_codec_options.filter and
 * typesize; both engines and the API's engine choice ask this): 0 none
 * (no filter, a Blosc chunk, which carries its own, or byte shuffle of
 * typesize 1, the identity), 1 byte shuffle, 2 bitshuffle; *t gets the
 * element size (typesize 0 means 1). */
OC_INLINE int oc_filter_of(int filter, uint32_t typesize, int blosc, uint32_t *t)
{
    *t = typesize ? typesize : 1;
    if (filter == 0 || blosc || (filter == 1 && *t == 1))
        return 0;
    return filter;
}

#endif /* OC_SHUFFLE_H */
