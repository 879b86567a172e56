/* The autotune result document (docs/schemas/autotune-result.schema.json). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/version.h"

/* A number, or null when it is not finite. */
static cJSON *add_num(cJSON *o, const char *key, double v)
{
    return isfinite(v) ? cJSON_AddNumberToObject(o, key, v) : cJSON_AddNullToObject(o, key);
}

static cJSON *params_of(const rpl_tune_result *r, size_t c)
{
    cJSON *p = cJSON_CreateObject();

    for (size_t j = 0; p && j < r->space->nparams; j++)
        if (!cJSON_AddNumberToObject(p, r->space->params[j].name,
                                     rpl_tune_space_value(r->space, c, j))) {
            cJSON_Delete(p);
            return NULL;
        }
    return p;
}

static cJSON *features_json(const rpl_tune_features *f)
{
    cJSON *o = cJSON_CreateObject();

    if (!o)
        return NULL;
    if (!f->known) {
        cJSON_AddBoolToObject(o, "known", 0);
        if (f->note)
            cJSON_AddStringToObject(o, "note", f->note);
        return o;
    }
    cJSON_AddBoolToObject(o, "known", 1);
    cJSON_AddStringToObject(o, "kernel", f->kernel);
    cJSON_AddStringToObject(o, "arch", f->arch);
    cJSON_AddNumberToObject(o, "vgpr", f->vgpr);
    cJSON_AddNumberToObject(o, "lds_bytes", f->lds_bytes);
    cJSON_AddNumberToObject(o, "scratch_bytes", f->scratch_bytes);
    if (f->spills >= 0)
        cJSON_AddNumberToObject(o, "spills", (double)f->spills);
    else
        cJSON_AddNullToObject(o, "spills");
    add_num(o, "occupancy", f->occupancy >= 0 ? f->occupancy : NAN);
    if (f->block)
        cJSON_AddNumberToObject(o, "block", f->block);
    return o;
}

static cJSON *config_json(const rpl_tune_result *r, size_t c)
{
    const rpl_tune_config *cfg = &r->configs[c];
    cJSON *o = cJSON_CreateObject();

    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "index", (double)c);
    cJSON_AddItemToObject(o, "parameters", params_of(r, c));
    cJSON_AddStringToObject(o, "status", rpl_tune_status_name(cfg->status));
    if (cfg->phase)
        cJSON_AddStringToObject(o, "phase", cfg->phase);
    cJSON_AddBoolToObject(o, "from_cache", cfg->from_cache);
    add_num(o, "median_ns", rpl_tune_config_median(cfg));
    add_num(o, "predicted_ns", cfg->predicted_ns);
    cJSON_AddNumberToObject(o, "samples", (double)cfg->nsamples);
    add_num(o, "cv", cfg->nsamples ? cfg->cv : NAN);
    cJSON_AddBoolToObject(o, "unstable", cfg->unstable);
    cJSON_AddBoolToObject(o, "remeasured", cfg->remeasured);
    cJSON_AddBoolToObject(o, "confirmed", cfg->confirmed);
    if (cfg->kernel)
        cJSON_AddStringToObject(o, "kernel", cfg->kernel);
    if (cfg->message)
        cJSON_AddStringToObject(o, "message", cfg->message);
    if (cfg->binary_sha256)
        cJSON_AddStringToObject(o, "binary_sha256", cfg->binary_sha256);
    if (cfg->code_sha256) {
        cJSON_AddStringToObject(o, "code_sha256", cfg->code_sha256);
        cJSON_AddStringToObject(o, "code_kind", cfg->code_kind);
    }
    if (cfg->inputs_sha256)
        cJSON_AddStringToObject(o, "inputs_sha256", cfg->inputs_sha256);
    if (cfg->features.known || cfg->features.note)
        cJSON_AddItemToObject(o, "features", features_json(&cfg->features));
    return o;
}

static void term_name(char *buf, size_t size, const rpl_tune_result *r, const rpl_tune_term *t)
{
    if (t->b < 0)
        snprintf(buf, size, "%s", r->input_names[t->a]);
    else if (t->a == t->b)
        snprintf(buf, size, "%s^2", r->input_names[t->a]);
    else
        snprintf(buf, size, "%s*%s", r->input_names[t->a], r->input_names[t->b]);
}

