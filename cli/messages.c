/*
 * messages.c - how every part of the `opencomp` command talks to the user:
 * one error line on stderr (cli_error), notes by verbosity (cli_note), and
 * the monotonic clock the progress bar and bench use.  Apart from main.c,
 * so that no part depends on the entry point.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "cli.h"

void cli_error(const char *what, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    fputs("opencomp: ", stderr);
    if (what)
        fprintf(stderr, "%s: ", what);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

void cli_note(const cli_options *opts, int level, const char *what, const char *fmt, ...)
{
    if (opts->verbosity < level)
        return;
    va_list ap;
    fputs("opencomp: ", stderr);
    if (what)
        fprintf(stderr, "%s: ", what);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
