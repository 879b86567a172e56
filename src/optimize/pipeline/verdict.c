/*
 * The measure step's verdict on a speedup's confidence interval, and the
 * digits that print it (rpl/pipeline.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/pipeline.h"

rpl_pipe_decision rpl_pipe_speedup_decision(double lo, double hi, double min_gain)
{
    /* Symmetric in the ratio, as the gate's runtime verdict: min_gain faster, or
       min_gain slower (the time confidently more than 1 + min_gain times the original's). */
    if (lo > 1 + min_gain)
        return RPL_PIPE_ACCEPTED;
    if (hi < 1 / (1 + min_gain))
        return RPL_PIPE_REJECT_SLOWER;
    return RPL_PIPE_REJECT_NOT_SIGNIFICANT;
}

/* `x` printed with `digits` decimals reads as exactly 1 though it is not. */
static bool reads_as_one(double x, int digits)
{
    char s[64];

    snprintf(s, sizeof(s), "%.*f", digits, x);
    return x != 1 && strtod(s, NULL) == 1;
}

int rpl_pipe_speedup_digits(double speedup, double lo, double hi)
{
    int digits = 3;

    for (; digits < RPL_PIPE_SPEEDUP_MAX_DIGITS; digits++) {
        char a[64], b[64];
        snprintf(a, sizeof(a), "%.*f", digits, lo);
        snprintf(b, sizeof(b), "%.*f", digits, hi);
        if ((strcmp(a, b) != 0 || lo == hi) && !reads_as_one(speedup, digits) &&
            !reads_as_one(lo, digits) && !reads_as_one(hi, digits))
            break;
    }
    return digits;
}
