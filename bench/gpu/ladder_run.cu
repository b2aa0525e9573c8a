/*
 * ladder_run.cu - the batch ladder (ladder_run.h).  For one mix and chunk
 * size: build the largest batch once on the host and upload it; then per
 * codec and contender a "cell":
 *
 *   1. compression, rung by rung (smallest first; ladder_budget.h decides
 *      repeats and skips), every chunk's status checked;
 *   2. the slots the decode ladder needs: a compression skipped at a large
 *      rung is replaced by the streams of one whole cycle, repeated (the
 *      batch repeats with that period, so these are the same streams);
 *   3. cross-decoding on the check rung (32 MiB): the CPU reference library
 *      and every other GPU contender must decode the streams byte-exactly
 *      (not for cascaded, bitcomp and ans: each library writes its own
 *      format of that name; every decode is still verified in step 4);
 *   4. decompression, rung by rung, each rung's output verified on the GPU;
 *   5. one row per rung.
 *
 * With --foreign, step 6: every other contender decodes the cell's streams,
 * rung by rung, timed and verified (rows with "streams": nvCOMP's GDeflate
 * pages decoded by opencomp, and the reverse).
 *
 * Then the stock streams (liblz4 blocks, numcodecs-style zstd frames, gzip
 * members as `gzip -6` writes them) are written on the CPU and decoded by
 * every contender, rung by rung; with --stock-cpu also by opencomp's CPU
 * engine on the run's threads (host memory, wall clock, the largest rung).
 * Every skip and failure is named in the sink (and printed), never silent.
 */
#include <cuda_runtime.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_plan.h"
#include "event_timer.h"
#include "ladder_run.h"
#include "opencomp.h"
#include "reference_codecs.h"

#define MAX_RUNGS 16

/* One chunk size of one mix: plan, rungs, host batch and device batch. */
typedef struct stage {
    const ocb_mix *mix;
    ocb_plan plan;
    size_t nrungs;
    size_t n[MAX_RUNGS];        /* chunks per rung, ascending, distinct */
    uint64_t bytes[MAX_RUNGS];  /* uncompressed bytes per rung */
    uint64_t target[MAX_RUNGS]; /* the rung asked for */
    size_t top;                 /* chunks of the largest rung */
    size_t check_n;             /* chunks of the cross-decoding rung */
    uint8_t *host;              /* the largest batch, laid out as on the device */
    ocb_dev_batch dev;
    size_t *comp_sizes;    /* host: compressed sizes of the top rung's chunks */
    uint64_t *comp_prefix; /* top + 1: their running sums */
} stage;

typedef struct call_arg {
    const ocb_contender *c;
    ocb_dev_batch *b;
    size_t n;
} call_arg;

static int compress_call(void *p)
{
    call_arg *a = (call_arg *)p;
    return a->c->compress(a->b, a->n);
}

static int decompress_call(void *p)
{
    call_arg *a = (call_arg *)p;
    return a->c->decompress(a->b, a->n);
}

static const char *rung_label(const stage *s, size_t r, char *buf, size_t cap)
{
    char b[32];
    if (s->n[r] == 1)
        snprintf(buf, cap, "1 chunk");
    else
        snprintf(buf, cap, "%s (%zu chunks)", ocb_human_bytes(s->bytes[r], b, sizeof b), s->n[r]);
    return buf;
}

static const char *chunk_label(uint64_t chunk, char *buf, size_t cap)
{
    return ocb_human_bytes(chunk, buf, cap);
}

/* ---- stage: plan, rungs, host and device batch --------------------------- */

