/*
 * Fixture description -> rpl_trace (see docs/schemas/fixture-description.md).
 * Every object's keys are checked, so a misspelt key is an error rather
 * than a silently different fixture.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_desc.h"
#include "rpl/error.h"
#include "rpl/json.h"

#define MAX_COUNT     10000000 /* records one generator may make */
#define MAX_TIME      (INT64_C(1) << 53)
#define DEFAULT_START 1000000 /* first record of a lane when no "start" is given */

typedef struct fx {
    rpl_trace *t;
    int64_t pid;
    const char **agent_alias;  /* per agent: "alias", else its name */
    const char **kernel_alias; /* per kernel: "alias", or NULL */
    uint32_t nqueues, nstreams;
    int64_t *queue_end; /* end of the last dispatch per queue (index 0: default), or -1 */
    int64_t copy_end;
    int64_t next_dispatch_id;
    int64_t max_corr;
} fx;

typedef struct span {
    int64_t start, end;
} span;

/* ---- errors and typed fields ------------------------------------------ */

static int fail(const char *ctx, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(const char *ctx, const char *fmt, ...)
{
    char msg[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return rpl_error_set(RPL_EINPUT, "%s: %s", ctx, msg);
}

static int check_keys(const cJSON *o, const char *ctx, const char *const *allowed)
{
    const cJSON *item;

    if (!cJSON_IsObject(o))
        return fail(ctx, "must be an object");
    cJSON_ArrayForEach(item, o)
    {
        const char *const *k = allowed;
        while (*k && strcmp(*k, item->string) != 0)
            k++;
        if (!*k)
            return fail(ctx, "unknown key '%s'", item->string);
    }
    return 0;
}

/* An integer in [lo, hi]; when absent, *out is kept unless the key is required. */
static int get_int(const cJSON *o, const char *key, bool required, int64_t lo, int64_t hi,
                   int64_t *out, const char *ctx)
{
    int64_t v;
    int rc = rpl_json_get_int64(o, key, &v);

    if (rc == RPL_ENOTFOUND)
        return required ? fail(ctx, "'%s' is required", key) : 0;
    if (rc) {
        rpl_error_prefix("%s", ctx);
        return rc;
    }
    if (v < lo || v > hi)
        return fail(ctx, "'%s' must be between %lld and %lld", key, (long long)lo, (long long)hi);
    *out = v;
    return 0;
}

static int get_u32(const cJSON *o, const char *key, uint32_t *out, const char *ctx)
{
    int64_t v = *out;
    int rc = get_int(o, key, false, 0, UINT32_MAX, &v, ctx);

    *out = (uint32_t)v;
    return rc;
}

static int get_num(const cJSON *o, const char *key, double lo, double hi, double *out,
                   const char *ctx)
{
    double v;
    int rc = rpl_json_get_number(o, key, &v);

    if (rc == RPL_ENOTFOUND)
        return 0;
    if (rc) {
        rpl_error_prefix("%s", ctx);
        return rc;
    }
    if (v < lo || v > hi)
        return fail(ctx, "'%s' must be between %g and %g", key, lo, hi);
    *out = v;
    return 0;
}

static int get_str(const cJSON *o, const char *key, bool required, const char **out,
                   const char *ctx)
{
    int rc = rpl_json_get_string(o, key, out);

    if (rc == RPL_ENOTFOUND)
        return required ? fail(ctx, "'%s' is required", key) : 0;
    if (rc)
        rpl_error_prefix("%s", ctx);
    return rc;
}

/* An optional array member of the document; NULL when absent. */
static int get_array(const cJSON *doc, const char *key, const cJSON **out)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(doc, key);

    *out = NULL;
    if (a && !cJSON_IsArray(a))
        return fail(key, "must be an array");
    *out = a;
    return 0;
}

/* [x], [x, y] or [x, y, z] of positive integers; missing dimensions are 1. */
static int get_dim3(const cJSON *o, const char *key, uint32_t max, uint32_t out[3], const char *ctx)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, key), *v;
    int n = 0;

    if (!a)
        return 0;
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) < 1 || cJSON_GetArraySize(a) > 3)
        return fail(ctx, "'%s' must be an array of 1 to 3 integers", key);
    out[0] = out[1] = out[2] = 1;
    cJSON_ArrayForEach(v, a)
    {
        if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || v->valuedouble < 1 ||
            v->valuedouble > max)
            return fail(ctx, "'%s' must hold positive integers", key);
        out[n++] = (uint32_t)v->valuedouble;
    }
    return 0;
}

