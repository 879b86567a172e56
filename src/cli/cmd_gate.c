/*
 * rocm-perf gate: measure a kernel test (code objects, recorded traces, or a
 * program run under the profiler), compare it with its stored baseline and
 * decide: exit 0 pass/warn/improved, 1 fail, 2 bad input, 3 environment,
 * 77 no GPU.  ROCM_PERF_UPDATE_BASELINES=1 records instead of comparing.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gate_cli.h"
#include "rpl/error.h"
#include "rpl/profile_backend.h"

#define DEFAULT_REPETITIONS 30
#define DEFAULT_WARMUP      1

enum {
    OPT_TEST = 256,
    OPT_DIR,
    OPT_ARCH,
    OPT_TOL,
    OPT_REPS,
    OPT_WARMUP,
    OPT_SEED,
    OPT_CONF,
    OPT_JUNIT,
    OPT_JSON,
    OPT_MD,
    OPT_ALLOW,
    OPT_STATIC,
    OPT_BLOCK,
    OPT_TRACE,
    OPT_SKIP_EMPTY,
    OPT_UNDECIDED,
    OPT_RETRY,
    OPT_REASON,
    OPT_STABLE,
    OPT_KEEP_TRACE
};

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: rocm-perf gate --test NAME --baseline-dir DIR [--arch A] [--tolerance 3%%]\n"
        "                      [--repetitions N] [--warmup W] [--kernel REGEX] [--seed S]\n"
        "                      [--confidence 0.95] [--junit F] [--json F] [--markdown F]\n"
        "                      [--allow-missing-baseline] [--skip-if-no-checks]\n"
        "                      [--undecided pass|warn|fail] [--retry-undecided N]\n"
        "                      [--require-stable-clocks] [--keep-trace FILE]\n"
        "                      (--static FILE... [--block N] | --trace DB... | -- APP ARGS...)\n"
        "\n"
        "Compare a kernel test with its baseline DIR/<arch>/<test>.json.\n"
        "  --static FILE...   no GPU: registers, LDS, scratch, spills and occupancy of the\n"
        "                     kernels in FILE(s) (code objects, bundles, executables)\n"
        "                     must not get worse (exact counts); --arch picks the target\n"
        "                     (needed when the files hold several), --block the block\n"
        "                     size for occupancy (default: each kernel's maximum)\n"
        "  --trace DB...      recorded rocpd traces: per kernel the device durations of\n"
        "                     its dispatches are compared with the baseline's samples\n"
        "  -- APP ARGS...     run APP under the profiler (rocprofv3 or CUPTI, no\n"
        "                     counters) until each kernel has N samples after warm-up\n"
        "                     or APP ran N times\n"
        "\n"
        "Runtime rule: L = ln(median candidate / median baseline) with one-sided\n"
        "bootstrap bounds (B 2000, percentile, GSL mt19937); with a history of >= 3\n"
        "accepted medians the bounds are widened by their run-to-run spread.  The\n"
        "change is 'slower' (FAIL) when the lower bound exceeds ln(1+tolerance),\n"
        "'faster' (IMPROVED) when the upper bound is below ln(1-tolerance), 'same'\n"
        "(PASS) when both bounds lie within, and 'undecided' when the interval\n"
        "straddles a threshold (--undecided says its verdict).  Counters (FLOPs, DRAM bytes per\n"
        "dispatch) may not grow beyond the tolerance; a changed bottleneck class warns.\n"
        "\n"
        "  --tolerance T      minimum material change, '3%%' or 0.03 (default 3%%)\n"
        "  --confidence C     one-sided confidence (default 0.95)\n"
        "  --repetitions N    samples per kernel in APP mode (default %d)\n"
        "  --warmup W         dispatches dropped per kernel and run (default %d)\n"
        "  --kernel REGEX     gate only these kernels (default: all but runtime helpers)\n"
        "  --seed S           bootstrap seed (default %u)\n"
        "  --junit F, --json F, --markdown F   write the reports\n"
        "  --allow-missing-baseline            no baseline is a pass, not a failure\n"
        "  --undecided V      verdict of an undecided change: pass, warn (default) or fail\n"
        "  --retry-undecided N  APP mode: while a runtime change is undecided, measure\n"
        "                     up to N more times, adding the samples, before answering\n"
        "  --keep-trace FILE  APP mode: keep the last run's trace as a rocpd database\n"
        "                     FILE; the result names it, so 'report --suite --html' draws\n"
        "                     its critical path (and its roofline where it has counters)\n"
        "  --require-stable-clocks  a program run while the GPU throttled, or at an SM\n"
        "                     clock more than 10%% from the baseline's, is an environment\n"
        "                     error (exit 3) instead of a WARN check\n"
        "  --skip-if-no-checks  a gate that compares nothing (the baseline lists no\n"
        "                     kernels, or --kernel selects none of them) is skipped\n"
        "                     (exit 77, JUnit <skipped>) instead of failing\n"
        "\n"
        "ROCM_PERF_BACKEND=rocprofv3|cupti picks the profiler of APP runs (default:\n"
        "auto, the GPU found).  ROCM_PERF_KERNEL_TIMING=concurrent|serial is how CUPTI\n"
        "times kernels in APP runs (default concurrent; see 'rocm-perf profile --help').\n"
        "ROCM_PERF_UPDATE_BASELINES=1 records the measured section into the baseline\n"
        "instead of comparing (as 'rocm-perf baseline update').  A runtime FAIL of an\n"
        "APP run is measured once more before it stands (confirmation).  With a\n"
        "history of >= 10 entries (see 'baseline trend'), a regression names the\n"
        "history entry and commit where its level began, and a slow drift warns.\n"
        "The GPU's clocks, temperature, power and throttle reasons are sampled while\n"
        "APP runs (NVML or ROCm SMI, when the library is there).\n"
        "\n"
        "Exit codes: 0 pass, warn or improved, 1 fail (or no baseline, or nothing\n"
        "checked), 2 bad usage or input (a corrupt baseline is left untouched),\n"
        "3 environment, 77 no GPU or nothing checked with --skip-if-no-checks.\n",
        DEFAULT_REPETITIONS, DEFAULT_WARMUP, RPL_GATE_DEFAULT_SEED);
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

/* "3%", "3 %" or "0.03". */
int gate_parse_fraction(const char *opt, const char *arg, double lo, double hi, bool percent_ok,
                        double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(arg, &end);
    if (percent_ok && end != arg && *end == '%' && end[1] == '\0') {
        v /= 100.0;
        end++;
    }
    if (errno || end == arg || *end || !(v > lo && v < hi))
        return rpl_cli_usage_error("%s takes a value between %g and %g%s, not '%s'", opt, lo, hi,
                                   percent_ok ? " (or a percentage like 3%)" : "", arg);
    *out = v;
    return 0;
}