static int stage_make(stage *s, const ocb_ladder_opts *o, const ocb_mix *mix, uint64_t chunk, ocb_sink *sink)
{
    memset(s, 0, sizeof *s);
    s->mix = mix;
    char cl[32];
    if (ocb_plan_make(&s->plan, mix->sizes, mix->nfiles, (size_t)chunk) != 0) {
        ocb_strs_add(&sink->failures, "%s, %s chunks: cannot plan the batches", mix->label,
                     chunk_label(chunk, cl, sizeof cl));
        return -1;
    }
    for (size_t i = 0; i < o->nrungs; i++) {
        uint64_t target = o->rungs[i] == OCB_RUNG_CYCLE ? s->plan.distinct_bytes : o->rungs[i];
        uint64_t bytes = 0;
        size_t n = ocb_plan_rung_chunks(&s->plan, target, &bytes);
        size_t k = 0;
        while (k < s->nrungs && s->n[k] != n)
            k++;
        if (k < s->nrungs || s->nrungs == MAX_RUNGS)
            continue; /* the same batch as an earlier rung (e.g. 1 MiB of 4 MiB chunks = 1 chunk) */
        s->n[s->nrungs] = n;
        s->bytes[s->nrungs] = bytes;
        s->target[s->nrungs] = target;
        s->nrungs++;
    }
    for (size_t i = 1; i < s->nrungs; i++) /* ascending by chunks (insertion sort: a handful) */
        for (size_t j = i; j > 0 && s->n[j] < s->n[j - 1]; j--) {
            size_t tn = s->n[j];
            uint64_t tb = s->bytes[j], tt = s->target[j];
            s->n[j] = s->n[j - 1], s->bytes[j] = s->bytes[j - 1], s->target[j] = s->target[j - 1];
            s->n[j - 1] = tn, s->bytes[j - 1] = tb, s->target[j - 1] = tt;
        }
    s->top = s->n[s->nrungs - 1];
    s->check_n = ocb_plan_rung_chunks(&s->plan, o->check_bytes, NULL);
    if (s->check_n > s->top)
        s->check_n = s->top;
    /* the host batch: one cycle laid out, then copied whole cycle by whole cycle */
    uint64_t buf = ocb_plan_buffer_bytes(&s->plan, s->top);
    uint64_t cycle = ocb_plan_buffer_bytes(&s->plan, s->plan.ndistinct);
    s->host = (uint8_t *)calloc(1, (size_t)(buf > cycle ? buf : cycle));
    s->comp_sizes = (size_t *)malloc(s->top * sizeof(size_t));
    s->comp_prefix = (uint64_t *)malloc((s->top + 1) * sizeof(uint64_t));
    if (!s->host || !s->comp_sizes || !s->comp_prefix) {
        ocb_strs_add(&sink->failures, "%s, %s chunks: out of host memory for a %llu-byte batch", mix->label,
                     chunk_label(chunk, cl, sizeof cl), (unsigned long long)buf);
        return -1;
    }
    for (size_t i = 0; i < s->plan.ndistinct; i++) {
        const ocb_chunk *c = ocb_plan_chunk(&s->plan, i);
        memcpy(s->host + ocb_plan_offset(&s->plan, i), mix->data[c->file] + c->offset, c->size);
    }
    for (uint64_t off = cycle; off < buf; off += cycle)
        memcpy(s->host + off, s->host, (size_t)(buf - off < cycle ? buf - off : cycle));
    if (ocb_dev_batch_make(&s->dev, &s->plan, s->top, s->host) != 0) {
        ocb_strs_add(&sink->failures, "%s, %s chunks: cannot put the %llu-byte batch on the GPU", mix->label,
                     chunk_label(chunk, cl, sizeof cl), (unsigned long long)buf);
        return -1;
    }
    return 0;
}

static void stage_free(stage *s)
{
    ocb_dev_batch_free(&s->dev);
    ocb_plan_free(&s->plan);
    free(s->host);
    free(s->comp_sizes);
    free(s->comp_prefix);
    memset(s, 0, sizeof *s);
}

/* Compressed sizes of the top rung (after the slots are filled). */
static int stage_read_sizes(stage *s)
{
    ocb_dev_comp_sizes(&s->dev, s->top, s->comp_sizes);
    s->comp_prefix[0] = 0;
    for (size_t i = 0; i < s->top; i++) {
        if (s->comp_sizes[i] == 0 || s->comp_sizes[i] > s->dev.slot)
            return -1;
        s->comp_prefix[i + 1] = s->comp_prefix[i] + s->comp_sizes[i];
    }
    return 0;
}

/* ---- one cell -------------------------------------------------------------- */

typedef struct cell {
    const ocb_contender *c;
    const char *codec;
    uint64_t chunk;
    const char *streams; /* NULL: the contender's own */
    double comp_s[MAX_RUNGS], dec_s[MAX_RUNGS];
    int comp_reps[MAX_RUNGS], dec_reps[MAX_RUNGS], comp_warm[MAX_RUNGS], dec_warm[MAX_RUNGS];
    int dec_ok[MAX_RUNGS];
    size_t timed_comp_n; /* chunks of the largest rung whose compression was timed */
    char checks[200];    /* cross-decoding outcome, for the rows' note */
    int checks_ok;
} cell;

static void cell_init(cell *k, const ocb_contender *c, const char *codec, uint64_t chunk, const char *streams)
{
    memset(k, 0, sizeof *k);
    k->c = c;
    k->codec = codec;
    k->chunk = chunk;
    k->streams = streams;
    k->checks_ok = 1;
    for (int r = 0; r < MAX_RUNGS; r++)
        k->comp_s[r] = k->dec_s[r] = -1;
}

static const char *cell_name(const cell *k, char *buf, size_t cap)
{
    char cl[32], lv[16] = "";
    int level = k->streams ? 0 : k->c->level(k->codec);
    if (level != 0 && strcmp(k->codec, "zstd") != 0) /* zstd's level is the run's --zstd-level */
        snprintf(lv, sizeof lv, " L%d", level);
    snprintf(buf, cap, "%s %s%s %s%s%s", k->c->name, k->codec, lv, chunk_label(k->chunk, cl, sizeof cl),
             k->streams ? ", streams: " : "", k->streams ? k->streams : "");
    return buf;
}

