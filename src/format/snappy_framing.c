/*
 * snappy_framing.c - the snappy NATIVE container: the snappy framing format
 * (framing_format.txt of the snappy project): stream identifier, compressed
 * chunks (0x00) and uncompressed chunks (0x01) of at most 65536 decoded
 * bytes, each with the masked CRC-32C of its decoded bytes; then our index
 * in a skippable chunk (type 0x8C) whose 9-byte footer ends the stream.
 *
 * The reader accepts any framed stream: with our index it checks each chunk
 * header against its entry; without it, it walks the chunk headers (cheap:
 * a compressed chunk's decoded size is the varint at the start of its
 * snappy data), skipping padding and skippable chunks.
 */
#include "container_ops.h"

#define CHUNK_COMPRESSED 0x00u
#define CHUNK_UNCOMPRESSED 0x01u
#define CHUNK_PADDING 0xFEu
#define CHUNK_STREAM_ID 0xFFu
#define INDEX_FOOTER_SIZE 9u
#define MAX_INDEX_ENTRIES ((0xFFFFFFu - INDEX_FOOTER_SIZE) / 8u)

static const uint8_t stream_id[10] = {0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'};

static uint64_t snappyframe_bound(uint64_t n_chunks, uint64_t payload_bound)
{
    return sizeof stream_id + payload_bound + n_chunks * (8 + 8) + 4 + INDEX_FOOTER_SIZE;
}

static uint32_t snappyframe_header(uint64_t content_size, size_t chunk_size, int checksums, uint8_t *out)
{
    (void)content_size, (void)chunk_size, (void)checksums;
    memcpy(out, stream_id, sizeof stream_id);
    return sizeof stream_id;
}

static oc_status varint32(const uint8_t *p, uint64_t n, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < 5 && i < n; i++) {
        r |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *v = r;
            return OC_OK;
        }
    }
    return OC_ERR_CORRUPT;
}

/* Adds the data chunk whose 4-byte header is at src[pos]; len is its length field. */
static oc_status add_chunk(const uint8_t *src, uint64_t pos, uint64_t len, unsigned type,
                           oc_container_plan *plan, uint64_t *usize_out)
{
    SAFETY_CHECK(len >= 4, OC_ERR_CORRUPT);
    uint32_t crc = oc_load_le32(src + pos + 4);
    uint64_t data = pos + 8, dlen = len - 4, usize;
    if (type == CHUNK_COMPRESSED) {
        FORWARD_IF_ERROR(varint32(src + data, dlen, &usize));
    } else {
        usize = dlen;
    }
    SAFETY_CHECK(usize <= OC_SNAPPY_MAX_CHUNK, OC_ERR_CORRUPT);
    *usize_out = usize;
    return oc_plan_push(plan, data, dlen, usize, crc, type == CHUNK_UNCOMPRESSED);
}

static oc_status parse_indexed(const uint8_t *src, uint64_t n, oc_container_plan *plan, int *found)
{
    *found = 0;
    if (n < sizeof stream_id + 4 + INDEX_FOOTER_SIZE || oc_load_le32(src + n - 4) != OC_INDEX_FOOTER_MAGIC)
        return OC_OK;
    uint64_t count = oc_load_le32(src + n - 9);
    SAFETY_CHECK(src[n - 5] == 0 && count <= MAX_INDEX_ENTRIES, OC_ERR_CORRUPT);
    uint64_t len = count * 8 + INDEX_FOOTER_SIZE;
    SAFETY_CHECK(len + 4 + sizeof stream_id <= n, OC_ERR_CORRUPT);
    uint64_t index = n - len - 4;
    SAFETY_CHECK(oc_load_le32(src + index) == (OC_SNAPPY_INDEX_CHUNK | (uint32_t)(len << 8)), OC_ERR_CORRUPT);
    *found = 1;
    plan->indexed = 1;
    uint64_t pos = sizeof stream_id;
    const uint8_t *e = src + index + 4;
    for (uint64_t i = 0; i < count; i++, e += 8) {
        uint32_t header = oc_load_le32(e), usize = oc_load_le32(e + 4);
        unsigned type = header & 0xff;
        uint64_t clen = header >> 8, got;
        SAFETY_CHECK(type == CHUNK_COMPRESSED || type == CHUNK_UNCOMPRESSED, OC_ERR_CORRUPT);
        SAFETY_CHECK(clen <= index - pos && index - pos - clen >= 4, OC_ERR_CORRUPT);
        SAFETY_CHECK(oc_load_le32(src + pos) == header, OC_ERR_CORRUPT);
        FORWARD_IF_ERROR(add_chunk(src, pos, clen, type, plan, &got));
        SAFETY_CHECK(got == usize, OC_ERR_CORRUPT);
        pos += 4 + clen;
    }
    SAFETY_CHECK(pos == index, OC_ERR_CORRUPT);
    return OC_OK;
}

