/*
 * The response-surface model of the tuner: ordinary least squares
 * (gsl_multifit_linear) of the response on an intercept, linear and square
 * terms and, when k-fold cross-validation says they predict better,
 * pairwise interactions; every column standardised over the points fitted,
 * constant and collinear ones left out (an SVD of a near-singular design
 * still gives huge, meaningless coefficients that predict nonsense away
 * from the points).
 *
 * Ordinary rather than robust least squares: every point is the median of
 * many kernel durations already, so single outliers are gone before the
 * fit, and a robust fit would down-weight exactly the configurations that
 * stand out, which in a tuning search are the interesting ones.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_randist.h>

#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/rng.h"

#define DEFAULT_FOLDS 5

void rpl_tune_model_free(rpl_tune_model *m)
{
    if (!m)
        return;
    RPL_FREE_EACH(m->terms, m->coef, m->active, m);
}

static double term_value(const rpl_tune_term *t, const double *x)
{
    if (t->b < 0)
        return x[t->a];
    return x[t->a] * x[t->b];
}

double rpl_tune_model_predict(const rpl_tune_model *m, const double *x)
{
    double y = m->coef[0];

    for (size_t t = 0; t < m->nterms; t++)
        y += m->coef[t + 1] * term_value(&m->terms[t], x);
    return y;
}

/* Residual fraction of a standardised column's norm below which it is collinear (VIF > 1000). */
#define COLLINEAR_TOL 1e-3

/* Mean and spread of column v over `rows`; false when it is constant there, else v standardised. */
static bool standardise(double *v, size_t rows, double *mean, double *sd)
{
    double ss = 0, scale = 0;

    for (size_t i = 0; i < rows; i++)
        *mean += v[i] / (double)rows;
    for (size_t i = 0; i < rows; i++) {
        ss += (v[i] - *mean) * (v[i] - *mean);
        scale = fmax(scale, fabs(v[i]));
    }
    *sd = sqrt(ss / (double)rows);
    if (!(*sd > 1e-12 * fmax(scale, 1e-300)))
        return false;
    for (size_t i = 0; i < rows; i++)
        v[i] = (v[i] - *mean) / *sd;
    return true;
}

/*
 * u: the part of column v that the `kept` orthonormal columns of q do not
 * explain (projected out twice for accuracy), normalised; false when that
 * part is below COLLINEAR_TOL.
 */
static bool orthogonal_part(double *u, const double *v, const double *q, size_t kept, size_t rows)
{
    double norm2 = 0;

    memcpy(u, v, rows * sizeof(*u));
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < kept; k++) {
            double dot = 0;
            for (size_t i = 0; i < rows; i++)
                dot += q[k * rows + i] * u[i];
            for (size_t i = 0; i < rows; i++)
                u[i] -= dot * q[k * rows + i];
        }
    }
    for (size_t i = 0; i < rows; i++)
        norm2 += u[i] * u[i];
    if (norm2 < COLLINEAR_TOL * (double)rows)
        return false;
    for (size_t i = 0; i < rows; i++)
        u[i] /= sqrt(norm2);
    return true;
}

/* The standardised columns of the terms that stayed (z: term-major over `rows`). */
typedef struct design {
    const double *z;
    size_t rows;
    const size_t *col; /* the kept terms */
    size_t kept;
    const double *mean, *sd; /* per term */
} design;

/*
 * Least squares of y (rows with mask[i] != skip) on an intercept and the
 * kept columns; c (p + 1) on the scale of the raw terms: b (t - mean) / sd.
 */
static int fit_design(double *c, size_t p, const design *dz, const double *y, size_t n,
                      const unsigned *mask, unsigned skip)
{
    size_t rows = dz->rows, kept = dz->kept, r = 0;
    gsl_matrix *X = gsl_matrix_alloc(rows, kept + 1), *cov = gsl_matrix_alloc(kept + 1, kept + 1);
    gsl_vector *Y = gsl_vector_alloc(rows), *C = gsl_vector_alloc(kept + 1);
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(rows, kept + 1);
    double chisq;
    int status = GSL_ENOMEM;

    if (X && cov && Y && C && w) {
        for (size_t i = 0; i < n; i++) {
            if (mask && mask[i] == skip)
                continue;
            gsl_matrix_set(X, r, 0, 1.0);
            for (size_t k = 0; k < kept; k++)
                gsl_matrix_set(X, r, k + 1, dz->z[dz->col[k] * rows + r]);
            gsl_vector_set(Y, r, y[i]);
            r++;
        }
        status = gsl_multifit_linear(X, Y, C, cov, &chisq, w);
    }
    if (status == GSL_SUCCESS) {
        memset(c, 0, (p + 1) * sizeof(*c));
        c[0] = gsl_vector_get(C, 0);
        for (size_t k = 0; k < kept; k++) {
            double b = gsl_vector_get(C, k + 1) / dz->sd[dz->col[k]];
            c[dz->col[k] + 1] = b;
            c[0] -= b * dz->mean[dz->col[k]];
        }
    }
    if (w)
        gsl_multifit_linear_free(w);
    if (C)
        gsl_vector_free(C);
    if (Y)
        gsl_vector_free(Y);
    if (cov)
        gsl_matrix_free(cov);
    if (X)
        gsl_matrix_free(X);
    if (status == GSL_ENOMEM)
        return rpl_error_oom();
    if (status != GSL_SUCCESS)
        return rpl_error_set(RPL_ERROR, "least squares failed: %s", gsl_strerror(status));
    return 0;
}

