/*
 * Random numbers.  Statistics (the gate's bootstrap, the trend's
 * permutation test, the tuner's designs and models) draw from GSL's
 * MT19937, whose documented seeds give the same numbers everywhere:
 * rpl_rng_mt19937 makes one.  rpl_rng is a small xorshift64 for picks that
 * need no statistical quality (test-program seeds, backoff jitter).
 */
#ifndef RPL_RNG_H
#define RPL_RNG_H

#include <stdint.h>

#include <gsl/gsl_rng.h>

/* A gsl_rng_mt19937 seeded with `seed` (gsl_rng_free it); NULL with RPL_ENOMEM set. */
gsl_rng *rpl_rng_mt19937(unsigned long seed);

typedef struct rpl_rng {
    uint64_t state; /* never 0 once seeded */
} rpl_rng;

/* Start the sequence of `seed` (0 is replaced by a fixed nonzero constant). */
void rpl_rng_seed(rpl_rng *r, uint64_t seed);
/* A seed that differs between processes and calls: the clocks, the pid and `salt`. */
uint64_t rpl_rng_entropy(const void *salt);
/* The next 64 bits (xorshift64, shifts 13, 7, 17). */
uint64_t rpl_rng_next(rpl_rng *r);
/* A number in [0, 1) with 53 random bits. */
double rpl_rng_unit(rpl_rng *r);

#endif
