/*
 * cpu_engine.h - the CPU engine as the API layer sees it: the batched calls
 * run on the context's thread pool, one codec call per chunk, and the
 * per-context worker state that is freed with the context.  Arguments are
 * already checked by src/api/batch.c (non-NULL arrays, valid algorithm,
 * level resolved).
 */
#ifndef OC_CPU_ENGINE_H
#define OC_CPU_ENGINE_H

#include "../common/oc_internal.h"

/* opts: the call's options (filter, typesize, Blosc's settings; checked by
 * src/api), or NULL for none.  A filter on any algorithm but Blosc is run
 * here around the codec (shuffle.h): compression shuffles each chunk into
 * the worker's buffer first, decoding unshuffles each decoded chunk.
 * opts->kind WITH_UNCOMPRESSED_SIZE: each chunk is an 8-byte header
 * (common/wus.h) and its stream; compression writes it, decoding reads and
 * guards it (TRUNCATED, CORRUPT for a hostile size, OUTPUT_TOO_SMALL when
 * it exceeds the capacity, SIZE_MISMATCH when the stream disagrees). */
OC_HIDDEN oc_status oc_cpu_batch_compress(oc_context *ctx, const oc_codec_options *opts, oc_algorithm algo,
                                          int level, size_t n, const void *const *src_ptrs,
                                          const size_t *src_sizes, void *const *dst_ptrs,
                                          const size_t *dst_capacities, size_t *dst_sizes,
                                          oc_status *statuses);
/* algo may be OC_ALGO_NONE: detected per chunk from its magic number
 * (oc_algo_detect).  An algorithm without a CPU codec is UNSUPPORTED. */
OC_HIDDEN oc_status oc_cpu_batch_decompress(oc_context *ctx, const oc_codec_options *opts, oc_algorithm algo,
                                            size_t n, const void *const *src_ptrs, const size_t *src_sizes,
                                            void *const *dst_ptrs, const size_t *dst_capacities,
                                            size_t *dst_sizes, oc_status *statuses);
/* opts (may be NULL): memory_limit, the largest zstd window a size count
 * may allocate (0 = the default), and kind: with WITH_UNCOMPRESSED_SIZE the
 * sizes are the chunks' headers (guarded, common/wus.h), no stream is read. */
OC_HIDDEN oc_status oc_cpu_batch_decompressed_sizes(oc_context *ctx, const oc_codec_options *opts,
                                                    oc_algorithm algo, size_t n, const void *const *src_ptrs,
                                                    const size_t *src_sizes, size_t *sizes,
                                                    oc_status *statuses);
/* gzip data followed by bytes that do not begin a member (zero padding,
 * trailing garbage), as gzip -d reads it, for the whole-buffer layer:
 * decodes into dst (or counts with dst NULL) on the calling thread; *end =
 * where the gzip data ends in src, *out = the decoded size. */
OC_HIDDEN oc_status oc_cpu_gzip_extent(oc_context *ctx, const uint8_t *src, size_t n, uint8_t *dst,
                                       size_t cap, size_t *end, size_t *out);
/* Frees the pool and every worker's state (called by oc_context_destroy). */
OC_HIDDEN void oc_cpu_engine_release(oc_context *ctx);

#endif /* OC_CPU_ENGINE_H */
