/*
 * Longest path through the DAG weighted by node durations, earliest and
 * latest starts, slack, per-symbol time on the path, dominance and overlap.
 *
 * Nodes are numbered in time order, so the numbering is a topological order
 * whenever every edge points forward; otherwise Kahn's algorithm finds one
 * or reports the cycle.  Each step is one pass over nodes and edges.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dag_internal.h"
#include "rpl/bigmem.h"
#include "rpl/error.h"

/* A topological order in *out (NULL: the identity), or RPL_EINPUT on a cycle. */
static int topo_order(const rpl_dag *dag, const rpl_trace *t, uint32_t **out)
{
    uint32_t n = dag->node_count, head = 0, tail = 0, *indeg, *queue;
    bool forward = true;
    char buf[256];

    *out = NULL;
    for (uint32_t e = 0; e < dag->edge_count && forward; e++)
        forward = dag->edges[e].src < dag->edges[e].dst;
    if (forward)
        return 0;
    indeg = rpl_bigmem_calloc((size_t)n + 1, sizeof(*indeg));
    queue = rpl_bigmem_malloc(((size_t)n + 1) * sizeof(*queue));
    if (!indeg || !queue) {
        free(indeg);
        free(queue);
        return rpl_error_oom();
    }
    for (uint32_t e = 0; e < dag->edge_count; e++)
        indeg[dag->edges[e].dst]++;
    for (uint32_t v = 0; v < n; v++)
        if (indeg[v] == 0)
            queue[tail++] = v;
    while (head < tail) {
        uint32_t u = queue[head++];

        for (uint32_t e = dag->out_first[u]; e < dag->out_first[u + 1]; e++)
            if (--indeg[dag->edges[e].dst] == 0)
                queue[tail++] = dag->edges[e].dst;
    }
    if (tail < n) {
        uint32_t v = 0;

        while (indeg[v] == 0)
            v++;
        rpl_dag_node_describe(buf, sizeof(buf), dag, t, v);
        free(indeg);
        free(queue);
        return rpl_error_set(RPL_EINPUT,
                             "dependency cycle: %u operations wait on each other, e.g. %s "
                             "(check the event record/wait regions)",
                             n - tail, buf);
    }
    free(indeg);
    *out = queue;
    return 0;
}

/*
 * Earliest starts (forward pass), each node's tightest predecessor, and the
 * node that finishes last (the lowest index among ties) in *last.  A node's
 * earliest start is final when the topological order reaches it; one that
 * nothing relaxed is a source and starts at 0.  One pass over the nodes: at
 * 10M operations each pass over them costs more than their work.
 */
static int64_t forward_pass(rpl_dag *dag, const uint32_t *topo, uint32_t *pred, uint32_t *last)
{
    int64_t best = -1;

    memset(pred, 0xff, (size_t)dag->node_count * sizeof(*pred)); /* RPL_NONE */
    *last = RPL_NONE;
    for (uint32_t k = 0; k < dag->node_count; k++) {
        uint32_t u = topo ? topo[k] : k;
        rpl_dag_node *nu = &dag->nodes[u];
        int64_t finish;

        if (pred[u] == RPL_NONE)
            nu->earliest_start = 0;
        finish = nu->earliest_start + rpl_dag_node_duration(nu);
        if (finish > best || (finish == best && *last != RPL_NONE && u < *last)) {
            best = finish;
            *last = u;
        }
        for (uint32_t e = dag->out_first[u]; e < dag->out_first[u + 1]; e++) {
            uint32_t w = dag->edges[e].dst;
            rpl_dag_node *nw = &dag->nodes[w];

            /* Ties go to the lowest predecessor index, so the path is deterministic. */
            if (pred[w] == RPL_NONE || finish > nw->earliest_start ||
                (finish == nw->earliest_start && u < pred[w])) {
                nw->earliest_start = finish;
                pred[w] = u;
            }
        }
    }
    return best;
}

/* What one node adds to its symbol's totals; the order of the nodes does not matter. */
static void symbol_add(rpl_dag *dag, const rpl_dag_node *n)
{
    rpl_dag_symbol *s = &dag->symbols[n->symbol];
    int64_t dur = rpl_dag_node_duration(n);

    s->count++;
    s->total_ns += dur;
    if (rpl_dag_node_slack(n) < s->min_slack_ns)
        s->min_slack_ns = rpl_dag_node_slack(n);
    if (n->on_path) {
        s->path_count++;
        s->path_ns += dur;
    }
}

/* Latest starts (backward pass) against the critical path length, and the symbols' totals. */
static void backward_pass(rpl_dag *dag, const uint32_t *topo)
{
    for (uint32_t k = dag->node_count; k > 0; k--) {
        uint32_t u = topo ? topo[k - 1] : k - 1;
        rpl_dag_node *nu = &dag->nodes[u];
        int64_t latest_finish = dag->critical_path_ns;

        for (uint32_t e = dag->out_first[u]; e < dag->out_first[u + 1]; e++) {
            int64_t ls = dag->nodes[dag->edges[e].dst].latest_start;

            if (ls < latest_finish)
                latest_finish = ls;
        }
        nu->latest_start = latest_finish - rpl_dag_node_duration(nu);
        symbol_add(dag, nu);
    }
}

