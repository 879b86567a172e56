/*
 * Event record -> stream wait edges from API regions.  The contract (which
 * region names and argument names are read) is docs/schemas/dag-dependencies.md.
 *
 * An operation's enqueue time is the start of the API region with its
 * (source, correlation id), else its own start; along a lane it is made
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
 */
#include <stdlib.h>
#include <string.h>

#include "dag_internal.h"
#include "rpl/error.h"

enum sync_kind { SYNC_NONE = 0, SYNC_RECORD = 1, SYNC_WAIT = 2 };

static const char *const record_names[] = {
    "hipEventRecord",
    "hipEventRecord_spt",
    "hipEventRecordWithFlags",
    "cudaEventRecord",
    "cudaEventRecord_ptsz",
    "cudaEventRecordWithFlags",
    "cudaEventRecordWithFlags_ptsz",
    "cuEventRecord",
    "cuEventRecord_ptsz",
    "cuEventRecordWithFlags",
    "cuEventRecordWithFlags_ptsz",
};
static const char *const wait_names[] = {
    "hipStreamWaitEvent",       "hipStreamWaitEvent_spt", "cudaStreamWaitEvent",
    "cudaStreamWaitEvent_ptsz", "cuStreamWaitEvent",      "cuStreamWaitEvent_ptsz",
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static enum sync_kind sync_kind_of(const char *name)
{
    if (!name || (name[0] != 'h' && name[0] != 'c'))
        return SYNC_NONE;
    for (size_t i = 0; i < NELEM(record_names); i++)
        if (strcmp(name, record_names[i]) == 0)
            return SYNC_RECORD;
    for (size_t i = 0; i < NELEM(wait_names); i++)
        if (strcmp(name, wait_names[i]) == 0)
            return SYNC_WAIT;
    return SYNC_NONE;
}

/* Value of the argument called `name1` or `name2`, else the one at `pos`; NULL if empty. */
static const char *arg_value(const rpl_trace *t, const rpl_region *r, const char *name1,
                             const char *name2, uint32_t pos)
{
    const rpl_arg *args = t->args.items + r->args_first;
    const char *v = NULL;

    if ((uint64_t)r->args_first + r->args_count > t->args.count)
        return NULL;
    for (uint32_t i = 0; i < r->args_count && !v; i++)
        if (args[i].name && (strcmp(args[i].name, name1) == 0 || strcmp(args[i].name, name2) == 0))
            v = args[i].value;
    if (!v && pos < r->args_count && (!args[pos].name || !args[pos].name[0]))
        v = args[pos].value;
    return v && v[0] ? v : NULL;
}

static const char *stream_arg(const rpl_trace *t, const rpl_region *r, uint32_t pos)
{
    return arg_value(t, r, "stream", "hStream", pos);
}

typedef struct corr_entry {
    uint32_t source;
    int64_t corr;
    uint32_t region;
} corr_entry;

static int cmp_corr(const void *a, const void *b)
{
    const corr_entry *x = a, *y = b;

    if (x->source != y->source)
        return x->source < y->source ? -1 : 1;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    return (x->region > y->region) - (x->region < y->region);
}

/* A (process, handle, time) keyed entry: launches and records. */
typedef struct handle_entry {
    int64_t pid;
    const char *handle;
    int64_t time;
    uint32_t value; /* a lane (launches) or a node (records) */
    uint8_t unresolved;
} handle_entry;

static int cmp_handle(const void *a, const void *b)
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

        if (cmp_handle(&e[mid], &key) < 0)
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

typedef struct stream_lane {
    int64_t pid, id;
    uint32_t lane;
} stream_lane;

static int cmp_stream_lane(const void *a, const void *b)
{
    const stream_lane *x = a, *y = b;

    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

typedef struct deps {
    rpl_dag_builder *b;
    int64_t *enq; /* per node: non-decreasing along each lane */
    handle_entry *launches;
    uint32_t nlaunches;
    stream_lane *streams; /* stream lanes by (pid, rocpd id) */
    uint32_t nstreams;
} deps;

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

/* The lane a stream handle names at `time`, or RPL_NONE. */
static uint32_t resolve_stream(const deps *d, int64_t pid, const char *handle, int64_t time)
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

/* Position in the lane of the first node with enqueue time > time (count when none). */
static uint32_t lane_after(const deps *d, uint32_t lane, int64_t time)
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

/* Enqueue times and the launch table (regions with a stream argument that launched a node). */
static int index_launches(deps *d)
{
    rpl_dag_builder *b = d->b;
    const rpl_trace *t = b->trace;
    rpl_dag *dag = b->dag;
    corr_entry *corr = malloc(((size_t)t->regions.count + 1) * sizeof(*corr));
    uint32_t ncorr = 0;
    int rc = 0;

    d->enq = malloc(((size_t)dag->node_count + 1) * sizeof(*d->enq));
    d->launches = malloc(((size_t)t->regions.count + 1) * sizeof(*d->launches));
    if (!corr || !d->enq || !d->launches) {
        free(corr);
        return rpl_error_oom();
    }
    /* Regions that may have launched an operation (sync calls launch nothing). */
    for (uint32_t r = 0; r < t->regions.count; r++) {
        const rpl_region *reg = &t->regions.items[r];

        if (reg->correlation_id != 0 && sync_kind_of(reg->name) == SYNC_NONE)
            corr[ncorr++] = (corr_entry){reg->source, reg->correlation_id, r};
    }
    qsort(corr, ncorr, sizeof(*corr), cmp_corr);
    for (uint32_t i = 0; i < dag->node_count; i++)
        d->enq[i] = dag->nodes[i].start;
    /* Operations in trace order (their records are large; sequential reads are cheap). */
    for (uint32_t op = 0; ncorr > 0 && op < dag->node_count; op++) {
        uint32_t i = b->node_of_op[op], lo = 0, hi = ncorr;
        const rpl_dag_node *n = &dag->nodes[i];
        corr_entry key = {rpl_dag_node_source(t, n), rpl_dag_node_correlation(t, n), 0};

        if (key.corr == 0)
            continue;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;

            if (cmp_corr(&corr[mid], &key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < ncorr && corr[lo].source == key.source && corr[lo].corr == key.corr) {
            const rpl_region *r = &t->regions.items[corr[lo].region];
            const char *s = stream_arg(t, r, RPL_NONE);

            d->enq[i] = r->start;
            if (s)
                d->launches[d->nlaunches++] = (handle_entry){r->pid, s, r->start, n->lane, 0};
        }
    }
    free(corr);
    qsort(d->launches, d->nlaunches, sizeof(*d->launches), cmp_handle);
    for (uint32_t l = 0; l < dag->lane_count; l++) {
        const rpl_dag_lane *lane = &dag->lanes[l];
        int64_t max = INT64_MIN;

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
    return rc;
}

/* Records: (pid, event, time) -> the node the event captured. */
static int index_records(deps *d, handle_entry **out, uint32_t *count)
{
    const rpl_trace *t = d->b->trace;
    const rpl_dag *dag = d->b->dag;
    handle_entry *rec = malloc(((size_t)dag->sync_regions + 1) * sizeof(*rec));
    uint32_t n = 0;

    if (!rec)
        return rpl_error_oom();
    for (uint32_t r = 0; r < t->regions.count; r++) {
        const rpl_region *reg = &t->regions.items[r];
        const char *event, *stream;
        uint32_t lane, pos;
        handle_entry e;

        if (sync_kind_of(reg->name) != SYNC_RECORD)
            continue;
        event = arg_value(t, reg, "event", "hEvent", 0);
        stream = stream_arg(t, reg, 1);
        if (!event)
            continue;
        e = (handle_entry){reg->pid, event, reg->start, RPL_NONE, 1};
        lane = stream ? resolve_stream(d, reg->pid, stream, reg->start) : RPL_NONE;
        if (lane != RPL_NONE) {
            /* The last node of the lane enqueued before the record. */
            pos = reg->start > INT64_MIN ? lane_after(d, lane, reg->start - 1) : 0;
            e.unresolved = 0;
            if (pos > 0)
                e.value = dag->lane_nodes[dag->lanes[lane].first + pos - 1];
        }
        rec[n++] = e;
    }
    qsort(rec, n, sizeof(*rec), cmp_handle);
    *out = rec;
    *count = n;
    return 0;
}

static int add_wait(deps *d, const rpl_region *reg, const handle_entry *rec, uint32_t nrec)
{
    rpl_dag_builder *b = d->b;
    const rpl_trace *t = b->trace;
    rpl_dag *dag = b->dag;
    const char *stream = stream_arg(t, reg, 0);
    const char *event = arg_value(t, reg, "event", "hEvent", 1);
    uint32_t lane, i, pos, u, v;
    char ubuf[256], vbuf[256];

    lane = stream ? resolve_stream(d, reg->pid, stream, reg->start) : RPL_NONE;
    i = event ? lower_bound(rec, nrec, reg->pid, event, reg->start) : 0;
    if (lane == RPL_NONE || i == 0 || !same_handle(&rec[i - 1], reg->pid, event) ||
        rec[i - 1].unresolved) {
        dag->waits_unresolved++;
        return 0;
    }
    u = rec[i - 1].value;
    pos = lane_after(d, lane, reg->start);
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

int rpl_dag_event_waits(rpl_dag_builder *b, uint8_t *has_sync)
{
    const rpl_trace *t = b->trace;
    rpl_dag *dag = b->dag;
    deps d = {b, NULL, NULL, 0, NULL, 0};
    handle_entry *rec = NULL;
    uint32_t nrec = 0;
    int rc = 0;

    for (uint32_t r = 0; r < t->regions.count; r++) {
        const rpl_region *reg = &t->regions.items[r];
        uint32_t p;

        if (sync_kind_of(reg->name) == SYNC_NONE)
            continue;
        dag->sync_regions++;
        p = rpl_dag_process_index(b, reg->pid);
        if (p != RPL_NONE)
            has_sync[p] = 1;
    }
    if (dag->sync_regions == 0 || dag->node_count == 0)
        return 0;
    rc = index_launches(&d);
    if (rc == 0)
        rc = index_records(&d, &rec, &nrec);
    for (uint32_t r = 0; rc == 0 && r < t->regions.count; r++)
        if (sync_kind_of(t->regions.items[r].name) == SYNC_WAIT)
            rc = add_wait(&d, &t->regions.items[r], rec, nrec);
    free(rec);
    free(d.enq);
    free(d.launches);
    free(d.streams);
    return rc;
}
