/* Options shared by `optimize` and `llm-optimize` (optimize_cli.h). */
#include "cli.h"
#include "optimize_cli.h"

/* -I DIR and -D NAME[=V]: compiler words, in their order. */
static int add_cflag(void *value, const rpl_option *opt, const char *arg)
{
    rpl_optimize_cli *c = value;
    int rc = rpl_optimize_opts_add_cflag(&c->opts, opt->short_name == 'I' ? "-I" : "-D", arg);

    return rc ? rpl_cli_fail(rc) : 0;
}

static int add_verify_run(void *value, const rpl_option *opt, const char *arg)
{
    rpl_optimize_cli *c = value;
    int rc = rpl_optimize_opts_add_verify_run(&c->opts, arg);

    (void)opt;
    return rc ? rpl_cli_fail(rc) : 0;
}

#define F(m) RPL_FIELD(rpl_optimize_cli, opts.m)

const rpl_option rpl_optimize_cli_options[] = {
    OPT_GROUP("Target (one of):\n"
              "  SOURCE \"APP ARGS\"       a standalone kernel program built with hipcc/nvcc\n"
              "                          -O3; APP names the built program, ARGS are its\n"
              "                          arguments"),
    OPT_STRING(0, "build", F(build_cmd), "\"CMD\"",
               "how to build it instead: {src} the kernel source, {out} the program, {arch} the "
               "GPU architecture, {dir} the scratch tree (\"nvcc -O3 -arch={arch} -o {out} {src} "
               "main.cu -lcublas\"; quotes group words, no shell)"),
    OPT_STRING(0, "run", F(run_cmd), "\"CMD\"",
               "how to run it, instead of \"APP ARGS\" (\"{out} -n 4096\")"),
    OPT_STRING(0, "compile-commands", F(compile_commands), "FILE",
               "SOURCE's flags from compile_commands.json (CMake, Bear)"),
    OPT_STRING(0, "test", F(test), "NAME",
               "with --build-dir DIR: a perf test of rocm_perf_add_kernel_test "
               "(DIR/rocm-perf/NAME/target.json)"),
    OPT_STRING(0, "build-dir", F(build_dir), "DIR", "the build tree of --test"),
    OPT_GROUP("Pipeline:"),
    OPT_STRING(0, "kernel", F(kernel), "NAME",
               "the kernel (default: ranked by critical-path impact)"),
    OPT_NUMBER(0, "min-gain", F(pipe.min_gain), 0, 10, "X",
               "the speedup's lower CI bound must beat 1+X (default {})"),
    OPT_UINT(0, "rounds", F(pipe.rounds), 2, 10000, "N", "ABAB measurement rounds (default {})"),
    OPT_UINT(0, "iterations", F(pipe.iterations), 1, 100000, "N",
             "timed launches per replay and round (default {})"),
    OPT_UINT(0, "seeds", F(pipe.seeds), 0, 1000, "N",
             "fresh seeds for the program's own check (default {})"),
    OPT_STRING(0, "seed-flag", F(seed_flag), "FLAG",
               "how the program takes a seed (seed form: none; tests: target.json's, usually "
               "--seed)"),
    OPT_NUMBER(0, "app-tolerance", F(pipe.app_tolerance), 0, 10, "X",
               "rejected only when the whole-app critical path is confirmed more than X slower "
               "(CI lower bound; default {})"),
    OPT_UINT(0, "app-rounds", F(pipe.app_rounds), 2, 1000, "N",
             "whole-app profiles of original and candidate, ABAB (default {} each)"),
    OPT_BOOL(0, "no-app", F(pipe.skip_app), "no whole-application profile (no ranking either)"),
    OPT_UINT(0, "shapes", F(pipe.shapes), 1, 8, "K",
             "replay-check candidates on the first K distinct dispatches of the kernel (scalar "
             "arguments or geometry differ; default {}, where the program makes them)"),
    OPT_CALLBACK(0, "verify-run", RPL_WHOLE_STRUCT, add_verify_run, "\"ARGS\"",
                 "run the program's own check with ARGS too (other sizes; repeatable)"),
    OPT_BOOL(0, "no-counters", F(pipe.no_counters),
             "no counter pass over the replay (no roofline facts, no physical floor)"),
    OPT_NUMBER_SEEN(0, "rtol", F(pipe.rtol), RPL_SEEN(rpl_optimize_cli, opts.have_rtol), 0, 1e6,
                    "X", "replay comparison tolerance, with --atol (default: per data type)"),
    OPT_NUMBER_SEEN(0, "atol", F(pipe.atol), RPL_SEEN(rpl_optimize_cli, opts.have_atol), 0, 1e6,
                    "X", "absolute tolerance, with --rtol"),
    OPT_STRING(0, "arch", F(pipe.arch), "ARCH",
               "the device code object's target (default: the snapshot's)"),
    OPT_CALLBACK('I', NULL, RPL_WHOLE_STRUCT, add_cflag, "DIR", "compiler include directory"),
    OPT_CALLBACK('D', NULL, RPL_WHOLE_STRUCT, add_cflag, "NAME[=V]", "compiler macro"),
    OPT_DURATION(0, "timeout", F(pipe.run_timeout_ms), 1, 86400, "S",
                 "limit of each run (default {})"),
    OPT_DURATION(0, "build-timeout", F(pipe.build_timeout_ms), 1, 86400, "S",
                 "limit of each build (default {})"),
    OPT_UINT(0, "seed", F(pipe.seed), 1, 4000000000.0, "N",
             "seed of the bootstrap and the fresh test seeds"),
    OPT_GROUP("Results:"),
    OPT_STRING(0, "artifacts", F(pipe.artifacts), "DIR",
               "reports, candidates, logs and the snapshot (default: BUILD_DIR or "
               "./rocm-perf-optimize/<target>-<UTC>)"),
    OPT_BOOL(0, "auto-approve", F(auto_approve),
             "commit accepted changes without asking (CI); without it a terminal is asked, and "
             "no terminal means a dry run"),
    OPT_BOOL(0, "allow-dirty", F(allow_dirty), "optimise a kernel file with uncommitted changes"),
    OPT_STRING(0, "push", F(push), "REMOTE", "push the branches made (a remote's name or URL)"),
    OPT_BOOL(0, "check-args", RPL_FIELD(rpl_optimize_cli, check_args),
             "parse the command line only, then exit 0"),
    OPT_END(),
};
