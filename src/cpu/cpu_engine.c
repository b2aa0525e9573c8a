/*
 * cpu_engine.c - the CPU engine: runs a batch of chunks over the context's
 * thread pool, one codec call per chunk, each on its worker's own codec
 * state.  The pool and the worker states are created on the first call that
 * needs them and reused until the context is destroyed, so steady-state
 * batches allocate nothing.
 */
#include "cpu_engine.h"

#include <stdlib.h>
#include <string.h>

#include "../common/algo_table.h"
#include "../common/shuffle.h"
#include "../common/wus.h"
#include "cpu_codec.h"
#include "thread_pool.h"

struct oc_cpu_workers {
    int count;
    oc_cpu_worker w[];
};

const oc_cpu_codec *oc_cpu_codec_for(oc_algorithm algo)
{
    const oc_algo_desc *d = oc_algo(algo);
    return d ? d->cpu : NULL;
}

void *oc_worker_state(oc_cpu_worker *w, unsigned slot, size_t size)
{
    if (slot >= OC_ALGO_COUNT)
        return NULL;
    if (!w->state[slot]) {
        w->state[slot] = oc_host_alloc(w->ctx, size);
        if (w->state[slot]) {
            memset(w->state[slot], 0, size);
            w->state_size[slot] = size;
        }
    }
    return w->state[slot];
}

uint8_t *oc_worker_scratch(oc_cpu_worker *w)
{
    if (!w->scratch)
        w->scratch = oc_host_alloc(w->ctx, OC_SCRATCH_SIZE);
    return w->scratch;
}

uint8_t *oc_worker_big(oc_cpu_worker *w, size_t size)
{
    if (w->big && w->big_size >= size)
        return w->big;
    oc_host_free(w->ctx, w->big, w->big_size);
    w->big_size = 0;
    w->big = oc_host_alloc(w->ctx, size);
    if (w->big)
        w->big_size = size;
    return w->big;
}

/* The filter's buffer: apart from oc_worker_big, which a codec may use for
 * its output while the filtered input lies in this one (Snappy into a
 * capacity below snappy_max_compressed_length: the two were one buffer, so
 * the codec's output overlapped, or reallocated, its own input). */
static uint8_t *worker_filter_buf(oc_cpu_worker *w, size_t size)
{
    if (w->filt && w->filt_size >= size)
        return w->filt;
    oc_host_free(w->ctx, w->filt, w->filt_size);
    w->filt_size = 0;
    w->filt = oc_host_alloc(w->ctx, size);
    if (w->filt)
        w->filt_size = size;
    return w->filt;
}

static void release_worker(oc_cpu_worker *w)
{
    /* Every row's codec (a codec serving several rows frees twice: a no-op). */
    for (unsigned a = 1; a < OC_ALGO_COUNT; a++)
        if (oc_cpu_codec_for((oc_algorithm)a))
            oc_cpu_codec_for((oc_algorithm)a)->release(w);
    for (unsigned a = 0; a < OC_ALGO_COUNT; a++) {
        oc_host_free(w->ctx, w->state[a], w->state_size[a]);
        w->state[a] = NULL;
        w->state_size[a] = 0;
    }
    oc_host_free(w->ctx, w->scratch, OC_SCRATCH_SIZE);
    oc_host_free(w->ctx, w->big, w->big_size);
    oc_host_free(w->ctx, w->filt, w->filt_size);
    w->scratch = NULL;
    w->big = NULL;
    w->big_size = 0;
    w->filt = NULL;
    w->filt_size = 0;
}

void oc_cpu_engine_release(oc_context *ctx)
{
    oc_thread_pool_destroy(ctx->pool);
    ctx->pool = NULL;
    if (ctx->workers) {
        for (int i = 0; i < ctx->workers->count; i++)
            release_worker(&ctx->workers->w[i]);
        free(ctx->workers);
        ctx->workers = NULL;
    }
}

