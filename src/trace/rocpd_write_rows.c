/*
 * The rows of a rocpd database, table by table, parents first (see
 * rocpd_writer.c for the id scheme).
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "rocpd_batch.h"
#include "rocpd_writer_int.h"
#include "rpl/error.h"

typedef rpl_rocpd_batch batch;

/* Value shorthands: integer, text, NULL, and index + 1 of an optional link. */
static void vi(batch *b, int64_t v)
{
    rpl_rocpd_batch_int(b, v);
}

static void vt(batch *b, const char *s)
{
    rpl_rocpd_batch_text(b, s);
}

static void vn(batch *b)
{
    rpl_rocpd_batch_null(b);
}

static void vx(batch *b, uint32_t index)
{
    if (index == RPL_NONE)
        rpl_rocpd_batch_null(b);
    else
        rpl_rocpd_batch_int(b, (int64_t)index + 1);
}

static int open_batch(rpl_rocpd_writer *w, batch **b, const char *table, const char *columns)
{
    return rpl_rocpd_batch_open(b, w->db, table, w->suffix, columns);
}

/* Close the batch, keeping the first error (`rc` or the batch's). */
static int close_batch(batch *b, int rc)
{
    int rc2 = rpl_rocpd_batch_close(b);

    return rc ? rc : rc2;
}

/* The pid that agents, symbols and counters of a source belong to. */
static int64_t source_pid(const rpl_rocpd_writer *w, uint32_t source)
{
    for (uint32_t i = 0; i < w->t->processes.count; i++)
        if (w->t->processes.items[i].source == source)
            return w->t->processes.items[i].pid;
    return w->default_pid;
}

static const rpl_process *find_process(const rpl_trace *t, int64_t pid)
{
    for (uint32_t i = 0; i < t->processes.count; i++)
        if (t->processes.items[i].pid == pid)
            return &t->processes.items[i];
    return NULL;
}

/* ---- parents ------------------------------------------------------------ */

