/*
 * Turn what the recorder collected into the trace model (no CUPTI calls).
 *
 * Correlation: every GPU operation keeps the correlation id of the API call
 * that launched it.  A runtime call (cudaLaunchKernel) runs a driver call
 * (cuLaunchKernel) inside it; the pair is stored once, as the runtime
 * region.  A driver call whose id is a runtime call's id, or that runs
 * inside a runtime call on the same thread, is folded into that runtime
 * call (GPU operations carrying the driver id are given the runtime id).
 * Driver calls made directly by the application stay regions of their own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "capture.h"
#include "recorder.h"
#include "rpl/array.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/log.h"

/* ---- a small open-addressing map from 64-bit keys to 32-bit values ---- */

typedef struct u64map {
    uint64_t *keys;
    uint32_t *vals;
    uint8_t *used;
    size_t cap, count;
} u64map;

static size_t hash64(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (size_t)k;
}

static int map_init(u64map *m, size_t expected)
{
    size_t cap = 64;

    while (cap < expected * 2)
        cap *= 2;
    memset(m, 0, sizeof(*m));
    m->keys = malloc(cap * sizeof(*m->keys));
    m->vals = malloc(cap * sizeof(*m->vals));
    m->used = calloc(cap, 1);
    if (!m->keys || !m->vals || !m->used) {
        RPL_FREE_EACH(m->keys, m->vals, m->used);
        return rpl_error_oom();
    }
    m->cap = cap;
    return 0;
}

static void map_free(u64map *m)
{
    RPL_FREE_EACH(m->keys, m->vals, m->used);
}

static void map_insert(u64map *m, uint64_t key, uint32_t val)
{
    size_t i = hash64(key) & (m->cap - 1);

    while (m->used[i]) {
        if (m->keys[i] == key)
            return;
        i = (i + 1) & (m->cap - 1);
    }
    m->used[i] = 1;
    m->keys[i] = key;
    m->vals[i] = val;
    m->count++;
}

/* Insert unless present (the first value for a key wins); grows at half load. */
static int map_put(u64map *m, uint64_t key, uint32_t val)
{
    if ((m->count + 1) * 2 > m->cap) {
        u64map bigger;
        int rc = map_init(&bigger, m->cap);
        if (rc)
            return rc;
        for (size_t i = 0; i < m->cap; i++)
            if (m->used[i])
                map_insert(&bigger, m->keys[i], m->vals[i]);
        map_free(m);
        *m = bigger;
    }
    map_insert(m, key, val);
    return 0;
}

/* The value slot of a key, or NULL. */
static uint32_t *map_ref(const u64map *m, uint64_t key)
{
    size_t i = hash64(key) & (m->cap - 1);

    while (m->used[i]) {
        if (m->keys[i] == key)
            return &m->vals[i];
        i = (i + 1) & (m->cap - 1);
    }
    return NULL;
}

static bool map_get(const u64map *m, uint64_t key, uint32_t *val)
{
    const uint32_t *v = map_ref(m, key);

    if (v)
        *val = *v;
    return v != NULL;
}

/* ---- helpers ---- */

/* qsort, which must not be given NULL even for no items. */
static void sort_n(void *items, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(items, n, size, cmp);
}

typedef struct build_ctx {
    cr_state *st;
    rpl_trace *t;
    const cr_process_info *proc;
    uint32_t cpu_agent;
    u64map runtime_by_corr; /* runtime corr -> index into st->apis */
    u64map driver_alias;    /* folded driver corr -> runtime corr */
    u64map region_by_corr;  /* corr of a stored region -> index into t->regions */
    u64map event_by_corr;   /* corr -> index into st->events */
    u64map sync_by_corr;    /* corr -> index into st->syncs */
    u64map launch_stream;   /* corr of a launching call -> CUPTI stream id */
    u64map agent_by_device; /* CUDA ordinal -> agent index */
    u64map stream_by_id;    /* CUPTI stream id -> stream (and queue) index */
    u64map symbol_by_name;  /* interned name pointer -> symbol index */
} build_ctx;

