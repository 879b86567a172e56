/*
 * rocm-perf autotune: model-guided search of a kernel's parameter space
 * (rpl/autotune.h).  Exit 0 with a best config, 1 when no config could be
 * measured, 2 bad usage or input, 3 environment, 77 no GPU.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/profile_backend.h"
#include "rpl/strbuf.h"

typedef struct tune_args {
    rpl_tune_opts o;
    const char *json, *plot;
    bool no_cache, jobs_given;
    char *default_cache;
    char **devices;
} tune_args;

static int parse_budget(void *value, const rpl_option *opt, const char *arg)
{
    (void)opt;
    return rpl_tune_budget_parse(value, arg) ? rpl_cli_fail(RPL_EUSAGE) : 0;
}

static int parse_devices(void *value, const rpl_option *opt, const char *arg)
{
    int rc = rpl_tune_devices_parse(value, arg);

    (void)opt;
    return rc ? rpl_cli_fail(rc) : 0;
}

static int parse_backend(void *value, const rpl_option *opt, const char *arg)
{
    rpl_backend b;

    (void)opt;
    if (rpl_backend_parse(&b, arg) != 0)
        return rpl_cli_fail(RPL_EUSAGE);
    *(int *)value = (int)b;
    return 0;
}

#define F(m) RPL_FIELD(tune_args, m)

static const rpl_option tune_options[] = {
    OPT_STRING(0, "space", F(o.space_path), "FILE",
               "the parameter space (docs/schemas/autotune-space.schema.json)"),
    OPT_STRING(0, "cmd-template", F(o.cmd_template), "T",
               "the command measured, e.g. \"{OUT} --n 4096\""),
    OPT_STRING(0, "build-template", F(o.build_template), "T",
               "builds a config, e.g. \"hipcc -O3 -DBM={BM} -o {OUT} k.hip\""),
    OPT_STRING('k', "kernel", F(o.kernel_regex), "REGEX",
               "the kernel measured and inspected (default: the only one)"),
    OPT_STRING(0, "arch", F(o.arch), "A", "static features: target in the built code"),
    OPT_STRING(0, "block", F(o.block_expr), "EXPR",
               "static features: the threads per block as an expression of the parameters "
               "(default: the kernel's maximum)"),
    OPT_CALLBACK(0, "budget", F(o), parse_budget, "B",
                 "measurements at most: a fraction (30%, 0.3) of the space (rounded down) or a "
                 "count (60); default 30%.  Configs, confirm and unstable re-measures all count; "
                 "the confirm phase shrinks to fit"),
    OPT_UINT(0, "seed", F(o.seed), 0, 4294967295.0, "S",
             "sampling and cross-validation seed (default {})"),
    OPT_NUMBER(0, "min-r2", F(o.min_r2), 0, 1, "R",
               "below it the model is not trusted (default {})"),
    OPT_UINT(0, "top-k", F(o.top_k), 1, 100, "K",
             "configs confirmed (default {}; doubled at low R^2)"),
    OPT_UINT(0, "repetitions", F(o.repetitions), 2, 100000, "N",
             "kernel samples per measurement (default {}); a CV above 0.10 is measured once "
             "more, then marked unstable"),
    OPT_UINT(0, "confirm-repetitions", F(o.confirm_repetitions), 2, 100000, "N",
             "samples of each confirmed config (default 2 x N)"),
    OPT_UINT(0, "warmup", F(o.warmup), 0, 100000, "W", "dispatches dropped per run (default {})"),
    OPT_DURATION(0, "timeout", F(o.timeout_ms), 0.001, 86400, "SEC",
                 "limit per build and per run; past it the config is recorded as failed "
                 "(default: none)"),
    OPT_UINT_SEEN(0, "jobs", F(o.jobs), RPL_SEEN(tune_args, jobs_given), 1, RPL_TUNE_MAX_JOBS, "N",
                  "configs measured at once, each process seeing one GPU (CUDA_/HIP_/ROCR_VISIBLE_"
                  "DEVICES set per slot)"),
    OPT_CALLBACK(0, "devices", F(devices), parse_devices, "LIST",
                 "the GPUs of the slots, e.g. 2,3 (default 0..N-1)"),
    OPT_UINT(0, "build-jobs", F(o.build_jobs), 1, 64, "N", "builds at once (default: the CPUs)"),
    OPT_STRING(0, "launcher", F(o.launcher), "CMD",
               "prefix of every measurement, e.g. \"srun -N1 -n1 --gpus=1\""),
    OPT_CALLBACK(0, "backend", F(o.backend), parse_backend, "B",
                 "profiler: auto, rocprofv3 or cupti (default: ROCM_PERF_BACKEND, else the GPU "
                 "found)"),
    OPT_STRING(0, "cache", F(o.cache_path), "FILE",
               "SQLite cache of measurements (default $XDG_CACHE_HOME or ~/.cache: "
               "rocm-perf/autotune.db); a config is never profiled twice"),
    OPT_BOOL(0, "no-cache", F(no_cache), "ignore the cache"),
    OPT_STRING(0, "work-dir", F(o.work_dir), "DIR",
               "keep the builds in DIR (default: a temporary folder)"),
    OPT_STRING(0, "json", F(json), "FILE", "result (docs/schemas/autotune-result.schema.json)"),
    OPT_STRING(0, "plot", F(plot), "FILE", "SVG of predicted against measured runtime"),
    OPT_END(),
};

static const rpl_command tune_command = {
    .name = "autotune",
    .usage = "rocm-perf autotune --space FILE --cmd-template T [--build-template T]\n"
             "                   [--kernel REGEX] [--arch A] [--block EXPR]\n"
             "                   [--budget 30%|0.3|N] [--seed S] [--min-r2 R] [--top-k K]\n"
             "                   [--repetitions N] [--confirm-repetitions N] [--warmup W]\n"
             "                   [--timeout SEC] [--jobs N] [--devices LIST]\n"
             "                   [--build-jobs N] [--launcher CMD]\n"
             "                   [--backend auto|rocprofv3|cupti]\n"
             "                   [--cache FILE | --no-cache] [--work-dir DIR]\n"
             "                   [--json FILE] [--plot FILE]",
    .description =
        "Search the parameter space in FILE (docs/schemas/autotune-space.schema.json) for\n"
        "the fastest configuration while measuring a fraction of it: build every config,\n"
        "prune those whose kernel spills or cannot launch, measure a space-filling seed\n"
        "sample, fit ln(runtime) on the standardised parameters and static features\n"
        "(linear, quadratic, and pairwise terms when they cross-validate better), measure\n"
        "what the model predicts best, then confirm the best configs with more samples:\n"
        "the winner must beat the runner-up by the gate's bootstrap rule, else both are\n"
        "reported as a tie.  R^2 below --min-r2 prints a low R^2 warning, samples the\n"
        "space instead of following the model, and confirms twice as many configs.\n"
        "\n"
        "Templates are split into words first (' and \" quote, \\ escapes; no variables,\n"
        "globs, pipes or redirections: nothing runs through a shell), then {NAME} is\n"
        "replaced by the parameter's value inside each word; {OUT} is the program the\n"
        "build writes (one per distinct build, in the work folder); {{ and }} are braces.",
    .options = tune_options,
    .exit_codes = "0 a best config was found, 1 no config could be measured, 2 bad\n"
                  "usage or input, 3 environment, 77 no GPU.",
};

static int env_defaults(tune_args *a)
{
    a->default_cache = rpl_tune_default_cache_path();
    a->o.cache_path = a->default_cache;
    return rpl_profiler_env(&a->o.backend, &a->o.kernel_timing) ? rpl_cli_fail(RPL_EUSAGE) : 0;
}

/* 0 parsed, -2 after --help, else the exit code. */
static int parse_args(tune_args *a, int argc, char **argv)
{
    unsigned ndev = 0;
    int rc;

    if ((rc = env_defaults(a)) != 0)
        return rc;
    if ((rc = rpl_parse_options(&tune_command, a, &argc, &argv)) >= 0)
        return rc == 0 ? -2 : rc;
    if (argc > 0)
        return rpl_cli_usage_error("autotune: unexpected argument '%s'", argv[0]);
    if (!a->o.space_path || !a->o.cmd_template)
        return rpl_cli_usage_error("autotune needs --space FILE and --cmd-template T");
    if ((a->json && (rc = rpl_cli_check_output("--json", a->json)) != 0) ||
        (a->plot && (rc = rpl_cli_check_output("--plot", a->plot)) != 0))
        return rc;
    while (a->devices && a->devices[ndev])
        ndev++;
    if (ndev) {
        if (a->jobs_given && a->o.jobs != ndev)
            return rpl_cli_usage_error("--jobs %u but --devices lists %u GPUs", a->o.jobs, ndev);
        a->o.jobs = ndev;
        a->o.devices = (const char *const *)a->devices;
    }
    if (a->no_cache)
        a->o.cache_path = NULL;
    else if (!a->o.cache_path)
        rpl_log_warn("no HOME or XDG_CACHE_HOME for the default cache: running without one");
    return 0;
}

int cmd_autotune(int argc, char **argv)
{
    tune_args a = {0};
    rpl_tune_result *r = NULL;
    rpl_strbuf summary = RPL_STRBUF_INIT;
    int rc;

    rpl_tune_opts_init(&a.o);
    rc = parse_args(&a, argc, argv);
    if (rc == 0) {
        rc = rpl_tune_run(&r, &a.o);
        if (rc == 0)
            rc = rpl_tune_report(&summary, r, a.json, a.plot);
        fputs(rpl_strbuf_cstr(&summary), stdout);
        rc = rc == 0 ? RPL_EXIT_OK : rpl_cli_fail(rc);
    } else if (rc == -2) {
        rc = RPL_EXIT_OK;
    }
    rpl_strbuf_release(&summary);
    rpl_tune_result_free(r);
    rpl_argv_free(a.devices);
    free(a.default_cache);
    return rc;
}