static int put_strings(rpl_rocpd_writer *w)
{
    batch *b;
    int rc = open_batch(w, &b, "rocpd_string", "id, string");

    for (uint32_t i = 0; i < w->nstrs && !rc; i++) {
        vi(b, (int64_t)i + 1);
        vt(b, w->strs[i]);
        rc = rpl_rocpd_batch_end_row(b);
    }
    return close_batch(b, rc);
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* This machine's id (/etc/machine-id), or "" when unreadable. */
static void read_machine_id(char *out, size_t size)
{
    FILE *f = fopen("/etc/machine-id", "r");

    out[0] = '\0';
    if (!f)
        return;
    if (fgets(out, (int)size, f))
        out[strcspn(out, "\r\n")] = '\0';
    fclose(f);
}

/*
 * One node.  Its hostname is the option, else the first process's, else
 * this host's; machine-id and uname facts are written only for this host
 * (elsewhere the hostname stands in for the machine id).
 */
static int put_node(rpl_rocpd_writer *w, int64_t *nid)
{
    char host[256] = "", machine[256] = "";
    const char *hostname = w->opts ? w->opts->hostname : NULL;
    struct utsname uts;
    bool local = false;
    batch *b;
    int rc;

    for (uint32_t i = 0; !hostname && i < w->t->processes.count; i++)
        if (w->t->processes.items[i].hostname && w->t->processes.items[i].hostname[0])
            hostname = w->t->processes.items[i].hostname;
    if (!hostname) {
        local = uname(&uts) == 0;
        if (gethostname(host, sizeof(host) - 1) != 0)
            host[0] = '\0';
        hostname = host;
        read_machine_id(machine, sizeof(machine));
    }
    if (!machine[0])
        snprintf(machine, sizeof(machine), "%s", hostname[0] ? hostname : "unknown");
    /* As rocprofv3: id = hash % INT64_MAX % UINT32_MAX. */
    *nid = (int64_t)(fnv1a(machine) % INT64_MAX % UINT32_MAX);
    if ((rc = open_batch(w, &b, "rocpd_info_node",
                         "id, hash, machine_id, hostname, system_name, release, version, "
                         "hardware_name")) != 0)
        return rc;
    vi(b, *nid);
    vi(b, (int64_t)(fnv1a(machine) % INT64_MAX));
    vt(b, machine);
    vt(b, hostname);
    if (local) {
        vt(b, uts.sysname);
        vt(b, uts.release);
        vt(b, uts.version);
        vt(b, uts.machine);
    } else {
        for (int k = 0; k < 4; k++)
            vn(b);
    }
    rc = rpl_rocpd_batch_end_row(b);
    return close_batch(b, rc);
}

/* One row per distinct pid (the first process record with it wins). */
static int put_processes(rpl_rocpd_writer *w, int64_t nid)
{
    batch *b;
    int rc = open_batch(w, &b, "rocpd_info_process",
                        "id, nid, ppid, pid, init, fini, start, \"end\", command");

    for (uint32_t i = 0; i < w->npids && !rc; i++) {
        const rpl_process *p = find_process(w->t, w->pids[i]);
        int64_t start = p ? p->start : 0, end = p ? p->end : 0;
        vi(b, w->pids[i]);
        vi(b, nid);
        vi(b, p ? p->ppid : 0);
        vi(b, w->pids[i]);
        vi(b, start);
        vi(b, end);
        vi(b, start);
        vi(b, end);
        vt(b, p ? p->command : "");
        rc = rpl_rocpd_batch_end_row(b);
    }
    return close_batch(b, rc);
}

static int put_threads(rpl_rocpd_writer *w, int64_t nid)
{
    batch *b;
    int rc = open_batch(w, &b, "rocpd_info_thread", "id, nid, ppid, pid, tid");

    for (uint32_t i = 0; i < w->nthreads && !rc; i++) {
        const rpl_process *p = find_process(w->t, w->threads[i].pid);
        vi(b, w->threads[i].tid);
        vi(b, nid);
        vi(b, p ? p->ppid : 0);
        vi(b, w->threads[i].pid);
        vi(b, w->threads[i].tid);
        rc = rpl_rocpd_batch_end_row(b);
    }
    return close_batch(b, rc);
}

static int put_agents(rpl_rocpd_writer *w, int64_t nid)
{
    batch *b;
    int rc = open_batch(w, &b, "rocpd_info_agent",
                        "id, nid, pid, type, absolute_index, logical_index, type_index, uuid, "
                        "name, model_name, vendor_name, product_name, user_name, extdata");

    for (uint32_t i = 0; i < w->t->agents.count && !rc; i++) {
        const rpl_agent *a = &w->t->agents.items[i];
        const cJSON *dev = cJSON_GetObjectItemCaseSensitive(a->extdata, "device_id");
        char *json = NULL;

        if (cJSON_IsObject(a->extdata) && !(json = cJSON_PrintUnformatted(a->extdata))) {
            rc = rpl_error_oom();
            break;
        }
        vi(b, (int64_t)i + 1);
        vi(b, nid);
        vi(b, source_pid(w, a->source));
        vt(b, a->type == RPL_AGENT_CPU ? "CPU" : "GPU");
        vi(b, a->absolute_index);
        vi(b, a->logical_index);
        vi(b, a->type_index);
        /* rocprofv3 keeps the PCI device id here. */
        if (cJSON_IsNumber(dev))
            vi(b, (int64_t)dev->valuedouble);
        else
            vn(b);
        vt(b, a->name);
        vt(b, a->model_name);
        vt(b, a->vendor_name);
        vt(b, a->product_name);
        vt(b, a->product_name);
        rpl_rocpd_batch_text_copy(b, json ? json : "{}");
        cJSON_free(json);
        rc = rpl_rocpd_batch_end_row(b);
    }
    return close_batch(b, rc);
}

/* Queues or streams, plus the default one (id 0) when `default_pid` >= 0. */
static int put_lanes(rpl_rocpd_writer *w, int64_t nid, const char *table, const rpl_queue *items,
                     uint32_t count, int64_t default_pid, const char *default_name)
{
    batch *b;
    int rc = open_batch(w, &b, table, "id, nid, pid, name");

    if (!rc && default_pid >= 0) {
        vi(b, 0);
        vi(b, nid);
        vi(b, default_pid);
        vt(b, default_name);
        rc = rpl_rocpd_batch_end_row(b);
    }
    for (uint32_t i = 0; i < count && !rc; i++) {
        vi(b, (int64_t)i + 1);
        vi(b, nid);
        vi(b, items[i].pid);
        vt(b, items[i].name);
        rc = rpl_rocpd_batch_end_row(b);
    }
    return close_batch(b, rc);
}

static int put_queues(rpl_rocpd_writer *w, int64_t nid)
{
    const rpl_trace *t = w->t;
    int64_t queue_pid = -1, stream_pid = -1;
    int rc;

    /* The default rows belong to the first dispatch that needs them. */
    for (uint32_t i = 0; i < t->dispatches.count; i++) {
        const rpl_dispatch *d = &t->dispatches.items[i];
        if (d->queue == RPL_NONE && queue_pid < 0)
            queue_pid = rpl_trace_pid(t, d->thread);
        if (d->stream == RPL_NONE && stream_pid < 0)
            stream_pid = rpl_trace_pid(t, d->thread);
    }
    rc = put_lanes(w, nid, "rocpd_info_queue", t->queues.items, t->queues.count, queue_pid,
                   "Default Queue");
    if (!rc)
        rc = put_lanes(w, nid, "rocpd_info_stream", t->streams.items, t->streams.count, stream_pid,
                       "Default Stream");
    return rc;
}

/* One rocpd_info_pmc row per counter name, on the agent of its first dispatch. */
static int put_pmc_info(rpl_rocpd_writer *w, int64_t nid)
{
    const rpl_trace *t = w->t;
    uint32_t *agent = malloc(((size_t)t->counter_names.count + 1) * sizeof(*agent));
    batch *b = NULL;
    int rc;

    if (!agent)
        return rpl_error_oom();
    for (uint32_t c = 0; c < t->counter_names.count; c++)
        agent[c] = RPL_NONE;
    for (uint32_t i = 0; i < t->dispatches.count; i++) {
        const rpl_dispatch *d = &t->dispatches.items[i];
        for (uint32_t k = 0; k < d->counters_count; k++) {
            uint32_t c = t->counter_values.items[d->counters_first + k].counter;
            if (agent[c] == RPL_NONE)
                agent[c] = d->agent;
        }
    }
    rc = open_batch(w, &b, "rocpd_info_pmc",
                    "id, nid, pid, agent_id, target_arch, name, symbol, description, component, "
                    "value_type, is_constant, is_derived");
    for (uint32_t c = 0; c < t->counter_names.count && !rc; c++) {
        const rpl_agent *a = agent[c] == RPL_NONE ? NULL : &t->agents.items[agent[c]];
        vi(b, (int64_t)c + 1);
        vi(b, nid);
        vi(b, a ? source_pid(w, a->source) : w->default_pid);
        vx(b, agent[c]);
        vt(b, a && a->type == RPL_AGENT_CPU ? "CPU" : "GPU");
        vt(b, t->counter_names.items[c]);
        vt(b, t->counter_names.items[c]);
        vt(b, "");
        vt(b, "rocm");
        vt(b, "ABS");
        vi(b, 0);
        vi(b, 0);
        rc = rpl_rocpd_batch_end_row(b);
    }
    free(agent);
    return close_batch(b, rc);
}

/* The first GPU agent of a source (index), else of the trace, else RPL_NONE. */
static uint32_t source_gpu(const rpl_trace *t, uint32_t source)
{
    uint32_t any = RPL_NONE;

    for (uint32_t i = 0; i < t->agents.count; i++) {
        if (t->agents.items[i].type != RPL_AGENT_GPU)
            continue;
        if (t->agents.items[i].source == source)
            return i;
        if (any == RPL_NONE)
            any = i;
    }
    return any;
}

/* One rocpd_info_code_object row per distinct code_object_id of the symbols. */
static int put_code_objects(rpl_rocpd_writer *w, int64_t nid)
{
    const rpl_trace *t = w->t;
    batch *b;
    int rc = open_batch(w, &b, "rocpd_info_code_object", "id, nid, pid, agent_id");

    for (uint32_t i = 0; i < t->symbols.count && !rc; i++) {
        const rpl_kernel_symbol *s = &t->symbols.items[i];
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = t->symbols.items[j].code_object_id == s->code_object_id;
        if (seen)
            continue;
        vi(b, s->code_object_id);
        vi(b, nid);
        vi(b, source_pid(w, s->source));
        vx(b, source_gpu(t, s->source));
        rc = rpl_rocpd_batch_end_row(b);
    }
    return close_batch(b, rc);
}

/* The extdata fields the kernel_symbols view reads. */
static char *symbol_extdata(const rpl_kernel_symbol *s, int64_t kernel_id)
{
    cJSON *o = cJSON_CreateObject();
    char *text = NULL;

    if (o && cJSON_AddNumberToObject(o, "kernel_id", (double)kernel_id) &&
        cJSON_AddNumberToObject(o, "code_object_id", (double)s->code_object_id) &&
        cJSON_AddStringToObject(o, "kernel_name", s->name ? s->name : "") &&
        cJSON_AddStringToObject(o, "formatted_kernel_name",
                                s->display_name ? s->display_name : "") &&
        cJSON_AddStringToObject(o, "demangled_kernel_name", s->display_name ? s->display_name : ""))
        text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

static int put_symbols(rpl_rocpd_writer *w, int64_t nid)
{
    batch *b;
    int rc = open_batch(w, &b, "rocpd_info_kernel_symbol",
                        "id, nid, pid, code_object_id, kernel_name, display_name, "
                        "kernarg_segment_size, group_segment_size, private_segment_size, "
                        "sgpr_count, arch_vgpr_count, accum_vgpr_count, extdata");

    for (uint32_t i = 0; i < w->t->symbols.count && !rc; i++) {
        const rpl_kernel_symbol *s = &w->t->symbols.items[i];
        char *json = symbol_extdata(s, (int64_t)i + 1);
        if (!json) {
            rc = rpl_error_oom();
            break;
        }
        vi(b, (int64_t)i + 1);
        vi(b, nid);
        vi(b, source_pid(w, s->source));
        vi(b, s->code_object_id);
        vt(b, s->name);
        vt(b, s->display_name);
        vi(b, s->kernarg_segment_size);
        vi(b, s->group_segment_size);
        vi(b, s->private_segment_size);
        vi(b, s->sgpr_count);
        vi(b, s->arch_vgpr_count);
        vi(b, s->accum_vgpr_count);
        rpl_rocpd_batch_text_copy(b, json);
        cJSON_free(json);
        rc = rpl_rocpd_batch_end_row(b);
    }
    return close_batch(b, rc);
}

/* ---- events and records ------------------------------------------------ */

/*
 * Events are numbered regions first, then dispatches, then copies, so each
 * record's event id follows from its index.
 */
static int64_t region_event(const rpl_rocpd_writer *w, uint32_t i)
{
    (void)w;
    return (int64_t)i + 1;
}

static int64_t dispatch_event(const rpl_rocpd_writer *w, uint32_t i)
{
    return (int64_t)w->t->regions.count + i + 1;
}

static int64_t copy_event(const rpl_rocpd_writer *w, uint32_t i)
{
    return (int64_t)w->t->regions.count + w->t->dispatches.count + i + 1;
}

/* stack_id carries the correlation id; correlation_id (external) is 0. */
static int event_row(batch *b, int64_t id, int64_t category, int64_t stack, int64_t parent)
{
    vi(b, id);
    vi(b, category);
    vi(b, stack);
    vi(b, parent);
    vi(b, 0);
    return rpl_rocpd_batch_end_row(b);
}

static int put_events(rpl_rocpd_writer *w)
{
    const rpl_trace *t = w->t;
    int64_t cat_dispatch = rpl_rocpd_writer_string_id(w, RPL_CAT_DISPATCH);
    int64_t cat_copy = rpl_rocpd_writer_string_id(w, RPL_CAT_COPY);
    batch *b;
    int rc = open_batch(w, &b, "rocpd_event",
                        "id, category_id, stack_id, parent_stack_id, correlation_id");

    for (uint32_t i = 0; i < t->regions.count && !rc; i++) {
        const rpl_region *r = &t->regions.items[i];
        rc = event_row(b, region_event(w, i), rpl_rocpd_writer_string_id(w, r->category),
                       r->correlation_id, r->parent_correlation_id);
    }
    for (uint32_t i = 0; i < t->dispatches.count && !rc; i++) {
        int64_t corr = t->dispatches.items[i].correlation_id;
        rc = event_row(b, dispatch_event(w, i), cat_dispatch, corr, corr);
    }
    for (uint32_t i = 0; i < t->memcpys.count && !rc; i++) {
        int64_t corr = t->memcpys.items[i].correlation_id;
        rc = event_row(b, copy_event(w, i), cat_copy, corr, corr);
    }
    return close_batch(b, rc);
}

/* The first columns of a region, dispatch or copy row: id, nid, pid, tid. */
static void event_columns(batch *b, const rpl_trace *t, uint32_t i, int64_t nid, uint32_t thread)
{
    vi(b, (int64_t)i + 1);
    vi(b, nid);
    vi(b, rpl_trace_pid(t, thread));
    vi(b, rpl_trace_tid(t, thread));
}

static int put_regions(rpl_rocpd_writer *w, int64_t nid)
{
    const rpl_trace *t = w->t;
    batch *b = NULL, *arg = NULL;
    int rc =
        open_batch(w, &b, "rocpd_region", "id, nid, pid, tid, start, \"end\", name_id, event_id");

    if (!rc)
        rc = open_batch(w, &arg, "rocpd_arg", "event_id, position, type, name, value");
    for (uint32_t i = 0; i < t->regions.count && !rc; i++) {
        const rpl_region *r = &t->regions.items[i];
        event_columns(b, t, i, nid, r->thread);
        vi(b, r->start);
        vi(b, r->end);
        vi(b, rpl_rocpd_writer_string_id(w, r->name));
        vi(b, region_event(w, i));
        rc = rpl_rocpd_batch_end_row(b);
        for (uint32_t k = 0; k < r->args_count && !rc; k++) {
            const rpl_arg *a = &t->args.items[r->args_first + k];
            vi(arg, region_event(w, i));
            vi(arg, k);
            vt(arg, a->type);
            vt(arg, a->name);
            vt(arg, a->value);
            rc = rpl_rocpd_batch_end_row(arg);
        }
    }
    rc = close_batch(b, rc);
    return close_batch(arg, rc);
}

static int put_dispatches(rpl_rocpd_writer *w, int64_t nid)
{
    const rpl_trace *t = w->t;
    int64_t empty = rpl_rocpd_writer_string_id(w, ""), pmc_id = 1;
    batch *b = NULL, *pmc = NULL;
    int rc = open_batch(w, &b, "rocpd_kernel_dispatch",
                        "id, nid, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, "
                        "stream_id, start, \"end\", private_segment_size, group_segment_size, "
                        "workgroup_size_x, workgroup_size_y, workgroup_size_z, grid_size_x, "
                        "grid_size_y, grid_size_z, region_name_id, event_id");

    if (!rc)
        rc = open_batch(w, &pmc, "rocpd_pmc_event", "id, event_id, pmc_id, value");
    for (uint32_t i = 0; i < t->dispatches.count && !rc; i++) {
        const rpl_dispatch *d = &t->dispatches.items[i];
        event_columns(b, t, i, nid, d->thread);
        vx(b, d->agent);
        vx(b, d->kernel);
        vi(b, d->dispatch_id);
        /* No queue or stream: the default rows, id 0. */
        vi(b, d->queue == RPL_NONE ? 0 : (int64_t)d->queue + 1);
        vi(b, d->stream == RPL_NONE ? 0 : (int64_t)d->stream + 1);
        vi(b, d->start);
        vi(b, d->end);
        vi(b, d->private_segment_size);
        vi(b, d->group_segment_size);
        for (int k = 0; k < 3; k++)
            vi(b, d->workgroup[k]);
        for (int k = 0; k < 3; k++)
            vi(b, d->grid[k]);
        vi(b, empty);
        vi(b, dispatch_event(w, i));
        rc = rpl_rocpd_batch_end_row(b);
        /* One row per (dispatch, counter): the views sum rows anyway. */
        for (uint32_t k = 0; k < d->counters_count && !rc; k++) {
            const rpl_counter_value *v = &t->counter_values.items[d->counters_first + k];
            vi(pmc, pmc_id++);
            vi(pmc, dispatch_event(w, i));
            vi(pmc, (int64_t)v->counter + 1);
            rpl_rocpd_batch_double(pmc, v->value);
            rc = rpl_rocpd_batch_end_row(pmc);
        }
    }
    rc = close_batch(b, rc);
    return close_batch(pmc, rc);
}

static int put_memcpys(rpl_rocpd_writer *w, int64_t nid)
{
    const rpl_trace *t = w->t;
    batch *b;
    int rc = open_batch(w, &b, "rocpd_memory_copy",
                        "id, nid, pid, tid, start, \"end\", name_id, dst_agent_id, src_agent_id, "
                        "size, queue_id, stream_id, event_id");

    for (uint32_t i = 0; i < t->memcpys.count && !rc; i++) {
        const rpl_memcpy *m = &t->memcpys.items[i];
        event_columns(b, t, i, nid, m->thread);
        vi(b, m->start);
        vi(b, m->end);
        vi(b, rpl_rocpd_writer_string_id(w, rpl_rocpd_copy_name(m)));
        vx(b, m->dst_agent);
        vx(b, m->src_agent);
        vi(b, m->size > INT64_MAX ? INT64_MAX : (int64_t)m->size);
        vx(b, m->queue);
        vx(b, m->stream);
        vi(b, copy_event(w, i));
        rc = rpl_rocpd_batch_end_row(b);
    }
    return close_batch(b, rc);
}

int rpl_rocpd_write_rows(rpl_rocpd_writer *w)
{
    int64_t nid = 0;
    int rc;

    if ((rc = put_strings(w)) || (rc = put_node(w, &nid)) || (rc = put_processes(w, nid)) ||
        (rc = put_threads(w, nid)) || (rc = put_agents(w, nid)) || (rc = put_queues(w, nid)) ||
        (rc = put_pmc_info(w, nid)) || (rc = put_code_objects(w, nid)) ||
        (rc = put_symbols(w, nid)) || (rc = put_events(w)) || (rc = put_regions(w, nid)) ||
        (rc = put_dispatches(w, nid)) || (rc = put_memcpys(w, nid)))
        return rc;
    return 0;
}
