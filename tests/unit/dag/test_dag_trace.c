/*
 * Property tests of the whole DAG build on thousands of random traces:
 * random stream counts, durations (zeros included), gaps, copies, one or
 * two processes, and random cross-stream waits written as record/wait API
 * regions in the HIP, CUDA runtime and CUDA driver spellings, with or
 * without launch regions.  The test knows which operation each wait makes
 * depend on which (it built them), derives program order and the inferred
 * edges with its own quadratic rule, and checks the edges, the critical
 * path length, every node's earliest/latest start and slack, and the path
 * against a Bellman-Ford style brute force.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_rng.h>

#include "dag_test_util.h"

#define TRIALS  3000
#define MAX_OPS 64
#define MAX_Q   5
#define LAUNCH  50 /* launch region this long before the GPU start, ns */

typedef struct spelling {
    const char *record, *wait, *launch, *event_arg, *stream_arg;
} spelling;

static const spelling spellings[] = {
    {"hipEventRecord", "hipStreamWaitEvent", "hipLaunchKernel", "event", "stream"},
    {"cudaEventRecord", "cudaStreamWaitEvent", "cudaLaunchKernel", "event", "stream"},
    {"cuEventRecord", "cuStreamWaitEvent", "cuLaunchKernel", "hEvent", "hStream"},
};

typedef struct op {
    int64_t start, end, pid;
    uint32_t lane, index; /* lane = stream; index: dispatches 0.., copies after */
    int is_copy;
    uint32_t ref;
} op;

typedef struct edge {
    uint32_t src, dst; /* op numbers in creation order */
    int kind;
} edge;

typedef struct trial {
    rpl_trace *t;
    op ops[MAX_OPS];
    uint32_t n;
    edge edges[MAX_OPS * 4];
    uint32_t m;
    int sync[2]; /* per process (0: TPID, 1: TPID + 1): has record/wait regions */
    uint32_t waits;
} trial;

static void add_edge(trial *tr, uint32_t s, uint32_t d, int kind)
{
    for (uint32_t e = 0; e < tr->m; e++)
        if (tr->edges[e].src == s && tr->edges[e].dst == d) {
            if (kind < tr->edges[e].kind)
                tr->edges[e].kind = kind;
            return;
        }
    tr->edges[tr->m++] = (edge){s, d, kind};
}

static void handle(char *buf, size_t size, int api, uint32_t q)
{
    if (api)
        snprintf(buf, size, "0x7f00%04x", q + 1); /* a stream pointer, as HIP prints it */
    else
        snprintf(buf, size, "%u", q + 1); /* the stream's rocpd id */
}

static void region(trial *tr, int64_t pid, const char *name, int64_t at, int64_t corr,
                   const char *n0, const char *v0, const char *n1, const char *v1)
{
    rpl_region r = {.id = tr->t->regions.count + 1,
                    .name = name,
                    .category = "API",
                    .thread = rpl_trace_thread(tr->t, pid, TTID),
                    .start = at,
                    .end = at + 1,
                    .correlation_id = corr};
    rpl_arg args[3] = {{n0, "void*", v0}, {n1, "void*", v1}, {"flags", "unsigned int", "0"}};

    assert_int_equal(rpl_trace_add_region(tr->t, &r, args, n1 ? 3 : 1, NULL), 0);
}

