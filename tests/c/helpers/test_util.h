/*
 * test_util.h - shared helpers of the C tests: CHECK macros that print
 * file:line (and a hex dump of the first difference) and exit non-zero, a
 * deterministic PRNG, random and incompressible data, and a corpus of REAL
 * inputs found on the machine (license texts, a big ELF binary, this repo's
 * sources via OC_SOURCE_DIR, generated numeric columns), so that every test
 * runs on data with the statistics of real workloads, not on toy strings.
 *
 * Every helper that can fail aborts the test with a message: tests stay
 * short and linear.  Names are prefixed tu_.
 */
#ifndef OC_TEST_UTIL_H
#define OC_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "opencomp.h"
#include "tu_rng.h"

/* ---- checks: print file:line and exit(1) on failure -------------------- */

void tu_fail(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4), noreturn))
#endif
    ;

#define CHECK(cond)                                                                                          \
    do {                                                                                                     \
        if (!(cond))                                                                                         \
            tu_fail(__FILE__, __LINE__, "CHECK(%s) failed", #cond);                                          \
    } while (0)

/* CHECK_MSG(cond, fmt, ...): like CHECK with a formatted explanation. */
#define CHECK_MSG(cond, ...)                                                                                 \
    do {                                                                                                     \
        if (!(cond))                                                                                         \
            tu_fail(__FILE__, __LINE__, __VA_ARGS__);                                                        \
    } while (0)

/* Integers of any type, compared as long long / unsigned long long. */
#define CHECK_EQ(a, b)                                                                                       \
    do {                                                                                                     \
        long long tu_a_ = (long long)(a), tu_b_ = (long long)(b);                                            \
        if (tu_a_ != tu_b_)                                                                                  \
            tu_fail(__FILE__, __LINE__, "CHECK_EQ(%s, %s): %lld != %lld", #a, #b, tu_a_, tu_b_);             \
    } while (0)

#define CHECK_SIZE_EQ(a, b)                                                                                  \
    do {                                                                                                     \
        unsigned long long tu_a_ = (unsigned long long)(a), tu_b_ = (unsigned long long)(b);                 \
        if (tu_a_ != tu_b_)                                                                                  \
            tu_fail(__FILE__, __LINE__, "CHECK_SIZE_EQ(%s, %s): %llu != %llu", #a, #b, tu_a_, tu_b_);        \
    } while (0)

/* Statuses, printed by name. */
#define CHECK_STATUS(expr, expected)                                                                         \
    do {                                                                                                     \
        oc_status tu_got_ = (expr), tu_want_ = (expected);                                                   \
        if (tu_got_ != tu_want_)                                                                             \
            tu_fail(__FILE__, __LINE__, "%s: status %s (%d), expected %s (%d)", #expr,                       \
                    oc_status_name(tu_got_), (int)tu_got_, oc_status_name(tu_want_), (int)tu_want_);         \
    } while (0)

#define CHECK_OK(expr) CHECK_STATUS(expr, OC_OK)

/* Byte-exact comparison; on failure prints the offset of the first
 * difference and a hex dump of both sides around it. */
#define CHECK_MEM_EQ(a, b, n) tu_check_mem_eq(__FILE__, __LINE__, #a, #b, (a), (b), (n))
void tu_check_mem_eq(const char *file, int line, const char *an, const char *bn, const void *a, const void *b,
                     size_t n);

/* Hex dump of p[0..n) to stderr, addresses shown from `base_offset`. */
void tu_hexdump(const void *p, size_t n, size_t base_offset);

/* ---- memory ------------------------------------------------------------- */

/* malloc that never returns NULL (fails the test); size 0 gives a 1-byte
 * block so the pointer is always valid. */
void *tu_xmalloc(size_t size);

/* Guard bytes: fill with a pattern and check it is intact (a decoder that
 * writes past its slice breaks the pattern). */
#define TU_GUARD_BYTE 0xA5
void tu_fill_guard(void *p, size_t n);
#define CHECK_GUARD(p, n) tu_check_guard(__FILE__, __LINE__, (p), (n))
void tu_check_guard(const char *file, int line, const void *p, size_t n);

/* ---- deterministic PRNG (xorshift64*) and data generators -------------- */

/* tu_rng, tu_rng_seed, tu_rng_next, tu_rng_below: helpers/tu_rng.h */

/* Incompressible bytes. */
void tu_fill_random(void *p, size_t n, uint64_t seed);

/* A generated numeric column: n bytes of little-endian int64 values of a
 * slowly drifting random walk (compresses moderately, like real sensor or
 * price data). */
void tu_fill_numeric_column(void *p, size_t n, uint64_t seed);

/* ---- real inputs -------------------------------------------------------- */

typedef struct tu_buf {
    uint8_t *data; /* owned; free with tu_buf_free */
    size_t size;
    char name[96];
} tu_buf;

/* Reads at most max_bytes of `path` (0 = all).  Returns 0 on success, -1 if
 * the file cannot be opened (the buffer is then empty).  Read errors after
 * opening fail the test. */
int tu_read_file(const char *path, size_t max_bytes, tu_buf *out);
void tu_buf_free(tu_buf *b);

/* The corpus of real inputs, each at most max_bytes long:
 *   "text"    a license text from /usr/share/common-licenses (GPL-3, ...)
 *   "elf"     a big ELF binary (/usr/bin/cmake, else this test's own binary)
 *   "source"  this repo's include/opencomp.h (OC_SOURCE_DIR), else a text file
 *   "numeric" a generated int64 column
 *   "random"  incompressible bytes
 *   "zeros"   all zero bytes
 * Returns how many entries were written (at most `max`); each must be freed. */
#define TU_CORPUS_MAX 6
size_t tu_corpus(tu_buf *out, size_t max, size_t max_bytes);

/* One entry of the corpus by name (see above); fails the test if unknown. */
void tu_corpus_get(const char *name, size_t max_bytes, tu_buf *out);

/* Exactly `size` bytes of real data: the big ELF binary, repeated if it is
 * shorter than `size`. */
void tu_big_real(size_t size, tu_buf *out);

/* 1 if an LZ4 block that liblz4 decodes contains a match of offset 0
 * (liblz4 1.9.4 decodes it; opencomp's size query calls it CORRUPT). */
int tu_lz4_has_zero_offset(const uint8_t *block, size_t n);

/* Wall clock in seconds (for benchmarks only; tests never assert timings). */
double tu_now(void);

#endif /* OC_TEST_UTIL_H */
