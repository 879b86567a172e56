/* The in-memory trace model (see rpl/trace.h). */
#include <stdlib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <string.h>

#include "rpl/bigmem.h"
#include "rpl/error.h"
#include "model_int.h"
#include "rpl/free.h"
#include "rpl/trace.h"
#include "strpool.h"

/* Grow a RPL_ARRAY to hold one more item. */
#define ARRAY_RESERVE(arr)                                                                         \
    array_reserve((void **)&(arr).items, &(arr).cap, (arr).count, sizeof(*(arr).items))

static int array_reserve(void **items, uint32_t *cap, uint32_t count, size_t size)
{
    uint32_t ncap;
    void *p;

    if (count < *cap)
        return 0;
    if (count >= RPL_NONE - 1)
        return rpl_error_set(RPL_EINPUT, "trace has too many records");
    ncap = *cap ? (*cap > RPL_NONE / 2 ? RPL_NONE - 1 : *cap * 2) : 16;
    p = realloc(*items, (size_t)ncap * size);
    if (!p)
        return rpl_error_oom();
    rpl_bigmem_advise(p, (size_t)ncap * size);
    *items = p;
    *cap = ncap;
    return 0;
}

int rpl_trace_array_room(void **items, uint32_t *cap, uint32_t count, uint64_t more, size_t size)
{
    uint64_t need = (uint64_t)count + more, ncap;
    void *p;

    if (need <= *cap)
        return 0;
    if (need > RPL_NONE - 1)
        return rpl_error_set(RPL_EINPUT, "trace has too many records");
    /* Past the first size, double: one row at a time must not mean one realloc a row. */
    ncap = *cap && need < 2 * (uint64_t)*cap ? 2 * (uint64_t)*cap : need;
    if (ncap > RPL_NONE - 1)
        ncap = RPL_NONE - 1;
    p = realloc(*items, (size_t)ncap * size);
    if (!p)
        return rpl_error_oom();
    rpl_bigmem_advise(p, (size_t)ncap * size);
    *items = p;
    *cap = (uint32_t)ncap;
    return 0;
}

int rpl_trace_new(rpl_trace **out)
{
    rpl_trace *t = calloc(1, sizeof(*t));

    *out = NULL;
    if (!t)
        return rpl_error_oom();
    t->strings = rpl_strpool_new();
    if (!t->strings) {
        free(t);
        return rpl_error_oom();
    }
    *out = t;
    return 0;
}

void rpl_trace_free(rpl_trace *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->agents.count; i++)
        cJSON_Delete(t->agents.items[i].extdata);
    RPL_FREE_EACH(t->sources.items, t->processes.items, t->agents.items, t->symbols.items,
                  t->queues.items, t->streams.items, t->threads.items, t->thread_slots,
                  t->dispatches.items, t->memcpys.items, t->regions.items, t->args.items,
                  t->counter_names.items, t->counter_values.items);
    rpl_strpool_free(t->strings);
    free(t);
}

const char *rpl_trace_intern(rpl_trace *t, const char *s)
{
    if (!s)
        s = "";
    return rpl_strpool_intern(t->strings, s, strlen(s));
}

/* Intern *field in place; returns nonzero when out of memory. */
static int intern_field(rpl_trace *t, const char **field)
{
    const char *s = rpl_trace_intern(t, *field);

    if (!s)
        return rpl_error_oom();
    *field = s;
    return 0;
}

#define APPEND(arr, rec, index)                                                                    \
    do {                                                                                           \
        int rc_ = ARRAY_RESERVE(arr);                                                              \
        if (rc_)                                                                                   \
            return rc_;                                                                            \
        (arr).items[(arr).count] = (rec);                                                          \
        if (index)                                                                                 \
            *(index) = (arr).count;                                                                \
        (arr).count++;                                                                             \
    } while (0)

