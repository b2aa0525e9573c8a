/*
 * bench.c - `opencomp bench`: ratio, compression and decompression GB/s
 * for every input x algorithm x chunk size, with these contenders on the
 * same chunks in one run:
 *   opencomp-cpu  / kernel      oc_batch_* over all chunks on T threads
 *   reference-cpu / kernel      the reference library, one thread (bench_ref.c)
 *   opencomp-gpu  / kernel      oc_batch_* on the CUDA engine, device buffers,
 *                               timed with oc_context_synchronize around the call
 *   opencomp-cpu  / end-to-end  oc_buffer_compress/decompress, NATIVE container
 * Method (nvCOMP's): chunks of the given size (last one partial), buffers
 * allocated outside the timed region, one warm-up then --repeat timed runs,
 * median time, GB/s = uncompressed bytes / time (1 GB = 1e9 B), ratio =
 * uncompressed / sum of compressed sizes.  Every decoded byte is compared
 * with the input after the warm-up and again after the timed runs; a
 * mismatch marks the row unverified and the exit status 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define MAX_INPUTS 4096

typedef struct bench_state {
    const cli_options *opts;
    oc_context *cpu;
    oc_context *gpu; /* NULL without a usable CUDA engine */
    int repeat;
    bench_result *rows;
    size_t num_rows, cap_rows;
    double *comp_secs, *dec_secs; /* per row: median seconds (for the totals) */
    int failures;
} bench_state;

/* The chunks of one input for one algorithm and chunk size. */
typedef struct chunk_set {
    oc_algorithm algorithm;
    int level;
    size_t n;
    const void **src;
    size_t *src_sizes;
    size_t slot;      /* bytes per compressed slot */
    uint8_t *comp;    /* n slots */
    void **comp_ptrs; /* into comp (or device memory for the GPU) */
    size_t *comp_caps;
    size_t *comp_sizes;
    uint8_t *out; /* decoded, same layout as the input */
    void **out_ptrs;
    size_t *out_caps;
    oc_status *statuses;
    const bench_input *input;
    bench_ref *ref;         /* NULL: no reference library for this format */
    oc_typed_options typed; /* the typed formats' options (--data-type, ...) */
    oc_context *ctx;        /* for the oc_* contenders */
    struct e2e_arg *e2e;    /* for the end-to-end contender */
} chunk_set;

typedef int (*step_fn)(chunk_set *cs);

static bench_result *add_row(bench_state *st, const bench_input *in, const chunk_set *cs, size_t chunk_size,
                             const char *contender, const char *scope, int threads)
{
    if (st->num_rows == st->cap_rows) {
        size_t ncap = st->cap_rows ? st->cap_rows * 2 : 64;
        bench_result *r = realloc(st->rows, ncap * sizeof *r);
        double *c = realloc(st->comp_secs, ncap * sizeof *c);
        double *d = c ? realloc(st->dec_secs, ncap * sizeof *d) : NULL;
        if (r)
            st->rows = r;
        if (c)
            st->comp_secs = c;
        if (d)
            st->dec_secs = d;
        if (!r || !c || !d)
            return NULL;
        st->cap_rows = ncap;
    }
    bench_result *r = &st->rows[st->num_rows];
    st->comp_secs[st->num_rows] = 0;
    st->dec_secs[st->num_rows] = 0;
    st->num_rows++;
    memset(r, 0, sizeof *r);
    r->file = in->name;
    r->file_bytes = in->size;
    r->algorithm = cs->algorithm;
    r->level = cs->level;
    r->chunk_size = chunk_size;
    r->num_chunks = cs->n;
    r->contender = contender;
    r->scope = scope;
    r->threads = threads;
    r->uncompressed_bytes = in->size;
    r->timing = "wall-clock";
    r->repeats = st->repeat;
    return r;
}

/* Runs `fn` once (warm-up; `check` then verifies) and `repeat` timed
 * times; *median gets the median seconds.  Returns -1 if any run failed. */
