/*
 * stream_write.c - the streaming writer (oc_stream_writer_* of
 * include/opencomp.h): a NATIVE container written a group of chunks at a
 * time, so memory stays bounded by the group whatever the input's length.
 *
 * Each group (about 4 MiB of input per thread, as the whole-buffer layer
 * groups its work) is compressed by ONE oc_batch_compress call, its
 * per-chunk checksums computed in parallel, and its container bytes
 * assembled by the same container writers as oc_buffer_compress
 * (src/format/container.h), then handed to the caller's write function.
 * The index entries (12 bytes a chunk) are kept until finish writes the
 * trailer, so the stream is byte for byte what oc_buffer_compress writes
 * for the same options and a pledged size (without one, the LZ4 frame
 * header omits the content size).  When the caller's buffer holds whole
 * groups, they are compressed in place, without a copy.  On a context
 * whose engine is CUDA, each group is compressed on the GPU: one copy to
 * the device, the batched call on device buffers, one copy back
 * (stream_device.h).
 */
#include <stdlib.h>
#include <string.h>

#include "../common/algo_table.h"
#include "../common/oc_internal.h"
#include "../common/xxh.h"
#include "../format/chunk_sum.h"
#include "../format/container.h"
#include "../format/parallel.h"
#include "stream_device.h"

#define GROUP_PER_THREAD ((uint64_t)4 << 20)
#define GROUP_MIN ((uint64_t)8 << 20)
#define GROUP_MAX ((uint64_t)64 << 20)

struct oc_stream_writer {
    oc_context *ctx;
    oc_native nt;
    oc_codec_options co;
    oc_write_fn write;
    void *opaque;
    uint64_t pledged;
    size_t cs;    /* chunk size */
    size_t bound; /* compressed bound of one chunk */
    size_t g_n;   /* chunks per group */
    uint8_t *in;  /* pending input: g_n * cs bytes */
    size_t in_len;
    uint8_t *scratch; /* compressed chunks: g_n * bound */
    uint8_t *frame;   /* assembled container bytes of one group */
    size_t frame_cap;
    const void **sp;
    size_t *ss, *dc, *ds;
    void **dp;
    oc_status *st;
    uint32_t *sum;
    oc_stream_dev dev;   /* a CUDA-engine context: the group on the device */
    const void **dev_sp; /* the chunks' device addresses there */
    void **dev_dp;
    oc_index_entry *entries;
    uint64_t n, entries_cap;
    uint64_t total_in, total_out;
    oc_xxh32_state content;
    int header_done, finished;
    oc_status error; /* sticky */
};

typedef struct sum_job {
    oc_stream_writer *w;
    size_t m;
    const uint8_t *group;
    size_t group_bytes;
    int content;
} sum_job;

static void sum_one(void *arg, size_t i)
{
    sum_job *j = (sum_job *)arg;
    oc_stream_writer *w = j->w;
    if (i == j->m) { /* the extra item: the serial content checksum, beside the others */
        oc_xxh32_update(&w->content, j->group, j->group_bytes);
        return;
    }
    w->sum[i] = w->nt.sums ? oc_chunk_sum(w->nt.ops->check, (const uint8_t *)w->sp[i], w->ss[i],
                                          (const uint8_t *)w->dp[i], w->ds[i])
                           : 0;
}

static oc_status emit(oc_stream_writer *w, const uint8_t *p, uint64_t n)
{
    if (n == 0)
        return OC_OK;
    oc_status st = w->write(w->opaque, p, (size_t)n);
    if (st == OC_OK)
        w->total_out += n;
    return st;
}

/* The group's m chunks (w->ss) compressed on the GPU into w->scratch's
 * slots, as the host call would have written them. */
static oc_status compress_on_device(oc_stream_writer *w, const uint8_t *src, size_t bytes, size_t m)
{
    oc_stream_dev *d = &w->dev;
    FORWARD_IF_ERROR(oc_stream_dev_reserve(d, bytes, m * w->bound));
    FORWARD_IF_ERROR(oc_stream_dev_copy(d, d->in, src, bytes));
    for (size_t i = 0; i < m; i++) {
        w->dev_sp[i] = (const uint8_t *)d->in + (bytes ? i * w->cs : 0);
        w->dev_dp[i] = (uint8_t *)d->out + i * w->bound;
    }
    FORWARD_IF_ERROR(oc_batch_compress(w->ctx, &w->co, m, w->dev_sp, w->ss, w->dev_dp, w->dc, w->ds, w->st));
    FORWARD_IF_ERROR(oc_context_synchronize(w->ctx));
    return oc_stream_dev_copy(d, w->scratch, d->out, m * w->bound);
}

/* Compresses `bytes` (> 0, or 0 for the one empty chunk of zstd and gzip)
 * at src as one group and writes its container bytes. */
