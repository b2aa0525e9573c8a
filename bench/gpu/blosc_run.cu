/*
 * blosc_run.cu - the Blosc rows of the GPU benchmark (blosc_run.h).  Per
 * typesize group of the given files (.i32 and .f32 files: 4, .i64 and .f64: 8), chunk
 * size, inner codec and filter (byte shuffle, bitshuffle), one "case":
 *
 *   1. one cycle of the group (its files mixed as batch_plan.h mixes the
 *      ladder's) compressed on the host by libblosc as numcodecs' Blosc
 *      writes it (blosc_compress_ctx, clevel 5, blocksize 0 = c-blosc's
 *      choice; through opencomp's CPU engine, which calls exactly that),
 *      then repeated to the batch size (1 GiB: distinct copies in memory,
 *      so no cache holds a repeat);
 *   2. the split streams of those chunks listed (blosc_streams.h) and
 *      decoded once on the host by the reference library (liblz4, libzstd,
 *      ... through the CPU engine): the expected bytes of the plain batch;
 *   3. GPU: opencomp's Blosc decoder over the whole batch, then the plain
 *      decoder of the inner codec over the batch's compressed split streams
 *      (read in place inside the Blosc chunks, written to their places in
 *      the same output buffer): CUDA events, warm-up, median, every output
 *      verified on the GPU;
 *   4. host: c-blosc on `threads` cores, both ways numcodecs/zarr users run
 *      it (libblosc's own threads over one chunk at a time; opencomp's CPU
 *      engine, a chunk per thread), wall clock, every output compared.
 *
 * Rows carry "blosc": the case ("lz4 shuffle ts4"), so bench/report.py
 * puts them in a table of their own (issue 17's targets).  Without a GPU
 * (cudaGetDeviceCount fails) steps 1, 2 and 4 still run: a dry run of the
 * host side.
 */
#include <blosc.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_plan.h"
#include "blosc_run.h"
#include "blosc_streams.h"
#include "device_batch.h"
#include "event_timer.h"
#include "opencomp.h"

#define MAX_GROUP 64

/* One typesize group at one chunk size: plan, host batch, device batch. */
typedef struct bstage {
    char label[160];
    const char *names[MAX_GROUP];
    ocb_plan plan;
    int typesize;
    uint64_t chunk, bytes;    /* chunk size; bytes of the batch */
    size_t top, period, base; /* chunks per call; chunks of one cycle; min of both */
    uint64_t span;            /* bytes of the batch buffer */
    size_t slot;              /* bytes per compressed slot (host and device) */
    uint8_t *host, *host_out, *comp_host;
    size_t *csz;    /* top: compressed sizes */
    size_t *sizes;  /* top: decoded sizes */
    uint64_t *offs; /* top: buffer offsets */
    int have_dev;
    ocb_dev_batch dev;
} bstage;

static const char *plain_codec(const char *cname)
{
    if (strcmp(cname, "lz4") == 0 || strcmp(cname, "lz4hc") == 0)
        return "lz4";
    if (strcmp(cname, "snappy") == 0 || strcmp(cname, "zlib") == 0 || strcmp(cname, "zstd") == 0)
        return cname;
    return NULL; /* blosclz: no plain codec of that name */
}

static int blosc_code(const char *cname)
{
    static const char *const names[] = {"lz4", "blosclz", "lz4hc", "snappy", "zlib", "zstd"};
    for (int i = 0; i < 6; i++)
        if (strcmp(cname, names[i]) == 0)
            return i; /* oc_blosc_codec order */
    return -1;
}

static size_t align256(size_t v)
{
    return (v + 255) / 256 * 256;
}

/* ---- timing on the host: ocb_time_wall (event_timer.h) ------------------ */

typedef ocb_call_fn host_fn;

/* ---- the calls timed ------------------------------------------------------- */

typedef struct call_arg {
    const ocb_contender *c;
    ocb_dev_batch *b;
    size_t n;
} call_arg;

static int gpu_decompress_call(void *p)
{
    call_arg *a = (call_arg *)p;
    return a->c->decompress(a->b, a->n);
}

typedef struct cpu_arg {
    bstage *s;
    int threads;
    oc_context *ctx;
    const void **src;
    void **dst;
    size_t *got;
    oc_status *st;
} cpu_arg;

/* c-blosc's own threads, one chunk at a time (numcodecs' Blosc.decode). */
static int cblosc_call(void *p)
{
    cpu_arg *a = (cpu_arg *)p;
    bstage *s = a->s;
    for (size_t i = 0; i < s->top; i++) {
        int r = blosc_decompress_ctx(s->comp_host + i * s->slot, s->host_out + s->offs[i], s->sizes[i],
                                     a->threads);
        if (r != (int)s->sizes[i])
            return -1;
    }
    return 0;
}

