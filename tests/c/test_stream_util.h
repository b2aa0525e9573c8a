/*
 * test_stream_util.h - the in-memory sink and source that the streaming
 * tests (test_stream.c, test_zero_options.c) hand to oc_stream_writer_create
 * and oc_stream_reader_create, written once.  The sink grows a heap buffer;
 * the source serves a buffer in pieces of random sizes (max_piece) and can
 * fail with OC_ERR_IO part way (fail_at).  Header-only, like
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

#endif /* TEST_STREAM_UTIL_H */
