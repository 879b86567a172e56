/* Options shared by `optimize` and `llm-optimize` (optimize_cli.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "optimize_cli.h"
#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/kernel_source.h"
#include "rpl/log.h"

void rpl_optimize_cli_init(rpl_optimize_cli *o)
{
    memset(o, 0, sizeof(*o));
    rpl_pipe_opts_init(&o->pipe);
    o->pipe.progress = rpl_optimize_cli_progress;
}

/* -I DIR and -D NAME[=V]: compiler words, in their order. */
static int add_cflag(void *value, const rpl_option *opt, const char *arg)
{
    rpl_optimize_cli *o = value;

    if (o->ncflags + 2 > RPL_OPTIMIZE_CLI_MAX_FLAGS)
        return rpl_cli_usage_error("too many -I/-D options");
    o->cflags[o->ncflags++] = opt->short_name == 'I' ? "-I" : "-D";
    o->cflags[o->ncflags++] = arg;
    return 0;
}

static int add_verify_run(void *value, const rpl_option *opt, const char *arg)
{
    rpl_optimize_cli *o = value;

    (void)opt;
    if (!arg[0] || strspn(arg, " \t") == strlen(arg))
        return rpl_cli_usage_error("--verify-run wants the program's arguments, not ''");
    if (o->nverify_runs == RPL_OPTIMIZE_CLI_MAX_VERIFY_RUNS)
        return rpl_cli_usage_error("at most %d --verify-run options",
                                   RPL_OPTIMIZE_CLI_MAX_VERIFY_RUNS);
    o->verify_runs[o->nverify_runs++] = arg;
    o->pipe.verify_runs = o->verify_runs;
    return 0;
}

#define F(m) RPL_FIELD(rpl_optimize_cli, m)

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
    OPT_NUMBER_SEEN(0, "rtol", F(pipe.rtol), RPL_SEEN(rpl_optimize_cli, have_rtol), 0, 1e6, "X",
                    "replay comparison tolerance, with --atol (default: per data type)"),
    OPT_NUMBER_SEEN(0, "atol", F(pipe.atol), RPL_SEEN(rpl_optimize_cli, have_atol), 0, 1e6, "X",
                    "absolute tolerance, with --rtol"),
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
    OPT_BOOL(0, "check-args", F(check_args), "parse the command line only, then exit 0"),
    OPT_END(),
};

/* Refuse a bad --build or --run before anything runs (also with --check-args). */
static int check_command(const char *text, const char *option, unsigned needs)
{
    char **words = NULL;

    if (text && rpl_pipe_command_words(&words, text, option, needs) != 0)
        return rpl_cli_usage_error("%s", rpl_error_last()->message);
    rpl_argv_free(words);
    return 0;
}

/* What rocm_perf_add_kernel_test accepts as a test name (cmake/RocmPerfLab.cmake). */
static bool is_test_name(const char *s)
{
    size_t n = strlen(s);

    return n > 0 && n <= 200 && s[0] != '.' && s[0] != '+' && s[0] != '-' &&
           strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-") == n;
}

int rpl_optimize_cli_finish(rpl_optimize_cli *o, const char *cmd, int nargs, char **args)
{
    int rc;

    if ((rc = check_command(o->build_cmd, "--build", RPL_PIPE_NEEDS_SRC | RPL_PIPE_NEEDS_OUT)) ||
        (rc = check_command(o->run_cmd, "--run", RPL_PIPE_NEEDS_OUT)))
        return rc;
    if (o->have_rtol != o->have_atol)
        return rpl_cli_usage_error("--rtol and --atol go together");
    o->pipe.have_tolerance = o->have_rtol;
    o->pipe.allow_dirty = o->allow_dirty;
    if (o->test && !is_test_name(o->test))
        return rpl_cli_usage_error("--test '%.200s' is not a test name (letters, digits and _ . + "
                                   "-, not starting with . + or -)",
                                   o->test);
    if (o->test) {
        if (!o->build_dir)
            return rpl_cli_usage_error("--test needs --build-dir DIR; see 'rocm-perf %s --help'",
                                       cmd);
        if (nargs > 0)
            return rpl_cli_usage_error("--test takes no SOURCE; unexpected '%s'", args[0]);
        if (o->build_cmd || o->run_cmd || o->compile_commands)
            return rpl_cli_usage_error("--test takes its commands from target.json: no --build, "
                                       "--run or --compile-commands");
    } else if (o->run_cmd) {
        if (nargs != 1)
            return rpl_cli_usage_error("with --run, %s takes SOURCE alone; see 'rocm-perf %s "
                                       "--help'",
                                       cmd, cmd);
        o->source = args[0];
    } else {
        if (nargs != 2)
            return rpl_cli_usage_error("%s needs SOURCE \"APP ARGS\" or --test NAME --build-dir "
                                       "DIR; see 'rocm-perf %s --help'",
                                       cmd, cmd);
        if (!args[1][strspn(args[1], " \t")])
            return rpl_cli_usage_error("\"APP ARGS\" is empty");
        o->source = args[0];
        o->app_args = args[1];
    }
    return 0;
}

