/*
 * run_json.c - rows, lists and the run-file writer of run_json.h.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "run_json.h"

#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

void ocb_row_init(ocb_row *r)
{
    memset(r, 0, sizeof *r);
    r->compress_s = -1;
    r->decompress_s = -1;
    r->frame_blocks = -1;
}

ocb_row *ocb_rows_push(ocb_rows *rows)
{
    if (rows->n == rows->cap) {
        size_t cap = rows->cap ? 2 * rows->cap : 64;
        ocb_row *v = (ocb_row *)realloc(rows->v, cap * sizeof *v);
        if (!v)
            return NULL;
        rows->v = v;
        rows->cap = cap;
    }
    ocb_row *r = &rows->v[rows->n++];
    ocb_row_init(r);
    return r;
}

void ocb_rows_free(ocb_rows *rows)
{
    free(rows->v);
    memset(rows, 0, sizeof *rows);
}

void ocb_strs_add(ocb_strs *s, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        char **v = (char **)realloc(s->v, cap * sizeof *v);
        if (!v)
            return;
        s->v = v;
        s->cap = cap;
    }
    char *copy = strdup(buf);
    if (copy)
        s->v[s->n++] = copy;
}

void ocb_strs_free(ocb_strs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    memset(s, 0, sizeof *s);
}

char *ocb_json_str(const char *s, char *buf, size_t cap)
{
    size_t o = 0;
    if (cap < 3) {
        if (cap)
            buf[0] = '\0';
        return buf;
    }
    buf[o++] = '"';
    for (const unsigned char *p = (const unsigned char *)s; *p && o + 8 < cap; p++) {
        if (*p == '"' || *p == '\\') {
            buf[o++] = '\\';
            buf[o++] = (char)*p;
        } else if (*p < 0x20) {
            o += (size_t)snprintf(buf + o, cap - o, "\\u%04x", *p);
        } else {
            buf[o++] = (char)*p;
        }
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
}

double ocb_row_gbps(const ocb_row *r, double seconds)
{
    if (!(seconds > 0))
        return -1;
    return (double)r->uncompressed_bytes / seconds / 1e9;
}

double ocb_row_roofline(const ocb_row *r, double copy_gbps)
{
    double d = ocb_row_gbps(r, r->decompress_s);
    if (d < 0 || !(copy_gbps > 0) || r->compressed_bytes == 0)
        return -1;
    double ratio = (double)r->uncompressed_bytes / (double)r->compressed_bytes;
    return d / (copy_gbps * ratio / (1 + ratio));
}

void ocb_host_json(char *buf, size_t cap)
{
    char cpu[256] = "unknown", os[256] = "unknown", q1[300], q2[300];
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                const char *c = strchr(line, ':');
                if (c) {
                    c++;
                    while (*c == ' ' || *c == '\t')
                        c++;
                    snprintf(cpu, sizeof cpu, "%.*s", (int)strcspn(c, "\n"), c);
                }
                break;
            }
        }
        fclose(f);
    }
    cpu_set_t set;
    long cores = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0
                     ? CPU_COUNT(&set)
                     : sysconf(_SC_NPROCESSORS_ONLN);
    struct utsname un;
    if (uname(&un) == 0)
        snprintf(os, sizeof os, "%s %s %s", un.sysname, un.release, un.machine);
    snprintf(buf, cap, "{\"cpu\": %s, \"cores\": %ld, \"os\": %s}", ocb_json_str(cpu, q1, sizeof q1), cores,
             ocb_json_str(os, q2, sizeof q2));
}

/* %.6g, or null for a negative (= not measured) value */
static const char *num_or_null(double v, char *buf, size_t cap)
{
    if (v < 0)
        snprintf(buf, cap, "null");
    else
        snprintf(buf, cap, "%.6g", v);
    return buf;
}

static void write_strs(FILE *f, const char *name, const ocb_strs *s)
{
    char q[2200];
    fprintf(f, "  \"%s\": [", name);
    for (size_t i = 0; s && i < s->n; i++)
        fprintf(f, "%s\n    %s", i ? "," : "", ocb_json_str(s->v[i], q, sizeof q));
    fprintf(f, "%s],\n", s && s->n ? "\n  " : "");
}

