/* Options shared by `optimize` and `llm-optimize` (optimize_cli.h). */
#include <errno.h>
#include <math.h>
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

static int number(const char *arg, const char *opt, double lo, double hi, double *out)
{
    char *end;

    errno = 0;
    *out = strtod(arg, &end);
    if (errno || end == arg || *end || !isfinite(*out) || *out < lo || *out > hi)
        return rpl_cli_usage_error("%s wants a number from %g to %g, not '%s'", opt, lo, hi, arg);
    return 0;
}

static int whole(const char *arg, const char *opt, unsigned lo, unsigned hi, unsigned *out)
{
    double v;
    int rc = number(arg, opt, lo, hi, &v);

    if (rc == 0 && v != floor(v))
        return rpl_cli_usage_error("%s wants a whole number, not '%s'", opt, arg);
    *out = (unsigned)v;
    return rc;
}

static int seconds_ms(const char *arg, const char *opt, int *out)
{
    double v;
    int rc = number(arg, opt, 1, 86400, &v);

    *out = (int)(v * 1000);
    return rc;
}

int rpl_optimize_cli_option(rpl_optimize_cli *o, int opt, const char *arg)
{
    unsigned u = 0;
    double d = 0;
    int rc = 0;

    switch (opt) {
    case RPL_OPTCLI_TEST:
        o->test = arg;
        break;
    case RPL_OPTCLI_BUILD_DIR:
        o->build_dir = arg;
        break;
    case RPL_OPTCLI_KERNEL:
        o->kernel = arg;
        break;
    case RPL_OPTCLI_MIN_GAIN:
        rc = number(arg, "--min-gain", 0, 10, &o->pipe.min_gain);
        break;
    case RPL_OPTCLI_ARTIFACTS:
        o->pipe.artifacts = arg;
        break;
    case RPL_OPTCLI_AUTO_APPROVE:
        o->auto_approve = true;
        break;
    case RPL_OPTCLI_ALLOW_DIRTY:
        o->allow_dirty = o->pipe.allow_dirty = true;
        break;
    case RPL_OPTCLI_PUSH:
        o->push = arg;
        break;
    case RPL_OPTCLI_CHECK_ARGS:
        o->check_args = true;
        break;
    case RPL_OPTCLI_ROUNDS:
        rc = whole(arg, "--rounds", 2, 10000, &o->pipe.rounds);
        break;
    case RPL_OPTCLI_ITERATIONS:
        rc = whole(arg, "--iterations", 1, 100000, &o->pipe.iterations);
        break;
    case RPL_OPTCLI_SEEDS:
        rc = whole(arg, "--seeds", 0, 1000, &o->pipe.seeds);
        break;
    case RPL_OPTCLI_SEED_FLAG:
        o->seed_flag = arg;
        break;
    case RPL_OPTCLI_APP_TOLERANCE:
        rc = number(arg, "--app-tolerance", 0, 10, &o->pipe.app_tolerance);
        break;
    case RPL_OPTCLI_APP_ROUNDS:
        rc = whole(arg, "--app-rounds", 2, 1000, &o->pipe.app_rounds);
        break;
    case RPL_OPTCLI_NO_APP:
        o->pipe.skip_app = true;
        break;
    case RPL_OPTCLI_SHAPES:
        rc = whole(arg, "--shapes", 1, 8, &o->pipe.shapes);
        break;
    case RPL_OPTCLI_VERIFY_RUN:
        if (!arg[0] || strspn(arg, " \t") == strlen(arg))
            return rpl_cli_usage_error("--verify-run wants the program's arguments, not ''");
        if (o->nverify_runs == RPL_OPTIMIZE_CLI_MAX_VERIFY_RUNS)
            return rpl_cli_usage_error("at most %d --verify-run options",
                                       RPL_OPTIMIZE_CLI_MAX_VERIFY_RUNS);
        o->verify_runs[o->nverify_runs++] = arg;
        o->pipe.verify_runs = o->verify_runs;
        break;
    case RPL_OPTCLI_NO_COUNTERS:
        o->pipe.no_counters = true;
        break;
    case RPL_OPTCLI_TIMEOUT:
        rc = seconds_ms(arg, "--timeout", &o->pipe.run_timeout_ms);
        break;
    case RPL_OPTCLI_BUILD_TIMEOUT:
        rc = seconds_ms(arg, "--build-timeout", &o->pipe.build_timeout_ms);
        break;
    case RPL_OPTCLI_ARCH:
        o->pipe.arch = arg;
        break;
    case RPL_OPTCLI_RTOL:
    case RPL_OPTCLI_ATOL:
        rc = number(arg, opt == RPL_OPTCLI_RTOL ? "--rtol" : "--atol", 0, 1e6, &d);
        *(opt == RPL_OPTCLI_RTOL ? &o->have_rtol : &o->have_atol) = true;
        *(opt == RPL_OPTCLI_RTOL ? &o->pipe.rtol : &o->pipe.atol) = d;
        break;
    case RPL_OPTCLI_SEED:
        rc = whole(arg, "--seed", 1, 4000000000u, &u);
        o->pipe.seed = u;
        break;
    case RPL_OPTCLI_BUILD:
        o->build_cmd = arg;
        break;
    case RPL_OPTCLI_RUN:
        o->run_cmd = arg;
        break;
    case RPL_OPTCLI_COMPILE_DB:
        o->compile_commands = arg;
        break;
    case 'I':
    case 'D':
        if (o->ncflags + 2 > RPL_OPTIMIZE_CLI_MAX_FLAGS)
            return rpl_cli_usage_error("too many -I/-D options");
        o->cflags[o->ncflags++] = opt == 'I' ? "-I" : "-D";
        o->cflags[o->ncflags++] = arg;
        break;
    default:
        return 0;
    }
    return rc ? rc : 1;
}

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