/* Append copies of `n` words to the NULL-terminated *argv (NULL: none yet). */
static int append_words(char ***argv, const char *const *w, size_t n)
{
    size_t have = 0;
    char **v;

    while (*argv && (*argv)[have])
        have++;
    if (!(v = realloc(*argv, (have + n + 1) * sizeof(char *))))
        return rpl_error_oom();
    *argv = v;
    for (size_t i = 0; i < n; i++) {
        v[have + i + 1] = NULL;
        if (!(v[have + i] = strdup(w[i])))
            return rpl_error_oom();
    }
    v[have + n] = NULL;
    return 0;
}

/*
 * --compile-commands: the source's compile command, for libclang and, as its
 * include, macro and -std words, for the default compiler.
 */
static int compile_db_flags(rpl_pipe_target *t, const char *db)
{
    int rc = rpl_compile_db_find(db, t->source, &t->compile_words, &t->compile_dir);

    if (rc == RPL_ENOTFOUND)
        return rpl_error_set(RPL_EINPUT, "%s", rpl_error_last()->message);
    if (rc == 0 && !t->build_argv)
        rc =
            rpl_ks_compile_flags((const char *const *)t->compile_words, t->compile_dir, &t->cflags);
    return rc;
}

int rpl_optimize_cli_target(rpl_pipe_target **out, rpl_optimize_cli *o)
{
    rpl_pipe_target *t = NULL;
    const char *tool = getenv("ROCM_PERF_TOOL");
    int rc;

    if (o->test)
        rc = rpl_pipe_target_from_test(&t, o->build_dir, o->test);
    else
        rc = rpl_pipe_target_from_commands(&t, o->source, o->app_args, o->build_cmd, o->run_cmd);
    if (rc == 0 && o->compile_commands)
        rc = compile_db_flags(t, o->compile_commands);
    if (rc) {
        rpl_pipe_target_free(t);
        return rc;
    }
    if (o->kernel && !t->kernel && !(t->kernel = strdup(o->kernel)))
        rc = rpl_error_oom();
    if (rc == 0 && o->kernel && strcmp(t->kernel, o->kernel) != 0) {
        free(t->kernel);
        if (!(t->kernel = strdup(o->kernel)))
            rc = rpl_error_oom();
    }
    if (rc == 0 && o->seed_flag) {
        free(t->seed_flag);
        if (!(t->seed_flag = strdup(o->seed_flag)))
            rc = rpl_error_oom();
    }
    if (rc == 0 && o->ncflags)
        rc = append_words(&t->cflags, o->cflags, o->ncflags);
    if (rc == 0 && !t->build_dir && o->build_dir && !(t->build_dir = strdup(o->build_dir)))
        rc = rpl_error_oom();
    if (tool && tool[0])
        o->pipe.tool = tool;
    if (rc) {
        rpl_pipe_target_free(t);
        return rc;
    }
    *out = t;
    return 0;
}

void rpl_optimize_cli_progress(void *ctx, const char *candidate, rpl_pipe_step step,
                               const char *what)
{
    (void)ctx;
    if (rpl_log_get_level() < RPL_LOG_INFO)
        return;
    fprintf(stderr, "rocm-perf: %s%s[%s] %s\n", candidate ? candidate : "", candidate ? " " : "",
            rpl_pipe_step_name(step), what);
}
