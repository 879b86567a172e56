/*
 * Baseline files: docs/schemas/baseline.schema.json.  Keys are written in a
 * fixed order and sample lists on one line each, so `git diff` shows what
 * an update changed; reading checks every field and names the bad one.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/baseline.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"

int rpl_baseline_new(rpl_baseline **out, const char *test, const char *arch)
{
    rpl_baseline *b = calloc(1, sizeof(*b));

    *out = NULL;
    if (!b || !(b->test = strdup(test)) || !(b->arch = strdup(arch))) {
        rpl_baseline_free(b);
        return rpl_error_oom();
    }
    b->tolerance = 0.03;
    b->confidence = 0.95;
    b->warmup = 1;
    *out = b;
    return 0;
}

void rpl_baseline_free(rpl_baseline *b)
{
    if (!b)
        return;
    RPL_FREE_EACH(b->test, b->arch, b->device, b->driver, b->toolkit);
    rpl_static_kernels_free(b->statics, b->nstatics);
    rpl_runtime_kernels_free(b->kernels, b->nkernels);
    for (size_t i = 0; i < b->nruns; i++)
        rpl_history_entry_release(&b->runs[i]);
    free(b->runs);
    free(b);
}

static int check_name(const char *what, const char *s)
{
    if (!s || !s[0] || s[0] == '.' || strchr(s, '/'))
        return rpl_error_set(RPL_EUSAGE, "bad %s name '%s' for a baseline file", what, s ? s : "");
    return 0;
}

int rpl_baseline_path(char **out, const char *dir, const char *arch, const char *test)
{
    char *rel;
    size_t n;
    int rc;

    *out = NULL;
    if ((rc = check_name("test", test)) || (rc = check_name("architecture", arch)))
        return rc;
    n = strlen(arch) + strlen(test) + 7;
    if (!(rel = malloc(n)))
        return rpl_error_oom();
    snprintf(rel, n, "%s/%s.json", arch, test);
    rc = rpl_path_join(out, dir, rel);
    free(rel);
    return rc;
}

/* ---- writing ---- */

static cJSON *str_or_null(cJSON *o, const char *key, const char *s)
{
    return s ? cJSON_AddStringToObject(o, key, s) : cJSON_AddNullToObject(o, key);
}

static cJSON *count_or_null(cJSON *o, const char *key, int64_t v)
{
    return v < 0 ? cJSON_AddNullToObject(o, key) : rpl_json_add_int64(o, key, v);
}

static cJSON *number_array(cJSON *o, const char *key, const double *v, size_t n)
{
    cJSON *a = cJSON_AddArrayToObject(o, key);

    for (size_t i = 0; a && i < n; i++)
        if (!cJSON_AddItemToArray(a, cJSON_CreateNumber(v[i])))
            return NULL;
    return a;
}

static int static_json(cJSON *doc, const rpl_baseline *b)
{
    cJSON *sec, *arr;

    if (!b->has_static)
        return cJSON_AddNullToObject(doc, "static") ? 0 : rpl_error_oom();
    if (!(sec = cJSON_AddObjectToObject(doc, "static")) ||
        !(b->block_size ? rpl_json_add_int64(sec, "block_size", b->block_size)
                        : cJSON_AddNullToObject(sec, "block_size")) ||
        !(arr = cJSON_AddArrayToObject(sec, "kernels")))
        return rpl_error_oom();
    for (size_t i = 0; i < b->nstatics; i++) {
        const rpl_static_kernel *k = &b->statics[i];
        cJSON *o = cJSON_CreateObject(), *occ;

        if (!o || !cJSON_AddItemToArray(arr, o) || !cJSON_AddStringToObject(o, "name", k->name) ||
            !count_or_null(o, "vgpr", k->vgpr) || !count_or_null(o, "agpr", k->agpr) ||
            !count_or_null(o, "sgpr", k->sgpr) || !count_or_null(o, "lds_bytes", k->lds_bytes) ||
            !count_or_null(o, "scratch_bytes", k->scratch_bytes) ||
            !count_or_null(o, "spills", k->spills))
            return rpl_error_oom();
        if (k->occupancy < 0) {
            if (!cJSON_AddNullToObject(o, "occupancy"))
                return rpl_error_oom();
            continue;
        }
        if (!(occ = cJSON_AddObjectToObject(o, "occupancy")) ||
            !rpl_json_add_int64(occ, "value", k->occupancy) ||
            !str_or_null(occ, "unit", k->occ_unit) || !str_or_null(occ, "limiter", k->limiter) ||
            !rpl_json_add_int64(occ, "block_size", k->block_size))
            return rpl_error_oom();
    }
    return 0;
}

