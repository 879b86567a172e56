/*
 * rocm-perf optimize: the guarded optimizer without an LLM.  Profile the
 * program, rank kernels by critical-path impact, propose loop unrolling
 * under the guardrails (or take --candidate FILE), put each proposal
 * through the candidate pipeline (src/optimize/pipeline), and commit what
 * is accepted on rocm-perf/opt/<kernel>/<UTC> branches.  Thin: the options
 * are parsed here, the run is rpl_optimize_run (rpl/optimize.h).
 */
#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "optimize_cli.h"
#include "rpl/error.h"
#include "rpl/optimize.h"

typedef struct optimize_args {
    rpl_optimize_cli cli; /* first: rpl_optimize_cli_options name its fields */
    rpl_optimize_rules_opts rules;
} optimize_args;

_Static_assert(offsetof(optimize_args, cli) == 0, "the shared options' fields start the struct");

#define F(m) RPL_FIELD(optimize_args, m)

static const rpl_option optimize_options[] = {
    OPT_FILENAME(0, "candidate", F(rules.candidate), "FILE",
                 "the whole source with a changed kernel (by hand or by another tool) instead "
                 "of the unroll proposals"),
    OPT_UINT(0, "max-kernels", F(rules.max_kernels), 1, 100, "N",
             "ranked kernels to try (default {})"),
    OPT_INCLUDE(rpl_optimize_cli_options),
    OPT_END(),
};

static const rpl_command optimize_command = {
    .name = "optimize",
    .usage = "rocm-perf optimize SOURCE \"APP ARGS\" [options]\n"
             "rocm-perf optimize --test NAME --build-dir DIR [options]",
    .description =
        "Build the original in a scratch tree, profile it, rank its kernels by\n"
        "critical-path impact 1/(1-f), and for the best ones propose loop unrolling\n"
        "(factors 2-8, wave-aware; never across __syncthreads, atomics or dynamic shared\n"
        "memory).  Each proposal, or the kernel of --candidate FILE, is built, checked\n"
        "(same kernel symbol; no spills, no occupancy drop), replayed on a snapshot of the\n"
        "original with poisoned outputs and compared region by region, run through the\n"
        "program's own check on fresh seeds, measured against the original in\n"
        "alternating rounds, and kept only when its speedup's confidence bound beats\n"
        "--min-gain and the whole program does not get slower.  Accepted changes become\n"
        "commits on rocm-perf/opt/<kernel>/<UTC> branches; the checkout is never touched.",
    .options = optimize_options,
    .exit_codes = "0 the run finished (see the reports; with --candidate:\n"
                  "accepted), 1 --candidate rejected, 2 bad usage or input (a dirty source, an\n"
                  "original that does not build), 3 a tool is missing (compiler, libclang,\n"
                  "profiler), 77 no GPU.",
};

/* 1: --help printed; 0: parsed; else an exit code. */
static int parse(optimize_args *a, int argc, char **argv)
{
    int rc;

    rpl_optimize_opts_init(&a->cli.opts);
    a->rules.max_kernels = RPL_OPTIMIZE_DEFAULT_MAX_KERNELS;
    if ((rc = rpl_parse_options(&optimize_command, a, &argc, &argv)) >= 0)
        return rc == 0 ? 1 : rc;
    if ((rc = rpl_optimize_opts_finish(&a->cli.opts, "optimize", argc, argv)) != 0)
        return rpl_cli_fail(rc);
    return 0;
}

int cmd_optimize(int argc, char **argv)
{
    optimize_args a = {0};
    bool accepted = false;
    int rc = parse(&a, argc, argv);

    if (rc)
        return rc == 1 ? RPL_EXIT_OK : rc;
    if (a.cli.check_args)
        return RPL_EXIT_OK;
    if ((rc = rpl_optimize_run(&a.cli.opts, &a.rules, stdout, &accepted)) != 0)
        return rpl_cli_fail(rc);
    return a.rules.candidate && !accepted ? RPL_EXIT_FAIL : RPL_EXIT_OK;
}
