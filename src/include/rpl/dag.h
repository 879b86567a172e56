/*
 * The critical-path DAG of a trace: which operations really limit the run.
 *
 * Nodes are the kernel dispatches and memory copies of a trace.  Edges are
 *  - program order: a node depends on the previous node of its lane (its
 *    stream, or its queue where the process has no streams to speak of);
 *  - event waits: an event record followed by a stream wait, read from API
 *    regions (hipEventRecord / hipStreamWaitEvent, the CUDA runtime and
 *    driver forms); docs/schemas/dag-dependencies.md is the contract;
 *  - host synchronisation: an operation issued on a host thread after a
 *    blocking call returned (synchronous copy or memset, device, stream or
 *    event synchronise, a synchronising free) depends on what the call
 *    waited for;
 *  - the legacy default stream's implicit barriers with blocking streams;
 *  - inferred edges, only in processes without any such region, by the rule
 *    in docs/USER_GUIDE.md ("dag"): a node depends on the latest-ending other
 *    node of its process that ended no later than it started and no more than
 *    `gap_ns` before, when that node is on another lane.
 *
 * The longest path weights every node by its duration.  Everything is
 * O((V+E) log V) or better; no step compares all pairs of nodes.
 */
#ifndef RPL_DAG_H
#define RPL_DAG_H

#include <stdbool.h>
#include <stdint.h>

#include "rpl/kernel_filter.h"
#include "rpl/trace.h"

typedef enum rpl_dag_node_kind {
    RPL_DAG_NODE_DISPATCH = 0,
    RPL_DAG_NODE_COPY = 1
} rpl_dag_node_kind;

typedef enum rpl_dag_edge_kind {
    RPL_DAG_EDGE_PROGRAM_ORDER = 0,
    RPL_DAG_EDGE_EVENT_WAIT = 1,
    RPL_DAG_EDGE_INFERRED = 2,
    RPL_DAG_EDGE_HOST_SYNC = 3,     /* the host waited for u before it issued v */
    RPL_DAG_EDGE_DEFAULT_STREAM = 4 /* a legacy default stream barrier */
} rpl_dag_edge_kind;
#define RPL_DAG_EDGE_KINDS 5

typedef enum rpl_dag_lane_kind {
    RPL_DAG_LANE_STREAM = 0,
    RPL_DAG_LANE_QUEUE = 1,
    RPL_DAG_LANE_PROCESS = 2 /* operations with neither stream nor queue */
} rpl_dag_lane_kind;

typedef enum rpl_dag_infer {
    RPL_DAG_INFER_AUTO = 0, /* only in processes without record/wait regions */
    RPL_DAG_INFER_NEVER = 1,
    RPL_DAG_INFER_ALWAYS = 2
} rpl_dag_infer;

#define RPL_DAG_GAP_NS_DEFAULT       10000 /* 10 us */
#define RPL_DAG_TOLERANCE_NS_DEFAULT 1000  /* 1 us */
#define RPL_DAG_TOP_N_DEFAULT        10

typedef struct rpl_dag_opts {
    rpl_dag_infer infer;
    int64_t gap_ns;                  /* inferred edges: largest gap between the end and the start */
    int64_t tolerance_ns;            /* how far a wait edge may point backward in time */
    const rpl_kernel_filter *filter; /* helper classification; NULL: the default pattern */
} rpl_dag_opts;

void rpl_dag_opts_init(rpl_dag_opts *opts);

/* One operation.  Nodes are sorted by (start, end, dispatches before copies, trace order). */
typedef struct rpl_dag_node {
    int64_t start, end;     /* trace timestamps, ns */
    int64_t earliest_start; /* in the model: the longest path to it, ns */
    int64_t latest_start;   /* latest start that keeps the critical path length */
    uint32_t ref;           /* index into trace dispatches or memcpys */
    uint32_t lane;          /* index into dag lanes */
    uint32_t symbol;        /* index into dag symbols */
    uint8_t kind;           /* rpl_dag_node_kind */
    uint8_t on_path;        /* on the reported critical path */
} rpl_dag_node;

static inline int64_t rpl_dag_node_duration(const rpl_dag_node *n)
{
    return n->end - n->start;
}

static inline int64_t rpl_dag_node_slack(const rpl_dag_node *n)
{
    return n->latest_start - n->earliest_start;
}

typedef struct rpl_dag_edge {
    uint32_t src, dst; /* node indices */
    uint8_t kind;      /* rpl_dag_edge_kind */
} rpl_dag_edge;

typedef struct rpl_dag_lane {
    uint8_t kind; /* rpl_dag_lane_kind */
    uint32_t ref; /* index into trace streams or queues; RPL_NONE for a process lane */
    int64_t pid;
    const char *name;      /* "Stream 1", "Queue 2", "process 1234"; owned by the dag */
    uint32_t first, count; /* slice of dag->lane_nodes, in node order */
} rpl_dag_lane;