static int stats_json(cJSON *o, const rpl_duration_stats *s)
{
    cJSON *st = cJSON_AddObjectToObject(o, "stats");

    if (!st || !rpl_json_add_int64(st, "count", (int64_t)s->count) ||
        !cJSON_AddNumberToObject(st, "mean", s->mean) ||
        !cJSON_AddNumberToObject(st, "min", s->min) ||
        !cJSON_AddNumberToObject(st, "max", s->max) ||
        !cJSON_AddNumberToObject(st, "p10", s->p10) ||
        !cJSON_AddNumberToObject(st, "p90", s->p90) ||
        !cJSON_AddNumberToObject(st, "stddev", s->stddev) ||
        !cJSON_AddNumberToObject(st, "cv", s->cv))
        return rpl_error_oom();
    return 0;
}

static int runtime_json(cJSON *doc, const rpl_baseline *b)
{
    cJSON *sec, *arr;

    if (!b->has_runtime)
        return cJSON_AddNullToObject(doc, "runtime") ? 0 : rpl_error_oom();
    if (!(sec = cJSON_AddObjectToObject(doc, "runtime")) ||
        !rpl_json_add_int64(sec, "history_max", RPL_BASELINE_HISTORY_MAX) ||
        !(arr = cJSON_AddArrayToObject(sec, "kernels")))
        return rpl_error_oom();
    for (size_t i = 0; i < b->nkernels; i++) {
        const rpl_runtime_kernel *k = &b->kernels[i];
        cJSON *o = cJSON_CreateObject(), *c;

        if (!o || !cJSON_AddItemToArray(arr, o) || !cJSON_AddStringToObject(o, "name", k->name) ||
            !cJSON_AddNumberToObject(o, "median_ns", k->stats.median) || stats_json(o, &k->stats) ||
            !number_array(o, "history_ns", k->history, k->nhistory) ||
            !number_array(o, "samples_ns", k->samples, k->nsamples) ||
            !(c = cJSON_AddObjectToObject(o, "counters")) ||
            !str_or_null(o, "bottleneck", k->bottleneck))
            return rpl_error_oom();
        for (size_t j = 0; j < k->ncounters; j++)
            if (!cJSON_AddNumberToObject(c, k->counters[j].name, k->counters[j].value))
                return rpl_error_oom();
    }
    return 0;
}

static int history_json(cJSON *doc, const rpl_baseline *b)
{
    cJSON *arr;

    if (!b->nruns)
        return 0; /* files without runs stay as they were */
    if (!(arr = cJSON_AddArrayToObject(doc, "history")))
        return rpl_error_oom();
    for (size_t i = 0; i < b->nruns; i++) {
        const rpl_history_entry *e = &b->runs[i];
        cJSON *o = cJSON_CreateObject(), *m, *g;

        if (!o || !cJSON_AddItemToArray(arr, o) || !str_or_null(o, "date", e->date) ||
            !str_or_null(o, "commit", e->commit) || !str_or_null(o, "device", e->device) ||
            !str_or_null(o, "driver", e->driver) || !str_or_null(o, "accepted", e->accepted) ||
            !(g = rpl_gpu_state_json(&e->gpu)) || !cJSON_AddItemToObject(o, "gpu_state", g) ||
            !(m = cJSON_AddObjectToObject(o, "medians_ns")))
            return rpl_error_oom();
        for (size_t j = 0; j < e->nmedians; j++)
            if (!cJSON_AddNumberToObject(m, e->medians[j].name, e->medians[j].value))
                return rpl_error_oom();
    }
    return 0;
}

