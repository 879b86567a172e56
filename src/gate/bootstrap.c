/*
 * The runtime rule: bootstrap confidence bounds on the log ratio of medians,
 * widened by the run-to-run spread of the baseline's history (see gate.h and
 * docs/USER_GUIDE.md section 8 for the formulas).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "rpl/error.h"
#include "rpl/gate.h"
#include "rpl/names.h"
#include "rpl/rng.h"

void rpl_gate_stat_opts_init(rpl_gate_stat_opts *o)
{
    o->delta = RPL_GATE_DEFAULT_TOLERANCE;
    o->confidence = RPL_GATE_DEFAULT_CONFIDENCE;
    o->bootstrap = RPL_GATE_DEFAULT_BOOTSTRAP;
    o->seed = RPL_GATE_DEFAULT_SEED;
    o->undecided = RPL_VERDICT_WARN;
}

static const char *const change_names[] = {"same", "faster", "slower", "undecided"};

const char *rpl_change_name(rpl_change c)
{
    return RPL_NAME_OF(change_names, c, "?");
}

int rpl_change_parse(const char *name)
{
    return RPL_NAME_INDEX(change_names, name);
}

static const char *const verdict_names[] = {"pass", "improved", "warn", "fail"};

const char *rpl_verdict_name(rpl_verdict v)
{
    return RPL_NAME_OF(verdict_names, v, "?");
}

int rpl_verdict_parse(const char *name)
{
    return RPL_NAME_INDEX(verdict_names, name);
}

/* Median of a copy of x[0..n) (GSL reorders its input). */
static double median_copy(double *scratch, const double *x, size_t n)
{
    memcpy(scratch, x, n * sizeof(*x));
    return gsl_stats_median(scratch, 1, n);
}

/* ln median of a resample of x[0..n) drawn into scratch. */
static double resampled_log_median(gsl_rng *rng, double *scratch, const double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = x[gsl_rng_uniform_int(rng, n)];
    return log(gsl_stats_median(scratch, 1, n));
}

static int check_inputs(const double *x, size_t n, const char *what)
{
    if (n == 0)
        return rpl_error_set(RPL_EUSAGE, "no %s samples to compare", what);
    for (size_t i = 0; i < n; i++)
        if (!(x[i] > 0) || !isfinite(x[i]))
            return rpl_error_set(RPL_EUSAGE, "%s sample %zu is not a positive duration", what, i);
    return 0;
}

static rpl_change classify(const rpl_runtime_cmp *c, double delta)
{
    if (c->lower > log1p(delta))
        return RPL_CHANGE_SLOWER;
    if (c->upper < log1p(-delta))
        return RPL_CHANGE_FASTER;
    if (c->lower >= log1p(-delta) && c->upper <= log1p(delta))
        return RPL_CHANGE_SAME;
    return RPL_CHANGE_UNDECIDED;
}

static rpl_verdict decide(rpl_change change, const rpl_gate_stat_opts *o)
{
    switch (change) {
    case RPL_CHANGE_SLOWER:
        return RPL_VERDICT_FAIL;
    case RPL_CHANGE_FASTER:
        return RPL_VERDICT_IMPROVED;
    case RPL_CHANGE_UNDECIDED:
        return o->undecided;
    default:
        return RPL_VERDICT_PASS;
    }
}

/* Stored-baseline mode: mu_B and sigma_run from the history's ln-medians. */
static void history_spread(rpl_runtime_cmp *c, double *scratch, const double *history, size_t k,
                           double *mu)
{
    for (size_t i = 0; i < k; i++)
        scratch[i] = log(history[i]);
    *mu = gsl_stats_median(scratch, 1, k); /* reorders; the set stays */
    for (size_t i = 0; i < k; i++)
        scratch[i] = fabs(scratch[i] - *mu);
    c->sigma_run = 1.4826 * gsl_stats_median(scratch, 1, k);
    if (c->sigma_run < RPL_GATE_SIGMA_FLOOR)
        c->sigma_run = RPL_GATE_SIGMA_FLOOR;
    c->history = k;
}

