/*
 * bitreader.h - the bit readers of the entropy decoders, for the host and
 * the GPU: the backward reader of FSE and Huffman bitstreams (RFC 8878
 * 4.1, zstd) and random-access forward reads, least significant bit first
 * (RFC 8878 4.1.1's table descriptions; RFC 1951 deflate's order).  Reads
 * never touch a byte outside [p, p + size): bytes beyond it read as zero
 * and the caller checks positions.  Tested against a bit-by-bit model
 * (tests/c/test_common_primitives.c) and, through the zstd decoder core,
 * against libzstd.
 */
#ifndef OC_BITREADER_H
#define OC_BITREADER_H

#include <stddef.h>
#include <stdint.h>

#include "le.h"
#include "portable.h"

/* ---- backward reader ------------------------------------------------------
 * Bits are numbered from bit 0 of byte 0 and read downwards, starting
 * below the highest set bit of the last byte (the end marker).  `acc`
 * holds the 8 bytes starting at byte index b (bytes outside the stream
 * read as zero, so b may be negative near the start); `c` counts the bits
 * of acc already consumed from the top.  The next unread bit position is
 * pos = 8*b + 64 - c; pos < 0 means the stream was over-read (corrupt).
 * oc_bitrd_refill leaves c <= 7, so at least 56 bits can then be read
 * without checks: callers refill before each group of reads totalling
 * <= 56 bits. */
typedef struct oc_bitrd {
    const uint8_t *p;
    int size;
    int b;
    uint32_t c;
    uint64_t acc;
} oc_bitrd;

OC_INLINE int oc_bitrd_pos(const oc_bitrd *r)
{
    return 8 * r->b + 64 - (int)r->c;
}

/* The little-endian 32-bit word at a 4-aligned address: one load on the
 * GPU, the same value byte by byte on the host (any byte order). */
OC_INLINE uint32_t oc_bitrd_word(const uint8_t *w)
{
#ifdef __CUDA_ARCH__
    return *(const uint32_t *)(const void *)w;
#else
    return oc_load_le32(w);
#endif
}

/* Loads acc with the 8 bytes from byte b = ceil(pos / 8) - 8.  Inside the
 * stream this takes the three 4-aligned words around them and shifts (4
 * loads fewer than 8 byte loads and far fewer instructions: the GPU zstd
 * decoder refills twice per sequence); the words must lie in [p, p + size),
 * so the first 3 and last 11 bytes of a stream take the byte path. */
OC_INLINE void oc_bitrd_load(oc_bitrd *r, int pos)
{
    int b = ((pos + 7) >> 3) - 8; /* arithmetic shift: floor, also below 0 */
    uint64_t a = 0;
    /* wb: where the aligned word holding byte b starts (-1: b is outside) */
    int wb = b >= 0 ? b - (int)(((uintptr_t)r->p + (uintptr_t)b) & 3u) : -1;
    if (wb >= 0 && wb + 12 <= r->size) {
        const uint8_t *w = r->p + wb;
        uint64_t lo = (uint64_t)oc_bitrd_word(w) | ((uint64_t)oc_bitrd_word(w + 4) << 32);
        uint32_t s = 8u * (uint32_t)(b - wb);
        a = s ? (lo >> s) | ((uint64_t)oc_bitrd_word(w + 8) << (64u - s)) : lo;
    } else if (b >= 0 && b + 8 <= r->size) {
        a = oc_load_le64(r->p + b);
    } else {
        for (int i = 7; i >= 0; i--)
            a = (a << 8) | (b + i >= 0 && b + i < r->size ? r->p[b + i] : 0u);
    }
    r->acc = a;
    r->b = b;
    r->c = (uint32_t)(8 * b + 64 - pos);
}

OC_INLINE void oc_bitrd_refill(oc_bitrd *r)
{
    if (r->c >= 8)
        oc_bitrd_load(r, oc_bitrd_pos(r));
}

/* Starts a reader over [p, p+size): 0, or -1 when empty, over 2^27 bytes,
 * or when the last byte holds no end marker. */
OC_INLINE int oc_bitrd_init(oc_bitrd *r, const uint8_t *p, size_t size)
{
    if (size == 0 || size > (1u << 27) || p[size - 1] == 0)
        return -1;
    r->p = p;
    r->size = (int)size;
    oc_bitrd_load(r, (int)(size - 1) * 8 + oc_highbit32(p[size - 1]));
    return 0;
}

/* The next n bits (0 <= n <= 56), without consuming them / consuming them. */
OC_INLINE uint32_t oc_bitrd_peek(const oc_bitrd *r, int n)
{
    return (uint32_t)(((r->acc << r->c) >> 1) >> (63 - n));
}

OC_INLINE uint32_t oc_bitrd_read(oc_bitrd *r, int n)
{
    uint32_t v = oc_bitrd_peek(r, n);
    r->c += (uint32_t)n;
    return v;
}

/* ---- forward reads -----------------------------------------------------------
 * The n bits (0 <= n <= 25) at bit position `bitpos` of p[0..avail),
 * least significant first. */
OC_INLINE uint32_t oc_bits_forward(const uint8_t *p, size_t avail, size_t bitpos, int n)
{
    size_t byte = bitpos >> 3;
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        if (byte + (size_t)i < avail)
            v |= (uint32_t)p[byte + (size_t)i] << (8 * i);
    return (v >> (bitpos & 7)) & ((1u << n) - 1);
}

#endif /* OC_BITREADER_H */
