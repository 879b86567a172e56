/*
 * The DAG's rules case by case: the inferred-edge rule, event record/wait
 * resolution, lane choice, contradictions and cycles, dominance and the
 * speedup ceiling, and the dag.json / Perfetto / SVG outputs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dag_test_util.h"
#include "rpl/dag_report.h"
#include "rpl/fsutil.h"

/* Two streams (lanes) A and B in one process, plus kernels. */
typedef struct two {
    rpl_trace *t;
    uint32_t a, b, k, helper;
} two;

static two two_streams(void)
{
    two s;

    s.t = t_new();
    s.a = t_stream(s.t, 1, TPID);
    s.b = t_stream(s.t, 2, TPID);
    s.k = t_symbol(s.t, "gemm");
    s.helper = t_symbol(s.t, "__amd_rocclr_fillBufferAligned");
    return s;
}

/* ---- inferred edges ------------------------------------------------------ */

static void test_infer_basic_and_gap(void **state)
{
    two s = two_streams();
    uint32_t a1 = t_dispatch(s.t, RPL_NONE, s.a, s.k, 0, 100, 0);
    uint32_t b1 = t_dispatch(s.t, RPL_NONE, s.b, s.k, 105, 200, 0);
    uint32_t b2 = t_dispatch(s.t, RPL_NONE, s.b, s.k, 1000, 1100, 0);
    uint32_t a2 = t_dispatch(s.t, RPL_NONE, s.a, s.k, 1111, 1200, 0);
    rpl_dag *dag = t_build(s.t, RPL_DAG_INFER_AUTO, 10);

    (void)state;
    /* a1 ended 5 ns before b1 started: inferred.  b2 ended 11 ns before a2: over the gap. */
    assert_int_equal(t_edges(dag, t_node(dag, 0, a1), t_node(dag, 0, b1), RPL_DAG_EDGE_INFERRED),
                     1);
    assert_int_equal(t_edges(dag, t_node(dag, 0, b2), t_node(dag, 0, a2), -1), 0);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_INFERRED], 1);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_PROGRAM_ORDER], 2);
    assert_int_equal(dag->inferred_processes, 1);
    /* The path follows the inferred edge: a1 (100) + b1 (95) + b2 (100) = 295 > a1 + a2. */
    assert_int_equal(dag->critical_path_ns, 295);
    rpl_dag_free(dag);
    dag = t_build(s.t, RPL_DAG_INFER_AUTO, 11);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_INFERRED], 2);
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

static void test_infer_latest_ending_wins(void **state)
{
    two s = two_streams();
    uint32_t c = t_stream(s.t, 3, TPID);
    uint32_t a1 = t_dispatch(s.t, RPL_NONE, s.a, s.k, 0, 100, 0);
    uint32_t c1 = t_dispatch(s.t, RPL_NONE, c, s.k, 0, 103, 0);
    uint32_t b1 = t_dispatch(s.t, RPL_NONE, s.b, s.k, 105, 200, 0);
    rpl_dag *dag = t_build(s.t, RPL_DAG_INFER_AUTO, 1000);

    (void)state;
    assert_int_equal(t_edges(dag, t_node(dag, 0, c1), t_node(dag, 0, b1), RPL_DAG_EDGE_INFERRED),
                     1);
    assert_int_equal(t_edges(dag, t_node(dag, 0, a1), t_node(dag, 0, b1), -1), 0);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_INFERRED], 1);
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

static void test_infer_own_lane_explains(void **state)
{
    two s = two_streams();

    /* b0 on b1's own stream ended last: program order explains b1, no inferred edge. */
    t_dispatch(s.t, RPL_NONE, s.a, s.k, 0, 100, 0);
    t_dispatch(s.t, RPL_NONE, s.b, s.k, 0, 104, 0);
    t_dispatch(s.t, RPL_NONE, s.b, s.k, 105, 200, 0);
    rpl_dag *dag = t_build(s.t, RPL_DAG_INFER_AUTO, 1000);

    (void)state;
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_INFERRED], 0);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_PROGRAM_ORDER], 1);
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

