/*
 * container.c - plan bookkeeping, container detection, and the writer's
 * generic steps (container.h).
 *
 * Detection order (docs/FORMAT.md, "Detection"): an explicit RAW or
 * WITH_UNCOMPRESSED_SIZE hint is obeyed; otherwise the readers below are
 * asked in order (LZ4 frame, LZ4 legacy, zstd frame or skippable frame,
 * gzip, snappy stream identifier), each only when the hint's algorithm
 * allows its container; then a self-identifying RAW stream (the algorithm
 * table's magic: zlib); otherwise the buffer is RAW of the hint's algorithm.
 * A new container adds its ops to the reader list and its magic to the
 * truncated-prefix list (our own formats' container: one ops per algorithm).
 */
#include "container.h"

#include <stdlib.h>

#include "../common/algo_table.h"
#include "../common/typed_options.h"
#include "../common/wus.h"

#define OC_CONTAINER(x) extern const oc_container_ops oc_container_##x;
OC_CONTAINER(lz4frame)
OC_CONTAINER(lz4legacy)
OC_CONTAINER(zstd)
OC_CONTAINER(gzip)
OC_CONTAINER(snappy)
OC_CONTAINER(own_cascaded)
OC_CONTAINER(own_ans)
OC_CONTAINER(own_bitcomp)
OC_CONTAINER(own_gdeflate)
#undef OC_CONTAINER

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
        return oc_container_zstd.parse(src, src_size, plan);
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

/* The readers, in detection order (their magics exclude each other except
 * where skippable frames lead: LZ4 frames are recognised behind them first). */
const oc_container_ops *const oc_container_readers[] = {
    &oc_container_lz4frame,     &oc_container_lz4legacy,
    &oc_container_zstd,         &oc_container_gzip,
    &oc_container_snappy,       &oc_container_own_cascaded,
    &oc_container_own_ans,      &oc_container_own_bitcomp,
    &oc_container_own_gdeflate, NULL};

/* The container a hint's algorithm restricts detection to (NULL: any). */
static const oc_container_ops *family_of(oc_algorithm hint)
{
    const oc_algo_desc *d = oc_algo(hint);
    return d ? d->container : NULL;
}

const oc_container_ops *oc_container_detect(const uint8_t *src, uint64_t src_size, oc_algorithm hint)
{
    const oc_container_ops *fam = family_of(hint);
    for (const oc_container_ops *const *r = oc_container_readers; *r; r++)
        if ((!fam || (*r)->family == fam) && (*r)->sniff(src, src_size))
            return *r;
    return NULL;
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
        /* The header's claim is checked against what the stream can decode
         * to before anyone reserves memory for it (common/wus.c). */
        uint64_t size = 0;
        oc_algorithm a = OC_ALGO_NONE;
        FORWARD_IF_ERROR(oc_wus_parse(src, src_size, ha, &size, &a));
        plan->kind = OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE;
        plan->name = "with-uncompressed-size";
        plan->algorithm = plan->reported = a;
        plan->container_size = src_size;
        FORWARD_IF_ERROR(oc_plan_push(plan, OC_WUS_HEADER, src_size - OC_WUS_HEADER, size, 0, 0));
        return OC_OK;
    }
    if (hk == OC_BITSTREAM_RAW && ha != OC_ALGO_NONE)
        return oc_raw_parse(src, src_size, 0, ha, plan);

    /* A hint's algorithm restricts detection to its own container: a raw
     * LZ4 block or snappy buffer may start with bytes that look like
     * another format's magic. */
    const oc_container_ops *c = oc_container_detect(src, src_size, ha);
    if (c)
        return c->parse(src, src_size, plan);
    if (src_size == 0 && ha == OC_ALGO_SNAPPY && hk == OC_BITSTREAM_NATIVE) {
        /* Framing readers (cramjam, python-snappy) read and write an empty
         * stream as no bytes at all, without the stream identifier. */
        plan->kind = OC_BITSTREAM_NATIVE;
        plan->name = oc_container_snappy.name;
        plan->algorithm = plan->reported = OC_ALGO_SNAPPY;
        return OC_OK;
    }
    /* A RAW stream that names itself (zlib; zstd and gzip streams are their
     * containers' already). */
    oc_algorithm d = oc_algo_detect(src, (size_t)src_size);
    if (d != OC_ALGO_NONE && (ha == OC_ALGO_NONE || ha == d)) {
        FORWARD_IF_ERROR(oc_raw_parse(src, src_size, 0, d, plan));
        plan->name = oc_algo(d)->name;
        return OC_OK;
    }
    if (ha != OC_ALGO_NONE)
        return oc_raw_parse(src, src_size, 0, ha, plan);
    /* A proper prefix of a magic number is a truncated stream. */
    static const uint8_t magics[6][4] = {{0x04, 0x22, 0x4d, 0x18}, {0x28, 0xb5, 0x2f, 0xfd},
                                         {0x1f, 0x8b, 0x08, 0x00}, {0x50, 0x2a, 0x4d, 0x18},
                                         {0x02, 0x21, 0x4c, 0x18}, {'O', 'C', 'N', 'C'}};
    if (src_size > 0 && src_size < 4) {
        for (int i = 0; i < 6; i++) {
            uint8_t first = (uint8_t)(src[0] & (i == 3 ? 0xf0 : 0xff));
            if (first == magics[i][0] && !memcmp(src + 1, magics[i] + 1, (size_t)src_size - 1) &&
                (i != 2 || src_size < 3))
                return OC_ERR_TRUNCATED;
        }
    }
    /* Nothing identifies the bytes and no algorithm was given. */
    return src_size == 0 ? OC_ERR_TRUNCATED : OC_ERR_CORRUPT;
}

