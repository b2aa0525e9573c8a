/*
 * test_util.c - implementation of the shared C test helpers (test_util.h):
 * failure reporting with hex dumps, guard bytes, a deterministic PRNG, and
 * loading the corpus of real files present on any Debian machine.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"

#include <stdarg.h>
#include <string.h>
#include <time.h>

void tu_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s:%d: FAIL: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fflush(stderr);
    exit(1);
}

void tu_hexdump(const void *p, size_t n, size_t base_offset)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i += 16) {
        fprintf(stderr, "  %08zx:", base_offset + i);
        for (size_t j = i; j < i + 16 && j < n; j++)
            fprintf(stderr, " %02x", b[j]);
        fputc('\n', stderr);
    }
}

void tu_check_mem_eq(const char *file, int line, const char *an, const char *bn, const void *a, const void *b,
                     size_t n)
{
    if (n == 0 || memcmp(a, b, n) == 0)
        return;
    const uint8_t *x = a, *y = b;
    size_t i = 0;
    while (x[i] == y[i])
        i++;
    size_t from = i >= 16 ? (i - 16) & ~(size_t)15 : 0;
    size_t len = n - from < 64 ? n - from : 64;
    fprintf(stderr, "%s:%d: FAIL: CHECK_MEM_EQ(%s, %s, %zu): first difference at offset %zu\n", file, line,
            an, bn, n, i);
    fprintf(stderr, " %s:\n", an);
    tu_hexdump(x + from, len, from);
    fprintf(stderr, " %s:\n", bn);
    tu_hexdump(y + from, len, from);
    fflush(stderr);
    exit(1);
}

void *tu_xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        tu_fail(__FILE__, __LINE__, "out of memory allocating %zu bytes", size);
    return p;
}

void tu_fill_guard(void *p, size_t n)
{
    memset(p, TU_GUARD_BYTE, n);
}

void tu_check_guard(const char *file, int line, const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) {
        if (b[i] != TU_GUARD_BYTE) {
            fprintf(stderr, "%s:%d: FAIL: guard byte %zu of %zu overwritten (0x%02x)\n", file, line, i, n,
                    b[i]);
            tu_hexdump(b + (i & ~(size_t)15), n - (i & ~(size_t)15) < 48 ? n - (i & ~(size_t)15) : 48,
                       i & ~(size_t)15);
            fflush(stderr);
            exit(1);
        }
    }
}

void tu_rng_seed(tu_rng *r, uint64_t seed)
{
    r->state = seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
}

uint64_t tu_rng_next(tu_rng *r)
{
    uint64_t x = r->state;
    if (x == 0)
        x = 0x2545F4914F6CDD1Dull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    r->state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

uint64_t tu_rng_below(tu_rng *r, uint64_t bound)
{
    return bound ? tu_rng_next(r) % bound : 0;
}

void tu_fill_random(void *p, size_t n, uint64_t seed)
{
    tu_rng r;
    tu_rng_seed(&r, seed);
    uint8_t *b = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t v = tu_rng_next(&r);
        memcpy(b + i, &v, 8);
    }
    if (i < n) {
        uint64_t v = tu_rng_next(&r);
        memcpy(b + i, &v, n - i);
    }
}

void tu_fill_numeric_column(void *p, size_t n, uint64_t seed)
{
    tu_rng r;
    tu_rng_seed(&r, seed);
    uint8_t *b = p;
    int64_t v = 1000000;
    for (size_t i = 0; i < n; i += 8) {
        v += (int64_t)tu_rng_below(&r, 201) - 100;
        uint8_t le[8];
        for (int k = 0; k < 8; k++)
            le[k] = (uint8_t)((uint64_t)v >> (8 * k));
        memcpy(b + i, le, n - i < 8 ? n - i : 8);
    }
}

int tu_read_file(const char *path, size_t max_bytes, tu_buf *out)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->name, sizeof(out->name), "%s", path);
    FILE *f = fopen(path, "rb");
    if (!f) {
        out->data = tu_xmalloc(1);
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    uint8_t *data = tu_xmalloc(cap);
    for (;;) {
        if (max_bytes && len >= max_bytes)
            break;
        if (len == cap) {
            cap *= 2;
            data = realloc(data, cap);
            if (!data)
                tu_fail(__FILE__, __LINE__, "out of memory reading %s", path);
        }
        size_t want = cap - len;
        if (max_bytes && want > max_bytes - len)
            want = max_bytes - len;
        size_t got = fread(data + len, 1, want, f);
        len += got;
        if (got < want) {
            if (ferror(f))
                tu_fail(__FILE__, __LINE__, "read error on %s", path);
            break;
        }
    }
    fclose(f);
    out->data = data;
    out->size = len;
    return 0;
}

void tu_buf_free(tu_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->size = 0;
}

static int try_files(const char *const *paths, size_t max_bytes, size_t min_size, tu_buf *out)
{
    for (size_t i = 0; paths[i]; i++) {
        if (tu_read_file(paths[i], max_bytes, out) == 0 && out->size >= min_size)
            return 0;
        tu_buf_free(out);
    }
    return -1;
}

void tu_corpus_get(const char *name, size_t max_bytes, tu_buf *out)
{
    memset(out, 0, sizeof(*out));
    if (strcmp(name, "text") == 0) {
        static const char *const paths[] = {"/usr/share/common-licenses/GPL-3",
                                            "/usr/share/common-licenses/GPL-2",
                                            "/usr/share/common-licenses/Apache-2.0", NULL};
        if (try_files(paths, max_bytes, 1, out) != 0)
            tu_fail(__FILE__, __LINE__, "no license text found in /usr/share/common-licenses");
    } else if (strcmp(name, "elf") == 0) {
        static const char *const paths[] = {"/usr/bin/cmake", "/usr/bin/ctest", "/proc/self/exe", NULL};
        if (try_files(paths, max_bytes, 1, out) != 0)
            tu_fail(__FILE__, __LINE__, "no ELF binary found");
    } else if (strcmp(name, "source") == 0) {
#ifdef OC_SOURCE_DIR
        static const char *const paths[] = {OC_SOURCE_DIR "/include/opencomp.h",
                                            "/usr/share/common-licenses/BSD", NULL};
#else
        static const char *const paths[] = {"/usr/share/common-licenses/BSD", NULL};
#endif
        if (try_files(paths, max_bytes, 1, out) != 0)
            tu_fail(__FILE__, __LINE__, "no source file found");
    } else if (strcmp(name, "numeric") == 0 || strcmp(name, "random") == 0 || strcmp(name, "zeros") == 0) {
        size_t n = max_bytes ? max_bytes : (size_t)1 << 20;
        out->data = tu_xmalloc(n);
        out->size = n;
        if (name[0] == 'n')
            tu_fill_numeric_column(out->data, n, 42);
        else if (name[0] == 'r')
            tu_fill_random(out->data, n, 7);
        else
            memset(out->data, 0, n);
    } else {
        tu_fail(__FILE__, __LINE__, "unknown corpus entry %s", name);
    }
    snprintf(out->name, sizeof(out->name), "%s", name);
}

size_t tu_corpus(tu_buf *out, size_t max, size_t max_bytes)
{
    static const char *const names[TU_CORPUS_MAX] = {"text", "elf", "source", "numeric", "random", "zeros"};
    size_t n = 0;
    for (; n < max && n < TU_CORPUS_MAX; n++)
        tu_corpus_get(names[n], max_bytes, &out[n]);
    return n;
}

void tu_big_real(size_t size, tu_buf *out)
{
    tu_buf elf;
    tu_corpus_get("elf", size, &elf);
    if (elf.size == 0)
        tu_fail(__FILE__, __LINE__, "empty ELF file");
    out->data = tu_xmalloc(size);
    out->size = size;
    snprintf(out->name, sizeof(out->name), "elf%zu", size);
    for (size_t off = 0; off < size; off += elf.size)
        memcpy(out->data + off, elf.data, size - off < elf.size ? size - off : elf.size);
    tu_buf_free(&elf);
}

double tu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* liblz4 1.9.4 decodes a match with offset 0 (copying bytes onto
 * themselves); the block format spec calls offset 0 invalid and so does
 * opencomp.  This walks the sequences (input liblz4 decodes) to find one. */
int tu_lz4_has_zero_offset(const uint8_t *ip, size_t n)
{
    const uint8_t *e = ip + n;
    while (ip < e) {
        unsigned t = *ip++, s;
        size_t lit = t >> 4;
        if (lit == 15)
            do {
                s = *ip++;
                lit += s;
            } while (s == 255);
        ip += lit;
        if (ip >= e)
            return 0;
        if (ip[0] == 0 && ip[1] == 0)
            return 1;
        ip += 2;
        if ((t & 15) == 15)
            do {
                s = *ip++;
            } while (s == 255);
    }
    return 0;
}
