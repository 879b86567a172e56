/* DAG builder: nodes in time order, lanes, program order, edge finishing, rpl_dag_build. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "dag_internal.h"
#include "radix_sort.h"
#include "rpl/bigmem.h"
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

int64_t rpl_dag_node_trace_id(const rpl_trace *t, const rpl_dag_node *n)
{
    return n->kind == RPL_DAG_NODE_DISPATCH ? t->dispatches.items[n->ref].id
                                            : t->memcpys.items[n->ref].id;
}

int64_t rpl_dag_node_pid(const rpl_trace *t, const rpl_dag_node *n)
{
    return n->kind == RPL_DAG_NODE_DISPATCH ? t->dispatches.items[n->ref].pid
                                            : t->memcpys.items[n->ref].pid;
}

int64_t rpl_dag_node_correlation(const rpl_trace *t, const rpl_dag_node *n)
{
    return n->kind == RPL_DAG_NODE_DISPATCH ? t->dispatches.items[n->ref].correlation_id
                                            : t->memcpys.items[n->ref].correlation_id;
}

uint32_t rpl_dag_node_source(const rpl_trace *t, const rpl_dag_node *n)
{
    return n->kind == RPL_DAG_NODE_DISPATCH ? t->dispatches.items[n->ref].source
                                            : t->memcpys.items[n->ref].source;
}

void rpl_dag_node_describe(char *buf, size_t size, const rpl_dag *dag, const rpl_trace *t,
                           uint32_t node)
{
    const rpl_dag_node *n = &dag->nodes[node];

    snprintf(buf, size, "%s %lld '%s' on '%s'",
             n->kind == RPL_DAG_NODE_DISPATCH ? "dispatch" : "copy",
             (long long)rpl_dag_node_trace_id(t, n), dag->symbols[n->symbol].name,
             dag->lanes[n->lane].name);
}

uint32_t rpl_dag_process_index(const rpl_dag_builder *b, int64_t pid)
{
    uint32_t lo = 0, hi = b->process_count;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (b->pids[mid] < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < b->process_count && b->pids[lo] == pid ? lo : RPL_NONE;
}

int rpl_dag_edge_add(rpl_dag_builder *b, uint32_t src, uint32_t dst, rpl_dag_edge_kind kind)
{
    if (b->edge_count == b->edge_cap) { /* the list grows by a quarter */
        uint64_t ncap = (uint64_t)b->edge_cap + b->edge_cap / 4 + 1024;
        rpl_dag_edge *p;

        if (ncap > UINT32_MAX - 1)
            return rpl_error_set(RPL_EINPUT, "trace has too many dependencies");
        if (!(p = realloc(b->edges, (size_t)ncap * sizeof(*p))))
            return rpl_error_oom();
        b->edges = p;
        b->edge_cap = (uint32_t)ncap;
    }
    b->edges[b->edge_count++] = (rpl_dag_edge){src, dst, (uint8_t)kind};
    return 0;
}

/*
 * The operations of the trace, read once into a compact array (the trace's
 * records are large): dispatches first, then copies, in trace order.
 */
typedef struct op_rec {
    int64_t start, end, pid;
    uint32_t stream, queue;
    uint32_t lane, symbol; /* filled by assign_lanes and build_symbols */
} op_rec;