/* Build a random trace; the waits it writes go into tr->edges as event_wait. */
static void build(trial *tr, gsl_rng *r, int with_waits, int api, const spelling *sp, int two_pids)
{
    uint32_t nq = 1 + (uint32_t)gsl_rng_uniform_int(r, MAX_Q), nops, last[MAX_Q], ndisp = 0;
    int64_t cursor[MAX_Q], min_start;
    uint32_t stream[MAX_Q], queue[MAX_Q], kern[3];
    int is_copy[MAX_OPS];
    int64_t corr = 1;

    memset(tr, 0, sizeof(*tr));
    tr->t = t_new();
    kern[0] = t_symbol(tr->t, "gemm");
    kern[1] = t_symbol(tr->t, "softmax");
    kern[2] = t_symbol(tr->t, "__amd_rocclr_fillBufferAligned");
    nops = 1 + (uint32_t)gsl_rng_uniform_int(r, MAX_OPS);
    for (uint32_t q = 0; q < nq; q++) {
        int64_t pid = two_pids && q % 2 ? TPID + 1 : TPID;

        stream[q] = t_stream(tr->t, q + 1, pid);
        queue[q] = t_queue(tr->t, q + 1, pid);
        cursor[q] = 1000 + (int64_t)gsl_rng_uniform_int(r, 500);
        last[q] = RPL_NONE;
    }
    /* Dispatches come first in the trace, copies after: number them that way. */
    for (uint32_t k = 0; k < nops; k++) {
        is_copy[k] = gsl_rng_uniform(r) < 0.2;
        ndisp += !is_copy[k];
    }
    for (uint32_t k = 0, nd = 0, nc = 0; k < nops; k++) {
        uint32_t q = (uint32_t)gsl_rng_uniform_int(r, nq);
        int64_t pid = two_pids && q % 2 ? TPID + 1 : TPID, dur, start, launch = api ? LAUNCH : 0;
        op *o = &tr->ops[k];

        min_start = 0;
        if (with_waits && nq > 1 && gsl_rng_uniform(r) < 0.35) {
            uint32_t s = (q + 1 + (uint32_t)gsl_rng_uniform_int(r, nq - 1)) % nq;
            int64_t spid = two_pids && s % 2 ? TPID + 1 : TPID;

            if (last[s] != RPL_NONE && spid == pid) {
                const op *u = &tr->ops[last[s]];
                char ev[32], hs[32], hq[32];
                int64_t rec = u->start - launch + 1, wait;

                snprintf(ev, sizeof(ev), "0x5500%04u", ++tr->waits);
                handle(hs, sizeof(hs), api, s);
                handle(hq, sizeof(hq), api, q);
                wait = (last[q] != RPL_NONE ? tr->ops[last[q]].start - launch : rec) + 1;
                if (wait <= rec)
                    wait = rec + 1;
                region(tr, pid, sp->record, rec, 0, sp->event_arg, ev, sp->stream_arg, hs);
                region(tr, pid, sp->wait, wait, 0, sp->stream_arg, hq, sp->event_arg, ev);
                tr->sync[pid != TPID] = 1;
                min_start = u->end + (int64_t)gsl_rng_uniform_int(r, 20);
                if (min_start < wait + launch + 1)
                    min_start = wait + launch + 1;
                add_edge(tr, last[s], k, RPL_DAG_EDGE_EVENT_WAIT);
            }
        }
        dur = gsl_rng_uniform(r) < 0.15 ? 0 : (int64_t)gsl_rng_uniform_int(r, 400);
        start = cursor[q] + 2 + (int64_t)gsl_rng_uniform_int(r, 300);
        if (start < min_start)
            start = min_start;
        *o = (op){start, start + dur, pid, q, is_copy[k] ? ndisp + nc : nd, is_copy[k], 0};
        if (is_copy[k])
            o->ref = t_copy_p(tr->t, pid, RPL_NONE, stream[q], start, start + dur, corr);
        else
            o->ref = t_dispatch_p(tr->t, pid, queue[q], stream[q], kern[gsl_rng_uniform_int(r, 3)],
                                  start, start + dur, corr);
        if (api) {
            char h[32];

            handle(h, sizeof(h), api, q);
            region(tr, pid, sp->launch, start - launch, corr, sp->stream_arg, h, NULL, NULL);
        }
        corr++;
        if (last[q] != RPL_NONE)
            add_edge(tr, last[q], k, RPL_DAG_EDGE_PROGRAM_ORDER);
        last[q] = k;
        cursor[q] = start + dur;
        nd += !is_copy[k];
        nc += is_copy[k];
    }
    tr->n = nops;
}