/* opencomp's CPU engine: a chunk per thread, libblosc inside. */
static int cpu_engine_call(void *p)
{
    cpu_arg *a = (cpu_arg *)p;
    oc_codec_options o = OC_CODEC_OPTIONS_INIT;
    o.algorithm = OC_ALGO_BLOSC;
    return oc_batch_decompress(a->ctx, &o, a->s->top, a->src, a->s->csz, a->dst, a->s->sizes, a->got,
                               a->st) == OC_OK
               ? 0
               : -1;
}

/* ---- rows ------------------------------------------------------------------ */

typedef struct case_info {
    char name[48];     /* "lz4 shuffle ts4" */
    char streams[96];  /* who wrote the chunks */
    const char *cname; /* inner codec */
} case_info;

static ocb_row *add_row(ocb_sink *sink, const bstage *s, const case_info *k, const char *contender,
                        const char *algorithm, int level, uint64_t chunk_size, uint64_t n, uint64_t u,
                        uint64_t c, const ocb_timing *t, int verified, int threads)
{
    ocb_row *w = ocb_rows_push(&sink->rows);
    if (!w)
        return NULL;
    snprintf(w->file, sizeof w->file, "%s", s->label);
    w->file_bytes = s->plan.distinct_bytes;
    snprintf(w->algorithm, sizeof w->algorithm, "%s", algorithm);
    w->level = level;
    w->chunk_size = chunk_size;
    w->num_chunks = n;
    w->uncompressed_bytes = u;
    w->compressed_bytes = c;
    snprintf(w->contender, sizeof w->contender, "%s", contender);
    snprintf(w->scope, sizeof w->scope, "kernel");
    snprintf(w->timing, sizeof w->timing, "%s", threads > 0 ? "wall-clock" : "cuda-events");
    w->threads = threads;
    w->decompress_s = t->median_s;
    w->decompress_repeats = t->repeats;
    w->decompress_warmup = t->warmup;
    w->verified = verified;
    snprintf(w->streams, sizeof w->streams, "%s", k->streams);
    w->ladder = 1;
    w->batch_target = s->bytes;
    w->plan_id = ocb_plan_id(&s->plan, s->names, s->top);
    snprintf(w->blosc, sizeof w->blosc, "%s", k->name);
    return w;
}

/* ---- one case ---------------------------------------------------------------- */

/* The expected bytes of the cycle's split streams, decoded on the host by
 * the reference library (CPU engine, RAW streams): 0, or -1 (named). */
static int expect_streams(oc_context *cpu, const bstage *s, const char *plain, const ocb_blosc_split *sp,
                          const size_t *first, uint8_t *exp, char *why, size_t cap)
{
    size_t m = first[s->base];
    oc_algorithm alg;
    if (oc_algorithm_from_name(plain, &alg) != OC_OK) {
        snprintf(why, cap, "opencomp has no algorithm %s", plain);
        return -1;
    }
    const void **src = (const void **)malloc(m * sizeof *src);
    void **dst = (void **)malloc(m * sizeof *dst);
    size_t *cs = (size_t *)malloc(m * sizeof *cs), *ds = (size_t *)malloc(m * sizeof *ds),
           *got = (size_t *)malloc(m * sizeof *got);
    oc_status *st = (oc_status *)malloc(m * sizeof *st);
    int rc = -1;
    if (src && dst && cs && ds && got && st) {
        for (size_t c = 0; c < s->base; c++)
            for (size_t j = first[c]; j < first[c + 1]; j++) {
                src[j] = s->comp_host + c * s->slot + sp[j].offset;
                cs[j] = sp[j].csize;
                dst[j] = exp + s->offs[c] + sp[j].out;
                ds[j] = sp[j].dsize;
            }
        oc_codec_options o = OC_CODEC_OPTIONS_INIT;
        o.algorithm = alg;
        oc_status r = oc_batch_decompress(cpu, &o, m, src, cs, dst, ds, got, st);
        rc = r == OC_OK ? 0 : -1;
        for (size_t j = 0; j < m && rc == 0; j++)
            if (st[j] != OC_OK || got[j] != ds[j]) {
                snprintf(why, cap, "the CPU reference does not decode split stream %zu (%s)", j,
                         oc_status_name(st[j]));
                rc = -1;
            }
        if (r != OC_OK)
            snprintf(why, cap, "oc_batch_decompress on the CPU: %s", oc_status_name(r));
    } else {
        snprintf(why, cap, "out of host memory");
    }
    free(src);
    free(dst);
    free(cs);
    free(ds);
    free(got);
    free(st);
    return rc;
}

