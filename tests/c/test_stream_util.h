/*
 * test_stream_util.h - the in-memory sink and source that the streaming
 * tests (test_stream.c, test_zero_options.c) hand to oc_stream_writer_create
 * and oc_stream_reader_create, written once.  The sink grows a heap buffer;
 * the source serves a buffer in pieces of random sizes (max_piece) and can
 * fail with OC_ERR_IO part way (fail_at); read_whole_stream drives a reader
 * to the end (test_stream.c, test_cuda_stream.c).  Header-only, like
 * test_buffer_util.h, which it needs for tb_rng.
 */
#ifndef TEST_STREAM_UTIL_H
#define TEST_STREAM_UTIL_H

#include "test_buffer_util.h"

typedef struct sink {
    unsigned char *p;
    size_t n, cap;
} sink;

static inline oc_status sink_write(void *opaque, const void *data, size_t size)
{
    sink *s = (sink *)opaque;
    if (s->n + size > s->cap) {
        s->cap = (s->n + size) * 2;
        s->p = (unsigned char *)realloc(s->p, s->cap);
        if (!s->p)
            exit(2);
    }
    memcpy(s->p + s->n, data, size);
    s->n += size;
    return OC_OK;
}

typedef struct source {
    const unsigned char *p;
    size_t n, pos;
    size_t max_piece; /* 0: whatever fits; else pieces of 1..max_piece bytes */
    size_t fail_at;   /* return IO once pos passes this (0: never) */
    uint64_t *rng;    /* the random state for the piece sizes (with max_piece) */
} source;

static inline oc_status source_read(void *opaque, void *buf, size_t capacity, size_t *got)
{
    source *s = (source *)opaque;
    if (s->fail_at && s->pos >= s->fail_at)
        return OC_ERR_IO;
    size_t take = s->n - s->pos < capacity ? s->n - s->pos : capacity;
    if (s->max_piece && take > 1) {
        size_t lim = 1 + (size_t)(tb_rng(s->rng) % s->max_piece);
        if (take > lim)
            take = lim;
    }
    memcpy(buf, s->p + s->pos, take);
    s->pos += take;
    *got = take;
    return OC_OK;
}

/* Reads a whole stream through a reader on ctx, its source served in
 * pieces of at most max_piece bytes: *out gets the decoded bytes (malloc'd),
 * *pos (struct_size set here) the reader's position at the end.  Returns the
 * first status that was not OK, else OK. */
static inline oc_status read_whole_stream(oc_context *ctx, const oc_buffer_options *hint,
                                          const unsigned char *src, size_t n, size_t max_piece, uint64_t *rng,
                                          sink *out, oc_stream_position *pos)
{
    source s = {src, n, 0, max_piece, 0, rng};
    oc_stream_reader *r = NULL;
    memset(out, 0, sizeof *out);
    memset(pos, 0, sizeof *pos);
    pos->struct_size = sizeof *pos;
    oc_status st = oc_stream_reader_create(ctx, hint, source_read, &s, &r);
    if (st != OC_OK)
        return st;
    for (;;) {
        const void *d;
        size_t sz;
        st = oc_stream_reader_next(r, &d, &sz);
        if (st != OC_OK || sz == 0)
            break;
        sink_write(out, d, sz);
    }
    oc_status pst = oc_stream_reader_position(r, pos);
    oc_stream_reader_destroy(r);
    return st != OC_OK ? st : pst;
}

#endif /* TEST_STREAM_UTIL_H */
