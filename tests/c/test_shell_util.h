/*
 * test_shell_util.h - what the interop tests that drive the stock command-line
 * tools share (test_interop_cli.c, test_interop_snappy.c): a scratch folder,
 * a shell runner that reports the failing command, and file helpers whose
 * reads come back in exactly-sized buffers so ASan sees any overread.
 * Header-only, like test_buffer_util.h.
 */
#ifndef OC_TEST_SHELL_UTIL_H
#define OC_TEST_SHELL_UTIL_H

#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_buffer_util.h"

/* the scratch folder (mkdtemp'd by the test) every helper works in */
static char dir[256];

static inline int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int run(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int r = system(cmd);
    if (r != 0)
        fprintf(stderr, "command failed (%d): %s\n", r, cmd);
    return r;
}

static inline void write_file(const char *name, const void *p, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f)
        return;
    CHECK(fwrite(p, 1, n, f) == n);
    fclose(f);
}

static inline unsigned char *read_file(const char *name, size_t *n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unsigned char *buf = NULL;
    *n = 0;
    tb_append_file(&buf, n, path, (size_t)1 << 31);
    unsigned char *exact = tb_copy(buf ? buf : (unsigned char *)"", *n);
    free(buf);
    return exact;
}

#endif /* OC_TEST_SHELL_UTIL_H */