static int timed(bench_state *st, step_fn fn, chunk_set *cs, int (*check)(chunk_set *), double *median)
{
    if (fn(cs) != 0)
        return -1;
    if (check && check(cs) != 0)
        return -2;
    double *t = malloc((size_t)st->repeat * sizeof *t);
    if (!t)
        return -1;
    for (int i = 0; i < st->repeat; i++) {
        double t0 = cli_now();
        if (fn(cs) != 0) {
            free(t);
            return -1;
        }
        t[i] = cli_now() - t0;
    }
    *median = cli_median(t, st->repeat);
    free(t);
    if (check && check(cs) != 0)
        return -2;
    return 0;
}

static int verify_host(chunk_set *cs)
{
    return memcmp(cs->out, cs->input->data, cs->input->size) == 0 ? 0 : -1;
}

static void poison(uint8_t *p, size_t n)
{
    memset(p, 0xA5, n);
}

/* ---- contenders --------------------------------------------------------- */

static int statuses_ok(const chunk_set *cs)
{
    for (size_t i = 0; i < cs->n; i++)
        if (cs->statuses[i] != OC_OK)
            return 0;
    return 1;
}

static int oc_comp_step(chunk_set *cs)
{
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = cs->algorithm;
    co.level = cs->level;
    co.typed = cs->typed;
    oc_status s = oc_batch_compress(cs->ctx, &co, cs->n, cs->src, cs->src_sizes, cs->comp_ptrs, cs->comp_caps,
                                    cs->comp_sizes, cs->statuses);
    if (s == OC_OK)
        s = oc_context_synchronize(cs->ctx);
    return s == OC_OK && statuses_ok(cs) ? 0 : -1;
}

static int oc_dec_step(chunk_set *cs)
{
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = cs->algorithm;
    oc_status s = oc_batch_decompress(cs->ctx, &co, cs->n, (const void *const *)cs->comp_ptrs, cs->comp_sizes,
                                      cs->out_ptrs, cs->out_caps, NULL, cs->statuses);
    if (s == OC_OK)
        s = oc_context_synchronize(cs->ctx);
    return s == OC_OK && statuses_ok(cs) ? 0 : -1;
}

static int ref_comp_step(chunk_set *cs)
{
    for (size_t i = 0; i < cs->n; i++) {
        cs->comp_sizes[i] =
            cli_ref_compress(cs->ref, cs->src[i], cs->src_sizes[i], cs->comp_ptrs[i], cs->slot);
        if (cs->comp_sizes[i] == 0)
            return -1;
    }
    return 0;
}

static int ref_dec_step(chunk_set *cs)
{
    for (size_t i = 0; i < cs->n; i++)
        if (cli_ref_decompress(cs->ref, cs->comp_ptrs[i], cs->comp_sizes[i], cs->out_ptrs[i],
                               cs->out_caps[i]) != 0)
            return -1;
    return 0;
}

static void finish_row(bench_state *st, bench_result *r, const chunk_set *cs, int rc_c, int rc_d, double tc,
                       double td, const char *what)
{
    size_t idx = (size_t)(r - st->rows);
    if (rc_c == -1 || rc_d == -1) {
        r->failed = 1;
        st->failures++;
        cli_error(r->file, "%s %s failed (%s, chunk size %zu)", r->contender, what,
                  oc_algorithm_name(r->algorithm), r->chunk_size);
        return;
    }
    uint64_t comp = 0;
    for (size_t i = 0; i < cs->n; i++)
        comp += cs->comp_sizes[i];
    r->compressed_bytes = comp;
    r->ratio = comp ? (double)r->uncompressed_bytes / (double)comp : 0.0;
    r->compress_gbps = tc > 0 ? (double)r->uncompressed_bytes / tc / 1e9 : 0.0;
    r->decompress_gbps = td > 0 ? (double)r->uncompressed_bytes / td / 1e9 : 0.0;
    r->verified = rc_d == 0;
    st->comp_secs[idx] = tc;
    st->dec_secs[idx] = td;
    if (!r->verified) {
        st->failures++;
        cli_error(r->file, "%s: decoded bytes differ from the input (%s, chunk size %zu)", r->contender,
                  oc_algorithm_name(r->algorithm), r->chunk_size);
    }
}