/* "start" (or `default_start` when >= 0), then "end" or "duration_ns". */
static int get_span(const cJSON *o, int64_t default_start, span *out, const char *ctx)
{
    int64_t dur = -1;
    bool has_end = cJSON_HasObjectItem(o, "end"), has_dur = cJSON_HasObjectItem(o, "duration_ns");
    int rc;

    out->start = default_start;
    out->end = -1;
    if ((rc = get_int(o, "start", default_start < 0, 0, MAX_TIME, &out->start, ctx)) ||
        (rc = get_int(o, "end", false, 0, MAX_TIME, &out->end, ctx)) ||
        (rc = get_int(o, "duration_ns", false, 0, MAX_TIME, &dur, ctx)))
        return rc;
    if (has_end == has_dur)
        return fail(ctx, "give exactly one of 'end' and 'duration_ns'");
    if (has_dur)
        out->end = out->start + dur;
    if (out->end < out->start)
        return fail(ctx, "'end' is before 'start'");
    return 0;
}

/* ---- deterministic jitter (splitmix64) --------------------------------- */

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* duration * (1 + jitter * u), u uniform in [-1, 1); at least 1 ns. */
static int64_t jittered(int64_t duration, double jitter, uint64_t *state)
{
    double u = (double)(splitmix64(state) >> 11) * 0x1.0p-53 * 2.0 - 1.0;
    double d = llround((double)duration * (1.0 + jitter * u));

    return d < 1 ? 1 : (int64_t)d;
}

/* ---- sections ---------------------------------------------------------- */

static int parse_process(fx *f, const cJSON *doc)
{
    static const char *const keys[] = {"pid", "ppid", "command", "hostname", "start", "end", NULL};
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(doc, "process");
    rpl_process p = {.hostname = "fixture-host", .command = ""};
    int rc;

    if (!o)
        return fail("process", "is required");
    if ((rc = check_keys(o, "process", keys)) ||
        (rc = get_int(o, "pid", true, 1, INT32_MAX, &p.pid, "process")) ||
        (rc = get_int(o, "ppid", false, 0, INT32_MAX, &p.ppid, "process")) ||
        (rc = get_str(o, "command", false, &p.command, "process")) ||
        (rc = get_str(o, "hostname", false, &p.hostname, "process")) ||
        (rc = get_int(o, "start", false, 0, MAX_TIME, &p.start, "process")) ||
        (rc = get_int(o, "end", false, 0, MAX_TIME, &p.end, "process")))
        return rc;
    f->pid = p.pid;
    return rpl_trace_add_process(f->t, &p, NULL);
}

static int parse_agents(fx *f, const cJSON *doc)
{
    static const char *const keys[] = {"alias",
                                       "type",
                                       "name",
                                       "model_name",
                                       "vendor_name",
                                       "product_name",
                                       "absolute_index",
                                       "logical_index",
                                       "type_index",
                                       "extdata",
                                       NULL};
    const cJSON *arr, *o;
    uint32_t i = 0, per_type[3] = {0};
    int rc;

    if ((rc = get_array(doc, "agents", &arr)) != 0)
        return rc;
    if (cJSON_GetArraySize(arr) == 0)
        return fail("agents", "at least one agent is required");
    f->agent_alias = calloc((size_t)cJSON_GetArraySize(arr), sizeof(char *));
    if (!f->agent_alias)
        return rpl_error_oom();
    cJSON_ArrayForEach(o, arr)
    {
        char ctx[32];
        const char *type = NULL;
        const cJSON *ext;
        rpl_agent a = {.model_name = "", .vendor_name = "", .product_name = ""};
        int64_t abs = i, log = i, tix;

        snprintf(ctx, sizeof(ctx), "agents[%u]", i);
        if ((rc = check_keys(o, ctx, keys)) || (rc = get_str(o, "type", true, &type, ctx)) ||
            (rc = get_str(o, "name", true, &a.name, ctx)))
            return rc;
        if (strcmp(type, "CPU") != 0 && strcmp(type, "GPU") != 0)
            return fail(ctx, "'type' must be \"CPU\" or \"GPU\"");
        a.type = type[0] == 'C' ? RPL_AGENT_CPU : RPL_AGENT_GPU;
        tix = per_type[a.type]++;
        f->agent_alias[i] = a.name;
        if ((rc = get_str(o, "alias", false, &f->agent_alias[i], ctx)) ||
            (rc = get_str(o, "model_name", false, &a.model_name, ctx)) ||
            (rc = get_str(o, "vendor_name", false, &a.vendor_name, ctx)) ||
            (rc = get_str(o, "product_name", false, &a.product_name, ctx)) ||
            (rc = get_int(o, "absolute_index", false, 0, INT32_MAX, &abs, ctx)) ||
            (rc = get_int(o, "logical_index", false, 0, INT32_MAX, &log, ctx)) ||
            (rc = get_int(o, "type_index", false, 0, INT32_MAX, &tix, ctx)))
            return rc;
        ext = cJSON_GetObjectItemCaseSensitive(o, "extdata");
        if (ext && !cJSON_IsObject(ext))
            return fail(ctx, "'extdata' must be an object");
        a.id = abs;
        a.absolute_index = (int32_t)abs;
        a.logical_index = (int32_t)log;
        a.type_index = (int32_t)tix;
        if (ext && !(a.extdata = cJSON_Duplicate(ext, 1)))
            return rpl_error_oom();
        rpl_agent_refresh_facts(&a);
        if ((rc = rpl_trace_add_agent(f->t, &a, NULL)) != 0) {
            cJSON_Delete(a.extdata);
            return rc;
        }
        i++;
    }
    return 0;
}

