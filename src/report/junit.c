/*
 * JUnit XML for gate results, written with libxml2's xmlTextWriter: one
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
#include <time.h>
#include <unistd.h>

#include <libxml/xmlwriter.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/gate.h"
#include "rpl/strbuf.h"

#define X(s) BAD_CAST(s)

typedef struct jw {
    xmlTextWriterPtr w;
    int bad; /* a libxml2 call failed */
} jw;

static void start(jw *j, const char *el)
{
    j->bad |= xmlTextWriterStartElement(j->w, X(el)) < 0;
}

static void end(jw *j)
{
    j->bad |= xmlTextWriterEndElement(j->w) < 0;
}

static void attr(jw *j, const char *name, const char *value)
{
    j->bad |= xmlTextWriterWriteAttribute(j->w, X(name), X(value)) < 0;
}

static void attr_count(jw *j, const char *name, size_t v)
{
    char buf[32];

    snprintf(buf, sizeof(buf), "%zu", v);
    attr(j, name, buf);
}

static void text(jw *j, const char *s)
{
    j->bad |= xmlTextWriterWriteString(j->w, X(s)) < 0;
}

static void property(jw *j, const char *name, const char *value)
{
    start(j, "property");
    attr(j, "name", name);
    attr(j, "value", value);
    end(j);
}

static void propertyf(jw *j, const char *prefix, const char *key, double v)
{
    char name[160], value[64];

    snprintf(name, sizeof(name), "%s.%s", prefix, key);
    snprintf(value, sizeof(value), "%.10g", v);
    property(j, name, value);
}

static bool same_case(const rpl_gate_check *a, const rpl_gate_check *b)
{
    return strcmp(a->kernel, b->kernel) == 0 && strcmp(a->family, b->family) == 0;
}

/* The figures of one check as case properties "<metric>.<figure>". */
static void check_properties(jw *j, const rpl_gate_check *c)
{
    property(j, c->metric, rpl_verdict_name(c->verdict));
    if (c->has_base)
        propertyf(j, c->metric, "baseline", c->base);
    if (c->has_cand)
        propertyf(j, c->metric, "candidate", c->cand);
    if (c->has_base && c->has_cand)
        propertyf(j, c->metric, "change", c->change);
    if (c->has_runtime) {
        propertyf(j, c->metric, "ci_low", exp(c->rt.lower));
        propertyf(j, c->metric, "ci_high", exp(c->rt.upper));
        propertyf(j, c->metric, "p_value", c->rt.p_value);
        propertyf(j, c->metric, "history", (double)c->rt.history);
    }
}

static void write_case(jw *j, const rpl_gate_result *r, size_t first, bool *done)
{
    const rpl_gate_check *c0 = &r->checks[first];
    rpl_strbuf name = RPL_STRBUF_INIT, cls = RPL_STRBUF_INIT, fail = RPL_STRBUF_INIT,
               out = RPL_STRBUF_INIT;
    bool failed = false;

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
    start(j, "testcase");
    attr(j, "classname", rpl_strbuf_cstr(&cls));
    attr(j, "name", rpl_strbuf_cstr(&name));
    attr(j, "time", "0");
    start(j, "properties");
    for (size_t i = first; i < r->nchecks; i++)
        if (!done[i] && same_case(c0, &r->checks[i]))
            check_properties(j, &r->checks[i]);
    end(j);
    if (r->skipped) {
        start(j, "skipped");
        attr(j, "message", c0->message);
        end(j);
    } else if (failed) {
        start(j, "failure");
        attr(j, "type",
             r->baseline_missing               ? "MissingBaseline"
             : strcmp(c0->family, "gate") == 0 ? "NothingChecked"
                                               : "PerformanceRegression");
        attr(j, "message", rpl_strbuf_cstr(&fail));
        text(j, rpl_strbuf_cstr(&out));
        end(j);
    }
    start(j, "system-out");
    text(j, rpl_strbuf_cstr(&out));
    end(j);
    end(j);
    for (size_t i = first; i < r->nchecks; i++)
        if (same_case(c0, &r->checks[i]))
            done[i] = true;
    if (!name.ptr || !cls.ptr || !out.ptr)
        j->bad = 1;
    rpl_strbuf_release(&name);
    rpl_strbuf_release(&cls);
    rpl_strbuf_release(&fail);
    rpl_strbuf_release(&out);
}

