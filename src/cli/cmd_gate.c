/*
 * rocm-perf gate: measure a kernel test (code objects, recorded traces, or a
 * program run under the profiler), compare it with its stored baseline and
 * decide: exit 0 pass/warn/improved, 1 fail, 2 bad input, 3 environment,
 * 77 no GPU.  ROCM_PERF_UPDATE_BASELINES=1 records instead of comparing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "gate_cli.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/kernel_filter.h"
#include "rpl/log.h"
#include "rpl/profile_backend.h"

/* Also in the help of gate_measure_options, which `baseline --help` shows too. */
#define DEFAULT_REPETITIONS 30
#define DEFAULT_WARMUP      1

static int parse_undecided(void *value, const rpl_option *opt, const char *arg)
{
    int u = rpl_verdict_parse(arg);

    (void)opt;
    if (u != RPL_VERDICT_PASS && u != RPL_VERDICT_WARN && u != RPL_VERDICT_FAIL)
        return rpl_cli_usage_error("--undecided takes pass, warn or fail, not '%s'", arg);
    *(rpl_verdict *)value = (rpl_verdict)u;
    return 0;
}

#define F(m) RPL_FIELD(gate_args, m)

/* What a measurement takes: the options of both `gate` and `baseline update`. */
const rpl_option gate_measure_options[] = {
    OPT_STRING(0, "test", F(test), "NAME", "the kernel test"),
    OPT_STRING(0, "baseline-dir", F(baseline_dir), "DIR", "the baselines, DIR/<arch>/<test>.json"),
    OPT_STRING_WORDS(
        0, "static", F(statics), offsetof(gate_args, in.nstatic), "FILE...",
        "no GPU: registers, LDS, scratch, spills and occupancy of the kernels in FILE(s) "
        "(code objects, bundles, executables) must not get worse (exact counts); --arch "
        "picks the target (needed when the files hold several), --block the block size for "
        "occupancy (default: each kernel's maximum)"),
    OPT_UINT(0, "block", F(in.block), 1, 1024, "N", "block size for occupancy (--static)"),
    OPT_STRING_WORDS(0, "trace", F(traces), offsetof(gate_args, in.ntraces), "DB...",
                     "recorded rocpd traces: per kernel the device durations of its dispatches are "
                     "compared with the baseline's samples"),
    OPT_STRING(0, "arch", F(in.arch), "A", "the target architecture"),
    OPT_FRACTION(0, "tolerance", F(stat.delta), 0, 1, "T",
                 "minimum material change, '3%' or 0.03 (default 3%)"),
    OPT_UINT(0, "repetitions", F(in.repetitions), 1, 100000, "N",
             "samples per kernel in APP mode (default 30)"),
    OPT_UINT(0, "warmup", F(in.warmup), 0, 100000, "W",
             "dispatches dropped per kernel and run (default 1)"),
    OPT_STRING('k', "kernel", F(in.kernel_regex), "REGEX",
               "gate only these kernels (default: all but runtime helpers)"),
    OPT_END(),
};

/* The options of `gate` alone. */
const rpl_option gate_only_options[] = {
    OPT_NUMBER_OPEN(0, "confidence", F(stat.confidence), 0.5, 1, "C",
                    "one-sided confidence (default {})"),
    OPT_UINT(0, "seed", F(stat.seed), 0, 4294967295.0, "S", "bootstrap seed (default {})"),
    OPT_STRING(0, "junit", F(junit), "F", "write the JUnit report"),
    OPT_STRING(0, "json", F(json), "F", "write the JSON result"),
    OPT_STRING(0, "markdown", F(markdown), "F", "write the Markdown report"),
    OPT_BOOL(0, "allow-missing-baseline", F(allow_missing), "no baseline is a pass, not a failure"),
    OPT_CALLBACK(0, "undecided", F(stat.undecided), parse_undecided, "V",
                 "verdict of an undecided change: pass, warn (default) or fail"),
    OPT_UINT(0, "retry-undecided", F(retry_undecided), 0, 100, "N",
             "APP mode: while a runtime change is undecided, measure up to N more times, adding "
             "the samples, before answering"),
    OPT_FILENAME(0, "keep-trace", F(in.keep_trace), "FILE",
                 "APP mode: keep the last run's trace as a rocpd database FILE; the result names "
                 "it, so 'report --suite --html' draws its critical path (and its roofline where "
                 "it has counters)"),
    OPT_BOOL(0, "require-stable-clocks", F(require_stable_clocks),
             "a program run while the GPU throttled, or at an SM clock more than 10% from the "
             "baseline's, is an environment error (exit 3) instead of a WARN check"),
    OPT_BOOL(0, "skip-if-no-checks", F(skip_if_no_checks),
             "a gate that compares nothing (the baseline lists no kernels, or --kernel selects "
             "none of them) is skipped (exit 77, JUnit <skipped>) instead of failing"),
    OPT_END(),
};

