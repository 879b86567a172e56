/*
 * rocm-perf profile: run a program under rocprofv3 (AMD) or the CUPTI
 * recorder (NVIDIA), merge the counter passes, write the merged trace as
 * DIR/profile.db and analyse it exactly as `rocm-perf analyze --out DIR`.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rpl/error.h"
#include "rpl/profile_backend.h"

#define DEFAULT_OUT "rocm-perf-out"

typedef struct profile_args {
    rpl_profile_analyze_opts p;
    const char **traces; /* storage for p.traces (--trace) */
} profile_args;

/* A count for --counter-skip (0 allowed) or --counter-dispatches (1 or more, or "all"). */
static int parse_count(void *value, const rpl_option *opt, const char *arg)
{
    bool all_ok = strcmp(opt->long_name, "counter-dispatches") == 0;
    char *end;
    unsigned long long v;

    if (all_ok && strcmp(arg, "all") == 0) {
        *(uint32_t *)value = RPL_COUNTER_DISPATCHES_ALL;
        return 0;
    }
    errno = 0;
    v = strtoull(arg, &end, 10);
    if (!arg[0] || *end || arg[0] == '-' || errno || v >= UINT32_MAX || (all_ok && v == 0))
        return rpl_cli_usage_error("--%s: '%s' is not %s", opt->long_name, arg,
                                   all_ok ? "a count of 1 or more, nor 'all'" : "a count");
    *(uint32_t *)value = (uint32_t)v;
    return 0;
}

static int parse_backend(void *value, const rpl_option *opt, const char *arg)
{
    (void)opt;
    return rpl_backend_parse(value, arg) ? rpl_cli_fail(RPL_EUSAGE) : 0;
}

static int parse_kernel_timing(void *value, const rpl_option *opt, const char *arg)
{
    (void)opt;
    return rpl_kernel_timing_parse(value, arg) ? rpl_cli_fail(RPL_EUSAGE) : 0;
}

#define F(m) RPL_FIELD(profile_args, p.m)

static const rpl_option profile_options[] = {
    OPT_CALLBACK(0, "backend", F(run.backend), parse_backend, "NAME",
                 "rocprofv3 (AMD), cupti (NVIDIA) or auto (default: the GPU found; neither is "
                 "exit 77)"),
    OPT_STRING(0, "counters", F(run.counters), "SPEC",
               "roofline (FLOP and HBM-byte counters; the default where the architecture has a "
               "set), none, or counter names separated by commas; rocprofv3 runs PROGRAM once "
               "per pass; with counters PROGRAM runs once more without, for the times"),
    OPT_CALLBACK(0, "counter-dispatches", F(run.counter_dispatches), parse_count, "N|all",
                 "counters on the first N dispatches of each kernel (default " RPL_STRINGIFY(
                     RPL_COUNTER_DISPATCHES_DEFAULT) "), or on all; the others are not replayed"),
    OPT_CALLBACK(0, "counter-skip", F(run.counter_skip), parse_count, "K",
                 "leave out the first K dispatches of each kernel (warm-up) before the measured "
                 "ones (default 0)"),
    OPT_STRING(0, "arch", F(run.arch), "GFX",
               "architecture whose counter set to use (default: the first AMD GPU of the KFD "
               "topology)"),
    OPT_BOOL(0, "att", F(run.att), "rocprofv3 thread trace (files left in DIR/rocprofv3)"),
    OPT_CALLBACK(0, "kernel-timing", F(run.kernel_timing), parse_kernel_timing, "MODE",
                 "cupti trace-only runs: concurrent (default; CUPTI instruments kernels, several "
                 "percent slower when made of many short blocks) or serial (as ncu measures "
                 "them, but no two kernels overlap)"),
    OPT_STRING('o', "out", F(run.out_dir), "DIR", "output folder (default ./" DEFAULT_OUT ")"),
    OPT_STRING('k', "kernel", F(run.kernel_regex), "REGEX",
               "counters and thread trace only for matching kernels, and only they are "
               "summarised"),
    OPT_BOOL(0, "json", F(json), "print profile.json on stdout instead of the table"),
    OPT_BOOL(0, "no-rocprof", F(no_profiler),
             "with --trace: run nothing, analyse the inputs; with a program: run it without a "
             "profiler (wall-clock only)"),
    OPT_STRING_LIST(0, "trace", RPL_FIELD(profile_args, traces), offsetof(profile_args, p.ntraces),
                    "PATH",
                    "with --no-rocprof: a rocpd database, a profiler output folder (pass_N/ "
                    "merged) or a rocprofv3 *kernel_trace.csv"),
    OPT_END(),
};

