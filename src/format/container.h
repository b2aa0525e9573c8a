/*
 * container.h - the chunked containers of the NATIVE bitstream kind, and the
 * RAW / WITH_UNCOMPRESSED_SIZE framings, as seen by the whole-buffer layer
 * (src/api/buffer.c).
 *
 * Readers turn a compressed buffer into a *plan*: where each chunk's payload
 * lies in src, where its decoded bytes go in dst, its exact decoded size and
 * its stored checksum.  The plan is built from headers and indexes only; no
 * payload is decoded here, so buffer.c can decode every chunk with one
 * oc_batch_decompress call straight into the caller's dst.  Writers append
 * to a bounds-checked oc_writer and never write past its capacity.
 * Containers know nothing of engines and call no codec (docs/FORMAT.md
 * specifies every byte).
 */
#ifndef OC_FORMAT_CONTAINER_H
#define OC_FORMAT_CONTAINER_H

#include <string.h>

#include "../common/oc_internal.h"
#include "layout.h"

/* Skippable-frame magics (LZ4 and zstd share the range 0x184D2A50..5F). */
#define OC_SKIPPABLE_MAGIC_MIN 0x184D2A50u
#define OC_SKIPPABLE_MAGIC_MASK 0xFFFFFFF0u
#define OC_LZ4_FRAME_MAGIC 0x184D2204u
/* The LZ4 legacy format (`lz4 -l`): this magic, then blocks, each a 4-byte
 * compressed size and an LZ4 block of at most 8 MiB decoded. */
#define OC_LZ4_LEGACY_MAGIC 0x184C2102u
#define OC_LZ4_LEGACY_BLOCK ((size_t)8 << 20)
#define OC_ZSTD_FRAME_MAGIC 0xFD2FB528u
#define OC_ZSTD_SEEKABLE_SKIP_MAGIC 0x184D2A5Eu
#define OC_ZSTD_SEEKABLE_FOOTER_MAGIC 0x8F92EAB1u
/* Our chunk index for LZ4 frames and snappy framed streams (docs/FORMAT.md). */
#define OC_LZ4_INDEX_SKIP_MAGIC 0x184D2A5Cu
#define OC_INDEX_FOOTER_MAGIC 0x5849434Fu /* "OCIX" in file order */
#define OC_SNAPPY_INDEX_CHUNK 0x8Cu
/* gzip FEXTRA subfield 'O','C': member size and uncompressed size. */
#define OC_GZIP_SI1 'O'
#define OC_GZIP_SI2 'C'
#define OC_GZIP_HEADER_SIZE 24u
#define OC_GZIP_TRAILER_SIZE 8u

/* Largest chunk a NATIVE container accepts (sizes are stored as 32 bits). */
#define OC_NATIVE_MAX_CHUNK ((size_t)1 << 30)
#define OC_LZ4_MAX_BLOCK ((size_t)4 << 20)
#define OC_SNAPPY_MAX_CHUNK ((size_t)65536)

/* What a stored per-chunk checksum covers. */
typedef enum oc_chunk_check {
    OC_CHECK_NONE = 0,
    OC_CHECK_XXH32_STORED,  /* LZ4 block checksum: XXH32 of the block's stored bytes */
    OC_CHECK_XXH64_LOW,     /* zstd seek table: low 32 bits of XXH64 of the decoded chunk */
    OC_CHECK_CRC32C_MASKED, /* snappy framing: masked CRC-32C of the decoded chunk */
    OC_CHECK_CRC32          /* gzip trailer: CRC-32 of the decoded chunk */
} oc_chunk_check;

typedef struct oc_chunk_ref {
    uint64_t src_off;  /* payload position in src */
    uint64_t src_size; /* payload bytes */
    uint64_t dst_off;  /* position of the decoded bytes in dst */
    uint64_t dst_size; /* exact decoded size (the tail chunk: unknown, 0) */
    uint32_t checksum; /* stored checksum, if plan->check != NONE */
    uint8_t stored;    /* payload is uncompressed: copy it */
} oc_chunk_ref;

