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

static uint64_t gzip_members_bound(uint64_t n_chunks, uint64_t payload_bound)
{
    return payload_bound + n_chunks * (OC_GZIP_HEADER_SIZE + OC_GZIP_TRAILER_SIZE);
}

/* 1 if the n bytes at p, found after a complete gzip member, are trailing
 * bytes that gzip -d ignores (zero padding, or garbage), 0 if they begin a
 * member or look like a member whose magic number was damaged (one of
 * 1f 8b intact and the method byte 8): those are decoded, or CORRUPT, never
 * silently dropped with the members after them. */
static int trailing_bytes(const uint8_t *p, uint64_t n)
{
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        return 0;
    if (n >= 3 && (p[0] == 0x1f || p[1] == 0x8b) && p[2] == 8)
        return 0;
    return 1;
}

/* Parses one member header at p[0..n).  *header gets its length; *has_oc is
 * set with the subfield's values when our subfield is present. */
oc_status oc_gzip_member_header(const uint8_t *p, uint64_t n, uint64_t *header, int *has_oc, uint64_t *member,
                                uint64_t *usize)
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

static oc_status gzip_parse(const uint8_t *src, uint64_t src_size, oc_container_plan *plan)
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
        if (pos > 0 && trailing_bytes(src + pos, src_size - pos)) {
            /* bytes that begin no member after our members (zero padding,
             * garbage): the gzip data ends here, as gzip -d reads it */
            plan->container_size = pos;
            break;
        }
        FORWARD_IF_ERROR(oc_gzip_member_header(src + pos, src_size - pos, &header, &has_oc, &member, &usize));
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

/* A gzip member: ID1 ID2 and CM = deflate. */
static int gzip_sniff(const uint8_t *src, uint64_t src_size)
{
    return src_size >= 3 && src[0] == 0x1f && src[1] == 0x8b && src[2] == 8;
}

const oc_container_ops oc_container_gzip = {
    .name = "gzip-indexed",
    .layout = OC_LAYOUT_GZIP,
    .clamp_chunk = 0,
    .empty_chunk = 1,
    .check = OC_CHECK_CRC32,
    .check_always = 1, /* the gzip trailer's CRC-32 */
    .content_checksum = 0,
    .bound = gzip_members_bound,
    .header = NULL,
    .sniff = gzip_sniff,
    .parse = gzip_parse,
    .sparse = NULL,
    .family = &oc_container_gzip,
};