static int read_ops(const rpl_trace *t, op_rec *ops, uint32_t nops)
{
    uint32_t nd = t->dispatches.count;

    for (uint32_t i = 0; i < nops; i++) {
        const rpl_dispatch *d = i < nd ? &t->dispatches.items[i] : NULL;
        const rpl_memcpy *m = d ? NULL : &t->memcpys.items[i - nd];
        op_rec *o = &ops[i];

        if (d)
            *o = (op_rec){d->start, d->end, d->pid, d->stream, d->queue, 0, d->kernel};
        else
            *o = (op_rec){m->start, m->end, m->pid, m->stream, m->queue, 0, RPL_NONE};
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
static int build_processes(rpl_dag_builder *b, const op_rec *ops, uint32_t nops)
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

typedef struct lane_key {
    int64_t pid, id; /* sort key: (pid, kind, id) */
    uint8_t kind;
    uint32_t ref;  /* stream or queue index, RPL_NONE for a process lane */
    uint32_t lane; /* number before sorting */
} lane_key;

static int cmp_lane_key(const void *a, const void *b)
{
    const lane_key *x = a, *y = b;

    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return (x->lane > y->lane) - (x->lane < y->lane);
}

static char *lane_name(const rpl_trace *t, uint8_t kind, uint32_t ref, int64_t pid)
{
    char buf[64];
    const rpl_queue *q = NULL;

    if (kind == RPL_DAG_LANE_STREAM)
        q = &t->streams.items[ref];
    else if (kind == RPL_DAG_LANE_QUEUE)
        q = &t->queues.items[ref];
    if (q && q->name && q->name[0])
        return strdup(q->name);
    if (q)
        snprintf(buf, sizeof(buf), "%s %lld", kind == RPL_DAG_LANE_STREAM ? "Stream" : "Queue",
                 (long long)q->id);
    else
        snprintf(buf, sizeof(buf), "process %lld", (long long)pid);
    return strdup(buf);
}

/*
 * Choose each operation's lane.  A process uses streams when its operations
 * name two or more streams, or one stream and at most one queue; otherwise
 * queues (a HIP trace without stream tracking puts everything on stream 0).
 * An operation lacking the chosen kind takes the other; one with neither
 * gets its process's lane.  Lanes are numbered by (pid, kind, trace id).
 */
static int assign_lanes(rpl_dag_builder *b, op_rec *ops, uint32_t nops)
{
    const rpl_trace *t = b->trace;
    rpl_dag *dag = b->dag;
    uint32_t nstreams = t->streams.count, nqueues = t->queues.count, np = b->process_count;
    uint32_t *first_user = malloc(((size_t)nstreams + nqueues + 1) * sizeof(uint32_t));
    uint32_t *lane_of = malloc(((size_t)nstreams + nqueues + np + 1) * sizeof(uint32_t));
    uint32_t *count = calloc((size_t)np * 2 + 1, sizeof(uint32_t));
    uint32_t *remap = NULL, nlanes = 0;
    lane_key *keys = NULL;
    int rc = 0;

    if (!first_user || !lane_of || !count) {
        rc = rpl_error_oom();
        goto done;
    }
    for (uint32_t i = 0; i < nstreams + nqueues; i++)
        first_user[i] = RPL_NONE;
    for (uint32_t i = 0; i < nstreams + nqueues + np; i++)
        lane_of[i] = RPL_NONE;
    /* count[2p]: streams first used by process p; count[2p+1]: queues. */
    for (uint32_t i = 0; i < nops; i++) {
        const op_rec v = ops[i];
        uint32_t p = b->process_of[i];

        if (v.stream != RPL_NONE && first_user[v.stream] == RPL_NONE) {
            first_user[v.stream] = p;
            count[2 * p]++;
        }
        if (v.queue != RPL_NONE && first_user[nstreams + v.queue] == RPL_NONE) {
            first_user[nstreams + v.queue] = p;
            count[2 * p + 1]++;
        }
    }
    for (uint32_t i = 0; i < nops; i++) {
        const op_rec v = ops[i];
        uint32_t p = b->process_of[i], slot;
        bool streams = count[2 * p] >= 2 || (count[2 * p] == 1 && count[2 * p + 1] <= 1);

        if (v.stream != RPL_NONE && (streams || v.queue == RPL_NONE))
            slot = v.stream;
        else if (v.queue != RPL_NONE)
            slot = nstreams + v.queue;
        else
            slot = nstreams + nqueues + p;
        if (lane_of[slot] == RPL_NONE)
            lane_of[slot] = nlanes++;
        ops[i].lane = lane_of[slot];
    }
    dag->lanes = calloc((size_t)nlanes + 1, sizeof(*dag->lanes));
    keys = malloc(((size_t)nlanes + 1) * sizeof(*keys));
    remap = malloc(((size_t)nlanes + 1) * sizeof(*remap));
    if (!dag->lanes || !keys || !remap) {
        rc = rpl_error_oom();
        goto done;
    }
    for (uint32_t s = 0; s < nstreams + nqueues + np; s++) {
        uint32_t l = lane_of[s];

        if (l == RPL_NONE)
            continue;
        if (s < nstreams)
            keys[l] = (lane_key){t->streams.items[s].pid, t->streams.items[s].id,
                                 RPL_DAG_LANE_STREAM, s, l};
        else if (s < nstreams + nqueues)
            keys[l] =
                (lane_key){t->queues.items[s - nstreams].pid, t->queues.items[s - nstreams].id,
                           RPL_DAG_LANE_QUEUE, s - nstreams, l};
        else
            keys[l] =
                (lane_key){b->pids[s - nstreams - nqueues], 0, RPL_DAG_LANE_PROCESS, RPL_NONE, l};
    }
    qsort(keys, nlanes, sizeof(*keys), cmp_lane_key);
    for (uint32_t l = 0; l < nlanes; l++) {
        rpl_dag_lane *lane = &dag->lanes[l];

        remap[keys[l].lane] = l;
        lane->kind = keys[l].kind;
        lane->pid = keys[l].pid;
        lane->ref = keys[l].ref;
        lane->name = lane_name(t, lane->kind, lane->ref, lane->pid);
        if (!lane->name) {
            rc = rpl_error_oom();
            goto done;
        }
        dag->lane_count = l + 1;
    }
    dag->lane_count = nlanes;
    for (uint32_t i = 0; i < nops; i++)
        ops[i].lane = remap[ops[i].lane];
done:
    free(first_user);
    free(lane_of);
    free(count);
    free(keys);
    free(remap);
    return rc;
}

typedef struct sym_key {
    const char *name;
    const char *mangled;
    uint8_t kind;
    uint32_t group;
} sym_key;

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const sym_key *)a)->name, y = (uintptr_t)((const sym_key *)b)->name;

    return x < y ? -1 : x > y;
}

