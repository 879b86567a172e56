/*
 * rocm-perf profile: run a program under rocprofv3 (AMD) or the CUPTI
 * recorder (NVIDIA), merge the counter passes, write the merged trace as
 * DIR/profile.db and analyse it exactly as `rocm-perf analyze --out DIR`.
 */
#include <errno.h>
#include <getopt.h>
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

enum {
    OPT_BACKEND = 256,
    OPT_COUNTERS,
    OPT_ARCH,
    OPT_ATT,
    OPT_NO_ROCPROF,
    OPT_TRACE,
    OPT_KERNEL_TIMING,
    OPT_JSON,
    OPT_COUNTER_SKIP,
    OPT_COUNTER_DISPATCHES
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rocm-perf profile [--backend auto|rocprofv3|cupti]\n"
            "                         [--counters roofline|none|LIST] [--arch GFX] [--att]\n"
            "                         [--counter-dispatches N|all] [--counter-skip K]\n"
            "                         [--kernel-timing concurrent|serial]\n"
            "                         [--out DIR] [--kernel REGEX] [--json] [-v|-q]\n"
            "                         -- PROGRAM [ARGS...]\n"
            "       rocm-perf profile PROGRAM [ARGS...] [--json] [--quiet] [...]\n"
            "       rocm-perf profile --no-rocprof --trace DB|DIR|CSV [--trace ...]\n"
            "                         [--out DIR] [--kernel REGEX]\n"
            "       rocm-perf profile PROGRAM [ARGS...] --no-rocprof\n"
            "\n"
            "Run PROGRAM under a profiler, merge its counter passes, and analyse the result as\n"
            "'rocm-perf analyze --out DIR' does.  DIR keeps the profiler's own output\n"
            "(DIR/rocprofv3 or DIR/cupti, replaced on each run), the merged trace\n"
            "DIR/profile.db and the analysis files (DIR/profile.json, ...).\n"
            "\n"
            "  --backend NAME       rocprofv3 (AMD), cupti (NVIDIA) or auto (default: the\n"
            "                       GPU found; neither is exit 77)\n"
            "  --counters SPEC      roofline (FLOP and HBM-byte counters; the default where\n"
            "                       the architecture has a set), none, or counter names\n"
            "                       separated by commas; rocprofv3 runs PROGRAM once per pass;\n"
            "                       with counters PROGRAM runs once more without, for the times\n"
            "  --counter-dispatches N|all  counters on the first N dispatches of each kernel\n"
            "                       (default %d), or on all; the others are not replayed\n"
            "  --counter-skip K     leave out the first K dispatches of each kernel (warm-up)\n"
            "                       before the measured ones (default 0)\n"
            "  --arch GFX           architecture whose counter set to use (default: the\n"
            "                       first AMD GPU of the KFD topology)\n"
            "  --att                rocprofv3 thread trace (files left in DIR/rocprofv3)\n"
            "  --kernel-timing MODE cupti trace-only runs: concurrent (default; CUPTI\n"
            "                       instruments kernels, several percent slower when made\n"
            "                       of many short blocks) or serial (as ncu measures them,\n"
            "                       but no two kernels overlap)\n"
            "  -o, --out DIR        output folder (default ./" DEFAULT_OUT ")\n"
            "  -k, --kernel REGEX   counters and thread trace only for matching kernels, and\n"
            "                       only they are summarised\n"
            "  --json               print profile.json on stdout instead of the table\n"
            "  --no-rocprof         with --trace: run nothing, analyse the inputs; with a\n"
            "                       program: run it without a profiler (wall-clock only)\n"
            "  --trace PATH         with --no-rocprof: a rocpd database, a profiler output\n"
            "                       folder (pass_N/ merged) or a rocprofv3 *kernel_trace.csv\n"
            "  -v, --verbose        more detail on stderr (repeatable)\n"
            "  -q, --quiet          errors only\n"
            "  -h, --help           this help\n"
            "\n"
            "Without '--', rocm-perf's long options may also follow PROGRAM at the end of\n"
            "the line (rocm-perf profile ./kernel --json) when PROGRAM's own arguments\n"
            "before them hold no option; short options after PROGRAM are PROGRAM's.\n"
            "\n"
            "Exit codes: 0 ok, 2 bad usage or input, 3 profiler missing, /dev/kfd not\n"
            "accessible, the program failed or wrote nothing, 77 no GPU.\n",
            RPL_COUNTER_DISPATCHES_DEFAULT);
}