static void run_host_contender(bench_state *st, chunk_set *cs, size_t chunk_size, int reference)
{
    int threads = reference ? 1 : oc_context_num_threads(st->cpu);
    bench_result *r = add_row(st, cs->input, cs, chunk_size, reference ? "reference-cpu" : "opencomp-cpu",
                              "kernel", threads);
    if (!r) {
        st->failures++;
        return;
    }
    cs->ctx = st->cpu;
    double tc = 0, td = 0;
    int rc_c = timed(st, reference ? ref_comp_step : oc_comp_step, cs, NULL, &tc);
    int rc_d = -1;
    if (rc_c == 0) {
        poison(cs->out, cs->input->size);
        rc_d = timed(st, reference ? ref_dec_step : oc_dec_step, cs, verify_host, &td);
    }
    finish_row(st, r, cs, rc_c, rc_d, tc, td, rc_c ? "compression" : "decompression");
    cli_bench_print_row(stdout, r);
}

/* ---- the GPU contender: the same chunks in device memory ---------------- */

static int verify_gpu(chunk_set *cs)
{
    /* cs->out is a host mirror; out_ptrs point into device memory. */
    if (oc_memory_copy(cs->ctx, cs->out, cs->out_ptrs[0], cs->input->size) != OC_OK ||
        oc_context_synchronize(cs->ctx) != OC_OK)
        return -1;
    return verify_host(cs);
}

static void run_gpu_contender(bench_state *st, chunk_set *host, size_t chunk_size)
{
    if (!st->gpu || !oc_algorithm_available(OC_ENGINE_CUDA, host->algorithm) || host->n == 0)
        return;
    bench_result *r = add_row(st, host->input, host, chunk_size, "opencomp-gpu", "kernel", 0);
    if (!r) {
        st->failures++;
        return;
    }
    chunk_set cs = *host;
    cs.ctx = st->gpu;
    size_t total = host->input->size, comp_total = host->n * host->slot;
    uint8_t *d_in = NULL, *d_comp = NULL, *d_out = NULL;
    const void **src = calloc(host->n + 1, sizeof *src);
    void **comp = calloc(host->n + 1, sizeof *comp), **out = calloc(host->n + 1, sizeof *out);
    int rc_c = -1, rc_d = -1;
    double tc = 0, td = 0;
    if (!src || !comp || !out ||
        oc_memory_alloc(st->gpu, OC_MEMORY_DEVICE, total ? total : 1, (void **)&d_in) ||
        oc_memory_alloc(st->gpu, OC_MEMORY_DEVICE, comp_total ? comp_total : 1, (void **)&d_comp) ||
        oc_memory_alloc(st->gpu, OC_MEMORY_DEVICE, total ? total : 1, (void **)&d_out))
        goto done;
    for (size_t i = 0; i < host->n; i++) {
        size_t off = (size_t)((const uint8_t *)host->src[i] - host->input->data);
        src[i] = d_in + off;
        out[i] = d_out + off;
        comp[i] = d_comp + i * host->slot;
    }
    cs.src = src;
    cs.comp_ptrs = comp;
    cs.out_ptrs = out;
    poison(host->out, total);
    if (oc_memory_copy(st->gpu, d_in, host->input->data, total) != OC_OK ||
        oc_memory_copy(st->gpu, d_out, host->out, total) != OC_OK || oc_context_synchronize(st->gpu) != OC_OK)
        goto done;
    rc_c = timed(st, oc_comp_step, &cs, NULL, &tc);
    if (rc_c == 0)
        rc_d = timed(st, oc_dec_step, &cs, verify_gpu, &td);
done:
    finish_row(st, r, &cs, rc_c, rc_d, tc, td, rc_c ? "compression" : "decompression");
    cli_bench_print_row(stdout, r);
    if (d_in)
        oc_memory_free(st->gpu, OC_MEMORY_DEVICE, d_in, total ? total : 1);
    if (d_comp)
        oc_memory_free(st->gpu, OC_MEMORY_DEVICE, d_comp, comp_total ? comp_total : 1);
    if (d_out)
        oc_memory_free(st->gpu, OC_MEMORY_DEVICE, d_out, total ? total : 1);
    oc_context_synchronize(st->gpu);
    free(src);
    free(comp);
    free(out);
}

