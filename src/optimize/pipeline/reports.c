/*
 * Reports of a pipeline run, each written whole or not at all: junit.xml
 * (one testcase per candidate, the decision as the failure type),
 * summary.md (fit for $GITHUB_STEP_SUMMARY), optimize-log.json
 * (docs/schemas/optimize-log.schema.json); and the commit message of an
 * accepted candidate.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipe_int.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/junit_writer.h"
#include "rpl/report.h"
#include "rpl/version.h"

static const char *origin_name(rpl_pipe_origin o)
{
    static const char *const names[] = {"rule", "file", "llm", "autotune"};
    return (unsigned)o < 4 ? names[o] : "unknown";
}

int rpl_pipe_note_commit(rpl_pipe *p, const rpl_pipe_outcome *o, const char *branch,
                         const char *commit)
{
    for (size_t i = 0; i < p->noutcomes; i++)
        if (p->outcomes[i] == o) {
            if (branch && commit)
                return pipe_set(&p->commits[i], "%s %s", branch, commit);
            return pipe_set(&p->commits[i], "%s", branch ? branch : "not committed");
        }
    return rpl_error_set(RPL_EUSAGE, "that outcome is not from this pipeline");
}

/* ---- JUnit ---------------------------------------------------------------- */

static void testcase(rpl_junit *j, const rpl_pipe *p, size_t i)
{
    const rpl_pipe_outcome *o = p->outcomes[i];
    const char *attachments[] = {o->source_path, o->build_log_path};
    char name[512];

    snprintf(name, sizeof(name), "%s: %s", o->id, o->strategy);
    rpl_junit_start(j, "testcase");
    rpl_junit_attr(j, "name", name);
    snprintf(name, sizeof(name), "rocm-perf.optimize.%s", o->kernel);
    rpl_junit_attr(j, "classname", name);
    rpl_junit_attr_seconds(j, "time", o->seconds);
    rpl_junit_start(j, "properties");
    rpl_junit_property(j, "decision", rpl_pipe_decision_name(o->decision));
    rpl_junit_property(j, "origin", origin_name(o->origin));
    for (int s = 0; s < RPL_PIPE_STEPS; s++)
        if (o->steps[s].ran)
            rpl_junit_property(j, rpl_pipe_step_name(s), o->steps[s].evidence);
    if (!isnan(o->speedup))
        rpl_junit_propertyf(j, "speedup", "%.4f", o->speedup);
    if (p->commits[i])
        rpl_junit_property(j, "commit", p->commits[i]);
    rpl_junit_end(j);
    if (o->decision != RPL_PIPE_ACCEPTED)
        rpl_junit_failure(j, rpl_pipe_decision_name(o->decision), o->message, o->message);
    rpl_junit_system_out(j, NULL, attachments, 2);
    rpl_junit_end(j);
}

static int write_junit(const rpl_pipe *p, const char *path)
{
    char name[4200], summary[4200], log[4200];
    const char *attachments[] = {summary, log};
    rpl_junit_counts c = {.tests = p->noutcomes};
    rpl_junit *j;
    int rc;

    if ((rc = rpl_junit_open(&j, path)) != 0)
        return rc;
    for (size_t i = 0; i < p->noutcomes; i++)
        c.failures += p->outcomes[i]->decision != RPL_PIPE_ACCEPTED;
    rpl_junit_testsuites(j, NULL, NULL);
    snprintf(name, sizeof(name), "rocm-perf optimize %s", p->target->name);
    rpl_junit_testsuite(j, name, &c, rpl_clock_mono_s() - p->opened_s);
    rpl_junit_attr(j, "package", "rocm-perf.optimize");
    rpl_junit_attr(j, "id", "0");
    rpl_junit_start(j, "properties");
    rpl_junit_property(j, "source", p->relpath);
    rpl_junit_property(j, "baseline_commit", p->baseline);
    rpl_junit_propertyf(j, "min_gain", "%g", p->opts.min_gain);
    rpl_junit_end(j);
    for (size_t i = 0; i < p->noutcomes; i++)
        testcase(j, p, i);
    snprintf(summary, sizeof(summary), "%s/summary.md", p->artifacts);
    snprintf(log, sizeof(log), "%s/optimize-log.json", p->artifacts);
    rpl_junit_testsuite_end(j, attachments, 2);
    rpl_junit_end(j);
    return rpl_junit_close(j);
}