/* The option of `baseline accept` alone. */
const rpl_option gate_accept_options[] = {
    OPT_FILENAME(0, "reason", F(reason), "TEXT", "accept: why the baseline moves"),
    OPT_END(),
};

static const rpl_option gate_options[] = {
    OPT_INCLUDE(gate_measure_options),
    OPT_INCLUDE(gate_only_options),
    OPT_END(),
};

static const rpl_command gate_command = {
    .name = "gate",
    .usage = "rocm-perf gate --test NAME --baseline-dir DIR [--arch A] [--tolerance 3%]\n"
             "               [--repetitions N] [--warmup W] [--kernel REGEX] [--seed S]\n"
             "               [--confidence 0.95] [--junit F] [--json F] [--markdown F]\n"
             "               [--allow-missing-baseline] [--skip-if-no-checks]\n"
             "               [--undecided pass|warn|fail] [--retry-undecided N]\n"
             "               [--require-stable-clocks] [--keep-trace FILE]\n"
             "               (--static FILE... [--block N] | --trace DB... | -- APP ARGS...)",
    .description = "Compare a kernel test with its baseline DIR/<arch>/<test>.json, measured from\n"
                   "code objects (--static), recorded traces (--trace) or a program run under the\n"
                   "profiler (-- APP ARGS...: rocprofv3 or CUPTI, no counters, until each kernel\n"
                   "has N samples after warm-up or APP ran N times).\n"
                   "\n"
                   "Runtime rule: L = ln(median candidate / median baseline) with one-sided\n"
                   "bootstrap bounds (B 2000, percentile, GSL mt19937); with a history of >= 3\n"
                   "accepted medians the bounds are widened by their run-to-run spread.  The\n"
                   "change is 'slower' (FAIL) when the lower bound exceeds ln(1+tolerance),\n"
                   "'faster' (IMPROVED) when the upper bound is below ln(1-tolerance), 'same'\n"
                   "(PASS) when both bounds lie within, and 'undecided' when the interval\n"
                   "straddles a threshold (--undecided says its verdict).  Counters (FLOPs, DRAM\n"
                   "bytes per dispatch) may not grow beyond the tolerance; a changed bottleneck\n"
                   "class warns.",
    .options = gate_options,
    .notes = "ROCM_PERF_BACKEND=rocprofv3|cupti picks the profiler of APP runs (default:\n"
             "auto, the GPU found).  ROCM_PERF_KERNEL_TIMING=concurrent|serial is how CUPTI\n"
             "times kernels in APP runs (default concurrent; see 'rocm-perf profile --help').\n"
             "ROCM_PERF_UPDATE_BASELINES=1 records the measured section into the baseline\n"
             "instead of comparing (as 'rocm-perf baseline update').  A runtime FAIL of an\n"
             "APP run is measured once more before it stands (confirmation).  With a\n"
             "history of >= 10 entries (see 'baseline trend'), a regression names the\n"
             "history entry and commit where its level began, and a slow drift warns.\n"
             "The GPU's clocks, temperature, power and throttle reasons are sampled while\n"
             "APP runs (NVML or ROCm SMI, when the library is there).",
    .exit_codes = "0 pass, warn or improved, 1 fail (or no baseline, or nothing\n"
                  "checked), 2 bad usage or input (a corrupt baseline is left untouched),\n"
                  "3 environment, 77 no GPU or nothing checked with --skip-if-no-checks.",
    .flags = RPL_PARSE_STOP_AT_ARG | RPL_PARSE_KEEP_DASHDASH,
    .foreign = gate_accept_options,
    .foreign_name = "baseline accept",
};

