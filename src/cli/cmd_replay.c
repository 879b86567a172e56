/*
 * rocm-perf replay: reserve-check and full-vm on a snapshot written by
 * `rocm-perf capture` (the library work is in src/replay/).
 */
#include <stdbool.h>
#include <string.h>

#include "cli.h"
#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/replay.h"

typedef struct replay_args {
    const char *snapshot;
    rpl_replay_opts opts;
    bool have_rtol, have_atol, have_check_runs;
    bool json;
} replay_args;

#define REPLAY_USAGE                                                                               \
    "rocm-perf replay reserve-check SNAP\n"                                                        \
    "rocm-perf replay full-vm SNAP [--iterations N] [--warmup N] [--no-recopy]\n"                  \
    "                     [--code-object FILE] [--check] [--check-runs K]\n"                       \
    "                     [--poison] [--rtol X --atol Y] [--no-device-pristine]\n"                 \
    "                     [--json] [-v|-q]"

#define REPLAY_DESCRIPTION                                                                         \
    "Replay a dispatch captured by 'rocm-perf capture' in this process, at the captured\n"         \
    "device addresses (nothing is relocated), with ASLR off (rocm-perf re-executes\n"              \
    "itself that way).\n"                                                                          \
    "\n"                                                                                           \
    "reserve-check   reserve every captured range at its address and free it again.\n"             \
    "                Exit 0: all exact; 1: a reservation failed; 2: relocation (a range\n"         \
    "                came back elsewhere; the line says \"relocation:\"; any other exit-2\n"       \
    "                line is a bad snapshot or bad usage).\n"                                      \
    "full-vm         reserve, map and restore the memory, load the code object, launch\n"          \
    "                with the captured parameters and geometry, time every launch on\n"            \
    "                the device; every file's SHA-256 and the code object are checked\n"           \
    "                before the GPU is touched."

#define REPLAY_EXIT_CODES                                                                          \
    "(full-vm) 0 ran (and the check passed), 1 the check failed (wrong or\n"                       \
    "nondeterministic result) or the kernel failed on the device (a fault), 2 bad\n"               \
    "usage, bad snapshot or unfit code object, 3 the driver library is missing or\n"               \
    "the ranges could not be reserved at their addresses, 77 no suitable GPU."

/* The help every subcommand shows: the whole command's. */
#define REPLAY_HELP                                                                                \
    .usage = REPLAY_USAGE, .description = REPLAY_DESCRIPTION, .exit_codes = REPLAY_EXIT_CODES

#define F(m) RPL_FIELD(replay_args, m)

static const rpl_option full_vm_options[] = {
    OPT_UINT(0, "iterations", F(opts.iterations), 1, 1000000, "N", "timed launches (default {})"),
    OPT_UINT(0, "warmup", F(opts.warmup), 0, 1000000, "N",
             "untimed launches before them (default {})"),
    OPT_NEGBOOL(0, "no-recopy", F(opts.recopy), "restore the memory once, not before every launch"),
    OPT_STRING(0, "code-object", F(opts.code_object), "FILE",
               "launch this candidate instead of the captured code object; same architecture, "
               "kernel symbol and parameter layout"),
    OPT_BOOL(0, "check", F(opts.check),
             "compare every region after the first timed launch with the captured "
             "post-dispatch image (integers bitwise, floating point within a tolerance) and "
             "name the first difference"),
    OPT_UINT_SEEN(0, "check-runs", F(opts.check_runs), RPL_SEEN(replay_args, have_check_runs), 1,
                  1000, "K", "compare K launches and require identical bytes (implies --check)"),
    OPT_BOOL(0, "poison", F(opts.poison),
             "fill written regions before the compared launches (implies --check)"),
    OPT_NUMBER_SEEN(0, "rtol", F(opts.tolerance.rtol), RPL_SEEN(replay_args, have_rtol), 0, 1e6,
                    "X",
                    "with --atol Y: floating-point tolerance |got-want| <= Y + X*|want| for every "
                    "region (default per type: f16 1e-3/1e-5, bf16 1.6e-2/1e-5, f32 1e-5/1e-6, f64 "
                    "1e-10/1e-12)"),
    OPT_NUMBER_SEEN(0, "atol", F(opts.tolerance.atol), RPL_SEEN(replay_args, have_atol), 0, 1e6,
                    "Y", "the absolute part of that tolerance"),
    OPT_NEGBOOL(0, "no-device-pristine", F(opts.device_pristine),
                "restore from host memory even when a device copy fits"),
    OPT_BOOL(0, "json", F(json), "print JSON (docs/schemas/replay-result.schema.json)"),
    OPT_END(),
};

