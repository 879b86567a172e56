/*
 * One gate run: measure the input, read its baseline, compare (narrowed by
 * --kernel), measure again while a runtime change is undecided, confirm a
 * runtime failure with a second measurement, and write the reports.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpl/baseline.h"
#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/gate_measure.h"
#include "rpl/gate_run.h"
#include "rpl/json.h"
#include "rpl/kernel_filter.h"
#include "rpl/log.h"

typedef struct gate_run {
    rpl_gate_opts opts; /* the caller's, with the block size the baseline recorded */
    rpl_gate_measurement m;
    rpl_baseline *base;
    rpl_gate_result *res;
    char *path;
    rpl_strbuf *notice;
} gate_run;

/* No baseline kernel was compared: say why (the result fails, or is skipped). */
static int nothing_checked(gate_run *g, size_t nbase)
{
    const char *section = g->opts.in.nstatic ? "static" : "runtime";
    rpl_strbuf why = RPL_STRBUF_INIT;
    int rc;

    if (nbase == 0)
        rpl_strbuf_printf(&why, "the %s section of baseline '%s' lists no kernels", section,
                          g->path);
    else
        rpl_strbuf_printf(&why, "--kernel '%s' selects no kernel of baseline '%s' (it has %zu)",
                          g->opts.in.kernel_regex, g->path, nbase);
    rc = why.ptr ? rpl_gate_result_nothing_checked(g->res, why.ptr, g->opts.skip_if_no_checks)
                 : rpl_error_oom();
    rpl_strbuf_release(&why);
    return rc;
}

/*
 * The GPU's clocks while the candidate ran, against the baseline's latest
 * recorded state: throttling or an SM clock far from the baseline's is a
 * WARN check (family "clocks"), or with --require-stable-clocks an
 * environment error: the numbers are not comparable, which is no regression.
 */
static int clock_check(gate_run *g)
{
    const rpl_gpu_state *base = rpl_baseline_last_gpu_state(g->base);
    char why[400], now[200], then[200];
    rpl_gate_check *c;

    g->res->gpu = g->m.gpu;
    if (base)
        g->res->baseline_gpu = *base;
    if (!rpl_gpu_state_unstable(&g->m.gpu, base, why, sizeof(why)))
        return 0;
    rpl_gpu_state_describe(&g->m.gpu, now, sizeof(now));
    rpl_gpu_state_describe(base ? base : &(rpl_gpu_state){0}, then, sizeof(then));
    if (g->opts.require_stable_clocks)
        return rpl_error_set(RPL_EENV,
                             "clocks not stable (--require-stable-clocks): %s; now %s, "
                             "baseline %s",
                             why, now, then);
    c = rpl_gate_result_add_check(g->res, g->res->test, "clocks", "sm_clock_mhz", RPL_VERDICT_WARN,
                                  "%s: the timings may not compare: %s (now %s; baseline %s)",
                                  g->res->test, why, now, then);
    if (!c)
        return rpl_error_oom();
    c->has_cand = true;
    c->cand = g->m.gpu.sm_mhz;
    c->has_base = base && base->sm_mhz > 0;
    c->base = c->has_base ? base->sm_mhz : 0;
    c->change = c->has_base ? c->cand / c->base - 1.0 : 0;
    return 0;
}

/*
 * --kernel narrows the gate on both sides: baseline kernels it does not
 * select are not compared (shallow copies; the names stay owned by g).
 */
