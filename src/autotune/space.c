/*
 * The search space file (docs/schemas/autotune-space.schema.json): named
 * parameters with value lists, ranges or powers of two, and constraints
 * over them; expanded into the configurations that satisfy every
 * constraint.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rpl/autotune.h"
#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/log.h"

#define MAX_SPACE_BYTES (1u << 20)

static int bad(const char *what, const char *fmt, const char *detail, size_t index,
               const char *name)
{
    if (name)
        return rpl_error_set(RPL_EINPUT, "%s: parameters[%zu] ('%s'): %s%s", what, index, name, fmt,
                             detail ? detail : "");
    return rpl_error_set(RPL_EINPUT, "%s: %s%s", what, fmt, detail ? detail : "");
}

static bool valid_name(const char *s)
{
    if (!(isalpha((unsigned char)s[0]) || s[0] == '_') || strlen(s) > 64)
        return false;
    for (size_t i = 1; s[i]; i++)
        if (!(isalnum((unsigned char)s[i]) || s[i] == '_'))
            return false;
    return true;
}

/* Only the keys listed may appear in `obj`; *unknown names the first other one. */
static bool only_keys(const cJSON *obj, const char *const *keys, const char **unknown)
{
    const cJSON *it;

    cJSON_ArrayForEach(it, obj)
    {
        bool found = false;
        for (size_t i = 0; keys[i] && !found; i++)
            found = strcmp(it->string, keys[i]) == 0;
        if (!found) {
            *unknown = it->string;
            return false;
        }
    }
    return true;
}

/* Does `obj` hold a number that cJSON read as infinity (1e400)?  *key names it. */
static bool out_of_range(const cJSON *obj, const char **key)
{
    const cJSON *it;

    cJSON_ArrayForEach(it, obj)
    {
        if (cJSON_IsNumber(it) && !isfinite(it->valuedouble)) {
            *key = it->string;
            return true;
        }
    }
    return false;
}

static int add_value(rpl_tune_param *p, double v)
{
    if (p->nvalues >= RPL_TUNE_MAX_VALUES)
        return RPL_EINPUT;
    p->values[p->nvalues++] = v;
    return 0;
}

static int read_values(rpl_tune_param *p, const cJSON *list, const char *what, size_t idx)
{
    const cJSON *v;

    if (!cJSON_IsArray(list) || cJSON_GetArraySize(list) == 0)
        return bad(what, "'values' must be a non-empty array of numbers", NULL, idx, p->name);
    cJSON_ArrayForEach(v, list)
    {
        if (!cJSON_IsNumber(v))
            return bad(what, "'values' must hold numbers only", NULL, idx, p->name);
        if (!isfinite(v->valuedouble)) /* cJSON reads 1e400 as infinity */
            return bad(what, "'values' holds a number out of range (beyond ±1.8e308)", NULL, idx,
                       p->name);
        for (size_t i = 0; i < p->nvalues; i++)
            if (p->values[i] == v->valuedouble)
                return bad(what, "'values' lists a value twice", NULL, idx, p->name);
        if (add_value(p, v->valuedouble) != 0)
            return bad(what, "more than 1024 values", NULL, idx, p->name);
    }
    return 0;
}

static int read_range(rpl_tune_param *p, const cJSON *r, const char *what, size_t idx)
{
    static const char *const keys[] = {"start", "stop", "step", NULL};
    const char *unknown = NULL;
    double start, stop, step = 1;

    if (!cJSON_IsObject(r))
        return bad(what, "'range' must be an object {start, stop, step}", NULL, idx, p->name);
    if (!only_keys(r, keys, &unknown))
        return bad(what, "unknown key in 'range': ", unknown, idx, p->name);
    if (out_of_range(r, &unknown))
        return bad(what, "a number out of range (beyond ±1.8e308) in 'range': ", unknown, idx,
                   p->name);
    if (rpl_json_get_number(r, "start", &start) != 0 || rpl_json_get_number(r, "stop", &stop) != 0)
        return bad(what, "'range' needs numbers 'start' and 'stop'", NULL, idx, p->name);
    if (cJSON_GetObjectItemCaseSensitive(r, "step") && rpl_json_get_number(r, "step", &step) != 0)
        return bad(what, "'range' 'step' must be a number", NULL, idx, p->name);
    if (!(step > 0) || stop < start)
        return bad(what, "'range' needs step > 0 and start <= stop", NULL, idx, p->name);
    if ((stop - start) / step > RPL_TUNE_MAX_VALUES)
        return bad(what, "more than 1024 values", NULL, idx, p->name);
    /* stop is included when a step lands on it (within rounding). */
    for (size_t i = 0;; i++) {
        double v = start + (double)i * step;
        if (v > stop + 1e-9 * fabs(step))
            break;
        if (add_value(p, v) != 0)
            return bad(what, "more than 1024 values", NULL, idx, p->name);
    }
    return 0;
}

