/*
 * cpu_codec.h - the internal interface every CPU codec implements (one file
 * per format, in codecs/<algorithm>/),
 * and the per-worker state they keep between calls.
 *
 * A codec function runs one chunk on one worker.  It gets that worker's
 * state (reference-library contexts created on first use, a scratch
 * buffer), never shares it, and returns an exact oc_status; it never reads
 * src past src_size nor writes dst past dst_capacity.
 */
#ifndef OC_CPU_CODEC_H
#define OC_CPU_CODEC_H

#include "../common/oc_internal.h"

#define OC_SCRATCH_SIZE ((size_t)1 << 17)

/* One worker's codec state; every member is created on first use.  Each
 * codec keeps its own state (a struct of its choosing) in the slot of its
 * algorithm, through oc_worker_state, and frees what it holds in release. */
typedef struct oc_cpu_worker {
    oc_context *ctx;
    void *state[OC_ALGO_COUNT]; /* per codec, at its algorithm's index */
    size_t state_size[OC_ALGO_COUNT];
    uint8_t *scratch; /* OC_SCRATCH_SIZE bytes */
    uint8_t *big;     /* grown on demand (snappy compress into a small output) */
    size_t big_size;
    uint8_t *filt; /* the shuffle filter's copy of a chunk (cpu_engine.c): never a codec's (big) */
    size_t filt_size;
    uint64_t memory_limit;        /* set per size count: the largest zstd window it may allocate */
    const oc_codec_options *opts; /* set per compression: the call's options (may be NULL) */
} oc_cpu_worker;

/* The codec state in slot `slot` (the codec's algorithm), `size` zeroed
 * bytes created on first use (through the context's host allocator; freed
 * with the worker after the codec's release); NULL on OOM. */
OC_HIDDEN void *oc_worker_state(oc_cpu_worker *w, unsigned slot, size_t size);
/* The worker's scratch buffer (OC_SCRATCH_SIZE bytes), or NULL on OOM. */
OC_HIDDEN uint8_t *oc_worker_scratch(oc_cpu_worker *w);
/* A buffer of at least `size` bytes owned by the worker, or NULL on OOM. */
OC_HIDDEN uint8_t *oc_worker_big(oc_cpu_worker *w, size_t size);

/* A codec of the CPU engine; the algorithm table (src/common/algo_table.c)
 * names it in each of its algorithms' rows (bounds and levels live there). */
typedef struct oc_cpu_codec {
    /* level is already resolved (oc_resolve_level). */
    oc_status (*compress)(oc_cpu_worker *w, oc_algorithm algo, int level, const uint8_t *src, size_t src_size,
                          uint8_t *dst, size_t dst_capacity, size_t *dst_size);
    oc_status (*decompress)(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t src_size,
                            uint8_t *dst, size_t dst_capacity, size_t *dst_size);
    /* The decompressed size; statuses as decompress would return them when
     * given enough room. */
    oc_status (*decompressed_size)(oc_cpu_worker *w, oc_algorithm algo, const uint8_t *src, size_t src_size,
                                   size_t *size);
    /* Frees what this codec created in w (NULL members skipped). */
    void (*release)(oc_cpu_worker *w);
} oc_cpu_codec;

/* The codec of an algorithm (its table row's), NULL for NONE, invalid
 * values and algorithms without a CPU codec. */
OC_HIDDEN const oc_cpu_codec *oc_cpu_codec_for(oc_algorithm algo);

/* gzip members with gzip -d's tolerance of trailing bytes (codec_deflate.c):
 * decodes (dst != NULL, into dst[0..cap)) or counts (dst == NULL) the
 * members at src, stopping after the last member where the bytes that
 * follow (after any zero padding) do not begin another member; *end gets
 * where the last member ends, *out the decoded bytes. */
OC_HIDDEN oc_status oc_gzip_extent(oc_cpu_worker *w, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                                   size_t *end, size_t *out);

#endif /* OC_CPU_CODEC_H */
