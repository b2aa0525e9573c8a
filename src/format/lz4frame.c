/*
 * lz4frame.c - the LZ4 NATIVE container: an LZ4 frame (lz4 Frame Format
 * Description v1.6.x) with independent blocks, content size in the header,
 * optional XXH32 block checksums, incompressible chunks stored as
 * uncompressed blocks, followed by our chunk index in a skippable frame
 * (magic 0x184D2A5C) whose 9-byte footer ends the file, so a reader finds
 * every block from the end without a scan (docs/FORMAT.md, "LZ4").
 *
 * The reader here only handles that indexed layout; every other LZ4 frame
 * (linked blocks, no index, several frames) is decoded serially by
 * lz4f_serial.c through liblz4's LZ4F decoder.
 */
#include "../common/xxh.h"
#include "container_ops.h"

#define FLG_VERSION 0x40u
#define FLG_INDEPENDENT 0x20u
#define FLG_BLOCK_CHECKSUM 0x10u
#define FLG_CONTENT_SIZE 0x08u
#define FLG_CONTENT_CHECKSUM 0x04u
#define FLG_DICT_ID 0x01u
#define BLOCK_UNCOMPRESSED 0x80000000u
#define INDEX_FOOTER_SIZE 9u

/* Block max size id (4..7) for a chunk size (chunk_size <= 4 MiB). */
static unsigned block_id_for(size_t chunk_size)
{
    if (chunk_size <= ((size_t)64 << 10))
        return 4;
    if (chunk_size <= ((size_t)256 << 10))
        return 5;
    if (chunk_size <= ((size_t)1 << 20))
        return 6;
    return 7;
}

static uint64_t block_max(unsigned id)
{
    return (uint64_t)1 << (8 + 2 * id);
}

static uint64_t lz4frame_bound(uint64_t n_chunks, uint64_t payload_bound)
{
    /* header 15, end mark 4, content checksum 4, per block 4 + 4, index 8 + 8 per chunk + 9 */
    return 15 + 4 + 4 + n_chunks * 16 + payload_bound + 8 + INDEX_FOOTER_SIZE;
}

static uint32_t lz4frame_header(uint64_t content_size, size_t chunk_size, int block_checksums, uint8_t *h)
{
    oc_store_le32(h, OC_LZ4_FRAME_MAGIC);
    /* Block checksums always come with a content checksum: lz4 1.9.4's CLI
     * misreads a skippable frame after a frame that has block checksums but
     * no content checksum (docs/FORMAT.md). */
    /* A stream writer that was pledged no size (OC_SIZE_UNKNOWN) writes
     * the frame without the content size field (7 header bytes). */
    int sized = content_size != OC_SIZE_UNKNOWN;
    h[4] = (uint8_t)(FLG_VERSION | FLG_INDEPENDENT | (sized ? FLG_CONTENT_SIZE : 0) |
                     (block_checksums ? FLG_BLOCK_CHECKSUM | FLG_CONTENT_CHECKSUM : 0));
    h[5] = (uint8_t)(block_id_for(chunk_size) << 4);
    if (sized)
        oc_store_le64(h + 6, content_size);
    uint32_t n = sized ? 14 : 6;
    h[n] = (uint8_t)(oc_xxh32(h + 4, n - 4, 0) >> 8);
    return n + 1;
}

/* Frame header fields that the indexed reader needs. */
typedef struct lz4_header {
    uint8_t flg;
    unsigned block_id;
    uint64_t content_size;
    uint64_t size; /* header bytes */
} lz4_header;

