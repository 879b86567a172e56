/*
 * rocm-perf autotune: model-guided search of a kernel's parameter space
 * (rpl/autotune.h).  Exit 0 with a best config, 1 when no config could be
 * measured, 2 bad usage or input, 3 environment, 77 no GPU.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/log.h"
#include "rpl/profile_backend.h"
#include "rpl/strbuf.h"

enum {
    OPT_SPACE = 256,
    OPT_CMD,
    OPT_BUILD,
    OPT_ARCH,
    OPT_BLOCK,
    OPT_BUDGET,
    OPT_SEED,
    OPT_MIN_R2,
    OPT_TOP_K,
    OPT_REPS,
    OPT_CONFIRM_REPS,
    OPT_WARMUP,
    OPT_TIMEOUT,
    OPT_JOBS,
    OPT_DEVICES,
    OPT_BUILD_JOBS,
    OPT_LAUNCHER,
    OPT_BACKEND,
    OPT_CACHE,
    OPT_NO_CACHE,
    OPT_WORK_DIR,
    OPT_JSON,
    OPT_PLOT
};

typedef struct tune_args {
    rpl_tune_opts o;
    const char *json, *plot;
    bool no_cache, jobs_given;
    char *default_cache;
    char **devices;
} tune_args;

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rocm-perf autotune --space FILE --cmd-template T [--build-template T]\n"
            "                          [--kernel REGEX] [--arch A] [--block EXPR]\n"
            "                          [--budget 30%%|0.3|N] [--seed S] [--min-r2 R] [--top-k K]\n"
            "                          [--repetitions N] [--confirm-repetitions N] [--warmup W]\n"
            "                          [--timeout SEC] [--jobs N] [--devices LIST]\n"
            "                          [--build-jobs N] [--launcher CMD]\n"
            "                          [--backend auto|rocprofv3|cupti]\n"
            "                          [--cache FILE | --no-cache] [--work-dir DIR]\n"
            "                          [--json FILE] [--plot FILE]\n"
            "\n"
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
            "build writes (one per distinct build, in the work folder); {{ and }} are braces.\n"
            "\n"
            "  --cmd-template T     the command measured, e.g. \"{OUT} --n 4096\"\n"
            "  --build-template T   builds a config, e.g. \"hipcc -O3 -DBM={BM} -o {OUT} k.hip\"\n"
            "  --kernel REGEX       the kernel measured and inspected (default: the only one)\n"
            "  --arch A, --block EXPR   static features: target in the built code, and the\n"
            "                       threads per block as an expression of the parameters\n"
            "                       (default: the kernel's maximum)\n"
            "  --budget B           measurements at most: a fraction (30%%, 0.3) of the space\n"
            "                       (rounded down) or a count (60); default 30%%.  Configs,\n"
            "                       confirm and unstable re-measures all count; the confirm\n"
            "                       phase shrinks to fit\n"
            "  --seed S             sampling and cross-validation seed (default %u)\n"
            "  --min-r2 R           below it the model is not trusted (default %.2f)\n"
            "  --top-k K            configs confirmed (default %u; doubled at low R^2)\n"
            "  --repetitions N      kernel samples per measurement (default %u); a CV above\n"
            "                       %.2f is measured once more, then marked unstable\n"
            "  --confirm-repetitions N   samples of each confirmed config (default 2 x N)\n"
            "  --warmup W           dispatches dropped per run (default 1)\n"
            "  --timeout SEC        limit per build and per run; past it the config is\n"
            "                       recorded as failed (default: none)\n"
            "  --jobs N             configs measured at once, each process seeing one GPU\n"
            "                       (CUDA_/HIP_/ROCR_VISIBLE_DEVICES set per slot)\n"
            "  --devices LIST       the GPUs of the slots, e.g. 2,3 (default 0..N-1)\n"
            "  --build-jobs N       builds at once (default: the CPUs)\n"
            "  --launcher CMD       prefix of every measurement, e.g. \"srun -N1 -n1 --gpus=1\"\n"
            "  --backend B          profiler (default: ROCM_PERF_BACKEND, else the GPU found)\n"
            "  --cache FILE         SQLite cache of measurements (default\n"
            "                       $XDG_CACHE_HOME or ~/.cache: rocm-perf/autotune.db);\n"
            "                       a config is never profiled twice; --no-cache ignores it\n"
            "  --work-dir DIR       keep the builds in DIR (default: a temporary folder)\n"
            "  --json FILE          result (docs/schemas/autotune-result.schema.json)\n"
            "  --plot FILE          SVG of predicted against measured runtime\n"
            "\n"
            "Exit codes: 0 a best config was found, 1 no config could be measured, 2 bad\n"
            "usage or input, 3 environment, 77 no GPU.\n",
            RPL_TUNE_DEFAULT_SEED, RPL_TUNE_DEFAULT_MIN_R2, RPL_TUNE_DEFAULT_TOP_K,
            RPL_TUNE_DEFAULT_REPETITIONS, RPL_TUNE_CV_UNSTABLE);
}

static int parse_uint(const char *opt, const char *arg, unsigned long lo, unsigned long hi,
                      unsigned long *out)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(arg, &end, 10);
    if (errno || end == arg || *end || arg[0] == '-' || v < lo || v > hi)
        return rpl_cli_usage_error("%s takes a whole number from %lu to %lu, not '%s'", opt, lo, hi,
                                   arg);
    *out = v;
    return 0;
}

/* "30%" and "0.3" are fractions of the space, "60" a count. */
static int parse_budget(rpl_tune_opts *o, const char *arg)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(arg, &end);
    if (end != arg && !errno && *end == '%' && end[1] == '\0' && v > 0 && v <= 100) {
        o->budget_fraction = v / 100;
        return 0;
    }
    if (end != arg && !errno && *end == '\0' && strchr(arg, '.') && v > 0 && v <= 1) {
        o->budget_fraction = v;
        return 0;
    }
    if (end != arg && !errno && *end == '\0' && !strchr(arg, '.') && v >= 1 && v <= 1e9 &&
        v == floor(v)) {
        o->budget_count = (size_t)v;
        return 0;
    }
    return rpl_cli_usage_error("--budget takes a fraction (30%%, 0.3) or a count of configs "
                               "(60), not '%s'",
                               arg);
}

