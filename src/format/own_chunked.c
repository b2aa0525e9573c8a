/*
 * own_chunked.c - the NATIVE container of opencomp's own formats
 * (Cascaded, ANS, Bitcomp) and of GDeflate pages: a 16-byte header naming the
 * algorithm, chunks each behind a 4-byte size (high bit: stored
 * uncompressed) and followed by an optional XXH32 of its decoded bytes,
 * then an index of every chunk's sizes and the "OCIX" footer the LZ4 and
 * snappy indexes use (docs/FORMAT.md, "The NATIVE container of our own
 * formats").  The chunk and index bytes are layout.h's OC_LAYOUT_OWN, so
 * the GPU assembles it as the host does; one ops per algorithm (the
 * header names it).
 *
 * The reader needs the index (the footer ends every such file): a buffer
 * that does not end with it was cut, TRUNCATED.  Every chunk header must
 * equal its index entry and the chunks must tile the bytes between header
 * and index exactly; otherwise CORRUPT.
 */
#include "../common/algo_table.h"
#include "container_ops.h"

#define OWN_HEADER 16u
#define OWN_VERSION 1u
#define OWN_MAGIC 0x434E434Fu /* "OCNC" in file order */
#define OWN_STORED 0x80000000u

static uint64_t own_bound(uint64_t n_chunks, uint64_t payload_bound)
{
    return OWN_HEADER + payload_bound + n_chunks * (4 + 4 + 8) + OC_LAYOUT_INDEX_FOOTER;
}

/* The header names the algorithm by its chunk streams' identifier byte
 * (src/cores/own_format.h, OWN_ID_*), not by the library's enum. */
static const struct {
    oc_algorithm algorithm;
    uint8_t id;
} own_ids[] = {
    {OC_ALGO_CASCADED, 0x43 /* 'C' */},
    {OC_ALGO_ANS, 0x41 /* 'A' */},
    {OC_ALGO_BITCOMP, 0x42 /* 'B' */},
    {OC_ALGO_GDEFLATE, 0x47 /* 'G': GDeflate pages (a standard format with no container of its own) */}};

static uint8_t own_id(oc_algorithm a)
{
    for (size_t i = 0; i < sizeof own_ids / sizeof own_ids[0]; i++)
        if (own_ids[i].algorithm == a)
            return own_ids[i].id;
    return 0;
}

static oc_algorithm own_algorithm(uint8_t id)
{
    for (size_t i = 0; i < sizeof own_ids / sizeof own_ids[0]; i++)
        if (own_ids[i].id == id)
            return own_ids[i].algorithm;
    return OC_ALGO_NONE;
}

static uint32_t own_header(oc_algorithm a, uint64_t content_size, int checksums, uint8_t *out)
{
    oc_store_le32(out, OWN_MAGIC);
    out[4] = OWN_VERSION;
    out[5] = own_id(a);
    out[6] = (uint8_t)(checksums ? 1 : 0);
    out[7] = 0;
    oc_store_le64(out + 8, content_size);
    return OWN_HEADER;
}

static oc_status own_parse(const uint8_t *src, uint64_t src_size, oc_container_plan *plan)
{
    plan->kind = OC_BITSTREAM_NATIVE;
    plan->name = "opencomp-chunked";
    plan->container_size = src_size;
    SAFETY_CHECK(src_size >= OWN_HEADER, OC_ERR_TRUNCATED);
    SAFETY_CHECK(oc_load_le32(src) == OWN_MAGIC && src[4] == OWN_VERSION, OC_ERR_CORRUPT);
    oc_algorithm a = own_algorithm(src[5]);
    unsigned flags = src[6];
    SAFETY_CHECK(a != OC_ALGO_NONE && flags <= 1 && src[7] == 0, OC_ERR_CORRUPT);
    plan->algorithm = plan->reported = a;
    int checksums = flags & 1;
    plan->check = checksums ? OC_CHECK_XXH32_CONTENT : OC_CHECK_NONE;
    uint64_t total = oc_load_le64(src + 8);
    /* the footer ends every such buffer: without it, the buffer was cut */
    SAFETY_CHECK(src_size >= OWN_HEADER + OC_LAYOUT_INDEX_FOOTER &&
                     oc_load_le32(src + src_size - 4) == OC_INDEX_FOOTER_MAGIC,
                 OC_ERR_TRUNCATED);
    uint64_t n = oc_load_le32(src + src_size - OC_LAYOUT_INDEX_FOOTER);
    SAFETY_CHECK(src[src_size - 5] == (uint8_t)checksums, OC_ERR_CORRUPT);
    SAFETY_CHECK(n <= (src_size - OWN_HEADER - OC_LAYOUT_INDEX_FOOTER) / 8, OC_ERR_CORRUPT);
    uint64_t index = src_size - OC_LAYOUT_INDEX_FOOTER - 8 * n;
    plan->indexed = 1;
    uint64_t pos = OWN_HEADER, suffix = checksums ? 4 : 0;
    for (uint64_t i = 0; i < n; i++) {
        const uint8_t *e = src + index + 8 * i;
        uint32_t field = oc_load_le32(e), usize = oc_load_le32(e + 4);
        uint64_t payload = field & ~OWN_STORED;
        int stored = (field & OWN_STORED) != 0;
        SAFETY_CHECK(index - pos >= 4 && oc_load_le32(src + pos) == field, OC_ERR_CORRUPT);
        SAFETY_CHECK(payload + suffix <= index - pos - 4, OC_ERR_CORRUPT);
        SAFETY_CHECK(usize <= OC_NATIVE_MAX_CHUNK && (!stored || payload == usize), OC_ERR_CORRUPT);
        /* a size no chunk of that many bytes can decode to is hostile */
        SAFETY_CHECK(stored || usize <= oc_algo_max_decoded(a, payload), OC_ERR_CORRUPT);
        /* the XXH32 after the payload is read there by the checks (plan.h) */
        FORWARD_IF_ERROR(oc_plan_push(plan, pos + 4, payload, usize, 0, stored));
        pos += 4 + payload + suffix;
    }
    SAFETY_CHECK(pos == index && plan->total_size == total, OC_ERR_CORRUPT);
    return OC_OK;
}