/* The plain GPU batch: every compressed split stream of the batch, read in
 * place in the device slots, decoded to its place in the batch's output
 * buffer, checked against the expected cycle `exp_dev`. */
static int plain_batch_make(ocb_dev_batch *pb, const bstage *s, const ocb_blosc_split *sp,
                            const size_t *first, uint8_t *exp_dev, size_t n)
{
    memset(pb, 0, sizeof *pb);
    pb->n = n;
    pb->out_dev = s->dev.out_dev;
    pb->in_dev = exp_dev;
    pb->in_sizes = (size_t *)malloc(n * sizeof(size_t));
    pb->offsets = (uint64_t *)malloc(n * sizeof(uint64_t));
    void **cp = (void **)malloc(n * sizeof(void *)), **op = (void **)malloc(n * sizeof(void *)),
         **ip = (void **)malloc(n * sizeof(void *));
    size_t *cs = (size_t *)malloc(n * sizeof(size_t));
    int rc = -1;
    if (pb->in_sizes && pb->offsets && cp && op && ip && cs) {
        size_t j = 0;
        for (size_t i = 0; i < s->top; i++) {
            size_t c = i % s->period;
            for (size_t k = first[c]; k < first[c + 1]; k++, j++) {
                cp[j] = s->dev.comp_dev + i * s->dev.slot + sp[k].offset;
                cs[j] = sp[k].csize;
                pb->offsets[j] = s->dev.offsets[i] + sp[k].out;
                op[j] = s->dev.out_dev + pb->offsets[j];
                ip[j] = exp_dev + s->offs[c] + sp[k].out;
                pb->in_sizes[j] = sp[k].dsize;
            }
        }
        rc = cudaMalloc((void **)&pb->comp_ptrs_dev, n * sizeof(void *)) != cudaSuccess ||
                     cudaMalloc((void **)&pb->out_ptrs_dev, n * sizeof(void *)) != cudaSuccess ||
                     cudaMalloc((void **)&pb->in_ptrs_dev, n * sizeof(void *)) != cudaSuccess ||
                     cudaMalloc((void **)&pb->comp_sizes_dev, n * sizeof(size_t)) != cudaSuccess ||
                     cudaMalloc((void **)&pb->in_sizes_dev, n * sizeof(size_t)) != cudaSuccess ||
                     cudaMalloc((void **)&pb->out_sizes_dev, n * sizeof(size_t)) != cudaSuccess ||
                     cudaMalloc((void **)&pb->status_dev, n * sizeof(int32_t)) != cudaSuccess ||
                     cudaMalloc((void **)&pb->check_dev, 2 * sizeof(unsigned long long)) != cudaSuccess ||
                     cudaMemcpy(pb->comp_ptrs_dev, cp, n * sizeof(void *), cudaMemcpyHostToDevice) !=
                         cudaSuccess ||
                     cudaMemcpy(pb->out_ptrs_dev, op, n * sizeof(void *), cudaMemcpyHostToDevice) !=
                         cudaSuccess ||
                     cudaMemcpy(pb->in_ptrs_dev, ip, n * sizeof(void *), cudaMemcpyHostToDevice) !=
                         cudaSuccess ||
                     cudaMemcpy(pb->comp_sizes_dev, cs, n * sizeof(size_t), cudaMemcpyHostToDevice) !=
                         cudaSuccess ||
                     cudaMemcpy(pb->in_sizes_dev, pb->in_sizes, n * sizeof(size_t), cudaMemcpyHostToDevice) !=
                         cudaSuccess
                 ? -1
                 : 0;
    }
    free(cp);
    free(op);
    free(ip);
    free(cs);
    return rc;
}

static void plain_batch_free(ocb_dev_batch *pb)
{
    void *ps[] = {pb->comp_ptrs_dev, pb->out_ptrs_dev,  pb->in_ptrs_dev, pb->comp_sizes_dev,
                  pb->in_sizes_dev,  pb->out_sizes_dev, pb->status_dev,  pb->check_dev};
    for (size_t i = 0; i < sizeof ps / sizeof ps[0]; i++)
        cudaFree(ps[i]);
    free(pb->in_sizes);
    free(pb->offsets);
    memset(pb, 0, sizeof *pb);
}

