/*
 * Gate checks: the deterministic comparisons of the static section and of
 * counters, the statistical rule on runtime samples, and the result that
 * collects them.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/array.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/gate.h"
#include "rpl/names.h"
#include "rpl/report.h"

int rpl_gate_result_set(char **field, const char *value)
{
    char *c = value ? strdup(value) : NULL;

    if (value && !c)
        return rpl_error_oom();
    free(*field);
    *field = c;
    return 0;
}

int rpl_gate_result_new(rpl_gate_result **out, const char *test, const char *arch, const char *mode,
                        const char *input)
{
    rpl_gate_result *r = calloc(1, sizeof(*r));

    *out = NULL;
    if (!r || rpl_gate_result_set(&r->test, test) || rpl_gate_result_set(&r->arch, arch) ||
        rpl_gate_result_set(&r->mode, mode) || rpl_gate_result_set(&r->input, input)) {
        rpl_gate_result_free(r);
        return rpl_error_oom();
    }
    rpl_gate_stat_opts_init(&r->stat);
    *out = r;
    return 0;
}

static void check_release(rpl_gate_check *c)
{
    RPL_FREE_EACH(c->kernel, c->family, c->metric, c->base_text, c->cand_text, c->message);
}

void rpl_gate_result_clear_checks(rpl_gate_result *r)
{
    for (size_t i = 0; i < r->nchecks; i++)
        check_release(&r->checks[i]);
    r->nchecks = 0;
    r->verdict = RPL_VERDICT_PASS;
    r->skipped = false;
}

void rpl_gate_result_free(rpl_gate_result *r)
{
    if (!r)
        return;
    rpl_gate_result_clear_checks(r);
    RPL_FREE_EACH(r->checks, r->test, r->arch, r->device, r->mode, r->input, r->baseline_path,
                  r->create_command, r->confirmation);
    rpl_free_strings(r->attachments, r->nattachments);
    rpl_free_strings(r->traces, r->ntraces);
    free(r);
}

static int push_path(char ***list, size_t *n, const char *path)
{
    char **grown = realloc(*list, (*n + 1) * sizeof(*grown));

    if (!grown)
        return rpl_error_oom();
    *list = grown;
    if (!(grown[*n] = strdup(path)))
        return rpl_error_oom();
    (*n)++;
    return 0;
}

int rpl_gate_result_add_attachment(rpl_gate_result *r, const char *path)
{
    return push_path(&r->attachments, &r->nattachments, path);
}

int rpl_gate_result_add_trace(rpl_gate_result *r, const char *path)
{
    return push_path(&r->traces, &r->ntraces, path);
}

#define add_check rpl_gate_result_add_check

rpl_gate_check *rpl_gate_result_add_check(rpl_gate_result *r, const char *kernel,
                                          const char *family, const char *metric, rpl_verdict v,
                                          const char *fmt, ...)
{
    rpl_gate_check *c;
    va_list ap;
    rpl_strbuf msg = RPL_STRBUF_INIT;
    int rc;

    if (RPL_ARRAY_GROW(r->checks, r->capchecks, r->nchecks + 1) != 0)
        return NULL;
    c = &r->checks[r->nchecks];
    memset(c, 0, sizeof(*c));
    va_start(ap, fmt);
    rc = rpl_strbuf_vprintf(&msg, fmt, ap);
    va_end(ap);
    if (rc) {
        rpl_strbuf_release(&msg);
        return NULL;
    }
    c->kernel = strdup(kernel);
    c->family = strdup(family);
    c->metric = strdup(metric);
    c->message = msg.ptr; /* the buffer's allocation, NUL-terminated */
    if (!c->kernel || !c->family || !c->metric || !c->message) {
        check_release(c);
        return NULL;
    }
    c->verdict = v;
    r->nchecks++;
    if (v > r->verdict)
        r->verdict = v;
    return c;
}

static void set_values(rpl_gate_check *c, bool hb, double b, bool hc, double v)
{
    c->has_base = hb;
    c->base = b;
    c->has_cand = hc;
    c->cand = v;
    c->change = hb && hc && b != 0 ? v / b - 1.0 : 0.0;
}

/* A count that must not grow (registers, LDS, scratch, spills). */
static int count_check(rpl_gate_result *r, const char *kernel, const char *family,
                       const char *metric, int64_t base, int64_t cand)
{
    rpl_gate_check *c;

    if (base < 0 || cand < 0) {
        c = add_check(r, kernel, family, metric, RPL_VERDICT_PASS,
                      "%s %s: not known on both sides (baseline %lld, candidate %lld), not gated",
                      kernel, metric, (long long)base, (long long)cand);
        if (c)
            set_values(c, base >= 0, (double)base, cand >= 0, (double)cand);
        return c ? 0 : rpl_error_oom();
    }
    if (cand > base)
        c = add_check(r, kernel, family, metric, RPL_VERDICT_FAIL,
                      "%s: %s grew from %lld to %lld (+%lld); the baseline allows no increase",
                      kernel, metric, (long long)base, (long long)cand, (long long)(cand - base));
    else if (cand < base)
        c = add_check(r, kernel, family, metric, RPL_VERDICT_IMPROVED,
                      "%s: %s fell from %lld to %lld", kernel, metric, (long long)base,
                      (long long)cand);
    else
        c = add_check(r, kernel, family, metric, RPL_VERDICT_PASS, "%s: %s %lld unchanged", kernel,
                      metric, (long long)base);
    if (!c)
        return rpl_error_oom();
    set_values(c, true, (double)base, true, (double)cand);
    return 0;
}