/* ---- end to end: the whole-buffer API, NATIVE container -----------------
 * Host buffer in, host buffer out.  For the GPU that includes the copies to
 * and from device memory (the whole-buffer call itself synchronises once). */

typedef struct e2e_arg {
    oc_buffer_options bo;
    uint8_t *dst; /* host: the container */
    uint64_t cap, size;
    uint8_t *d_src, *d_dst, *d_out; /* device buffers (GPU only) */
} e2e_arg;

static int e2e_comp_step(chunk_set *cs)
{
    e2e_arg *a = cs->e2e;
    return oc_buffer_compress(cs->ctx, &a->bo, cs->input->data, cs->input->size, a->dst, a->cap, &a->size) ==
                   OC_OK
               ? 0
               : -1;
}

static int e2e_dec_step(chunk_set *cs)
{
    e2e_arg *a = cs->e2e;
    uint64_t got = 0;
    oc_status s =
        oc_buffer_decompress(cs->ctx, &a->bo, a->dst, a->size, cs->out, cs->input->size, &got, NULL);
    return s == OC_OK && got == cs->input->size ? 0 : -1;
}

static int e2e_gpu_comp_step(chunk_set *cs)
{
    e2e_arg *a = cs->e2e;
    size_t n = cs->input->size;
    if (oc_memory_copy(cs->ctx, a->d_src, cs->input->data, n) != OC_OK ||
        oc_buffer_compress(cs->ctx, &a->bo, a->d_src, n, a->d_dst, a->cap, &a->size) != OC_OK ||
        oc_memory_copy(cs->ctx, a->dst, a->d_dst, (size_t)a->size) != OC_OK)
        return -1;
    return oc_context_synchronize(cs->ctx) == OC_OK ? 0 : -1;
}

static int e2e_gpu_dec_step(chunk_set *cs)
{
    e2e_arg *a = cs->e2e;
    size_t n = cs->input->size;
    uint64_t got = 0;
    if (oc_memory_copy(cs->ctx, a->d_dst, a->dst, (size_t)a->size) != OC_OK ||
        oc_buffer_decompress(cs->ctx, &a->bo, a->d_dst, a->size, a->d_out, n, &got, NULL) != OC_OK ||
        oc_memory_copy(cs->ctx, cs->out, a->d_out, n) != OC_OK || oc_context_synchronize(cs->ctx) != OC_OK)
        return -1;
    return got == n ? 0 : -1;
}

