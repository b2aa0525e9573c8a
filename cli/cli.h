/*
 * cli.h - what the parts of the `opencomp` command share: the parsed
 * options, the error printer, file helpers and the entry point of each
 * subcommand.  The command uses only the public API of opencomp.h; nothing
 * here is exported (internal functions carry the cli_ prefix).
 */
#ifndef OC_CLI_H
#define OC_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "opencomp.h"

#define CLI_MAX_ALGOS 16
#define CLI_MAX_CHUNK_SIZES 8

typedef enum cli_command {
    CLI_CMD_NONE = 0,
    CLI_CMD_COMPRESS,
    CLI_CMD_DECOMPRESS,
    CLI_CMD_INFO,
    CLI_CMD_BENCH,
    CLI_CMD_TEST /* -t: decompress, check, write nothing */
} cli_command;

/* Everything the command line says.  Defaults are set by cli_parse_args. */
typedef struct cli_options {
    cli_command command;
    int explicit_command;                   /* a command word or -d/-z/-t/-l was given */
    oc_algorithm algorithms[CLI_MAX_ALGOS]; /* compress uses [0]; bench the whole list */
    int num_algorithms;                     /* 0 = not given */
    int level;                              /* 0 = default */
    int level_given;
    int ultra;                               /* --ultra: zstd levels above 19 */
    size_t chunk_sizes[CLI_MAX_CHUNK_SIZES]; /* compress uses [0]; bench the whole list */
    int num_chunk_sizes;                     /* 0 = not given */
    int threads;                             /* 0 = all cores */
    oc_checksum_policy checksum;
    oc_bitstream_kind kind;
    int kind_given;
    const char *output;     /* -o FILE, or NULL */
    int to_stdout;          /* -c */
    int force;              /* -f */
    int remove_input;       /* --rm */
    int recursive;          /* -r: the files under directory operands */
    int verbosity;          /* 0 = -q, 1 = normal, 2+ = -v */
    uint64_t memory_limit;  /* --memory: zstd window limit of the size count (0 = the library's default) */
    oc_typed_options typed; /* --data-type, --num-rles, --num-deltas, --bitpack, --layers */
    int layers[3];          /* --num-rles, --num-deltas, --bitpack as given (-1: not given) */
    int repeat;             /* bench --repeat */
    const char *json_path;  /* bench --json */
    char **files;           /* operands ("-" = stdin) */
    int num_files;
} cli_options;

/* cli_parse_args fills *opts from argv.  Returns 0 to go on, 1 after an
 * error (already printed), 2 when --help/--version was served (exit 0). */
int cli_parse_args(int argc, char **argv, cli_options *opts);

/* cli_parse_size parses "65536", "64K", "1M", "1G" (binary units) into
 * *out; returns 0 on success, -1 on a malformed or zero size. */
int cli_parse_size(const char *text, size_t *out);

/* cli_algorithm_list writes the library's algorithm names, space
 * separated ("lz4 snappy ... cascaded"), into buf. */
void cli_algorithm_list(char *buf, size_t cap);

/* cli_type_fits returns 1 when `algorithm` takes data type `type` (its
 * table row's type_widths, oc_algorithm_info), else 0 with the accepted
 * element sizes written to buf ("1 or 2"). */
int cli_type_fits(oc_algorithm algorithm, oc_data_type type, char *buf, size_t cap);

/* cli_max_algorithm_type returns the largest oc_typed_options
 * algorithm_type `algorithm` takes (oc_algorithm_info; 0 for most). */
int cli_max_algorithm_type(oc_algorithm algorithm);

/* cli_error prints ONE line "opencomp: WHAT: message" to stderr (WHAT may
 * be NULL, then "opencomp: message"). */
