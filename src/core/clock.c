/* Clock readings (see rpl/clock.h). */
#include "rpl/clock.h"

int64_t rpl_clock_ns(clockid_t id)
{
    struct timespec ts;

    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t rpl_clock_mono_ns(void)
{
    return rpl_clock_ns(CLOCK_MONOTONIC);
}

int64_t rpl_clock_mono_ms(void)
{
    return rpl_clock_ns(CLOCK_MONOTONIC) / 1000000;
}

double rpl_clock_mono_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
