/*
 * container.c - plan bookkeeping and container detection.
 *
 * Detection order (docs/FORMAT.md, "Detection"): an explicit RAW or
 * WITH_UNCOMPRESSED_SIZE hint is obeyed; otherwise the leading magic picks
 * the reader (LZ4 frame, zstd frame or skippable frame, gzip, snappy stream
 * identifier, zlib header check); otherwise the buffer is RAW of the hint's
 * algorithm.
 */
#include "container.h"

#include <stdlib.h>

#include "../common/algo_table.h"

void oc_plan_init(oc_container_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->size_known = 1;
}

void oc_plan_free(oc_container_plan *plan)
{
    free(plan->chunks);
    plan->chunks = NULL;
    plan->n = plan->cap = 0;
}

oc_status oc_plan_push(oc_container_plan *plan, uint64_t src_off, uint64_t src_size, uint64_t dst_size,
                       uint32_t checksum, int stored)
{
    if (plan->n == plan->cap) {
        size_t cap = plan->cap ? plan->cap * 2 : 64;
        oc_chunk_ref *c = (oc_chunk_ref *)realloc(plan->chunks, cap * sizeof *c);
        RETURN_ERROR_IF(!c, OC_ERR_OUT_OF_MEMORY);
        plan->chunks = c;
        plan->cap = cap;
    }
    oc_chunk_ref *r = &plan->chunks[plan->n++];
    r->src_off = src_off;
    r->src_size = src_size;
    r->dst_off = plan->total_size;
    r->dst_size = dst_size;
    r->checksum = checksum;
    r->stored = (uint8_t)stored;
    /* Sizes come from the input: refuse totals that wrap. */
    RETURN_ERROR_IF(plan->total_size + dst_size < plan->total_size, OC_ERR_CORRUPT);
    plan->total_size += dst_size;
    if (dst_size > plan->max_chunk)
        plan->max_chunk = dst_size;
    return OC_OK;
}

static const uint8_t snappy_stream_id[10] = {0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'};

/* The snappy raw format starts with the decoded length as a varint. */
static oc_status snappy_preamble(const uint8_t *p, uint64_t n, uint64_t *len)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < 5; i++) {
        SAFETY_CHECK(i < n, OC_ERR_TRUNCATED);
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            SAFETY_CHECK(v <= 0xffffffffu, OC_ERR_CORRUPT);
            *len = v;
            return OC_OK;
        }
    }
    return OC_ERR_CORRUPT;
}

uint64_t oc_skip_skippable_frames(const uint8_t *src, uint64_t src_size)
{
    uint64_t pos = 0;
    while (src_size - pos >= 8 &&
           (oc_load_le32(src + pos) & OC_SKIPPABLE_MAGIC_MASK) == OC_SKIPPABLE_MAGIC_MIN) {
        uint64_t len = oc_load_le32(src + pos + 4);
        if (len > src_size - pos - 8)
            break;
        pos += 8 + len;
    }
    return pos;
}

oc_status oc_raw_parse(const uint8_t *src, uint64_t src_size, uint64_t offset, oc_algorithm algorithm,
                       oc_container_plan *plan)
{
    plan->kind = OC_BITSTREAM_RAW;
    plan->name = "raw";
    plan->algorithm = plan->reported = algorithm;
    plan->container_size = src_size;
    if (algorithm == OC_ALGO_ZSTD && offset == 0)
        return oc_zstd_parse(src, src_size, plan);
    if (algorithm == OC_ALGO_SNAPPY) {
        uint64_t len;
        FORWARD_IF_ERROR(snappy_preamble(src + offset, src_size - offset, &len));
        /* Snappy expands at most 64 bytes per 3-byte copy element. */
        SAFETY_CHECK(len <= (src_size - offset) * 22, OC_ERR_CORRUPT);
        return oc_plan_push(plan, offset, src_size - offset, len, 0, 0);
    }
    /* Size not recorded: one chunk decoding into the rest of dst. */
    FORWARD_IF_ERROR(oc_plan_push(plan, offset, src_size - offset, 0, 0, 0));
    plan->tail = 1;
    plan->tail_algorithm = algorithm;
    plan->size_known = 0;
    return OC_OK;
}

static int valid_algorithm(oc_algorithm a)
{
    return a > OC_ALGO_NONE && a < OC_ALGO_COUNT;
}

