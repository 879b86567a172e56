/*
 * DAG builder, the entry points: options, the steps in order (launch info,
 * nodes, API edges, inferred edges, edge index, solve), and freeing.
 */
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "dag_internal.h"
#include "rpl/error.h"
#include "rpl/roofline.h"

void rpl_dag_opts_init(rpl_dag_opts *opts)
{
    memset(opts, 0, sizeof(*opts));
    opts->infer = RPL_DAG_INFER_AUTO;
    opts->gap_ns = RPL_DAG_GAP_NS_DEFAULT;
    opts->tolerance_ns = RPL_DAG_TOLERANCE_NS_DEFAULT;
}

const char *rpl_dag_edge_kind_name(rpl_dag_edge_kind kind)
{
    switch (kind) {
    case RPL_DAG_EDGE_PROGRAM_ORDER:
        return "program_order";
    case RPL_DAG_EDGE_EVENT_WAIT:
        return "event_wait";
    case RPL_DAG_EDGE_INFERRED:
        return "inferred";
    case RPL_DAG_EDGE_HOST_SYNC:
        return "host_sync";
    case RPL_DAG_EDGE_DEFAULT_STREAM:
        return "default_stream";
    }
    return "unknown";
}

const char *rpl_dag_lane_kind_name(rpl_dag_lane_kind kind)
{
    switch (kind) {
    case RPL_DAG_LANE_STREAM:
        return "stream";
    case RPL_DAG_LANE_QUEUE:
        return "queue";
    case RPL_DAG_LANE_PROCESS:
        return "process";
    }
    return "unknown";
}

void rpl_dag_free(rpl_dag *dag)
{
    if (!dag)
        return;
    for (uint32_t l = 0; l < dag->lane_count; l++)
        free((char *)dag->lanes[l].name);
    free(dag->nodes);
    free(dag->edges);
    free(dag->out_first);
    free(dag->lanes);
    free(dag->lane_nodes);
    free(dag->symbols);
    free(dag->path);
    free(dag);
}

/* The options into b->dag, and the kernel filter: the caller's, else a default one in *own. */
static int take_opts(rpl_dag_builder *b, const rpl_dag_opts *opts, rpl_kernel_filter *own,
                     bool *own_filter)
{
    int rc;

    if (opts)
        b->dag->opts = *opts;
    else
        rpl_dag_opts_init(&b->dag->opts);
    if (b->dag->opts.gap_ns < 0 || b->dag->opts.tolerance_ns < 0)
        return rpl_error_set(RPL_EUSAGE, "dag gap and tolerance must not be negative");
    b->filter = b->dag->opts.filter;
    b->dag->opts.filter = NULL;
    if (b->filter)
        return 0;
    rc = rpl_kernel_filter_init(own, NULL, NULL, false);
    if (rc == 0) {
        *own_filter = true;
        b->filter = own;
    }
    return rc;
}

/*
 * The edges the API regions give: event waits, host synchronisation and
 * the default stream's barriers.  Sets has_sync[p] for every process p
 * with a record, wait or blocking call.
 */
static int api_edges(rpl_dag_builder *b, uint8_t *has_sync)
{
    rpl_dag_deps deps = {0};
    bool needed = false;
    int rc = rpl_dag_deps_scan(&deps, b, has_sync, &needed);

    if (rc == 0 && needed)
        rc = rpl_dag_deps_index(&deps);
    if (rc == 0 && needed)
        rc = rpl_dag_event_waits(&deps);
    if (rc == 0 && needed)
        rc = rpl_dag_host_edges(&deps);
    rpl_dag_deps_release(&deps);
    return rc;
}

/* Inferred edges in the processes the options give them: flags[p] is has_sync on entry. */
static int inferred_edges(rpl_dag_builder *b, uint8_t *flags)
{
    rpl_dag_infer mode = b->dag->opts.infer;

    for (uint32_t p = 0; p < b->process_count; p++) {
        flags[p] = mode == RPL_DAG_INFER_ALWAYS || (mode == RPL_DAG_INFER_AUTO && !flags[p]);
        b->dag->inferred_processes += flags[p];
    }
    return rpl_dag_infer_edges(b, flags);
}

static int build(rpl_dag **out, const rpl_trace *trace, rpl_trace *release,
                 const rpl_dag_opts *opts)
{
    rpl_dag_builder b = {.trace = trace, .release = release};
    rpl_kernel_filter own;
    bool own_filter = false;
    uint8_t *flags = NULL;
    int rc;

    *out = NULL;
    if (!(b.dag = calloc(1, sizeof(*b.dag))))
        return rpl_error_oom();
    rc = take_opts(&b, opts, &own, &own_filter);
    if (rc == 0)
        rc = rpl_dag_launch_info(&b);
    if (rc == 0)
        rc = rpl_dag_nodes_build(&b);
    if (rc == 0 && !(flags = calloc((size_t)b.process_count + 1, 1)))
        rc = rpl_error_oom();
    if (rc == 0)
        rc = api_edges(&b, flags);
    rpl_dag_launch_info_release(&b);
#ifdef __GLIBC__
    /* The dependency tables were the largest temporaries: hand their pages back now. */
    malloc_trim(0);
#endif
    if (rc == 0)
        rc = inferred_edges(&b, flags);
    if (rc == 0)
        rc = rpl_dag_edges_finish(&b);
    if (rc == 0)
        rc = rpl_dag_solve(b.dag, trace);
    if (rc == 0) /* the priorities' headroom, from the counters (roofline_dag.c) */
        rc = rpl_roofline_dag_headroom(b.dag, trace);
    if (own_filter)
        rpl_kernel_filter_release(&own);
    free(flags);
    free(b.edges);
    free(b.pids);
    free(b.process_of);
    free(b.node_of_op);
    if (rc) {
        rpl_dag_free(b.dag);
        return rc;
    }
    *out = b.dag;
    return 0;
}

int rpl_dag_build(rpl_dag **out, const rpl_trace *trace, const rpl_dag_opts *opts)
{
    return build(out, trace, NULL, opts);
}

int rpl_dag_build_release_api(rpl_dag **out, rpl_trace *trace, const rpl_dag_opts *opts)
{
    int rc = build(out, trace, trace, opts);

    rpl_trace_release_api(trace);
    return rc;
}