int rpl_trace_add_source(rpl_trace *t, const rpl_source *rec, uint32_t *index)
{
    rpl_source r = *rec;

    if (t->sources.count >= RPL_SOURCES_MAX)
        return rpl_error_set(RPL_EINPUT, "a trace holds at most %u databases", RPL_SOURCES_MAX);
    if (intern_field(t, &r.path) || intern_field(t, &r.schema_version) ||
        intern_field(t, &r.guid) || intern_field(t, &r.uuid))
        return RPL_ENOMEM;
    APPEND(t->sources, r, index);
    return 0;
}

int rpl_trace_add_process(rpl_trace *t, const rpl_process *rec, uint32_t *index)
{
    rpl_process r = *rec;

    if (intern_field(t, &r.command) || intern_field(t, &r.hostname))
        return RPL_ENOMEM;
    APPEND(t->processes, r, index);
    return 0;
}

int rpl_trace_add_agent(rpl_trace *t, const rpl_agent *rec, uint32_t *index)
{
    rpl_agent r = *rec;

    if (intern_field(t, &r.name) || intern_field(t, &r.model_name) ||
        intern_field(t, &r.vendor_name) || intern_field(t, &r.product_name))
        return RPL_ENOMEM;
    APPEND(t->agents, r, index);
    return 0;
}

int rpl_trace_add_symbol(rpl_trace *t, const rpl_kernel_symbol *rec, uint32_t *index)
{
    rpl_kernel_symbol r = *rec;

    if (!r.display_name || !r.display_name[0])
        r.display_name = r.name;
    if (intern_field(t, &r.name) || intern_field(t, &r.display_name))
        return RPL_ENOMEM;
    APPEND(t->symbols, r, index);
    return 0;
}

/* Queues and streams are the same record in two arrays. */
static int add_lane(rpl_trace *t, bool is_stream, const rpl_queue *rec, uint32_t *index)
{
    rpl_queue r = *rec;

    if (intern_field(t, &r.name))
        return RPL_ENOMEM;
    if (is_stream)
        APPEND(t->streams, r, index);
    else
        APPEND(t->queues, r, index);
    return 0;
}

int rpl_trace_add_queue(rpl_trace *t, const rpl_queue *rec, uint32_t *index)
{
    return add_lane(t, false, rec, index);
}

int rpl_trace_add_stream(rpl_trace *t, const rpl_queue *rec, uint32_t *index)
{
    return add_lane(t, true, rec, index);
}

int rpl_trace_add_dispatch(rpl_trace *t, const rpl_dispatch *rec, uint32_t *index)
{
    int rc = rpl_trace_check_thread(t, rec->thread, "dispatch", rec->id);

    if (rc)
        return rc;
    APPEND(t->dispatches, *rec, index);
    return 0;
}

int rpl_trace_add_memcpy(rpl_trace *t, const rpl_memcpy *rec, uint32_t *index)
{
    rpl_memcpy r = *rec;
    int rc = rpl_trace_check_thread(t, rec->thread, "memory copy", rec->id);

    if (rc)
        return rc;
    if (intern_field(t, &r.name))
        return RPL_ENOMEM;
    APPEND(t->memcpys, r, index);
    return 0;
}

int rpl_trace_add_region(rpl_trace *t, const rpl_region *rec, const rpl_arg *args, uint32_t nargs,
                         uint32_t *index)
{
    rpl_region r = *rec;
    int rc = rpl_trace_check_thread(t, rec->thread, "region", rec->id);

    if (rc)
        return rc;
    if (intern_field(t, &r.name) || intern_field(t, &r.category))
        return RPL_ENOMEM;
    r.args_first = t->args.count;
    r.args_count = nargs;
    for (uint32_t i = 0; i < nargs; i++) {
        rpl_arg a = args[i];
        if (intern_field(t, &a.name) || intern_field(t, &a.type) || intern_field(t, &a.value))
            return RPL_ENOMEM;
        APPEND(t->args, a, (uint32_t *)NULL);
    }
    APPEND(t->regions, r, index);
    return 0;
}

int rpl_trace_counter_index(rpl_trace *t, const char *name, uint32_t *index)
{
    const char *s = rpl_trace_intern(t, name);

    if (!s)
        return rpl_error_oom();
    /* Interned strings compare by pointer; traces have few counter names. */
    for (uint32_t i = 0; i < t->counter_names.count; i++) {
        if (t->counter_names.items[i] == s) {
            *index = i;
            return 0;
        }
    }
    APPEND(t->counter_names, s, index);
    return 0;
}