void gate_args_release(gate_args *a)
{
    free(a->statics);
    free(a->traces);
}

/* The words left: none, or '--' and the program. */
static int check_modes(gate_args *a, int argc, char **argv)
{
    bool app = argc > 0 && strcmp(argv[0], "--") == 0;
    int modes = (a->in.nstatic > 0) + (a->in.ntraces > 0) + app;

    for (int i = 1; !app && i < argc; i++)
        if (strcmp(argv[i], "--") == 0)
            return rpl_cli_usage_error("unexpected argument '%s' before '--'", argv[0]);
    if (argc > 0 && !app)
        return rpl_cli_usage_error("unexpected argument '%s'; the inputs follow --static or "
                                   "--trace, a program follows '--'",
                                   argv[0]);
    if (a->in.block && !a->in.nstatic)
        return rpl_cli_usage_error("--block applies to --static only");
    if (!a->test || !a->baseline_dir)
        return rpl_cli_usage_error("--test NAME and --baseline-dir DIR are required");
    if (modes != 1)
        return rpl_cli_usage_error("give exactly one of --static FILE..., --trace DB... or -- APP");
    if (app) {
        if (argc == 1)
            return rpl_cli_usage_error("no program after '--'");
        a->in.app_argv = (const char *const *)argv + 1;
    } else if (a->in.keep_trace) {
        return rpl_cli_usage_error("--keep-trace keeps the trace of a program run: it goes "
                                   "with -- APP");
    }
    return -1;
}

int gate_args_parse(gate_args *a, const rpl_command *cmd, int argc, char **argv)
{
    int rc = rpl_cli_profiler_env(&a->in.backend, &a->in.kernel_timing);

    if (rc != 0)
        return rc;
    rpl_gate_stat_opts_init(&a->stat);
    a->in.repetitions = DEFAULT_REPETITIONS;
    a->in.warmup = DEFAULT_WARMUP;
    if ((rc = rpl_parse_options(cmd, a, &argc, &argv)) >= 0)
        return rc;
    a->in.static_files = a->statics;
    a->in.traces = a->traces;
    return check_modes(a, argc, argv);
}

/* Shell-quote one word when it needs it. */
static void put_word(rpl_strbuf *out, const char *w)
{
    bool plain = w[0] != '\0';

    for (const char *p = w; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+%@",
                       *p) != NULL;
    rpl_strbuf_putc(out, ' ');
    if (plain) {
        rpl_strbuf_puts(out, w);
        return;
    }
    rpl_strbuf_putc(out, '\'');
    for (const char *p = w; *p; p++) {
        if (*p == '\'')
            rpl_strbuf_puts(out, "'\\''");
        else
            rpl_strbuf_putc(out, *p);
    }
    rpl_strbuf_putc(out, '\'');
}

int gate_update_command(rpl_strbuf *out, const gate_args *a, const char *arch)
{
    rpl_strbuf_puts(out, "rocm-perf baseline update");
    put_word(out, "--test");
    put_word(out, a->test);
    put_word(out, "--baseline-dir");
    put_word(out, a->baseline_dir);
    put_word(out, "--arch");
    put_word(out, arch);
    if (a->in.kernel_regex) {
        put_word(out, "--kernel");
        put_word(out, a->in.kernel_regex);
    }
    if (!a->in.nstatic) {
        char w[32];
        snprintf(w, sizeof(w), "%u", a->in.warmup);
        put_word(out, "--warmup");
        put_word(out, w);
    }
    if (a->in.nstatic) {
        put_word(out, "--static");
        for (size_t i = 0; i < a->in.nstatic; i++)
            put_word(out, a->in.static_files[i]);
        if (a->in.block) {
            char w[16];
            snprintf(w, sizeof(w), "%u", a->in.block);
            put_word(out, "--block");
            put_word(out, w);
        }
    } else if (a->in.ntraces) {
        put_word(out, "--trace");
        for (size_t i = 0; i < a->in.ntraces; i++)
            put_word(out, a->in.traces[i]);
    } else {
        char w[16];
        snprintf(w, sizeof(w), "%u", a->in.repetitions);
        put_word(out, "--repetitions");
        put_word(out, w);
        put_word(out, "--");
        for (size_t i = 0; a->in.app_argv[i]; i++)
            put_word(out, a->in.app_argv[i]);
    }
    return rpl_strbuf_cstr(out)[0] ? RPL_OK : rpl_error_oom();
}

