/*
 * rocm-perf profile: run a program under rocprofv3 (AMD) or the CUPTI
 * recorder (NVIDIA), merge the counter passes, write the merged trace as
 * DIR/profile.db and analyse it exactly as `rocm-perf analyze --out DIR`.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rpl/analyze.h"
#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/log.h"
#include "rpl/profile_backend.h"
#include "rpl/report.h"
#include "rpl/rocpd.h"
#include "rpl/spawn.h"

#define DEFAULT_OUT "rocm-perf-out"

typedef struct profile_args {
    rpl_profile_opts opts;
    bool no_rocprof;
    bool json;           /* print profile.json on stdout instead of the table */
    const char **traces; /* --trace */
    size_t ntraces;
} profile_args;

/* A count for --counter-skip (0 allowed) or --counter-dispatches (1 or more, or "all"). */
static int parse_count(void *value, const rpl_option *opt, const char *arg)
{
    bool all_ok = strcmp(opt->long_name, "counter-dispatches") == 0;
    char *end;
    unsigned long long v;

    if (all_ok && strcmp(arg, "all") == 0) {
        *(uint32_t *)value = RPL_COUNTER_DISPATCHES_ALL;
        return 0;
    }
    errno = 0;
    v = strtoull(arg, &end, 10);
    if (!arg[0] || *end || arg[0] == '-' || errno || v >= UINT32_MAX || (all_ok && v == 0))
        return rpl_cli_usage_error("--%s: '%s' is not %s", opt->long_name, arg,
                                   all_ok ? "a count of 1 or more, nor 'all'" : "a count");
    *(uint32_t *)value = (uint32_t)v;
    return 0;
}

static int parse_backend(void *value, const rpl_option *opt, const char *arg)
{
    (void)opt;
    return rpl_backend_parse(value, arg) ? rpl_cli_fail(RPL_EUSAGE) : 0;
}

static int parse_kernel_timing(void *value, const rpl_option *opt, const char *arg)
{
    (void)opt;
    return rpl_kernel_timing_parse(value, arg) ? rpl_cli_fail(RPL_EUSAGE) : 0;
}

#define F(m) RPL_FIELD(profile_args, m)

static const rpl_option profile_options[] = {
    OPT_CALLBACK(0, "backend", F(opts.backend), parse_backend, "NAME",
                 "rocprofv3 (AMD), cupti (NVIDIA) or auto (default: the GPU found; neither is "
                 "exit 77)"),
    OPT_STRING(0, "counters", F(opts.counters), "SPEC",
               "roofline (FLOP and HBM-byte counters; the default where the architecture has a "
               "set), none, or counter names separated by commas; rocprofv3 runs PROGRAM once "
               "per pass; with counters PROGRAM runs once more without, for the times"),
    OPT_CALLBACK(0, "counter-dispatches", F(opts.counter_dispatches), parse_count, "N|all",
                 "counters on the first N dispatches of each kernel (default " RPL_STRINGIFY(
                     RPL_COUNTER_DISPATCHES_DEFAULT) "), or on all; the others are not replayed"),
    OPT_CALLBACK(0, "counter-skip", F(opts.counter_skip), parse_count, "K",
                 "leave out the first K dispatches of each kernel (warm-up) before the measured "
                 "ones (default 0)"),
    OPT_STRING(0, "arch", F(opts.arch), "GFX",
               "architecture whose counter set to use (default: the first AMD GPU of the KFD "
               "topology)"),
    OPT_BOOL(0, "att", F(opts.att), "rocprofv3 thread trace (files left in DIR/rocprofv3)"),
    OPT_CALLBACK(0, "kernel-timing", F(opts.kernel_timing), parse_kernel_timing, "MODE",
                 "cupti trace-only runs: concurrent (default; CUPTI instruments kernels, several "
                 "percent slower when made of many short blocks) or serial (as ncu measures "
                 "them, but no two kernels overlap)"),
    OPT_STRING('o', "out", F(opts.out_dir), "DIR", "output folder (default ./" DEFAULT_OUT ")"),
    OPT_STRING('k', "kernel", F(opts.kernel_regex), "REGEX",
               "counters and thread trace only for matching kernels, and only they are "
               "summarised"),
    OPT_BOOL(0, "json", F(json), "print profile.json on stdout instead of the table"),
    OPT_BOOL(0, "no-rocprof", F(no_rocprof),
             "with --trace: run nothing, analyse the inputs; with a program: run it without a "
             "profiler (wall-clock only)"),
    OPT_STRING_LIST(0, "trace", F(traces), offsetof(profile_args, ntraces), "PATH",
                    "with --no-rocprof: a rocpd database, a profiler output folder (pass_N/ "
                    "merged) or a rocprofv3 *kernel_trace.csv"),
    OPT_END(),
};

