/*
 * plan.h - the types every container file shares: the format constants,
 * the *plan* a reader makes of a compressed buffer (where each chunk's
 * payload lies in src, where its decoded bytes go in dst, its exact decoded
 * size and its stored checksum), the bounds-checked writer the writers
 * append to, and the index entries they collect.  The dispatch over
 * containers is container.h; each container file includes only this,
 * layout.h and sparse_plan.h (no include cycles).
 */
#ifndef OC_FORMAT_PLAN_H
#define OC_FORMAT_PLAN_H

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
    OC_CHECK_CRC32,         /* gzip trailer: CRC-32 of the decoded chunk */
    OC_CHECK_XXH32_CONTENT  /* our own formats' container: XXH32 of the decoded chunk, stored after the
                               payload (read there, not held in the plan, as LZ4's and snappy's) */
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

/* The decoded bytes the plan knows before decoding: all of them, or those
 * before the tail chunk. */
static inline uint64_t oc_plan_known_size(const oc_container_plan *plan)
{
    return plan->tail ? plan->chunks[plan->n - 1].dst_off : plan->total_size;
}

/* The first chunk whose decoded bytes do not fit in `capacity` (plan->n
 * when all do): the failed chunk of OUTPUT_TOO_SMALL, on both engines. */
static inline size_t oc_plan_first_over(const oc_container_plan *plan, uint64_t capacity)
{
    size_t i = 0;
    while (i < plan->n && plan->chunks[i].dst_off + plan->chunks[i].dst_size <= capacity)
        i++;
    return i;
}

/* ---- running a plan ------------------------------------------------------ */

/* What running a plan found (src/api/buffer.c's run_plan). */
typedef struct oc_plan_result {
    oc_status status;      /* the first failing chunk's status (CORRUPT: a failed probe) */
    uint64_t failed;       /* that chunk, or UINT64_MAX (none, or a probe) */
    oc_status tail_status; /* the tail chunk's */
    uint64_t tail_size;    /* the tail's decoded bytes */
    uint32_t content;      /* XXH32 of dst[0..len), when the content step ran */
} oc_plan_result;

/* One engine's steps of running a plan, which src/api/buffer.c's run_plan
 * drives in this order: (corrupt, only when dst is too small) | per group
 * of chunks: decode, finish, first_failure (stopping at a failure) | tail |
 * content | end.  self is the engine's state of one plan (its begin call:
 * buffer.c's host_plan_begin, oc_cuda_plan_begin).  A step may only
 * enqueue work and fill *r at end (the GPU: nothing synchronises but
 * corrupt and end); end frees self, r == NULL when the run is abandoned. */
typedef struct oc_plan_steps {
    uint64_t group_bytes; /* decoded bytes per group (at least one chunk) */
    size_t group_chunks;  /* chunks per group */
    int progress;         /* report progress after each group (the host's steps) */
    /* Whether the container is corrupt (a failed probe), before anything ran. */
    oc_status (*corrupt)(void *self, int *corrupt);
    /* ONE batched decode of the group's compressed chunks into their slices of dst. */
    oc_status (*decode)(void *self, size_t first, size_t m);
    /* Stored chunks copied, sizes against the plan, checksums per policy. */
    oc_status (*finish)(void *self, size_t first, size_t m);
    /* The group's first failing chunk into r->status / r->failed (unless set). */
    oc_status (*first_failure)(void *self, size_t first, size_t m, oc_plan_result *r);
    /* The tail chunk decoded into the rest of dst: r->tail_status, r->tail_size. */
    oc_status (*tail)(void *self, oc_plan_result *r);
    /* XXH32 of dst[0..len) into r->content (the LZ4 content checksum). */
    oc_status (*content)(void *self, uint64_t len, oc_plan_result *r);
    oc_status (*end)(void *self, oc_plan_result *r);
} oc_plan_steps;

/* What NATIVE compression found (src/api/buffer.c's compress_native). */
typedef struct oc_native_result {
    oc_status status; /* a chunk's failure (never OUTPUT_TOO_SMALL: INTERNAL), or dst too small */
    uint64_t total;   /* the container's bytes */
} oc_native_result;

/* One engine's steps of NATIVE compression (src/format/container.h's
 * oc_native), which buffer.c's compress_native drives in this order: per
 * group of chunks [first, first + m): compress (ONE batched call into the
 * engine's scratch), first_failure (stopping at one), sums (the stored
 * per-chunk checksums, and the LZ4 content checksum), assemble (prefix,
 * payload, suffix and index entry of each chunk into dst); then trailer
 * (the header and trailer are in dst, r->total set) and end (frees self;
 * r == NULL when the run is abandoned).  As for oc_plan_steps, a step may
 * only enqueue work and fill *r at end (the GPU: its one synchronisation);
 * nothing is written past dst_capacity. */
typedef struct oc_native_steps {
    int progress; /* report progress after each group (the host's steps) */
    oc_status (*compress)(void *self, uint64_t first, size_t m);
    oc_status (*first_failure)(void *self, uint64_t first, size_t m, oc_native_result *r);
    oc_status (*sums)(void *self, uint64_t first, size_t m);
    oc_status (*assemble)(void *self, uint64_t first, size_t m, oc_native_result *r);
    oc_status (*trailer)(void *self, oc_native_result *r);
    oc_status (*end)(void *self, oc_native_result *r);
} oc_native_steps;

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

/* ---- the range reader ------------------------------------------------------
 * How container planning reads a buffer it cannot (or need not) read
 * whole: byte ranges of src copied to host memory.  The API layer gives one
 * for device memory (small copies, one synchronisation). */
typedef struct oc_range {
    uint64_t off, len; /* bytes of src */
    uint8_t *to;       /* where they go (host) */
} oc_range;

/* Reads every range of src (all must complete before it returns). */
typedef oc_status (*oc_range_reader)(void *opaque, const oc_range *ranges, size_t n);

/* Where the first frame that is not skippable starts (src_size if none). */
OC_HIDDEN uint64_t oc_skip_skippable_frames(const uint8_t *src, uint64_t src_size);

#endif /* OC_FORMAT_PLAN_H */
