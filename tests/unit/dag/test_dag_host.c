/*
 * Property tests of the host-side edges (dag_host.c) on thousands of random
 * programs: one or two host threads launch kernels and copies on random
 * streams, the legacy default stream (null stream launches and synchronous
 * copies) or, in per-thread mode, the per-thread default stream, and call
 * device, stream and event synchronisations and synchronous copies, in the
 * HIP, CUDA runtime and CUDA driver spellings.  The test simulates the GPU
 * (every operation starts after what it really waits for), then derives
 * every dependency of the documented rules pair by pair, and checks that
 * the DAG has the same transitive closure, the same earliest and latest
 * starts and the same critical path length (Bellman-Ford style).  Before
 * them, the rules case by case: API names, legacy vs per-thread default
 * stream, synchronous copies, stream/event synchronisation and threads,
 * non-blocking streams, contradicted host edges.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_rng.h>

#include "dag_internal.h"
#include "dag_test_util.h"
#include "rpl/dag_report.h"

#define TRIALS    2000
#define MAX_OPS   48
#define MAX_CALLS 64
#define MAX_Q     4 /* explicit streams; the default stream is lane MAX_Q */

typedef struct spelling {
    const char *launch, *copy, *device, *stream_sync, *record, *event_sync, *stream_arg, *event_arg,
        *pt_launch, *pt_copy;
} spelling;

static const spelling spellings[] = {
    {"hipLaunchKernel", "hipMemcpy", "hipDeviceSynchronize", "hipStreamSynchronize",
     "hipEventRecord", "hipEventSynchronize", "stream", "event", "hipLaunchKernel_spt",
     "hipMemcpy_spt"},
    {"cudaLaunchKernel", "cudaMemcpy", "cudaDeviceSynchronize", "cudaStreamSynchronize",
     "cudaEventRecord", "cudaEventSynchronize", "stream", "event", "cudaLaunchKernel_ptsz",
     "cudaMemcpy_ptds"},
    {"cuLaunchKernel", "cuMemcpyHtoD_v2", "cuCtxSynchronize", "cuStreamSynchronize",
     "cuEventRecord", "cuEventSynchronize", "hStream", "hEvent", "cuLaunchKernel_ptsz",
     "cuMemcpyHtoD_v2_ptds"},
};

typedef struct op {
    int64_t issue, start, end;
    int64_t tid;
    uint32_t lane, ref;
    int is_copy;
} op;

/* A blocking call: what it waited for as a bit set of ops. */
typedef struct call {
    int64_t tid, end;
    uint64_t waited;
} call;

typedef struct trial {
    rpl_trace *t;
    op ops[MAX_OPS];
    uint32_t n;
    call calls[MAX_CALLS];
    uint32_t ncalls;
    uint64_t pred[MAX_OPS]; /* direct dependencies by the rules */
    int per_thread;         /* default stream launches are per-thread */
    int default_used;
} trial;

static void region(trial *tr, const char *name, int64_t tid, int64_t at, int64_t end, int64_t corr,
                   const char *n0, const char *v0)
{
    rpl_region r = {.id = tr->t->regions.count + 1,
                    .name = name,
                    .category = "API",
                    .thread = rpl_trace_thread(tr->t, TPID, tid),
                    .start = at,
                    .end = end,
                    .correlation_id = corr};
    rpl_arg a = {n0, "void*", v0};

    assert_int_equal(rpl_trace_add_region(tr->t, &r, &a, n0 ? 1 : 0, NULL), 0);
}

static void handle(char *buf, size_t size, uint32_t q)
{
    snprintf(buf, size, "0x7f00%04x", q + 1);
}

/* Ops of `lane` issued before `time`, as a bit set. */
static uint64_t lane_before(const trial *tr, uint32_t lane, int64_t time)
{
    uint64_t m = 0;

    for (uint32_t k = 0; k < tr->n; k++)
        if (tr->ops[k].lane == lane && tr->ops[k].issue < time)
            m |= 1ull << k;
    return m;
}

/* The latest end among a bit set of ops (0 if empty). */
static int64_t latest_end(const trial *tr, uint64_t set)
{
    int64_t e = 0;

    for (uint32_t k = 0; k < tr->n; k++)
        if (set >> k & 1 && tr->ops[k].end > e)
            e = tr->ops[k].end;
    return e;
}

/* Dependencies of a new op by the rules: program order, host calls, default stream. */
static uint64_t rule_preds(const trial *tr, const op *v)
{
    uint64_t p = lane_before(tr, v->lane, v->issue);
    int legacy = !tr->per_thread;

    for (uint32_t c = 0; c < tr->ncalls; c++)
        if (tr->calls[c].tid == v->tid && tr->calls[c].end <= v->issue)
            p |= tr->calls[c].waited;
    for (uint32_t k = 0; legacy && k < tr->n; k++) {
        const op *u = &tr->ops[k];

        if (u->issue < v->issue && u->lane != v->lane && (u->lane == MAX_Q || v->lane == MAX_Q))
            p |= 1ull << k;
    }
    return p;
}

