/*
 * buffer.c - the whole-buffer layer (oc_buffer_* of include/opencomp.h).
 *
 * Compression: split the input into chunks, compress a group of chunks
 * (~64 MiB of input) with ONE oc_batch_compress call into scratch, compute
 * the container's per-chunk checksums in parallel, then assemble the
 * container into dst through a bounds-checked writer (OUTPUT_TOO_SMALL,
 * never an overrun).  RAW and WITH_UNCOMPRESSED_SIZE compress straight
 * into dst.
 *
 * Decompression: plan_src builds the plan of host and device buffers
 * alike through one range reader - from head and tail wherever an index or
 * a size header suffices (src/format/sparse_plan.c), from the whole buffer
 * otherwise (src/format/ container readers); run_plan, the one decode loop
 * of both engines, drives an engine's steps (src/format/plan.h): every
 * compressed chunk of a group is decoded by ONE batched call straight into
 * its slice of the caller's dst (no extra copy); stored chunks are copied;
 * sizes and checksums are checked per chunk and the first bad chunk is
 * reported; then the tail and the LZ4 content checksum.  Containers
 * without an index end in a "tail" that the codec decodes serially into
 * the rest of dst; LZ4 frames without our index go through liblz4's LZ4F
 * decoder.
 *
 * Device buffers are driven from here too: RAW and WITH_UNCOMPRESSED_SIZE
 * compression is the same code (the batched call on the GPU); the plan of
 * a device buffer is plan_src's, its ranges read through oc_memory_copy
 * and its probe words checked by the GPU; this layer chooses GPU or
 * staging, runs a device plan through run_plan with the GPU's steps
 * (src/cuda/container/cuda_buffer_decode.cu), and the CUDA engine
 * assembles NATIVE containers (cuda_buffer.cu).  What the GPU does not run
 * is staged through the CPU engine (staging.c).
 */
#include <stdlib.h>
#include <string.h>

#include "../common/oc_internal.h"
#include "../common/typed_options.h"
#include "../cpu/cpu_engine.h"
#include "../cuda/runtime/cuda_engine.h"
#include "../common/algo_table.h"
#include "../common/crc.h"
#include "../common/xxh.h"
#include "../format/chunk_sum.h"
#include "../format/container.h"
#include "staging.h"
#include "../format/lz4f_serial.h"
#include "../format/parallel.h"
#include "../format/sparse_plan.h"

#define GROUP_BYTES ((uint64_t)64 << 20)
/* Compression groups are smaller, so the scratch they reuse stays in cache
 * and is faulted in once: 4 MiB per thread, between 8 and 64 MiB. */
#define COMPRESS_GROUP_PER_THREAD ((uint64_t)4 << 20)
#define COMPRESS_GROUP_MIN ((uint64_t)8 << 20)
#define PROGRESS_MIN_BYTES ((uint64_t)4 << 20)

/* ---- options ------------------------------------------------------------- */

static int valid_algorithm(oc_algorithm a)
{
    return a > OC_ALGO_NONE && a < OC_ALGO_COUNT;
}