/* Step 1: the compression ladder.  0, or -1 when a call failed (named). */
static int compress_ladder(ocb_sink *sink, stage *s, cell *k)
{
    uint64_t prev_b = 0, prev_n = 0;
    double prev_s = 0;
    char name[256], rl[64];
    cell_name(k, name, sizeof name);
    for (size_t r = 0; r < s->nrungs; r++) {
        ocb_rung_plan p =
            ocb_budget_plan(&sink->budget, ocb_budget_now(), s->bytes[r], s->n[r], prev_b, prev_n, prev_s);
        if (!p.run) {
            ocb_strs_add(&sink->skipped, "%s: compression at %s: %s", name, rung_label(s, r, rl, sizeof rl),
                         p.why);
            printf("  skipped: %s: compression at %s: %s\n", name, rl, p.why);
            continue;
        }
        call_arg a = {k->c, &s->dev, s->n[r]};
        ocb_timing t = ocb_time_rung(compress_call, &a, &sink->budget, &p);
        size_t bad = 0;
        int32_t st = 0;
        if (!t.ok || !ocb_dev_statuses_ok(&s->dev, s->n[r], &bad, &st)) {
            ocb_strs_add(&sink->failures, "%s: compression at %s failed (%s, chunk %zu status %d)", name,
                         rung_label(s, r, rl, sizeof rl), t.ok ? "chunk status" : "call or CUDA error", bad,
                         st);
            printf("  FAILED: %s\n", sink->failures.v[sink->failures.n - 1]);
            (void)cudaGetLastError();
            return -1;
        }
        k->comp_s[r] = t.median_s;
        k->comp_reps[r] = t.repeats;
        k->comp_warm[r] = t.warmup;
        k->timed_comp_n = s->n[r];
        prev_b = s->bytes[r];
        prev_n = s->n[r];
        prev_s = t.median_s;
    }
    return 0;
}

/* Step 2: slots [0, top) hold the contender's streams. */
static int fill_slots(ocb_sink *sink, stage *s, cell *k)
{
    char name[256];
    size_t period = s->plan.ndistinct, base = s->top < period ? s->top : period, have = k->timed_comp_n;
    if (have < base) {
        call_arg a = {k->c, &s->dev, base};
        size_t bad = 0;
        int32_t st = 0;
        if (compress_call(&a) != 0 || cudaDeviceSynchronize() != cudaSuccess ||
            !ocb_dev_statuses_ok(&s->dev, base, &bad, &st)) {
            ocb_strs_add(&sink->failures,
                         "%s: compressing one cycle (%zu chunks) failed (chunk %zu status %d)",
                         cell_name(k, name, sizeof name), base, bad, st);
            (void)cudaGetLastError();
            return -1;
        }
        have = base;
    }
    if (have < s->top && ocb_dev_replicate(&s->dev, have, s->top, period) != 0) {
        ocb_strs_add(&sink->failures, "%s: repeating the compressed cycle failed",
                     cell_name(k, name, sizeof name));
        return -1;
    }
    if (stage_read_sizes(s) != 0) {
        ocb_strs_add(&sink->failures, "%s: a compressed size is 0 or larger than its slot",
                     cell_name(k, name, sizeof name));
        return -1;
    }
    return 0;
}

/* Step 3: the CPU reference and every other GPU contender decode these
 * streams (the check rung), byte for byte. */
