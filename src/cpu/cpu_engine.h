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

OC_HIDDEN oc_status oc_cpu_batch_compress(oc_context *ctx, oc_algorithm algo, int level, size_t n,
                                          const void *const *src_ptrs, const size_t *src_sizes,
                                          void *const *dst_ptrs, const size_t *dst_capacities,
                                          size_t *dst_sizes, oc_status *statuses);
/* algo may be OC_ALGO_NONE: detected per chunk from its magic number. */
OC_HIDDEN oc_status oc_cpu_batch_decompress(oc_context *ctx, oc_algorithm algo, size_t n,
                                            const void *const *src_ptrs, const size_t *src_sizes,
                                            void *const *dst_ptrs, const size_t *dst_capacities,
                                            size_t *dst_sizes, oc_status *statuses);
OC_HIDDEN oc_status oc_cpu_batch_decompressed_sizes(oc_context *ctx, oc_algorithm algo, size_t n,
                                                    const void *const *src_ptrs, const size_t *src_sizes,
                                                    size_t *sizes, oc_status *statuses);
/* Worst-case compressed size of one chunk (0 over the format's limit). */
OC_HIDDEN size_t oc_cpu_compress_bound(oc_algorithm algo, size_t src_size);
/* Detects zstd, gzip or zlib from the first bytes; OC_ALGO_NONE if none. */
OC_HIDDEN oc_algorithm oc_cpu_detect_algorithm(const uint8_t *src, size_t src_size);
/* 1 if the CPU engine has a codec for algo (both directions). */
OC_HIDDEN int oc_cpu_codec_available(oc_algorithm algo);
/* Frees the pool and every worker's state (called by oc_context_destroy). */
OC_HIDDEN void oc_cpu_engine_release(oc_context *ctx);

#endif /* OC_CPU_ENGINE_H */