void rpl_optimize_cli_usage(FILE *out)
{
    fputs("Target (one of):\n"
          "  SOURCE \"APP ARGS\"      a standalone kernel program built with hipcc/nvcc -O3;\n"
          "                         APP names the built program, ARGS are its arguments\n"
          "    --build \"CMD\"        how to build it instead: {src} the kernel source, {out}\n"
          "                         the program, {arch} the GPU architecture, {dir} the\n"
          "                         scratch tree (\"nvcc -O3 -arch={arch} -o {out} {src}\n"
          "                         main.cu -lcublas\"; quotes group words, no shell)\n"
          "    --run \"CMD\"          how to run it, instead of \"APP ARGS\" (\"{out} -n 4096\")\n"
          "    --compile-commands FILE\n"
          "                         SOURCE's flags from compile_commands.json (CMake, Bear)\n"
          "  --test NAME --build-dir DIR\n"
          "                         a perf test of rocm_perf_add_kernel_test\n"
          "                         (DIR/rocm-perf/NAME/target.json)\n"
          "\n"
          "Pipeline:\n"
          "  --kernel NAME          the kernel (default: ranked by critical-path impact)\n"
          "  --min-gain X           the speedup's lower CI bound must beat 1+X (default 0.02)\n"
          "  --rounds N             ABAB measurement rounds (default 10)\n"
          "  --iterations N         timed launches per replay and round (default 20)\n"
          "  --seeds N              fresh seeds for the program's own check (default 2)\n"
          "  --seed-flag FLAG       how the program takes a seed (seed form: none; tests:\n"
          "                         target.json's, usually --seed)\n"
          "  --app-tolerance X      rejected only when the whole-app critical path is\n"
          "                         confirmed more than X slower (CI lower bound; default 0.03)\n"
          "  --app-rounds N         whole-app profiles of original and candidate, ABAB\n"
          "                         (default 5 each)\n"
          "  --no-app               no whole-application profile (no ranking either)\n"
          "  --shapes K             replay-check candidates on the first K distinct dispatches\n"
          "                         of the kernel (scalar arguments or geometry differ;\n"
          "                         default 3, where the program makes them)\n"
          "  --verify-run \"ARGS\"    run the program's own check with ARGS too (other sizes;\n"
          "                         repeatable)\n"
          "  --no-counters          no counter pass over the replay (no roofline facts, no\n"
          "                         physical floor)\n"
          "  --rtol X --atol X      replay comparison tolerance (default: per data type)\n"
          "  --arch ARCH            the device code object's target (default: the snapshot's)\n"
          "  -I DIR, -D NAME[=V]    compiler include directories and macros\n"
          "  --timeout S            limit of each run (default 120); --build-timeout S (300)\n"
          "  --seed N               seed of the bootstrap and the fresh test seeds\n"
          "\n"
          "Results:\n"
          "  --artifacts DIR        reports, candidates, logs and the snapshot (default:\n"
          "                         BUILD_DIR or ./rocm-perf-optimize/<target>-<UTC>)\n"
          "  --auto-approve         commit accepted changes without asking (CI); without it\n"
          "                         a terminal is asked, and no terminal means a dry run\n"
          "  --allow-dirty          optimise a kernel file with uncommitted changes\n"
          "  --push REMOTE          push the branches made (a remote's name or URL)\n"
          "  --check-args           parse the command line only, then exit 0\n",
          out);
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