static int parse_kernels(fx *f, const cJSON *doc)
{
    static const char *const keys[] = {
        "alias", "name",    "display_name", "code_object_id", "kernarg_size",
        "lds",   "scratch", "sgprs",        "vgprs",          "agprs",
        NULL};
    const cJSON *arr, *o;
    uint32_t i = 0;
    int rc;

    if ((rc = get_array(doc, "kernels", &arr)) != 0)
        return rc;
    f->kernel_alias = calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(char *));
    if (!f->kernel_alias)
        return rpl_error_oom();
    cJSON_ArrayForEach(o, arr)
    {
        char ctx[32];
        rpl_kernel_symbol s = {.id = (int64_t)i + 1, .code_object_id = 1};

        snprintf(ctx, sizeof(ctx), "kernels[%u]", i);
        if ((rc = check_keys(o, ctx, keys)) || (rc = get_str(o, "name", true, &s.name, ctx)) ||
            (rc = get_str(o, "alias", false, &f->kernel_alias[i], ctx)) ||
            (rc = get_str(o, "display_name", false, &s.display_name, ctx)) ||
            (rc = get_int(o, "code_object_id", false, 0, INT32_MAX, &s.code_object_id, ctx)) ||
            (rc = get_u32(o, "kernarg_size", &s.kernarg_segment_size, ctx)) ||
            (rc = get_u32(o, "lds", &s.group_segment_size, ctx)) ||
            (rc = get_u32(o, "scratch", &s.private_segment_size, ctx)) ||
            (rc = get_u32(o, "sgprs", &s.sgpr_count, ctx)) ||
            (rc = get_u32(o, "vgprs", &s.arch_vgpr_count, ctx)) ||
            (rc = get_u32(o, "agprs", &s.accum_vgpr_count, ctx)) ||
            (rc = rpl_trace_add_symbol(f->t, &s, NULL)))
            return rc;
        i++;
    }
    return 0;
}

/* "queues" / "streams": arrays of names; they are numbered from 1. */
static int parse_lanes(fx *f, const cJSON *doc, const char *key, uint32_t *count)
{
    const cJSON *arr, *o;
    int rc;

    if ((rc = get_array(doc, key, &arr)) != 0)
        return rc;
    *count = 0;
    cJSON_ArrayForEach(o, arr)
    {
        rpl_queue q = {.id = (int64_t)*count + 1, .pid = f->pid};
        if (!cJSON_IsString(o))
            return fail(key, "must be an array of names");
        q.name = o->valuestring;
        rc = key[0] == 'q' ? rpl_trace_add_queue(f->t, &q, NULL)
                           : rpl_trace_add_stream(f->t, &q, NULL);
        if (rc)
            return rc;
        ++*count;
    }
    return 0;
}

static void note_corr(fx *f, int64_t corr)
{
    if (corr > f->max_corr)
        f->max_corr = corr;
}

/* An argument value: a string as is, a number printed (integers without a fraction). */
static int arg_value(const cJSON *v, char *buf, size_t size, const char **out)
{
    if (cJSON_IsString(v)) {
        *out = v->valuestring;
        return 0;
    }
    if (!cJSON_IsNumber(v))
        return -1;
    if (v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 9007199254740992.0)
        snprintf(buf, size, "%lld", (long long)v->valuedouble);
    else
        snprintf(buf, size, "%.17g", v->valuedouble);
    *out = buf;
    return 0;
}

