/*
 * `rocm-perf report --suite DIR`: the gate results of a whole ctest run,
 * with Holm's step-down correction across their runtime comparisons so the
 * chance of any false FAIL in the suite stays at alpha.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/gate.h"
#include "rpl/json.h"
#include "rpl/log.h"
#include "rpl/report.h"

typedef struct suite {
    rpl_gate_result **results;
    char **paths;
    size_t n, cap;
    int rc;
} suite;

static suite *walk_suite; /* nftw has no user pointer */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);

    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A JSON file is a gate result when it says so: schema keys of gate-result.schema.json. */
static bool looks_like_result(const cJSON *doc)
{
    return cJSON_IsObject(doc) && cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "checks")) &&
           cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "verdict")) &&
           cJSON_IsString(cJSON_GetObjectItemCaseSensitive(doc, "mode"));
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *f)
{
    suite *s = walk_suite;
    cJSON *doc = NULL;
    rpl_gate_result *r = NULL;
    int rc;

    (void)st;
    (void)f;
    if (type != FTW_F || !ends_with(path, ".json"))
        return 0;
    if (rpl_json_parse_file(&doc, path, 64u << 20) != 0 || !looks_like_result(doc)) {
        rpl_log_debug("suite: '%s' is no gate result, skipped", path);
        cJSON_Delete(doc);
        return 0;
    }
    rc = rpl_gate_result_from_json(&r, doc, path);
    cJSON_Delete(doc);
    if (rc == 0 && s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        rpl_gate_result **nr = realloc(s->results, cap * sizeof(*nr));
        char **np = nr ? realloc(s->paths, cap * sizeof(*np)) : NULL;
        if (nr)
            s->results = nr;
        if (np)
            s->paths = np;
        if (!nr || !np)
            rc = rpl_error_oom();
        else
            s->cap = cap;
    }
    if (rc == 0) {
        s->results[s->n] = r;
        if (!(s->paths[s->n] = strdup(path)))
            rc = rpl_error_oom();
        else
            s->n++;
    }
    if (rc != 0) {
        rpl_gate_result_free(r);
        s->rc = rc;
        return 1;
    }
    return 0;
}

typedef struct entry {
    rpl_gate_result *r;
    char *path;
} entry;

static int by_test(const void *a, const void *b)
{
    const rpl_gate_result *x = ((const entry *)a)->r, *y = ((const entry *)b)->r;
    int c = strcmp(x->test, y->test);

    return c ? c : strcmp(x->arch, y->arch);
}

/* Results in test order, each with its file. */
static int sort_by_test(suite *s)
{
    entry *e = malloc(s->n * sizeof(*e));

    if (!e)
        return rpl_error_oom();
    for (size_t i = 0; i < s->n; i++)
        e[i] = (entry){s->results[i], s->paths[i]};
    qsort(e, s->n, sizeof(*e), by_test);
    for (size_t i = 0; i < s->n; i++) {
        s->results[i] = e[i].r;
        s->paths[i] = e[i].path;
    }
    free(e);
    return 0;
}

/* Holm over the runtime checks that failed on their own; a rejected FAIL stays, others WARN. */
static int apply_holm(suite *s, double alpha, size_t *m_out, size_t *downgraded)
{
    size_t m = 0, k = 0;
    double *p;
    bool *rej;
    int rc;

    for (size_t i = 0; i < s->n; i++)
        for (size_t j = 0; j < s->results[i]->nchecks; j++)
            m += s->results[i]->checks[j].has_runtime;
    *m_out = m;
    *downgraded = 0;
    p = malloc((m ? m : 1) * sizeof(*p));
    rej = malloc((m ? m : 1) * sizeof(*rej));
    if (!p || !rej) {
        free(p);
        free(rej);
        return rpl_error_oom();
    }
    for (size_t i = 0; i < s->n; i++)
        for (size_t j = 0; j < s->results[i]->nchecks; j++)
            if (s->results[i]->checks[j].has_runtime)
                p[k++] = s->results[i]->checks[j].rt.p_value;
    rc = rpl_gate_holm(rej, p, m, alpha);
    k = 0;
    for (size_t i = 0; rc == 0 && i < s->n; i++) {
        rpl_gate_result *r = s->results[i];
        r->verdict = RPL_VERDICT_PASS;
        for (size_t j = 0; j < r->nchecks; j++) {
            rpl_gate_check *c = &r->checks[j];
            if (c->has_runtime && !rej[k++] && c->verdict == RPL_VERDICT_FAIL) {
                c->verdict = RPL_VERDICT_WARN;
                (*downgraded)++;
            }
            if (c->verdict > r->verdict)
                r->verdict = c->verdict;
        }
    }
    free(p);
    free(rej);
    return rc;
}

