/*
 * blosc_format.h - the Blosc 1.x chunk format (what c-blosc 1.x, numcodecs'
 * Blosc and zarr v2 write): the 16-byte header, the block-start table and
 * the split streams, read with every offset checked.  Host C11 and CUDA
 * device code alike (portable.h): the CPU engine checks a chunk's layout
 * with it before libblosc runs, the GPU engine plans and finds its streams
 * with it, and tests/c/test_blosc_core.c checks it against libblosc.
 *
 * The chunk (c-blosc's README_CHUNK_FORMAT.rst; little-endian):
 *
 *   0  version     2 (what c-blosc 1.x writes and all it reads; > 2 is a
 *                  Blosc2 chunk)
 *   1  versionlz   1 (the inner codec's format version)
 *   2  flags       0x01 byte shuffle, 0x02 memcpyed, 0x04 bitshuffle,
 *                  0x08 reserved (0), 0x10 blocks not split,
 *                  bits 5-7 inner codec: 0 blosclz, 1 lz4/lz4hc, 2 snappy,
 *                  3 zlib, 4 zstd
 *   3  typesize    bytes per element (1..255)
 *   4  nbytes      decoded size (u32, at most 2^31 - 1 - 16)
 *   8  blocksize   decoded bytes per block (u32, at most c-blosc's
 *                  BLOSC_MAX_BLOCKSIZE); the last block holds the rest
 *                  (nbytes % blocksize when not 0)
 *   12 cbytes      the chunk's size, header included (u32)
 *
 * memcpyed: the nbytes decoded bytes follow the header (cbytes = nbytes +
 * 16), whatever the shuffle flags say.  Otherwise: nblocks =
 * ceil(nbytes / blocksize) i32 block starts (offsets from the chunk's
 * first byte, in any order: c-blosc's threads write blocks as they
 * finish), then per block its streams, each an i32 csize and csize bytes.
 * A stream whose csize equals its decoded size is stored (copied).
 *
 * Streams per block (observed on libblosc 1.21.3's decoder with hand-made
 * chunks, and on c-blosc's output): a block other than a short last block
 * is split into `typesize` streams of blocksize / typesize bytes when flag
 * 0x10 is clear, typesize <= 16 and blocksize / typesize >= 128; else one
 * stream.  The filters apply per block after the streams are joined
 * (shuffle.h): byte shuffle (flag 0x01, typesize > 1) of the block's whole
 * elements, the trailing blocksize % typesize bytes as they are; else
 * bitshuffle (0x04) only when the block's element count is a multiple of
 * 8, else the block is stored unshuffled.  So with both flags set the byte
 * shuffle wins, but a 1-byte typesize makes it bitshuffle (libblosc's
 * blosc_d; oc_blosc_block_filter).
 *
 * Hostile input: every field is checked before it is used; statuses as
 * include/opencomp.h (TRUNCATED when the buffer ends before cbytes or a
 * table or stream runs past the chunk, CORRUPT for impossible fields and
 * for bytes after cbytes, UNSUPPORTED for any version but 2: a Blosc2
 * chunk, or a format-1 chunk that libblosc 1.21 refuses as well).  Where
 * libblosc 1.21.3 refuses a chunk for its header, so does this parser
 * (fuzz/fuzz_container_blosc.c holds both to the same verdicts).
 */
#ifndef OC_BLOSC_FORMAT_H
#define OC_BLOSC_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "le.h"
#include "opencomp.h"
#include "portable.h"

#define OC_BLOSC_HEADER_SIZE 16u
#define OC_BLOSC_MAX_NBYTES (0x7FFFFFFFu - OC_BLOSC_HEADER_SIZE) /* c-blosc's BLOSC_MAX_BUFFERSIZE */
#define OC_BLOSC_MAX_SPLITS 16u
#define OC_BLOSC_MIN_SPLIT 128u /* bytes per stream below which a block is not split */
/* c-blosc's BLOSC_MAX_BLOCKSIZE, (INT_MAX - 255 * 4) / 3: libblosc refuses larger blocks */
#define OC_BLOSC_MAX_BLOCKSIZE ((0x7FFFFFFFu - 255u * 4u) / 3u)

#define OC_BLOSC_F_SHUFFLE 0x01u
#define OC_BLOSC_F_MEMCPYED 0x02u
#define OC_BLOSC_F_BITSHUFFLE 0x04u
#define OC_BLOSC_F_RESERVED 0x08u
#define OC_BLOSC_F_DONT_SPLIT 0x10u

