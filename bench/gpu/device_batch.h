/*
 * device_batch.h - one batch of the ladder on the GPU: the uncompressed
 * chunks (laid out as batch_plan.h says), a compressed slot per chunk, the
 * output buffer (same layout as the input), and the device-side pointer,
 * size and status arrays both libraries' batched calls take.  Allocated once
 * per chunk size for the largest rung; every smaller rung is a prefix (its
 * first n chunks), so it costs no upload.
 *
 * Verification runs on the GPU too, so checking every output of a 1 GiB
 * batch costs about a millisecond: a block per chunk compares the decoded
 * bytes with the input, and the status and size of each chunk are checked.
 */
#ifndef OC_BENCH_DEVICE_BATCH_H
#define OC_BENCH_DEVICE_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include "batch_plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ocb_dev_batch {
    size_t n;                      /* chunks (the largest rung) */
    uint64_t buf_bytes;            /* bytes of the input and of the output buffer */
    size_t slot;                   /* bytes per compressed slot (0: none yet) */
    uint8_t *in_dev;               /* input chunks */
    uint8_t *out_dev;              /* decoded chunks, same offsets as in_dev */
    uint8_t *comp_dev;             /* n slots of `slot` bytes */
    void **in_ptrs_dev;            /* n: in_dev + offset of chunk i */
    void **out_ptrs_dev;           /* n: out_dev + offset of chunk i */
    void **comp_ptrs_dev;          /* n: comp_dev + i * slot */
    size_t *in_sizes_dev;          /* n: chunk sizes (also the decoders' output capacities) */
    size_t *comp_caps_dev;         /* n: slot */
    size_t *comp_sizes_dev;        /* n: compressed sizes (written by compressors) */
    size_t *out_sizes_dev;         /* n: decoded sizes (written by decompressors) */
    int32_t *status_dev;           /* n: per-chunk statuses (0 = success in both libraries) */
    unsigned long long *check_dev; /* 2: failing chunks, first failing chunk */
    size_t *in_sizes;              /* host copy of the chunk sizes */
    uint64_t *offsets;             /* host: offset of chunk i */
} ocb_dev_batch;

/* Upload the first n chunks of plan p from `host` (a buffer of
 * ocb_plan_buffer_bytes(p, n) bytes laid out as the plan says).  0 on
 * success, -1 on a CUDA error (printed). */
int ocb_dev_batch_make(ocb_dev_batch *b, const ocb_plan *p, size_t n, const uint8_t *host);
void ocb_dev_batch_free(ocb_dev_batch *b);

/* Make the compressed slots `slot` bytes each (reallocating when needed). */
int ocb_dev_set_slot(ocb_dev_batch *b, size_t slot);

/* Fill the output of the first n chunks with 0xEE (so a decoder that skips
 * bytes cannot pass on an earlier call's output), and the sizes/statuses
 * with garbage. */
int ocb_dev_clear_out(ocb_dev_batch *b, size_t n);

/* 1 if each of the first n chunks has status 0 (after a compression). */
int ocb_dev_statuses_ok(const ocb_dev_batch *b, size_t n, size_t *first_bad, int32_t *status);

/* 1 if each of the first n chunks decoded with status 0, to its size, and
 * byte for byte to its input; 0 otherwise (*first_bad, *bad_count). */
int ocb_dev_verify(const ocb_dev_batch *b, size_t n, size_t *first_bad, size_t *bad_count);

/* Compressed sizes of the first n chunks into host `sizes`; their sum. */
uint64_t ocb_dev_comp_sizes(const ocb_dev_batch *b, size_t n, size_t *sizes);

/* Slots [from, to) become copies of slot i % period (from >= period), sizes too:
 * the compressed form of a batch whose chunks repeat with that period. */
int ocb_dev_replicate(ocb_dev_batch *b, size_t from, size_t to, size_t period);

/* Host <-> slots: count chunks starting at `first`, each host buffer
 * holding slot bytes at host + i * slot; sizes alongside. */
int ocb_dev_put_comp(ocb_dev_batch *b, size_t first, size_t count, const uint8_t *host, const size_t *sizes);
int ocb_dev_get_comp(const ocb_dev_batch *b, size_t count, uint8_t *host);

#ifdef __cplusplus
}
#endif
#endif /* OC_BENCH_DEVICE_BATCH_H */
