/*
 * The regression model (coefficients of a known quadratic recovered, with
 * and without an interaction; R^2 and cross-validation, its median held-out
 * relative error; terms dropped for lack of points; constant and collinear
 * columns left out) and the confirm phase's winner and ties.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "rpl/autotune.h"
#include "rpl/error.h"

/* The coefficient of the term (a, b), or NAN when the model lacks it. */
static double coef(const rpl_tune_model *m, int a, int b)
{
    for (size_t t = 0; t < m->nterms; t++)
        if (m->terms[t].a == a && m->terms[t].b == b)
            return m->coef[t + 1];
    return NAN;
}

/* A 7 x 7 grid of (x0, x1) in [-1.5, 1.5] and y = f + noise. */
static size_t make_data(double *x, double *y, bool interaction, double noise, unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    size_t n = 0;

    gsl_rng_set(r, seed);
    for (int i = 0; i < 7; i++) {
        for (int j = 0; j < 7; j++) {
            double a = -1.5 + 0.5 * i, b = -1.5 + 0.5 * j;
            x[2 * n] = a;
            x[2 * n + 1] = b;
            y[n] = 2.0 + 0.5 * a - 0.25 * b + 0.75 * a * a + 0.3 * b * b +
                   (interaction ? 0.4 * a * b : 0) + gsl_ran_gaussian(r, noise);
            n++;
        }
    }
    gsl_rng_free(r);
    return n;
}

static void quadratic_recovered(void **state)
{
    double x[98], y[49];
    bool quad[2] = {true, true};
    rpl_tune_fit_opts o = {quad, 2, true, 5, 1};
    rpl_tune_model *m = NULL;
    size_t n = make_data(x, y, false, 0, 1);

    (void)state;
    assert_int_equal(rpl_tune_model_fit(&m, x, n, 2, y, &o), 0);
    assert_int_equal(m->n, 49);
    assert_true(fabs(m->coef[0] - 2.0) < 1e-9);
    assert_true(fabs(coef(m, 0, -1) - 0.5) < 1e-9);
    assert_true(fabs(coef(m, 1, -1) + 0.25) < 1e-9);
    assert_true(fabs(coef(m, 0, 0) - 0.75) < 1e-9);
    assert_true(fabs(coef(m, 1, 1) - 0.3) < 1e-9);
    assert_true(m->r2 > 1 - 1e-12);
    assert_true(m->cv_rmse < 1e-9);
    assert_int_equal(m->folds, 5);
    /* Exact data: the interaction cannot lower a zero CV error, so it is not kept. */
    assert_false(m->interactions);
    {
        double p[2] = {1, -1};
        assert_true(fabs(rpl_tune_model_predict(m, p) - (2 + 0.5 + 0.25 + 0.75 + 0.3)) < 1e-9);
    }
    rpl_tune_model_free(m);
}

static void interaction_when_it_helps(void **state)
{
    double x[98], y[49];
    bool quad[2] = {true, true};
    rpl_tune_fit_opts o = {quad, 2, true, 5, 3};
    rpl_tune_model *m = NULL;
    size_t n = make_data(x, y, true, 0.01, 2);

    (void)state;
    assert_int_equal(rpl_tune_model_fit(&m, x, n, 2, y, &o), 0);
    assert_true(m->interactions);
    assert_true(m->cv_rmse_interactions < m->cv_rmse_base);
    assert_true(fabs(coef(m, 0, 1) - 0.4) < 0.01);
    assert_true(fabs(coef(m, 0, 0) - 0.75) < 0.01);
    assert_true(fabs(m->coef[0] - 2.0) < 0.01);
    assert_true(m->r2 > 0.999);
    /* The CV error estimates the noise (sigma 0.01). */
    assert_true(m->cv_rmse > 0.005 && m->cv_rmse < 0.02);
    rpl_tune_model_free(m);
    /* Without interactions allowed, the base model misses the a*b term. */
    o.try_interactions = false;
    assert_int_equal(rpl_tune_model_fit(&m, x, n, 2, y, &o), 0);
    assert_false(m->interactions);
    assert_true(isnan(coef(m, 0, 1)));
    assert_true(m->r2 < 0.99);
    rpl_tune_model_free(m);
}

static void few_points(void **state)
{
    double x[] = {-1, 0, 1, 2, 0.5, -0.5}, y[6];
    bool quad[1] = {true};
    rpl_tune_fit_opts o = {quad, 1, true, 5, 1};
    rpl_tune_model *m = NULL;

    (void)state;
    for (int i = 0; i < 6; i++)
        y[i] = 1 + 2 * x[i];
    /* 6 points, 5 folds: training sets of 4 keep 2 terms; here both fit. */
    assert_int_equal(rpl_tune_model_fit(&m, x, 6, 1, y, &o), 0);
    assert_int_equal(m->dropped, 0);
    assert_true(fabs(coef(m, 0, -1) - 2) < 1e-9);
    rpl_tune_model_free(m);
    /* 3 points, 3 folds: training sets of 2 support the intercept alone. */
    assert_int_equal(rpl_tune_model_fit(&m, x, 3, 1, y, &o), 0);
    assert_int_equal(m->nterms, 0);
    assert_int_equal(m->dropped, 2);
    assert_true(fabs(m->coef[0] - 1) < 1e-9); /* the mean of 1 + 2x at -1, 0, 1 */
    rpl_tune_model_free(m);
    assert_int_equal(rpl_tune_model_fit(&m, x, 0, 1, y, &o), RPL_EUSAGE);
}

