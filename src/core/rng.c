/* Random numbers (see rpl/rng.h). */
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "rpl/error.h"
#include "rpl/rng.h"

#define NONZERO_SEED 0x9e3779b97f4a7c15u

gsl_rng *rpl_rng_mt19937(unsigned long seed)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

    if (!rng) {
        rpl_error_oom();
        return NULL;
    }
    gsl_rng_set(rng, seed);
    return rng;
}

void rpl_rng_seed(rpl_rng *r, uint64_t seed)
{
    r->state = seed ? seed : NONZERO_SEED;
}

uint64_t rpl_rng_entropy(const void *salt)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)getpid() << 40) ^
           (uint64_t)(uintptr_t)salt;
}

uint64_t rpl_rng_next(rpl_rng *r)
{
    uint64_t x = r->state;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return r->state = x;
}

double rpl_rng_unit(rpl_rng *r)
{
    return (double)(rpl_rng_next(r) >> 11) * 0x1.0p-53;
}
