/*
 * Event record -> stream wait edges from API regions.  The contract (which
 * region names and argument names are read) is docs/schemas/dag-dependencies.md.
 *
 * An operation's enqueue time is the start of the call that launched it
 * (dag_launch_info.c), else its own start; along a lane it is made
 * non-decreasing (a running maximum) so that it can be searched.
 *  - record(event E, stream S) at time r: E captures u, the last operation
 *    of S's lane enqueued before r (none: E is complete at once);
 *  - wait(stream W, event E) at time w: the latest record of E before w
 *    gives u; v is the first operation of W's lane enqueued after w;
 *    the edge is u -> v.
 * Handles are matched within a process.  A stream handle names the lane of
 * the operations launched by regions whose "stream" argument has that value
 * (the launch latest at or before the time, else the first after); failing
 * that, a handle that reads as an integer names the stream with that rocpd id.
 *
 * The index built here (enqueue times, launches, records, the lanes' roles
 * towards the default stream) also serves the host-side edges of dag_host.c.
 */
#include <stdlib.h>
#include <string.h>

#include "dag_internal.h"
#include "rpl/bigmem.h"
#include "rpl/error.h"

/* Every name passed to rpl_dag_region_arg below and in dag_host.c and dag_launch_info.c. */
const char *const rpl_dag_arg_names[] = {"stream", "hStream", "event", "hEvent", NULL};

/* Value of the argument called `name1` or `name2`, else the unnamed one at `pos`; NULL if empty. */
const char *rpl_dag_region_arg(const rpl_trace *t, const rpl_region *r, const char *name1,
                               const char *name2, uint32_t pos)
{
    const rpl_arg *args;
    const char *v = NULL;

    /* No arguments (the array may be NULL), or a slice the trace lacks. */
    if (r->args_count == 0 || (uint64_t)r->args_first + r->args_count > t->args.count)
        return NULL;
    args = t->args.items + r->args_first;
    for (uint32_t i = 0; i < r->args_count && !v; i++)
        if (args[i].name && (strcmp(args[i].name, name1) == 0 || strcmp(args[i].name, name2) == 0))
            v = args[i].value;
    if (!v && pos < r->args_count && (!args[pos].name || !args[pos].name[0]))
        v = args[pos].value;
    return v && v[0] ? v : NULL;
}

static const char *stream_arg(const rpl_trace *t, const rpl_region *r, uint32_t pos)
{
    return rpl_dag_region_arg(t, r, "stream", "hStream", pos);
}

typedef rpl_dag_handle_entry handle_entry;
typedef rpl_dag_stream_lane stream_lane;

int rpl_dag_handle_cmp(const void *a, const void *b)
{
    const handle_entry *x = a, *y = b;

    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->handle != y->handle)
        return (uintptr_t)x->handle < (uintptr_t)y->handle ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return (x->value > y->value) - (x->value < y->value);
}