static int parse_args(const cJSON *o, rpl_arg *args, char bufs[][32], uint32_t *nargs, uint32_t max,
                      const char *ctx)
{
    static const char *const keys[] = {"name", "type", "value", NULL};
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(o, "args"), *a;
    int rc;

    *nargs = 0;
    if (!arr)
        return 0;
    if (!cJSON_IsArray(arr) || cJSON_GetArraySize(arr) > (int)max)
        return fail(ctx, "'args' must be an array of at most %u arguments", max);
    cJSON_ArrayForEach(a, arr)
    {
        rpl_arg *x = &args[*nargs];
        x->type = "";
        if ((rc = check_keys(a, ctx, keys)) || (rc = get_str(a, "name", true, &x->name, ctx)) ||
            (rc = get_str(a, "type", false, &x->type, ctx)))
            return rc;
        if (arg_value(cJSON_GetObjectItemCaseSensitive(a, "value"), bufs[*nargs], 32, &x->value) !=
            0)
            return fail(ctx, "argument '%s' needs a string or number 'value'", x->name);
        ++*nargs;
    }
    return 0;
}

#define MAX_ARGS 32

static int parse_regions(fx *f, const cJSON *doc)
{
    static const char *const keys[] = {"name", "category",       "start",
                                       "end",  "duration_ns",    "tid",
                                       "args", "correlation_id", "parent_correlation_id",
                                       NULL};
    const cJSON *arr, *o;
    uint32_t i = 0;
    int rc;

    if ((rc = get_array(doc, "regions", &arr)) != 0)
        return rc;
    cJSON_ArrayForEach(o, arr)
    {
        char ctx[32], bufs[MAX_ARGS][32];
        rpl_arg args[MAX_ARGS];
        uint32_t nargs;
        span s;
        rpl_region r = {.category = "HIP_RUNTIME_API_EXT"};
        int64_t tid = f->pid;

        snprintf(ctx, sizeof(ctx), "regions[%u]", i++);
        if ((rc = check_keys(o, ctx, keys)) || (rc = get_str(o, "name", true, &r.name, ctx)) ||
            (rc = get_str(o, "category", false, &r.category, ctx)) ||
            (rc = get_span(o, -1, &s, ctx)) ||
            (rc = get_int(o, "tid", false, 0, INT32_MAX, &tid, ctx)) ||
            (rc = get_int(o, "correlation_id", false, 0, MAX_TIME, &r.correlation_id, ctx)) ||
            (rc = get_int(o, "parent_correlation_id", false, 0, MAX_TIME, &r.parent_correlation_id,
                          ctx)) ||
            (rc = parse_args(o, args, bufs, &nargs, MAX_ARGS, ctx)))
            return rc;
        r.start = s.start;
        r.end = s.end;
        r.thread = rpl_trace_thread(f->t, f->pid, tid);
        note_corr(f, r.correlation_id);
        if ((rc = rpl_trace_add_region(f->t, &r, args, nargs, NULL)) != 0)
            return rc;
    }
    return 0;
}

static int find_agent(const fx *f, const char *alias, rpl_agent_type type, uint32_t *out)
{
    for (uint32_t i = 0; i < f->t->agents.count; i++) {
        if (alias ? strcmp(f->agent_alias[i], alias) == 0 : f->t->agents.items[i].type == type) {
            *out = i;
            return 0;
        }
    }
    return -1;
}

static int agent_field(const fx *f, const cJSON *o, const char *key, rpl_agent_type type,
                       uint32_t *out, const char *ctx)
{
    const char *alias = NULL;
    int rc = get_str(o, key, false, &alias, ctx);

    if (rc)
        return rc;
    if (find_agent(f, alias, type, out) != 0)
        return alias ? fail(ctx, "no agent '%s'", alias)
                     : fail(ctx, "no %s agent for '%s'; name one",
                            type == RPL_AGENT_CPU ? "CPU" : "GPU", key);
    return 0;
}

static int kernel_field(const fx *f, const cJSON *o, uint32_t *out, const char *ctx)
{
    const char *name = NULL;
    int rc = get_str(o, "kernel", true, &name, ctx);

    if (rc)
        return rc;
    for (uint32_t i = 0; i < f->t->symbols.count; i++) {
        const rpl_kernel_symbol *s = &f->t->symbols.items[i];
        if ((f->kernel_alias[i] && strcmp(f->kernel_alias[i], name) == 0) ||
            strcmp(s->name, name) == 0 || strcmp(s->display_name, name) == 0) {
            *out = i;
            return 0;
        }
    }
    return fail(ctx, "no kernel '%s'", name);
}