/* ---- writers ------------------------------------------------------------- */

oc_status oc_native_resolve(const oc_buffer_options *o, uint64_t src_size, oc_native *nt)
{
    const oc_algo_desc *d = oc_algo(o->algorithm);
    RETURN_ERROR_IF(d == NULL || d->container == NULL, OC_ERR_INVALID_ARGUMENT);
    const oc_container_ops *ops = d->container;
    size_t cs = o->chunk_size ? o->chunk_size : OC_DEFAULT_CHUNK_SIZE;
    if (ops->clamp_chunk && cs > ops->clamp_chunk)
        cs = ops->clamp_chunk;
    RETURN_ERROR_IF(cs > OC_NATIVE_MAX_CHUNK, OC_ERR_INVALID_ARGUMENT);
    /* typed formats: chunks hold whole elements (nvCOMP asks the same of ANS's <f2) */
    uint32_t width = oc_data_type_width(o->typed.data_type);
    RETURN_ERROR_IF(ops->whole_elements && (width == 0 || cs % width != 0), OC_ERR_INVALID_ARGUMENT);
    uint64_t n = src_size / cs + (src_size % cs != 0);
    /* zstd and gzip write one empty frame/member for empty input, so stock
     * tools see a valid file; LZ4 frames and snappy streams may be empty. */
    if (n == 0 && ops->empty_chunk)
        n = 1;
    RETURN_ERROR_IF(n > 0xffffffffu, OC_ERR_INVALID_ARGUMENT);
    nt->ops = ops;
    nt->chunk_algorithm = d->native_chunks;
    nt->chunk_size = cs;
    nt->n = n;
    nt->checksums = o->checksum != OC_CHECKSUM_NONE;
    nt->sums = ops->check != OC_CHECK_NONE && (ops->check_always || nt->checksums);
    return OC_OK;
}

oc_status oc_container_write_header(oc_writer *w, const oc_native *nt, uint64_t content_size)
{
    uint8_t h[16];
    if (!nt->ops->header)
        return OC_OK;
    return oc_writer_put(w, h, nt->ops->header(content_size, nt->chunk_size, nt->checksums, h));
}

oc_status oc_container_write_chunk(oc_writer *w, const oc_native *nt, const uint8_t *usrc, size_t usize,
                                   const uint8_t *csrc, size_t csize, uint32_t sum, oc_index_entry *entry)
{
    const oc_container_ops *ops = nt->ops;
    RETURN_ERROR_IF(ops->clamp_chunk && usize > ops->clamp_chunk, OC_ERR_CHUNK_TOO_LARGE);
    RETURN_ERROR_IF(usize > 0xffffffffu || csize > 0xffffffffu - 64, OC_ERR_CHUNK_TOO_LARGE);
    oc_chunk_layout l;
    oc_layout_chunk(ops->layout, nt->checksums, (uint32_t)usize, (uint32_t)csize, sum, &l);
    RETURN_ERROR_IF((uint64_t)l.prefix_len + l.payload + l.suffix_len > 0xffffffffu, OC_ERR_CHUNK_TOO_LARGE);
    FORWARD_IF_ERROR(oc_writer_chunk(w, &l, usrc, csrc));
    entry->csize = l.entry_csize;
    entry->usize = l.entry_usize;
    entry->checksum = l.entry_checksum;
    return OC_OK;
}

oc_status oc_container_write_trailer(oc_writer *w, const oc_native *nt, const oc_index_entry *entries,
                                     uint64_t n, uint32_t content_checksum)
{
    uint32_t a = nt->ops->layout;
    int checksums = nt->checksums;
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
