/*
 * Bottleneck classifier: from the roofline point, the launch geometry, the
 * occupancy, the dispatch timing and (when given) ATT features, name what
 * limits a kernel, with a confidence in [0, 1] and the evidence behind it.
 * The rules and thresholds are documented in docs/USER_GUIDE.md §9.
 */
#ifndef RPL_CLASSIFY_H
#define RPL_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpl/att.h"
#include "rpl/roofline.h"

typedef enum rpl_bottleneck {
    RPL_BN_UNKNOWN = 0,
    RPL_BN_MEMORY_BANDWIDTH,
    RPL_BN_LATENCY,
    RPL_BN_UNDER_OCCUPIED,
    RPL_BN_DIVERGENCE,
    RPL_BN_COMPUTE,
    RPL_BN_LAUNCH_OVERHEAD,
    RPL_BN_COUNT
} rpl_bottleneck;

/* "memory_bandwidth", "latency", "under_occupied", "divergence", "compute", "launch_overhead". */
const char *rpl_bottleneck_name(rpl_bottleneck b);

/* Thresholds (documented in the user guide). */
#define RPL_CLS_SHORT_KERNEL_NS  10000.0 /* mean dispatch shorter than 10 us */
#define RPL_CLS_TINY_KERNEL_NS   3000.0  /* shorter than 3 us: overhead whatever the gaps */
#define RPL_CLS_GAP_RATIO        0.5     /* idle gap >= half the kernel time */
#define RPL_CLS_NEAR_ROOF        0.6     /* fraction of the bandwidth / compute roof */
#define RPL_CLS_FAR_FROM_ROOF    0.3     /* roof fraction below: something else limits */
#define RPL_CLS_LOW_OCCUPANCY    0.25    /* theoretical occupancy below */
#define RPL_CLS_STALL_HIGH       0.5     /* ATT stall fraction above */
#define RPL_CLS_MEM_LATENCY_HIGH 500.0   /* ATT cycles per memory instruction above */
#define RPL_CLS_DIVERGENCE_HIGH  0.08    /* ATT exec-mask + branch share above */

typedef struct rpl_cls_input {
    const rpl_roof_point *roof; /* NULL or !valid: no roofline */
    double mean_duration_ns;
    double mean_gap_ns; /* idle time before a dispatch on its queue, < 0 when unknown */
    unsigned dispatches;
    double workgroups; /* per dispatch (mean) */
    unsigned waves_per_group;
    unsigned cu_count; /* 0 when unknown */
    unsigned max_waves_per_cu;
    double occupancy;            /* theoretical fraction of max waves per CU, < 0 when unknown */
    const rpl_att_features *att; /* NULL when no ATT */
} rpl_cls_input;

#define RPL_CLS_EVIDENCE_MAX 8
#define RPL_CLS_EVIDENCE_LEN 160

typedef struct rpl_cls_result {
    rpl_bottleneck bottleneck;
    double confidence;
    double scores[RPL_BN_COUNT];
    char evidence[RPL_CLS_EVIDENCE_MAX][RPL_CLS_EVIDENCE_LEN];
    size_t nevidence;
} rpl_cls_result;

void rpl_classify(rpl_cls_result *out, const rpl_cls_input *in);

/* Per-dispatch roofline numbers (roofline.json "per_dispatch"). */
typedef struct rpl_dispatch_roof {
    int64_t dispatch_id;
    double time_ns;
    double flops, hbm_read, hbm_write; /* < 0 when the counters are missing */
    unsigned clamps;
} rpl_dispatch_roof;

/* At most this many per kernel are listed; the rest only count in the sums. */
#define RPL_ROOF_PER_DISPATCH_MAX 1000

/* One kernel (dispatches grouped by display name) of the analysis. */
typedef struct rpl_analysis_kernel {
    const char *name;    /* display name (trace-interned) */
    const char *mangled; /* kernel_name */
    const char *arch;    /* agent name, "gfx942" */
    uint32_t dispatches, with_counters;
    double time_ns;             /* all selected dispatches */
    rpl_roof_counts counts;     /* summed over the dispatches with counters */
    rpl_roof_point point;       /* point.reason says why when !point.valid */
    rpl_roof_ceilings ceilings; /* what the point was placed under */
    bool has_ceilings;
    double path_ns;                /* time on the critical path */
    double critical_path_fraction; /* path_ns / critical path length */
    double headroom;               /* 1 - roof fraction; < 0 when unknown */
    double priority;               /* headroom x critical_path_fraction; < 0 when unknown */
    rpl_cls_input cls_in;          /* what the classifier saw (pointers into this entry) */
    rpl_cls_result cls;
    rpl_att_features att;
    bool has_att;
    char reason[160];                /* storage for point.reason */
    rpl_dispatch_roof *per_dispatch; /* the first RPL_ROOF_PER_DISPATCH_MAX, in start order */
    uint32_t nper_dispatch;
} rpl_analysis_kernel;

typedef struct rpl_analysis {
    rpl_analysis_kernel *kernels; /* by time, longest first */
    size_t count;
    int64_t critical_path_ns;
    const char *att_dir;              /* or NULL */
    size_t att_folders;               /* folders read */
    size_t att_unmatched;             /* folders matching no selected dispatch */
    unsigned att_warnings;            /* folders skipped */
    const char *ceilings_path;        /* or NULL */
    rpl_roof_ceilings *user_ceilings; /* loaded from ceilings_path */
} rpl_analysis;

/*
 * Every selected kernel's roofline, ATT features, classification and
 * critical-path share (from opts->dag, or a DAG built here when NULL).  A
 * malformed ceilings file is an error (RPL_EINPUT).
 */
int rpl_analysis_build(rpl_analysis **out, const rpl_trace *trace, const rpl_kernel_filter *filter,
                       const rpl_roofline_opts *opts);
/*
 * The same in two steps, so that the DAG can be built meanwhile: everything
 * but the critical-path share (opts->dag is not used), then that share.
 */
int rpl_analysis_build_kernels(rpl_analysis **out, const rpl_trace *trace,
                               const rpl_kernel_filter *filter, const rpl_roofline_opts *opts);
void rpl_analysis_attach_dag(rpl_analysis *a, const rpl_dag *dag);
void rpl_analysis_free(rpl_analysis *a);

#endif