static int compare(gate_run *g)
{
    const rpl_baseline *b = g->base;
    bool is_static = g->opts.in.nstatic > 0;
    size_t n = is_static ? b->nstatics : b->nkernels, k = 0;
    rpl_static_kernel *st = NULL;
    rpl_runtime_kernel *rt = NULL;
    rpl_kernel_filter f;
    int rc = rpl_kernel_filter_init(&f, g->opts.in.kernel_regex, NULL, true);

    if (rc != 0)
        return rc;
    if (is_static)
        st = malloc((n ? n : 1) * sizeof(*st));
    else
        rt = malloc((n ? n : 1) * sizeof(*rt));
    if (!st && !rt)
        rc = rpl_error_oom();
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const char *name = is_static ? b->statics[i].name : b->kernels[i].name;
        if (!rpl_kernel_filter_selects(&f, name, name))
            continue;
        if (is_static)
            st[k++] = b->statics[i];
        else
            rt[k++] = b->kernels[i];
    }
    if (rc == 0)
        rc = is_static ? rpl_gate_compare_static(g->res, st, k, g->m.statics, g->m.nstatics)
                       : rpl_gate_compare_runtime(g->res, rt, k, g->m.kernels, g->m.nkernels);
    if (rc == 0 && !is_static)
        rc = rpl_gate_trend_checks(g->res, b, g->m.kernels, g->m.nkernels);
    if (rc == 0 && !is_static)
        rc = clock_check(g);
    if (rc == 0 && k == 0)
        rc = nothing_checked(g, n);
    free(st);
    free(rt);
    rpl_kernel_filter_release(&f);
    return rc;
}

static bool runtime_failed(const rpl_gate_result *r)
{
    for (size_t i = 0; i < r->nchecks; i++)
        if (r->checks[i].verdict == RPL_VERDICT_FAIL && strcmp(r->checks[i].family, "runtime") == 0)
            return true;
    return false;
}

static bool runtime_undecided(const rpl_gate_result *r)
{
    for (size_t i = 0; i < r->nchecks; i++)
        if (r->checks[i].has_runtime && r->checks[i].rt.change == RPL_CHANGE_UNDECIDED)
            return true;
    return false;
}

