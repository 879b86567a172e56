/* Checked trace times: intervals of more than a day and sums past 2^63 are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/profile.h"

static void ordinary_interval(void **state)
{
    int64_t d = -1;

    (void)state;
    assert_int_equal(rpl_trace_interval_ns(&d, 1000, 1500, "dispatch", 7), 0);
    assert_int_equal(d, 500);
    assert_int_equal(rpl_trace_interval_ns(&d, 5, 5 + RPL_TRACE_MAX_INTERVAL_NS, "copy", 1), 0);
    assert_int_equal(d, RPL_TRACE_MAX_INTERVAL_NS);
}

static void refused_intervals(void **state)
{
    int64_t d = 42;

    (void)state;
    assert_int_equal(rpl_trace_interval_ns(&d, 10, 9, "dispatch", 3), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "dispatch 3 ends before it starts"));
    assert_int_equal(rpl_trace_interval_ns(&d, 10, INT64_MAX, "dispatch", 81), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "more than a day"));
    assert_int_equal(rpl_trace_interval_ns(&d, 5, 6 + RPL_TRACE_MAX_INTERVAL_NS, "copy", 2),
                     RPL_EINPUT);
    /* end - start itself would overflow */
    assert_int_equal(rpl_trace_interval_ns(&d, INT64_MIN, INT64_MAX, "dispatch", 4), RPL_EINPUT);
    assert_int_equal(d, 42); /* untouched on failure */
}

static void sums_do_not_wrap(void **state)
{
    int64_t sum = INT64_MAX - 10;

    (void)state;
    assert_int_equal(rpl_add_ns(&sum, 10), 0);
    assert_int_equal(sum, INT64_MAX);
    assert_int_equal(rpl_add_ns(&sum, 1), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "add up to more than 2^63 ns"));
    assert_int_equal(sum, INT64_MAX); /* unchanged */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ordinary_interval),
        cmocka_unit_test(refused_intervals),
        cmocka_unit_test(sums_do_not_wrap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
