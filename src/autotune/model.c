/*
 * The response-surface model of the tuner: ordinary least squares
 * (gsl_multifit_linear, an SVD, so collinear columns are harmless) of the
 * response on an intercept, linear and square terms and, when k-fold
 * cross-validation says they predict better, pairwise interactions.
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
#include <gsl/gsl_rng.h>

#include "rpl/autotune.h"
#include "rpl/error.h"

#define DEFAULT_FOLDS 5

void rpl_tune_model_free(rpl_tune_model *m)
{
    if (!m)
        return;
    free(m->terms);
    free(m->coef);
    free(m);
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

/*
 * Least squares on the rows with mask[i] == keep (mask NULL: every row);
 * coefficients into c (p + 1).  The rows must number at least p + 1.
 */
static int solve(double *c, const double *x, const double *y, size_t n, size_t d,
                 const rpl_tune_term *terms, size_t p, const unsigned *mask, unsigned skip)
{
    size_t rows = 0, r = 0;
    gsl_matrix *X, *cov;
    gsl_vector *Y, *C;
    gsl_multifit_linear_workspace *w;
    double chisq;
    int status;

    for (size_t i = 0; i < n; i++)
        rows += !mask || mask[i] != skip;
    X = gsl_matrix_alloc(rows, p + 1);
    cov = gsl_matrix_alloc(p + 1, p + 1);
    Y = gsl_vector_alloc(rows);
    C = gsl_vector_alloc(p + 1);
    w = gsl_multifit_linear_alloc(rows, p + 1);
    if (!X || !cov || !Y || !C || !w) {
        status = GSL_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        if (mask && mask[i] == skip)
            continue;
        gsl_matrix_set(X, r, 0, 1.0);
        for (size_t t = 0; t < p; t++)
            gsl_matrix_set(X, r, t + 1, term_value(&terms[t], x + i * d));
        gsl_vector_set(Y, r, y[i]);
        r++;
    }
    status = gsl_multifit_linear(X, Y, C, cov, &chisq, w);
    for (size_t t = 0; status == GSL_SUCCESS && t <= p; t++)
        c[t] = gsl_vector_get(C, t);
out:
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
    return RPL_OK;
}

static double predict_with(const double *c, const rpl_tune_term *terms, size_t p, const double *x)
{
    double v = c[0];

    for (size_t t = 0; t < p; t++)
        v += c[t + 1] * term_value(&terms[t], x);
    return v;
}

/* k-fold cross-validated RMSE of the term set; folds from a seeded shuffle. */
static int cross_validate(double *rmse, const double *x, const double *y, size_t n, size_t d,
                          const rpl_tune_term *terms, size_t p, const unsigned *fold,
                          unsigned folds)
{
    double *c = malloc((p + 1) * sizeof(*c)), sse = 0;
    int rc = RPL_OK;

    if (!c)
        return rpl_error_oom();
    for (unsigned f = 0; f < folds && rc == RPL_OK; f++) {
        rc = solve(c, x, y, n, d, terms, p, fold, f);
        for (size_t i = 0; rc == RPL_OK && i < n; i++) {
            if (fold[i] == f) {
                double e = predict_with(c, terms, p, x + i * d) - y[i];
                sse += e * e;
            }
        }
    }
    free(c);
    *rmse = sqrt(sse / (double)n);
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
    return RPL_OK;
}

static int assign_folds(unsigned *fold, size_t n, unsigned folds, unsigned long seed)
{
    size_t *perm = malloc(n * sizeof(*perm));
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);

    if (!perm || !rng) {
        free(perm);
        if (rng)
            gsl_rng_free(rng);
        return rpl_error_oom();
    }
    gsl_rng_set(rng, seed);
    for (size_t i = 0; i < n; i++)
        perm[i] = i;
    gsl_ran_shuffle(rng, perm, n, sizeof(*perm));
    for (size_t i = 0; i < n; i++)
        fold[perm[i]] = (unsigned)(i % folds);
    gsl_rng_free(rng);
    free(perm);
    return RPL_OK;
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
    if ((rc = make_terms(&terms, &nbase, &ninter, d, o)) != RPL_OK)
        return rc;
    /* Each training set keeps one residual degree of freedom beyond p + 1 coefficients. */
    train_min = folds >= 2 ? n - (n + folds - 1) / folds : n;
    pmax = train_min >= 2 ? train_min - 2 : 0;
    m->dropped = nbase > pmax ? nbase - pmax : 0;
    m->nterms = nbase - m->dropped;
    m->cv_rmse = m->cv_rmse_base = m->cv_rmse_interactions = NAN;
    if (folds >= 2 && !(fold = malloc(n * sizeof(*fold))))
        rc = rpl_error_oom();
    if (rc == RPL_OK && fold)
        rc = assign_folds(fold, n, folds, o->seed);
    if (rc == RPL_OK && fold) {
        m->folds = folds;
        rc = cross_validate(&m->cv_rmse_base, x, y, n, d, terms, m->nterms, fold, folds);
        m->cv_rmse = m->cv_rmse_base;
    }
    /* Interactions only when every base term fits beside them and they predict better. */
    if (rc == RPL_OK && fold && o->try_interactions && ninter > 0 && m->dropped == 0 &&
        nbase + ninter <= pmax) {
        rc = cross_validate(&m->cv_rmse_interactions, x, y, n, d, terms, nbase + ninter, fold,
                            folds);
        if (rc == RPL_OK && m->cv_rmse_interactions < m->cv_rmse_base) {
            m->interactions = true;
            m->nterms = nbase + ninter;
            m->cv_rmse = m->cv_rmse_interactions;
        }
    }
    m->terms = terms;
    terms = NULL;
    if (rc == RPL_OK && !(m->coef = calloc(m->nterms + 1, sizeof(*m->coef))))
        rc = rpl_error_oom();
    if (rc == RPL_OK)
        rc = solve(m->coef, x, y, n, d, m->terms, m->nterms, NULL, 0);
    if (rc == RPL_OK)
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
    if (rc != RPL_OK) {
        rpl_tune_model_free(m);
        return rc;
    }
    *out = m;
    return RPL_OK;
}
