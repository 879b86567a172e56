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
                      .pid = pid,
                      .tid = TTID,
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
                    .pid = pid,
                    .tid = TTID,
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
                    .pid = TPID,
                    .tid = TTID,
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

#endif
