/*
 * main.c - entry point of the `opencomp` command: parse the command line,
 * check combinations that make no sense, run the subcommand.  Exit status:
 * 0 on success, 1 on any error (each error is one line on stderr).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Levels are checked here, once the algorithm is known, with the range
 * the library gives (zstd above 19 only with --ultra, as zstd asks). */
static int check_level(const cli_options *opts)
{
    if (!opts->level_given || opts->level == 0 || opts->command != CLI_CMD_COMPRESS)
        return 0;
    oc_algorithm a = opts->num_algorithms ? opts->algorithms[0] : OC_ALGO_ZSTD;
    oc_algorithm_info info = OC_ALGORITHM_INFO_INIT;
    if (oc_algorithm_get_info(a, &info) != OC_OK || !info.has_levels)
        return 0;
    if (opts->level < info.min_level || opts->level > info.max_level) {
        cli_error(NULL, "invalid level %d for %s (valid: %d..%d, 0 = default %d)", opts->level, info.name,
                  info.min_level, info.max_level, info.default_level);
        return -1;
    }
    if (a == OC_ALGO_ZSTD && opts->level > 19 && !opts->ultra) {
        cli_error(NULL, "zstd level %d needs --ultra (levels 20..22 use much more memory)", opts->level);
        return -1;
    }
    return 0;
}

static int check_combinations(const cli_options *opts)
{
    if (check_level(opts) != 0)
        return -1;
    if (opts->output && opts->to_stdout) {
        cli_error(NULL, "-o and -c exclude each other");
        return -1;
    }
    if (opts->output && opts->recursive) {
        cli_error(NULL, "-o and -r exclude each other");
        return -1;
    }
    if (opts->output && opts->num_files > 1) {
        cli_error(NULL, "-o needs exactly one input file");
        return -1;
    }
    if (opts->command != CLI_CMD_BENCH) {
        if (opts->num_algorithms > 1) {
            cli_error(NULL, "one algorithm only (lists are for bench)");
            return -1;
        }
        if (opts->num_chunk_sizes > 1) {
            cli_error(NULL, "one chunk size only (lists are for bench)");
            return -1;
        }
        if (opts->json_path) {
            cli_error(NULL, "--json is for bench");
            return -1;
        }
    }
    return 0;
}

int main(int argc, char **argv)
{
    cli_options opts;
    int r = cli_parse_args(argc, argv, &opts);
    /* Called as unopencomp or opencompcat (links to the command), it
     * decompresses, as unzstd and zstdcat do; opencompcat to stdout. */
    const char *self = argc > 0 ? strrchr(argv[0], '/') : NULL;
    self = self ? self + 1 : argc > 0 ? argv[0] : "";
    int unalias = !strcmp(self, "unopencomp"), cat = !strcmp(self, "opencompcat");
    if (r == 0 && (unalias || cat) && opts.command == CLI_CMD_COMPRESS && !opts.explicit_command)
        opts.command = CLI_CMD_DECOMPRESS;
    if (r == 0 && cat)
        opts.to_stdout = 1;
    if (r != 0) {
        free(opts.files);
        return r == 2 ? 0 : 1;
    }
    if (check_combinations(&opts) != 0) {
        free(opts.files);
        return 1;
    }
    int code;
    switch (opts.command) {
    case CLI_CMD_INFO:
        code = cli_info_main(&opts);
        break;
    case CLI_CMD_BENCH:
        code = cli_bench_main(&opts);
        break;
    default:
        cli_install_signal_handlers();
        code = cli_codec_main(&opts);
        break;
    }
    if (fflush(stdout) != 0 && code == 0) {
        cli_error("stdout", "write failed");
        code = 1;
    }
    free(opts.files);
    return code;
}