/* Append the samples of `more` to the kernels of `m` of the same name, and redo their stats. */
static int add_samples(rpl_gate_measurement *m, const rpl_gate_measurement *more)
{
    for (size_t i = 0; i < m->nkernels; i++) {
        rpl_runtime_kernel *k = &m->kernels[i];
        double *s, *tmp;
        int rc;

        for (size_t j = 0; j < more->nkernels; j++) {
            const rpl_runtime_kernel *x = &more->kernels[j];
            if (strcmp(x->name, k->name) != 0 || !x->nsamples)
                continue;
            if (!(s = realloc(k->samples, (k->nsamples + x->nsamples) * sizeof(*s))))
                return rpl_error_oom();
            memcpy(s + k->nsamples, x->samples, x->nsamples * sizeof(*s));
            k->samples = s;
            k->nsamples += x->nsamples;
        }
        if (!(tmp = malloc(k->nsamples * sizeof(*tmp))))
            return rpl_error_oom();
        memcpy(tmp, k->samples, k->nsamples * sizeof(*tmp));
        rc = rpl_stats_compute(&k->stats, tmp, k->nsamples);
        free(tmp);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/*
 * --retry-undecided N: an undecided runtime change of a program run is
 * measured again (its samples added to the first ones, which narrows the
 * interval) up to N times, until no change is undecided.
 */
static int retry_undecided(gate_run *g)
{
    int rc = 0;

    if (!g->opts.retry_undecided || !runtime_undecided(g->res) || g->opts.in.nstatic)
        return 0;
    if (g->opts.in.ntraces) {
        rpl_log_warn("gate: --retry-undecided: --trace input is recorded and cannot be "
                     "measured again");
        return 0;
    }
    while (rc == 0 && g->res->retries < g->opts.retry_undecided && runtime_undecided(g->res)) {
        rpl_gate_measurement more = {0};

        rpl_log_warn("gate: undecided runtime change; measuring again (%u of %u)",
                     g->res->retries + 1, g->opts.retry_undecided);
        if ((rc = rpl_gate_measure(&more, &g->opts.in)) == 0 &&
            (rc = add_samples(&g->m, &more)) == 0) {
            rpl_gate_result_clear_checks(g->res);
            rc = compare(g);
        }
        rpl_gate_measurement_release(&more);
        g->res->retries++;
    }
    return rc;
}

/* A runtime FAIL of a program run stands only when a second measurement fails too. */
static int confirm(gate_run *g)
{
    rpl_verdict first;
    int rc;

    if (!runtime_failed(g->res))
        return 0;
    if (g->opts.in.ntraces)
        return rpl_gate_result_set(&g->res->confirmation,
                                   "no confirmation run: --trace input is recorded and cannot be "
                                   "measured again");
    rpl_log_warn("gate: runtime regression flagged; measuring once more to confirm");
    first = g->res->verdict;
    rpl_gate_measurement_release(&g->m);
    if ((rc = rpl_gate_measure(&g->m, &g->opts.in)) != 0)
        return rc;
    rpl_gate_result_clear_checks(g->res);
    if ((rc = compare(g)) != 0)
        return rc;
    g->res->confirmed = true;
    return rpl_gate_result_set(&g->res->confirmation,
                               g->res->verdict == RPL_VERDICT_FAIL
                                   ? "confirmed: a second measurement failed the gate too"
                                   : (first == RPL_VERDICT_FAIL
                                          ? "not confirmed: the first measurement failed, the "
                                            "second (shown) did not"
                                          : "confirmation run made"));
}

/*
 * Jenkins' attachments plugin wants absolute paths, and so does the HTML
 * report, which reads the traces from wherever it runs.
 */
static int add_absolute(rpl_gate_result *r, const char *path,
                        int (*add)(rpl_gate_result *, const char *))
{
    char cwd[4096];
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc;

    if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
        return add(r, path);
    rpl_strbuf_printf(&sb, "%s/%s", cwd, path);
    rc = sb.ptr ? add(r, sb.ptr) : rpl_error_oom();
    rpl_strbuf_release(&sb);
    return rc;
}

static int attach(rpl_gate_result *r, const char *path)
{
    return add_absolute(r, path, rpl_gate_result_add_attachment);
}

static int write_reports(gate_run *g)
{
    const rpl_gate_opts *a = &g->opts;
    const rpl_gate_result *one[1] = {g->res};
    cJSON *doc = NULL;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = 0;

    /* Each report names the others, as JUnit attachments. */
    if (a->json)
        rc = attach(g->res, a->json);
    if (rc == 0 && a->markdown)
        rc = attach(g->res, a->markdown);
    if (rc == 0 && a->json && (rc = rpl_gate_result_json(&doc, g->res)) == 0)
        rc = rpl_json_write_file(a->json, doc);
    if (rc == 0 && a->markdown && (rc = rpl_gate_markdown(&sb, g->res)) == 0)
        rc = rpl_file_write_atomic(a->markdown, sb.ptr, sb.len);
    if (rc == 0 && a->junit)
        rc = rpl_gate_junit_write(a->junit, one, 1);
    cJSON_Delete(doc);
    rpl_strbuf_release(&sb);
    return rc;
}

/* Baseline missing (or lacking the measured section). */
static int missing(gate_run *g, const char *why)
{
    rpl_strbuf cmd = RPL_STRBUF_INIT;
    int rc = rpl_gate_update_command(&cmd, &g->opts, g->m.arch);

    if (rc == 0 && !g->opts.allow_missing)
        rc = rpl_gate_result_missing(g->res, g->path, rpl_strbuf_cstr(&cmd));
    if (rc == 0 && g->opts.allow_missing) {
        g->res->baseline_missing = true;
        rc = rpl_gate_result_set(&g->res->create_command, rpl_strbuf_cstr(&cmd));
        if (rc == 0)
            rc = rpl_gate_result_set(&g->res->baseline_path, g->path);
        if (rc == 0)
            rc = rpl_gate_result_set(&g->res->confirmation, "--allow-missing-baseline: not gated");
    }
    if (rc == 0)
        rc = rpl_strbuf_printf(g->notice, "%s '%s'%s; create it with:\n  %s\n", why, g->path,
                               g->opts.allow_missing ? " (allowed: not gated)" : "",
                               rpl_strbuf_cstr(&cmd));
    rpl_strbuf_release(&cmd);
    return rc;
}

static int run_gate(gate_run *g, rpl_strbuf *text)
{
    const rpl_gate_opts *a = &g->opts;
    const char *input = a->in.nstatic ? "static" : a->in.ntraces ? "trace" : "app";
    double t0 = rpl_clock_mono_s();
    int rc;

    if ((rc = rpl_gate_measure(&g->m, &a->in)) != 0 ||
        (rc = rpl_baseline_path(&g->path, a->baseline_dir, g->m.arch, a->test)) != 0)
        return rc;
    if (a->update)
        return rpl_gate_update_baseline(a, g->path, &g->m, text);
    if ((rc = rpl_gate_result_new(&g->res, a->test, g->m.arch, a->in.nstatic ? "static" : "runtime",
                                  input)) != 0)
        return rc;
    g->res->stat = a->stat;
    g->res->warmup = a->in.warmup;
    g->res->repetitions = a->in.repetitions;
    if ((rc = rpl_gate_result_set(&g->res->device, g->m.device)) != 0)
        return rc;
    for (size_t i = 0; i < a->in.ntraces; i++)
        if ((rc = add_absolute(g->res, a->in.traces[i], rpl_gate_result_add_trace)) != 0)
            return rc;
    if (a->in.keep_trace &&
        (rc = add_absolute(g->res, a->in.keep_trace, rpl_gate_result_add_trace)) != 0)
        return rc;
    rc = rpl_baseline_read(&g->base, g->path);
    /* Without --block, occupancy is compared at the block size the baseline recorded. */
    if (rc == 0 && a->in.nstatic && !a->in.block && g->base->has_static && g->base->block_size) {
        g->opts.in.block = g->base->block_size;
        rpl_gate_measurement_release(&g->m);
        rc = rpl_gate_measure(&g->m, &g->opts.in);
    }
    if (rc == RPL_ENOTFOUND) {
        rpl_error_clear();
        rc = missing(g, "no baseline");
    } else if (rc == 0 &&
               (strcmp(g->base->test, a->test) != 0 || strcmp(g->base->arch, g->m.arch) != 0)) {
        rc = rpl_error_set(RPL_EINPUT, "baseline '%s' is for test '%s' on '%s', not '%s' on '%s'",
                           g->path, g->base->test, g->base->arch, a->test, g->m.arch);
    } else if (rc == 0 && !(a->in.nstatic ? g->base->has_static : g->base->has_runtime)) {
        rc = missing(g, a->in.nstatic ? "no static section in the baseline"
                                      : "no runtime section in the baseline");
    } else if (rc == 0) {
        rc = rpl_gate_result_set(&g->res->baseline_path, g->path);
        if (rc == 0)
            rc = compare(g);
        if (rc == 0)
            rc = retry_undecided(g);
        if (rc == 0)
            rc = confirm(g);
    }
    if (rc != 0)
        return rc;
    g->res->elapsed_s = rpl_clock_mono_s() - t0;
    if ((rc = write_reports(g)) != 0)
        return rc;
    return rpl_gate_text(text, g->res);
}

int rpl_gate_run(rpl_gate_outcome *out, const rpl_gate_opts *o)
{
    gate_run g = {.opts = *o, .notice = &out->notice};
    int rc = run_gate(&g, &out->text);

    out->result = g.res;
    rpl_baseline_free(g.base);
    rpl_gate_measurement_release(&g.m);
    free(g.path);
    return rc;
}

void rpl_gate_outcome_release(rpl_gate_outcome *out)
{
    rpl_gate_result_free(out->result);
    out->result = NULL;
    rpl_strbuf_release(&out->text);
    rpl_strbuf_release(&out->notice);
}