static uint64_t stream_key(uint32_t stream)
{
    return stream;
}

/* The runtime correlation id of a GPU operation's launching call. */
static int64_t resolve_corr(const build_ctx *b, uint32_t corr)
{
    uint32_t v;

    if (map_get(&b->driver_alias, corr, &v))
        return v;
    return corr;
}

/* Strip CUPTI's version suffix: "cudaLaunchKernel_v7000" -> "cudaLaunchKernel". */
static void api_base_name(char *dst, size_t cap, const char *name)
{
    size_t n = strlen(name);
    const char *v = strstr(name, "_v");

    if (v) {
        const char *p = v + 2;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p == '\0' && p > v + 2)
            n = (size_t)(v - name);
    }
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, name, n);
    dst[n] = '\0';
}

/* ---- agents, streams, symbols ---- */

static int add_agents(build_ctx *b)
{
    rpl_agent cpu = {0};
    int rc;

    cpu.id = 0;
    cpu.type = RPL_AGENT_CPU;
    cpu.name = "CPU";
    cpu.product_name = b->proc->cpu_model ? b->proc->cpu_model : "";
    cpu.type_index = 0;
    rc = rpl_trace_add_agent(b->t, &cpu, &b->cpu_agent);
    if (rc)
        return rc;
    for (size_t i = 0; i < b->st->devices.count; i++) {
        cr_device *d = &b->st->devices.items[i];
        char arch[32];
        rpl_agent g = {0};
        uint32_t idx;
        const cJSON *chip = cJSON_GetObjectItemCaseSensitive(d->extdata, "chip_name");

        snprintf(arch, sizeof(arch), "sm_%d%d", d->cc_major, d->cc_minor);
        g.id = (int64_t)d->ordinal + 1;
        g.type = RPL_AGENT_GPU;
        g.absolute_index = g.logical_index = (int32_t)g.id;
        g.type_index = (int32_t)d->ordinal;
        g.name = arch;
        g.model_name = cJSON_IsString(chip) ? chip->valuestring : "";
        g.vendor_name = "NVIDIA";
        g.product_name = d->name;
        g.extdata = d->extdata;
        rpl_agent_refresh_facts(&g);
        rc = rpl_trace_add_agent(b->t, &g, &idx);
        if (rc)
            return rc;
        d->extdata = NULL; /* the trace owns it now */
        if ((rc = map_put(&b->agent_by_device, d->ordinal, idx)))
            return rc;
    }
    return 0;
}

/* Agent of a device ordinal; a device never seen at context creation gets a bare agent. */
static int gpu_agent(build_ctx *b, uint32_t device, uint32_t *index)
{
    char name[32];
    rpl_agent g = {0};
    int rc;

    if (map_get(&b->agent_by_device, device, index))
        return 0;
    snprintf(name, sizeof(name), "cuda%u", device);
    g.id = (int64_t)device + 1;
    g.type = RPL_AGENT_GPU;
    g.absolute_index = g.logical_index = (int32_t)g.id;
    g.type_index = (int32_t)device;
    g.name = name;
    g.vendor_name = "NVIDIA";
    rc = rpl_trace_add_agent(b->t, &g, index);
    if (rc)
        return rc;
    return map_put(&b->agent_by_device, device, *index);
}

/* Stream index (the queue of the same id has the same index). */
static int stream_index(build_ctx *b, uint32_t stream, uint32_t *index)
{
    char name[48];
    rpl_queue q = {0};
    int rc;

    if (map_get(&b->stream_by_id, stream_key(stream), index))
        return 0;
    snprintf(name, sizeof(name), "Stream %u", stream);
    q.id = stream;
    q.pid = b->proc->pid;
    q.name = name;
    rc = rpl_trace_add_stream(b->t, &q, index);
    if (!rc)
        rc = rpl_trace_add_queue(b->t, &q, NULL);
    if (rc)
        return rc;
    return map_put(&b->stream_by_id, stream_key(stream), *index);
}