static void cross_check(ocb_sink *sink, const ocb_ladder_opts *o, stage *s, cell *k)
{
    char name[256];
    size_t n = s->check_n, off = 0;
    cell_name(k, name, sizeof name);
    k->checks[0] = '\0';
    if (ocb_ref_can_decode(k->codec)) {
        uint8_t *comp = (uint8_t *)malloc(n * s->dev.slot);
        const uint8_t **cp = (const uint8_t **)malloc(n * sizeof *cp),
                      **ep = (const uint8_t **)malloc(n * sizeof *ep);
        int rc = -1;
        size_t bad = 0;
        if (comp && cp && ep && ocb_dev_get_comp(&s->dev, n, comp) == 0) {
            for (size_t i = 0; i < n; i++) {
                cp[i] = comp + i * s->dev.slot;
                ep[i] = s->host + s->dev.offsets[i];
            }
            rc = ocb_ref_check(k->codec, o->threads, n, cp, s->comp_sizes, ep, s->dev.in_sizes, &bad);
        }
        free(comp);
        free(cp);
        free(ep);
        off += (size_t)snprintf(k->checks + off, sizeof k->checks - off, "%sCPU library %s", off ? ", " : "",
                                rc == 1   ? "ok"
                                : rc == 0 ? "FAILED"
                                          : "not run");
        if (rc == 0) {
            k->checks_ok = 0;
            ocb_strs_add(&sink->failures,
                         "%s: the CPU reference library does not decode chunk %zu to its input", name, bad);
        }
    }
    for (size_t i = 0; i < o->ncontenders; i++) {
        const ocb_contender *y = o->contenders[i];
        if (y == k->c || !y->supports(k->codec) || ocb_codec_own_format(k->codec) || off >= sizeof k->checks)
            continue;
        char why[256] = "";
        size_t bad = 0, nbad = 0;
        int ok =
            y->prepare(k->codec, (size_t)k->chunk, n, ocb_plan_bytes(&s->plan, n), why, sizeof why) == 0 &&
            ocb_dev_clear_out(&s->dev, n) == 0 && y->decompress(&s->dev, n) == 0 &&
            cudaDeviceSynchronize() == cudaSuccess && ocb_dev_verify(&s->dev, n, &bad, &nbad);
        y->release();
        (void)cudaGetLastError();
        off += (size_t)snprintf(k->checks + off, sizeof k->checks - off, "%s%s %s", off ? ", " : "", y->name,
                                ok ? "ok" : "FAILED");
        if (!ok) {
            k->checks_ok = 0;
            ocb_strs_add(&sink->failures,
                         "%s: %s does not decode these streams (%s%zu of %zu chunks wrong, first %zu)", name,
                         y->name, why, nbad, n, bad);
        }
    }
    if (k->checks[0] && off < sizeof k->checks)
        snprintf(k->checks + off, sizeof k->checks - off, " (decoding %zu chunks)", n);
}

/* Step 4: the decompression ladder, every rung verified. */
static void decompress_ladder(ocb_sink *sink, stage *s, cell *k)
{
    uint64_t prev_b = 0, prev_n = 0;
    double prev_s = 0;
    char name[256], rl[64];
    cell_name(k, name, sizeof name);
    for (size_t r = 0; r < s->nrungs; r++) {
        ocb_rung_plan p =
            ocb_budget_plan(&sink->budget, ocb_budget_now(), s->bytes[r], s->n[r], prev_b, prev_n, prev_s);
        if (!p.run) {
            ocb_strs_add(&sink->skipped, "%s: decompression at %s: %s", name, rung_label(s, r, rl, sizeof rl),
                         p.why);
            printf("  skipped: %s: decompression at %s: %s\n", name, rl, p.why);
            continue;
        }
        call_arg a = {k->c, &s->dev, s->n[r]};
        size_t bad = 0, nbad = 0;
        ocb_timing t = {0, 0, 0, 0, 0};
        if (ocb_dev_clear_out(&s->dev, s->n[r]) == 0)
            t = ocb_time_rung(decompress_call, &a, &sink->budget, &p);
        int ok = t.ok && ocb_dev_verify(&s->dev, s->n[r], &bad, &nbad);
        if (!ok) {
            ocb_strs_add(&sink->failures, "%s: decompression at %s: %s (%zu chunks wrong, first %zu)", name,
                         rung_label(s, r, rl, sizeof rl), t.ok ? "output differs" : "call or CUDA error",
                         nbad, bad);
            printf("  FAILED: %s\n", sink->failures.v[sink->failures.n - 1]);
            (void)cudaGetLastError();
        }
        if (t.ok) {
            k->dec_s[r] = t.median_s;
            k->dec_reps[r] = t.repeats;
            k->dec_warm[r] = t.warmup;
            k->dec_ok[r] = ok;
            prev_b = s->bytes[r];
            prev_n = s->n[r];
            prev_s = t.median_s;
        }
    }
}

