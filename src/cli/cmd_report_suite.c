/*
 * rocm-perf report --suite DIR: the gate results of a whole ctest run, with
 * Holm's correction across their runtime comparisons.
 */
#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "rpl/error.h"
#include "rpl/gate.h"
#include "rpl/strbuf.h"

#define S(m) RPL_FIELD(rpl_suite_opts, m)

static const rpl_option suite_options[] = {
    OPT_STRING(0, "suite", S(dir), "DIR", "the gate result JSON files below DIR"),
    OPT_NUMBER_OPEN(0, "alpha", S(alpha), 0, 1, "A", "family-wise level (default {})"),
    OPT_STRING(0, "markdown", S(markdown), "F", "write the suite summary as Markdown"),
    OPT_STRING(0, "junit", S(junit), "F", "write the suite as JUnit"),
    OPT_STRING(0, "json", S(json), "F", "write the suite summary as JSON"),
    OPT_STRING(0, "html", S(html), "F", "write the HTML page"),
    OPT_STRING(0, "baseline-dir", S(baseline_dir), "BDIR", "the baselines' histories for --html"),
    OPT_END(),
};

static const rpl_command suite_command = {
    .name = "report --suite",
    .usage = "rocm-perf report --suite DIR [--alpha A] [--markdown F] [--junit F]\n"
             "                 [--json F] [--html F [--baseline-dir BDIR]]",
    .description = "Read every gate result JSON below DIR (e.g. a ctest run's --json files),\n"
                   "apply Holm's step-down correction at family-wise level A (default 0.05)\n"
                   "across their runtime comparisons, and print the suite summary.  A runtime\n"
                   "FAIL that is not significant across the suite becomes a WARN; deterministic\n"
                   "failures stay.  The summary gives the geometric mean of the runtime ratios\n"
                   "over all tests and kernels with a 95% bootstrap interval over tests (also\n"
                   "in the Markdown, the JSON and as JUnit properties suite.geomean_*).\n"
                   "--html writes one self-contained page (inline CSS and SVG): per test the\n"
                   "verdicts, the GPU state and each kernel's baseline history with its\n"
                   "change points and this run; histories come from BDIR/<arch>/<test>.json,\n"
                   "else from each result's baseline file.",
    .options = suite_options,
    .exit_codes = "0 no test fails, 1 a test fails, 2 bad usage or input.",
};

int cmd_report_suite(int argc, char **argv)
{
    rpl_suite_opts o = {.alpha = 0.05};
    rpl_strbuf out = RPL_STRBUF_INIT;
    bool failed = false;
    int rc;

    if ((rc = rpl_parse_options(&suite_command, &o, &argc, &argv)) >= 0)
        return rc;
    if (!o.dir || argc > 0)
        return rpl_cli_usage_error("usage: rocm-perf report --suite DIR [--alpha A] "
                                   "[--markdown F] [--junit F] [--json F] [--html F]");
    rc = rpl_gate_suite_report(&out, &failed, &o);
    if (rc == 0)
        fputs(rpl_strbuf_cstr(&out), stdout);
    rpl_strbuf_release(&out);
    if (rc != 0)
        return rpl_cli_fail(rc);
    return failed ? RPL_EXIT_FAIL : RPL_EXIT_OK;
}