void gate_args_release(gate_args *a)
{
    free(a->statics);
    free(a->traces);
}

static int check_modes(gate_args *a, int argc, char **argv, int dashes)
{
    int modes = (a->run.in.nstatic > 0) + (a->run.in.ntraces > 0) + (dashes < argc);

    if (dashes < argc && optind < dashes)
        return rpl_cli_usage_error("unexpected argument '%s' before '--'", argv[optind]);
    if (dashes == argc && optind < argc)
        return rpl_cli_usage_error("unexpected argument '%s'; the inputs follow --static or "
                                   "--trace, a program follows '--'",
                                   argv[optind]);
    if (!a->run.test || !a->run.baseline_dir)
        return rpl_cli_usage_error("--test NAME and --baseline-dir DIR are required");
    if (modes != 1)
        return rpl_cli_usage_error("give exactly one of --static FILE..., --trace DB... or -- APP");
    if (dashes < argc) {
        if (dashes + 1 == argc)
            return rpl_cli_usage_error("no program after '--'");
        a->run.in.app_argv = (const char *const *)argv + dashes + 1;
    } else if (a->run.in.keep_trace) {
        return rpl_cli_usage_error("--keep-trace keeps the trace of a program run: it goes "
                                   "with -- APP");
    }
    return -1;
}

/* --static and --trace take every following argument up to the next option. */
static void take_list(const char **list, size_t *n, int argc, char **argv, int dashes)
{
    list[(*n)++] = optarg;
    while (optind < dashes && optind < argc && argv[optind][0] != '-')
        list[(*n)++] = argv[optind++];
}

