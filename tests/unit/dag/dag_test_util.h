/*
 * Shared by the DAG unit tests: builders for small in-memory traces and an
 * independent brute-force longest path.  Include after <cmocka.h>.
 */
#ifndef RPL_TEST_DAG_UTIL_H
#define RPL_TEST_DAG_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/dag.h"
#include "rpl/error.h"
#include "../assert_near.h"
#include "rpl/trace.h"

#define TPID 100
#define TTID 101

static inline rpl_trace *t_new(void)
{
    rpl_trace *t;
    rpl_source s = {.path = "unit", .schema_version = "3"};
    rpl_process p = {.pid = TPID, .ppid = 1, .command = "unit"};
    rpl_agent a = {.id = 1, .type = RPL_AGENT_GPU, .name = "gfx942"};

    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_trace_add_source(t, &s, NULL), 0);
    assert_int_equal(rpl_trace_add_process(t, &p, NULL), 0);
    assert_int_equal(rpl_trace_add_agent(t, &a, NULL), 0);
    return t;
}

/* A stream (or queue) with rocpd id `id` in process `pid`; returns its index. */
static inline uint32_t t_stream(rpl_trace *t, int64_t id, int64_t pid)
{
    char name[32];
    rpl_queue q = {.id = id, .pid = pid, .name = name};
    uint32_t i;

    snprintf(name, sizeof(name), "Stream %lld", (long long)id);
    assert_int_equal(rpl_trace_add_stream(t, &q, &i), 0);
    return i;
}

static inline uint32_t t_queue(rpl_trace *t, int64_t id, int64_t pid)
{
    char name[32];
    rpl_queue q = {.id = id, .pid = pid, .name = name};
    uint32_t i;

    snprintf(name, sizeof(name), "Queue %lld", (long long)id);
    assert_int_equal(rpl_trace_add_queue(t, &q, &i), 0);
    return i;
}

static inline uint32_t t_symbol(rpl_trace *t, const char *name)
{
    rpl_kernel_symbol s = {.id = t->symbols.count + 1, .name = name, .display_name = name};
    uint32_t i;

    assert_int_equal(rpl_trace_add_symbol(t, &s, &i), 0);
    return i;
}

static inline uint32_t t_dispatch_p(rpl_trace *t, int64_t pid, uint32_t queue, uint32_t stream,
                                    uint32_t kernel, int64_t start, int64_t end, int64_t corr)
{
    rpl_dispatch d = {.id = t->dispatches.count + 1,
                      .dispatch_id = t->dispatches.count + 1,
                      .kernel = kernel,
                      .agent = 0,
                      .queue = queue,
                      .stream = stream,
                      .thread = rpl_trace_thread(t, pid, TTID),
                      .start = start,
                      .end = end,
                      .correlation_id = corr};
    uint32_t i;

    assert_int_equal(rpl_trace_add_dispatch(t, &d, &i), 0);
    return i;
}

static inline uint32_t t_dispatch(rpl_trace *t, uint32_t queue, uint32_t stream, uint32_t kernel,
                                  int64_t start, int64_t end, int64_t corr)
{
    return t_dispatch_p(t, TPID, queue, stream, kernel, start, end, corr);
}

static inline uint32_t t_copy_p(rpl_trace *t, int64_t pid, uint32_t queue, uint32_t stream,
                                int64_t start, int64_t end, int64_t corr)
{
    rpl_memcpy m = {.id = t->memcpys.count + 1,
                    .name = "MEMORY_COPY_HOST_TO_DEVICE",
                    .kind = RPL_COPY_HOST_TO_DEVICE,
                    .thread = rpl_trace_thread(t, pid, TTID),
                    .start = start,
                    .end = end,
                    .size = 4096,
                    .src_agent = RPL_NONE,
                    .dst_agent = 0,
                    .queue = queue,
                    .stream = stream,
                    .correlation_id = corr};
    uint32_t i;

    assert_int_equal(rpl_trace_add_memcpy(t, &m, &i), 0);
    return i;
}

static inline uint32_t t_copy(rpl_trace *t, uint32_t queue, uint32_t stream, int64_t start,
                              int64_t end, int64_t corr)
{
    return t_copy_p(t, TPID, queue, stream, start, end, corr);
}

/* An API region with named arguments (names[i], values[i]). */
static inline void t_region(rpl_trace *t, const char *name, int64_t start, int64_t corr,
                            const char *const *names, const char *const *values, uint32_t n)
{
    rpl_region r = {.id = t->regions.count + 1,
                    .name = name,
                    .category = "HIP_RUNTIME_API_EXT",
                    .thread = rpl_trace_thread(t, TPID, TTID),
                    .start = start,
                    .end = start + 1,
                    .correlation_id = corr};
    rpl_arg args[4];

    for (uint32_t i = 0; i < n; i++)
        args[i] = (rpl_arg){names[i], "void*", values[i]};
    assert_int_equal(rpl_trace_add_region(t, &r, args, n, NULL), 0);
}

static inline void t_record(rpl_trace *t, int64_t at, const char *event, const char *stream)
{
    const char *n[] = {"event", "stream"}, *v[] = {event, stream};

    t_region(t, "hipEventRecord", at, 0, n, v, 2);
}

