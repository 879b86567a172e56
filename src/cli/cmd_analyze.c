/*
 * rocm-perf analyze: read rocpd traces, summarise the kernels, print a table
 * or profile.json, and with --out write every analysis file into a folder.
 */
#include <errno.h>
#include <getopt.h>
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

enum {
    OPT_JSON = 256,
    OPT_HELPERS,
    OPT_INCLUDE_HELPERS,
    OPT_TOP,
    OPT_COUNTER_PASS,
    OPT_ATT,
    OPT_CEILINGS
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rocm-perf analyze DB|DIR... [--json] [--out DIR] [--kernel REGEX]\n"
            "                         [--helpers REGEX] [--include-helpers] [--top N]\n"
            "                         [--counter-pass DB]... [--att DIR] [--ceilings FILE]\n"
            "                         [-v|-q]\n"
            "\n"
            "Summarise rocpd trace databases (several are merged, e.g. one per process):\n"
            "per kernel the dispatch count, total/mean/median/min/max/p10/p90 duration,\n"
            "CV and stability class (cv <= 0.05 stable, <= 0.10 moderate, else unstable)\n"
            "and share of the selected GPU time.  Runtime helper kernels (__amd_rocclr_*,\n"
            "hip*/hsa_* internals, memset/fill/copyBuffer kernels) are left out.  A DIR is\n"
            "a 'rocm-perf profile' output folder (its profile.db) or a profiler's own\n"
            "output folder (its databases, counter passes merged).\n"
            "\n"
            "  --json               print profile.json on stdout instead of the table\n"
            "  -o, --out DIR        create DIR and write profile.json, dag.json,\n"
            "                       roofline.json and analysis.json into it\n"
            "  -k, --kernel REGEX   only kernels whose name matches (POSIX extended regex)\n"
            "  --helpers REGEX      helper pattern (default: built in, or $ROCM_PERF_HELPERS)\n"
            "  --include-helpers    keep runtime helper kernels\n"
            "  --top N              rows in the table (default %d, 0 for all)\n"
            "  --counter-pass DB    merge the counters of another run's DB (repeatable)\n"
            "  --att DIR            rocprofv3 thread-trace output (ui_output_agent_*) for\n"
            "                       analysis.json; unreadable parts are warned about\n"
            "  --ceilings FILE      empirical roofline ceilings JSON instead of the product\n"
            "                       table (docs/schemas/ceilings.schema.json)\n"
            "  -v, --verbose        more detail on stderr (repeatable)\n"
            "  -q, --quiet          errors only\n"
            "  -h, --help           this help\n"
            "\n"
            "Exit codes: 0 ok, 2 bad usage, unreadable trace or no kernel selected,\n"
            "3 output could not be written.\n",
            DEFAULT_TOP);
}

static int parse_top(const char *arg, size_t *top)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(arg, &end, 10);
    if (errno || end == arg || *end || v < 0 || v > INT_MAX)
        return rpl_cli_usage_error("--top takes a count >= 0, not '%s'", arg);
    *top = (size_t)v;
    return 0;
}

/* Returns -1 when parsed, else the exit code to leave with. */
static int parse_args(analyze_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"out", required_argument, NULL, 'o'},
        {"kernel", required_argument, NULL, 'k'},
        {"helpers", required_argument, NULL, OPT_HELPERS},
        {"include-helpers", no_argument, NULL, OPT_INCLUDE_HELPERS},
        {"top", required_argument, NULL, OPT_TOP},
        {"counter-pass", required_argument, NULL, OPT_COUNTER_PASS},
        {"att", required_argument, NULL, OPT_ATT},
        {"ceilings", required_argument, NULL, OPT_CEILINGS},
        RPL_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    int opt;

    o->run.top = DEFAULT_TOP;
    o->passes = calloc((size_t)argc, sizeof(*o->passes));
    if (!o->passes)
        return rpl_cli_fail(rpl_error_oom());
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "o:k:" RPL_CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        if (rpl_cli_common_option(opt))
            continue;
        switch (opt) {
        case 'h':
            usage(stdout);
            return RPL_EXIT_OK;
        case OPT_JSON:
            o->run.json = true;
            break;
        case 'o':
            o->run.out_dir = optarg;
            break;
        case 'k':
            o->run.kernel_regex = optarg;
            break;
        case OPT_HELPERS:
            o->run.helper_regex = optarg;
            break;
        case OPT_INCLUDE_HELPERS:
            o->run.include_helpers = true;
            break;
        case OPT_TOP:
            if (parse_top(optarg, &o->run.top))
                return RPL_EXIT_INPUT;
            break;
        case OPT_COUNTER_PASS:
            o->passes[o->run.npasses++] = optarg;
            break;
        case OPT_ATT:
            o->run.att_dir = optarg;
            break;
        case OPT_CEILINGS:
            o->run.ceilings_path = optarg;
            break;
        default:
            return rpl_cli_usage_error("analyze: unknown option or missing value '%s'; see "
                                       "'rocm-perf analyze --help'",
                                       argv[optind - 1]);
        }
    }
    if (optind == argc)
        return rpl_cli_usage_error(
            "analyze needs at least one trace database; see 'rocm-perf analyze --help'");
    o->run.passes = o->passes;
    o->run.traces = (const char *const *)argv + optind;
    o->run.ntraces = (size_t)(argc - optind);
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
