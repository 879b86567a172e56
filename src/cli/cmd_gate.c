/*
 * rocm-perf gate: measure a kernel test (code objects, recorded traces, or a
 * program run under the profiler), compare it with its stored baseline and
 * decide: exit 0 pass/warn/improved, 1 fail, 2 bad input, 3 environment,
 * 77 no GPU.  ROCM_PERF_UPDATE_BASELINES=1 records instead of comparing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gate_cli.h"
#include "rpl/error.h"
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

#define F(m) RPL_FIELD(gate_args, run.m)

/* What a measurement takes: the options of both `gate` and `baseline update`. */
const rpl_option gate_measure_options[] = {
    OPT_STRING(0, "test", F(test), "NAME", "the kernel test"),
    OPT_STRING(0, "baseline-dir", F(baseline_dir), "DIR", "the baselines, DIR/<arch>/<test>.json"),
    OPT_STRING_WORDS(
        0, "static", RPL_FIELD(gate_args, statics), offsetof(gate_args, run.in.nstatic), "FILE...",
        "no GPU: registers, LDS, scratch, spills and occupancy of the kernels in FILE(s) "
        "(code objects, bundles, executables) must not get worse (exact counts); --arch "
        "picks the target (needed when the files hold several), --block the block size for "
        "occupancy (default: each kernel's maximum)"),
    OPT_UINT(0, "block", F(in.block), 1, 1024, "N", "block size for occupancy (--static)"),
    OPT_STRING_WORDS(0, "trace", RPL_FIELD(gate_args, traces), offsetof(gate_args, run.in.ntraces),
                     "DB...",
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
static int check_modes(gate_args *a, bool accepting, int argc, char **argv)
{
    bool app = argc > 0 && strcmp(argv[0], "--") == 0;

    for (int i = 1; !app && i < argc; i++)
        if (strcmp(argv[i], "--") == 0)
            return rpl_cli_usage_error("unexpected argument '%s' before '--'", argv[0]);
    if (argc > 0 && !app)
        return rpl_cli_usage_error("unexpected argument '%s'; the inputs follow --static or "
                                   "--trace, a program follows '--'",
                                   argv[0]);
    if (app)
        a->run.in.app_argv = (const char *const *)argv + 1;
    return rpl_gate_opts_check(&a->run, accepting) ? rpl_cli_fail(RPL_EUSAGE) : -1;
}

int gate_args_parse(gate_args *a, const rpl_command *cmd, bool accepting, int argc, char **argv)
{
    int rc;

    if (rpl_profiler_env(&a->run.in.backend, &a->run.in.kernel_timing) != 0)
        return rpl_cli_fail(RPL_EUSAGE);
    rpl_gate_stat_opts_init(&a->run.stat);
    a->run.in.repetitions = DEFAULT_REPETITIONS;
    a->run.in.warmup = DEFAULT_WARMUP;
    if ((rc = rpl_parse_options(cmd, a, &argc, &argv)) >= 0)
        return rc;
    a->run.in.static_files = a->statics;
    a->run.in.traces = a->traces;
    return check_modes(a, accepting, argc, argv);
}

int cmd_gate(int argc, char **argv)
{
    gate_args a = {0};
    rpl_gate_outcome out = {0};
    const char *upd = getenv("ROCM_PERF_UPDATE_BASELINES");
    int rc = gate_args_parse(&a, &gate_command, false, argc, argv);

    if (rc < 0) {
        a.run.update = upd && strcmp(upd, "1") == 0;
        rc = rpl_gate_run(&out, &a.run);
        if (out.notice.len)
            fprintf(stderr, "rocm-perf: %s", out.notice.ptr);
        if (rc == 0)
            fputs(rpl_strbuf_cstr(&out.text), stdout);
        fflush(stdout);
        if (rc != 0)
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