static int occupancy_check(rpl_gate_result *r, const rpl_static_kernel *b,
                           const rpl_static_kernel *k)
{
    const char *unit = k->occ_unit ? k->occ_unit : (b->occ_unit ? b->occ_unit : "occupancy");
    rpl_gate_check *c;
    rpl_verdict v = RPL_VERDICT_PASS;

    if (b->occupancy < 0 || k->occupancy < 0)
        return count_check(r, k->name, "occupancy", unit, b->occupancy, k->occupancy);
    if (k->occupancy < b->occupancy)
        v = RPL_VERDICT_FAIL;
    else if (k->occupancy > b->occupancy)
        v = RPL_VERDICT_IMPROVED;
    c = add_check(r, k->name, "occupancy", unit, v,
                  v == RPL_VERDICT_FAIL ? "%s: occupancy dropped from %lld to %lld %s at block %u "
                                          "(limiter %s, was %s)"
                                        : "%s: occupancy %lld -> %lld %s at block %u (limiter "
                                          "%s, was %s)",
                  k->name, (long long)b->occupancy, (long long)k->occupancy, unit, k->block_size,
                  k->limiter ? k->limiter : "?", b->limiter ? b->limiter : "?");
    if (!c)
        return rpl_error_oom();
    set_values(c, true, (double)b->occupancy, true, (double)k->occupancy);
    if (rpl_gate_result_set(&c->base_text, b->limiter) ||
        rpl_gate_result_set(&c->cand_text, k->limiter))
        return rpl_error_oom();
    return 0;
}

int rpl_gate_compare_static(rpl_gate_result *r, const rpl_static_kernel *base, size_t nbase,
                            const rpl_static_kernel *cand, size_t ncand)
{
    int rc = 0;

    for (size_t i = 0; i < nbase && rc == 0; i++) {
        const rpl_static_kernel *b = &base[i], *k = NULL;

        for (size_t j = 0; j < ncand && !k; j++)
            if (strcmp(cand[j].name, b->name) == 0)
                k = &cand[j];
        if (!k) {
            rc = add_check(r, b->name, "static", "present", RPL_VERDICT_FAIL,
                           "%s: kernel of the baseline is missing from the candidate code", b->name)
                     ? 0
                     : rpl_error_oom();
            continue;
        }
        if ((rc = count_check(r, k->name, "registers", "vgpr", b->vgpr, k->vgpr)) ||
            (rc = count_check(r, k->name, "registers", "agpr", b->agpr, k->agpr)) ||
            (rc = count_check(r, k->name, "registers", "sgpr", b->sgpr, k->sgpr)) ||
            (rc = count_check(r, k->name, "lds", "lds_bytes", b->lds_bytes, k->lds_bytes)) ||
            (rc = count_check(r, k->name, "scratch", "scratch_bytes", b->scratch_bytes,
                              k->scratch_bytes)) ||
            (rc = count_check(r, k->name, "scratch", "spills", b->spills, k->spills)))
            break;
        rc = occupancy_check(r, b, k);
    }
    return rc;
}

static const char *change_text(rpl_change c)
{
    static const char *const texts[] = {
        [RPL_CHANGE_SLOWER] = "slower beyond the tolerance with confidence",
        [RPL_CHANGE_FASTER] = "confidently faster: consider updating the baseline",
        [RPL_CHANGE_UNDECIDED] = "the interval straddles the tolerance, the data cannot tell "
                                 "(measure more: --retry-undecided N)"};

    return RPL_NAME_OF(texts, c, "within the tolerance with confidence");
}

static int runtime_check(rpl_gate_result *r, const rpl_runtime_kernel *b,
                         const rpl_runtime_kernel *k)
{
    rpl_runtime_cmp cmp;
    rpl_gate_check *c;
    char mb[32], mc[32];
    int rc = rpl_gate_compare_samples(&cmp, b->samples, b->nsamples, k->samples, k->nsamples,
                                      b->history, b->nhistory, &r->stat);

    if (rc != 0)
        return rc;
    rpl_format_ns(mb, sizeof(mb), cmp.median_base);
    rpl_format_ns(mc, sizeof(mc), cmp.median_cand);
    c = add_check(r, k->name, "runtime", "median_ns", cmp.verdict,
                  "%s: median %s -> %s (%+.2f%%), %.0f%% one-sided bounds [%+.2f%%, %+.2f%%], "
                  "tolerance %.2f%%%s; %s: %s",
                  k->name, mb, mc, 100.0 * expm1(cmp.log_ratio), 100.0 * r->stat.confidence,
                  100.0 * expm1(cmp.lower), 100.0 * expm1(cmp.upper), 100.0 * r->stat.delta,
                  cmp.history ? ", widened by the run-to-run spread of the history" : "",
                  rpl_change_name(cmp.change), change_text(cmp.change));
    if (!c)
        return rpl_error_oom();
    set_values(c, true, cmp.median_base, true, cmp.median_cand);
    c->has_runtime = true;
    c->rt = cmp;
    return 0;
}

