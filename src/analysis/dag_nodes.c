/*
 * DAG builder: the operations (dispatches, then copies) read from the trace,
 * their processes, and the nodes numbered in time order and grouped by lane.
 */
#include <stdlib.h>
#include <string.h>

#include "dag_internal.h"
#include "radix_sort.h"
#include "rpl/bigmem.h"
#include "rpl/error.h"
#include "rpl/heap.h"

#define OP_OR_NODE_SIZE                                                                            \
    (sizeof(rpl_dag_node) > sizeof(rpl_dag_op) ? sizeof(rpl_dag_node) : sizeof(rpl_dag_op))

static int read_ops(const rpl_trace *t, rpl_dag_op *ops, uint32_t nops)
{
    uint32_t nd = t->dispatches.count;

    for (uint32_t i = 0; i < nops; i++) {
        const rpl_dispatch *d = i < nd ? &t->dispatches.items[i] : NULL;
        const rpl_memcpy *m = d ? NULL : &t->memcpys.items[i - nd];
        rpl_dag_op *o = &ops[i];

        if (d)
            *o = (rpl_dag_op){d->start, d->end,   rpl_trace_pid(t, d->thread), d->stream, d->queue,
                              0,        d->kernel};
        else
            *o = (rpl_dag_op){m->start, m->end,  rpl_trace_pid(t, m->thread), m->stream, m->queue,
                              0,        RPL_NONE};
        if (o->end < o->start)
            return rpl_error_set(RPL_EINPUT, "%s %lld ends before it starts",
                                 d ? "dispatch" : "memory copy", (long long)(d ? d->id : m->id));
        if ((o->stream != RPL_NONE && o->stream >= t->streams.count) ||
            (o->queue != RPL_NONE && o->queue >= t->queues.count))
            return rpl_error_set(RPL_EINPUT, "%s %lld names a stream or queue the trace lacks",
                                 d ? "dispatch" : "memory copy", (long long)(d ? d->id : m->id));
        if (d && d->kernel >= t->symbols.count)
            return rpl_error_set(RPL_EINPUT, "dispatch %lld names a kernel symbol the trace lacks",
                                 (long long)d->id);
    }
    return 0;
}

/* Distinct pids of the operations (sorted) and each operation's process index. */
static int build_processes(rpl_dag_builder *b, const rpl_dag_op *ops, uint32_t nops)
{
    uint64_t *keys = NULL;
    uint32_t *vals = NULL;
    int64_t min = INT64_MAX, max = INT64_MIN, *shrunk;
    int rc = 0;

    for (uint32_t i = 0; i < nops; i++) {
        min = ops[i].pid < min ? ops[i].pid : min;
        max = ops[i].pid > max ? ops[i].pid : max;
    }
    b->process_of = calloc((size_t)nops + 1, sizeof(*b->process_of));
    b->pids = malloc(((size_t)(min == max ? 0 : nops) + 1) * sizeof(*b->pids));
    if (!b->process_of || !b->pids)
        return rpl_error_oom();
    if (nops == 0 || min == max) {
        b->pids[0] = min;
        b->process_count = nops ? 1 : 0;
        return 0;
    }
    keys = malloc((size_t)nops * sizeof(*keys));
    vals = malloc((size_t)nops * sizeof(*vals));
    if (!keys || !vals)
        rc = rpl_error_oom();
    for (uint32_t i = 0; !rc && i < nops; i++) {
        keys[i] = (uint64_t)ops[i].pid - (uint64_t)min;
        vals[i] = i;
    }
    if (!rc)
        rc = rpl_radix_sort_u64(keys, vals, nops);
    for (uint32_t i = 0; rc == 0 && i < nops; i++) {
        if (i == 0 || keys[i] != keys[i - 1])
            b->pids[b->process_count++] = (int64_t)((uint64_t)min + keys[i]);
        b->process_of[vals[i]] = b->process_count - 1;
    }
    free(keys);
    free(vals);
    /* A few processes, room for one per operation: keep only what is used. */
    if (rc == 0 && (shrunk = realloc(b->pids, ((size_t)b->process_count + 1) * sizeof(*shrunk))))
        b->pids = shrunk;
    return rc;
}

/* An operation in its run, in the order nodes are numbered: (start, end, op). */
typedef struct lane_op {
    int64_t start, end;
    uint32_t op, symbol;
} lane_op;

static bool lane_op_less(const lane_op *x, const lane_op *y)
{
    if (x->start != y->start)
        return x->start < y->start;
    if (x->end != y->end)
        return x->end < y->end;
    return x->op < y->op;
}

