/*
 * main.c - entry point of the `opencomp` command: parse the command line,
 * check combinations that make no sense, run the subcommand.  Exit status:
 * 0 on success, 1 on any error (each error is one line on stderr).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static int check_combinations(const cli_options *opts)
{
    if (opts->output && opts->to_stdout) {
        cli_error(NULL, "-o and -c exclude each other");
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