static cJSON *model_json(const rpl_tune_result *r)
{
    const rpl_tune_model *m = r->model;
    cJSON *o = cJSON_CreateObject(), *terms, *inputs;

    if (!o)
        return NULL;
    inputs = cJSON_AddArrayToObject(o, "inputs");
    for (size_t i = 0; inputs && i < r->ninputs; i++)
        cJSON_AddItemToArray(inputs, cJSON_CreateString(r->input_names[i]));
    cJSON_AddStringToObject(o, "response", "ln(median runtime ns)");
    terms = cJSON_AddArrayToObject(o, "terms");
    for (size_t t = 0; terms && t <= m->nterms; t++) {
        cJSON *e = cJSON_CreateObject();
        char name[200];
        if (t == 0)
            snprintf(name, sizeof(name), "1");
        else
            term_name(name, sizeof(name), r, &m->terms[t - 1]);
        cJSON_AddStringToObject(e, "term", name);
        add_num(e, "coefficient", m->coef[t]);
        cJSON_AddBoolToObject(e, "active", t == 0 || m->active[t - 1]);
        cJSON_AddItemToArray(terms, e);
    }
    cJSON_AddNumberToObject(o, "points", (double)m->n);
    add_num(o, "r2", m->r2);
    cJSON_AddNumberToObject(o, "min_r2", r->min_r2);
    cJSON_AddBoolToObject(o, "trusted", r->model_trusted);
    cJSON_AddNumberToObject(o, "folds", m->folds);
    add_num(o, "cv_rmse", m->cv_rmse);
    add_num(o, "cv_error", r->cv_error);
    cJSON_AddNumberToObject(o, "cv_points", (double)r->cv_points);
    cJSON_AddNumberToObject(o, "cv_folds", r->cv_folds);
    add_num(o, "cv_error_all_points", m->cv_error);
    cJSON_AddBoolToObject(o, "interactions", m->interactions);
    add_num(o, "cv_rmse_without_interactions", m->cv_rmse_base);
    add_num(o, "cv_rmse_with_interactions", m->cv_rmse_interactions);
    cJSON_AddNumberToObject(o, "dropped_terms", (double)m->dropped);
    cJSON_AddNumberToObject(o, "inactive_terms", (double)m->inactive);
    return o;
}

static cJSON *best_json(const rpl_tune_result *r)
{
    const rpl_tune_config *cfg = &r->configs[r->best];
    cJSON *o = cJSON_CreateObject(), *ties;

    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "index", (double)r->best);
    cJSON_AddItemToObject(o, "parameters", params_of(r, r->best));
    add_num(o, "median_ns", rpl_tune_config_median(cfg));
    add_num(o, "predicted_ns", cfg->predicted_ns);
    cJSON_AddNumberToObject(o, "samples", (double)cfg->nsamples);
    cJSON_AddBoolToObject(o, "unstable", cfg->unstable);
    cJSON_AddBoolToObject(o, "tie", r->nties > 0);
    ties = cJSON_AddArrayToObject(o, "compared");
    for (size_t i = 0; ties && i < r->nconfirmed; i++) {
        size_t c = r->confirmed[i];
        cJSON *e;
        if (c == r->best)
            continue;
        e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "index", (double)c);
        cJSON_AddItemToObject(e, "parameters", params_of(r, c));
        add_num(e, "median_ns", rpl_tune_config_median(&r->configs[c]));
        add_num(e, "ratio", exp(r->cmp[i].log_ratio));
        add_num(e, "ratio_upper", exp(r->cmp[i].upper));
        cJSON_AddBoolToObject(e, "tied", r->tied[i]);
        cJSON_AddItemToArray(ties, e);
    }
    return o;
}

static cJSON *space_json(const rpl_tune_result *r)
{
    const rpl_tune_space *s = r->space;
    cJSON *o = cJSON_CreateObject(), *params, *cons;

    if (!o)
        return NULL;
    if (s->name)
        cJSON_AddStringToObject(o, "name", s->name);
    params = cJSON_AddArrayToObject(o, "parameters");
    for (size_t j = 0; params && j < s->nparams; j++) {
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "name", s->params[j].name);
        cJSON_AddItemToObject(
            p, "values", cJSON_CreateDoubleArray(s->params[j].values, (int)s->params[j].nvalues));
        cJSON_AddItemToArray(params, p);
    }
    cons = cJSON_AddArrayToObject(o, "constraints");
    for (size_t i = 0; cons && i < s->nconstraints; i++)
        cJSON_AddItemToArray(cons, cJSON_CreateString(rpl_expr_text(s->constraints[i])));
    cJSON_AddNumberToObject(o, "combinations", (double)s->total);
    cJSON_AddNumberToObject(o, "configs", (double)s->nconfigs);
    return o;
}