static void run_end_to_end(bench_state *st, chunk_set *cs, size_t chunk_size, int gpu)
{
    if (gpu && (!st->gpu || !oc_algorithm_available(OC_ENGINE_CUDA, cs->algorithm) || cs->n == 0))
        return;
    oc_context *ctx = gpu ? st->gpu : st->cpu;
    bench_result *r = add_row(st, cs->input, cs, chunk_size, gpu ? "opencomp-gpu" : "opencomp-cpu",
                              "end-to-end", gpu ? 0 : oc_context_num_threads(ctx));
    if (!r) {
        st->failures++;
        return;
    }
    e2e_arg a;
    memset(&a, 0, sizeof a);
    oc_buffer_options init = OC_BUFFER_OPTIONS_INIT;
    a.bo = init;
    a.bo.algorithm = cs->algorithm;
    a.bo.level = cs->level;
    a.bo.typed = cs->typed;
    a.bo.chunk_size = chunk_size;
    a.bo.checksum = st->opts->checksum;
    a.cap = oc_buffer_compress_bound(&a.bo, cs->input->size);
    if (a.cap == 0 && cs->input->size > 0) {
        oc_buffer_options raw = a.bo; /* no NATIVE container (Blosc): the row measures RAW */
        raw.kind = OC_BITSTREAM_RAW;
        if (oc_buffer_compress_bound(&raw, cs->input->size) != 0)
            a.bo = raw;
        a.cap = oc_buffer_compress_bound(&a.bo, cs->input->size);
    }
    a.dst = a.cap ? malloc((size_t)a.cap) : NULL;
    size_t n = cs->input->size;
    int ready = a.dst != NULL;
    if (ready && gpu)
        ready = oc_memory_alloc(ctx, OC_MEMORY_DEVICE, n, (void **)&a.d_src) == OC_OK &&
                oc_memory_alloc(ctx, OC_MEMORY_DEVICE, (size_t)a.cap, (void **)&a.d_dst) == OC_OK &&
                oc_memory_alloc(ctx, OC_MEMORY_DEVICE, n, (void **)&a.d_out) == OC_OK;
    cs->e2e = &a;
    cs->ctx = ctx;
    double tc = 0, td = 0;
    int rc_c = ready ? timed(st, gpu ? e2e_gpu_comp_step : e2e_comp_step, cs, NULL, &tc) : -1, rc_d = -1;
    if (rc_c == 0) {
        poison(cs->out, n);
        rc_d = timed(st, gpu ? e2e_gpu_dec_step : e2e_dec_step, cs, verify_host, &td);
    }
    /* The container's size is what counts here, not the chunks'. */
    chunk_set one = *cs;
    size_t container = (size_t)a.size;
    one.n = 1;
    one.comp_sizes = &container;
    finish_row(st, r, &one, rc_c, rc_d, tc, td, rc_c ? "compression" : "decompression");
    r->num_chunks = cs->n;
    cli_bench_print_row(stdout, r);
    if (a.d_src)
        oc_memory_free(ctx, OC_MEMORY_DEVICE, a.d_src, n);
    if (a.d_dst)
        oc_memory_free(ctx, OC_MEMORY_DEVICE, a.d_dst, (size_t)a.cap);
    if (a.d_out)
        oc_memory_free(ctx, OC_MEMORY_DEVICE, a.d_out, n);
    if (gpu)
        oc_context_synchronize(ctx);
    free(a.dst);
    cs->e2e = NULL;
}

/* ---- one input, one algorithm, one chunk size ---------------------------- */

static void free_chunk_set(chunk_set *cs)
{
    free(cs->src);
    free(cs->src_sizes);
    free(cs->comp);
    free(cs->comp_ptrs);
    free(cs->comp_caps);
    free(cs->comp_sizes);
    free(cs->out);
    free(cs->out_ptrs);
    free(cs->out_caps);
    free(cs->statuses);
    cli_ref_destroy(cs->ref);
}

