/*
 * ladder_run.h - the batch ladder of the GPU benchmark: for every chunk
 * size, codec and contender, one batched call per rung (1 chunk, 1 MiB,
 * 32 MiB, 256 MiB, 1 GiB by default), compression then decompression, every
 * output verified, the streams cross-decoded (by the CPU reference library
 * and by the other GPU library), and for the chosen chunk sizes the streams
 * the stock CPU libraries write decoded too (and, on request, decoded by
 * opencomp's CPU engine, and each contender's streams decoded by the others,
 * timed).  bench/README.md ("Full scale") says how to read the rows.
 */
#ifndef OC_BENCH_LADDER_RUN_H
#define OC_BENCH_LADDER_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "contender.h"
#include "ladder_budget.h"
#include "run_json.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The files one plan is made of: the whole corpus, or one file. */
typedef struct ocb_mix {
    const char *label; /* the rows' "file" */
    size_t nfiles;
    const char *const *names; /* base names (the batch identity) */
    const uint8_t *const *data;
    const uint64_t *sizes;
    int per_file; /* 1: one file per call (--per-file): its whole-file rung is a plain per-file row */
} ocb_mix;

typedef struct ocb_ladder_opts {
    const char *const *codecs;
    size_t ncodecs;
    const uint64_t *chunks;
    size_t nchunks;
    const uint64_t *rungs; /* targets, as ocb_parse_rung gives them */
    size_t nrungs;
    const uint64_t *stock_chunks; /* chunk sizes whose stock streams are decoded too */
    size_t nstock;
    const ocb_contender *const *contenders;
    size_t ncontenders;
    const int *deflate_levels; /* opencomp's levels of deflate's family (--deflate-level), each its */
    size_t ndeflate_levels;    /* own rows; 0 levels: the contender's current level */
    int threads;               /* CPU threads for the reference libraries (and --stock-cpu) */
    uint64_t check_bytes;      /* the rung the cross-decoding runs on */
    int foreign;    /* 1 (--foreign): every other contender's decoding of a contender's streams timed too */
    int stock_only; /* 1 (--stock-only): only the stock streams' rows, not the contenders' own */
    int stock_cpu;  /* 1 (--stock-cpu): the stock streams decoded by opencomp's CPU engine on `threads` too */
} ocb_ladder_opts;

/* Where results go, and the clock they run against. */
typedef struct ocb_sink {
    ocb_rows rows;
    ocb_strs skipped, failures;
    ocb_budget budget;
    double copy_gbps;
    void (*flush)(struct ocb_sink *); /* rewrite the run file with what is measured so far */
} ocb_sink;

/* Run the ladder over one mix; rows, skips and failures go to the sink. */
void ocb_ladder_mix(ocb_sink *sink, const ocb_ladder_opts *o, const ocb_mix *mix);

#ifdef __cplusplus
}
#endif
#endif /* OC_BENCH_LADDER_RUN_H */
