/*
 * container.h - the dispatch over the NATIVE containers and the RAW /
 * WITH_UNCOMPRESSED_SIZE framings, as the whole-buffer layer (src/api)
 * sees them: detection and parsing of a compressed buffer into a plan
 * (plan.h), and the writer's steps for any container (container_ops.h).
 *
 * Readers build the plan from headers and indexes only; no payload is
 * decoded here, so the API can decode every chunk with one batched call
 * straight into the caller's dst.  Writers append to a bounds-checked
 * oc_writer and never write past its capacity.  Containers know nothing of
 * engines and call no codec (docs/FORMAT.md specifies every byte).
 */
#ifndef OC_FORMAT_CONTAINER_H
#define OC_FORMAT_CONTAINER_H

#include "container_ops.h"

/* ---- readers ------------------------------------------------------------- */

/* Fills `plan` from src (host memory, exactly src_size bytes): the hint's
 * kind and algorithm, else the container the leading bytes name, else the
 * RAW stream of a self-identifying algorithm. */
OC_HIDDEN oc_status oc_container_parse(const uint8_t *src, uint64_t src_size, const oc_buffer_options *hint,
                                       oc_container_plan *plan);
/* The reader whose sniff accepts src among those the hint's algorithm
 * allows (NONE: all), in detection order; NULL if none. */
OC_HIDDEN const oc_container_ops *oc_container_detect(const uint8_t *src, uint64_t src_size,
                                                      oc_algorithm hint);
/* Every reader in detection order, NULL-terminated (sparse_plan.c). */
OC_HIDDEN extern const oc_container_ops *const oc_container_readers[];
/* Single-stream framings: RAW of `algorithm` starting at `offset`. */
OC_HIDDEN oc_status oc_raw_parse(const uint8_t *src, uint64_t src_size, uint64_t offset,
                                 oc_algorithm algorithm, oc_container_plan *plan);

/* One gzip member header at p[0..n) (gzip_members.c): its length in
 * *header; with our 'OC' subfield *has_oc = 1, the member's total size and
 * its uncompressed size.  TRUNCATED when n is too short to hold it. */
OC_HIDDEN oc_status oc_gzip_member_header(const uint8_t *p, uint64_t n, uint64_t *header, int *has_oc,
                                          uint64_t *member, uint64_t *usize);

/* ---- writers ------------------------------------------------------------- */

/* A NATIVE container to write, resolved from the options once for the
 * host writer (src/api) and the device kernels alike. */
typedef struct oc_native {
    const oc_container_ops *ops;
    oc_algorithm chunk_algorithm; /* what the codec runs per chunk (gzip members hold raw deflate) */
    size_t chunk_size;            /* after the container's clamp */
    uint64_t n;                   /* chunks (an empty input may still have one) */
    int checksums;                /* optional checksums are written */
    int sums;                     /* a per-chunk checksum is computed and stored */
} oc_native;

/* Resolves options->algorithm's container for src_size bytes: INVALID_ARGUMENT
 * for a chunk size above 1 GiB or more than 2^32-1 chunks. */
OC_HIDDEN oc_status oc_native_resolve(const oc_buffer_options *options, uint64_t src_size, oc_native *nt);
/* The container's header, one chunk (compressed payload csize bytes, or the
 * uncompressed bytes when that is not smaller and the container stores
 * them), its index entry, and the trailer after the last chunk.  Chunk
 * sizes past the container's limits are CHUNK_TOO_LARGE. */
OC_HIDDEN oc_status oc_container_write_header(oc_writer *w, const oc_native *nt, uint64_t content_size);
OC_HIDDEN oc_status oc_container_write_chunk(oc_writer *w, const oc_native *nt, const uint8_t *usrc,
                                             size_t usize, const uint8_t *csrc, size_t csize, uint32_t sum,
                                             oc_index_entry *entry);
OC_HIDDEN oc_status oc_container_write_trailer(oc_writer *w, const oc_native *nt,
                                               const oc_index_entry *entries, uint64_t n,
                                               uint32_t content_checksum);

#endif /* OC_FORMAT_CONTAINER_H */
