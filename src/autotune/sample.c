/*
 * Space-filling sample over the discrete grid: random Latin-hypercube
 * designs in the unit cube of value indices, each point snapped to the
 * nearest unused feasible configuration, and the design with the largest
 * smallest distance (maximin) kept.  Constraints make the grid irregular,
 * so the design is built in the cube and projected onto what is allowed.
 */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/rng.h"

#define MAX_DESIGNS 64
#define WORK_LIMIT  5e7 /* distance evaluations spent on snapping, over all designs */

/* Unit-cube coordinates of a config: value index / (values - 1). */
static void coords(double *u, const rpl_tune_space *s, size_t config)
{
    for (size_t j = 0; j < s->nparams; j++) {
        size_t nv = s->params[j].nvalues;
        u[j] = nv > 1 ? (double)s->levels[config * s->nparams + j] / (double)(nv - 1) : 0;
    }
}

static double dist2(const double *a, const double *b, size_t d)
{
    double s = 0;

    for (size_t j = 0; j < d; j++)
        s += (a[j] - b[j]) * (a[j] - b[j]);
    return s;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;

    return x < y ? -1 : x > y;
}

/* The smallest squared distance among the picked points and from them to the taken ones. */
static double design_score(const double *pu, size_t n, const double *tu, size_t ntaken, size_t d)
{
    double best = DBL_MAX;

    for (size_t i = 0; i < n; i++) {
        for (size_t k = i + 1; k < n; k++) {
            double v = dist2(pu + i * d, pu + k * d, d);
            if (v < best)
                best = v;
        }
        for (size_t k = 0; k < ntaken; k++) {
            double v = dist2(pu + i * d, tu + k * d, d);
            if (v < best)
                best = v;
        }
    }
    return best;
}

/* One design: n stratified points, snapped to unused candidates; picks are positions in cand. */
static void one_design(size_t *pick, double *pu, size_t n, gsl_rng *rng, const double *cu,
                       size_t ncand, bool *used, size_t *perm, double *target, size_t d)
{
    memset(used, 0, ncand * sizeof(*used));
    for (size_t j = 0; j < d; j++) {
        for (size_t i = 0; i < n; i++)
            perm[i] = i;
        gsl_ran_shuffle(rng, perm, n, sizeof(*perm));
        for (size_t i = 0; i < n; i++)
            target[i * d + j] = ((double)perm[i] + gsl_rng_uniform(rng)) / (double)n;
    }
    for (size_t i = 0; i < n; i++) {
        size_t best = 0;
        double bd = DBL_MAX;
        for (size_t c = 0; c < ncand; c++) {
            double v;
            if (used[c])
                continue;
            v = dist2(target + i * d, cu + c * d, d);
            if (v < bd) {
                bd = v;
                best = c;
            }
        }
        used[best] = true;
        pick[i] = best;
        memcpy(pu + i * d, cu + best * d, d * sizeof(*pu));
    }
}

int rpl_tune_sample(size_t *chosen, size_t *nchosen, size_t n, const rpl_tune_space *s,
                    const size_t *cand, size_t ncand, const size_t *taken, size_t ntaken,
                    unsigned long seed)
{
    size_t d = s->nparams, designs;
    double *cu, *tu, *pu, *target, best_score = -1;
    size_t *pick, *best_pick, *perm;
    bool *used;
    gsl_rng *rng;
    int rc = 0;

    *nchosen = 0;
    if (n >= ncand) {
        memcpy(chosen, cand, ncand * sizeof(*chosen));
        qsort(chosen, ncand, sizeof(*chosen), cmp_size);
        *nchosen = ncand;
        return 0;
    }
    if (n == 0)
        return 0;
    designs = (size_t)(WORK_LIMIT / ((double)n * (double)ncand * (double)d));
    designs = designs < 1 ? 1 : designs > MAX_DESIGNS ? MAX_DESIGNS : designs;
    cu = malloc(ncand * d * sizeof(*cu));
    tu = malloc((ntaken ? ntaken : 1) * d * sizeof(*tu));
    pu = malloc(n * d * sizeof(*pu));
    target = malloc(n * d * sizeof(*target));
    pick = malloc(n * sizeof(*pick));
    best_pick = malloc(n * sizeof(*best_pick));
    perm = malloc(n * sizeof(*perm));
    used = malloc(ncand * sizeof(*used));
    rng = rpl_rng_mt19937(seed);
    if (!cu || !tu || !pu || !target || !pick || !best_pick || !perm || !used || !rng) {
        rc = rpl_error_oom();
        goto out;
    }
    for (size_t c = 0; c < ncand; c++)
        coords(cu + c * d, s, cand[c]);
    for (size_t k = 0; k < ntaken; k++)
        coords(tu + k * d, s, taken[k]);
    for (size_t t = 0; t < designs; t++) {
        double score;
        one_design(pick, pu, n, rng, cu, ncand, used, perm, target, d);
        score = design_score(pu, n, tu, ntaken, d);
        if (score > best_score) {
            best_score = score;
            memcpy(best_pick, pick, n * sizeof(*pick));
        }
    }
    for (size_t i = 0; i < n; i++)
        chosen[i] = cand[best_pick[i]];
    qsort(chosen, n, sizeof(*chosen), cmp_size);
    *nchosen = n;
out:
    if (rng)
        gsl_rng_free(rng);
    RPL_FREE_EACH(cu, tu, pu, target, pick, best_pick, perm, used);
    return rc;
}