static void add_op(trial *tr, gsl_rng *r, const spelling *sp, int64_t tid, int64_t *now,
                   uint32_t *stream, uint32_t kern, int64_t *corr)
{
    uint32_t q = (uint32_t)gsl_rng_uniform_int(r, MAX_Q + 1), k = tr->n;
    int sync_copy = q == MAX_Q && gsl_rng_uniform(r) < 0.5;
    op *o = &tr->ops[k];
    int64_t dur = gsl_rng_uniform(r) < 0.1 ? 0 : (int64_t)gsl_rng_uniform_int(r, 400);
    char h[32];
    const char *name;

    o->issue = *now;
    o->tid = tid;
    o->lane = q;
    o->is_copy = sync_copy || gsl_rng_uniform(r) < 0.2;
    tr->pred[k] = rule_preds(tr, o);
    o->start = o->issue + 20 + (int64_t)gsl_rng_uniform_int(r, 40);
    if (tr->pred[k] && latest_end(tr, tr->pred[k]) + 1 > o->start)
        o->start = latest_end(tr, tr->pred[k]) + 1 + (int64_t)gsl_rng_uniform_int(r, 30);
    o->end = o->start + dur;
    if (o->is_copy)
        o->ref = t_copy_p(tr->t, TPID, RPL_NONE, stream[q], o->start, o->end, *corr);
    else
        o->ref = t_dispatch_p(tr->t, TPID, RPL_NONE, stream[q], kern, o->start, o->end, *corr);
    tr->n++;
    tr->default_used |= q == MAX_Q;
    if (sync_copy) {
        /* A synchronous copy: returns when it ended, and waited for itself. */
        int64_t end = o->end + 1 + (int64_t)gsl_rng_uniform_int(r, 10);

        region(tr, tr->per_thread ? sp->pt_copy : sp->copy, tid, *now, end, *corr, NULL, NULL);
        tr->calls[tr->ncalls++] = (call){tid, end, 1ull << k};
        *now = end + 1;
    } else {
        if (q == MAX_Q)
            snprintf(h, sizeof(h), "0");
        else
            handle(h, sizeof(h), q);
        name = q == MAX_Q && tr->per_thread ? sp->pt_launch : sp->launch;
        region(tr, name, tid, *now, *now + 5, *corr, sp->stream_arg, h);
        *now += 6 + (int64_t)gsl_rng_uniform_int(r, 50);
    }
    (*corr)++;
}

/* A blocking call now on thread tid: device, stream or event (record + synchronise). */
static void add_call(trial *tr, gsl_rng *r, const spelling *sp, int64_t tid, int64_t *now,
                     int64_t *event_no)
{
    double x = gsl_rng_uniform(r);
    uint32_t q = (uint32_t)gsl_rng_uniform_int(r, MAX_Q);
    uint64_t waited;
    int64_t end;
    char h[32], ev[32];

    handle(h, sizeof(h), q);
    /* A stream that has had no launch yet is unknown to the trace: synchronise the device. */
    if (lane_before(tr, q, *now) == 0)
        x = 0;
    if (x < 0.3) {
        waited = 0;
        for (uint32_t l = 0; l <= MAX_Q; l++)
            waited |= lane_before(tr, l, *now);
        end = latest_end(tr, waited) + 1 > *now + 2 ? latest_end(tr, waited) + 1 : *now + 2;
        region(tr, sp->device, tid, *now, end, 0, NULL, NULL);
    } else if (x < 0.65) {
        waited = lane_before(tr, q, *now);
        end = latest_end(tr, waited) + 1 > *now + 2 ? latest_end(tr, waited) + 1 : *now + 2;
        region(tr, sp->stream_sync, tid, *now, end, 0, sp->stream_arg, h);
    } else {
        rpl_region rec = {.id = tr->t->regions.count + 1,
                          .name = sp->record,
                          .category = "API",
                          .thread = rpl_trace_thread(tr->t, TPID, tid),
                          .start = *now,
                          .end = *now + 1};
        rpl_arg args[2] = {{sp->event_arg, "void*", ev}, {sp->stream_arg, "void*", h}};
        uint64_t on_lane = lane_before(tr, q, *now);

        snprintf(ev, sizeof(ev), "0xe%04lld", (long long)++*event_no);
        assert_int_equal(rpl_trace_add_region(tr->t, &rec, args, 2, NULL), 0);
        /* The event captures the last op of the lane. */
        waited = on_lane ? 1ull << (63 - __builtin_clzll(on_lane)) : 0;
        *now += 2 + (int64_t)gsl_rng_uniform_int(r, 30);
        end = latest_end(tr, waited) + 1 > *now + 2 ? latest_end(tr, waited) + 1 : *now + 2;
        region(tr, sp->event_sync, tid, *now, end, 0, sp->event_arg, ev);
    }
    tr->calls[tr->ncalls++] = (call){tid, end, waited};
    *now = end + 1;
}