/* "queue"/"stream": 1..N pick a listed one, 0 the default (RPL_NONE). */
static int lane_field(const cJSON *o, const char *key, uint32_t count, int64_t dflt, uint32_t *out,
                      const char *ctx)
{
    int64_t v = dflt;
    int rc = get_int(o, key, false, 0, count, &v, ctx);

    *out = v == 0 ? RPL_NONE : (uint32_t)(v - 1);
    return rc;
}

static int parse_counters(fx *f, const cJSON *o, rpl_counter_value **vals, uint32_t *n,
                          const char *ctx)
{
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(o, "counters"), *c, *v;
    uint32_t cap = 0;

    *vals = NULL;
    *n = 0;
    if (!obj)
        return 0;
    if (!cJSON_IsObject(obj))
        return fail(ctx, "'counters' must be an object of name: value");
    cJSON_ArrayForEach(c, obj) cap += cJSON_IsArray(c) ? (uint32_t)cJSON_GetArraySize(c) : 1;
    if (cap && !(*vals = malloc(cap * sizeof(**vals))))
        return rpl_error_oom();
    cJSON_ArrayForEach(c, obj)
    {
        uint32_t idx;
        int rc = rpl_trace_counter_index(f->t, c->string, &idx);
        if (rc)
            return rc;
        if (cJSON_IsArray(c) && cJSON_GetArraySize(c) == 0)
            return fail(ctx, "counter '%s' has no values", c->string);
        /* An array holds one value per hardware instance; they are summed. */
        for (v = cJSON_IsArray(c) ? c->child : c; v; v = cJSON_IsArray(c) ? v->next : NULL) {
            if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
                return fail(ctx, "counter '%s' needs numbers", c->string);
            (*vals)[(*n)++] = (rpl_counter_value){idx, v->valuedouble};
        }
    }
    return 0;
}

/* The fields dispatches share, explicit or generated. */
static int dispatch_common(fx *f, const cJSON *o, rpl_dispatch *d, const char *ctx)
{
    int64_t lds, scratch, tid = f->pid;
    uint32_t wg[3] = {256, 1, 1};
    int rc;

    d->grid[0] = 65536, d->grid[1] = d->grid[2] = 1;
    if ((rc = kernel_field(f, o, &d->kernel, ctx)) ||
        (rc = agent_field(f, o, "agent", RPL_AGENT_GPU, &d->agent, ctx)) ||
        (rc = lane_field(o, "queue", f->nqueues, f->nqueues ? 1 : 0, &d->queue, ctx)) ||
        (rc = lane_field(o, "stream", f->nstreams, f->nstreams ? 1 : 0, &d->stream, ctx)) ||
        (rc = get_int(o, "tid", false, 0, INT32_MAX, &tid, ctx)) ||
        (rc = get_dim3(o, "grid", UINT32_MAX, d->grid, ctx)) ||
        (rc = get_dim3(o, "workgroup", RPL_WORKGROUP_MAX, wg, ctx)))
        return rc;
    for (int i = 0; i < 3; i++)
        d->workgroup[i] = (uint16_t)wg[i];
    d->thread = rpl_trace_thread(f->t, f->pid, tid);
    lds = f->t->symbols.items[d->kernel].group_segment_size;
    scratch = f->t->symbols.items[d->kernel].private_segment_size;
    if ((rc = get_int(o, "lds", false, 0, UINT32_MAX, &lds, ctx)) ||
        (rc = get_int(o, "scratch", false, 0, UINT32_MAX, &scratch, ctx)))
        return rc;
    d->group_segment_size = (uint32_t)lds;
    d->private_segment_size = (uint32_t)scratch;
    return 0;
}

static int64_t *lane_end(fx *f, uint32_t queue)
{
    return &f->queue_end[queue == RPL_NONE ? 0 : queue + 1];
}

static int add_dispatch(fx *f, rpl_dispatch *d, const rpl_counter_value *vals, uint32_t n)
{
    uint32_t index;
    int rc;

    d->id = (int64_t)f->t->dispatches.count + 1;
    if (d->dispatch_id == 0)
        d->dispatch_id = f->next_dispatch_id;
    if (d->dispatch_id >= f->next_dispatch_id)
        f->next_dispatch_id = d->dispatch_id + 1;
    note_corr(f, d->correlation_id);
    if (d->end > *lane_end(f, d->queue))
        *lane_end(f, d->queue) = d->end;
    if ((rc = rpl_trace_add_dispatch(f->t, d, &index)) != 0)
        return rc;
    return n ? rpl_trace_set_dispatch_counters(f->t, index, vals, n) : 0;
}