static void ties(void **state)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double a[40], b[40], c[40], d[40];
    const double *s[4] = {a, b, c, d};
    size_t n[4] = {40, 40, 40, 40}, winner;
    bool tied[4];
    rpl_runtime_cmp cmp[4];
    rpl_gate_stat_opts o;

    (void)state;
    gsl_rng_set(r, 5);
    for (int i = 0; i < 40; i++) {
        a[i] = 105e3 * (1 + gsl_ran_gaussian(r, 0.01)); /* 5 % slower: beaten */
        b[i] = 100e3 * (1 + gsl_ran_gaussian(r, 0.01)); /* the winner */
        c[i] = 0; /* below: b's samples in another order, 0.01 % slower (a tie) */
        d[i] = 130e3 * (1 + gsl_ran_gaussian(r, 0.01));
    }
    for (int i = 0; i < 40; i++)
        c[i] = b[(i + 7) % 40] * 1.0001;
    gsl_rng_free(r);
    rpl_gate_stat_opts_init(&o);
    assert_int_equal(rpl_tune_decide(&winner, tied, cmp, s, n, 4, &o), 0);
    assert_int_equal(winner, 1);
    assert_true(tied[1]);
    assert_false(tied[0]);
    assert_true(tied[2]);
    assert_false(tied[3]);
    assert_true(cmp[0].upper < 0 && cmp[0].log_ratio < log(0.97));
    assert_true(cmp[2].upper >= 0);
    /* Two clearly different configs: no tie either way round. */
    assert_int_equal(rpl_tune_decide(&winner, tied, cmp, s + 2, n, 2, &o), 0);
    assert_int_equal(winner, 0);
    assert_false(tied[1]);
    n[0] = 0;
    assert_int_equal(rpl_tune_decide(&winner, tied, cmp, s, n, 2, &o), RPL_EUSAGE);
}

/*
 * A feature that is (almost) a multiple of a parameter over the points, and
 * one that is constant there: both left out, so the fit keeps sane
 * coefficients and predicts sanely away from the points.
 */
static void collinear_left_out(void **state)
{
    double x[3 * 49], y[49], xy[98];
    bool quad[3] = {true, true, false};
    rpl_tune_fit_opts o = {quad, 2, false, 5, 1};
    rpl_tune_model *m = NULL;
    size_t n = make_data(xy, y, false, 0.001, 4);

    (void)state;
    for (size_t i = 0; i < n; i++) {
        x[3 * i] = xy[2 * i];
        x[3 * i + 1] = xy[2 * i + 1];
        /* 2 x0 + 1e-9 noise: collinear to far beyond what least squares can separate */
        x[3 * i + 2] = 2 * xy[2 * i] + 1e-9 * (double)((i * 7919) % 13);
    }
    assert_int_equal(rpl_tune_model_fit(&m, x, n, 3, y, &o), 0);
    assert_int_equal(m->inactive, 1);
    for (size_t t = 0; t < m->nterms; t++) {
        bool third = m->terms[t].a == 2 && m->terms[t].b < 0;
        assert_true(m->active[t] == !third);
        if (third)
            assert_true(m->coef[t + 1] == 0);
    }
    assert_true(fabs(coef(m, 0, -1) - 0.5) < 0.01);
    assert_true(fabs(coef(m, 0, 0) - 0.75) < 0.01);
    {
        /* Off the manifold x2 = 2 x0: a near-singular fit would answer with its huge
         * coefficients; left out, the third input changes nothing. */
        double p[3] = {1, -1, -40}, q[3] = {1, -1, 2};
        assert_true(fabs(rpl_tune_model_predict(m, p) - rpl_tune_model_predict(m, q)) < 1e-12);
        assert_true(fabs(rpl_tune_model_predict(m, q) - (2 + 0.5 + 0.25 + 0.75 + 0.3)) < 0.01);
    }
    rpl_tune_model_free(m);
    /* A constant column is left out too, and the rest is recovered. */
    for (size_t i = 0; i < n; i++)
        x[3 * i + 2] = 5;
    quad[2] = true;
    assert_int_equal(rpl_tune_model_fit(&m, x, n, 3, y, &o), 0);
    assert_int_equal(m->inactive, 2); /* x2 and x2^2 */
    assert_true(fabs(coef(m, 1, 1) - 0.3) < 0.01);
    assert_true(m->r2 > 0.999);
    rpl_tune_model_free(m);
}

/* The CV error is the median held-out |pred/meas - 1| of exp(response). */
static void cv_error_is_relative(void **state)
{
    double x[98], y[49];
    bool quad[2] = {true, true};
    rpl_tune_fit_opts o = {quad, 2, false, 5, 2};
    rpl_tune_model *m = NULL;
    size_t n = make_data(x, y, false, 0.05, 3);

    (void)state;
    assert_int_equal(rpl_tune_model_fit(&m, x, n, 2, y, &o), 0);
    /* Gaussian noise of sigma 0.05 on ln runtime: the median |e^e - 1| is near 0.674 sigma. */
    assert_true(m->cv_error > 0.02 && m->cv_error < 0.06);
    assert_true(m->cv_rmse > m->cv_error); /* the RMSE is near sigma, above the median */
    rpl_tune_model_free(m);
    /* Exact data: no error. */
    n = make_data(x, y, false, 0, 3);
    assert_int_equal(rpl_tune_model_fit(&m, x, n, 2, y, &o), 0);
    assert_true(m->cv_error < 1e-9);
    rpl_tune_model_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(quadratic_recovered),  cmocka_unit_test(interaction_when_it_helps),
        cmocka_unit_test(few_points),           cmocka_unit_test(collinear_left_out),
        cmocka_unit_test(cv_error_is_relative), cmocka_unit_test(ties),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