static int bench_one(bench_state *st, const bench_input *in, oc_algorithm alg, int level, size_t chunk_size)
{
    chunk_set cs;
    memset(&cs, 0, sizeof cs);
    cs.algorithm = alg;
    cs.level = level;
    cs.input = in;
    cs.n = in->size ? (in->size + chunk_size - 1) / chunk_size : 0;
    size_t m = cs.n ? cs.n : 1;
    cs.typed = st->opts->typed;
    char widths[32];
    if (!cli_type_fits(alg, cs.typed.data_type, widths, sizeof widths)) {
        /* -a all --data-type i64: ANS takes 1- and 2-byte types; it runs on the bytes */
        cli_note(st->opts, 1, in->name, "%s codes data types of %s bytes: benched as |u1, not %s",
                 oc_algorithm_name(alg), widths, oc_data_type_name(cs.typed.data_type));
        cs.typed.data_type = OC_TYPE_U8;
    }
    if (cs.typed.algorithm_type > cli_max_algorithm_type(alg)) /* --algorithm-type is bitcomp's */
        cs.typed.algorithm_type = 0;
    /* formats of opencomp's own have no other library: no reference-cpu row */
    int has_ref = cli_ref_available(alg);
    cs.ref = has_ref ? cli_ref_create(alg, level) : NULL;
    size_t bound = oc_compress_bound(alg, chunk_size);
    size_t rbound = cs.ref ? cli_ref_bound(cs.ref, chunk_size) : bound;
    if ((has_ref && !cs.ref) || bound == 0 || rbound == 0) {
        cli_error(in->name, "%s: chunk size %zu is not usable (or out of memory)", oc_algorithm_name(alg),
                  chunk_size);
        free_chunk_set(&cs);
        st->failures++;
        return -1;
    }
    cs.slot = (bound > rbound ? bound : rbound);
    cs.slot = (cs.slot + 63) & ~(size_t)63;
    cs.src = calloc(m, sizeof *cs.src);
    cs.src_sizes = calloc(m, sizeof *cs.src_sizes);
    cs.comp = malloc(m * cs.slot);
    cs.comp_ptrs = calloc(m, sizeof *cs.comp_ptrs);
    cs.comp_caps = calloc(m, sizeof *cs.comp_caps);
    cs.comp_sizes = calloc(m, sizeof *cs.comp_sizes);
    cs.out = malloc(in->size ? in->size : 1);
    cs.out_ptrs = calloc(m, sizeof *cs.out_ptrs);
    cs.out_caps = calloc(m, sizeof *cs.out_caps);
    cs.statuses = calloc(m, sizeof *cs.statuses);
    if (!cs.src || !cs.src_sizes || !cs.comp || !cs.comp_ptrs || !cs.comp_caps || !cs.comp_sizes || !cs.out ||
        !cs.out_ptrs || !cs.out_caps || !cs.statuses) {
        cli_error(in->name, "out of memory");
        free_chunk_set(&cs);
        st->failures++;
        return -1;
    }
    for (size_t i = 0; i < cs.n; i++) {
        size_t off = i * chunk_size;
        size_t len = in->size - off < chunk_size ? in->size - off : chunk_size;
        cs.src[i] = in->data + off;
        cs.src_sizes[i] = len;
        cs.comp_ptrs[i] = cs.comp + i * cs.slot;
        cs.comp_caps[i] = cs.slot;
        cs.out_ptrs[i] = cs.out + off;
        cs.out_caps[i] = len;
    }
    run_host_contender(st, &cs, chunk_size, 0);
    if (cs.ref)
        run_host_contender(st, &cs, chunk_size, 1);
    run_gpu_contender(st, &cs, chunk_size);
    run_end_to_end(st, &cs, chunk_size, 0);
    run_end_to_end(st, &cs, chunk_size, 1);
    free_chunk_set(&cs);
    return 0;
}

/* ---- totals over all inputs ---------------------------------------------- */