static oc_status snappyframe_parse(const uint8_t *src, uint64_t src_size, oc_container_plan *plan)
{
    plan->kind = OC_BITSTREAM_NATIVE;
    plan->name = "snappy-framed";
    plan->algorithm = plan->reported = OC_ALGO_SNAPPY;
    plan->container_size = src_size;
    plan->check = OC_CHECK_CRC32C_MASKED;
    SAFETY_CHECK(src_size >= sizeof stream_id,
                 memcmp(src, stream_id, (size_t)src_size) ? OC_ERR_CORRUPT : OC_ERR_TRUNCATED);
    SAFETY_CHECK(!memcmp(src, stream_id, sizeof stream_id), OC_ERR_CORRUPT);
    int found;
    FORWARD_IF_ERROR(parse_indexed(src, src_size, plan, &found));
    if (found)
        return OC_OK;
    uint64_t pos = 0;
    while (pos < src_size) {
        SAFETY_CHECK(src_size - pos >= 4, OC_ERR_TRUNCATED);
        uint32_t header = oc_load_le32(src + pos);
        unsigned type = header & 0xff;
        uint64_t len = header >> 8, usize;
        SAFETY_CHECK(len <= src_size - pos - 4, OC_ERR_TRUNCATED);
        if (type == CHUNK_STREAM_ID) {
            SAFETY_CHECK(len == 6 && !memcmp(src + pos, stream_id, sizeof stream_id), OC_ERR_CORRUPT);
        } else if (type == CHUNK_COMPRESSED || type == CHUNK_UNCOMPRESSED) {
            FORWARD_IF_ERROR(add_chunk(src, pos, len, type, plan, &usize));
        } else {
            /* 0x02..0x7f reserved unskippable; 0x80..0xfe skippable/padding. */
            SAFETY_CHECK(type >= 0x80, OC_ERR_CORRUPT);
        }
        pos += 4 + len;
    }
    return OC_OK;
}

/* ---- the sparse plan (sparse_plan.h): chunk headers from our index, and
 * compressed chunks' preambles as the canonical varint of the entry's size
 * (checked where the bytes are). */

static oc_status snappyframe_sparse(oc_sparse *s, oc_range_reader rd, void *opaque, int *indexed)
{
    uint64_t n = s->n;
    if (n < sizeof stream_id || memcmp(s->b, stream_id, sizeof stream_id) != 0 ||
        n < sizeof stream_id + 4 + OC_LAYOUT_INDEX_FOOTER ||
        oc_load_le32(s->b + n - 4) != OC_INDEX_FOOTER_MAGIC)
        return OC_OK;
    uint64_t count = oc_load_le32(s->b + n - 9);
    uint64_t len = count * 8 + OC_LAYOUT_INDEX_FOOTER;
    if (count > OC_LAYOUT_SNAPPY_MAX_ENTRIES || len + 4 + sizeof stream_id > n)
        return OC_OK;
    FORWARD_IF_ERROR(oc_sparse_read_tail(s, rd, opaque, len + 4));
    uint64_t index = n - len - 4;
    uint64_t pos = sizeof stream_id;
    const uint8_t *e = s->b + index + 4;
    for (uint64_t i = 0; i < count && pos < index; i++, e += 8) {
        uint32_t header = oc_load_le32(e), usize = oc_load_le32(e + 4);
        uint64_t clen = header >> 8;
        oc_sparse_probe(s, pos, header);
        if ((header & 0xff) == 0 && clen > 4 && pos + 8 < index) {
            uint64_t x = usize;
            for (uint64_t j = 0; j < 5 && j < clen - 4 && pos + 8 + j < index; j++) {
                s->b[pos + 8 + j] = (uint8_t)((x & 0x7f) | (x > 0x7f ? 0x80 : 0));
                x >>= 7;
            }
        }
        pos += 4 + clen;
    }
    s->snappy_check = 1;
    *indexed = 1;
    return OC_OK;
}

/* The stream identifier chunk, or a proper prefix of it (a cut stream). */
static int snappyframe_sniff(const uint8_t *src, uint64_t src_size)
{
    return src_size >= 1 &&
           !memcmp(src, stream_id, src_size < sizeof stream_id ? (size_t)src_size : sizeof stream_id);
}

const oc_container_ops oc_container_snappy = {
    .name = "snappy-framed",
    .layout = OC_LAYOUT_SNAPPY,
    .clamp_chunk = OC_SNAPPY_MAX_CHUNK,
    .empty_chunk = 0,
    .check = OC_CHECK_CRC32C_MASKED,
    .check_always = 1, /* every framing chunk carries its masked CRC-32C */
    .content_checksum = 0,
    .bound = snappyframe_bound,
    .header = snappyframe_header,
    .sniff = snappyframe_sniff,
    .parse = snappyframe_parse,
    .sparse = snappyframe_sparse,
    .family = &oc_container_snappy,
};
