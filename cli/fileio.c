/*
 * fileio.c - how the command reads and writes files without ever losing
 * data: inputs are read whole into memory; outputs are written to a
 * temporary file in the destination folder and moved into place only after
 * everything succeeded (link(2), so an existing file is never replaced
 * unless -f asked for it).  A signal handler removes the temporary on
 * SIGINT, SIGTERM and SIGHUP, so an interrupted run leaves nothing behind;
 * only SIGKILL or a crash can, and the next run writing the same name says
 * so (report_leftovers).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif

/* The temporary file to remove if a signal arrives (empty = none). */
static char signal_temp_path[PATH_MAX + 64];

static void on_signal(int sig)
{
    if (signal_temp_path[0])
        unlink(signal_temp_path); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

void cli_install_signal_handlers(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa, old;
        /* A signal the parent ignores (nohup, background jobs) stays ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

/* Sets or clears the path the signal handler removes, with signals blocked
 * so the handler never sees a half-written path. */
static void set_signal_temp(const char *path)
{
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    if (path && strlen(path) < sizeof signal_temp_path)
        strcpy(signal_temp_path, path);
    else
        signal_temp_path[0] = '\0';
    sigprocmask(SIG_SETMASK, &old, NULL);
}

int cli_read_all(const char *path, const char *display, cli_buffer *buf)
{
    int fd = 0;
    int is_stdin = (path == NULL || strcmp(path, "-") == 0);
    buf->data = NULL;
    buf->size = 0;
    if (!is_stdin) {
        fd = open(path, O_RDONLY);
        if (fd < 0) {
            cli_error(display, "cannot open: %s", strerror(errno));
            return -1;
        }
    }
    struct stat st;
    size_t cap = 1 << 20;
    if (fstat(fd, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            cli_error(display, "is a directory");
            goto fail;
        }
        if (S_ISREG(st.st_mode))
            cap = (size_t)st.st_size + 1; /* +1: EOF seen without a regrow */
    }
    buf->data = malloc(cap);
    if (!buf->data) {
        cli_error(display, "out of memory reading %zu bytes", cap);
        goto fail;
    }
    for (;;) {
        if (buf->size == cap) {
            size_t ncap = cap * 2;
            uint8_t *p = ncap > cap ? realloc(buf->data, ncap) : NULL;
            if (!p) {
                cli_error(display, "out of memory reading input");
                goto fail;
            }
            buf->data = p;
            cap = ncap;
        }
        ssize_t n = read(fd, buf->data + buf->size, cap - buf->size);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            cli_error(display, "read error: %s", strerror(errno));
            goto fail;
        }
        if (n == 0)
            break;
        buf->size += (size_t)n;
    }
    if (!is_stdin)
        close(fd);
    return 0;
fail:
    if (!is_stdin && fd >= 0)
        close(fd);
    free(buf->data);
    buf->data = NULL;
    buf->size = 0;
    return -1;
}

void cli_buffer_free(cli_buffer *buf)
{
    free(buf->data);
    buf->data = NULL;
    buf->size = 0;
}

int cli_write_all(int fd, const void *data, size_t n)
{
    const uint8_t *p = data;
    while (n > 0) {
        size_t step = n > ((size_t)1 << 30) ? ((size_t)1 << 30) : n;
        ssize_t w = write(fd, p, step);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* How many bytes of the output's name go into its temporary's name: all
 * that fit the folder's limit on names with the 15 bytes added. */
static size_t temp_name_keep(const char *final_path, size_t dirlen, size_t base_len)
{
    char folder[PATH_MAX + 1];
    snprintf(folder, sizeof folder, "%.*s", dirlen ? (int)dirlen : 1, dirlen ? final_path : ".");
    long name_max = pathconf(folder, _PC_NAME_MAX);
    if (name_max <= 0)
        name_max = 255;
    size_t room = (size_t)name_max > 15 ? (size_t)name_max - 15 : 1;
    return base_len < room ? base_len : room;
}

/* Temporaries of this output's name left by a run that could not clean up
 * (kill -9, power loss): said once, never removed (another run may own
 * them).  pattern: the temp path, its dirlen and kept name length. */
static void report_leftovers(const char *pattern, size_t dirlen, size_t keep, const char *final_path)
{
    char folder[PATH_MAX + 1];
    snprintf(folder, sizeof folder, "%.*s", dirlen ? (int)dirlen : 1, dirlen ? pattern : ".");
    const char *prefix = pattern + dirlen; /* ".NAME.oc-tmp-XXXXXX" */
    size_t plen = 1 + keep + strlen(".oc-tmp-");
    DIR *d = opendir(folder);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strlen(e->d_name) == plen + 6 && strncmp(e->d_name, prefix, plen) == 0)
            cli_error(final_path,
                      "warning: %.*s%s was left by an interrupted run (kill -9, a crash); remove it once no "
                      "opencomp is writing %s",
                      (int)dirlen, pattern, e->d_name, final_path);
    }
    closedir(d);
}

int cli_output_open(cli_output *out, const char *final_path, int force, const char *display)
{
    out->fd = -1;
    out->final_path = NULL;
    out->temp_path = NULL;
    out->force = force;
    if (!final_path) {
        out->fd = 1;
        return 0;
    }
    struct stat st;
    if (lstat(final_path, &st) == 0) {
        if (!force) {
            cli_error(final_path, "already exists; not overwritten (use -f to overwrite)");
            return -1;
        }
        if (S_ISDIR(st.st_mode)) {
            cli_error(final_path, "is a directory");
            return -1;
        }
    }
    /* The temporary lives in the destination folder so rename is atomic:
     * ".NAME.oc-tmp-XXXXXX", NAME cut so the whole fits the folder's name
     * limit (issue 11 item 13: names of 237-251 bytes failed). */
    const char *slash = strrchr(final_path, '/');
    size_t dirlen = slash ? (size_t)(slash - final_path) + 1 : 0;
    const char *base = slash ? slash + 1 : final_path;
    size_t keep = temp_name_keep(final_path, dirlen, strlen(base));
    if (keep + 15 < strlen(base)) { /* the name itself is over the folder's limit */
        cli_error(display, "output name of %zu bytes is longer than the folder allows (%zu); use -o or -c",
                  strlen(base), keep + 15);
        return -1;
    }
    size_t len = dirlen + 1 + keep + sizeof ".oc-tmp-XXXXXX";
    out->final_path = strdup(final_path);
    out->temp_path = malloc(len);
    if (!out->final_path || !out->temp_path) {
        cli_error(display, "out of memory");
        cli_output_abort(out);
        return -1;
    }
    snprintf(out->temp_path, len, "%.*s.%.*s.oc-tmp-XXXXXX", (int)dirlen, final_path, (int)keep, base);
    report_leftovers(out->temp_path, dirlen, keep, final_path);
    /* Block signals from mkstemp until the handler knows the name. */
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    out->fd = mkstemp(out->temp_path);
    int err = errno;
    if (out->fd >= 0)
        set_signal_temp(out->temp_path);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (out->fd < 0) {
        cli_error(final_path, "cannot create output: %s", strerror(err));
        free(out->temp_path);
        out->temp_path = NULL;
        cli_output_abort(out);
        return -1;
    }
    return 0;
}

void cli_output_abort(cli_output *out)
{
    if (out->temp_path) {
        if (out->fd >= 0)
            close(out->fd);
        unlink(out->temp_path);
        set_signal_temp(NULL);
    }
    out->fd = -1;
    free(out->temp_path);
    free(out->final_path);
    out->temp_path = NULL;
    out->final_path = NULL;
}

int cli_output_commit(cli_output *out, const char *like_path)
{
    if (!out->temp_path)
        return 0; /* stdout: nothing to move */
    struct stat st;
    if (like_path && stat(like_path, &st) == 0) {
        fchmod(out->fd, st.st_mode & 0777);
        struct timespec times[2] = {st.st_atim, st.st_mtim};
        futimens(out->fd, times);
    } else {
        mode_t mask = umask(0);
        umask(mask);
        fchmod(out->fd, 0666 & ~mask);
    }
    if (fsync(out->fd) != 0 && errno != EINVAL && errno != EROFS) {
        cli_error(out->final_path, "cannot write output: %s", strerror(errno));
        cli_output_abort(out);
        return -1;
    }
    if (close(out->fd) != 0) {
        out->fd = -1;
        cli_error(out->final_path, "cannot write output: %s", strerror(errno));
        cli_output_abort(out);
        return -1;
    }
    out->fd = -1;
    /* link() never replaces an existing file: a file that appeared since the
     * check is kept.  With -f, or where hard links are unsupported, rename. */
    if (link(out->temp_path, out->final_path) == 0) {
        unlink(out->temp_path);
    } else if (errno == EEXIST && !out->force) {
        cli_error(out->final_path, "already exists; not overwritten (use -f to overwrite)");
        cli_output_abort(out);
        return -1;
    } else if (rename(out->temp_path, out->final_path) != 0) {
        cli_error(out->final_path, "cannot rename output into place: %s", strerror(errno));
        cli_output_abort(out);
        return -1;
    }
    set_signal_temp(NULL);
    free(out->temp_path);
    free(out->final_path);
    out->temp_path = NULL;
    out->final_path = NULL;
    return 0;
}
