/*
 * What the API regions say about each operation, read before the DAG is
 * numbered: the call that launched it (its start is the operation's issue
 * time; its host thread; its stream argument).  Once that is taken, the
 * regions that only launched operations are of no more use to the DAG: with
 * a trace to release (rpl_dag_build_release_api) they are freed here, before
 * the DAG's own arrays are made.  On traces with a runtime API region per
 * launch (rocprofv3's --hip-trace) that is about half the trace's memory.
 *
 * An operation's launching call is the first region with its (source,
 * correlation id) that is not a synchronising call.  rocprofv3 and the CUPTI
 * recorder count correlation ids up, so with one source and ids dense enough
 * (a span under four ids per region) a table indexed by the id finds each
 * region in one step, with no sort; otherwise the entries are sorted and
 * searched by halving.
 */
#include <stdlib.h>
#include <string.h>

#include "dag_internal.h"
#include "rpl/array.h"
#include "rpl/bigmem.h"
#include "rpl/error.h"
#include "rpl/free.h"

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

static int classify_regions(rpl_dag_builder *b, api_cache *cache)
{
    const rpl_trace *t = b->trace;

    if (!(b->api_kind = rpl_bigmem_malloc((size_t)t->regions.count + 1)))
        return rpl_error_oom();
    for (uint32_t r = 0; r < t->regions.count; r++) {
        rpl_dag_api a;

        classify_cached(cache, t->regions.items[r].name, &a);
        b->api_kind[r] = a.kind;
        b->has_sync |= a.kind != RPL_DAG_API_OTHER;
    }
    return 0;
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
static bool may_launch(const rpl_dag_builder *b, uint32_t r)
{
    uint8_t k = b->api_kind[r];

    return b->trace->regions.items[r].correlation_id != 0 &&
           (k == RPL_DAG_API_OTHER || k == RPL_DAG_API_BLOCKING_OP);
}

/* The table, when the ids are dense enough; false when they are not (or no memory). */
static bool corr_table_build(corr_index *ci, const rpl_dag_builder *b)
{
    const rpl_trace *t = b->trace;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    uint32_t n = 0;

    for (uint32_t r = 0; r < t->regions.count; r++) {
        const rpl_region *reg = &t->regions.items[r];

        if (!may_launch(b, r))
            continue;
        if (n++ == 0)
            ci->source = reg->source;
        else if (reg->source != ci->source)
            return false;
        lo = reg->correlation_id < lo ? reg->correlation_id : lo;
        hi = reg->correlation_id > hi ? reg->correlation_id : hi;
    }
    if (n == 0 || (uint64_t)hi - (uint64_t)lo >= CORR_TABLE_SPREAD * (uint64_t)n ||
        !(ci->table = rpl_bigmem_malloc(((uint64_t)hi - (uint64_t)lo + 1) * sizeof(*ci->table))))
        return false;
    ci->base = lo;
    ci->span = (uint64_t)hi - (uint64_t)lo + 1;
    ci->n = n;
    memset(ci->table, 0xff, ci->span * sizeof(*ci->table));
    for (uint32_t r = 0; r < t->regions.count; r++)
        if (may_launch(b, r)) {
            uint32_t *slot =
                &ci->table[(uint64_t)t->regions.items[r].correlation_id - (uint64_t)lo];
            if (*slot == RPL_NONE)
                *slot = r;
        }
    return true;
}

/* Index the regions that may have launched an operation. */
static int corr_index_build(corr_index *ci, const rpl_dag_builder *b)
{
    const rpl_trace *t = b->trace;

    *ci = (corr_index){0};
    if (corr_table_build(ci, b))
        return 0;
    if (!(ci->sorted = rpl_bigmem_malloc(((size_t)t->regions.count + 1) * sizeof(*ci->sorted))))
        return rpl_error_oom();
    for (uint32_t r = 0; r < t->regions.count; r++)
        if (may_launch(b, r))
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

static bool corr_below(const void *entry, const void *key)
{
    return cmp_corr(entry, key) < 0;
}

/* The first region with (source, corr), or RPL_NONE. */
static uint32_t corr_index_find(const corr_index *ci, uint32_t source, int64_t corr)
{
    corr_entry key = {source, corr, 0};
    size_t lo;

    if (ci->table) {
        uint64_t k = (uint64_t)corr - (uint64_t)ci->base;
        return source == ci->source && k < ci->span ? ci->table[k] : RPL_NONE;
    }
    lo = rpl_lower_bound(ci->sorted, ci->n, sizeof(*ci->sorted), &key, corr_below);
    if (lo < ci->n && ci->sorted[lo].source == source && ci->sorted[lo].corr == corr)
        return ci->sorted[lo].region;
    return RPL_NONE;
}

/*
 * A few distinct keys (host threads, stream handles) met once per launch:
 * an open-addressed table of (a, b) -> index into a growing list.
 */
typedef struct key_slot {
    uint64_t a, b;
    uint32_t index; /* RPL_NONE: free */
} key_slot;

typedef struct key_table {
    key_slot *slots;
    uint32_t cap, count; /* cap: a power of two */
} key_table;

static uint32_t key_hash(uint64_t a, uint64_t b)
{
    uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15u)) * 0xff51afd7ed558ccdu;

    return (uint32_t)(h >> 32);
}

