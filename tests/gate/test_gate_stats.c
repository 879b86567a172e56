/*
 * The runtime rule on simulated kernel timings (fixed seeds): per-rep
 * log-normal noise of 2 %, 5 % right-tail outliers (+Exp, mean 20 %), and a
 * per-run drift of 1 % (each run, baseline or candidate, gets its own
 * offset), as in gating.md section 11.5.  The gate functions decide; the
 * test only counts their verdicts.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

#include "rpl/error.h"
#include "rpl/gate.h"

#define REPS   30
#define TRIALS 500
#define K      10

/* One run of REPS samples of a 100 us kernel, `shift` slower. */
static void simulate_run(gsl_rng *r, double *x, double shift)
{
    double offset = gsl_ran_gaussian(r, 0.01);

    for (int i = 0; i < REPS; i++) {
        x[i] = 1e5 * (1.0 + shift) * exp(offset + gsl_ran_gaussian(r, 0.02));
        if (gsl_rng_uniform(r) < 0.05)
            x[i] *= 1.0 + gsl_ran_exponential(r, 0.2);
    }
}

typedef struct rates {
    double false_fail, caught;
} rates;

/*
 * TRIALS times: a stored baseline (history of `k` accepted runs, samples of
 * the last one), then an unchanged candidate run and one `shift` slower.
 */
static rates simulate(double delta, int k, double shift, unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    rpl_gate_stat_opts o;
    double base[REPS], cand[REPS], tmp[REPS], hist[K];
    int ff = 0, caught = 0;

    gsl_rng_set(r, seed);
    rpl_gate_stat_opts_init(&o);
    o.delta = delta;
    for (int t = 0; t < TRIALS; t++) {
        rpl_runtime_cmp c;

        for (int j = 0; j < (k ? k : 1); j++) {
            simulate_run(r, base, 0);
            memcpy(tmp, base, sizeof(tmp));
            hist[j] = gsl_stats_median(tmp, 1, REPS);
        }
        o.seed = (unsigned long)t + 1;
        simulate_run(r, cand, 0);
        assert_int_equal(rpl_gate_compare_samples(&c, base, REPS, cand, REPS, hist, (size_t)k, &o),
                         0);
        ff += c.verdict == RPL_VERDICT_FAIL;
        simulate_run(r, cand, shift);
        assert_int_equal(rpl_gate_compare_samples(&c, base, REPS, cand, REPS, hist, (size_t)k, &o),
                         0);
        caught += c.verdict == RPL_VERDICT_FAIL;
    }
    gsl_rng_free(r);
    return (rates){(double)ff / TRIALS, (double)caught / TRIALS};
}

/*
 * The acceptance numbers: stored-baseline mode with a history of 10 runs,
 * 30 repetitions, tolerance 1 %, the default confidence and B.  With 1 %
 * run-to-run drift a wider tolerance cannot also catch +5 % (docs: the
 * detectable change is about tolerance + 2.9 sigma_run sqrt(1 + 1/K)).
 */
static void aa_and_detection_stored(void **state)
{
    rates x = simulate(0.01, K, 0.05, 101);

    (void)state;
    printf("stored baseline, tolerance 1%%: A/A false fail %.3f, +5%% caught %.3f (%d trials)\n",
           x.false_fail, x.caught, TRIALS);
    assert_true(x.false_fail <= 0.02);
    assert_true(x.caught >= 0.85);
}

/* The default tolerance 3 %: no false fails, and a +10 % change is caught. */
static void aa_and_detection_default_tolerance(void **state)
{
    rates x = simulate(RPL_GATE_DEFAULT_TOLERANCE, K, 0.10, 202);

    (void)state;
    printf("stored baseline, tolerance 3%%: A/A false fail %.3f, +10%% caught %.3f\n", x.false_fail,
           x.caught);
    assert_true(x.false_fail <= 0.02);
    assert_true(x.caught >= 0.85);
}

/* Two-sample mode (a fresh baseline, no history): drift on both runs, no more false fails. */
static void aa_two_sample(void **state)
{
    rates x = simulate(RPL_GATE_DEFAULT_TOLERANCE, 0, 0.10, 303);

    (void)state;
    printf("two-sample, tolerance 3%%: A/A false fail %.3f, +10%% caught %.3f\n", x.false_fail,
           x.caught);
    assert_true(x.false_fail <= 0.02);
    assert_true(x.caught >= 0.85);
}

