/*
 * blosc_encode.h - what c-blosc 1.x decides when it writes a chunk: the
 * block size for a level, typesize, size and codec, whether blocks are
 * split into typesize streams, the header bytes, and where each stream
 * goes.  The groundwork of a Blosc encoder of our own (the GPU encoder of
 * issue 17, not written yet: the CUDA engine host-stages Blosc
 * compression through libblosc); host C11 and CUDA device code alike
 * (portable.h).  tests/c/test_blosc_core.c holds these rules to libblosc
 * 1.21.3's choices over a grid of levels, typesizes, sizes, codecs and
 * filters, and assembles chunks with them that libblosc decodes.
 *
 * The rules (c-blosc 1.21's compute_blocksize and split_block in its
 * default "forward-compatible" split mode, as observed and as its source
 * documents them):
 *   - a buffer smaller than typesize: block size 1;
 *   - a forced block size is raised to 128 and capped at
 *     OC_BLOSC_MAX_BLOCKSIZE;
 *   - else from 32 KiB (L1) up: 32 KiB, doubled for the high-ratio codecs
 *     (lz4hc, zlib, zstd), then scaled by the level: /4 (0), /2 (1), x1
 *     (2), x2 (3), x4 (4-5), x8 (6-8), x8 and for the high-ratio codecs
 *     x2 more (9); a smaller buffer is one block;
 *   - when the level is not 0 and the block would be split: at most 256
 *     KiB, times typesize, then at least 64 KiB and at most 1 MiB;
 *   - never above the buffer's size; a multiple of typesize when larger;
 *   - split (flag 0x10 clear): every codec but zstd, typesize <= 16 and
 *     blocksize / typesize >= 128;
 *   - a chunk is memcpyed (flag 0x02, the bytes after the header) at level
 *     0, below 128 bytes, or when the streams do not fit in nbytes + 16;
 *     a stream that does not shrink is stored (its csize = its size).
 */
#ifndef OC_BLOSC_ENCODE_H
#define OC_BLOSC_ENCODE_H

#include "blosc_format.h"

#define OC_BLOSC_L1 32768u
#define OC_BLOSC_MIN_BUFFER 128u /* c-blosc's MIN_BUFFERSIZE: smaller buffers are memcpyed */

/* The header's inner-codec format of an oc_blosc_codec (include/opencomp.h). */
OC_INLINE uint8_t oc_blosc_codec_format(int codec)
{
    switch (codec) {
    case OC_BLOSC_BLOSCLZ:
        return OC_BLOSC_FMT_BLOSCLZ;
    case OC_BLOSC_SNAPPY:
        return OC_BLOSC_FMT_SNAPPY;
    case OC_BLOSC_ZLIB:
        return OC_BLOSC_FMT_ZLIB;
    case OC_BLOSC_ZSTD:
        return OC_BLOSC_FMT_ZSTD;
    default: /* lz4, lz4hc */
        return OC_BLOSC_FMT_LZ4;
    }
}

/* 1 if c-blosc splits blocks of `blocksize` bytes of this codec. */
OC_INLINE int oc_blosc_enc_split(int codec, uint32_t typesize, uint32_t blocksize)
{
    return codec != OC_BLOSC_ZSTD && typesize <= OC_BLOSC_MAX_SPLITS && typesize > 0 &&
           blocksize / typesize >= OC_BLOSC_MIN_SPLIT;
}

/* c-blosc's block size for a buffer of nbytes (clevel 0..9; forced 0 = its
 * choice). */
OC_INLINE uint32_t oc_blosc_enc_blocksize(int codec, int clevel, uint32_t typesize, uint32_t nbytes,
                                          uint32_t forced)
{
    int hcr = codec == OC_BLOSC_LZ4HC || codec == OC_BLOSC_ZLIB || codec == OC_BLOSC_ZSTD;
    uint32_t bs = nbytes;
    if (nbytes < typesize)
        return 1;
    if (forced) {
        bs = forced < OC_BLOSC_MIN_BUFFER ? OC_BLOSC_MIN_BUFFER : forced;
        if (bs > OC_BLOSC_MAX_BLOCKSIZE)
            bs = OC_BLOSC_MAX_BLOCKSIZE;
    } else if (nbytes >= OC_BLOSC_L1) {
        bs = OC_BLOSC_L1 * (hcr ? 2u : 1u);
        if (clevel <= 0)
            bs /= 4;
        else if (clevel == 1)
            bs /= 2;
        else if (clevel == 3)
            bs *= 2;
        else if (clevel == 4 || clevel == 5)
            bs *= 4;
        else if (clevel >= 6)
            bs *= clevel >= 9 && hcr ? 16 : 8;
    }
    if (clevel > 0 && oc_blosc_enc_split(codec, typesize, bs)) {
        if (bs > (1u << 18))
            bs = 1u << 18;
        bs *= typesize;
        if (bs < (1u << 16))
            bs = 1u << 16;
        if (bs > (1u << 20))
            bs = 1u << 20;
    }
    if (bs > nbytes)
        bs = nbytes;
    if (bs > typesize)
        bs = bs / typesize * typesize;
    return bs;
}

/* The flags byte of a compressed (not memcpyed) chunk: the filter
 * (oc_filter: 1 byte shuffle, 2 bitshuffle), the split bit, the format. */
OC_INLINE uint8_t oc_blosc_enc_flags(int codec, int filter, uint32_t typesize, uint32_t blocksize)
{
    uint8_t f = filter == 1 ? OC_BLOSC_F_SHUFFLE : filter == 2 ? OC_BLOSC_F_BITSHUFFLE : 0;
    if (!oc_blosc_enc_split(codec, typesize, blocksize))
        f |= OC_BLOSC_F_DONT_SPLIT;
    return (uint8_t)(f | (oc_blosc_codec_format(codec) << 5));
}

/* The 16-byte header. */
OC_INLINE void oc_blosc_put_header(uint8_t *p, uint8_t flags, uint8_t typesize, uint32_t nbytes,
                                   uint32_t blocksize, uint32_t cbytes)
{
    p[0] = 2;
    p[1] = 1;
    p[2] = flags;
    p[3] = typesize;
    for (int i = 0; i < 4; i++) {
        p[4 + i] = (uint8_t)(nbytes >> (8 * i));
        p[8 + i] = (uint8_t)(blocksize >> (8 * i));
        p[12 + i] = (uint8_t)(cbytes >> (8 * i));
    }
}

#endif /* OC_BLOSC_ENCODE_H */
