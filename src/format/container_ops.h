/*
 * container_ops.h - what one NATIVE container is, as a table of facts and
 * functions (oc_container_ops), so that the whole-buffer layer (src/api,
 * and the device kernels it drives) writes and reads every container with
 * one piece of code, and an algorithm's row in src/common/algo_table.c
 * names its container.
 *
 * Each container file defines its ops (lz4frame.c: oc_container_lz4frame;
 * lz4legacy.c, reader only; snappy_framing.c; zstd_seekable.c;
 * gzip_members.c); container.c holds the readers' detection order.
 * Writing a chunk, an index entry and the trailer is generic: the bytes
 * come from layout.h by the ops' `layout`.
 */
#ifndef OC_FORMAT_CONTAINER_OPS_H
#define OC_FORMAT_CONTAINER_OPS_H

#include "plan.h"
#include "sparse_plan.h"

typedef struct oc_container_ops {
    const char *name;     /* the name inspect reports for what the writer writes */
    uint32_t layout;      /* OC_LAYOUT_*: the bytes of chunks, index and trailer (layout.h) */
    size_t clamp_chunk;   /* chunk sizes above this are clamped to it (0: none; 1 GiB is refused) */
    int empty_chunk;      /* an empty input is one empty chunk (a zstd frame, a gzip member), else none */
    oc_chunk_check check; /* what the per-chunk checksum covers */
    int check_always;     /* the checksum is written even with OC_CHECKSUM_NONE (format-mandated) */
    int content_checksum; /* with checksums, an XXH32 of the whole content follows the chunks (LZ4) */
    /* Largest container of n chunks whose payloads take payload_bound bytes. */
    uint64_t (*bound)(uint64_t n_chunks, uint64_t payload_bound);
    /* The bytes before the first chunk into out[0..16); returns their count (NULL: none). */
    uint32_t (*header)(uint64_t content_size, size_t chunk_size, int checksums, uint8_t *out);
    /* Readers.  sniff: 1 when src starts like this container.  parse: the
     * plan of src (host memory, exactly src_size bytes). */
    int (*sniff)(const uint8_t *src, uint64_t src_size);
    oc_status (*parse)(const uint8_t *src, uint64_t src_size, oc_container_plan *plan);
    /* The index synthesis of the sparse plan (sparse_plan.h), NULL when the
     * container has no index; it sets *indexed when it found one. */
    oc_status (*sparse)(oc_sparse *s, oc_range_reader rd, void *opaque, int *indexed);
    /* The container whose algorithms may be read as this one (a hint's
     * algorithm restricts detection to its row's container): itself, or
     * for a reader-only variant the writer's (legacy LZ4 -> LZ4 frame). */
    const struct oc_container_ops *family;
} oc_container_ops;

#endif /* OC_FORMAT_CONTAINER_OPS_H */