oc_status oc_container_parse(const uint8_t *src, uint64_t src_size, const oc_buffer_options *hint,
                             oc_container_plan *plan)
{
    oc_plan_init(plan);
    oc_algorithm ha = hint ? hint->algorithm : OC_ALGO_NONE;
    oc_bitstream_kind hk = hint ? hint->kind : OC_BITSTREAM_NATIVE;
    RETURN_ERROR_IF(ha != OC_ALGO_NONE && !valid_algorithm(ha), OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(hk != OC_BITSTREAM_NATIVE && hk != OC_BITSTREAM_RAW &&
                        hk != OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE,
                    OC_ERR_INVALID_ARGUMENT);

    if (hk == OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE) {
        SAFETY_CHECK(src_size >= 8, OC_ERR_TRUNCATED);
        uint64_t size = oc_load_le64(src);
        oc_algorithm a = ha != OC_ALGO_NONE ? ha : oc_algo_detect(src + 8, (size_t)(src_size - 8));
        RETURN_ERROR_IF(a == OC_ALGO_NONE, OC_ERR_INVALID_ARGUMENT);
        plan->kind = OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE;
        plan->name = "with-uncompressed-size";
        plan->algorithm = plan->reported = a;
        plan->container_size = src_size;
        /* A claim no stream of that size can decode to is corrupt: checked
         * before anyone reserves memory for it (issue 11 item 13: a 1.6 KB
         * file claiming 2^34 bytes made the CLI reserve 16 GiB). */
        SAFETY_CHECK(size <= oc_algo_max_decoded(a, src_size - 8), OC_ERR_CORRUPT);
        FORWARD_IF_ERROR(oc_plan_push(plan, 8, src_size - 8, size, 0, 0));
        return OC_OK;
    }
    if (hk == OC_BITSTREAM_RAW && ha != OC_ALGO_NONE)
        return oc_raw_parse(src, src_size, 0, ha, plan);

    /* A hint's algorithm restricts detection to its own family of
     * containers: a raw LZ4 block or snappy buffer may start with bytes that
     * look like another format's magic. */
    int any = ha == OC_ALGO_NONE;
    int deflate_family = ha == OC_ALGO_GZIP || ha == OC_ALGO_DEFLATE || ha == OC_ALGO_ZLIB;
    if (src_size >= 4) {
        uint32_t m = oc_load_le32(src);
        /* Skippable frames open LZ4 and zstd streams alike (issue 11 item 7:
         * `lz4` files that start with one were CORRUPT): the first frame
         * after them names the format. */
        uint32_t after = m;
        if ((m & OC_SKIPPABLE_MAGIC_MASK) == OC_SKIPPABLE_MAGIC_MIN) {
            uint64_t pos = oc_skip_skippable_frames(src, src_size);
            after = src_size - pos >= 4 ? oc_load_le32(src + pos) : 0;
        }
        if (after == OC_LZ4_FRAME_MAGIC && (any || ha == OC_ALGO_LZ4))
            return oc_lz4frame_parse(src, src_size, plan);
        if (after == OC_LZ4_LEGACY_MAGIC && (any || ha == OC_ALGO_LZ4))
            return oc_lz4legacy_parse(src, src_size, plan);
        if ((m == OC_ZSTD_FRAME_MAGIC || (m & OC_SKIPPABLE_MAGIC_MASK) == OC_SKIPPABLE_MAGIC_MIN) &&
            (any || ha == OC_ALGO_ZSTD))
            return oc_zstd_parse(src, src_size, plan);
    }
    if (src_size >= 3 && src[0] == 0x1f && src[1] == 0x8b && src[2] == 8 && (any || deflate_family))
        return oc_gzip_parse(src, src_size, plan);
    if (src_size >= 1 && !memcmp(src, snappy_stream_id, src_size < 10 ? (size_t)src_size : 10) &&
        (any || ha == OC_ALGO_SNAPPY))
        return oc_snappyframe_parse(src, src_size, plan);
    if (src_size == 0 && ha == OC_ALGO_SNAPPY && hk == OC_BITSTREAM_NATIVE) {
        /* Framing readers (cramjam, python-snappy) read and write an empty
         * stream as no bytes at all, without the stream identifier. */
        plan->kind = OC_BITSTREAM_NATIVE;
        plan->name = "snappy-framed";
        plan->algorithm = plan->reported = OC_ALGO_SNAPPY;
        return OC_OK;
    }
    if ((any || ha == OC_ALGO_ZLIB) && oc_algo_detect(src, (size_t)src_size) == OC_ALGO_ZLIB) {
        FORWARD_IF_ERROR(oc_raw_parse(src, src_size, 0, OC_ALGO_ZLIB, plan));
        plan->name = "zlib";
        return OC_OK;
    }
    if (ha != OC_ALGO_NONE)
        return oc_raw_parse(src, src_size, 0, ha, plan);
    /* A proper prefix of a magic number is a truncated stream. */
    static const uint8_t magics[5][4] = {{0x04, 0x22, 0x4d, 0x18},
                                         {0x28, 0xb5, 0x2f, 0xfd},
                                         {0x1f, 0x8b, 0x08, 0x00},
                                         {0x50, 0x2a, 0x4d, 0x18},
                                         {0x02, 0x21, 0x4c, 0x18}};
    if (src_size > 0 && src_size < 4) {
        for (int i = 0; i < 5; i++) {
            uint8_t first = (uint8_t)(src[0] & (i == 3 ? 0xf0 : 0xff));
            if (first == magics[i][0] && !memcmp(src + 1, magics[i] + 1, (size_t)src_size - 1) &&
                (i != 2 || src_size < 3))
                return OC_ERR_TRUNCATED;
        }
    }
    /* Nothing identifies the bytes and no algorithm was given. */
    return src_size == 0 ? OC_ERR_TRUNCATED : OC_ERR_CORRUPT;
}

oc_status oc_write_trailer(oc_writer *w, oc_algorithm a, int checksums, const oc_index_entry *entries,
                           uint64_t n, uint32_t content_checksum)
{
    uint8_t b[16];
    uint32_t esize = oc_layout_entry_size(a, checksums);
    RETURN_ERROR_IF(esize && n * esize + OC_LAYOUT_INDEX_FOOTER > 0xffffffffu, OC_ERR_INVALID_ARGUMENT);
    FORWARD_IF_ERROR(oc_writer_put(w, b, oc_layout_trailer_head(a, checksums, n, content_checksum, b)));
    if (oc_layout_trailer_size(a, checksums, n) == 0)
        return OC_OK;
    for (uint64_t i = 0; i < n; i++)
        FORWARD_IF_ERROR(oc_writer_put(
            w, b, oc_layout_entry(a, checksums, entries[i].csize, entries[i].usize, entries[i].checksum, b)));
    return oc_writer_put(w, b, oc_layout_trailer_foot(a, checksums, n, b));
}