static void test_infer_ties_and_zero_durations(void **state)
{
    two s = two_streams();
    uint32_t c = t_stream(s.t, 3, TPID);
    uint32_t a1 = t_dispatch(s.t, RPL_NONE, s.a, s.k, 0, 100, 0);
    uint32_t c1 = t_dispatch(s.t, RPL_NONE, c, s.k, 50, 100, 0);
    /* Zero-length at exactly b1's start: it started with b1, not before it. */
    uint32_t z = t_dispatch(s.t, RPL_NONE, s.a, s.k, 105, 105, 0);
    uint32_t b1 = t_dispatch(s.t, RPL_NONE, s.b, s.k, 105, 200, 0);
    rpl_dag *dag = t_build(s.t, RPL_DAG_INFER_AUTO, 1000);

    (void)state;
    /* Equal ends: the later start (c1) wins. */
    assert_int_equal(t_edges(dag, t_node(dag, 0, c1), t_node(dag, 0, b1), RPL_DAG_EDGE_INFERRED),
                     1);
    assert_int_equal(t_edges(dag, t_node(dag, 0, a1), t_node(dag, 0, b1), -1), 0);
    assert_int_equal(t_edges(dag, t_node(dag, 0, z), t_node(dag, 0, b1), -1), 0);
    /* z itself follows c1 (ended 5 ns before) on another lane. */
    assert_int_equal(t_edges(dag, t_node(dag, 0, c1), t_node(dag, 0, z), RPL_DAG_EDGE_INFERRED), 1);
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

static void test_infer_not_across_processes(void **state)
{
    rpl_trace *t = t_new();
    uint32_t a = t_stream(t, 1, TPID), b = t_stream(t, 2, TPID + 1), k = t_symbol(t, "gemm");
    rpl_dag *dag;

    (void)state;
    t_dispatch_p(t, TPID, RPL_NONE, a, k, 0, 100, 0);
    t_dispatch_p(t, TPID + 1, RPL_NONE, b, k, 101, 200, 0);
    dag = t_build(t, RPL_DAG_INFER_AUTO, 1000);
    assert_int_equal(dag->edge_count, 0);
    assert_int_equal(dag->inferred_processes, 2);
    assert_int_equal(dag->critical_path_ns, 100);
    rpl_dag_free(dag);
    rpl_trace_free(t);
}

static void test_infer_modes_with_sync_regions(void **state)
{
    two s = two_streams();
    rpl_dag *dag;

    (void)state;
    t_dispatch(s.t, RPL_NONE, s.a, s.k, 0, 100, 0);
    t_dispatch(s.t, RPL_NONE, s.b, s.k, 101, 200, 0);
    /* A wait that resolves to nothing still marks the trace as carrying real dependencies. */
    t_record(s.t, 5000, "0xe1", "1");
    dag = t_build(s.t, RPL_DAG_INFER_AUTO, 1000);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_INFERRED], 0);
    assert_int_equal(dag->inferred_processes, 0);
    assert_int_equal(dag->sync_regions, 1);
    rpl_dag_free(dag);
    dag = t_build(s.t, RPL_DAG_INFER_ALWAYS, 1000);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_INFERRED], 1);
    rpl_dag_free(dag);
    dag = t_build(s.t, RPL_DAG_INFER_NEVER, 1000);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_INFERRED], 0);
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

/* ---- event record / stream wait ------------------------------------------ */

/*
 * A: a1 a2, B: b1 b2 with launch regions (pointer handles).  Record on A
 * after a1's launch, wait on B before b2's launch: a1 -> b2.
 */