static const struct option longopts[] = {
    {"backend", required_argument, NULL, OPT_BACKEND},
    {"counters", required_argument, NULL, OPT_COUNTERS},
    {"arch", required_argument, NULL, OPT_ARCH},
    {"att", no_argument, NULL, OPT_ATT},
    {"out", required_argument, NULL, 'o'},
    {"kernel", required_argument, NULL, 'k'},
    {"no-rocprof", no_argument, NULL, OPT_NO_ROCPROF},
    {"trace", required_argument, NULL, OPT_TRACE},
    {"kernel-timing", required_argument, NULL, OPT_KERNEL_TIMING},
    {"json", no_argument, NULL, OPT_JSON},
    {"counter-skip", required_argument, NULL, OPT_COUNTER_SKIP},
    {"counter-dispatches", required_argument, NULL, OPT_COUNTER_DISPATCHES},
    RPL_CLI_COMMON_LONGOPTS,
    {NULL, 0, NULL, 0},
};

/* A count for --counter-skip (0 allowed) or --counter-dispatches (1 or more, or "all"). */
static int parse_count(uint32_t *out, const char *arg, const char *opt, bool all_ok)
{
    char *end;
    unsigned long long v;

    if (all_ok && strcmp(arg, "all") == 0) {
        *out = RPL_COUNTER_DISPATCHES_ALL;
        return 0;
    }
    errno = 0;
    v = strtoull(arg, &end, 10);
    if (!arg[0] || *end || arg[0] == '-' || errno || v >= UINT32_MAX || (all_ok && v == 0))
        return rpl_error_set(RPL_EUSAGE, "%s: '%s' is not %s", opt, arg,
                             all_ok ? "a count of 1 or more, nor 'all'" : "a count");
    *out = (uint32_t)v;
    return 0;
}

/*
 * getopt_long over argv[1..argc).  Returns -1 when every option was good,
 * else the exit code to leave with.
 */
static int parse_options(profile_args *a, int argc, char **argv, const char *shortopts)
{
    int opt;

    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
        if (rpl_cli_common_option(opt))
            continue;
        switch (opt) {
        case 'h':
            usage(stdout);
            return RPL_EXIT_OK;
        case OPT_BACKEND:
            if (rpl_backend_parse(&a->opts.backend, optarg))
                return rpl_cli_fail(RPL_EUSAGE);
            break;
        case OPT_COUNTERS:
            a->opts.counters = optarg;
            break;
        case OPT_ARCH:
            a->opts.arch = optarg;
            break;
        case OPT_ATT:
            a->opts.att = true;
            break;
        case 'o':
            a->opts.out_dir = optarg;
            break;
        case 'k':
            a->opts.kernel_regex = optarg;
            break;
        case OPT_NO_ROCPROF:
            a->no_rocprof = true;
            break;
        case OPT_TRACE:
            a->traces[a->ntraces++] = optarg;
            break;
        case OPT_KERNEL_TIMING:
            if (rpl_kernel_timing_parse(&a->opts.kernel_timing, optarg))
                return rpl_cli_fail(RPL_EUSAGE);
            break;
        case OPT_JSON:
            a->json = true;
            break;
        case OPT_COUNTER_SKIP:
            if (parse_count(&a->opts.counter_skip, optarg, "--counter-skip", false))
                return rpl_cli_fail(RPL_EUSAGE);
            break;
        case OPT_COUNTER_DISPATCHES:
            if (parse_count(&a->opts.counter_dispatches, optarg, "--counter-dispatches", true))
                return rpl_cli_fail(RPL_EUSAGE);
            break;
        default:
            return rpl_cli_usage_error("profile: unknown option or missing value '%s'; see "
                                       "'rocm-perf profile --help'",
                                       argv[optind - 1]);
        }
    }
    return -1;
}

/*
 * Index of the first argument that is no option nor an option's value: what
 * getopt's "+" would stop at.  (Not "+" itself: glibc keeps that ordering for
 * later getopt calls that set optind to 1, as cmd_analyze does.)
 */
static int first_operand(int argc, char **argv)
{
    int i = 1;

    while (i < argc && argv[i][0] == '-' && argv[i][1]) {
        const char *arg = argv[i++];
        if (strcmp(arg, "--") == 0)
            return i - 1;
        if (arg[1] != '-') { /* short options; -o and -k take a value */
            const char *v = arg + 1 + strcspn(arg + 1, "ok");
            if (*v && !v[1])
                i++;
            continue;
        }
        for (const struct option *o = longopts; o->name; o++)
            if (strcmp(arg + 2, o->name) == 0 && o->has_arg == required_argument)
                i++;
    }
    return i < argc ? i : argc;
}

