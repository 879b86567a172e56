/* The options `optimize` and `llm-optimize` share, and the target they name (rpl/optimize.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../pipeline/pipe_int.h"
#include "rpl/error.h"
#include "rpl/kernel_source.h"
#include "rpl/log.h"
#include "rpl/optimize.h"
#include "run_int.h"

void rpl_optimize_opts_init(rpl_optimize_opts *o)
{
    memset(o, 0, sizeof(*o));
    rpl_pipe_opts_init(&o->pipe);
    o->pipe.progress = rpl_optimize_progress;
}

int rpl_optimize_opts_add_cflag(rpl_optimize_opts *o, const char *flag, const char *value)
{
    if (o->ncflags + 2 > RPL_OPTIMIZE_MAX_FLAGS)
        return rpl_error_set(RPL_EUSAGE, "too many -I/-D options");
    o->cflags[o->ncflags++] = flag;
    o->cflags[o->ncflags++] = value;
    return 0;
}

int rpl_optimize_opts_add_verify_run(rpl_optimize_opts *o, const char *args)
{
    if (!args[0] || strspn(args, " \t") == strlen(args))
        return rpl_error_set(RPL_EUSAGE, "--verify-run wants the program's arguments, not ''");
    if (o->nverify_runs == RPL_OPTIMIZE_MAX_VERIFY_RUNS)
        return rpl_error_set(RPL_EUSAGE, "at most %d --verify-run options",
                             RPL_OPTIMIZE_MAX_VERIFY_RUNS);
    o->verify_runs[o->nverify_runs++] = args;
    o->pipe.verify_runs = o->verify_runs;
    return 0;
}

/* Refuse a bad --build or --run before anything runs (also with --check-args). */
static int check_command(const char *text, const char *option, unsigned needs)
{
    char **words = NULL;
    int rc = text ? rpl_pipe_command_words(&words, text, option, needs) : 0;

    pipe_argv_free(words);
    return rc;
}

/* What rocm_perf_add_kernel_test accepts as a test name (cmake/RocmPerfLab.cmake). */
static bool is_test_name(const char *s)
{
    size_t n = strlen(s);

    return n > 0 && n <= 200 && s[0] != '.' && s[0] != '+' && s[0] != '-' &&
           strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.+-") == n;
}

/* With --test: no SOURCE, no commands of our own. */
static int check_test_form(const rpl_optimize_opts *o, const char *cmd, int nargs,
                           char *const *args)
{
    if (!o->build_dir)
        return rpl_error_set(RPL_EUSAGE, "--test needs --build-dir DIR; see 'rocm-perf %s --help'",
                             cmd);
    if (nargs > 0)
        return rpl_error_set(RPL_EUSAGE, "--test takes no SOURCE; unexpected '%s'", args[0]);
    if (o->build_cmd || o->run_cmd || o->compile_commands)
        return rpl_error_set(RPL_EUSAGE, "--test takes its commands from target.json: no --build, "
                                         "--run or --compile-commands");
    return 0;
}

int rpl_optimize_opts_finish(rpl_optimize_opts *o, const char *cmd, int nargs, char *const *args)
{
    int rc;

    if ((rc = check_command(o->build_cmd, "--build", RPL_PIPE_NEEDS_SRC | RPL_PIPE_NEEDS_OUT)) ||
        (rc = check_command(o->run_cmd, "--run", RPL_PIPE_NEEDS_OUT)))
        return rc;
    if (o->have_rtol != o->have_atol)
        return rpl_error_set(RPL_EUSAGE, "--rtol and --atol go together");
    o->pipe.have_tolerance = o->have_rtol;
    o->pipe.allow_dirty = o->allow_dirty;
    if (o->test && !is_test_name(o->test))
        return rpl_error_set(RPL_EUSAGE,
                             "--test '%.200s' is not a test name (letters, digits and _ . + "
                             "-, not starting with . + or -)",
                             o->test);
    if (o->test)
        return check_test_form(o, cmd, nargs, args);
    if (o->run_cmd) {
        if (nargs != 1)
            return rpl_error_set(RPL_EUSAGE,
                                 "with --run, %s takes SOURCE alone; see 'rocm-perf %s --help'",
                                 cmd, cmd);
        o->source = args[0];
        return 0;
    }
    if (nargs != 2)
        return rpl_error_set(RPL_EUSAGE,
                             "%s needs SOURCE \"APP ARGS\" or --test NAME --build-dir DIR; see "
                             "'rocm-perf %s --help'",
                             cmd, cmd);
    if (!args[1][strspn(args[1], " \t")])
        return rpl_error_set(RPL_EUSAGE, "\"APP ARGS\" is empty");
    o->source = args[0];
    o->app_args = args[1];
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

/* `*field` becomes a copy of `value`. */
static int replace(char **field, const char *value)
{
    char *copy = strdup(value);

    if (!copy)
        return rpl_error_oom();
    free(*field);
    *field = copy;
    return 0;
}

/* What the options change in a target: kernel, seed flag, -I/-D words, build tree. */
static int apply_opts(rpl_pipe_target *t, const rpl_optimize_opts *o)
{
    size_t n = 0;
    int rc = 0;

    if (o->kernel && (!t->kernel || strcmp(t->kernel, o->kernel) != 0))
        rc = replace(&t->kernel, o->kernel);
    if (rc == 0 && o->seed_flag)
        rc = replace(&t->seed_flag, o->seed_flag);
    while (t->cflags && t->cflags[n])
        n++;
    for (size_t i = 0; rc == 0 && i < o->ncflags; i++)
        rc = pipe_argv_push(&t->cflags, &n, o->cflags[i]);
    if (rc == 0 && !t->build_dir && o->build_dir)
        rc = replace(&t->build_dir, o->build_dir);
    return rc;
}

int optimize_run_open(optimize_run *run)
{
    const rpl_optimize_opts *o = run->o;
    const char *tool = getenv("ROCM_PERF_TOOL");
    rpl_pipe_opts po = o->pipe;
    int rc;

    if (o->test)
        rc = rpl_pipe_target_from_test(&run->target, o->build_dir, o->test);
    else
        rc = rpl_pipe_target_from_commands(&run->target, o->source, o->app_args, o->build_cmd,
                                           o->run_cmd);
    if (rc == 0 && o->compile_commands)
        rc = compile_db_flags(run->target, o->compile_commands);
    if (rc == 0)
        rc = apply_opts(run->target, o);
    if (rc)
        return rc;
    if (tool && tool[0])
        po.tool = tool;
    return rpl_pipe_open(&run->pipe, run->target, &po);
}

void optimize_run_close(optimize_run *run)
{
    rpl_session_free(run->session);
    rpl_pipe_close(run->pipe);
    rpl_pipe_target_free(run->target);
}

void rpl_optimize_progress(void *ctx, const char *candidate, rpl_pipe_step step, const char *what)
{
    (void)ctx;
    if (rpl_log_get_level() < RPL_LOG_INFO)
        return;
    fprintf(stderr, "rocm-perf: %s%s[%s] %s\n", candidate ? candidate : "", candidate ? " " : "",
            rpl_pipe_step_name(step), what);
}
