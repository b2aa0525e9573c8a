/*
 * parallel.h - a minimal parallel-for over pthreads for the containers'
 * per-chunk checksum work.  The CPU engine's thread pool belongs to the
 * engine (containers know nothing of engines), so this spawns short-lived
 * threads per call; calls are made once per group of many chunks, so the
 * spawn cost is noise.
 */
#ifndef OC_FORMAT_PARALLEL_H
#define OC_FORMAT_PARALLEL_H

#include "../common/oc_internal.h"

typedef void (*oc_parallel_fn)(void *arg, size_t index);

/* Runs fn(arg, i) for every i in [0, n) on up to `threads` threads (the
 * calling thread included) and returns when all are done.  Runs serially
 * when threads <= 1, n is small, or `work_bytes` is small. */
OC_HIDDEN void oc_parallel_for(int threads, size_t n, uint64_t work_bytes, oc_parallel_fn fn, void *arg);

#endif /* OC_FORMAT_PARALLEL_H */