static oc_status parse_header(const uint8_t *src, uint64_t n, lz4_header *h)
{
    SAFETY_CHECK(n >= 7, OC_ERR_TRUNCATED);
    uint8_t flg = src[4], bd = src[5];
    SAFETY_CHECK((flg & 0xC0) == FLG_VERSION && !(flg & 0x02), OC_ERR_CORRUPT);
    SAFETY_CHECK(!(bd & 0x8F) && (bd >> 4) >= 4, OC_ERR_CORRUPT);
    uint64_t size = 6 + ((flg & FLG_CONTENT_SIZE) ? 8 : 0) + ((flg & FLG_DICT_ID) ? 4 : 0);
    SAFETY_CHECK(n >= size + 1, OC_ERR_TRUNCATED);
    SAFETY_CHECK(src[size] == (uint8_t)(oc_xxh32(src + 4, (size_t)size - 4, 0) >> 8), OC_ERR_CORRUPT);
    h->flg = flg;
    h->block_id = bd >> 4;
    h->content_size = (flg & FLG_CONTENT_SIZE) ? oc_load_le64(src + 6) : 0;
    h->size = size + 1;
    return OC_OK;
}

/* Finds our index at the end of src.  Returns OK with *found = 0 when there
 * is none (the footer magic is absent), CORRUPT when one is there but does
 * not hold together. */
static oc_status find_index(const uint8_t *src, uint64_t n, uint64_t *index_off, uint64_t *count, int *found)
{
    *found = 0;
    if (n < 8 + INDEX_FOOTER_SIZE || oc_load_le32(src + n - 4) != OC_INDEX_FOOTER_MAGIC)
        return OC_OK;
    uint64_t chunks = oc_load_le32(src + n - 9);
    SAFETY_CHECK(!(src[n - 5] & 0xFE), OC_ERR_CORRUPT);
    uint64_t frame = chunks * 8 + INDEX_FOOTER_SIZE;
    SAFETY_CHECK(frame + 8 <= n, OC_ERR_CORRUPT);
    uint64_t off = n - frame - 8;
    SAFETY_CHECK(oc_load_le32(src + off) == OC_LZ4_INDEX_SKIP_MAGIC, OC_ERR_CORRUPT);
    SAFETY_CHECK(oc_load_le32(src + off + 4) == frame, OC_ERR_CORRUPT);
    *index_off = off;
    *count = chunks;
    *found = 1;
    return OC_OK;
}

/* Walks every frame's headers (and skippable frames) without decoding:
 * counts blocks and sums content sizes for inspect.  Errors here are only
 * reported by inspect; decoding relies on LZ4F's own checks. */
static oc_status walk_frames(const uint8_t *src, uint64_t n, oc_container_plan *plan)
{
    uint64_t pos = 0, blocks = 0, total = 0;
    int all_sizes = 1;
    plan->size_known = 0;
    while (pos < n) {
        SAFETY_CHECK(n - pos >= 4, OC_ERR_TRUNCATED);
        uint32_t magic = oc_load_le32(src + pos);
        if ((magic & OC_SKIPPABLE_MAGIC_MASK) == OC_SKIPPABLE_MAGIC_MIN) {
            SAFETY_CHECK(n - pos >= 8, OC_ERR_TRUNCATED);
            uint64_t len = oc_load_le32(src + pos + 4);
            SAFETY_CHECK(n - pos - 8 >= len, OC_ERR_TRUNCATED);
            pos += 8 + len;
            continue;
        }
        SAFETY_CHECK(magic == OC_LZ4_FRAME_MAGIC, OC_ERR_CORRUPT);
        lz4_header h;
        FORWARD_IF_ERROR(parse_header(src + pos, n - pos, &h));
        if (h.flg & FLG_CONTENT_SIZE) {
            SAFETY_CHECK(total + h.content_size >= total, OC_ERR_CORRUPT);
            total += h.content_size;
        } else {
            all_sizes = 0;
        }
        if (h.flg & (FLG_BLOCK_CHECKSUM | FLG_CONTENT_CHECKSUM))
            plan->info_checksums = 1;
        uint64_t bmax = block_max(h.block_id), cks = (h.flg & FLG_BLOCK_CHECKSUM) ? 4 : 0;
        uint64_t frame_first = blocks;
        pos += h.size;
        for (;;) {
            SAFETY_CHECK(n - pos >= 4, OC_ERR_TRUNCATED);
            uint32_t bs = oc_load_le32(src + pos);
            pos += 4;
            if (bs == 0)
                break;
            uint64_t size = bs & ~BLOCK_UNCOMPRESSED;
            SAFETY_CHECK(size <= bmax, OC_ERR_CORRUPT);
            SAFETY_CHECK(n - pos >= size + cks, OC_ERR_TRUNCATED);
            pos += size + cks;
            blocks++;
        }
        if (h.flg & FLG_CONTENT_CHECKSUM) {
            SAFETY_CHECK(n - pos >= 4, OC_ERR_TRUNCATED);
            pos += 4;
        }
        /* Each block holds at most the block maximum. */
        SAFETY_CHECK(!(h.flg & FLG_CONTENT_SIZE) || h.content_size <= (blocks - frame_first) * bmax,
                     OC_ERR_CORRUPT);
    }
    plan->info_chunks = blocks;
    plan->size_known = all_sizes;
    plan->total_size = all_sizes ? total : 0;
    return OC_OK;
}

