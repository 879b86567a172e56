/*
 * The option values of `rocm-perf autotune` that the library reads: the
 * budget (fraction, percentage or count), the device list, the default
 * cache path.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/autotune.h"
#include "rpl/error.h"

static void budget_forms(void **state)
{
    rpl_tune_opts o;

    (void)state;
    memset(&o, 0, sizeof(o));
    assert_int_equal(rpl_tune_budget_parse(&o, "30%"), 0);
    assert_true(o.budget_fraction > 0.2999 && o.budget_fraction < 0.3001);
    assert_int_equal(rpl_tune_budget_parse(&o, "0.5"), 0);
    assert_true(o.budget_fraction == 0.5);
    assert_int_equal(rpl_tune_budget_parse(&o, "1.0"), 0);
    assert_true(o.budget_fraction == 1.0);
    assert_int_equal(rpl_tune_budget_parse(&o, "60"), 0);
    assert_int_equal(o.budget_count, 60);
    /* A fraction above 1, a zero, a percentage over 100, a count that is not whole: refused. */
    assert_int_equal(rpl_tune_budget_parse(&o, "1.5"), RPL_EUSAGE);
    assert_int_equal(rpl_tune_budget_parse(&o, "0"), RPL_EUSAGE);
    assert_int_equal(rpl_tune_budget_parse(&o, "101%"), RPL_EUSAGE);
    assert_int_equal(rpl_tune_budget_parse(&o, "30%x"), RPL_EUSAGE);
    assert_int_equal(rpl_tune_budget_parse(&o, "lots"), RPL_EUSAGE);
    assert_string_equal(rpl_error_last()->message,
                        "--budget takes a fraction (30%, 0.3) or a count of configs (60), not "
                        "'lots'");
    assert_int_equal(o.budget_count, 60);
}

static void device_lists(void **state)
{
    char **d = NULL;
    char many[512] = "0";

    (void)state;
    assert_int_equal(rpl_tune_devices_parse(&d, "2,3"), 0);
    assert_string_equal(d[0], "2");
    assert_string_equal(d[1], "3");
    assert_null(d[2]);
    /* A second list replaces the first. */
    assert_int_equal(rpl_tune_devices_parse(&d, "GPU-5a1b"), 0);
    assert_string_equal(d[0], "GPU-5a1b");
    assert_null(d[1]);
    assert_int_equal(rpl_tune_devices_parse(&d, "0;rm"), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "not '0;rm'"));
    assert_int_equal(rpl_tune_devices_parse(&d, ","), RPL_EUSAGE);
    for (int i = 1; i <= RPL_TUNE_MAX_JOBS; i++)
        strcat(many, ",1");
    assert_int_equal(rpl_tune_devices_parse(&d, many), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "lists 1 to 64 GPUs"));
    rpl_argv_free(d);
}

static void default_cache(void **state)
{
    char *p;

    (void)state;
    setenv("XDG_CACHE_HOME", "/x/cache", 1);
    setenv("HOME", "/h/u", 1);
    p = rpl_tune_default_cache_path();
    assert_string_equal(p, "/x/cache/rocm-perf/autotune.db");
    free(p);
    setenv("XDG_CACHE_HOME", "", 1);
    p = rpl_tune_default_cache_path();
    assert_string_equal(p, "/h/u/.cache/rocm-perf/autotune.db");
    free(p);
    unsetenv("XDG_CACHE_HOME");
    unsetenv("HOME");
    assert_null(rpl_tune_default_cache_path());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(budget_forms),
        cmocka_unit_test(device_lists),
        cmocka_unit_test(default_cache),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