void cli_error(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* cli_note prints "opencomp: WHAT: message" when verbosity >= level. */
void cli_note(const cli_options *opts, int level, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* ---- file I/O (fileio.c) ---------------------------------------------- */

/* A whole input in memory. */
typedef struct cli_buffer {
    uint8_t *data;
    size_t size;
} cli_buffer;

/* cli_read_all reads a whole file ("-" or NULL = stdin) into *buf (owned by
 * the caller; free with cli_buffer_free).  On failure prints one error line
 * naming `display` and returns -1. */
int cli_read_all(const char *path, const char *display, cli_buffer *buf);
void cli_buffer_free(cli_buffer *buf);

/* cli_write_all writes n bytes to fd; returns 0 or -1 with errno set. */
int cli_write_all(int fd, const void *data, size_t n);

/* Safe output: data goes to a temporary file beside `final_path`, which is
 * renamed over final_path only by cli_output_commit.  A signal handler
 * removes the temporary file on SIGINT/SIGTERM/SIGHUP. */
typedef struct cli_output {
    int fd;
    char *final_path; /* NULL for stdout */
    char *temp_path;
    int force;
} cli_output;

/* cli_output_open prepares an output: final_path NULL means stdout.  Fails
 * (error printed, -1) when final_path exists and !force. */
int cli_output_open(cli_output *out, const char *final_path, int force, const char *display);
/* cli_output_commit fsyncs, applies mode/times of `like_path` (may be NULL)
 * and renames the temporary into place; -1 (error printed) on failure,
 * the temporary then removed. */
int cli_output_commit(cli_output *out, const char *like_path);
/* cli_output_abort removes the temporary (if any) and frees the paths. */
void cli_output_abort(cli_output *out);
/* cli_install_signal_handlers arms the temp-file cleanup on signals. */
void cli_install_signal_handlers(void);

/* ---- subcommands -------------------------------------------------------- */

int cli_codec_main(const cli_options *opts); /* compress and decompress; returns the exit code */
/* cli_needs_algorithm_hint: decoding failed in a way that a missing -a
 * explains (no algorithm known, stream not self-identifying). */
int cli_needs_algorithm_hint(oc_status st, const oc_buffer_options *hint);
int cli_info_main(const cli_options *opts);
int cli_bench_main(const cli_options *opts);

/* ---- naming (names.c) --------------------------------------------------- */

/* cli_suffix returns the file suffix written for (algorithm, kind):
 * ".zst", ".lz4", ".gz", ".sz" for NATIVE, ".raw" for RAW, ".sized" for
 * WITH_UNCOMPRESSED_SIZE. */
const char *cli_suffix(oc_algorithm algorithm, oc_bitstream_kind kind);
/* cli_strip_suffix: for a known suffix, returns a malloc'd name without it
 * and fills *hint_algorithm / *hint_kind (NONE / NATIVE when the suffix does
 * not say); NULL when the suffix is unknown. */
char *cli_strip_suffix(const char *path, oc_algorithm *hint_algorithm, oc_bitstream_kind *hint_kind);

/* ---- progress (progress.c) ---------------------------------------------- */

/* Threshold above which a progress bar is shown on a terminal. */
#define CLI_PROGRESS_MIN_BYTES ((uint64_t)64 << 20)

typedef struct cli_progress {
    const char *label;
    double start; /* monotonic seconds */
    double last_draw;
    int drawn;
} cli_progress;

/* cli_progress_wanted: stderr is a terminal, not quiet, input big enough. */
int cli_progress_wanted(const cli_options *opts, uint64_t bytes);
/* oc_progress_fn-compatible callback; opaque is a cli_progress. */
int cli_progress_cb(void *opaque, uint64_t done_bytes, uint64_t total_bytes);
/* cli_progress_end erases the bar if one was drawn. */
void cli_progress_end(cli_progress *p);

/* cli_now returns monotonic seconds. */
double cli_now(void);

/* ---- streaming (stream_codec.c) ---------------------------------------- */

/* 1 when `a` has a standard NATIVE container the streaming layer writes. */
int cli_stream_algorithm(oc_algorithm a);
/* 1 when the first n bytes start a container the stream reader reads. */
int cli_stream_magic(const uint8_t *p, size_t n);
/* Reads up to `want` bytes from fd (fewer only at end of input); -1 after
 * printing a read error. */
int cli_read_prefix(int fd, uint8_t *buf, size_t want, size_t *got, const char *display);
/* The rest of fd after `prefix` (already read from it), into *buf. */
int cli_read_rest(int fd, const uint8_t *prefix, size_t prefix_n, const char *display, cli_buffer *buf);
/* Compresses in_fd to out_fd through a stream writer (pledged: the input's
 * size, or OC_SIZE_UNKNOWN); progress may be NULL.  0, or -1 after
 * printing one error line. */
int cli_stream_compress(oc_context *ctx, const oc_buffer_options *bo, int in_fd, uint64_t pledged, int out_fd,
                        const char *display, const char *out_display, cli_progress *progress,
                        uint64_t *in_bytes, uint64_t *out_bytes);
/* Decompresses in_fd (after `prefix`, already read from it) to out_fd
 * through a stream reader; warns about trailing bytes after gzip data as
 * gzip does. */
int cli_stream_decompress(const cli_options *opts, oc_context *ctx, const oc_buffer_options *hint, int in_fd,
                          const uint8_t *prefix, size_t prefix_n, int out_fd, const char *display,
                          const char *out_display, cli_progress *progress, uint64_t in_total,
                          uint64_t *in_bytes, uint64_t *out_bytes);
/* --rm: decodes compressed_path again and compares it with plain_path, a
 * group at a time; -1 after printing "verification failed: <mismatch>". */
int cli_stream_verify(oc_context *ctx, const oc_buffer_options *hint, const char *compressed_path,
                      const char *plain_path, const char *name, const char *mismatch);

#endif /* OC_CLI_H */
