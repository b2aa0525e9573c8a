/*
 * layout.h - the byte layout of the NATIVE containers' pieces, given sizes
 * and checksums: what goes before and after each chunk's payload, what an
 * index entry holds, and the trailer (end mark, index, footer).
 *
 * Why a header of inline functions: the CPU writers (lz4frame.c,
 * snappy_framing.c, zstd_seekable.c, gzip_members.c) and the GPU assembly
 * kernels (src/cuda/container/cuda_buffer.cu) must write the same bytes, so the
 * layout lives here once and compiles as host code for the former and as
 * __host__ __device__ code under nvcc for the latter.  Pure arithmetic on
 * integers: no engine, no codec, no allocation (docs/FORMAT.md specifies
 * every byte).
 */
#ifndef OC_FORMAT_LAYOUT_H
#define OC_FORMAT_LAYOUT_H

#include <stdint.h>

#include "../common/le.h"
#include "../common/portable.h"
#include "opencomp.h"

/* The containers whose bytes are laid out here: `a` below is one of these
 * (oc_container_ops.layout, src/format/container_ops.h). */
#define OC_LAYOUT_LZ4F 1u   /* LZ4 frame + our index */
#define OC_LAYOUT_SNAPPY 2u /* snappy framing + our index */
#define OC_LAYOUT_ZSTD 3u   /* zstd seekable */
#define OC_LAYOUT_GZIP 4u   /* gzip members with the 'OC' subfield */

#define OC_LAYOUT_LZ4_STORED 0x80000000u
#define OC_LAYOUT_INDEX_FOOTER 9u

/* One chunk's framing: prefix bytes, then `payload` bytes (the compressed
 * data, or the uncompressed chunk when `stored`), then suffix bytes; and the
 * chunk's index entry (docs/FORMAT.md). */
typedef struct oc_chunk_layout {
    uint8_t prefix[24];
    uint8_t suffix[8];
    uint32_t prefix_len, suffix_len;
    uint32_t payload;
    int stored;
    uint32_t entry_csize, entry_usize, entry_checksum;
} oc_chunk_layout;

/* `a` is the container (OC_LAYOUT_*); `checksums`: optional checksums are written; `sum` is the chunk's
 * checksum as the container stores it (LZ4: XXH32 of the stored bytes;
 * snappy: masked CRC-32C; zstd: low 32 bits of XXH64; gzip: CRC-32).
 * Sizes fit 32 bits (the writers check chunk sizes before). */
OC_INLINE void oc_layout_chunk(uint32_t a, int checksums, uint32_t usize, uint32_t csize, uint32_t sum,
                               oc_chunk_layout *l)
{
    l->prefix_len = l->suffix_len = 0;
    l->entry_usize = usize;
    l->entry_checksum = 0;
    if (a == OC_LAYOUT_LZ4F) {
        l->stored = csize >= usize;
        l->payload = l->stored ? usize : csize;
        l->entry_csize = l->payload | (l->stored ? OC_LAYOUT_LZ4_STORED : 0u);
        oc_store_le32(l->prefix, l->entry_csize);
        l->prefix_len = 4;
        if (checksums) {
            oc_store_le32(l->suffix, sum);
            l->suffix_len = 4;
        }
    } else if (a == OC_LAYOUT_SNAPPY) {
        l->stored = csize >= usize;
        l->payload = l->stored ? usize : csize;
        l->entry_csize = (l->stored ? 0x01u : 0x00u) | ((l->payload + 4u) << 8);
        oc_store_le32(l->prefix, l->entry_csize);
        oc_store_le32(l->prefix + 4, sum);
        l->prefix_len = 8;
    } else if (a == OC_LAYOUT_ZSTD) {
        l->stored = 0;
        l->payload = csize;
        l->entry_csize = csize;
        l->entry_checksum = sum;
    } else { /* gzip member around a raw deflate stream */
        uint32_t member = 24u + csize + 8u;
        const uint8_t h[16] = {0x1f, 0x8b, 8, 0x04, 0, 0, 0, 0, 0, 255, 12, 0, 'O', 'C', 8, 0};
        for (int i = 0; i < 16; i++)
            l->prefix[i] = h[i];
        oc_store_le32(l->prefix + 16, member);
        oc_store_le32(l->prefix + 20, usize);
        l->prefix_len = 24;
        oc_store_le32(l->suffix, sum);
        oc_store_le32(l->suffix + 4, usize);
        l->suffix_len = 8;
        l->stored = 0;
        l->payload = csize;
        l->entry_csize = member;
    }
}

