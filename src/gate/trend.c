/*
 * `rocm-perf baseline trend`: each kernel's history from the baseline's run
 * entries, its change points and drift, as JSON
 * (docs/schemas/trend.schema.json) and as text.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/json.h"
#include "rpl/kernel_filter.h"
#include "rpl/report.h"
#include "rpl/trend.h"

#define TREND_SCHEMA_VERSION "1.0"
#define ACCEPT_NEAR          2 /* an accepted move this close to a change point explains it */

typedef struct series {
    double *v;
    size_t *entry; /* index into b->runs */
    size_t n;
} series;

static int series_of(series *s, const rpl_baseline *b, const char *kernel)
{
    s->n = 0;
    s->v = malloc((b->nruns + 1) * sizeof(*s->v));
    s->entry = malloc((b->nruns + 1) * sizeof(*s->entry));
    if (!s->v || !s->entry)
        return rpl_error_oom();
    for (size_t i = 0; i < b->nruns; i++)
        for (size_t j = 0; j < b->runs[i].nmedians; j++)
            if (strcmp(b->runs[i].medians[j].name, kernel) == 0) {
                s->v[s->n] = b->runs[i].medians[j].value;
                s->entry[s->n++] = i;
                break;
            }
    return 0;
}

static cJSON *str_or_null(cJSON *o, const char *key, const char *v)
{
    return v ? cJSON_AddStringToObject(o, key, v) : cJSON_AddNullToObject(o, key);
}

static const char *short_commit(char *buf, size_t cap, const char *c)
{
    snprintf(buf, cap, "%.10s", c ? c : "no commit");
    return buf;
}

/* The accepted move within ACCEPT_NEAR entries of series index i, or NULL. */
static const char *accepted_near(const rpl_baseline *b, const series *s, size_t i)
{
    size_t from = i > ACCEPT_NEAR ? i - ACCEPT_NEAR : 0;

    for (size_t k = from; k < s->n && k <= i + ACCEPT_NEAR; k++)
        if (b->runs[s->entry[k]].accepted)
            return b->runs[s->entry[k]].accepted;
    return NULL;
}

static int history_json(cJSON *arr, const rpl_baseline *b, const series *s)
{
    for (size_t i = 0; i < s->n; i++) {
        const rpl_history_entry *e = &b->runs[s->entry[i]];
        cJSON *o = cJSON_CreateObject(), *g = rpl_gpu_state_json(&e->gpu);

        if (!o || !g || !cJSON_AddItemToArray(arr, o) ||
            !rpl_json_add_int64(o, "index", (int64_t)i) ||
            !cJSON_AddNumberToObject(o, "median_ns", s->v[i]) || !str_or_null(o, "date", e->date) ||
            !str_or_null(o, "commit", e->commit) || !str_or_null(o, "device", e->device) ||
            !str_or_null(o, "driver", e->driver) || !str_or_null(o, "accepted", e->accepted) ||
            !cJSON_AddItemToObject(o, "gpu_state", g)) {
            cJSON_Delete(g);
            return rpl_error_oom();
        }
    }
    return 0;
}

