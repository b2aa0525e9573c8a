/*
 * cmd_codec.c - `opencomp compress` and `opencomp decompress`: for each input,
 * NATIVE streams of the standard containers go through the streaming layer
 * (stream_codec.c: memory bounded whatever the size); RAW streams and our
 * own formats' container are read whole and run through the whole-buffer
 * layer (oc_buffer_*).  Either way the result is written
 * through a temporary file (fileio.c) and, with --rm, remove the input only
 * after the output was re-read from disk and checked: for compression by
 * decoding it again and comparing with the input, for decompression by
 * comparing with the decoded bytes.  One error line per failed file; the
 * other files still run; the exit status is 1 if any failed.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

typedef struct codec_run {
    const cli_options *opts;
    oc_context *ctx;
    cli_progress progress;
    int progress_on; /* the callback draws only while this is set */
} codec_run;

static int progress_gate(void *opaque, uint64_t done, uint64_t total)
{
    codec_run *run = opaque;
    return run->progress_on ? cli_progress_cb(&run->progress, done, total) : 0;
}

static int is_stdio_name(const char *path)
{
    return path == NULL || strcmp(path, "-") == 0;
}

/* The output path for one input, malloc'd; NULL with *to_stdout set for
 * stdout; returns -1 (error printed) when no name can be made. */
static int output_name(const cli_options *opts, const char *path, const char *display, char **name,
                       int *to_stdout, oc_algorithm *hint_alg, oc_bitstream_kind *hint_kind)
{
    *name = NULL;
    *to_stdout = 0;
    *hint_alg = OC_ALGO_NONE;
    *hint_kind = OC_BITSTREAM_NATIVE;
    int decompress = opts->command == CLI_CMD_DECOMPRESS || opts->command == CLI_CMD_TEST;
    /* The suffix of a file name gives decoding hints even with -c/-o. */
    if (decompress && !is_stdio_name(path)) {
        char *stripped = cli_strip_suffix(path, hint_alg, hint_kind);
        if (stripped && !opts->to_stdout && !opts->output && opts->command != CLI_CMD_TEST) {
            *name = stripped;
            return 0;
        }
        free(stripped);
    }
    if (opts->command == CLI_CMD_TEST || opts->to_stdout ||
        (opts->output && strcmp(opts->output, "-") == 0) || (is_stdio_name(path) && !opts->output)) {
        *to_stdout = 1;
        return 0;
    }
    if (opts->output) {
        *name = strdup(opts->output);
    } else if (decompress) {
        cli_error(display,
                  "unknown suffix (expected .zst .lz4 .gz .sz .raw .sized .tzst .tlz4 .tgz); use -o or -c");
        return -1;
    } else {
        oc_algorithm alg = opts->num_algorithms ? opts->algorithms[0] : OC_ALGO_ZSTD;
        const char *suffix = cli_suffix(alg, opts->kind);
        size_t len = strlen(path) + strlen(suffix) + 1;
        *name = malloc(len);
        if (*name)
            snprintf(*name, len, "%s%s", path, suffix);
    }
    if (!*name) {
        cli_error(display, "out of memory");
        return -1;
    }
    return 0;
}

int cli_needs_algorithm_hint(oc_status st, const oc_buffer_options *hint)
{
    return hint->algorithm == OC_ALGO_NONE &&
           (st == OC_ERR_INVALID_ARGUMENT || st == OC_ERR_UNSUPPORTED || st == OC_ERR_CORRUPT);
}

static void describe_failure(const char *display, const char *doing, oc_status st, uint64_t failed_chunk)
{
    if (failed_chunk != UINT64_MAX)
        cli_error(display, "%s: chunk %llu: %s", doing, (unsigned long long)failed_chunk,
                  oc_status_message(st));
    else
        cli_error(display, "%s: %s", doing, oc_status_message(st));
}