/* Time one GPU decode over b's first n chunks, verified: 1 if measured. */
static int gpu_time(ocb_sink *sink, const ocb_contender *c, ocb_dev_batch *b, size_t n, uint64_t bytes,
                    const char *what, ocb_timing *t, int *verified)
{
    ocb_rung_plan p = ocb_budget_plan(&sink->budget, ocb_budget_now(), bytes, n, 0, 0, 0);
    if (!p.run) {
        ocb_strs_add(&sink->skipped, "%s: %s", what, p.why);
        printf("  skipped: %s: %s\n", what, p.why);
        return 0;
    }
    call_arg a = {c, b, n};
    size_t bad = 0, nbad = 0;
    memset(t, 0, sizeof *t);
    if (ocb_dev_clear_out(b, n) == 0)
        *t = ocb_time_rung(gpu_decompress_call, &a, &sink->budget, &p);
    *verified = t->ok && ocb_dev_verify(b, n, &bad, &nbad);
    if (!*verified) {
        ocb_strs_add(&sink->failures, "%s: %s (%zu of %zu outputs wrong, first %zu)", what,
                     t->ok ? "output differs" : "call or CUDA error", nbad, n, bad);
        printf("  FAILED: %s\n", sink->failures.v[sink->failures.n - 1]);
        (void)cudaGetLastError();
    }
    return t->ok;
}

/* Time one host decode, then compare every chunk with the input. */
static int cpu_time(ocb_sink *sink, bstage *s, host_fn fn, cpu_arg *a, const char *what, ocb_timing *t,
                    int *verified)
{
    ocb_rung_plan p = ocb_budget_plan(&sink->budget, ocb_budget_now(), s->bytes, s->top, 0, 0, 0);
    if (!p.run) {
        ocb_strs_add(&sink->skipped, "%s: %s", what, p.why);
        printf("  skipped: %s: %s\n", what, p.why);
        return 0;
    }
    memset(s->host_out, 0xEE, (size_t)s->span);
    *t = ocb_time_wall(fn, a, &sink->budget, &p);
    *verified = t->ok;
    for (size_t i = 0; i < s->top && *verified; i++)
        if (memcmp(s->host_out + s->offs[i], s->host + s->offs[i], s->sizes[i]) != 0) {
            *verified = 0;
            ocb_strs_add(&sink->failures, "%s: chunk %zu decodes wrong", what, i);
        }
    if (!t->ok)
        ocb_strs_add(&sink->failures, "%s: a call failed", what);
    return t->ok;
}

/* What one case carries between its steps. */
typedef struct bcase {
    case_info k;
    char cl[32];
    const void **src; /* top: the compressed chunks on the host */
    void **dst;       /* top: the same slots (compression's output) */
    void **outp;      /* top: host_out at each chunk */
    size_t *caps, *got;
    oc_status *st;
    size_t *first;       /* base + 1: index of each cycle chunk's first split */
    ocb_blosc_split *sp; /* the cycle's compressed split streams */
    uint8_t *exp;        /* the cycle's streams decoded (host) */
    const char *plain;   /* the inner codec's plain algorithm, or NULL */
    int have_exp;
    uint64_t comp_bytes, stored, plain_u, plain_c;
    uint32_t max_dsize, nstreams;
    size_t nplain;
    double g_blosc, g_plain, g_ref, g_eng;
} bcase;

/* Step 1: one cycle compressed by libblosc (opencomp's CPU engine), repeated: 0 or -1 (named). */
static int case_compress(ocb_sink *sink, const ocb_blosc_opts *o, bstage *s, oc_context *cpu, bcase *x,
                         int code, int shuffle)
{
    const void **in = (const void **)malloc(s->base * sizeof *in);
    if (!in)
        return -1;
    for (size_t i = 0; i < s->base; i++)
        in[i] = s->host + s->offs[i];
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = OC_ALGO_BLOSC;
    co.level = o->clevel;
    co.filter = (uint8_t)shuffle; /* OC_FILTER_SHUFFLE 1, BITSHUFFLE 2: c-blosc's values */
    co.typesize = (uint8_t)s->typesize;
    co.blosc_codec = (uint8_t)code;
    double t0 = ocb_budget_now();
    oc_status r = oc_batch_compress(cpu, &co, s->base, in, s->sizes, x->dst, x->caps, s->csz, x->st);
    free(in);
    for (size_t i = 0; i < s->base && r == OC_OK; i++)
        if (x->st[i] != OC_OK)
            r = x->st[i];
    if (r != OC_OK) {
        ocb_strs_add(&sink->failures, "blosc %s %s: libblosc compression failed: %s", x->k.name, x->cl,
                     oc_status_name(r));
        return -1;
    }
    for (size_t i = s->base; i < s->top; i++) {
        size_t c = i % s->period;
        memcpy(s->comp_host + i * s->slot, s->comp_host + c * s->slot, s->csz[c]);
        s->csz[i] = s->csz[c];
    }
    x->comp_bytes = 0;
    for (size_t i = 0; i < s->top; i++)
        x->comp_bytes += s->csz[i];
    printf("  blosc %s, %s chunks: %zu chunks written by libblosc in %.2f s\n", x->k.name, x->cl, s->base,
           ocb_budget_now() - t0);
    return 0;
}