int rpl_gate_compare_samples(rpl_runtime_cmp *out, const double *base, size_t nbase,
                             const double *cand, size_t ncand, const double *history,
                             size_t nhistory, const rpl_gate_stat_opts *o)
{
    bool stored = history && nhistory >= RPL_GATE_MIN_HISTORY;
    size_t nmax = nbase > ncand ? nbase : ncand;
    double *scratch, *boot, thr = log1p(o->delta), mu = 0;
    gsl_rng *rng;
    size_t below = 0;
    int rc;

    memset(out, 0, sizeof(*out));
    if (!(o->delta > 0 && o->delta < 1) || !(o->confidence > 0.5 && o->confidence < 1) ||
        o->bootstrap < 100 ||
        (o->undecided != RPL_VERDICT_PASS && o->undecided != RPL_VERDICT_WARN &&
         o->undecided != RPL_VERDICT_FAIL))
        return rpl_error_set(RPL_EUSAGE, "bad gate options: tolerance %g, confidence %g, B %u",
                             o->delta, o->confidence, o->bootstrap);
    if ((rc = check_inputs(base, nbase, "baseline")) ||
        (rc = check_inputs(cand, ncand, "candidate")))
        return rc;
    if (stored && (rc = check_inputs(history, nhistory, "history")))
        return rc;
    if (nhistory > nmax)
        nmax = nhistory;
    scratch = malloc(nmax * sizeof(*scratch));
    boot = malloc(o->bootstrap * sizeof(*boot));
    rng = rpl_rng_mt19937(o->seed);
    if (!scratch || !boot || !rng) {
        free(scratch);
        free(boot);
        if (rng)
            gsl_rng_free(rng);
        return rpl_error_oom();
    }
    out->median_cand = median_copy(scratch, cand, ncand);
    if (stored) {
        history_spread(out, scratch, history, nhistory, &mu);
        out->median_base = exp(mu);
    } else {
        out->median_base = median_copy(scratch, base, nbase);
        mu = log(out->median_base);
    }
    out->log_ratio = log(out->median_cand) - mu;
    for (unsigned k = 0; k < o->bootstrap; k++) {
        double l = resampled_log_median(rng, scratch, cand, ncand);
        if (!stored)
            l -= resampled_log_median(rng, scratch, base, nbase);
        boot[k] = l;
    }
    out->se_boot = gsl_stats_sd(boot, 1, o->bootstrap);
    if (stored) {
        double s = sqrt(out->se_boot * out->se_boot +
                        out->sigma_run * out->sigma_run * (1.0 + 1.0 / (double)nhistory));
        double t = gsl_cdf_tdist_Pinv(o->confidence, (double)(nhistory - 1));
        out->lower = out->log_ratio - t * s;
        out->upper = out->log_ratio + t * s;
        out->p_value = gsl_cdf_tdist_Q((out->log_ratio - thr) / s, (double)(nhistory - 1));
    } else {
        gsl_sort(boot, 1, o->bootstrap);
        out->lower = gsl_stats_quantile_from_sorted_data(boot, 1, o->bootstrap, 1 - o->confidence);
        out->upper = gsl_stats_quantile_from_sorted_data(boot, 1, o->bootstrap, o->confidence);
        for (unsigned k = 0; k < o->bootstrap; k++)
            below += boot[k] <= thr;
        out->p_value = (double)(below + 1) / (double)(o->bootstrap + 1);
    }
    out->change = classify(out, o->delta);
    out->verdict = decide(out->change, o);
    gsl_rng_free(rng);
    free(boot);
    free(scratch);
    return 0;
}

int rpl_gate_holm(bool *reject, const double *p, size_t n, double alpha)
{
    size_t *order = malloc((n ? n : 1) * sizeof(*order));

    if (!order)
        return rpl_error_oom();
    gsl_sort_index(order, p, 1, n);
    for (size_t i = 0; i < n; i++)
        reject[i] = false;
    for (size_t i = 0; i < n; i++) {
        if (p[order[i]] > alpha / (double)(n - i))
            break;
        reject[order[i]] = true;
    }
    free(order);
    return 0;
}