static void build(trial *tr, gsl_rng *r, const spelling *sp)
{
    uint32_t stream[MAX_Q + 1], kern = t_symbol(tr->t, "gemm"), nthreads;
    int64_t now[2] = {1000, 1001 + 2 * (int64_t)gsl_rng_uniform_int(r, 100)}, corr = 1,
            event_no = 0;
    uint32_t target = 1 + (uint32_t)gsl_rng_uniform_int(r, MAX_OPS);

    nthreads = 1 + (gsl_rng_uniform(r) < 0.3);
    for (uint32_t q = 0; q <= MAX_Q; q++)
        stream[q] = t_stream(tr->t, q == MAX_Q ? 7 : q + 11, TPID);
    /* Host edges are drawn in traces with at least one blocking or sync region. */
    add_call(tr, r, sp, TTID, &now[0], &event_no);
    while (tr->n < target && tr->ncalls + 1 < MAX_CALLS) {
        int64_t tid = nthreads == 2 && now[1] < now[0] ? TTID + 1 : TTID;
        int64_t *clock = &now[tid != TTID];

        if (gsl_rng_uniform(r) < 0.3)
            add_call(tr, r, sp, tid, clock, &event_no);
        else
            add_op(tr, r, sp, tid, clock, stream, kern, &corr);
        /* Threads act at even and odd times: no two operations are issued at once. */
        if ((*clock & 1) != (tid != TTID))
            (*clock)++;
    }
}

static void check(trial *tr, const rpl_dag *dag)
{
    uint32_t node_of[MAX_OPS];
    uint64_t want[MAX_OPS], got[MAX_OPS];
    int64_t es[MAX_OPS], ls[MAX_OPS], dur[MAX_OPS], cp = 0;

    if (getenv("DAG_HOST_DEBUG"))
        for (uint32_t k = 0; k < tr->n; k++)
            fprintf(stderr, "op %u lane %u tid %lld issue %lld start %lld end %lld pred %#llx\n", k,
                    tr->ops[k].lane, (long long)tr->ops[k].tid, (long long)tr->ops[k].issue,
                    (long long)tr->ops[k].start, (long long)tr->ops[k].end,
                    (unsigned long long)tr->pred[k]);
    for (uint32_t c = 0; getenv("DAG_HOST_DEBUG") && c < tr->ncalls; c++)
        fprintf(stderr, "call tid %lld end %lld waited %#llx\n", (long long)tr->calls[c].tid,
                (long long)tr->calls[c].end, (unsigned long long)tr->calls[c].waited);
    assert_int_equal(dag->node_count, tr->n);
    assert_int_equal(dag->host_edges_dropped, 0);
    assert_int_equal(dag->nonblocking_lanes, 0);
    assert_int_equal(dag->blocking_unresolved, 0);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_INFERRED], 0);
    assert_int_equal(dag->legacy_lanes, tr->default_used && !tr->per_thread);
    if (tr->per_thread)
        assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_DEFAULT_STREAM], 0);
    for (uint32_t k = 0; k < tr->n; k++) {
        node_of[k] = t_node(dag, tr->ops[k].is_copy, tr->ops[k].ref);
        dur[k] = tr->ops[k].end - tr->ops[k].start;
        want[k] = tr->pred[k];
        got[k] = 0;
    }
    /* Transitive closures: ops are created in dependency order. */
    for (uint32_t v = 0; v < tr->n; v++)
        for (uint32_t u = 0; u < v; u++)
            if (want[v] >> u & 1)
                want[v] |= want[u];
    for (uint32_t v = 0; v < tr->n; v++)
        for (uint32_t u = 0; u < tr->n; u++)
            if (t_edges(dag, node_of[u], node_of[v], -1) > 0) {
                if (u >= v) /* every edge follows the program's own order */
                    fail_msg("edge %u -> %u (kind %d) points backward", u, v,
                             dag->edges[dag->out_first[node_of[u]]].kind);
                got[v] |= 1ull << u;
            }
    for (uint32_t v = 0; v < tr->n; v++)
        for (uint32_t u = 0; u < v; u++)
            if (got[v] >> u & 1)
                got[v] |= got[u];
    for (uint32_t v = 0; v < tr->n; v++)
        if (got[v] != want[v])
            fail_msg("op %u: depends on %#llx, the rules say %#llx", v, (unsigned long long)got[v],
                     (unsigned long long)want[v]);
    /* Longest path over the rules' direct dependencies, pair by pair. */
    for (uint32_t v = 0; v < tr->n; v++) {
        es[v] = 0;
        for (uint32_t u = 0; u < v; u++)
            if (tr->pred[v] >> u & 1 && es[u] + dur[u] > es[v])
                es[v] = es[u] + dur[u];
        cp = es[v] + dur[v] > cp ? es[v] + dur[v] : cp;
    }
    for (uint32_t k = tr->n; k > 0; k--) {
        uint32_t u = k - 1;

        ls[u] = cp - dur[u];
        for (uint32_t v = u + 1; v < tr->n; v++)
            if (tr->pred[v] >> u & 1 && ls[v] - dur[u] < ls[u])
                ls[u] = ls[v] - dur[u];
    }
    assert_int_equal(dag->critical_path_ns, cp);
    for (uint32_t k = 0; k < tr->n; k++) {
        assert_int_equal(dag->nodes[node_of[k]].earliest_start, es[k]);
        assert_int_equal(dag->nodes[node_of[k]].latest_start, ls[k]);
    }
}