static int symbol_index(build_ctx *b, const cr_kernel *k, uint32_t *index)
{
    rpl_kernel_symbol s = {0};
    char *display;
    int rc;

    if (map_get(&b->symbol_by_name, (uint64_t)(uintptr_t)k->name, index))
        return 0;
    display = cc_demangle(k->name);
    s.id = (int64_t)b->t->symbols.count + 1;
    s.name = k->name;
    s.display_name = display ? display : k->name;
    s.code_object_id = 1;
    s.group_segment_size = k->static_smem > 0 ? (uint32_t)k->static_smem : 0;
    s.private_segment_size = k->local_per_thread;
    s.arch_vgpr_count = k->registers;
    rc = rpl_trace_add_symbol(b->t, &s, index);
    free(display);
    if (rc)
        return rc;
    return map_put(&b->symbol_by_name, (uint64_t)(uintptr_t)k->name, *index);
}

/* ---- regions ---- */

static int cmp_api_tid_start(const void *a, const void *b)
{
    const cr_api *x = *(const cr_api *const *)a, *y = *(const cr_api *const *)b;

    if (x->tid != y->tid)
        return (x->tid > y->tid) - (x->tid < y->tid);
    return (x->start > y->start) - (x->start < y->start);
}

/* The runtime call *element is ordered no later than call `key` by (tid, start). */
static bool not_after(const void *element, const void *key)
{
    const cr_api *r = *(const cr_api *const *)element, *d = key;

    return r->tid < d->tid || (r->tid == d->tid && r->start <= d->start);
}

/* The runtime call on the same thread that encloses [start, end], or NULL. */
static const cr_api *enclosing_runtime(cr_api *const *rt, size_t n, const cr_api *d)
{
    /* First runtime call ordered after (tid, start). */
    size_t lo = rpl_lower_bound(rt, n, sizeof(*rt), d, not_after);

    if (lo == 0)
        return NULL;
    if (rt[lo - 1]->tid != d->tid || rt[lo - 1]->end < d->end)
        return NULL;
    return rt[lo - 1];
}

/* Fold driver calls into their runtime calls (see the top of the file). */
static int fold_driver_calls(build_ctx *b)
{
    cr_state *st = b->st;
    cr_api **rt;
    size_t nrt = 0;
    int rc = 0;

    rt = malloc((st->apis.count + 1) * sizeof(*rt));
    if (!rt)
        return rpl_error_oom();
    for (size_t i = 0; i < st->apis.count && !rc; i++) {
        if (st->apis.items[i].domain == CR_API_RUNTIME) {
            rt[nrt++] = &st->apis.items[i];
            rc = map_put(&b->runtime_by_corr, st->apis.items[i].corr, (uint32_t)i);
        }
    }
    sort_n(rt, nrt, sizeof(*rt), cmp_api_tid_start);
    for (size_t i = 0; i < st->apis.count && !rc; i++) {
        const cr_api *d = &st->apis.items[i], *r;
        uint32_t v;
        if (d->domain != CR_API_DRIVER || map_get(&b->runtime_by_corr, d->corr, &v))
            continue;
        r = enclosing_runtime(rt, nrt, d);
        if (r)
            rc = map_put(&b->driver_alias, d->corr, r->corr);
    }
    free(rt);
    return rc;
}

static bool is_folded(build_ctx *b, const cr_api *a)
{
    uint32_t v;

    if (a->domain != CR_API_DRIVER)
        return false;
    return map_get(&b->runtime_by_corr, a->corr, &v) || map_get(&b->driver_alias, a->corr, &v);
}

typedef struct argbuf {
    rpl_arg args[4];
    char values[4][32];
    uint32_t n;
} argbuf;