/* ---- Markdown -------------------------------------------------------------- */

/* Table cells: no '|' and no line breaks. */
static void cell(rpl_strbuf *sb, const char *s)
{
    for (; s && *s; s++)
        rpl_strbuf_putc(sb, *s == '|' ? '/' : (*s == '\n' ? ' ' : *s));
}

static int write_markdown(const rpl_pipe *p, const char *path)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    size_t accepted = 0;
    int rc;

    for (size_t i = 0; i < p->noutcomes; i++)
        accepted += p->outcomes[i]->decision == RPL_PIPE_ACCEPTED;
    rpl_strbuf_printf(&sb, "## rocm-perf optimize: %s\n\n", p->target->name);
    rpl_strbuf_printf(&sb,
                      "Source `%s` at `%.12s`; %zu candidate%s, %zu accepted (min gain %.1f%%, "
                      "%u ABAB rounds).\n\n",
                      p->relpath, p->baseline, p->noutcomes, p->noutcomes == 1 ? "" : "s", accepted,
                      p->opts.min_gain * 100, p->opts.rounds);
    rpl_strbuf_puts(&sb, "| candidate | kernel | strategy | decision | speedup (CI) | time change "
                         "| reason | commit |\n|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < p->noutcomes; i++) {
        const rpl_pipe_outcome *o = p->outcomes[i];
        rpl_strbuf_printf(&sb, "| %s | `", o->id);
        cell(&sb, o->kernel);
        rpl_strbuf_puts(&sb, "` | ");
        cell(&sb, o->strategy);
        rpl_strbuf_printf(&sb, " | %s%s | ", o->decision == RPL_PIPE_ACCEPTED ? "✅ " : "❌ ",
                          rpl_pipe_decision_name(o->decision));
        if (!isnan(o->speedup)) {
            int d = rpl_pipe_speedup_digits(o->speedup, o->speedup_lo, o->speedup_hi);
            rpl_strbuf_printf(&sb, "%.*fx (%.*f-%.*f) | %+.1f%% ±%.1f%% | ", d, o->speedup, d,
                              o->speedup_lo, d, o->speedup_hi, o->time_change_pct, o->ci_half_pct);
        } else
            rpl_strbuf_puts(&sb, "- | - | ");
        cell(&sb, o->message);
        rpl_strbuf_puts(&sb, " | ");
        cell(&sb, p->commits[i] ? p->commits[i] : "-");
        rpl_strbuf_puts(&sb, " |\n");
    }
    rpl_strbuf_puts(&sb, "\nCorrectness: the original's replay snapshot with the candidate's code "
                         "object, outputs poisoned, every region compared, two launches "
                         "identical; the program's own check on fresh seeds.\n");
    for (size_t i = 0; i < p->nkernels; i++)
        rpl_strbuf_printf(&sb, "\nSnapshot of `%s` (%s): `%s`\n", p->kernels[i].display,
                          p->kernels[i].arch, p->kernels[i].digest);
    if (!sb.ptr)
        return rpl_error_oom();
    rc = rpl_file_write_atomic(path, sb.ptr, sb.len);
    rpl_strbuf_release(&sb);
    return rc;
}

/* ---- JSON log -------------------------------------------------------------- */

static cJSON *num_or_null(double v)
{
    return isfinite(v) ? cJSON_CreateNumber(v) : cJSON_CreateNull();
}