static void print_totals(const bench_state *st)
{
    if (st->num_rows == 0)
        return;
    printf("\ntotals over all inputs (GB/s = all bytes / sum of median times):\n");
    printf("%-8s %5s %6s %-13s %-10s %3s %8s %10s %10s\n", "algo", "level", "chunk", "contender", "scope",
           "thr", "ratio", "comp GB/s", "dec GB/s");
    char *done = calloc(st->num_rows, 1);
    if (!done)
        return;
    for (size_t i = 0; i < st->num_rows; i++) {
        if (done[i])
            continue;
        const bench_result *a = &st->rows[i];
        uint64_t un = 0, comp = 0;
        double tc = 0, td = 0;
        int failed = 0;
        for (size_t j = i; j < st->num_rows; j++) {
            const bench_result *b = &st->rows[j];
            if (b->algorithm != a->algorithm || b->level != a->level || b->chunk_size != a->chunk_size ||
                strcmp(b->contender, a->contender) != 0 || strcmp(b->scope, a->scope) != 0)
                continue;
            done[j] = 1;
            failed |= b->failed || !b->verified;
            un += b->uncompressed_bytes;
            comp += b->compressed_bytes;
            tc += st->comp_secs[j];
            td += st->dec_secs[j];
        }
        char chunk[32], thr[16];
        if (a->chunk_size % (1u << 20) == 0)
            snprintf(chunk, sizeof chunk, "%zuM", a->chunk_size >> 20);
        else if (a->chunk_size % 1024 == 0)
            snprintf(chunk, sizeof chunk, "%zuK", a->chunk_size >> 10);
        else
            snprintf(chunk, sizeof chunk, "%zu", a->chunk_size);
        snprintf(thr, sizeof thr, a->threads ? "%d" : "-", a->threads);
        if (failed)
            printf("%-8s %5d %6s %-13s %-10s %3s %8s %10s %10s\n", oc_algorithm_name(a->algorithm), a->level,
                   chunk, a->contender, a->scope, thr, "-", "FAILED", "-");
        else
            printf("%-8s %5d %6s %-13s %-10s %3s %8.3f %10.3f %10.3f\n", oc_algorithm_name(a->algorithm),
                   a->level, chunk, a->contender, a->scope, thr, comp ? (double)un / (double)comp : 0.0,
                   tc > 0 ? (double)un / tc / 1e9 : 0.0, td > 0 ? (double)un / td / 1e9 : 0.0);
    }
    free(done);
}

/* ---- setup --------------------------------------------------------------- */