/* Step 5: one row per rung with a figure. */
static void cell_rows(ocb_sink *sink, const stage *s, const cell *k)
{
    char rl[64];
    for (size_t r = 0; r < s->nrungs; r++) {
        if (k->comp_s[r] < 0 && k->dec_s[r] < 0)
            continue;
        ocb_row *w = ocb_rows_push(&sink->rows);
        if (!w)
            return;
        snprintf(w->file, sizeof w->file, "%s", s->mix->label);
        w->file_bytes = s->plan.distinct_bytes;
        snprintf(w->algorithm, sizeof w->algorithm, "%s", k->codec);
        w->level = k->streams ? (strcmp(k->codec, "zstd") == 0 ? 3 : 0) : k->c->level(k->codec);
        w->chunk_size = k->chunk;
        w->num_chunks = s->n[r];
        w->uncompressed_bytes = s->bytes[r];
        w->compressed_bytes = s->comp_prefix[s->n[r]];
        snprintf(w->contender, sizeof w->contender, "%s", k->c->name);
        snprintf(w->scope, sizeof w->scope, "kernel");
        snprintf(w->timing, sizeof w->timing, "cuda-events");
        w->compress_s = k->comp_s[r];
        w->decompress_s = k->dec_s[r];
        w->compress_repeats = k->comp_reps[r];
        w->compress_warmup = k->comp_warm[r];
        w->decompress_repeats = k->dec_reps[r];
        w->decompress_warmup = k->dec_warm[r];
        w->verified = k->checks_ok && (k->dec_s[r] < 0 || k->dec_ok[r]);
        snprintf(w->path, sizeof w->path, "%s", k->c->path(k->codec));
        if (k->streams)
            snprintf(w->streams, sizeof w->streams, "%s", k->streams);
        /* a per-file run's whole-file batch is the classic one-file-per-call row (report.py's per-file
         * tables) */
        w->ladder = !(s->mix->per_file && s->n[r] == s->plan.ndistinct);
        w->batch_target = s->target[r];
        w->plan_id = ocb_plan_id(&s->plan, s->mix->names, s->n[r]);
        size_t off = 0;
        if (!k->streams && k->comp_s[r] < 0)
            off += (size_t)snprintf(
                w->note, sizeof w->note,
                "compression not timed at this rung (see skipped); the decoded streams are one "
                "cycle's, repeated. ");
        if (k->checks[0] && off < sizeof w->note)
            snprintf(w->note + off, sizeof w->note - off, "Cross-decoded: %s.", k->checks);
        char cg[32] = "-", dg[32] = "-", roof[32] = "";
        if (w->compress_s >= 0)
            snprintf(cg, sizeof cg, "%.2f", ocb_row_gbps(w, w->compress_s));
        if (w->decompress_s >= 0) {
            snprintf(dg, sizeof dg, "%.2f", ocb_row_gbps(w, w->decompress_s));
            double rf = ocb_row_roofline(w, sink->copy_gbps);
            if (rf >= 0)
                snprintf(roof, sizeof roof, " roofline %.1f%%", 100 * rf);
        }
        char cl[32], al[48];
        snprintf(al, sizeof al, w->level ? "%s L%d" : "%s", w->algorithm, w->level);
        printf("  %-13s %-8s %-8s %-24s ratio %7.3f  compress %8s  decompress %8s GB/s%s%s%s\n", w->contender,
               al, chunk_label(k->chunk, cl, sizeof cl), rung_label(s, r, rl, sizeof rl),
               (double)w->uncompressed_bytes / (double)w->compressed_bytes, cg, dg, roof,
               w->path[0] && strcmp(w->path, "gpu-kernel") ? " (host-staged)" : "",
               w->verified ? "" : " UNVERIFIED");
    }
    fflush(stdout);
}

static int is_deflate_family(const char *codec)
{
    return strcmp(codec, "deflate") == 0 || strcmp(codec, "zlib") == 0 || strcmp(codec, "gzip") == 0 ||
           strcmp(codec, "gdeflate") == 0;
}

/* Who wrote a contender's streams, for the rows of other contenders
 * decoding them (step 6): "nvcomp-gpu gdeflate algorithm 1 (default)". */
static void streams_label(const ocb_contender *c, const char *codec, char *buf, size_t cap)
{
    int level = c->level(codec);
    if (c == &ocb_contender_nvcomp && is_deflate_family(codec)) {
        int a = ocb_nvcomp_algorithm();
        if (a < 0)
            snprintf(buf, cap, "%s %s, nvCOMP's default options", c->name, codec);
        else
            snprintf(buf, cap, "%s %s, algorithm %d", c->name, codec, a);
    } else if (level)
        snprintf(buf, cap, "%s %s level %d", c->name, codec, level);
    else
        snprintf(buf, cap, "%s %s, default level", c->name, codec);
}

/* Step 6: every other contender decodes c's streams (in the slots), timed. */
static void foreign_cells(ocb_sink *sink, const ocb_ladder_opts *o, stage *s, const ocb_contender *c,
                          const char *codec, uint64_t chunk)
{
    static char label[8][96]; /* the cells keep a pointer to their label until their rows are written */
    for (size_t i = 0; i < o->ncontenders && i < 8; i++) {
        const ocb_contender *y = o->contenders[i];
        if (y == c || !y->supports(codec) || ocb_codec_own_format(codec))
            continue;
        streams_label(c, codec, label[i], sizeof label[i]);
        cell k;
        char why[256] = "", name[256];
        cell_init(&k, y, codec, chunk, label[i]);
        cell_name(&k, name, sizeof name);
        if (y->prepare(codec, (size_t)chunk, s->top, s->bytes[s->nrungs - 1], why, sizeof why) != 0) {
            ocb_strs_add(&sink->skipped, "%s: %s", name, why);
            printf("  skipped: %s: %s\n", name, why);
        } else {
            decompress_ladder(sink, s, &k);
            cell_rows(sink, s, &k);
        }
        y->release();
    }
}

