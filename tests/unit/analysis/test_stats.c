/* Duration statistics: values worked out by hand for small samples, class boundaries. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "rpl/error.h"
#include "rpl/stats.h"
#include "test_util.h"

static void one_value_has_no_spread(void **state)
{
    double v[] = {5};
    rpl_duration_stats s;

    assert_int_equal(rpl_stats_compute(&s, v, 1), 0);
    assert_int_equal(s.count, 1);
    assert_near(s.total, 5);
    assert_near(s.mean, 5);
    assert_near(s.median, 5);
    assert_near(s.min, 5);
    assert_near(s.max, 5);
    assert_near(s.p10, 5);
    assert_near(s.p90, 5);
    assert_near(s.stddev, 0);
    assert_near(s.cv, 0);
    assert_int_equal(s.stability, RPL_STABLE);
}

/*
 * 10 20 30 40 50 (given out of order): p10 at h = 4 * 0.1 = 0.4 -> 10 + 0.4 * 10,
 * p90 at h = 3.6 -> 40 + 0.6 * 10; sample variance (400+100+0+100+400)/4 = 250.
 */
static void odd_sample(void **state)
{
    double v[] = {30, 10, 50, 20, 40};
    rpl_duration_stats s;

    assert_int_equal(rpl_stats_compute(&s, v, 5), 0);
    assert_int_equal(s.count, 5);
    assert_near(s.total, 150);
    assert_near(s.mean, 30);
    assert_near(s.median, 30);
    assert_near(s.min, 10);
    assert_near(s.max, 50);
    assert_near(s.p10, 14);
    assert_near(s.p90, 46);
    assert_near(s.stddev, sqrt(250));
    assert_near(s.cv, sqrt(250) / 30);
    assert_int_equal(s.stability, RPL_UNSTABLE);
}

/* 1 2 3 4: median (2+3)/2; p10 at h = 0.3 -> 1.3; p90 at h = 2.7 -> 3.7; variance 5/3. */
static void even_sample(void **state)
{
    double v[] = {4, 1, 3, 2};
    rpl_duration_stats s;

    assert_int_equal(rpl_stats_compute(&s, v, 4), 0);
    assert_near(s.total, 10);
    assert_near(s.mean, 2.5);
    assert_near(s.median, 2.5);
    assert_near(s.p10, 1.3);
    assert_near(s.p90, 3.7);
    assert_near(s.stddev, sqrt(5.0 / 3.0));
    assert_near(s.cv, sqrt(5.0 / 3.0) / 2.5);
}

/* Two values a, b: sample sd = |a - b| / sqrt 2, mean (a + b) / 2. */
static void classes_of_small_samples(void **state)
{
    double stable[] = {98, 102};   /* cv = 2.83 / 100 */
    double moderate[] = {95, 105}; /* cv = 7.07 / 100 */
    double unstable[] = {80, 120}; /* cv = 28.3 / 100 */
    double equal[] = {100, 100, 100};
    rpl_duration_stats s;

    assert_int_equal(rpl_stats_compute(&s, stable, 2), 0);
    assert_near(s.cv, 4 / sqrt(2) / 100);
    assert_int_equal(s.stability, RPL_STABLE);
    assert_int_equal(rpl_stats_compute(&s, moderate, 2), 0);
    assert_near(s.cv, 10 / sqrt(2) / 100);
    assert_int_equal(s.stability, RPL_MODERATE);
    assert_int_equal(rpl_stats_compute(&s, unstable, 2), 0);
    assert_near(s.cv, 40 / sqrt(2) / 100);
    assert_int_equal(s.stability, RPL_UNSTABLE);
    assert_int_equal(rpl_stats_compute(&s, equal, 3), 0);
    assert_near(s.stddev, 0);
    assert_int_equal(s.stability, RPL_STABLE);
}

static void zero_mean_has_zero_cv(void **state)
{
    double v[] = {0, 0, 0};
    rpl_duration_stats s;

    assert_int_equal(rpl_stats_compute(&s, v, 3), 0);
    assert_near(s.cv, 0);
    assert_int_equal(s.stability, RPL_STABLE);
}

static void class_boundaries_are_inclusive(void **state)
{
    assert_int_equal(rpl_stability_classify(0.0), RPL_STABLE);
    assert_int_equal(rpl_stability_classify(0.05), RPL_STABLE);
    assert_int_equal(rpl_stability_classify(nextafter(0.05, 1)), RPL_MODERATE);
    assert_int_equal(rpl_stability_classify(0.10), RPL_MODERATE);
    assert_int_equal(rpl_stability_classify(nextafter(0.10, 1)), RPL_UNSTABLE);
    assert_int_equal(rpl_stability_classify(2.0), RPL_UNSTABLE);
    assert_string_equal(rpl_stability_name(RPL_STABLE), "stable");
    assert_string_equal(rpl_stability_name(RPL_MODERATE), "moderate");
    assert_string_equal(rpl_stability_name(RPL_UNSTABLE), "unstable");
}

static void empty_sample_is_refused(void **state)
{
    double v[1];
    rpl_duration_stats s;

    assert_int_equal(rpl_stats_compute(&s, v, 0), RPL_EUSAGE);
    assert_string_not_equal(rpl_error_last()->message, "");
}

/* Selection gives GSL's sorted-data quantiles exactly, on samples with many ties too. */
static void quantiles_match_gsl_on_sorted_copy(void **state)
{
    enum { N = 1001 };
    static double v[N], sorted[N];
    uint64_t x = 88172645463325252ull;

    for (size_t n = 2; n <= N; n += 37) {
        rpl_duration_stats s;
        for (size_t i = 0; i < n; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v[i] = sorted[i] = (double)(1000 + x % (n % 2 ? 50 : 100000));
        }
        gsl_sort(sorted, 1, n);
        assert_int_equal(rpl_stats_compute(&s, v, n), 0);
        assert_true(s.median == gsl_stats_median_from_sorted_data(sorted, 1, n));
        assert_true(s.p10 == gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.10));
        assert_true(s.p90 == gsl_stats_quantile_from_sorted_data(sorted, 1, n, 0.90));
        assert_true(s.min == sorted[0] && s.max == sorted[n - 1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_value_has_no_spread),
        cmocka_unit_test(odd_sample),
        cmocka_unit_test(even_sample),
        cmocka_unit_test(classes_of_small_samples),
        cmocka_unit_test(zero_mean_has_zero_cv),
        cmocka_unit_test(class_boundaries_are_inclusive),
        cmocka_unit_test(empty_sample_is_refused),
        cmocka_unit_test(quantiles_match_gsl_on_sorted_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