static void arg_u64(argbuf *ab, const char *name, const char *type, uint64_t v)
{
    snprintf(ab->values[ab->n], sizeof(ab->values[0]), "%llu", (unsigned long long)v);
    ab->args[ab->n].name = name;
    ab->args[ab->n].type = type;
    ab->args[ab->n].value = ab->values[ab->n];
    ab->n++;
}

/*
 * The arguments of one API region, as docs/schemas/dag-dependencies.md
 * reads them: "stream" (the CUPTI stream id, also in the stream's name
 * "Stream <id>") on event records, stream waits, stream synchronisations
 * and every call that launched a GPU operation; "event" (CUPTI event id)
 * and "sync_id" (CUPTI's id pairing a wait with the very record it waits
 * for) on event records, waits and event synchronisations.
 */
static void describe_api(build_ctx *b, const cr_api *a, argbuf *ab)
{
    uint32_t i, stream;
    bool has_stream = false;

    ab->n = 0;
    if (map_get(&b->event_by_corr, a->corr, &i)) {
        const cr_event *e = &b->st->events.items[i];
        arg_u64(ab, "stream", "uint32_t", e->stream);
        arg_u64(ab, "event", "uint32_t", e->event);
        arg_u64(ab, "sync_id", "uint64_t", e->sync_id);
        has_stream = true;
    } else if (map_get(&b->sync_by_corr, a->corr, &i)) {
        const cr_sync *s = &b->st->syncs.items[i];
        if (s->type == CR_SYNC_STREAM_WAIT_EVENT || s->type == CR_SYNC_STREAM_SYNCHRONIZE) {
            arg_u64(ab, "stream", "uint32_t", s->stream);
            has_stream = true;
        }
        if (s->type == CR_SYNC_STREAM_WAIT_EVENT || s->type == CR_SYNC_EVENT_SYNCHRONIZE) {
            arg_u64(ab, "event", "uint32_t", s->event);
            arg_u64(ab, "sync_id", "uint64_t", s->sync_id);
        }
    }
    if (!has_stream && map_get(&b->launch_stream, a->corr, &stream))
        arg_u64(ab, "stream", "uint32_t", stream);
}

/* Stream of the first GPU operation each API call launched. */
static int map_launch_streams(build_ctx *b)
{
    cr_state *st = b->st;
    uint32_t v;
    int rc = 0;

    for (size_t i = 0; i < st->kernels.count && !rc; i++)
        rc = map_put(&b->launch_stream, (uint64_t)resolve_corr(b, st->kernels.items[i].corr),
                     st->kernels.items[i].stream);
    for (size_t i = 0; i < st->copies.count && !rc; i++) {
        const cr_copy *c = &st->copies.items[i];
        uint32_t corr = c->runtime_corr && map_get(&b->runtime_by_corr, c->runtime_corr, &v)
                            ? c->runtime_corr
                            : (uint32_t)resolve_corr(b, c->corr);
        rc = map_put(&b->launch_stream, corr, c->stream);
    }
    return rc;
}