static int parse_real(const char *opt, const char *arg, double lo, double hi, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(arg, &end);
    if (errno || end == arg || *end || !(v >= lo && v <= hi))
        return rpl_cli_usage_error("%s takes a number from %g to %g, not '%s'", opt, lo, hi, arg);
    *out = v;
    return 0;
}

/* "2,3" into a NULL-terminated list; *n its length. */
static int parse_devices(tune_args *a, const char *arg, unsigned *n)
{
    size_t len = strlen(arg), k = 0;
    char *copy = strdup(arg), *save = NULL;

    if (!copy || !(a->devices = calloc(len + 2, sizeof(*a->devices)))) {
        free(copy);
        return rpl_cli_fail(rpl_error_oom());
    }
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!tok[0] || strspn(tok, "0123456789abcdefABCDEF-GPU") != strlen(tok)) {
            free(copy);
            return rpl_cli_usage_error("--devices takes GPU indices or UUIDs separated by "
                                       "commas, not '%s'",
                                       arg);
        }
        if (!(a->devices[k++] = strdup(tok))) {
            free(copy);
            return rpl_cli_fail(rpl_error_oom());
        }
    }
    free(copy);
    if (k == 0 || k > RPL_TUNE_MAX_JOBS)
        return rpl_cli_usage_error("--devices lists 1 to %d GPUs, not '%s'", RPL_TUNE_MAX_JOBS,
                                   arg);
    *n = (unsigned)k;
    return 0;
}