static const rpl_command profile_command = {
    .name = "profile",
    .usage = "rocm-perf profile [--backend auto|rocprofv3|cupti]\n"
             "                  [--counters roofline|none|LIST] [--arch GFX] [--att]\n"
             "                  [--counter-dispatches N|all] [--counter-skip K]\n"
             "                  [--kernel-timing concurrent|serial]\n"
             "                  [--out DIR] [--kernel REGEX] [--json] [-v|-q]\n"
             "                  -- PROGRAM [ARGS...]\n"
             "rocm-perf profile PROGRAM [ARGS...] [--json] [--quiet] [...]\n"
             "rocm-perf profile --no-rocprof --trace DB|DIR|CSV [--trace ...]\n"
             "                  [--out DIR] [--kernel REGEX]\n"
             "rocm-perf profile PROGRAM [ARGS...] --no-rocprof",
    .description =
        "Run PROGRAM under a profiler, merge its counter passes, and analyse the result as\n"
        "'rocm-perf analyze --out DIR' does.  DIR keeps the profiler's own output\n"
        "(DIR/rocprofv3 or DIR/cupti, replaced on each run), the merged trace\n"
        "DIR/profile.db and the analysis files (DIR/profile.json, ...).",
    .options = profile_options,
    .notes = "Without '--', rocm-perf's long options may also follow PROGRAM at the end of\n"
             "the line (rocm-perf profile ./kernel --json) when PROGRAM's own arguments\n"
             "before them hold no option; short options after PROGRAM are PROGRAM's.",
    .exit_codes = "0 ok, 2 bad usage or input, 3 profiler missing, /dev/kfd not\n"
                  "accessible, the program failed or wrote nothing, 77 no GPU.",
    .flags = RPL_PARSE_STOP_AT_ARG | RPL_PARSE_TRAILING,
};

/* What follows the options: a program, its arguments, or nothing. */
static int check_program(profile_args *a, int argc, char **argv)
{
    if (a->p.no_profiler && argc > 0) {
        if (a->p.ntraces)
            return rpl_cli_usage_error("--no-rocprof: give --trace inputs or a program, not both");
        if (a->p.json)
            return rpl_cli_usage_error("--json: a program run with --no-rocprof has no kernel "
                                       "times to print");
        a->p.run.app_argv = (const char *const *)argv;
        return -1;
    }
    if (a->p.no_profiler) {
        if (a->p.ntraces == 0)
            return rpl_cli_usage_error("--no-rocprof needs at least one --trace, or a program");
        return -1;
    }
    if (a->p.ntraces)
        return rpl_cli_usage_error("--trace is read only with --no-rocprof");
    if (argc == 0) {
        rpl_parse_options_usage(&profile_command, a, stderr);
        return rpl_cli_usage_error("profile needs a program to run: rocm-perf profile -- PROGRAM");
    }
    a->p.run.app_argv = (const char *const *)argv;
    return -1;
}

/* Returns -1 when parsed, else the exit code to leave with. */
static int parse_args(profile_args *a, int argc, char **argv)
{
    int rc;

    a->p.run.out_dir = DEFAULT_OUT;
    a->p.run.probe_root = "";
    if ((rc = rpl_parse_options(&profile_command, a, &argc, &argv)) >= 0)
        return rc;
    a->p.traces = a->traces;
    return check_program(a, argc, argv);
}

int cmd_profile(int argc, char **argv)
{
    profile_args a = {0};
    int rc = parse_args(&a, argc, argv);

    if (rc < 0) {
        rc = rpl_profile_analyze_run(&a.p, stdout);
        rc = rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
    }
    free(a.traces);
    return rc;
}