static oc_status put_group(oc_stream_writer *w, const uint8_t *src, size_t bytes)
{
    static const uint8_t empty[1] = {0};
    size_t m = bytes / w->cs + (bytes % w->cs != 0);
    if (m == 0)
        m = 1;
    RETURN_ERROR_IF(w->n + m > 0xffffffffu, OC_ERR_INVALID_ARGUMENT);
    if (w->pledged != OC_SIZE_UNKNOWN)
        RETURN_ERROR_IF(w->total_in + bytes > w->pledged, OC_ERR_SIZE_MISMATCH);
    for (size_t i = 0; i < m; i++) {
        size_t off = i * w->cs;
        w->sp[i] = bytes ? (const void *)(src + off) : (const void *)empty;
        w->ss[i] = bytes - off < w->cs ? bytes - off : w->cs;
        if (!bytes)
            w->ss[i] = 0;
        w->dp[i] = w->scratch + i * w->bound;
        w->dc[i] = w->bound;
    }
    if (w->dev.ctx) {
        FORWARD_IF_ERROR(compress_on_device(w, src, bytes, m));
    } else {
        FORWARD_IF_ERROR(oc_batch_compress(w->ctx, &w->co, m, w->sp, w->ss, w->dp, w->dc, w->ds, w->st));
    }
    for (size_t i = 0; i < m; i++)
        if (w->st[i] != OC_OK)
            return w->st[i] == OC_ERR_OUTPUT_TOO_SMALL ? OC_ERR_INTERNAL : w->st[i];
    sum_job j = {w, m, src, bytes, w->nt.ops->content_checksum && w->nt.checksums && bytes};
    oc_parallel_for(oc_context_num_threads(w->ctx), m + (j.content ? 1 : 0), bytes, sum_one, &j);

    if (w->n + m > w->entries_cap) {
        uint64_t cap = w->entries_cap ? w->entries_cap * 2 : 1024;
        while (cap < w->n + m)
            cap *= 2;
        oc_index_entry *e = (oc_index_entry *)realloc(w->entries, (size_t)cap * sizeof *e);
        RETURN_ERROR_IF(!e, OC_ERR_OUT_OF_MEMORY);
        w->entries = e;
        w->entries_cap = cap;
    }
    oc_writer out = {w->frame, w->frame_cap, 0};
    if (!w->header_done) {
        FORWARD_IF_ERROR(oc_container_write_header(&out, &w->nt, w->pledged));
        w->header_done = 1;
    }
    for (size_t i = 0; i < m; i++)
        FORWARD_IF_ERROR(oc_container_write_chunk(&out, &w->nt, (const uint8_t *)w->sp[i], w->ss[i],
                                                  (const uint8_t *)w->dp[i], w->ds[i], w->sum[i],
                                                  &w->entries[w->n + i]));
    w->n += m;
    w->total_in += bytes;
    return emit(w, w->frame, out.pos);
}