/* Step 2: the split streams, and what they decode to: 0 or -1 (named). */
static int case_streams(ocb_sink *sink, bstage *s, oc_context *cpu, bcase *x)
{
    ocb_blosc_layout lay;
    char why[256] = "";
    for (size_t c = 0; c < s->base; c++) {
        if (ocb_blosc_splits(s->comp_host + c * s->slot, s->csz[c], NULL, 0, &lay) != 0) {
            ocb_strs_add(&sink->failures, "blosc %s %s: chunk %zu is refused by opencomp's parser", x->k.name,
                         x->cl, c);
            return -1;
        }
        x->first[c + 1] = x->first[c] + lay.ncompressed;
    }
    x->sp = (ocb_blosc_split *)malloc((x->first[s->base] + 1) * sizeof *x->sp);
    if (!x->sp)
        return -1;
    for (size_t c = 0; c < s->base; c++)
        ocb_blosc_splits(s->comp_host + c * s->slot, s->csz[c], x->sp + x->first[c],
                         x->first[c + 1] - x->first[c], &lay);
    for (size_t i = 0; i < s->top; i++) {
        size_t c = i % s->period;
        ocb_blosc_splits(s->comp_host + c * s->slot, s->csz[c], NULL, 0, &lay);
        x->stored += lay.stored_bytes;
        x->nstreams += lay.nstreams;
        if (lay.max_dsize > x->max_dsize)
            x->max_dsize = lay.max_dsize;
        for (size_t j = x->first[c]; j < x->first[c + 1]; j++) {
            x->plain_u += x->sp[j].dsize;
            x->plain_c += x->sp[j].csize;
        }
        x->nplain += x->first[c + 1] - x->first[c];
    }
    x->plain = plain_codec(x->k.cname);
    if (x->plain && x->nplain > 0) {
        x->exp = (uint8_t *)calloc(1, (size_t)ocb_plan_buffer_bytes(&s->plan, s->base));
        x->have_exp =
            x->exp && expect_streams(cpu, s, x->plain, x->sp, x->first, x->exp, why, sizeof why) == 0;
        if (!x->have_exp)
            ocb_strs_add(&sink->failures, "blosc %s %s: split streams: %s", x->k.name, x->cl, why);
    } else {
        ocb_strs_add(&sink->skipped, "blosc %s %s: no plain %s comparison (%s)", x->k.name, x->cl, x->k.cname,
                     x->plain ? "every stream is stored" : "no plain codec of that format");
    }
    char bl[32];
    printf("  blosc %s, %s chunks, %s per call (%zu chunks): ratio %.3f; %u streams, %zu compressed "
           "(%.1f%% of the bytes stored)\n",
           x->k.name, x->cl, ocb_human_bytes(s->bytes, bl, sizeof bl), s->top,
           (double)s->bytes / (double)x->comp_bytes, x->nstreams, x->nplain,
           100.0 * (double)x->stored / (double)s->bytes);
    return 0;
}