static int to_json(cJSON **out, const rpl_baseline *b)
{
    cJSON *doc = cJSON_CreateObject(), *tol;
    int rc = 0;

    if (!doc || !cJSON_AddStringToObject(doc, "schema_version", RPL_BASELINE_SCHEMA_VERSION) ||
        !cJSON_AddStringToObject(doc, "test", b->test) ||
        !cJSON_AddStringToObject(doc, "arch", b->arch) || !str_or_null(doc, "device", b->device) ||
        !str_or_null(doc, "driver", b->driver) || !str_or_null(doc, "toolkit", b->toolkit) ||
        !(tol = cJSON_AddObjectToObject(doc, "tolerances")) ||
        !cJSON_AddNumberToObject(tol, "runtime", b->tolerance) ||
        !cJSON_AddNumberToObject(tol, "confidence", b->confidence) ||
        !rpl_json_add_int64(tol, "warmup", b->warmup) ||
        !cJSON_AddNumberToObject(tol, "counters", b->tolerance) ||
        !rpl_json_add_int64(tol, "static", 0))
        rc = rpl_error_oom();
    if (rc == 0)
        rc = static_json(doc, b);
    if (rc == 0)
        rc = runtime_json(doc, b);
    if (rc == 0)
        rc = history_json(doc, b);
    if (rc != 0) {
        cJSON_Delete(doc);
        return rc;
    }
    *out = doc;
    return 0;
}

int rpl_baseline_print(char **out, const rpl_baseline *b)
{
    cJSON *doc = NULL;
    int rc = to_json(&doc, b);

    if (rc == 0)
        rc = rpl_json_print(out, doc);
    cJSON_Delete(doc);
    return rc;
}

/* The directory of `path` (*out, free()), created when missing. */
static int parent_dir(char **out, const char *path)
{
    char *dir = strdup(path), *slash;
    int rc = dir ? 0 : rpl_error_oom();

    if (rc == 0 && (slash = strrchr(dir, '/')) != NULL) {
        slash[slash == dir] = '\0';
        rc = rpl_mkdir_p(dir);
    } else if (rc == 0) {
        strcpy(dir, ".");
    }
    if (rc != 0) {
        free(dir);
        dir = NULL;
    }
    *out = dir;
    return rc;
}

int rpl_baseline_lock(int *lock, const char *path)
{
    char *dir, what[4200];
    int rc;

    *lock = -1;
    if ((rc = parent_dir(&dir, path)) != 0)
        return rc;
    snprintf(what, sizeof(what), "update baseline '%s'", path);
    rc = rpl_dir_lock(lock, dir, rpl_lock_timeout_s(), what);
    free(dir);
    return rc;
}

int rpl_baseline_write(const rpl_baseline *b, const char *path)
{
    char *text = NULL, *dir = NULL;
    int rc = parent_dir(&dir, path);

    free(dir);
    if (rc == 0)
        rc = rpl_baseline_print(&text, b);
    if (rc == 0)
        rc = rpl_file_write_atomic(path, text, strlen(text));
    free(text);
    return rc;
}

/* ---- reading ---- */

typedef struct reader {
    const char *path;
    char where[160];
} reader;

static int bad(const reader *r, const char *what)
{
    return rpl_error_set(RPL_EINPUT, "corrupt baseline '%s': %s%s%s", r->path, r->where,
                         r->where[0] ? ": " : "", what);
}

static const cJSON *member(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* Optional string: NULL or absent gives *out NULL. */
static int get_opt_string(const reader *r, const cJSON *o, const char *key, char **out)
{
    const cJSON *v = member(o, key);

    *out = NULL;
    if (!v || cJSON_IsNull(v))
        return 0;
    if (!cJSON_IsString(v))
        return bad(r, key);
    return (*out = strdup(v->valuestring)) ? 0 : rpl_error_oom();
}

static int get_req_string(const reader *r, const cJSON *o, const char *key, char **out)
{
    int rc = get_opt_string(r, o, key, out);

    if (rc == 0 && (!*out || !(*out)[0]))
        return bad(r, key);
    return rc;
}

static int get_number(const reader *r, const cJSON *o, const char *key, double lo, double hi,
                      double *out)
{
    const cJSON *v = member(o, key);

    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < lo ||
        v->valuedouble > hi)
        return bad(r, key);
    *out = v->valuedouble;
    return 0;
}

/* Count or null (-1). */
static int get_count(const reader *r, const cJSON *o, const char *key, int64_t *out)
{
    const cJSON *v = member(o, key);

    if (cJSON_IsNull(v)) {
        *out = -1;
        return 0;
    }
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e15 ||
        v->valuedouble != floor(v->valuedouble))
        return bad(r, key);
    *out = (int64_t)v->valuedouble;
    return 0;
}

