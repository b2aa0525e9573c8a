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
#include "shuffle.h"

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

/* 1 if the GPU encoder writes chunks of this inner codec (the library's
 * GPU compressors of LZ4, Snappy, Zstd and Deflate, whose zlib-wrapped
 * streams are what c-blosc's compress2 writes); blosclz chunks are
 * host-staged through libblosc by the API layer (no GPU BloscLZ encoder). */
OC_INLINE int oc_blosc_gpu_encodes(int codec)
{
    return codec == OC_BLOSC_LZ4 || codec == OC_BLOSC_LZ4HC || codec == OC_BLOSC_SNAPPY ||
           codec == OC_BLOSC_ZLIB || codec == OC_BLOSC_ZSTD;
}

/* What the encoder writes for one chunk, before any stream is compressed. */
typedef struct oc_blosc_enc_plan {
    uint32_t nbytes, blocksize, nblocks, last_size;
    uint32_t nstreams; /* streams of the chunk's blocks (also when memcpyed: the copy's pieces) */
    uint8_t flags;     /* the header's flags; OC_BLOSC_F_MEMCPYED when c-blosc's rules store the
                          chunk whatever the data (level 0, fewer than 128 bytes) */
    uint8_t typesize;
    uint8_t nsplits;  /* streams of a full block */
    uint8_t filtered; /* 1: some block's bytes are filtered before compression */
} oc_blosc_enc_plan;

/* The plan as a parsed header (for blosc_format.h's per-block rules). */
OC_INLINE void oc_blosc_enc_header(const oc_blosc_enc_plan *p, oc_blosc_header *h)
{
    h->nbytes = p->nbytes;
    h->blocksize = p->blocksize;
    h->cbytes = 0;
    h->nblocks = p->nblocks;
    h->last_size = p->last_size;
    h->flags = (uint8_t)(p->flags & ~OC_BLOSC_F_MEMCPYED);
    h->typesize = p->typesize;
    h->format = (uint8_t)(p->flags >> 5);
    h->nsplits = p->nsplits;
}

/* Plans a chunk of nbytes: codec (oc_blosc_codec), level (opencomp's: 1..9,
 * -1 for c-blosc's clevel 0), filter (oc_filter), typesize (1..255),
 * forced block size (0: c-blosc's choice).  CHUNK_TOO_LARGE above
 * c-blosc's limit; else OK. */
OC_INLINE oc_status oc_blosc_enc_plan_chunk(int codec, int level, int filter, uint32_t typesize,
                                            uint64_t nbytes, uint32_t forced, oc_blosc_enc_plan *p)
{
    int clevel = level < 0 ? 0 : level;
    if (nbytes > OC_BLOSC_MAX_NBYTES)
        return OC_ERR_CHUNK_TOO_LARGE;
    uint32_t n = (uint32_t)nbytes;
    p->nbytes = n;
    p->typesize = (uint8_t)typesize;
    p->blocksize = oc_blosc_enc_blocksize(codec, clevel, typesize, n, forced);
    p->flags = oc_blosc_enc_flags(codec, filter, typesize, p->blocksize);
    if (clevel == 0 || n < OC_BLOSC_MIN_BUFFER)
        p->flags |= OC_BLOSC_F_MEMCPYED;
    p->nblocks = n == 0 ? 0 : n / p->blocksize + (n % p->blocksize != 0);
    p->last_size = n == 0 ? 0 : n % p->blocksize ? n % p->blocksize : p->blocksize;
    oc_blosc_header h;
    oc_blosc_enc_header(p, &h);
    p->nsplits = (uint8_t)oc_blosc_block_splits(&h, p->blocksize, 0);
    h.nsplits = p->nsplits;
    p->nstreams =
        p->nblocks == 0 ? 0 : (p->nblocks - 1) * p->nsplits + oc_blosc_block_streams(&h, p->nblocks - 1);
    p->filtered =
        !(p->flags & OC_BLOSC_F_MEMCPYED) && p->nblocks > 0 &&
        (oc_blosc_block_filter(&h, p->blocksize) != 0 || oc_blosc_block_filter(&h, p->last_size) != 0);
    return OC_OK;
}

/* Stream j of the chunk (0 <= j < nstreams, block-major): its block, its
 * index in the block, the block's size and streams. */
typedef struct oc_blosc_enc_stream {
    uint32_t block, k, bsz, ns;
    uint32_t in_off; /* of its decoded bytes from the chunk's first byte */
    uint32_t len;    /* its decoded bytes (bsz / ns) */
} oc_blosc_enc_stream;

OC_INLINE void oc_blosc_enc_stream_at(const oc_blosc_enc_plan *p, uint32_t j, oc_blosc_enc_stream *s)
{
    oc_blosc_header h;
    oc_blosc_enc_header(p, &h);
    uint32_t full = (p->nblocks - 1) * p->nsplits; /* streams before the last block */
    s->block = j < full ? j / p->nsplits : p->nblocks - 1;
    s->k = j < full ? j % p->nsplits : j - full;
    s->bsz = oc_blosc_block_size(&h, s->block);
    s->ns = oc_blosc_block_streams(&h, s->block);
    s->len = s->bsz / s->ns;
    s->in_off = s->block * p->blocksize + s->k * s->len;
}

/* Bytes of the slot a stream's compressed form gets (16-aligned). */
OC_INLINE uint64_t oc_blosc_enc_slot(uint32_t len)
{
    return ((uint64_t)len + 15) & ~(uint64_t)15;
}