static void summary(rpl_strbuf *out, const suite *s, double alpha, size_t m, size_t downgraded,
                    size_t *nfail)
{
    size_t counts[4] = {0}, skipped = 0;

    for (size_t i = 0; i < s->n; i++) {
        skipped += s->results[i]->skipped;
        counts[s->results[i]->verdict] += !s->results[i]->skipped;
    }
    *nfail = counts[RPL_VERDICT_FAIL];
    rpl_strbuf_printf(out, "suite: %zu gate result%s: %zu fail, %zu warn, %zu improved, %zu pass",
                      s->n, s->n == 1 ? "" : "s", counts[RPL_VERDICT_FAIL],
                      counts[RPL_VERDICT_WARN], counts[RPL_VERDICT_IMPROVED],
                      counts[RPL_VERDICT_PASS]);
    if (skipped)
        rpl_strbuf_printf(out, ", %zu skipped (nothing checked)", skipped);
    rpl_strbuf_puts(out, "\n");
    rpl_strbuf_printf(out,
                      "Holm step-down over %zu runtime comparison%s at family-wise alpha %.3g: "
                      "the chance of one or more false runtime FAILs in this suite is at most "
                      "%.3g (uncorrected it could reach 1-(1-%.3g)^%zu = %.3g); %zu FAIL%s not "
                      "significant across the suite became WARN.\n",
                      m, m == 1 ? "" : "s", alpha, alpha, alpha, m,
                      1.0 - pow(1.0 - alpha, (double)m), downgraded, downgraded == 1 ? "" : "s");
    for (size_t i = 0; i < s->n; i++) {
        const rpl_gate_result *r = s->results[i];
        rpl_strbuf_printf(out, "  %-8s %s (%s, %s)  %s\n",
                          r->skipped ? "skipped" : rpl_verdict_name(r->verdict), r->test, r->arch,
                          r->mode, s->paths[i]);
        for (size_t j = 0; j < r->nchecks; j++)
            if (r->checks[j].verdict >= RPL_VERDICT_WARN)
                rpl_strbuf_printf(out, "           %s: %s\n",
                                  rpl_verdict_name(r->checks[j].verdict), r->checks[j].message);
    }
}

static void geomean_line(rpl_strbuf *out, const rpl_suite_geomean *g, const char *lead)
{
    if (!g->kernels) {
        rpl_strbuf_printf(out, "%sno runtime comparison: no geometric mean\n", lead);
        return;
    }
    rpl_strbuf_printf(out,
                      "%sgeometric mean of the runtime ratios (candidate / baseline) over %zu "
                      "kernel%s of %zu test%s: %.4f (%+.2f%%), %.0f%% bootstrap interval over "
                      "tests [%.4f, %.4f]\n",
                      lead, g->kernels, g->kernels == 1 ? "" : "s", g->tests,
                      g->tests == 1 ? "" : "s", g->ratio, 100.0 * (g->ratio - 1.0),
                      100.0 * g->confidence, g->ci_low, g->ci_high);
}

