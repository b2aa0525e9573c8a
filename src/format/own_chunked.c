/*
 * own_chunked.c - the NATIVE container of opencomp's own formats
 * (Cascaded, and the typed formats to come): a 16-byte header, chunks each
 * behind a 4-byte size (high bit: stored uncompressed) and followed by an
 * optional XXH32 of its decoded bytes, then an index of every chunk's
 * sizes and the "OCIX" footer the LZ4 and snappy indexes use
 * (docs/FORMAT.md, "Our own formats: the chunked container").
 *
 * The reader needs the index (the footer ends every such file): a buffer
 * that does not end with it was cut, TRUNCATED.  Every chunk header must
 * equal its index entry and the chunks must tile the bytes between header
 * and index exactly; otherwise CORRUPT.
 */
#include "container.h"

#define OWN_CONTAINER_HEADER 16u
#define OWN_CONTAINER_VERSION 1u
#define OWN_CONTAINER_MAGIC 0x434E434Fu /* "OCNC" in file order */
#define OWN_STORED 0x80000000u

int oc_own_container_algorithm(oc_algorithm a)
{
    return a == OC_ALGO_CASCADED;
}

uint64_t oc_own_container_bound(uint64_t n_chunks, uint64_t payload_bound)
{
    return OWN_CONTAINER_HEADER + payload_bound + n_chunks * (4 + 4 + 8) + OC_LAYOUT_INDEX_FOOTER;
}

oc_status oc_own_container_write_header(oc_writer *w, oc_algorithm a, int checksums, uint64_t total)
{
    uint8_t h[OWN_CONTAINER_HEADER];
    oc_store_le32(h, OWN_CONTAINER_MAGIC);
    h[4] = OWN_CONTAINER_VERSION;
    h[5] = (uint8_t)a;
    h[6] = (uint8_t)(checksums ? 1 : 0);
    h[7] = 0;
    oc_store_le64(h + 8, total);
    return oc_writer_put(w, h, sizeof h);
}

oc_status oc_own_container_write_chunk(oc_writer *w, const uint8_t *usrc, size_t usize, const uint8_t *csrc,
                                       size_t csize, int checksums, uint32_t sum, oc_index_entry *entry)
{
    RETURN_ERROR_IF(usize > OC_NATIVE_MAX_CHUNK, OC_ERR_CHUNK_TOO_LARGE);
    int stored = csize >= usize;
    uint32_t payload = (uint32_t)(stored ? usize : csize);
    uint32_t field = payload | (stored ? OWN_STORED : 0u);
    FORWARD_IF_ERROR(oc_writer_le32(w, field));
    FORWARD_IF_ERROR(oc_writer_put(w, stored ? usrc : csrc, payload));
    if (checksums)
        FORWARD_IF_ERROR(oc_writer_le32(w, sum));
    entry->csize = field;
    entry->usize = (uint32_t)usize;
    entry->checksum = 0;
    return OC_OK;
}

oc_status oc_own_container_write_end(oc_writer *w, const oc_index_entry *entries, uint64_t n, int checksums)
{
    RETURN_ERROR_IF(n > 0xffffffffu, OC_ERR_INVALID_ARGUMENT);
    for (uint64_t i = 0; i < n; i++) {
        FORWARD_IF_ERROR(oc_writer_le32(w, entries[i].csize));
        FORWARD_IF_ERROR(oc_writer_le32(w, entries[i].usize));
    }
    uint8_t f[OC_LAYOUT_INDEX_FOOTER];
    oc_store_le32(f, (uint32_t)n);
    f[4] = (uint8_t)(checksums ? 1 : 0);
    oc_store_le32(f + 5, OC_INDEX_FOOTER_MAGIC);
    return oc_writer_put(w, f, sizeof f);
}

int oc_own_container_magic(const uint8_t *p, uint64_t n)
{
    static const uint8_t m[4] = {'O', 'C', 'N', 'C'};
    return n >= 1 && memcmp(p, m, n < 4 ? (size_t)n : 4) == 0;
}

oc_status oc_own_container_parse(const uint8_t *src, uint64_t src_size, oc_container_plan *plan)
{
    plan->kind = OC_BITSTREAM_NATIVE;
    plan->name = "opencomp-chunked";
    plan->container_size = src_size;
    SAFETY_CHECK(src_size >= OWN_CONTAINER_HEADER, OC_ERR_TRUNCATED);
    SAFETY_CHECK(oc_load_le32(src) == OWN_CONTAINER_MAGIC && src[4] == OWN_CONTAINER_VERSION, OC_ERR_CORRUPT);
    oc_algorithm a = (oc_algorithm)src[5];
    unsigned flags = src[6];
    SAFETY_CHECK(oc_own_container_algorithm(a) && flags <= 1 && src[7] == 0, OC_ERR_CORRUPT);
    plan->algorithm = plan->reported = a;
    int checksums = flags & 1;
    plan->check = checksums ? OC_CHECK_XXH32_CONTENT : OC_CHECK_NONE;
    uint64_t total = oc_load_le64(src + 8);
    /* the footer ends every such buffer: without it, the buffer was cut */
    SAFETY_CHECK(src_size >= OWN_CONTAINER_HEADER + OC_LAYOUT_INDEX_FOOTER &&
                     oc_load_le32(src + src_size - 4) == OC_INDEX_FOOTER_MAGIC,
                 OC_ERR_TRUNCATED);
    uint64_t n = oc_load_le32(src + src_size - OC_LAYOUT_INDEX_FOOTER);
    SAFETY_CHECK(src[src_size - 5] == (uint8_t)checksums, OC_ERR_CORRUPT);
    SAFETY_CHECK(n <= (src_size - OWN_CONTAINER_HEADER - OC_LAYOUT_INDEX_FOOTER) / 8, OC_ERR_CORRUPT);
    uint64_t index = src_size - OC_LAYOUT_INDEX_FOOTER - 8 * n;
    plan->indexed = 1;
    uint64_t pos = OWN_CONTAINER_HEADER, suffix = checksums ? 4 : 0;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *e = src + index + 8 * i;
        uint32_t field = oc_load_le32(e), usize = oc_load_le32(e + 4);
        uint64_t payload = field & ~OWN_STORED;
        int stored = (field & OWN_STORED) != 0;
        SAFETY_CHECK(index - pos >= 4 && oc_load_le32(src + pos) == field, OC_ERR_CORRUPT);
        SAFETY_CHECK(payload + suffix <= index - pos - 4, OC_ERR_CORRUPT);
        SAFETY_CHECK(usize <= OC_NATIVE_MAX_CHUNK && (!stored || payload == usize), OC_ERR_CORRUPT);
        /* a size no chunk of that many bytes can decode to is hostile */
        SAFETY_CHECK(stored || usize <= oc_max_expansion(a, payload), OC_ERR_CORRUPT);
        uint32_t sum = checksums ? oc_load_le32(src + pos + 4 + payload) : 0;
        FORWARD_IF_ERROR(oc_plan_push(plan, pos + 4, payload, usize, sum, stored));
        pos += 4 + payload + suffix;
    }
    SAFETY_CHECK(pos == index && plan->total_size == total, OC_ERR_CORRUPT);
    return OC_OK;
}
