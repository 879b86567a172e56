/*
 * The runtime section of a baseline, and of a candidate: per gated kernel
 * the device durations of its dispatches (warm-up dropped), their
 * statistics, FLOPs and DRAM bytes per dispatch from the roofline formulas
 * when the trace has counters, and the bottleneck class when the classifier
 * names one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_statistics_double.h>

#include "rpl/baseline.h"
#include "rpl/classify.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/profile.h"
#include "rpl/roofline.h"

void rpl_runtime_kernels_free(rpl_runtime_kernel *k, size_t n)
{
    for (size_t i = 0; k && i < n; i++) {
        RPL_FREE_EACH(k[i].name, k[i].samples, k[i].history);
        for (size_t j = 0; j < k[i].ncounters; j++)
            free(k[i].counters[j].name);
        free(k[i].counters);
        free(k[i].bottleneck);
    }
    free(k);
}

typedef struct sel {
    const rpl_dispatch *d;
} sel;

static int by_source_start(const void *a, const void *b)
{
    const rpl_dispatch *x = ((const sel *)a)->d, *y = ((const sel *)b)->d;

    if (x->source != y->source)
        return x->source < y->source ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The kernel's dispatches in (source, start) order, the first `warmup` of each source dropped. */
static int kept_dispatches(sel **out, size_t *n, const rpl_trace *t, const char *display,
                           unsigned warmup)
{
    sel *s = malloc((t->dispatches.count ? t->dispatches.count : 1) * sizeof(*s));
    size_t m = 0, k = 0;
    unsigned seen = 0;
    uint32_t src = RPL_NONE;

    if (!s)
        return rpl_error_oom();
    for (uint32_t i = 0; i < t->dispatches.count; i++) {
        const rpl_dispatch *d = &t->dispatches.items[i];
        if (t->symbols.items[d->kernel].display_name == display)
            s[m++].d = d;
    }
    qsort(s, m, sizeof(*s), by_source_start);
    for (size_t i = 0; i < m; i++) {
        if (s[i].d->source != src) {
            src = s[i].d->source;
            seen = 0;
        }
        if (seen++ >= warmup)
            s[k++] = s[i];
    }
    *out = s;
    *n = k;
    return 0;
}

static double median_of(double *v, size_t n)
{
    return gsl_stats_median(v, 1, n);
}

/* FLOPs and DRAM bytes per dispatch (medians over the dispatches with the counters). */
static int add_counters(rpl_runtime_kernel *k, const rpl_trace *t, const sel *s, size_t n)
{
    double *flops = malloc(n * sizeof(double)), *bytes = malloc(n * sizeof(double));
    size_t nf = 0, nb = 0;
    int rc = 0;

    if (!flops || !bytes) {
        free(flops);
        free(bytes);
        return rpl_error_oom();
    }
    for (size_t i = 0; i < n; i++) {
        rpl_roof_target tg;
        rpl_roof_counts c;
        rpl_roof_dispatch_ctx ctx = {t, s[i].d};

        if (s[i].d->counters_count == 0)
            continue;
        rpl_roof_target_of(&tg, &t->agents.items[s[i].d->agent], NULL);
        rpl_roof_counts_compute(&c, tg.family, tg.wave_size, rpl_roof_trace_counter, &ctx);
        if (c.has_flops)
            flops[nf++] = c.flops;
        if (c.has_bytes)
            bytes[nb++] = c.hbm_read + c.hbm_write;
    }
    k->counters = calloc(2, sizeof(*k->counters));
    if (!k->counters)
        rc = rpl_error_oom();
    if (rc == 0 && nb) {
        k->counters[k->ncounters].name = strdup("dram_bytes");
        k->counters[k->ncounters++].value = median_of(bytes, nb);
    }
    if (rc == 0 && nf) {
        k->counters[k->ncounters].name = strdup("flops");
        k->counters[k->ncounters++].value = median_of(flops, nf);
    }
    for (size_t i = 0; rc == 0 && i < k->ncounters; i++)
        if (!k->counters[i].name)
            rc = rpl_error_oom();
    free(flops);
    free(bytes);
    return rc;
}