/* A contender's own streams: steps 1-5 (and 6 with --foreign). */
static void run_cell(ocb_sink *sink, const ocb_ladder_opts *o, stage *s, const ocb_contender *c,
                     const char *codec, uint64_t chunk)
{
    cell k;
    char why[256] = "", name[256];
    cell_init(&k, c, codec, chunk, NULL);
    cell_name(&k, name, sizeof name);
    if (c->prepare(codec, (size_t)chunk, s->top, s->bytes[s->nrungs - 1], why, sizeof why) != 0) {
        ocb_strs_add(&sink->skipped, "%s: %s", name, why);
        printf("  skipped: %s: %s\n", name, why);
        c->release();
        return;
    }
    if (compress_ladder(sink, s, &k) == 0 && fill_slots(sink, s, &k) == 0) {
        cross_check(sink, o, s, &k);
        /* the cross-check used other contenders: this one's scratch again */
        if (c->prepare(codec, (size_t)chunk, s->top, s->bytes[s->nrungs - 1], why, sizeof why) == 0)
            decompress_ladder(sink, s, &k);
        cell_rows(sink, s, &k);
        if (o->foreign) {
            c->release();
            foreign_cells(sink, o, s, c, codec, chunk);
        }
    } else {
        cell_rows(sink, s, &k); /* what was measured before the failure */
    }
    c->release();
}

/* The stock CPU library's streams of one cycle, in the slots, repeated;
 * with host_comp, the host copy too (one cycle, `slot` bytes apart, their
 * sizes in *host_sizes; the caller frees both). */
static int put_stock_streams(ocb_sink *sink, const ocb_ladder_opts *o, stage *s, const char *codec,
                             uint64_t chunk, uint8_t **host_comp, size_t **host_sizes)
{
    char cl[32];
    size_t period = s->plan.ndistinct, base = s->top < period ? s->top : period;
    size_t bound = ocb_ref_stock_bound(codec, (size_t)chunk);
    if (bound > s->dev.slot && ocb_dev_set_slot(&s->dev, bound) != 0)
        return -1;
    uint8_t *comp = (uint8_t *)malloc(base * s->dev.slot);
    const uint8_t **src = (const uint8_t **)malloc(base * sizeof *src);
    uint8_t **dst = (uint8_t **)malloc(base * sizeof *dst);
    size_t *sizes = (size_t *)malloc(base * sizeof *sizes);
    int rc = -1;
    if (comp && src && dst && sizes) {
        for (size_t i = 0; i < base; i++) {
            src[i] = s->host + s->dev.offsets[i];
            dst[i] = comp + i * s->dev.slot;
        }
        double t0 = ocb_budget_now();
        rc = ocb_ref_stock_encode(codec, o->threads, base, src, s->dev.in_sizes, dst, s->dev.slot, sizes);
        if (rc == 0)
            rc = ocb_dev_put_comp(&s->dev, 0, base, comp, sizes);
        if (rc == 0 && base < s->top)
            rc = ocb_dev_replicate(&s->dev, base, s->top, period);
        if (rc == 0)
            rc = stage_read_sizes(s);
        printf("  stock %s streams (%s) of %zu chunks of %s written on %d CPU threads in %.1f s\n", codec,
               ocb_ref_stock_label(codec), base, chunk_label(chunk, cl, sizeof cl), o->threads,
               ocb_budget_now() - t0);
    }
    if (rc != 0)
        ocb_strs_add(&sink->failures, "%s %s: writing the stock streams (%s) failed", codec,
                     chunk_label(chunk, cl, sizeof cl), ocb_ref_stock_label(codec));
    if (rc == 0 && host_comp) {
        *host_comp = comp;
        *host_sizes = sizes;
        comp = NULL;
        sizes = NULL;
    }
    free(comp);
    free(src);
    free(dst);
    free(sizes);
    return rc;
}

/* --stock-cpu: the largest rung's stock streams decoded by opencomp's CPU
 * engine (oc_batch_decompress on host memory, the run's threads), wall
 * clock, every output compared with the input. */
typedef struct cpu_call {
    oc_context *ctx;
    oc_algorithm algo;
    size_t n;
    const void **src;
    size_t *csz, *caps, *got;
    void **dst;
    oc_status *st;
} cpu_call;

static int cpu_decompress_call(void *p)
{
    cpu_call *a = (cpu_call *)p;
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = a->algo;
    return oc_batch_decompress(a->ctx, &co, a->n, a->src, a->csz, a->dst, a->caps, a->got, a->st) == OC_OK
               ? 0
               : -1;
}