static void run_trials(int per_thread, unsigned long salt)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    trial *tr = calloc(1, sizeof(*tr));
    uint64_t host = 0, barriers = 0, pt_lanes = 0;

    for (unsigned long seed = 1; seed <= TRIALS; seed++) {
        rpl_dag *dag;

        gsl_rng_set(r, seed * 7919 + salt);
        memset(tr, 0, sizeof(*tr));
        tr->t = t_new();
        tr->per_thread = per_thread;
        build(tr, r, &spellings[seed % 3]);
        dag = t_build_released(tr->t, RPL_DAG_INFER_NEVER, 100);
        check(tr, dag);
        host += dag->edge_counts[RPL_DAG_EDGE_HOST_SYNC];
        barriers += dag->edge_counts[RPL_DAG_EDGE_DEFAULT_STREAM];
        pt_lanes += dag->per_thread_lanes;
        rpl_dag_free(dag);
        rpl_trace_free(tr->t);
    }
    free(tr);
    gsl_rng_free(r);
    /* The trials exercise what they are meant to. */
    assert_true(host > 2 * TRIALS);
    if (per_thread) {
        assert_int_equal(barriers, 0);
        assert_true(pt_lanes > TRIALS / 2);
    } else {
        assert_true(barriers > TRIALS);
        assert_int_equal(pt_lanes, 0);
    }
}

static void test_legacy_default_stream(void **state)
{
    (void)state;
    run_trials(0, 1);
}

static void test_per_thread_default_stream(void **state)
{
    (void)state;
    run_trials(1, 2);
}

/* ---- the rules case by case ---------------------------------------------- */

/* A region on thread TTID lasting [start, end], with up to one argument. */
static void h_region(rpl_trace *t, const char *name, int64_t start, int64_t end, int64_t corr,
                     const char *n0, const char *v0)
{
    rpl_region r = {.id = t->regions.count + 1,
                    .name = name,
                    .category = "API",
                    .thread = rpl_trace_thread(t, TPID, TTID),
                    .start = start,
                    .end = end,
                    .correlation_id = corr};
    rpl_arg a = {n0, "void*", v0};

    assert_int_equal(rpl_trace_add_region(t, &r, &a, n0 ? 1 : 0, NULL), 0);
}

static void expect_api(const char *name, int kind, bool per_thread, bool implicit_stream)
{
    rpl_dag_api a;

    rpl_dag_api_classify(name, &a);
    if (a.kind != kind || a.per_thread != per_thread || a.implicit_stream != implicit_stream)
        fail_msg("%s: kind %d per-thread %d implicit %d", name ? name : "(null)", a.kind,
                 a.per_thread, a.implicit_stream);
}

static void test_api_names(void **state)
{
    (void)state;
    expect_api("cudaMemcpy", RPL_DAG_API_BLOCKING_OP, false, true);
    expect_api("cudaMemcpy_ptds", RPL_DAG_API_BLOCKING_OP, true, true);
    expect_api("cudaMemcpy_ptds_v7000", RPL_DAG_API_BLOCKING_OP, true, true);
    expect_api("cuMemcpyDtoH_v2", RPL_DAG_API_BLOCKING_OP, false, true);
    expect_api("cuMemcpyDtoH_v2_ptds", RPL_DAG_API_BLOCKING_OP, true, true);
    expect_api("hipMemcpy_spt", RPL_DAG_API_BLOCKING_OP, true, true);
    expect_api("hipMemset", RPL_DAG_API_BLOCKING_OP, false, true);
    expect_api("hipMemcpyWithStream", RPL_DAG_API_BLOCKING_OP, false, false);
    expect_api("hipMemcpyAsync", RPL_DAG_API_OTHER, false, false);
    expect_api("cudaMemcpyAsync_ptsz", RPL_DAG_API_OTHER, true, false);
    expect_api("cudaLaunchKernel_ptsz", RPL_DAG_API_OTHER, true, false);
    expect_api("hipDeviceSynchronize", RPL_DAG_API_DEVICE_SYNC, false, false);
    expect_api("cuCtxSynchronize", RPL_DAG_API_DEVICE_SYNC, false, false);
    expect_api("cudaFree", RPL_DAG_API_DEVICE_SYNC, false, false);
    expect_api("cuMemFree_v2", RPL_DAG_API_DEVICE_SYNC, false, false);
    expect_api("cudaStreamSynchronize_ptsz", RPL_DAG_API_STREAM_SYNC, true, false);
    expect_api("hipStreamSynchronize_spt", RPL_DAG_API_STREAM_SYNC, true, false);
    expect_api("cuEventSynchronize", RPL_DAG_API_EVENT_SYNC, false, false);
    expect_api("cudaEventRecordWithFlags_ptsz", RPL_DAG_API_RECORD, true, false);
    expect_api("hipStreamWaitEvent_spt", RPL_DAG_API_WAIT, true, false);
    expect_api("cudaStreamQuery", RPL_DAG_API_OTHER, false, false);
    expect_api("_v2", RPL_DAG_API_OTHER, false, false);
    expect_api("", RPL_DAG_API_OTHER, false, false);
    expect_api(NULL, RPL_DAG_API_OTHER, false, false);
}

