/*
 * Change points over a baseline's history (`rocm-perf baseline trend`, the
 * gate's trend checks and the HTML report).
 *
 * Method: E-Divisive with the energy statistic (Matteson & James 2014,
 * alpha = 1, the divisive search with kappa at the segment's end as in
 * MongoDB's and Apache Otava's E-Divisive means) on the log of each
 * kernel's medians.  Each round takes the segment split with the largest
 * q statistic and keeps it when a permutation test (the segment shuffled
 * `permutations` times with gsl_rng_mt19937 seeded with `seed`) gives
 * p <= alpha; the search stops at the first split that is not significant.
 * Every segment has at least `min_size` entries.
 */
#ifndef RPL_TREND_H
#define RPL_TREND_H

#include <stdbool.h>
#include <stddef.h>
#include <cjson/cJSON.h>

#include "rpl/baseline.h"
#include "rpl/strbuf.h"

#define RPL_CP_DEFAULT_PERMUTATIONS 199
#define RPL_CP_DEFAULT_ALPHA        0.01
#define RPL_CP_DEFAULT_MIN_SIZE     5
#define RPL_CP_DEFAULT_SEED         20260101u

typedef struct rpl_cp_opts {
    unsigned permutations;
    double alpha;
    size_t min_size;
    unsigned long seed;
} rpl_cp_opts;

void rpl_cp_opts_init(rpl_cp_opts *o);

typedef struct rpl_change_point {
    size_t index;   /* the first entry of the new level */
    double before;  /* median of the segment before (ns) */
    double after;   /* median of the segment from index on (ns) */
    double size;    /* after / before - 1 */
    double p_value; /* of the permutation test that kept it */
    double q;       /* the energy statistic of the split */
} rpl_change_point;

/*
 * Change points of x[0..n) (positive values), sorted by index (*out,
 * free()).  RPL_EUSAGE for bad options or values.
 */
int rpl_change_points(rpl_change_point **out, size_t *nout, const double *x, size_t n,
                      const rpl_cp_opts *o);

/*
 * A slow drift: the level of the last segment differs from the first one's
 * by more than the tolerance, and either in at least two change points of
 * that direction none of which carries more than RPL_DRIFT_MAX_SHARE of
 * the move, or the history (ln) is described by a straight line at least
 * as well as by the levels between the change points, by the Bayesian
 * information criterion (least squares; a line has 2 parameters, k steps
 * 2k + 1): several small steps, or a ramp, rather than one step.
 */
#define RPL_DRIFT_MAX_SHARE (2.0 / 3.0)

typedef struct rpl_drift {
    bool found;
    size_t start; /* where the ramp begins: t0 of the best least-squares hinge,
                     ln x = a + b max(0, i - t0) */
    double total; /* last level / first level - 1 */
    size_t steps; /* change points in its direction */
} rpl_drift;

void rpl_drift_find(rpl_drift *out, const rpl_change_point *cp, size_t ncp, const double *x,
                    size_t n, double tolerance);

/* Options of a trend over a baseline. */
typedef struct rpl_trend_opts {
    const char *kernel_regex; /* NULL: every kernel */
    double tolerance;         /* size of a material step, the baseline's tolerance */
    rpl_cp_opts cp;
} rpl_trend_opts;

/*
 * The trend document (docs/schemas/trend.schema.json) of baseline `b`:
 * per kernel its history with commit, date, device, driver and GPU state,
 * its change points with size, confidence and commit range (an accepted
 * move near one names it), and a drift.  Text for people into `text`
 * when not NULL.
 */
int rpl_trend_report(cJSON **out, rpl_strbuf *text, const rpl_baseline *b, const rpl_trend_opts *o);

/*
 * The baseline of `test` below `dir`: dir/<arch>/<test>.json, or without
 * `arch` the only architecture that holds the test (RPL_ENOTFOUND when none
 * does, RPL_EUSAGE when several do).  *path: free().
 */
int rpl_baseline_find(char **path, const char *dir, const char *arch, const char *test);

/*
 * `rocm-perf baseline trend`: the trend of the baseline rpl_baseline_find
 * names, appended to `out` as the trend document (json) or as text headed
 * by the test, architecture, history length and file.  A baseline without
 * a runtime section is RPL_EINPUT.  opts->tolerance is the baseline's.
 */
int rpl_baseline_trend(rpl_strbuf *out, const char *dir, const char *arch, const char *test,
                       bool json, const rpl_trend_opts *opts);

#endif