/* Step 3: the GPU decoders. */
static void case_gpu(ocb_sink *sink, const ocb_blosc_opts *o, bstage *s, bcase *x)
{
    char what[256], why[256] = "";
    if (ocb_dev_put_comp(&s->dev, 0, s->base, s->comp_host, s->csz) != 0 ||
        ocb_dev_replicate(&s->dev, s->base, s->top, s->period) != 0) {
        ocb_strs_add(&sink->failures, "blosc %s %s: cannot put the chunks on the GPU", x->k.name, x->cl);
        return;
    }
    for (size_t g = 0; g < o->ngpu; g++) {
        const ocb_contender *c = o->gpu[g];
        ocb_timing t;
        int ok = 0;
        if (!c->supports("blosc"))
            continue;
        snprintf(what, sizeof what, "%s blosc %s %s", c->name, x->k.name, x->cl);
        if (c->prepare("blosc", (size_t)s->chunk, s->top, s->bytes, why, sizeof why) != 0) {
            ocb_strs_add(&sink->skipped, "%s: %s", what, why);
        } else if (gpu_time(sink, c, &s->dev, s->top, s->bytes, what, &t, &ok)) {
            ocb_row *w = add_row(sink, s, &x->k, c->name, "blosc", o->clevel, s->chunk, s->top, s->bytes,
                                 x->comp_bytes, &t, ok, 0);
            if (w) {
                snprintf(w->path, sizeof w->path, "%s",
                         oc_algorithm_decode_available(OC_ENGINE_CUDA, OC_ALGO_BLOSC) ? "gpu-kernel"
                                                                                      : "host-staged");
                x->g_blosc = ocb_row_gbps(w, t.median_s);
            }
        }
        c->release();
    }
    if (!x->have_exp)
        return;
    size_t cyc = (size_t)ocb_plan_buffer_bytes(&s->plan, s->base);
    uint8_t *exp_dev = NULL;
    ocb_dev_batch pb;
    if (cudaMalloc((void **)&exp_dev, cyc) != cudaSuccess ||
        cudaMemcpy(exp_dev, x->exp, cyc, cudaMemcpyHostToDevice) != cudaSuccess ||
        plain_batch_make(&pb, s, x->sp, x->first, exp_dev, x->nplain) != 0) {
        ocb_strs_add(&sink->failures, "blosc %s %s: cannot build the plain batch on the GPU", x->k.name,
                     x->cl);
        cudaFree(exp_dev);
        (void)cudaGetLastError();
        return;
    }
    for (size_t g = 0; g < o->ngpu; g++) {
        const ocb_contender *c = o->gpu[g];
        ocb_timing t;
        int ok = 0;
        if (!c->supports(x->plain))
            continue;
        snprintf(what, sizeof what, "%s %s: the split streams of blosc %s %s", c->name, x->plain, x->k.name,
                 x->cl);
        if (c->prepare(x->plain, x->max_dsize, x->nplain, x->plain_u, why, sizeof why) != 0) {
            ocb_strs_add(&sink->skipped, "%s: %s", what, why);
        } else if (gpu_time(sink, c, &pb, x->nplain, x->plain_u, what, &t, &ok)) {
            ocb_row *w = add_row(sink, s, &x->k, c->name, x->plain, 0, x->max_dsize, x->nplain, x->plain_u,
                                 x->plain_c, &t, ok, 0);
            if (w) {
                snprintf(w->path, sizeof w->path, "%s", c->path(x->plain));
                snprintf(w->streams, sizeof w->streams, "split streams of %.78s", x->k.streams);
                snprintf(
                    w->note, sizeof w->note,
                    "The %zu compressed split streams of the Blosc batch, read in place, written to their "
                    "places; %.1f%% of the batch's bytes are stored streams or memcpyed chunks (copies, not "
                    "in this batch).",
                    x->nplain, 100.0 * (double)x->stored / (double)s->bytes);
                x->g_plain = ocb_row_gbps(w, t.median_s);
            }
        }
        c->release();
    }
    plain_batch_free(&pb);
    cudaFree(exp_dev);
    (void)cudaGetLastError();
}

/* Step 4: c-blosc on the host's cores, both ways. */
static void case_cpu(ocb_sink *sink, const ocb_blosc_opts *o, bstage *s, oc_context *cpu, bcase *x)
{
    char what[256];
    cpu_arg a = {s, o->threads, cpu, x->src, x->outp, x->got, x->st};
    ocb_timing t;
    int ok = 0;
    snprintf(what, sizeof what, "reference-cpu blosc %s %s (libblosc threads)", x->k.name, x->cl);
    if (cpu_time(sink, s, cblosc_call, &a, what, &t, &ok)) {
        ocb_row *w = add_row(sink, s, &x->k, "reference-cpu", "blosc", o->clevel, s->chunk, s->top, s->bytes,
                             x->comp_bytes, &t, ok, o->threads);
        if (w) {
            snprintf(w->note, sizeof w->note,
                     "libblosc %s blosc_decompress_ctx, numinternalthreads = %d, one chunk after the other "
                     "(numcodecs' Blosc.decode).",
                     BLOSC_VERSION_STRING, o->threads);
            x->g_ref = ocb_row_gbps(w, t.median_s);
        }
    }
    snprintf(what, sizeof what, "opencomp-cpu blosc %s %s (a chunk per thread)", x->k.name, x->cl);
    if (cpu_time(sink, s, cpu_engine_call, &a, what, &t, &ok)) {
        for (size_t i = 0; i < s->top && ok; i++)
            ok = x->st[i] == OC_OK && x->got[i] == s->sizes[i];
        ocb_row *w = add_row(sink, s, &x->k, "opencomp-cpu", "blosc", o->clevel, s->chunk, s->top, s->bytes,
                             x->comp_bytes, &t, ok, o->threads);
        if (w) {
            snprintf(
                w->note, sizeof w->note,
                "opencomp's CPU engine on %d threads: libblosc %s blosc_decompress_ctx with one internal "
                "thread per chunk, one chunk per thread.",
                o->threads, BLOSC_VERSION_STRING);
            x->g_eng = ocb_row_gbps(w, t.median_s);
        }
    }
}

