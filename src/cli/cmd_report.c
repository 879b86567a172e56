/*
 * rocm-perf report: the critical-path DAG of rocpd traces as a summary, a
 * Chrome/Perfetto trace and an SVG timeline.  Given an `analyze --out`
 * folder it reads the databases listed in DIR/dag.json ("inputs") with the
 * DAG options recorded there; given databases it reads them directly.
 */
#include <errno.h>
#include <getopt.h>
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
} report_opts;

enum {
    OPT_PERFETTO = 256,
    OPT_SVG,
    OPT_ROOFLINE_SVG,
    OPT_INFER,
    OPT_GAP,
    OPT_TOLERANCE,
    OPT_TOP,
    OPT_HTML
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rocm-perf report DIR|DB... [--perfetto FILE] [--svg FILE] [--top N]\n"
            "                        [--roofline-svg FILE]\n"
            "                        [--infer auto|never|always] [--gap-ns N]\n"
            "                        [--tolerance-ns N] [-v|-q]\n"
            "       rocm-perf report --suite DIR [--alpha A] [--markdown F] [--junit F]\n"
            "       rocm-perf report --html FILE ARTIFACTS_DIR\n"
            "\n"
            "Critical path of rocpd traces: print a summary (critical path, span,\n"
            "dominant kernel, speedup ceiling, priorities) and write timelines.\n"
            "DIR is an 'analyze --out' folder: its dag.json names the databases and the\n"
            "DAG options; otherwise the arguments are the databases.\n"
            "\n"
            "  --perfetto FILE      Chrome/Perfetto trace JSON (open in ui.perfetto.dev)\n"
            "  --svg FILE           static SVG timeline, critical path highlighted\n"
            "  --roofline-svg FILE  log-log roofline chart of DIR/roofline.json (DIR only)\n"
            "  --top N              priorities in the summary (default %d)\n"
            "  --infer MODE         inferred edges: auto (only without record, wait or\n"
            "                       blocking regions), never, always\n"
            "  --gap-ns N           largest gap of an inferred edge (default %d)\n"
            "  --tolerance-ns N     how far a wait may point back in time (default %d)\n"
            "  --suite DIR          instead: the gate results of a whole ctest run below DIR,\n"
            "                       with Holm's correction (docs/CLI.md, 'report --suite')\n"
            "  --html FILE          with an optimize --artifacts folder: its candidates,\n"
            "                       decisions, evidence and commits as one HTML page\n"
            "  -v, --verbose        more detail on stderr (repeatable)\n"
            "  -q, --quiet          errors only\n"
            "  -h, --help           this help\n"
            "\n"
            "Exit codes: 0 ok, 2 bad usage or bad input (unreadable trace, dependency\n"
            "cycle, contradictory timestamps), 3 output could not be written.\n",
            DEFAULT_TOP, RPL_DAG_GAP_NS_DEFAULT, RPL_DAG_TOLERANCE_NS_DEFAULT);
}

static int parse_count(const char *opt, const char *arg, int64_t *out)
{
    char *end;
    long long v;

    errno = 0;
    v = strtoll(arg, &end, 10);
    if (errno || end == arg || *end || v < 0)
        return rpl_error_set(RPL_EUSAGE, "%s takes a count >= 0, not '%s'", opt, arg);
    *out = v;
    return 0;
}

/* Returns -1 when parsed, else the exit code to leave with. */
static int parse_args(report_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"perfetto", required_argument, NULL, OPT_PERFETTO},
        {"svg", required_argument, NULL, OPT_SVG},
        {"roofline-svg", required_argument, NULL, OPT_ROOFLINE_SVG},
        {"top", required_argument, NULL, OPT_TOP},
        {"infer", required_argument, NULL, OPT_INFER},
        {"gap-ns", required_argument, NULL, OPT_GAP},
        {"tolerance-ns", required_argument, NULL, OPT_TOLERANCE},
        {"html", required_argument, NULL, OPT_HTML},
        RPL_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    int opt;
    int64_t top = 0;

    o->run.top = DEFAULT_TOP;
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, RPL_CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        if (rpl_cli_common_option(opt))
            continue;
        switch (opt) {
        case 'h':
            usage(stdout);
            return RPL_EXIT_OK;
        case OPT_PERFETTO:
            o->run.perfetto = optarg;
            break;
        case OPT_SVG:
            o->run.svg = optarg;
            break;
        case OPT_ROOFLINE_SVG:
            o->run.roofline_svg = optarg;
            break;
        case OPT_HTML:
            o->html = optarg;
            break;
        case OPT_TOP:
            if (parse_count("--top", optarg, &top) || top > 100000)
                return rpl_cli_usage_error("--top takes a count from 0 to 100000, not '%s'",
                                           optarg);
            o->run.top = (size_t)top;
            break;
        case OPT_INFER:
            if (rpl_dag_infer_parse(optarg, &o->run.infer))
                return rpl_cli_fail(RPL_EUSAGE);
            o->run.has_infer = true;
            break;
        case OPT_GAP:
            if (parse_count("--gap-ns", optarg, &o->run.gap_ns))
                return rpl_cli_fail(RPL_EUSAGE);
            o->run.has_gap = true;
            break;
        case OPT_TOLERANCE:
            if (parse_count("--tolerance-ns", optarg, &o->run.tolerance_ns))
                return rpl_cli_fail(RPL_EUSAGE);
            o->run.has_tolerance = true;
            break;
        default:
            return rpl_cli_usage_error("report: unknown option or missing value '%s'; see "
                                       "'rocm-perf report --help'",
                                       argv[optind - 1]);
        }
    }
    if (optind == argc) {
        usage(stderr);
        return rpl_cli_usage_error("report needs an analyze --out folder or trace databases");
    }
    if (o->html && (argc - optind != 1 || o->run.perfetto || o->run.svg || o->run.roofline_svg))
        return rpl_cli_usage_error("report --html FILE takes one optimize --artifacts folder "
                                   "and no other output (or use --suite DIR --html FILE)");
    return -1;
}

/* What to read and how: from DIR/dag.json or from the arguments. */
int cmd_report(int argc, char **argv)
{
    report_opts o = {0};
    int rc;

    for (int i = 1; i < argc; i++) /* the gate results of a suite: cmd_report_suite.c */
        if (strcmp(argv[i], "--suite") == 0 || strncmp(argv[i], "--suite=", 8) == 0)
            return cmd_report_suite(argc, argv);
    rc = parse_args(&o, argc, argv);
    if (rc < 0 && o.html) {
        rc = rpl_optimize_html(o.html, argv[optind]);
        if (!rc)
            rpl_log_info("wrote %s", o.html);
        return rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
    }
    if (rc < 0) {
        o.run.inputs = (const char *const *)argv + optind;
        o.run.ninputs = (size_t)(argc - optind);
        rc = rpl_trace_report_run(&o.run, stdout);
        rc = rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
    }
    return rc;
}
