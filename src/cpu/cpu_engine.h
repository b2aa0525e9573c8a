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
/* algo may be OC_ALGO_NONE: detected per chunk from its magic number
 * (oc_algo_detect).  An algorithm without a CPU codec is UNSUPPORTED. */
OC_HIDDEN oc_status oc_cpu_batch_decompress(oc_context *ctx, oc_algorithm algo, size_t n,
                                            const void *const *src_ptrs, const size_t *src_sizes,
                                            void *const *dst_ptrs, const size_t *dst_capacities,
                                            size_t *dst_sizes, oc_status *statuses);
OC_HIDDEN oc_status oc_cpu_batch_decompressed_sizes(oc_context *ctx, oc_algorithm algo, size_t n,
                                                    const void *const *src_ptrs, const size_t *src_sizes,
                                                    size_t *sizes, oc_status *statuses);
/* Frees the pool and every worker's state (called by oc_context_destroy). */
OC_HIDDEN void oc_cpu_engine_release(oc_context *ctx);

#endif /* OC_CPU_ENGINE_H */
