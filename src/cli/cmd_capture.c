/*
 * rocm-perf capture: run a program with the capture library injected and
 * ASLR off, and keep one kernel dispatch as a replay snapshot (the library
 * work is in src/replay/capture.c).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rpl/capture.h"
#include "rpl/error.h"
#include "rpl/log.h"

static int parse_backend(void *value, const rpl_option *opt, const char *arg)
{
    (void)opt;
    return rpl_capture_backend_parse(value, arg) != 0 ? rpl_cli_fail(RPL_EUSAGE) : 0;
}

#define F(m) RPL_FIELD(rpl_capture_opts, m)

static const rpl_option capture_options[] = {
    OPT_STRING(0, "kernel", F(kernel_regex), "REGEX",
               "POSIX extended regex tried on the demangled, then the mangled kernel name "
               "(default: every kernel)"),
    OPT_UINT(0, "dispatch", F(dispatch), 0, 0, "N",
             "the N-th matching dispatch, counted from 0 (default 0)"),
    OPT_CALLBACK(0, "backend", F(backend), parse_backend, "B",
                 "cuda, hsa, or auto (default): inject every capture library this rocm-perf has"),
    OPT_STRING('o', "out", F(out_dir), "DIR", "the snapshot directory; it must not exist"),
    OPT_END(),
};

static const rpl_command capture_command = {
    .name = "capture",
    .usage = "rocm-perf capture [--kernel REGEX] [--dispatch N] [--backend auto|cuda|hsa]\n"
             "                  --out DIR [-v|-q] -- APP [ARGS...]",
    .description =
        "Run APP with ASLR off and the capture library injected (librpl_cupti.so through\n"
        "CUDA_INJECTION64_PATH, librpl_hsa.so through HSA_TOOLS_LIB), keep the N-th kernel\n"
        "dispatch whose name matches REGEX as a snapshot in DIR (launch, kernel arguments,\n"
        "code object, every device range before and after the dispatch), let APP run to its\n"
        "end, then check the snapshot and say where it is.  Replay it with 'rocm-perf\n"
        "replay full-vm DIR'.",
    .options = capture_options,
    .exit_codes = "0 snapshot written, 2 bad usage, DIR exists, APP cannot be run, or APP\n"
                  "ended without a snapshot (no matching dispatch, fewer than N+1, or APP failed\n"
                  "first), 3 no capture library.",
    /* Options end at the first other word, so APP's own options stay APP's. */
    .flags = RPL_PARSE_STOP_AT_ARG,
};

/* 0 parsed, -1 after --help, else the exit code. */
static int parse_args(rpl_capture_opts *o, int argc, char **argv)
{
    int rc = rpl_parse_options(&capture_command, o, &argc, &argv);

    if (rc >= 0)
        return rc == 0 ? -1 : rc;
    if (!o->out_dir)
        return rpl_cli_usage_error("capture needs --out DIR; see 'rocm-perf capture --help'");
    if (argc == 0)
        return rpl_cli_usage_error("capture needs a program to run after '--'; see 'rocm-perf "
                                   "capture --help'");
    o->app_argv = (const char *const *)argv;
    return 0;
}

int cmd_capture(int argc, char **argv)
{
    rpl_capture_opts o = {0};
    rpl_capture_result r;
    int rc = parse_args(&o, argc, argv);

    if (rc)
        return rc < 0 ? RPL_EXIT_OK : rc;
    if ((rc = rpl_capture_run(&r, &o)) != 0)
        return rpl_cli_fail(rc);
    rpl_capture_summary_print(stdout, &r);
    if (!r.app_exited)
        rpl_log_warn("the application was killed by signal %d after the capture", r.app_status);
    else if (r.app_status != 0)
        rpl_log_warn("the application exited with status %d after the capture", r.app_status);
    rpl_capture_result_release(&r);
    return RPL_EXIT_OK;
}