/* A timing in ns: a number in (0, RPL_BASELINE_MAX_NS], as the schema says; `key` names it. */
static int check_duration(const reader *r, const cJSON *v, const char *key)
{
    char what[200];

    if (cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble > 0 &&
        v->valuedouble <= RPL_BASELINE_MAX_NS)
        return 0;
    if (cJSON_IsNumber(v))
        snprintf(what, sizeof(what), "%s is %g, not a duration in ns (more than 0, at most %g)",
                 key, v->valuedouble, RPL_BASELINE_MAX_NS);
    else
        snprintf(what, sizeof(what), "%s is not a number", key);
    return bad(r, what);
}

static int get_durations(const reader *r, const cJSON *o, const char *key, bool nonempty,
                         double **out, size_t *n)
{
    const cJSON *a = member(o, key), *v;
    size_t i = 0;
    char item[80];
    int rc;

    if (!cJSON_IsArray(a) || (nonempty && cJSON_GetArraySize(a) == 0))
        return bad(r, key);
    *n = (size_t)cJSON_GetArraySize(a);
    if (!(*out = malloc((*n ? *n : 1) * sizeof(double))))
        return rpl_error_oom();
    cJSON_ArrayForEach(v, a)
    {
        snprintf(item, sizeof(item), "%s[%zu]", key, i);
        if ((rc = check_duration(r, v, item)) != 0)
            return rc;
        (*out)[i++] = v->valuedouble;
    }
    return 0;
}

static int read_static_kernel(reader *r, const cJSON *o, rpl_static_kernel *k)
{
    const cJSON *occ;
    double v;
    int rc;

    if (!cJSON_IsObject(o))
        return bad(r, "not an object");
    if ((rc = get_req_string(r, o, "name", &k->name)) || (rc = get_count(r, o, "vgpr", &k->vgpr)) ||
        (rc = get_count(r, o, "agpr", &k->agpr)) || (rc = get_count(r, o, "sgpr", &k->sgpr)) ||
        (rc = get_count(r, o, "lds_bytes", &k->lds_bytes)) ||
        (rc = get_count(r, o, "scratch_bytes", &k->scratch_bytes)) ||
        (rc = get_count(r, o, "spills", &k->spills)))
        return rc;
    k->occupancy = -1;
    occ = member(o, "occupancy");
    if (cJSON_IsNull(occ))
        return 0;
    if (!cJSON_IsObject(occ))
        return bad(r, "occupancy");
    if ((rc = get_count(r, occ, "value", &k->occupancy)) ||
        (rc = get_opt_string(r, occ, "unit", &k->occ_unit)) ||
        (rc = get_opt_string(r, occ, "limiter", &k->limiter)) ||
        (rc = get_number(r, occ, "block_size", 1, 1 << 20, &v)))
        return rc;
    k->block_size = (unsigned)v;
    return 0;
}

static int read_static(reader *r, rpl_baseline *b, const cJSON *sec)
{
    const cJSON *arr, *bs, *o;
    int rc = 0;

    if (!sec || cJSON_IsNull(sec))
        return 0;
    snprintf(r->where, sizeof(r->where), "static");
    arr = member(sec, "kernels");
    bs = member(sec, "block_size");
    if (!cJSON_IsObject(sec) || !cJSON_IsArray(arr))
        return bad(r, "kernels");
    if (cJSON_IsNumber(bs) && bs->valuedouble >= 1 && bs->valuedouble <= 1024)
        b->block_size = (unsigned)bs->valuedouble;
    else if (!cJSON_IsNull(bs))
        return bad(r, "block_size");
    b->has_static = true;
    b->statics = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*b->statics));
    if (!b->statics)
        return rpl_error_oom();
    cJSON_ArrayForEach(o, arr)
    {
        snprintf(r->where, sizeof(r->where), "static.kernels[%zu]", b->nstatics);
        rc = read_static_kernel(r, o, &b->statics[b->nstatics++]);
        if (rc)
            return rc;
    }
    return 0;
}

