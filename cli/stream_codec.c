/*
 * stream_codec.c - compress and decompress through the library's streaming
 * layer (oc_stream_writer_*, oc_stream_reader_*), so the command's memory
 * stays bounded by the library's group of chunks (about 4 MiB per thread)
 * whatever the input's size, stdin and stdout included.  cmd_codec.c sends
 * here every NATIVE stream of the standard containers; RAW streams and our
 * own formats' container still go through the whole-buffer layer.
 *
 * A regular file is also handed to the reader as seekable (pread at the
 * offset where the reader's bytes begin), so a zstd seekable file of any
 * writer is read index first and decoded in parallel batches; pipes keep
 * the reader's serial fallback.
 *
 * Verification for --rm re-reads both files from disk and compares them a
 * group at a time: the compressed one decoded by a second reader, the
 * other read in lockstep.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define READ_PIECE ((size_t)4 << 20)

/* ---- file descriptors as the library's callbacks ------------------------- */

typedef struct fd_source {
    int fd;
    const uint8_t *prefix; /* bytes already read from fd, given back first */
    size_t prefix_n, prefix_pos;
    int err; /* errno of a failed read */
    uint64_t total;
    uint64_t base; /* file offset of the reader's first byte (fd_pread) */
} fd_source;

static oc_status fd_read(void *opaque, void *buf, size_t capacity, size_t *got)
{
    fd_source *s = (fd_source *)opaque;
    *got = 0;
    if (s->prefix_pos < s->prefix_n) {
        size_t take = s->prefix_n - s->prefix_pos < capacity ? s->prefix_n - s->prefix_pos : capacity;
        memcpy(buf, s->prefix + s->prefix_pos, take);
        s->prefix_pos += take;
        *got = take;
        return OC_OK;
    }
    for (;;) {
        ssize_t n = read(s->fd, buf, capacity);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            s->err = errno;
            return OC_ERR_IO;
        }
        *got = (size_t)n;
        s->total += (uint64_t)n;
        return OC_OK;
    }
}