static oc_status check_options(const oc_buffer_options *o, int need_algorithm)
{
    RETURN_ERROR_IF(!o || !OC_OPTIONS_SIZE_OK(o, oc_buffer_options), OC_ERR_INVALID_ARGUMENT);
    for (size_t i = 0; i < sizeof o->reserved / sizeof o->reserved[0]; i++)
        RETURN_ERROR_IF(o->reserved[i] != 0, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(need_algorithm && !valid_algorithm(o->algorithm), OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(o->algorithm != OC_ALGO_NONE && !valid_algorithm(o->algorithm), OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF((unsigned)o->kind > OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF((unsigned)o->checksum > OC_CHECKSUM_NONE, OC_ERR_INVALID_ARGUMENT);
    /* NATIVE needs the row's container.  Blosc has none: a Blosc chunk is
     * its own container (header, block table), written and read RAW or
     * WITH_UNCOMPRESSED_SIZE. */
    RETURN_ERROR_IF(o->algorithm != OC_ALGO_NONE && o->kind == OC_BITSTREAM_NATIVE &&
                        oc_algo(o->algorithm)->container == NULL,
                    OC_ERR_UNSUPPORTED);
    return oc_typed_check(&o->typed, o->algorithm);
}

/* The algorithm the codec runs per chunk of a RAW / WITH_UNCOMPRESSED_SIZE
 * stream, or of the NATIVE container (its table row's: gzip members hold
 * raw deflate). */
static oc_algorithm chunk_algorithm(const oc_buffer_options *o)
{
    return o->kind == OC_BITSTREAM_NATIVE ? oc_algo(o->algorithm)->native_chunks : o->algorithm;
}

size_t oc_buffer_compress_bound(const oc_buffer_options *options, uint64_t src_size)
{
    if (check_options(options, 1) != OC_OK || src_size > SIZE_MAX / 2)
        return 0;
    oc_algorithm ca = chunk_algorithm(options);
    if (options->kind != OC_BITSTREAM_NATIVE) {
        size_t b = oc_compress_bound(ca, (size_t)src_size);
        if (b == 0)
            return 0;
        return b + (options->kind == OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE ? 8 : 0);
    }
    oc_native nt;
    if (oc_native_resolve(options, src_size, &nt) != OC_OK)
        return 0;
    size_t cs = nt.chunk_size;
    uint64_t n = nt.n;
    uint64_t full = src_size / cs, rem = src_size % cs;
    size_t bfull = oc_compress_bound(ca, cs);
    size_t brem = oc_compress_bound(ca, (size_t)(n > full ? rem : 0));
    if (bfull == 0 || brem == 0)
        return 0;
    if (full && bfull > (SIZE_MAX / 4) / full)
        return 0;
    uint64_t payload = full * bfull + (n > full ? brem : 0);
    uint64_t b = nt.ops->bound(n, payload);
    return b > SIZE_MAX / 2 ? 0 : (size_t)b;
}

/* ---- progress -------------------------------------------------------------- */

typedef struct progress {
    oc_context *ctx;
    uint64_t total;
    unsigned last_pct;
} progress;

static void progress_report(progress *p, uint64_t done)
{
    if (!p->ctx->opts.progress || p->total < PROGRESS_MIN_BYTES)
        return;
    unsigned pct = (unsigned)(done * 100 / p->total);
    if (pct == p->last_pct && done != p->total)
        return;
    p->last_pct = pct;
    p->ctx->opts.progress(p->ctx->opts.progress_opaque, done, p->total);
}

/* ---- compression ----------------------------------------------------------- */

/* RAW and WITH_UNCOMPRESSED_SIZE: one chunk straight into dst, after the
 * 8-byte size for WITH_UNCOMPRESSED_SIZE; on host buffers, or on the GPU
 * (on_device: src and dst in device memory, a codec the GPU compresses). */
static oc_status compress_raw(oc_context *ctx, const oc_buffer_options *o, const uint8_t *src,
                              uint64_t src_size, uint8_t *dst, uint64_t dst_capacity, uint64_t *dst_size,
                              int on_device)
{
    uint64_t prefix = o->kind == OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE ? 8 : 0;
    RETURN_ERROR_IF(dst_capacity < prefix, OC_ERR_OUTPUT_TOO_SMALL);
    RETURN_ERROR_IF(src_size > SIZE_MAX / 2 || oc_compress_bound(o->algorithm, (size_t)src_size) == 0,
                    OC_ERR_CHUNK_TOO_LARGE);
    static const uint8_t empty[1] = {0};
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = o->algorithm;
    co.level = o->level;
    co.typed = o->typed;
    const void *sp = src ? (const void *)src : (const void *)empty;
    size_t ss = (size_t)src_size;
    void *dp = dst + prefix;
    uint64_t cap64 = dst_capacity - prefix;
    size_t cap = cap64 > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)cap64;
    size_t out = 0;
    oc_status st = OC_ERR_INTERNAL;
    FORWARD_IF_ERROR(oc_batch_compress(ctx, &co, 1, &sp, &ss, &dp, &cap, &out, &st));
    uint8_t size_le[8];
    oc_store_le64(size_le, src_size);
    if (on_device) {
        /* The engine writes out and st back when the stream gets there; the
         * size goes down the same stream, and one wait covers both. */
        if (prefix)
            FORWARD_IF_ERROR(oc_memory_copy(ctx, dst, size_le, 8));
        FORWARD_IF_ERROR(oc_context_synchronize(ctx));
    }
    FORWARD_IF_ERROR(st);
    if (prefix && !on_device)
        memcpy(dst, size_le, 8);
    *dst_size = prefix + out;
    return OC_OK;
}

/* The host's steps of NATIVE compression (src/format/plan.h's
 * oc_native_steps): groups of about 4 MiB a thread, compressed by one
 * batched call into scratch, checksummed over the thread pool, written
 * through the bounds-checked writer. */
typedef struct host_native {
    oc_context *ctx;
    const oc_native *nt;
    const uint8_t *src;
    uint64_t src_size;
    oc_codec_options co;
    oc_writer w;
    oc_index_entry *entries;
    uint8_t *scratch;
    size_t bound, per_group;
    /* the group's, shared with the checksum workers */
    void *mem;
    const void **sp;
    void **dp;
    size_t *ss, *dc, *ds;
    uint32_t *sum;
    oc_status *st;
    size_t m;               /* chunks in this group */
    uint64_t group_bytes;   /* their uncompressed bytes (contiguous from sp[0]) */
    oc_xxh32_state content; /* the LZ4 content checksum, when the container has one */
    int with_content;
} host_native;

static oc_status host_native_end(void *self, oc_native_result *r)
{
    (void)r; /* every step filled it at once */
    host_native *h = (host_native *)self;
    if (h->scratch)
        oc_host_free(h->ctx, h->scratch, h->per_group * h->bound);
    free(h->entries);
    free(h->mem);
    return OC_OK;
}

static oc_status host_native_begin(host_native *h, oc_context *ctx, const oc_buffer_options *o,
                                   const oc_native *nt, const uint8_t *src, uint64_t src_size, uint8_t *dst,
                                   uint64_t dst_capacity)
{
    memset(h, 0, sizeof *h);
    h->ctx = ctx;
    h->nt = nt;
    h->src = src;
    h->src_size = src_size;
    h->bound = oc_compress_bound(nt->chunk_algorithm, nt->chunk_size);
    RETURN_ERROR_IF(h->bound == 0, OC_ERR_CHUNK_TOO_LARGE);
    uint64_t group_bytes_max = COMPRESS_GROUP_PER_THREAD * (uint64_t)oc_context_num_threads(ctx);
    if (group_bytes_max < COMPRESS_GROUP_MIN)
        group_bytes_max = COMPRESS_GROUP_MIN;
    if (group_bytes_max > GROUP_BYTES)
        group_bytes_max = GROUP_BYTES;
    uint64_t per_group = group_bytes_max / nt->chunk_size;
    if (per_group == 0)
        per_group = 1;
    if (per_group > nt->n)
        per_group = nt->n ? nt->n : 1;
    h->per_group = (size_t)per_group;
    h->co = (oc_codec_options)OC_CODEC_OPTIONS_INIT;
    h->co.algorithm = nt->chunk_algorithm;
    h->co.level = o->level;
    h->co.typed = o->typed;
    h->w = (oc_writer){dst, dst_capacity, 0};
    h->with_content = nt->ops->content_checksum && nt->checksums;
    oc_xxh32_init(&h->content, 0);
    size_t g = h->per_group;
    h->entries = (oc_index_entry *)calloc(nt->n ? (size_t)nt->n : 1, sizeof *h->entries);
    h->scratch = (uint8_t *)oc_host_alloc(ctx, g * h->bound);
    h->mem = calloc(g, 2 * sizeof(void *) + 3 * sizeof(size_t) + sizeof(uint32_t) + sizeof(oc_status));
    if (!h->entries || !h->scratch || !h->mem) {
        host_native_end(h, NULL);
        return OC_ERR_OUT_OF_MEMORY;
    }
    h->sp = (const void **)h->mem;
    h->dp = (void **)(h->sp + g);
    h->ss = (size_t *)(h->dp + g);
    h->dc = h->ss + g;
    h->ds = h->dc + g;
    h->sum = (uint32_t *)(h->ds + g);
    h->st = (oc_status *)(h->sum + g);
    oc_status st = oc_container_write_header(&h->w, nt, src_size);
    if (st != OC_OK)
        host_native_end(h, NULL);
    return st;
}

static oc_status host_native_compress(void *self, uint64_t first, size_t m)
{
    host_native *h = (host_native *)self;
    static const uint8_t empty[1] = {0};
    size_t cs = h->nt->chunk_size;
    h->m = m;
    h->group_bytes = 0;
    for (size_t i = 0; i < m; i++) {
        uint64_t off = (first + i) * cs;
        h->sp[i] = h->src ? (const void *)(h->src + off) : (const void *)empty;
        h->ss[i] = (size_t)(h->src_size - off < cs ? h->src_size - off : cs);
        h->dp[i] = h->scratch + i * h->bound;
        h->dc[i] = h->bound;
        h->group_bytes += h->ss[i];
    }
    return oc_batch_compress(h->ctx, &h->co, m, h->sp, h->ss, h->dp, h->dc, h->ds, h->st);
}

static oc_status host_native_first_failure(void *self, uint64_t first, size_t m, oc_native_result *r)
{
    (void)first;
    host_native *h = (host_native *)self;
    for (size_t i = 0; i < m && r->status == OC_OK; i++)
        if (h->st[i] != OC_OK) /* a capacity of the compress bound always suffices */
            r->status = h->st[i] == OC_ERR_OUTPUT_TOO_SMALL ? OC_ERR_INTERNAL : h->st[i];
    return OC_OK;
}

static void compress_checksum(void *arg, size_t i)
{
    host_native *h = (host_native *)arg;
    if (i == h->m) {
        /* The extra item: the serial content checksum, beside the others. */
        oc_xxh32_update(&h->content, h->sp[0], (size_t)h->group_bytes);
        return;
    }
    if (h->nt->sums)
        h->sum[i] = oc_chunk_sum(h->nt->ops->check, (const uint8_t *)h->sp[i], h->ss[i],
                                 (const uint8_t *)h->dp[i], h->ds[i]);
}

static oc_status host_native_sums(void *self, uint64_t first, size_t m)
{
    (void)first;
    host_native *h = (host_native *)self;
    oc_parallel_for(oc_context_num_threads(h->ctx), m + (h->with_content ? 1 : 0), h->group_bytes,
                    compress_checksum, h);
    return OC_OK;
}

static oc_status host_native_assemble(void *self, uint64_t first, size_t m, oc_native_result *r)
{
    host_native *h = (host_native *)self;
    for (size_t i = 0; i < m && r->status == OC_OK; i++)
        r->status =
            oc_container_write_chunk(&h->w, h->nt, (const uint8_t *)h->sp[i], h->ss[i],
                                     (const uint8_t *)h->dp[i], h->ds[i], h->sum[i], &h->entries[first + i]);
    return OC_OK;
}

static oc_status host_native_trailer(void *self, oc_native_result *r)
{
    host_native *h = (host_native *)self;
    r->status = oc_container_write_trailer(&h->w, h->nt, h->entries, h->nt->n, oc_xxh32_digest(&h->content));
    r->total = h->w.pos;
    return OC_OK;
}

static const oc_native_steps host_native_steps = {
    1,
    host_native_compress,
    host_native_first_failure,
    host_native_sums,
    host_native_assemble,
    host_native_trailer,
    host_native_end,
};

/* NATIVE compression through one engine's steps (self: its state, from its
 * begin call; ended here): the one loop of both engines.  Groups of
 * per_group chunks, each compressed by one batched call, checked (a
 * chunk's failure stops it), checksummed and assembled into dst; then the
 * header and trailer; OUTPUT_TOO_SMALL when the container does not fit. */
static oc_status compress_native(oc_context *ctx, const oc_native_steps *e, void *self, const oc_native *nt,
                                 size_t per_group, uint64_t src_size, uint64_t *dst_size)
{
    oc_native_result r = {OC_OK, 0};
    progress pr = {ctx, src_size, 0};
    oc_status st = OC_OK;
    uint64_t n = nt->n, cs = nt->chunk_size;
    for (uint64_t first = 0; first < n && st == OC_OK && r.status == OC_OK;) {
        size_t m = (size_t)(n - first < per_group ? n - first : per_group);
        st = e->compress(self, first, m);
        if (st == OC_OK)
            st = e->first_failure(self, first, m, &r);
        if (st == OC_OK && r.status == OC_OK)
            st = e->sums(self, first, m);
        if (st == OC_OK && r.status == OC_OK)
            st = e->assemble(self, first, m, &r);
        first += m;
        if (st == OC_OK && r.status == OC_OK && e->progress)
            progress_report(&pr, first * cs < src_size ? first * cs : src_size);
    }
    if (st == OC_OK && r.status == OC_OK)
        st = e->trailer(self, &r);
    oc_status end = e->end(self, st == OC_OK ? &r : NULL);
    FORWARD_IF_ERROR(st);
    FORWARD_IF_ERROR(end);
    FORWARD_IF_ERROR(r.status);
    *dst_size = r.total;
    return OC_OK;
}

/* NATIVE compression of host buffers (on_device 0) or device buffers
 * whose chunks the GPU compresses (on_device 1). */
static oc_status compress_container(oc_context *ctx, const oc_buffer_options *o, const uint8_t *src,
                                    uint64_t src_size, uint8_t *dst, uint64_t dst_capacity,
                                    uint64_t *dst_size, int on_device)
{
    RETURN_ERROR_IF(src_size > SIZE_MAX / 2, OC_ERR_INVALID_ARGUMENT);
    oc_native nt;
    FORWARD_IF_ERROR(oc_native_resolve(o, src_size, &nt));
    if (on_device) {
        void *self = NULL;
        size_t per_group = 0;
        FORWARD_IF_ERROR(
            oc_cuda_native_begin(ctx, o, &nt, src, src_size, dst, dst_capacity, &self, &per_group));
        return compress_native(ctx, &oc_cuda_native_steps, self, &nt, per_group, src_size, dst_size);
    }
    host_native h;
    FORWARD_IF_ERROR(host_native_begin(&h, ctx, o, &nt, src, src_size, dst, dst_capacity));
    return compress_native(ctx, &host_native_steps, &h, &nt, h.per_group, src_size, dst_size);
}

oc_status oc_buffer_compress(oc_context *ctx, const oc_buffer_options *options, const void *src,
                             uint64_t src_size, void *dst, uint64_t dst_capacity, uint64_t *dst_size)
{
    RETURN_ERROR_IF(!ctx || !dst_size, OC_ERR_INVALID_ARGUMENT);
    FORWARD_IF_ERROR(check_options(options, 1));
    RETURN_ERROR_IF(!src && src_size, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(!dst && dst_capacity, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(oc_ranges_overlap(src, (size_t)src_size, dst, (size_t)dst_capacity),
                    OC_ERR_INVALID_ARGUMENT);
    *dst_size = 0;
    if (src && ctx->opts.engine != OC_ENGINE_CPU && oc_pointer_kind(src) == OC_MEMORY_DEVICE) {
        /* Device data: on the GPU when the output is device memory too and
         * the chunks have a GPU compressor (RAW and WITH_UNCOMPRESSED_SIZE
         * below, NATIVE containers assembled by the CUDA engine); else the
         * whole call is staged through the CPU engine. */
        RETURN_ERROR_IF(src_size > SIZE_MAX / 2, OC_ERR_INVALID_ARGUMENT);
        if (!dst || oc_pointer_kind(dst) != OC_MEMORY_DEVICE || !oc_cuda_has_op(chunk_algorithm(options), 0))
            return oc_staged_buffer_compress(ctx, options, src, src_size, dst, dst_capacity, dst_size);
        if (options->kind != OC_BITSTREAM_NATIVE)
            return compress_raw(ctx, options, (const uint8_t *)src, src_size, (uint8_t *)dst, dst_capacity,
                                dst_size, 1);
        return compress_container(ctx, options, (const uint8_t *)src, src_size, (uint8_t *)dst, dst_capacity,
                                  dst_size, 1);
    }
    uint8_t dummy[1];
    uint8_t *d = dst ? (uint8_t *)dst : dummy;
    if (options->kind != OC_BITSTREAM_NATIVE)
        return compress_raw(ctx, options, (const uint8_t *)src, src_size, d, dst_capacity, dst_size, 0);
    return compress_container(ctx, options, (const uint8_t *)src, src_size, d, dst_capacity, dst_size, 0);
}

/* ---- planning: one range reader for host and device buffers ------------------ */

typedef struct src_reader {
    oc_context *ctx; /* the device buffer's context; NULL: src is host memory */
    const uint8_t *src;
} src_reader;

/* oc_range_reader over src: host copies, or device copies and one wait. */
static oc_status read_src(void *opaque, const oc_range *r, size_t n)
{
    const src_reader *d = (const src_reader *)opaque;
    for (size_t i = 0; i < n; i++) {
        if (r[i].len == 0)
            continue;
        if (d->ctx)
            FORWARD_IF_ERROR(oc_memory_copy(d->ctx, r[i].to, d->src + r[i].off, (size_t)r[i].len));
        else
            memcpy(r[i].to, d->src + r[i].off, (size_t)r[i].len);
    }
    return d->ctx ? oc_context_synchronize(d->ctx) : OC_OK;
}

/* A buffer's plan: from head and tail (sh holds what was read and the
 * probe words), or from the whole buffer. */
typedef struct src_plan {
    oc_container_plan plan;
    oc_sparse sh;
    int sparse; /* the plan came from head and tail */
} src_plan;

static void src_plan_free(src_plan *p)
{
    oc_plan_free(&p->plan);
    oc_sparse_free(&p->sh);
}

/* The plan of src[0..src_size), host or device memory (device_ctx: its
 * context, NULL for host memory), through one range reader: the plan from
 * head and tail (src/format/sparse_plan.c) wherever it suffices - the
 * indexed containers and sized streams - its probe words checked here in a
 * host buffer (CORRUPT, the parser's own status, when one fails) and by
 * the GPU in a device buffer; the parser over the whole buffer otherwise,
 * in place for host memory.  A device buffer that needs that gets
 * p->sparse = 0 and an empty plan: the caller reads it whole or stages.
 * The plan and its statuses are the parser's (fuzz/fuzz_sparse_plan.c). */
static oc_status plan_src(const oc_buffer_options *hint, const void *src, uint64_t src_size,
                          oc_context *device_ctx, src_plan *p)
{
    src_reader rd = {device_ctx, (const uint8_t *)src};
    oc_status st = oc_sparse_plan(hint, src_size, read_src, &rd, &p->sh, &p->plan, &p->sparse);
    if (p->sparse) {
        if (st == OC_OK && !device_ctx && !oc_sparse_probes_hold(&p->sh, &p->plan, rd.src, src_size))
            st = OC_ERR_CORRUPT;
        return st;
    }
    oc_sparse_free(&p->sh);
    if (device_ctx || st != OC_OK)
        return st;
    static const uint8_t empty[1] = {0};
    return oc_container_parse(src ? rd.src : empty, src_size, hint, &p->plan);
}

/* ---- inspection ------------------------------------------------------------ */

static oc_status check_hint(const oc_buffer_options *hint)
{
    return hint ? check_options(hint, 0) : OC_OK;
}

/* gzip members without our index: inflate them (counting only) to learn
 * their decoded size and where the gzip data ends, so that trailing bytes
 * gzip -d ignores (zero padding, garbage) show as compressed_size below
 * the buffer's size (the CLI warns about them, issue 11 item 9). */
static oc_status gzip_tail_info(const void *src, const oc_container_plan *plan, oc_frame_info *info)
{
    const oc_chunk_ref *c = &plan->chunks[plan->n - 1];
    oc_context *tmp = NULL;
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CPU;
    co.num_threads = 1;
    FORWARD_IF_ERROR(oc_context_create(&co, &tmp));
    size_t end = 0, out = 0;
    oc_status st =
        oc_cpu_gzip_extent(tmp, (const uint8_t *)src + c->src_off, (size_t)c->src_size, NULL, 0, &end, &out);
    oc_context_destroy(tmp);
    if (st != OC_OK)
        return OC_OK; /* a damaged member: inspect describes, decoding reports */
    info->compressed_size = c->src_off + end;
    info->decompressed_size = c->dst_off + out;
    info->size_known = 1;
    return OC_OK;
}

oc_status oc_buffer_inspect(const void *src, uint64_t src_size, const oc_buffer_options *hint,
                            oc_frame_info *info)
{
    RETURN_ERROR_IF(!info || info->struct_size != sizeof(oc_frame_info), OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(!src && src_size, OC_ERR_INVALID_ARGUMENT);
    FORWARD_IF_ERROR(check_hint(hint));
    src_plan pl;
    oc_status st = plan_src(hint, src, src_size, NULL, &pl);
    const oc_container_plan plan = pl.plan;
    if (st == OC_OK && plan.lz4f_serial)
        st = plan.walk_status;
    if (st == OC_OK) {
        size_t size = info->struct_size;
        memset(info, 0, sizeof *info);
        info->struct_size = size;
        info->kind = plan.kind;
        info->algorithm = plan.reported;
        info->container = plan.name;
        info->num_chunks = plan.lz4f_serial ? plan.info_chunks : plan.n;
        info->compressed_size = plan.container_size;
        info->size_known = plan.size_known;
        info->decompressed_size = plan.size_known ? plan.total_size : 0;
        info->indexed = plan.indexed;
        info->has_checksums = plan.check != OC_CHECK_NONE || plan.lz4_content_checksum || plan.info_checksums;
        info->max_chunk_size = plan.max_chunk;
        info->window_size = plan.window_size;
        if (plan.tail && plan.tail_algorithm == OC_ALGO_GZIP)
            st = gzip_tail_info(src, &plan, info);
    }
    src_plan_free(&pl);
    return st;
}

/* ---- decompression ----------------------------------------------------------- */

/* The host's steps of running a plan (src/format/plan.h's oc_plan_steps):
 * groups of chunks decoded by one batched call each, finished and
 * checksummed over the thread pool, the first failure found at once. */
typedef struct host_plan {
    oc_context *ctx;
    const oc_container_plan *plan;
    const uint8_t *src;
    uint8_t *dst;
    uint64_t dst_capacity;
    int verify;
    const oc_chunk_ref *chunks; /* the group's first chunk */
    uint64_t bytes;             /* the group's decoded bytes */
    /* Per codec call (k entries), per chunk of the group (map, st, got). */
    void *mem;
    const void **sp;
    void **dp;
    size_t *ss, *dc, *ds, *map, *got;
    oc_status *cst, *st;
} host_plan;

static int chunk_checksum_ok(const host_plan *g, size_t i)
{
    const oc_chunk_ref *c = &g->chunks[i];
    const uint8_t *s = g->src + c->src_off, *d = g->dst + c->dst_off;
    switch (g->plan->check) {
    /* LZ4's block checksum follows the block's data and snappy's masked
     * CRC precedes it: read there, as the GPU does, since a plan made from
     * head and tail (plan_src) holds neither. */
    case OC_CHECK_XXH32_STORED:
        return oc_xxh32(s, (size_t)c->src_size, 0) == oc_load_le32(s + c->src_size);
    case OC_CHECK_XXH64_LOW:
        return (uint32_t)oc_xxh64(d, (size_t)c->dst_size, 0) == c->checksum;
    case OC_CHECK_CRC32C_MASKED:
        return oc_crc32c_mask(oc_crc32c(0, d, (size_t)c->dst_size)) == oc_load_le32(s - 4);
    case OC_CHECK_CRC32:
        return oc_crc32(0, d, (size_t)c->dst_size) == c->checksum;
    case OC_CHECK_XXH32_CONTENT: /* our own container: after the payload */
        return oc_xxh32(d, (size_t)c->dst_size, 0) == oc_load_le32(s + c->src_size);
    default:
        return 1;
    }
}

/* After decoding: sizes against the plan, checksums per policy. */
static void finish_chunk(void *arg, size_t i)
{
    host_plan *g = (host_plan *)arg;
    const oc_chunk_ref *c = &g->chunks[i];
    oc_status st = g->st[i];
    if (c->stored && st == OC_OK)
        memcpy(g->dst + c->dst_off, g->src + c->src_off, (size_t)c->src_size);
    if (st == OC_ERR_OUTPUT_TOO_SMALL || (st == OC_OK && g->got[i] != c->dst_size))
        st = OC_ERR_SIZE_MISMATCH;
    if (g->verify && g->plan->check == OC_CHECK_XXH32_STORED) {
        /* A checksum of the stored bytes is the most exact diagnosis. */
        if (!chunk_checksum_ok(g, i))
            st = OC_ERR_CHECKSUM_MISMATCH;
    } else if (g->verify && st == OC_OK && !chunk_checksum_ok(g, i)) {
        st = OC_ERR_CHECKSUM_MISMATCH;
    }
    g->st[i] = st;
}

/* Decodes the tail chunk into dst[off..capacity); returns its size. */
static oc_status decode_tail(oc_context *ctx, const oc_container_plan *plan, const uint8_t *src, uint8_t *dst,
                             uint64_t dst_capacity, uint64_t *tail_size)
{
    const oc_chunk_ref *c = &plan->chunks[plan->n - 1];
    static uint8_t empty_out[1];
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = plan->tail_algorithm;
    const void *sp = src + c->src_off;
    size_t ss = (size_t)c->src_size;
    uint64_t room = dst_capacity - c->dst_off;
    void *dp = room ? (void *)(dst + c->dst_off) : (void *)empty_out;
    size_t dc = room > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)room;
    size_t ds = 0;
    oc_status st = OC_ERR_INTERNAL;
    FORWARD_IF_ERROR(oc_batch_decompress(ctx, &co, 1, &sp, &ss, &dp, &dc, &ds, &st));
    if (st == OC_ERR_CORRUPT && plan->tail_algorithm == OC_ALGO_GZIP) {
        /* Bytes after the last member that do not begin another: gzip -d
         * decodes the members and ignores them (issue 11 item 9); so do we
         * (inspect's compressed_size says where the gzip data ends). */
        size_t end = 0, out = 0;
        oc_status lenient = oc_cpu_gzip_extent(ctx, (const uint8_t *)sp, ss, dp, dc, &end, &out);
        if (lenient == OC_OK && end > 0) {
            st = OC_OK;
            ds = out;
        }
    }
    *tail_size = ds;
    return st;
}

#define HOST_GROUP_CHUNKS ((size_t)65536)

static oc_status host_plan_end(void *self, oc_plan_result *r)
{
    (void)r; /* every step filled it at once */
    free(((host_plan *)self)->mem);
    return OC_OK;
}

static oc_status host_plan_begin(host_plan *h, oc_context *ctx, const oc_container_plan *plan,
                                 const uint8_t *src, uint8_t *dst, uint64_t dst_capacity, int verify)
{
    memset(h, 0, sizeof *h);
    h->ctx = ctx;
    h->plan = plan;
    h->src = src;
    h->dst = dst;
    h->dst_capacity = dst_capacity;
    h->verify = verify;
    size_t cap = plan->n < HOST_GROUP_CHUNKS ? (plan->n ? plan->n : 1) : HOST_GROUP_CHUNKS;
    h->mem = calloc(cap, 2 * sizeof(void *) + 5 * sizeof(size_t) + 2 * sizeof(oc_status));
    RETURN_ERROR_IF(!h->mem, OC_ERR_OUT_OF_MEMORY);
    h->sp = (const void **)h->mem;
    h->dp = (void **)(h->sp + cap);
    h->ss = (size_t *)(h->dp + cap);
    h->dc = h->ss + cap;
    h->ds = h->dc + cap;
    h->map = h->ds + cap;
    h->got = h->map + cap;
    h->cst = (oc_status *)(h->got + cap);
    h->st = h->cst + cap;
    return OC_OK;
}

static oc_status host_plan_corrupt(void *self, int *corrupt)
{
    (void)self; /* plan_src checked the probes of a host buffer */
    *corrupt = 0;
    return OC_OK;
}

static oc_status host_plan_decode(void *self, size_t first, size_t m)
{
    host_plan *h = (host_plan *)self;
    static uint8_t empty_out[1];
    size_t k = 0;
    h->bytes = 0;
    for (size_t i = 0; i < m; i++) {
        const oc_chunk_ref *c = &h->plan->chunks[first + i];
        h->st[i] = OC_OK;
        h->got[i] = (size_t)c->dst_size;
        if (!c->stored) {
            h->sp[k] = h->src + c->src_off;
            h->ss[k] = (size_t)c->src_size;
            h->dp[k] = c->dst_size ? (void *)(h->dst + c->dst_off) : (void *)empty_out;
            h->dc[k] = (size_t)c->dst_size;
            h->map[k] = i;
            k++;
        }
        h->bytes += c->dst_size;
    }
    if (k == 0)
        return OC_OK;
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = h->plan->algorithm;
    FORWARD_IF_ERROR(oc_batch_decompress(h->ctx, &co, k, h->sp, h->ss, h->dp, h->dc, h->ds, h->cst));
    for (size_t j = 0; j < k; j++) {
        h->st[h->map[j]] = h->cst[j];
        h->got[h->map[j]] = h->ds[j];
    }
    return OC_OK;
}

static oc_status host_plan_finish(void *self, size_t first, size_t m)
{
    host_plan *h = (host_plan *)self;
    h->chunks = h->plan->chunks + first;
    oc_parallel_for(oc_context_num_threads(h->ctx), m, h->bytes, finish_chunk, h);
    return OC_OK;
}

static oc_status host_plan_first_failure(void *self, size_t first, size_t m, oc_plan_result *r)
{
    host_plan *h = (host_plan *)self;
    for (size_t i = 0; i < m && r->status == OC_OK; i++) {
        if (h->st[i] != OC_OK) {
            r->status = h->st[i];
            r->failed = first + i;
        }
    }
    return OC_OK;
}

static oc_status host_plan_tail(void *self, oc_plan_result *r)
{
    host_plan *h = (host_plan *)self;
    r->tail_status = decode_tail(h->ctx, h->plan, h->src, h->dst, h->dst_capacity, &r->tail_size);
    return OC_OK;
}

static oc_status host_plan_content(void *self, uint64_t len, oc_plan_result *r)
{
    host_plan *h = (host_plan *)self;
    r->content = oc_xxh32(h->dst, (size_t)len, 0);
    return OC_OK;
}

static const oc_plan_steps host_plan_steps = {
    GROUP_BYTES,
    HOST_GROUP_CHUNKS,
    1,
    host_plan_corrupt,
    host_plan_decode,
    host_plan_finish,
    host_plan_first_failure,
    host_plan_tail,
    host_plan_content,
    host_plan_end,
};

/* Runs a plan through one engine's steps (self: its state, from its begin
 * call; ended here): the one decode loop of both engines.  Probes first:
 * a container the parser rejects is CORRUPT whatever the chunks say; then
 * OUTPUT_TOO_SMALL before anything is decoded; groups of chunks, each one
 * batched decode, finished and checked, stopping at the first failure (an
 * engine may report it only at the end); the tail; the LZ4 content
 * checksum over everything decoded. */
static oc_status run_plan(oc_context *ctx, const oc_plan_steps *e, void *self, const oc_container_plan *plan,
                          int verify, uint64_t dst_capacity, uint64_t *dst_size, uint64_t *failed_chunk)
{
    oc_plan_result r = {OC_OK, UINT64_MAX, OC_OK, 0, 0};
    uint64_t known = oc_plan_known_size(plan);
    oc_status st = OC_OK;
    if (known > dst_capacity) {
        int corrupt = 0;
        st = e->corrupt(self, &corrupt);
        e->end(self, NULL);
        FORWARD_IF_ERROR(st);
        RETURN_ERROR_IF(corrupt, OC_ERR_CORRUPT);
        if (failed_chunk)
            *failed_chunk = oc_plan_first_over(plan, dst_capacity);
        return OC_ERR_OUTPUT_TOO_SMALL;
    }
    size_t n = plan->n - (plan->tail ? 1 : 0);
    progress pr = {ctx, plan->total_size, 0};
    for (size_t first = 0; first < n && st == OC_OK && r.status == OC_OK;) {
        /* Group by decoded bytes so progress moves and arrays stay bounded. */
        size_t m = 0;
        uint64_t bytes = 0;
        while (first + m < n && m < e->group_chunks && (m == 0 || bytes < e->group_bytes))
            bytes += plan->chunks[first + m++].dst_size;
        st = e->decode(self, first, m);
        if (st == OC_OK)
            st = e->finish(self, first, m);
        if (st == OC_OK)
            st = e->first_failure(self, first, m, &r);
        first += m;
        if (st == OC_OK && r.status == OC_OK && e->progress)
            progress_report(&pr, plan->chunks[first - 1].dst_off + plan->chunks[first - 1].dst_size);
    }
    if (st == OC_OK && r.status == OC_OK && plan->tail)
        st = e->tail(self, &r);
    int content = verify && plan->lz4_content_checksum;
    if (st == OC_OK && r.status == OC_OK && r.tail_status == OC_OK && content)
        st = e->content(self, known + r.tail_size, &r);
    oc_status end = e->end(self, st == OC_OK ? &r : NULL);
    FORWARD_IF_ERROR(st);
    FORWARD_IF_ERROR(end);
    if (r.status != OC_OK) {
        if (failed_chunk && r.failed != UINT64_MAX)
            *failed_chunk = r.failed;
        return r.status;
    }
    if (r.tail_status != OC_OK) {
        if (failed_chunk)
            *failed_chunk = plan->n - 1;
        return r.tail_status;
    }
    RETURN_ERROR_IF(content && r.content != plan->content_checksum, OC_ERR_CHECKSUM_MISMATCH);
    *dst_size = known + r.tail_size;
    return OC_OK;
}

/* LZ4 legacy frames (src/format/lz4legacy.c): blocks of at most 8 MiB, all
 * but the last exactly 8 MiB when the lz4 command wrote them.  One batched
 * call decodes every block into its 8 MiB slot of dst; if a block other
 * than the last comes out shorter (another writer) or anything fails, the
 * blocks are decoded again one after another, packed, so the status and
 * the failing block are exact. */
static oc_status decode_legacy(oc_context *ctx, const oc_container_plan *plan, const uint8_t *src,
                               uint8_t *dst, uint64_t dst_capacity, uint64_t *total, uint64_t *failed_chunk)
{
    const uint64_t B = OC_LZ4_LEGACY_BLOCK;
    size_t n = plan->n;
    *total = 0;
    if (n == 0)
        return OC_OK;
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = plan->algorithm; /* the blocks' codec: LZ4 */
    static uint8_t empty_out[1];
    oc_status st = OC_OK;
    const void **sp = (const void **)calloc(n, sizeof *sp);
    size_t *ss = (size_t *)calloc(n, sizeof *ss), *dc = (size_t *)calloc(n, sizeof *dc);
    size_t *ds = (size_t *)calloc(n, sizeof *ds);
    void **dp = (void **)calloc(n, sizeof *dp);
    oc_status *cst = (oc_status *)calloc(n, sizeof *cst);
    if (!sp || !ss || !dc || !ds || !dp || !cst) {
        st = OC_ERR_OUT_OF_MEMORY;
        goto cleanup;
    }
    int fast = 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t off = (uint64_t)i * B;
        sp[i] = src + plan->chunks[i].src_off;
        ss[i] = (size_t)plan->chunks[i].src_size;
        dc[i] = off < dst_capacity ? (size_t)(dst_capacity - off < B ? dst_capacity - off : B) : 0;
        dp[i] = dc[i] ? (void *)(dst + off) : (void *)empty_out;
    }
    st = oc_batch_decompress(ctx, &co, n, sp, ss, dp, dc, ds, cst);
    if (st != OC_OK)
        goto cleanup;
    for (size_t i = 0; i < n && fast; i++)
        fast = cst[i] == OC_OK && (i + 1 == n || ds[i] == B);
    if (fast) {
        *total = (uint64_t)(n - 1) * B + ds[n - 1];
        goto cleanup;
    }
    uint64_t out = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t room = dst_capacity - out;
        size_t cap = (size_t)(room < B ? room : B), got = 0;
        void *d = cap ? (void *)(dst + out) : (void *)empty_out;
        oc_status one = OC_ERR_INTERNAL;
        st = oc_batch_decompress(ctx, &co, 1, &sp[i], &ss[i], &d, &cap, &got, &one);
        if (st == OC_OK && one == OC_ERR_OUTPUT_TOO_SMALL && cap == B)
            one = OC_ERR_CORRUPT; /* a legacy block never exceeds 8 MiB */
        if (st == OC_OK && one != OC_OK) {
            st = one;
            if (failed_chunk)
                *failed_chunk = i;
        }
        if (st != OC_OK)
            goto cleanup;
        out += got;
    }
    *total = out;
cleanup:
    free(sp);
    free(ss);
    free(dc);
    free(ds);
    free(dp);
    free(cst);
    return st;
}

/* The decoded size of LZ4 legacy frames: every block's, summed. */
static oc_status legacy_size(oc_context *ctx, const oc_container_plan *plan, const uint8_t *src,
                             uint64_t *size)
{
    size_t n = plan->n;
    *size = 0;
    if (n == 0)
        return OC_OK;
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = plan->algorithm; /* the blocks' codec: LZ4 */
    const void **sp = (const void **)calloc(n, sizeof *sp);
    size_t *ss = (size_t *)calloc(n, sizeof *ss), *sz = (size_t *)calloc(n, sizeof *sz);
    oc_status *cst = (oc_status *)calloc(n, sizeof *cst);
    oc_status st = OC_ERR_OUT_OF_MEMORY;
    if (sp && ss && sz && cst) {
        for (size_t i = 0; i < n; i++) {
            sp[i] = src + plan->chunks[i].src_off;
            ss[i] = (size_t)plan->chunks[i].src_size;
        }
        st = oc_batch_decompressed_sizes(ctx, &co, n, sp, ss, sz, cst);
        for (size_t i = 0; i < n && st == OC_OK; i++) {
            st = cst[i] == OC_OK && sz[i] > OC_LZ4_LEGACY_BLOCK ? OC_ERR_CORRUPT : cst[i];
            *size += sz[i];
        }
    }
    free(sp);
    free(ss);
    free(sz);
    free(cst);
    return st;
}

/* ---- device buffers ------------------------------------------------------------ */

/* A device buffer decoded on the GPU: src/format/sparse_plan.c's plan from
 * its head and tail, run by the CUDA engine when the GPU runs it (its
 * chunks indexed, their codecs decoded on the GPU, dst in device memory);
 * *handled = 0 otherwise, and the caller stages the whole call. */
static oc_status decompress_device(oc_context *ctx, const oc_buffer_options *hint, const void *src,
                                   uint64_t src_size, void *dst, uint64_t dst_capacity, uint64_t *dst_size,
                                   uint64_t *failed_chunk, int *handled)
{
    *handled = 1;
    RETURN_ERROR_IF(src_size > SIZE_MAX / 2 || dst_capacity > SIZE_MAX / 2, OC_ERR_INVALID_ARGUMENT);
    if (dst_capacity && (dst == NULL || oc_pointer_kind(dst) != OC_MEMORY_DEVICE)) {
        *handled = 0; /* a host output buffer */
        return OC_OK;
    }
    int verify = !hint || hint->checksum == OC_CHECKSUM_VERIFY;
    src_plan pl;
    oc_status st = plan_src(hint, src, src_size, ctx, &pl);
    const oc_container_plan *plan = &pl.plan;
    if (st == OC_OK && (!pl.sparse || !oc_cuda_has_op(plan->algorithm, 1) ||
                        (plan->tail && !oc_cuda_has_op(plan->tail_algorithm, 1))))
        *handled = 0;
    else if (st == OC_OK) {
        void *self = NULL;
        st = oc_cuda_plan_begin(ctx, plan, &pl.sh, verify, src, src_size, dst, dst_capacity, &self);
        if (st == OC_OK)
            st = run_plan(ctx, &oc_cuda_plan_steps, self, plan, verify, dst_capacity, dst_size, failed_chunk);
    }
    src_plan_free(&pl);
    return st;
}

/* The size query of a device buffer from its head and tail, when the plan
 * records every size (after the GPU's checks of the plan: a container the
 * CPU parser rejects is CORRUPT here too); *handled = 0 when it cannot
 * (no index, a tail without a size), and the caller reads src whole. */
static oc_status decompressed_size_device(oc_context *ctx, const oc_buffer_options *hint, const void *src,
                                          uint64_t src_size, uint64_t *size, int *handled)
{
    *handled = 0;
    if (src_size > SIZE_MAX / 2)
        return OC_OK;
    src_plan pl;
    oc_status st = plan_src(hint, src, src_size, ctx, &pl);
    if (!pl.sparse) {
        st = OC_OK; /* *handled stays 0 */
    } else if (st != OC_OK) {
        *handled = 1;
    } else if (!pl.plan.tail && pl.plan.size_known) {
        /* The device checks alone: begin, and the corrupt step's one wait. */
        void *self = NULL;
        int corrupt = 0;
        st = oc_cuda_plan_begin(ctx, &pl.plan, &pl.sh, 1, src, src_size, NULL, 0, &self);
        if (st == OC_OK) {
            st = oc_cuda_plan_steps.corrupt(self, &corrupt);
            oc_cuda_plan_steps.end(self, NULL);
        }
        if (st == OC_OK && corrupt)
            st = OC_ERR_CORRUPT;
        if (st == OC_OK)
            *size = pl.plan.total_size;
        *handled = 1;
    }
    src_plan_free(&pl);
    return st;
}

oc_status oc_buffer_decompress(oc_context *ctx, const oc_buffer_options *hint, const void *src,
                               uint64_t src_size, void *dst, uint64_t dst_capacity, uint64_t *dst_size,
                               uint64_t *failed_chunk)
{
    RETURN_ERROR_IF(!ctx || !dst_size, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(!src && src_size, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(!dst && dst_capacity, OC_ERR_INVALID_ARGUMENT);
    FORWARD_IF_ERROR(check_hint(hint));
    RETURN_ERROR_IF(oc_ranges_overlap(src, (size_t)src_size, dst, (size_t)dst_capacity),
                    OC_ERR_INVALID_ARGUMENT);
    *dst_size = 0;
    if (src && ctx->opts.engine != OC_ENGINE_CPU && oc_pointer_kind(src) == OC_MEMORY_DEVICE) {
        int handled = 0;
        oc_status st =
            decompress_device(ctx, hint, src, src_size, dst, dst_capacity, dst_size, failed_chunk, &handled);
        return handled ? st
                       : oc_staged_buffer_decompress(ctx, hint, src, src_size, dst, dst_capacity, dst_size,
                                                     failed_chunk);
    }
    RETURN_ERROR_IF(src_size > SIZE_MAX / 2 || dst_capacity > SIZE_MAX / 2, OC_ERR_INVALID_ARGUMENT);
    int verify = !hint || hint->checksum == OC_CHECKSUM_VERIFY;
    static const uint8_t empty_in[1];
    uint8_t dummy[1];
    const uint8_t *s = src ? (const uint8_t *)src : empty_in;
    uint8_t *d = dst ? (uint8_t *)dst : dummy;

    src_plan pl;
    oc_status st = plan_src(hint, src, src_size, NULL, &pl);
    const oc_container_plan plan = pl.plan;
    if (st != OC_OK)
        goto done;
    if (plan.lz4f_serial) {
        st = oc_lz4f_decompress_serial(s, src_size, dst ? d : NULL, dst_capacity, verify, dst_size);
        /* Frames that state their sizes and decode to more than they say,
         * into at least what they say, lie about their size: SIZE_MISMATCH,
         * as the size query would have it (issue 11 item 12). */
        if (st == OC_ERR_OUTPUT_TOO_SMALL && plan.size_known && plan.walk_status == OC_OK &&
            dst_capacity >= plan.total_size)
            st = OC_ERR_SIZE_MISMATCH;
        if (st != OC_OK && failed_chunk)
            *failed_chunk = 0;
        goto done;
    }
    if (plan.lz4_legacy) {
        uint64_t total = 0;
        st = decode_legacy(ctx, &plan, s, d, dst_capacity, &total, failed_chunk);
        if (st == OC_OK)
            *dst_size = total;
        goto done;
    }
    host_plan h;
    st = host_plan_begin(&h, ctx, &plan, s, d, dst_capacity, verify);
    if (st == OC_OK)
        st = run_plan(ctx, &host_plan_steps, &h, &plan, verify, dst_capacity, dst_size, failed_chunk);
done:
    src_plan_free(&pl);
    return st;
}

static oc_status buffer_size(oc_context *ctx, const oc_buffer_options *hint, const void *src,
                             uint64_t src_size, uint64_t *size);

/* The size the container states, unless it is more than src could decode
 * to at the hint's algorithm's max_expansion (any algorithm's without a
 * hint): a hostile size field, CORRUPT, as the batched size query says of
 * a RAW chunk, so a caller may allocate what this returns. */
oc_status oc_buffer_decompressed_size(oc_context *ctx, const oc_buffer_options *hint, const void *src,
                                      uint64_t src_size, uint64_t *size)
{
    RETURN_ERROR_IF(!ctx || !size, OC_ERR_INVALID_ARGUMENT);
    FORWARD_IF_ERROR(buffer_size(ctx, hint, src, src_size, size));
    if (*size > oc_algo_max_decoded(hint ? hint->algorithm : OC_ALGO_NONE, src_size)) {
        *size = 0;
        return OC_ERR_CORRUPT;
    }
    return OC_OK;
}

static oc_status buffer_size(oc_context *ctx, const oc_buffer_options *hint, const void *src,
                             uint64_t src_size, uint64_t *size)
{
    RETURN_ERROR_IF(!ctx || !size, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(!src && src_size, OC_ERR_INVALID_ARGUMENT);
    FORWARD_IF_ERROR(check_hint(hint));
    if (src && src_size && oc_pointer_kind(src) == OC_MEMORY_DEVICE) {
        /* Indexed containers and sized streams: from head and tail only. */
        int handled = 0;
        oc_status cs = decompressed_size_device(ctx, hint, src, src_size, size, &handled);
        if (handled)
            return cs;
        /* Otherwise the container parser needs it all: parse a host copy. */
        RETURN_ERROR_IF(src_size > SIZE_MAX / 2, OC_ERR_INVALID_ARGUMENT);
        uint8_t *h = malloc((size_t)src_size);
        RETURN_ERROR_IF(!h, OC_ERR_OUT_OF_MEMORY);
        oc_status hs = oc_memory_copy(ctx, h, src, (size_t)src_size);
        if (hs == OC_OK)
            hs = oc_context_synchronize(ctx);
        if (hs == OC_OK)
            hs = buffer_size(ctx, hint, h, src_size, size);
        free(h);
        return hs;
    }
    static const uint8_t empty_in[1];
    const uint8_t *s = src ? (const uint8_t *)src : empty_in;
    src_plan pl;
    oc_status st = plan_src(hint, src, src_size, NULL, &pl);
    const oc_container_plan plan = pl.plan;
    if (st != OC_OK)
        goto done;
    if (plan.size_known && (!plan.lz4f_serial || plan.walk_status == OC_OK)) {
        *size = plan.total_size;
        goto done;
    }
    if (plan.lz4f_serial) {
        st = oc_lz4f_count_serial(s, src_size, size);
        goto done;
    }
    if (plan.lz4_legacy) {
        st = legacy_size(ctx, &plan, s, size);
        goto done;
    }
    /* The tail's size is not recorded: the codec counts it. */
    const oc_chunk_ref *c = &plan.chunks[plan.n - 1];
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = plan.tail_algorithm;
    co.memory_limit = hint ? hint->memory_limit : 0;
    const void *sp = s + c->src_off;
    size_t ss = (size_t)c->src_size, tail = 0;
    oc_status cst = OC_ERR_INTERNAL;
    st = oc_batch_decompressed_sizes(ctx, &co, 1, &sp, &ss, &tail, &cst);
    if (st == OC_OK && cst == OC_ERR_CORRUPT && plan.tail_algorithm == OC_ALGO_GZIP) {
        size_t end = 0; /* trailing bytes gzip -d ignores, as decode_tail does */
        if (oc_cpu_gzip_extent(ctx, (const uint8_t *)sp, ss, NULL, 0, &end, &tail) == OC_OK && end > 0)
            cst = OC_OK;
    }
    if (st == OC_OK)
        st = cst;
    if (st == OC_OK)
        *size = c->dst_off + tail;
done:
    src_plan_free(&pl);
    return st;
}
