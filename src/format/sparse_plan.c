/*
 * sparse_plan.c - see sparse_plan.h.  The offsets used here to synthesise
 * chunk headers are the parsers' own arithmetic (lz4frame.c,
 * snappy_framing.c, zstd_seekable.c); the parser then re-checks all of it,
 * so a synthesis that went wrong on hostile input ends in the parser's
 * status or in a failed probe, never in a wrong plan.
 */
#include "sparse_plan.h"

#include <stdlib.h>

#define HEAD_BYTES 64u
#define TAIL_GUESS 4096u
#define LZ4_FLG_INDEPENDENT 0x20u
#define LZ4_FLG_BLOCK_CHECKSUM 0x10u
#define LZ4_FLG_CONTENT_SIZE 0x08u
#define LZ4_FLG_DICT_ID 0x01u

static const uint8_t snappy_stream_id[10] = {0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'};

void oc_sparse_free(oc_sparse *sh)
{
    free(sh->b);
    free(sh->probes);
    memset(sh, 0, sizeof *sh);
}

static void probe_add(oc_sparse *s, uint64_t pos, uint32_t word)
{
    if (pos > s->n || s->n - pos < 4)
        return; /* beyond src: the parser rejects such a position itself */
    if (s->np == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        oc_probe *p = (oc_probe *)realloc(s->probes, cap * sizeof *p);
        if (p == NULL) {
            s->ok = 0;
            return;
        }
        s->probes = p;
        s->cap = cap;
    }
    s->probes[s->np].pos = pos;
    s->probes[s->np].word = word;
    s->probes[s->np].pad = 0;
    s->np++;
    oc_store_le32(s->b + pos, word);
}

/* Makes sure the last `len` bytes of src are in the shadow. */
static oc_status read_tail(oc_sparse *s, oc_range_reader rd, void *opaque, uint64_t len)
{
    if (len > s->n)
        len = s->n;
    if (len <= s->have)
        return OC_OK;
    oc_range r = {s->n - len, len - s->have, s->b + s->n - len};
    FORWARD_IF_ERROR(rd(opaque, &r, 1));
    s->have = len;
    return OC_OK;
}

/* LZ4 frame with our index: each block's header word from its entry. */
static oc_status synth_lz4(oc_sparse *s, oc_range_reader rd, void *opaque, int *indexed)
{
    uint64_t n = s->n;
    if (n < 7 + 8 + OC_LAYOUT_INDEX_FOOTER || oc_load_le32(s->b + n - 4) != OC_INDEX_FOOTER_MAGIC)
        return OC_OK;
    uint8_t flg = s->b[4];
    if (!(flg & LZ4_FLG_INDEPENDENT) || (flg & LZ4_FLG_DICT_ID))
        return OC_OK; /* the parser goes serial or reports the dictionary */
    uint64_t count = oc_load_le32(s->b + n - 9);
    uint64_t frame = count * 8 + OC_LAYOUT_INDEX_FOOTER;
    if (frame + 8 > n)
        return OC_OK; /* inconsistent: the parser reports it from the tail */
    /* the index, and the end mark and content checksum before it */
    FORWARD_IF_ERROR(read_tail(s, rd, opaque, frame + 8 + 8));
    uint64_t index = n - frame - 8;
    uint64_t cks = (flg & LZ4_FLG_BLOCK_CHECKSUM) ? 4 : 0;
    uint64_t pos = 7 + ((flg & LZ4_FLG_CONTENT_SIZE) ? 8 : 0);
    const uint8_t *e = s->b + index + 8;
    for (uint64_t i = 0; i < count && pos < index; i++, e += 8) {
        uint32_t craw = oc_load_le32(e);
        probe_add(s, pos, craw);
        pos += 4 + (uint64_t)(craw & ~OC_LAYOUT_LZ4_STORED) + cks;
    }
    *indexed = 1;
    return OC_OK;
}

/* Snappy framing with our index: chunk headers, and compressed chunks'
 * preambles as the canonical varint of the entry's size. */
static oc_status synth_snappy(oc_sparse *s, oc_range_reader rd, void *opaque, int *indexed)
{
    uint64_t n = s->n;
    if (n < sizeof snappy_stream_id + 4 + OC_LAYOUT_INDEX_FOOTER ||
        oc_load_le32(s->b + n - 4) != OC_INDEX_FOOTER_MAGIC)
        return OC_OK;
    uint64_t count = oc_load_le32(s->b + n - 9);
    uint64_t len = count * 8 + OC_LAYOUT_INDEX_FOOTER;
    if (count > OC_LAYOUT_SNAPPY_MAX_ENTRIES || len + 4 + sizeof snappy_stream_id > n)
        return OC_OK;
    FORWARD_IF_ERROR(read_tail(s, rd, opaque, len + 4));
    uint64_t index = n - len - 4;
    uint64_t pos = sizeof snappy_stream_id;
    const uint8_t *e = s->b + index + 4;
    for (uint64_t i = 0; i < count && pos < index; i++, e += 8) {
        uint32_t header = oc_load_le32(e), usize = oc_load_le32(e + 4);
        uint64_t clen = header >> 8;
        probe_add(s, pos, header);
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

/* Zstd seek table: each entry becomes magic, FHD 0 (a window byte, no
 * content size) and raw blocks filling exactly its size. */
static oc_status synth_zstd(oc_sparse *s, oc_range_reader rd, void *opaque, int *indexed)
{
    uint64_t n = s->n;
    if (n < 8 + OC_LAYOUT_INDEX_FOOTER || oc_load_le32(s->b + n - 4) != OC_ZSTD_SEEKABLE_FOOTER_MAGIC)
        return OC_OK;
    uint64_t count = oc_load_le32(s->b + n - 9);
    uint64_t esize = (s->b[n - 5] & 0x80) ? 12 : 8;
    uint64_t frame = count * esize + OC_LAYOUT_INDEX_FOOTER;
    if (frame + 8 > n)
        return OC_OK;
    FORWARD_IF_ERROR(read_tail(s, rd, opaque, frame + 8));
    uint64_t table = n - frame - 8;
    uint64_t pos = 0;
    const uint8_t *e = s->b + table + 8;
    for (uint64_t i = 0; i < count && pos < table; i++, e += esize) {
        uint64_t csize = oc_load_le32(e);
        probe_add(s, pos, OC_ZSTD_FRAME_MAGIC);
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

oc_status oc_sparse_plan(const oc_buffer_options *hint, uint64_t src_size, oc_range_reader rd, void *opaque,
                         oc_sparse *sh, oc_container_plan *plan, int *usable)
{
    memset(sh, 0, sizeof *sh);
    oc_plan_init(plan);
    *usable = 0;
    oc_algorithm ha = hint ? hint->algorithm : OC_ALGO_NONE;
    oc_bitstream_kind hk = hint ? hint->kind : OC_BITSTREAM_NATIVE;
    if (src_size == 0 || src_size > SIZE_MAX / 2)
        return OC_OK;
    int with_size = hk == OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE;
    int raw_lz = hk == OC_BITSTREAM_RAW && (ha == OC_ALGO_LZ4 || ha == OC_ALGO_SNAPPY);
    if (hk == OC_BITSTREAM_RAW && ha != OC_ALGO_NONE && !raw_lz)
        return OC_OK; /* RAW zstd walks every frame; deflate family: whole stream anyway */
    sh->b = (uint8_t *)calloc(1, (size_t)src_size);
    sh->n = src_size;
    sh->ok = 1;
    if (sh->b == NULL)
        return OC_OK;
    uint64_t head = src_size < HEAD_BYTES ? src_size : HEAD_BYTES;
    sh->have = src_size < TAIL_GUESS ? src_size : TAIL_GUESS;
    oc_range r[2] = {{0, head, sh->b}, {src_size - sh->have, sh->have, sh->b + src_size - sh->have}};
    FORWARD_IF_ERROR(rd(opaque, r, 2));
    if (with_size || raw_lz) {
        /* These parses read at most 12 bytes (size, magic, varint). */
        *usable = 1;
        return oc_container_parse(sh->b, src_size, hint, plan);
    }
    uint32_t m = src_size >= 4 ? oc_load_le32(sh->b) : 0;
    int indexed = 0, any = ha == OC_ALGO_NONE;
    if (m == OC_LZ4_FRAME_MAGIC && (any || ha == OC_ALGO_LZ4))
        FORWARD_IF_ERROR(synth_lz4(sh, rd, opaque, &indexed));
    else if ((m == OC_ZSTD_FRAME_MAGIC || (m & OC_SKIPPABLE_MAGIC_MASK) == OC_SKIPPABLE_MAGIC_MIN) &&
             (any || ha == OC_ALGO_ZSTD))
        FORWARD_IF_ERROR(synth_zstd(sh, rd, opaque, &indexed));
    else if (src_size >= sizeof snappy_stream_id &&
             !memcmp(sh->b, snappy_stream_id, sizeof snappy_stream_id) && (any || ha == OC_ALGO_SNAPPY))
        FORWARD_IF_ERROR(synth_snappy(sh, rd, opaque, &indexed));
    if (!indexed || !sh->ok)
        return OC_OK;
    oc_status st = oc_container_parse(sh->b, src_size, hint, plan);
    if (st == OC_OK && (!plan->indexed || plan->lz4f_serial || plan->tail)) {
        oc_plan_free(plan);
        oc_plan_init(plan);
        return OC_OK; /* not the indexed layout after all */
    }
    *usable = 1;
    return st;
}

int oc_sparse_probes_hold(const oc_sparse *sh, const oc_container_plan *plan, const uint8_t *src,
                          uint64_t src_size)
{
    for (size_t i = 0; i < sh->np; i++) {
        uint64_t q = sh->probes[i].pos;
        if (q > src_size || src_size - q < 4 || oc_load_le32(src + q) != sh->probes[i].word)
            return 0;
    }
    for (size_t i = 0; i < plan->n; i++) {
        const oc_chunk_ref *c = &plan->chunks[i];
        if (sh->snappy_check && !c->stored) {
            uint64_t v = 0;
            int ok = 0;
            for (unsigned k = 0; k < 5 && k < c->src_size; k++) {
                v |= (uint64_t)(src[c->src_off + k] & 0x7f) << (7 * k);
                if (!(src[c->src_off + k] & 0x80)) {
                    ok = v == c->dst_size && v <= OC_SNAPPY_MAX_CHUNK;
                    break;
                }
            }
            if (!ok)
                return 0;
        }
        if (sh->zstd_check) {
            oc_zstd_frame f;
            if (oc_zstd_walk_frame(src + c->src_off, c->src_size, &f) != OC_OK || f.skippable ||
                f.size != c->src_size || (f.has_size && f.content_size != c->dst_size))
                return 0;
        }
    }
    return 1;
}