static void stock_cpu_row(ocb_sink *sink, const ocb_ladder_opts *o, stage *s, const char *codec,
                          uint64_t chunk, const uint8_t *comp, const size_t *comp_sizes)
{
    char what[256], cl[32];
    size_t r = s->nrungs - 1, n = s->n[r], period = s->plan.ndistinct;
    snprintf(what, sizeof what, "opencomp-cpu %s %s, stock streams, %d threads", codec,
             chunk_label(chunk, cl, sizeof cl), o->threads);
    oc_algorithm algo;
    oc_context *ctx = NULL;
    oc_context_options xo = OC_CONTEXT_OPTIONS_INIT;
    xo.engine = OC_ENGINE_CPU;
    xo.num_threads = o->threads;
    if (oc_algorithm_from_name(codec, &algo) != OC_OK || oc_context_create(&xo, &ctx) != OC_OK) {
        ocb_strs_add(&sink->failures, "%s: no CPU context or algorithm", what);
        return;
    }
    uint64_t span = ocb_plan_buffer_bytes(&s->plan, n);
    uint8_t *out = (uint8_t *)malloc((size_t)span);
    cpu_call a = {ctx,
                  algo,
                  n,
                  (const void **)malloc(n * sizeof(void *)),
                  (size_t *)malloc(n * sizeof(size_t)),
                  (size_t *)malloc(n * sizeof(size_t)),
                  (size_t *)malloc(n * sizeof(size_t)),
                  (void **)malloc(n * sizeof(void *)),
                  (oc_status *)malloc(n * sizeof(oc_status))};
    if (!out || !a.src || !a.csz || !a.caps || !a.got || !a.dst || !a.st) {
        ocb_strs_add(&sink->failures, "%s: out of host memory", what);
    } else {
        for (size_t i = 0; i < n; i++) {
            a.src[i] = comp + (i % period) * s->dev.slot;
            a.csz[i] = comp_sizes[i % period];
            a.dst[i] = out + s->dev.offsets[i];
            a.caps[i] = s->dev.in_sizes[i];
        }
        ocb_rung_plan p = ocb_budget_plan(&sink->budget, ocb_budget_now(), s->bytes[r], n, 0, 0, 0);
        if (!p.run) {
            ocb_strs_add(&sink->skipped, "%s: %s", what, p.why);
            printf("  skipped: %s: %s\n", what, p.why);
        } else {
            memset(out, 0xEE, (size_t)span);
            ocb_timing t = ocb_time_wall(cpu_decompress_call, &a, &sink->budget, &p);
            int ok = t.ok;
            for (size_t i = 0; i < n && ok; i++)
                ok = a.st[i] == OC_OK && a.got[i] == s->dev.in_sizes[i] &&
                     memcmp(out + s->dev.offsets[i], s->host + s->dev.offsets[i], a.got[i]) == 0;
            if (!ok)
                ocb_strs_add(&sink->failures, "%s: %s", what, t.ok ? "an output differs" : "a call failed");
            cpu_set_t set;
            int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1;
            ocb_row *w = t.ok ? ocb_rows_push(&sink->rows) : NULL;
            if (w) {
                snprintf(w->file, sizeof w->file, "%s", s->mix->label);
                w->file_bytes = s->plan.distinct_bytes;
                snprintf(w->algorithm, sizeof w->algorithm, "%s", codec);
                w->chunk_size = chunk;
                w->num_chunks = n;
                w->uncompressed_bytes = s->bytes[r];
                w->compressed_bytes = s->comp_prefix[n];
                snprintf(w->contender, sizeof w->contender, "opencomp-cpu");
                snprintf(w->scope, sizeof w->scope, "kernel");
                snprintf(w->timing, sizeof w->timing, "wall-clock");
                w->threads = o->threads;
                w->decompress_s = t.median_s;
                w->decompress_repeats = t.repeats;
                w->decompress_warmup = t.warmup;
                w->verified = ok;
                snprintf(w->streams, sizeof w->streams, "%s", ocb_ref_stock_label(codec));
                w->ladder = 1;
                w->batch_target = s->target[r];
                w->plan_id = ocb_plan_id(&s->plan, s->mix->names, n);
                snprintf(w->note, sizeof w->note,
                         "opencomp's CPU engine (oc_batch_decompress, host memory in and out) on %d threads, "
                         "the process allowed %d cores; wall clock around the call.",
                         o->threads, cores);
                printf("  %-13s %-8s %-8s %-24s decompress %8.2f GB/s (%d threads, %d cores)%s\n",
                       w->contender, codec, cl, "largest rung", ocb_row_gbps(w, t.median_s), o->threads,
                       cores, ok ? "" : " UNVERIFIED");
            }
        }
    }
    free(out);
    free(a.src);
    free(a.csz);
    free(a.caps);
    free(a.got);
    free(a.dst);
    free(a.st);
    oc_context_destroy(ctx);
}