/* "launch_api": an API region per generated dispatch, ending lead_ns before it. */
typedef struct launch {
    const char *name, *category;
    int64_t lead_ns, duration_ns;
} launch;

static int parse_launch(const cJSON *o, launch *l, const char *ctx)
{
    static const char *const keys[] = {"name", "category", "lead_ns", "duration_ns", NULL};
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, "launch_api");
    int rc;

    l->name = NULL;
    l->category = "HIP_RUNTIME_API_EXT";
    l->lead_ns = 2000;
    l->duration_ns = 1500;
    if (!x)
        return 0;
    if ((rc = check_keys(x, ctx, keys)) || (rc = get_str(x, "name", true, &l->name, ctx)) ||
        (rc = get_str(x, "category", false, &l->category, ctx)) ||
        (rc = get_int(x, "lead_ns", false, 0, MAX_TIME, &l->lead_ns, ctx)) ||
        (rc = get_int(x, "duration_ns", false, 0, MAX_TIME, &l->duration_ns, ctx)))
        return rc;
    return 0;
}

static int generate_dispatches(fx *f, const cJSON *o, rpl_dispatch *proto,
                               const rpl_counter_value *vals, uint32_t n, const char *ctx)
{
    static const char *const keys[] = {"kernel",
                                       "agent",
                                       "queue",
                                       "stream",
                                       "tid",
                                       "grid",
                                       "workgroup",
                                       "lds",
                                       "scratch",
                                       "counters",
                                       "count",
                                       "start",
                                       "duration_ns",
                                       "gap_ns",
                                       "jitter",
                                       "seed",
                                       "correlation_start",
                                       "launch_api",
                                       NULL};
    int64_t count = 0, start, duration = 0, gap = 0, seed = 1, corr = 0, last;
    double jitter = 0;
    uint64_t state;
    launch l;
    int rc;

    last = *lane_end(f, proto->queue);
    start = last < 0 ? DEFAULT_START : last;
    if ((rc = check_keys(o, ctx, keys)) ||
        (rc = get_int(o, "count", true, 1, MAX_COUNT, &count, ctx)) ||
        (rc = get_int(o, "duration_ns", true, 1, MAX_TIME, &duration, ctx)) ||
        (rc = get_int(o, "gap_ns", false, 0, MAX_TIME, &gap, ctx)) ||
        (rc = get_num(o, "jitter", 0, 0.99, &jitter, ctx)) ||
        (rc = get_int(o, "seed", false, 0, MAX_TIME, &seed, ctx)) ||
        (rc = get_int(o, "correlation_start", false, 1, MAX_TIME, &corr, ctx)) ||
        (rc = parse_launch(o, &l, ctx)))
        return rc;
    if (last >= 0)
        start += gap;
    if ((rc = get_int(o, "start", false, 0, MAX_TIME, &start, ctx)) != 0)
        return rc;
    if (l.name && corr == 0)
        corr = f->max_corr + 1;
    state = (uint64_t)seed;
    for (int64_t k = 0; k < count; k++) {
        rpl_dispatch d = *proto;
        d.start = start;
        d.end = start + jittered(duration, jitter, &state);
        d.correlation_id = corr ? corr + k : 0;
        if (d.end > MAX_TIME)
            return fail(ctx, "generated times pass 2^53 ns");
        if (l.name) {
            rpl_region r = {.name = l.name, .category = l.category, .thread = d.thread};
            r.end = d.start - l.lead_ns;
            r.start = r.end - l.duration_ns;
            r.correlation_id = d.correlation_id;
            if (r.start < 0)
                return fail(ctx, "'launch_api' would start before time 0; raise 'start'");
            if ((rc = rpl_trace_add_region(f->t, &r, NULL, 0, NULL)) != 0)
                return rc;
        }
        if ((rc = add_dispatch(f, &d, vals, n)) != 0)
            return rc;
        start = d.end + gap;
    }
    return 0;
}

