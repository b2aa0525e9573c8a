/*
 * run_json.h - the GPU benchmark's results and the run file it writes
 * (bench/SCHEMA.md, "tool": "oc-gpu-bench").  Plain C, no CUDA: the writer
 * is tested on the CPU (bench/gpu/test_bench_host.c writes a run file and
 * bench/test_ladder.py checks it with bench/report.py's validator).
 *
 * A row holds median seconds; the writer turns them into GB/s (uncompressed
 * bytes / time, 1 GB = 1e9 B) and, for decompression, into the roofline
 * fraction: decompress GB/s / (copy GB/s x r / (1 + r)), r = the ratio and
 * copy GB/s the device-to-device copy measured in the same run (bytes read
 * plus bytes written), the most a decoder that reads r-times-smaller input
 * and writes the output could move.
 */
#ifndef OC_BENCH_RUN_JSON_H
#define OC_BENCH_RUN_JSON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ocb_row {
    char file[160];              /* a corpus file, or the mix ("mix:11 files") */
    uint64_t file_bytes;         /* that file's bytes, or the mix's distinct bytes */
    char algorithm[16];          /* lz4, snappy, deflate, zstd, gdeflate */
    int level;                   /* 0 = the algorithm's default */
    uint64_t chunk_size;         /* nominal; the batch may hold partial chunks */
    uint64_t num_chunks;         /* chunks in the batch */
    uint64_t uncompressed_bytes; /* bytes in the batch */
    uint64_t compressed_bytes;   /* sum of the compressed chunk sizes */
    char contender[24];          /* opencomp-gpu, nvcomp-gpu, reference-cpu */
    char scope[16];              /* kernel */
    char timing[16];             /* cuda-events or wall-clock */
    int threads;                 /* > 0: written (CPU contenders) */
    double compress_s;           /* median seconds per call; < 0: not measured (null) */
    double decompress_s;
    int compress_repeats, decompress_repeats; /* timed calls behind each median */
    int compress_warmup, decompress_warmup;   /* untimed calls before them */
    int verified;          /* every output compared byte by byte, statuses and sizes checked */
    char path[16];         /* "gpu-kernel" or "host-staged" (opencomp's engine), or "" */
    char streams[96];      /* who wrote the decoded streams when not the contender itself */
    int ladder;            /* 1: a rung of the batch ladder (the fields below are written) */
    uint64_t batch_target; /* the rung asked for in bytes: 0 = one chunk (one cycle: its bytes) */
    uint64_t plan_id;      /* ocb_plan_id of the batch */
    char frame[16];        /* "zstd -3": a whole file the zstd CLI wrote, decoded as one chunk */
    long frame_blocks;
    char blosc[48]; /* a Blosc row (blosc_run.h): its case, "lz4 shuffle ts4" */
    char note[400];
} ocb_row;

/* A zeroed row with the defaults that are not zero (frame_blocks -1, no
 * timings). */
void ocb_row_init(ocb_row *r);

/* A growable list of rows, and one of strings (skips, failures). */
typedef struct ocb_rows {
    ocb_row *v;
    size_t n, cap;
} ocb_rows;
typedef struct ocb_strs {
    char **v;
    size_t n, cap;
} ocb_strs;

ocb_row *ocb_rows_push(ocb_rows *rows); /* a new initialised row, NULL if out of memory */
void ocb_rows_free(ocb_rows *rows);
void ocb_strs_add(ocb_strs *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void ocb_strs_free(ocb_strs *s);

typedef struct ocb_run_meta {
    const char *commit;
    const char *host_json;   /* an object, e.g. from ocb_host_json */
    const char *device_json; /* an object (with "d2d_copy_gbps"), or "null" */
    const char *extra_json;  /* more top-level members, `"k": v, "k2": v2`, or NULL */
    double copy_gbps;        /* for the roofline; <= 0: no roofline written */
    const ocb_strs *skipped; /* what the run left out, and why (may be NULL) */
    const ocb_strs *failures;
} ocb_run_meta;

/* Write the run file atomically (to path.tmp, then renamed): 0 on success,
 * -1 (with a message on stderr) otherwise. */
int ocb_json_write(const char *path, const ocb_run_meta *m, const ocb_rows *rows);

/* GB/s of a row's direction (< 0 when not measured), and the roofline
 * fraction of its decompression (< 0 when not measured or copy_gbps <= 0). */
double ocb_row_gbps(const ocb_row *r, double seconds);
double ocb_row_roofline(const ocb_row *r, double copy_gbps);

/* The host object as the CLI's `opencomp bench --json` writes it (CPU model,
 * usable cores, OS), so report.py sees one machine. */
void ocb_host_json(char *buf, size_t cap);

/* A JSON string literal of s (quotes included) into buf; returns buf. */
char *ocb_json_str(const char *s, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif
#endif /* OC_BENCH_RUN_JSON_H */
