/* What the runs of optimize and llm-optimize share (src/optimize/run). */
#ifndef RPL_OPTIMIZE_RUN_INT_H
#define RPL_OPTIMIZE_RUN_INT_H

#include <stdio.h>

#include "rpl/optimize.h"
#include "rpl/session.h"

/* What both runs hold: the target, the pipeline on it, the session taking accepted candidates. */
typedef struct optimize_run {
    const rpl_optimize_opts *o;
    FILE *out; /* one line per candidate, the run's summary */
    rpl_pipe_target *target;
    rpl_pipe *pipe;
    rpl_session *session;
} optimize_run;

/*
 * The target the options name, then the pipeline opened on it (the rocm-perf
 * children are $ROCM_PERF_TOOL when set).  optimize_run_close frees what was
 * opened, also after a failure.
 */
int optimize_run_open(optimize_run *run);

/* Free the session (deleting the branches not kept), the pipeline and the target. */
void optimize_run_close(optimize_run *run);

#endif
