/*
 * rocm-perf capture: run a program with the capture library injected and
 * ASLR off, and keep one kernel dispatch as a replay snapshot (the library
 * work is in src/replay/capture.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rpl/capture.h"
#include "rpl/error.h"
#include "rpl/log.h"

enum { OPT_KERNEL = 256, OPT_DISPATCH, OPT_BACKEND };

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rocm-perf capture [--kernel REGEX] [--dispatch N] [--backend auto|cuda|hsa]\n"
            "                         --out DIR [-v|-q] -- APP [ARGS...]\n"
            "\n"
            "Run APP with ASLR off and the capture library injected (librpl_cupti.so through\n"
            "CUDA_INJECTION64_PATH, librpl_hsa.so through HSA_TOOLS_LIB), keep the N-th kernel\n"
            "dispatch whose name matches REGEX as a snapshot in DIR (launch, kernel arguments,\n"
            "code object, every device range before and after the dispatch), let APP run to its\n"
            "end, then check the snapshot and say where it is.  Replay it with 'rocm-perf\n"
            "replay full-vm DIR'.\n"
            "\n"
            "  --kernel REGEX   POSIX extended regex tried on the demangled, then the mangled\n"
            "                   kernel name (default: every kernel)\n"
            "  --dispatch N     the N-th matching dispatch, counted from 0 (default 0)\n"
            "  --backend B      cuda, hsa, or auto (default): inject every capture library\n"
            "                   this rocm-perf has\n"
            "  -o, --out DIR    the snapshot directory; it must not exist\n"
            "\n"
            "Exit codes: 0 snapshot written, 2 bad usage, DIR exists, APP cannot be run, or APP\n"
            "ended without a snapshot (no matching dispatch, fewer than N+1, or APP failed\n"
            "first), 3 no capture library.\n");
}

static int parse_args(rpl_capture_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {{"kernel", required_argument, NULL, OPT_KERNEL},
                                             {"dispatch", required_argument, NULL, OPT_DISPATCH},
                                             {"backend", required_argument, NULL, OPT_BACKEND},
                                             {"out", required_argument, NULL, 'o'},
                                             RPL_CLI_COMMON_LONGOPTS,
                                             {NULL, 0, NULL, 0}};
    char *end;
    int opt;

    optind = 1;
    opterr = 0;
    /* '+': options end at the first non-option, so APP's own options stay APP's. */
    while ((opt = getopt_long(argc, argv, "+o:" RPL_CLI_COMMON_SHORTOPTS, longopts, NULL)) != -1) {
        if (rpl_cli_common_option(opt))
            continue;
        switch (opt) {
        case 'h':
            usage(stdout);
            return -1;
        case OPT_KERNEL:
            o->kernel_regex = optarg;
            break;
        case OPT_DISPATCH:
            errno = 0;
            o->dispatch = strtoull(optarg, &end, 10);
            if (errno || end == optarg || *end || optarg[0] == '-')
                return rpl_cli_usage_error("--dispatch wants a whole number, not '%s'", optarg);
            break;
        case OPT_BACKEND:
            if (rpl_capture_backend_parse(&o->backend, optarg) != 0)
                return rpl_cli_fail(RPL_EUSAGE);
            break;
        case 'o':
            o->out_dir = optarg;
            break;
        default:
            return rpl_cli_usage_error("option '%s' is unknown or lacks its value; see "
                                       "'rocm-perf capture --help'",
                                       argv[optind - 1]);
        }
    }
    if (!o->out_dir)
        return rpl_cli_usage_error("capture needs --out DIR; see 'rocm-perf capture --help'");
    if (optind >= argc)
        return rpl_cli_usage_error("capture needs a program to run after '--'; see 'rocm-perf "
                                   "capture --help'");
    o->app_argv = (const char *const *)(argv + optind);
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
