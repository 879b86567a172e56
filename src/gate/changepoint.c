/*
 * E-Divisive change points with a permutation test (see rpl/trend.h), and
 * the drift rule over them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fit.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_statistics_double.h>

#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/rng.h"
#include "rpl/trend.h"

void rpl_cp_opts_init(rpl_cp_opts *o)
{
    o->permutations = RPL_CP_DEFAULT_PERMUTATIONS;
    o->alpha = RPL_CP_DEFAULT_ALPHA;
    o->min_size = RPL_CP_DEFAULT_MIN_SIZE;
    o->seed = RPL_CP_DEFAULT_SEED;
}

/*
 * The split t of y[0..n) (min <= t <= n - min) with the largest
 * q(t) = m k / (m + k) * (2 B / (m k) - W_L / C(m,2) - W_R / C(k,2)),
 * m = t, k = n - t, B the distances across the split, W_L and W_R those
 * within each side.  Moving y[t] from right to left updates the three sums
 * in O(n), so all splits cost O(n^2).  Returns q, -inf without a split.
 */
static double best_split(const double *y, size_t n, size_t min, size_t *tau)
{
    double wl = 0, wr = 0, b = 0, best = -INFINITY;

    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            wr += fabs(y[i] - y[j]);
    for (size_t t = 0; t + min <= n; t++) {
        double left = 0, right = 0;

        if (t >= min) {
            double m = (double)t, k = (double)(n - t);
            double e = 2.0 * b / (m * k) - wl / (m * (m - 1) / 2) - wr / (k * (k - 1) / 2);
            double q = m * k / (m + k) * e;
            if (q > best) {
                best = q;
                *tau = t;
            }
        }
        for (size_t i = 0; i < t; i++)
            left += fabs(y[i] - y[t]);
        for (size_t j = t + 1; j < n; j++)
            right += fabs(y[t] - y[j]);
        wl += left;
        wr -= right;
        b += right - left;
    }
    return best;
}

typedef struct segment {
    size_t start, end; /* [start, end) */
    size_t tau;        /* best split, absolute */
    double q;
} segment;

static void segment_best(segment *s, const double *y, size_t min)
{
    size_t t = 0;

    s->q = s->end - s->start >= 2 * min ? best_split(y + s->start, s->end - s->start, min, &t)
                                        : -INFINITY;
    s->tau = s->start + t;
}

/*
 * p-value of the split of s: (1 + shuffles of the segment whose best q
 * reaches s's) / (1 + shuffles).  Once so many reached it that p must
 * exceed alpha, the shuffling stops and that lower bound is returned.
 */
static double permutation_p(const segment *s, const double *y, double *buf, gsl_rng *rng,
                            const rpl_cp_opts *o)
{
    size_t n = s->end - s->start, t, reached = 0;
    size_t give_up = (size_t)floor(o->alpha * (o->permutations + 1));

    give_up = give_up ? give_up : 1;

    memcpy(buf, y + s->start, n * sizeof(*buf));
    for (unsigned k = 0; k < o->permutations; k++) {
        gsl_ran_shuffle(rng, buf, n, sizeof(*buf));
        if (best_split(buf, n, o->min_size, &t) >= s->q && ++reached >= give_up)
            break;
    }
    return (double)(reached + 1) / (double)(o->permutations + 1);
}

static double median_of(const double *x, size_t from, size_t to, double *scratch)
{
    memcpy(scratch, x + from, (to - from) * sizeof(*scratch));
    return gsl_stats_median(scratch, 1, to - from);
}

