/*
 * zstd_seekable.c - the zstd NATIVE container (the Zstandard seekable
 * format: independent frames, then a seek table in a skippable frame with
 * magic 0x184D2A5E and footer magic 0x8F92EAB1), and the reader for any
 * sequence of zstd frames and skippable frames.
 *
 * Without a seek table the reader walks frame and block headers (RFC 8878
 * sections 3.1.1 and 3.1.1.2) to find each frame's end without decoding
 * it; frames that state their content size become chunks with exact
 * slices of dst, and from the first frame that does not, the rest of the
 * buffer is one tail chunk that decodes serially into the rest of dst.
 */
#include "container_ops.h"
#include "zstd_walk.h"

#include "../common/algo_table.h"

#define SEEK_FOOTER_SIZE 9u
#define SEEK_CHECKSUM_FLAG 0x80u

static uint64_t zstd_seekable_bound(uint64_t n_chunks, uint64_t payload_bound)
{
    return payload_bound + 8 + n_chunks * 12 + SEEK_FOOTER_SIZE;
}

typedef oc_zstd_frame zstd_frame;

static oc_status walk_frame(const uint8_t *p, uint64_t n, zstd_frame *f)
{
    return (oc_status)oc_zstd_walk_frame(p, n, f);
}

/* The seek table, if the buffer ends with one.  *found = 0 if the footer
 * magic is absent; CORRUPT if present but inconsistent. */
static oc_status parse_seek_table(const uint8_t *src, uint64_t n, oc_container_plan *plan, int *found)
{
    *found = 0;
    if (n < 8 + SEEK_FOOTER_SIZE || oc_load_le32(src + n - 4) != OC_ZSTD_SEEKABLE_FOOTER_MAGIC)
        return OC_OK;
    uint64_t count = oc_load_le32(src + n - 9);
    uint8_t desc = src[n - 5];
    SAFETY_CHECK(!(desc & 0x7C), OC_ERR_CORRUPT); /* reserved bits */
    uint64_t esize = (desc & SEEK_CHECKSUM_FLAG) ? 12 : 8;
    uint64_t frame = count * esize + SEEK_FOOTER_SIZE;
    SAFETY_CHECK(frame + 8 <= n, OC_ERR_CORRUPT);
    uint64_t table = n - frame - 8;
    SAFETY_CHECK(oc_load_le32(src + table) == OC_ZSTD_SEEKABLE_SKIP_MAGIC, OC_ERR_CORRUPT);
    SAFETY_CHECK(oc_load_le32(src + table + 4) == frame, OC_ERR_CORRUPT);
    *found = 1;
    plan->indexed = 1;
    plan->name = "zstd-seekable";
    plan->kind = OC_BITSTREAM_NATIVE;
    plan->check = (desc & SEEK_CHECKSUM_FLAG) ? OC_CHECK_XXH64_LOW : OC_CHECK_NONE;
    const uint8_t *e = src + table + 8;
    uint64_t pos = 0;
    for (uint64_t i = 0; i < count; i++, e += esize) {
        uint64_t csize = oc_load_le32(e), usize = oc_load_le32(e + 4);
        uint32_t sum = esize == 12 ? oc_load_le32(e + 8) : 0;
        /* Entries must tile the bytes before the table exactly. */
        SAFETY_CHECK(csize >= 4 && csize <= table - pos, OC_ERR_CORRUPT);
        SAFETY_CHECK(oc_load_le32(src + pos) == OC_ZSTD_FRAME_MAGIC, OC_ERR_CORRUPT);
        zstd_frame f;
        oc_status st = walk_frame(src + pos, csize, &f);
        SAFETY_CHECK(st == OC_OK && f.size == csize, OC_ERR_CORRUPT);
        SAFETY_CHECK(!f.has_size || f.content_size == usize, OC_ERR_CORRUPT);
        /* a size no frame of csize bytes decodes to is a lie (issue 11 item 13) */
        SAFETY_CHECK(usize <= oc_algo_max_decoded(OC_ALGO_ZSTD, csize), OC_ERR_CORRUPT);
        FORWARD_IF_ERROR(oc_plan_push(plan, pos, csize, usize, sum, 0));
        pos += csize;
    }
    SAFETY_CHECK(pos == table, OC_ERR_CORRUPT);
    return OC_OK;
}

