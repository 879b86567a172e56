/*
 * What `rocm-perf optimize` and `rocm-perf llm-optimize` share: the target
 * and pipeline options, their parsing and help text.  The session that
 * turns accepted candidates into commits is rpl/session.h.
 */
#ifndef RPL_OPTIMIZE_CLI_H
#define RPL_OPTIMIZE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "rpl/parse_options.h"
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

/*
 * The shared options, their fields in rpl_optimize_cli: a command's options
 * struct that includes this table starts with its rpl_optimize_cli.
 */
extern const rpl_option rpl_optimize_cli_options[];

void rpl_optimize_cli_init(rpl_optimize_cli *o);

/*
 * The positional words after the options (SOURCE "APP ARGS", SOURCE with
 * --run, or none with --test) and the checks across options.  0, or exit
 * code 2 (message printed).
 */
int rpl_optimize_cli_finish(rpl_optimize_cli *o, const char *cmd, int nargs, char **args);

/* The target the options name (ROCM_PERF_TOOL, when set, replaces the rocm-perf children). */
int rpl_optimize_cli_target(rpl_pipe_target **out, rpl_optimize_cli *o);

/* Progress lines on stderr (unless --quiet). */
void rpl_optimize_cli_progress(void *ctx, const char *candidate, rpl_pipe_step step,
                               const char *what);

#endif
