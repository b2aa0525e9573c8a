/*
 * bench_report.c - how `opencomp bench` reports: a fixed-width table on
 * stdout (one row per input, algorithm, chunk size, contender and scope)
 * and, with --json FILE, the project's bench schema (docs/CLI.md): host,
 * device, date, commit and every figure, so runs can be compared and
 * plotted.  GB/s are uncompressed bytes over the median time, 1 GB = 1e9 B.
 */
#define _GNU_SOURCE /* sched_getaffinity: the cores this process may use */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#ifndef OC_GIT_COMMIT
#define OC_GIT_COMMIT "unknown"
#endif

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double cli_median(double *v, int n)
{
    if (n <= 0)
        return 0.0;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void format_chunk(char *buf, size_t cap, size_t chunk)
{
    if (chunk % (1u << 20) == 0)
        snprintf(buf, cap, "%zuM", chunk >> 20);
    else if (chunk % 1024 == 0)
        snprintf(buf, cap, "%zuK", chunk >> 10);
    else
        snprintf(buf, cap, "%zu", chunk);
}

void cli_bench_print_header(FILE *f)
{
    fprintf(f, "%-16s %-8s %5s %6s %-13s %-10s %3s %8s %10s %10s %s\n", "file", "algo", "level", "chunk",
            "contender", "scope", "thr", "ratio", "comp GB/s", "dec GB/s", "verified");
}

void cli_bench_print_row(FILE *f, const bench_result *r)
{
    char chunk[32], thr[16];
    format_chunk(chunk, sizeof chunk, r->chunk_size);
    if (r->threads)
        snprintf(thr, sizeof thr, "%d", r->threads);
    else
        snprintf(thr, sizeof thr, "-");
    char name[17];
    snprintf(name, sizeof name, "%s", r->file);
    if (r->failed) {
        fprintf(f, "%-16s %-8s %5d %6s %-13s %-10s %3s %8s %10s %10s %s\n", name,
                oc_algorithm_name(r->algorithm), r->level, chunk, r->contender, r->scope, thr, "-", "-", "-",
                "FAILED");
        return;
    }
    fprintf(f, "%-16s %-8s %5d %6s %-13s %-10s %3s %8.3f %10.3f %10.3f %s\n", name,
            oc_algorithm_name(r->algorithm), r->level, chunk, r->contender, r->scope, thr, r->ratio,
            r->compress_gbps, r->decompress_gbps, r->verified ? "yes" : "NO");
    fflush(f);
}

/* Writes s as a JSON string literal. */
static void json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void cpu_model(char *buf, size_t cap)
{
    snprintf(buf, cap, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon++;
                while (*colon == ' ' || *colon == '\t')
                    colon++;
                colon[strcspn(colon, "\n")] = '\0';
                snprintf(buf, cap, "%s", colon);
            }
            break;
        }
    }
    fclose(f);
}

/* The cores this process may run on (taskset, cgroups), else all online. */
static long usable_cores(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    return sysconf(_SC_NPROCESSORS_ONLN);
}

/* A JSON number, or null when not finite. */
static void json_number(FILE *f, double v)
{
    if (v == v && v < 1e300 && v > -1e300)
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

int cli_bench_write_json(const char *path, const bench_result *rows, size_t n, int with_gpu)
{
    FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
    if (!f) {
        cli_error(path, "cannot write JSON");
        return -1;
    }
    char date[32];
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    const char *commit = getenv("OPENCOMP_COMMIT");
    if (!commit || !*commit)
        commit = OC_GIT_COMMIT;
    char cpu[256];
    cpu_model(cpu, sizeof cpu);
    struct utsname un;
    char os[300] = "unknown";
    if (uname(&un) == 0)
        snprintf(os, sizeof os, "%s %s %s", un.sysname, un.release, un.machine);

    fputs("{\n  \"schema\": 1,\n  \"tool\": \"opencomp-bench\",\n  \"date\": ", f);
    json_string(f, date);
    fputs(",\n  \"commit\": ", f);
    json_string(f, commit);
    fputs(",\n  \"opencomp\": ", f);
    json_string(f, oc_build_info());
    fputs(",\n  \"host\": {\"cpu\": ", f);
    json_string(f, cpu);
    fprintf(f, ", \"cores\": %ld, \"os\": ", usable_cores());
    json_string(f, os);
    fputs("},\n  \"device\": ", f);
    if (with_gpu)
        fputs("{\"name\": \"CUDA device 0\", \"driver\": null, \"cuda_runtime\": null, \"sms\": null}", f);
    else
        fputs("null", f);
    fputs(",\n  \"results\": [", f);
    for (size_t i = 0; i < n; i++) {
        const bench_result *r = &rows[i];
        fputs(i ? ",\n    {" : "\n    {", f);
        fputs("\"file\": ", f);
        json_string(f, r->file);
        fprintf(f,
                ", \"file_bytes\": %llu, \"algorithm\": \"%s\", \"level\": %d, \"chunk_size\": %zu, "
                "\"num_chunks\": %llu, \"contender\": \"%s\", \"threads\": ",
                (unsigned long long)r->file_bytes, oc_algorithm_name(r->algorithm), r->level, r->chunk_size,
                (unsigned long long)r->num_chunks, r->contender);
        if (r->threads)
            fprintf(f, "%d", r->threads);
        else
            fputs("null", f);
        fprintf(f, ", \"uncompressed_bytes\": %llu, \"compressed_bytes\": %llu, \"ratio\": ",
                (unsigned long long)r->uncompressed_bytes, (unsigned long long)r->compressed_bytes);
        if (r->failed)
            fputs("null, \"compress_gbps\": null, \"decompress_gbps\": null", f);
        else {
            json_number(f, r->ratio);
            fputs(", \"compress_gbps\": ", f);
            json_number(f, r->compress_gbps);
            fputs(", \"decompress_gbps\": ", f);
            json_number(f, r->decompress_gbps);
        }
        fprintf(f, ", \"timing\": \"%s\", \"repeats\": %d, \"scope\": \"%s\", \"verified\": %s}", r->timing,
                r->repeats, r->scope, r->verified ? "true" : "false");
    }
    fputs("\n  ]\n}\n", f);
    int bad = ferror(f);
    if (f != stdout)
        bad |= fclose(f) != 0;
    if (bad) {
        cli_error(path, "write error");
        return -1;
    }
    return 0;
}
