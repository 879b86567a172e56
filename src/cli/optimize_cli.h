/*
 * What `rocm-perf optimize` and `rocm-perf llm-optimize` share: the target
 * and pipeline options, their parsing and help text.  The session that
 * turns accepted candidates into commits is rpl/session.h.
 */
#ifndef RPL_OPTIMIZE_CLI_H
#define RPL_OPTIMIZE_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "rpl/pipeline.h"

#define RPL_OPTIMIZE_CLI_MAX_FLAGS       64
#define RPL_OPTIMIZE_CLI_MAX_VERIFY_RUNS 16

typedef struct rpl_optimize_cli {
    const char *source;   /* SOURCE of the seed form */
    const char *app_args; /* "APP ARGS" */
    const char *test;     /* --test NAME */
    const char *build_dir;
    const char *kernel;
    const char *push;
    const char *seed_flag;
    const char *build_cmd;        /* --build "CMD" */
    const char *run_cmd;          /* --run "CMD" */
    const char *compile_commands; /* --compile-commands FILE */
    bool auto_approve, allow_dirty, check_args;
    bool have_rtol, have_atol; /* given only together */
    rpl_pipe_opts pipe;
    const char *cflags[RPL_OPTIMIZE_CLI_MAX_FLAGS + 1];
    size_t ncflags;
    const char *verify_runs[RPL_OPTIMIZE_CLI_MAX_VERIFY_RUNS + 1]; /* --verify-run */
    size_t nverify_runs;
} rpl_optimize_cli;

/* Option codes from 0x4f00 up; a command's own codes stay below. */
enum {
    RPL_OPTCLI_TEST = 0x4f00,
    RPL_OPTCLI_BUILD_DIR,
    RPL_OPTCLI_KERNEL,
    RPL_OPTCLI_MIN_GAIN,
    RPL_OPTCLI_ARTIFACTS,
    RPL_OPTCLI_AUTO_APPROVE,
    RPL_OPTCLI_ALLOW_DIRTY,
    RPL_OPTCLI_PUSH,
    RPL_OPTCLI_CHECK_ARGS,
    RPL_OPTCLI_ROUNDS,
    RPL_OPTCLI_ITERATIONS,
    RPL_OPTCLI_SEEDS,
    RPL_OPTCLI_SEED_FLAG,
    RPL_OPTCLI_APP_TOLERANCE,
    RPL_OPTCLI_NO_APP,
    RPL_OPTCLI_TIMEOUT,
    RPL_OPTCLI_BUILD_TIMEOUT,
    RPL_OPTCLI_ARCH,
    RPL_OPTCLI_RTOL,
    RPL_OPTCLI_ATOL,
    RPL_OPTCLI_SEED,
    RPL_OPTCLI_APP_ROUNDS,
    RPL_OPTCLI_BUILD,
    RPL_OPTCLI_RUN,
    RPL_OPTCLI_COMPILE_DB,
    RPL_OPTCLI_SHAPES,
    RPL_OPTCLI_VERIFY_RUN,
    RPL_OPTCLI_NO_COUNTERS
};

/* The getopt_long entries of the shared options (-I and -D are short options "I:D:"). */
#define RPL_OPTIMIZE_CLI_LONGOPTS                                                                  \
    {"test", required_argument, NULL, RPL_OPTCLI_TEST},                                            \
        {"build-dir", required_argument, NULL, RPL_OPTCLI_BUILD_DIR},                              \
        {"kernel", required_argument, NULL, RPL_OPTCLI_KERNEL},                                    \
        {"min-gain", required_argument, NULL, RPL_OPTCLI_MIN_GAIN},                                \
        {"artifacts", required_argument, NULL, RPL_OPTCLI_ARTIFACTS},                              \
        {"auto-approve", no_argument, NULL, RPL_OPTCLI_AUTO_APPROVE},                              \
        {"allow-dirty", no_argument, NULL, RPL_OPTCLI_ALLOW_DIRTY},                                \
        {"push", required_argument, NULL, RPL_OPTCLI_PUSH},                                        \
        {"check-args", no_argument, NULL, RPL_OPTCLI_CHECK_ARGS},                                  \
        {"rounds", required_argument, NULL, RPL_OPTCLI_ROUNDS},                                    \
        {"iterations", required_argument, NULL, RPL_OPTCLI_ITERATIONS},                            \
        {"seeds", required_argument, NULL, RPL_OPTCLI_SEEDS},                                      \
        {"seed-flag", required_argument, NULL, RPL_OPTCLI_SEED_FLAG},                              \
        {"app-tolerance", required_argument, NULL, RPL_OPTCLI_APP_TOLERANCE},                      \
        {"app-rounds", required_argument, NULL, RPL_OPTCLI_APP_ROUNDS},                            \
        {"no-app", no_argument, NULL, RPL_OPTCLI_NO_APP},                                          \
        {"timeout", required_argument, NULL, RPL_OPTCLI_TIMEOUT},                                  \
        {"build-timeout", required_argument, NULL, RPL_OPTCLI_BUILD_TIMEOUT},                      \
        {"arch", required_argument, NULL, RPL_OPTCLI_ARCH},                                        \
        {"rtol", required_argument, NULL, RPL_OPTCLI_RTOL},                                        \
        {"atol", required_argument, NULL, RPL_OPTCLI_ATOL},                                        \
        {"build", required_argument, NULL, RPL_OPTCLI_BUILD},                                      \
        {"run", required_argument, NULL, RPL_OPTCLI_RUN},                                          \
        {"compile-commands", required_argument, NULL, RPL_OPTCLI_COMPILE_DB},                      \
        {"shapes", required_argument, NULL, RPL_OPTCLI_SHAPES},                                    \
        {"verify-run", required_argument, NULL, RPL_OPTCLI_VERIFY_RUN},                            \
        {"no-counters", no_argument, NULL, RPL_OPTCLI_NO_COUNTERS},                                \
    {                                                                                              \
        "seed", required_argument, NULL, RPL_OPTCLI_SEED                                           \
    }
#define RPL_OPTIMIZE_CLI_SHORTOPTS "I:D:"

void rpl_optimize_cli_init(rpl_optimize_cli *o);

/* 1 when `opt` was a shared option (applied), 0 when not, or an exit code (2) for a bad value. */
int rpl_optimize_cli_option(rpl_optimize_cli *o, int opt, const char *arg);

/*
 * The positional words after the options (SOURCE "APP ARGS", SOURCE with
 * --run, or none with --test) and the checks across options.  0, or exit
 * code 2 (message printed).
 */
int rpl_optimize_cli_finish(rpl_optimize_cli *o, const char *cmd, int nargs, char **args);

/* The target the options name (ROCM_PERF_TOOL, when set, replaces the rocm-perf children). */
int rpl_optimize_cli_target(rpl_pipe_target **out, rpl_optimize_cli *o);

/* The help lines of the shared options. */
void rpl_optimize_cli_usage(FILE *out);

/* Progress lines on stderr (unless --quiet). */
void rpl_optimize_cli_progress(void *ctx, const char *candidate, rpl_pipe_step step,
                               const char *what);

#endif
