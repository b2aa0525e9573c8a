/*
 * gzip_members.c - the deflate/zlib/gzip NATIVE container: multi-member
 * gzip (RFC 1952), one member per chunk, each member's header carrying an
 * FEXTRA subfield 'O','C' (LEN 8) with the member's total size and its
 * uncompressed size, so a reader hops from member to member without
 * inflating (like BGZF's 'B','C' subfield).  CRC-32 and ISIZE are always
 * written, as gzip requires.
 *
 * The reader accepts any gzip file: members with our subfield become
 * chunks with exact slices of dst; from the first member without it (files
 * from gzip, pigz, `cat a.gz b.gz`), the rest is one tail chunk that the
 * gzip codec inflates serially into the rest of dst.  Bytes after the last
 * member that begin no member (zero padding, garbage) end the gzip data,
 * as gzip -d reads them (issue 11 item 9; for tails, src/api/buffer.c).
 */
#include "container.h"

#define FTEXT 0x01u
#define FHCRC 0x02u
#define FEXTRA 0x04u
#define FNAME 0x08u
#define FCOMMENT 0x10u

uint64_t oc_gzip_members_bound(uint64_t n_chunks, uint64_t payload_bound)
{
    return payload_bound + n_chunks * (OC_GZIP_HEADER_SIZE + OC_GZIP_TRAILER_SIZE);
}

oc_status oc_gzip_write_member(oc_writer *w, const uint8_t *deflate, size_t dsize, size_t usize, uint32_t crc)
{
    uint64_t member = OC_GZIP_HEADER_SIZE + (uint64_t)dsize + OC_GZIP_TRAILER_SIZE;
    RETURN_ERROR_IF(member > 0xffffffffu || usize > 0xffffffffu, OC_ERR_CHUNK_TOO_LARGE);
    oc_chunk_layout l;
    oc_layout_chunk(OC_ALGO_GZIP, 1, (uint32_t)usize, (uint32_t)dsize, crc, &l);
    return oc_writer_chunk(w, &l, NULL, deflate);
}

/* Parses one member header at p[0..n).  *header gets its length; *has_oc is
 * set with the subfield's values when our subfield is present. */
static oc_status parse_member_header(const uint8_t *p, uint64_t n, uint64_t *header, int *has_oc,
                                     uint64_t *member, uint64_t *usize)
{
    *has_oc = 0;
    SAFETY_CHECK(n >= 10, OC_ERR_TRUNCATED);
    SAFETY_CHECK(p[0] == 0x1f && p[1] == 0x8b, OC_ERR_CORRUPT);
    SAFETY_CHECK(p[2] == 8 && !(p[3] & 0xE0), OC_ERR_CORRUPT);
    uint8_t flg = p[3];
    uint64_t pos = 10;
    if (flg & FEXTRA) {
        SAFETY_CHECK(n - pos >= 2, OC_ERR_TRUNCATED);
        uint64_t xlen = (uint64_t)p[pos] | ((uint64_t)p[pos + 1] << 8);
        pos += 2;
        SAFETY_CHECK(n - pos >= xlen, OC_ERR_TRUNCATED);
        uint64_t x = pos, xend = pos + xlen;
        while (xend - x >= 4) {
            uint64_t len = (uint64_t)p[x + 2] | ((uint64_t)p[x + 3] << 8);
            SAFETY_CHECK(xend - x - 4 >= len, OC_ERR_CORRUPT);
            if (p[x] == OC_GZIP_SI1 && p[x + 1] == OC_GZIP_SI2) {
                SAFETY_CHECK(len == 8, OC_ERR_CORRUPT);
                *member = oc_load_le32(p + x + 4);
                *usize = oc_load_le32(p + x + 8);
                *has_oc = 1;
            }
            x += 4 + len;
        }
        SAFETY_CHECK(x == xend, OC_ERR_CORRUPT);
        pos = xend;
    }
    for (unsigned f = FNAME; f <= FCOMMENT; f <<= 1) {
        if (!(flg & f))
            continue;
        while (pos < n && p[pos] != 0)
            pos++;
        SAFETY_CHECK(pos < n, OC_ERR_TRUNCATED);
        pos++;
    }
    if (flg & FHCRC) {
        SAFETY_CHECK(n - pos >= 2, OC_ERR_TRUNCATED);
        pos += 2;
    }
    *header = pos;
    return OC_OK;
}

oc_status oc_gzip_parse(const uint8_t *src, uint64_t src_size, oc_container_plan *plan)
{
    plan->algorithm = OC_ALGO_DEFLATE; /* members' payloads decode as raw deflate */
    plan->reported = OC_ALGO_GZIP;
    plan->container_size = src_size;
    plan->name = "gzip";
    plan->kind = OC_BITSTREAM_RAW;
    uint64_t pos = 0;
    int any_indexed = 0;
    do {
        uint64_t header = 0, member = 0, usize = 0;
        int has_oc = 0;
        if (pos > 0 && oc_gzip_trailing_bytes(src + pos, src_size - pos)) {
            /* bytes that begin no member after our members (zero padding,
             * garbage): the gzip data ends here, as gzip -d reads it */
            plan->container_size = pos;
            break;
        }
        FORWARD_IF_ERROR(parse_member_header(src + pos, src_size - pos, &header, &has_oc, &member, &usize));
        if (!has_oc) {
            /* Serial from here: payload and trailers of all further members. */
            plan->tail_algorithm = OC_ALGO_GZIP;
            FORWARD_IF_ERROR(oc_plan_push(plan, pos, src_size - pos, 0, 0, 0));
            plan->tail = 1;
            plan->size_known = 0;
            break;
        }
        SAFETY_CHECK(member >= header + OC_GZIP_TRAILER_SIZE, OC_ERR_CORRUPT);
        SAFETY_CHECK(member <= src_size - pos, OC_ERR_TRUNCATED);
        const uint8_t *trailer = src + pos + member - OC_GZIP_TRAILER_SIZE;
        SAFETY_CHECK(oc_load_le32(trailer + 4) == (uint32_t)usize, OC_ERR_CORRUPT);
        /* Deflate expands at most 1032:1. */
        uint64_t dsize = member - header - OC_GZIP_TRAILER_SIZE;
        SAFETY_CHECK(usize <= dsize * 1032 + 1032, OC_ERR_CORRUPT);
        FORWARD_IF_ERROR(oc_plan_push(plan, pos + header, member - header - OC_GZIP_TRAILER_SIZE, usize,
                                      oc_load_le32(trailer), 0));
        any_indexed = 1;
        pos += member;
    } while (pos < src_size);
    plan->check = OC_CHECK_CRC32;
    if (any_indexed) {
        plan->name = "gzip-indexed";
        plan->kind = OC_BITSTREAM_NATIVE;
        plan->indexed = !plan->tail;
    }
    return OC_OK;
}