static cJSON *outcome_json(const rpl_pipe *p, size_t i)
{
    const rpl_pipe_outcome *o = p->outcomes[i];
    cJSON *c = cJSON_CreateObject(), *steps = cJSON_AddObjectToObject(c, "steps"), *m;

    cJSON_AddStringToObject(c, "id", o->id);
    cJSON_AddStringToObject(c, "kernel", o->kernel);
    cJSON_AddStringToObject(c, "strategy", o->strategy);
    cJSON_AddStringToObject(c, "origin", origin_name(o->origin));
    cJSON_AddStringToObject(c, "decision", rpl_pipe_decision_name(o->decision));
    cJSON_AddStringToObject(c, "message", o->message ? o->message : "");
    for (int s = 0; s < RPL_PIPE_STEPS; s++) {
        cJSON *st;
        if (!o->steps[s].ran)
            continue;
        st = cJSON_AddObjectToObject(steps, rpl_pipe_step_name(s));
        cJSON_AddBoolToObject(st, "passed", o->steps[s].passed);
        cJSON_AddItemToObject(st, "seconds", num_or_null(o->steps[s].seconds));
        cJSON_AddStringToObject(st, "evidence", o->steps[s].evidence ? o->steps[s].evidence : "");
    }
    m = cJSON_AddObjectToObject(c, "metrics");
    for (size_t k = 0; k < o->nmetrics; k++) {
        cJSON *pair = cJSON_AddObjectToObject(m, o->metrics[k].name);
        cJSON_AddItemToObject(pair, "original", num_or_null(o->metrics[k].original));
        cJSON_AddItemToObject(pair, "candidate", num_or_null(o->metrics[k].candidate));
    }
    cJSON_AddItemToObject(c, "speedup", num_or_null(o->speedup));
    cJSON_AddItemToObject(c, "speedup_ci", cJSON_CreateArray());
    cJSON_AddItemToArray(cJSON_GetObjectItem(c, "speedup_ci"), num_or_null(o->speedup_lo));
    cJSON_AddItemToArray(cJSON_GetObjectItem(c, "speedup_ci"), num_or_null(o->speedup_hi));
    cJSON_AddItemToObject(c, "time_change_pct", num_or_null(o->time_change_pct));
    cJSON_AddItemToObject(c, "floor_ns", num_or_null(o->floor_ns));
    cJSON_AddItemToObject(c, "roofline_headroom", num_or_null(o->headroom));
    cJSON_AddStringToObject(c, "correctness", o->correctness ? o->correctness : "");
    cJSON_AddItemToObject(c, "commit",
                          p->commits[i] ? cJSON_CreateString(p->commits[i]) : cJSON_CreateNull());
    cJSON_AddStringToObject(c, "source", o->source_path);
    cJSON_AddStringToObject(c, "build_log", o->build_log_path);
    cJSON_AddItemToObject(c, "seconds", num_or_null(o->seconds));
    return c;
}

/* The kernel's other shapes and the facts of its reference (the counter pass, the floor). */
static void shapes_json(cJSON *s, const pipe_kernel *k)
{
    cJSON *arr = cJSON_AddArrayToObject(s, "shapes"), *f;

    for (size_t i = 0; k->shape_text && k->shape_text[i]; i++) {
        cJSON *one = cJSON_CreateObject();
        cJSON_AddStringToObject(one, "path", i ? k->shapes[i - 1] : k->snapshot);
        cJSON_AddStringToObject(one, "shape", k->shape_text[i]);
        cJSON_AddItemToArray(arr, one);
    }
    f = cJSON_AddObjectToObject(s, "facts");
    cJSON_AddItemToObject(
        f, "counters", k->counters_dir ? cJSON_CreateString(k->counters_dir) : cJSON_CreateNull());
    cJSON_AddItemToObject(f, "counters_unavailable",
                          k->counters_why ? cJSON_CreateString(k->counters_why)
                                          : cJSON_CreateNull());
    cJSON_AddItemToObject(f, "flops", num_or_null(k->flops));
    cJSON_AddItemToObject(f, "hbm_bytes", num_or_null(k->bytes));
    cJSON_AddItemToObject(f, "written_bytes", num_or_null(k->written_bytes));
    cJSON_AddItemToObject(f, "peak_gbps", num_or_null(k->peak_gbps));
    cJSON_AddItemToObject(f, "peak_gflops", num_or_null(k->peak_gflops));
    cJSON_AddItemToObject(f, "roofline_ns", num_or_null(k->roof_ns));
    cJSON_AddItemToObject(f, "floor_ns", num_or_null(k->floor_ns));
    cJSON_AddItemToObject(f, "shapes_seconds", num_or_null(k->shapes_s));
    cJSON_AddItemToObject(f, "counter_pass_seconds", num_or_null(k->counters_s));
}