/* Where stream j's slot starts, from the chunk's first slot (the streams'
 * slots in order). */
OC_INLINE uint64_t oc_blosc_enc_slot_at(const oc_blosc_enc_plan *p, uint32_t j)
{
    uint32_t full = (p->nblocks - 1) * p->nsplits;
    uint64_t s = oc_blosc_enc_slot(p->blocksize / p->nsplits);
    if (j <= full)
        return (uint64_t)j * s;
    oc_blosc_enc_stream last;
    oc_blosc_enc_stream_at(p, j, &last);
    return (uint64_t)full * s + (uint64_t)(j - full) * oc_blosc_enc_slot(last.len);
}

/* The slots of every stream of the chunk, summed. */
OC_INLINE uint64_t oc_blosc_enc_slot_bytes(const oc_blosc_enc_plan *p)
{
    if (p->nstreams == 0)
        return 0;
    oc_blosc_enc_stream first, last;
    oc_blosc_enc_stream_at(p, 0, &first);
    oc_blosc_enc_stream_at(p, p->nstreams - 1, &last);
    return (uint64_t)(p->nblocks - 1) * p->nsplits * oc_blosc_enc_slot(first.len) +
           (uint64_t)last.ns * oc_blosc_enc_slot(last.len);
}

/* Writes the filtered bytes of stream s of a block (c-blosc's blosc_c: the
 * whole block is shuffled, then cut into streams) into out, the stream's
 * first byte; blk is the block's plain bytes.  The work is cut into items
 * (bytes, or groups of 8 elements for bitshuffle) and items first, first +
 * step, ... are done: the host passes 0, 1; a CTA its thread and size. */
OC_INLINE void oc_blosc_enc_filter_stream(const oc_blosc_enc_plan *p, const oc_blosc_enc_stream *s,
                                          const uint8_t *blk, uint8_t *out, uint32_t first, uint32_t step)
{
    oc_blosc_header h;
    oc_blosc_enc_header(p, &h);
    int f = oc_blosc_block_filter(&h, s->bsz);
    uint32_t t = p->typesize, e = s->bsz / t;
    /* the columns (byte j of every element) this stream holds: a split
     * block's stream k is column k; a whole block holds them all */
    uint32_t j0 = s->ns > 1 ? s->k : 0, j1 = s->ns > 1 ? s->k + 1 : t;
    uint32_t done = 0; /* bytes of the stream the filter wrote */
    int applied = 0;
    if (f == 1) {
        uint32_t items = (j1 - j0) * e;
        for (uint32_t q = first; q < items; q += step) {
            uint32_t j = j0 + q / e, i = q % e;
            out[q] = blk[(size_t)i * t + j];
        }
        done = items, applied = 1;
    } else if (f == 2 && e % 8 == 0 && e > 0) {
        uint32_t row = e / 8, items = (j1 - j0) * row;
        for (uint32_t q = first; q < items; q += step) {
            uint32_t j = j0 + q / row, g = q % row;
            uint64_t x = 0;
            for (uint32_t r = 0; r < 8; r++)
                x |= (uint64_t)blk[((size_t)g * 8 + r) * t + j] << (8 * r);
            x = oc_transpose8x8(x);
            for (uint32_t b = 0; b < 8; b++) /* row 8j + b of the block, (j - j0) * e bytes into the stream */
                out[(size_t)(j - j0) * e + (size_t)b * row + g] = (uint8_t)(x >> (8 * b));
        }
        done = (j1 - j0) * e, applied = 1;
    }
    /* what the filter leaves: the trailing bsz % t bytes of a whole block
     * (a filtered split stream is all columns), or, when the block is not
     * filtered, the stream's plain bytes */
    const uint8_t *rest = applied ? blk : blk + (size_t)s->k * s->len;
    for (uint32_t q = done + first; q < s->len; q += step)
        out[q] = rest[q];
}

/* The chunk's size once its streams are sized: fin[j] is stream j's stored
 * size (its compressed size, or len when stored). */
OC_INLINE uint64_t oc_blosc_enc_total(const oc_blosc_enc_plan *p, const uint32_t *fin)
{
    uint64_t total = OC_BLOSC_HEADER_SIZE + 4ull * p->nblocks;
    for (uint32_t j = 0; j < p->nstreams; j++)
        total += 4ull + fin[j];
    return total;
}

/* Writes the block starts and each stream's csize word into the chunk at
 * dst (the header is oc_blosc_put_header's), and where each stream's bytes
 * go (out_off[j], from the chunk's first byte).  The caller checked that
 * oc_blosc_enc_total fits. */
OC_INLINE void oc_blosc_enc_write_tables(const oc_blosc_enc_plan *p, const uint32_t *fin, uint8_t *dst,
                                         uint32_t *out_off)
{
    uint32_t pos = OC_BLOSC_HEADER_SIZE + 4u * p->nblocks, j = 0;
    for (uint32_t b = 0; b < p->nblocks; b++) {
        oc_store_le32(dst + OC_BLOSC_HEADER_SIZE + 4u * b, pos);
        uint32_t ns = b + 1 < p->nblocks ? p->nsplits : p->nstreams - j;
        for (uint32_t k = 0; k < ns; k++, j++) {
            oc_store_le32(dst + pos, fin[j]);
            out_off[j] = pos + 4;
            pos += 4 + fin[j];
        }
    }
}

#endif /* OC_BLOSC_ENCODE_H */