static int read_counters(reader *r, const cJSON *c, rpl_runtime_kernel *k)
{
    const cJSON *v;

    if (!c || cJSON_IsNull(c))
        return 0;
    if (!cJSON_IsObject(c))
        return bad(r, "counters");
    k->counters = calloc((size_t)cJSON_GetArraySize(c) + 1, sizeof(*k->counters));
    if (!k->counters)
        return rpl_error_oom();
    cJSON_ArrayForEach(v, c)
    {
        if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) || v->valuedouble < 0)
            return bad(r, "counters");
        if (!(k->counters[k->ncounters].name = strdup(v->string)))
            return rpl_error_oom();
        k->counters[k->ncounters++].value = v->valuedouble;
    }
    return 0;
}

static int read_runtime_kernel(reader *r, const cJSON *o, rpl_runtime_kernel *k)
{
    double *tmp;
    int rc;

    if (!cJSON_IsObject(o))
        return bad(r, "not an object");
    /* median_ns is recomputed from the samples below, but a value that is no timing is corrupt. */
    if ((rc = get_req_string(r, o, "name", &k->name)) ||
        (rc = check_duration(r, member(o, "median_ns"), "median_ns")) ||
        (rc = get_durations(r, o, "samples_ns", true, &k->samples, &k->nsamples)) ||
        (rc = get_durations(r, o, "history_ns", false, &k->history, &k->nhistory)) ||
        (rc = read_counters(r, member(o, "counters"), k)) ||
        (rc = get_opt_string(r, o, "bottleneck", &k->bottleneck)))
        return rc;
    if (k->nhistory > RPL_BASELINE_HISTORY_MAX)
        return bad(r, "history_ns has more entries than history_max");
    /* The summary is recomputed from the samples: they are the truth. */
    if (!(tmp = malloc(k->nsamples * sizeof(double))))
        return rpl_error_oom();
    memcpy(tmp, k->samples, k->nsamples * sizeof(double));
    rc = rpl_stats_compute(&k->stats, tmp, k->nsamples);
    free(tmp);
    return rc;
}

static int read_runtime(reader *r, rpl_baseline *b, const cJSON *sec)
{
    const cJSON *arr, *o;
    int rc;

    if (!sec || cJSON_IsNull(sec))
        return 0;
    snprintf(r->where, sizeof(r->where), "runtime");
    arr = member(sec, "kernels");
    if (!cJSON_IsObject(sec) || !cJSON_IsArray(arr))
        return bad(r, "kernels");
    b->has_runtime = true;
    b->kernels = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*b->kernels));
    if (!b->kernels)
        return rpl_error_oom();
    cJSON_ArrayForEach(o, arr)
    {
        snprintf(r->where, sizeof(r->where), "runtime.kernels[%zu]", b->nkernels);
        rc = read_runtime_kernel(r, o, &b->kernels[b->nkernels++]);
        if (rc)
            return rc;
    }
    return 0;
}

static int read_entry(reader *r, const cJSON *o, rpl_history_entry *e)
{
    const cJSON *m, *v;
    int rc;

    if (!cJSON_IsObject(o))
        return bad(r, "not an object");
    if ((rc = get_req_string(r, o, "date", &e->date)) ||
        (rc = get_opt_string(r, o, "commit", &e->commit)) ||
        (rc = get_opt_string(r, o, "device", &e->device)) ||
        (rc = get_opt_string(r, o, "driver", &e->driver)) ||
        (rc = get_opt_string(r, o, "accepted", &e->accepted)))
        return rc;
    if (rpl_gpu_state_from_json(&e->gpu, member(o, "gpu_state")) != 0)
        return bad(r, "gpu_state");
    m = member(o, "medians_ns");
    if (!cJSON_IsObject(m))
        return bad(r, "medians_ns");
    if (!(e->medians = calloc((size_t)cJSON_GetArraySize(m) + 1, sizeof(*e->medians))))
        return rpl_error_oom();
    cJSON_ArrayForEach(v, m)
    {
        if ((rc = check_duration(r, v, "medians_ns")) != 0)
            return rc;
        if (!(e->medians[e->nmedians].name = strdup(v->string)))
            return rpl_error_oom();
        e->medians[e->nmedians++].value = v->valuedouble;
    }
    return 0;
}

