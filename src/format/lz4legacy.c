/*
 * lz4legacy.c - the LZ4 legacy frame format, what `lz4 -l` writes (and the
 * Linux kernel's lz4 images): the magic 0x184C2102, then blocks, each a
 * 4-byte little-endian compressed size and an independent LZ4 block that
 * decodes to at most 8 MiB (every block but the last to exactly 8 MiB when
 * the lz4 command wrote it).  No checksums, no content size.  Several
 * legacy frames may follow each other, and skippable frames may come
 * before or between them, as the lz4 command reads them.
 *
 * The reader only lists the blocks (issue 11 item 7: these files were
 * refused with a message that did not name the format); src/api/buffer.c
 * decodes them with one batched call (decode_legacy).
 */
#include "container_ops.h"

/* The largest compressed block the lz4 command accepts in a legacy frame
 * (LZ4_COMPRESSBOUND of 8 MiB); a larger size field is a frame magic. */
#define LEGACY_MAX_CBLOCK ((uint64_t)OC_LZ4_LEGACY_BLOCK + OC_LZ4_LEGACY_BLOCK / 255 + 16)

static oc_status lz4legacy_parse(const uint8_t *src, uint64_t src_size, oc_container_plan *plan)
{
    plan->kind = OC_BITSTREAM_NATIVE;
    plan->name = "lz4-legacy";
    plan->algorithm = plan->reported = OC_ALGO_LZ4;
    plan->container_size = src_size;
    plan->lz4_legacy = 1;
    plan->size_known = 0;
    uint64_t pos = oc_skip_skippable_frames(src, src_size);
    SAFETY_CHECK(src_size - pos >= 4, OC_ERR_TRUNCATED);
    SAFETY_CHECK(oc_load_le32(src + pos) == OC_LZ4_LEGACY_MAGIC, OC_ERR_CORRUPT);
    pos += 4;
    while (pos < src_size) {
        SAFETY_CHECK(src_size - pos >= 4, OC_ERR_TRUNCATED);
        uint32_t v = oc_load_le32(src + pos);
        if (v == OC_LZ4_LEGACY_MAGIC) { /* the next legacy frame */
            pos += 4;
            continue;
        }
        if ((v & OC_SKIPPABLE_MAGIC_MASK) == OC_SKIPPABLE_MAGIC_MIN) {
            SAFETY_CHECK(src_size - pos >= 8, OC_ERR_TRUNCATED);
            uint64_t len = oc_load_le32(src + pos + 4);
            SAFETY_CHECK(len <= src_size - pos - 8, OC_ERR_TRUNCATED);
            pos += 8 + len;
            continue;
        }
        /* 0, or a frame of another kind after legacy ones: not decoded here */
        SAFETY_CHECK(v != 0 && v <= LEGACY_MAX_CBLOCK, OC_ERR_CORRUPT);
        SAFETY_CHECK(v <= src_size - pos - 4, OC_ERR_TRUNCATED);
        FORWARD_IF_ERROR(oc_plan_push(plan, pos + 4, v, 0, 0, 0));
        pos += 4 + (uint64_t)v;
    }
    plan->max_chunk = 0;
    return OC_OK;
}

/* A legacy frame, perhaps behind skippable frames. */
static int lz4legacy_sniff(const uint8_t *src, uint64_t src_size)
{
    uint64_t pos = oc_skip_skippable_frames(src, src_size);
    return src_size - pos >= 4 && oc_load_le32(src + pos) == OC_LZ4_LEGACY_MAGIC;
}

extern const oc_container_ops oc_container_lz4frame;

/* Reader only: LZ4 NATIVE output is the LZ4 frame (lz4frame.c). */
const oc_container_ops oc_container_lz4legacy = {
    .name = "lz4-legacy",
    .sniff = lz4legacy_sniff,
    .parse = lz4legacy_parse,
    .sparse = NULL,
    .family = &oc_container_lz4frame,
};
