/*
 * Measuring the candidate (or a new baseline): static resources from code
 * objects, runtime samples from recorded traces, or from runs of a program
 * under the profiler.
 */
#define _XOPEN_SOURCE 700 /* nftw, mkdtemp */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "rpl/arch.h"
#include "rpl/codeobj.h"
#include "rpl/error.h"
#include "rpl/gate.h"
#include "rpl/gate_measure.h"
#include "rpl/gpu_state.h"
#include "rpl/kernel_filter.h"
#include "rpl/log.h"
#include "rpl/profile_backend.h"
#include "rpl/rocpd.h"

/* The one architecture of a code object set, or RPL_EUSAGE naming the choices. */
static int only_arch(char **out, const rpl_codeobj_set *set)
{
    const char *first = NULL;

    for (size_t i = 0; i < set->count; i++) {
        const char *a = set->kernels[i].arch;
        if (!first)
            first = a;
        else if (strcasecmp(first, a) != 0)
            return rpl_error_set(RPL_EUSAGE,
                                 "the code holds kernels for several architectures ('%s', '%s' "
                                 "...); choose one with --arch",
                                 first, a);
    }
    if (!first)
        return rpl_error_set(RPL_EINPUT, "no kernel in the code objects");
    return (*out = strdup(first)) ? 0 : rpl_error_oom();
}

/* --kernel on code objects: keep the kernels whose (mangled) name matches. */
static int filter_statics(rpl_gate_measurement *m, const char *regex)
{
    rpl_kernel_filter f;
    size_t k = 0;
    int rc = rpl_kernel_filter_init(&f, regex, NULL, true);

    if (rc != 0)
        return rc;
    for (size_t i = 0; i < m->nstatics; i++) {
        if (rpl_kernel_filter_selects(&f, m->statics[i].name, m->statics[i].name))
            m->statics[k++] = m->statics[i];
        else
            rpl_static_kernels_free_one(&m->statics[i]);
    }
    m->nstatics = k;
    rpl_kernel_filter_release(&f);
    if (k == 0)
        return rpl_error_set(RPL_EINPUT, "no kernel of the code matches --kernel '%s'", regex);
    return 0;
}

static int measure_static(rpl_gate_measurement *m, const rpl_gate_input *in)
{
    rpl_codeobj_set *set = NULL;
    int rc = rpl_codeobj_set_new(&set);

    for (size_t i = 0; rc == 0 && i < in->nstatic; i++)
        rc = rpl_codeobj_read_file(set, in->static_files[i]);
    if (rc == 0)
        rc = in->arch ? ((m->arch = strdup(in->arch)) ? 0 : rpl_error_oom())
                      : only_arch(&m->arch, set);
    if (rc == 0)
        rc = rpl_baseline_static_from_codeobj(&m->statics, &m->nstatics, set, m->arch, in->block);
    if (rc == 0 && in->kernel_regex)
        rc = filter_statics(m, in->kernel_regex);
    for (size_t i = 0; rc == 0 && i < set->count && !m->toolkit; i++) {
        char buf[32];
        if (!set->kernels[i].llvm_major || strcasecmp(set->kernels[i].arch, m->arch) != 0)
            continue;
        snprintf(buf, sizeof(buf), "LLVM %u", set->kernels[i].llvm_major);
        if (!(m->toolkit = strdup(buf)))
            rc = rpl_error_oom();
    }
    rpl_codeobj_set_free(set);
    return rc;
}

/* Architecture and device of the trace's first GPU agent; --arch must agree. */
static int trace_device(rpl_gate_measurement *m, const rpl_trace *t, const rpl_gate_input *in)
{
    rpl_baseline tmp = {0};
    const char *name = NULL;
    const rpl_arch *a, *want;

    for (uint32_t i = 0; i < t->agents.count && !name; i++)
        if (t->agents.items[i].type == RPL_AGENT_GPU)
            name = t->agents.items[i].name;
    if (!name || !name[0])
        return rpl_error_set(RPL_EINPUT, "the trace names no GPU agent, so its architecture is "
                                         "unknown");
    a = rpl_arch_find(name);
    want = in->arch ? rpl_arch_find(in->arch) : NULL;
    if (in->arch && (a && want ? a != want : strcasecmp(in->arch, name) != 0))
        return rpl_error_set(RPL_EINPUT, "the trace was recorded on '%s', not --arch '%s'", name,
                             in->arch);
    if (!(m->arch = strdup(a ? a->name : name)))
        return rpl_error_oom();
    rpl_baseline_device_from_trace(&tmp, t);
    m->device = tmp.device;
    m->driver = tmp.driver;
    return 0;
}

static int measure_traces(rpl_gate_measurement *m, const rpl_gate_input *in)
{
    rpl_runtime_opts ro = {in->kernel_regex, in->warmup};
    rpl_trace *t = NULL;
    int rc = rpl_trace_new(&t);

    for (size_t i = 0; rc == 0 && i < in->ntraces; i++)
        rc = rpl_rocpd_read(t, in->traces[i]);
    if (rc == 0)
        rc = trace_device(m, t, in);
    if (rc == 0)
        rc = rpl_baseline_runtime_from_trace(&m->kernels, &m->nkernels, t, &ro);
    rpl_trace_free(t);
    return rc;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)st;
    (void)f;
    return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* Append run `k`'s samples to m's kernels of the same name (new kernels are taken whole). */
