/* What the runs of optimize and llm-optimize share (src/optimize/run). */
#ifndef RPL_OPTIMIZE_RUN_INT_H
#define RPL_OPTIMIZE_RUN_INT_H

#include "rpl/optimize.h"
#include "rpl/session.h"

/*
 * The target the options name, then the pipeline opened on it (the rocm-perf
 * children are $ROCM_PERF_TOOL when set).  *target stays the caller's to free
 * when the pipeline fails to open.
 */
int optimize_open_pipe(rpl_pipe_target **target, rpl_pipe **pipe, const rpl_optimize_opts *o);

#endif
