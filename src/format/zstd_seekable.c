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
#include "container.h"
#include "zstd_walk.h"

#define SEEK_FOOTER_SIZE 9u
#define SEEK_CHECKSUM_FLAG 0x80u

uint64_t oc_zstd_seekable_bound(uint64_t n_chunks, uint64_t payload_bound)
{
    return payload_bound + 8 + n_chunks * 12 + SEEK_FOOTER_SIZE;
}

oc_status oc_zstd_seekable_write_frame(oc_writer *w, const uint8_t *csrc, size_t csize, size_t usize,
                                       uint32_t checksum, oc_index_entry *entry)
{
    RETURN_ERROR_IF(csize > 0xffffffffu || usize > 0xffffffffu, OC_ERR_CHUNK_TOO_LARGE);
    oc_chunk_layout l;
    oc_layout_chunk(OC_ALGO_ZSTD, 1, (uint32_t)usize, (uint32_t)csize, checksum, &l);
    FORWARD_IF_ERROR(oc_writer_chunk(w, &l, NULL, csrc));
    entry->csize = l.entry_csize;
    entry->usize = l.entry_usize;
    entry->checksum = l.entry_checksum;
    return OC_OK;
}

oc_status oc_zstd_seekable_write_end(oc_writer *w, const oc_index_entry *entries, uint64_t n, int checksums)
{
    return oc_write_trailer(w, OC_ALGO_ZSTD, checksums, entries, n, 0);
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
        FORWARD_IF_ERROR(oc_plan_push(plan, pos, csize, usize, sum, 0));
        pos += csize;
    }
    SAFETY_CHECK(pos == table, OC_ERR_CORRUPT);
    return OC_OK;
}

oc_status oc_zstd_parse(const uint8_t *src, uint64_t src_size, oc_container_plan *plan)
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