static int merge_run(rpl_gate_measurement *m, rpl_runtime_kernel *k, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rpl_runtime_kernel *dst = NULL;
        double *s, *tmp;

        for (size_t j = 0; j < m->nkernels && !dst; j++)
            if (strcmp(m->kernels[j].name, k[i].name) == 0)
                dst = &m->kernels[j];
        if (!dst)
            continue; /* only kernels of the first run are gated */
        s = realloc(dst->samples, (dst->nsamples + k[i].nsamples) * sizeof(*s));
        tmp = malloc((dst->nsamples + k[i].nsamples) * sizeof(*tmp));
        if (!s || !tmp) {
            if (s)
                dst->samples = s;
            free(tmp);
            return rpl_error_oom();
        }
        memcpy(s + dst->nsamples, k[i].samples, k[i].nsamples * sizeof(*s));
        dst->samples = s;
        dst->nsamples += k[i].nsamples;
        memcpy(tmp, s, dst->nsamples * sizeof(*tmp));
        rpl_stats_compute(&dst->stats, tmp, dst->nsamples);
        free(tmp);
    }
    return 0;
}

static bool enough(const rpl_gate_measurement *m, unsigned want)
{
    for (size_t i = 0; i < m->nkernels; i++)
        if (m->kernels[i].nsamples < want)
            return false;
    return m->nkernels > 0;
}

static int one_run(rpl_gate_measurement *m, const rpl_gate_input *in, const char *dir)
{
    rpl_profile_opts po = {0};
    rpl_profile_result *res = NULL;
    rpl_runtime_opts ro = {in->kernel_regex, in->warmup};
    rpl_runtime_kernel *k = NULL;
    size_t n = 0;
    int rc;

    po.backend = (rpl_backend)in->backend;
    po.counters = "none";
    po.kernel_timing = (rpl_kernel_timing)in->kernel_timing;
    po.kernel_regex = in->kernel_regex;
    po.out_dir = dir;
    po.app_argv = in->app_argv;
    po.probe_root = "";
    po.launcher = in->launcher;
    po.env_set = in->env_set;
    po.timeout_ms = in->timeout_ms;
    po.quiet_app = in->quiet_app;
    rc = rpl_profile_run(&res, &po);
    /* Each run replaces the kept trace: what stays is the last run the samples came from. */
    if (rc == 0 && in->keep_trace)
        rc = rpl_rocpd_write(res->trace, in->keep_trace, NULL);
    if (rc == 0 && !m->arch)
        rc = trace_device(m, res->trace, in);
    if (rc == 0)
        rc = rpl_baseline_runtime_from_trace(&k, &n, res->trace, &ro);
    if (rc == 0 && m->runs == 0) {
        m->kernels = k;
        m->nkernels = n;
        k = NULL;
        n = 0;
    } else if (rc == 0) {
        rc = merge_run(m, k, n);
    }
    m->runs++;
    rpl_runtime_kernels_free(k, n);
    rpl_profile_result_free(res);
    return rc;
}

static int measure_app(rpl_gate_measurement *m, const rpl_gate_input *in)
{
    const char *tmpdir = getenv("TMPDIR");
    char dir[4096];
    rpl_gpu_sampler *sampler = NULL;
    int rc = 0;

    snprintf(dir, sizeof(dir), "%s/rocm-perf-gate.XXXXXX", tmpdir && tmpdir[0] ? tmpdir : "/tmp");
    if (!mkdtemp(dir))
        return rpl_error_set(RPL_EENV, "cannot create a work folder in '%s'",
                             tmpdir && tmpdir[0] ? tmpdir : "/tmp");
    /* The clocks while the program runs: GPU 0 as the program sees it (its first device). */
    if (rpl_gpu_sampler_start(&sampler, 0, RPL_GATE_GPU_SAMPLE_MS) != 0)
        rpl_error_clear();
    while (rc == 0 && m->runs < in->repetitions && !enough(m, in->repetitions)) {
        rc = one_run(m, in, dir);
        rpl_log_info("gate: run %u of the program: %zu kernel%s", m->runs, m->nkernels,
                     m->nkernels == 1 ? "" : "s");
    }
    rpl_gpu_sampler_stop(sampler, &m->gpu);
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return rc;
}

int rpl_gate_measure(rpl_gate_measurement *out, const rpl_gate_input *in)
{
    int rc;

    memset(out, 0, sizeof(*out));
    if (in->nstatic)
        rc = measure_static(out, in);
    else if (in->ntraces)
        rc = measure_traces(out, in);
    else if (in->app_argv && in->app_argv[0])
        rc = measure_app(out, in);
    else
        rc = rpl_error_set(RPL_EUSAGE, "nothing to measure: give --static, --trace or -- APP");
    if (rc != 0)
        rpl_gate_measurement_release(out);
    return rc;
}