static int write_log(const rpl_pipe *p, const char *path)
{
    cJSON *doc = cJSON_CreateObject(), *tool, *opts, *arr, *snaps;
    int rc;

    if (!doc)
        return rpl_error_oom();
    cJSON_AddStringToObject(doc, "schema_version", RPL_PIPE_LOG_SCHEMA_VERSION);
    tool = cJSON_AddObjectToObject(doc, "tool");
    cJSON_AddStringToObject(tool, "name", "rocm-perf");
    cJSON_AddStringToObject(tool, "version", RPL_VERSION_STRING);
    cJSON_AddStringToObject(doc, "target", p->target->name);
    cJSON_AddStringToObject(doc, "source", p->relpath);
    cJSON_AddStringToObject(doc, "baseline_commit", p->baseline);
    opts = cJSON_AddObjectToObject(doc, "options");
    cJSON_AddNumberToObject(opts, "min_gain", p->opts.min_gain);
    cJSON_AddNumberToObject(opts, "rounds", p->opts.rounds);
    cJSON_AddNumberToObject(opts, "iterations", p->opts.iterations);
    cJSON_AddNumberToObject(opts, "seeds", p->opts.seeds);
    cJSON_AddNumberToObject(opts, "confidence", p->opts.confidence);
    cJSON_AddNumberToObject(opts, "app_tolerance", p->opts.app_tolerance);
    cJSON_AddNumberToObject(opts, "app_rounds", p->opts.app_rounds);
    cJSON_AddItemToObject(doc, "app_critical_path_ns", num_or_null(p->app_ns));
    cJSON_AddItemToObject(doc, "ranked_by",
                          p->rank_basis ? cJSON_CreateString(p->rank_basis) : cJSON_CreateNull());
    arr = cJSON_AddArrayToObject(doc, "ranked");
    for (size_t i = 0; i < p->nranked; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "kernel", p->ranked[i]);
        cJSON_AddItemToObject(r, "speedup_ceiling", num_or_null(p->ceilings[i]));
        cJSON_AddItemToArray(arr, r);
    }
    snaps = cJSON_AddArrayToObject(doc, "snapshots");
    for (size_t i = 0; i < p->nkernels; i++) {
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "kernel", p->kernels[i].display);
        cJSON_AddStringToObject(s, "arch", p->kernels[i].arch);
        cJSON_AddStringToObject(s, "path", p->kernels[i].snapshot);
        cJSON_AddStringToObject(s, "digest", p->kernels[i].digest);
        shapes_json(s, &p->kernels[i]);
        cJSON_AddItemToArray(snaps, s);
    }
    arr = cJSON_AddArrayToObject(doc, "candidates");
    for (size_t i = 0; i < p->noutcomes; i++)
        cJSON_AddItemToArray(arr, outcome_json(p, i));
    rc = rpl_json_write_file(path, doc);
    cJSON_Delete(doc);
    return rc;
}

int rpl_pipe_write_reports(rpl_pipe *p)
{
    char *path = NULL;
    int rc;

    if ((rc = pipe_set(&path, "%s/junit.xml", p->artifacts)) == 0 &&
        (rc = write_junit(p, path)) == 0 &&
        (rc = pipe_set(&path, "%s/summary.md", p->artifacts)) == 0 &&
        (rc = write_markdown(p, path)) == 0 &&
        (rc = pipe_set(&path, "%s/optimize-log.json", p->artifacts)) == 0)
        rc = write_log(p, path);
    free(path);
    return rc;
}