static int fill_kernel(rpl_runtime_kernel *k, const rpl_trace *t, const char *display,
                       unsigned warmup)
{
    sel *s = NULL;
    size_t n = 0;
    double *tmp;
    int rc = kept_dispatches(&s, &n, t, display, warmup);

    if (rc != 0)
        return rc;
    k->name = strdup(display);
    if (!k->name) {
        free(s);
        return rpl_error_oom();
    }
    if (n == 0) {
        free(s);
        return rpl_error_set(RPL_EINPUT,
                             "kernel '%s' has no dispatch left after dropping %u warm-up "
                             "dispatch%s per run",
                             display, warmup, warmup == 1 ? "" : "es");
    }
    k->samples = malloc(n * sizeof(double));
    tmp = malloc(n * sizeof(double));
    if (!k->samples || !tmp) {
        free(tmp);
        free(s);
        return rpl_error_oom();
    }
    for (size_t i = 0; rc == 0 && i < n; i++) {
        int64_t ns = 0;
        rc = rpl_trace_interval_ns(&ns, s[i].d->start, s[i].d->end, "dispatch", s[i].d->id);
        k->samples[i] = (double)ns;
    }
    if (rc != 0) {
        free(tmp);
        free(s);
        return rc;
    }
    k->nsamples = n;
    memcpy(tmp, k->samples, n * sizeof(double));
    rc = rpl_stats_compute(&k->stats, tmp, n);
    free(tmp);
    if (rc == 0 && t->counter_values.count)
        rc = add_counters(k, t, s, n);
    free(s);
    return rc;
}

/* Bottleneck classes of kernels whose roofline came from counters. */
static int add_bottlenecks(rpl_runtime_kernel *k, size_t n, const rpl_trace *t,
                           const rpl_kernel_filter *f)
{
    rpl_analysis *a = NULL;
    rpl_roofline_opts o = {0};
    int rc = rpl_analysis_build(&a, t, f, &o);

    for (size_t i = 0; rc == 0 && i < a->count; i++) {
        const rpl_analysis_kernel *ak = &a->kernels[i];
        if (ak->with_counters == 0 || ak->cls.bottleneck == RPL_BN_UNKNOWN)
            continue;
        for (size_t j = 0; j < n; j++)
            if (strcmp(k[j].name, ak->name) == 0 &&
                !(k[j].bottleneck = strdup(rpl_bottleneck_name(ak->cls.bottleneck))))
                rc = rpl_error_oom();
    }
    rpl_analysis_free(a);
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const rpl_runtime_kernel *)a)->name, ((const rpl_runtime_kernel *)b)->name);
}

int rpl_baseline_runtime_from_trace(rpl_runtime_kernel **out, size_t *n, const rpl_trace *trace,
                                    const rpl_runtime_opts *opts)
{
    rpl_kernel_filter f;
    rpl_profile *p = NULL;
    rpl_runtime_kernel *k = NULL;
    size_t m = 0;
    int rc;

    *out = NULL;
    *n = 0;
    rc = rpl_kernel_filter_init(&f, opts->kernel_regex, NULL, false);
    if (rc != 0)
        return rc;
    rc = rpl_profile_build(&p, trace, &f);
    if (rc == 0 && p->nkernels == 0)
        rc = rpl_error_set(RPL_EINPUT, "no kernel to gate in the trace%s%s%s",
                           opts->kernel_regex ? " (--kernel '" : "",
                           opts->kernel_regex ? opts->kernel_regex : "",
                           opts->kernel_regex ? "')" : "");
    if (rc == 0 && !(k = calloc(p->nkernels, sizeof(*k))))
        rc = rpl_error_oom();
    for (uint32_t i = 0; rc == 0 && i < p->nkernels; i++, m++)
        rc = fill_kernel(&k[i], trace, p->kernels[i].name, opts->warmup);
    if (rc == 0 && trace->counter_values.count)
        rc = add_bottlenecks(k, m, trace, &f);
    rpl_profile_free(p);
    rpl_kernel_filter_release(&f);
    if (rc != 0) {
        rpl_runtime_kernels_free(k, m); /* calloc'ed: a half-filled entry frees cleanly */
        return rc;
    }
    qsort(k, m, sizeof(*k), by_name);
    *out = k;
    *n = m;
    return 0;
}

int rpl_baseline_device_from_trace(rpl_baseline *b, const rpl_trace *trace)
{
    for (uint32_t i = 0; i < trace->agents.count; i++) {
        const rpl_agent *a = &trace->agents.items[i];
        const cJSON *drv;
        char buf[32];

        if (a->type != RPL_AGENT_GPU)
            continue;
        free(b->device);
        b->device = a->product_name[0] ? strdup(a->product_name) : NULL;
        drv = a->extdata ? cJSON_GetObjectItemCaseSensitive(a->extdata, "driver_version") : NULL;
        free(b->driver);
        b->driver = NULL;
        if (cJSON_IsNumber(drv)) {
            snprintf(buf, sizeof(buf), "%.0f", drv->valuedouble);
            b->driver = strdup(buf);
        } else if (cJSON_IsString(drv)) {
            b->driver = strdup(drv->valuestring);
        }
        return 0;
    }
    return 0;
}