/* Node order of the DAG: (start, end, trace index). */
static bool node_before(const op *a, const op *b)
{
    if (a->start != b->start)
        return a->start < b->start;
    if (a->end != b->end)
        return a->end < b->end;
    return a->index < b->index;
}

/* The inferred-edge rule, pair by pair. */
static void infer_brute_force(trial *tr, int64_t gap, const int *infer_pid)
{
    for (uint32_t v = 0; v < tr->n; v++) {
        const op *ov = &tr->ops[v];
        uint32_t best = RPL_NONE;

        if (!infer_pid[ov->pid != TPID])
            continue;
        for (uint32_t u = 0; u < tr->n; u++) {
            const op *ou = &tr->ops[u], *ob = best == RPL_NONE ? NULL : &tr->ops[best];

            if (u == v || ou->pid != ov->pid)
                continue;
            if (!(ou->end < ov->start || (ou->end == ov->start && ou->start < ov->start)))
                continue;
            if (!ob || ou->end > ob->end || (ou->end == ob->end && ou->start > ob->start) ||
                (ou->end == ob->end && ou->start == ob->start && node_before(ob, ou)))
                best = u;
        }
        if (best != RPL_NONE && ov->start - tr->ops[best].end <= gap &&
            tr->ops[best].lane != ov->lane)
            add_edge(tr, best, v, RPL_DAG_EDGE_INFERRED);
    }
}

static void check(trial *tr, const rpl_dag *dag)
{
    uint32_t node_of[MAX_OPS], counts[RPL_DAG_EDGE_KINDS] = {0}, on_path = 0;
    int64_t es[MAX_OPS], ls[MAX_OPS], dur[MAX_OPS], cp = 0, sum = 0;

    assert_int_equal(dag->node_count, tr->n);
    for (uint32_t k = 0; k < tr->n; k++) {
        node_of[k] = t_node(dag, tr->ops[k].is_copy, tr->ops[k].ref);
        dur[k] = tr->ops[k].end - tr->ops[k].start;
        es[k] = 0;
        assert_string_equal(dag->lanes[dag->nodes[node_of[k]].lane].name,
                            tr->t->streams.items[tr->ops[k].lane].name);
    }
    /* Nodes are numbered in time order. */
    for (uint32_t i = 1; i < dag->node_count; i++)
        assert_true(dag->nodes[i - 1].start <= dag->nodes[i].start);
    for (uint32_t e = 0; e < tr->m; e++) {
        counts[tr->edges[e].kind]++;
        if (t_edges(dag, node_of[tr->edges[e].src], node_of[tr->edges[e].dst], tr->edges[e].kind) !=
            1)
            fail_msg("missing %s edge %u -> %u",
                     rpl_dag_edge_kind_name((rpl_dag_edge_kind)tr->edges[e].kind), tr->edges[e].src,
                     tr->edges[e].dst);
    }
    assert_int_equal(dag->edge_count, tr->m);
    for (int k = 0; k < RPL_DAG_EDGE_KINDS; k++)
        assert_int_equal(dag->edge_counts[k], counts[k]);
    assert_int_equal(dag->waits_unresolved, 0);
    /* Brute force over the expected edges. */
    for (uint32_t round = 0; round < tr->n; round++)
        for (uint32_t e = 0; e < tr->m; e++) {
            uint32_t s = tr->edges[e].src, d = tr->edges[e].dst;

            if (es[s] + dur[s] > es[d])
                es[d] = es[s] + dur[s];
        }
    for (uint32_t k = 0; k < tr->n; k++)
        cp = es[k] + dur[k] > cp ? es[k] + dur[k] : cp;
    for (uint32_t k = 0; k < tr->n; k++)
        ls[k] = cp - dur[k];
    for (uint32_t round = 0; round < tr->n; round++)
        for (uint32_t e = 0; e < tr->m; e++) {
            uint32_t s = tr->edges[e].src, d = tr->edges[e].dst;

            if (ls[d] - dur[s] < ls[s])
                ls[s] = ls[d] - dur[s];
        }
    assert_int_equal(dag->critical_path_ns, cp);
    for (uint32_t k = 0; k < tr->n; k++) {
        const rpl_dag_node *nd = &dag->nodes[node_of[k]];

        assert_int_equal(nd->earliest_start, es[k]);
        assert_int_equal(nd->latest_start, ls[k]);
        on_path += nd->on_path;
    }
    assert_int_equal(on_path, dag->path_len);
    for (uint32_t k = 0; k < dag->path_len; k++) {
        assert_int_equal(rpl_dag_node_slack(&dag->nodes[dag->path[k]]), 0);
        if (k > 0)
            assert_int_equal(t_edges(dag, dag->path[k - 1], dag->path[k], -1), 1);
        sum += rpl_dag_node_duration(&dag->nodes[dag->path[k]]);
    }
    assert_int_equal(sum, cp);
}

