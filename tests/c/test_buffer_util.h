/*
 * test_buffer_util.h - small shared helpers of the container and
 * whole-buffer tests (test_container_*.c, test_buffer_*.c,
 * test_interop_*.c): a CHECK macro that names file and line, real test data
 * (source files of this repo, a system library, a generated numeric column,
 * random bytes), exactly-sized heap copies (so ASan sees any overread), and
 * a one-call compress helper.  Header-only so each test stays one file.
 */
#ifndef TEST_BUFFER_UTIL_H
#define TEST_BUFFER_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opencomp.h"

static int tb_failures;

#define CHECK(cond)                                                                                          \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                         \
            tb_failures++;                                                                                   \
        }                                                                                                    \
    } while (0)

#define CHECK_ST(expr, want)                                                                                 \
    do {                                                                                                     \
        oc_status got_st_ = (expr);                                                                          \
        if (got_st_ != (want)) {                                                                             \
            fprintf(stderr, "%s:%d: %s -> %s, want %s\n", __FILE__, __LINE__, #expr,                         \
                    oc_status_name(got_st_), oc_status_name(want));                                          \
            tb_failures++;                                                                                   \
        }                                                                                                    \
    } while (0)

typedef struct tb_data {
    const char *name;
    unsigned char *p;
    size_t n;
} tb_data;

static inline void *tb_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static inline unsigned char *tb_copy(const void *p, size_t n)
{
    unsigned char *q = (unsigned char *)tb_xmalloc(n);
    if (n)
        memcpy(q, p, n);
    return q;
}

/* Appends up to `max` bytes of file `path` to *buf (grown as needed). */
static inline size_t tb_append_file(unsigned char **buf, size_t *len, const char *path, size_t max)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    size_t added = 0;
    unsigned char tmp[65536];
    while (added < max) {
        size_t want = max - added < sizeof tmp ? max - added : sizeof tmp;
        size_t r = fread(tmp, 1, want, f);
        if (r == 0)
            break;
        *buf = (unsigned char *)realloc(*buf, *len + r);
        if (!*buf)
            exit(2);
        memcpy(*buf + *len, tmp, r);
        *len += r;
        added += r;
    }
    fclose(f);
    return added;
}

/* Source text: this repo's own files. */
static inline tb_data tb_text(size_t max)
{
    static const char *files[] = {"include/opencomp.h",        "src/api/buffer.c",
                                  "src/format/container.h",    "src/format/zstd_seekable.c",
                                  "src/format/gzip_members.c", "CMakeLists.txt"};
    tb_data d = {"text", NULL, 0};
    char path[4096];
    for (int round = 0; d.n < max && round < 8; round++)
        for (size_t i = 0; i < sizeof files / sizeof files[0] && d.n < max; i++) {
            snprintf(path, sizeof path, "%s/%s", OC_SOURCE_DIR, files[i]);
            tb_append_file(&d.p, &d.n, path, max - d.n);
        }
    if (!d.p)
        d.p = (unsigned char *)tb_xmalloc(1);
    return d;
}

/* A real binary: a shared library of the system. */
static inline tb_data tb_binary(size_t max)
{
    static const char *files[] = {"/usr/lib/x86_64-linux-gnu/libzstd.so.1",
                                  "/usr/lib/x86_64-linux-gnu/libc.so.6", "/bin/ls", "/usr/bin/env"};
    tb_data d = {"binary", NULL, 0};
    for (size_t i = 0; i < sizeof files / sizeof files[0] && d.n == 0; i++)
        tb_append_file(&d.p, &d.n, files[i], max);
    if (!d.p)
        d.p = (unsigned char *)tb_xmalloc(1);
    return d;
}

static inline uint64_t tb_rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A numeric column: slowly rising int64 timestamps with jitter. */
static inline tb_data tb_numeric(size_t count)
{
    tb_data d = {"numeric", (unsigned char *)tb_xmalloc(count * 8), count * 8};
    uint64_t s = 42, t = 1700000000000ull;
    for (size_t i = 0; i < count; i++) {
        t += 1000 + tb_rng(&s) % 50;
        memcpy(d.p + 8 * i, &t, 8);
    }
    return d;
}

/* Incompressible bytes. */
static inline tb_data tb_random(size_t n, uint64_t seed)
{
    tb_data d = {"random", (unsigned char *)tb_xmalloc(n), n};
    uint64_t s = seed | 1;
    for (size_t i = 0; i < n; i++)
        d.p[i] = (unsigned char)(tb_rng(&s) >> 24);
    return d;
}

static inline oc_buffer_options tb_opts(oc_algorithm a, oc_bitstream_kind k, size_t chunk,
                                        oc_checksum_policy c)
{
    oc_buffer_options o = OC_BUFFER_OPTIONS_INIT;
    o.algorithm = a;
    o.kind = k;
    o.chunk_size = chunk;
    o.checksum = c;
    return o;
}

/* Compresses into an exactly-sized heap buffer; NULL on failure. */
static inline unsigned char *tb_compress(oc_context *ctx, const oc_buffer_options *o, const void *src,
                                         size_t n, size_t *out_n)
{
    size_t bound = oc_buffer_compress_bound(o, n);
    if (!bound)
        return NULL;
    unsigned char *tmp = (unsigned char *)tb_xmalloc(bound);
    uint64_t got = 0;
    oc_status st = oc_buffer_compress(ctx, o, src, n, tmp, bound, &got);
    if (st != OC_OK) {
        fprintf(stderr, "compress %s kind %d chunk %zu: %s\n", oc_algorithm_name(o->algorithm), (int)o->kind,
                o->chunk_size, oc_status_name(st));
        free(tmp);
        return NULL;
    }
    unsigned char *exact = tb_copy(tmp, (size_t)got);
    free(tmp);
    *out_n = (size_t)got;
    return exact;
}

static inline int tb_finish(const char *name)
{
    if (tb_failures) {
        fprintf(stderr, "%s: %d failures\n", name, tb_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}

#endif /* TEST_BUFFER_UTIL_H */
