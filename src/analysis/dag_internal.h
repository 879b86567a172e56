/* Private pieces shared by the DAG builder's files (dag_*.c). */
#ifndef RPL_DAG_INTERNAL_H
#define RPL_DAG_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpl/dag.h"
#include "rpl/trace.h"

typedef struct rpl_dag_launch rpl_dag_launch;
typedef struct rpl_dag_thread rpl_dag_thread;
typedef struct rpl_dag_blocking rpl_dag_blocking;

typedef struct rpl_dag_builder {
    rpl_dag *dag;
    const rpl_trace *trace;
    rpl_trace *release; /* the trace, when its API regions go once read (else NULL) */
    const rpl_kernel_filter *filter;
    rpl_dag_edge *edges; /* unsorted, may hold duplicates until rpl_dag_edges_finish */
    uint32_t edge_count, edge_cap;
    /* Processes: node i belongs to pids[process_of[i]] (distinct pids, sorted). */
    int64_t *pids;
    uint32_t process_count;
    uint32_t *process_of;
    /* Node of each operation: dispatch i is operation i, copy j is dispatches.count + j. */
    uint32_t *node_of_op;
    /* What the API regions say (dag_launch_info.c). */
    uint8_t *api_kind;        /* per region of the trace: rpl_dag_api_kind */
    bool has_sync;            /* a region is a record, wait or blocking call */
    rpl_dag_launch *launches; /* per operation: the call that launched it; NULL if none did */
    uint8_t *launch_flags;    /* per operation: RPL_DAG_LAUNCH_* */
    rpl_dag_thread *threads;  /* the calls' host threads */
    uint32_t nthreads;
    const char **handles; /* the calls' stream arguments (interned: compared as pointers) */
    uint32_t nhandles;
    rpl_dag_blocking *blocking; /* operations a blocking call launched, by operation */
    uint32_t nblocking;
} rpl_dag_builder;

int rpl_dag_edge_add(rpl_dag_builder *b, uint32_t src, uint32_t dst, rpl_dag_edge_kind kind);

/* Nodes, lanes and symbols from the trace; nodes sorted in time order. */
int rpl_dag_nodes_build(rpl_dag_builder *b);
/*
 * The operations of the trace, read once into a compact array (the trace's
 * records are large): dispatches first, then copies, in trace order
 * (dag_nodes.c).
 */
typedef struct rpl_dag_op {
    int64_t start, end, pid;
    uint32_t stream, queue;
    uint32_t lane, symbol; /* filled by rpl_dag_assign_lanes and rpl_dag_build_symbols */
} rpl_dag_op;

/* Each operation's lane, and dag->lanes (dag_lanes.c). */
int rpl_dag_assign_lanes(rpl_dag_builder *b, rpl_dag_op *ops, uint32_t nops);
/* dag->symbols, and each operation's symbol in place of its kernel (dag_symbols.c). */
int rpl_dag_build_symbols(rpl_dag_builder *b, rpl_dag_op *ops, uint32_t nops);
/*
 * What an API region does for the DAG, from its name (dag_api.c).  Names are
 * read without CUPTI's "_v<N>" version suffix and without the per-thread
 * default stream suffixes "_ptsz", "_ptds" and "_spt", which set per_thread.
 */
typedef enum rpl_dag_api_kind {
    RPL_DAG_API_OTHER = 0,   /* a launch, or nothing the DAG reads */
    RPL_DAG_API_RECORD,      /* event record */
    RPL_DAG_API_WAIT,        /* stream wait on an event */
    RPL_DAG_API_DEVICE_SYNC, /* device synchronise, or a free that synchronises the device */
    RPL_DAG_API_STREAM_SYNC, /* stream synchronise */
    RPL_DAG_API_EVENT_SYNC,  /* event synchronise */
    RPL_DAG_API_BLOCKING_OP  /* synchronous copy or memset: returns when its operation ended */
} rpl_dag_api_kind;

typedef struct rpl_dag_api {
    uint8_t kind;         /* rpl_dag_api_kind */
    bool per_thread;      /* a per-thread default stream variant (_ptsz, _ptds, _spt) */
    bool implicit_stream; /* has no stream parameter: runs on the default stream */
} rpl_dag_api;

void rpl_dag_api_classify(const char *name, rpl_dag_api *out);

/* The call that launched an operation: the first region with the operation's (source,
 * correlation id) that is not a synchronising call. */
struct rpl_dag_launch {
    int64_t issue;   /* the call's start */
    uint32_t thread; /* index into builder threads; RPL_NONE: no call launched the operation */
    uint32_t handle; /* its stream argument, index into builder handles, or RPL_NONE */
};

/* The launching call's rpl_dag_api flags (builder launch_flags). */
enum { RPL_DAG_LAUNCH_PER_THREAD = 1, RPL_DAG_LAUNCH_IMPLICIT_STREAM = 2 };

struct rpl_dag_thread {
    int64_t pid, tid;
};

struct rpl_dag_blocking {
    uint32_t op;     /* operation index */
    uint32_t region; /* the blocking call that launched it (index into trace regions) */
};

/*
 * Classify the regions (b->api_kind), then, when any is a record, wait or
 * blocking call, find each operation's launching call; with b->release,
 * keep only the regions that are not plain launches (dag_launch_info.c).
 * Before rpl_dag_nodes_build.
 */