/* First entry not less than (pid, handle, time); n when none. */
static uint32_t lower_bound(const handle_entry *e, uint32_t n, int64_t pid, const char *handle,
                            int64_t time)
{
    handle_entry key = {pid, handle, time, 0, 0};
    uint32_t lo = 0, hi = n;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (rpl_dag_handle_cmp(&e[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static bool same_handle(const handle_entry *e, int64_t pid, const char *handle)
{
    return e->pid == pid && e->handle == handle;
}

static int cmp_stream_lane(const void *a, const void *b)
{
    const stream_lane *x = a, *y = b;

    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

static bool parse_int(const char *s, int64_t *out)
{
    char *end;
    long long v;

    if (!s || !*s)
        return false;
    v = strtoll(s, &end, 0);
    if (*end)
        return false;
    *out = v;
    return true;
}

uint32_t rpl_dag_deps_resolve_stream(const rpl_dag_deps *d, int64_t pid, const char *handle,
                                     int64_t time)
{
    uint32_t i = lower_bound(d->launches, d->nlaunches, pid, handle,
                             time < INT64_MAX ? time + 1 : time),
             lo, hi;
    int64_t id;

    if (i > 0 && same_handle(&d->launches[i - 1], pid, handle))
        return d->launches[i - 1].value;
    if (i < d->nlaunches && same_handle(&d->launches[i], pid, handle))
        return d->launches[i].value;
    if (!parse_int(handle, &id))
        return RPL_NONE;
    lo = 0, hi = d->nstreams;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        stream_lane key = {pid, id, 0};

        if (cmp_stream_lane(&d->streams[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < d->nstreams && d->streams[lo].pid == pid && d->streams[lo].id == id)
        return d->streams[lo].lane;
    return RPL_NONE;
}

uint32_t rpl_dag_deps_lane_after(const rpl_dag_deps *d, uint32_t lane, int64_t time)
{
    const rpl_dag *dag = d->b->dag;
    const uint32_t *nodes = dag->lane_nodes + dag->lanes[lane].first;
    uint32_t lo = 0, hi = dag->lanes[lane].count;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (d->enq[nodes[mid]] <= time)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

uint32_t rpl_dag_deps_event_node(const rpl_dag_deps *d, int64_t pid, const char *event,
                                 int64_t time, bool *found)
{
    uint32_t i = event ? lower_bound(d->records, d->nrecords, pid, event, time) : 0;

    *found = i > 0 && same_handle(&d->records[i - 1], pid, event) && !d->records[i - 1].unresolved;
    return *found ? d->records[i - 1].value : RPL_NONE;
}

int rpl_dag_deps_scan(rpl_dag_deps *d, rpl_dag_builder *b, uint8_t *has_sync, bool *needed)
{
    const rpl_trace *t = b->trace;
    rpl_dag *dag = b->dag;

    memset(d, 0, sizeof(*d));
    d->b = b;
    for (uint32_t r = 0; r < t->regions.count; r++) {
        uint8_t kind = b->api_kind[r];
        uint32_t p;

        if (kind == RPL_DAG_API_OTHER)
            continue;
        if (kind == RPL_DAG_API_RECORD || kind == RPL_DAG_API_WAIT)
            dag->sync_regions++;
        else
            dag->blocking_calls++;
        p = rpl_dag_process_index(b, rpl_trace_pid(t, t->regions.items[r].thread));
        if (p != RPL_NONE)
            has_sync[p] = 1;
    }
    *needed = (dag->sync_regions > 0 || dag->blocking_calls > 0) && dag->node_count > 0;
    return 0;
}

/* The null stream as HIP and CUDA print it; cudaStreamLegacy is 0x1, cudaStreamPerThread 0x2. */
static int null_stream_role(const char *h, bool per_thread_api)
{
    static const char *const nulls[] = {"0", "0x0", "(nil)", "(null)", "NULL", "nullptr"};

    if (h[0] != '0' && h[0] != '(' && h[0] != 'N' && h[0] != 'n')
        return RPL_DAG_ROLE_STREAM; /* an ordinary handle or id: most launches */
    if (strcmp(h, "0x1") == 0)
        return RPL_DAG_ROLE_LEGACY;
    if (strcmp(h, "0x2") == 0)
        return RPL_DAG_ROLE_PER_THREAD;
    for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++)
        if (strcmp(h, nulls[i]) == 0)
            return per_thread_api ? RPL_DAG_ROLE_PER_THREAD : RPL_DAG_ROLE_LEGACY;
    return RPL_DAG_ROLE_STREAM;
}

/*
 * The lane's role votes: an operation launched by a call without a stream
 * parameter, or with the null stream, runs on the default stream: the
 * per-thread one for a per-thread variant (or cudaStreamPerThread), else the
 * legacy one.  A lane with any per-thread vote is per-thread.
 */
static void vote_role(uint8_t *votes, uint8_t flags, const char *stream)
{
    bool per_thread = flags & RPL_DAG_LAUNCH_PER_THREAD;
    int role = RPL_DAG_ROLE_STREAM;

    if (flags & RPL_DAG_LAUNCH_IMPLICIT_STREAM)
        role = per_thread ? RPL_DAG_ROLE_PER_THREAD : RPL_DAG_ROLE_LEGACY;
    else if (stream)
        role = null_stream_role(stream, per_thread);
    if (role != RPL_DAG_ROLE_STREAM)
        *votes |= (uint8_t)(1u << role);
}

/* Enqueue times, the launch table (launches with a stream argument), the lanes' roles. */
static int index_launches(rpl_dag_deps *d)
{
    rpl_dag_builder *b = d->b;
    const rpl_trace *t = b->trace;
    rpl_dag *dag = b->dag;
    int rc;

    d->enq = rpl_bigmem_malloc(((size_t)dag->node_count + 1) * sizeof(*d->enq));
    d->lane_role = calloc((size_t)dag->lane_count + 1, 1);
    if (!d->enq || !d->lane_role)
        return rpl_error_oom();
    for (uint32_t i = 0; i < dag->node_count; i++) {
        const rpl_dag_launch *l = rpl_dag_node_launch(b, i);

        d->enq[i] = l ? l->issue : dag->nodes[i].start;
        if (l)
            vote_role(&d->lane_role[dag->nodes[i].lane], b->launch_flags[rpl_dag_node_op(b, i)],
                      l->handle != RPL_NONE ? b->handles[l->handle] : NULL);
    }
    if ((rc = rpl_dag_launch_table(d)) != 0)
        return rc;
    for (uint32_t l = 0; l < dag->lane_count; l++) {
        const rpl_dag_lane *lane = &dag->lanes[l];
        uint8_t v = d->lane_role[l];
        int64_t max = INT64_MIN;

        d->lane_role[l] = v & (1u << RPL_DAG_ROLE_PER_THREAD) ? RPL_DAG_ROLE_PER_THREAD
                          : v & (1u << RPL_DAG_ROLE_LEGACY)   ? RPL_DAG_ROLE_LEGACY
                                                              : RPL_DAG_ROLE_STREAM;
        dag->legacy_lanes += d->lane_role[l] == RPL_DAG_ROLE_LEGACY;
        dag->per_thread_lanes += d->lane_role[l] == RPL_DAG_ROLE_PER_THREAD;
        for (uint32_t k = 0; k < lane->count; k++) {
            uint32_t i = dag->lane_nodes[lane->first + k];

            if (d->enq[i] < max)
                d->enq[i] = max;
            max = d->enq[i];
        }
    }
    d->streams = malloc(((size_t)dag->lane_count + 1) * sizeof(*d->streams));
    if (!d->streams)
        return rpl_error_oom();
    for (uint32_t l = 0; l < dag->lane_count; l++)
        if (dag->lanes[l].kind == RPL_DAG_LANE_STREAM)
            d->streams[d->nstreams++] =
                (stream_lane){dag->lanes[l].pid, t->streams.items[dag->lanes[l].ref].id, l};
    qsort(d->streams, d->nstreams, sizeof(*d->streams), cmp_stream_lane);
    return 0;
}

/* Records: (pid, event, time) -> the node the event captured. */
static int index_records(rpl_dag_deps *d)
{
    const rpl_trace *t = d->b->trace;
    const rpl_dag *dag = d->b->dag;
    handle_entry *rec = malloc(((size_t)dag->sync_regions + 1) * sizeof(*rec));
    uint32_t n = 0;

    if (!rec)
        return rpl_error_oom();
    for (uint32_t r = 0; r < t->regions.count; r++) {
        const rpl_region *reg = &t->regions.items[r];
        int64_t pid = rpl_trace_pid(t, reg->thread);
        const char *event, *stream;
        uint32_t lane, pos;
        handle_entry e;

        if (d->b->api_kind[r] != RPL_DAG_API_RECORD)
            continue;
        event = rpl_dag_region_arg(t, reg, "event", "hEvent", 0);
        stream = stream_arg(t, reg, 1);
        if (!event)
            continue;
        e = (handle_entry){pid, event, reg->start, RPL_NONE, 1};
        lane = stream ? rpl_dag_deps_resolve_stream(d, pid, stream, reg->start) : RPL_NONE;
        if (lane != RPL_NONE) {
            /* The last node of the lane enqueued before the record. */
            pos = reg->start > INT64_MIN ? rpl_dag_deps_lane_after(d, lane, reg->start - 1) : 0;
            e.unresolved = 0;
            if (pos > 0)
                e.value = dag->lane_nodes[dag->lanes[lane].first + pos - 1];
        }
        rec[n++] = e;
    }
    qsort(rec, n, sizeof(*rec), rpl_dag_handle_cmp);
    d->records = rec;
    d->nrecords = n;
    return 0;
}

int rpl_dag_deps_index(rpl_dag_deps *d)
{
    int rc = index_launches(d);

    return rc ? rc : index_records(d);
}

void rpl_dag_deps_release(rpl_dag_deps *d)
{
    free(d->enq);
    free(d->lane_role);
    free(d->launches);
    free(d->streams);
    free(d->records);
    memset(d, 0, sizeof(*d));
}

static int add_wait(rpl_dag_deps *d, const rpl_region *reg)
{
    rpl_dag_builder *b = d->b;
    const rpl_trace *t = b->trace;
    rpl_dag *dag = b->dag;
    const char *stream = stream_arg(t, reg, 0);
    const char *event = rpl_dag_region_arg(t, reg, "event", "hEvent", 1);
    int64_t pid = rpl_trace_pid(t, reg->thread);
    uint32_t lane, pos, u, v;
    bool found;
    char ubuf[256], vbuf[256];

    lane = stream ? rpl_dag_deps_resolve_stream(d, pid, stream, reg->start) : RPL_NONE;
    u = rpl_dag_deps_event_node(d, pid, event, reg->start, &found);
    if (lane == RPL_NONE || !found) {
        dag->waits_unresolved++;
        return 0;
    }
    pos = rpl_dag_deps_lane_after(d, lane, reg->start);
    if (u == RPL_NONE || pos == dag->lanes[lane].count)
        return 0;
    v = dag->lane_nodes[dag->lanes[lane].first + pos];
    /* Same lane and already in order: program order says it. */
    if (dag->nodes[u].lane == lane && u < v)
        return 0;
    /* Both nodes lie within the trace's span, so the difference cannot overflow. */
    if (dag->nodes[u].end - dag->nodes[v].start > dag->opts.tolerance_ns) {
        rpl_dag_node_describe(ubuf, sizeof(ubuf), dag, t, u);
        rpl_dag_node_describe(vbuf, sizeof(vbuf), dag, t, v);
        return rpl_error_set(RPL_EINPUT,
                             "contradictory timestamps: '%s' (region %lld) makes %s wait for %s, "
                             "but it starts %lld ns before that ends (tolerance %lld ns)",
                             reg->name, (long long)reg->id, vbuf, ubuf,
                             (long long)(dag->nodes[u].end - dag->nodes[v].start),
                             (long long)dag->opts.tolerance_ns);
    }
    return rpl_dag_edge_add(b, u, v, RPL_DAG_EDGE_EVENT_WAIT);
}

int rpl_dag_event_waits(rpl_dag_deps *d)
{
    const rpl_trace *t = d->b->trace;
    int rc = 0;

    for (uint32_t r = 0; rc == 0 && r < t->regions.count; r++)
        if (d->b->api_kind[r] == RPL_DAG_API_WAIT)
            rc = add_wait(d, &t->regions.items[r]);
    return rc;
}