/* Bytes of one index entry (0: the container has no trailing index). */
OC_INLINE uint32_t oc_layout_entry_size(uint32_t a, int checksums)
{
    if (a == OC_LAYOUT_LZ4F || a == OC_LAYOUT_SNAPPY)
        return 8;
    if (a == OC_LAYOUT_ZSTD)
        return checksums ? 12 : 8;
    return 0;
}

OC_INLINE uint32_t oc_layout_entry(uint32_t a, int checksums, uint32_t csize, uint32_t usize, uint32_t sum,
                                   uint8_t *out)
{
    uint32_t n = oc_layout_entry_size(a, checksums);
    if (n) {
        oc_store_le32(out, csize);
        oc_store_le32(out + 4, usize);
    }
    if (n == 12)
        oc_store_le32(out + 8, sum);
    return n;
}

/* Snappy: more chunks than one index chunk's u24 length can hold: no index. */
#define OC_LAYOUT_SNAPPY_MAX_ENTRIES ((0xFFFFFFu - OC_LAYOUT_INDEX_FOOTER) / 8u)

/* The trailer's bytes before the entries (LZ4: end mark, content checksum,
 * skippable header; snappy: the index chunk header; zstd: the seek table's
 * skippable header).  Returns the count; `out` has room for 16 bytes.
 * `content` is LZ4's content checksum (used with checksums). */
OC_INLINE uint32_t oc_layout_trailer_head(uint32_t a, int checksums, uint64_t n, uint32_t content,
                                          uint8_t *out)
{
    uint32_t frame = (uint32_t)(n * oc_layout_entry_size(a, checksums) + OC_LAYOUT_INDEX_FOOTER);
    if (a == OC_LAYOUT_LZ4F) {
        uint32_t k = 0;
        oc_store_le32(out, 0); /* end mark */
        k = 4;
        if (checksums) {
            oc_store_le32(out + k, content);
            k += 4;
        }
        oc_store_le32(out + k, 0x184D2A5Cu);
        oc_store_le32(out + k + 4, frame);
        return k + 8;
    }
    if (a == OC_LAYOUT_SNAPPY) {
        if (n > OC_LAYOUT_SNAPPY_MAX_ENTRIES)
            return 0;
        oc_store_le32(out, 0x8Cu | (frame << 8));
        return 4;
    }
    if (a == OC_LAYOUT_ZSTD) {
        oc_store_le32(out, 0x184D2A5Eu);
        oc_store_le32(out + 4, frame);
        return 8;
    }
    return 0;
}

/* The 9-byte footer after the entries (0 bytes when there is no index). */
OC_INLINE uint32_t oc_layout_trailer_foot(uint32_t a, int checksums, uint64_t n, uint8_t *out)
{
    if (oc_layout_entry_size(a, checksums) == 0 ||
        (a == OC_LAYOUT_SNAPPY && n > OC_LAYOUT_SNAPPY_MAX_ENTRIES))
        return 0;
    oc_store_le32(out, (uint32_t)n);
    if (a == OC_LAYOUT_ZSTD) {
        out[4] = (uint8_t)(checksums ? 0x80u : 0u);
        oc_store_le32(out + 5, 0x8F92EAB1u);
    } else {
        out[4] = (uint8_t)(a == OC_LAYOUT_LZ4F && checksums ? 1u : 0u);
        oc_store_le32(out + 5, 0x5849434Fu);
    }
    return OC_LAYOUT_INDEX_FOOTER;
}

/* Whole trailer size (head + entries + foot), known before any data. */
OC_INLINE uint64_t oc_layout_trailer_size(uint32_t a, int checksums, uint64_t n)
{
    uint8_t tmp[16];
    uint32_t head = oc_layout_trailer_head(a, checksums, n, 0, tmp);
    if (head == 0 && a != OC_LAYOUT_LZ4F)
        return 0;
    return head + n * oc_layout_entry_size(a, checksums) + OC_LAYOUT_INDEX_FOOTER;
}

#endif /* OC_FORMAT_LAYOUT_H */
