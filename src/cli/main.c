/* rocm-perf: entry point and subcommand dispatch. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/process.h"
#include "rpl/version.h"

static const rpl_cli_cmd commands[] = {
    {"analyze", cmd_analyze, "summarise rocpd traces: per-kernel runtime statistics"},
    {"autotune", cmd_autotune, "search kernel parameters, measuring a fraction of the space"},
    {"baseline", cmd_baseline, "record, show or compare a kernel test's baseline"},
    {"capture", cmd_capture, "capture one kernel dispatch of a program into a replay snapshot"},
    {"gate", cmd_gate, "compare a kernel test with its baseline: pass, warn, improved or fail"},
    {"gpus", cmd_gpus, "list GPUs; write a CTest resource spec with one slot per GPU"},
    {"help", cmd_help, "show help for rocm-perf or a subcommand"},
    {"inspect", cmd_inspect, "registers, LDS, scratch and occupancy of compiled kernels"},
    {"kernels", cmd_kernels, "kernels, signatures, loops and unroll guardrails of a source"},
    {"llm-optimize", cmd_llm_optimize,
     "LLM closed loop: proposals checked, measured, fed back, committed; dominance-aware"},
    {"new-test", cmd_new_test, "write a kernel-test scaffold (portable kernel + CMakeLists.txt)"},
    {"optimize", cmd_optimize,
     "guarded optimizer: unroll or a candidate, checked, measured, committed"},
    {"profile", cmd_profile, "run a program under rocprofv3 or CUPTI and analyse it"},
    {"replay", cmd_replay, "replay a captured dispatch at its addresses: time it, check results"},
    {"report", cmd_report, "critical path of traces: summary, Perfetto trace, SVG timeline"},
    {"version", cmd_version, "print the version"},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static char **main_argv;

char **rpl_cli_argv(void)
{
    return main_argv;
}

static void print_usage(FILE *out)
{
    int width = 0;

    fprintf(out, "usage: rocm-perf [-v|-q] <command> [<args>]\n"
                 "       rocm-perf --version | --help\n\n"
                 "Commands:\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
        if ((int)strlen(commands[i].name) > width)
            width = (int)strlen(commands[i].name);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-*s %s\n", width, commands[i].name, commands[i].summary);
    fprintf(out, "\nRun 'rocm-perf <command> --help' for the options of a command.\n"
                 "Exit codes: 0 ok, 1 gate failed, 2 bad usage or input, 3 environment error,\n"
                 "77 skipped (no suitable GPU or profiler).\n"
                 "Logging: -v (repeatable), -q, or ROCM_PERF_LOG=error|warn|info|debug|trace.\n");
}

static const rpl_cli_cmd *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

int cmd_help(int argc, char **argv)
{
    const rpl_cli_cmd *cmd;
    char *sub_argv[3];

    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_usage(stdout);
        return RPL_EXIT_OK;
    }
    cmd = find_command(argv[1]);
    if (!cmd)
        return rpl_cli_usage_error("'%s' is not a rocm-perf command; see 'rocm-perf help'",
                                   argv[1]);
    if (cmd->run == cmd_help) {
        print_usage(stdout);
        return RPL_EXIT_OK;
    }
    sub_argv[0] = argv[1];
    sub_argv[1] = "--help";
    sub_argv[2] = NULL;
    return cmd->run(2, sub_argv);
}

int cmd_version(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: rocm-perf version\n\nPrint the version of rocm-perf-lab.\n");
        return RPL_EXIT_OK;
    }
    if (argc > 1)
        return rpl_cli_usage_error("version takes no arguments");
    printf("rocm-perf %s\n", RPL_VERSION_STRING);
    return RPL_EXIT_OK;
}

int main(int argc, char **argv)
{
    const rpl_cli_cmd *cmd;
    int i;

    main_argv = argv;
    rpl_process_init();
    if (rpl_log_init_from_env() != 0)
        return rpl_cli_fail(RPL_EUSAGE);
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        if (strcmp(argv[i], "--version") == 0)
            return cmd_version(1, argv);
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            print_usage(stdout);
            return RPL_EXIT_OK;
        }
        if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0)
            rpl_cli_log_option('v');
        else if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0)
            rpl_cli_log_option('q');
        else
            return rpl_cli_usage_error("unknown option '%s'; see 'rocm-perf --help'", argv[i]);
    }
    if (i == argc) {
        print_usage(stderr);
        return RPL_EXIT_INPUT;
    }
    cmd = find_command(argv[i]);
    if (!cmd)
        return rpl_cli_usage_error("'%s' is not a rocm-perf command; see 'rocm-perf help'",
                                   argv[i]);
    return cmd->run(argc - i, argv + i);
}