static void fill_buffer_options(const cli_options *opts, oc_buffer_options *bo)
{
    oc_buffer_options init = OC_BUFFER_OPTIONS_INIT;
    *bo = init;
    bo->algorithm = opts->num_algorithms ? opts->algorithms[0] : OC_ALGO_ZSTD;
    bo->level = opts->level;
    bo->chunk_size = opts->num_chunk_sizes ? opts->chunk_sizes[0] : OC_DEFAULT_CHUNK_SIZE;
    bo->kind = opts->kind;
    bo->checksum = opts->checksum;
    bo->memory_limit = opts->memory_limit;
    bo->typed = opts->typed;
}

/* CHUNK_TOO_LARGE from the size count of zstd frames without a content
 * size: name the window and the option that allows it (issue 11 item 8). */
static int explain_window(const oc_buffer_options *hint, const cli_buffer *src, const char *display,
                          const char *doing)
{
    oc_frame_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (oc_buffer_inspect(src->data, src->size, hint, &info) != OC_OK || info.window_size == 0)
        return 0;
    uint64_t limit = hint->memory_limit ? hint->memory_limit : OC_DEFAULT_MEMORY_LIMIT;
    uint64_t mib = (info.window_size + (1 << 20) - 1) >> 20;
    if (info.window_size > OC_MAX_MEMORY_LIMIT)
        cli_error(
            display,
            "%s: a zstd frame needs a window of %llu MiB (%llu bytes), more than any decoder sets aside",
            doing, (unsigned long long)mib, (unsigned long long)info.window_size);
    else
        cli_error(display,
                  "%s: a zstd frame records no size and needs a window of %llu MiB (%llu bytes), above the "
                  "memory limit of %llu MiB; use --memory=%lluM",
                  doing, (unsigned long long)mib, (unsigned long long)info.window_size,
                  (unsigned long long)(limit >> 20), (unsigned long long)mib);
    return 1;
}

/* gzip data followed by bytes that begin no member: decoded as gzip -d
 * does; say so (issue 11 item 9): garbage is a warning, zero padding a
 * note with -v (gzip -d says the same, and so). */
static void report_trailing(const cli_options *opts, const char *display, const cli_buffer *src, uint64_t end)
{
    size_t extra = src->size - (size_t)end, zeros = 0;
    while (zeros < extra && src->data[end + zeros] == 0)
        zeros++;
    if (zeros == extra)
        cli_note(opts, 2, display, "decompression OK, %zu trailing zero bytes ignored", extra);
    else
        cli_note(opts, 1, display,
                 "warning: decompression OK, trailing garbage ignored (%zu bytes after the data)", extra);
}

/* Decodes `src` into a new buffer; -1 after printing an error. */
static int decode(codec_run *run, const oc_buffer_options *hint, const cli_buffer *src, const char *display,
                  const char *doing, cli_buffer *out)
{
    uint64_t size = 0;
    out->data = NULL;
    out->size = 0;
    /* inspect first: it knows the size of most files, and for gzip files
     * without our index it inflates them once to learn the size and where
     * the gzip data ends (trailing bytes are reported below) */
    oc_frame_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    oc_status st = oc_buffer_inspect(src->data, src->size, hint, &info);
    if (st == OC_OK && info.size_known)
        size = info.decompressed_size;
    else
        st = oc_buffer_decompressed_size(run->ctx, hint, src->data, src->size, &size);
    if (st != OC_OK) {
        if (cli_needs_algorithm_hint(st, hint))
            cli_error(display, "%s: %s (raw LZ4, Snappy and deflate streams need -a)", doing,
                      oc_status_message(st));
        else if (st == OC_ERR_CHUNK_TOO_LARGE && explain_window(hint, src, display, doing))
            ;
        else
            describe_failure(display, doing, st, UINT64_MAX);
        return -1;
    }
    if (size > (uint64_t)SIZE_MAX - 1) {
        cli_error(display, "%s: decompressed size %llu does not fit in memory", doing,
                  (unsigned long long)size);
        return -1;
    }
    /* Progress is judged by the decoded size, which is what takes time. */
    run->progress.start = cli_now();
    run->progress.drawn = 0;
    run->progress_on = cli_progress_wanted(run->opts, size);
    out->data = malloc((size_t)size + 1);
    if (!out->data) {
        cli_error(display, "%s: out of memory for %llu bytes", doing, (unsigned long long)size);
        return -1;
    }
    uint64_t failed = UINT64_MAX, got = 0;
    st = oc_buffer_decompress(run->ctx, hint, src->data, src->size, out->data, size, &got, &failed);
    cli_progress_end(&run->progress);
    run->progress_on = 0;
    if (st == OC_OK && got != size)
        st = OC_ERR_SIZE_MISMATCH;
    if (st != OC_OK) {
        describe_failure(display, doing, st, failed);
        cli_buffer_free(out);
        return -1;
    }
    out->size = (size_t)got;
    if (info.struct_size && info.compressed_size && info.compressed_size < src->size)
        report_trailing(run->opts, display, src, info.compressed_size);
    return 0;
}

