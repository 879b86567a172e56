/*
 * rocm-perf replay: reserve-check and full-vm on a snapshot written by
 * `rocm-perf capture` (the library work is in src/replay/).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/log.h"
#include "rpl/replay.h"

typedef struct replay_args {
    const char *snapshot;
    rpl_replay_opts opts;
    bool have_rtol, have_atol;
    bool json;
} replay_args;

enum {
    OPT_ITERATIONS = 256,
    OPT_WARMUP,
    OPT_NO_RECOPY,
    OPT_CODE_OBJECT,
    OPT_CHECK,
    OPT_CHECK_RUNS,
    OPT_POISON,
    OPT_RTOL,
    OPT_ATOL,
    OPT_NO_DEVICE_PRISTINE,
    OPT_JSON
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rocm-perf replay reserve-check SNAP\n"
            "       rocm-perf replay full-vm SNAP [--iterations N] [--warmup N] [--no-recopy]\n"
            "                            [--code-object FILE] [--check] [--check-runs K]\n"
            "                            [--poison] [--rtol X --atol Y] [--no-device-pristine]\n"
            "                            [--json] [-v|-q]\n"
            "\n"
            "Replay a dispatch captured by 'rocm-perf capture' in this process, at the captured\n"
            "device addresses (nothing is relocated), with ASLR off (rocm-perf re-executes\n"
            "itself that way).\n"
            "\n"
            "reserve-check   reserve every captured range at its address and free it again.\n"
            "                Exit 0: all exact; 1: a reservation failed; 2: relocation (a range\n"
            "                came back elsewhere; the line says \"relocation:\"; any other exit-2\n"
            "                line is a bad snapshot or bad usage).\n"
            "full-vm         reserve, map and restore the memory, load the code object, launch\n"
            "                with the captured parameters and geometry, time every launch on\n"
            "                the device; every file's SHA-256 and the code object are checked\n"
            "                before the GPU is touched.\n"
            "  --iterations N          timed launches (default 1)\n"
            "  --warmup N              untimed launches before them (default 0)\n"
            "  --no-recopy             restore the memory once, not before every launch\n"
            "  --code-object FILE      launch this candidate instead of the captured code object;\n"
            "                          same architecture, kernel symbol and parameter layout\n"
            "  --check                 compare every region after the first timed launch with the\n"
            "                          captured post-dispatch image (integers bitwise, floating\n"
            "                          point within a tolerance) and name the first difference\n"
            "  --check-runs K          compare K launches and require identical bytes (implies\n"
            "                          --check)\n"
            "  --poison                fill written regions before the compared launches (implies\n"
            "                          --check)\n"
            "  --rtol X --atol Y       floating-point tolerance |got-want| <= Y + X*|want| for\n"
            "                          every region (default per type: f16 1e-3/1e-5, bf16\n"
            "                          1.6e-2/1e-5, f32 1e-5/1e-6, f64 1e-10/1e-12)\n"
            "  --no-device-pristine    restore from host memory even when a device copy fits\n"
            "  --json                  print JSON (docs/schemas/replay-result.schema.json)\n"
            "\n"
            "Exit codes of full-vm: 0 ran (and the check passed), 1 the check failed (wrong or\n"
            "nondeterministic result) or the kernel failed on the device (a fault), 2 bad\n"
            "usage, bad snapshot or unfit code object, 3 the driver library is missing or the\n"
            "ranges could not be reserved at their addresses, 77 no suitable GPU.\n");
}

static int parse_uint(const char *arg, const char *opt, unsigned lo, unsigned hi, unsigned *out)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(arg, &end, 10);
    if (errno || end == arg || *end || arg[0] == '-' || v < lo || v > hi)
        return rpl_cli_usage_error("%s wants a whole number from %u to %u, not '%s'", opt, lo, hi,
                                   arg);
    *out = (unsigned)v;
    return 0;
}

static int parse_tol(const char *arg, const char *opt, double *out)
{
    char *end;

    errno = 0;
    *out = strtod(arg, &end);
    if (errno || end == arg || *end || !isfinite(*out) || *out < 0)
        return rpl_cli_usage_error("%s wants a number of at least 0, not '%s'", opt, arg);
    return 0;
}

static int parse_option(replay_args *a, int opt, const char *arg)
{
    rpl_replay_opts *o = &a->opts;

    switch (opt) {
    case OPT_ITERATIONS:
        return parse_uint(arg, "--iterations", 1, 1000000, &o->iterations);
    case OPT_WARMUP:
        return parse_uint(arg, "--warmup", 0, 1000000, &o->warmup);
    case OPT_NO_RECOPY:
        o->recopy = false;
        return 0;
    case OPT_CODE_OBJECT:
        o->code_object = arg;
        return 0;
    case OPT_CHECK:
        o->check = true;
        return 0;
    case OPT_CHECK_RUNS:
        o->check = true;
        return parse_uint(arg, "--check-runs", 1, 1000, &o->check_runs);
    case OPT_POISON:
        o->check = o->poison = true;
        return 0;
    case OPT_RTOL:
        a->have_rtol = true;
        return parse_tol(arg, "--rtol", &o->tolerance.rtol);
    case OPT_ATOL:
        a->have_atol = true;
        return parse_tol(arg, "--atol", &o->tolerance.atol);
    case OPT_NO_DEVICE_PRISTINE:
        o->device_pristine = false;
        return 0;
    case OPT_JSON:
        a->json = true;
        return 0;
    }
    return rpl_cli_usage_error("unknown option");
}

/* argv[0] is the action; returns 1 for --help (already printed), else an exit code. */
static int parse_args(replay_args *a, bool full_vm, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"iterations", required_argument, NULL, OPT_ITERATIONS},
        {"warmup", required_argument, NULL, OPT_WARMUP},
        {"no-recopy", no_argument, NULL, OPT_NO_RECOPY},
        {"code-object", required_argument, NULL, OPT_CODE_OBJECT},
        {"check", no_argument, NULL, OPT_CHECK},
        {"check-runs", required_argument, NULL, OPT_CHECK_RUNS},
        {"poison", no_argument, NULL, OPT_POISON},
        {"rtol", required_argument, NULL, OPT_RTOL},
        {"atol", required_argument, NULL, OPT_ATOL},
        {"no-device-pristine", no_argument, NULL, OPT_NO_DEVICE_PRISTINE},
        {"json", no_argument, NULL, OPT_JSON},
        RPL_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0}};
    int opt, rc;

    rpl_replay_opts_init(&a->opts);
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, RPL_CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        if (rpl_cli_common_option(opt))
            continue;
        if (opt == 'h') {
            usage(stdout);
            return -1;
        }
        if (opt == '?' || (!full_vm && opt >= OPT_ITERATIONS))
            return rpl_cli_usage_error("option '%s' is unknown%s or lacks its value; see "
                                       "'rocm-perf replay --help'",
                                       argv[optind - 1], full_vm ? "" : " to reserve-check");
        if ((rc = parse_option(a, opt, optarg)) != 0)
            return rc;
    }
    if (a->have_rtol != a->have_atol)
        return rpl_cli_usage_error("--rtol and --atol go together");
    a->opts.have_tolerance = a->have_rtol;
    if (optind >= argc)
        return rpl_cli_usage_error("replay %s needs a snapshot directory; see 'rocm-perf replay "
                                   "--help'",
                                   argv[0]);
    if (optind + 1 < argc)
        return rpl_cli_usage_error("unexpected argument '%s'", argv[optind + 1]);
    a->snapshot = argv[optind];
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
    rpl_reserve_report rep;
    rpl_snapshot *snap = NULL;
    int rc = parse_args(&a, false, argc, argv);

    if (rc)
        return rc < 0 ? RPL_EXIT_OK : rc;
    no_aslr();
    if ((rc = rpl_snapshot_open(&snap, a.snapshot)) != 0)
        return rpl_cli_fail(rc);
    rc = rpl_replay_reserve_check(&rep, snap);
    rpl_snapshot_free(snap);
    if (rc == 0) {
        printf("Reserved %zu of %zu span%s at the captured addresses.\n", rep.reserved, rep.nspans,
               rep.nspans == 1 ? "" : "s");
        return RPL_EXIT_OK;
    }
    if (rc != RPL_EFAIL)
        return rpl_cli_fail(rc);
    /* The seed's codes: 1 reservation failed, 2 relocation. */
    printf("Reserved %zu of %zu span%s at the captured addresses.\n", rep.reserved, rep.nspans,
           rep.nspans == 1 ? "" : "s");
    fprintf(stderr, "rocm-perf: %s: %s%s\n", rep.relocation ? "relocation" : "reservation failed",
            rep.detail, rpl_replay_aslr_disabled() ? "" : " (ASLR is on in this process)");
    return rep.relocation ? 2 : 1;
}

