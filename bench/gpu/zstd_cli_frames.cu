/*
 * zstd_cli_frames.cu - single zstd frames decoded whole (zstd_cli_frames.h).
 * A frame is a batch of one chunk: the file is the plan's only chunk, the
 * frame its compressed slot, so the device batch, the contenders' decoders
 * and the GPU-side verification are the ladder's own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "batch_plan.h"
#include "device_batch.h"
#include "event_timer.h"
#include "zstd_cli_frames.h"

static int read_all(const char *path, unsigned char **data, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 1 << 20, n = 0;
    unsigned char *buf = (unsigned char *)malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            unsigned char *b = (unsigned char *)realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    int bad = ferror(f) || !buf;
    fclose(f);
    if (bad) {
        free(buf);
        return -1;
    }
    *data = buf;
    *size = n;
    return 0;
}

static unsigned rd_le32(const unsigned char *p)
{
    return (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
}

long ocb_zstd_count_blocks(const unsigned char *p, size_t n)
{
    size_t pos = 0;
    long blocks = 0;
    while (pos < n) {
        if (n - pos < 8)
            return -1;
        unsigned magic = rd_le32(p + pos);
        if ((magic & 0xFFFFFFF0u) == 0x184D2A50u) { /* skippable frame */
            size_t len = rd_le32(p + pos + 4);
            if (len > n - pos - 8)
                return -1;
            pos += 8 + len;
            continue;
        }
        if (magic != 0xFD2FB528u)
            return -1;
        unsigned fhd = p[pos + 4];
        unsigned fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, checksum = (fhd >> 2) & 1, did_flag = fhd & 3;
        size_t hdr = 5 + (single ? 0 : 1) + (did_flag == 3 ? 4 : did_flag) +
                     (fcs_flag ? (size_t)1 << fcs_flag : (size_t)single);
        if (hdr > n - pos)
            return -1;
        pos += hdr;
        for (;;) {
            if (n - pos < 3)
                return -1;
            unsigned bh = (unsigned)p[pos] | (unsigned)p[pos + 1] << 8 | (unsigned)p[pos + 2] << 16;
            pos += 3;
            unsigned type = (bh >> 1) & 3;
            size_t body = type == 1 ? 1 : (size_t)(bh >> 3);
            if (type == 3 || body > n - pos)
                return -1;
            pos += body;
            blocks++;
            if (bh & 1)
                break;
        }
        if (checksum) {
            if (n - pos < 4)
                return -1;
            pos += 4;
        }
    }
    return blocks;
}

typedef struct frame_job {
    const char *path, *name;
    char frame_path[4096];
    int level;
    size_t bytes;
} frame_job;

static int job_cmp(const void *a, const void *b)
{
    size_t x = ((const frame_job *)a)->bytes, y = ((const frame_job *)b)->bytes;
    return x < y ? -1 : x > y;
}

static ocb_row *frame_row(ocb_sink *sink, const frame_job *j, size_t frame_bytes, long blocks,
                          const char *contender)
{
    ocb_row *w = ocb_rows_push(&sink->rows);
    if (!w)
        return NULL;
    snprintf(w->file, sizeof w->file, "%s", j->name);
    w->file_bytes = w->uncompressed_bytes = w->chunk_size = j->bytes;
    w->num_chunks = 1;
    w->compressed_bytes = frame_bytes;
    snprintf(w->algorithm, sizeof w->algorithm, "zstd");
    w->level = j->level;
    snprintf(w->contender, sizeof w->contender, "%s", contender);
    snprintf(w->scope, sizeof w->scope, "kernel");
    snprintf(w->frame, sizeof w->frame, "zstd -%d", j->level);
    w->frame_blocks = blocks;
    snprintf(w->note, sizeof w->note,
             "decode only: one frame written by the zstd CLI at this level, decoded as one "
             "chunk");
    return w;
}

typedef struct dec_arg {
    const ocb_contender *c;
    ocb_dev_batch *b;
} dec_arg;

