/*
 * The analyze pipeline (`rocm-perf analyze`, and `rocm-perf profile` after
 * its run): read rocpd traces, summarise the kernels, print the table or
 * profile.json, and with an output folder write profile.json, dag.json,
 * roofline.json and analysis.json into it.
 */
#ifndef RPL_ANALYZE_H
#define RPL_ANALYZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "rpl/report.h"

#define RPL_ANALYZE_DEFAULT_TOP 20

typedef struct rpl_analyze_opts {
    const char *const *traces; /* databases or folders (a `rocm-perf profile` output folder,
                                  or a profiler's own output folder) */
    size_t ntraces;
    const char *const *passes; /* databases whose counters are merged in (--counter-pass) */
    size_t npasses;
    const char *out_dir; /* NULL: print only */
    const char *kernel_regex;
    const char *helper_regex;
    const char *att_dir;       /* rocprofv3 thread-trace output for analysis.json */
    const char *ceilings_path; /* empirical roofline ceilings instead of the product table */
    bool json;                 /* print profile.json instead of the table */
    bool include_helpers;
    size_t top; /* rows of the table, 0 for all */
    /* The profile measured a sample (rocm-perf profile): which dispatches carry counters.
     * NULL: the reports do not describe a sample. */
    const rpl_counter_sample *sample;
} rpl_analyze_opts;

/*
 * Run the pipeline: the table (or profile.json) goes to `out`, then with
 * out_dir every analysis file is written there in the order profile.json,
 * dag.json, roofline.json, analysis.json (the first error stops the rest)
 * and, after the table, the critical path's dominant kernel goes to `out`.
 * No kernel selected is RPL_EINPUT with the reason; an unwritable output
 * RPL_EIO.  The DAG is built on a second thread beside the printing.
 */
int rpl_analyze_run(const rpl_analyze_opts *o, FILE *out);

#endif
