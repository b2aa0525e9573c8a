/*
 * thread_pool.h - a small pthread pool for parallel-for over the chunks of
 * a batch.  Threads start once (lazily, by the first parallel call) and are
 * reused by every later call of the context; the calling thread works too,
 * as worker 0.  Items are handed out one at a time from an atomic counter
 * (dynamic distribution: chunks of very different cost balance out), and
 * each call of `fn` gets the index of the worker running it, so a worker can
 * keep its own codec state without locks.
 */
#ifndef OC_THREAD_POOL_H
#define OC_THREAD_POOL_H

#include "../common/oc_internal.h"

typedef struct oc_thread_pool oc_thread_pool;

/* fn(arg, item, worker): process item `item` (0 <= item < n) on worker
 * `worker` (0 <= worker < oc_thread_pool_size(pool)). */
typedef void (*oc_pool_fn)(void *arg, size_t item, int worker);

/* oc_thread_pool_create starts num_threads - 1 threads (the caller is the
 * last worker) and returns NULL on failure. */
OC_HIDDEN oc_thread_pool *oc_thread_pool_create(int num_threads);
/* oc_thread_pool_forked: 1 if the pool was created in another process (this
 * is a forked child's copy, without threads): the caller makes a new one. */
OC_HIDDEN int oc_thread_pool_forked(const oc_thread_pool *pool);
/* oc_thread_pool_destroy stops and joins the threads; NULL is a no-op.  A
 * forked child's copy is only freed. */
OC_HIDDEN void oc_thread_pool_destroy(oc_thread_pool *pool);
OC_HIDDEN int oc_thread_pool_size(const oc_thread_pool *pool);

/* oc_thread_pool_run calls fn for every item in [0, n) across the workers
 * and returns when all calls have returned.  Not reentrant: one run at a
 * time per pool (a context is used by one thread at a time). */
OC_HIDDEN void oc_thread_pool_run(oc_thread_pool *pool, size_t n, oc_pool_fn fn, void *arg);

#endif /* OC_THREAD_POOL_H */
