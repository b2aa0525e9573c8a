/*
 * soft_check.h - checks that count failures and carry on, for the tests whose
 * GPU runs should report every failing case in one go (a device run is
 * scarce): CHECK(cond) and EXPECT(cond, fmt, ...) count into g_failures,
 * REQUIRE(cond) stops the test.  main() ends with `return g_failures != 0`.
 * A test includes this header or test_util.h (whose CHECK stops at once),
 * never both.
 */
#ifndef OC_SOFT_CHECK_H
#define OC_SOFT_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int g_failures;

#define CHECK(cond)                                                                                          \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                         \
            g_failures++;                                                                                    \
        }                                                                                                    \
    } while (0)

#define EXPECT(cond, ...)                                                                                    \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            g_failures++;                                                                                    \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                             \
            fprintf(stderr, __VA_ARGS__);                                                                    \
            fprintf(stderr, "\n");                                                                           \
        }                                                                                                    \
    } while (0)

#define REQUIRE(cond)                                                                                        \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond);                       \
            exit(1);                                                                                         \
        }                                                                                                    \
    } while (0)

#endif /* OC_SOFT_CHECK_H */