static int cmp_counter(const void *a, const void *b)
{
    const rpl_counter_value *x = a, *y = b;

    return (x->counter > y->counter) - (x->counter < y->counter);
}

int rpl_trace_set_dispatch_counters(rpl_trace *t, uint32_t dispatch,
                                    const rpl_counter_value *values, uint32_t count)
{
    uint32_t first = t->counter_values.count, n = 0;
    rpl_counter_value *slice;

    if (dispatch >= t->dispatches.count)
        return rpl_error_set(RPL_EUSAGE, "dispatch index %u out of range", dispatch);
    if (count == 0) {
        t->dispatches.items[dispatch].counters_first = first;
        t->dispatches.items[dispatch].counters_count = 0;
        return 0;
    }
    for (uint32_t i = 0; i < count; i++) {
        int rc = ARRAY_RESERVE(t->counter_values);
        if (rc)
            return rc;
        t->counter_values.items[t->counter_values.count++] = values[i];
    }
    slice = t->counter_values.items + first;
    qsort(slice, count, sizeof(*slice), cmp_counter);
    /* Sum repeated counters (one row per hardware instance). */
    for (uint32_t i = 0; i < count; i++) {
        if (n > 0 && slice[n - 1].counter == slice[i].counter)
            slice[n - 1].value += slice[i].value;
        else
            slice[n++] = slice[i];
    }
    t->counter_values.count = first + n;
    t->dispatches.items[dispatch].counters_first = first;
    t->dispatches.items[dispatch].counters_count = n;
    return 0;
}

bool rpl_dispatch_counter(const rpl_trace *t, const rpl_dispatch *d, uint32_t counter,
                          double *value)
{
    const rpl_counter_value *v;
    uint32_t lo = 0, hi = d->counters_count;

    if (hi == 0)
        return false;
    v = t->counter_values.items + d->counters_first;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid].counter == counter) {
            *value = v[mid].value;
            return true;
        }
        if (v[mid].counter < counter)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

void rpl_trace_mark_take(const rpl_trace *t, rpl_trace_mark *m)
{
    m->sources = t->sources.count;
    m->processes = t->processes.count;
    m->agents = t->agents.count;
    m->symbols = t->symbols.count;
    m->queues = t->queues.count;
    m->streams = t->streams.count;
    m->threads = t->threads.count;
    m->dispatches = t->dispatches.count;
    m->memcpys = t->memcpys.count;
    m->regions = t->regions.count;
    m->args = t->args.count;
    m->counter_names = t->counter_names.count;
    m->counter_values = t->counter_values.count;
}

void rpl_trace_rollback(rpl_trace *t, const rpl_trace_mark *m)
{
    for (uint32_t i = m->agents; i < t->agents.count; i++)
        cJSON_Delete(t->agents.items[i].extdata);
    t->sources.count = m->sources;
    t->processes.count = m->processes;
    t->agents.count = m->agents;
    t->symbols.count = m->symbols;
    t->queues.count = m->queues;
    t->streams.count = m->streams;
    rpl_trace_threads_cut(t, m->threads);
    t->dispatches.count = m->dispatches;
    t->memcpys.count = m->memcpys;
    t->regions.count = m->regions;
    t->args.count = m->args;
    t->counter_names.count = m->counter_names;
    t->counter_values.count = m->counter_values;
}

void rpl_trace_release_api(rpl_trace *t)
{
    free(t->regions.items);
    free(t->args.items);
    t->regions.items = NULL;
    t->args.items = NULL;
    t->regions.count = t->regions.cap = 0;
    t->args.count = t->args.cap = 0;
#ifdef __GLIBC__
    malloc_trim(0); /* an array that landed in the heap: its free pages go back too */
#endif
}