static const rpl_option no_options[] = {OPT_END()};

static const rpl_command full_vm_command = {
    .name = "replay full-vm",
    REPLAY_HELP,
    .options = full_vm_options,
};

static const rpl_command reserve_check_command = {
    .name = "replay reserve-check",
    REPLAY_HELP,
    .options = no_options,
    .foreign = full_vm_options,
    .foreign_name = "replay full-vm",
};

/* argv[0] is the action; returns -1 for --help (already printed), 0 parsed, else an exit code. */
static int parse_args(replay_args *a, bool full_vm, int argc, char **argv)
{
    const char *action = argv[0];
    int rc;

    rpl_replay_opts_init(&a->opts);
    rc = rpl_parse_options(full_vm ? &full_vm_command : &reserve_check_command, a, &argc, &argv);
    if (rc >= 0)
        return rc == 0 ? -1 : rc;
    if (a->have_rtol != a->have_atol)
        return rpl_cli_usage_error("--rtol and --atol go together");
    a->opts.have_tolerance = a->have_rtol;
    a->opts.check = a->opts.check || a->opts.poison || a->have_check_runs;
    if (argc == 0)
        return rpl_cli_usage_error("replay %s needs a snapshot directory; see 'rocm-perf replay "
                                   "--help'",
                                   action);
    if (argc > 1)
        return rpl_cli_usage_error("unexpected argument '%s'", argv[1]);
    a->snapshot = argv[0];
    return 0;
}

/* The process re-executes itself without ASLR; where that is impossible it goes on with it. */
static void no_aslr(void)
{
    if (rpl_replay_ensure_no_aslr(rpl_cli_argv()) != 0)
        rpl_log_info("replaying with ASLR on: %s", rpl_error_last()->message);
}

static int reserve_check(int argc, char **argv)
{
    replay_args a = {0};
    bool relocation;
    int rc = parse_args(&a, false, argc, argv);

    if (rc)
        return rc < 0 ? RPL_EXIT_OK : rc;
    no_aslr();
    rc = rpl_replay_reserve_check_dir(a.snapshot, &relocation, stdout);
    if (rc == RPL_EFAIL) {
        rpl_cli_fail(rc);
        return relocation ? 2 : 1; /* the seed's codes: 1 reservation failed, 2 relocation */
    }
    return rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
}

static int full_vm(int argc, char **argv)
{
    replay_args a = {0};
    rpl_replay_result *r = NULL;
    int rc = parse_args(&a, true, argc, argv);

    if (rc)
        return rc < 0 ? RPL_EXIT_OK : rc;
    no_aslr();
    rc = rpl_replay_run_dir(&r, a.snapshot, &a.opts);
    if (rc == RPL_EFAIL) {
        /* The kernel faulted (exit 1), or the replay could not start where it must (exit 3). */
        char line[512];
        rc = rpl_replay_failure(line, sizeof(line), r);
        fprintf(stderr, "rocm-perf: %s\n", line);
    } else if (rc || (rc = rpl_replay_result_write(stdout, r, a.json)) != 0) {
        rc = rpl_cli_fail(rc);
    } else if (r->checked && (!r->check_passed || !r->deterministic)) {
        fputs("rocm-perf: ", stderr);
        rpl_replay_check_failure_print(stderr, r);
        rc = RPL_EXIT_FAIL;
    }
    rpl_replay_result_free(r);
    return rc;
}

int cmd_replay(int argc, char **argv)
{
    if (argc < 2)
        return rpl_cli_usage_error("replay needs an action: reserve-check or full-vm; see "
                                   "'rocm-perf replay --help'");
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        replay_args defaults = {0};
        rpl_replay_opts_init(&defaults.opts);
        rpl_parse_options_usage(&full_vm_command, &defaults, stdout);
        return RPL_EXIT_OK;
    }
    if (strcmp(argv[1], "reserve-check") == 0)
        return reserve_check(argc - 1, argv + 1);
    if (strcmp(argv[1], "full-vm") == 0)
        return full_vm(argc - 1, argv + 1);
    return rpl_cli_usage_error("unknown replay action '%s' (reserve-check or full-vm)", argv[1]);
}