/* Sort a run that is out of order (stable radix by end, then by start). */
static int sort_lane(lane_op *seg, uint32_t n, int64_t t0)
{
    uint64_t *keys = malloc(((size_t)n + 1) * sizeof(*keys));
    uint32_t *order = malloc(((size_t)n + 1) * sizeof(*order));
    lane_op *tmp = malloc(((size_t)n + 1) * sizeof(*tmp));
    int rc = keys && order && tmp ? 0 : rpl_error_oom();

    for (uint32_t k = 0; !rc && k < n; k++) {
        keys[k] = (uint64_t)seg[k].end - (uint64_t)t0;
        order[k] = k;
    }
    if (!rc)
        rc = rpl_radix_sort_u64(keys, order, n);
    for (uint32_t k = 0; !rc && k < n; k++)
        keys[k] = (uint64_t)seg[order[k]].start - (uint64_t)t0;
    if (!rc)
        rc = rpl_radix_sort_u64(keys, order, n);
    for (uint32_t k = 0; !rc && k < n; k++)
        tmp[k] = seg[order[k]];
    if (!rc)
        memcpy(seg, tmp, (size_t)n * sizeof(*seg));
    free(keys);
    free(order);
    free(tmp);
    return rc;
}

/* Min-heap of runs keyed by their next operation (a copy of it, for cheap compares). */
typedef struct heap_item {
    lane_op head;
    uint32_t lane;
} heap_item;

static inline bool heap_item_less(const heap_item *x, const heap_item *y)
{
    return lane_op_less(&x->head, &y->head);
}

RPL_HEAP_DEFINE(run_heap, heap_item, heap_item_less)

/*
 * The operations as runs, run r in lops[first[r] .. first[r + 1]): run 2l
 * holds lane l's dispatches, run 2l + 1 its copies, each in trace order.
 * Sets dag->t0.
 */
static int make_runs(rpl_dag_builder *b, const rpl_dag_op *ops, uint32_t nops, lane_op *lops,
                     uint32_t *first, uint32_t *next)
{
    rpl_dag *dag = b->dag;
    uint32_t ndisp = b->trace->dispatches.count, nl = 2 * dag->lane_count;
    int64_t t0 = INT64_MAX, tmax = INT64_MIN;

    for (uint32_t i = 0; i < nops; i++) {
        t0 = ops[i].start < t0 ? ops[i].start : t0;
        tmax = ops[i].end > tmax ? ops[i].end : tmax;
        first[2 * ops[i].lane + (i >= ndisp) + 1]++;
    }
    /* Keep every later sum of durations and times far from overflow. */
    if (nops && (uint64_t)tmax - (uint64_t)t0 > (uint64_t)INT64_MAX / 4)
        return rpl_error_set(RPL_EINPUT, "trace timestamps span more than %lld ns",
                             (long long)(INT64_MAX / 4));
    dag->t0 = nops ? t0 : 0;
    for (uint32_t l = 0; l < nl; l++)
        first[l + 1] += first[l];
    for (uint32_t l = 0; l < nl; l++)
        next[l] = first[l];
    for (uint32_t i = 0; i < nops; i++)
        lops[next[2 * ops[i].lane + (i >= ndisp)]++] =
            (lane_op){ops[i].start, ops[i].end, i, ops[i].symbol};
    return 0;
}

/*
 * Merge the runs into dag->nodes with a heap, sorting a run first when it
 * is out of order; proc[j] gets node j's process, b->node_of_op each
 * operation's node.
 */
static int merge_runs(rpl_dag_builder *b, lane_op *lops, const uint32_t *first, uint32_t *next,
                      uint32_t *proc)
{
    rpl_dag *dag = b->dag;
    uint32_t ndisp = b->trace->dispatches.count, nl = 2 * dag->lane_count, nheap = 0;
    uint32_t nops = first[nl];
    heap_item *heap = malloc(((size_t)nl + 1) * sizeof(*heap));
    int rc = heap ? 0 : rpl_error_oom();

    for (uint32_t l = 0; l < nl && !rc; l++) {
        uint32_t lo = first[l], hi = first[l + 1];
        bool sorted = true;

        for (uint32_t k = lo + 1; k < hi && sorted; k++)
            sorted = !lane_op_less(&lops[k], &lops[k - 1]);
        if (!sorted)
            rc = sort_lane(lops + lo, hi - lo, dag->t0);
        next[l] = lo + 1;
        if (lo < hi)
            heap[nheap++] = (heap_item){lops[lo], l};
    }
    if (!rc)
        run_heap_make(heap, nheap);
    for (uint32_t j = 0; !rc && j < nops; j++) {
        uint32_t l = heap[0].lane;
        const lane_op *o = &heap[0].head;

        dag->nodes[j] = (rpl_dag_node){
            .start = o->start,
            .end = o->end,
            .ref = o->op < ndisp ? o->op : o->op - ndisp,
            .lane = l / 2,
            .symbol = o->symbol,
            .kind = o->op < ndisp ? RPL_DAG_NODE_DISPATCH : RPL_DAG_NODE_COPY,
        };
        proc[j] = b->process_of[o->op];
        b->node_of_op[o->op] = j;
        if (next[l] < first[l + 1])
            heap[0].head = lops[next[l]++];
        else
            heap[0] = heap[--nheap];
        run_heap_sift_down(heap, nheap, 0);
    }
    free(heap);
    return rc;
}

