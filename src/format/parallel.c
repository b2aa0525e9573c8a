/*
 * parallel.c - see parallel.h.  Work items are claimed through one atomic
 * counter, so uneven chunks balance themselves.
 */
#include "parallel.h"

#include <pthread.h>
#include <stdatomic.h>

#define MAX_THREADS 64
#define MIN_PARALLEL_BYTES ((uint64_t)1 << 20)

typedef struct job {
    oc_parallel_fn fn;
    void *arg;
    size_t n;
    atomic_size_t next;
} job;

static void *worker(void *p)
{
    job *j = (job *)p;
    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->n)
            break;
        j->fn(j->arg, i);
    }
    return NULL;
}

void oc_parallel_for(int threads, size_t n, uint64_t work_bytes, oc_parallel_fn fn, void *arg)
{
    job j;
    j.fn = fn;
    j.arg = arg;
    j.n = n;
    atomic_init(&j.next, 0);
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    if ((size_t)threads > n)
        threads = (int)n;
    if (threads <= 1 || work_bytes < MIN_PARALLEL_BYTES) {
        worker(&j);
        return;
    }
    pthread_t tid[MAX_THREADS];
    int started = 0;
    for (int t = 1; t < threads; t++) {
        if (pthread_create(&tid[started], NULL, worker, &j) != 0)
            break; /* fewer threads; the work still gets done below */
        started++;
    }
    worker(&j);
    for (int t = 0; t < started; t++)
        pthread_join(tid[t], NULL);
}