static bool is_pow2(double v)
{
    int e;

    return v > 0 && frexp(v, &e) == 0.5;
}

static int read_pow2(rpl_tune_param *p, const cJSON *r, const char *what, size_t idx)
{
    static const char *const keys[] = {"min", "max", NULL};
    const char *unknown = NULL;
    double lo, hi;

    if (!cJSON_IsObject(r))
        return bad(what, "'powers_of_two' must be an object {min, max}", NULL, idx, p->name);
    if (!only_keys(r, keys, &unknown))
        return bad(what, "unknown key in 'powers_of_two': ", unknown, idx, p->name);
    if (out_of_range(r, &unknown))
        return bad(what, "a number out of range (beyond ±1.8e308) in 'powers_of_two': ", unknown,
                   idx, p->name);
    if (rpl_json_get_number(r, "min", &lo) != 0 || rpl_json_get_number(r, "max", &hi) != 0 ||
        !is_pow2(lo) || !is_pow2(hi) || lo > hi || hi > 0x1p62)
        return bad(what, "'powers_of_two' needs powers of two 'min' <= 'max' (at most 2^62)", NULL,
                   idx, p->name);
    for (double v = lo; v <= hi; v *= 2)
        if (add_value(p, v) != 0)
            return bad(what, "more than 1024 values", NULL, idx, p->name);
    return 0;
}

static int read_param(rpl_tune_space *s, const cJSON *jp, size_t idx, const char *what)
{
    static const char *const keys[] = {"name",          "values",      "range",
                                       "powers_of_two", "description", NULL};
    rpl_tune_param *p = &s->params[idx];
    const cJSON *values, *range, *pow2;
    const char *name = NULL, *unknown = NULL;
    int kinds, rc;

    if (!cJSON_IsObject(jp))
        return bad(what, "each parameter must be an object", NULL, idx, "?");
    if (rpl_json_get_string(jp, "name", &name) != 0 || !valid_name(name))
        return rpl_error_set(RPL_EINPUT,
                             "%s: parameters[%zu]: 'name' must be a name of letters, digits and _ "
                             "(not starting with a digit, at most 64)",
                             what, idx);
    if (strcmp(name, "OUT") == 0)
        return bad(what, "OUT is the placeholder of the built program, not a parameter name", NULL,
                   idx, name);
    for (size_t i = 0; i < idx; i++)
        if (strcmp(s->params[i].name, name) == 0)
            return bad(what, "the name is used twice", NULL, idx, name);
    if (!(p->name = strdup(name)) || !(p->values = malloc(RPL_TUNE_MAX_VALUES * sizeof(double))))
        return rpl_error_oom();
    if (!only_keys(jp, keys, &unknown))
        return bad(what, "unknown key ", unknown, idx, name);
    values = cJSON_GetObjectItemCaseSensitive(jp, "values");
    range = cJSON_GetObjectItemCaseSensitive(jp, "range");
    pow2 = cJSON_GetObjectItemCaseSensitive(jp, "powers_of_two");
    kinds = (values != NULL) + (range != NULL) + (pow2 != NULL);
    if (kinds != 1)
        return bad(what, "give exactly one of 'values', 'range' or 'powers_of_two'", NULL, idx,
                   name);
    rc = values  ? read_values(p, values, what, idx)
         : range ? read_range(p, range, what, idx)
                 : read_pow2(p, pow2, what, idx);
    if (rc != 0)
        return rc;
    p->log2 = true;
    for (size_t i = 0; i < p->nvalues; i++)
        p->log2 = p->log2 && is_pow2(p->values[i]);
    return 0;
}

