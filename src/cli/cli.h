/* The rocm-perf command: one cmd_<name>() per subcommand, each in its own file. */
#ifndef RPL_CLI_H
#define RPL_CLI_H

#include <stdio.h>

#include "rpl/parse_options.h"

typedef struct rpl_cli_cmd {
    const char *name;
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
    const char *summary;
} rpl_cli_cmd;

int cmd_analyze(int argc, char **argv);
int cmd_autotune(int argc, char **argv);
int cmd_baseline(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_gate(int argc, char **argv);
int cmd_report_suite(int argc, char **argv); /* report --suite */
int cmd_gpus(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_inspect(int argc, char **argv);
int cmd_kernels(int argc, char **argv);
int cmd_new_test(int argc, char **argv);
int cmd_optimize(int argc, char **argv);
int cmd_llm_optimize(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_version(int argc, char **argv);

/* The whole argv of main(), for commands that re-execute rocm-perf (replay without ASLR). */
char **rpl_cli_argv(void);

#endif
