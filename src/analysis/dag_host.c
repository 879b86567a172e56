/*
 * Host-side ordering as DAG edges; the rules are docs/schemas/dag-dependencies.md §5-§6.
 *
 * Host synchronisation (`host_sync`).  A blocking call (a synchronous copy or
 * memset, a device, stream or event synchronise, a free that synchronises
 * the device) returns at its region's end T.  Every operation issued (its
 * launch region's start) at or after T by the same host thread depends on
 * what the call waited for: its own operation (copy, memset); the last
 * operation of every lane of the process enqueued before the call (device);
 * of the named stream (stream); the operation the event's latest record
 * captured (event).  Only the first operation of each lane issued after the
 * call gets the edges: the lane's later operations follow by program order.
 *
 * Legacy default stream (`default_stream`).  An operation on a lane that is
 * the legacy default stream depends on the operation last enqueued before it
 * on every other lane of its process; an operation on another lane depends
 * on the operation last enqueued before it on each legacy lane.  A lane
 * whose barrier edges the timestamps contradict was a non-blocking stream
 * (the trace does not record stream flags): it keeps none of them.
 *
 * A host edge that the barriers already imply (a blocking stream's operation
 * before a legacy one, or the other way round) is not added again; nor are
 * the operations a device synchronisation waited for that the legacy
 * stream's last operation waited for already.  An edge whose target starts
 * more than tolerance_ns before its source ends is not added and is counted
 * (host_edges_dropped).
 *
 * Cost: the barriers take one pass in enqueue order after a radix sort, with
 * at most one edge per operation and lane it moved; the host edges one pass
 * per host thread in issue order, with at most one edge per waited lane for
 * the first operation of each lane after a call.  A work budget (spend())
 * bounds the host part for hostile traces.
 */
#include <stdlib.h>
#include <string.h>

#include "dag_internal.h"
#include "radix_sort.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/log.h"

/* A blocking call: the nodes it waited for are wait[first .. first + count) or an op list. */
typedef struct host_call {
    int64_t pid, tid, end;
    uint32_t region;
    uint32_t first, count; /* slice of the wait pool */
    uint32_t op_head;      /* blocking op: its first node (then op_next), RPL_NONE if none */
} host_call;

typedef struct host_ctx {
    rpl_dag_deps *d;
    rpl_dag *dag;
    uint32_t *pos;             /* node -> position in its lane */
    uint32_t *proc_lane_first; /* process index -> its first lane (lanes sorted by pid) */
    uint32_t *proc_lane_count;
    uint32_t *wait; /* wait pool */
    uint32_t nwait, wait_cap;
    uint32_t *op_next;     /* blocking op lists, per node */
    uint8_t *nonblocking;  /* per lane: left out of the barriers */
    uint64_t pool_budget;  /* steps left for the waited sets */
    uint64_t apply_budget; /* steps left for applying them */
    bool over_budget;
} host_ctx;

/*
 * One step of the host rules' work; false once the budget is spent.  Real
 * traces stay far below it (32 steps per operation and blocking call, for
 * collecting and for applying the waited sets); a hostile one with a device
 * synchronisation between operations on thousands of lanes would otherwise
 * take time quadratic in its size.
 */
static bool spend(host_ctx *h, uint64_t *budget)
{
    if (*budget == 0) {
        h->over_budget = true;
        return false;
    }
    (*budget)--;
    return true;
}

/* A lane the legacy default stream's barriers order against (blocking stream or legacy). */
static bool barrier_lane(const host_ctx *h, uint32_t lane)
{
    return h->dag->legacy_lanes > 0 && !h->nonblocking[lane];
}

/*
 * Whether u -> v already follows from the default stream's barriers (so a
 * host edge would only repeat it): u is on a blocking lane and v on a legacy
 * one, or the other way round, and u was enqueued before v.
 */
static bool barrier_implies(const host_ctx *h, uint32_t u, uint32_t v)
{
    uint32_t lu = h->dag->nodes[u].lane, lv = h->dag->nodes[v].lane;
    const uint8_t *role = h->d->lane_role;

    if (lu == lv || !barrier_lane(h, lu) || !barrier_lane(h, lv) ||
        h->dag->lanes[lu].pid != h->dag->lanes[lv].pid)
        return false;
    if ((role[lu] == RPL_DAG_ROLE_LEGACY) == (role[lv] == RPL_DAG_ROLE_LEGACY))
        return false;
    return h->d->enq[u] < h->d->enq[v];
}

