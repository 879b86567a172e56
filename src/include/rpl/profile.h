/*
 * Runtime summary of a trace: per kernel, the statistics of its dispatch
 * durations and its share of the selected GPU time; totals over the trace;
 * the GPUs it ran on.  This is what `rocm-perf analyze` prints and what
 * profile.json holds.
 */
#ifndef RPL_PROFILE_H
#define RPL_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "rpl/kernel_filter.h"
#include "rpl/stats.h"
#include "rpl/trace.h"

/*
 * One kernel: every selected dispatch of the kernel symbols that share a
 * display name (the same kernel in several processes or merged databases is
 * one row).
 */
typedef struct rpl_kernel_summary {
    const char *name;         /* display name (a string of the trace) */
    const char *mangled_name; /* mangled name of `symbol` */
    uint32_t symbol;          /* first symbol with this display name: resources */
    bool helper;              /* a runtime helper (kept by --include-helpers) */
    int64_t total_ns;         /* sum of durations, exact */
    rpl_duration_stats stats; /* of the durations in ns */
    double share;             /* total_ns / totals.selected_time_ns */
} rpl_kernel_summary;

typedef struct rpl_copy_totals {
    uint64_t count;
    uint64_t bytes;
    int64_t time_ns; /* sum of durations */
} rpl_copy_totals;

/* A GPU: the GPU agents of all sources that agree in name, product and index. */
typedef struct rpl_profile_device {
    uint32_t agent;      /* index of its first agent in the trace */
    uint64_t dispatches; /* every dispatch on it */
    int64_t selected_time_ns;
} rpl_profile_device;

typedef struct rpl_profile_totals {
    uint64_t dispatches; /* every dispatch in the trace */
    uint64_t selected_dispatches;
    uint64_t helper_dispatches;
    uint32_t kernels; /* distinct display names */
    uint32_t selected_kernels;
    uint32_t helper_kernels;
    int64_t kernel_time_ns; /* sums of dispatch durations */
    int64_t selected_time_ns;
    int64_t helper_time_ns;
    int64_t busy_ns;          /* time during which any kernel ran (union of intervals) */
    int64_t selected_busy_ns; /* the same for selected kernels */
    /* First start and last end over dispatches and memory copies (0 when none). */
    int64_t span_start_ns, span_end_ns;
    rpl_copy_totals copies; /* every memory copy */
    rpl_copy_totals copies_by_kind[RPL_COPY_DEVICE_TO_DEVICE + 1];
} rpl_profile_totals;

typedef struct rpl_profile {
    const rpl_trace *trace;      /* the summarised trace; must outlive the profile */
    rpl_kernel_summary *kernels; /* selected kernels, total time descending, then name */
    uint32_t nkernels;
    rpl_profile_device *devices; /* GPUs, most selected time first; devices[0] is primary */
    uint32_t ndevices;
    rpl_profile_totals totals;
    const char *top_helper; /* display name of the helper with the most time, or NULL */
    char *kernel_regex;     /* the filter that chose the kernels (copies) */
    char *helper_regex;
    bool include_helpers;
} rpl_profile;

/* The longest dispatch or copy a trace may hold, one day: beyond it a time is no timing. */
#define RPL_TRACE_MAX_INTERVAL_NS (INT64_C(86400) * 1000000000)

/*
 * end - start of a dispatch or copy (`what` and `id` name it in the error):
 * RPL_EINPUT when it ends before it starts or lasts more than
 * RPL_TRACE_MAX_INTERVAL_NS (an end of INT64_MAX, say).
 */
int rpl_trace_interval_ns(int64_t *out, int64_t start, int64_t end, const char *what, int64_t id);

/* *sum += v, or RPL_EINPUT when the sum would overflow. */
int rpl_add_ns(int64_t *sum, int64_t v);

/*
 * Summarise `trace` for the kernels `filter` selects.  A dispatch that names
 * no symbol, ends before it starts or lasts more than a day, and a copy that
 * lasts more than a day, fail with RPL_EINPUT, as do sums that would overflow.  A trace with
 * no selected kernel is no error: nkernels is 0.
 */
int rpl_profile_build(rpl_profile **out, const rpl_trace *trace, const rpl_kernel_filter *filter);
void rpl_profile_free(rpl_profile *p);

/* The primary GPU's agent, or NULL when the trace has no GPU agent. */
const rpl_agent *rpl_profile_primary_agent(const rpl_profile *p);

#endif