/* docs/schemas/suite.schema.json */
static int suite_json(const char *path, const suite *s, const rpl_suite_geomean *g, double alpha,
                      size_t m, size_t downgraded, size_t nfail)
{
    cJSON *doc = cJSON_CreateObject(), *gm = NULL, *arr = NULL;
    int rc = 0;

    if (!doc || !cJSON_AddStringToObject(doc, "schema_version", "1.0") ||
        !rpl_json_add_int64(doc, "results", (int64_t)s->n) ||
        !rpl_json_add_int64(doc, "failed", (int64_t)nfail) ||
        !cJSON_AddNumberToObject(doc, "alpha", alpha) ||
        !rpl_json_add_int64(doc, "runtime_comparisons", (int64_t)m) ||
        !rpl_json_add_int64(doc, "holm_downgraded", (int64_t)downgraded) ||
        !(gm = g->kernels ? cJSON_AddObjectToObject(doc, "geomean")
                          : cJSON_AddNullToObject(doc, "geomean")) ||
        !(arr = cJSON_AddArrayToObject(doc, "tests")))
        rc = rpl_error_oom();
    if (rc == 0 && g->kernels &&
        (!cJSON_AddNumberToObject(gm, "ratio", g->ratio) ||
         !cJSON_AddNumberToObject(gm, "ci_low", g->ci_low) ||
         !cJSON_AddNumberToObject(gm, "ci_high", g->ci_high) ||
         !cJSON_AddNumberToObject(gm, "confidence", g->confidence) ||
         !rpl_json_add_int64(gm, "bootstrap", g->bootstrap) ||
         !rpl_json_add_int64(gm, "tests", (int64_t)g->tests) ||
         !rpl_json_add_int64(gm, "kernels", (int64_t)g->kernels)))
        rc = rpl_error_oom();
    for (size_t i = 0; rc == 0 && i < s->n; i++) {
        const rpl_gate_result *r = s->results[i];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(arr, o) || !cJSON_AddStringToObject(o, "test", r->test) ||
            !cJSON_AddStringToObject(o, "arch", r->arch) ||
            !cJSON_AddStringToObject(o, "verdict",
                                     r->skipped ? "skipped" : rpl_verdict_name(r->verdict)) ||
            !cJSON_AddStringToObject(o, "file", s->paths[i]))
            rc = rpl_error_oom();
    }
    if (rc == 0)
        rc = rpl_json_write_file(path, doc);
    cJSON_Delete(doc);
    return rc;
}

int rpl_gate_suite_report(rpl_strbuf *out, bool *failed, const rpl_suite_opts *o)
{
    rpl_suite_geomean g = {0};
    suite s = {0};
    size_t m = 0, downgraded = 0, nfail = 0;
    int rc;

    *failed = false;
    if (!(o->alpha > 0 && o->alpha < 1))
        return rpl_error_set(RPL_EUSAGE, "--alpha takes a level between 0 and 1, not %g", o->alpha);
    walk_suite = &s;
    rc = nftw(o->dir, visit, 16, FTW_PHYS);
    walk_suite = NULL;
    if (rc < 0)
        rc = rpl_error_set(RPL_ENOTFOUND, "cannot read the suite folder '%s'", o->dir);
    else
        rc = s.rc;
    if (rc == 0 && s.n == 0)
        rc = rpl_error_set(RPL_EINPUT, "no gate result JSON files below '%s'", o->dir);
    if (rc == 0)
        rc = sort_by_test(&s);
    /* The suite's JUnit links each test's result file. */
    for (size_t i = 0; rc == 0 && i < s.n; i++)
        rc = rpl_gate_result_add_attachment(s.results[i], s.paths[i]);
    if (rc == 0)
        rc = apply_holm(&s, o->alpha, &m, &downgraded);
    if (rc == 0)
        rc = rpl_suite_geomean_compute(&g, (const rpl_gate_result *const *)s.results, s.n);
    if (rc == 0) {
        summary(out, &s, o->alpha, m, downgraded, &nfail);
        geomean_line(out, &g, "");
        *failed = nfail > 0;
    }
    if (rc == 0 && o->json)
        rc = suite_json(o->json, &s, &g, o->alpha, m, downgraded, nfail);
    if (rc == 0 && o->html)
        rc = rpl_suite_html(o->html, (const rpl_gate_result *const *)s.results, s.n, &g,
                            o->baseline_dir);
    if (rc == 0 && o->markdown) {
        rpl_strbuf md = RPL_STRBUF_INIT;
        rpl_strbuf_printf(&md, "# rocm-perf suite: %zu fail of %zu\n\n%s\n", nfail, s.n,
                          "Family-wise false-alarm control: Holm over the runtime comparisons.");
        geomean_line(&md, &g, "\n**Suite:** ");
        for (size_t i = 0; rc == 0 && i < s.n; i++)
            rc = rpl_gate_markdown(&md, s.results[i]);
        if (rc == 0)
            rc = rpl_file_write_atomic(o->markdown, md.ptr ? md.ptr : "", md.len);
        rpl_strbuf_release(&md);
    }
    if (rc == 0 && o->junit)
        rc = rpl_gate_junit_write_suite(o->junit, (const rpl_gate_result *const *)s.results, s.n,
                                        &g);
    for (size_t i = 0; i < s.n; i++) {
        rpl_gate_result_free(s.results[i]);
        free(s.paths[i]);
    }
    free(s.results);
    free(s.paths);
    return rc;
}