static void fill(double *x, size_t n, double centre, double spread)
{
    for (size_t i = 0; i < n; i++)
        x[i] = centre * (1.0 + spread * ((double)((i * 7919) % n) / (double)(n - 1) - 0.5));
}

/* The same seed gives the same bounds; another seed other bounds. */
static void seeded(void **state)
{
    double b[25], c[25];
    rpl_gate_stat_opts o;
    rpl_runtime_cmp x, y, z;

    (void)state;
    rpl_gate_stat_opts_init(&o);
    fill(b, 25, 1000, 0.2);
    fill(c, 25, 1010, 0.2);
    assert_int_equal(rpl_gate_compare_samples(&x, b, 25, c, 25, NULL, 0, &o), 0);
    assert_int_equal(rpl_gate_compare_samples(&y, b, 25, c, 25, NULL, 0, &o), 0);
    o.seed = 7;
    assert_int_equal(rpl_gate_compare_samples(&z, b, 25, c, 25, NULL, 0, &o), 0);
    assert_true(x.lower == y.lower && x.upper == y.upper && x.p_value == y.p_value);
    assert_true(x.lower != z.lower || x.upper != z.upper);
    assert_true(x.lower <= x.log_ratio && x.log_ratio <= x.upper);
}

static void verdicts(void **state)
{
    double b[40], c[40], h[5] = {1000, 1000, 1000, 1000, 1000};
    rpl_gate_stat_opts o;
    rpl_runtime_cmp x;

    (void)state;
    rpl_gate_stat_opts_init(&o);
    fill(b, 40, 1000, 0.02);
    fill(c, 40, 1200, 0.02); /* +20 %, tight: FAIL */
    assert_int_equal(rpl_gate_compare_samples(&x, b, 40, c, 40, NULL, 0, &o), 0);
    assert_int_equal(x.verdict, RPL_VERDICT_FAIL);
    assert_true(x.p_value < 0.01);
    fill(c, 40, 800, 0.02); /* -20 %: IMPROVED */
    assert_int_equal(rpl_gate_compare_samples(&x, b, 40, c, 40, NULL, 0, &o), 0);
    assert_int_equal(x.verdict, RPL_VERDICT_IMPROVED);
    fill(c, 40, 1005, 0.02); /* +0.5 %: PASS */
    assert_int_equal(rpl_gate_compare_samples(&x, b, 40, c, 40, NULL, 0, &o), 0);
    assert_int_equal(x.verdict, RPL_VERDICT_PASS);
    fill(b, 8, 1000, 0.6); /* +4 % on very noisy small samples: WARN */
    fill(c, 8, 1040, 0.6);
    assert_int_equal(rpl_gate_compare_samples(&x, b, 8, c, 8, NULL, 0, &o), 0);
    assert_int_equal(x.verdict, RPL_VERDICT_WARN);
    /* Stored mode: a flat history gets the sigma floor; +4 % is not confidently beyond 3 %. */
    fill(b, 40, 1000, 0.02);
    fill(c, 40, 1040, 0.02);
    assert_int_equal(rpl_gate_compare_samples(&x, b, 40, c, 40, h, 5, &o), 0);
    assert_int_equal(x.history, 5);
    assert_true(fabs(x.sigma_run - RPL_GATE_SIGMA_FLOOR) < 1e-12);
    assert_true(fabs(x.median_base - 1000) < 1e-9);
    assert_int_equal(x.verdict, RPL_VERDICT_WARN);
    /* Two history entries are too few for the spread: two-sample mode. */
    assert_int_equal(rpl_gate_compare_samples(&x, b, 40, c, 40, h, 2, &o), 0);
    assert_int_equal(x.history, 0);
}

/*
 * The three-way classification over a grid of shifts and noise levels:
 * `undecided` exactly where the interval [LB, UB] straddles ln(1+delta) or
 * ln(1-delta), and the verdict of an undecided change is the caller's.
 */