static const rpl_command profile_command = {
    .name = "profile",
    .usage = "rocm-perf profile [--backend auto|rocprofv3|cupti]\n"
             "                  [--counters roofline|none|LIST] [--arch GFX] [--att]\n"
             "                  [--counter-dispatches N|all] [--counter-skip K]\n"
             "                  [--kernel-timing concurrent|serial]\n"
             "                  [--out DIR] [--kernel REGEX] [--json] [-v|-q]\n"
             "                  -- PROGRAM [ARGS...]\n"
             "rocm-perf profile PROGRAM [ARGS...] [--json] [--quiet] [...]\n"
             "rocm-perf profile --no-rocprof --trace DB|DIR|CSV [--trace ...]\n"
             "                  [--out DIR] [--kernel REGEX]\n"
             "rocm-perf profile PROGRAM [ARGS...] --no-rocprof",
    .description =
        "Run PROGRAM under a profiler, merge its counter passes, and analyse the result as\n"
        "'rocm-perf analyze --out DIR' does.  DIR keeps the profiler's own output\n"
        "(DIR/rocprofv3 or DIR/cupti, replaced on each run), the merged trace\n"
        "DIR/profile.db and the analysis files (DIR/profile.json, ...).",
    .options = profile_options,
    .notes = "Without '--', rocm-perf's long options may also follow PROGRAM at the end of\n"
             "the line (rocm-perf profile ./kernel --json) when PROGRAM's own arguments\n"
             "before them hold no option; short options after PROGRAM are PROGRAM's.",
    .exit_codes = "0 ok, 2 bad usage or input, 3 profiler missing, /dev/kfd not\n"
                  "accessible, the program failed or wrote nothing, 77 no GPU.",
    .flags = RPL_PARSE_STOP_AT_ARG | RPL_PARSE_KEEP_DASHDASH,
};

/* `arg` is one of our long options ("--json", "--out=D"). */
static bool is_our_long_option(const char *arg)
{
    if (strncmp(arg, "--", 2) != 0 || !arg[2])
        return false;
    arg += 2;
    for (const rpl_option *o = profile_options; o->type != RPL_OPT_END; o++) {
        size_t n = strlen(o->long_name);
        if (strncmp(arg, o->long_name, n) == 0 && (arg[n] == '\0' || arg[n] == '='))
            return true;
    }
    return false;
}

/*
 * The seed's spelling `rocm-perf profile ./kernel --json`: with no "--", our
 * long options after PROGRAM are ours when they end the command line and
 * PROGRAM's own arguments before them hold no option (else it is not clear
 * whose they are).  A short option is PROGRAM's until one of our long
 * options has begun the trailing run; from there on (`--json -o D`) all is
 * ours.  args[0] is PROGRAM; *nprog receives the count of PROGRAM and its
 * arguments.
 */
