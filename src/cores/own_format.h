/*
 * own_format.h - what opencomp's own chunk formats (Cascaded, Bitcomp,
 * ANS; docs/FORMAT.md, "Our own formats") share: the 8-byte chunk header,
 * the data types and their widths, and the table of tile end offsets that
 * lets a large chunk be decoded by many thread blocks at once; for the
 * tiled chunks of Cascaded and Bitcomp, their layout checks, their
 * compressor's tile loop and the CPU's tile-after-tile decode.
 *
 * Plain arithmetic on bytes, host and device (own_simt.h); the codec cores
 * include it.
 */
#ifndef OC_OWN_FORMAT_H
#define OC_OWN_FORMAT_H

#include "opencomp.h"
#include "own_simt.h"

/* The chunk header:
 *   0  u8   codec id: 'C' Cascaded, 'A' ANS, 'B' Bitcomp
 *   1  u8   format version (1; ANS also 2, docs/FORMAT.md)
 *   2  u8   data type (oc_data_type, never OC_TYPE_DEFAULT)
 *   3  u8   codec flags (reserved bits zero)
 *   4  u32  uncompressed size in bytes */
#define OWN_HEADER_SIZE 8u
#define OWN_VERSION 1u
#define OWN_ID_CASCADED 0x43u
#define OWN_ID_ANS 0x41u
#define OWN_ID_BITCOMP 0x42u
#define OWN_MAX_CHUNK 0xffffffffu

/* Bytes per element of a data type; 0 for invalid values. */
OWN_HD uint32_t own_type_width(uint32_t t)
{
    switch (t) {
    case OC_TYPE_U8:
    case OC_TYPE_I8:
        return 1;
    case OC_TYPE_U16:
    case OC_TYPE_I16:
    case OC_TYPE_F16:
    case OC_TYPE_BF16:
        return 2;
    case OC_TYPE_U32:
    case OC_TYPE_I32:
    case OC_TYPE_F32:
        return 4;
    case OC_TYPE_U64:
    case OC_TYPE_I64:
    case OC_TYPE_F64:
        return 8;
    default:
        return 0;
    }
}

OWN_HD int own_type_is_signed(uint32_t t)
{
    return t == OC_TYPE_I8 || t == OC_TYPE_I16 || t == OC_TYPE_I32 || t == OC_TYPE_I64;
}

OWN_HD int own_type_is_float(uint32_t t)
{
    return t == OC_TYPE_F16 || t == OC_TYPE_BF16 || t == OC_TYPE_F32 || t == OC_TYPE_F64;
}

typedef struct own_header {
    uint32_t id, version, dtype, flags;
    uint32_t size; /* uncompressed bytes */
} own_header;

/* Writes a header of format version `version` (1 unless a codec says). */
OWN_HD void own_header_write_v(uint8_t *p, uint32_t id, uint32_t version, uint32_t dtype, uint32_t flags,
                               uint32_t size)
{
    p[0] = (uint8_t)id;
    p[1] = (uint8_t)version;
    p[2] = (uint8_t)dtype;
    p[3] = (uint8_t)flags;
    oc_store_le32(p + 4, size);
}

OWN_HD void own_header_write(uint8_t *p, uint32_t id, uint32_t dtype, uint32_t flags, uint32_t size)
{
    own_header_write_v(p, id, OWN_VERSION, dtype, flags, size);
}

/* Reads and checks the header of a chunk of `id`: TRUNCATED when fewer
 * than 8 bytes, CORRUPT for another codec's id, a version outside
 * 1..vmax or an unknown data type.  Flags are left to the codec. */
OWN_HD oc_status own_header_read_v(const uint8_t *src, size_t n, uint32_t id, uint32_t vmax, own_header *h)
{
    if (n < OWN_HEADER_SIZE)
        return OC_ERR_TRUNCATED;
    h->id = src[0];
    h->version = src[1];
    h->dtype = src[2];
    h->flags = src[3];
    h->size = oc_load_le32(src + 4);
    if (h->id != id || h->version < 1 || h->version > vmax || own_type_width(h->dtype) == 0)
        return OC_ERR_CORRUPT;
    return OC_OK;
}

/* The same for codecs that have only version 1. */
OWN_HD oc_status own_header_read(const uint8_t *src, size_t n, uint32_t id, own_header *h)
{
    return own_header_read_v(src, n, id, OWN_VERSION, h);
}

/* ---- tiles ----------------------------------------------------------------
 * A chunk's elements are cut into tiles of `per_tile` elements (the last
 * one shorter); after the header come T u32 END offsets of the tiles,
 * relative to the first byte after the table, then the tiles.  Tile t
 * spans [end[t-1], end[t]) (end[-1] = 0), so any tile is found in O(1). */

OWN_HD uint32_t own_tile_count(uint64_t elems, uint32_t per_tile)
{
    return (uint32_t)((elems + per_tile - 1) / per_tile);
}

/* The elements of tile t of a chunk of elems elements: per_tile, or what
 * is left for the last tile. */