static int add_regions(build_ctx *b, cr_api_name_fn api_name)
{
    cr_state *st = b->st;
    int rc = map_launch_streams(b);

    /* Keyed by the region's id, which a folded driver call does not keep. */
    for (size_t i = 0; i < st->events.count && !rc; i++)
        rc = map_put(&b->event_by_corr, (uint64_t)resolve_corr(b, st->events.items[i].corr),
                     (uint32_t)i);
    for (size_t i = 0; i < st->syncs.count && !rc; i++)
        rc = map_put(&b->sync_by_corr, (uint64_t)resolve_corr(b, st->syncs.items[i].corr),
                     (uint32_t)i);
    if (rc)
        return rc;
    for (size_t i = 0; i < st->apis.count; i++) {
        const cr_api *a = &st->apis.items[i];
        const char *fn = api_name(a->domain, a->cbid);
        char base[128];
        argbuf ab;
        rpl_region r = {0};
        uint32_t idx;

        if (is_folded(b, a))
            continue;
        api_base_name(base, sizeof(base), fn ? fn : "unknown");
        r.id = a->corr;
        describe_api(b, a, &ab);
        r.name = base;
        r.category = a->domain == CR_API_RUNTIME ? CR_CATEGORY_RUNTIME : CR_CATEGORY_DRIVER;
        r.thread = rpl_trace_thread(b->t, a->pid ? a->pid : b->proc->pid, a->tid);
        r.start = (int64_t)a->start;
        r.end = (int64_t)(a->end >= a->start ? a->end : a->start);
        r.correlation_id = a->corr;
        rc = rpl_trace_add_region(b->t, &r, ab.args, ab.n, &idx);
        if (!rc)
            rc = map_put(&b->region_by_corr, a->corr, idx);
        if (rc)
            return rc;
    }
    return 0;
}

/* Thread of the API call with correlation id `corr`, or the process id. */
static int64_t launch_tid(const build_ctx *b, int64_t corr)
{
    uint32_t idx;

    if (corr > 0 && map_get(&b->region_by_corr, (uint64_t)corr, &idx))
        return rpl_trace_tid(b->t, b->t->regions.items[idx].thread);
    return b->proc->pid;
}

/* ---- kernels, copies, counters ---- */

static int cmp_kernel_start(const void *a, const void *b)
{
    const cr_kernel *x = a, *y = b;

    if (x->start != y->start)
        return (x->start > y->start) - (x->start < y->start);
    return (x->corr > y->corr) - (x->corr < y->corr);
}

