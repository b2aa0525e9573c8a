/*
 * inflate_chunk_core.h - one chunk of raw Deflate (RFC 1951), zlib (RFC 1950)
 * or gzip (RFC 1952, every header field, several members), decoded by one
 * warp on the GPU or one thread on the host: the wrappers around
 * inflate_core.h, with the checksums of deflate_checksum_core.h verified
 * where the decoder runs.
 *
 * The statuses are the CPU engine's (src/cpu/codecs/deflate/codec_deflate.c),
 * check for check, so a chunk gets the same answer on either engine:
 *   raw:  bytes after the final block -> CORRUPT.
 *   zlib: empty -> TRUNCATED; method other than 8 or window over 32 KiB ->
 *         CORRUPT; 1 byte -> TRUNCATED; FCHECK -> CORRUPT; FDICT (a preset
 *         dictionary) -> NEEDS_DICTIONARY; fewer than 4 trailer bytes ->
 *         TRUNCATED; Adler-32 -> CHECKSUM_MISMATCH; bytes after it -> CORRUPT.
 *   gzip: empty -> TRUNCATED; zero bytes after a member are padding (as
 *         gzip -d and Python's gzip read them), other bytes that do not
 *         begin 1f 8b -> CORRUPT; then per member: magic or method -> CORRUPT,
 *         reserved flags -> CORRUPT, header cut short (10 bytes, FEXTRA,
 *         FNAME/FCOMMENT without their zero, FHCRC) -> TRUNCATED, FHCRC ->
 *         CHECKSUM_MISMATCH, trailer cut -> TRUNCATED, CRC-32 ->
 *         CHECKSUM_MISMATCH, ISIZE -> SIZE_MISMATCH.
 * On OUTPUT_TOO_SMALL, *out_size is the size the chunk needs when every
 * earlier member fitted (the size query reads it).
 */
#ifndef OC_INFLATE_CHUNK_CORE_H
#define OC_INFLATE_CHUNK_CORE_H

#include "deflate_checksum_core.h"
#include "inflate_core.h"

OC_CORE_FN uint32_t inf_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* Index of the first byte in p[from..n) that is zero (want_zero) or not,
 * or n; the warp scans 32 bytes per step. */
OC_CORE_FN size_t inf_find_byte(const uint8_t *p, size_t from, size_t n, int want_zero)
{
    for (size_t b = from; b < n; b += OC_NLANES) {
        size_t i = b + OC_LANE();
        uint32_t z = OC_WARP_BALLOT(i < n && (p[i] == 0) == want_zero);
        if (z)
            return b + (size_t)oc_lowbit32(z);
    }
    return n;
}

/* A gzip member header at p (n bytes left); *hlen its length. */
OC_CORE_BIGFN oc_status inf_gzip_header(const uint32_t *crct, const uint8_t *p, size_t n, size_t *hlen)
{
    for (size_t i = 0; i < 3 && i < n; i++)
        if (p[i] != (i == 0 ? 0x1f : i == 1 ? 0x8b : 8)) /* ID1 ID2 CM */
            return INF_ERR(OC_ERR_CORRUPT);
    if (n > 3 && (p[3] & 0xE0))
        return INF_ERR(OC_ERR_CORRUPT);
    if (n < 10)
        return OC_ERR_TRUNCATED;
    uint32_t flg = p[3];
    size_t pos = 10;
    if (flg & 0x04) { /* FEXTRA: XLEN, then XLEN bytes */
        if (n - pos < 2)
            return OC_ERR_TRUNCATED;
        size_t xlen = (size_t)p[pos] | ((size_t)p[pos + 1] << 8);
        pos += 2;
        if (n - pos < xlen)
            return OC_ERR_TRUNCATED;
        pos += xlen;
    }
    for (uint32_t bit = 0x08; bit <= 0x10; bit <<= 1) { /* FNAME, FCOMMENT: zero-terminated */
        if (flg & bit) {
            size_t z = inf_find_byte(p, pos, n, 1);
            if (z == n)
                return OC_ERR_TRUNCATED;
            pos = z + 1;
        }
    }
    if (flg & 0x02) { /* FHCRC: low 16 bits of the CRC-32 of the header so far */
        if (n - pos < 2)
            return OC_ERR_TRUNCATED;
        uint32_t crc = dck_crc32(crct, p, pos) & 0xFFFFu;
        if (((uint32_t)p[pos] | ((uint32_t)p[pos + 1] << 8)) != crc)
            return INF_ERR(OC_ERR_CHECKSUM_MISMATCH);
        pos += 2;
    }
    *hlen = pos;
    return OC_OK;
}