static int key_grow(key_table *kt)
{
    uint32_t cap = kt->cap ? kt->cap * 2 : 64;
    key_slot *slots = malloc((size_t)cap * sizeof(*slots));

    if (!slots)
        return rpl_error_oom();
    for (uint32_t i = 0; i < cap; i++)
        slots[i].index = RPL_NONE;
    for (uint32_t i = 0; i < kt->cap; i++) {
        uint32_t s = key_hash(kt->slots[i].a, kt->slots[i].b) & (cap - 1);

        if (kt->slots[i].index == RPL_NONE)
            continue;
        while (slots[s].index != RPL_NONE)
            s = (s + 1) & (cap - 1);
        slots[s] = kt->slots[i];
    }
    free(kt->slots);
    kt->slots = slots;
    kt->cap = cap;
    return 0;
}

/* The slot of (a, b): found (index set) or the free one to fill; NULL when out of memory. */
static key_slot *key_find(key_table *kt, uint64_t a, uint64_t b)
{
    uint32_t s;

    if ((kt->count + 1) * 2 > kt->cap && key_grow(kt) != 0)
        return NULL;
    s = key_hash(a, b) & (kt->cap - 1);
    while (kt->slots[s].index != RPL_NONE && (kt->slots[s].a != a || kt->slots[s].b != b))
        s = (s + 1) & (kt->cap - 1);
    return &kt->slots[s];
}

typedef struct launch_keys {
    key_table threads, handles;
    uint32_t thread_cap, handle_cap;
} launch_keys;

/* `items` (count used of *cap, `size` bytes each) with room for one more (doubled when full), or
 * NULL. */
static void *with_room(void *items, uint32_t count, uint32_t *cap, size_t size)
{
    uint32_t ncap = *cap ? 2 * *cap : 16;
    void *p;

    if (count < *cap)
        return items;
    if ((p = realloc(items, (size_t)ncap * size)) != NULL)
        *cap = ncap;
    return p;
}

static int thread_index(rpl_dag_builder *b, launch_keys *k, int64_t pid, int64_t tid, uint32_t *out)
{
    key_slot *s = key_find(&k->threads, (uint64_t)pid, (uint64_t)tid);

    if (!s)
        return rpl_error_oom();
    if (s->index == RPL_NONE) {
        rpl_dag_thread *threads =
            with_room(b->threads, b->nthreads, &k->thread_cap, sizeof(*threads));

        if (!threads)
            return rpl_error_oom();
        b->threads = threads;
        b->threads[b->nthreads] = (rpl_dag_thread){pid, tid};
        *s = (key_slot){(uint64_t)pid, (uint64_t)tid, b->nthreads++};
        k->threads.count++;
    }
    *out = s->index;
    return 0;
}

