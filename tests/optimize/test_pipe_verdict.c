/* The measure step's verdict on a speedup's CI and the digits it prints with
   (rpl/pipeline.h): within --min-gain of 1 either way is not significant. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/pipeline.h"

static void decisions(void **state)
{
    (void)state;
    assert_int_equal(rpl_pipe_speedup_decision(1.03, 1.05, 0.02), RPL_PIPE_ACCEPTED);
    assert_int_equal(rpl_pipe_speedup_decision(1.01, 1.05, 0.02), RPL_PIPE_REJECT_NOT_SIGNIFICANT);
    /* run 6: matmul_forward_kernel4's candidates, the whole CI a hair below 1. */
    assert_int_equal(rpl_pipe_speedup_decision(0.99965, 0.99998, 0.02),
                     RPL_PIPE_REJECT_NOT_SIGNIFICANT);
    /* Confirmed slower, but by less than min_gain. */
    assert_int_equal(rpl_pipe_speedup_decision(0.975, 0.985, 0.02),
                     RPL_PIPE_REJECT_NOT_SIGNIFICANT);
    /* The bound is 1 / (1 + min_gain): time more than 2% longer. */
    assert_int_equal(rpl_pipe_speedup_decision(0.97, 1 / 1.02, 0.02),
                     RPL_PIPE_REJECT_NOT_SIGNIFICANT);
    assert_int_equal(rpl_pipe_speedup_decision(0.97, 0.979, 0.02), RPL_PIPE_REJECT_SLOWER);
    assert_int_equal(rpl_pipe_speedup_decision(0.70, 0.80, 0.02), RPL_PIPE_REJECT_SLOWER);
    assert_int_equal(rpl_pipe_speedup_decision(0.998, 1.002, 0.02),
                     RPL_PIPE_REJECT_NOT_SIGNIFICANT);
    /* Without a gain threshold any confirmed difference decides. */
    assert_int_equal(rpl_pipe_speedup_decision(0.99965, 0.99998, 0), RPL_PIPE_REJECT_SLOWER);
    assert_int_equal(rpl_pipe_speedup_decision(1.00001, 1.0002, 0), RPL_PIPE_ACCEPTED);
}

/* The speedup and CI as the measure step prints them. */
static void printed(char *buf, size_t size, double speedup, double lo, double hi)
{
    int d = rpl_pipe_speedup_digits(speedup, lo, hi);

    snprintf(buf, size, "%.*fx (CI %.*f-%.*f)", d, speedup, d, lo, d, hi);
}

static void digits(void **state)
{
    char s[128];

    (void)state;
    printed(s, sizeof(s), 1.25, 1.2, 1.3);
    assert_string_equal(s, "1.250x (CI 1.200-1.300)");
    printed(s, sizeof(s), 0.7731, 0.7512, 0.7904);
    assert_string_equal(s, "0.773x (CI 0.751-0.790)");
    /* An unchanged kernel measured as exactly equal keeps three digits. */
    printed(s, sizeof(s), 1, 1, 1);
    assert_string_equal(s, "1.000x (CI 1.000-1.000)");
    /* run 6 printed "speedup 1.000x (95% CI 1.000-1.000)" for these. */
    printed(s, sizeof(s), 0.9998, 0.99965, 0.99998);
    assert_string_equal(s, "0.99980x (CI 0.99965-0.99998)");
    printed(s, sizeof(s), 1.0012, 1.0008, 1.0016);
    assert_string_equal(s, "1.001x (CI 1.001-1.002)");
    /* A bound that is not 1 never prints as 1. */
    printed(s, sizeof(s), 1.0001, 0.99996, 1.00024);
    assert_string_equal(s, "1.00010x (CI 0.99996-1.00024)");
    printed(s, sizeof(s), 1.0004, 1.0003, 1.0005);
    assert_string_equal(s, "1.0004x (CI 1.0003-1.0005)");
    /* Bounds closer than the most digits: the most digits. */
    assert_int_equal(rpl_pipe_speedup_digits(0.5, 0.5, 0.5 + 1e-12), RPL_PIPE_SPEEDUP_MAX_DIGITS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decisions),
        cmocka_unit_test(digits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