OWN_HD uint32_t own_tile_elems(uint64_t elems, uint32_t per_tile, uint32_t t)
{
    uint64_t first = (uint64_t)t * per_tile;
    return (uint32_t)(elems - first < per_tile ? elems - first : per_tile);
}

/* Where tile t of a chunk lies (offsets from the chunk's first byte), once
 * the table is known to fit: CORRUPT when its ends decrease or pass
 * `limit` (the byte where the tiles must end). */
OWN_HD oc_status own_tile_span(const uint8_t *src, uint32_t table_off, uint32_t ntiles, uint32_t t,
                               uint64_t limit, uint64_t *start, uint64_t *end)
{
    uint64_t base = (uint64_t)table_off + 4ull * ntiles;
    uint64_t b = t ? oc_load_le32(src + table_off + 4ull * (t - 1)) : 0;
    uint64_t e = oc_load_le32(src + table_off + 4ull * t);
    if (b > e || base + e > limit)
        return OC_ERR_CORRUPT;
    *start = base + b;
    *end = base + e;
    return OC_OK;
}

/* ---- tiled chunks (Cascaded, Bitcomp) ---------------------------------------
 * The header, the tile table right after it, the tiles of `per_tile`
 * elements, then the trailing bytes that are not a whole element, stored.
 * What such a chunk's header says, after the checks that need no tile: */
typedef struct own_tiled {
    uint32_t w, per_tile, ntiles, tail; /* width, elements per tile, tiles, trailing bytes */
    uint64_t size;                      /* decoded bytes */
    uint32_t table;                     /* offset of the tile table */
    uint64_t limit;                     /* offset where the tiles end */
    uint32_t dtype;                     /* the data type */
    uint32_t version;                   /* the header's format version */
} own_tiled;

/* Checks the tile table and total length of a tiled chunk whose header h
 * was read and checked (id, version, type, the codec's flags).  TRUNCATED
 * when src ends before the chunk does, CORRUPT for a chunk longer than its
 * tiles, OUTPUT_TOO_SMALL when the decoded size exceeds cap (checked
 * last). */
OWN_HD oc_status own_tiled_check(const uint8_t *src, size_t n, const own_header *h, uint32_t per_tile,
                                 uint64_t cap, own_tiled *k)
{
    k->w = own_type_width(h->dtype);
    k->dtype = h->dtype;
    k->version = h->version;
    k->size = h->size;
    k->per_tile = per_tile;
    uint64_t elems = h->size / k->w;
    k->ntiles = own_tile_count(elems, k->per_tile);
    k->tail = (uint32_t)(h->size - elems * k->w);
    k->table = OWN_HEADER_SIZE;
    uint64_t base = OWN_HEADER_SIZE + 4ull * k->ntiles;
    if (base > n)
        return OC_ERR_TRUNCATED;
    uint64_t last = k->ntiles ? oc_load_le32(src + OWN_HEADER_SIZE + 4ull * (k->ntiles - 1)) : 0;
    k->limit = base + last;
    uint64_t need = base + last + k->tail;
    if (need > n)
        return OC_ERR_TRUNCATED;
    if (need < n)
        return OC_ERR_CORRUPT;
    if (h->size > cap)
        return OC_ERR_OUTPUT_TOO_SMALL;
    return OC_OK;
}

/* A tiled codec's two decoding functions, which the CPU's walk below and
 * the GPU's header and tile kernels (src/cuda/codecs/own_common/own_tiles.cuh)
 * run: check(src, n, cap, &k), its header and table checks (as
 * own_tiled_check's statuses), and decode(ws, tile, tile_len, cnt, &k,
 * out, nw), one tile of cnt elements into out (NULL: checks only) by nw
 * warps. */
typedef oc_status (*own_tiled_check_fn)(const uint8_t *src, size_t n, uint64_t cap, own_tiled *k);
typedef oc_status (*own_tile_decode_fn)(void *ws, const uint8_t *tile, uint32_t len, uint32_t cnt,
                                        const own_tiled *k, uint8_t *out, uint32_t nw);

/* Its three encoding functions, which own_tiled_compress runs in every
 * thread of the CTA (once in C): encode(ws, opts, tile, cnt, dtype, nw)
 * codes cnt elements of type dtype at tile (global memory) with the
 * codec's options opts and returns the coded size, the coded tile left in
 * the workspace's stage, or cnt * width when coding does not make the tile
 * smaller (it is stored: the stage is not used); put(ws, size, dst, nw)
 * writes the stage's first size bytes to dst; copy(src, n, dst, nw) copies
 * n bytes from global src to global dst.  put and copy are whole phases
 * (OWN_RUN, barrier included). */
typedef uint32_t (*own_tile_encode_fn)(void *ws, const void *opts, const uint8_t *tile, uint32_t cnt,
                                       uint32_t dtype, uint32_t nw);
