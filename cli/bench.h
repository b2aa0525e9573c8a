/*
 * bench.h - what the parts of `opencomp bench` share: the inputs, one
 * result row per (input, algorithm, level, chunk size, contender, scope),
 * the reference-library codecs, the built-in sample and the reporters.
 * The JSON layout is the project's bench schema (docs/CLI.md).
 */
#ifndef OC_CLI_BENCH_H
#define OC_CLI_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"

typedef struct bench_input {
    char name[256];
    uint8_t *data;
    size_t size;
} bench_input;

typedef struct bench_result {
    const char *file;
    uint64_t file_bytes;
    oc_algorithm algorithm;
    int level;
    size_t chunk_size;
    uint64_t num_chunks;
    const char *contender; /* opencomp-cpu, reference-cpu, opencomp-gpu */
    int threads;           /* 0 for GPU rows (null in JSON) */
    uint64_t uncompressed_bytes;
    uint64_t compressed_bytes;
    double ratio;
    double compress_gbps;
    double decompress_gbps;
    const char *timing; /* "wall-clock" */
    int repeats;
    const char *scope; /* "kernel" (batched chunks) or "end-to-end" (whole-buffer API) */
    int verified;
    int failed; /* the contender could not run (no row figures) */
} bench_result;

/* bench_sample.c: the built-in sample, four named parts (~16 MiB in all),
 * deterministic.  Returns the number of parts written to inputs[] (4), or
 * -1 when out of memory. */
int cli_bench_sample(bench_input *inputs, int max_inputs);

/* bench_ref.c: the reference library of `algorithm`, called directly and
 * single-threaded.  A state holds the library's contexts for one level. */
typedef struct bench_ref bench_ref;
/* 1 when `algorithm` has a reference library to compare with (the
 * standard formats); 0 for opencomp's own formats. */
int cli_ref_available(oc_algorithm algorithm);
bench_ref *cli_ref_create(oc_algorithm algorithm, int level);
void cli_ref_destroy(bench_ref *ref);
size_t cli_ref_bound(bench_ref *ref, size_t n);
/* Returns the compressed size, 0 on failure. */
size_t cli_ref_compress(bench_ref *ref, const void *src, size_t n, void *dst, size_t cap);
/* Returns 0 when exactly `n` bytes were decoded, -1 otherwise. */
int cli_ref_decompress(bench_ref *ref, const void *src, size_t src_n, void *dst, size_t n);

/* bench_report.c: the table on stdout and the JSON file. */
void cli_bench_print_header(FILE *f);
void cli_bench_print_row(FILE *f, const bench_result *r);
int cli_bench_write_json(const char *path, const bench_result *rows, size_t n, int with_gpu);

/* Median of n doubles (sorts in place). */
double cli_median(double *v, int n);

#endif /* OC_CLI_BENCH_H */