int rpl_dag_launch_info(rpl_dag_builder *b);
void rpl_dag_launch_info_release(rpl_dag_builder *b);
/* The launching call of node `node`'s operation, or NULL. */
const rpl_dag_launch *rpl_dag_node_launch(const rpl_dag_builder *b, uint32_t node);
/* The blocking call that launched operation `op`, or RPL_NONE. */
uint32_t rpl_dag_blocking_region(const rpl_dag_builder *b, uint32_t op);
/* The operation index of node `node`. */
uint32_t rpl_dag_node_op(const rpl_dag_builder *b, uint32_t node);

/* Lane roles towards the default stream (rpl_dag_deps.lane_role). */
enum { RPL_DAG_ROLE_STREAM = 0, RPL_DAG_ROLE_LEGACY = 1, RPL_DAG_ROLE_PER_THREAD = 2 };

/* A (process, handle, time) keyed entry: launches and records. */
typedef struct rpl_dag_handle_entry {
    int64_t pid;
    const char *handle;
    int64_t time;
    uint32_t value; /* a lane (launches) or a node (records) */
    uint8_t unresolved;
} rpl_dag_handle_entry;

/* Order of handle entries: (pid, handle address, time, value); a qsort comparator. */
int rpl_dag_handle_cmp(const void *a, const void *b);

typedef struct rpl_dag_stream_lane {
    int64_t pid, id;
    uint32_t lane;
} rpl_dag_stream_lane;

/*
 * What the API regions say about the operations (dag_deps.c): enqueue
 * times, stream handles, event records and the lanes' roles towards the
 * legacy default stream.
 */
typedef struct rpl_dag_deps {
    rpl_dag_builder *b;
    int64_t *enq;       /* per node: non-decreasing along each lane */
    uint8_t *lane_role; /* per lane: RPL_DAG_ROLE_* */
    rpl_dag_handle_entry *launches;
    uint32_t nlaunches;
    rpl_dag_stream_lane *streams; /* stream lanes by (pid, rocpd id) */
    uint32_t nstreams;
    rpl_dag_handle_entry *records; /* (pid, event, time) -> the node the event captured */
    uint32_t nrecords;
} rpl_dag_deps;

/*
 * Count the classified regions in the dag (sync_regions, blocking_calls) and
 * set has_sync[p] for every process p (index into b->pids) that has a
 * record, wait or blocking region.  *needed: whether any region matters.
 */
int rpl_dag_deps_scan(rpl_dag_deps *d, rpl_dag_builder *b, uint8_t *has_sync, bool *needed);
/* Enqueue times, launches, lane roles and records; after rpl_dag_deps_scan. */
int rpl_dag_deps_index(rpl_dag_deps *d);
void rpl_dag_deps_release(rpl_dag_deps *d);
/* The lane a stream handle names at `time` in process `pid`, or RPL_NONE. */
uint32_t rpl_dag_deps_resolve_stream(const rpl_dag_deps *d, int64_t pid, const char *handle,
                                     int64_t time);
/* Position in the lane of the first node with enqueue time > time (count when none). */
uint32_t rpl_dag_deps_lane_after(const rpl_dag_deps *d, uint32_t lane, int64_t time);
/* The node a record of `event` before `time` captured: RPL_NONE with *found false if none. */
uint32_t rpl_dag_deps_event_node(const rpl_dag_deps *d, int64_t pid, const char *event,
                                 int64_t time, bool *found);
/* Value of the argument called `name1` or `name2`, else the unnamed one at `pos`; NULL if empty. */
const char *rpl_dag_region_arg(const rpl_trace *t, const rpl_region *r, const char *name1,
                               const char *name2, uint32_t pos);

/*
 * d->launches from d->launch (dag_launches.c): the (pid, stream handle, time)
 * -> lane table that rpl_dag_deps_resolve_stream searches, one entry per run
 * of launches on one lane.
 */
int rpl_dag_launch_table(rpl_dag_deps *d);
/* Event record -> stream wait edges (dag_deps.c). */
int rpl_dag_event_waits(rpl_dag_deps *d);
/* Host blocking calls and legacy default stream barriers (dag_host.c). */
int rpl_dag_host_edges(rpl_dag_deps *d);
/* Inferred edges in the processes p whose infer[p] is set. */
int rpl_dag_infer_edges(rpl_dag_builder *b, const uint8_t *infer);
/* Add the program-order edges (lane neighbours), sort, deduplicate and index the edges (CSR);
   counts by kind. */
int rpl_dag_edges_finish(rpl_dag_builder *b);
/* Longest path, earliest/latest starts, slack, symbols, dominance, overlap. */
int rpl_dag_solve(rpl_dag *dag, const rpl_trace *trace);

/* Index of `pid` in b->pids, or RPL_NONE. */
uint32_t rpl_dag_process_index(const rpl_dag_builder *b, int64_t pid);

int64_t rpl_dag_node_pid(const rpl_trace *trace, const rpl_dag_node *n);
int64_t rpl_dag_node_correlation(const rpl_trace *trace, const rpl_dag_node *n);
uint32_t rpl_dag_node_source(const rpl_trace *trace, const rpl_dag_node *n);

/* "dispatch 12 'name' on 'Stream 1'" for messages, into buf. */
void rpl_dag_node_describe(char *buf, size_t size, const rpl_dag *dag, const rpl_trace *trace,
                           uint32_t node);

#endif