static int parse_dispatches(fx *f, const cJSON *doc)
{
    static const char *const keys[] = {"kernel",  "agent",    "queue",          "stream",
                                       "tid",     "grid",     "workgroup",      "lds",
                                       "scratch", "counters", "correlation_id", "dispatch_id",
                                       "start",   "end",      "duration_ns",    NULL};
    const cJSON *arr, *o;
    uint32_t i = 0;
    int rc = 0;

    if ((rc = get_array(doc, "dispatches", &arr)) != 0)
        return rc;
    cJSON_ArrayForEach(o, arr)
    {
        char ctx[32];
        rpl_dispatch d = {.stream = RPL_NONE};
        rpl_counter_value *vals = NULL;
        uint32_t n = 0;
        span s;

        snprintf(ctx, sizeof(ctx), "dispatches[%u]", i++);
        if (!cJSON_IsObject(o))
            return fail(ctx, "must be an object");
        if ((rc = dispatch_common(f, o, &d, ctx)) == 0 &&
            (rc = parse_counters(f, o, &vals, &n, ctx)) == 0) {
            if (cJSON_HasObjectItem(o, "count")) {
                rc = generate_dispatches(f, o, &d, vals, n, ctx);
            } else if ((rc = check_keys(o, ctx, keys)) == 0 &&
                       (rc = get_span(o, -1, &s, ctx)) == 0 &&
                       (rc = get_int(o, "correlation_id", false, 0, MAX_TIME, &d.correlation_id,
                                     ctx)) == 0 &&
                       (rc = get_int(o, "dispatch_id", false, 1, MAX_TIME, &d.dispatch_id, ctx)) ==
                           0) {
                d.start = s.start;
                d.end = s.end;
                rc = add_dispatch(f, &d, vals, n);
            }
        }
        free(vals);
        if (rc)
            return rc;
    }
    return 0;
}

static int add_copy(fx *f, const rpl_memcpy *m)
{
    note_corr(f, m->correlation_id);
    if (m->end > f->copy_end)
        f->copy_end = m->end;
    return rpl_trace_add_memcpy(f->t, m, NULL);
}

/* Default endpoints of a copy kind: host side is the first CPU, device the first GPU. */
static int copy_agents(fx *f, const cJSON *o, rpl_memcpy *m, const char *ctx)
{
    bool src_host = m->kind == RPL_COPY_HOST_TO_HOST || m->kind == RPL_COPY_HOST_TO_DEVICE;
    bool dst_host = m->kind == RPL_COPY_HOST_TO_HOST || m->kind == RPL_COPY_DEVICE_TO_HOST;
    int rc = agent_field(f, o, "src", src_host ? RPL_AGENT_CPU : RPL_AGENT_GPU, &m->src_agent, ctx);

    return rc ? rc
              : agent_field(f, o, "dst", dst_host ? RPL_AGENT_CPU : RPL_AGENT_GPU, &m->dst_agent,
                            ctx);
}

static int parse_copy(fx *f, const cJSON *o, const char *ctx)
{
    static const char *const keys[] = {"kind",
                                       "size",
                                       "src",
                                       "dst",
                                       "queue",
                                       "stream",
                                       "tid",
                                       "start",
                                       "end",
                                       "duration_ns",
                                       "correlation_id",
                                       "count",
                                       "gap_ns",
                                       "correlation_start",
                                       NULL};
    rpl_memcpy m = {0};
    int64_t tid = f->pid;
    const char *kind = NULL;
    char full[64];
    int64_t size = 0, count = 1, gap = 0, corr = 0;
    bool gen = cJSON_HasObjectItem(o, "count");
    span s;
    int rc;

    if ((rc = check_keys(o, ctx, keys)) || (rc = get_str(o, "kind", true, &kind, ctx)))
        return rc;
    snprintf(full, sizeof(full), "%s%s", strncmp(kind, "MEMORY_COPY_", 12) ? "MEMORY_COPY_" : "",
             kind);
    m.kind = rpl_copy_kind_from_name(full);
    if (m.kind == RPL_COPY_OTHER)
        return fail(ctx, "unknown copy kind '%s'", kind);
    m.name = rpl_copy_kind_name(m.kind);
    if (!gen && (cJSON_HasObjectItem(o, "gap_ns") || cJSON_HasObjectItem(o, "correlation_start")))
        return fail(ctx, "'gap_ns' and 'correlation_start' need 'count'");
    if (gen && cJSON_HasObjectItem(o, "correlation_id"))
        return fail(ctx, "use 'correlation_start' with 'count'");
    if ((rc = get_int(o, "size", true, 0, MAX_TIME, &size, ctx)) ||
        (rc = copy_agents(f, o, &m, ctx)) ||
        (rc = lane_field(o, "queue", f->nqueues, 0, &m.queue, ctx)) ||
        (rc = lane_field(o, "stream", f->nstreams, 0, &m.stream, ctx)) ||
        (rc = get_int(o, "tid", false, 0, INT32_MAX, &tid, ctx)) ||
        (rc = get_int(o, "correlation_id", false, 0, MAX_TIME, &m.correlation_id, ctx)) ||
        (rc = get_int(o, "count", false, 1, MAX_COUNT, &count, ctx)) ||
        (rc = get_int(o, "gap_ns", false, 0, MAX_TIME, &gap, ctx)) ||
        (rc = get_int(o, "correlation_start", false, 1, MAX_TIME, &corr, ctx)) ||
        (rc = get_span(o, f->copy_end < 0 ? DEFAULT_START : f->copy_end + gap, &s, ctx)))
        return rc;
    m.size = (uint64_t)size;
    m.thread = rpl_trace_thread(f->t, f->pid, tid);
    for (int64_t k = 0; k < count; k++) {
        m.start = s.start + k * (s.end - s.start + gap);
        m.end = m.start + (s.end - s.start);
        if (corr)
            m.correlation_id = corr + k;
        if (m.end > MAX_TIME)
            return fail(ctx, "generated times pass 2^53 ns");
        if ((rc = add_copy(f, &m)) != 0)
            return rc;
    }
    return 0;
}