int gate_update_baseline(const gate_args *a, const char *path, rpl_gate_measurement *m)
{
    rpl_baseline *b = NULL;
    rpl_strbuf changes = RPL_STRBUF_INIT;
    int lock, rc = rpl_baseline_lock(&lock, path);

    if (rc != RPL_OK)
        return rc;
    /* Read, change and write under the lock, so that concurrent updates lose nothing. */
    rc = rpl_baseline_read(&b, path);
    if (rc == RPL_ENOTFOUND) {
        rpl_error_clear();
        rc = rpl_baseline_new(&b, a->test, m->arch);
    } else if (rc == RPL_OK && (strcmp(b->test, a->test) != 0 || strcmp(b->arch, m->arch) != 0)) {
        rc = rpl_error_set(RPL_EINPUT, "baseline '%s' is for test '%s' on '%s', not '%s' on '%s'",
                           path, b->test, b->arch, a->test, m->arch);
    }
    if (rc != RPL_OK) {
        rpl_baseline_free(b);
        rpl_dir_unlock(lock);
        return rc;
    }
    if (m->device) {
        free(b->device);
        b->device = m->device;
        m->device = NULL;
    }
    if (m->driver) {
        free(b->driver);
        b->driver = m->driver;
        m->driver = NULL;
    }
    if (m->toolkit) {
        free(b->toolkit);
        b->toolkit = m->toolkit;
        m->toolkit = NULL;
    }
    b->tolerance = a->stat.delta;
    b->confidence = a->stat.confidence;
    if (m->statics) {
        rc = rpl_baseline_set_static(b, m->statics, m->nstatics, a->in.block, &changes);
        m->statics = NULL;
        m->nstatics = 0;
    } else {
        b->warmup = a->in.warmup;
        rc = rpl_baseline_set_runtime(b, m->kernels, m->nkernels, &changes);
        if (rc == RPL_OK) {
            m->kernels = NULL;
            m->nkernels = 0;
        }
    }
    if (rc == RPL_OK && !a->in.nstatic)
        rc = rpl_baseline_record_run(b, path, &m->gpu, a->reason);
    if (rc == RPL_OK)
        rc = rpl_baseline_write(b, path);
    if (rc == RPL_OK)
        printf("%s baseline %s (%s section):\n%s", a->reason ? "accepted a move of" : "updated",
               path, a->in.nstatic ? "static" : "runtime",
               changes.len ? rpl_strbuf_cstr(&changes) : "  no change\n");
    if (rc == RPL_OK && a->reason)
        printf("  reason: %s\n", a->reason);
    rpl_strbuf_release(&changes);
    rpl_baseline_free(b);
    rpl_dir_unlock(lock);
    return rc;
}

/* ---- the gate ---- */

typedef struct gate_run {
    gate_args args;
    rpl_gate_measurement m;
    rpl_baseline *base;
    rpl_gate_result *res;
    char *path;
} gate_run;

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* No baseline kernel was compared: say why (the result fails, or is skipped). */
static int nothing_checked(gate_run *g, size_t nbase)
{
    const char *section = g->args.in.nstatic ? "static" : "runtime";
    rpl_strbuf why = RPL_STRBUF_INIT;
    int rc;

    if (nbase == 0)
        rpl_strbuf_printf(&why, "the %s section of baseline '%s' lists no kernels", section,
                          g->path);
    else
        rpl_strbuf_printf(&why, "--kernel '%s' selects no kernel of baseline '%s' (it has %zu)",
                          g->args.in.kernel_regex, g->path, nbase);
    rc = why.ptr ? rpl_gate_result_nothing_checked(g->res, why.ptr, g->args.skip_if_no_checks)
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
        return RPL_OK;
    rpl_gpu_state_describe(&g->m.gpu, now, sizeof(now));
    rpl_gpu_state_describe(base ? base : &(rpl_gpu_state){0}, then, sizeof(then));
    if (g->args.require_stable_clocks)
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
    return RPL_OK;
}

/*
 * --kernel narrows the gate on both sides: baseline kernels it does not
 * select are not compared (shallow copies; the names stay owned by g).
 */
