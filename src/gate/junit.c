/*
 * JUnit XML for gate results, written with rpl/junit_writer.h: one
 * <testsuite> per gate result, one <testcase> per kernel and metric family
 * (classname "rocm-perf.<test>", name "<kernel>.<family>"), a
 * <failure type="PerformanceRegression"> with the numbers in its message,
 * case <properties> with the figures and [[ATTACHMENT|path]] lines in
 * <system-out>.  It validates against tests/gate/junit.xsd.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/gate.h"
#include "rpl/junit_writer.h"
#include "rpl/strbuf.h"

/* The property "<prefix>.<key>" with the value `v`. */
static void propertyf(rpl_junit *j, const char *prefix, const char *key, double v)
{
    char name[160];

    snprintf(name, sizeof(name), "%s.%s", prefix, key);
    rpl_junit_propertyf(j, name, "%.10g", v);
}

static bool same_case(const rpl_gate_check *a, const rpl_gate_check *b)
{
    return strcmp(a->kernel, b->kernel) == 0 && strcmp(a->family, b->family) == 0;
}

/* The figures of one check as case properties "<metric>.<figure>". */
static void check_properties(rpl_junit *j, const rpl_gate_check *c)
{
    rpl_junit_property(j, c->metric, rpl_verdict_name(c->verdict));
    if (c->has_base)
        propertyf(j, c->metric, "baseline", c->base);
    if (c->has_cand)
        propertyf(j, c->metric, "candidate", c->cand);
    if (c->has_base && c->has_cand)
        propertyf(j, c->metric, "change", c->change);
    if (c->has_runtime) {
        char name[160];

        snprintf(name, sizeof(name), "%s.change_class", c->metric);
        rpl_junit_property(j, name, rpl_change_name(c->rt.change));
        propertyf(j, c->metric, "ci_low", exp(c->rt.lower));
        propertyf(j, c->metric, "ci_high", exp(c->rt.upper));
        propertyf(j, c->metric, "p_value", c->rt.p_value);
        propertyf(j, c->metric, "history", (double)c->rt.history);
    }
}

/* The case of checks[first] and every later check of its kernel and family. */
static int write_case(rpl_junit *j, const rpl_gate_result *r, size_t first, bool *done)
{
    const rpl_gate_check *c0 = &r->checks[first];
    rpl_strbuf name = RPL_STRBUF_INIT, cls = RPL_STRBUF_INIT, fail = RPL_STRBUF_INIT,
               out = RPL_STRBUF_INIT;
    bool failed = false;
    int rc = 0;

    for (size_t i = first; i < r->nchecks; i++) {
        const rpl_gate_check *c = &r->checks[i];
        if (done[i] || !same_case(c0, c))
            continue;
        if (c->verdict == RPL_VERDICT_FAIL) {
            failed = true;
            rpl_strbuf_printf(&fail, "%s%s", fail.len ? "; " : "", c->message);
        }
        rpl_strbuf_printf(&out, "%s: %s\n", r->skipped ? "skipped" : rpl_verdict_name(c->verdict),
                          c->message);
    }
    if (r->create_command && c0->family[0] == 'b')
        rpl_strbuf_printf(&out, "create the baseline with: %s\n", r->create_command);
    for (size_t i = 0; i < r->nattachments; i++)
        rpl_strbuf_printf(&out, "[[ATTACHMENT|%s]]\n", r->attachments[i]);
    rpl_strbuf_printf(&name, "%s.%s", c0->kernel, c0->family);
    rpl_strbuf_printf(&cls, "rocm-perf.%s", r->test);
    rpl_junit_start(j, "testcase");
    rpl_junit_attr(j, "classname", rpl_strbuf_cstr(&cls));
    rpl_junit_attr(j, "name", rpl_strbuf_cstr(&name));
    rpl_junit_attr(j, "time", "0");
    rpl_junit_start(j, "properties");
    for (size_t i = first; i < r->nchecks; i++)
        if (!done[i] && same_case(c0, &r->checks[i]))
            check_properties(j, &r->checks[i]);
    rpl_junit_end(j);
    if (r->skipped)
        rpl_junit_skipped(j, c0->message);
    else if (failed)
        rpl_junit_failure(j,
                          r->baseline_missing               ? "MissingBaseline"
                          : strcmp(c0->family, "gate") == 0 ? "NothingChecked"
                                                            : "PerformanceRegression",
                          rpl_strbuf_cstr(&fail), rpl_strbuf_cstr(&out));
    rpl_junit_system_out(j, rpl_strbuf_cstr(&out), NULL, 0);
    rpl_junit_end(j);
    for (size_t i = first; i < r->nchecks; i++)
        if (same_case(c0, &r->checks[i]))
            done[i] = true;
    if (!name.ptr || !cls.ptr || !out.ptr)
        rc = rpl_error_oom();
    rpl_strbuf_release(&name);
    rpl_strbuf_release(&cls);
    rpl_strbuf_release(&fail);
    rpl_strbuf_release(&out);
    return rc;
}

