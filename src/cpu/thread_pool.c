/*
 * thread_pool.c - the CPU engine's worker threads (see thread_pool.h).
 *
 * One job at a time: the caller publishes (fn, arg, n), bumps a generation
 * number and wakes the threads; everybody, the caller included, takes item
 * indices from one atomic counter until none are left; the caller waits
 * until every thread has left the job.  Worker indices are fixed per thread
 * (caller = 0), which is what lets codec state be per worker.
 */
#define _POSIX_C_SOURCE 200809L
#include "thread_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/types.h>
#include <unistd.h>

struct oc_thread_pool {
    pid_t pid;   /* the process whose threads these are (fork: see oc_thread_pool_forked) */
    int size;    /* workers including the caller */
    int started; /* threads actually running */
    pthread_t *threads;
    pthread_mutex_t mu;
    pthread_cond_t wake; /* a new job or stop */
    pthread_cond_t done; /* the last thread left the job */
    uint64_t generation;
    int stop;
    int busy; /* threads still inside the current job */
    oc_pool_fn fn;
    void *arg;
    size_t n;
    atomic_size_t next;
};

struct thread_start {
    oc_thread_pool *pool;
    int worker;
};

static void work(oc_thread_pool *pool, int worker)
{
    for (;;) {
        size_t i = atomic_fetch_add_explicit(&pool->next, 1, memory_order_relaxed);
        if (i >= pool->n)
            break;
        pool->fn(pool->arg, i, worker);
    }
}

static void *thread_main(void *p)
{
    struct thread_start *ts = p;
    oc_thread_pool *pool = ts->pool;
    int worker = ts->worker;
    free(ts);
    uint64_t seen = 0;
    pthread_mutex_lock(&pool->mu);
    for (;;) {
        while (!pool->stop && pool->generation == seen)
            pthread_cond_wait(&pool->wake, &pool->mu);
        if (pool->stop)
            break;
        seen = pool->generation;
        pthread_mutex_unlock(&pool->mu);
        work(pool, worker);
        pthread_mutex_lock(&pool->mu);
        if (--pool->busy == 0)
            pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->mu);
    return NULL;
}

oc_thread_pool *oc_thread_pool_create(int num_threads)
{
    if (num_threads < 1)
        num_threads = 1;
    oc_thread_pool *pool = calloc(1, sizeof(*pool));
    if (!pool)
        return NULL;
    pool->pid = getpid();
    pool->size = num_threads;
    atomic_init(&pool->next, 0);
    if (pthread_mutex_init(&pool->mu, NULL) != 0) {
        free(pool);
        return NULL;
    }
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    if (num_threads > 1) {
        pool->threads = calloc((size_t)num_threads - 1, sizeof(pthread_t));
        if (!pool->threads)
            goto fail;
        for (int w = 1; w < num_threads; w++) {
            struct thread_start *ts = malloc(sizeof(*ts));
            if (!ts)
                goto fail;
            ts->pool = pool;
            ts->worker = w;
            if (pthread_create(&pool->threads[w - 1], NULL, thread_main, ts) != 0) {
                free(ts);
                goto fail;
            }
            pool->started++;
        }
    }
    return pool;
fail:
    oc_thread_pool_destroy(pool);
    return NULL;
}

int oc_thread_pool_forked(const oc_thread_pool *pool)
{
    return pool && pool->pid != getpid();
}

void oc_thread_pool_destroy(oc_thread_pool *pool)
{
    if (!pool)
        return;
    if (oc_thread_pool_forked(pool)) {
        /* A copy in a forked child: its threads exist only in the parent
         * and its mutex may have been held there at the fork.  Free the
         * memory, touch nothing else. */
        free(pool->threads);
        free(pool);
        return;
    }
    pthread_mutex_lock(&pool->mu);
    pool->stop = 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mu);
    for (int i = 0; i < pool->started; i++)
        pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->mu);
    free(pool->threads);
    free(pool);
}

int oc_thread_pool_size(const oc_thread_pool *pool)
{
    return pool ? pool->size : 1;
}

void oc_thread_pool_run(oc_thread_pool *pool, size_t n, oc_pool_fn fn, void *arg)
{
    if (n == 0)
        return;
    if (!pool || pool->started == 0 || n == 1) {
        for (size_t i = 0; i < n; i++)
            fn(arg, i, 0);
        return;
    }
    pthread_mutex_lock(&pool->mu);
    pool->fn = fn;
    pool->arg = arg;
    pool->n = n;
    atomic_store_explicit(&pool->next, 0, memory_order_relaxed);
    pool->busy = pool->started;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mu);

    work(pool, 0);

    pthread_mutex_lock(&pool->mu);
    while (pool->busy > 0)
        pthread_cond_wait(&pool->done, &pool->mu);
    pthread_mutex_unlock(&pool->mu);
}
