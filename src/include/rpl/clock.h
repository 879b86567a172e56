/* Clock readings: the monotonic clock for durations and deadlines, any clock in nanoseconds. */
#ifndef RPL_CLOCK_H
#define RPL_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in seconds, for durations and deadlines. */
double rpl_clock_mono_s(void);
/* CLOCK_MONOTONIC in milliseconds. */
int64_t rpl_clock_mono_ms(void);
/* CLOCK_MONOTONIC in nanoseconds. */
int64_t rpl_clock_mono_ns(void);
/* `id` (CLOCK_REALTIME, CLOCK_BOOTTIME, ...) in nanoseconds. */
int64_t rpl_clock_ns(clockid_t id);

#endif