static void test_wait_through_launch_regions(void **state)
{
    two s = two_streams();
    uint32_t a1 = t_dispatch(s.t, RPL_NONE, s.a, s.k, 100, 300, 11);
    uint32_t a2 = t_dispatch(s.t, RPL_NONE, s.a, s.k, 400, 500, 12);
    uint32_t b1 = t_dispatch(s.t, RPL_NONE, s.b, s.k, 100, 150, 21);
    uint32_t b2 = t_dispatch(s.t, RPL_NONE, s.b, s.k, 310, 400, 22);
    rpl_dag *dag;

    (void)state;
    t_launch(s.t, 10, 11, "0x55aa");
    t_launch(s.t, 30, 12, "0x55aa");
    t_launch(s.t, 12, 21, "0x77bb");
    t_launch(s.t, 40, 22, "0x77bb");
    t_record(s.t, 20, "0xe1", "0x55aa");
    t_wait(s.t, 35, "0x77bb", "0xe1");
    dag = t_build(s.t, RPL_DAG_INFER_AUTO, 1000);
    assert_int_equal(t_edges(dag, t_node(dag, 0, a1), t_node(dag, 0, b2), RPL_DAG_EDGE_EVENT_WAIT),
                     1);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_EVENT_WAIT], 1);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_INFERRED], 0);
    assert_int_equal(dag->sync_regions, 2);
    assert_int_equal(dag->waits_unresolved, 0);
    /* a1 (200) -> b2 (90) = 290 beats a1 + a2 = 300?  No: a2 follows a1 too. */
    assert_int_equal(dag->critical_path_ns, 300);
    assert_true(dag->nodes[t_node(dag, 0, a2)].on_path);
    assert_false(dag->nodes[t_node(dag, 0, b1)].on_path);
    assert_int_equal(rpl_dag_node_slack(&dag->nodes[t_node(dag, 0, b2)]), 10);
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