static oc_status zstd_parse(const uint8_t *src, uint64_t src_size, oc_container_plan *plan)
{
    plan->algorithm = plan->reported = OC_ALGO_ZSTD;
    plan->container_size = src_size;
    plan->name = "zstd-frames";
    plan->kind = OC_BITSTREAM_RAW;
    int found;
    FORWARD_IF_ERROR(parse_seek_table(src, src_size, plan, &found));
    if (found)
        return OC_OK;
    uint64_t pos = 0;
    SAFETY_CHECK(src_size >= 4, OC_ERR_TRUNCATED);
    while (pos < src_size) {
        zstd_frame f;
        FORWARD_IF_ERROR(walk_frame(src + pos, src_size - pos, &f));
        if (f.skippable) {
            pos += f.size;
            continue;
        }
        if (!f.has_size) {
            /* The largest window of the frames from here on, for inspect
             * (oc_frame_info.window_size: what the size count must set
             * aside, see oc_codec_options.memory_limit). */
            for (uint64_t q = pos; q < src_size;) {
                zstd_frame g;
                if (walk_frame(src + q, src_size - q, &g) != OC_OK)
                    break;
                if (!g.skippable && !g.has_size && g.window > plan->window_size)
                    plan->window_size = g.window;
                q += g.size;
            }
            /* Serial from here: the codec decodes the rest as one stream. */
            FORWARD_IF_ERROR(oc_plan_push(plan, pos, src_size - pos, 0, 0, 0));
            plan->tail = 1;
            plan->tail_algorithm = OC_ALGO_ZSTD;
            plan->size_known = 0;
            return OC_OK;
        }
        FORWARD_IF_ERROR(oc_plan_push(plan, pos, f.size, f.content_size, 0, 0));
        pos += f.size;
    }
    return OC_OK;
}

/* ---- the sparse plan (sparse_plan.h): each seek-table entry becomes magic,
 * FHD 0 (a window byte, no content size) and raw blocks filling exactly
 * its size; the magic is a probe, and the caller walks each real frame. */

static oc_status zstd_sparse(oc_sparse *s, oc_range_reader rd, void *opaque, int *indexed)
{
    uint64_t n = s->n;
    uint32_t m = n >= 4 ? oc_load_le32(s->b) : 0;
    if ((m != OC_ZSTD_FRAME_MAGIC && (m & OC_SKIPPABLE_MAGIC_MASK) != OC_SKIPPABLE_MAGIC_MIN) ||
        n < 8 + OC_LAYOUT_INDEX_FOOTER || oc_load_le32(s->b + n - 4) != OC_ZSTD_SEEKABLE_FOOTER_MAGIC)
        return OC_OK;
    uint64_t count = oc_load_le32(s->b + n - 9);
    uint64_t esize = (s->b[n - 5] & 0x80) ? 12 : 8;
    uint64_t frame = count * esize + OC_LAYOUT_INDEX_FOOTER;
    if (frame + 8 > n)
        return OC_OK;
    FORWARD_IF_ERROR(oc_sparse_read_tail(s, rd, opaque, frame + 8));
    uint64_t table = n - frame - 8;
    uint64_t pos = 0;
    const uint8_t *e = s->b + table + 8;
    for (uint64_t i = 0; i < count && pos < table; i++, e += esize) {
        uint64_t csize = oc_load_le32(e);
        oc_sparse_probe(s, pos, OC_ZSTD_FRAME_MAGIC);
        if (csize >= 9 && csize <= table - pos) {
            uint8_t *f = s->b + pos;
            f[4] = 0; /* FHD: no single segment, no content size, no checksum */
            f[5] = 0; /* window descriptor */
            uint64_t q = 6, rest = csize - 6;
            while (rest >= 3) {
                uint64_t b = rest - 3 > 0x1FFFFF ? 0x1FFFFF : rest - 3;
                if (rest - 3 - b > 0 && rest - 3 - b < 3)
                    b -= 3; /* leave room for one more block header */
                uint32_t bh = (uint32_t)(b << 3) | (rest - 3 - b == 0 ? 1u : 0u); /* raw block */
                f[q] = (uint8_t)bh;
                f[q + 1] = (uint8_t)(bh >> 8);
                f[q + 2] = (uint8_t)(bh >> 16);
                q += 3 + b;
                rest -= 3 + b;
            }
        }
        pos += csize;
    }
    s->zstd_check = 1;
    *indexed = 1;
    return OC_OK;
}

/* A zstd frame or a skippable frame. */
static int zstd_sniff(const uint8_t *src, uint64_t src_size)
{
    uint32_t m = src_size >= 4 ? oc_load_le32(src) : 0;
    return m == OC_ZSTD_FRAME_MAGIC ||
           (src_size >= 4 && (m & OC_SKIPPABLE_MAGIC_MASK) == OC_SKIPPABLE_MAGIC_MIN);
}

const oc_container_ops oc_container_zstd = {
    .name = "zstd-seekable",
    .layout = OC_LAYOUT_ZSTD,
    .clamp_chunk = 0,
    .empty_chunk = 1,
    .check = OC_CHECK_XXH64_LOW,
    .check_always = 0,
    .content_checksum = 0,
    .bound = zstd_seekable_bound,
    .header = NULL,
    .sniff = zstd_sniff,
    .parse = zstd_parse,
    .sparse = zstd_sparse,
    .family = &oc_container_zstd,
};