typedef void (*own_tile_put_fn)(void *ws, uint32_t size, uint8_t *dst, uint32_t nw);
typedef void (*own_bytes_copy_fn)(const uint8_t *src, uint32_t n, uint8_t *dst, uint32_t nw);

/* Compresses src[0..n) of type dtype (width w, checked by the caller) into
 * dst[0..cap) as a tiled chunk of codec id, format version `version` and header flags `flags`:
 * header, tile table, tiles of per_tile elements in order, trailing bytes.
 * CHUNK_TOO_LARGE for n over OWN_MAX_CHUNK; OUTPUT_TOO_SMALL as soon as
 * something does not fit (dst's content is then unspecified).  Runs in
 * every thread of the CTA; the same bytes for any nw.  The codec's
 * functions are constants the compiler inlines on the GPU. */
OWN_DEV oc_status own_tiled_compress_v(void *ws, const void *opts, const uint8_t *src, uint64_t n,
                                       uint32_t id, uint32_t version, uint32_t dtype, uint32_t flags,
                                       uint32_t per_tile, uint8_t *dst, uint64_t cap, uint64_t *out,
                                       uint32_t nw, own_tile_encode_fn encode, own_tile_put_fn put,
                                       own_bytes_copy_fn copy)
{
    *out = 0;
    if (n > OWN_MAX_CHUNK)
        return OC_ERR_CHUNK_TOO_LARGE;
    uint32_t w = own_type_width(dtype);
    uint64_t elems = n / w;
    uint32_t ntiles = own_tile_count(elems, per_tile);
    uint32_t tail = (uint32_t)(n - elems * w);
    uint64_t base = OWN_HEADER_SIZE + 4ull * ntiles;
    if (base > cap)
        return OC_ERR_OUTPUT_TOO_SMALL;
    if (OWN_ONE_THREAD)
        own_header_write_v(dst, id, version, dtype, flags, (uint32_t)n);
    uint64_t pos = base;
    for (uint32_t t = 0; t < ntiles; t++) {
        uint32_t cnt = own_tile_elems(elems, per_tile, t);
        const uint8_t *ts = src + (uint64_t)t * per_tile * w;
        uint32_t size = encode(ws, opts, ts, cnt, dtype, nw);
        if (pos + size > cap)
            return OC_ERR_OUTPUT_TOO_SMALL;
        if (size == cnt * w)
            copy(ts, size, dst + pos, nw);
        else
            put(ws, size, dst + pos, nw);
        pos += size;
        if (OWN_ONE_THREAD)
            oc_store_le32(dst + OWN_HEADER_SIZE + 4ull * t, (uint32_t)(pos - base));
    }
    if (pos + tail > cap)
        return OC_ERR_OUTPUT_TOO_SMALL;
    if (tail)
        copy(src + elems * w, tail, dst + pos, nw);
    *out = pos + tail;
    return OC_OK;
}

/* The same, writing format version 1 (own_tiled_compress_v: Cascaded
 * writes version 2). */
OWN_DEV oc_status own_tiled_compress(void *ws, const void *opts, const uint8_t *src, uint64_t n, uint32_t id,
                                     uint32_t dtype, uint32_t flags, uint32_t per_tile, uint8_t *dst,
                                     uint64_t cap, uint64_t *out, uint32_t nw, own_tile_encode_fn encode,
                                     own_tile_put_fn put, own_bytes_copy_fn copy)
{
    return own_tiled_compress_v(ws, opts, src, n, id, OWN_VERSION, dtype, flags, per_tile, dst, cap, out, nw,
                                encode, put, copy);
}

#ifndef __CUDACC__
/* The CPU's walk of a tiled chunk: check, then decode for every tile in
 * order (dst NULL: checks only, as a size query does), then the trailing
 * bytes.  The first failing tile's status is the chunk's, as on the GPU,
 * which runs the tiles of many chunks at once instead. */
static inline oc_status own_tiled_decompress(void *ws, const uint8_t *src, size_t n, uint8_t *dst,
                                             uint64_t cap, uint64_t *out, uint32_t nw,
                                             own_tiled_check_fn check, own_tile_decode_fn decode)
{
    own_tiled k;
    *out = 0;
    oc_status st = check(src, n, dst ? cap : UINT64_MAX, &k);
    if (st != OC_OK)
        return st;
    uint64_t elems = k.size / k.w;
    for (uint32_t t = 0; t < k.ntiles; t++) {
        uint64_t a, b, first = (uint64_t)t * k.per_tile;
        uint32_t cnt = own_tile_elems(elems, k.per_tile, t);
        st = own_tile_span(src, k.table, k.ntiles, t, k.limit, &a, &b);
        if (st == OC_OK)
            st = decode(ws, src + a, (uint32_t)(b - a), cnt, &k, dst ? dst + first * k.w : NULL, nw);
        if (st != OC_OK)
            return st;
    }
    if (dst && k.tail)
        memcpy(dst + elems * k.w, src + k.limit, k.tail);
    *out = k.size;
    return OC_OK;
}
#endif

#endif /* OC_OWN_FORMAT_H */