/*
 * Least squares on the rows with mask[i] != skip (mask NULL: every row);
 * coefficients into c (p + 1), on the scale of the raw terms.  Each term's
 * column is standardised over those rows; a constant column, and one that
 * the columns before it explain to within COLLINEAR_TOL of its norm
 * (Gram-Schmidt in term order: linear terms before squares and products),
 * is left out with a zero coefficient, so a near-singular design cannot
 * blow coefficients up.  active[t] (may be NULL) says which terms stayed.
 */
static int solve(double *c, const double *x, const double *y, size_t n, size_t d,
                 const rpl_tune_term *terms, size_t p, const unsigned *mask, unsigned skip,
                 bool *active)
{
    size_t rows = 0, r = 0, kept = 0, *col;
    double *z, *q, *mean, *sd;
    int rc;

    for (size_t i = 0; i < n; i++)
        rows += !mask || mask[i] != skip;
    z = malloc((rows * (p ? p : 1)) * sizeof(*z));
    q = malloc((rows * (p ? p : 1)) * sizeof(*q));
    mean = calloc(p + 1, sizeof(*mean));
    sd = calloc(p + 1, sizeof(*sd));
    col = malloc((p + 1) * sizeof(*col));
    if (!z || !q || !mean || !sd || !col) {
        rc = rpl_error_oom();
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (mask && mask[i] == skip)
            continue;
        for (size_t t = 0; t < p; t++)
            z[t * rows + r] = term_value(&terms[t], x + i * d);
        r++;
    }
    for (size_t t = 0; t < p; t++) {
        bool keep = standardise(z + t * rows, rows, &mean[t], &sd[t]) &&
                    orthogonal_part(q + kept * rows, z + t * rows, q, kept, rows);

        if (keep)
            col[kept++] = t;
        if (active)
            active[t] = keep;
    }
    rc = fit_design(c, p, &(design){z, rows, col, kept, mean, sd}, y, n, mask, skip);
out:
    RPL_FREE_EACH(z, q, mean, sd, col);
    return rc;
}