static void test_wait_driver_spelling_and_stream_ids(void **state)
{
    two s = two_streams();
    const char *rn[] = {"hEvent", "hStream"}, *rv[] = {"0xe9", "1"};
    const char *wn[] = {"hStream", "hEvent", "Flags"}, *wv[] = {"2", "0xe9", "0"};
    uint32_t a1 = t_dispatch(s.t, RPL_NONE, s.a, s.k, 100, 300, 0);
    uint32_t b1 = t_dispatch(s.t, RPL_NONE, s.b, s.k, 350, 400, 0);
    rpl_dag *dag;

    (void)state;
    /* No launch regions: handles are stream ids, enqueue times the GPU starts. */
    t_region(s.t, "cuEventRecord", 150, 0, rn, rv, 2);
    t_region(s.t, "cuStreamWaitEvent", 160, 0, wn, wv, 3);
    dag = t_build(s.t, RPL_DAG_INFER_AUTO, 1000);
    assert_int_equal(t_edges(dag, t_node(dag, 0, a1), t_node(dag, 0, b1), RPL_DAG_EDGE_EVENT_WAIT),
                     1);
    assert_int_equal(dag->critical_path_ns, 250);
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

static void test_wait_latest_record_wins(void **state)
{
    two s = two_streams();
    uint32_t c = t_stream(s.t, 3, TPID);
    uint32_t a1 = t_dispatch(s.t, RPL_NONE, s.a, s.k, 100, 200, 0);
    uint32_t c1 = t_dispatch(s.t, RPL_NONE, c, s.k, 100, 250, 0);
    uint32_t b1 = t_dispatch(s.t, RPL_NONE, s.b, s.k, 300, 400, 0);
    rpl_dag *dag;

    (void)state;
    t_record(s.t, 150, "0xe1", "1");
    t_record(s.t, 160, "0xe1", "3"); /* the same event again, on stream 3 */
    t_wait(s.t, 170, "2", "0xe1");
    dag = t_build(s.t, RPL_DAG_INFER_AUTO, 1000);
    assert_int_equal(t_edges(dag, t_node(dag, 0, c1), t_node(dag, 0, b1), RPL_DAG_EDGE_EVENT_WAIT),
                     1);
    assert_int_equal(t_edges(dag, t_node(dag, 0, a1), t_node(dag, 0, b1), -1), 0);
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

static void test_wait_unresolved_and_empty_record(void **state)
{
    two s = two_streams();
    rpl_dag *dag;

    (void)state;
    t_dispatch(s.t, RPL_NONE, s.a, s.k, 100, 200, 0);
    t_dispatch(s.t, RPL_NONE, s.b, s.k, 300, 400, 0);
    t_wait(s.t, 50, "2", "0xe0");        /* no record of the event before it */
    t_record(s.t, 60, "0xe2", "0xdead"); /* a stream nobody launched on */
    t_wait(s.t, 70, "2", "0xe2");
    t_record(s.t, 80, "0xe3", "1"); /* nothing enqueued on stream 1 yet: complete at once */
    t_wait(s.t, 90, "2", "0xe3");
    t_wait(s.t, 95, "0xbeef", "0xe3"); /* unknown waiting stream */
    dag = t_build(s.t, RPL_DAG_INFER_AUTO, 1000);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_EVENT_WAIT], 0);
    assert_int_equal(dag->waits_unresolved, 3);
    assert_int_equal(dag->sync_regions, 6); /* two records, four waits */
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

static void test_wait_contradiction_fails(void **state)
{
    two s = two_streams();
    rpl_dag *dag = NULL;
    rpl_dag_opts o;

    (void)state;
    /* b1 is made to wait for a1 but starts 3000 ns before a1 ends. */
    t_dispatch(s.t, RPL_NONE, s.a, s.k, 1000, 5000, 1);
    t_dispatch(s.t, RPL_NONE, s.b, s.k, 2000, 2500, 2);
    t_launch(s.t, 100, 1, "0xa");
    t_launch(s.t, 300, 2, "0xb");
    t_record(s.t, 150, "0xe1", "0xa");
    t_wait(s.t, 200, "0xb", "0xe1");
    rpl_dag_opts_init(&o);
    assert_int_equal(rpl_dag_build(&dag, s.t, &o), RPL_EINPUT);
    assert_null(dag);
    assert_non_null(strstr(rpl_error_last()->message, "contradictory timestamps"));
    assert_non_null(strstr(rpl_error_last()->message, "hipStreamWaitEvent"));
    /* Within a tolerance of 3000 ns it is accepted. */
    o.tolerance_ns = 3000;
    assert_int_equal(rpl_dag_build(&dag, s.t, &o), 0);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_EVENT_WAIT], 1);
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

/* An event wait backward within the tolerance plus an inferred edge forward: a cycle. */
static void test_cycle_fails(void **state)
{
    two s = two_streams();
    rpl_dag *dag = NULL;
    rpl_dag_opts o;

    (void)state;
    t_dispatch(s.t, RPL_NONE, s.a, s.k, 100, 100, 1); /* x */
    t_dispatch(s.t, RPL_NONE, s.b, s.k, 150, 150, 2); /* y */
    t_launch(s.t, 20, 1, "0xa");
    t_launch(s.t, 10, 2, "0xb");
    t_record(s.t, 12, "0xe1", "0xb"); /* y */
    t_wait(s.t, 15, "0xa", "0xe1");   /* -> x */
    rpl_dag_opts_init(&o);
    o.infer = RPL_DAG_INFER_ALWAYS; /* x -> y inferred */
    assert_int_equal(rpl_dag_build(&dag, s.t, &o), RPL_EINPUT);
    assert_null(dag);
    assert_non_null(strstr(rpl_error_last()->message, "dependency cycle"));
    o.infer = RPL_DAG_INFER_AUTO;
    assert_int_equal(rpl_dag_build(&dag, s.t, &o), 0);
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

static void test_bad_records_fail(void **state)
{
    rpl_trace *t = t_new();
    uint32_t k = t_symbol(t, "gemm");
    rpl_dag *dag = NULL;

    (void)state;
    t_dispatch(t, RPL_NONE, 7, k, 0, 10, 0); /* stream index 7 does not exist */
    assert_int_equal(rpl_dag_build(&dag, t, NULL), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "stream or queue"));
    t->dispatches.items[0].stream = RPL_NONE;
    t->dispatches.items[0].end = -5;
    assert_int_equal(rpl_dag_build(&dag, t, NULL), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "ends before it starts"));
    assert_null(dag);
    rpl_trace_free(t);
}

