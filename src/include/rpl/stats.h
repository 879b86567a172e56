/*
 * Duration statistics of a sample (kernel durations in ns): location,
 * spread, quantiles and the stability class of the coefficient of
 * variation.  Computed with GSL.
 */
#ifndef RPL_STATS_H
#define RPL_STATS_H

#include <stddef.h>

/* Stability of a sample by its coefficient of variation (stddev / mean). */
typedef enum rpl_stability {
    RPL_STABLE = 0,   /* cv <= 0.05 */
    RPL_MODERATE = 1, /* 0.05 < cv <= 0.10 */
    RPL_UNSTABLE = 2  /* cv > 0.10 */
} rpl_stability;

#define RPL_CV_STABLE_MAX   0.05
#define RPL_CV_MODERATE_MAX 0.10

typedef struct rpl_duration_stats {
    size_t count;
    double total; /* sum */
    double mean;
    double median;
    double min, max;
    double p10, p90; /* quantiles, linear interpolation between order statistics */
    double stddev;   /* sample standard deviation (n - 1); 0 when count < 2 */
    double cv;       /* stddev / mean; 0 when count < 2 or mean is 0 */
    rpl_stability stability;
} rpl_duration_stats;

/*
 * Statistics of `values[0..n)`.  The quantile at fraction f is the one GSL's
 * gsl_stats_quantile_from_sorted_data gives: with the sorted sample x and
 * h = (n - 1) f, x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
 * The order statistics are found by selection (O(n)), not a full sort, so
 * `values` is reordered.  n == 0 fails with RPL_EUSAGE.
 */
int rpl_stats_compute(rpl_duration_stats *out, double *values, size_t n);

rpl_stability rpl_stability_classify(double cv);
/* "stable", "moderate" or "unstable". */
const char *rpl_stability_name(rpl_stability s);

#endif