static void write_row(FILE *f, const ocb_row *r, double copy_gbps)
{
    char q[900], a[32], b[32], c[32], d[32];
    double cg = ocb_row_gbps(r, r->compress_s), dg = ocb_row_gbps(r, r->decompress_s);
    int repeats = r->decompress_s >= 0 ? r->decompress_repeats : r->compress_repeats;
    fprintf(f, "    {\"file\": %s, \"file_bytes\": %llu, \"algorithm\": \"%s\", \"level\": %d, ",
            ocb_json_str(r->file, q, sizeof q), (unsigned long long)r->file_bytes, r->algorithm, r->level);
    fprintf(f, "\"chunk_size\": %llu, \"num_chunks\": %llu, \"contender\": \"%s\", ",
            (unsigned long long)r->chunk_size, (unsigned long long)r->num_chunks, r->contender);
    if (r->threads > 0)
        fprintf(f, "\"threads\": %d, ", r->threads);
    fprintf(f,
            "\"uncompressed_bytes\": %llu, \"compressed_bytes\": %llu, \"ratio\": %.6g, "
            "\"compress_gbps\": %s, \"decompress_gbps\": %s, \"timing\": \"%s\", \"repeats\": %d, "
            "\"scope\": \"%s\", \"verified\": %s",
            (unsigned long long)r->uncompressed_bytes, (unsigned long long)r->compressed_bytes,
            r->compressed_bytes ? (double)r->uncompressed_bytes / (double)r->compressed_bytes : 0.0,
            num_or_null(cg, a, sizeof a), num_or_null(dg, b, sizeof b), r->timing, repeats > 0 ? repeats : 1,
            r->scope, r->verified ? "true" : "false");
    fprintf(f, ", \"compress_s\": %s, \"decompress_s\": %s", num_or_null(r->compress_s, c, sizeof c),
            num_or_null(r->decompress_s, d, sizeof d));
    if (r->compress_s >= 0)
        fprintf(f, ", \"compress_repeats\": %d, \"compress_warmup\": %d", r->compress_repeats,
                r->compress_warmup);
    if (r->decompress_s >= 0)
        fprintf(f, ", \"decompress_repeats\": %d, \"decompress_warmup\": %d", r->decompress_repeats,
                r->decompress_warmup);
    double roof = r->threads > 0 ? -1 : ocb_row_roofline(r, copy_gbps);
    if (roof >= 0)
        fprintf(f, ", \"decompress_roofline\": %.6g", roof);
    if (r->path[0])
        fprintf(f, ", \"path\": \"%s\"", r->path);
    if (r->streams[0])
        fprintf(f, ", \"streams\": %s", ocb_json_str(r->streams, q, sizeof q));
    if (r->ladder) {
        fprintf(f, ", \"batch_target\": %llu", (unsigned long long)r->batch_target);
        fprintf(f, ", \"batch_plan\": \"%016llx\"", (unsigned long long)r->plan_id);
    }
    if (r->frame[0])
        fprintf(f, ", \"frame\": %s, \"frame_blocks\": %ld", ocb_json_str(r->frame, q, sizeof q),
                r->frame_blocks);
    if (r->blosc[0])
        fprintf(f, ", \"blosc\": %s", ocb_json_str(r->blosc, q, sizeof q));
    if (r->note[0])
        fprintf(f, ", \"note\": %s", ocb_json_str(r->note, q, sizeof q));
    fprintf(f, "}");
}

int ocb_json_write(const char *path, const ocb_run_meta *m, const ocb_rows *rows)
{
    char tmp[4096], date[64], q[256];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        perror(tmp);
        return -1;
    }
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f, "{\n  \"schema\": 1, \"tool\": \"oc-gpu-bench\", \"date\": \"%s\", \"commit\": %s,\n", date,
            ocb_json_str(m->commit ? m->commit : "unknown", q, sizeof q));
    fprintf(f, "  \"host\": %s,\n  \"device\": %s,\n", m->host_json ? m->host_json : "null",
            m->device_json ? m->device_json : "null");
    if (m->extra_json && m->extra_json[0])
        fprintf(f, "  %s,\n", m->extra_json);
    write_strs(f, "skipped", m->skipped);
    write_strs(f, "failures", m->failures);
    fprintf(f, "  \"results\": [");
    for (size_t i = 0; i < rows->n; i++) {
        fprintf(f, "%s\n", i ? "," : "");
        write_row(f, &rows->v[i], m->copy_gbps);
    }
    fprintf(f, "%s]\n}\n", rows->n ? "\n  " : "");
    if (fclose(f) != 0 || rename(tmp, path) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}