/* ---- lanes ---------------------------------------------------------------- */

static void test_lanes_queues_when_one_stream(void **state)
{
    rpl_trace *t = t_new();
    uint32_t s0 = t_stream(t, 0, TPID), q1 = t_queue(t, 1, TPID), q2 = t_queue(t, 2, TPID);
    uint32_t k = t_symbol(t, "gemm"), c;
    rpl_dag *dag;

    (void)state;
    /* HIP without stream tracking: everything on stream 0, two HW queues. */
    t_dispatch(t, q1, s0, k, 0, 100, 0);
    t_dispatch(t, q2, s0, k, 0, 100, 0);
    t_dispatch(t, q1, s0, k, 200, 300, 0);
    c = t_copy(t, RPL_NONE, s0, 400, 450, 0);   /* copies have no queue: the stream lane */
    t_copy(t, RPL_NONE, RPL_NONE, 500, 550, 0); /* neither: the process lane */
    dag = t_build(t, RPL_DAG_INFER_NEVER, 0);
    assert_int_equal(dag->lane_count, 4);
    assert_string_equal(dag->lanes[dag->nodes[t_node(dag, 0, 0)].lane].name, "Queue 1");
    assert_string_equal(dag->lanes[dag->nodes[t_node(dag, 0, 1)].lane].name, "Queue 2");
    assert_int_equal(dag->lanes[dag->nodes[t_node(dag, 1, c)].lane].kind, RPL_DAG_LANE_STREAM);
    assert_int_equal(dag->lanes[dag->nodes[t_node(dag, 1, c + 1)].lane].kind, RPL_DAG_LANE_PROCESS);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_PROGRAM_ORDER], 1);
    assert_int_equal(dag->critical_path_ns, 200);
    rpl_dag_free(dag);
    /* With a second stream in use the process uses streams. */
    t->dispatches.items[1].stream = t_stream(t, 5, TPID);
    dag = t_build(t, RPL_DAG_INFER_NEVER, 0);
    assert_int_equal(dag->lanes[dag->nodes[t_node(dag, 0, 0)].lane].kind, RPL_DAG_LANE_STREAM);
    /* Stream 0 now holds dispatches 0 and 2 and the first copy. */
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_PROGRAM_ORDER], 2);
    rpl_dag_free(dag);
    rpl_trace_free(t);
}

static void test_empty_trace(void **state)
{
    rpl_trace *t = t_new();
    rpl_dag *dag = t_build(t, RPL_DAG_INFER_AUTO, 0);
    cJSON *doc;

    (void)state;
    assert_int_equal(dag->node_count, 0);
    assert_int_equal(dag->critical_path_ns, 0);
    assert_int_equal(dag->span_ns, 0);
    assert_int_equal(dag->path_len, 0);
    assert_int_equal(dag->dominant, RPL_NONE);
    assert_int_equal(rpl_dag_json(&doc, dag, NULL, 0, NULL), 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(doc, "dominant_symbol")));
    cJSON_Delete(doc);
    rpl_dag_free(dag);
    rpl_trace_free(t);
}

/* ---- dominance, ceiling, outputs ---------------------------------------- */