/*
 * Number the operations in (start, end, trace order) into dag->nodes: group
 * them into runs, the dispatches and the copies of each lane (a run is
 * normally in time order already, as the trace lists them; one that is not
 * gets sorted), then merge the runs with a heap: O(V log L) for ordinary
 * traces, O(V log V) at worst.  Once the runs hold what the nodes need,
 * *ops becomes the node array in place (its memory is already paged in: on
 * a million operations that saves about 45 MB of fresh pages; it was
 * allocated with a node's room, see rpl_dag_nodes_build); *ops is NULL
 * after that.
 */
static int sort_nodes(rpl_dag_builder *b, rpl_dag_op **opsp, uint32_t nops)
{
    rpl_dag *dag = b->dag;
    uint32_t nl = 2 * dag->lane_count; /* runs */
    lane_op *lops = malloc(((size_t)nops + 1) * sizeof(*lops));
    uint32_t *first = calloc((size_t)nl + 2, sizeof(*first));
    uint32_t *next = malloc(((size_t)nl + 1) * sizeof(*next));
    uint32_t *proc = malloc(((size_t)nops + 1) * sizeof(*proc));
    int rc = 0;

    b->node_of_op = malloc(((size_t)nops + 1) * sizeof(*b->node_of_op));
    if (!lops || !first || !next || !proc || !b->node_of_op) {
        rc = rpl_error_oom();
        goto done;
    }
    rpl_bigmem_advise(lops, (size_t)nops * sizeof(*lops));
    rpl_bigmem_advise(proc, (size_t)nops * sizeof(*proc));
    rpl_bigmem_advise(b->node_of_op, (size_t)nops * sizeof(*b->node_of_op));
    rc = make_runs(b, *opsp, nops, lops, first, next);
    if (rc)
        goto done;
    dag->nodes = (rpl_dag_node *)*opsp; /* the operations are in lops now */
    *opsp = NULL;
    rc = merge_runs(b, lops, first, next, proc);
    if (rc == 0) {
        free(b->process_of);
        b->process_of = proc;
        proc = NULL;
        dag->node_count = nops;
    }
done:
    free(lops);
    free(first);
    free(next);
    free(proc);
    return rc;
}

static int group_lanes(rpl_dag *dag)
{
    uint32_t *pos = calloc((size_t)dag->lane_count + 1, sizeof(*pos));

    dag->lane_nodes = malloc(((size_t)dag->node_count + 1) * sizeof(*dag->lane_nodes));
    if (!pos || !dag->lane_nodes) {
        free(pos);
        return rpl_error_oom();
    }
    rpl_bigmem_advise(dag->lane_nodes, (size_t)dag->node_count * sizeof(*dag->lane_nodes));
    for (uint32_t i = 0; i < dag->node_count; i++)
        dag->lanes[dag->nodes[i].lane].count++;
    for (uint32_t l = 0, sum = 0; l < dag->lane_count; l++) {
        dag->lanes[l].first = pos[l] = sum;
        sum += dag->lanes[l].count;
    }
    for (uint32_t i = 0; i < dag->node_count; i++)
        dag->lane_nodes[pos[dag->nodes[i].lane]++] = i;
    free(pos);
    return 0;
}

int rpl_dag_nodes_build(rpl_dag_builder *b)
{
    const rpl_trace *t = b->trace;
    uint64_t total = (uint64_t)t->dispatches.count + t->memcpys.count;
    uint32_t nops;
    rpl_dag_op *ops;
    int rc;

    if (total >= RPL_NONE)
        return rpl_error_set(RPL_EINPUT, "trace has too many operations for the DAG");
    nops = (uint32_t)total;
    /*
     * Room for the nodes that replace the operations: growing the block later
     * would move it (mremap), which splits its huge pages, and every page of
     * the node array would fault again in the passes that follow.
     */
    ops = rpl_bigmem_malloc(((size_t)nops + 1) * OP_OR_NODE_SIZE);
    if (!ops)
        return rpl_error_oom();
    rc = read_ops(t, ops, nops);
    if (rc == 0)
        rc = build_processes(b, ops, nops);
    if (rc == 0)
        rc = rpl_dag_assign_lanes(b, ops, nops);
    if (rc == 0)
        rc = rpl_dag_build_symbols(b, ops, nops);
    if (rc == 0)
        rc = sort_nodes(b, &ops, nops);
    if (rc == 0)
        rc = group_lanes(b->dag);
    free(ops);
    return rc;
}