static int read_constraints(rpl_tune_space *s, const cJSON *list, const char *what)
{
    const char **names = malloc((s->nparams ? s->nparams : 1) * sizeof(*names));
    const cJSON *c;
    int rc = 0;

    if (!names)
        return rpl_error_oom();
    for (size_t i = 0; i < s->nparams; i++)
        names[i] = s->params[i].name;
    if (!cJSON_IsArray(list)) {
        free(names);
        return bad(what, "'constraints' must be an array of strings", NULL, 0, NULL);
    }
    s->constraints = calloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(*s->constraints));
    if (!s->constraints)
        rc = rpl_error_oom();
    cJSON_ArrayForEach(c, list)
    {
        if (rc != 0)
            break;
        if (!cJSON_IsString(c)) {
            rc = bad(what, "'constraints' must be an array of strings", NULL, 0, NULL);
            break;
        }
        rc = rpl_expr_parse(&s->constraints[s->nconstraints], c->valuestring, names, s->nparams);
        if (rc == 0)
            s->nconstraints++;
        else
            rpl_error_prefix("%s: constraints[%zu]", what, s->nconstraints);
    }
    free(names);
    return rc;
}

/*
 * One evaluation of the constraints visits at most all their operations; a
 * space whose combinations times those exceed RPL_TUNE_MAX_EXPAND_OPS is
 * refused before it is expanded, so a mistaken space fails at once instead
 * of after minutes of CPU.
 */
static int check_cost(const rpl_tune_space *s, const char *what)
{
    double ops = 0;

    for (size_t c = 0; c < s->nconstraints; c++)
        ops += (double)rpl_expr_size(s->constraints[c]);
    if ((double)s->total * ops <= RPL_TUNE_MAX_EXPAND_OPS)
        return 0;
    return rpl_error_set(RPL_EINPUT,
                         "%s: checking the constraints would take up to %.3g operations (%zu "
                         "combinations × %.0f operations of the constraints), more than the "
                         "limit of %.0e: use fewer values or shorter constraints",
                         what, (double)s->total * ops, s->total, ops,
                         (double)RPL_TUNE_MAX_EXPAND_OPS);
}

/* Every combination in odometer order (the last parameter fastest); keep those that pass. */
static int expand(rpl_tune_space *s, const char *what)
{
    size_t np = s->nparams, cap = 1024, n = 0;
    uint16_t *lv = calloc(np, sizeof(*lv));
    double *vals = calloc(np, sizeof(*vals));
    double start = rpl_clock_mono_s();
    rpl_progress *progress = NULL;
    int rc = 0;

    s->levels = malloc(cap * np * sizeof(*s->levels));
    if (!lv || !vals || !s->levels) {
        free(lv);
        free(vals);
        return rpl_error_oom();
    }
    for (size_t done = 0; done < s->total && rc == 0; done++) {
        bool ok = true;
        /* A progress line once the expansion has taken a second (on a terminal). */
        if (done % 4096 == 4095) {
            if (!progress && rpl_clock_mono_s() - start >= 1.0)
                progress = rpl_progress_start("checking the constraints", s->total);
            rpl_progress_update(progress, done);
        }
        for (size_t j = 0; j < np; j++)
            vals[j] = s->params[j].values[lv[j]];
        for (size_t c = 0; c < s->nconstraints && ok && rc == 0; c++) {
            double r;
            rc = rpl_expr_eval(s->constraints[c], vals, &r);
            ok = r != 0;
        }
        if (rc != 0) {
            char cfg[512];
            rpl_tune_space_describe(cfg, sizeof(cfg), s, vals);
            rpl_error_prefix("%s: at %s", what, cfg);
            break;
        }
        if (ok) {
            if (n == cap) {
                uint16_t *m = realloc(s->levels, 2 * cap * np * sizeof(*m));
                if (!m) {
                    rc = rpl_error_oom();
                    break;
                }
                s->levels = m;
                cap *= 2;
            }
            memcpy(s->levels + n * np, lv, np * sizeof(*lv));
            n++;
        }
        for (size_t j = np; j-- > 0;) {
            if (++lv[j] < s->params[j].nvalues)
                break;
            lv[j] = 0;
        }
    }
    rpl_progress_finish(progress);
    free(lv);
    free(vals);
    s->nconfigs = n;
    if (rc == 0 && n == 0)
        rc = rpl_error_set(RPL_EINPUT,
                           "%s: no configuration of the %zu satisfies the constraints (the space "
                           "is empty)",
                           what, s->total);
    return rc;
}

