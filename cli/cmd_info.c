/*
 * cmd_info.c - `opencomp info FILE...`: what oc_buffer_inspect learns from each
 * file's container without decoding payloads: container, algorithm,
 * chunks, sizes, ratio, whether an index and checksums are present.  One
 * "key: value" block per file, stable so scripts and tests can read it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char *kind_name(oc_bitstream_kind kind)
{
    switch (kind) {
    case OC_BITSTREAM_NATIVE:
        return "native";
    case OC_BITSTREAM_RAW:
        return "raw";
    case OC_BITSTREAM_WITH_UNCOMPRESSED_SIZE:
        return "size";
    }
    return "unknown";
}

static int info_one(const cli_options *opts, const char *path)
{
    const char *display = (path == NULL || strcmp(path, "-") == 0) ? "stdin" : path;
    cli_buffer in;
    if (strcmp(display, "stdin") == 0 && isatty(0)) {
        cli_error(NULL, "stdin is a terminal: give a FILE, or pipe data in (see --help)");
        return -1;
    }
    if (cli_read_all(path, display, &in) != 0)
        return -1;
    oc_buffer_options hint = OC_BUFFER_OPTIONS_INIT;
    oc_algorithm suffix_alg = OC_ALGO_NONE;
    oc_bitstream_kind suffix_kind = OC_BITSTREAM_NATIVE;
    if (strcmp(display, "stdin") != 0)
        free(cli_strip_suffix(path, &suffix_alg, &suffix_kind));
    hint.algorithm = opts->num_algorithms ? opts->algorithms[0] : suffix_alg;
    hint.kind = opts->kind_given ? opts->kind : suffix_kind;
    oc_frame_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    oc_status st = oc_buffer_inspect(in.data, in.size, &hint, &info);
    if (st != OC_OK) {
        cli_error(display, "cannot inspect: %s%s", oc_status_message(st),
                  cli_needs_algorithm_hint(st, &hint) ? " (raw LZ4, Snappy and deflate streams need -a)"
                                                      : "");
        cli_buffer_free(&in);
        return -1;
    }
    printf("%s\n", display);
    printf("  container:          %s\n", info.container ? info.container : "unknown");
    printf("  kind:               %s\n", kind_name(info.kind));
    printf("  algorithm:          %s\n",
           oc_algorithm_name(info.algorithm) ? oc_algorithm_name(info.algorithm) : "unknown");
    printf("  chunks:             %llu\n", (unsigned long long)info.num_chunks);
    printf("  file size:          %zu\n", in.size);
    printf("  compressed size:    %llu\n", (unsigned long long)info.compressed_size);
    if (info.size_known) {
        printf("  decompressed size:  %llu\n", (unsigned long long)info.decompressed_size);
        if (info.compressed_size)
            printf("  ratio:              %.3f\n",
                   (double)info.decompressed_size / (double)info.compressed_size);
        else
            printf("  ratio:              -\n");
    } else {
        printf("  decompressed size:  unknown\n");
        printf("  ratio:              unknown\n");
    }
    if (info.max_chunk_size)
        printf("  max chunk size:     %llu\n", (unsigned long long)info.max_chunk_size);
    printf("  indexed:            %s\n", info.indexed ? "yes" : "no");
    printf("  checksums:          %s\n", info.has_checksums ? "yes" : "no");
    cli_buffer_free(&in);
    return 0;
}

int cli_info_main(const cli_options *opts)
{
    int failed = 0;
    if (opts->num_files == 0)
        return info_one(opts, NULL) ? 1 : 0;
    for (int i = 0; i < opts->num_files; i++)
        failed |= info_one(opts, opts->files[i]) != 0;
    return failed ? 1 : 0;
}