/* Number of cases and failed cases of a result. */
static void count_cases(const rpl_gate_result *r, bool *done, size_t *cases, size_t *failures)
{
    *cases = *failures = 0;
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
        (*cases)++;
        *failures += failed;
    }
    memset(done, 0, r->nchecks * sizeof(*done));
}

static void write_suite(jw *j, const rpl_gate_result *r, size_t index, const char *stamp,
                        const char *host, bool *done)
{
    size_t cases, failures;
    char buf[320];

    count_cases(r, done, &cases, &failures);
    start(j, "testsuite");
    snprintf(buf, sizeof(buf), "rocm-perf.%s", r->test);
    attr(j, "name", buf);
    attr_count(j, "tests", cases);
    attr_count(j, "failures", failures);
    attr(j, "errors", "0");
    attr_count(j, "skipped", r->skipped ? cases : 0);
    snprintf(buf, sizeof(buf), "%.3f", r->elapsed_s);
    attr(j, "time", buf);
    attr(j, "timestamp", stamp);
    attr(j, "hostname", host);
    attr_count(j, "id", index);
    attr(j, "package", "rocm-perf");
    start(j, "properties");
    property(j, "arch", r->arch);
    if (r->device)
        property(j, "device", r->device);
    property(j, "mode", r->mode);
    property(j, "input", r->input);
    property(j, "verdict", rpl_verdict_name(r->verdict));
    snprintf(buf, sizeof(buf), "%.6g", r->stat.delta);
    property(j, "tolerance", buf);
    snprintf(buf, sizeof(buf), "%.6g", r->stat.confidence);
    property(j, "confidence", buf);
    if (r->baseline_path)
        property(j, "baseline", r->baseline_path);
    if (r->confirmation)
        property(j, "confirmation", r->confirmation);
    end(j);
    for (size_t i = 0; i < r->nchecks; i++)
        if (!done[i])
            write_case(j, r, i, done);
    start(j, "system-out");
    for (size_t i = 0; i < r->nattachments; i++) {
        text(j, "[[ATTACHMENT|");
        text(j, r->attachments[i]);
        text(j, "]]\n");
    }
    end(j);
    start(j, "system-err");
    end(j);
    end(j);
}

int rpl_gate_junit_write(const char *path, const rpl_gate_result *const *results, size_t n)
{
    xmlBufferPtr buf = xmlBufferCreate();
    jw j = {NULL, 0};
    size_t tests = 0, failures = 0, skipped = 0, maxchecks = 1;
    char stamp[32], host[256] = "localhost";
    time_t now = time(NULL);
    struct tm tm;
    bool *done;
    int rc;

    if (!buf)
        return rpl_error_oom();
    for (size_t i = 0; i < n; i++)
        if (results[i]->nchecks > maxchecks)
            maxchecks = results[i]->nchecks;
    done = calloc(maxchecks, sizeof(*done));
    j.w = xmlNewTextWriterMemory(buf, 0);
    if (!done || !j.w) {
        free(done);
        if (j.w)
            xmlFreeTextWriter(j.w);
        xmlBufferFree(buf);
        return rpl_error_oom();
    }
    gmtime_r(&now, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    if (gethostname(host, sizeof(host)) != 0 || !host[0])
        snprintf(host, sizeof(host), "localhost");
    host[sizeof(host) - 1] = '\0';
    for (size_t i = 0; i < n; i++) {
        size_t c, f;
        count_cases(results[i], done, &c, &f);
        tests += c;
        failures += f;
        skipped += results[i]->skipped ? c : 0;
    }
    xmlTextWriterSetIndent(j.w, 1);
    j.bad |= xmlTextWriterStartDocument(j.w, NULL, "UTF-8", NULL) < 0;
    start(&j, "testsuites");
    attr(&j, "name", "rocm-perf");
    attr_count(&j, "tests", tests);
    attr_count(&j, "failures", failures);
    attr(&j, "errors", "0");
    attr_count(&j, "skipped", skipped);
    for (size_t i = 0; i < n; i++)
        write_suite(&j, results[i], i, stamp, host, done);
    end(&j);
    j.bad |= xmlTextWriterEndDocument(j.w) < 0;
    xmlFreeTextWriter(j.w);
    free(done);
    if (j.bad)
        rc = rpl_error_set(RPL_ERROR, "libxml2 could not build the JUnit document for '%s'", path);
    else
        rc = rpl_file_write_atomic(path, xmlBufferContent(buf), (size_t)xmlBufferLength(buf));
    xmlBufferFree(buf);
    return rc;
}