/* The reader's pread: the file at base + offset, looping over short reads. */
static oc_status fd_pread(void *opaque, uint64_t offset, void *buf, size_t capacity, size_t *got)
{
    fd_source *s = (fd_source *)opaque;
    *got = 0;
    while (*got < capacity) {
        ssize_t n = pread(s->fd, (uint8_t *)buf + *got, capacity - *got, (off_t)(s->base + offset + *got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            s->err = errno;
            return OC_ERR_IO;
        }
        if (n == 0)
            break;
        *got += (size_t)n;
    }
    return OC_OK;
}

/* A regular file becomes a seekable source: its bytes from where the
 * prefix began (the reader's first byte) to its end. */
static void fd_seekable(oc_stream_reader *r, fd_source *s)
{
    struct stat sb;
    if (!r || fstat(s->fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        return;
    off_t cur = lseek(s->fd, 0, SEEK_CUR);
    if (cur < 0 || (uint64_t)cur < s->prefix_n || cur > sb.st_size)
        return;
    s->base = (uint64_t)cur - s->prefix_n;
    oc_stream_reader_set_seekable(r, fd_pread, (uint64_t)sb.st_size - s->base);
}

typedef struct fd_sink {
    int fd;
    int err;
} fd_sink;

static oc_status fd_write(void *opaque, const void *data, size_t size)
{
    fd_sink *s = (fd_sink *)opaque;
    if (cli_write_all(s->fd, data, size) != 0) {
        s->err = errno;
        return OC_ERR_IO;
    }
    return OC_OK;
}

int cli_stream_algorithm(oc_algorithm a)
{
    return a == OC_ALGO_LZ4 || a == OC_ALGO_SNAPPY || a == OC_ALGO_DEFLATE || a == OC_ALGO_ZLIB ||
           a == OC_ALGO_GZIP || a == OC_ALGO_ZSTD;
}

int cli_stream_magic(const uint8_t *p, size_t n)
{
    if (n < 4)
        return 0;
    uint32_t m = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    return m == 0x184D2204u || m == 0x184C2102u || m == 0xFD2FB528u || (m & 0xFFFFFFF0u) == 0x184D2A50u ||
           (p[0] == 0x1f && p[1] == 0x8b) || m == 0x000006ffu;
}

int cli_read_prefix(int fd, uint8_t *buf, size_t want, size_t *got, const char *display)
{
    *got = 0;
    while (*got < want) {
        ssize_t n = read(fd, buf + *got, want - *got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            cli_error(display, "read error: %s", strerror(errno));
            return -1;
        }
        if (n == 0)
            break;
        *got += (size_t)n;
    }
    return 0;
}

int cli_read_rest(int fd, const uint8_t *prefix, size_t prefix_n, const char *display, cli_buffer *buf)
{
    size_t cap = prefix_n + ((size_t)1 << 20);
    buf->size = 0;
    buf->data = malloc(cap);
    if (!buf->data) {
        cli_error(display, "out of memory reading input");
        return -1;
    }
    memcpy(buf->data, prefix, prefix_n);
    buf->size = prefix_n;
    for (;;) {
        if (buf->size == cap) {
            uint8_t *p = cap * 2 > cap ? realloc(buf->data, cap * 2) : NULL;
            if (!p) {
                cli_error(display, "out of memory reading input");
                cli_buffer_free(buf);
                return -1;
            }
            buf->data = p;
            cap *= 2;
        }
        ssize_t n = read(fd, buf->data + buf->size, cap - buf->size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            cli_error(display, "read error: %s", strerror(errno));
            cli_buffer_free(buf);
            return -1;
        }
        if (n == 0)
            return 0;
        buf->size += (size_t)n;
    }
}

/* ---- compress ----------------------------------------------------------------- */

int cli_stream_compress(oc_context *ctx, const oc_buffer_options *bo, int in_fd, uint64_t pledged, int out_fd,
                        const char *display, const char *out_display, cli_progress *progress,
                        uint64_t *in_bytes, uint64_t *out_bytes)
{
    fd_sink sink = {out_fd, 0};
    oc_stream_writer *w = NULL;
    oc_status st = oc_stream_writer_create(ctx, bo, pledged, fd_write, &sink, &w);
    if (st != OC_OK) {
        cli_error(display, "cannot compress: invalid options for %s (chunk size %zu, level %d)",
                  oc_algorithm_name(bo->algorithm), bo->chunk_size, bo->level);
        return -1;
    }
    uint8_t *buf = malloc(READ_PIECE);
    fd_source src = {in_fd, NULL, 0, 0, 0, 0, 0};
    int rc = -1;
    if (!buf) {
        cli_error(display, "out of memory");
        goto done;
    }
    for (;;) {
        size_t got = 0;
        st = fd_read(&src, buf, READ_PIECE, &got);
        if (st != OC_OK) {
            cli_error(display, "read error: %s", strerror(src.err));
            goto done;
        }
        if (got == 0)
            break;
        st = oc_stream_writer_write(w, buf, got);
        if (st != OC_OK)
            break;
        if (progress)
            cli_progress_cb(progress, src.total, pledged);
    }
    /* A file that changed size while it was read is no longer what was pledged. */
    if (st == OC_OK && pledged != OC_SIZE_UNKNOWN && src.total != pledged) {
        cli_error(display, "the file changed size while it was read (%llu bytes, then %llu)",
                  (unsigned long long)pledged, (unsigned long long)src.total);
        goto done;
    }
    if (st == OC_OK)
        st = oc_stream_writer_finish(w, out_bytes);
    if (st == OC_ERR_IO && sink.err) {
        cli_error(out_display, "write error: %s", strerror(sink.err));
        goto done;
    }
    if (st != OC_OK) {
        cli_error(display, "cannot compress: %s", oc_status_message(st));
        goto done;
    }
    *in_bytes = src.total;
    rc = 0;
done:
    if (progress)
        cli_progress_end(progress);
    oc_stream_writer_destroy(w);
    free(buf);
    return rc;
}

/* ---- decompress ----------------------------------------------------------------- */

static void decode_failure(const char *display, const char *doing, oc_status st,
                           const oc_stream_position *pos, const oc_buffer_options *hint)
{
    if (st == OC_ERR_CHUNK_TOO_LARGE && pos->window_size) {
        uint64_t limit = hint->memory_limit ? hint->memory_limit : OC_DEFAULT_MEMORY_LIMIT;
        uint64_t mib = (pos->window_size + (1 << 20) - 1) >> 20;
        if (pos->window_size > OC_MAX_MEMORY_LIMIT)
            cli_error(
                display,
                "%s: a zstd frame needs a window of %llu MiB (%llu bytes), more than any decoder sets aside",
                doing, (unsigned long long)mib, (unsigned long long)pos->window_size);
        else
            cli_error(
                display,
                "%s: a zstd frame records no size and needs a window of %llu MiB (%llu bytes), above the "
                "memory limit of %llu MiB; use --memory=%lluM",
                doing, (unsigned long long)mib, (unsigned long long)pos->window_size,
                (unsigned long long)(limit >> 20), (unsigned long long)mib);
    } else if (pos->index_entries && pos->failed_chunk == OC_SIZE_UNKNOWN) {
        cli_error(display, "%s: damaged seek table (%llu frames): %s", doing,
                  (unsigned long long)pos->index_entries, oc_status_message(st));
    } else if (pos->failed_chunk != OC_SIZE_UNKNOWN) {
        cli_error(display, "%s: chunk %llu: %s", doing, (unsigned long long)pos->failed_chunk,
                  oc_status_message(st));
    } else {
        cli_error(display, "%s: %s", doing, oc_status_message(st));
    }
}

int cli_stream_decompress(const cli_options *opts, oc_context *ctx, const oc_buffer_options *hint, int in_fd,
                          const uint8_t *prefix, size_t prefix_n, int out_fd, const char *display,
                          const char *out_display, cli_progress *progress, uint64_t in_total,
                          uint64_t *in_bytes, uint64_t *out_bytes)
{
    fd_source src = {in_fd, prefix, prefix_n, 0, 0, 0, 0};
    fd_sink sink = {out_fd, 0};
    oc_stream_reader *r = NULL;
    oc_stream_position pos;
    memset(&pos, 0, sizeof pos);
    pos.struct_size = sizeof pos;
    oc_status st = oc_stream_reader_create(ctx, hint, fd_read, &src, &r);
    fd_seekable(r, &src);
    int rc = -1;
    for (;;) {
        const void *data = NULL;
        size_t size = 0;
        if (st == OC_OK)
            st = oc_stream_reader_next(r, &data, &size);
        if (st != OC_OK || size == 0)
            break;
        st = fd_write(&sink, data, size);
        if (st != OC_OK) {
            cli_error(out_display, "write error: %s", strerror(sink.err));
            goto done;
        }
        if (progress) {
            oc_stream_reader_position(r, &pos);
            cli_progress_cb(progress, pos.in_bytes, in_total);
        }
    }
    if (r)
        oc_stream_reader_position(r, &pos);
    if (st == OC_ERR_IO && src.err) {
        cli_error(display, "read error: %s", strerror(src.err));
        goto done;
    }
    if (st != OC_OK) {
        if (progress)
            cli_progress_end(progress);
        decode_failure(display, "cannot decompress", st, &pos, hint);
        goto done;
    }
    /* -vv: how the stream was read (index first or not, batches or serial) */
    if (pos.index_entries)
        cli_note(opts, 3, display,
                 "seek table read first (%llu frames); %llu chunks: %llu in batches, %llu serially",
                 (unsigned long long)pos.index_entries, (unsigned long long)pos.chunks,
                 (unsigned long long)(pos.chunks - pos.serial_chunks), (unsigned long long)pos.serial_chunks);
    else
        cli_note(opts, 3, display, "%llu chunks: %llu in batches, %llu serially",
                 (unsigned long long)pos.chunks, (unsigned long long)(pos.chunks - pos.serial_chunks),
                 (unsigned long long)pos.serial_chunks);
    if (pos.trailing_bytes) {
        if (pos.trailing_zeros)
            cli_note(opts, 2, display, "decompression OK, %llu trailing zero bytes ignored",
                     (unsigned long long)pos.trailing_bytes);
        else
            cli_note(opts, 1, display,
                     "warning: decompression OK, trailing garbage ignored (%llu bytes after the data)",
                     (unsigned long long)pos.trailing_bytes);
    }
    *in_bytes = src.total + prefix_n;
    *out_bytes = pos.out_bytes;
    rc = 0;
done:
    if (progress)
        cli_progress_end(progress);
    oc_stream_reader_destroy(r);
    return rc;
}

/* ---- verification for --rm ------------------------------------------------------ */

int cli_stream_verify(oc_context *ctx, const oc_buffer_options *hint, const char *compressed_path,
                      const char *plain_path, const char *name, const char *mismatch)
{
    int cfd = open(compressed_path, O_RDONLY), pfd = open(plain_path, O_RDONLY);
    oc_stream_reader *r = NULL;
    fd_source src = {cfd, NULL, 0, 0, 0, 0, 0};
    uint8_t *buf = malloc(READ_PIECE);
    int rc = -1, same = 1;
    if (cfd < 0 || pfd < 0 || !buf) {
        cli_error(name, "verification failed: cannot re-read: %s", strerror(errno));
        goto done;
    }
    oc_buffer_options h = *hint;
    h.checksum = OC_CHECKSUM_VERIFY;
    oc_status st = oc_stream_reader_create(ctx, &h, fd_read, &src, &r);
    if (cfd >= 0)
        fd_seekable(r, &src);
    while (st == OC_OK && same) {
        const void *data;
        size_t size = 0;
        st = oc_stream_reader_next(r, &data, &size);
        if (st != OC_OK)
            break;
        size_t off = 0;
        /* the plain file must hold exactly these bytes next (and end with them) */
        while (same && (off < size || size == 0)) {
            size_t want = size - off < READ_PIECE ? size - off : READ_PIECE, got = 0;
            if (cli_read_prefix(pfd, buf, size ? want : 1, &got, name) != 0) {
                st = OC_ERR_IO;
                break;
            }
            if (size == 0) {
                same = got == 0;
                break;
            }
            same = got == want && memcmp(buf, (const uint8_t *)data + off, want) == 0;
            off += want;
        }
        if (size == 0)
            break;
    }
    if (st != OC_OK) {
        cli_error(name, "verification failed: %s", oc_status_message(st));
        goto done;
    }
    if (!same) {
        cli_error(name, "verification failed: %s", mismatch);
        goto done;
    }
    rc = 0;
done:
    oc_stream_reader_destroy(r);
    if (cfd >= 0)
        close(cfd);
    if (pfd >= 0)
        close(pfd);
    free(buf);
    return rc;
}
