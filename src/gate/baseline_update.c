/*
 * Changing a baseline: replace one section (the other stays), carry the
 * runtime history forward, and say what changed; compare two baselines;
 * describe one for people.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/baseline.h"
#include "rpl/error.h"
#include "rpl/report.h"

static const rpl_static_kernel *find_static(const rpl_static_kernel *k, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(k[i].name, name) == 0)
            return &k[i];
    return NULL;
}

static const rpl_runtime_kernel *find_runtime(const rpl_runtime_kernel *k, size_t n,
                                              const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(k[i].name, name) == 0)
            return &k[i];
    return NULL;
}

static void count_change(rpl_strbuf *out, const char *kernel, const char *metric, int64_t a,
                         int64_t b)
{
    char x[24], y[24];

    if (a == b)
        return;
    snprintf(x, sizeof(x), "%lld", (long long)a);
    snprintf(y, sizeof(y), "%lld", (long long)b);
    rpl_strbuf_printf(out, "  %s: %s %s -> %s\n", kernel, metric, a < 0 ? "unknown" : x,
                      b < 0 ? "unknown" : y);
}

static void static_changes(rpl_strbuf *out, const rpl_static_kernel *old, size_t nold,
                           const rpl_static_kernel *cur, size_t ncur)
{
    for (size_t i = 0; i < ncur; i++) {
        const rpl_static_kernel *n = &cur[i], *o = find_static(old, nold, n->name);
        if (!o) {
            rpl_strbuf_printf(out, "  %s: new kernel in the static section\n", n->name);
            continue;
        }
        count_change(out, n->name, "vgpr", o->vgpr, n->vgpr);
        count_change(out, n->name, "agpr", o->agpr, n->agpr);
        count_change(out, n->name, "sgpr", o->sgpr, n->sgpr);
        count_change(out, n->name, "lds_bytes", o->lds_bytes, n->lds_bytes);
        count_change(out, n->name, "scratch_bytes", o->scratch_bytes, n->scratch_bytes);
        count_change(out, n->name, "spills", o->spills, n->spills);
        count_change(out, n->name, "occupancy", o->occupancy, n->occupancy);
    }
    for (size_t i = 0; i < nold; i++)
        if (!find_static(cur, ncur, old[i].name))
            rpl_strbuf_printf(out, "  %s: removed from the static section\n", old[i].name);
}

static void runtime_changes(rpl_strbuf *out, const rpl_runtime_kernel *old, size_t nold,
                            const rpl_runtime_kernel *cur, size_t ncur)
{
    char a[32], b[32];

    for (size_t i = 0; i < ncur; i++) {
        const rpl_runtime_kernel *n = &cur[i], *o = find_runtime(old, nold, n->name);
        if (!o) {
            rpl_strbuf_printf(out, "  %s: new kernel, median %s over %zu samples\n", n->name,
                              rpl_format_ns(b, sizeof(b), n->stats.median), n->nsamples);
            continue;
        }
        if (o->nsamples != n->nsamples ||
            memcmp(o->samples, n->samples, n->nsamples * sizeof(double)) != 0)
            rpl_strbuf_printf(out, "  %s: median %s -> %s (%+.2f%%), %zu -> %zu samples\n", n->name,
                              rpl_format_ns(a, sizeof(a), o->stats.median),
                              rpl_format_ns(b, sizeof(b), n->stats.median),
                              100.0 * (n->stats.median / o->stats.median - 1.0), o->nsamples,
                              n->nsamples);
        for (size_t j = 0; j < n->ncounters; j++)
            for (size_t m = 0; m < o->ncounters; m++)
                if (strcmp(o->counters[m].name, n->counters[j].name) == 0 &&
                    o->counters[m].value != n->counters[j].value)
                    rpl_strbuf_printf(out, "  %s: %s %.6g -> %.6g\n", n->name, n->counters[j].name,
                                      o->counters[m].value, n->counters[j].value);
        if ((o->bottleneck || n->bottleneck) &&
            (!o->bottleneck || !n->bottleneck || strcmp(o->bottleneck, n->bottleneck) != 0))
            rpl_strbuf_printf(out, "  %s: bottleneck %s -> %s\n", n->name,
                              o->bottleneck ? o->bottleneck : "none",
                              n->bottleneck ? n->bottleneck : "none");
    }
    for (size_t i = 0; i < nold; i++)
        if (!find_runtime(cur, ncur, old[i].name))
            rpl_strbuf_printf(out, "  %s: removed from the runtime section\n", old[i].name);
}

int rpl_baseline_set_static(rpl_baseline *b, rpl_static_kernel *k, size_t n, unsigned block,
                            rpl_strbuf *changes)
{
    if (changes) {
        if (!b->has_static)
            rpl_strbuf_printf(changes, "  static section created: %zu kernel%s\n", n,
                              n == 1 ? "" : "s");
        else
            static_changes(changes, b->statics, b->nstatics, k, n);
    }
    rpl_static_kernels_free(b->statics, b->nstatics);
    b->statics = k;
    b->nstatics = n;
    b->block_size = block;
    b->has_static = true;
    return 0;
}

/* New history = old history (if the kernel was there) + the new median, last K kept. */
static int carry_history(rpl_runtime_kernel *n, const rpl_runtime_kernel *o)
{
    size_t old = o ? o->nhistory : 0, total = old + 1, skip;
    double *h;

    skip = total > RPL_BASELINE_HISTORY_MAX ? total - RPL_BASELINE_HISTORY_MAX : 0;
    h = malloc((total - skip) * sizeof(*h));
    if (!h)
        return rpl_error_oom();
    for (size_t i = skip; i < old; i++)
        h[i - skip] = o->history[i];
    h[total - 1 - skip] = n->stats.median;
    free(n->history);
    n->history = h;
    n->nhistory = total - skip;
    return 0;
}