static int resolve_level(oc_algorithm alg, int requested, int given, int *out)
{
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    if (oc_algorithm_get_info(alg, &info) != OC_OK) {
        cli_error(NULL, "%s: no level range", oc_algorithm_name(alg));
        return -1;
    }
    if (!given || requested == 0) {
        *out = info.default_level;
        return 0;
    }
    if (info.has_levels && (requested < info.min_level || requested > info.max_level)) {
        cli_error(NULL, "%s: level %d out of range %d..%d", info.name, requested, info.min_level,
                  info.max_level);
        return -1;
    }
    *out = info.has_levels ? requested : info.default_level;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int cli_bench_main(const cli_options *opts)
{
    bench_state st;
    memset(&st, 0, sizeof st);
    st.opts = opts;
    st.repeat = opts->repeat;
    int code = 1;
    bench_input *inputs = calloc(MAX_INPUTS, sizeof *inputs);
    int num_inputs = 0;
    if (!inputs) {
        cli_error(NULL, "out of memory");
        return 1;
    }

    oc_algorithm algs[CLI_MAX_ALGOS];
    int levels[CLI_MAX_ALGOS];
    int num_algs = 0;
    if (opts->num_algorithms) {
        for (int i = 0; i < opts->num_algorithms; i++)
            algs[num_algs++] = opts->algorithms[i];
    } else { /* every algorithm of the library's table that the CPU engine runs */
        oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
        for (oc_algorithm a = (oc_algorithm)1;
             num_algs < CLI_MAX_ALGOS && oc_algorithm_get_info(a, &info) == OC_OK; a = (oc_algorithm)(a + 1))
            if (oc_algorithm_available(OC_ENGINE_CPU, a))
                algs[num_algs++] = a;
    }
    for (int i = 0; i < num_algs; i++) {
        if (!oc_algorithm_available(OC_ENGINE_CPU, algs[i])) {
            cli_error(NULL, "%s: not available in this build", oc_algorithm_name(algs[i]));
            goto out;
        }
        if (resolve_level(algs[i], opts->level, opts->level_given, &levels[i]) != 0)
            goto out;
    }
    size_t chunk_sizes[CLI_MAX_CHUNK_SIZES];
    int num_chunk_sizes = opts->num_chunk_sizes;
    if (num_chunk_sizes)
        memcpy(chunk_sizes, opts->chunk_sizes, (size_t)num_chunk_sizes * sizeof chunk_sizes[0]);
    else
        chunk_sizes[num_chunk_sizes++] = OC_DEFAULT_CHUNK_SIZE;

    if (opts->num_files == 0) {
        num_inputs = cli_bench_sample(inputs, MAX_INPUTS);
        if (num_inputs < 0) {
            num_inputs = 0;
            cli_error(NULL, "out of memory for the built-in sample");
            goto out;
        }
    } else {
        if (opts->num_files > MAX_INPUTS) {
            cli_error(NULL, "too many files (at most %d)", MAX_INPUTS);
            goto out;
        }
        for (int i = 0; i < opts->num_files; i++) {
            const char *path = opts->files[i];
            int is_stdin = strcmp(path, "-") == 0;
            cli_buffer b;
            if (cli_read_all(path, is_stdin ? "stdin" : path, &b) != 0)
                goto out;
            inputs[num_inputs].data = b.data;
            inputs[num_inputs].size = b.size;
            snprintf(inputs[num_inputs].name, sizeof inputs[num_inputs].name, "%s",
                     is_stdin ? "stdin" : base_name(path));
            num_inputs++;
        }
    }

    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CPU;
    co.num_threads = opts->threads;
    oc_status s = oc_context_create(&co, &st.cpu);
    if (s != OC_OK) {
        cli_error(NULL, "cannot create a CPU context: %s", oc_status_message(s));
        goto out;
    }
    if (oc_engine_available(OC_ENGINE_CUDA)) {
        oc_context_options go = OC_CONTEXT_OPTIONS_INIT;
        go.engine = OC_ENGINE_CUDA;
        if (oc_context_create(&go, &st.gpu) != OC_OK) {
            cli_note(opts, 1, NULL, "a GPU is present but no CUDA context could be made; CPU only");
            st.gpu = NULL;
        }
    }

    if (opts->verbosity > 0) {
        size_t total = 0;
        for (int i = 0; i < num_inputs; i++)
            total += inputs[i].size;
        printf("opencomp bench: %s%d input%s, %.1f MiB; %d thread%s; %d timed run%s after a warm-up; "
               "wall-clock; GPU: %s\n",
               opts->num_files ? "" : "built-in sample, ", num_inputs, num_inputs == 1 ? "" : "s",
               (double)total / 1048576.0, oc_context_num_threads(st.cpu),
               oc_context_num_threads(st.cpu) == 1 ? "" : "s", st.repeat, st.repeat == 1 ? "" : "s",
               st.gpu ? "yes" : "no");
    }
    cli_bench_print_header(stdout);
    for (int f = 0; f < num_inputs; f++)
        for (int a = 0; a < num_algs; a++)
            for (int c = 0; c < num_chunk_sizes; c++)
                bench_one(&st, &inputs[f], algs[a], levels[a], chunk_sizes[c]);
    if (num_inputs > 1)
        print_totals(&st);
    code = st.failures ? 1 : 0;
    if (opts->json_path && cli_bench_write_json(opts->json_path, st.rows, st.num_rows, st.gpu != NULL) != 0)
        code = 1;
out:
    oc_context_destroy(st.cpu);
    oc_context_destroy(st.gpu);
    for (int i = 0; i < num_inputs; i++)
        free(inputs[i].data);
    free(inputs);
    free(st.rows);
    free(st.comp_secs);
    free(st.dec_secs);
    return code;
}