/*
 * k1 on stream A (issued at 10), then k2 on the default stream (issued at
 * 20, launched by `launch` with stream `handle`), then a device synchronise.
 */
static rpl_dag *default_stream_case(const char *launch, const char *handle, uint32_t *k1,
                                    uint32_t *k2, rpl_trace **out)
{
    rpl_trace *t = t_new();
    uint32_t a = t_stream(t, 1, TPID), d = t_stream(t, 7, TPID), k = t_symbol(t, "gemm");

    *k1 = t_dispatch(t, RPL_NONE, a, k, 100, 200, 1);
    *k2 = t_dispatch(t, RPL_NONE, d, k, 210, 300, 2);
    h_region(t, "hipLaunchKernel", 10, 15, 1, "stream", "0x55aa");
    h_region(t, launch, 20, 25, 2, "stream", handle);
    h_region(t, "hipDeviceSynchronize", 30, 301, 0, NULL, NULL);
    *out = t;
    return t_build(t, RPL_DAG_INFER_AUTO, 1000);
}

static void test_legacy_and_per_thread_default_stream(void **state)
{
    static const struct {
        const char *launch, *handle;
        int legacy;
    } cases[] = {
        {"hipLaunchKernel", "0", 1},
        {"cudaLaunchKernel", "0x0", 1},
        {"cuLaunchKernel", "(nil)", 1},
        {"cudaLaunchKernel", "0x1", 1}, /* cudaStreamLegacy */
        {"hipLaunchKernel_spt", "0", 0},
        {"cudaLaunchKernel_ptsz", "0x0", 0},
        {"cuLaunchKernel_ptsz", "NULL", 0},
        {"cudaLaunchKernel", "0x2", 0}, /* cudaStreamPerThread */
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint32_t k1, k2;
        rpl_trace *t;
        rpl_dag *dag = default_stream_case(cases[i].launch, cases[i].handle, &k1, &k2, &t);
        int edge =
            t_edges(dag, t_node(dag, 0, k1), t_node(dag, 0, k2), RPL_DAG_EDGE_DEFAULT_STREAM);

        if (edge != cases[i].legacy || (int)dag->legacy_lanes != cases[i].legacy ||
            (int)dag->per_thread_lanes != !cases[i].legacy)
            fail_msg("%s(%s): edge %d, %u legacy and %u per-thread lanes", cases[i].launch,
                     cases[i].handle, edge, dag->legacy_lanes, dag->per_thread_lanes);
        assert_int_equal(dag->critical_path_ns, cases[i].legacy ? 190 : 100);
        assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_INFERRED], 0);
        rpl_dag_free(dag);
        rpl_trace_free(t);
    }
}

/* A synchronous copy runs on the default stream: legacy for hipMemcpy, per-thread for _spt. */
static void test_sync_copy_default_stream(void **state)
{
    (void)state;
    for (int pt = 0; pt < 2; pt++) {
        rpl_trace *t = t_new();
        uint32_t a = t_stream(t, 1, TPID), d = t_stream(t, 7, TPID), k = t_symbol(t, "gemm");
        uint32_t k1 = t_dispatch(t, RPL_NONE, a, k, 100, 200, 1);
        uint32_t c = t_copy(t, RPL_NONE, d, 210, 300, 2);
        uint32_t k3 = t_dispatch(t, RPL_NONE, a, k, 320, 330, 3);
        rpl_dag *dag;

        h_region(t, "hipLaunchKernel", 10, 15, 1, "stream", "0x55aa");
        h_region(t, pt ? "hipMemcpy_spt" : "hipMemcpy", 20, 305, 2, NULL, NULL);
        h_region(t, "hipLaunchKernel", 310, 315, 3, "stream", "0x55aa");
        dag = t_build(t, RPL_DAG_INFER_AUTO, 1000);
        /*
         * The copy waits for k1 only on the legacy stream; k3 waits for the copy
         * (the host did), which the legacy stream's barrier says already.
         */
        assert_int_equal(t_edges(dag, t_node(dag, 0, k1), t_node(dag, 1, c), -1), !pt);
        assert_int_equal(t_edges(dag, t_node(dag, 1, c), t_node(dag, 0, k3),
                                 pt ? RPL_DAG_EDGE_HOST_SYNC : RPL_DAG_EDGE_DEFAULT_STREAM),
                         1);
        assert_int_equal(dag->blocking_calls, 1);
        assert_int_equal(dag->critical_path_ns, pt ? 110 : 200);
        rpl_dag_free(dag);
        rpl_trace_free(t);
    }
}

