/*
 * event_timer.cu - CUDA-event timing of batched calls (event_timer.h).
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "event_timer.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Seconds of one call between two events on stream 0; < 0 on failure. */
static double one_call(ocb_call_fn fn, void *arg, cudaEvent_t a, cudaEvent_t b)
{
    if (cudaEventRecord(a, 0) != cudaSuccess)
        return -1;
    int rc = fn(arg);
    if (cudaEventRecord(b, 0) != cudaSuccess || cudaEventSynchronize(b) != cudaSuccess || rc != 0)
        return -1;
    float ms = 0;
    if (cudaEventElapsedTime(&ms, a, b) != cudaSuccess || cudaGetLastError() != cudaSuccess)
        return -1;
    return ms * 1e-3;
}

ocb_timing ocb_time_rung(ocb_call_fn fn, void *arg, const ocb_budget *b, const ocb_rung_plan *plan)
{
    ocb_timing t = {0, 0, 0, 0, 0};
    double t0 = ocb_budget_now();
    cudaEvent_t ea, eb;
    if (cudaEventCreate(&ea) != cudaSuccess)
        return t;
    if (cudaEventCreate(&eb) != cudaSuccess) {
        cudaEventDestroy(ea);
        return t;
    }
    double call_s = plan->predicted_s;
    if (plan->warmup) {
        call_s = one_call(fn, arg, ea, eb);
        t.warmup = 1;
    }
    int reps = call_s < 0 ? 0 : ocb_budget_repeats(b, ocb_budget_now(), call_s, ocb_budget_now() - t0);
    double *times = (double *)malloc((size_t)(reps > 0 ? reps : 1) * sizeof *times);
    int done = 0;
    while (times && done < reps) {
        double s = one_call(fn, arg, ea, eb);
        if (s < 0)
            break;
        times[done++] = s;
    }
    if (times && done == reps && reps > 0) {
        qsort(times, (size_t)done, sizeof *times, cmp_double);
        t.ok = 1;
        t.repeats = done;
        /* the median; for an even count the mean of the middle two */
        t.median_s = done % 2 ? times[done / 2] : 0.5 * (times[done / 2 - 1] + times[done / 2]);
    }
    free(times);
    cudaEventDestroy(ea);
    cudaEventDestroy(eb);
    t.spent_s = ocb_budget_now() - t0;
    return t;
}

typedef struct copy_arg {
    void *dst;
    const void *src;
    size_t bytes;
} copy_arg;

static int copy_call(void *arg)
{
    copy_arg *c = (copy_arg *)arg;
    return cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, 0) == cudaSuccess ? 0 : -1;
}

double ocb_copy_gbps(size_t bytes)
{
    void *a = NULL, *b = NULL;
    double gbps = 0;
    if (cudaMalloc(&a, bytes) == cudaSuccess && cudaMalloc(&b, bytes) == cudaSuccess &&
        cudaMemset(a, 1, bytes) == cudaSuccess) {
        ocb_budget budget;
        ocb_budget_init(&budget, 60);
        budget.max_repeats = 5;
        budget.target_s = 1e9; /* always the 5 calls */
        ocb_rung_plan plan = {1, 1, 0, ""};
        copy_arg c = {b, a, bytes};
        ocb_timing t = ocb_time_rung(copy_call, &c, &budget, &plan);
        if (t.ok && t.median_s > 0)
            gbps = 2.0 * (double)bytes / t.median_s / 1e9;
    }
    cudaFree(a);
    cudaFree(b);
    (void)cudaGetLastError();
    return gbps;
}

ocb_timing ocb_time_wall(ocb_call_fn fn, void *arg, const ocb_budget *b, const ocb_rung_plan *plan)
{
    ocb_timing t = {0, 0, 0, 0, 0};
    double t0 = ocb_budget_now(), call_s = plan->predicted_s;
    if (plan->warmup) {
        double a = ocb_budget_now();
        if (fn(arg) != 0)
            return t;
        call_s = ocb_budget_now() - a;
        t.warmup = 1;
    }
    int reps = ocb_budget_repeats(b, ocb_budget_now(), call_s, ocb_budget_now() - t0);
    double times[64];
    if (reps > 64)
        reps = 64;
    for (int i = 0; i < reps; i++) {
        double a = ocb_budget_now();
        if (fn(arg) != 0)
            return t;
        times[i] = ocb_budget_now() - a;
    }
    if (reps > 0) {
        qsort(times, (size_t)reps, sizeof times[0], cmp_double);
        t.ok = 1;
        t.repeats = reps;
        t.median_s = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);
    }
    t.spent_s = ocb_budget_now() - t0;
    return t;
}