static void run_stock_cells(ocb_sink *sink, const ocb_ladder_opts *o, stage *s, const char *codec,
                            uint64_t chunk)
{
    uint8_t *comp = NULL;
    size_t *sizes = NULL;
    if (put_stock_streams(sink, o, s, codec, chunk, o->stock_cpu ? &comp : NULL,
                          o->stock_cpu ? &sizes : NULL) != 0)
        return;
    for (size_t i = 0; i < o->ncontenders; i++) {
        const ocb_contender *c = o->contenders[i];
        if (!c->supports(codec))
            continue;
        cell k;
        char why[256] = "", name[256];
        cell_init(&k, c, codec, chunk, ocb_ref_stock_label(codec));
        cell_name(&k, name, sizeof name);
        if (c->prepare(codec, (size_t)chunk, s->top, s->bytes[s->nrungs - 1], why, sizeof why) != 0) {
            ocb_strs_add(&sink->skipped, "%s: %s", name, why);
        } else {
            decompress_ladder(sink, s, &k);
            cell_rows(sink, s, &k);
        }
        c->release();
    }
    if (comp)
        stock_cpu_row(sink, o, s, codec, chunk, comp, sizes);
    free(comp);
    free(sizes);
}

static int in_list(uint64_t v, const uint64_t *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == v)
            return 1;
    return 0;
}

void ocb_ladder_mix(ocb_sink *sink, const ocb_ladder_opts *o, const ocb_mix *mix)
{
    for (size_t ci = 0; ci < o->nchunks; ci++) {
        uint64_t chunk = o->chunks[ci];
        char cl[32], bl[32];
        stage s;
        double t0 = ocb_budget_now();
        if (ocb_budget_now() >= sink->budget.deadline_s) {
            ocb_strs_add(&sink->skipped, "%s, %s chunks: everything (the run's time budget is spent)",
                         mix->label, chunk_label(chunk, cl, sizeof cl));
            continue;
        }
        if (stage_make(&s, o, mix, chunk, sink) != 0) {
            stage_free(&s);
            continue;
        }
        printf("%s, %s chunks: %zu rungs up to %s (%zu chunks; one cycle = %zu chunks, %s), batch built in "
               "%.1f s\n",
               mix->label, chunk_label(chunk, cl, sizeof cl), s.nrungs,
               ocb_human_bytes(s.bytes[s.nrungs - 1], bl, sizeof bl), s.top, s.plan.ndistinct,
               ocb_human_bytes(s.plan.distinct_bytes, bl, sizeof bl), ocb_budget_now() - t0);
        for (size_t a = 0; a < o->ncodecs; a++) {
            const char *codec = o->codecs[a];
            size_t slot = 0;
            int any = 0;
            for (size_t i = 0; i < o->ncontenders; i++)
                if (o->contenders[i]->supports(codec)) {
                    size_t bnd = o->contenders[i]->bound(codec, (size_t)chunk);
                    slot = bnd > slot ? bnd : slot;
                    any = 1;
                }
            if (!any) {
                ocb_strs_add(&sink->skipped, "%s %s: no contender runs it", codec,
                             chunk_label(chunk, cl, sizeof cl));
                continue;
            }
            if (slot == 0) {
                ocb_strs_add(&sink->skipped, "%s %s: chunks larger than the format takes", codec,
                             chunk_label(chunk, cl, sizeof cl));
                continue;
            }
            if (ocb_dev_set_slot(&s.dev, slot) != 0) {
                ocb_strs_add(&sink->failures, "%s %s: no room for %zu compressed slots of %zu bytes", codec,
                             chunk_label(chunk, cl, sizeof cl), s.top, slot);
                continue;
            }
            /* deflate's family once per --deflate-level: every contender at the first level, only
             * opencomp at the others (nvCOMP has no levels) */
            size_t nlev = is_deflate_family(codec) && o->ndeflate_levels ? o->ndeflate_levels : 1;
            for (size_t li = 0; li < nlev && !o->stock_only; li++) {
                if (nlev > 1 || (o->ndeflate_levels && is_deflate_family(codec)))
                    ocb_opencomp_set_deflate_level(o->deflate_levels[li]);
                for (size_t i = 0; i < o->ncontenders; i++) {
                    const ocb_contender *c = o->contenders[i];
                    if (!c->supports(codec) || (li > 0 && c != &ocb_contender_opencomp))
                        continue;
                    if (c->bound(codec, (size_t)chunk) ==
                        0) { /* chunks above the format's largest (GDeflate's
                              * 64 KiB pages): a skip, not a failure */
                        if (li == 0)
                            ocb_strs_add(&sink->skipped, "%s %s %s: chunks larger than the format takes",
                                         c->name, codec, chunk_label(chunk, cl, sizeof cl));
                        continue;
                    }
                    run_cell(sink, o, &s, c, codec, chunk);
                }
            }
            if (in_list(chunk, o->stock_chunks, o->nstock) && ocb_ref_stock_label(codec)[0])
                run_stock_cells(sink, o, &s, codec, chunk);
            if (sink->flush)
                sink->flush(sink);
        }
        stage_free(&s);
    }
}