static int env_defaults(tune_args *a)
{
    const char *backend = getenv("ROCM_PERF_BACKEND"), *timing = getenv("ROCM_PERF_KERNEL_TIMING");
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    rpl_strbuf sb = RPL_STRBUF_INIT;

    if (backend && backend[0]) {
        rpl_backend b;
        if (rpl_backend_parse(&b, backend) != RPL_OK)
            return rpl_cli_usage_error("ROCM_PERF_BACKEND is '%s'; it takes auto, rocprofv3 or "
                                       "cupti",
                                       backend);
        a->o.backend = (int)b;
    }
    if (timing && timing[0]) {
        rpl_kernel_timing t;
        if (rpl_kernel_timing_parse(&t, timing) != RPL_OK)
            return rpl_cli_usage_error("ROCM_PERF_KERNEL_TIMING is '%s'; it takes concurrent or "
                                       "serial",
                                       timing);
        a->o.kernel_timing = (int)t;
    }
    if (xdg && xdg[0])
        rpl_strbuf_printf(&sb, "%s/rocm-perf/autotune.db", xdg);
    else if (home && home[0])
        rpl_strbuf_printf(&sb, "%s/.cache/rocm-perf/autotune.db", home);
    a->default_cache = sb.len ? rpl_strbuf_detach(&sb) : NULL;
    rpl_strbuf_release(&sb);
    a->o.cache_path = a->default_cache;
    return 0;
}

static int parse_args(tune_args *a, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"space", required_argument, NULL, OPT_SPACE},
        {"cmd-template", required_argument, NULL, OPT_CMD},
        {"build-template", required_argument, NULL, OPT_BUILD},
        {"kernel", required_argument, NULL, 'k'},
        {"arch", required_argument, NULL, OPT_ARCH},
        {"block", required_argument, NULL, OPT_BLOCK},
        {"budget", required_argument, NULL, OPT_BUDGET},
        {"seed", required_argument, NULL, OPT_SEED},
        {"min-r2", required_argument, NULL, OPT_MIN_R2},
        {"top-k", required_argument, NULL, OPT_TOP_K},
        {"repetitions", required_argument, NULL, OPT_REPS},
        {"confirm-repetitions", required_argument, NULL, OPT_CONFIRM_REPS},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"jobs", required_argument, NULL, OPT_JOBS},
        {"devices", required_argument, NULL, OPT_DEVICES},
        {"build-jobs", required_argument, NULL, OPT_BUILD_JOBS},
        {"launcher", required_argument, NULL, OPT_LAUNCHER},
        {"backend", required_argument, NULL, OPT_BACKEND},
        {"cache", required_argument, NULL, OPT_CACHE},
        {"no-cache", no_argument, NULL, OPT_NO_CACHE},
        {"work-dir", required_argument, NULL, OPT_WORK_DIR},
        {"json", required_argument, NULL, OPT_JSON},
        {"plot", required_argument, NULL, OPT_PLOT},
        RPL_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    unsigned long v = 0;
    unsigned ndev = 0;
    double d;
    int opt, rc;

    if ((rc = env_defaults(a)) != 0)
        return rc;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "k:" RPL_CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        if (rpl_cli_common_option(opt))
            continue;
        switch (opt) {
        case 'h':
            usage(stdout);
            return -2;
        case OPT_SPACE:
            a->o.space_path = optarg;
            break;
        case OPT_CMD:
            a->o.cmd_template = optarg;
            break;
        case OPT_BUILD:
            a->o.build_template = optarg;
            break;
        case 'k':
            a->o.kernel_regex = optarg;
            break;
        case OPT_ARCH:
            a->o.arch = optarg;
            break;
        case OPT_BLOCK:
            a->o.block_expr = optarg;
            break;
        case OPT_BUDGET:
            if (parse_budget(&a->o, optarg))
                return RPL_EXIT_INPUT;
            break;
        case OPT_SEED:
            if (parse_uint("--seed", optarg, 0, 4294967295ul, &v))
                return RPL_EXIT_INPUT;
            a->o.seed = v;
            break;
        case OPT_MIN_R2:
            if (parse_real("--min-r2", optarg, 0, 1, &a->o.min_r2))
                return RPL_EXIT_INPUT;
            break;
        case OPT_TOP_K:
            if (parse_uint("--top-k", optarg, 1, 100, &v))
                return RPL_EXIT_INPUT;
            a->o.top_k = (unsigned)v;
            break;
        case OPT_REPS:
        case OPT_CONFIRM_REPS:
            if (parse_uint(opt == OPT_REPS ? "--repetitions" : "--confirm-repetitions", optarg, 2,
                           100000, &v))
                return RPL_EXIT_INPUT;
            *(opt == OPT_REPS ? &a->o.repetitions : &a->o.confirm_repetitions) = (unsigned)v;
            break;
        case OPT_WARMUP:
            if (parse_uint("--warmup", optarg, 0, 100000, &v))
                return RPL_EXIT_INPUT;
            a->o.warmup = (unsigned)v;
            break;
        case OPT_TIMEOUT:
            if (parse_real("--timeout", optarg, 0.001, 86400, &d))
                return RPL_EXIT_INPUT;
            a->o.timeout_ms = (int)ceil(d * 1000);
            break;
        case OPT_JOBS:
            if (parse_uint("--jobs", optarg, 1, RPL_TUNE_MAX_JOBS, &v))
                return RPL_EXIT_INPUT;
            a->o.jobs = (unsigned)v;
            a->jobs_given = true;
            break;
        case OPT_DEVICES:
            if ((rc = parse_devices(a, optarg, &ndev)) != 0)
                return rc;
            break;
        case OPT_BUILD_JOBS:
            if (parse_uint("--build-jobs", optarg, 1, 64, &v))
                return RPL_EXIT_INPUT;
            a->o.build_jobs = (unsigned)v;
            break;
        case OPT_LAUNCHER:
            a->o.launcher = optarg;
            break;
        case OPT_BACKEND: {
            rpl_backend b;
            if (rpl_backend_parse(&b, optarg) != RPL_OK)
                return rpl_cli_fail(RPL_EUSAGE);
            a->o.backend = (int)b;
            break;
        }
        case OPT_CACHE:
            a->o.cache_path = optarg;
            break;
        case OPT_NO_CACHE:
            a->no_cache = true;
            break;
        case OPT_WORK_DIR:
            a->o.work_dir = optarg;
            break;
        case OPT_JSON:
            a->json = optarg;
            break;
        case OPT_PLOT:
            a->plot = optarg;
            break;
        default:
            return rpl_cli_usage_error("autotune: unknown option or missing value '%s'; see "
                                       "'rocm-perf autotune --help'",
                                       argv[optind - 1]);
        }
    }
    if (optind < argc)
        return rpl_cli_usage_error("autotune: unexpected argument '%s'", argv[optind]);
    if (!a->o.space_path || !a->o.cmd_template)
        return rpl_cli_usage_error("autotune needs --space FILE and --cmd-template T");
    if ((a->json && (rc = rpl_cli_check_output("--json", a->json)) != 0) ||
        (a->plot && (rc = rpl_cli_check_output("--plot", a->plot)) != 0))
        return rc;
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