static int parse_copies(fx *f, const cJSON *doc)
{
    const cJSON *arr, *o;
    uint32_t i = 0;
    int rc;

    if ((rc = get_array(doc, "memory_copies", &arr)) != 0)
        return rc;
    cJSON_ArrayForEach(o, arr)
    {
        char ctx[40];
        snprintf(ctx, sizeof(ctx), "memory_copies[%u]", i++);
        if ((rc = parse_copy(f, o, ctx)) != 0)
            return rc;
    }
    return 0;
}

/* The process spans its records unless the description says otherwise. */
static void process_span(rpl_trace *t, const cJSON *doc)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(doc, "process");
    rpl_process *proc = &t->processes.items[0];
    int64_t lo = INT64_MAX, hi = 0;

#define SPAN(arr)                                                                                  \
    for (uint32_t i = 0; i < (arr).count; i++) {                                                   \
        lo = (arr).items[i].start < lo ? (arr).items[i].start : lo;                                \
        hi = (arr).items[i].end > hi ? (arr).items[i].end : hi;                                    \
    }
    SPAN(t->dispatches)
    SPAN(t->memcpys)
    SPAN(t->regions)
#undef SPAN
    if (lo == INT64_MAX)
        return;
    if (!cJSON_HasObjectItem(p, "start"))
        proc->start = lo;
    if (!cJSON_HasObjectItem(p, "end"))
        proc->end = hi;
}

static int build(fx *f, const cJSON *doc, const char **guid)
{
    static const char *const keys[] = {"schema_version", "description", "guid",          "process",
                                       "agents",         "kernels",     "queues",        "streams",
                                       "regions",        "dispatches",  "memory_copies", NULL};
    const char *version = NULL;
    rpl_source src = {.schema_version = "3"};
    int rc;

    *guid = NULL;
    if ((rc = check_keys(doc, "description", keys)) ||
        (rc = get_str(doc, "schema_version", true, &version, "description")))
        return rc;
    if (strcmp(version, "1.0") != 0)
        return fail("description", "unsupported schema_version '%s' (expected \"1.0\")", version);
    if ((rc = get_str(doc, "guid", false, guid, "description")))
        return rc;
    if ((rc = rpl_trace_add_source(f->t, &src, NULL)) || (rc = parse_process(f, doc)) ||
        (rc = parse_agents(f, doc)) || (rc = parse_kernels(f, doc)) ||
        (rc = parse_lanes(f, doc, "queues", &f->nqueues)) ||
        (rc = parse_lanes(f, doc, "streams", &f->nstreams)))
        return rc;
    f->queue_end = malloc(((size_t)f->nqueues + 1) * sizeof(int64_t));
    if (!f->queue_end)
        return rpl_error_oom();
    for (uint32_t q = 0; q <= f->nqueues; q++)
        f->queue_end[q] = -1;
    f->copy_end = -1;
    f->next_dispatch_id = 1;
    if ((rc = parse_regions(f, doc)) || (rc = parse_dispatches(f, doc)) ||
        (rc = parse_copies(f, doc)))
        return rc;
    process_span(f->t, doc);
    return 0;
}

int rpl_fixture_build(rpl_trace **out, const char **guid, const cJSON *doc, const char *file)
{
    fx f = {0};
    int rc;

    *out = NULL;
    if ((rc = rpl_trace_new(&f.t)) != 0)
        return rc;
    rc = build(&f, doc, guid);
    free(f.agent_alias);
    free(f.kernel_alias);
    free(f.queue_end);
    if (rc) {
        rpl_error_prefix("%s", file);
        rpl_trace_free(f.t);
        return rc;
    }
    *out = f.t;
    return 0;
}
