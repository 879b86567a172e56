/* rpl/clock.h: the monotonic readings agree with each other and with a sleep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "rpl/clock.h"

static void readings_agree_in_every_unit(void **state)
{
    int64_t ns = rpl_clock_mono_ns();
    int64_t ms = rpl_clock_mono_ms();
    double s = rpl_clock_mono_s();

    (void)state;
    assert_true(ns > 0);
    /* Read in this order, each is at or after the one before, within a second. */
    assert_true(ms >= ns / 1000000 && ms - ns / 1000000 < 1000);
    assert_true(s * 1e3 >= (double)ms - 1 && s * 1e3 - (double)ms < 1000);
    assert_int_equal(rpl_clock_ns(CLOCK_MONOTONIC) / 1000000000 >= ns / 1000000000, 1);
}

static void a_sleep_is_measured(void **state)
{
    struct timespec pause = {0, 20000000};
    int64_t t0 = rpl_clock_mono_ns();
    double s0 = rpl_clock_mono_s();

    (void)state;
    nanosleep(&pause, NULL);
    assert_true(rpl_clock_mono_ns() - t0 >= 20000000);
    assert_true(rpl_clock_mono_s() - s0 >= 0.0199);
}

static void other_clocks_are_read(void **state)
{
    (void)state;
    /* The wall clock is past 2020-01-01 on any machine that runs the tests. */
    assert_true(rpl_clock_ns(CLOCK_REALTIME) > INT64_C(1577836800) * 1000000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(readings_agree_in_every_unit),
        cmocka_unit_test(a_sleep_is_measured),
        cmocka_unit_test(other_clocks_are_read),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