static int read_history(reader *r, rpl_baseline *b, const cJSON *arr)
{
    const cJSON *o;
    int rc;

    if (!arr)
        return 0;
    snprintf(r->where, sizeof(r->where), "history");
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > RPL_BASELINE_RUNS_MAX)
        return bad(r, "not an array of at most 1000 entries");
    if (!(b->runs = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*b->runs))))
        return rpl_error_oom();
    cJSON_ArrayForEach(o, arr)
    {
        snprintf(r->where, sizeof(r->where), "history[%zu]", b->nruns);
        if ((rc = read_entry(r, o, &b->runs[b->nruns++])) != 0)
            return rc;
    }
    return 0;
}

static int from_json(rpl_baseline *b, reader *r, const cJSON *doc)
{
    const cJSON *tol;
    const char *ver;
    double w;
    int rc;

    if (!cJSON_IsObject(doc))
        return bad(r, "not a JSON object");
    if (rpl_json_get_string(doc, "schema_version", &ver) != 0)
        return bad(r, "schema_version");
    if (strcmp(ver, RPL_BASELINE_SCHEMA_VERSION) != 0)
        return rpl_error_set(RPL_EINPUT,
                             "baseline '%s' has schema_version '%s'; this rocm-perf "
                             "reads '%s'",
                             r->path, ver, RPL_BASELINE_SCHEMA_VERSION);
    if ((rc = get_req_string(r, doc, "test", &b->test)) ||
        (rc = get_req_string(r, doc, "arch", &b->arch)) ||
        (rc = get_opt_string(r, doc, "device", &b->device)) ||
        (rc = get_opt_string(r, doc, "driver", &b->driver)) ||
        (rc = get_opt_string(r, doc, "toolkit", &b->toolkit)))
        return rc;
    tol = member(doc, "tolerances");
    snprintf(r->where, sizeof(r->where), "tolerances");
    if (!cJSON_IsObject(tol))
        return bad(r, "missing");
    if ((rc = get_number(r, tol, "runtime", 0, 1, &b->tolerance)) ||
        (rc = get_number(r, tol, "confidence", 0.5, 1, &b->confidence)) ||
        (rc = get_number(r, tol, "warmup", 0, 1e6, &w)))
        return rc;
    b->warmup = (unsigned)w;
    r->where[0] = '\0';
    if ((rc = read_static(r, b, member(doc, "static"))) ||
        (rc = read_runtime(r, b, member(doc, "runtime"))) ||
        (rc = read_history(r, b, member(doc, "history"))))
        return rc;
    r->where[0] = '\0';
    if (!b->has_static && !b->has_runtime)
        return bad(r, "neither a static nor a runtime section");
    return 0;
}

static int from_doc(rpl_baseline **out, cJSON *doc, const char *path)
{
    reader r = {path, ""};
    rpl_baseline *b;
    int rc;

    if (!(b = calloc(1, sizeof(*b)))) {
        cJSON_Delete(doc);
        return rpl_error_oom();
    }
    rc = from_json(b, &r, doc);
    cJSON_Delete(doc);
    if (rc != 0) {
        rpl_baseline_free(b);
        return rc;
    }
    *out = b;
    return 0;
}

int rpl_baseline_read(rpl_baseline **out, const char *path)
{
    cJSON *doc = NULL;
    int rc;

    *out = NULL;
    rc = rpl_json_parse_file(&doc, path, RPL_BASELINE_MAX_BYTES);
    if (rc == RPL_ENOTFOUND || (rc == RPL_EIO && errno == ENOENT))
        return rpl_error_set(RPL_ENOTFOUND, "no baseline '%s'", path);
    if (rc == RPL_EINPUT)
        rpl_error_prefix("corrupt baseline"); /* the reason names the file */
    if (rc != 0)
        return rc;
    return from_doc(out, doc, path);
}

int rpl_baseline_parse(rpl_baseline **out, const char *text, size_t len, const char *name)
{
    cJSON *doc = NULL;
    int rc;

    *out = NULL;
    if (len > RPL_BASELINE_MAX_BYTES)
        return rpl_error_set(RPL_EINPUT, "corrupt baseline '%s': larger than %u bytes", name,
                             (unsigned)RPL_BASELINE_MAX_BYTES);
    if ((rc = rpl_json_parse(&doc, text, len, name)) != 0) {
        if (rc == RPL_EINPUT)
            rpl_error_prefix("corrupt baseline");
        return rc;
    }
    return from_doc(out, doc, name);
}