/* Makes sure the worker states exist and, when the batch has more than one
 * chunk and the context more than one thread, the pool.  A pool that cannot
 * start is not an error: the batch then runs on the calling thread. */
static oc_status prepare(oc_context *ctx, size_t n)
{
    if (!ctx->workers) {
        int count = ctx->num_threads < 1 ? 1 : ctx->num_threads;
        struct oc_cpu_workers *ws = calloc(1, sizeof(*ws) + (size_t)count * sizeof(oc_cpu_worker));
        RETURN_ERROR_IF(ws == NULL, OC_ERR_OUT_OF_MEMORY);
        ws->count = count;
        for (int i = 0; i < count; i++)
            ws->w[i].ctx = ctx;
        ctx->workers = ws;
    }
    if (oc_thread_pool_forked(ctx->pool)) {
        /* fork() after use: the parent's workers are not in this process
         * (issue 11 item 3: the child waited for them forever) */
        oc_thread_pool_destroy(ctx->pool);
        ctx->pool = NULL;
    }
    if (!ctx->pool && n > 1 && ctx->num_threads > 1)
        ctx->pool = oc_thread_pool_create(ctx->num_threads);
    return OC_OK;
}

/* NULL buffers are allowed for zero sizes; codecs get a real address so
 * that no pointer arithmetic ever happens on NULL. */
static uint8_t empty_buffer[1];
static const uint8_t *src_or_empty(const void *p)
{
    return p ? (const uint8_t *)p : empty_buffer;
}
static uint8_t *dst_or_empty(void *p)
{
    return p ? (uint8_t *)p : empty_buffer;
}

typedef struct batch_job {
    oc_context *ctx;
    oc_algorithm algo;
    int level;
    const void *const *src_ptrs;
    const size_t *src_sizes;
    void *const *dst_ptrs;
    const size_t *dst_capacities;
    size_t *dst_sizes;
    oc_status *statuses;
    uint64_t memory_limit;        /* size counts: the largest zstd window to allocate */
    const oc_codec_options *opts; /* filter, typesize, Blosc settings, kind (may be NULL) */
    int wus; /* WITH_UNCOMPRESSED_SIZE: an 8-byte size header before each stream (common/wus.h) */
} batch_job;

/* The filter the engine runs around the codec: none for Blosc (its chunks
 * carry their own) and for typesize 1 byte shuffle (the identity). */
static int outer_filter(const batch_job *job, oc_algorithm algo, uint32_t *typesize)
{
    if (!job->opts)
        return 0;
    return oc_filter_of(job->opts->filter, job->opts->typesize, algo == OC_ALGO_BLOSC, typesize);
}

static int is_wus(const oc_codec_options *opts)
{
    return opts && opts->kind == OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE;
}

static void finish(const batch_job *job, size_t i, oc_status st, size_t size)
{
    if (job->dst_sizes)
        job->dst_sizes[i] = st == OC_OK ? size : 0;
    if (job->statuses)
        job->statuses[i] = st;
}

static void compress_one(void *arg, size_t i, int worker)
{
    const batch_job *job = arg;
    oc_cpu_worker *w = &job->ctx->workers->w[worker];
    size_t size = 0;
    oc_status st;
    if ((!job->src_ptrs[i] && job->src_sizes[i]) || (!job->dst_ptrs[i] && job->dst_capacities[i]) ||
        oc_ranges_overlap(job->src_ptrs[i], job->src_sizes[i], job->dst_ptrs[i], job->dst_capacities[i]))
        st = OC_ERR_INVALID_ARGUMENT;
    else {
        const uint8_t *src = src_or_empty(job->src_ptrs[i]);
        uint32_t ts = 1;
        int filter = outer_filter(job, job->algo, &ts);
        w->opts = job->opts;
        if (filter && job->src_sizes[i] > 0) {
            uint8_t *tmp = worker_filter_buf(w, job->src_sizes[i]);
            if (!tmp) {
                finish(job, i, OC_ERR_OUT_OF_MEMORY, 0);
                return;
            }
            oc_filter_buffer(tmp, src, job->src_sizes[i], ts, filter, 0);
            src = tmp;
        }
        /* WITH_UNCOMPRESSED_SIZE: the stream goes after its 8-byte header */
        size_t hdr = job->wus ? OC_WUS_HEADER : 0, cap = job->dst_capacities[i];
        uint8_t *dst = dst_or_empty(job->dst_ptrs[i]);
        if (cap < hdr)
            st = OC_ERR_OUTPUT_TOO_SMALL;
        else
            st = oc_cpu_codec_for(job->algo)->compress(w, job->algo, job->level, src, job->src_sizes[i],
                                                       dst + hdr, cap - hdr, &size);
        if (st == OC_OK && hdr) {
            oc_store_le64(dst, (uint64_t)job->src_sizes[i]);
            size += hdr;
        }
    }
    finish(job, i, st, size);
}