static int counter_checks(rpl_gate_result *r, const rpl_runtime_kernel *b,
                          const rpl_runtime_kernel *k)
{
    for (size_t i = 0; i < b->ncounters; i++) {
        const rpl_counter_figure *fb = &b->counters[i], *fc = NULL;
        rpl_gate_check *c;
        rpl_verdict v = RPL_VERDICT_PASS;

        for (size_t j = 0; j < k->ncounters && !fc; j++)
            if (strcmp(k->counters[j].name, fb->name) == 0)
                fc = &k->counters[j];
        if (!fc) {
            c = add_check(r, k->name, "counters", fb->name, RPL_VERDICT_PASS,
                          "%s: %s per dispatch not measured this time (baseline %.6g), not gated",
                          k->name, fb->name, fb->value);
            if (!c)
                return rpl_error_oom();
            set_values(c, true, fb->value, false, 0);
            continue;
        }
        if (fc->value > fb->value * (1.0 + r->stat.delta))
            v = RPL_VERDICT_FAIL;
        else if (fc->value < fb->value * (1.0 - r->stat.delta))
            v = RPL_VERDICT_IMPROVED;
        c = add_check(r, k->name, "counters", fb->name, v,
                      "%s: %s per dispatch %.6g -> %.6g (%+.2f%%, tolerance %.2f%%)", k->name,
                      fb->name, fb->value, fc->value,
                      fb->value > 0 ? 100.0 * (fc->value / fb->value - 1.0) : 0.0,
                      100.0 * r->stat.delta);
        if (!c)
            return rpl_error_oom();
        set_values(c, true, fb->value, true, fc->value);
    }
    if (b->bottleneck && k->bottleneck) {
        bool same = strcmp(b->bottleneck, k->bottleneck) == 0;
        rpl_gate_check *c = same ? add_check(r, k->name, "bottleneck", "class", RPL_VERDICT_PASS,
                                             "%s: bottleneck %s unchanged", k->name, k->bottleneck)
                                 : add_check(r, k->name, "bottleneck", "class", RPL_VERDICT_WARN,
                                             "%s: bottleneck class changed from %s to %s", k->name,
                                             b->bottleneck, k->bottleneck);
        if (!c || rpl_gate_result_set(&c->base_text, b->bottleneck) ||
            rpl_gate_result_set(&c->cand_text, k->bottleneck))
            return rpl_error_oom();
    }
    return 0;
}

int rpl_gate_compare_runtime(rpl_gate_result *r, const rpl_runtime_kernel *base, size_t nbase,
                             const rpl_runtime_kernel *cand, size_t ncand)
{
    int rc = 0;

    for (size_t i = 0; i < nbase && rc == 0; i++) {
        const rpl_runtime_kernel *b = &base[i], *k = NULL;

        for (size_t j = 0; j < ncand && !k; j++)
            if (strcmp(cand[j].name, b->name) == 0)
                k = &cand[j];
        if (!k) {
            rc = add_check(r, b->name, "runtime", "present", RPL_VERDICT_FAIL,
                           "%s: kernel of the baseline did not run in the candidate", b->name)
                     ? 0
                     : rpl_error_oom();
            continue;
        }
        rc = runtime_check(r, b, k);
        if (rc == 0)
            rc = counter_checks(r, b, k);
    }
    return rc;
}

int rpl_gate_result_nothing_checked(rpl_gate_result *r, const char *why, bool skip)
{
    r->skipped = skip;
    return add_check(r, r->test, "gate", "checks", skip ? RPL_VERDICT_PASS : RPL_VERDICT_FAIL,
                     "%s: nothing checked: %s%s", r->test, why,
                     skip ? " (skipped: --skip-if-no-checks)"
                          : "; a gate that checks nothing fails (--skip-if-no-checks makes it a "
                            "skip)")
               ? 0
               : rpl_error_oom();
}

int rpl_gate_result_missing(rpl_gate_result *r, const char *path, const char *command)
{
    r->baseline_missing = true;
    if (rpl_gate_result_set(&r->baseline_path, path) ||
        rpl_gate_result_set(&r->create_command, command))
        return rpl_error_oom();
    return add_check(r, r->test, "baseline", "present", RPL_VERDICT_FAIL,
                     "no baseline '%s'; create it with: %s", path, command)
               ? 0
               : rpl_error_oom();
}