static void run_case(ocb_sink *sink, const ocb_blosc_opts *o, bstage *s, oc_context *cpu, const char *cname,
                     int shuffle)
{
    bcase x;
    memset(&x, 0, sizeof x);
    x.g_blosc = x.g_plain = x.g_ref = x.g_eng = -1;
    x.k.cname = cname;
    snprintf(x.k.name, sizeof x.k.name, "%s %s ts%d", cname, shuffle == 1 ? "shuffle" : "bitshuffle",
             s->typesize);
    snprintf(x.k.streams, sizeof x.k.streams, "libblosc %s: %s clevel %d %s typesize %d (numcodecs Blosc)",
             BLOSC_VERSION_STRING, cname, o->clevel, shuffle == 1 ? "shuffle" : "bitshuffle", s->typesize);
    ocb_human_bytes(s->chunk, x.cl, sizeof x.cl);
    int code = blosc_code(cname);
    if (code < 0) {
        ocb_strs_add(&sink->skipped, "blosc %s: c-blosc has no codec %s", x.k.name, cname);
        return;
    }
    x.src = (const void **)malloc(s->top * sizeof *x.src);
    x.dst = (void **)malloc(s->top * sizeof *x.dst);
    x.outp = (void **)malloc(s->top * sizeof *x.outp);
    x.caps = (size_t *)malloc(s->top * sizeof *x.caps);
    x.got = (size_t *)malloc(s->top * sizeof *x.got);
    x.st = (oc_status *)malloc(s->top * sizeof *x.st);
    x.first = (size_t *)calloc(s->base + 1, sizeof *x.first);
    if (x.src && x.dst && x.outp && x.caps && x.got && x.st && x.first) {
        for (size_t i = 0; i < s->top; i++) {
            x.src[i] = s->comp_host + i * s->slot;
            x.dst[i] = s->comp_host + i * s->slot;
            x.outp[i] = s->host_out + s->offs[i];
            x.caps[i] = s->slot;
        }
        if (case_compress(sink, o, s, cpu, &x, code, shuffle) == 0 && case_streams(sink, s, cpu, &x) == 0) {
            if (s->have_dev)
                case_gpu(sink, o, s, &x);
            case_cpu(sink, o, s, cpu, &x);
            double best = x.g_ref > x.g_eng ? x.g_ref : x.g_eng;
            char q1[48] = "-", q2[48] = "-";
            if (x.g_blosc > 0 && x.g_plain > 0)
                snprintf(q1, sizeof q1, "%.2f", x.g_blosc / x.g_plain);
            if (x.g_blosc > 0 && best > 0)
                snprintf(q2, sizeof q2, "%.2f", x.g_blosc / best);
            printf(
                "  = blosc %-22s %s: GPU %.2f GB/s, plain %s on its streams %.2f (blosc/plain %s); c-blosc "
                "%dT %.2f (own threads) %.2f (a chunk per thread); GPU/c-blosc %s\n",
                x.k.name, x.cl, x.g_blosc, x.plain ? x.plain : "-", x.g_plain, q1, o->threads, x.g_ref,
                x.g_eng, q2);
            fflush(stdout);
        }
    } else {
        ocb_strs_add(&sink->failures, "blosc %s %s: out of host memory", x.k.name, x.cl);
    }
    free(x.exp);
    free(x.sp);
    free(x.src);
    free(x.dst);
    free(x.outp);
    free(x.caps);
    free(x.got);
    free(x.st);
    free(x.first);
    if (sink->flush)
        sink->flush(sink);
}

/* ---- stages ------------------------------------------------------------------ */

