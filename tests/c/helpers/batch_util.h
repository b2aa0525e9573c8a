/*
 * batch_util.h - helpers for tests of the batched layer: split a buffer
 * into chunks, compress them into bound-sized outputs, and decode into
 * slices of ONE buffer separated by guard bytes (what uproot-style callers
 * do), checking contents and guards.  Failures exit via tu_fail.
 */
#ifndef OC_BATCH_UTIL_H
#define OC_BATCH_UTIL_H

#include "test_util.h"

/* A buffer split into chunks, and their compressed forms. */
typedef struct tu_chunks {
    size_t n;
    const void **src; /* into the original buffer */
    size_t *src_sizes;
    void **comp; /* each its own allocation of comp_caps[i] bytes */
    size_t *comp_caps;
    size_t *comp_sizes;
    oc_status *statuses;
} tu_chunks;

/* Splits data[0..size) into chunks of chunk_size (last one partial; one
 * empty chunk if size == 0). */
void tu_chunks_split(tu_chunks *c, const uint8_t *data, size_t size, size_t chunk_size);
/* Compresses every chunk with oc_batch_compress (outputs of
 * oc_compress_bound bytes); every chunk must succeed. */
void tu_chunks_compress(tu_chunks *c, oc_context *ctx, oc_algorithm algo, int level);
/* Decodes every chunk into slices of one guarded buffer with
 * oc_batch_decompress and checks bytes, sizes, statuses and guards; also
 * checks oc_batch_decompressed_sizes. */
void tu_chunks_check_decode(const tu_chunks *c, oc_context *ctx, oc_algorithm algo);
void tu_chunks_free(tu_chunks *c);

#endif /* OC_BATCH_UTIL_H */