static int parse_doc(rpl_tune_space *s, const cJSON *doc, const char *what)
{
    static const char *const keys[] = {"schema_version", "name",        "description",
                                       "parameters",     "constraints", NULL};
    const cJSON *params, *cons, *jp;
    const char *version = NULL, *name = NULL, *unknown = NULL;
    size_t i = 0;
    double total = 1;
    int rc;

    if (!cJSON_IsObject(doc))
        return bad(what, "a search space is a JSON object", NULL, 0, NULL);
    if (!only_keys(doc, keys, &unknown))
        return bad(what, "unknown key ", unknown, 0, NULL);
    if (rpl_json_get_string(doc, "schema_version", &version) != 0)
        return bad(what, "'schema_version' (a string) is missing", NULL, 0, NULL);
    if (strncmp(version, "1.", 2) != 0)
        return rpl_error_set(RPL_EINPUT,
                             "%s: schema_version '%s' is not one this rocm-perf reads "
                             "(1.x)",
                             what, version);
    if (cJSON_GetObjectItemCaseSensitive(doc, "name")) {
        if (rpl_json_get_string(doc, "name", &name) != 0)
            return bad(what, "'name' must be a string", NULL, 0, NULL);
        if (!(s->name = strdup(name)))
            return rpl_error_oom();
    }
    params = cJSON_GetObjectItemCaseSensitive(doc, "parameters");
    if (!cJSON_IsArray(params) || cJSON_GetArraySize(params) == 0)
        return bad(what, "'parameters' must be a non-empty array", NULL, 0, NULL);
    if (cJSON_GetArraySize(params) > RPL_TUNE_MAX_PARAMS)
        return rpl_error_set(RPL_EINPUT, "%s: more than %d parameters", what, RPL_TUNE_MAX_PARAMS);
    s->params = calloc((size_t)cJSON_GetArraySize(params), sizeof(*s->params));
    if (!s->params)
        return rpl_error_oom();
    cJSON_ArrayForEach(jp, params)
    {
        s->nparams = i + 1;
        if ((rc = read_param(s, jp, i, what)) != 0)
            return rc;
        total *= (double)s->params[i].nvalues;
        i++;
    }
    if (total > RPL_TUNE_MAX_CONFIGS)
        return rpl_error_set(RPL_EINPUT, "%s: %.0f combinations of the parameters; at most %d",
                             what, total, RPL_TUNE_MAX_CONFIGS);
    s->total = (size_t)total;
    cons = cJSON_GetObjectItemCaseSensitive(doc, "constraints");
    if (cons && ((rc = read_constraints(s, cons, what)) != 0 || (rc = check_cost(s, what)) != 0))
        return rc;
    return expand(s, what);
}

int rpl_tune_space_parse(rpl_tune_space **out, const char *text, size_t len, const char *what)
{
    rpl_tune_space *s = calloc(1, sizeof(*s));
    cJSON *doc = NULL;
    int rc;

    *out = NULL;
    if (!s)
        return rpl_error_oom();
    rc = rpl_json_parse(&doc, text, len, what);
    if (rc == 0)
        rc = parse_doc(s, doc, what);
    cJSON_Delete(doc);
    if (rc != 0) {
        rpl_tune_space_free(s);
        return rc;
    }
    *out = s;
    return 0;
}

int rpl_tune_space_read(rpl_tune_space **out, const char *path)
{
    char *text;
    size_t len;
    int rc;

    *out = NULL;
    if ((rc = rpl_file_read_all(path, MAX_SPACE_BYTES, &text, &len)) != 0)
        return rc;
    rc = rpl_tune_space_parse(out, text, len, path);
    free(text);
    return rc;
}

void rpl_tune_space_free(rpl_tune_space *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nparams; i++) {
        free(s->params[i].name);
        free(s->params[i].values);
    }
    free(s->params);
    for (size_t i = 0; i < s->nconstraints; i++)
        rpl_expr_free(s->constraints[i]);
    RPL_FREE_EACH(s->constraints, s->levels, s->name, s);
}

double rpl_tune_space_value(const rpl_tune_space *s, size_t config, size_t param)
{
    return s->params[param].values[s->levels[config * s->nparams + param]];
}

void rpl_tune_value_text(char *buf, size_t size, double v)
{
    if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, size, "%.0f", v);
    else
        snprintf(buf, size, "%.17g", v);
}

void rpl_tune_space_describe(char *buf, size_t size, const rpl_tune_space *s, const double *vals)
{
    size_t used = 0;

    buf[0] = '\0';
    for (size_t j = 0; j < s->nparams && used + 1 < size; j++) {
        char v[32];
        int n;
        rpl_tune_value_text(v, sizeof(v), vals[j]);
        n = snprintf(buf + used, size - used, "%s%s=%s", j ? " " : "", s->params[j].name, v);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}
