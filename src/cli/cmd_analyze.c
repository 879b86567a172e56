/*
 * rocm-perf analyze: read rocpd traces, summarise the kernels, print a table
 * or profile.json, and with --out write every analysis file into a folder.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "rpl/analyze.h"
#include "rpl/error.h"

#define DEFAULT_TOP RPL_ANALYZE_DEFAULT_TOP

typedef struct analyze_opts {
    rpl_analyze_opts run;
    const char **passes; /* storage for run.passes */
} analyze_opts;

#define F(m) RPL_FIELD(analyze_opts, run.m)

static const rpl_option analyze_options[] = {
    OPT_BOOL(0, "json", F(json), "print profile.json on stdout instead of the table"),
    OPT_STRING('o', "out", F(out_dir), "DIR",
               "create DIR and write profile.json, dag.json, roofline.json and analysis.json "
               "into it"),
    OPT_STRING('k', "kernel", F(kernel_regex), "REGEX",
               "only kernels whose name matches (POSIX extended regex)"),
    OPT_STRING(0, "helpers", F(helper_regex), "REGEX",
               "helper pattern (default: built in, or $ROCM_PERF_HELPERS)"),
    OPT_BOOL(0, "include-helpers", F(include_helpers), "keep runtime helper kernels"),
    OPT_UINT(0, "top", F(top), 0, INT_MAX, "N", "rows in the table (default {}, 0 for all)"),
    OPT_STRING_LIST(0, "counter-pass", RPL_FIELD(analyze_opts, passes),
                    offsetof(analyze_opts, run.npasses), "DB",
                    "merge the counters of another run's DB (repeatable)"),
    OPT_STRING(0, "att", F(att_dir), "DIR",
               "rocprofv3 thread-trace output (ui_output_agent_*) for analysis.json; unreadable "
               "parts are warned about"),
    OPT_STRING(0, "ceilings", F(ceilings_path), "FILE",
               "empirical roofline ceilings JSON instead of the product table "
               "(docs/schemas/ceilings.schema.json)"),
    OPT_END(),
};

static const rpl_command analyze_command = {
    .name = "analyze",
    .usage = "rocm-perf analyze DB|DIR... [--json] [--out DIR] [--kernel REGEX]\n"
             "                  [--helpers REGEX] [--include-helpers] [--top N]\n"
             "                  [--counter-pass DB]... [--att DIR] [--ceilings FILE]\n"
             "                  [-v|-q]",
    .description = "Summarise rocpd trace databases (several are merged, e.g. one per process):\n"
                   "per kernel the dispatch count, total/mean/median/min/max/p10/p90 duration,\n"
                   "CV and stability class (cv <= 0.05 stable, <= 0.10 moderate, else unstable)\n"
                   "and share of the selected GPU time.  Runtime helper kernels (__amd_rocclr_*,\n"
                   "hip*/hsa_* internals, memset/fill/copyBuffer kernels) are left out.  A DIR is\n"
                   "a 'rocm-perf profile' output folder (its profile.db) or a profiler's own\n"
                   "output folder (its databases, counter passes merged).",
    .options = analyze_options,
    .exit_codes = "0 ok, 2 bad usage, unreadable trace or no kernel selected,\n"
                  "3 output could not be written.",
};

/* Returns -1 when parsed, else the exit code to leave with. */
static int parse_args(analyze_opts *o, int argc, char **argv)
{
    int rc;

    o->run.top = DEFAULT_TOP;
    if ((rc = rpl_parse_options(&analyze_command, o, &argc, &argv)) >= 0)
        return rc;
    if (argc == 0)
        return rpl_cli_usage_error(
            "analyze needs at least one trace database; see 'rocm-perf analyze --help'");
    o->run.passes = o->passes;
    o->run.traces = (const char *const *)argv;
    o->run.ntraces = (size_t)argc;
    return -1;
}

int cmd_analyze(int argc, char **argv)
{
    analyze_opts o = {0};
    int rc = parse_args(&o, argc, argv);

    if (rc < 0) {
        rc = rpl_analyze_run(&o.run, stdout);
        rc = rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
    }
    free(o.passes);
    return rc;
}