static uint32_t clamp_u32(int64_t v)
{
    return v < 0 ? 0 : v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static int add_dispatches(build_ctx *b)
{
    cr_state *st = b->st;
    int rc;

    sort_n(st->kernels.items, st->kernels.count, sizeof(cr_kernel), cmp_kernel_start);
    for (size_t i = 0; i < st->kernels.count; i++) {
        const cr_kernel *k = &st->kernels.items[i];
        rpl_dispatch d = {0};

        if ((rc = symbol_index(b, k, &d.kernel)) || (rc = gpu_agent(b, k->device, &d.agent)) ||
            (rc = stream_index(b, k->stream, &d.stream)))
            return rc;
        d.queue = d.stream;
        d.id = d.dispatch_id = (int64_t)i + 1;
        d.correlation_id = resolve_corr(b, k->corr);
        d.thread = rpl_trace_thread(b->t, b->proc->pid, launch_tid(b, d.correlation_id));
        d.start = (int64_t)k->start;
        d.end = (int64_t)(k->end >= k->start ? k->end : k->start);
        for (int j = 0; j < 3; j++) {
            uint32_t block = clamp_u32(k->block[j]);

            d.grid[j] = clamp_u32((int64_t)k->grid[j] * k->block[j]);
            d.workgroup[j] = (uint16_t)(block < RPL_WORKGROUP_MAX ? block : RPL_WORKGROUP_MAX);
        }
        d.group_segment_size = clamp_u32(k->dynamic_smem);
        d.private_segment_size = k->local_per_thread;
        rc = rpl_trace_add_dispatch(b->t, &d, NULL);
        if (rc)
            return rc;
    }
    return 0;
}

static int cmp_copy_start(const void *a, const void *b)
{
    const cr_copy *x = a, *y = b;

    return (x->start > y->start) - (x->start < y->start);
}

static int add_copies(build_ctx *b)
{
    cr_state *st = b->st;
    int rc;

    sort_n(st->copies.items, st->copies.count, sizeof(cr_copy), cmp_copy_start);
    for (size_t i = 0; i < st->copies.count; i++) {
        const cr_copy *c = &st->copies.items[i];
        rpl_memcpy m = {0};
        uint32_t gpu, v;

        if ((rc = gpu_agent(b, c->device, &gpu)) || (rc = stream_index(b, c->stream, &m.stream)))
            return rc;
        m.queue = m.stream;
        m.id = (int64_t)i + 1;
        m.start = (int64_t)c->start;
        m.end = (int64_t)(c->end >= c->start ? c->end : c->start);
        m.size = c->bytes;
        if (c->runtime_corr && map_get(&b->runtime_by_corr, c->runtime_corr, &v))
            m.correlation_id = c->runtime_corr;
        else
            m.correlation_id = resolve_corr(b, c->corr);
        m.thread = rpl_trace_thread(b->t, b->proc->pid, launch_tid(b, m.correlation_id));
        switch (c->dir) {
        case CR_COPY_HTOD:
            m.kind = RPL_COPY_HOST_TO_DEVICE;
            m.src_agent = b->cpu_agent;
            m.dst_agent = gpu;
            break;
        case CR_COPY_DTOH:
            m.kind = RPL_COPY_DEVICE_TO_HOST;
            m.src_agent = gpu;
            m.dst_agent = b->cpu_agent;
            break;
        case CR_COPY_DTOD:
            m.kind = RPL_COPY_DEVICE_TO_DEVICE;
            m.src_agent = m.dst_agent = gpu;
            break;
        case CR_COPY_HTOH:
            m.kind = RPL_COPY_HOST_TO_HOST;
            m.src_agent = m.dst_agent = b->cpu_agent;
            break;
        case CR_COPY_MEMSET:
        case CR_COPY_OTHER:
            m.kind = RPL_COPY_OTHER;
            m.src_agent = m.dst_agent = gpu;
            break;
        }
        m.name = c->dir == CR_COPY_MEMSET ? CR_MEMSET_NAME : rpl_copy_kind_name(m.kind);
        rc = rpl_trace_add_memcpy(b->t, &m, NULL);
        if (rc)
            return rc;
    }
    return 0;
}

/*
 * Under kernel replay a launch may be reported once per pass; the copies
 * share the launch's context, correlation id, kernel and shape.  Keep the
 * first (earliest) of each.
 */
static int cmp_kernel_launch(const void *a, const void *b)
{
    const cr_kernel *x = a, *y = b;

    if (x->context != y->context)
        return (x->context > y->context) - (x->context < y->context);
    if (x->corr != y->corr)
        return (x->corr > y->corr) - (x->corr < y->corr);
    return (x->start > y->start) - (x->start < y->start);
}

static bool same_launch(const cr_kernel *x, const cr_kernel *y)
{
    return x->context == y->context && x->corr == y->corr && x->name == y->name &&
           memcmp(x->grid, y->grid, sizeof(x->grid)) == 0 &&
           memcmp(x->block, y->block, sizeof(x->block)) == 0;
}

static void drop_replayed_kernels(cr_state *st)
{
    size_t n = 0;

    sort_n(st->kernels.items, st->kernels.count, sizeof(cr_kernel), cmp_kernel_launch);
    for (size_t i = 0; i < st->kernels.count; i++)
        if (n == 0 || !same_launch(&st->kernels.items[n - 1], &st->kernels.items[i]))
            st->kernels.items[n++] = st->kernels.items[i];
    if (n < st->kernels.count)
        rpl_log_info("cupti: %zu kernel records of replay passes dropped", st->kernels.count - n);
    st->kernels.count = n;
}

static int set_range_counters(build_ctx *b, const cr_range *rg, uint32_t dispatch,
                              const uint32_t *metric_idx, rpl_counter_value *vals)
{
    const double *v = b->st->range_values.items + rg->values_first;
    uint32_t n = 0;

    for (size_t m = 0; m < b->st->nmetrics; m++) {
        if (!isfinite(v[m]))
            continue;
        vals[n].counter = metric_idx[m];
        vals[n++].value = v[m];
        if (b->st->launch_times && v[m] >= 0 &&
            strcmp(b->st->metrics[m], "gpu__time_duration.sum") == 0) {
            rpl_dispatch *d = &b->t->dispatches.items[dispatch];
            d->end = d->start + (int64_t)llround(v[m]);
        }
    }
    return rpl_trace_set_dispatch_counters(b->t, dispatch, vals, n);
}

/*
 * Each range names the launch it measured (its operation number, which is
 * the kernel's correlation id in a counter run); ranges of launches that
 * made no dispatch are left out.  Dispatch i is st->kernels.items[i].
 */
static int add_counters(build_ctx *b)
{
    cr_state *st = b->st;
    uint32_t *metric_idx = malloc(st->nmetrics * sizeof(*metric_idx) + 1);
    rpl_counter_value *vals = malloc(st->nmetrics * sizeof(*vals) + 1);
    u64map dispatch_of = {0};
    uint32_t d;
    int rc = 0;

    if (!metric_idx || !vals || (rc = map_init(&dispatch_of, st->kernels.count))) {
        rc = rc ? rc : rpl_error_oom();
        goto out;
    }
    for (size_t m = 0; m < st->nmetrics && !rc; m++)
        rc = rpl_trace_counter_index(b->t, st->metrics[m], &metric_idx[m]);
    for (size_t i = 0; i < st->kernels.count && !rc; i++)
        rc = map_put(&dispatch_of, st->kernels.items[i].corr, (uint32_t)i);
    for (size_t r = 0; r < st->ranges.count && !rc; r++) {
        const cr_range *rg = &st->ranges.items[r];
        if (map_get(&dispatch_of, rg->corr, &d) && st->kernels.items[d].context == rg->context)
            rc = set_range_counters(b, rg, d, metric_idx, vals);
    }
out:
    map_free(&dispatch_of);
    free(metric_idx);
    free(vals);
    return rc;
}

int cr_build_trace(cr_state *st, const cr_process_info *proc, cr_api_name_fn api_name)
{
    build_ctx b = {.st = st, .t = st->trace, .proc = proc};
    rpl_source src = {.path = proc->db_path, .schema_version = "3"};
    rpl_process p = {0};
    size_t napi = st->apis.count;
    int rc;

    if ((rc = map_init(&b.runtime_by_corr, napi)) || (rc = map_init(&b.driver_alias, napi)) ||
        (rc = map_init(&b.region_by_corr, napi)) ||
        (rc = map_init(&b.event_by_corr, st->events.count)) ||
        (rc = map_init(&b.sync_by_corr, st->syncs.count)) ||
        (rc = map_init(&b.launch_stream, st->kernels.count + st->copies.count)) ||
        (rc = map_init(&b.agent_by_device, 16)) || (rc = map_init(&b.stream_by_id, 64)) ||
        (rc = map_init(&b.symbol_by_name, 256)))
        goto out;
    p.pid = proc->pid;
    p.ppid = proc->ppid;
    p.start = proc->start;
    p.end = proc->end;
    p.command = proc->command;
    p.hostname = proc->hostname;
    if ((rc = rpl_trace_add_source(b.t, &src, NULL)) || (rc = rpl_trace_add_process(b.t, &p, NULL)))
        goto out;
    if (st->nmetrics)
        drop_replayed_kernels(st);
    if ((rc = add_agents(&b)) || (rc = fold_driver_calls(&b)) || (rc = add_regions(&b, api_name)) ||
        (rc = add_dispatches(&b)) || (rc = add_copies(&b)) ||
        (st->ranges.count && (rc = add_counters(&b))))
        goto out;
out:
    map_free(&b.runtime_by_corr);
    map_free(&b.driver_alias);
    map_free(&b.region_by_corr);
    map_free(&b.event_by_corr);
    map_free(&b.sync_by_corr);
    map_free(&b.launch_stream);
    map_free(&b.agent_by_device);
    map_free(&b.stream_by_id);
    map_free(&b.symbol_by_name);
    return rc;
}