int gate_args_parse(gate_args *a, int argc, char **argv, bool update, void (*usage_fn)(FILE *))
{
    static const struct option longopts[] = {
        {"test", required_argument, NULL, OPT_TEST},
        {"baseline-dir", required_argument, NULL, OPT_DIR},
        {"arch", required_argument, NULL, OPT_ARCH},
        {"tolerance", required_argument, NULL, OPT_TOL},
        {"repetitions", required_argument, NULL, OPT_REPS},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"kernel", required_argument, NULL, 'k'},
        {"seed", required_argument, NULL, OPT_SEED},
        {"confidence", required_argument, NULL, OPT_CONF},
        {"junit", required_argument, NULL, OPT_JUNIT},
        {"json", required_argument, NULL, OPT_JSON},
        {"markdown", required_argument, NULL, OPT_MD},
        {"allow-missing-baseline", no_argument, NULL, OPT_ALLOW},
        {"skip-if-no-checks", no_argument, NULL, OPT_SKIP_EMPTY},
        {"static", required_argument, NULL, OPT_STATIC},
        {"block", required_argument, NULL, OPT_BLOCK},
        {"trace", required_argument, NULL, OPT_TRACE},
        {"undecided", required_argument, NULL, OPT_UNDECIDED},
        {"retry-undecided", required_argument, NULL, OPT_RETRY},
        {"reason", required_argument, NULL, OPT_REASON},
        {"require-stable-clocks", no_argument, NULL, OPT_STABLE},
        {"keep-trace", required_argument, NULL, OPT_KEEP_TRACE},
        RPL_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    const char *backend = getenv("ROCM_PERF_BACKEND");
    const char *timing = getenv("ROCM_PERF_KERNEL_TIMING");
    int opt, dashes = 1;
    unsigned long v = 0;

    while (dashes < argc && strcmp(argv[dashes], "--") != 0)
        dashes++;
    if (backend && backend[0]) {
        rpl_backend b;
        if (rpl_backend_parse(&b, backend) != RPL_OK)
            return rpl_cli_usage_error("ROCM_PERF_BACKEND is '%s'; it takes auto, rocprofv3 or "
                                       "cupti",
                                       backend);
        a->run.in.backend = (int)b;
    }
    if (timing && timing[0]) {
        rpl_kernel_timing t;
        if (rpl_kernel_timing_parse(&t, timing) != RPL_OK)
            return rpl_cli_usage_error("ROCM_PERF_KERNEL_TIMING is '%s'; it takes concurrent or "
                                       "serial",
                                       timing);
        a->run.in.kernel_timing = (int)t;
    }
    rpl_gate_stat_opts_init(&a->run.stat);
    a->run.in.repetitions = DEFAULT_REPETITIONS;
    a->run.in.warmup = DEFAULT_WARMUP;
    a->statics = calloc((size_t)argc + 1, sizeof(*a->statics));
    a->traces = calloc((size_t)argc + 1, sizeof(*a->traces));
    if (!a->statics || !a->traces)
        return rpl_cli_fail(rpl_error_oom());
    a->run.in.static_files = a->statics;
    a->run.in.traces = a->traces;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(dashes, argv, "+k:" RPL_CLI_COMMON_SHORTOPTS, longopts, NULL)) !=
           -1) {
        if (rpl_cli_common_option(opt))
            continue;
        if (update &&
            (opt == OPT_JUNIT || opt == OPT_JSON || opt == OPT_MD || opt == OPT_ALLOW ||
             opt == OPT_SKIP_EMPTY || opt == OPT_SEED || opt == OPT_CONF || opt == OPT_UNDECIDED ||
             opt == OPT_RETRY || opt == OPT_STABLE || opt == OPT_KEEP_TRACE))
            return rpl_cli_usage_error("'%s' is an option of 'rocm-perf gate', not of 'baseline "
                                       "update'",
                                       argv[optind - 1]);
        switch (opt) {
        case 'h':
            usage_fn(stdout);
            return RPL_EXIT_OK;
        case OPT_TEST:
            a->run.test = optarg;
            break;
        case OPT_DIR:
            a->run.baseline_dir = optarg;
            break;
        case OPT_ARCH:
            a->run.in.arch = optarg;
            break;
        case OPT_TOL:
            if (gate_parse_fraction("--tolerance", optarg, 0, 1, true, &a->run.stat.delta))
                return RPL_EXIT_INPUT;
            break;
        case OPT_CONF:
            if (gate_parse_fraction("--confidence", optarg, 0.5, 1, false, &a->run.stat.confidence))
                return RPL_EXIT_INPUT;
            break;
        case OPT_REPS:
            if (parse_uint("--repetitions", optarg, 1, 100000, &v))
                return RPL_EXIT_INPUT;
            a->run.in.repetitions = (unsigned)v;
            break;
        case OPT_WARMUP:
            if (parse_uint("--warmup", optarg, 0, 100000, &v))
                return RPL_EXIT_INPUT;
            a->run.in.warmup = (unsigned)v;
            break;
        case OPT_SEED:
            if (parse_uint("--seed", optarg, 0, 4294967295ul, &v))
                return RPL_EXIT_INPUT;
            a->run.stat.seed = v;
            break;
        case OPT_BLOCK:
            if (parse_uint("--block", optarg, 1, 1024, &v))
                return RPL_EXIT_INPUT;
            a->run.in.block = (unsigned)v;
            break;
        case 'k':
            a->run.in.kernel_regex = optarg;
            break;
        case OPT_JUNIT:
            a->run.junit = optarg;
            break;
        case OPT_JSON:
            a->run.json = optarg;
            break;
        case OPT_MD:
            a->run.markdown = optarg;
            break;
        case OPT_ALLOW:
            a->run.allow_missing = true;
            break;
        case OPT_SKIP_EMPTY:
            a->run.skip_if_no_checks = true;
            break;
        case OPT_UNDECIDED: {
            int u = rpl_verdict_parse(optarg);
            if (u != RPL_VERDICT_PASS && u != RPL_VERDICT_WARN && u != RPL_VERDICT_FAIL)
                return rpl_cli_usage_error("--undecided takes pass, warn or fail, not '%s'",
                                           optarg);
            a->run.stat.undecided = (rpl_verdict)u;
            break;
        }
        case OPT_RETRY:
            if (parse_uint("--retry-undecided", optarg, 0, 100, &v))
                return RPL_EXIT_INPUT;
            a->run.retry_undecided = (unsigned)v;
            break;
        case OPT_STABLE:
            a->run.require_stable_clocks = true;
            break;
        case OPT_KEEP_TRACE:
            if (!optarg[0])
                return rpl_cli_usage_error("--keep-trace needs a file name");
            a->run.in.keep_trace = optarg;
            break;
        case OPT_REASON:
            if (!update)
                return rpl_cli_usage_error("--reason is an option of 'rocm-perf baseline accept'");
            if (!optarg[0])
                return rpl_cli_usage_error("--reason needs a text");
            a->run.reason = optarg;
            break;
        case OPT_STATIC:
            take_list(a->statics, &a->run.in.nstatic, argc, argv, dashes);
            break;
        case OPT_TRACE:
            take_list(a->traces, &a->run.in.ntraces, argc, argv, dashes);
            break;
        default:
            return rpl_cli_usage_error("%s: unknown option or missing value '%s'; see "
                                       "'rocm-perf %s --help'",
                                       argv[0], argv[optind - 1], update ? "baseline" : "gate");
        }
    }
    if (a->run.in.block && !a->run.in.nstatic)
        return rpl_cli_usage_error("--block applies to --static only");
    return check_modes(a, argc, argv, dashes);
}

int cmd_gate(int argc, char **argv)
{
    gate_args a = {0};
    rpl_gate_outcome out = {0};
    const char *upd = getenv("ROCM_PERF_UPDATE_BASELINES");
    int rc = gate_args_parse(&a, argc, argv, false, usage);

    if (rc < 0) {
        a.run.update = upd && strcmp(upd, "1") == 0;
        rc = rpl_gate_run(&out, &a.run);
        if (out.notice.len)
            fprintf(stderr, "rocm-perf: %s", out.notice.ptr);
        if (rc == RPL_OK)
            fputs(rpl_strbuf_cstr(&out.text), stdout);
        fflush(stdout);
        if (rc != RPL_OK)
            rc = rpl_cli_fail(rc);
        else
            rc = !out.result                               ? RPL_EXIT_OK
                 : out.result->verdict == RPL_VERDICT_FAIL ? RPL_EXIT_FAIL
                 : out.result->skipped                     ? RPL_EXIT_SKIP
                                                           : RPL_EXIT_OK;
    }
    rpl_gate_outcome_release(&out);
    gate_args_release(&a);
    return rc;
}