static void undecided_where_straddling(void **state)
{
    static const double shifts[] = {-0.3,  -0.06, -0.03, -0.01, 0,  0.01,
                                    0.025, 0.03,  0.04,  0.06,  0.3};
    static const double noise[] = {0.005, 0.02, 0.1, 0.5};
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double b[20], c[20], hi = log1p(0.03), lo = log1p(-0.03);
    int seen[4] = {0};
    rpl_gate_stat_opts o;

    (void)state;
    rpl_gate_stat_opts_init(&o);
    o.bootstrap = 500;
    gsl_rng_set(r, 11);
    for (size_t s = 0; s < sizeof(shifts) / sizeof(shifts[0]); s++)
        for (size_t n = 0; n < sizeof(noise) / sizeof(noise[0]); n++) {
            rpl_runtime_cmp x, y;
            bool straddles;

            for (int i = 0; i < 20; i++) {
                b[i] = 1e5 * exp(gsl_ran_gaussian(r, noise[n]));
                c[i] = 1e5 * (1 + shifts[s]) * exp(gsl_ran_gaussian(r, noise[n]));
            }
            o.undecided = RPL_VERDICT_WARN;
            assert_int_equal(rpl_gate_compare_samples(&x, b, 20, c, 20, NULL, 0, &o), 0);
            straddles = (x.lower <= hi && x.upper > hi) || (x.lower < lo && x.upper >= lo);
            assert_int_equal(x.change == RPL_CHANGE_UNDECIDED, straddles);
            seen[x.change]++;
            if (x.change == RPL_CHANGE_SLOWER)
                assert_true(x.lower > hi && x.verdict == RPL_VERDICT_FAIL);
            if (x.change == RPL_CHANGE_FASTER)
                assert_true(x.upper < lo && x.verdict == RPL_VERDICT_IMPROVED);
            if (x.change == RPL_CHANGE_SAME)
                assert_true(x.lower >= lo && x.upper <= hi && x.verdict == RPL_VERDICT_PASS);
            if (x.change != RPL_CHANGE_UNDECIDED)
                continue;
            assert_int_equal(x.verdict, RPL_VERDICT_WARN);
            o.undecided = RPL_VERDICT_FAIL;
            assert_int_equal(rpl_gate_compare_samples(&y, b, 20, c, 20, NULL, 0, &o), 0);
            assert_int_equal(y.verdict, RPL_VERDICT_FAIL);
            o.undecided = RPL_VERDICT_PASS;
            assert_int_equal(rpl_gate_compare_samples(&y, b, 20, c, 20, NULL, 0, &o), 0);
            assert_int_equal(y.verdict, RPL_VERDICT_PASS);
        }
    /* The grid reaches all four answers. */
    for (int k = 0; k < 4; k++)
        assert_true(seen[k] > 0);
    assert_string_equal(rpl_change_name(RPL_CHANGE_UNDECIDED), "undecided");
    assert_int_equal(rpl_change_parse("faster"), RPL_CHANGE_FASTER);
    assert_int_equal(rpl_change_parse("up"), -1);
    o.undecided = RPL_VERDICT_IMPROVED; /* not a verdict an undecided change may take */
    assert_int_equal(rpl_gate_compare_samples(&(rpl_runtime_cmp){0}, b, 20, c, 20, NULL, 0, &o),
                     RPL_EUSAGE);
    gsl_rng_free(r);
}

static void bad_input(void **state)
{
    double b[3] = {1, 2, 3}, z[3] = {1, 0, 3};
    rpl_gate_stat_opts o;
    rpl_runtime_cmp x;

    (void)state;
    rpl_gate_stat_opts_init(&o);
    assert_int_equal(rpl_gate_compare_samples(&x, b, 0, b, 3, NULL, 0, &o), RPL_EUSAGE);
    assert_int_equal(rpl_gate_compare_samples(&x, b, 3, z, 3, NULL, 0, &o), RPL_EUSAGE);
    o.delta = 0;
    assert_int_equal(rpl_gate_compare_samples(&x, b, 3, b, 3, NULL, 0, &o), RPL_EUSAGE);
}

static void holm(void **state)
{
    double p[5] = {0.01, 0.04, 0.03, 0.005, 0.5};
    bool rej[5];

    (void)state;
    assert_int_equal(rpl_gate_holm(rej, p, 5, 0.05), 0);
    /* 0.005 <= .05/5, 0.01 <= .05/4, 0.03 > .05/3: stop. */
    assert_true(rej[3] && rej[0]);
    assert_false(rej[1] || rej[2] || rej[4]);
    assert_int_equal(rpl_gate_holm(rej, p, 1, 0.05), 0);
    assert_true(rej[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(aa_and_detection_stored),
        cmocka_unit_test(aa_and_detection_default_tolerance),
        cmocka_unit_test(aa_two_sample),
        cmocka_unit_test(seeded),
        cmocka_unit_test(verdicts),
        cmocka_unit_test(undecided_where_straddling),
        cmocka_unit_test(bad_input),
        cmocka_unit_test(holm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