static void decompress_one(void *arg, size_t i, int worker)
{
    const batch_job *job = arg;
    oc_cpu_worker *w = &job->ctx->workers->w[worker];
    const uint8_t *src = src_or_empty(job->src_ptrs[i]);
    uint8_t *dst = dst_or_empty(job->dst_ptrs[i]);
    size_t n = job->src_sizes[i], size = 0;
    oc_status st;
    oc_algorithm algo = job->algo;
    if ((!job->src_ptrs[i] && n) || (!job->dst_ptrs[i] && job->dst_capacities[i]) ||
        oc_ranges_overlap(job->src_ptrs[i], n, job->dst_ptrs[i], job->dst_capacities[i])) {
        st = OC_ERR_INVALID_ARGUMENT;
    } else {
        uint64_t want = 0; /* WITH_UNCOMPRESSED_SIZE: the header's size */
        st = OC_OK;
        if (job->wus && (st = oc_wus_parse(src, n, algo, &want, &algo)) == OC_OK) {
            src += OC_WUS_HEADER;
            n -= OC_WUS_HEADER;
            if (want > job->dst_capacities[i])
                st = OC_ERR_OUTPUT_TOO_SMALL;
        }
        if (st == OC_OK && algo == OC_ALGO_NONE)
            algo = oc_algo_detect(src, n);
        if (st == OC_OK && algo == OC_ALGO_NONE)
            st = OC_ERR_INVALID_ARGUMENT;
        else if (st == OC_OK && !oc_cpu_codec_for(algo))
            st = OC_ERR_UNSUPPORTED;
        else if (st == OC_OK)
            st = oc_cpu_codec_for(algo)->decompress(w, algo, src, n, dst, job->dst_capacities[i], &size);
        if (st == OC_OK && job->wus && size != want)
            st = OC_ERR_SIZE_MISMATCH;
        uint32_t ts = 1;
        int filter = outer_filter(job, algo, &ts);
        if (st == OC_OK && filter && size > 0) {
            uint8_t *tmp = worker_filter_buf(w, size);
            if (!tmp) {
                st = OC_ERR_OUT_OF_MEMORY;
            } else {
                memcpy(tmp, dst, size);
                oc_filter_buffer(dst, tmp, size, ts, filter, 1);
            }
        }
    }
    finish(job, i, st, size);
}