static int kernel_trend(cJSON *karr, rpl_strbuf *text, const rpl_baseline *b, const char *name,
                        const rpl_trend_opts *o)
{
    series s = {0};
    rpl_change_point *cp = NULL;
    size_t ncp = 0;
    rpl_drift d;
    cJSON *k = cJSON_CreateObject(), *h, *carr, *dj;
    char c1[16], c2[16], m1[32], m2[32];
    int rc = k && cJSON_AddItemToArray(karr, k) ? series_of(&s, b, name) : rpl_error_oom();

    if (rc == 0)
        rc = rpl_change_points(&cp, &ncp, s.v, s.n, &o->cp);
    if (rc != 0)
        goto done;
    rpl_drift_find(&d, cp, ncp, s.v, s.n, o->tolerance);
    if (!cJSON_AddStringToObject(k, "name", name) ||
        !rpl_json_add_int64(k, "entries", (int64_t)s.n) ||
        !(h = cJSON_AddArrayToObject(k, "history")) || history_json(h, b, &s) ||
        !(carr = cJSON_AddArrayToObject(k, "change_points"))) {
        rc = rpl_error_oom();
        goto done;
    }
    if (text)
        rpl_strbuf_printf(text, "%s: %zu entr%s, %zu change point%s%s\n", name, s.n,
                          s.n == 1 ? "y" : "ies", ncp, ncp == 1 ? "" : "s",
                          s.n < 2 * o->cp.min_size ? " (too few entries to look for any)" : "");
    for (size_t i = 0; i < ncp; i++) {
        const rpl_history_entry *at = &b->runs[s.entry[cp[i].index]];
        const rpl_history_entry *prev = &b->runs[s.entry[cp[i].index - 1]];
        const char *acc = accepted_near(b, &s, cp[i].index);
        cJSON *c = cJSON_CreateObject(), *range;

        if (!c || !cJSON_AddItemToArray(carr, c) ||
            !rpl_json_add_int64(c, "index", (int64_t)cp[i].index) ||
            !cJSON_AddNumberToObject(c, "before_ns", cp[i].before) ||
            !cJSON_AddNumberToObject(c, "after_ns", cp[i].after) ||
            !cJSON_AddNumberToObject(c, "size", cp[i].size) ||
            !cJSON_AddStringToObject(c, "direction", cp[i].size > 0 ? "slower" : "faster") ||
            !cJSON_AddBoolToObject(c, "material", fabs(cp[i].size) > o->tolerance) ||
            !cJSON_AddNumberToObject(c, "p_value", cp[i].p_value) ||
            !cJSON_AddNumberToObject(c, "confidence", 1.0 - cp[i].p_value) ||
            !str_or_null(c, "date", at->date) || !(range = cJSON_AddObjectToObject(c, "commits")) ||
            !str_or_null(range, "last_before", prev->commit) ||
            !str_or_null(range, "first_after", at->commit) || !str_or_null(c, "accepted", acc)) {
            rc = rpl_error_oom();
            goto done;
        }
        if (text)
            rpl_strbuf_printf(
                text,
                "  entry %zu: %+.2f%% (%s -> %s), %s, p %.3f, began at commit %s "
                "(last before: %s), %s%s%s\n",
                cp[i].index, 100.0 * cp[i].size, rpl_format_ns(m1, sizeof(m1), cp[i].before),
                rpl_format_ns(m2, sizeof(m2), cp[i].after), cp[i].size > 0 ? "slower" : "faster",
                cp[i].p_value, short_commit(c1, sizeof(c1), at->commit),
                short_commit(c2, sizeof(c2), prev->commit), at->date ? at->date : "",
                acc ? "; accepted: " : "", acc ? acc : "");
    }
    if (!d.found) {
        dj = cJSON_AddNullToObject(k, "drift");
    } else {
        const rpl_history_entry *at = &b->runs[s.entry[d.start]];
        dj = cJSON_AddObjectToObject(k, "drift");
        if (dj && (!rpl_json_add_int64(dj, "start_index", (int64_t)d.start) ||
                   !cJSON_AddNumberToObject(dj, "total", d.total) ||
                   !rpl_json_add_int64(dj, "steps", (int64_t)d.steps) ||
                   !str_or_null(dj, "commit", at->commit)))
            dj = NULL;
        if (text)
            rpl_strbuf_printf(text, "  drift: %+.2f%% in %zu steps since entry %zu (commit %s)\n",
                              100.0 * d.total, d.steps, d.start,
                              short_commit(c1, sizeof(c1), at->commit));
    }
    if (!dj)
        rc = rpl_error_oom();
done:
    RPL_FREE_EACH(cp, s.v, s.entry);
    return rc;
}

int rpl_trend_report(cJSON **out, rpl_strbuf *text, const rpl_baseline *b, const rpl_trend_opts *o)
{
    cJSON *doc = cJSON_CreateObject(), *m, *karr;
    rpl_kernel_filter f;
    size_t selected = 0;
    int rc = rpl_kernel_filter_init(&f, o->kernel_regex, NULL, true);

    *out = NULL;
    if (rc != 0) {
        cJSON_Delete(doc);
        return rc;
    }
    if (!doc || !cJSON_AddStringToObject(doc, "schema_version", TREND_SCHEMA_VERSION) ||
        !cJSON_AddStringToObject(doc, "test", b->test) ||
        !cJSON_AddStringToObject(doc, "arch", b->arch) ||
        !cJSON_AddNumberToObject(doc, "tolerance", o->tolerance) ||
        !(m = cJSON_AddObjectToObject(doc, "method")) ||
        !cJSON_AddStringToObject(m, "name", "e-divisive") ||
        !rpl_json_add_int64(m, "permutations", o->cp.permutations) ||
        !cJSON_AddNumberToObject(m, "alpha", o->cp.alpha) ||
        !rpl_json_add_int64(m, "min_size", (int64_t)o->cp.min_size) ||
        !rpl_json_add_int64(m, "seed", (int64_t)o->cp.seed) ||
        !(karr = cJSON_AddArrayToObject(doc, "kernels")))
        rc = rpl_error_oom();
    for (size_t i = 0; rc == 0 && i < b->nkernels; i++) {
        if (!rpl_kernel_filter_selects(&f, b->kernels[i].name, b->kernels[i].name))
            continue;
        selected++;
        rc = kernel_trend(karr, text, b, b->kernels[i].name, o);
    }
    rpl_kernel_filter_release(&f);
    if (rc == 0 && !selected)
        rc = rpl_error_set(RPL_EINPUT,
                           "no kernel of the runtime section of baseline '%s' is "
                           "selected%s%s",
                           b->test, o->kernel_regex ? " by --kernel " : "",
                           o->kernel_regex ? o->kernel_regex : "");
    if (rc != 0) {
        cJSON_Delete(doc);
        return rc;
    }
    *out = doc;
    return 0;
}