static int compare(gate_run *g)
{
    const rpl_baseline *b = g->base;
    bool is_static = g->args.in.nstatic > 0;
    size_t n = is_static ? b->nstatics : b->nkernels, k = 0;
    rpl_static_kernel *st = NULL;
    rpl_runtime_kernel *rt = NULL;
    rpl_kernel_filter f;
    int rc = rpl_kernel_filter_init(&f, g->args.in.kernel_regex, NULL, true);

    if (rc != RPL_OK)
        return rc;
    if (is_static)
        st = malloc((n ? n : 1) * sizeof(*st));
    else
        rt = malloc((n ? n : 1) * sizeof(*rt));
    if (!st && !rt)
        rc = rpl_error_oom();
    for (size_t i = 0; rc == RPL_OK && i < n; i++) {
        const char *name = is_static ? b->statics[i].name : b->kernels[i].name;
        if (!rpl_kernel_filter_selects(&f, name, name))
            continue;
        if (is_static)
            st[k++] = b->statics[i];
        else
            rt[k++] = b->kernels[i];
    }
    if (rc == RPL_OK)
        rc = is_static ? rpl_gate_compare_static(g->res, st, k, g->m.statics, g->m.nstatics)
                       : rpl_gate_compare_runtime(g->res, rt, k, g->m.kernels, g->m.nkernels);
    if (rc == RPL_OK && !is_static)
        rc = rpl_gate_trend_checks(g->res, b, g->m.kernels, g->m.nkernels);
    if (rc == RPL_OK && !is_static)
        rc = clock_check(g);
    if (rc == RPL_OK && k == 0)
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
        if (rc != RPL_OK)
            return rc;
    }
    return RPL_OK;
}

/*
 * --retry-undecided N: an undecided runtime change of a program run is
 * measured again (its samples added to the first ones, which narrows the
 * interval) up to N times, until no change is undecided.
 */