/*
 * Stream and event synchronisation: what the call waited for, the first
 * operation of each lane issued after it, and only on the calling thread.
 */
static void test_stream_and_event_sync(void **state)
{
    rpl_trace *t = t_new();
    uint32_t a = t_stream(t, 1, TPID), b = t_stream(t, 2, TPID), c = t_stream(t, 3, TPID);
    uint32_t k = t_symbol(t, "gemm");
    uint32_t a1 = t_dispatch(t, RPL_NONE, a, k, 100, 200, 1);
    uint32_t a2 = t_dispatch(t, RPL_NONE, a, k, 210, 260, 2);
    uint32_t b1 = t_dispatch(t, RPL_NONE, b, k, 270, 280, 3);
    uint32_t b2 = t_dispatch(t, RPL_NONE, b, k, 290, 300, 4);
    uint32_t c1 = t_dispatch(t, RPL_NONE, c, k, 280, 285, 5);
    uint32_t c2 = t_dispatch(t, RPL_NONE, c, k, 300, 310, 6);
    rpl_region other = {.id = 99,
                        .name = "hipLaunchKernel",
                        .thread = rpl_trace_thread(t, TPID, TTID + 1),
                        .start = 265,
                        .end = 266,
                        .correlation_id = 5};
    rpl_arg oa = {"stream", "void*", "0xcc"};
    rpl_dag *dag;

    (void)state;
    h_region(t, "hipLaunchKernel", 10, 11, 1, "stream", "0xaa");
    h_region(t, "hipEventRecord", 12, 13, 0, "event", "0xe1"); /* no stream: unresolved */
    h_region(t, "hipLaunchKernel", 14, 15, 2, "stream", "0xaa");
    h_region(t, "hipStreamSynchronize", 20, 261, 0, "stream", "0xaa");
    h_region(t, "hipLaunchKernel", 262, 263, 3, "stream", "0xbb");
    h_region(t, "hipLaunchKernel", 264, 265, 4, "stream", "0xbb");
    assert_int_equal(rpl_trace_add_region(t, &other, &oa, 1, NULL), 0); /* c1, another thread */
    h_region(t, "hipEventSynchronize", 270, 271, 0, "event", "0xe1");
    h_region(t, "hipStreamSynchronize", 272, 273, 0, "stream", "0xdead");
    h_region(t, "hipLaunchKernel", 290, 291, 6, "stream", "0xcc");
    dag = t_build(t, RPL_DAG_INFER_AUTO, 1000);
    /* b1 is the first of B issued after the sync of A: a2 -> b1, and not a1 (program order). */
    assert_int_equal(t_edges(dag, t_node(dag, 0, a2), t_node(dag, 0, b1), RPL_DAG_EDGE_HOST_SYNC),
                     1);
    assert_int_equal(t_edges(dag, t_node(dag, 0, a1), t_node(dag, 0, b1), -1), 0);
    assert_int_equal(t_edges(dag, t_node(dag, 0, a2), t_node(dag, 0, b2), -1), 0);
    /* c1 came from another thread: no host edge; c2 is issued after the sync by this thread. */
    assert_int_equal(t_edges(dag, t_node(dag, 0, a2), t_node(dag, 0, c1), -1), 0);
    assert_int_equal(t_edges(dag, t_node(dag, 0, a2), t_node(dag, 0, c2), RPL_DAG_EDGE_HOST_SYNC),
                     1);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_HOST_SYNC], 2);
    /* The event's record named no stream; 0xdead names no stream of the trace. */
    assert_int_equal(dag->blocking_unresolved, 2);
    assert_int_equal(dag->blocking_calls, 3);
    assert_int_equal(dag->critical_path_ns, 100 + 50 + 10 + 10);
    rpl_dag_free(dag);
    rpl_trace_free(t);
}