static int cmp_sym_name(const void *a, const void *b)
{
    const sym_key *x = a, *y = b;
    int c = strcmp(x->name, y->name);

    return c ? c : (x->kind > y->kind) - (x->kind < y->kind);
}

static const char *kernel_display(const rpl_kernel_symbol *s)
{
    return s->display_name && s->display_name[0] ? s->display_name : (s->name ? s->name : "");
}

/* Index of `name` in keys[0..n) sorted by pointer. */
static uint32_t find_ptr(const sym_key *keys, uint32_t n, const char *name)
{
    uint32_t lo = 0, hi = n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if ((uintptr_t)keys[mid].name < (uintptr_t)name)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Deduplicate keys[0..n) by pointer (after sorting); returns the new count. */
static uint32_t unique_ptrs(sym_key *keys, uint32_t n)
{
    uint32_t m = 0;

    qsort(keys, n, sizeof(*keys), cmp_ptr);
    for (uint32_t i = 0; i < n; i++)
        if (m == 0 || keys[m - 1].name != keys[i].name)
            keys[m++] = keys[i];
    return m;
}

/*
 * Symbols: kernels grouped by display name, copies by copy name (interned
 * strings, so equal names are equal pointers).  sym_of_op gets each
 * operation's symbol index; symbols end up sorted by name.
 */
static int build_symbols(rpl_dag_builder *b, op_rec *ops, uint32_t nops)
{
    const rpl_trace *t = b->trace;
    rpl_dag *dag = b->dag;
    uint32_t nk = 0, nc = 0, ndisp = t->dispatches.count, *remap = NULL, *of_kernel = NULL;
    sym_key *kern = malloc(((size_t)t->symbols.count + 1) * sizeof(*kern));
    sym_key *copy = malloc(((size_t)t->memcpys.count + 1) * sizeof(*copy));
    sym_key *all = NULL;
    int rc = 0;

    of_kernel = malloc(((size_t)t->symbols.count + 1) * sizeof(*of_kernel));
    if (!kern || !copy || !of_kernel) {
        rc = rpl_error_oom();
        goto done;
    }
    /* Only symbols that were dispatched: a code object lists many more. */
    for (uint32_t k = 0; k < t->symbols.count; k++)
        of_kernel[k] = RPL_NONE;
    for (uint32_t i = 0; i < ndisp; i++)
        of_kernel[ops[i].symbol] = 0;
    for (uint32_t k = 0; k < t->symbols.count; k++) {
        const rpl_kernel_symbol *s = &t->symbols.items[k];

        if (of_kernel[k] == 0)
            kern[nk++] =
                (sym_key){kernel_display(s), s->name ? s->name : "", RPL_DAG_NODE_DISPATCH, 0};
    }
    for (uint32_t i = 0; i < t->memcpys.count; i++) {
        const char *name = t->memcpys.items[i].name ? t->memcpys.items[i].name : "";

        if (nc == 0 || copy[nc - 1].name != name)
            copy[nc++] = (sym_key){name, "", RPL_DAG_NODE_COPY, 0};
    }
    nk = unique_ptrs(kern, nk);
    nc = unique_ptrs(copy, nc);
    all = malloc(((size_t)nk + nc + 1) * sizeof(*all));
    remap = malloc(((size_t)nk + nc + 1) * sizeof(*remap));
    dag->symbols = calloc((size_t)nk + nc + 1, sizeof(*dag->symbols));
    if (!all || !remap || !dag->symbols) {
        rc = rpl_error_oom();
        goto done;
    }
    for (uint32_t i = 0; i < nk + nc; i++) {
        all[i] = i < nk ? kern[i] : copy[i - nk];
        all[i].group = i;
    }
    qsort(all, nk + nc, sizeof(*all), cmp_sym_name);
    for (uint32_t i = 0; i < nk + nc; i++) {
        rpl_dag_symbol *s = &dag->symbols[i];

        remap[all[i].group] = i;
        s->name = all[i].name;
        s->mangled = all[i].mangled;
        s->kind = all[i].kind;
        s->helper = s->kind == RPL_DAG_NODE_DISPATCH &&
                    rpl_kernel_filter_is_helper(b->filter, s->mangled, s->name);
        s->headroom = 1.0;
        s->min_slack_ns = INT64_MAX;
    }
    dag->symbol_count = nk + nc;
    for (uint32_t k = 0; k < t->symbols.count; k++)
        if (of_kernel[k] == 0)
            of_kernel[k] = remap[find_ptr(kern, nk, kernel_display(&t->symbols.items[k]))];
    for (uint32_t i = 0; i < ndisp; i++)
        ops[i].symbol = of_kernel[ops[i].symbol];
    for (uint32_t i = ndisp; i < nops; i++) {
        const char *name = t->memcpys.items[i - ndisp].name;

        ops[i].symbol = remap[nk + find_ptr(copy, nc, name ? name : "")];
    }
done:
    free(of_kernel);
    free(kern);
    free(copy);
    free(all);
    free(remap);
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

static void heap_down(heap_item *h, uint32_t n, uint32_t i)
{
    heap_item x = h[i];

    for (;;) {
        uint32_t c = 2 * i + 1;

        if (c >= n)
            break;
        if (c + 1 < n && lane_op_less(&h[c + 1].head, &h[c].head))
            c++;
        if (!lane_op_less(&h[c].head, &x.head))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = x;
}

/*
 * Number the operations in (start, end, trace order) into dag->nodes: group
 * them into runs, the dispatches and the copies of each lane (a run is
 * normally in time order already, as the trace lists them; one that is not
 * gets sorted), then merge the runs with a heap: O(V log L) for ordinary
 * traces, O(V log V) at worst.  Once the runs hold what the nodes need,
 * *ops becomes the node array (its memory is already paged in: on a
 * million operations that saves about 45 MB of fresh pages); *ops is NULL
 * after that.
 */
static int sort_nodes(rpl_dag_builder *b, op_rec **opsp, uint32_t nops)
{
    const op_rec *ops = *opsp;
    rpl_dag *dag = b->dag;
    uint32_t ndisp = b->trace->dispatches.count, nl = 2 * dag->lane_count; /* runs */
    lane_op *lops = malloc(((size_t)nops + 1) * sizeof(*lops));
    uint32_t *first = calloc((size_t)nl + 2, sizeof(*first));
    uint32_t *next = malloc(((size_t)nl + 1) * sizeof(*next));
    uint32_t *proc = malloc(((size_t)nops + 1) * sizeof(*proc));
    heap_item *heap = malloc(((size_t)nl + 1) * sizeof(*heap));
    uint32_t nheap = 0;
    int64_t t0 = INT64_MAX, tmax = INT64_MIN;
    int rc = 0;

    b->node_of_op = malloc(((size_t)nops + 1) * sizeof(*b->node_of_op));
    if (!lops || !first || !next || !proc || !heap || !b->node_of_op) {
        rc = rpl_error_oom();
        goto done;
    }
    rpl_bigmem_advise(lops, (size_t)nops * sizeof(*lops));
    rpl_bigmem_advise(proc, (size_t)nops * sizeof(*proc));
    rpl_bigmem_advise(b->node_of_op, (size_t)nops * sizeof(*b->node_of_op));
    for (uint32_t i = 0; i < nops; i++) {
        t0 = ops[i].start < t0 ? ops[i].start : t0;
        tmax = ops[i].end > tmax ? ops[i].end : tmax;
        first[2 * ops[i].lane + (i >= ndisp) + 1]++;
    }
    /* Keep every later sum of durations and times far from overflow. */
    if (nops && (uint64_t)tmax - (uint64_t)t0 > (uint64_t)INT64_MAX / 4) {
        rc = rpl_error_set(RPL_EINPUT, "trace timestamps span more than %lld ns",
                           (long long)(INT64_MAX / 4));
        goto done;
    }
    dag->t0 = nops ? t0 : 0;
    for (uint32_t l = 0; l < nl; l++)
        first[l + 1] += first[l];
    for (uint32_t l = 0; l < nl; l++)
        next[l] = first[l];
    for (uint32_t i = 0; i < nops; i++)
        lops[next[2 * ops[i].lane + (i >= ndisp)]++] =
            (lane_op){ops[i].start, ops[i].end, i, ops[i].symbol};
    _Static_assert(sizeof(rpl_dag_node) >= sizeof(op_rec), "nodes reuse the operations' array");
    if (!(dag->nodes = realloc(*opsp, ((size_t)nops + 1) * sizeof(*dag->nodes)))) {
        rc = rpl_error_oom();
        goto done;
    }
    rpl_bigmem_advise(dag->nodes, (size_t)nops * sizeof(*dag->nodes));
    *opsp = NULL;
    ops = NULL;
    for (uint32_t l = 0; l < nl && !rc; l++) {
        uint32_t lo = first[l], hi = first[l + 1];
        bool sorted = true;

        for (uint32_t k = lo + 1; k < hi && sorted; k++)
            sorted = !lane_op_less(&lops[k], &lops[k - 1]);
        if (!sorted)
            rc = sort_lane(lops + lo, hi - lo, t0);
        next[l] = lo + 1;
        if (lo < hi)
            heap[nheap++] = (heap_item){lops[lo], l};
    }
    for (uint32_t i = nheap; i > 0; i--)
        heap_down(heap, nheap, i - 1);
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
        heap_down(heap, nheap, 0);
    }
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
    free(heap);
    return rc;
}

/* Group node indices by lane (stable, so each lane stays in time order). */
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
    op_rec *ops;
    int rc;

    if (total >= RPL_NONE)
        return rpl_error_set(RPL_EINPUT, "trace has too many operations for the DAG");
    nops = (uint32_t)total;
    ops = malloc(((size_t)nops + 1) * sizeof(*ops));
    if (!ops)
        return rpl_error_oom();
    rpl_bigmem_advise(ops, (size_t)nops * sizeof(*ops));
    rc = read_ops(t, ops, nops);
    if (rc == 0)
        rc = build_processes(b, ops, nops);
    if (rc == 0)
        rc = assign_lanes(b, ops, nops);
    if (rc == 0)
        rc = build_symbols(b, ops, nops);
    if (rc == 0)
        rc = sort_nodes(b, &ops, nops);
    if (rc == 0)
        rc = group_lanes(b->dag);
    free(ops);
    return rc;
}

static int cmp_edge_dst(const void *a, const void *b)
{
    const rpl_dag_edge *x = a, *y = b;

    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return (x->kind > y->kind) - (x->kind < y->kind);
}

/*
 * Program order: each lane's neighbours.  They are made here, straight into
 * the sorted array, rather than kept in the list while the dependency
 * tables are built (one edge per node: the list's largest part).
 */
static uint32_t program_order(const rpl_dag *dag, uint32_t *first, rpl_dag_edge *sorted)
{
    uint32_t count = 0;

    for (uint32_t l = 0; l < dag->lane_count; l++) {
        const uint32_t *nodes;

        if (dag->lanes[l].count < 2) /* no neighbours (and lane_nodes may be NULL) */
            continue;
        nodes = dag->lane_nodes + dag->lanes[l].first;
        for (uint32_t k = 1; k < dag->lanes[l].count; k++, count++)
            if (sorted)
                sorted[first[nodes[k - 1]]++] =
                    (rpl_dag_edge){nodes[k - 1], nodes[k], RPL_DAG_EDGE_PROGRAM_ORDER};
            else
                first[nodes[k - 1] + 1]++;
    }
    return count;
}

int rpl_dag_edges_finish(rpl_dag_builder *b)
{
    rpl_dag *dag = b->dag;
    uint32_t n = dag->node_count, m = 0, nprogram;
    rpl_dag_edge *sorted, *shrunk;
    uint32_t *first;

    /* Give back the list's slack before the sorted copy is made. */
    if (b->edge_count && b->edge_count < b->edge_cap &&
        (shrunk = realloc(b->edges, (size_t)b->edge_count * sizeof(*shrunk)))) {
        b->edges = shrunk;
        b->edge_cap = b->edge_count;
    }
    first = calloc((size_t)n + 2, sizeof(*first));
    if (!first)
        return rpl_error_oom();
    rpl_bigmem_advise(first, (size_t)n * sizeof(*first));
    /* Counting sort by source, then each source's edges by (dst, kind). */
    nprogram = program_order(dag, first, NULL);
    for (uint32_t i = 0; i < b->edge_count; i++)
        first[b->edges[i].src + 1]++;
    if (!(sorted = malloc(((size_t)nprogram + b->edge_count + 1) * sizeof(*sorted)))) {
        free(first);
        return rpl_error_oom();
    }
    rpl_bigmem_advise(sorted, ((size_t)nprogram + b->edge_count) * sizeof(*sorted));
    for (uint32_t v = 0; v < n; v++)
        first[v + 1] += first[v];
    program_order(dag, first, sorted);
    for (uint32_t i = 0; i < b->edge_count; i++)
        sorted[first[b->edges[i].src]++] = b->edges[i];
    for (uint32_t v = n; v > 0; v--)
        first[v] = first[v - 1];
    first[0] = 0;
    /* Drop duplicate (src, dst) pairs, keeping the lowest kind (program order first). */
    for (uint32_t v = 0; v < n; v++) {
        uint32_t lo = first[v], hi = first[v + 1];

        if (hi - lo > 1)
            qsort(sorted + lo, hi - lo, sizeof(*sorted), cmp_edge_dst);
        first[v] = m;
        for (uint32_t i = lo; i < hi; i++)
            if (i == lo || sorted[i].dst != sorted[i - 1].dst)
                sorted[m++] = sorted[i];
    }
    first[n] = m;
    free(b->edges);
    b->edges = NULL;
    b->edge_count = b->edge_cap = 0;
    /* Duplicates dropped: keep only the m edges (a failed shrink keeps the larger block). */
    if ((shrunk = realloc(sorted, ((size_t)m + 1) * sizeof(*sorted))))
        sorted = shrunk;
    dag->edges = sorted;
    dag->edge_count = m;
    dag->out_first = first;
    memset(dag->edge_counts, 0, sizeof(dag->edge_counts));
    for (uint32_t i = 0; i < m; i++)
        dag->edge_counts[sorted[i].kind]++;
    return 0;
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

static int build(rpl_dag **out, const rpl_trace *trace, rpl_trace *release,
                 const rpl_dag_opts *opts)
{
    rpl_dag_builder b = {0};
    rpl_dag_deps deps = {0};
    rpl_kernel_filter own;
    bool deps_needed = false;
    bool own_filter = false;
    uint8_t *flags = NULL;
    int rc;

    *out = NULL;
    b.trace = trace;
    b.release = release;
    b.dag = calloc(1, sizeof(*b.dag));
    if (!b.dag)
        return rpl_error_oom();
    if (opts)
        b.dag->opts = *opts;
    else
        rpl_dag_opts_init(&b.dag->opts);
    if (b.dag->opts.gap_ns < 0 || b.dag->opts.tolerance_ns < 0) {
        rc = rpl_error_set(RPL_EUSAGE, "dag gap and tolerance must not be negative");
        goto done;
    }
    b.filter = b.dag->opts.filter;
    b.dag->opts.filter = NULL;
    if (!b.filter) {
        rc = rpl_kernel_filter_init(&own, NULL, NULL, false);
        if (rc)
            goto done;
        own_filter = true;
        b.filter = &own;
    }
    rc = rpl_dag_launch_info(&b);
    if (rc == 0)
        rc = rpl_dag_nodes_build(&b);
    if (rc == 0 && !(flags = calloc((size_t)b.process_count + 1, 1)))
        rc = rpl_error_oom();
    if (rc == 0)
        rc = rpl_dag_deps_scan(&deps, &b, flags, &deps_needed);
    if (rc == 0 && deps_needed)
        rc = rpl_dag_deps_index(&deps);
    if (rc == 0 && deps_needed)
        rc = rpl_dag_event_waits(&deps);
    if (rc == 0 && deps_needed)
        rc = rpl_dag_host_edges(&deps);
    rpl_dag_deps_release(&deps);
    rpl_dag_launch_info_release(&b);
#ifdef __GLIBC__
    /* The dependency tables were the largest temporaries: hand their pages back now. */
    malloc_trim(0);
#endif
    if (rc == 0) {
        /* flags[p]: has sync or blocking regions -> becomes: gets inferred edges. */
        for (uint32_t p = 0; p < b.process_count; p++) {
            rpl_dag_infer mode = b.dag->opts.infer;

            flags[p] = mode == RPL_DAG_INFER_ALWAYS || (mode == RPL_DAG_INFER_AUTO && !flags[p]);
            b.dag->inferred_processes += flags[p];
        }
        rc = rpl_dag_infer_edges(&b, flags);
    }
    if (rc == 0)
        rc = rpl_dag_edges_finish(&b);
    if (rc == 0)
        rc = rpl_dag_solve(b.dag, trace);
    if (rc == 0) /* the priorities' headroom, from the counters (roofline_dag.c) */
        rc = rpl_roofline_dag_headroom(b.dag, trace);
done:
    if (own_filter)
        rpl_kernel_filter_release(&own);
    rpl_dag_launch_info_release(&b);
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
