/*
 * tu_rng.h - the tests' one deterministic PRNG (xorshift64*, defined in
 * test_util.c, which every test links), declared apart from test_util.h so
 * that tests built on soft_check.h (whose CHECK macros differ) use it too
 * instead of keeping a generator of their own.
 */
#ifndef OC_TEST_TU_RNG_H
#define OC_TEST_TU_RNG_H

#include <stdint.h>

typedef struct tu_rng {
    uint64_t state;
} tu_rng;

void tu_rng_seed(tu_rng *r, uint64_t seed);
uint64_t tu_rng_next(tu_rng *r);
/* Uniform in [0, bound) (bound > 0). */
uint64_t tu_rng_below(tu_rng *r, uint64_t bound);

#endif /* OC_TEST_TU_RNG_H */