/* ---- commit message ---------------------------------------------------------- */

/*
 * A metric as the commit body shows it: "n/a" for a value the platform does
 * not have (the static counts are -1 then, a time is NaN), times in a
 * readable unit ("20.73 ms"), the rest as numbers ("128", "0.5").
 */
static void metric_text(char *buf, size_t size, const char *name, double v)
{
    size_t n = strlen(name);
    bool is_ns = n > 3 && strcmp(name + n - 3, "_ns") == 0;

    if (!isfinite(v) || v < 0)
        snprintf(buf, size, "n/a");
    else if (is_ns)
        rpl_format_ns(buf, size, v);
    else
        snprintf(buf, size, "%.6g", v);
}

int rpl_pipe_commit_message(const rpl_pipe *p, const rpl_pipe_outcome *o, char **out)
{
    rpl_strbuf body = RPL_STRBUF_INIT;
    char speed[32], ci[64], tool[64], iter[16];
    const char *digest = rpl_pipe_snapshot_digest(p, o->kernel);
    rpl_trailer tr[8];
    size_t n = 0;
    int rc;

    *out = NULL;
    if (o->decision != RPL_PIPE_ACCEPTED)
        return rpl_error_set(RPL_EUSAGE, "only an accepted candidate is committed");
    rpl_strbuf_puts(&body, "| metric | original | candidate |\n|---|---|---|\n");
    for (size_t i = 0; i < o->nmetrics; i++) {
        char a[32], b[32];
        metric_text(a, sizeof(a), o->metrics[i].name, o->metrics[i].original);
        metric_text(b, sizeof(b), o->metrics[i].name, o->metrics[i].candidate);
        rpl_strbuf_printf(&body, "| %s | %s | %s |\n", o->metrics[i].name, a, b);
    }
    rpl_strbuf_printf(&body,
                      "\nMeasured by replaying the captured dispatch, original and "
                      "candidate alternately (%u rounds x %u launches).",
                      p->opts.rounds, p->opts.iterations);
    snprintf(speed, sizeof(speed), "%.3f", o->speedup);
    snprintf(ci, sizeof(ci), "%.3f-%.3f", o->speedup_lo, o->speedup_hi);
    snprintf(tool, sizeof(tool), "rocm-perf %s", RPL_VERSION_STRING);
    tr[n++] = (rpl_trailer){RPL_TRAILER_SPEEDUP, speed};
    tr[n++] = (rpl_trailer){RPL_TRAILER_CI95, ci};
    tr[n++] = (rpl_trailer){RPL_TRAILER_CORRECTNESS, o->correctness};
    tr[n++] = (rpl_trailer){RPL_TRAILER_BASELINE, p->baseline};
    if (digest)
        tr[n++] = (rpl_trailer){RPL_TRAILER_SNAPSHOT, digest};
    tr[n++] = (rpl_trailer){RPL_TRAILER_TOOL, tool};
    if (o->model)
        tr[n++] = (rpl_trailer){RPL_TRAILER_MODEL, o->model};
    if (o->iteration) {
        snprintf(iter, sizeof(iter), "%u", o->iteration);
        tr[n++] = (rpl_trailer){RPL_TRAILER_ITERATION, iter};
    }
    if (!body.ptr) {
        rpl_strbuf_release(&body);
        return rpl_error_oom();
    }
    {
        rpl_commit_msg m = {.kernel = o->kernel,
                            .strategy = o->strategy,
                            .time_change_pct = o->time_change_pct,
                            .ci_half_pct = o->ci_half_pct,
                            .body = body.ptr,
                            .trailers = tr,
                            .n_trailers = n};
        rc = rpl_commit_msg_format(&m, out);
    }
    rpl_strbuf_release(&body);
    return rc;
}