/* One zlib stream (RFC 1950) at src[0..n) into dst[0..cap): the 2-byte
 * header, the raw Deflate data, the Adler-32 of the output (big-endian).
 * The statuses of the file comment, except that bytes after the Adler-32
 * are not looked at: *rest gets their count (a zlib chunk must have none; a
 * Blosc stream may, as zlib's uncompress() ignores them).  *out_size as
 * inf_decode_chunk's. */
OC_CORE_BIGFN oc_status inf_zlib_stream(inf_tables *T, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                        size_t *out_size, size_t *rest)
{
    size_t used = 0, got = 0;
    *out_size = 0;
    if (n == 0)
        return OC_ERR_TRUNCATED;
    uint32_t cmf = src[0];
    if ((cmf & 0x0F) != 8 || (cmf >> 4) > 7)
        return INF_ERR(OC_ERR_CORRUPT);
    if (n < 2)
        return OC_ERR_TRUNCATED;
    uint32_t flg = src[1];
    if ((cmf << 8 | flg) % 31 != 0)
        return INF_ERR(OC_ERR_CORRUPT);
    if (flg & 0x20)
        return OC_ERR_NEEDS_DICTIONARY;
    oc_status st = inf_inflate(T, src + 2, n - 2, dst, cap, &used, &got);
    *out_size = got;
    if (st != OC_OK)
        return st;
    size_t left = n - 2 - used;
    if (left < 4)
        return OC_ERR_TRUNCATED;
    OC_WARP_SYNC(); /* the output written by other lanes */
    uint32_t adler = dck_adler32(dst, got);
    uint32_t want = ((uint32_t)src[2 + used] << 24) | ((uint32_t)src[3 + used] << 16) |
                    ((uint32_t)src[4 + used] << 8) | (uint32_t)src[5 + used];
    if (adler != want)
        return INF_ERR(OC_ERR_CHECKSUM_MISMATCH);
    *rest = left - 4;
    return OC_OK;
}

/* inf_decode_chunk decodes one chunk of `algo` (OC_ALGO_DEFLATE, _ZLIB or
 * _GZIP) from src[0..n) into dst[0..cap); *out_size gets the bytes written.
 * crct is the CRC-32 byte table (dck_crc_table_fill).  Every lane returns
 * the same status and size. */
OC_CORE_BIGFN oc_status inf_decode_chunk(inf_tables *T, const uint32_t *crct, oc_algorithm algo,
                                         const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                         size_t *out_size)
{
    size_t used = 0, got = 0;
    oc_status st;
    *out_size = 0;
    if (algo == OC_ALGO_ZLIB) {
        size_t rest = 0;
        st = inf_zlib_stream(T, src, n, dst, cap, out_size, &rest);
        if (st == OC_OK && rest > 0)
            return INF_ERR(OC_ERR_CORRUPT); /* bytes after the Adler-32 */
        return st;
    }
    if (algo == OC_ALGO_GZIP) {
        if (n == 0)
            return OC_ERR_TRUNCATED;
        size_t pos = 0, out = 0;
        while (pos < n) {
            if (pos > 0) { /* after a member: zero bytes are padding, anything else must be a member */
                size_t z = inf_find_byte(src, pos, n, 0);
                if (z == n)
                    break;
                if (src[z] != 0x1f || (n - z >= 2 && src[z + 1] != 0x8b))
                    return INF_ERR(OC_ERR_CORRUPT);
                pos = z;
            }
            size_t hlen;
            st = inf_gzip_header(crct, src + pos, n - pos, &hlen);
            if (st != OC_OK)
                return st;
            pos += hlen;
            st = inf_inflate(T, src + pos, n - pos, dst + out, cap - out, &used, &got);
            *out_size = out + got;
            if (st != OC_OK)
                return st;
            pos += used;
            if (n - pos < 8)
                return OC_ERR_TRUNCATED;
            OC_WARP_SYNC();
            uint32_t crc = dck_crc32(crct, dst + out, got);
            if (inf_le32(src + pos) != crc)
                return INF_ERR(OC_ERR_CHECKSUM_MISMATCH);
            if (inf_le32(src + pos + 4) != (uint32_t)got)
                return INF_ERR(OC_ERR_SIZE_MISMATCH);
            pos += 8;
            out += got;
        }
        *out_size = out;
        return OC_OK;
    }
    st = inf_inflate(T, src, n, dst, cap, &used, &got);
    *out_size = got;
    if (st != OC_OK)
        return st;
    if (used != n)
        return INF_ERR(OC_ERR_CORRUPT); /* bytes after the final block */
    return OC_OK;
}

#endif /* OC_INFLATE_CHUNK_CORE_H */