static int extract_path(rpl_dag *dag, const uint32_t *pred, int64_t best, uint32_t last)
{
    uint32_t len = 0;

    dag->critical_path_ns = best < 0 ? 0 : best;
    for (uint32_t v = last; v != RPL_NONE; v = pred[v])
        len++;
    dag->path = malloc(((size_t)len + 1) * sizeof(*dag->path));
    if (!dag->path)
        return rpl_error_oom();
    dag->path_len = len;
    for (uint32_t v = last; v != RPL_NONE; v = pred[v]) {
        dag->path[--len] = v;
        dag->nodes[v].on_path = 1;
    }
    return 0;
}

/* The dominant symbol, from the totals the backward pass summed. */
static void dominant_symbol(rpl_dag *dag)
{
    int64_t best = 0;

    dag->dominant = RPL_NONE;
    for (uint32_t k = 0; k < dag->symbol_count; k++) {
        const rpl_dag_symbol *s = &dag->symbols[k];

        if (s->kind == RPL_DAG_NODE_DISPATCH && !s->helper && s->path_ns > best) {
            best = s->path_ns;
            dag->dominant = k;
        }
    }
    dag->dominant_fraction = 0.0;
    dag->speedup_ceiling = 1.0;
    if (dag->dominant != RPL_NONE) {
        dag->dominant_fraction = (double)best / (double)dag->critical_path_ns;
        dag->speedup_ceiling =
            best == dag->critical_path_ns ? INFINITY : 1.0 / (1.0 - dag->dominant_fraction);
    }
}

/* Span, summed and merged busy time, overlap; nodes are in start order. */
static int time_stats(rpl_dag *dag)
{
    int64_t tmax = dag->t0, run_start = 0, run_end = 0;

    dag->gpu_time_ns = dag->active_ns = 0;
    for (uint32_t i = 0; i < dag->node_count; i++) {
        const rpl_dag_node *n = &dag->nodes[i];

        if (__builtin_add_overflow(dag->gpu_time_ns, rpl_dag_node_duration(n), &dag->gpu_time_ns))
            return rpl_error_set(RPL_EINPUT, "summed operation durations overflow 64 bits");
        if (n->end > tmax)
            tmax = n->end;
        if (i == 0 || n->start > run_end) {
            dag->active_ns += run_end - run_start;
            run_start = n->start;
            run_end = n->end;
        } else if (n->end > run_end) {
            run_end = n->end;
        }
    }
    dag->active_ns += run_end - run_start;
    dag->span_ns = dag->node_count ? tmax - dag->t0 : 0;
    dag->overlap = dag->span_ns > 0 ? (double)dag->gpu_time_ns / (double)dag->span_ns : 0.0;
    return 0;
}

int rpl_dag_solve(rpl_dag *dag, const rpl_trace *t)
{
    uint32_t *topo = NULL, *pred, last;
    int64_t best;
    int rc;

    /* Every path sum is bounded by the summed durations, checked here first. */
    rc = time_stats(dag);
    if (rc)
        return rc;
    rc = topo_order(dag, t, &topo);
    if (rc)
        return rc;
    pred = rpl_bigmem_malloc(((size_t)dag->node_count + 1) * sizeof(*pred));
    if (!pred) {
        free(topo);
        return rpl_error_oom();
    }
    best = forward_pass(dag, topo, pred, &last);
    rc = extract_path(dag, pred, best, last);
    if (rc == 0) {
        backward_pass(dag, topo);
        dominant_symbol(dag);
    }
    free(pred);
    free(topo);
    return rc;
}

typedef struct prio {
    const rpl_dag_symbol *s;
    uint32_t index;
} prio;

static double prio_score(const rpl_dag_symbol *s)
{
    return (double)s->path_ns * s->headroom;
}

static int cmp_prio(const void *a, const void *b)
{
    const prio *x = a, *y = b;
    double sx = prio_score(x->s), sy = prio_score(y->s);

    if (sx != sy)
        return sx > sy ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

int rpl_dag_priorities(const rpl_dag *dag, uint32_t *out, uint32_t max, uint32_t *count)
{
    prio *p = malloc(((size_t)dag->symbol_count + 1) * sizeof(*p));
    uint32_t n = 0;

    *count = 0;
    if (!p)
        return rpl_error_oom();
    for (uint32_t k = 0; k < dag->symbol_count; k++) {
        const rpl_dag_symbol *s = &dag->symbols[k];

        if (s->kind == RPL_DAG_NODE_DISPATCH && !s->helper && s->path_ns > 0)
            p[n++] = (prio){s, k};
    }
    qsort(p, n, sizeof(*p), cmp_prio);
    if (n > max)
        n = max;
    for (uint32_t k = 0; k < n; k++)
        out[k] = p[k].index;
    free(p);
    *count = n;
    return 0;
}