/* With --rm: re-read what was written and check it before the input goes. */
static int verify_written(codec_run *run, const cli_output *out, const cli_buffer *written,
                          const cli_buffer *original, const oc_buffer_options *bo)
{
    const char *name = out->final_path;
    cli_buffer back;
    if (cli_read_all(out->temp_path, name, &back) != 0)
        return -1;
    int ok = back.size == written->size && memcmp(back.data, written->data, back.size) == 0;
    cli_buffer_free(&back);
    if (!ok) {
        cli_error(name, "verification failed: the file on disk differs from what was written");
        return -1;
    }
    if (run->opts->command == CLI_CMD_COMPRESS) {
        cli_buffer decoded;
        oc_buffer_options hint = *bo;
        hint.checksum = OC_CHECKSUM_VERIFY;
        run->progress.label = "verify    ";
        if (decode(run, &hint, written, name, "verification failed", &decoded) != 0)
            return -1;
        ok = decoded.size == original->size && memcmp(decoded.data, original->data, decoded.size) == 0;
        cli_buffer_free(&decoded);
        if (!ok) {
            cli_error(name, "verification failed: decoding it does not give the input back");
            return -1;
        }
    }
    return 0;
}

static int same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* One input through the streaming layer: output opened first, the data
 * streamed, --rm verified from disk, then committed. */
