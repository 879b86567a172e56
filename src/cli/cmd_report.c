/*
 * rocm-perf report: the critical-path DAG of rocpd traces as a summary, a
 * Chrome/Perfetto trace and an SVG timeline.  Given an `analyze --out`
 * folder it reads the databases listed in DIR/dag.json ("inputs") with the
 * DAG options recorded there; given databases it reads them directly.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/report.h"
#include "rpl/trace_report.h"

#define DEFAULT_TOP 10

typedef struct report_opts {
    rpl_trace_report_opts run;
    const char *html;
    const char *suite; /* in the help only: --suite is cmd_report_suite's */
} report_opts;

static int infer_option(void *value, const rpl_option *opt, const char *arg)
{
    (void)opt;
    return rpl_dag_infer_parse(arg, value) ? rpl_cli_fail(RPL_EUSAGE) : 0;
}

#define F(m) RPL_FIELD(report_opts, m)

static const rpl_option report_options[] = {
    OPT_STRING(0, "perfetto", F(run.perfetto), "FILE",
               "Chrome/Perfetto trace JSON (open in ui.perfetto.dev)"),
    OPT_STRING(0, "svg", F(run.svg), "FILE", "static SVG timeline, critical path highlighted"),
    OPT_STRING(0, "roofline-svg", F(run.roofline_svg), "FILE",
               "log-log roofline chart of DIR/roofline.json (DIR only)"),
    OPT_UINT(0, "top", F(run.top), 0, 100000, "N", "priorities in the summary (default {})"),
    {.type = RPL_OPT_CALLBACK,
     .long_name = "infer",
     F(run.infer),
     .fn = infer_option,
     .argh = "MODE",
     .help = "inferred edges: auto (only without record, wait or blocking regions), never, "
             "always",
     RPL_SEEN(report_opts, run.has_infer)},
    OPT_UINT_SEEN(
        0, "gap-ns", F(run.gap_ns), RPL_SEEN(report_opts, run.has_gap), 0, 1e18, "N",
        "largest gap of an inferred edge (default " RPL_STRINGIFY(RPL_DAG_GAP_NS_DEFAULT) ")"),
    OPT_UINT_SEEN(0, "tolerance-ns", F(run.tolerance_ns), RPL_SEEN(report_opts, run.has_tolerance),
                  0, 1e18, "N",
                  "how far a wait may point back in time (default " RPL_STRINGIFY(
                      RPL_DAG_TOLERANCE_NS_DEFAULT) ")"),
    OPT_STRING(0, "suite", F(suite), "DIR",
               "instead: the gate results of a whole ctest run below DIR, with Holm's correction "
               "(docs/CLI.md, 'report --suite')"),
    OPT_STRING(0, "html", F(html), "FILE",
               "with an optimize --artifacts folder: its candidates, decisions, evidence and "
               "commits as one HTML page"),
    OPT_END(),
};

static const rpl_command report_command = {
    .name = "report",
    .usage = "rocm-perf report DIR|DB... [--perfetto FILE] [--svg FILE] [--top N]\n"
             "                 [--roofline-svg FILE]\n"
             "                 [--infer auto|never|always] [--gap-ns N]\n"
             "                 [--tolerance-ns N] [-v|-q]\n"
             "rocm-perf report --suite DIR [--alpha A] [--markdown F] [--junit F]\n"
             "rocm-perf report --html FILE ARTIFACTS_DIR",
    .description = "Critical path of rocpd traces: print a summary (critical path, span,\n"
                   "dominant kernel, speedup ceiling, priorities) and write timelines.\n"
                   "DIR is an 'analyze --out' folder: its dag.json names the databases and the\n"
                   "DAG options; otherwise the arguments are the databases.",
    .options = report_options,
    .exit_codes = "0 ok, 2 bad usage or bad input (unreadable trace, dependency\n"
                  "cycle, contradictory timestamps), 3 output could not be written.",
};

/* Returns -1 when parsed, with the arguments left in *argc, *argv; else the exit code. */
static int parse_args(report_opts *o, int *argc, char ***argv)
{
    int rc;

    o->run.top = DEFAULT_TOP;
    if ((rc = rpl_parse_options(&report_command, o, argc, argv)) >= 0)
        return rc;
    if (*argc == 0) {
        rpl_parse_options_usage(&report_command, o, stderr);
        return rpl_cli_usage_error("report needs an analyze --out folder or trace databases");
    }
    if (o->html && (*argc != 1 || o->run.perfetto || o->run.svg || o->run.roofline_svg))
        return rpl_cli_usage_error("report --html FILE takes one optimize --artifacts folder "
                                   "and no other output (or use --suite DIR --html FILE)");
    return -1;
}

int cmd_report(int argc, char **argv)
{
    report_opts o = {0};
    int rc;

    for (int i = 1; i < argc; i++) /* the gate results of a suite: cmd_report_suite.c */
        if (strcmp(argv[i], "--suite") == 0 || strncmp(argv[i], "--suite=", 8) == 0)
            return cmd_report_suite(argc, argv);
    rc = parse_args(&o, &argc, &argv);
    if (rc < 0 && o.html) {
        rc = rpl_optimize_html(o.html, argv[0]);
        if (!rc)
            rpl_log_info("wrote %s", o.html);
        return rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
    }
    if (rc < 0) {
        o.run.inputs = (const char *const *)argv;
        o.run.ninputs = (size_t)argc;
        rc = rpl_trace_report_run(&o.run, stdout);
        rc = rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
    }
    return rc;
}
