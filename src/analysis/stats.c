/* Duration statistics with GSL (see rpl/stats.h). */
#include <gsl/gsl_statistics_double.h>

#include "rpl/error.h"
#include "rpl/names.h"
#include "rpl/stats.h"

/*
 * The quantile at fraction f, interpolated exactly as
 * gsl_stats_quantile_from_sorted_data does, but with the two order
 * statistics found by gsl_stats_select (quickselect, O(n)): a full sort of a
 * million durations costs ten times as much as the rest of the summary.
 */
static double quantile(double *values, size_t n, double f)
{
    const double index = f * (double)(n - 1);
    const size_t lhs = (size_t)index;
    const double delta = index - (double)lhs;
    double lo = gsl_stats_select(values, 1, n, lhs);

    if (lhs == n - 1 || delta == 0.0)
        return lo;
    return (1 - delta) * lo + delta * gsl_stats_select(values, 1, n, lhs + 1);
}

int rpl_stats_compute(rpl_duration_stats *out, double *values, size_t n)
{
    double total = 0;

    if (n == 0)
        return rpl_error_set(RPL_EUSAGE, "statistics of an empty sample");
    for (size_t i = 0; i < n; i++)
        total += values[i];
    out->count = n;
    out->total = total;
    out->mean = gsl_stats_mean(values, 1, n);
    gsl_stats_minmax(&out->min, &out->max, values, 1, n);
    /* gsl_stats_sd divides by n - 1: undefined for one value. */
    out->stddev = n < 2 ? 0.0 : gsl_stats_sd_m(values, 1, n, out->mean);
    out->cv = n < 2 || out->mean == 0.0 ? 0.0 : out->stddev / out->mean;
    out->stability = rpl_stability_classify(out->cv);
    out->median = quantile(values, n, 0.5);
    out->p10 = quantile(values, n, 0.10);
    out->p90 = quantile(values, n, 0.90);
    return 0;
}

rpl_stability rpl_stability_classify(double cv)
{
    if (cv <= RPL_CV_STABLE_MAX)
        return RPL_STABLE;
    if (cv <= RPL_CV_MODERATE_MAX)
        return RPL_MODERATE;
    return RPL_UNSTABLE;
}

const char *rpl_stability_name(rpl_stability s)
{
    static const char *const names[] = {
        [RPL_STABLE] = "stable", [RPL_MODERATE] = "moderate", [RPL_UNSTABLE] = "unstable"};

    return RPL_NAME_OF(names, s, "unstable");
}