/* Number of cases, failed cases and skipped cases of a result. */
static void count_cases(const rpl_gate_result *r, bool *done, rpl_junit_counts *c)
{
    *c = (rpl_junit_counts){.has_skipped = true};
    memset(done, 0, r->nchecks * sizeof(*done));
    for (size_t i = 0; i < r->nchecks; i++) {
        bool failed = false;
        if (done[i])
            continue;
        for (size_t k = i; k < r->nchecks; k++)
            if (!done[k] && same_case(&r->checks[i], &r->checks[k])) {
                failed |= r->checks[k].verdict == RPL_VERDICT_FAIL;
                done[k] = true;
            }
        c->tests++;
        c->failures += failed;
    }
    c->skipped = r->skipped ? c->tests : 0;
    memset(done, 0, r->nchecks * sizeof(*done));
}

static int write_suite(rpl_junit *j, const rpl_gate_result *r, size_t index, bool *done,
                       const rpl_suite_geomean *g)
{
    rpl_junit_counts c;
    char name[320];
    int rc = 0;

    count_cases(r, done, &c);
    snprintf(name, sizeof(name), "rocm-perf.%s", r->test);
    rpl_junit_testsuite(j, name, &c, r->elapsed_s);
    rpl_junit_attr_count(j, "id", index);
    rpl_junit_attr(j, "package", "rocm-perf");
    rpl_junit_start(j, "properties");
    rpl_junit_property(j, "arch", r->arch);
    if (r->device)
        rpl_junit_property(j, "device", r->device);
    rpl_junit_property(j, "mode", r->mode);
    rpl_junit_property(j, "input", r->input);
    rpl_junit_property(j, "verdict", rpl_verdict_name(r->verdict));
    rpl_junit_propertyf(j, "tolerance", "%.6g", r->stat.delta);
    rpl_junit_propertyf(j, "confidence", "%.6g", r->stat.confidence);
    rpl_junit_property(j, "undecided", rpl_verdict_name(r->stat.undecided));
    if (r->baseline_path)
        rpl_junit_property(j, "baseline", r->baseline_path);
    if (r->confirmation)
        rpl_junit_property(j, "confirmation", r->confirmation);
    if (g && g->kernels) {
        rpl_junit_propertyf(j, "suite.geomean_ratio", "%.6g", g->ratio);
        rpl_junit_propertyf(j, "suite.geomean_ci_low", "%.6g", g->ci_low);
        rpl_junit_propertyf(j, "suite.geomean_ci_high", "%.6g", g->ci_high);
        rpl_junit_propertyf(j, "suite.geomean_kernels", "%zu", g->kernels);
    }
    rpl_junit_end(j);
    for (size_t i = 0; i < r->nchecks && rc == 0; i++)
        if (!done[i])
            rc = write_case(j, r, i, done);
    rpl_junit_testsuite_end(j, (const char *const *)r->attachments, r->nattachments);
    return rc;
}

int rpl_gate_junit_write(const char *path, const rpl_gate_result *const *results, size_t n)
{
    return rpl_gate_junit_write_suite(path, results, n, NULL);
}

int rpl_gate_junit_write_suite(const char *path, const rpl_gate_result *const *results, size_t n,
                               const rpl_suite_geomean *g)
{
    rpl_junit_counts all = {.has_skipped = true};
    size_t maxchecks = 1;
    rpl_junit *j;
    bool *done;
    int rc;

    for (size_t i = 0; i < n; i++)
        if (results[i]->nchecks > maxchecks)
            maxchecks = results[i]->nchecks;
    if (!(done = calloc(maxchecks, sizeof(*done))))
        return rpl_error_oom();
    if ((rc = rpl_junit_open(&j, path)) != 0) {
        free(done);
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
        rpl_junit_counts c;
        count_cases(results[i], done, &c);
        all.tests += c.tests;
        all.failures += c.failures;
        all.skipped += c.skipped;
    }
    rpl_junit_testsuites(j, "rocm-perf", &all);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = write_suite(j, results[i], i, done, g);
    rpl_junit_end(j);
    free(done);
    if (rc != 0) {
        rpl_junit_discard(j);
        return rc;
    }
    return rpl_junit_close(j);
}