static void run_trials(int with_waits, rpl_dag_infer mode, unsigned long salt)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    trial *tr = calloc(1, sizeof(*tr));
    uint64_t seen[RPL_DAG_EDGE_KINDS] = {0};

    for (unsigned long seed = 1; seed <= TRIALS; seed++) {
        int api = (int)(seed % 2), two_pids = seed % 5 == 0;
        const spelling *sp = &spellings[seed % 3];
        int64_t gap = (int64_t)(seed % 4) * 100;
        int infer[2];
        rpl_dag *dag;

        gsl_rng_set(r, seed * 1000003 + salt);
        build(tr, r, with_waits, api, sp, two_pids);
        for (int p = 0; p < 2; p++)
            infer[p] = mode == RPL_DAG_INFER_ALWAYS || (mode == RPL_DAG_INFER_AUTO && !tr->sync[p]);
        infer_brute_force(tr, gap, infer);
        dag = t_build_released(tr->t, mode, gap);
        check(tr, dag);
        for (int k = 0; k < RPL_DAG_EDGE_KINDS; k++)
            seen[k] += dag->edge_counts[k];
        rpl_dag_free(dag);
        rpl_trace_free(tr->t);
    }
    free(tr);
    gsl_rng_free(r);
    /* The trials exercise what they are meant to. */
    assert_true(seen[RPL_DAG_EDGE_PROGRAM_ORDER] > 10 * TRIALS);
    if (with_waits)
        assert_true(seen[RPL_DAG_EDGE_EVENT_WAIT] > 2 * TRIALS);
    else
        assert_int_equal(seen[RPL_DAG_EDGE_EVENT_WAIT], 0);
    if (mode == RPL_DAG_INFER_NEVER)
        assert_int_equal(seen[RPL_DAG_EDGE_INFERRED], 0);
    else if (with_waits && mode == RPL_DAG_INFER_AUTO) /* only where no wait was written */
        assert_true(seen[RPL_DAG_EDGE_INFERRED] > 0);
    else
        assert_true(seen[RPL_DAG_EDGE_INFERRED] > TRIALS / 2);
}

static void test_waits_auto(void **state)
{
    (void)state;
    run_trials(1, RPL_DAG_INFER_AUTO, 1);
}

static void test_waits_always_infer(void **state)
{
    (void)state;
    run_trials(1, RPL_DAG_INFER_ALWAYS, 2);
}

static void test_inferred_only(void **state)
{
    (void)state;
    run_trials(0, RPL_DAG_INFER_AUTO, 3);
}

static void test_never_infer(void **state)
{
    (void)state;
    run_trials(0, RPL_DAG_INFER_NEVER, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waits_auto),
        cmocka_unit_test(test_waits_always_infer),
        cmocka_unit_test(test_inferred_only),
        cmocka_unit_test(test_never_infer),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