/* Room for item `count` of an array of *cap items of `size` bytes (doubling); `what` for errors. */
static int room_for_one(void **items, uint32_t count, uint32_t *cap, size_t size, const char *what)
{
    uint32_t ncap = *cap ? *cap * 2 : 256;
    void *p;

    if (count < *cap)
        return 0;
    if (*cap >= UINT32_MAX / 2)
        return rpl_error_set(RPL_EINPUT, "trace has too many %s", what);
    if (!(p = realloc(*items, (size_t)ncap * size)))
        return rpl_error_oom();
    *items = p;
    *cap = ncap;
    return 0;
}

static int pool_push(host_ctx *h, uint32_t node)
{
    int rc = room_for_one((void **)&h->wait, h->nwait, &h->wait_cap, sizeof(*h->wait),
                          "host synchronisations");

    if (rc == 0)
        h->wait[h->nwait++] = node;
    return rc;
}

/* The last node of `lane` enqueued before `time`, or RPL_NONE. */
static uint32_t last_before(const host_ctx *h, uint32_t lane, int64_t time)
{
    uint32_t pos = time > INT64_MIN ? rpl_dag_deps_lane_after(h->d, lane, time - 1) : 0;

    return pos > 0 ? h->dag->lane_nodes[h->dag->lanes[lane].first + pos - 1] : RPL_NONE;
}

/*
 * Add u -> v unless program order already says it; an edge that points
 * backward in time (or in its lane) is counted and left out.
 */
static int add_edge(host_ctx *h, uint32_t u, uint32_t v, rpl_dag_edge_kind kind)
{
    rpl_dag *dag = h->dag;

    if (u == v)
        return 0;
    if (dag->nodes[u].lane == dag->nodes[v].lane) {
        if (h->pos[u] < h->pos[v])
            return 0;
        dag->host_edges_dropped++;
        return 0;
    }
    if (dag->nodes[u].end - dag->nodes[v].start > dag->opts.tolerance_ns) {
        dag->host_edges_dropped++;
        return 0;
    }
    return rpl_dag_edge_add(h->d->b, u, v, kind);
}

/* What the blocking call in region r waited for, into the pool (blocking ops: later). */
static int collect_wait(host_ctx *h, uint32_t r, host_call *c)
{
    const rpl_trace *t = h->d->b->trace;
    const rpl_region *reg = &t->regions.items[r];
    int64_t pid = rpl_trace_pid(t, reg->thread);
    uint32_t p = rpl_dag_process_index(h->d->b, pid), node, lane, legacy_last = RPL_NONE;
    const char *arg;
    bool found;
    int rc = 0;

    c->first = h->nwait;
    switch (h->d->b->api_kind[r]) {
    case RPL_DAG_API_DEVICE_SYNC:
        /* The legacy stream's last operation, when there is one, stands for those before it. */
        for (uint32_t l = 0; l < h->proc_lane_count[p] && spend(h, &h->pool_budget); l++) {
            lane = h->proc_lane_first[p] + l;
            node = h->d->lane_role[lane] == RPL_DAG_ROLE_LEGACY ? last_before(h, lane, reg->start)
                                                                : RPL_NONE;
            if (node != RPL_NONE &&
                (legacy_last == RPL_NONE || h->d->enq[node] > h->d->enq[legacy_last]))
                legacy_last = node;
        }
        for (uint32_t l = 0; rc == 0 && l < h->proc_lane_count[p] && spend(h, &h->pool_budget);
             l++) {
            node = last_before(h, h->proc_lane_first[p] + l, reg->start);
            if (node != RPL_NONE && (legacy_last == RPL_NONE || node == legacy_last ||
                                     !barrier_implies(h, node, legacy_last)))
                rc = pool_push(h, node);
        }
        break;
    case RPL_DAG_API_STREAM_SYNC:
        arg = rpl_dag_region_arg(t, reg, "stream", "hStream", 0);
        lane = arg ? rpl_dag_deps_resolve_stream(h->d, pid, arg, reg->start) : RPL_NONE;
        if (lane == RPL_NONE || h->dag->lanes[lane].pid != pid) {
            h->dag->blocking_unresolved++;
            break;
        }
        node = last_before(h, lane, reg->start);
        if (node != RPL_NONE)
            rc = pool_push(h, node);
        break;
    case RPL_DAG_API_EVENT_SYNC:
        arg = rpl_dag_region_arg(t, reg, "event", "hEvent", 0);
        node = rpl_dag_deps_event_node(h->d, pid, arg, reg->start, &found);
        if (!found)
            h->dag->blocking_unresolved++;
        else if (node != RPL_NONE)
            rc = pool_push(h, node);
        break;
    default:
        break;
    }
    c->count = h->nwait - c->first;
    return rc;
}

