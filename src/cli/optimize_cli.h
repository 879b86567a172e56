/*
 * What `rocm-perf optimize` and `rocm-perf llm-optimize` share: the target
 * and pipeline options, their parsing and help text, and the session that
 * turns accepted candidates into commits on optimization branches (asking
 * first on a terminal, committing with --auto-approve, a dry run otherwise)
 * and pushes them.
 */
#ifndef RPL_OPTIMIZE_CLI_H
#define RPL_OPTIMIZE_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "parse_options.h"
#include "rpl/optgit.h"
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

/* Accepted candidates -> commits: one branch per kernel, from HEAD. */
typedef struct rpl_optimize_session rpl_optimize_session;

int rpl_optimize_session_new(rpl_optimize_session **out, const rpl_optimize_cli *o, rpl_pipe *pipe);

/*
 * An outcome of rpl_pipe_run: printed; when accepted, committed after asking
 * (terminal), at once (--auto-approve), or not at all (dry run), and noted in
 * the reports.  The text is the candidate's whole source.
 */
int rpl_optimize_session_outcome(rpl_optimize_session *s, const rpl_pipe_outcome *oc,
                                 const char *text, size_t len);

/* Keep the branches, push them (--push), print them; then free.  Returns the commits made. */
int rpl_optimize_session_finish(rpl_optimize_session *s, size_t *commits);

/* Delete branches made in this session (an error or an interrupt) and free.  NULL is fine. */
void rpl_optimize_session_abort(rpl_optimize_session *s);

#endif