static oc_status lz4frame_parse(const uint8_t *src, uint64_t src_size, oc_container_plan *plan)
{
    plan->kind = OC_BITSTREAM_NATIVE;
    plan->name = "lz4-frame";
    plan->algorithm = plan->reported = OC_ALGO_LZ4;
    plan->container_size = src_size;
    if (src_size >= 4 && (oc_load_le32(src) & OC_SKIPPABLE_MAGIC_MASK) == OC_SKIPPABLE_MAGIC_MIN) {
        /* Skippable frames first (lz4's test-lz4-skippable.sh): no index of
         * ours; LZ4F skips them and decodes what follows serially. */
        plan->lz4f_serial = 1;
        plan->tail = 1;
        plan->walk_status = walk_frames(src, src_size, plan);
        return OC_OK;
    }
    lz4_header h;
    FORWARD_IF_ERROR(parse_header(src, src_size, &h));
    RETURN_ERROR_IF(h.flg & FLG_DICT_ID, OC_ERR_NEEDS_DICTIONARY);
    if (h.flg & (FLG_BLOCK_CHECKSUM | FLG_CONTENT_CHECKSUM))
        plan->check = (h.flg & FLG_BLOCK_CHECKSUM) ? OC_CHECK_XXH32_STORED : OC_CHECK_NONE;

    uint64_t index_off = 0, count = 0;
    int found = 0;
    if (h.flg & FLG_INDEPENDENT)
        FORWARD_IF_ERROR(find_index(src, src_size, &index_off, &count, &found));
    if (!found) {
        /* Linked blocks, another writer, or several frames: the LZ4F decoder
         * decodes serially; the header walk only informs inspect/sizes. */
        plan->lz4f_serial = 1;
        plan->tail = 1;
        plan->walk_status = walk_frames(src, src_size, plan);
        return OC_OK;
    }
    /* The index's descriptor mirrors the frame's block-checksum flag. */
    SAFETY_CHECK((src[src_size - 5] & 1) == ((h.flg & FLG_BLOCK_CHECKSUM) ? 1 : 0), OC_ERR_CORRUPT);
    plan->indexed = 1;
    uint64_t bmax = block_max(h.block_id);
    uint64_t cks = (h.flg & FLG_BLOCK_CHECKSUM) ? 4 : 0;
    uint64_t pos = h.size;
    const uint8_t *entry = src + index_off + 8;
    for (uint64_t i = 0; i < count; i++, entry += 8) {
        uint32_t craw = oc_load_le32(entry), usize = oc_load_le32(entry + 4);
        uint64_t csize = craw & ~BLOCK_UNCOMPRESSED;
        int stored = (craw & BLOCK_UNCOMPRESSED) != 0;
        /* The block header must say what the index says, and fit before the index. */
        SAFETY_CHECK(csize != 0 && csize <= bmax && usize <= bmax, OC_ERR_CORRUPT);
        SAFETY_CHECK(!stored || csize == usize, OC_ERR_CORRUPT);
        SAFETY_CHECK(pos + 4 + csize + cks <= index_off, OC_ERR_CORRUPT);
        SAFETY_CHECK(oc_load_le32(src + pos) == craw, OC_ERR_CORRUPT);
        uint32_t sum = cks ? oc_load_le32(src + pos + 4 + csize) : 0;
        FORWARD_IF_ERROR(oc_plan_push(plan, pos + 4, csize, usize, sum, stored));
        pos += 4 + csize + cks;
    }
    SAFETY_CHECK(pos + 4 <= index_off && oc_load_le32(src + pos) == 0, OC_ERR_CORRUPT);
    pos += 4;
    if (h.flg & FLG_CONTENT_CHECKSUM) {
        SAFETY_CHECK(pos + 4 <= index_off, OC_ERR_CORRUPT);
        plan->lz4_content_checksum = 1;
        plan->content_checksum = oc_load_le32(src + pos);
        pos += 4;
    }
    SAFETY_CHECK(pos == index_off, OC_ERR_CORRUPT);
    if (h.flg & FLG_CONTENT_SIZE)
        SAFETY_CHECK(plan->total_size == h.content_size, OC_ERR_CORRUPT);
    return OC_OK;
}