/* The inner codec's format code (flags >> 5). */
enum {
    OC_BLOSC_FMT_BLOSCLZ = 0,
    OC_BLOSC_FMT_LZ4 = 1, /* lz4 and lz4hc: LZ4 block streams */
    OC_BLOSC_FMT_SNAPPY = 2,
    OC_BLOSC_FMT_ZLIB = 3, /* RFC 1950 streams */
    OC_BLOSC_FMT_ZSTD = 4  /* one zstd frame per stream */
};

typedef struct oc_blosc_header {
    uint32_t nbytes;    /* decoded size */
    uint32_t blocksize; /* decoded bytes of a full block */
    uint32_t cbytes;    /* chunk size, header included */
    uint32_t nblocks;   /* blocks (0 for an empty chunk) */
    uint32_t last_size; /* decoded bytes of the last block */
    uint8_t flags;
    uint8_t typesize;
    uint8_t format;  /* OC_BLOSC_FMT_* */
    uint8_t nsplits; /* streams of a full block (the last short block has 1) */
} oc_blosc_header;

/* The streams of a block of `bsz` decoded bytes (`last`: the chunk's short
 * last block), by the rule above. */
OC_INLINE uint32_t oc_blosc_block_splits(const oc_blosc_header *h, uint32_t bsz, int short_last)
{
    if (short_last || (h->flags & OC_BLOSC_F_DONT_SPLIT) || h->typesize > OC_BLOSC_MAX_SPLITS ||
        bsz / h->typesize < OC_BLOSC_MIN_SPLIT)
        return 1;
    return h->typesize;
}

/* Reads and checks the header of the chunk p[0..n): OK, TRUNCATED (fewer
 * than 16 bytes, fewer than cbytes, or a block-start table past cbytes),
 * CORRUPT (impossible field, bytes after cbytes), UNSUPPORTED (Blosc2). */
OC_INLINE oc_status oc_blosc_parse_header(const uint8_t *p, size_t n, oc_blosc_header *h)
{
    if (n < OC_BLOSC_HEADER_SIZE)
        return OC_ERR_TRUNCATED;
    uint8_t version = p[0], versionlz = p[1], flags = p[2], typesize = p[3];
    h->flags = flags;
    h->typesize = typesize;
    h->format = (uint8_t)(flags >> 5);
    h->nbytes = oc_load_le32(p + 4);
    h->blocksize = oc_load_le32(p + 8);
    h->cbytes = oc_load_le32(p + 12);
    if (version == 0)
        return OC_ERR_CORRUPT;
    if (version != 2)
        return OC_ERR_UNSUPPORTED; /* a Blosc2 chunk, or format 1, which libblosc 1.21 refuses */
    if ((flags & OC_BLOSC_F_RESERVED) || typesize == 0 || h->nbytes > OC_BLOSC_MAX_NBYTES ||
        h->cbytes < OC_BLOSC_HEADER_SIZE)
        return OC_ERR_CORRUPT;
    if (n < h->cbytes)
        return OC_ERR_TRUNCATED;
    if (n > h->cbytes)
        return OC_ERR_CORRUPT; /* bytes after the chunk */
    /* c-blosc refuses a block size of 0 or above the chunk's size, memcpyed
     * chunks included (an empty chunk is written with block size 1) */
    if (h->nbytes > 0 &&
        (h->blocksize == 0 || h->blocksize > h->nbytes || h->blocksize > OC_BLOSC_MAX_BLOCKSIZE))
        return OC_ERR_CORRUPT;
    if (flags & OC_BLOSC_F_MEMCPYED) {
        h->nblocks = 0;
        h->last_size = 0;
        h->nsplits = 1;
        return (uint64_t)h->cbytes == (uint64_t)h->nbytes + OC_BLOSC_HEADER_SIZE ? OC_OK : OC_ERR_CORRUPT;
    }
    if (versionlz != 1 || h->format > OC_BLOSC_FMT_ZSTD)
        return OC_ERR_CORRUPT;
    if (h->nbytes == 0) {
        h->nblocks = 0;
        h->last_size = 0;
        h->nsplits = 1;
        return OC_OK;
    }
    if (h->blocksize == 0)
        return OC_ERR_CORRUPT;
    uint32_t full = h->nbytes / h->blocksize, rest = h->nbytes % h->blocksize;
    h->nblocks = full + (rest != 0);
    h->last_size = rest ? rest : h->blocksize;
    h->nsplits = (uint8_t)oc_blosc_block_splits(h, h->blocksize, 0);
    if (h->nsplits > 1 && h->blocksize % h->nsplits != 0)
        return OC_ERR_CORRUPT; /* c-blosc keeps split blocks a multiple of typesize */
    if ((uint64_t)OC_BLOSC_HEADER_SIZE + 4ull * h->nblocks > h->cbytes)
        return OC_ERR_TRUNCATED;
    return OC_OK;
}

