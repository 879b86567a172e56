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
 *
 * The index built here (enqueue times, launches, records, the lanes' roles
 * towards the default stream) also serves the host-side edges of dag_host.c.
 */
#include <stdlib.h>
#include <string.h>

#include "dag_internal.h"
#include "rpl/error.h"

/* Every name passed to rpl_dag_region_arg below and in dag_host.c and dag_launches.c. */
const char *const rpl_dag_arg_names[] = {"stream", "hStream", "event", "hEvent", NULL};

/* Value of the argument called `name1` or `name2`, else the unnamed one at `pos`; NULL if empty. */
const char *rpl_dag_region_arg(const rpl_trace *t, const rpl_region *r, const char *name1,
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
    return rpl_dag_region_arg(t, r, "stream", "hStream", pos);
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

/*
 * Launching regions by (source, correlation id).  rocprofv3 and the CUPTI
 * recorder count correlation ids up, so with one source and ids dense
 * enough (a span under four ids per region) a table indexed by the id finds
 * each region in one step, with no sort; otherwise the entries are sorted
 * and searched by halving.  Either way, an id that several regions share
 * finds the first of them.
 */
typedef struct corr_index {
    corr_entry *sorted; /* when there is no table */
    uint32_t n;
    uint32_t *table; /* table[id - base]: the region, or RPL_NONE */
    int64_t base;
    uint64_t span;
    uint32_t source;
} corr_index;

#define CORR_TABLE_SPREAD 4

/* Whether region r may have launched an operation (synchronising calls launch nothing). */
static bool may_launch(const rpl_dag_deps *d, uint32_t r)
{
    uint8_t k = d->api[r].kind;

    return d->b->trace->regions.items[r].correlation_id != 0 &&
           (k == RPL_DAG_API_OTHER || k == RPL_DAG_API_BLOCKING_OP);
}

/* The table, when the ids are dense enough; false when they are not (or no memory). */
static bool corr_table_build(corr_index *ci, const rpl_dag_deps *d)
{
    const rpl_trace *t = d->b->trace;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    uint32_t n = 0;

    for (uint32_t r = 0; r < t->regions.count; r++) {
        const rpl_region *reg = &t->regions.items[r];

        if (!may_launch(d, r))
            continue;
        if (n++ == 0)
            ci->source = reg->source;
        else if (reg->source != ci->source)
            return false;
        lo = reg->correlation_id < lo ? reg->correlation_id : lo;
        hi = reg->correlation_id > hi ? reg->correlation_id : hi;
    }
    if (n == 0 || (uint64_t)hi - (uint64_t)lo >= CORR_TABLE_SPREAD * (uint64_t)n ||
        !(ci->table = malloc(((uint64_t)hi - (uint64_t)lo + 1) * sizeof(*ci->table))))
        return false;
    ci->base = lo;
    ci->span = (uint64_t)hi - (uint64_t)lo + 1;
    memset(ci->table, 0xff, ci->span * sizeof(*ci->table));
    for (uint32_t r = 0; r < t->regions.count; r++)
        if (may_launch(d, r)) {
            uint32_t *slot =
                &ci->table[(uint64_t)t->regions.items[r].correlation_id - (uint64_t)lo];
            if (*slot == RPL_NONE)
                *slot = r;
        }
    return true;
}

/* Index the regions that may have launched an operation. */
static int corr_index_build(corr_index *ci, const rpl_dag_deps *d)
{
    const rpl_trace *t = d->b->trace;

    *ci = (corr_index){0};
    if (corr_table_build(ci, d))
        return 0;
    if (!(ci->sorted = malloc(((size_t)t->regions.count + 1) * sizeof(*ci->sorted))))
        return rpl_error_oom();
    for (uint32_t r = 0; r < t->regions.count; r++)
        if (may_launch(d, r))
            ci->sorted[ci->n++] =
                (corr_entry){t->regions.items[r].source, t->regions.items[r].correlation_id, r};
    qsort(ci->sorted, ci->n, sizeof(*ci->sorted), cmp_corr);
    return 0;
}

static void corr_index_free(corr_index *ci)
{
    free(ci->table);
    free(ci->sorted);
}

/* The first region with (source, corr), or RPL_NONE. */
static uint32_t corr_index_find(const corr_index *ci, uint32_t source, int64_t corr)
{
    corr_entry key = {source, corr, 0};
    uint32_t lo = 0, hi = ci->n;

    if (ci->table) {
        uint64_t k = (uint64_t)corr - (uint64_t)ci->base;
        return source == ci->source && k < ci->span ? ci->table[k] : RPL_NONE;
    }
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (cmp_corr(&ci->sorted[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < ci->n && ci->sorted[lo].source == source && ci->sorted[lo].corr == corr)
        return ci->sorted[lo].region;
    return RPL_NONE;
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

/* Interned names repeat: remember the last classification of each (a small direct-mapped cache). */
typedef struct api_cache {
    const char *name[256];
    rpl_dag_api api[256];
} api_cache;

static void classify_cached(api_cache *c, const char *name, rpl_dag_api *out)
{
    size_t h = ((uintptr_t)name >> 3) & 255;

    if (!name || c->name[h] != name) {
        rpl_dag_api_classify(name, &c->api[h]);
        c->name[h] = name;
    }
    *out = c->api[h];
}

int rpl_dag_deps_scan(rpl_dag_deps *d, rpl_dag_builder *b, uint8_t *has_sync, bool *needed)
{
    const rpl_trace *t = b->trace;
    rpl_dag *dag = b->dag;
    api_cache *cache = calloc(1, sizeof(*cache));

    memset(d, 0, sizeof(*d));
    d->b = b;
    *needed = false;
    d->api = malloc(((size_t)t->regions.count + 1) * sizeof(*d->api));
    if (!cache || !d->api) {
        free(cache);
        return rpl_error_oom();
    }
    for (uint32_t r = 0; r < t->regions.count; r++) {
        const rpl_region *reg = &t->regions.items[r];
        rpl_dag_api *a = &d->api[r];
        uint32_t p;

        classify_cached(cache, reg->name, a);
        if (a->kind == RPL_DAG_API_OTHER)
            continue;
        if (a->kind == RPL_DAG_API_RECORD || a->kind == RPL_DAG_API_WAIT)
            dag->sync_regions++;
        else
            dag->blocking_calls++;
        p = rpl_dag_process_index(b, reg->pid);
        if (p != RPL_NONE)
            has_sync[p] = 1;
    }
    free(cache);
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
static void vote_role(uint8_t *votes, const rpl_dag_api *a, const char *stream)
{
    int role = RPL_DAG_ROLE_STREAM;

    if (a->implicit_stream)
        role = a->per_thread ? RPL_DAG_ROLE_PER_THREAD : RPL_DAG_ROLE_LEGACY;
    else if (stream)
        role = null_stream_role(stream, a->per_thread);
    if (role != RPL_DAG_ROLE_STREAM)
        *votes |= (uint8_t)(1u << role);
}

/* Enqueue times, the launch table (regions with a stream argument that launched a node), roles. */
static int index_launches(rpl_dag_deps *d)
{
    rpl_dag_builder *b = d->b;
    const rpl_trace *t = b->trace;
    rpl_dag *dag = b->dag;
    uint32_t ndisp = t->dispatches.count;
    corr_index ci;
    int rc;

    d->enq = malloc(((size_t)dag->node_count + 1) * sizeof(*d->enq));
    d->launch = malloc(((size_t)dag->node_count + 1) * sizeof(*d->launch));
    d->lane_role = calloc((size_t)dag->lane_count + 1, 1);
    if (!d->enq || !d->launch || !d->lane_role)
        return rpl_error_oom();
    if ((rc = corr_index_build(&ci, d)) != 0)
        return rc;
    for (uint32_t i = 0; i < dag->node_count; i++) {
        d->enq[i] = dag->nodes[i].start;
        d->launch[i] = RPL_NONE;
    }
    /* Operations in trace order: dispatch op, then copy op - ndisp (sequential reads of
     * their large records); their nodes only when a region launched them. */
    for (uint32_t op = 0; (ci.n || ci.table) && op < dag->node_count; op++) {
        const rpl_dispatch *dp = op < ndisp ? &t->dispatches.items[op] : NULL;
        const rpl_memcpy *mp = dp ? NULL : &t->memcpys.items[op - ndisp];
        int64_t key = dp ? dp->correlation_id : mp->correlation_id;
        uint32_t region = key ? corr_index_find(&ci, dp ? dp->source : mp->source, key) : RPL_NONE;

        if (region != RPL_NONE) {
            uint32_t i = b->node_of_op[op];
            const rpl_region *r = &t->regions.items[region];

            d->enq[i] = r->start;
            d->launch[i] = region;
            vote_role(&d->lane_role[dag->nodes[i].lane], &d->api[region],
                      stream_arg(t, r, RPL_NONE));
        }
    }
    corr_index_free(&ci);
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
        const char *event, *stream;
        uint32_t lane, pos;
        handle_entry e;

        if (d->api[r].kind != RPL_DAG_API_RECORD)
            continue;
        event = rpl_dag_region_arg(t, reg, "event", "hEvent", 0);
        stream = stream_arg(t, reg, 1);
        if (!event)
            continue;
        e = (handle_entry){reg->pid, event, reg->start, RPL_NONE, 1};
        lane = stream ? rpl_dag_deps_resolve_stream(d, reg->pid, stream, reg->start) : RPL_NONE;
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
    free(d->api);
    free(d->enq);
    free(d->launch);
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
    uint32_t lane, pos, u, v;
    bool found;
    char ubuf[256], vbuf[256];

    lane = stream ? rpl_dag_deps_resolve_stream(d, reg->pid, stream, reg->start) : RPL_NONE;
    u = rpl_dag_deps_event_node(d, reg->pid, event, reg->start, &found);
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
        if (d->api[r].kind == RPL_DAG_API_WAIT)
            rc = add_wait(d, &t->regions.items[r]);
    return rc;
}