/* Operations grouped by kernel display name (dispatches) or copy name. */
typedef struct rpl_dag_symbol {
    const char *name;
    const char *mangled; /* kernel_name of the first symbol with this name; "" for copies */
    uint8_t kind;        /* rpl_dag_node_kind */
    bool helper;         /* a runtime helper kernel: never dominant, never a priority */
    uint32_t count;      /* operations */
    int64_t total_ns;    /* summed durations */
    uint32_t path_count; /* operations on the critical path */
    int64_t path_ns;     /* their summed durations */
    int64_t min_slack_ns;
    /* Filled by the roofline analysis; 1.0 and false until then. */
    double headroom;
    bool headroom_known;
} rpl_dag_symbol;

typedef struct rpl_dag {
    rpl_dag_node *nodes;
    uint32_t node_count;
    rpl_dag_edge *edges; /* sorted by (src, dst), no duplicates */
    uint32_t edge_count;
    uint32_t *out_first; /* node i's out-edges are edges[out_first[i] .. out_first[i+1]) */
    rpl_dag_lane *lanes;
    uint32_t lane_count;
    uint32_t *lane_nodes;    /* node indices grouped by lane */
    rpl_dag_symbol *symbols; /* sorted by name */
    uint32_t symbol_count;
    uint32_t *path; /* the critical path, node indices from first to last */
    uint32_t path_len;

    uint32_t edge_counts[RPL_DAG_EDGE_KINDS];
    uint32_t sync_regions;        /* record/wait regions seen */
    uint32_t waits_unresolved;    /* waits that gave no edge (unknown stream or event) */
    uint32_t blocking_calls;      /* host blocking regions seen (copies, synchronise, free) */
    uint32_t blocking_unresolved; /* stream/event synchronisations naming no known stream/record */
    uint32_t host_edges_dropped;  /* host edges the timestamps contradict (not added) */
    uint32_t legacy_lanes;        /* lanes recognised as the legacy default stream */
    uint32_t per_thread_lanes;    /* lanes recognised as a per-thread default stream */
    uint32_t nonblocking_lanes;   /* lanes left out of the barriers: their timestamps overlap */
    uint32_t inferred_processes;  /* processes that got inferred edges */
    rpl_dag_opts opts;            /* as used (filter set to NULL) */

    int64_t t0;               /* earliest start in the trace, ns */
    int64_t critical_path_ns; /* longest path by durations */
    int64_t span_ns;          /* latest end - earliest start */
    int64_t gpu_time_ns;      /* summed durations of all nodes */
    int64_t active_ns;        /* time at least one node runs */
    uint32_t dominant;        /* symbol index, RPL_NONE when no kernel is on the path */
    double dominant_fraction; /* f = dominant path_ns / critical_path_ns */
    double speedup_ceiling;   /* 1 / (1 - f); INFINITY when f == 1 */
    double overlap;           /* gpu_time_ns / span_ns (> 1: operations overlap); 0 if no span */
} rpl_dag;

/*
 * Build the DAG of `trace` and solve it.  Contradictory input (a wait edge
 * pointing backward in time by more than tolerance_ns, or a dependency
 * cycle) fails with RPL_EINPUT and a message naming the operations.
 */
int rpl_dag_build(rpl_dag **out, const rpl_trace *trace, const rpl_dag_opts *opts);

/*
 * rpl_dag_build for a caller that has no more use for the trace's API
 * regions: the DAG takes what it needs of them first and frees the others
 * before it makes its own arrays (on traces with a region per launch, half
 * of the trace's memory); the trace keeps none afterwards, as with
 * rpl_trace_release_api, whether or not the build succeeded.
 */
int rpl_dag_build_release_api(rpl_dag **out, rpl_trace *trace, const rpl_dag_opts *opts);

/*
 * The API argument names the DAG reads (NULL-terminated): a trace read for
 * the DAG may keep only these and the unnamed ones (rpl_rocpd_read_opts).
 */
extern const char *const rpl_dag_arg_names[];
void rpl_dag_free(rpl_dag *dag);

/*
 * The top-N optimisation priorities: kernel symbols (no helpers, no copies)
 * with time on the critical path, ordered by path_ns x headroom, highest
 * first (ties by name).  Writes up to `max` symbol indices and their number.
 */
int rpl_dag_priorities(const rpl_dag *dag, uint32_t *out, uint32_t max, uint32_t *count);

/* Name of an edge kind as written in dag.json: "program_order", ... */
const char *rpl_dag_edge_kind_name(rpl_dag_edge_kind kind);
const char *rpl_dag_lane_kind_name(rpl_dag_lane_kind kind);

/* The trace's id of a node's operation (rocpd row id) and its process. */
int64_t rpl_dag_node_trace_id(const rpl_trace *trace, const rpl_dag_node *n);

#endif
