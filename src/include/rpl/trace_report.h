/*
 * The trace report (`rocm-perf report DIR|DB...`): the critical-path DAG of
 * rocpd traces as a summary, a Chrome/Perfetto trace, an SVG timeline and
 * the roofline chart of an `analyze --out` folder.
 */
#ifndef RPL_TRACE_REPORT_H
#define RPL_TRACE_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rpl/dag.h"

typedef struct rpl_trace_report_opts {
    const char *const *inputs; /* trace databases, or one `analyze --out` folder */
    size_t ninputs;
    const char *perfetto, *svg, *roofline_svg; /* files to write, or NULL */
    size_t top;                                /* priorities in the summary */
    /* DAG options given by the caller: they override those dag.json recorded. */
    bool has_infer, has_gap, has_tolerance;
    rpl_dag_infer infer;
    int64_t gap_ns, tolerance_ns;
} rpl_trace_report_opts;

/*
 * Build the DAG of the inputs, print its summary to `out` (and under it, for
 * a folder of a sampled profile, which dispatches carry counters), then write
 * the files o names.  A folder without a readable dag.json is RPL_EINPUT.
 */
int rpl_trace_report_run(const rpl_trace_report_opts *o, FILE *out);

/* "auto", "never" or "always"; anything else is RPL_EUSAGE. */
int rpl_dag_infer_parse(const char *name, rpl_dag_infer *out);

#endif