int rpl_tune_result_json(cJSON **out, const rpl_tune_result *r)
{
    cJSON *doc = cJSON_CreateObject(), *counts, *list, *conf, *warn, *tool;
    size_t runnable = 0;

    *out = NULL;
    if (!doc)
        return rpl_error_oom();
    cJSON_AddStringToObject(doc, "schema_version", RPL_TUNE_RESULT_SCHEMA_VERSION);
    if ((tool = cJSON_AddObjectToObject(doc, "tool")) != NULL) {
        cJSON_AddStringToObject(tool, "name", "rocm-perf");
        cJSON_AddStringToObject(tool, "version", RPL_VERSION_STRING);
    }
    cJSON_AddItemToObject(doc, "space", space_json(r));
    cJSON_AddStringToObject(doc, "device", r->device ? r->device : "");
    cJSON_AddStringToObject(doc, "driver", r->driver ? r->driver : "");
    cJSON_AddNumberToObject(doc, "budget", (double)r->budget);
    cJSON_AddBoolToObject(doc, "exhaustive", r->exhaustive);
    for (size_t c = 0; c < r->space->nconfigs; c++)
        runnable += r->configs[c].status != RPL_TUNE_PRUNED &&
                    r->configs[c].status != RPL_TUNE_BUILD_FAILED;
    counts = cJSON_AddObjectToObject(doc, "counts");
    if (counts) {
        cJSON_AddNumberToObject(counts, "space", (double)r->space->nconfigs);
        cJSON_AddNumberToObject(counts, "runnable", (double)runnable);
        cJSON_AddNumberToObject(counts, "measured", (double)r->measured);
        cJSON_AddNumberToObject(counts, "measurements", (double)r->measurements);
        cJSON_AddNumberToObject(counts, "confirm_remeasures", (double)r->confirm_remeasures);
        cJSON_AddNumberToObject(counts, "unstable_remeasures", (double)r->unstable_remeasures);
        cJSON_AddNumberToObject(counts, "cache_hits", (double)r->cache_hits);
        cJSON_AddNumberToObject(counts, "profiler_runs", (double)r->profiler_runs);
        cJSON_AddNumberToObject(counts, "builds", (double)r->builds);
        cJSON_AddNumberToObject(counts, "pruned", (double)r->pruned);
        cJSON_AddNumberToObject(counts, "build_failed", (double)r->build_failed);
        cJSON_AddNumberToObject(counts, "run_failed", (double)r->run_failed);
        cJSON_AddNumberToObject(
            counts, "fraction_measured",
            r->space->nconfigs ? (double)r->measured / (double)r->space->nconfigs : 0);
    }
    if (r->model)
        cJSON_AddItemToObject(doc, "model", model_json(r));
    else
        cJSON_AddNullToObject(doc, "model");
    conf = cJSON_AddObjectToObject(doc, "confirm");
    if (conf) {
        cJSON *idx = cJSON_AddArrayToObject(conf, "configs");
        for (size_t i = 0; idx && i < r->nconfirmed; i++)
            cJSON_AddItemToArray(idx, cJSON_CreateNumber((double)r->confirmed[i]));
        cJSON_AddBoolToObject(conf, "widened", !r->model_trusted);
        cJSON_AddNumberToObject(conf, "wanted", (double)r->confirm_wanted);
        cJSON_AddBoolToObject(conf, "cut", r->confirm_cut);
        cJSON_AddNumberToObject(conf, "ties", (double)r->nties);
    }
    if (r->best != SIZE_MAX)
        cJSON_AddItemToObject(doc, "best", best_json(r));
    else
        cJSON_AddNullToObject(doc, "best");
    list = cJSON_AddArrayToObject(doc, "configs");
    for (size_t c = 0; list && c < r->space->nconfigs; c++)
        if (r->configs[c].status != RPL_TUNE_NOT_RUN)
            cJSON_AddItemToArray(list, config_json(r, c));
    cJSON_AddNumberToObject(doc, "jobs", r->jobs);
    cJSON_AddNumberToObject(doc, "build_s", r->build_s);
    cJSON_AddNumberToObject(doc, "build_overlap_s", r->build_overlap_s);
    cJSON_AddNumberToObject(doc, "wall_s", r->wall_s);
    warn = cJSON_AddArrayToObject(doc, "warnings");
    for (size_t i = 0; warn && i < r->nwarnings; i++)
        cJSON_AddItemToArray(warn, cJSON_CreateString(r->warnings[i]));
    /* cJSON leaves allocation failures inside as missing members: check the whole once. */
    if (!cJSON_GetObjectItemCaseSensitive(doc, "warnings") ||
        !cJSON_GetObjectItemCaseSensitive(doc, "configs")) {
        cJSON_Delete(doc);
        return rpl_error_oom();
    }
    *out = doc;
    return 0;
}