/* A stream whose work overlaps the legacy stream's was non-blocking: no barriers for it. */
static void test_nonblocking_stream_overlaps(void **state)
{
    rpl_trace *t = t_new();
    uint32_t a = t_stream(t, 1, TPID), b = t_stream(t, 2, TPID), d = t_stream(t, 7, TPID);
    uint32_t k = t_symbol(t, "gemm");
    uint32_t a1 = t_dispatch(t, RPL_NONE, a, k, 100, 4000, 1); /* beyond the 1 us tolerance */
    uint32_t b1 = t_dispatch(t, RPL_NONE, b, k, 100, 120, 2);
    uint32_t d1 = t_dispatch(t, RPL_NONE, d, k, 150, 250, 3);
    rpl_dag *dag;

    (void)state;
    h_region(t, "cudaLaunchKernel", 10, 11, 1, "stream", "1");
    h_region(t, "cudaLaunchKernel", 12, 13, 2, "stream", "2");
    h_region(t, "cudaLaunchKernel", 14, 15, 3, "stream", "0");
    h_region(t, "cudaDeviceSynchronize", 16, 4001, 0, NULL, NULL);
    dag = t_build(t, RPL_DAG_INFER_AUTO, 1000);
    assert_int_equal(dag->nonblocking_lanes, 1);
    assert_int_equal(t_edges(dag, t_node(dag, 0, a1), t_node(dag, 0, d1), -1), 0);
    assert_int_equal(
        t_edges(dag, t_node(dag, 0, b1), t_node(dag, 0, d1), RPL_DAG_EDGE_DEFAULT_STREAM), 1);
    assert_int_equal(dag->critical_path_ns, 3900);
    rpl_dag_free(dag);
    rpl_trace_free(t);
}

/* A host edge the timestamps contradict is left out and counted, not fatal. */
static void test_contradicted_host_edge_dropped(void **state)
{
    rpl_trace *t = t_new();
    uint32_t a = t_stream(t, 1, TPID), b = t_stream(t, 2, TPID), k = t_symbol(t, "gemm");
    uint32_t a1 = t_dispatch(t, RPL_NONE, a, k, 100, 5000, 1);
    uint32_t b1 = t_dispatch(t, RPL_NONE, b, k, 200, 300, 2);
    rpl_dag *dag;

    (void)state;
    h_region(t, "hipLaunchKernel", 10, 11, 1, "stream", "0xaa");
    h_region(t, "hipStreamSynchronize", 20, 30, 0, "stream", "0xaa"); /* returned too early */
    h_region(t, "hipLaunchKernel", 40, 41, 2, "stream", "0xbb");
    dag = t_build(t, RPL_DAG_INFER_AUTO, 1000);
    assert_int_equal(t_edges(dag, t_node(dag, 0, a1), t_node(dag, 0, b1), -1), 0);
    assert_int_equal(dag->host_edges_dropped, 1);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_INFERRED], 0);
    rpl_dag_free(dag);
    rpl_trace_free(t);
}

/* The minimal example of docs/schemas/dag-dependencies.md §7, as written there. */
static void test_documented_example(void **state)
{
    rpl_trace *t = t_new();
    uint32_t s1 = t_stream(t, 1, TPID), s2 = t_stream(t, 2, TPID), s7 = t_stream(t, 7, TPID);
    uint32_t k = t_symbol(t, "kernel");
    uint32_t a = t_dispatch(t, RPL_NONE, s1, k, 1050, 1350, 10);
    uint32_t b = t_dispatch(t, RPL_NONE, s2, k, 1360, 1900, 12);
    uint32_t d = t_dispatch(t, RPL_NONE, s1, k, 2630, 2700, 15);
    uint32_t c = t_copy(t, RPL_NONE, s7, 2020, 2590, 14);
    static const struct {
        const char *name;
        int64_t tid, start, end, corr;
        const char *n0, *v0, *n1, *v1;
    } regions[] = {
        {"cudaLaunchKernel", 4242, 1000, 1010, 10, "stream", "1", NULL, NULL},
        {"cudaEventRecord", 4242, 1100, 1110, 11, "event", "0x7f01", "stream", "1"},
        {"cudaStreamWaitEvent", 4242, 1200, 1210, 0, "stream", "2", "event", "0x7f01"},
        {"cudaLaunchKernel", 4242, 1300, 1310, 12, "stream", "2", NULL, NULL},
        {"cudaStreamSynchronize", 4243, 1400, 2000, 13, "stream", "2", NULL, NULL},
        {"cudaMemcpy", 4243, 2010, 2600, 14, "stream", "7", NULL, NULL},
        {"cudaLaunchKernel", 4243, 2610, 2620, 15, "stream", "1", NULL, NULL},
    };
    rpl_dag *dag;

    (void)state;
    for (size_t i = 0; i < sizeof(regions) / sizeof(regions[0]); i++) {
        rpl_region r = {.id = (int64_t)i + 1,
                        .name = regions[i].name,
                        .thread = rpl_trace_thread(t, TPID, regions[i].tid),
                        .start = regions[i].start,
                        .end = regions[i].end,
                        .correlation_id = regions[i].corr};
        rpl_arg args[2] = {{regions[i].n0, "uint32_t", regions[i].v0},
                           {regions[i].n1, "uint32_t", regions[i].v1}};

        assert_int_equal(rpl_trace_add_region(t, &r, args, regions[i].n1 ? 2 : 1, NULL), 0);
    }
    dag = t_build(t, RPL_DAG_INFER_AUTO, 1000);
    assert_int_equal(t_edges(dag, t_node(dag, 0, a), t_node(dag, 0, b), RPL_DAG_EDGE_EVENT_WAIT),
                     1);
    assert_int_equal(
        t_edges(dag, t_node(dag, 0, b), t_node(dag, 1, c), RPL_DAG_EDGE_DEFAULT_STREAM), 1);
    assert_int_equal(
        t_edges(dag, t_node(dag, 0, a), t_node(dag, 1, c), RPL_DAG_EDGE_DEFAULT_STREAM), 1);
    assert_int_equal(
        t_edges(dag, t_node(dag, 1, c), t_node(dag, 0, d), RPL_DAG_EDGE_DEFAULT_STREAM), 1);
    assert_int_equal(t_edges(dag, t_node(dag, 0, b), t_node(dag, 0, d), RPL_DAG_EDGE_HOST_SYNC), 1);
    assert_int_equal(dag->legacy_lanes, 1);
    assert_int_equal(dag->blocking_calls, 2);
    assert_int_equal(dag->edge_count, 6); /* and the program order a -> d */
    assert_int_equal(dag->critical_path_ns, 300 + 540 + 570 + 70);
    rpl_dag_free(dag);
    rpl_trace_free(t);
}

