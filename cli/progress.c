/*
 * progress.c - the progress bar: drawn on stderr, only when stderr is a
 * terminal, the input is over 64 MiB and -q was not given; fed by the
 * library's throttled oc_context_options.progress callback.  Redraws at
 * most ten times a second and erases itself at the end.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <unistd.h>

#include "cli.h"

int cli_progress_wanted(const cli_options *opts, uint64_t bytes)
{
    return opts->verbosity > 0 && bytes > CLI_PROGRESS_MIN_BYTES && isatty(2);
}

int cli_progress_cb(void *opaque, uint64_t done_bytes, uint64_t total_bytes)
{
    cli_progress *p = opaque;
    double now = cli_now();
    if (p->drawn && now - p->last_draw < 0.1 && done_bytes < total_bytes)
        return 0;
    p->last_draw = now;
    double secs = now - p->start;
    double mib = (double)done_bytes / (1024.0 * 1024.0);
    double rate = secs > 0 ? mib / secs : 0.0;
    enum { WIDTH = 30 };
    char bar[WIDTH + 1];
    double frac = total_bytes ? (double)done_bytes / (double)total_bytes : 0.0;
    if (frac > 1.0)
        frac = 1.0;
    int fill = (int)(frac * WIDTH);
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[WIDTH] = '\0';
    if (total_bytes)
        fprintf(stderr, "\r%s [%s] %3d%% %8.1f MiB/s ", p->label, bar, (int)(frac * 100.0), rate);
    else
        fprintf(stderr, "\r%s %.1f MiB %8.1f MiB/s ", p->label, mib, rate);
    fflush(stderr);
    p->drawn = 1;
    return 0;
}

void cli_progress_end(cli_progress *p)
{
    if (p->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->drawn = 0;
    }
}