oc_status oc_stream_writer_create(oc_context *ctx, const oc_buffer_options *options, uint64_t pledged_size,
                                  oc_write_fn write, void *opaque, oc_stream_writer **out)
{
    RETURN_ERROR_IF(!out, OC_ERR_INVALID_ARGUMENT);
    *out = NULL;
    RETURN_ERROR_IF(!ctx || !write || !options || !OC_OPTIONS_SIZE_OK(options, oc_buffer_options),
                    OC_ERR_INVALID_ARGUMENT);
    for (size_t i = 0; i < sizeof options->reserved / sizeof options->reserved[0]; i++)
        RETURN_ERROR_IF(options->reserved[i] != 0, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF(options->kind != OC_BITSTREAM_NATIVE, OC_ERR_INVALID_ARGUMENT);
    RETURN_ERROR_IF((unsigned)options->checksum > OC_CHECKSUM_NONE, OC_ERR_INVALID_ARGUMENT);
    const oc_algo_desc *d = oc_algo(options->algorithm);
    RETURN_ERROR_IF(d == NULL || options->algorithm == OC_ALGO_NONE, OC_ERR_INVALID_ARGUMENT);
    /* The standard containers; ours records the content size up front. */
    RETURN_ERROR_IF(d->container == NULL || d->container->layout == OC_LAYOUT_OWN, OC_ERR_UNSUPPORTED);

    oc_stream_writer *w = (oc_stream_writer *)calloc(1, sizeof *w);
    RETURN_ERROR_IF(!w, OC_ERR_OUT_OF_MEMORY);
    oc_status st = oc_native_resolve(options, 0, &w->nt);
    if (st != OC_OK) {
        free(w);
        return st;
    }
    w->ctx = ctx;
    w->write = write;
    w->opaque = opaque;
    w->pledged = pledged_size;
    w->cs = w->nt.chunk_size;
    oc_codec_options co = OC_CODEC_OPTIONS_INIT;
    co.algorithm = w->nt.chunk_algorithm;
    co.level = options->level;
    co.typed = options->typed;
    w->co = co;
    w->bound = oc_compress_bound(w->nt.chunk_algorithm, w->cs);
    uint64_t group = GROUP_PER_THREAD * (uint64_t)oc_context_num_threads(ctx);
    group = group < GROUP_MIN ? GROUP_MIN : group > GROUP_MAX ? GROUP_MAX : group;
    w->g_n = (size_t)(group / w->cs ? group / w->cs : 1);
    /* Container bytes of a group: every chunk's bound plus its framing
     * (at most 32 bytes: layout.h), and the header (at most 16). */
    w->frame_cap = w->g_n * (w->bound + 32) + 16;
    w->in = (uint8_t *)malloc(w->g_n * w->cs);
    w->scratch = (uint8_t *)malloc(w->g_n * w->bound);
    w->frame = (uint8_t *)malloc(w->frame_cap);
    w->sp = (const void **)calloc(w->g_n, sizeof *w->sp);
    w->ss = (size_t *)calloc(w->g_n, sizeof *w->ss);
    w->dc = (size_t *)calloc(w->g_n, sizeof *w->dc);
    w->ds = (size_t *)calloc(w->g_n, sizeof *w->ds);
    w->dp = (void **)calloc(w->g_n, sizeof *w->dp);
    w->st = (oc_status *)calloc(w->g_n, sizeof *w->st);
    w->sum = (uint32_t *)calloc(w->g_n, sizeof *w->sum);
    oc_stream_dev_init(&w->dev, ctx);
    w->dev_sp = (const void **)calloc(w->g_n, sizeof *w->dev_sp);
    w->dev_dp = (void **)calloc(w->g_n, sizeof *w->dev_dp);
    if (w->bound == 0) {
        oc_stream_writer_destroy(w);
        return OC_ERR_CHUNK_TOO_LARGE;
    }
    if (!w->in || !w->scratch || !w->frame || !w->sp || !w->ss || !w->dc || !w->ds || !w->dp || !w->st ||
        !w->sum || !w->dev_sp || !w->dev_dp) {
        oc_stream_writer_destroy(w);
        return OC_ERR_OUT_OF_MEMORY;
    }
    oc_xxh32_init(&w->content, 0);
    *out = w;
    return OC_OK;
}

oc_status oc_stream_writer_write(oc_stream_writer *w, const void *src, size_t size)
{
    RETURN_ERROR_IF(!w || (!src && size), OC_ERR_INVALID_ARGUMENT);
    if (w->error != OC_OK)
        return w->error;
    RETURN_ERROR_IF(w->finished, OC_ERR_INVALID_ARGUMENT);
    const uint8_t *p = (const uint8_t *)src;
    size_t group = w->g_n * w->cs;
    oc_status st = OC_OK;
    while (size && st == OC_OK) {
        if (w->in_len == 0 && size >= group) { /* whole groups straight from the caller's bytes */
            st = put_group(w, p, group);
            p += group;
            size -= group;
            continue;
        }
        size_t take = group - w->in_len < size ? group - w->in_len : size;
        memcpy(w->in + w->in_len, p, take);
        w->in_len += take;
        p += take;
        size -= take;
        if (w->in_len == group) {
            st = put_group(w, w->in, group);
            w->in_len = 0;
        }
    }
    w->error = st;
    return st;
}

oc_status oc_stream_writer_finish(oc_stream_writer *w, uint64_t *total_out)
{
    RETURN_ERROR_IF(!w, OC_ERR_INVALID_ARGUMENT);
    if (w->error != OC_OK)
        return w->error;
    RETURN_ERROR_IF(w->finished, OC_ERR_INVALID_ARGUMENT);
    w->finished = 1;
    oc_status st = OC_OK;
    if (w->in_len || (w->n == 0 && w->nt.ops->empty_chunk))
        st = put_group(w, w->in, w->in_len);
    w->in_len = 0;
    if (st == OC_OK && w->pledged != OC_SIZE_UNKNOWN && w->total_in != w->pledged)
        st = OC_ERR_SIZE_MISMATCH;
    if (st == OC_OK && !w->header_done) { /* an empty LZ4 frame or snappy stream */
        oc_writer out = {w->frame, w->frame_cap, 0};
        st = oc_container_write_header(&out, &w->nt, w->pledged);
        if (st == OC_OK)
            st = emit(w, w->frame, out.pos);
        w->header_done = 1;
    }
    if (st == OC_OK) {
        uint64_t tsize = oc_layout_trailer_size(w->nt.ops->layout, w->nt.checksums, w->n) + 16;
        uint8_t *t = tsize <= SIZE_MAX / 2 ? (uint8_t *)malloc((size_t)tsize) : NULL;
        oc_writer out = {t, tsize, 0};
        st = t ? oc_container_write_trailer(&out, &w->nt, w->entries, w->n, oc_xxh32_digest(&w->content))
               : OC_ERR_OUT_OF_MEMORY;
        if (st == OC_OK)
            st = emit(w, t, out.pos);
        free(t);
    }
    w->error = st;
    if (st == OC_OK && total_out)
        *total_out = w->total_out;
    return st;
}

void oc_stream_writer_destroy(oc_stream_writer *w)
{
    if (!w)
        return;
    free(w->in);
    free(w->scratch);
    free(w->frame);
    free(w->sp);
    free(w->ss);
    free(w->dc);
    free(w->ds);
    free(w->dp);
    free(w->st);
    free(w->sum);
    oc_stream_dev_free(&w->dev);
    free(w->dev_sp);
    free(w->dev_dp);
    free(w->entries);
    free(w);
}