static int stream_one(codec_run *run, const char *path, const char *display, int in_fd, uint64_t in_size,
                      const oc_buffer_options *bo, const uint8_t *prefix, size_t prefix_n, int to_stdout,
                      const char *out_name, int from_stdin, cli_output *out)
{
    const cli_options *opts = run->opts;
    int compress = opts->command == CLI_CMD_COMPRESS;
    const char *out_display = to_stdout ? "stdout" : out_name;
    int testing = opts->command == CLI_CMD_TEST;
    if (testing) { /* decoded bytes go nowhere */
        out->fd = open("/dev/null", O_WRONLY);
        if (out->fd < 0) {
            cli_error("/dev/null", "cannot open: %s", strerror(errno));
            return -1;
        }
    } else if (cli_output_open(out, to_stdout ? NULL : out_name, opts->force, display) != 0) {
        return -1;
    }
    run->progress.label = compress ? "compress  " : "decompress";
    run->progress.start = cli_now();
    run->progress.drawn = 0;
    /* Progress follows the input read.  Decoding takes as long as the
     * decoded size, unknown up front: a compressed file of a quarter of the
     * threshold (16 MiB) gets a bar. */
    uint64_t judge = in_size == OC_SIZE_UNKNOWN ? 0 : compress ? in_size : in_size * 4;
    cli_progress *progress = cli_progress_wanted(opts, judge) ? &run->progress : NULL;
    uint64_t in_bytes = 0, out_bytes = 0;
    int r = compress ? cli_stream_compress(run->ctx, bo, in_fd, in_size, out->fd, display, out_display,
                                           progress, &in_bytes, &out_bytes)
                     : cli_stream_decompress(opts, run->ctx, bo, in_fd, prefix, prefix_n, out->fd, display,
                                             out_display, progress, in_size, &in_bytes, &out_bytes);
    if (testing) {
        close(out->fd);
        out->fd = -1;
        if (r == 0)
            cli_note(opts, 2, display, "OK (%llu bytes)", (unsigned long long)out_bytes);
        return r;
    }
    if (r != 0)
        return -1;
    int removing = opts->remove_input && !from_stdin && !to_stdout;
    if (removing) {
        /* the file on disk, decoded again, must be the input (compress) or
         * what the input decodes to must be the file on disk (decompress) */
        if (compress ? cli_stream_verify(run->ctx, bo, out->temp_path, path, out->final_path,
                                         "decoding it does not give the input back")
                     : cli_stream_verify(run->ctx, bo, path, out->temp_path, out->final_path,
                                         "the file on disk differs from what was written"))
            return -1;
    }
    if (cli_output_commit(out, from_stdin ? NULL : path) != 0)
        return -1;
    if (opts->remove_input && (from_stdin || to_stdout))
        cli_note(opts, 1, display, "--rm ignored: %s", from_stdin ? "input is stdin" : "output is stdout");
    if (removing && unlink(path) != 0)
        cli_error(display, "cannot remove input: %s", strerror(errno));
    else if (in_bytes || out_bytes)
        cli_note(opts, 2, display, "%llu -> %llu bytes (%s%s)", (unsigned long long)in_bytes,
                 (unsigned long long)out_bytes, out_display, removing ? ", input removed" : "");
    return 0;
}

