/*
 * rocm-perf report --suite DIR: the gate results of a whole ctest run, with
 * Holm's correction across their runtime comparisons.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "gate_cli.h"
#include "rpl/error.h"
#include "rpl/gate.h"
#include "rpl/strbuf.h"

static void suite_usage(FILE *out)
{
    fprintf(out, "usage: rocm-perf report --suite DIR [--alpha A] [--markdown F] [--junit F]\n"
                 "                         [--json F] [--html F [--baseline-dir BDIR]]\n"
                 "\n"
                 "Read every gate result JSON below DIR (e.g. a ctest run's --json files),\n"
                 "apply Holm's step-down correction at family-wise level A (default 0.05)\n"
                 "across their runtime comparisons, and print the suite summary.  A runtime\n"
                 "FAIL that is not significant across the suite becomes a WARN; deterministic\n"
                 "failures stay.  The summary gives the geometric mean of the runtime ratios\n"
                 "over all tests and kernels with a 95%% bootstrap interval over tests (also\n"
                 "in the Markdown, the JSON and as JUnit properties suite.geomean_*).\n"
                 "--html writes one self-contained page (inline CSS and SVG): per test the\n"
                 "verdicts, the GPU state and each kernel's baseline history with its\n"
                 "change points and this run; histories come from BDIR/<arch>/<test>.json,\n"
                 "else from each result's baseline file.\n"
                 "\n"
                 "Exit codes: 0 no test fails, 1 a test fails, 2 bad usage or input.\n");
}

int cmd_report_suite(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"suite", required_argument, NULL, 's'},
        {"alpha", required_argument, NULL, 'a'},
        {"markdown", required_argument, NULL, 'm'},
        {"junit", required_argument, NULL, 'j'},
        {"json", required_argument, NULL, 'J'},
        {"html", required_argument, NULL, 'H'},
        {"baseline-dir", required_argument, NULL, 'B'},
        RPL_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0},
    };
    rpl_suite_opts o = {.alpha = 0.05};
    rpl_strbuf out = RPL_STRBUF_INIT;
    bool failed = false;
    int opt, rc;

    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, RPL_CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        if (rpl_cli_common_option(opt))
            continue;
        switch (opt) {
        case 'h':
            suite_usage(stdout);
            return RPL_EXIT_OK;
        case 's':
            o.dir = optarg;
            break;
        case 'a':
            if (gate_parse_fraction("--alpha", optarg, 0, 1, false, &o.alpha))
                return RPL_EXIT_INPUT;
            break;
        case 'm':
            o.markdown = optarg;
            break;
        case 'j':
            o.junit = optarg;
            break;
        case 'J':
            o.json = optarg;
            break;
        case 'H':
            o.html = optarg;
            break;
        case 'B':
            o.baseline_dir = optarg;
            break;
        default:
            return rpl_cli_usage_error("report --suite: unknown option or missing value '%s'",
                                       argv[optind - 1]);
        }
    }
    if (!o.dir || optind < argc)
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