static double predict_with(const double *c, const rpl_tune_term *terms, size_t p, const double *x)
{
    double v = c[0];

    for (size_t t = 0; t < p; t++)
        v += c[t + 1] * term_value(&terms[t], x);
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/*
 * k-fold cross-validation of the term set (folds from a seeded shuffle):
 * the RMSE of the held-out residuals of the response and, the response
 * being a logarithm, the median held-out |pred/meas - 1|.
 */
static int cross_validate(double *rmse, double *rel, const double *x, const double *y, size_t n,
                          size_t d, const rpl_tune_term *terms, size_t p, const unsigned *fold,
                          unsigned folds)
{
    double *c = malloc((p + 1) * sizeof(*c)), *err = malloc(n * sizeof(*err)), sse = 0;
    int rc = 0;

    if (!c || !err) {
        free(c);
        free(err);
        return rpl_error_oom();
    }
    for (unsigned f = 0; f < folds && rc == 0; f++) {
        rc = solve(c, x, y, n, d, terms, p, fold, f, NULL);
        for (size_t i = 0; rc == 0 && i < n; i++) {
            if (fold[i] == f) {
                double e = predict_with(c, terms, p, x + i * d) - y[i];
                sse += e * e;
                err[i] = fabs(expm1(e));
            }
        }
    }
    *rmse = sqrt(sse / (double)n);
    if (rc == 0) {
        qsort(err, n, sizeof(*err), cmp_double);
        *rel = n % 2 ? err[n / 2] : (err[n / 2 - 1] + err[n / 2]) / 2;
    }
    free(c);
    free(err);
    return rc;
}

/* The candidate term lists: base (linear, then squares) and base + interactions. */
static int make_terms(rpl_tune_term **base, size_t *nbase, size_t *ninter, size_t d,
                      const rpl_tune_fit_opts *o)
{
    size_t np = o->nparam_inputs < d ? o->nparam_inputs : d, k = 0;
    size_t cap = d + d + np * (np - (np > 0)) / 2;
    rpl_tune_term *t = malloc((cap ? cap : 1) * sizeof(*t));

    if (!t)
        return rpl_error_oom();
    for (size_t a = 0; a < d; a++)
        t[k++] = (rpl_tune_term){(int)a, -1};
    for (size_t a = 0; a < d; a++)
        if (o->quadratic && o->quadratic[a])
            t[k++] = (rpl_tune_term){(int)a, (int)a};
    *nbase = k;
    for (size_t a = 0; a < np; a++)
        for (size_t b = a + 1; b < np; b++)
            t[k++] = (rpl_tune_term){(int)a, (int)b};
    *ninter = k - *nbase;
    *base = t;
    return 0;
}

static int assign_folds(unsigned *fold, size_t n, unsigned folds, unsigned long seed)
{
    size_t *perm = malloc(n * sizeof(*perm));
    gsl_rng *rng = rpl_rng_mt19937(seed);

    if (!perm || !rng) {
        free(perm);
        if (rng)
            gsl_rng_free(rng);
        return rpl_error_oom();
    }
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    gsl_ran_shuffle(rng, perm, n, sizeof(*perm));
    for (size_t i = 0; i < n; i++)
        fold[perm[i]] = (unsigned)(i % folds);
    gsl_rng_free(rng);
    free(perm);
    return 0;
}

/* R^2 of the fitted coefficients on every point. */
static double r_squared(const rpl_tune_model *m, const double *x, const double *y, size_t n,
                        size_t d)
{
    double mean = 0, sst = 0, sse = 0;

    for (size_t i = 0; i < n; i++)
        mean += y[i] / (double)n;
    for (size_t i = 0; i < n; i++) {
        double e = rpl_tune_model_predict(m, x + i * d) - y[i];
        sse += e * e;
        sst += (y[i] - mean) * (y[i] - mean);
    }
    if (sst <= 0)
        return sse <= 1e-24 ? 1.0 : 0.0;
    return 1.0 - sse / sst;
}

static int fit(rpl_tune_model *m, const double *x, size_t n, size_t d, const double *y,
               const rpl_tune_fit_opts *o)
{
    rpl_tune_term *terms = NULL;
    size_t nbase = 0, ninter = 0, pmax, train_min;
    unsigned folds = o->folds ? o->folds : DEFAULT_FOLDS, *fold = NULL;
    int rc;

    if (folds > n)
        folds = (unsigned)n;
    if ((rc = make_terms(&terms, &nbase, &ninter, d, o)) != 0)
        return rc;
    /* Each training set keeps one residual degree of freedom beyond p + 1 coefficients. */
    train_min = folds >= 2 ? n - (n + folds - 1) / folds : n;
    pmax = train_min >= 2 ? train_min - 2 : 0;
    m->dropped = nbase > pmax ? nbase - pmax : 0;
    m->nterms = nbase - m->dropped;
    m->cv_rmse = m->cv_rmse_base = m->cv_rmse_interactions = m->cv_error = NAN;
    if (folds >= 2 && !(fold = malloc(n * sizeof(*fold))))
        rc = rpl_error_oom();
    if (rc == 0 && fold)
        rc = assign_folds(fold, n, folds, o->seed);
    if (rc == 0 && fold) {
        m->folds = folds;
        rc = cross_validate(&m->cv_rmse_base, &m->cv_error, x, y, n, d, terms, m->nterms, fold,
                            folds);
        m->cv_rmse = m->cv_rmse_base;
    }
    /* Interactions only when every base term fits beside them and they predict better. */
    if (rc == 0 && fold && o->try_interactions && ninter > 0 && m->dropped == 0 &&
        nbase + ninter <= pmax) {
        double rel = NAN;
        rc = cross_validate(&m->cv_rmse_interactions, &rel, x, y, n, d, terms, nbase + ninter, fold,
                            folds);
        if (rc == 0 && m->cv_rmse_interactions < m->cv_rmse_base) {
            m->interactions = true;
            m->nterms = nbase + ninter;
            m->cv_rmse = m->cv_rmse_interactions;
            m->cv_error = rel;
        }
    }
    m->terms = terms;
    terms = NULL;
    if (rc == 0 && (!(m->coef = calloc(m->nterms + 1, sizeof(*m->coef))) ||
                    !(m->active = calloc(m->nterms ? m->nterms : 1, sizeof(*m->active)))))
        rc = rpl_error_oom();
    if (rc == 0)
        rc = solve(m->coef, x, y, n, d, m->terms, m->nterms, NULL, 0, m->active);
    for (size_t t = 0; rc == 0 && t < m->nterms; t++)
        m->inactive += !m->active[t];
    if (rc == 0)
        m->r2 = r_squared(m, x, y, n, d);
    free(fold);
    return rc;
}

int rpl_tune_model_fit(rpl_tune_model **out, const double *x, size_t n, size_t d, const double *y,
                       const rpl_tune_fit_opts *o)
{
    rpl_tune_model *m = calloc(1, sizeof(*m));
    gsl_error_handler_t *old;
    int rc;

    *out = NULL;
    if (!m)
        return rpl_error_oom();
    if (n == 0) {
        free(m);
        return rpl_error_set(RPL_EUSAGE, "no points to fit a model to");
    }
    m->ninputs = d;
    m->n = n;
    /* GSL's default handler aborts; its errors come back as status codes here. */
    old = gsl_set_error_handler_off();
    rc = fit(m, x, n, d, y, o);
    gsl_set_error_handler(old);
    if (rc != 0) {
        rpl_tune_model_free(m);
        return rc;
    }
    *out = m;
    return 0;
}