static int process_one(codec_run *run, const char *path)
{
    const cli_options *opts = run->opts;
    int compress = opts->command == CLI_CMD_COMPRESS;
    int from_stdin = is_stdio_name(path);
    const char *display = from_stdin ? "stdin" : path;
    char *out_name = NULL;
    int to_stdout = 0;
    oc_algorithm hint_alg;
    oc_bitstream_kind hint_kind;
    cli_buffer in = {0}, result = {0};
    cli_output out = {.fd = -1};
    int rc = -1, in_fd = 0;
    uint8_t prefix[4];
    size_t prefix_n = 0;

    if (compress && !from_stdin && !opts->to_stdout && !opts->output) {
        /* zstd's habit: a file that already has the suffix is skipped */
        const char *suffix =
            cli_suffix(opts->num_algorithms ? opts->algorithms[0] : OC_ALGO_ZSTD, opts->kind);
        size_t pl = strlen(path), sl = strlen(suffix);
        if (pl > sl && strcmp(path + pl - sl, suffix) == 0) {
            cli_note(opts, 1, display, "already has %s suffix -- ignored", suffix);
            return 0;
        }
    }
    if (output_name(opts, path, display, &out_name, &to_stdout, &hint_alg, &hint_kind) != 0)
        return -1;
    if (from_stdin && isatty(0)) {
        cli_error(NULL, "stdin is a terminal: give a FILE, or pipe data in (see --help)");
        goto done;
    }
    if (to_stdout && compress && isatty(1) && !opts->force) {
        cli_error(display, "not writing compressed data to a terminal (use -o FILE, or -f)");
        goto done;
    }
    if (out_name && !from_stdin && same_file(path, out_name)) {
        cli_error(display, "input and output are the same file");
        goto done;
    }
    /* Refuse early, before any work, when the output exists (checked again
     * when the output is created). */
    struct stat ost;
    if (out_name && !opts->force && lstat(out_name, &ost) == 0) {
        cli_error(out_name, "already exists; not overwritten (use -f to overwrite)");
        goto done;
    }
    oc_buffer_options bo;
    fill_buffer_options(opts, &bo);
    if (compress) {
        char widths[32];
        if (!cli_type_fits(bo.algorithm, bo.typed.data_type, widths, sizeof widths)) {
            cli_error(display, "%s codes data types of %s bytes, not %s (--data-type)",
                      oc_algorithm_name(bo.algorithm), widths, oc_data_type_name(bo.typed.data_type));
            goto done;
        }
        if (bo.typed.algorithm_type > cli_max_algorithm_type(bo.algorithm)) {
            cli_error(display, "%s has no algorithm type %d (--algorithm-type: bitcomp only)",
                      oc_algorithm_name(bo.algorithm), bo.typed.algorithm_type);
            goto done;
        }
    }
    if (!from_stdin) {
        in_fd = open(path, O_RDONLY);
        if (in_fd < 0) {
            cli_error(display, "cannot open: %s", strerror(errno));
            goto done;
        }
    }
    uint64_t in_size = OC_SIZE_UNKNOWN;
    struct stat ist;
    if (fstat(in_fd, &ist) == 0) {
        if (S_ISDIR(ist.st_mode)) {
            cli_error(display, "is a directory");
            goto done;
        }
        if (S_ISREG(ist.st_mode))
            in_size = (uint64_t)ist.st_size;
    }
    oc_buffer_options hint = bo;
    if (!compress) {
        hint.algorithm = opts->num_algorithms ? opts->algorithms[0] : hint_alg;
        hint.kind = opts->kind_given ? opts->kind : hint_kind;
        if (cli_read_prefix(in_fd, prefix, sizeof prefix, &prefix_n, display) != 0)
            goto done;
    }
    /* The standard containers stream: memory bounded whatever the size. */
    int streaming = compress ? bo.kind == OC_BITSTREAM_NATIVE && cli_stream_algorithm(bo.algorithm)
                             : hint.kind == OC_BITSTREAM_NATIVE &&
                                   (hint.algorithm == OC_ALGO_NONE || cli_stream_algorithm(hint.algorithm)) &&
                                   cli_stream_magic(prefix, prefix_n);
    if (streaming) {
        rc = stream_one(run, path, display, in_fd, in_size, compress ? &bo : &hint, prefix, prefix_n,
                        to_stdout, out_name, from_stdin, &out);
        goto done;
    }
    if (cli_read_rest(in_fd, prefix, prefix_n, display, &in) != 0)
        goto done;

    run->progress.label = compress ? "compress  " : "decompress";
    run->progress.start = cli_now();
    run->progress.drawn = 0;
    run->progress_on = cli_progress_wanted(opts, in.size);
    if (compress) {
        uint64_t bound = oc_buffer_compress_bound(&bo, in.size);
        if (bound == 0 || bound > (uint64_t)SIZE_MAX) {
            cli_error(display, "cannot compress: invalid options for %s (chunk size %zu, level %d)",
                      oc_algorithm_name(bo.algorithm), bo.chunk_size, bo.level);
            goto done;
        }
        result.data = malloc((size_t)bound ? (size_t)bound : 1);
        if (!result.data) {
            cli_error(display, "out of memory for %llu bytes", (unsigned long long)bound);
            goto done;
        }
        uint64_t size = 0;
        oc_status st = oc_buffer_compress(run->ctx, &bo, in.data, in.size, result.data, bound, &size);
        cli_progress_end(&run->progress);
        if (st != OC_OK) {
            describe_failure(display, "cannot compress", st, UINT64_MAX);
            goto done;
        }
        result.size = (size_t)size;
    } else {
        int r = decode(run, &hint, &in, display, "cannot decompress", &result);
        cli_progress_end(&run->progress);
        if (r != 0)
            goto done;
        if (opts->command == CLI_CMD_TEST) {
            cli_note(opts, 2, display, "OK (%zu bytes)", result.size);
            rc = 0;
            goto done;
        }
    }
    run->progress_on = 0;

    if (cli_output_open(&out, to_stdout ? NULL : out_name, opts->force, display) != 0)
        goto done;
    if (cli_write_all(out.fd, result.data, result.size) != 0) {
        cli_error(to_stdout ? "stdout" : out_name, "write error: %s", strerror(errno));
        goto done;
    }
    int removing = opts->remove_input && !from_stdin && !to_stdout;
    if (removing && verify_written(run, &out, &result, &in, &bo) != 0)
        goto done;
    if (cli_output_commit(&out, from_stdin ? NULL : path) != 0)
        goto done;
    if (opts->remove_input && (from_stdin || to_stdout))
        cli_note(opts, 1, display, "--rm ignored: %s", from_stdin ? "input is stdin" : "output is stdout");
    if (removing && unlink(path) != 0)
        cli_error(display, "cannot remove input: %s", strerror(errno));
    else if (in.size || result.size)
        cli_note(opts, 2, display, "%zu -> %zu bytes (%s%s)", in.size, result.size,
                 to_stdout ? "stdout" : out_name, removing ? ", input removed" : "");
    rc = 0;
done:
    run->progress_on = 0;
    if (rc != 0)
        cli_output_abort(&out);
    if (in_fd > 0)
        close(in_fd);
    cli_buffer_free(&in);
    cli_buffer_free(&result);
    free(out_name);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* -r: every regular file under `path` (a directory), in name order, through
 * process_one; symbolic links are not followed.  Decompression takes only
 * files whose suffix it knows.  Returns non-zero if any failed. */
static int process_tree(codec_run *run, const char *path, int depth)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        cli_error(path, "cannot open: %s", strerror(errno));
        return 1;
    }
    if (S_ISLNK(st.st_mode) && depth > 0)
        return 0;
    if (!S_ISDIR(st.st_mode)) {
        if (depth > 0 && !S_ISREG(st.st_mode))
            return 0;
        if (depth > 0 && run->opts->command != CLI_CMD_COMPRESS) {
            oc_algorithm a;
            oc_bitstream_kind k;
            char *stripped = cli_strip_suffix(path, &a, &k);
            if (!stripped)
                return 0;
            free(stripped);
        }
        return process_one(run, path) != 0;
    }
    DIR *d = opendir(path);
    if (!d) {
        cli_error(path, "cannot open: %s", strerror(errno));
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int failed = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **p = realloc(names, cap * sizeof *p);
            if (!p) {
                failed = 1;
                break;
            }
            names = p;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n]) {
            failed = 1;
            break;
        }
        snprintf(names[n], len, "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    if (failed)
        cli_error(path, "out of memory");
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        failed |= process_tree(run, names[i], depth + 1);
        free(names[i]);
    }
    free(names);
    return failed;
}