static int write_outputs(const tune_args *a, const rpl_tune_result *r)
{
    cJSON *doc = NULL;
    int rc = RPL_OK;

    if (a->json && (rc = rpl_tune_result_json(&doc, r)) == RPL_OK)
        rc = rpl_json_write_file(a->json, doc);
    cJSON_Delete(doc);
    if (rc == RPL_OK && a->plot)
        rc = rpl_tune_plot_svg(a->plot, r);
    return rc;
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
        if (rc == RPL_OK)
            rc = write_outputs(&a, r);
        if (rc == RPL_OK)
            rc = rpl_tune_summary_text(&summary, r);
        if (rc == RPL_OK) {
            fputs(rpl_strbuf_cstr(&summary), stdout);
            if (r->best == SIZE_MAX)
                rc = rpl_error_set(RPL_EFAIL,
                                   "no configuration could be measured (%zu failed to build, "
                                   "%zu pruned, %zu failed or timed out)",
                                   r->build_failed, r->pruned, r->run_failed);
        }
        rc = rc == RPL_OK ? RPL_EXIT_OK : rpl_cli_fail(rc);
    } else if (rc == -2) {
        rc = RPL_EXIT_OK;
    }
    rpl_strbuf_release(&summary);
    rpl_tune_result_free(r);
    rpl_argv_free(a.devices);
    free(a.default_cache);
    return rc;
}