int rpl_trace_keep_regions(rpl_trace *t, const uint8_t *keep)
{
    uint64_t na = 0;
    uint32_t nr = 0;
    rpl_arg *args = NULL;
    rpl_region *regions;

    /* The kept arguments go to a new array: regions may share a slice, in any order. */
    for (uint32_t r = 0; r < t->regions.count; r++)
        if (keep[r] && (uint64_t)t->regions.items[r].args_first + t->regions.items[r].args_count <=
                           t->args.count)
            na += t->regions.items[r].args_count;
    if (na >= UINT32_MAX)
        return rpl_error_set(RPL_EINPUT, "trace has too many API call arguments");
    if (na && !(args = malloc((size_t)na * sizeof(*args))))
        return rpl_error_oom();
    na = 0;
    for (uint32_t r = 0; r < t->regions.count; r++) {
        rpl_region g = t->regions.items[r];

        if (!keep[r])
            continue;
        /* A slice the trace lacks (a corrupt input) keeps no arguments. */
        if ((uint64_t)g.args_first + g.args_count > t->args.count)
            g.args_count = 0;
        if (g.args_count)
            memcpy(args + na, t->args.items + g.args_first, (size_t)g.args_count * sizeof(*args));
        g.args_first = (uint32_t)na;
        na += g.args_count;
        t->regions.items[nr++] = g;
    }
    free(t->args.items);
    t->args.items = args;
    t->args.count = t->args.cap = (uint32_t)na;
    t->regions.count = nr;
    if (nr == 0) {
        free(t->regions.items);
        t->regions.items = NULL;
        t->regions.cap = 0;
    } else if ((regions = realloc(t->regions.items, (size_t)nr * sizeof(*regions))) != NULL) {
        t->regions.items = regions;
        t->regions.cap = nr;
    }
#ifdef __GLIBC__
    malloc_trim(0);
#endif
    return 0;
}

static uint32_t json_u32(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

    if (!cJSON_IsNumber(item) || !(item->valuedouble >= 0) || item->valuedouble > 4294967295.0)
        return 0;
    return (uint32_t)item->valuedouble;
}

void rpl_agent_refresh_facts(rpl_agent *a)
{
    const cJSON *clk;

    if (!cJSON_IsObject(a->extdata))
        return;
    a->cu_count = json_u32(a->extdata, "cu_count");
    a->simd_per_cu = json_u32(a->extdata, "simd_per_cu");
    a->wave_front_size = json_u32(a->extdata, "wave_front_size");
    a->max_waves_per_cu = json_u32(a->extdata, "max_waves_per_cu");
    a->gfx_target_version = json_u32(a->extdata, "gfx_target_version");
    clk = cJSON_GetObjectItemCaseSensitive(a->extdata, "max_engine_clk_fcompute");
    a->max_engine_clk_mhz = cJSON_IsNumber(clk) && clk->valuedouble > 0 ? clk->valuedouble : 0;
}

static const char *const copy_kind_names[] = {
    [RPL_COPY_OTHER] = "MEMORY_COPY_NONE",
    [RPL_COPY_HOST_TO_HOST] = "MEMORY_COPY_HOST_TO_HOST",
    [RPL_COPY_HOST_TO_DEVICE] = "MEMORY_COPY_HOST_TO_DEVICE",
    [RPL_COPY_DEVICE_TO_HOST] = "MEMORY_COPY_DEVICE_TO_HOST",
    [RPL_COPY_DEVICE_TO_DEVICE] = "MEMORY_COPY_DEVICE_TO_DEVICE",
};

rpl_copy_kind rpl_copy_kind_from_name(const char *name)
{
    for (int k = RPL_COPY_HOST_TO_HOST; k <= RPL_COPY_DEVICE_TO_DEVICE; k++)
        if (name && strcmp(name, copy_kind_names[k]) == 0)
            return (rpl_copy_kind)k;
    return RPL_COPY_OTHER;
}

const char *rpl_copy_kind_name(rpl_copy_kind kind)
{
    if ((unsigned)kind > RPL_COPY_DEVICE_TO_DEVICE)
        kind = RPL_COPY_OTHER;
    return copy_kind_names[kind];
}