typedef struct oc_container_plan {
    const char *name;       /* static container name (oc_frame_info.container) */
    oc_bitstream_kind kind; /* NATIVE for the chunked containers */
    oc_algorithm algorithm; /* the chunk algorithm given to oc_batch_decompress */
    oc_algorithm reported;  /* the algorithm reported by inspect */
    oc_chunk_ref *chunks;   /* malloc'd, n entries */
    size_t n, cap;
    uint64_t total_size;         /* sum of chunk sizes, if size_known */
    int size_known;              /* every chunk's size is known */
    int tail;                    /* the last chunk's size is unknown: it decodes into the rest of dst */
    oc_algorithm tail_algorithm; /* the tail chunk's algorithm (gzip tails are whole gzip streams) */
    int indexed;                 /* positions came from an index/size fields, not from decoding */
    int lz4f_serial;             /* decode the whole buffer with the LZ4F streaming decoder */
    int lz4_legacy;              /* LZ4 legacy frames: chunks are blocks of unknown decoded size */
    oc_status walk_status;       /* lz4f_serial: result of the header walk (reported by inspect) */
    uint64_t info_chunks;        /* lz4f_serial: blocks found by the header walk */
    int info_checksums;          /* lz4f_serial: some frame has block or content checksums */
    oc_chunk_check check;        /* what chunks[].checksum means */
    int lz4_content_checksum;    /* LZ4 frame content checksum present (in content_checksum) */
    uint32_t content_checksum;
    uint64_t container_size; /* bytes of src recognised */
    uint64_t max_chunk;      /* largest known decoded chunk */
    uint64_t window_size;    /* zstd: largest window of a frame without a content size */
} oc_container_plan;

OC_HIDDEN void oc_plan_init(oc_container_plan *plan);
OC_HIDDEN void oc_plan_free(oc_container_plan *plan);
/* Append a chunk; dst_off is assigned from the running total. */
OC_HIDDEN oc_status oc_plan_push(oc_container_plan *plan, uint64_t src_off, uint64_t src_size,
                                 uint64_t dst_size, uint32_t checksum, int stored);

/* Readers: fill `plan` from src (host memory, exactly src_size bytes). */
OC_HIDDEN oc_status oc_container_parse(const uint8_t *src, uint64_t src_size, const oc_buffer_options *hint,
                                       oc_container_plan *plan);
OC_HIDDEN oc_status oc_lz4frame_parse(const uint8_t *src, uint64_t src_size, oc_container_plan *plan);
OC_HIDDEN oc_status oc_lz4legacy_parse(const uint8_t *src, uint64_t src_size, oc_container_plan *plan);
/* 1 if the n bytes at p, found after a complete gzip member, are trailing
 * bytes that gzip -d ignores (zero padding, or garbage), 0 if they begin a
 * member or look like a member whose magic number was damaged (one of
 * 1f 8b intact and the method byte 8): those are decoded, or CORRUPT, never
 * silently dropped with the members after them. */
static inline int oc_gzip_trailing_bytes(const uint8_t *p, uint64_t n)
{
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        return 0;
    if (n >= 3 && (p[0] == 0x1f || p[1] == 0x8b) && p[2] == 8)
        return 0;
    return 1;
}

/* Where the first frame that is not skippable starts (src_size if none). */
OC_HIDDEN uint64_t oc_skip_skippable_frames(const uint8_t *src, uint64_t src_size);
OC_HIDDEN oc_status oc_zstd_parse(const uint8_t *src, uint64_t src_size, oc_container_plan *plan);
OC_HIDDEN oc_status oc_gzip_parse(const uint8_t *src, uint64_t src_size, oc_container_plan *plan);
OC_HIDDEN oc_status oc_snappyframe_parse(const uint8_t *src, uint64_t src_size, oc_container_plan *plan);
/* Single-stream framings: RAW of `algorithm` starting at `offset`. */
OC_HIDDEN oc_status oc_raw_parse(const uint8_t *src, uint64_t src_size, uint64_t offset,
                                 oc_algorithm algorithm, oc_container_plan *plan);

/* ---- writers ------------------------------------------------------------ */

typedef struct oc_writer {
    uint8_t *dst;
    uint64_t cap;
    uint64_t pos;
} oc_writer;