/* `arg` is one of our long options ("--json", "--out=D"). */
static bool is_our_long_option(const char *arg)
{
    if (strncmp(arg, "--", 2) != 0 || !arg[2])
        return false;
    arg += 2;
    for (const struct option *o = longopts; o->name; o++) {
        size_t n = strlen(o->name);
        if (strncmp(arg, o->name, n) == 0 && (arg[n] == '\0' || arg[n] == '='))
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
 * ours.  `prog` is PROGRAM's index; *prog_end receives the end of PROGRAM's
 * arguments.
 */
static int parse_trailing(profile_args *a, int argc, char **argv, int prog, int *prog_end)
{
    int first = prog + 1, rc;
    char **sub;

    while (first < argc && !is_our_long_option(argv[first]))
        first++;
    *prog_end = first;
    if (first == argc)
        return -1;
    for (int i = prog + 1; i < first; i++)
        if (argv[i][0] == '-')
            return rpl_cli_usage_error(
                "profile: '%s' after the program could be the program's own option; put "
                "rocm-perf's options before the program, and the program after '--'",
                argv[first]);
    /* getopt wants argv[0] first; parse argv[first..argc) alone. */
    if (!(sub = calloc((size_t)(argc - first + 2), sizeof(*sub))))
        return rpl_cli_fail(rpl_error_oom());
    sub[0] = argv[0];
    memcpy(sub + 1, argv + first, (size_t)(argc - first) * sizeof(*sub));
    rc = parse_options(a, argc - first + 1, sub, "o:k:" RPL_CLI_COMMON_SHORTOPTS);
    if (rc < 0 && optind < argc - first + 1)
        rc = rpl_cli_usage_error(
            "profile: '%s' follows rocm-perf's options after the program; put rocm-perf's "
            "options before the program, and the program after '--'",
            sub[optind]);
    /* A value the options kept (optarg) points into argv, not into sub. */
    free(sub);
    return rc;
}

/* Returns -1 when parsed, else the exit code to leave with. */
static int parse_args(profile_args *a, int argc, char **argv)
{
    int rc, dashes = 1, prog, prog_end = argc;

    /* Options end at "--"; PROGRAM and its own options follow and are not parsed here. */
    while (dashes < argc && strcmp(argv[dashes], "--") != 0)
        dashes++;
    a->opts.out_dir = DEFAULT_OUT;
    a->opts.probe_root = "";
    a->traces = calloc((size_t)argc, sizeof(*a->traces));
    if (!a->traces)
        return rpl_cli_fail(rpl_error_oom());
    prog = first_operand(dashes, argv);
    if ((rc = parse_options(a, prog, argv, "o:k:" RPL_CLI_COMMON_SHORTOPTS)) >= 0)
        return rc;
    if (dashes < argc && prog < dashes)
        return rpl_cli_usage_error("profile: unexpected argument '%s' before '--'", argv[prog]);
    if (dashes < argc) {
        prog = dashes + 1;
    } else {
        if (prog < argc && (rc = parse_trailing(a, argc, argv, prog, &prog_end)) >= 0)
            return rc;
    }
    /* PROGRAM's arguments end where our trailing options begin. */
    argv[prog_end] = NULL;
    if (a->no_rocprof && prog < argc) {
        if (a->ntraces)
            return rpl_cli_usage_error("--no-rocprof: give --trace inputs or a program, not both");
        if (a->json)
            return rpl_cli_usage_error("--json: a program run with --no-rocprof has no kernel "
                                       "times to print");
        a->opts.app_argv = (const char *const *)argv + prog;
        return -1;
    }
    if (a->no_rocprof) {
        if (a->ntraces == 0)
            return rpl_cli_usage_error("--no-rocprof needs at least one --trace, or a program");
        return -1;
    }
    if (a->ntraces)
        return rpl_cli_usage_error("--trace is read only with --no-rocprof");
    if (prog >= argc) {
        usage(stderr);
        return rpl_cli_usage_error("profile needs a program to run: rocm-perf profile -- PROGRAM");
    }
    a->opts.app_argv = (const char *const *)argv + prog;
    return -1;
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