static int parse_trailing(profile_args *a, int argc, char **args, int *nprog)
{
    int first = 1, rc, nsub;
    char **sub, **left;

    while (first < argc && !is_our_long_option(args[first]))
        first++;
    *nprog = first;
    if (first == argc)
        return -1;
    for (int i = 1; i < first; i++)
        if (args[i][0] == '-')
            return rpl_cli_usage_error(
                "profile: '%s' after the program could be the program's own option; put "
                "rocm-perf's options before the program, and the program after '--'",
                args[first]);
    /* The parser wants a command name first; parse args[first..argc) alone. */
    if (!(sub = calloc((size_t)(argc - first + 2), sizeof(*sub))))
        return rpl_cli_fail(rpl_error_oom());
    sub[0] = "profile";
    memcpy(sub + 1, args + first, (size_t)(argc - first) * sizeof(*sub));
    nsub = argc - first + 1;
    left = sub;
    rc = rpl_parse_options(&profile_command, a, &nsub, &left);
    if (rc < 0 && nsub > 0)
        rc = rpl_cli_usage_error(
            "profile: '%s' follows rocm-perf's options after the program; put rocm-perf's "
            "options before the program, and the program after '--'",
            left[0]);
    /* The values the options kept point into argv, not into sub. */
    free(sub);
    return rc;
}

/* What follows the options: a program, its arguments, or nothing. */
static int check_program(profile_args *a, int argc, char **argv)
{
    if (a->no_rocprof && argc > 0) {
        if (a->ntraces)
            return rpl_cli_usage_error("--no-rocprof: give --trace inputs or a program, not both");
        if (a->json)
            return rpl_cli_usage_error("--json: a program run with --no-rocprof has no kernel "
                                       "times to print");
        a->opts.app_argv = (const char *const *)argv;
        return -1;
    }
    if (a->no_rocprof) {
        if (a->ntraces == 0)
            return rpl_cli_usage_error("--no-rocprof needs at least one --trace, or a program");
        return -1;
    }
    if (a->ntraces)
        return rpl_cli_usage_error("--trace is read only with --no-rocprof");
    if (argc == 0) {
        rpl_parse_options_usage(&profile_command, a, stderr);
        return rpl_cli_usage_error("profile needs a program to run: rocm-perf profile -- PROGRAM");
    }
    a->opts.app_argv = (const char *const *)argv;
    return -1;
}

/* Returns -1 when parsed, else the exit code to leave with. */
static int parse_args(profile_args *a, int argc, char **argv)
{
    int rc, nprog;

    a->opts.out_dir = DEFAULT_OUT;
    a->opts.probe_root = "";
    if ((rc = rpl_parse_options(&profile_command, a, &argc, &argv)) >= 0)
        return rc;
    if (argc > 0 && strcmp(argv[0], "--") == 0) {
        argv++;
        argc--;
    } else if (argc > 0) {
        for (int i = 1; i < argc; i++)
            if (strcmp(argv[i], "--") == 0)
                return rpl_cli_usage_error("profile: unexpected argument '%s' before '--'",
                                           argv[0]);
        if ((rc = parse_trailing(a, argc, argv, &nprog)) >= 0)
            return rc;
        /* PROGRAM's arguments end where our trailing options begin. */
        argv[nprog] = NULL;
        argc = nprog;
    }
    return check_program(a, argc, argv);
}

/*
 * `rocm-perf analyze DB --out DIR [--kernel REGEX]` on the merged trace,
 * told which dispatches the counter run measured (`r` NULL: no profiler ran).
 */
static int analyze(const profile_args *a, const char *db, const rpl_profile_result *r)
{
    rpl_counter_sample sample = {0};
    rpl_analyze_opts o = {
        .traces = &db,
        .ntraces = 1,
        .out_dir = a->opts.out_dir,
        .kernel_regex = a->opts.kernel_regex,
        .json = a->json,
        .top = RPL_ANALYZE_DEFAULT_TOP,
    };
    int rc;

    if (r && r->counters && strcmp(r->counters, "none") != 0) {
        sample.skip = r->counter_skip;
        sample.per_kernel = r->counter_dispatches;
        sample.stopped_early = r->counter_stopped_early;
        o.sample = &sample;
    }
    rc = rpl_analyze_run(&o, stdout);
    return rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
}