/* ---- the sparse plan (sparse_plan.h): each block's header word from its
 * index entry, as a probe. */

#define LZ4_HEAD_MAGIC_OK(s) ((s)->n >= 4 && oc_load_le32((s)->b) == OC_LZ4_FRAME_MAGIC)

static oc_status lz4frame_sparse(oc_sparse *s, oc_range_reader rd, void *opaque, int *indexed)
{
    uint64_t n = s->n;
    if (!LZ4_HEAD_MAGIC_OK(s) || n < 7 + 8 + OC_LAYOUT_INDEX_FOOTER ||
        oc_load_le32(s->b + n - 4) != OC_INDEX_FOOTER_MAGIC)
        return OC_OK;
    uint8_t flg = s->b[4];
    if (!(flg & FLG_INDEPENDENT) || (flg & FLG_DICT_ID))
        return OC_OK; /* the parser goes serial or reports the dictionary */
    uint64_t count = oc_load_le32(s->b + n - 9);
    uint64_t frame = count * 8 + OC_LAYOUT_INDEX_FOOTER;
    if (frame + 8 > n)
        return OC_OK; /* inconsistent: the parser reports it from the tail */
    /* the index, and the end mark and content checksum before it */
    FORWARD_IF_ERROR(oc_sparse_read_tail(s, rd, opaque, frame + 8 + 8));
    uint64_t index = n - frame - 8;
    uint64_t cks = (flg & FLG_BLOCK_CHECKSUM) ? 4 : 0;
    uint64_t pos = 7 + ((flg & FLG_CONTENT_SIZE) ? 8 : 0);
    const uint8_t *e = s->b + index + 8;
    for (uint64_t i = 0; i < count && pos < index; i++, e += 8) {
        uint32_t craw = oc_load_le32(e);
        oc_sparse_probe(s, pos, craw);
        pos += 4 + (uint64_t)(craw & ~OC_LAYOUT_LZ4_STORED) + cks;
    }
    *indexed = 1;
    return OC_OK;
}

/* An LZ4 frame, perhaps behind skippable frames. */
static int lz4frame_sniff(const uint8_t *src, uint64_t src_size)
{
    uint64_t pos = oc_skip_skippable_frames(src, src_size);
    return src_size - pos >= 4 && oc_load_le32(src + pos) == OC_LZ4_FRAME_MAGIC;
}

const oc_container_ops oc_container_lz4frame = {
    .name = "lz4-frame",
    .layout = OC_LAYOUT_LZ4F,
    .clamp_chunk = OC_LZ4_MAX_BLOCK,
    .empty_chunk = 0,
    .check = OC_CHECK_XXH32_STORED,
    .check_always = 0,
    .content_checksum = 1,
    .bound = lz4frame_bound,
    .header = lz4frame_header,
    .sniff = lz4frame_sniff,
    .parse = lz4frame_parse,
    .sparse = lz4frame_sparse,
    .family = &oc_container_lz4frame,
};
