/*
 * Checked arithmetic on the times of a trace (see rpl/profile.h): a dispatch
 * or copy whose end lies absurdly far past its start (an end of INT64_MAX,
 * a corrupt row) is rejected here, before it makes a span of centuries or
 * overflows a sum.
 */
#include "rpl/error.h"
#include "rpl/profile.h"

int rpl_trace_interval_ns(int64_t *out, int64_t start, int64_t end, const char *what, int64_t id)
{
    int64_t d;

    if (end < start)
        return rpl_error_set(RPL_EINPUT, "%s %lld ends before it starts", what, (long long)id);
    if (__builtin_sub_overflow(end, start, &d) || d > RPL_TRACE_MAX_INTERVAL_NS)
        return rpl_error_set(RPL_EINPUT,
                             "%s %lld lasts from %lld to %lld ns, more than a day: not a "
                             "timing (a corrupt trace?)",
                             what, (long long)id, (long long)start, (long long)end);
    *out = d;
    return 0;
}

int rpl_add_ns(int64_t *sum, int64_t v)
{
    int64_t s;

    if (__builtin_add_overflow(*sum, v, &s))
        return rpl_error_set(RPL_EINPUT, "the times of the trace add up to more than 2^63 ns");
    *sum = s;
    return 0;
}