static void test_helpers_never_dominate(void **state)
{
    two s = two_streams();
    uint32_t top[4], n;
    rpl_dag *dag;

    (void)state;
    t_dispatch(s.t, RPL_NONE, s.a, s.helper, 0, 700, 0);
    t_dispatch(s.t, RPL_NONE, s.a, s.k, 700, 1000, 0);
    t_copy(s.t, RPL_NONE, s.a, 1000, 1500, 0);
    dag = t_build(s.t, RPL_DAG_INFER_AUTO, 0);
    assert_int_equal(dag->critical_path_ns, 1500);
    assert_string_equal(dag->symbols[dag->dominant].name, "gemm");
    assert_near(dag->dominant_fraction, 300.0 / 1500.0);
    assert_near(dag->speedup_ceiling, 1.0 / (1.0 - 0.2));
    assert_int_equal(rpl_dag_priorities(dag, top, 4, &n), 0);
    assert_int_equal(n, 1);
    assert_string_equal(dag->symbols[top[0]].name, "gemm");
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

static void test_only_dominant_on_path(void **state)
{
    two s = two_streams();
    rpl_dag *dag;
    cJSON *doc;

    (void)state;
    t_dispatch(s.t, RPL_NONE, s.a, s.k, 0, 500, 0);
    t_dispatch(s.t, RPL_NONE, s.b, s.helper, 0, 100, 0);
    dag = t_build(s.t, RPL_DAG_INFER_AUTO, 0);
    assert_near(dag->dominant_fraction, 1.0);
    assert_true(isinf(dag->speedup_ceiling));
    assert_int_equal(rpl_dag_json(&doc, dag, NULL, 0, NULL), 0);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(doc, "speedup_ceiling")));
    assert_near(cJSON_GetObjectItem(doc, "dominant_fraction")->valuedouble, 1.0);
    assert_string_equal(cJSON_GetObjectItem(doc, "dominant_symbol")->valuestring, "gemm");
    assert_near(cJSON_GetObjectItem(doc, "overlap")->valuedouble, 600.0 / 500.0);
    cJSON_Delete(doc);
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

static void test_json_document(void **state)
{
    two s = two_streams();
    const char *inputs[] = {"/nonexistent/x.db"};
    uint32_t a1 = t_dispatch(s.t, RPL_NONE, s.a, s.k, 100, 300, 11);
    rpl_dag *dag;
    cJSON *doc, *edges, *prio, *path;

    (void)state;
    (void)a1;
    t_dispatch(s.t, RPL_NONE, s.b, s.k, 350, 400, 22);
    t_copy(s.t, RPL_NONE, s.b, 400, 450, 23);
    t_record(s.t, 150, "0xe1", "1");
    t_wait(s.t, 160, "2", "0xe1");
    dag = t_build(s.t, RPL_DAG_INFER_AUTO, 0);
    assert_int_equal(rpl_dag_json(&doc, dag, inputs, 1, "^__amd"), 0);
    assert_string_equal(cJSON_GetObjectItem(doc, "schema_version")->valuestring, "1.1");
    assert_int_equal(cJSON_GetObjectItem(doc, "critical_path_ns")->valuedouble, 300);
    assert_int_equal(cJSON_GetObjectItem(doc, "span_ns")->valuedouble, 350);
    assert_int_equal(cJSON_GetObjectItem(doc, "nodes_on_path")->valuedouble, 3);
    edges = cJSON_GetObjectItem(doc, "edges");
    assert_int_equal(cJSON_GetObjectItem(edges, "program_order")->valuedouble, 1);
    assert_int_equal(cJSON_GetObjectItem(edges, "event_wait")->valuedouble, 1);
    assert_int_equal(cJSON_GetObjectItem(edges, "inferred")->valuedouble, 0);
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "inputs"), 0)->valuestring,
                        "/nonexistent/x.db");
    prio = cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "priorities"), 0);
    assert_string_equal(cJSON_GetObjectItem(prio, "name")->valuestring, "gemm");
    assert_string_equal(cJSON_GetObjectItem(prio, "headroom_source")->valuestring, "placeholder");
    assert_int_equal(cJSON_GetObjectItem(prio, "score_ns")->valuedouble, 250);
    path = cJSON_GetObjectItem(doc, "critical_path");
    assert_int_equal(cJSON_GetArraySize(path), 3); /* gemm on A, gemm on B, the copy */
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(doc, "critical_path_truncated")));
    cJSON_Delete(doc);
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