/*
 * A device synchronisation between operations on thousands of lanes: the
 * host rules stop at their work budget, say so, and the build still ends.
 */
static void test_work_budget(void **state)
{
    rpl_trace *t = t_new();
    uint32_t k = t_symbol(t, "gemm"), n = 3000;
    rpl_dag *dag;

    (void)state;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = t_stream(t, i + 1, TPID);
        char h[32];
        int64_t at = 10 + 10 * (int64_t)i;

        snprintf(h, sizeof(h), "0x%x", i + 100);
        t_dispatch(t, RPL_NONE, s, k, at + 3, at + 5, i + 1);
        h_region(t, "hipLaunchKernel", at, at + 1, i + 1, "stream", h);
        h_region(t, "hipDeviceSynchronize", at + 6, at + 7, 0, NULL, NULL);
    }
    dag = t_build(t, RPL_DAG_INFER_AUTO, 1000);
    assert_int_equal(dag->node_count, n);
    assert_true(dag->host_edges_dropped > 0);
    assert_true(dag->edge_counts[RPL_DAG_EDGE_HOST_SYNC] > 0);
    rpl_dag_free(dag);
    rpl_trace_free(t);
}

/* What report and analyze say about the dominant kernel, or why there is none. */
static void test_dominant_text(void **state)
{
    rpl_trace *t = t_new();
    uint32_t a = t_stream(t, 1, TPID), k = t_symbol(t, "gemm");
    rpl_dag *dag;
    char *text;

    (void)state;
    t_copy(t, RPL_NONE, a, 0, 300, 0);
    t_copy(t, RPL_NONE, a, 300, 400, 0);
    dag = t_build(t, RPL_DAG_INFER_AUTO, 1000);
    assert_int_equal(rpl_dag_dominant_text(&text, dag), 0);
    assert_non_null(strstr(text, "path: 0.0% application kernels, 0.0% runtime helper kernels, "
                                 "100.0% memory copies\n"));
    assert_non_null(strstr(text, "dominant: none: no application kernel is on the path (2 of its "
                                 "2 operations are memory copies or runtime helper kernels); the "
                                 "trace has no API regions saying what the host waited for\n"));
    free(text);
    rpl_dag_free(dag);
    t_dispatch(t, RPL_NONE, a, k, 400, 500, 0);
    dag = t_build(t, RPL_DAG_INFER_AUTO, 1000);
    assert_int_equal(rpl_dag_summary_text(&text, dag, 3), 0);
    assert_non_null(strstr(text, "path: 20.0% application kernels, 0.0% runtime helper kernels, "
                                 "80.0% memory copies\n"));
    assert_non_null(strstr(text, "dominant: gemm, 20.0% of the path, speedup ceiling 1.25x\n"));
    free(text);
    rpl_dag_free(dag);
    rpl_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_api_names),
        cmocka_unit_test(test_legacy_and_per_thread_default_stream),
        cmocka_unit_test(test_sync_copy_default_stream),
        cmocka_unit_test(test_stream_and_event_sync),
        cmocka_unit_test(test_nonblocking_stream_overlaps),
        cmocka_unit_test(test_contradicted_host_edge_dropped),
        cmocka_unit_test(test_documented_example),
        cmocka_unit_test(test_work_budget),
        cmocka_unit_test(test_dominant_text),
        cmocka_unit_test(test_legacy_default_stream),
        cmocka_unit_test(test_per_thread_default_stream),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
