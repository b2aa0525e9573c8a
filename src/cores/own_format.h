/*
 * own_format.h - what opencomp's own chunk formats (Cascaded, Bitcomp,
 * ANS; docs/FORMAT.md, "Our own formats") share: the 8-byte chunk header,
 * the data types and their widths, and the table of tile end offsets that
 * lets a large chunk be decoded by many thread blocks at once.
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
 *   1  u8   format version (1)
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

OWN_HD void own_header_write(uint8_t *p, uint32_t id, uint32_t dtype, uint32_t flags, uint32_t size)
{
    p[0] = (uint8_t)id;
    p[1] = (uint8_t)OWN_VERSION;
    p[2] = (uint8_t)dtype;
    p[3] = (uint8_t)flags;
    oc_store_le32(p + 4, size);
}

/* Reads and checks the header of a chunk of `id`: TRUNCATED when fewer
 * than 8 bytes, CORRUPT for another codec's id, another version or an
 * unknown data type.  Flags are left to the codec. */
OWN_HD oc_status own_header_read(const uint8_t *src, size_t n, uint32_t id, own_header *h)
{
    if (n < OWN_HEADER_SIZE)
        return OC_ERR_TRUNCATED;
    h->id = src[0];
    h->version = src[1];
    h->dtype = src[2];
    h->flags = src[3];
    h->size = oc_load_le32(src + 4);
    if (h->id != id || h->version != OWN_VERSION || own_type_width(h->dtype) == 0)
        return OC_ERR_CORRUPT;
    return OC_OK;
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

#endif /* OC_OWN_FORMAT_H */
