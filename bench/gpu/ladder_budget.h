/*
 * ladder_budget.h - how many calls each rung of the GPU benchmark's ladder
 * gets, and which rungs are skipped, so that a whole full-scale run fits one
 * device command (bench/README.md, "Full scale").  Plain C, no CUDA: tested
 * on the CPU by bench/gpu/test_bench_host.c.
 *
 * The rules, per rung of one cell (contender, codec, chunk size, direction):
 *   - the call time is predicted from the previous rung of the same cell:
 *     scaled by bytes, divided by the growth in chunks that can run side by
 *     side (up to parallel_chunks, one per SM: a batch of 8 chunks takes
 *     about as long as one until the GPU fills);
 *   - a call predicted to take at least slow_s gets no warm-up (its own
 *     time dwarfs any first-call cost); every other rung is warmed up once;
 *   - a rung whose warm-up plus one timed call would pass rung_cap_s, or the
 *     run's deadline, is skipped (the caller says so in the output);
 *   - the timed calls aim at target_s in total: between 1 and max_repeats,
 *     fewer when the cap or the deadline is near.  The median is reported.
 */
#ifndef OC_BENCH_LADDER_BUDGET_H
#define OC_BENCH_LADDER_BUDGET_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ocb_budget {
    double deadline_s; /* on ocb_budget_now()'s clock: no rung starts after it */
    double rung_cap_s; /* most seconds one rung may take, warm-up included */
    double target_s;   /* the timed calls of a rung aim at this many seconds */
    double slow_s;     /* calls predicted this long or longer get no warm-up */
    int max_repeats;
    uint64_t parallel_chunks; /* chunks the device runs side by side (its SM count) */
} ocb_budget;

/* Defaults (rung cap 8 s, target 0.5 s, slow 1 s, 15 repeats, 132 chunks
 * side by side) and a deadline `seconds` from now. */
void ocb_budget_init(ocb_budget *b, double seconds);

/* Seconds on a monotonic clock. */
double ocb_budget_now(void);

typedef struct ocb_rung_plan {
    int run;            /* 0: skip this rung */
    int warmup;         /* 1: one untimed call first */
    double predicted_s; /* per call; 0 = unknown (no earlier rung) */
    char why[160];      /* when run == 0: the reason, for the output */
} ocb_rung_plan;

/* Plan a rung of `bytes` in `chunks` at time `now`; prev_* = the previous
 * rung of the same cell (all 0 when there is none). */
ocb_rung_plan ocb_budget_plan(const ocb_budget *b, double now, uint64_t bytes, uint64_t chunks,
                              uint64_t prev_bytes, uint64_t prev_chunks, double prev_s);

/* Timed calls once one call is known to take call_s (the warm-up's time,
 * or the prediction when there was no warm-up), `spent_s` already spent on
 * this rung, at time `now`: 1..max_repeats. */
int ocb_budget_repeats(const ocb_budget *b, double now, double call_s, double spent_s);

#ifdef __cplusplus
}
#endif
#endif /* OC_BENCH_LADDER_BUDGET_H */