static int dec_call(void *p)
{
    dec_arg *a = (dec_arg *)p;
    return a->c->decompress(a->b, 1);
}

/* libzstd on one thread, the whole frame in one call (checksum verified):
 * a warm-up call, then up to 5 more within about a second. */
static void frame_libzstd(ocb_sink *sink, const frame_job *j, const unsigned char *data,
                          const unsigned char *frame, size_t frame_bytes, long blocks)
{
    unsigned char *out = (unsigned char *)malloc(j->bytes ? j->bytes : 1);
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    if (!out || !dctx) {
        free(out);
        ZSTD_freeDCtx(dctx);
        return;
    }
    double times[6];
    int reps = 0, ok = 1;
    double spent = 0;
    for (int k = 0; k < 6 && (k < 2 || spent < 1.0); k++) {
        double t0 = ocb_budget_now();
        size_t got = ZSTD_decompressDCtx(dctx, out, j->bytes, frame, frame_bytes);
        double t = ocb_budget_now() - t0;
        ok &= !ZSTD_isError(got) && got == j->bytes && memcmp(out, data, j->bytes) == 0;
        if (k > 0)
            times[reps++] = t, spent += t;
        if (k == 0 && t >= 0.5) { /* seconds long: that call is the figure */
            times[reps++] = t;
            break;
        }
    }
    for (int a = 1; a < reps; a++) /* sort for the median */
        for (int b = a; b > 0 && times[b] < times[b - 1]; b--) {
            double t = times[b];
            times[b] = times[b - 1];
            times[b - 1] = t;
        }
    ocb_row *w = frame_row(sink, j, frame_bytes, blocks, "reference-cpu");
    if (w) {
        snprintf(w->timing, sizeof w->timing, "wall-clock");
        w->threads = 1;
        w->decompress_s = times[reps / 2];
        w->decompress_repeats = reps;
        w->decompress_warmup = reps > 1 || times[0] < 0.5;
        w->verified = ok;
    }
    free(out);
    ZSTD_freeDCtx(dctx);
}

/* One frame, one contender (and libzstd when with_cpu). */
static void frame_one(ocb_sink *sink, const frame_job *j, const ocb_contender *k, ocb_budget *budget,
                      uint64_t *slow_b, double *slow_s, int with_cpu)
{
    unsigned char *data = NULL, *frame = NULL;
    size_t dn = 0, fn = 0;
    if (read_all(j->path, &data, &dn) != 0 || read_all(j->frame_path, &frame, &fn) != 0 || dn != j->bytes) {
        ocb_strs_add(&sink->failures, "frame %s (zstd -%d): cannot read it", j->name, j->level);
        free(data);
        free(frame);
        return;
    }
    long blocks = ocb_zstd_count_blocks(frame, fn);
    ocb_plan plan;
    uint64_t size = dn;
    ocb_dev_batch b;
    memset(&b, 0, sizeof b);
    memset(&plan, 0, sizeof plan);
    ocb_rung_plan p = ocb_budget_plan(budget, ocb_budget_now(), dn, 1, *slow_b, *slow_b ? 1 : 0, *slow_s);
    if (!p.run) {
        ocb_strs_add(&sink->skipped, "frame %s (zstd -%d), %s: %s", j->name, j->level, k->name, p.why);
        printf("frame %s (zstd -%d): %s skipped: %s\n", j->name, j->level, k->name, p.why);
    } else if (ocb_plan_make(&plan, &size, 1, dn) != 0 || ocb_dev_batch_make(&b, &plan, 1, data) != 0 ||
               ocb_dev_set_slot(&b, fn) != 0 || ocb_dev_put_comp(&b, 0, 1, frame, &fn) != 0) {
        ocb_strs_add(&sink->failures, "frame %s (zstd -%d): cannot put it on the GPU", j->name, j->level);
    } else {
        char why[256] = "";
        size_t bad = 0, nbad = 0;
        ocb_timing t = {0, 0, 0, 0, 0};
        dec_arg a = {k, &b};
        if (k->prepare("zstd", dn, 1, dn, why, sizeof why) == 0 && ocb_dev_clear_out(&b, 1) == 0)
            t = ocb_time_rung(dec_call, &a, budget, &p);
        int ok = t.ok && ocb_dev_verify(&b, 1, &bad, &nbad);
        k->release();
        if (!t.ok) { /* nvCOMP may refuse a frame (e.g. a window it does not support): no row */
            ocb_strs_add(&sink->skipped, "frame %s (zstd -%d): %s did not decode it %s", j->name, j->level,
                         k->name, why);
            printf("frame %s (zstd -%d): %s did not decode it\n", j->name, j->level, k->name);
        } else {
            if (*slow_s == 0 || (double)dn / t.median_s < (double)*slow_b / *slow_s)
                *slow_b = dn, *slow_s = t.median_s;
            ocb_row *w = frame_row(sink, j, fn, blocks, k->name);
            if (w) {
                snprintf(w->timing, sizeof w->timing, "cuda-events");
                w->decompress_s = t.median_s;
                w->decompress_repeats = t.repeats;
                w->decompress_warmup = t.warmup;
                w->verified = ok;
                snprintf(w->path, sizeof w->path, "%s", k->path("zstd"));
            }
            printf("frame %s (zstd -%d, %ld blocks): %s %.3f GB/s%s\n", j->name, j->level, blocks, k->name,
                   (double)dn / t.median_s / 1e9, ok ? "" : " UNVERIFIED");
        }
    }
    if (with_cpu)
        frame_libzstd(sink, j, data, frame, fn, blocks);
    ocb_dev_batch_free(&b);
    ocb_plan_free(&plan);
    free(data);
    free(frame);
    if (sink->flush)
        sink->flush(sink);
    fflush(stdout);
}