static int cmp_call(const void *a, const void *b)
{
    const host_call *x = a, *y = b;

    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    return (x->region > y->region) - (x->region < y->region);
}

/* A host thread: its calls are calls[first .. first + count), sorted by end. */
typedef struct host_thread {
    int64_t pid, tid;
    uint32_t first, count;
} host_thread;

static uint32_t find_thread(const host_thread *th, uint32_t n, int64_t pid, int64_t tid)
{
    uint32_t lo = 0, hi = n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (th[mid].pid < pid || (th[mid].pid == pid && th[mid].tid < tid))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && th[lo].pid == pid && th[lo].tid == tid ? lo : RPL_NONE;
}

/* Per target lane: the calls of the current thread already applied to it. */
typedef struct lane_state {
    uint32_t thread_stamp, applied;
    uint32_t best_stamp, best; /* the newest waited node of this (source) lane for one target */
} lane_state;

/* Keep u if it is the newest waited node of its lane seen for the current target. */
static void consider(const host_ctx *h, lane_state *ls, uint32_t stamp, uint32_t *touched,
                     uint32_t *ntouched, uint32_t u)
{
    uint32_t x = h->dag->nodes[u].lane;

    if (ls[x].best_stamp != stamp) {
        ls[x].best_stamp = stamp;
        ls[x].best = u;
        touched[(*ntouched)++] = x;
    } else if (h->pos[u] > h->pos[ls[x].best]) {
        ls[x].best = u;
    }
}

/* The edges into target v from calls[from .. to) of its thread: one per waited lane. */
static int apply_calls(host_ctx *h, const host_call *calls, uint32_t from, uint32_t to, uint32_t v,
                       lane_state *ls, uint32_t stamp, uint32_t *touched)
{
    uint32_t ntouched = 0;
    int rc = 0;

    for (uint32_t k = from; k < to && spend(h, &h->apply_budget); k++) {
        const host_call *c = &calls[k];

        for (uint32_t i = 0; i < c->count && spend(h, &h->apply_budget); i++)
            consider(h, ls, stamp, touched, &ntouched, h->wait[c->first + i]);
        for (uint32_t u = c->op_head; u != RPL_NONE && spend(h, &h->apply_budget);
             u = h->op_next[u])
            consider(h, ls, stamp, touched, &ntouched, u);
    }
    for (uint32_t k = 0; rc == 0 && k < ntouched; k++)
        if (!barrier_implies(h, ls[touched[k]].best, v))
            rc = add_edge(h, ls[touched[k]].best, v, RPL_DAG_EDGE_HOST_SYNC);
    return rc;
}

/* The blocking calls of one pass, grouped by host thread, and the nodes they order. */
typedef struct host_sync {
    host_call *calls; /* by (pid, tid, end, region) */
    uint32_t ncalls;
    host_thread *threads; /* each one's calls are a slice of calls */
    uint32_t nthreads;
    uint32_t *target_first; /* per thread: its targets are targets[first[g] .. first[g + 1]) */
    uint32_t *targets;      /* nodes issued by a thread with blocking calls, by issue time */
} host_sync;

static void host_sync_free(host_sync *s)
{
    RPL_FREE_EACH(s->calls, s->threads, s->target_first, s->targets);
}

/* The blocking calls of the DAG's processes, with what each waited for, by (pid, tid, end). */
static int collect_calls(host_ctx *h, host_sync *s)
{
    rpl_dag_builder *b = h->d->b;
    const rpl_trace *t = b->trace;
    int rc = 0;

    s->calls = malloc(((size_t)h->dag->blocking_calls + 1) * sizeof(*s->calls));
    if (!s->calls)
        return rpl_error_oom();
    for (uint32_t r = 0; rc == 0 && r < t->regions.count; r++) {
        const rpl_region *reg = &t->regions.items[r];

        const rpl_thread *th = &t->threads.items[reg->thread];

        if (b->api_kind[r] < RPL_DAG_API_DEVICE_SYNC ||
            rpl_dag_process_index(b, th->pid) == RPL_NONE)
            continue;
        s->calls[s->ncalls] = (host_call){th->pid, th->tid, reg->end, r, 0, 0, RPL_NONE};
        rc = collect_wait(h, r, &s->calls[s->ncalls]);
        s->ncalls++;
    }
    if (rc == 0)
        qsort(s->calls, s->ncalls, sizeof(*s->calls), cmp_call);
    return rc;
}