/* ---- the sparse plan (sparse_plan.h): each chunk's size word from its
 * index entry, as a probe (the header is in the head, the index in the
 * tail). */
static oc_status own_sparse(oc_sparse *s, oc_range_reader rd, void *opaque, int *indexed)
{
    uint64_t n = s->n;
    if (n < OWN_HEADER + OC_LAYOUT_INDEX_FOOTER || oc_load_le32(s->b) != OWN_MAGIC ||
        oc_load_le32(s->b + n - 4) != OC_INDEX_FOOTER_MAGIC)
        return OC_OK; /* the parser reports it */
    uint64_t count = oc_load_le32(s->b + n - OC_LAYOUT_INDEX_FOOTER);
    if (count > (n - OWN_HEADER - OC_LAYOUT_INDEX_FOOTER) / 8)
        return OC_OK; /* inconsistent: the parser reports it from the tail */
    FORWARD_IF_ERROR(oc_sparse_read_tail(s, rd, opaque, count * 8 + OC_LAYOUT_INDEX_FOOTER));
    uint64_t index = n - OC_LAYOUT_INDEX_FOOTER - 8 * count;
    uint64_t pos = OWN_HEADER, suffix = (s->b[6] & 1) ? 4 : 0;
    for (uint64_t i = 0; i < count && pos < index; i++) {
        uint32_t field = oc_load_le32(s->b + index + 8 * i);
        oc_sparse_probe(s, pos, field);
        pos += 4 + (uint64_t)(field & ~OWN_STORED) + suffix;
    }
    *indexed = 1;
    return OC_OK;
}

/* "OCNC", and this algorithm when the header shows it (a shorter prefix
 * is taken, for the parser to call it TRUNCATED). */
static int own_sniff(oc_algorithm a, const uint8_t *src, uint64_t src_size)
{
    static const uint8_t m[4] = {'O', 'C', 'N', 'C'};
    return src_size >= 4 && memcmp(src, m, 4) == 0 && (src_size < 6 || src[5] == own_id(a));
}

/* One ops per algorithm: the header names the algorithm. */
#define OWN_CONTAINER(x, A)                                                                                  \
    static uint32_t own_header_##x(uint64_t content_size, size_t chunk_size, int checksums, uint8_t *out)    \
    {                                                                                                        \
        (void)chunk_size;                                                                                    \
        return own_header(A, content_size, checksums, out);                                                  \
    }                                                                                                        \
    static int own_sniff_##x(const uint8_t *src, uint64_t src_size)                                          \
    {                                                                                                        \
        return own_sniff(A, src, src_size);                                                                  \
    }                                                                                                        \
    const oc_container_ops oc_container_own_##x = {                                                          \
        .name = "opencomp-chunked",                                                                          \
        .layout = OC_LAYOUT_OWN,                                                                             \
        .clamp_chunk = 0,                                                                                    \
        .empty_chunk = 0,                                                                                    \
        .check = OC_CHECK_XXH32_CONTENT,                                                                     \
        .check_always = 0,                                                                                   \
        .content_checksum = 0,                                                                               \
        .whole_elements = 1,                                                                                 \
        .bound = own_bound,                                                                                  \
        .header = own_header_##x,                                                                            \
        .sniff = own_sniff_##x,                                                                              \
        .parse = own_parse,                                                                                  \
        .sparse = own_sparse,                                                                                \
        .family = &oc_container_own_##x,                                                                     \
    };

OWN_CONTAINER(cascaded, OC_ALGO_CASCADED)
OWN_CONTAINER(ans, OC_ALGO_ANS)
OWN_CONTAINER(bitcomp, OC_ALGO_BITCOMP)
OWN_CONTAINER(gdeflate, OC_ALGO_GDEFLATE)
