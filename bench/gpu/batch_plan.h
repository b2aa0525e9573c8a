/*
 * batch_plan.h - which bytes make up each batch of the GPU benchmark's
 * ladder (bench/README.md, "Full scale"): plain C, no CUDA, so the same
 * rules are tested on a machine with no GPU (bench/gpu/test_bench_host.c)
 * and mirrored line for line by bench/gpu/batch_plan.py for the Python rows.
 *
 * A plan takes the corpus files and a chunk size.  Every file is cut into
 * chunks (its last one partial); one "cycle" is all of those chunks, mixed
 * so that any prefix of it holds every file in proportion to its size: the
 * j-th of a file's n chunks sits at (2j+1)/(2n) of the cycle, ties broken by
 * file order.  A batch of N chunks is the first N chunks of the cycle
 * repeated as often as needed, so a 1 GiB batch built from 88 MiB of corpus
 * is that corpus about 12 times, and every smaller rung of the ladder is a
 * prefix of the larger ones (one upload serves them all).
 *
 * In memory a batch is one buffer: chunk i starts at a 256-byte aligned
 * offset (what every decoder asks of its output pointers), with no gap when
 * chunks are whole multiples of 256 bytes.
 */
#ifndef OC_BENCH_BATCH_PLAN_H
#define OC_BENCH_BATCH_PLAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define OCB_ALIGN 256 /* alignment of every chunk in a batch buffer */

/* One chunk of the cycle: bytes [offset, offset + size) of file `file`. */
typedef struct ocb_chunk {
    uint32_t file;
    uint32_t size;
    uint64_t offset;
} ocb_chunk;

typedef struct ocb_plan {
    size_t chunk_size;
    size_t nfiles;
    size_t ndistinct;        /* chunks in one cycle */
    uint64_t distinct_bytes; /* bytes in one cycle (the corpus) */
    ocb_chunk *order;        /* ndistinct chunks in cycle order */
    uint64_t *prefix;        /* ndistinct + 1: bytes of the cycle's first k chunks */
    uint64_t *aligned;       /* ndistinct + 1: their buffer offsets (256-byte aligned) */
} ocb_plan;

/* ocb_plan_make fills *p for files of the given sizes (each > 0) and a
 * chunk size in [1, 2^31]; 0 on success, -1 on a bad argument or no memory.
 * ocb_plan_free releases it (a zeroed plan is fine). */
int ocb_plan_make(ocb_plan *p, const uint64_t *file_sizes, size_t nfiles, size_t chunk_size);
void ocb_plan_free(ocb_plan *p);

/* Chunk i of any batch (i may exceed the cycle: batches repeat it). */
const ocb_chunk *ocb_plan_chunk(const ocb_plan *p, size_t i);
/* Uncompressed bytes of the first n chunks of a batch. */
uint64_t ocb_plan_bytes(const ocb_plan *p, size_t n);

/* Chunks of the rung `target` bytes: the fewest whose sizes add up to at
 * least target (1 for target 0, "one chunk"); OCB_RUNG_CYCLE = one whole
 * cycle.  *bytes gets their total (may be NULL). */
#define OCB_RUNG_CYCLE UINT64_MAX
size_t ocb_plan_rung_chunks(const ocb_plan *p, uint64_t target, uint64_t *bytes);

/* Byte offset of chunk i in a batch buffer laid out as said above; the
 * buffer of n chunks needs ocb_plan_buffer_bytes(p, n) bytes. */
uint64_t ocb_plan_offset(const ocb_plan *p, size_t i);
uint64_t ocb_plan_buffer_bytes(const ocb_plan *p, size_t n);

/* The batch's identity: FNV-1a 64 over "name:offset:size\n" of its first n
 * chunks, names[file] being each file's base name.  batch_plan.py computes
 * the same value, so rows of both programs show they timed the same bytes. */
uint64_t ocb_plan_id(const ocb_plan *p, const char *const *names, size_t n);

/* Parse a ladder rung: "1c" (one chunk: 0), "64K", "1M", "1G" (binary
 * units; a bare number is bytes), "all" (OCB_RUNG_CYCLE).  0 on success,
 * -1 on anything else. */
int ocb_parse_rung(const char *s, uint64_t *target);
/* Parse a byte size with an optional K/M/G suffix (binary); -1 if bad or 0. */
int ocb_parse_bytes(const char *s, uint64_t *bytes);
/* "64 KiB", "1 GiB", "1234567 B": a short label of a byte count into buf. */
const char *ocb_human_bytes(uint64_t n, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* OC_BENCH_BATCH_PLAN_H */