static inline void t_wait(rpl_trace *t, int64_t at, const char *stream, const char *event)
{
    const char *n[] = {"stream", "event", "flags"}, *v[] = {stream, event, "0"};

    t_region(t, "hipStreamWaitEvent", at, 0, n, v, 3);
}

static inline void t_launch(rpl_trace *t, int64_t at, int64_t corr, const char *stream)
{
    const char *n[] = {"function_address", "stream"}, *v[] = {"0x1000", stream};

    t_region(t, "hipLaunchKernel", at, corr, n, v, 2);
}

/* The node of dispatch `d` (or copy `c` when is_copy). */
static inline uint32_t t_node(const rpl_dag *dag, int is_copy, uint32_t ref)
{
    for (uint32_t i = 0; i < dag->node_count; i++)
        if (dag->nodes[i].ref == ref &&
            dag->nodes[i].kind == (is_copy ? RPL_DAG_NODE_COPY : RPL_DAG_NODE_DISPATCH))
            return i;
    fail_msg("no node for %s %u", is_copy ? "copy" : "dispatch", ref);
    return RPL_NONE;
}

/* Number of edges src -> dst of `kind` (-1: any kind). */
static inline int t_edges(const rpl_dag *dag, uint32_t src, uint32_t dst, int kind)
{
    int n = 0;

    for (uint32_t e = dag->out_first[src]; e < dag->out_first[src + 1]; e++)
        if (dag->edges[e].dst == dst && (kind < 0 || dag->edges[e].kind == kind))
            n++;
    return n;
}

static inline rpl_dag *t_build(const rpl_trace *t, rpl_dag_infer infer, int64_t gap)
{
    rpl_dag_opts o;
    rpl_dag *dag = NULL;

    rpl_dag_opts_init(&o);
    o.infer = infer;
    o.gap_ns = gap;
    if (rpl_dag_build(&dag, t, &o) != 0)
        fail_msg("rpl_dag_build: %s", rpl_error_last()->message);
    return dag;
}

/* The two DAGs have the same nodes, edges, path and counts. */
static inline void t_assert_same_dag(const rpl_dag *a, const rpl_dag *b)
{
    assert_int_equal(a->node_count, b->node_count);
    for (uint32_t i = 0; i < a->node_count; i++) {
        const rpl_dag_node *x = &a->nodes[i], *y = &b->nodes[i];

        assert_int_equal(x->start, y->start);
        assert_int_equal(x->end, y->end);
        assert_int_equal(x->earliest_start, y->earliest_start);
        assert_int_equal(x->latest_start, y->latest_start);
        assert_int_equal(x->ref, y->ref);
        assert_int_equal(x->lane, y->lane);
        assert_int_equal(x->kind, y->kind);
        assert_int_equal(x->on_path, y->on_path);
    }
    assert_int_equal(a->edge_count, b->edge_count);
    for (uint32_t e = 0; e < a->edge_count; e++) {
        assert_int_equal(a->edges[e].src, b->edges[e].src);
        assert_int_equal(a->edges[e].dst, b->edges[e].dst);
        assert_int_equal(a->edges[e].kind, b->edges[e].kind);
    }
    assert_int_equal(a->path_len, b->path_len);
    for (uint32_t k = 0; k < a->path_len; k++)
        assert_int_equal(a->path[k], b->path[k]);
    assert_memory_equal(a->edge_counts, b->edge_counts, sizeof(a->edge_counts));
    assert_int_equal(a->sync_regions, b->sync_regions);
    assert_int_equal(a->waits_unresolved, b->waits_unresolved);
    assert_int_equal(a->blocking_calls, b->blocking_calls);
    assert_int_equal(a->blocking_unresolved, b->blocking_unresolved);
    assert_int_equal(a->host_edges_dropped, b->host_edges_dropped);
    assert_int_equal(a->legacy_lanes, b->legacy_lanes);
    assert_int_equal(a->per_thread_lanes, b->per_thread_lanes);
    assert_int_equal(a->nonblocking_lanes, b->nonblocking_lanes);
    assert_int_equal(a->inferred_processes, b->inferred_processes);
    assert_int_equal(a->critical_path_ns, b->critical_path_ns);
}

/*
 * t_build, checked against rpl_dag_build_release_api on the same trace:
 * the same DAG, and the trace keeps no API regions.  Returns the first.
 */
static inline rpl_dag *t_build_released(rpl_trace *t, rpl_dag_infer infer, int64_t gap)
{
    rpl_dag *dag = t_build(t, infer, gap), *released = NULL;
    rpl_dag_opts o;

    rpl_dag_opts_init(&o);
    o.infer = infer;
    o.gap_ns = gap;
    if (rpl_dag_build_release_api(&released, t, &o) != 0)
        fail_msg("rpl_dag_build_release_api: %s", rpl_error_last()->message);
    t_assert_same_dag(dag, released);
    assert_int_equal(t->regions.count, 0);
    assert_int_equal(t->args.count, 0);
    rpl_dag_free(released);
    return dag;
}

#endif