static int print_result(const rpl_replay_result *r, bool json)
{
    cJSON *doc = NULL;
    char *text = NULL;
    int rc;

    if (!json)
        return rpl_replay_result_print(stdout, r);
    if ((rc = rpl_replay_result_json(&doc, r)) == 0 && (rc = rpl_json_print(&text, doc)) == 0)
        fputs(text, stdout);
    free(text);
    cJSON_Delete(doc);
    return rc;
}

/* "region 0x...: 12 of 1024 f32 elements differ, first at 0x... (got 1, want 2)" */
static void report_check_failure(const rpl_replay_result *r)
{
    for (size_t i = 0; i < r->nchecks; i++) {
        const rpl_compare_state *c = &r->checks[i].cmp;

        if (c->mismatches == 0)
            continue;
        fprintf(stderr,
                "rocm-perf: check failed: %s 0x%llx: %llu of %llu %s elements differ, first at "
                "0x%llx (got %.9g, want %.9g)\n",
                r->checks[i].global ? "global" : "region", (unsigned long long)r->checks[i].base,
                (unsigned long long)c->mismatches, (unsigned long long)c->elements,
                rpl_dtype_name(c->dtype), (unsigned long long)c->first_addr, c->first_got,
                c->first_want);
        return;
    }
    fputs("rocm-perf: check failed: repeated launches gave different bytes\n", stderr);
}

