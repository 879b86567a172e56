/*
 * The tuner's model inputs and fits.  Inputs are the parameters (log2 of
 * those made of powers of two, whose effect on runtime is closer to
 * quadratic on that scale) and the static features that vary, each
 * standardised over the runnable configs so that coefficients compare and
 * squares stay well conditioned.  The response is ln(median runtime).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/free.h"
#include "tune_int.h"

bool tune_runnable(const rpl_tune_config *c)
{
    return c->status != RPL_TUNE_BUILD_FAILED && c->status != RPL_TUNE_PRUNED;
}

bool tune_measured(const rpl_tune_config *c)
{
    return c->status == RPL_TUNE_OK;
}

void tune_inputs_release(tune_inputs *in)
{
    rpl_free_strings(in->names, in->d);
    free(in->x);
    free(in->quadratic);
    memset(in, 0, sizeof(*in));
}

typedef double (*raw_fn)(const tuner *t, size_t c, size_t which);

static double raw_param(const tuner *t, size_t c, size_t j)
{
    double v = rpl_tune_space_value(t->s, c, j);

    return t->s->params[j].log2 ? log2(v) : v;
}

static double raw_feature(const tuner *t, size_t c, size_t which)
{
    const rpl_tune_features *f = &t->r->configs[c].features;

    switch (which) {
    case 0:
        return f->vgpr;
    case 1:
        return f->lds_bytes;
    case 2:
        return f->scratch_bytes;
    default:
        return f->occupancy;
    }
}

/*
 * Add input `which` of `fn` when it varies over the runnable configs:
 * standardised column d of x.  Returns 1 when added.
 */
static int add_input(tune_inputs *in, const tuner *t, raw_fn fn, size_t which, const char *name,
                     bool may_square)
{
    size_t n = t->s->nconfigs, count = 0, distinct = 0;
    double mean = 0, m2 = 0, seen[3];
    char *copy;

    for (size_t c = 0; c < n; c++) {
        double v, delta;
        if (!tune_runnable(&t->r->configs[c]))
            continue;
        v = fn(t, c, which);
        count++;
        delta = v - mean;
        mean += delta / (double)count;
        m2 += delta * (v - mean);
        bool known = false;
        for (size_t k = 0; k < distinct && !known; k++)
            known = seen[k] == v;
        if (!known && distinct < 3)
            seen[distinct++] = v;
    }
    if (count < 2 || distinct < 2 || !(m2 > 0))
        return 0;
    if (!(copy = strdup(name)))
        return rpl_error_oom();
    for (size_t c = 0; c < n; c++)
        in->x[c * RPL_TUNE_MAX_INPUTS + in->d] =
            tune_runnable(&t->r->configs[c])
                ? (fn(t, c, which) - mean) / sqrt(m2 / (double)(count - 1))
                : 0;
    in->quadratic[in->d] = may_square && distinct >= 3;
    in->names[in->d++] = copy;
    return 1;
}

/* Features enter only when every runnable config has them. */
static bool features_known(const tuner *t)
{
    bool any = false;

    for (size_t c = 0; c < t->s->nconfigs; c++) {
        const rpl_tune_config *cfg = &t->r->configs[c];
        if (!tune_runnable(cfg))
            continue;
        if (!cfg->features.known || cfg->features.occupancy < 0)
            return false;
        any = true;
    }
    return any;
}

/* Compact the rows from the RPL_TUNE_MAX_INPUTS stride to d columns. */
static void compact(tune_inputs *in, size_t n)
{
    for (size_t c = 0; c < n; c++)
        memmove(in->x + c * in->d, in->x + c * RPL_TUNE_MAX_INPUTS, in->d * sizeof(*in->x));
}

int tune_inputs_make(tune_inputs *in, const tuner *t)
{
    static const char *const feature_names[] = {"vgpr", "lds_bytes", "scratch_bytes", "occupancy"};
    size_t n = t->s->nconfigs;
    int rc = 0;

    memset(in, 0, sizeof(*in));
    in->x = calloc(n * RPL_TUNE_MAX_INPUTS, sizeof(*in->x));
    in->quadratic = calloc(RPL_TUNE_MAX_INPUTS, sizeof(*in->quadratic));
    in->names = calloc(RPL_TUNE_MAX_INPUTS, sizeof(*in->names));
    if (!in->x || !in->quadratic || !in->names) {
        tune_inputs_release(in);
        return rpl_error_oom();
    }
    for (size_t j = 0; rc >= 0 && j < t->s->nparams; j++) {
        char name[80];
        snprintf(name, sizeof(name), t->s->params[j].log2 ? "log2(%s)" : "%s",
                 t->s->params[j].name);
        rc = add_input(in, t, raw_param, j, name, true);
    }
    in->nparam_inputs = in->d;
    for (size_t f = 0; rc >= 0 && features_known(t) && f < 4; f++)
        rc = add_input(in, t, raw_feature, f, feature_names[f], false);
    if (rc < 0) {
        tune_inputs_release(in);
        return rc;
    }
    compact(in, n);
    return 0;
}

int tune_fit(tuner *t, const tune_inputs *in, rpl_tune_model **out)
{
    size_t n = 0, nc = t->s->nconfigs, k = 0;
    rpl_tune_fit_opts fo = {0};
    double *x, *y;
    int rc;

    *out = NULL;
    for (size_t c = 0; c < nc; c++)
        n += tune_measured(&t->r->configs[c]);
    if (n < 2)
        return 0;
    x = malloc(n * (in->d ? in->d : 1) * sizeof(*x));
    y = malloc(n * sizeof(*y));
    if (!x || !y) {
        free(x);
        free(y);
        return rpl_error_oom();
    }
    for (size_t c = 0; c < nc; c++) {
        if (!tune_measured(&t->r->configs[c]))
            continue;
        memcpy(x + k * in->d, in->x + c * in->d, in->d * sizeof(*x));
        /* The first measurement only: confirm samples must not change earlier choices. */
        y[k++] = log(tune_median(&t->r->configs[c], t->o->repetitions));
    }
    fo.quadratic = in->quadratic;
    fo.nparam_inputs = in->nparam_inputs;
    fo.try_interactions = true;
    fo.seed = t->o->seed;
    rc = rpl_tune_model_fit(out, x, n, in->d, y, &fo);
    for (size_t c = 0; rc == 0 && c < nc; c++)
        t->r->configs[c].predicted_ns = tune_runnable(&t->r->configs[c])
                                            ? exp(rpl_tune_model_predict(*out, in->x + c * in->d))
                                            : NAN;
    free(x);
    free(y);
    return rc;
}