static int stage_make(bstage *s, const ocb_blosc_opts *o, int ts, const size_t *idx, size_t n, uint64_t chunk,
                      ocb_sink *sink)
{
    memset(s, 0, sizeof *s);
    uint64_t sizes[MAX_GROUP];
    size_t off = 0;
    off += (size_t)snprintf(s->label, sizeof s->label, "typesize %d:", ts);
    for (size_t i = 0; i < n; i++) {
        s->names[i] = o->names[idx[i]];
        sizes[i] = o->sizes[idx[i]];
        if (off < sizeof s->label)
            off +=
                (size_t)snprintf(s->label + off, sizeof s->label - off, "%s%s", i ? ", " : " ", s->names[i]);
    }
    s->typesize = ts;
    s->chunk = chunk;
    if (ocb_plan_make(&s->plan, sizes, n, (size_t)chunk) != 0)
        return -1;
    s->top = ocb_plan_rung_chunks(&s->plan, o->batch_bytes, &s->bytes);
    s->period = s->plan.ndistinct;
    s->base = s->top < s->period ? s->top : s->period;
    s->span = ocb_plan_buffer_bytes(&s->plan, s->top);
    s->slot = align256((size_t)chunk + BLOSC_MAX_OVERHEAD);
    s->host = (uint8_t *)malloc((size_t)s->span);
    s->host_out = (uint8_t *)malloc((size_t)s->span);
    s->comp_host = (uint8_t *)malloc(s->top * s->slot);
    s->csz = (size_t *)malloc(s->top * sizeof(size_t));
    s->sizes = (size_t *)malloc(s->top * sizeof(size_t));
    s->offs = (uint64_t *)malloc(s->top * sizeof(uint64_t));
    if (!s->host || !s->host_out || !s->comp_host || !s->csz || !s->sizes || !s->offs) {
        ocb_strs_add(&sink->failures, "blosc %s: out of host memory", s->label);
        return -1;
    }
    memset(s->host, 0, (size_t)s->span);
    for (size_t i = 0; i < s->top; i++) {
        const ocb_chunk *c = ocb_plan_chunk(&s->plan, i);
        s->sizes[i] = c->size;
        s->offs[i] = ocb_plan_offset(&s->plan, i);
        if (i < s->period)
            memcpy(s->host + s->offs[i], o->data[idx[c->file]] + c->offset, c->size);
        else
            memcpy(s->host + s->offs[i], s->host + s->offs[i % s->period], c->size);
    }
    if (o->ngpu) {
        if (ocb_dev_batch_make(&s->dev, &s->plan, s->top, s->host) != 0 ||
            ocb_dev_set_slot(&s->dev, s->slot) != 0) {
            ocb_strs_add(&sink->failures, "blosc %s: cannot put the %llu-byte batch on the GPU", s->label,
                         (unsigned long long)s->span);
            return -1;
        }
        s->have_dev = 1;
    }
    return 0;
}

static void stage_free(bstage *s)
{
    if (s->have_dev)
        ocb_dev_batch_free(&s->dev);
    ocb_plan_free(&s->plan);
    free(s->host);
    free(s->host_out);
    free(s->comp_host);
    free(s->csz);
    free(s->sizes);
    free(s->offs);
    memset(s, 0, sizeof *s);
}

void ocb_blosc_run(ocb_sink *sink, const ocb_blosc_opts *o)
{
    oc_context *cpu = NULL;
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CPU;
    co.num_threads = o->threads;
    if (oc_context_create(&co, &cpu) != OC_OK) {
        ocb_strs_add(&sink->failures, "blosc: cannot make a CPU context");
        return;
    }
    printf("blosc: libblosc %s, clevel %d, %d host threads%s\n", BLOSC_VERSION_STRING, o->clevel, o->threads,
           o->ngpu ? "" : "; no GPU contender: the host side only (a dry run)");
    for (size_t f = 0; f < o->nfiles; f++)
        if (ocb_typesize_of(o->names[f]) == 0)
            ocb_strs_add(&sink->skipped, "blosc: %s: no typesize in its name (.i32, .f64, ...)", o->names[f]);
    static const int sizes[] = {4, 8, 2};
    for (int g = 0; g < 3; g++) {
        size_t idx[MAX_GROUP], n = 0;
        for (size_t f = 0; f < o->nfiles && n < MAX_GROUP; f++)
            if (ocb_typesize_of(o->names[f]) == sizes[g])
                idx[n++] = f;
        if (n == 0)
            continue;
        for (size_t ci = 0; ci < o->nchunks; ci++) {
            bstage s;
            char cl[32], bl[32];
            ocb_human_bytes(o->chunks[ci], cl, sizeof cl);
            if (ocb_budget_now() >= sink->budget.deadline_s) {
                ocb_strs_add(&sink->skipped,
                             "blosc typesize %d, %s chunks: everything (the run's time budget is "
                             "spent)",
                             sizes[g], cl);
                continue;
            }
            double t0 = ocb_budget_now();
            if (stage_make(&s, o, sizes[g], idx, n, o->chunks[ci], sink) == 0) {
                printf("blosc %s, %s chunks: %s per call (%zu chunks; one cycle = %zu chunks), built in %.1f "
                       "s\n",
                       s.label, cl, ocb_human_bytes(s.bytes, bl, sizeof bl), s.top, s.period,
                       ocb_budget_now() - t0);
                for (size_t c = 0; c < o->ncnames; c++)
                    for (int sh = 1; sh <= 2; sh++)
                        run_case(sink, o, &s, cpu, o->cnames[c], sh);
            }
            stage_free(&s);
        }
    }
    oc_context_destroy(cpu);
}