/* The call of region r in s->calls (calls of one region are unique), or RPL_NONE. */
static uint32_t find_call(const host_sync *s, const rpl_trace *t, uint32_t r)
{
    const rpl_region *reg = &t->regions.items[r];
    const rpl_thread *th = &t->threads.items[reg->thread];
    host_call key = {th->pid, th->tid, reg->end, r, 0, 0, 0};
    uint32_t lo = 0, hi = s->ncalls;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (cmp_call(&s->calls[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->ncalls && s->calls[lo].region == r ? lo : RPL_NONE;
}

/* A blocking op's nodes: those its region launched, as a list from the call (op_next). */
static int link_blocking_ops(host_ctx *h, host_sync *s)
{
    rpl_dag_builder *b = h->d->b;
    uint32_t n = h->dag->node_count;

    h->op_next = malloc(((size_t)n + 1) * sizeof(*h->op_next));
    if (!h->op_next)
        return rpl_error_oom();
    for (uint32_t i = 0; i < n; i++)
        h->op_next[i] = RPL_NONE;
    for (uint32_t i = n; b->nblocking && i > 0; i--) {
        uint32_t r = rpl_dag_blocking_region(b, rpl_dag_node_op(b, i - 1));
        uint32_t c = r == RPL_NONE ? RPL_NONE : find_call(s, b->trace, r);

        if (c == RPL_NONE)
            continue;
        h->op_next[i - 1] = s->calls[c].op_head;
        s->calls[c].op_head = i - 1;
    }
    return 0;
}

/* The host threads of the calls, in their order. */
static int group_threads(host_sync *s)
{
    s->threads = malloc(((size_t)s->ncalls + 1) * sizeof(*s->threads));
    if (!s->threads)
        return rpl_error_oom();
    for (uint32_t k = 0; k < s->ncalls; k++) {
        const host_call *c = &s->calls[k];
        host_thread *last = s->nthreads ? &s->threads[s->nthreads - 1] : NULL;

        if (!last || last->pid != c->pid || last->tid != c->tid)
            s->threads[s->nthreads++] = (host_thread){c->pid, c->tid, k, 0};
        s->threads[s->nthreads - 1].count++;
    }
    return 0;
}

/*
 * Targets: the nodes launched by a region of a thread with blocking calls,
 * grouped by thread, each group in issue order.
 */
static int order_targets(host_ctx *h, host_sync *s)
{
    rpl_dag_builder *b = h->d->b;
    uint32_t n = h->dag->node_count, m = 0, nth = s->nthreads;
    uint64_t *keys = malloc(((size_t)n + 1) * sizeof(*keys));
    uint32_t *order = malloc(((size_t)n + 1) * sizeof(*order));
    uint32_t *group = malloc(((size_t)n + 1) * sizeof(*group));
    int64_t min_issue = INT64_MAX;
    int rc = keys && order && group ? 0 : rpl_error_oom();

    for (uint32_t i = 0; rc == 0 && i < n; i++) {
        const rpl_dag_launch *l = rpl_dag_node_launch(b, i);
        const rpl_dag_thread *thread = l ? &b->threads[l->thread] : NULL;

        group[i] = thread ? find_thread(s->threads, nth, thread->pid, thread->tid) : RPL_NONE;
        if (group[i] != RPL_NONE && l->issue < min_issue)
            min_issue = l->issue;
    }
    for (uint32_t i = 0; rc == 0 && i < n; i++)
        if (group[i] != RPL_NONE) {
            keys[m] = (uint64_t)rpl_dag_node_launch(b, i)->issue - (uint64_t)min_issue;
            order[m++] = i;
        }
    if (rc == 0)
        rc = rpl_radix_sort_u64(keys, order, m);
    free(keys);
    s->target_first = calloc((size_t)nth + 2, sizeof(*s->target_first));
    s->targets = malloc(((size_t)m + 1) * sizeof(*s->targets));
    if (rc == 0 && (!s->target_first || !s->targets))
        rc = rpl_error_oom();
    /* A counting sort by thread keeps each thread's targets in issue order. */
    for (uint32_t k = 0; rc == 0 && k < m; k++)
        s->target_first[group[order[k]] + 1]++;
    for (uint32_t g = 0; rc == 0 && g < nth; g++)
        s->target_first[g + 1] += s->target_first[g];
    for (uint32_t k = 0; rc == 0 && k < m; k++)
        s->targets[s->target_first[group[order[k]]]++] = order[k];
    for (uint32_t g = nth; rc == 0 && g > 0; g--)
        s->target_first[g] = s->target_first[g - 1];
    if (rc == 0)
        s->target_first[0] = 0;
    free(order);
    free(group);
    return rc;
}

/* Per thread: each target gets the calls that ended since its lane's last target. */
static int apply_threads(host_ctx *h, const host_sync *s)
{
    rpl_dag *dag = h->dag;
    uint32_t *touched = malloc(((size_t)dag->lane_count + 1) * sizeof(*touched));
    lane_state *ls = calloc((size_t)dag->lane_count + 1, sizeof(*ls));
    uint32_t stamp = 0;
    int rc = touched && ls ? 0 : rpl_error_oom();

    for (uint32_t g = 0; rc == 0 && g < s->nthreads; g++) {
        const host_call *tc = s->calls + s->threads[g].first;
        uint32_t ended = 0;

        for (uint32_t k = s->target_first[g]; rc == 0 && k < s->target_first[g + 1]; k++) {
            uint32_t v = s->targets[k], lane = dag->nodes[v].lane;
            int64_t issue = rpl_dag_node_launch(h->d->b, v)->issue;

            while (ended < s->threads[g].count && tc[ended].end <= issue)
                ended++;
            if (ls[lane].thread_stamp != g + 1) {
                ls[lane].thread_stamp = g + 1;
                ls[lane].applied = 0;
            }
            if (ls[lane].applied < ended) {
                rc = apply_calls(h, tc, ls[lane].applied, ended, v, ls, ++stamp, touched);
                ls[lane].applied = ended;
            }
        }
    }
    free(touched);
    free(ls);
    return rc;
}

static int host_sync_edges(host_ctx *h)
{
    host_sync s = {0};
    int rc = collect_calls(h, &s);

    if (rc == 0 && s.ncalls > 0) {
        rc = link_blocking_ops(h, &s);
        if (rc == 0)
            rc = group_threads(&s);
        if (rc == 0)
            rc = order_targets(h, &s);
        if (rc == 0)
            rc = apply_threads(h, &s);
    }
    host_sync_free(&s);
    return rc;
}

/* A candidate barrier edge; `blame` is the non-legacy lane it concerns (RPL_NONE: none). */
typedef struct barrier {
    uint32_t u, v, blame;
} barrier;

typedef struct barrier_ctx {
    barrier *items;
    uint32_t count, cap;
} barrier_ctx;

static int barrier_push(barrier_ctx *bc, uint32_t u, uint32_t v, uint32_t blame)
{
    int rc = room_for_one((void **)&bc->items, bc->count, &bc->cap, sizeof(*bc->items),
                          "default stream barriers");

    if (rc == 0)
        bc->items[bc->count++] = (barrier){u, v, blame};
    return rc;
}

/*
 * The barriers of one process, its nodes given in enqueue order.  legacy[]
 * lists its legacy lanes (nleg); dirty[j * nl + x] marks lane first_lane + x
 * as having a node not yet linked into legacy lane j; linked[x * nleg + j]
 * is the node of legacy lane j last linked into lane x.
 */
typedef struct proc_barriers {
    uint32_t first_lane, nl, nleg;
    uint32_t *legacy, *leg_index; /* leg_index[x]: j, or RPL_NONE for a non-legacy lane */
    uint32_t *last;               /* per lane: last node seen */
    uint8_t *dirty;
    uint32_t *dirty_list, *dirty_count; /* per legacy lane: list of nl entries */
    uint32_t *linked;
} proc_barriers;

static int barrier_node(const host_ctx *h, proc_barriers *pb, barrier_ctx *bc, uint32_t v)
{
    uint32_t x = h->dag->nodes[v].lane - pb->first_lane, j = pb->leg_index[x];
    int rc = 0;

    if (j != RPL_NONE) {
        /* A legacy node waits for the last node of every lane that moved since. */
        for (uint32_t k = 0; rc == 0 && k < pb->dirty_count[j]; k++) {
            uint32_t y = pb->dirty_list[(size_t)j * pb->nl + k];

            pb->dirty[(size_t)j * pb->nl + y] = 0;
            rc = barrier_push(bc, pb->last[y], v,
                              pb->leg_index[y] == RPL_NONE ? pb->first_lane + y : RPL_NONE);
        }
        pb->dirty_count[j] = 0;
    } else {
        /* Any other node waits for the last node of every legacy lane. */
        for (uint32_t k = 0; rc == 0 && k < pb->nleg; k++) {
            uint32_t u = pb->last[pb->legacy[k]];

            if (u != RPL_NONE && pb->linked[(size_t)x * pb->nleg + k] != u) {
                pb->linked[(size_t)x * pb->nleg + k] = u;
                rc = barrier_push(bc, u, v, pb->first_lane + x);
            }
        }
    }
    pb->last[x] = v;
    for (uint32_t k = 0; k < pb->nleg; k++) {
        size_t at = (size_t)k * pb->nl + x;

        if (k != j && !pb->dirty[at]) {
            pb->dirty[at] = 1;
            pb->dirty_list[(size_t)k * pb->nl + pb->dirty_count[k]++] = x;
        }
    }
    return rc;
}

static void proc_barriers_free(proc_barriers *pb)
{
    RPL_FREE_EACH(pb->legacy, pb->leg_index, pb->last, pb->dirty, pb->dirty_list, pb->dirty_count,
                  pb->linked);
    memset(pb, 0, sizeof(*pb));
}

static int proc_barriers_init(const host_ctx *h, proc_barriers *pb, uint32_t p)
{
    const uint8_t *role = h->d->lane_role;
    size_t nl = h->proc_lane_count[p], nleg = 0;

    memset(pb, 0, sizeof(*pb));
    pb->first_lane = h->proc_lane_first[p];
    pb->nl = (uint32_t)nl;
    for (size_t x = 0; x < nl; x++)
        nleg += role[pb->first_lane + x] == RPL_DAG_ROLE_LEGACY;
    pb->nleg = (uint32_t)nleg;
    if (nleg == 0 || nl < 2)
        return 0;
    /* Several legacy lanes are queues of one null stream: tens, not thousands. */
    if (nleg * nl > (size_t)1 << 24)
        return rpl_error_set(RPL_EINPUT,
                             "process %lld has %zu lanes on the legacy default stream among %zu: "
                             "too many to order",
                             (long long)h->dag->lanes[pb->first_lane].pid, nleg, nl);
    pb->legacy = malloc(nleg * sizeof(*pb->legacy));
    pb->leg_index = malloc(nl * sizeof(*pb->leg_index));
    pb->last = malloc(nl * sizeof(*pb->last));
    pb->dirty = calloc(nleg * nl, 1);
    pb->dirty_list = malloc(nleg * nl * sizeof(*pb->dirty_list));
    pb->dirty_count = calloc(nleg, sizeof(*pb->dirty_count));
    pb->linked = malloc(nl * nleg * sizeof(*pb->linked));
    if (!pb->legacy || !pb->leg_index || !pb->last || !pb->dirty || !pb->dirty_list ||
        !pb->dirty_count || !pb->linked)
        return rpl_error_oom();
    nleg = 0;
    for (size_t x = 0; x < nl; x++) {
        pb->last[x] = RPL_NONE;
        pb->leg_index[x] = RPL_NONE;
        if (role[pb->first_lane + x] == RPL_DAG_ROLE_LEGACY) {
            pb->leg_index[x] = (uint32_t)nleg;
            pb->legacy[nleg++] = (uint32_t)x;
        }
    }
    for (size_t k = 0; k < nl * nleg; k++)
        pb->linked[k] = RPL_NONE;
    return 0;
}

static int barrier_edges(host_ctx *h)
{
    rpl_dag_deps *d = h->d;
    rpl_dag *dag = h->dag;
    uint32_t np = d->b->process_count, n = dag->node_count, m = 0;
    uint64_t *keys = NULL;
    uint32_t *order = NULL;
    uint8_t *nonblocking = h->nonblocking;
    proc_barriers *pbs = calloc((size_t)np + 1, sizeof(*pbs));
    barrier_ctx bc = {0};
    int64_t min_enq = INT64_MAX;
    int rc = pbs ? 0 : rpl_error_oom();

    for (uint32_t p = 0; rc == 0 && p < np; p++)
        rc = proc_barriers_init(h, &pbs[p], p);
    if (rc)
        goto done;
    keys = malloc(((size_t)n + 1) * sizeof(*keys));
    order = malloc(((size_t)n + 1) * sizeof(*order));
    if (!keys || !order) {
        rc = rpl_error_oom();
        goto done;
    }
    /* The nodes of processes with a legacy lane, in (enqueue time, node) order. */
    for (uint32_t i = 0; i < n; i++)
        if (d->enq[i] < min_enq)
            min_enq = d->enq[i];
    for (uint32_t i = 0; i < n; i++)
        if (pbs[d->b->process_of[i]].legacy) {
            keys[m] = (uint64_t)d->enq[i] - (uint64_t)min_enq;
            order[m++] = i;
        }
    rc = rpl_radix_sort_u64(keys, order, m);
    for (uint32_t k = 0; rc == 0 && k < m; k++)
        rc = barrier_node(h, &pbs[d->b->process_of[order[k]]], &bc, order[k]);
    /* A lane that a barrier edge contradicts was a non-blocking stream. */
    for (uint32_t k = 0; rc == 0 && k < bc.count; k++) {
        const barrier *e = &bc.items[k];

        if (dag->nodes[e->u].end - dag->nodes[e->v].start > dag->opts.tolerance_ns &&
            e->blame != RPL_NONE && !nonblocking[e->blame]) {
            nonblocking[e->blame] = 1;
            dag->nonblocking_lanes++;
        }
    }
    for (uint32_t k = 0; rc == 0 && k < bc.count; k++)
        if (bc.items[k].blame == RPL_NONE || !nonblocking[bc.items[k].blame])
            rc = add_edge(h, bc.items[k].u, bc.items[k].v, RPL_DAG_EDGE_DEFAULT_STREAM);
done:
    for (uint32_t p = 0; pbs && p < np; p++)
        proc_barriers_free(&pbs[p]);
    RPL_FREE_EACH(pbs, keys, order, bc.items);
    return rc;
}

int rpl_dag_host_edges(rpl_dag_deps *d)
{
    rpl_dag *dag = d->b->dag;
    host_ctx h = {d, dag, NULL, NULL, NULL, NULL, 0, 0, NULL, NULL, 0, 0, false};
    uint32_t np = d->b->process_count;
    int rc = 0;

    if (dag->blocking_calls == 0 && dag->legacy_lanes == 0)
        return 0;
    h.pos = malloc(((size_t)dag->node_count + 1) * sizeof(*h.pos));
    h.proc_lane_first = calloc((size_t)np + 1, sizeof(*h.proc_lane_first));
    h.proc_lane_count = calloc((size_t)np + 1, sizeof(*h.proc_lane_count));
    h.nonblocking = calloc((size_t)dag->lane_count + 1, 1);
    if (!h.pos || !h.proc_lane_first || !h.proc_lane_count || !h.nonblocking) {
        rc = rpl_error_oom();
        goto done;
    }
    for (uint32_t l = 0; l < dag->lane_count; l++) {
        const rpl_dag_lane *lane = &dag->lanes[l];
        uint32_t p = rpl_dag_process_index(d->b, lane->pid);

        for (uint32_t k = 0; k < lane->count; k++)
            h.pos[dag->lane_nodes[lane->first + k]] = k;
        if (p == RPL_NONE)
            continue;
        if (h.proc_lane_count[p]++ == 0)
            h.proc_lane_first[p] = l;
    }
    h.pool_budget = 32 * ((uint64_t)dag->node_count + dag->blocking_calls) + 4096;
    h.apply_budget = h.pool_budget;
    /* Barriers first: host edges that they imply are left out. */
    if (dag->legacy_lanes > 0)
        rc = barrier_edges(&h);
    if (rc == 0 && dag->blocking_calls > 0)
        rc = host_sync_edges(&h);
    if (rc == 0 && h.over_budget) {
        dag->host_edges_dropped++;
        rpl_log_warn(
            "critical-path DAG: the host synchronisations of this trace need more than "
            "%llu steps; the host_sync edges past them were left out",
            (unsigned long long)(2 *
                                 (32 * ((uint64_t)dag->node_count + dag->blocking_calls) + 4096)));
    }
done:
    RPL_FREE_EACH(h.pos, h.proc_lane_first, h.proc_lane_count, h.wait, h.op_next, h.nonblocking);
    return rc;
}