static inline oc_status oc_writer_put(oc_writer *w, const void *p, uint64_t n)
{
    if (n > w->cap - w->pos)
        return OC_ERR_OUTPUT_TOO_SMALL;
    if (n)
        memcpy(w->dst + w->pos, p, (size_t)n);
    w->pos += n;
    return OC_OK;
}
static inline oc_status oc_writer_le32(oc_writer *w, uint32_t v)
{
    uint8_t b[4];
    oc_store_le32(b, v);
    return oc_writer_put(w, b, 4);
}

/* Writes one chunk as `l` lays it out (layout.h): prefix, payload, suffix. */
static inline oc_status oc_writer_chunk(oc_writer *w, const oc_chunk_layout *l, const uint8_t *usrc,
                                        const uint8_t *csrc)
{
    FORWARD_IF_ERROR(oc_writer_put(w, l->prefix, l->prefix_len));
    FORWARD_IF_ERROR(oc_writer_put(w, l->stored ? usrc : csrc, l->payload));
    return oc_writer_put(w, l->suffix, l->suffix_len);
}

/* One index entry per chunk, collected while writing, emitted by the trailer. */
typedef struct oc_index_entry {
    uint32_t csize;    /* container-specific, see docs/FORMAT.md */
    uint32_t usize;    /* uncompressed bytes */
    uint32_t checksum; /* zstd seek table checksum */
} oc_index_entry;

/* LZ4 frame: block max size id (4..7) for a chunk size (chunk_size <= 4 MiB). */
OC_HIDDEN unsigned oc_lz4frame_block_id(size_t chunk_size);
OC_HIDDEN uint64_t oc_lz4frame_bound(uint64_t n_chunks, uint64_t payload_bound);
OC_HIDDEN oc_status oc_lz4frame_write_header(oc_writer *w, uint64_t content_size, unsigned block_id,
                                             int block_checksums);
/* Writes one block: compressed if csize < usize, else the uncompressed bytes;
 * `checksum` is XXH32 of the bytes stored (used if block_checksums). */
OC_HIDDEN oc_status oc_lz4frame_write_block(oc_writer *w, const uint8_t *usrc, size_t usize,
                                            const uint8_t *csrc, size_t csize, int block_checksums,
                                            uint32_t checksum, oc_index_entry *entry);
/* End mark, content checksum (XXH32 of all content, with block checksums), index. */
OC_HIDDEN oc_status oc_lz4frame_write_end(oc_writer *w, const oc_index_entry *entries, uint64_t n,
                                          int block_checksums, uint32_t content_checksum);

OC_HIDDEN uint64_t oc_zstd_seekable_bound(uint64_t n_chunks, uint64_t payload_bound);
OC_HIDDEN oc_status oc_zstd_seekable_write_frame(oc_writer *w, const uint8_t *csrc, size_t csize,
                                                 size_t usize, uint32_t checksum, oc_index_entry *entry);
OC_HIDDEN oc_status oc_zstd_seekable_write_end(oc_writer *w, const oc_index_entry *entries, uint64_t n,
                                               int checksums);

OC_HIDDEN uint64_t oc_gzip_members_bound(uint64_t n_chunks, uint64_t payload_bound);
/* Writes one member around a raw deflate stream; crc = CRC-32 of the chunk. */
OC_HIDDEN oc_status oc_gzip_write_member(oc_writer *w, const uint8_t *deflate, size_t dsize, size_t usize,
                                         uint32_t crc);

OC_HIDDEN uint64_t oc_snappyframe_bound(uint64_t n_chunks, uint64_t payload_bound);
OC_HIDDEN oc_status oc_snappyframe_write_header(oc_writer *w);
OC_HIDDEN oc_status oc_snappyframe_write_chunk(oc_writer *w, const uint8_t *usrc, size_t usize,
                                               const uint8_t *csrc, size_t csize, uint32_t masked_crc,
                                               oc_index_entry *entry);
OC_HIDDEN oc_status oc_snappyframe_write_end(oc_writer *w, const oc_index_entry *entries, uint64_t n);

/* The trailer of LZ4, snappy and zstd containers (layout.h): head, one
 * entry per chunk, footer.  Nothing for gzip members. */
OC_HIDDEN oc_status oc_write_trailer(oc_writer *w, oc_algorithm a, int checksums,
                                     const oc_index_entry *entries, uint64_t n, uint32_t content_checksum);

#endif /* OC_FORMAT_CONTAINER_H */