int cli_codec_main(const cli_options *opts)
{
    codec_run run;
    memset(&run, 0, sizeof run);
    run.opts = opts;
    if (opts->num_algorithms && opts->command == CLI_CMD_COMPRESS &&
        !oc_algorithm_available(OC_ENGINE_CPU, opts->algorithms[0])) {
        cli_error(NULL, "%s: not available in this build", oc_algorithm_name(opts->algorithms[0]));
        return 1;
    }
    oc_context_options co = OC_CONTEXT_OPTIONS_INIT;
    co.engine = OC_ENGINE_CPU;
    co.num_threads = opts->threads;
    co.progress = progress_gate;
    co.progress_opaque = &run;
    oc_status st = oc_context_create(&co, &run.ctx);
    if (st != OC_OK) {
        cli_error(NULL, "cannot create a context: %s", oc_status_message(st));
        return 1;
    }
    int failed = 0;
    if (opts->num_files == 0) {
        failed |= process_one(&run, NULL) != 0;
    } else {
        for (int i = 0; i < opts->num_files; i++)
            failed |= opts->recursive && strcmp(opts->files[i], "-") != 0
                          ? process_tree(&run, opts->files[i], 0)
                          : process_one(&run, opts->files[i]) != 0;
    }
    oc_context_destroy(run.ctx);
    return failed ? 1 : 0;
}