/*
 * The seed's `profile PROGRAM --no-rocprof`: run PROGRAM with no profiler
 * and say how long it took (host wall-clock: there are no kernel times).
 */
static int run_plain(const profile_args *a)
{
    rpl_spawn_opts so = {.argv = a->opts.app_argv};
    rpl_spawn_result res = {0};
    double t0 = rpl_clock_mono_s(), secs;
    int rc = rpl_spawn_run(&res, &so);

    secs = rpl_clock_mono_s() - t0;
    if (rc == RPL_ENOTFOUND)
        rc = rpl_error_set(RPL_EINPUT, "cannot run '%s'", a->opts.app_argv[0]);
    else if (rc == 0 && !(res.exited && res.exit_code == 0))
        rc = res.exited
                 ? rpl_error_set(RPL_EENV, "the program exited with status %d", res.exit_code)
                 : rpl_error_set(RPL_EENV, "the program was killed by signal %d", res.term_signal);
    rpl_spawn_result_release(&res);
    if (rc)
        return rpl_cli_fail(rc);
    printf("%s ran in %.3f s without a profiler (--no-rocprof): host wall-clock time, no "
           "kernel data\n",
           a->opts.app_argv[0], secs);
    return RPL_EXIT_OK;
}

/* A counter run: say where its times and its counters come from. */
static void say_timing(const profile_args *a, const rpl_profile_result *r)
{
    char line[1024], passes[64] = "the counter run"; /* CUPTI plans its passes itself */

    if (r->plan && r->plan->npasses)
        snprintf(passes, sizeof(passes), "%u counter pass%s", r->plan->npasses,
                 r->plan->npasses == 1 ? "" : "es");
    snprintf(line, sizeof(line),
             "times: from a run without counters (%s); counters: from %s "
             "(counter collection serialises and slows dispatches, so its times are not used)",
             r->timing_dir, passes);
    if (a->json)
        rpl_log_info("%s", line); /* stdout holds the JSON document alone */
    else
        printf("%s\n", line);
}

static int run(profile_args *a)
{
    rpl_profile_result *r = NULL;
    char *db = NULL;
    int rc, code;

    if (a->no_rocprof && a->opts.app_argv)
        return run_plain(a);
    if (a->no_rocprof) {
        if (!(r = calloc(1, sizeof(*r))))
            rc = rpl_error_oom();
        else
            rc = rpl_profile_import(r, a->traces, a->ntraces);
    } else {
        /* With --json stdout carries the document alone: the program's output goes to stderr. */
        int saved = a->json ? dup(STDOUT_FILENO) : -1;
        if (saved >= 0)
            dup2(STDERR_FILENO, STDOUT_FILENO);
        rc = rpl_profile_run(&r, &a->opts);
        if (saved >= 0) {
            fflush(stdout);
            dup2(saved, STDOUT_FILENO);
            close(saved);
        }
        if (rc == 0)
            rpl_log_info("%s: %u dispatches from %u file%s, counters: %s%s%s",
                         rpl_backend_name(r->backend), r->trace->dispatches.count, r->nfiles,
                         r->nfiles == 1 ? "" : "s", r->counters, r->arch[0] ? " of " : "", r->arch);
    }
    if (rc == 0 && (rc = rpl_mkdir_p(a->opts.out_dir)) == 0 &&
        (rc = rpl_path_join(&db, a->opts.out_dir, "profile.db")) == 0)
        rc = rpl_rocpd_write(r->trace, db, NULL);
    if (rc) {
        code = rpl_cli_fail(rc);
    } else {
        rpl_log_info("wrote %s", db);
        code = analyze(a, db, a->no_rocprof ? NULL : r);
        if (code == RPL_EXIT_OK && r->timing_dir)
            say_timing(a, r);
    }
    free(db);
    rpl_profile_result_free(r);
    return code;
}

int cmd_profile(int argc, char **argv)
{
    profile_args a = {0};
    int rc = parse_args(&a, argc, argv);

    if (rc < 0)
        rc = run(&a);
    free(a.traces);
    return rc;
}