static void test_perfetto_and_svg(void **state)
{
    two s = two_streams();
    uint32_t odd = t_symbol(s.t, "tile<float, 4> & \"more\"\x01");
    char *pf = NULL, *sv = NULL, *text = NULL;
    size_t len;
    cJSON *doc, *ev;
    int x = 0, flows_s = 0, flows_f = 0, threads = 0;
    rpl_dag *dag;

    (void)state;
    t_dispatch(s.t, RPL_NONE, s.a, s.k, 100, 300, 0);
    t_dispatch(s.t, RPL_NONE, s.b, odd, 350, 400, 0);
    t_dispatch(s.t, RPL_NONE, s.b, s.k, 500, 600, 0);
    t_record(s.t, 150, "0xe1", "1");
    t_wait(s.t, 160, "2", "0xe1");
    dag = t_build(s.t, RPL_DAG_INFER_AUTO, 0);
    assert_int_equal(rpl_path_join(&pf, RPL_TEST_TMP, "unit_dag.perfetto.json"), 0);
    assert_int_equal(rpl_path_join(&sv, RPL_TEST_TMP, "unit_dag.svg"), 0);
    assert_int_equal(rpl_dag_perfetto_write(pf, dag, s.t), 0);
    assert_int_equal(rpl_file_read_all(pf, 1 << 24, &text, &len), 0);
    doc = cJSON_Parse(text);
    assert_non_null(doc);
    cJSON_ArrayForEach(ev, cJSON_GetObjectItem(doc, "traceEvents"))
    {
        const char *ph = cJSON_GetObjectItem(ev, "ph")->valuestring, *name;

        x += strcmp(ph, "X") == 0;
        flows_s += strcmp(ph, "s") == 0;
        flows_f += strcmp(ph, "f") == 0;
        name = cJSON_GetObjectItem(ev, "name")->valuestring;
        threads += strcmp(ph, "M") == 0 && strcmp(name, "thread_name") == 0;
    }
    assert_int_equal(x, 3 + (int)dag->path_len); /* every node, and the path track */
    assert_int_equal(flows_s, 1);
    assert_int_equal(flows_f, 1);
    assert_int_equal(threads, 3); /* two streams and the critical path */
    cJSON_Delete(doc);
    free(text);
    assert_int_equal(rpl_dag_svg_write(sv, dag), 0);
    assert_int_equal(rpl_file_read_all(sv, 1 << 24, &text, &len), 0);
    assert_non_null(strstr(text, "<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_non_null(strstr(text, "Stream 2"));
    assert_non_null(strstr(text, "tile&lt;float, 4&gt; &amp; &quot;more&quot;?"));
    assert_null(strstr(text, "\x01"));
    free(text);
    free(pf);
    free(sv);
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_infer_basic_and_gap),
        cmocka_unit_test(test_infer_latest_ending_wins),
        cmocka_unit_test(test_infer_own_lane_explains),
        cmocka_unit_test(test_infer_ties_and_zero_durations),
        cmocka_unit_test(test_infer_not_across_processes),
        cmocka_unit_test(test_infer_modes_with_sync_regions),
        cmocka_unit_test(test_wait_through_launch_regions),
        cmocka_unit_test(test_wait_driver_spelling_and_stream_ids),
        cmocka_unit_test(test_wait_latest_record_wins),
        cmocka_unit_test(test_wait_unresolved_and_empty_record),
        cmocka_unit_test(test_wait_contradiction_fails),
        cmocka_unit_test(test_cycle_fails),
        cmocka_unit_test(test_bad_records_fail),
        cmocka_unit_test(test_lanes_queues_when_one_stream),
        cmocka_unit_test(test_empty_trace),
        cmocka_unit_test(test_helpers_never_dominate),
        cmocka_unit_test(test_only_dominant_on_path),
        cmocka_unit_test(test_json_document),
        cmocka_unit_test(test_perfetto_and_svg),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