static int handle_index(rpl_dag_builder *b, launch_keys *k, const char *handle, uint32_t *out)
{
    key_slot *s;

    *out = RPL_NONE;
    if (!handle)
        return 0;
    if (!(s = key_find(&k->handles, (uint64_t)(uintptr_t)handle, 0)))
        return rpl_error_oom();
    if (s->index == RPL_NONE) {
        const char **handles = with_room(b->handles, b->nhandles, &k->handle_cap, sizeof(*handles));

        if (!handles)
            return rpl_error_oom();
        b->handles = handles;
        b->handles[b->nhandles] = handle;
        *s = (key_slot){(uint64_t)(uintptr_t)handle, 0, b->nhandles++};
        k->handles.count++;
    }
    *out = s->index;
    return 0;
}

static int add_blocking(rpl_dag_builder *b, uint32_t *cap, uint32_t op, uint32_t region)
{
    rpl_dag_blocking *blocking = with_room(b->blocking, b->nblocking, cap, sizeof(*blocking));

    if (!blocking)
        return rpl_error_oom();
    b->blocking = blocking;
    b->blocking[b->nblocking++] = (rpl_dag_blocking){op, region};
    return 0;
}

/* Each operation's launching call, in operation order (sequential reads of the large records). */
static int find_launches(rpl_dag_builder *b, launch_keys *k, api_cache *cache)
{
    const rpl_trace *t = b->trace;
    uint32_t nd = t->dispatches.count, nops = nd + t->memcpys.count, blocking_cap = 0;
    corr_index ci;
    int rc;

    if ((rc = corr_index_build(&ci, b)) != 0)
        return rc;
    if (ci.n == 0) {
        corr_index_free(&ci);
        return 0;
    }
    b->launches = rpl_bigmem_malloc(((size_t)nops + 1) * sizeof(*b->launches));
    b->launch_flags = rpl_bigmem_calloc((size_t)nops + 1, 1);
    if (!b->launches || !b->launch_flags)
        rc = rpl_error_oom();
    for (uint32_t op = 0; rc == 0 && op < nops; op++) {
        const rpl_dispatch *dp = op < nd ? &t->dispatches.items[op] : NULL;
        const rpl_memcpy *mp = dp ? NULL : &t->memcpys.items[op - nd];
        int64_t key = dp ? dp->correlation_id : mp->correlation_id;
        uint32_t region = key ? corr_index_find(&ci, dp ? dp->source : mp->source, key) : RPL_NONE;
        rpl_dag_launch *l = &b->launches[op];
        const rpl_region *reg;
        rpl_dag_api a;

        *l = (rpl_dag_launch){0, RPL_NONE, RPL_NONE};
        if (region == RPL_NONE)
            continue;
        reg = &t->regions.items[region];
        classify_cached(cache, reg->name, &a);
        l->issue = reg->start;
        b->launch_flags[op] = (uint8_t)((a.per_thread ? RPL_DAG_LAUNCH_PER_THREAD : 0) |
                                        (a.implicit_stream ? RPL_DAG_LAUNCH_IMPLICIT_STREAM : 0));
        rc = thread_index(b, k, rpl_trace_pid(b->trace, reg->thread),
                          rpl_trace_tid(b->trace, reg->thread), &l->thread);
        if (rc == 0)
            rc = handle_index(b, k, rpl_dag_region_arg(t, reg, "stream", "hStream", RPL_NONE),
                              &l->handle);
        if (rc == 0 && a.kind == RPL_DAG_API_BLOCKING_OP)
            rc = add_blocking(b, &blocking_cap, op, region);
    }
    corr_index_free(&ci);
    return rc;
}

