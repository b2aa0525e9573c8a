/*
 * oc_internal.h - definitions shared by every part of the library but not
 * exported: the context structure, error-check macros, scratch helpers.
 *
 * Dependency order (kept): common <- cpu, cuda, format <- api.  cpu/ and
 * cuda/ do not include each other; format/ (containers) knows nothing of
 * engines and calls no codec (docs/ARCHITECTURE.md).
 */
#ifndef OC_INTERNAL_H
#define OC_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#ifdef OC_DEBUG_ERRORS
#include <stdio.h>
#endif

#include "le.h"
#include "opencomp.h"

#define OC_HIDDEN __attribute__((visibility("hidden")))

#ifdef __cplusplus /* the CUDA engine's .cu files are C++ */
extern "C" {
#endif

/* Anything read from untrusted input goes through SAFETY_CHECK: on failure
 * the function returns `status` (debug builds log file and line). */
#ifdef OC_DEBUG_ERRORS
#define OC_LOG_ERROR(st) fprintf(stderr, "opencomp: %s at %s:%d\n", oc_status_name(st), __FILE__, __LINE__)
#else
#define OC_LOG_ERROR(st) ((void)0)
#endif

#define SAFETY_CHECK(cond, status)                                                                           \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            OC_LOG_ERROR(status);                                                                            \
            return (status);                                                                                 \
        }                                                                                                    \
    } while (0)

#define RETURN_ERROR_IF(cond, status) SAFETY_CHECK(!(cond), status)

/* An options struct's struct_size is valid when it is the struct's sizeof
 * or 0: a zeroed struct means "defaults" (opencomp.h, "Options structs"),
 * read with this header's layout. */
#define OC_OPTIONS_SIZE_OK(o, type) ((o)->struct_size == sizeof(type) || (o)->struct_size == 0)

#define FORWARD_IF_ERROR(expr)                                                                               \
    do {                                                                                                     \
        oc_status fwd_st_ = (expr);                                                                          \
        if (fwd_st_ != OC_OK) {                                                                              \
            OC_LOG_ERROR(fwd_st_);                                                                           \
            return fwd_st_;                                                                                  \
        }                                                                                                    \
    } while (0)

struct oc_thread_pool; /* src/cpu/thread_pool.h */
struct oc_cpu_workers; /* src/cpu/cpu_engine.h */

/* The context: options as given (defaults resolved), the lazily started CPU
 * thread pool with one codec state per worker, and the CUDA engine's private
 * state (NULL until first use). */
struct oc_context {
    oc_context_options opts;
    int num_threads;                /* resolved: >= 1 */
    struct oc_thread_pool *pool;    /* NULL until a parallel call needs it */
    struct oc_cpu_workers *workers; /* per-worker codec state, NULL until first CPU call */
    void *cuda_state;               /* owned by src/cuda/, freed by oc_cuda_context_release */
    oc_context *staging_cpu;        /* src/api/staging.c's CPU context, NULL until device data is staged */
    void *own_stream;               /* OC_CONTEXT_OWN_STREAM: the stream made for it (NULL: none) */
};

/* oc_resolve_level maps a requested level to the one a codec runs: 0 gives
 * the algorithm's default, snappy ignores levels, and a value outside
 * oc_level_range gives INVALID_ARGUMENT (src/common/algo_table.c). */
OC_HIDDEN oc_status oc_resolve_level(oc_algorithm algorithm, int level, int *out);

/* Host scratch through the context's host allocator. */
OC_HIDDEN void *oc_host_alloc(oc_context *ctx, size_t size);
OC_HIDDEN void oc_host_free(oc_context *ctx, void *ptr, size_t size);

/* 1 if the byte ranges [a, a + an) and [b, b + bn) share a byte (empty
 * ranges share none).  Inputs and outputs of a call must not overlap
 * (include/opencomp.h); the reference libraries assume they do not. */
static inline int oc_ranges_overlap(const void *a, size_t an, const void *b, size_t bn)
{
    uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
    return a && b && an && bn && a0 < b0 + bn && b0 < a0 + an;
}

#ifdef __cplusplus
}
#endif
#endif /* OC_INTERNAL_H */