int rpl_baseline_set_runtime(rpl_baseline *b, rpl_runtime_kernel *k, size_t n, rpl_strbuf *changes)
{
    int rc = 0;

    for (size_t i = 0; i < n && rc == 0; i++)
        rc = carry_history(&k[i], b->has_runtime ? find_runtime(b->kernels, b->nkernels, k[i].name)
                                                 : NULL);
    if (rc != 0)
        return rc;
    if (changes) {
        if (!b->has_runtime)
            rpl_strbuf_printf(changes, "  runtime section created: %zu kernel%s\n", n,
                              n == 1 ? "" : "s");
        runtime_changes(changes, b->has_runtime ? b->kernels : NULL,
                        b->has_runtime ? b->nkernels : 0, k, n);
    }
    rpl_runtime_kernels_free(b->kernels, b->nkernels);
    b->kernels = k;
    b->nkernels = n;
    b->has_runtime = true;
    return 0;
}

static void str_change(rpl_strbuf *out, const char *what, const char *a, const char *b)
{
    if ((a || b) && (!a || !b || strcmp(a, b) != 0))
        rpl_strbuf_printf(out, "  %s: %s -> %s\n", what, a ? a : "none", b ? b : "none");
}

int rpl_baseline_diff(rpl_strbuf *out, const rpl_baseline *a, const rpl_baseline *b)
{
    str_change(out, "test", a->test, b->test);
    str_change(out, "arch", a->arch, b->arch);
    str_change(out, "device", a->device, b->device);
    str_change(out, "driver", a->driver, b->driver);
    str_change(out, "toolkit", a->toolkit, b->toolkit);
    if (a->has_static != b->has_static)
        rpl_strbuf_printf(out, "  static section: %s -> %s\n", a->has_static ? "yes" : "none",
                          b->has_static ? "yes" : "none");
    else if (a->has_static)
        static_changes(out, a->statics, a->nstatics, b->statics, b->nstatics);
    if (a->has_runtime != b->has_runtime)
        rpl_strbuf_printf(out, "  runtime section: %s -> %s\n", a->has_runtime ? "yes" : "none",
                          b->has_runtime ? "yes" : "none");
    else if (a->has_runtime)
        runtime_changes(out, a->kernels, a->nkernels, b->kernels, b->nkernels);
    return 0;
}

int rpl_baseline_describe(rpl_strbuf *out, const rpl_baseline *b)
{
    char m[32], lo[32], hi[32];

    rpl_strbuf_printf(out, "test %s on %s", b->test, b->arch);
    if (b->device)
        rpl_strbuf_printf(out, " (%s)", b->device);
    if (b->driver)
        rpl_strbuf_printf(out, ", driver %s", b->driver);
    rpl_strbuf_printf(out, "\ntolerance %.2f%%, confidence %.2f, warm-up %u\n",
                      100.0 * b->tolerance, b->confidence, b->warmup);
    if (b->has_static) {
        if (b->block_size)
            rpl_strbuf_printf(out, "\nstatic (block %u):\n", b->block_size);
        else
            rpl_strbuf_printf(out, "\nstatic (block: each kernel's maximum):\n");
        rpl_strbuf_printf(out, "  %6s %6s %6s %8s %8s %6s %10s  %s\n", "VGPR", "AGPR", "SGPR",
                          "LDS", "SCRATCH", "SPILL", "OCCUPANCY", "KERNEL");
        for (size_t i = 0; i < b->nstatics; i++) {
            const rpl_static_kernel *k = &b->statics[i];
            rpl_strbuf_printf(out, "  %6lld %6lld %6lld %8lld %8lld %6lld %10lld  %s\n",
                              (long long)k->vgpr, (long long)k->agpr, (long long)k->sgpr,
                              (long long)k->lds_bytes, (long long)k->scratch_bytes,
                              (long long)k->spills, (long long)k->occupancy, k->name);
        }
    }
    if (b->has_runtime) {
        rpl_strbuf_printf(out, "\nruntime:\n");
        for (size_t i = 0; i < b->nkernels; i++) {
            const rpl_runtime_kernel *k = &b->kernels[i];
            rpl_strbuf_printf(out,
                              "  %s\n    median %s (p10 %s, p90 %s), cv %.2f%%, %zu samples, "
                              "history of %zu\n",
                              k->name, rpl_format_ns(m, sizeof(m), k->stats.median),
                              rpl_format_ns(lo, sizeof(lo), k->stats.p10),
                              rpl_format_ns(hi, sizeof(hi), k->stats.p90), 100.0 * k->stats.cv,
                              k->nsamples, k->nhistory);
            for (size_t j = 0; j < k->ncounters; j++)
                rpl_strbuf_printf(out, "    %s per dispatch: %.6g\n", k->counters[j].name,
                                  k->counters[j].value);
            if (k->bottleneck)
                rpl_strbuf_printf(out, "    bottleneck: %s\n", k->bottleneck);
        }
    }
    if (b->nruns) {
        const rpl_history_entry *e = &b->runs[b->nruns - 1];
        rpl_strbuf_printf(out, "\nhistory: %zu run%s, the latest %s at commit %.12s%s%s\n",
                          b->nruns, b->nruns == 1 ? "" : "s", e->date,
                          e->commit ? e->commit : "not recorded", e->accepted ? ", accepted: " : "",
                          e->accepted ? e->accepted : "");
    }
    return rpl_strbuf_cstr(out)[0] ? 0 : rpl_error_oom();
}
