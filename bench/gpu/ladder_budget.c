/*
 * ladder_budget.c - the repeat and skip rules of ladder_budget.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "ladder_budget.h"

#include <stdio.h>
#include <time.h>

void ocb_budget_init(ocb_budget *b, double seconds)
{
    b->deadline_s = ocb_budget_now() + seconds;
    b->rung_cap_s = 8.0;
    b->target_s = 0.5;
    b->slow_s = 1.0;
    b->max_repeats = 15;
    b->parallel_chunks = 132;
}

double ocb_budget_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

ocb_rung_plan ocb_budget_plan(const ocb_budget *b, double now, uint64_t bytes, uint64_t chunks,
                              uint64_t prev_bytes, uint64_t prev_chunks, double prev_s)
{
    ocb_rung_plan r = {1, 1, 0.0, ""};
    if (prev_bytes > 0 && prev_s > 0 && prev_chunks > 0 && chunks > 0) {
        uint64_t p = b->parallel_chunks ? b->parallel_chunks : 1;
        double side = (double)min_u64(chunks, p) / (double)min_u64(prev_chunks, p);
        r.predicted_s = prev_s * (double)bytes / (double)prev_bytes / (side > 1 ? side : 1);
    }
    r.warmup = !(r.predicted_s >= b->slow_s);
    double cost = r.predicted_s * (r.warmup + 1);
    double left = b->deadline_s - now;
    if (left <= 0) {
        r.run = 0;
        snprintf(r.why, sizeof r.why, "the run's time budget is spent");
    } else if (cost > b->rung_cap_s) {
        r.run = 0;
        snprintf(r.why, sizeof r.why, "estimated %.1f s (%s%.2f s a call) > the %.0f s cap per rung", cost,
                 r.warmup ? "warm-up + " : "", r.predicted_s, b->rung_cap_s);
    } else if (cost > left) {
        r.run = 0;
        snprintf(r.why, sizeof r.why, "estimated %.1f s, %.1f s of the run's budget left", cost, left);
    }
    return r;
}

int ocb_budget_repeats(const ocb_budget *b, double now, double call_s, double spent_s)
{
    if (!(call_s > 0))
        return b->max_repeats;
    double room = b->target_s;
    double cap = b->rung_cap_s - spent_s, left = b->deadline_s - now;
    if (cap < room)
        room = cap;
    if (left < room)
        room = left;
    double n = room / call_s;
    if (n < 1)
        return 1;
    if (n > b->max_repeats)
        return b->max_repeats;
    return (int)n;
}