/* Decoded size and streams of block b (b < h->nblocks). */
OC_INLINE uint32_t oc_blosc_block_size(const oc_blosc_header *h, uint32_t b)
{
    return b + 1 == h->nblocks ? h->last_size : h->blocksize;
}
OC_INLINE uint32_t oc_blosc_block_streams(const oc_blosc_header *h, uint32_t b)
{
    int short_last = b + 1 == h->nblocks && h->last_size != h->blocksize;
    return oc_blosc_block_splits(h, oc_blosc_block_size(h, b), short_last);
}

/* The filter to undo on a block of bsz decoded bytes, as libblosc's blosc_d
 * picks it: 1 byte unshuffle (flag 0x01 and typesize > 1), else 2
 * bitunshuffle (flag 0x04 and the block holds a whole element; shuffle.h
 * leaves a block whose element count is not a multiple of 8 as it is),
 * else 0. */
OC_INLINE int oc_blosc_block_filter(const oc_blosc_header *h, uint32_t bsz)
{
    if ((h->flags & OC_BLOSC_F_MEMCPYED) == 0 && (h->flags & OC_BLOSC_F_SHUFFLE) && h->typesize > 1)
        return 1;
    if ((h->flags & OC_BLOSC_F_MEMCPYED) == 0 && (h->flags & OC_BLOSC_F_BITSHUFFLE) && bsz >= h->typesize)
        return 2;
    return 0;
}

/* One stream of a block: where its bytes are, how long, what it decodes to. */
typedef struct oc_blosc_stream {
    uint32_t offset; /* of the stream's bytes in the chunk (after its csize) */
    uint32_t csize;  /* its stored size */
    uint32_t dsize;  /* its decoded size */
    uint32_t out;    /* where it decodes, from the chunk's first decoded byte */
    uint8_t stored;  /* csize == dsize: the bytes are copied */
} oc_blosc_stream;

/* Finds stream s of block b of the chunk p (checked by
 * oc_blosc_parse_header), walking the csize words from the block's start:
 * OK, or TRUNCATED / CORRUPT when a start, a csize word or a stream lies
 * outside the chunk, or a csize is negative or 0.  A csize above the
 * stream's decoded size is valid: c-blosc gives snappy its whole bound
 * and keeps a snappy stream a few bytes longer than its data. */
OC_INLINE oc_status oc_blosc_find_stream(const uint8_t *p, const oc_blosc_header *h, uint32_t b, uint32_t s,
                                         oc_blosc_stream *out)
{
    uint32_t table_end = OC_BLOSC_HEADER_SIZE + 4u * h->nblocks;
    uint32_t pos = oc_load_le32(p + OC_BLOSC_HEADER_SIZE + 4u * b);
    uint32_t bsz = oc_blosc_block_size(h, b);
    uint32_t ns = oc_blosc_block_streams(h, b);
    uint32_t dsize = bsz / ns;
    if (pos < table_end || pos > h->cbytes)
        return OC_ERR_CORRUPT;
    for (uint32_t k = 0;; k++) {
        if (h->cbytes - pos < 4)
            return OC_ERR_TRUNCATED;
        uint32_t cs = oc_load_le32(p + pos);
        pos += 4;
        if (cs > 0x7FFFFFFFu || cs == 0)
            return OC_ERR_CORRUPT;
        if (cs > h->cbytes - pos)
            return OC_ERR_TRUNCATED;
        if (k == s) {
            out->offset = pos;
            out->csize = cs;
            out->dsize = dsize;
            out->out = b * h->blocksize + s * dsize;
            out->stored = cs == dsize;
            return OC_OK;
        }
        pos += cs;
    }
}

#endif /* OC_BLOSC_FORMAT_H */
