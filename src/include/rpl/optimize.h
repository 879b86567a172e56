/*
 * The runs of `rocm-perf optimize` and `rocm-perf llm-optimize`: the target
 * and pipeline options both take, then one function per command that opens
 * the target, the candidate pipeline (rpl/pipeline.h) and the session
 * (rpl/session.h), puts the candidates through (the unroll rules or a
 * candidate file; the LLM loop, rpl/llm_loop.h), keeps and pushes the
 * branches made, and prints what became of each candidate.
 */
#ifndef RPL_OPTIMIZE_H
#define RPL_OPTIMIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rpl/llm.h"
#include "rpl/pipeline.h"

#define RPL_OPTIMIZE_MAX_FLAGS           64
#define RPL_OPTIMIZE_MAX_VERIFY_RUNS     16
#define RPL_OPTIMIZE_DEFAULT_MAX_KERNELS 3

/* What both commands take: the target, the pipeline's options, the session's. */
typedef struct rpl_optimize_opts {
    /* The target: source with app_args (the seed form) or with run_cmd, or test with
       build_dir (rpl_optimize_opts_finish fills source and app_args). */
    const char *source;
    const char *app_args;
    const char *test;
    const char *build_dir;
    const char *build_cmd;        /* --build "CMD" */
    const char *run_cmd;          /* --run "CMD" */
    const char *compile_commands; /* compile_commands.json with the source's flags */
    const char *kernel;           /* NULL: ranked from the profile */
    const char *seed_flag;        /* replaces the target's */
    const char *push;             /* a remote the kept branches go to, or NULL */
    bool auto_approve, allow_dirty;
    bool have_rtol, have_atol; /* given only together */
    rpl_pipe_opts pipe;
    const char *cflags[RPL_OPTIMIZE_MAX_FLAGS + 1]; /* "-I" DIR, "-D" NAME[=V], in order */
    size_t ncflags;
    const char *verify_runs[RPL_OPTIMIZE_MAX_VERIFY_RUNS + 1];
    size_t nverify_runs;
} rpl_optimize_opts;

/* Zero, the pipeline's defaults, and progress lines on stderr (rpl_optimize_progress). */
void rpl_optimize_opts_init(rpl_optimize_opts *o);

/* A compiler word pair (`flag` "-I" or "-D" and its value); RPL_EUSAGE past the limit. */
int rpl_optimize_opts_add_cflag(rpl_optimize_opts *o, const char *flag, const char *value);

/* One more argument list for the program's own check; RPL_EUSAGE for a blank one or past
   the limit. */
int rpl_optimize_opts_add_verify_run(rpl_optimize_opts *o, const char *args);

/*
 * The target's words after the options (SOURCE "APP ARGS", SOURCE with
 * --run, none with --test) and the checks across options; `cmd` names the
 * command in the messages.  0, or RPL_EUSAGE (RPL_EINPUT for a --build or
 * --run that does not split or lacks its placeholders) with the message.
 */
int rpl_optimize_opts_finish(rpl_optimize_opts *o, const char *cmd, int nargs, char *const *args);

/* Progress lines "rocm-perf: CANDIDATE [STEP] WHAT" on stderr, unless quiet (rpl/log.h). */
void rpl_optimize_progress(void *ctx, const char *candidate, rpl_pipe_step step, const char *what);

/* `rocm-perf optimize`: its own options. */
typedef struct rpl_optimize_rules_opts {
    const char *candidate; /* a whole source with a changed kernel, or NULL: the unroll rules */
    unsigned max_kernels;  /* ranked kernels to try */
} rpl_optimize_rules_opts;

/*
 * Put the unroll proposals of the best-ranked kernels (one accepted change
 * per kernel), or the candidate file, through the pipeline; offer accepted
 * ones to the session (a branch per kernel), keep and push the branches and
 * write the reports.  One line per outcome and commit goes to `out`, then
 * "artifacts: DIR".  *accepted: the candidate file was accepted.
 */
int rpl_optimize_run(const rpl_optimize_opts *o, const rpl_optimize_rules_opts *r, FILE *out,
                     bool *accepted);

/* `rocm-perf llm-optimize`: its own options. */
typedef struct rpl_llm_optimize_opts {
    const char *prompt_dir;      /* the shipped templates (templates/llm) */
    const char *prompt_override; /* --prompt-dir: templates replacing them file by file, or NULL */
    const char *analysis_dir;    /* an `analyze --out` folder, or NULL */
    unsigned max_iters, max_repairs;
    bool has_max_repairs;
    int64_t budget_tokens;
    rpl_llm_config llm;
} rpl_llm_optimize_opts;

/*
 * The LLM loop over the pipeline with one branch for the run, named after
 * its first target; the candidates' lines go to `out` as they are decided,
 * then the run's summary, its branch, its artifacts and the push.  A model
 * that failed is reported, then returned as the error.  The process exits
 * on an interrupt once the loop has stopped (rpl/cleanup.h).
 */
int rpl_llm_optimize_run(const rpl_optimize_opts *o, const rpl_llm_optimize_opts *l, FILE *out);

#endif