static int compare_index(const void *a, const void *b)
{
    const rpl_change_point *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

/* Levels and sizes once the points are known and sorted. */
static void fill_levels(rpl_change_point *cp, size_t ncp, const double *x, size_t n, double *buf)
{
    for (size_t i = 0; i < ncp; i++) {
        size_t from = i ? cp[i - 1].index : 0, to = i + 1 < ncp ? cp[i + 1].index : n;
        cp[i].before = median_of(x, from, cp[i].index, buf);
        cp[i].after = median_of(x, cp[i].index, to, buf);
        cp[i].size = cp[i].after / cp[i].before - 1.0;
    }
}

int rpl_change_points(rpl_change_point **out, size_t *nout, const double *x, size_t n,
                      const rpl_cp_opts *o)
{
    size_t maxcp = o->min_size ? n / o->min_size : 0, nseg = 1, ncp = 0;
    segment *seg = NULL;
    rpl_change_point *cp = NULL;
    double *y = NULL, *buf = NULL;
    gsl_rng *rng = NULL;
    int rc = 0;

    *out = NULL;
    *nout = 0;
    if (o->min_size < 2 || o->permutations < 19 || !(o->alpha > 0 && o->alpha < 1))
        return rpl_error_set(RPL_EUSAGE,
                             "bad change point options: min size %zu, %u "
                             "permutations, alpha %g",
                             o->min_size, o->permutations, o->alpha);
    for (size_t i = 0; i < n; i++)
        if (!(x[i] > 0) || !isfinite(x[i]))
            return rpl_error_set(RPL_EUSAGE, "history value %zu is not a positive duration", i);
    if (n < 2 * o->min_size)
        return 0;
    y = malloc(n * sizeof(*y));
    buf = malloc(n * sizeof(*buf));
    seg = calloc(maxcp + 1, sizeof(*seg));
    cp = calloc(maxcp + 1, sizeof(*cp));
    rng = rpl_rng_mt19937(o->seed);
    if (!y || !buf || !seg || !cp || !rng) {
        rc = rpl_error_oom();
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        y[i] = log(x[i]);
    seg[0] = (segment){0, n, 0, 0};
    segment_best(&seg[0], y, o->min_size);
    while (ncp < maxcp) {
        size_t best = 0;
        double p;

        for (size_t s = 1; s < nseg; s++)
            if (seg[s].q > seg[best].q)
                best = s;
        if (!isfinite(seg[best].q))
            break;
        p = permutation_p(&seg[best], y, buf, rng, o);
        if (p > o->alpha)
            break;
        cp[ncp++] = (rpl_change_point){.index = seg[best].tau, .p_value = p, .q = seg[best].q};
        seg[nseg] = (segment){seg[best].tau, seg[best].end, 0, 0};
        seg[best].end = seg[best].tau;
        segment_best(&seg[best], y, o->min_size);
        segment_best(&seg[nseg++], y, o->min_size);
    }
    qsort(cp, ncp, sizeof(*cp), compare_index);
    fill_levels(cp, ncp, x, n, buf);
    *out = cp;
    *nout = ncp;
    cp = NULL;
done:
    if (rng)
        gsl_rng_free(rng);
    RPL_FREE_EACH(y, buf, seg, cp);
    return rc;
}

/* Residual sum of squares of ln x about the found levels (segment means). */
static double rss_steps(const rpl_change_point *cp, size_t ncp, const double *x, size_t n)
{
    double rss = 0;

    for (size_t seg = 0; seg <= ncp; seg++) {
        size_t from = seg ? cp[seg - 1].index : 0, to = seg < ncp ? cp[seg].index : n;
        double mean = 0;

        for (size_t i = from; i < to; i++)
            mean += log(x[i]);
        mean /= (double)(to - from);
        for (size_t i = from; i < to; i++)
            rss += (log(x[i]) - mean) * (log(x[i]) - mean);
    }
    return rss;
}

/* Residual sum of squares of ln x about its least-squares line over the index. */
static double rss_line(const double *x, size_t n)
{
    double *idx = malloc(n * sizeof(*idx)), *y = malloc(n * sizeof(*y));
    double c0, c1, c00, c01, c11, rss = INFINITY;

    if (idx && y) {
        for (size_t i = 0; i < n; i++) {
            idx[i] = (double)i;
            y[i] = log(x[i]);
        }
        gsl_fit_linear(idx, 1, y, 1, n, &c0, &c1, &c00, &c01, &c11, &rss);
    }
    free(idx);
    free(y);
    return rss;
}

/* Where a ramp begins: the t0 of the best hinge fit, ln x = a + b max(0, i - t0). */
static size_t hinge_start(const double *x, size_t n)
{
    double *z = malloc(n * sizeof(*z)), *y = malloc(n * sizeof(*y));
    double c0, c1, c00, c01, c11, rss, best = INFINITY;
    size_t start = 0;

    for (size_t t0 = 0; z && y && t0 + 3 <= n; t0++) {
        for (size_t i = 0; i < n; i++) {
            z[i] = i > t0 ? (double)(i - t0) : 0.0;
            y[i] = log(x[i]);
        }
        gsl_fit_linear(z, 1, y, 1, n, &c0, &c1, &c00, &c01, &c11, &rss);
        if (rss < best) {
            best = rss;
            start = t0;
        }
    }
    free(z);
    free(y);
    return start;
}

void rpl_drift_find(rpl_drift *out, const rpl_change_point *cp, size_t ncp, const double *x,
                    size_t n, double tolerance)
{
    double total, largest = 0;
    size_t steps = 0;

    memset(out, 0, sizeof(*out));
    if (ncp == 0)
        return;
    total = cp[ncp - 1].after / cp[0].before - 1.0;
    if (fabs(total) <= tolerance)
        return;
    for (size_t i = 0; i < ncp; i++)
        if ((cp[i].size > 0) == (total > 0)) {
            steps++;
            if (fabs(cp[i].size) > largest)
                largest = fabs(cp[i].size);
        }
    /* Several steps none of which dominates, or a history that a straight line (2 parameters)
     * describes at least as well as the steps found (a level per segment and a position per
     * step) by the Bayesian information criterion: a gradual move. */
    if ((steps >= 2 && largest <= RPL_DRIFT_MAX_SHARE * fabs(total)) ||
        (double)n * log(rss_line(x, n)) + 2.0 * log((double)n) <=
            (double)n * log(rss_steps(cp, ncp, x, n)) + (2.0 * (double)ncp + 1.0) * log((double)n))
        *out = (rpl_drift){true, hinge_start(x, n), total, steps};
}