static void size_one(void *arg, size_t i, int worker)
{
    const batch_job *job = arg;
    oc_cpu_worker *w = &job->ctx->workers->w[worker];
    const uint8_t *src = src_or_empty(job->src_ptrs[i]);
    size_t n = job->src_sizes[i], size = 0;
    oc_status st;
    oc_algorithm algo = job->algo;
    if (!job->src_ptrs[i] && n) {
        st = OC_ERR_INVALID_ARGUMENT;
    } else if (job->wus) {
        /* the header says it (guarded); the stream is not read */
        uint64_t want = 0;
        st = oc_wus_parse(src, n, algo, &want, &algo);
        if (st == OC_OK && want > SIZE_MAX)
            st = OC_ERR_CORRUPT;
        size = (size_t)want;
    } else {
        if (algo == OC_ALGO_NONE)
            algo = oc_algo_detect(src, n);
        if (algo == OC_ALGO_NONE)
            st = OC_ERR_INVALID_ARGUMENT;
        else if (!oc_cpu_codec_for(algo))
            st = OC_ERR_UNSUPPORTED;
        else {
            w->memory_limit = job->memory_limit;
            st = oc_cpu_codec_for(algo)->decompressed_size(w, algo, src, n, &size);
            /* A size more than the stream can decode to (a snappy preamble,
             * a zstd content size): hostile, as the CUDA engine says too. */
            if (st == OC_OK && size > oc_algo_max_decoded(job->algo, n))
                st = OC_ERR_CORRUPT;
        }
    }
    finish(job, i, st, size);
}

static oc_status run(batch_job *job, size_t n, oc_pool_fn fn)
{
    if (n == 0)
        return OC_OK;
    oc_status st = prepare(job->ctx, n);
    if (st != OC_OK) {
        for (size_t i = 0; i < n; i++)
            finish(job, i, st, 0);
        return st;
    }
    oc_thread_pool_run(job->ctx->pool, n, fn, job);
    return OC_OK;
}

oc_status oc_cpu_batch_compress(oc_context *ctx, const oc_codec_options *opts, oc_algorithm algo, int level,
                                size_t n, const void *const *src_ptrs, const size_t *src_sizes,
                                void *const *dst_ptrs, const size_t *dst_capacities, size_t *dst_sizes,
                                oc_status *statuses)
{
    RETURN_ERROR_IF(!oc_cpu_codec_for(algo), OC_ERR_UNSUPPORTED);
    batch_job job = {ctx,       algo,     level, src_ptrs, src_sizes,   dst_ptrs, dst_capacities,
                     dst_sizes, statuses, 0,     opts,     is_wus(opts)};
    return run(&job, n, compress_one);
}

oc_status oc_cpu_batch_decompress(oc_context *ctx, const oc_codec_options *opts, oc_algorithm algo, size_t n,
                                  const void *const *src_ptrs, const size_t *src_sizes, void *const *dst_ptrs,
                                  const size_t *dst_capacities, size_t *dst_sizes, oc_status *statuses)
{
    RETURN_ERROR_IF(algo != OC_ALGO_NONE && !oc_cpu_codec_for(algo), OC_ERR_UNSUPPORTED);
    batch_job job = {ctx,       algo,     0, src_ptrs, src_sizes,   dst_ptrs, dst_capacities,
                     dst_sizes, statuses, 0, opts,     is_wus(opts)};
    return run(&job, n, decompress_one);
}

oc_status oc_cpu_batch_decompressed_sizes(oc_context *ctx, const oc_codec_options *opts, oc_algorithm algo,
                                          size_t n, const void *const *src_ptrs, const size_t *src_sizes,
                                          size_t *sizes, oc_status *statuses)
{
    RETURN_ERROR_IF(algo != OC_ALGO_NONE && !oc_cpu_codec_for(algo), OC_ERR_UNSUPPORTED);
    uint64_t limit = opts && opts->memory_limit ? opts->memory_limit : OC_DEFAULT_MEMORY_LIMIT;
    batch_job job = {ctx,  algo,  0,        src_ptrs, src_sizes, NULL,
                     NULL, sizes, statuses, limit,    opts,      is_wus(opts)};
    return run(&job, n, size_one);
}

oc_status oc_cpu_gzip_extent(oc_context *ctx, const uint8_t *src, size_t n, uint8_t *dst, size_t cap,
                             size_t *end, size_t *out)
{
    FORWARD_IF_ERROR(prepare(ctx, 1));
    return oc_gzip_extent(&ctx->workers->w[0], src, n, dst, cap, end, out);
}