static int retry_undecided(gate_run *g)
{
    int rc = RPL_OK;

    if (!g->args.retry_undecided || !runtime_undecided(g->res) || g->args.in.nstatic)
        return RPL_OK;
    if (g->args.in.ntraces) {
        rpl_log_warn("gate: --retry-undecided: --trace input is recorded and cannot be "
                     "measured again");
        return RPL_OK;
    }
    while (rc == RPL_OK && g->res->retries < g->args.retry_undecided && runtime_undecided(g->res)) {
        rpl_gate_measurement more = {0};

        rpl_log_warn("gate: undecided runtime change; measuring again (%u of %u)",
                     g->res->retries + 1, g->args.retry_undecided);
        if ((rc = rpl_gate_measure(&more, &g->args.in)) == RPL_OK &&
            (rc = add_samples(&g->m, &more)) == RPL_OK) {
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
        return RPL_OK;
    if (g->args.in.ntraces)
        return rpl_gate_result_set(&g->res->confirmation,
                                   "no confirmation run: --trace input is recorded and cannot be "
                                   "measured again");
    rpl_log_warn("gate: runtime regression flagged; measuring once more to confirm");
    first = g->res->verdict;
    rpl_gate_measurement_release(&g->m);
    if ((rc = rpl_gate_measure(&g->m, &g->args.in)) != RPL_OK)
        return rc;
    rpl_gate_result_clear_checks(g->res);
    if ((rc = compare(g)) != RPL_OK)
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
    const gate_args *a = &g->args;
    const rpl_gate_result *one[1] = {g->res};
    cJSON *doc = NULL;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = RPL_OK;

    /* Each report names the others, as JUnit attachments. */
    if (a->json)
        rc = attach(g->res, a->json);
    if (rc == RPL_OK && a->markdown)
        rc = attach(g->res, a->markdown);
    if (rc == RPL_OK && a->json && (rc = rpl_gate_result_json(&doc, g->res)) == RPL_OK)
        rc = rpl_json_write_file(a->json, doc);
    if (rc == RPL_OK && a->markdown && (rc = rpl_gate_markdown(&sb, g->res)) == RPL_OK)
        rc = rpl_file_write_atomic(a->markdown, sb.ptr, sb.len);
    if (rc == RPL_OK && a->junit)
        rc = rpl_gate_junit_write(a->junit, one, 1);
    cJSON_Delete(doc);
    rpl_strbuf_release(&sb);
    return rc;
}

/* Baseline missing (or lacking the measured section). */
static int missing(gate_run *g, const char *why)
{
    rpl_strbuf cmd = RPL_STRBUF_INIT;
    int rc = gate_update_command(&cmd, &g->args, g->m.arch);

    if (rc == RPL_OK && !g->args.allow_missing)
        rc = rpl_gate_result_missing(g->res, g->path, rpl_strbuf_cstr(&cmd));
    if (rc == RPL_OK && g->args.allow_missing) {
        g->res->baseline_missing = true;
        rc = rpl_gate_result_set(&g->res->create_command, rpl_strbuf_cstr(&cmd));
        if (rc == RPL_OK)
            rc = rpl_gate_result_set(&g->res->baseline_path, g->path);
        if (rc == RPL_OK)
            rc = rpl_gate_result_set(&g->res->confirmation, "--allow-missing-baseline: not gated");
    }
    if (rc == RPL_OK)
        fprintf(stderr, "rocm-perf: %s '%s'%s; create it with:\n  %s\n", why, g->path,
                g->args.allow_missing ? " (allowed: not gated)" : "", rpl_strbuf_cstr(&cmd));
    rpl_strbuf_release(&cmd);
    return rc;
}

static int run_gate(gate_run *g)
{
    const gate_args *a = &g->args;
    const char *upd = getenv("ROCM_PERF_UPDATE_BASELINES");
    const char *input = a->in.nstatic ? "static" : a->in.ntraces ? "trace" : "app";
    double t0 = now_s();
    rpl_strbuf text = RPL_STRBUF_INIT;
    int rc;

    if ((rc = rpl_gate_measure(&g->m, &a->in)) != RPL_OK ||
        (rc = rpl_baseline_path(&g->path, a->baseline_dir, g->m.arch, a->test)) != RPL_OK)
        return rc;
    if (upd && strcmp(upd, "1") == 0)
        return gate_update_baseline(a, g->path, &g->m);
    if ((rc = rpl_gate_result_new(&g->res, a->test, g->m.arch, a->in.nstatic ? "static" : "runtime",
                                  input)) != RPL_OK)
        return rc;
    g->res->stat = a->stat;
    g->res->warmup = a->in.warmup;
    g->res->repetitions = a->in.repetitions;
    if ((rc = rpl_gate_result_set(&g->res->device, g->m.device)) != RPL_OK)
        return rc;
    for (size_t i = 0; i < a->in.ntraces; i++)
        if ((rc = add_absolute(g->res, a->in.traces[i], rpl_gate_result_add_trace)) != RPL_OK)
            return rc;
    if (a->in.keep_trace &&
        (rc = add_absolute(g->res, a->in.keep_trace, rpl_gate_result_add_trace)) != RPL_OK)
        return rc;
    rc = rpl_baseline_read(&g->base, g->path);
    /* Without --block, occupancy is compared at the block size the baseline recorded. */
    if (rc == RPL_OK && a->in.nstatic && !a->in.block && g->base->has_static &&
        g->base->block_size) {
        g->args.in.block = g->base->block_size;
        rpl_gate_measurement_release(&g->m);
        rc = rpl_gate_measure(&g->m, &g->args.in);
    }
    if (rc == RPL_ENOTFOUND) {
        rpl_error_clear();
        rc = missing(g, "no baseline");
    } else if (rc == RPL_OK &&
               (strcmp(g->base->test, a->test) != 0 || strcmp(g->base->arch, g->m.arch) != 0)) {
        rc = rpl_error_set(RPL_EINPUT, "baseline '%s' is for test '%s' on '%s', not '%s' on '%s'",
                           g->path, g->base->test, g->base->arch, a->test, g->m.arch);
    } else if (rc == RPL_OK && !(a->in.nstatic ? g->base->has_static : g->base->has_runtime)) {
        rc = missing(g, a->in.nstatic ? "no static section in the baseline"
                                      : "no runtime section in the baseline");
    } else if (rc == RPL_OK) {
        rc = rpl_gate_result_set(&g->res->baseline_path, g->path);
        if (rc == RPL_OK)
            rc = compare(g);
        if (rc == RPL_OK)
            rc = retry_undecided(g);
        if (rc == RPL_OK)
            rc = confirm(g);
    }
    if (rc != RPL_OK)
        return rc;
    g->res->elapsed_s = now_s() - t0;
    if ((rc = write_reports(g)) != RPL_OK)
        return rc;
    if ((rc = rpl_gate_text(&text, g->res)) == RPL_OK)
        fputs(rpl_strbuf_cstr(&text), stdout);
    rpl_strbuf_release(&text);
    fflush(stdout);
    return rc;
}

int cmd_gate(int argc, char **argv)
{
    gate_run g = {0};
    int rc = gate_args_parse(&g.args, &gate_command, argc, argv);

    if (rc < 0) {
        rc = run_gate(&g);
        if (rc != RPL_OK)
            rc = rpl_cli_fail(rc);
        else
            rc = !g.res                               ? RPL_EXIT_OK
                 : g.res->verdict == RPL_VERDICT_FAIL ? RPL_EXIT_FAIL
                 : g.res->skipped                     ? RPL_EXIT_SKIP
                                                      : RPL_EXIT_OK;
    }
    rpl_gate_result_free(g.res);
    rpl_baseline_free(g.base);
    rpl_gate_measurement_release(&g.m);
    free(g.path);
    gate_args_release(&g.args);
    return rc;
}

/* ---- rocm-perf report --suite DIR ---- */

#define S(m) RPL_FIELD(rpl_suite_opts, m)

static const rpl_option suite_options[] = {
    OPT_STRING(0, "suite", S(dir), "DIR", "the gate result JSON files below DIR"),
    OPT_NUMBER_OPEN(0, "alpha", S(alpha), 0, 1, "A", "family-wise level (default {})"),
    OPT_STRING(0, "markdown", S(markdown), "F", "write the suite summary as Markdown"),
    OPT_STRING(0, "junit", S(junit), "F", "write the suite as JUnit"),
    OPT_STRING(0, "json", S(json), "F", "write the suite summary as JSON"),
    OPT_STRING(0, "html", S(html), "F", "write the HTML page"),
    OPT_STRING(0, "baseline-dir", S(baseline_dir), "BDIR", "the baselines' histories for --html"),
    OPT_END(),
};

static const rpl_command suite_command = {
    .name = "report --suite",
    .usage = "rocm-perf report --suite DIR [--alpha A] [--markdown F] [--junit F]\n"
             "                        [--json F] [--html F [--baseline-dir BDIR]]",
    .description = "Read every gate result JSON below DIR (e.g. a ctest run's --json files),\n"
                   "apply Holm's step-down correction at family-wise level A (default 0.05)\n"
                   "across their runtime comparisons, and print the suite summary.  A runtime\n"
                   "FAIL that is not significant across the suite becomes a WARN; deterministic\n"
                   "failures stay.  The summary gives the geometric mean of the runtime ratios\n"
                   "over all tests and kernels with a 95% bootstrap interval over tests (also\n"
                   "in the Markdown, the JSON and as JUnit properties suite.geomean_*).\n"
                   "--html writes one self-contained page (inline CSS and SVG): per test the\n"
                   "verdicts, the GPU state and each kernel's baseline history with its\n"
                   "change points and this run; histories come from BDIR/<arch>/<test>.json,\n"
                   "else from each result's baseline file.",
    .options = suite_options,
    .exit_codes = "0 no test fails, 1 a test fails, 2 bad usage or input.",
};

int cmd_report_suite(int argc, char **argv)
{
    rpl_suite_opts o = {.alpha = 0.05};
    rpl_strbuf out = RPL_STRBUF_INIT;
    bool failed = false;
    int rc;

    if ((rc = rpl_parse_options(&suite_command, &o, &argc, &argv)) >= 0)
        return rc;
    if (!o.dir || argc > 0)
        return rpl_cli_usage_error("usage: rocm-perf report --suite DIR [--alpha A] "
                                   "[--markdown F] [--junit F] [--json F] [--html F]");
    rc = rpl_gate_suite_report(&out, &failed, &o);
    if (rc == RPL_OK)
        fputs(rpl_strbuf_cstr(&out), stdout);
    rpl_strbuf_release(&out);
    if (rc != RPL_OK)
        return rpl_cli_fail(rc);
    return failed ? RPL_EXIT_FAIL : RPL_EXIT_OK;
}