void ocb_frames_run(ocb_sink *sink, const ocb_contender *const *contenders, size_t ncontenders,
                    const char *const *paths, size_t npaths, const char *dir, const int *levels,
                    size_t nlevels, double budget_s)
{
    frame_job *jobs = (frame_job *)calloc(npaths * nlevels + 1, sizeof *jobs);
    size_t njobs = 0;
    for (size_t i = 0; jobs && i < npaths; i++) {
        const char *slash = strrchr(paths[i], '/');
        FILE *f = fopen(paths[i], "rb");
        if (!f)
            continue;
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fclose(f);
        for (size_t l = 0; l < nlevels && size > 0; l++) {
            frame_job *j = &jobs[njobs];
            j->path = paths[i];
            j->name = slash ? slash + 1 : paths[i];
            j->level = levels[l];
            j->bytes = (size_t)size;
            snprintf(j->frame_path, sizeof j->frame_path, "%s/%s.l%d.zst", dir, j->name, levels[l]);
            if (access(j->frame_path, R_OK) != 0) {
                ocb_strs_add(&sink->skipped, "frame %s (zstd -%d): %s missing", j->name, j->level,
                             j->frame_path);
                continue;
            }
            njobs++;
        }
    }
    qsort(jobs, njobs, sizeof *jobs, job_cmp);
    /* pass 0: the first contender and libzstd; then each other contender
     * over every frame (a fault in one library cannot cost another's
     * rows).  Each contender's budget starts with its pass; the slowest
     * rate seen predicts its next decode. */
    for (size_t c = 0; c < ncontenders; c++) {
        const ocb_contender *k = contenders[c];
        ocb_budget budget;
        uint64_t slow_b = 0;
        double slow_s = 0;
        ocb_budget_init(&budget, budget_s);
        budget.rung_cap_s = budget_s;
        budget.slow_s = 0.5;
        budget.target_s = 1.0;
        budget.max_repeats = 5;
        for (size_t jn = 0; jn < njobs && k->supports("zstd"); jn++)
            frame_one(sink, &jobs[jn], k, &budget, &slow_b, &slow_s, c == 0);
    }
    free(jobs);
}
