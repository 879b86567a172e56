/*
 * The confirm phase's verdict: the lowest median wins, and every other
 * confirmed configuration that the gate's bootstrap rule cannot separate
 * from it is reported as tied with it.
 */
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "rpl/autotune.h"
#include "rpl/error.h"

static double median_of(const double *x, size_t n)
{
    double *tmp = malloc(n * sizeof(*tmp)), m;

    if (!tmp)
        return -1;
    memcpy(tmp, x, n * sizeof(*tmp));
    m = gsl_stats_median(tmp, 1, n);
    free(tmp);
    return m;
}

int rpl_tune_decide(size_t *winner, bool *tied, rpl_runtime_cmp *cmp, const double *const *samples,
                    const size_t *nsamples, size_t n, const rpl_gate_stat_opts *opts)
{
    double best = 0;
    int rc;

    if (n == 0)
        return rpl_error_set(RPL_EUSAGE, "no configurations to decide between");
    *winner = 0;
    for (size_t i = 0; i < n; i++) {
        double m;
        if (nsamples[i] == 0)
            return rpl_error_set(RPL_EUSAGE, "a confirmed configuration has no samples");
        if ((m = median_of(samples[i], nsamples[i])) < 0)
            return rpl_error_oom();
        if (i == 0 || m < best) {
            best = m;
            *winner = i;
        }
    }
    for (size_t i = 0; i < n; i++) {
        memset(&cmp[i], 0, sizeof(cmp[i]));
        tied[i] = true;
        if (i == *winner)
            continue;
        rc = rpl_gate_compare_samples(&cmp[i], samples[i], nsamples[i], samples[*winner],
                                      nsamples[*winner], NULL, 0, opts);
        if (rc != 0)
            return rc;
        tied[i] = !(cmp[i].upper < 0);
    }
    return 0;
}
