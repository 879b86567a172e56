/*
 * Change points on synthetic histories (issue 27's acceptance): 60 entries
 * of a 100 us kernel with 2 % log-normal noise per entry, 200 seeds each.
 *  - a +8 % step at entry 30 is found within +-2 entries in >= 95 %;
 *  - with no step, a change point is reported in <= 5 %;
 *  - five +1.5 % steps (entries 10, 20, 30, 40, 50) are reported as a drift.
 * Permutations: 199 at alpha 0.01 (the defaults); the test stops shuffling
 * once p must exceed alpha, so a flat history costs a few shuffles: the
 * whole test takes about 0.8 s of CPU in the dev build and 2.7 s under
 * ASan and UBSan.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "rpl/error.h"
#include "rpl/trend.h"

#define N     60
#define SEEDS 200

/* x[i] = 100 us * (1 + step)^(steps passed by i) * noise. */
static void history(gsl_rng *r, double *x, const size_t *at, size_t nsteps, double step)
{
    for (size_t i = 0; i < N; i++) {
        double level = 1e5;
        for (size_t k = 0; k < nsteps; k++)
            if (i >= at[k])
                level *= 1.0 + step;
        x[i] = level * exp(gsl_ran_gaussian(r, 0.02));
    }
}

static void step_found(void **state)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    size_t at[1] = {30};
    int found = 0;
    rpl_cp_opts o;

    (void)state;
    rpl_cp_opts_init(&o);
    for (unsigned long seed = 1; seed <= SEEDS; seed++) {
        double x[N];
        rpl_change_point *cp;
        size_t n;
        bool near = false;

        gsl_rng_set(r, seed);
        history(r, x, at, 1, 0.08);
        assert_int_equal(rpl_change_points(&cp, &n, x, N, &o), 0);
        for (size_t i = 0; i < n; i++)
            if (cp[i].index >= 28 && cp[i].index <= 32 && cp[i].size > 0.05 && cp[i].size < 0.11)
                near = true;
        found += near;
        free(cp);
    }
    printf("+8%% step at 30 found within +-2 in %d of %d seeds\n", found, SEEDS);
    assert_true(found >= SEEDS * 95 / 100);
    gsl_rng_free(r);
}

static void no_step(void **state)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    int reported = 0;
    rpl_cp_opts o;

    (void)state;
    rpl_cp_opts_init(&o);
    for (unsigned long seed = 1; seed <= SEEDS; seed++) {
        double x[N];
        rpl_change_point *cp;
        size_t n;

        gsl_rng_set(r, 1000 + seed);
        history(r, x, NULL, 0, 0);
        assert_int_equal(rpl_change_points(&cp, &n, x, N, &o), 0);
        reported += n > 0;
        free(cp);
    }
    printf("no step: a change point in %d of %d seeds\n", reported, SEEDS);
    assert_true(reported <= SEEDS * 5 / 100);
    gsl_rng_free(r);
}

static void drift(void **state)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    size_t at[5] = {10, 20, 30, 40, 50}, one[1] = {30};
    int drifts = 0, step_drifts = 0;
    rpl_cp_opts o;

    (void)state;
    rpl_cp_opts_init(&o);
    for (unsigned long seed = 1; seed <= SEEDS; seed++) {
        double x[N];
        rpl_change_point *cp;
        size_t n;
        rpl_drift d;

        gsl_rng_set(r, 5000 + seed);
        history(r, x, at, 5, 0.015);
        assert_int_equal(rpl_change_points(&cp, &n, x, N, &o), 0);
        rpl_drift_find(&d, cp, n, x, N, 0.03);
        /* Each step is below the 3 % tolerance, the whole move is not. */
        for (size_t i = 0; d.found && i < n; i++)
            assert_true(fabs(cp[i].size) < 0.08);
        drifts += d.found && d.total > 0.03 && d.start <= 32;
        free(cp);
        /* One +8 % step is a step, never a drift. */
        history(r, x, one, 1, 0.08);
        assert_int_equal(rpl_change_points(&cp, &n, x, N, &o), 0);
        rpl_drift_find(&d, cp, n, x, N, 0.03);
        step_drifts += d.found;
        free(cp);
    }
    printf("five +1.5%% steps: drift in %d of %d seeds; one +8%% step: drift in %d\n", drifts,
           SEEDS, step_drifts);
    assert_true(drifts >= SEEDS * 95 / 100);
    assert_true(step_drifts <= SEEDS * 5 / 100);
    gsl_rng_free(r);
}

static void small_and_bad(void **state)
{
    double x[12] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2}, bad[3] = {1, -1, 1};
    rpl_change_point *cp = NULL;
    size_t n = 9;
    rpl_cp_opts o;

    (void)state;
    rpl_cp_opts_init(&o);
    /* Fewer than two segments of min_size: nothing to look for. */
    assert_int_equal(rpl_change_points(&cp, &n, x, 9, &o), 0);
    assert_int_equal(n, 0);
    /* A clean doubling at 5 of 12 (the only split): p = 1/(P+1) of the permutations. */
    assert_int_equal(rpl_change_points(&cp, &n, x, 12, &o), 0);
    assert_int_equal(n, 1);
    assert_int_equal(cp[0].index, 5);
    assert_true(fabs(cp[0].size - 1.0) < 1e-12);
    free(cp);
    assert_int_equal(rpl_change_points(&cp, &n, bad, 3, &o), RPL_EUSAGE);
    o.min_size = 1;
    assert_int_equal(rpl_change_points(&cp, &n, x, 12, &o), RPL_EUSAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(step_found),
        cmocka_unit_test(no_step),
        cmocka_unit_test(drift),
        cmocka_unit_test(small_and_bad),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
