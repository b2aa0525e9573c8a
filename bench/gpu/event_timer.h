/*
 * event_timer.h - kernel time of one batched call by CUDA events, as
 * nvCOMP's benchmarks take it: an event recorded on the stream before and
 * after the call, the elapsed time between them, the median over the timed
 * calls after the warm-up that ladder_budget.h decided.  Also the
 * device-to-device copy bandwidth, the roofline every decode row is scaled by.
 *
 * Every call runs on the legacy default stream (0), where both libraries'
 * contexts enqueue their work.
 */
#ifndef OC_BENCH_EVENT_TIMER_H
#define OC_BENCH_EVENT_TIMER_H

#include <stddef.h>

#include "ladder_budget.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One batched call: enqueue it on stream 0; 0 if it was launched. */
typedef int (*ocb_call_fn)(void *arg);

typedef struct ocb_timing {
    int ok;          /* 0: a call failed to launch or CUDA reported an error */
    double median_s; /* median seconds of the timed calls */
    int repeats;     /* timed calls */
    int warmup;      /* untimed calls before them */
    double spent_s;  /* wall seconds the rung took, warm-up included */
} ocb_timing;

/* Time fn as the rung plan says (plan->run must be 1). */
ocb_timing ocb_time_rung(ocb_call_fn fn, void *arg, const ocb_budget *b, const ocb_rung_plan *plan);

/* The same rules by the wall clock, for a call that runs on the host (a
 * CPU engine decoding host memory): fn returns when its work is done. */
ocb_timing ocb_time_wall(ocb_call_fn fn, void *arg, const ocb_budget *b, const ocb_rung_plan *plan);

/* Device-to-device copy of `bytes` (cudaMemcpyAsync), bytes read + written
 * per second: the median of 5 after a warm-up; 0 on a CUDA error. */
double ocb_copy_gbps(size_t bytes);

#ifdef __cplusplus
}
#endif
#endif /* OC_BENCH_EVENT_TIMER_H */
