/*
 * The suite's summary figure: the geometric mean of the runtime ratios over
 * all tests and kernels, with a percentile bootstrap interval that
 * resamples whole tests (the kernels of one test share a run, so they are
 * not independent of each other).
 */
#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/gate.h"
#include "rpl/rng.h"

/* Sum of ln ratios and their count, per result. */
static void sums(const rpl_gate_result *r, double *sum, size_t *count)
{
    *sum = 0;
    *count = 0;
    for (size_t j = 0; j < r->nchecks; j++)
        if (r->checks[j].has_runtime && isfinite(r->checks[j].rt.log_ratio)) {
            *sum += r->checks[j].rt.log_ratio;
            (*count)++;
        }
}

int rpl_suite_geomean_compute(rpl_suite_geomean *out, const rpl_gate_result *const *results,
                              size_t n)
{
    double *sum = malloc((n ? n : 1) * sizeof(*sum)), *boot = NULL, total = 0;
    size_t *count = malloc((n ? n : 1) * sizeof(*count)), *with = NULL, kernels = 0, tests = 0;
    gsl_rng *rng = NULL;
    int rc = 0;

    *out = (rpl_suite_geomean){.confidence = RPL_SUITE_GEOMEAN_CONFIDENCE,
                               .bootstrap = RPL_GATE_DEFAULT_BOOTSTRAP};
    with = malloc((n ? n : 1) * sizeof(*with));
    boot = malloc(out->bootstrap * sizeof(*boot));
    rng = rpl_rng_mt19937(RPL_GATE_DEFAULT_SEED);
    if (!sum || !count || !with || !boot || !rng) {
        rc = rpl_error_oom();
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        sums(results[i], &sum[i], &count[i]);
        if (count[i]) {
            with[tests++] = i;
            total += sum[i];
            kernels += count[i];
        }
    }
    out->tests = tests;
    out->kernels = kernels;
    if (!kernels)
        goto done;
    out->ratio = exp(total / (double)kernels);
    for (unsigned b = 0; b < out->bootstrap; b++) {
        double s = 0;
        size_t k = 0;
        for (size_t t = 0; t < tests; t++) {
            size_t i = with[gsl_rng_uniform_int(rng, tests)];
            s += sum[i];
            k += count[i];
        }
        boot[b] = s / (double)k;
    }
    gsl_sort(boot, 1, out->bootstrap);
    out->ci_low = exp(
        gsl_stats_quantile_from_sorted_data(boot, 1, out->bootstrap, (1 - out->confidence) / 2));
    out->ci_high = exp(gsl_stats_quantile_from_sorted_data(boot, 1, out->bootstrap,
                                                           1 - (1 - out->confidence) / 2));
done:
    if (rng)
        gsl_rng_free(rng);
    RPL_FREE_EACH(sum, count, with, boot);
    return rc;
}