static int full_vm(int argc, char **argv)
{
    replay_args a = {0};
    rpl_replay_result *r = NULL;
    rpl_snapshot *snap = NULL;
    int rc = parse_args(&a, true, argc, argv);

    if (rc)
        return rc < 0 ? RPL_EXIT_OK : rc;
    no_aslr();
    if ((rc = rpl_snapshot_open(&snap, a.snapshot)) != 0)
        return rpl_cli_fail(rc);
    rc = rpl_replay_run(&r, snap, &a.opts);
    rpl_snapshot_free(snap);
    if (rc == RPL_EFAIL) {
        /* The kernel faulted (exit 1), or the replay could not start where it must (exit 3). */
        char line[512];
        rc = rpl_replay_failure(line, sizeof(line), r);
        fprintf(stderr, "rocm-perf: %s\n", line);
        rpl_replay_result_free(r);
        return rc;
    }
    if (rc)
        return rpl_cli_fail(rc);
    if ((rc = print_result(r, a.json)) != 0) {
        rpl_replay_result_free(r);
        return rpl_cli_fail(rc);
    }
    rc = RPL_EXIT_OK;
    if (r->checked && (!r->check_passed || !r->deterministic)) {
        report_check_failure(r);
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
        usage(stdout);
        return RPL_EXIT_OK;
    }
    if (strcmp(argv[1], "reserve-check") == 0)
        return reserve_check(argc - 1, argv + 1);
    if (strcmp(argv[1], "full-vm") == 0)
        return full_vm(argc - 1, argv + 1);
    return rpl_cli_usage_error("unknown replay action '%s' (reserve-check or full-vm)", argv[1]);
}