static int cmp_region(const void *a, const void *b)
{
    const rpl_dag_blocking *x = a, *y = b;

    return (x->region > y->region) - (x->region < y->region);
}

static int cmp_op(const void *a, const void *b)
{
    const rpl_dag_blocking *x = a, *y = b;

    return (x->op > y->op) - (x->op < y->op);
}

/*
 * Keep the regions that are more than launches (records, waits, blocking
 * calls) and free the others with their arguments; the classification and
 * the blocking launches' region indices follow the kept regions' new places.
 */
static int release_launch_regions(rpl_dag_builder *b)
{
    rpl_trace *t = b->release;
    uint32_t n = t->regions.count, kept = 0, j = 0;
    uint8_t *keep = rpl_bigmem_malloc((size_t)n + 1);
    int rc;

    if (!keep)
        return rpl_error_oom();
    for (uint32_t r = 0; r < n; r++)
        keep[r] = b->api_kind[r] != RPL_DAG_API_OTHER;
    if ((rc = rpl_trace_keep_regions(t, keep)) != 0) {
        free(keep);
        return rc;
    }
    /* Blocking launches by region, renumbered in one pass, then back in operation order. */
    if (b->nblocking)
        qsort(b->blocking, b->nblocking, sizeof(*b->blocking), cmp_region);
    for (uint32_t r = 0; r < n; r++) {
        if (!keep[r])
            continue;
        for (; j < b->nblocking && b->blocking[j].region == r; j++)
            b->blocking[j].region = kept;
        b->api_kind[kept++] = b->api_kind[r];
    }
    if (b->nblocking)
        qsort(b->blocking, b->nblocking, sizeof(*b->blocking), cmp_op);
    free(keep);
    return 0;
}

int rpl_dag_launch_info(rpl_dag_builder *b)
{
    launch_keys k = {0};
    api_cache *cache = calloc(1, sizeof(*cache));
    int rc = cache ? classify_regions(b, cache) : rpl_error_oom();

    /* Launches matter only to the dependencies that records, waits and blocking calls make. */
    if (rc == 0 && b->has_sync)
        rc = find_launches(b, &k, cache);
    free(cache);
    free(k.threads.slots);
    free(k.handles.slots);
    if (rc == 0 && b->release)
        rc = release_launch_regions(b);
    return rc;
}

void rpl_dag_launch_info_release(rpl_dag_builder *b)
{
    RPL_FREE_EACH(b->api_kind, b->launches, b->launch_flags, b->threads, b->handles, b->blocking);
    b->api_kind = NULL;
    b->launches = NULL;
    b->launch_flags = NULL;
    b->threads = NULL;
    b->handles = NULL;
    b->blocking = NULL;
    b->nthreads = b->nhandles = b->nblocking = 0;
}

uint32_t rpl_dag_node_op(const rpl_dag_builder *b, uint32_t node)
{
    const rpl_dag_node *n = &b->dag->nodes[node];

    return n->kind == RPL_DAG_NODE_DISPATCH ? n->ref : b->trace->dispatches.count + n->ref;
}

const rpl_dag_launch *rpl_dag_node_launch(const rpl_dag_builder *b, uint32_t node)
{
    const rpl_dag_launch *l;

    if (!b->launches)
        return NULL;
    l = &b->launches[rpl_dag_node_op(b, node)];
    return l->thread != RPL_NONE ? l : NULL;
}

static bool blocking_below(const void *blocking, const void *op)
{
    return ((const rpl_dag_blocking *)blocking)->op < *(const uint32_t *)op;
}

uint32_t rpl_dag_blocking_region(const rpl_dag_builder *b, uint32_t op)
{
    size_t lo =
        rpl_lower_bound(b->blocking, b->nblocking, sizeof(*b->blocking), &op, blocking_below);

    return lo < b->nblocking && b->blocking[lo].op == op ? b->blocking[lo].region : RPL_NONE;
}
