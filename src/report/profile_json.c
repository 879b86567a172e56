/* The profile.json document (docs/schemas/profile.schema.json). */
#include <string.h>

#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/json_doc.h"
#include "rpl/report.h"

/* Unknown facts (0 or "" in the trace model) are null. */
static void add_fact_int(rpl_json_doc *b, cJSON *obj, const char *key, double v)
{
    rpl_json_doc_check(b, v > 0 ? cJSON_AddNumberToObject(obj, key, v)
                                : cJSON_AddNullToObject(obj, key));
}

static void add_fact_str(rpl_json_doc *b, cJSON *obj, const char *key, const char *s)
{
    rpl_json_doc_check(b, s && s[0] ? cJSON_AddStringToObject(obj, key, s)
                                    : cJSON_AddNullToObject(obj, key));
}

static cJSON *agent_json(rpl_json_doc *b, const rpl_agent *a)
{
    cJSON *o = rpl_json_doc_check(b, cJSON_CreateObject());

    if (!o)
        return NULL;
    rpl_json_doc_add_string(b, o, "name", a->name);
    add_fact_str(b, o, "product", a->product_name);
    add_fact_str(b, o, "model", a->model_name);
    add_fact_str(b, o, "vendor", a->vendor_name);
    rpl_json_doc_add_int64(b, o, "absolute_index", a->absolute_index);
    add_fact_int(b, o, "cu_count", a->cu_count);
    add_fact_int(b, o, "simd_per_cu", a->simd_per_cu);
    add_fact_int(b, o, "wavefront_size", a->wave_front_size);
    add_fact_int(b, o, "max_waves_per_cu", a->max_waves_per_cu);
    add_fact_int(b, o, "max_engine_clock_mhz", a->max_engine_clk_mhz);
    add_fact_int(b, o, "gfx_target_version", a->gfx_target_version);
    return o;
}

static void add_strings(rpl_json_doc *b, cJSON *obj, const char *key, const char *const *s,
                        size_t n)
{
    cJSON *arr = rpl_json_doc_check(b, cJSON_AddArrayToObject(obj, key));

    for (size_t i = 0; arr && i < n; i++)
        rpl_json_doc_push(b, arr, cJSON_CreateString(s[i]));
}

static void add_devices(rpl_json_doc *b, cJSON *doc, const rpl_profile *p)
{
    const rpl_agent *primary = rpl_profile_primary_agent(p);
    cJSON *device = primary ? agent_json(b, primary) : cJSON_CreateNull();
    cJSON *agents;

    if (!device || !cJSON_AddItemToObject(doc, "device", device)) {
        cJSON_Delete(device);
        b->oom = true;
    }
    agents = rpl_json_doc_check(b, cJSON_AddArrayToObject(doc, "agents"));
    for (uint32_t i = 0; agents && i < p->ndevices; i++) {
        cJSON *a = rpl_json_doc_push(b, agents,
                                     agent_json(b, &p->trace->agents.items[p->devices[i].agent]));
        if (!a)
            continue;
        rpl_json_doc_add_int64(b, a, "dispatches", (int64_t)p->devices[i].dispatches);
        rpl_json_doc_add_int64(b, a, "selected_time_ns", p->devices[i].selected_time_ns);
    }
}

static void add_totals(rpl_json_doc *b, cJSON *doc, const rpl_profile_totals *t)
{
    cJSON *o = rpl_json_doc_check(b, cJSON_AddObjectToObject(doc, "totals"));
    cJSON *span;

    if (!o)
        return;
    rpl_json_doc_add_int64(b, o, "dispatches", (int64_t)t->dispatches);
    rpl_json_doc_add_int64(b, o, "selected_dispatches", (int64_t)t->selected_dispatches);
    rpl_json_doc_add_int64(b, o, "helper_dispatches", (int64_t)t->helper_dispatches);
    rpl_json_doc_add_int64(b, o, "kernels", t->kernels);
    rpl_json_doc_add_int64(b, o, "selected_kernels", t->selected_kernels);
    rpl_json_doc_add_int64(b, o, "helper_kernels", t->helper_kernels);
    rpl_json_doc_add_int64(b, o, "kernel_time_ns", t->kernel_time_ns);
    rpl_json_doc_add_int64(b, o, "selected_time_ns", t->selected_time_ns);
    rpl_json_doc_add_int64(b, o, "helper_time_ns", t->helper_time_ns);
    rpl_json_doc_add_int64(b, o, "busy_ns", t->busy_ns);
    rpl_json_doc_add_int64(b, o, "selected_busy_ns", t->selected_busy_ns);
    span = rpl_json_doc_check(b, cJSON_AddObjectToObject(o, "span"));
    if (!span)
        return;
    rpl_json_doc_add_int64(b, span, "start_ns", t->span_start_ns);
    rpl_json_doc_add_int64(b, span, "end_ns", t->span_end_ns);
    rpl_json_doc_add_int64(b, span, "duration_ns", t->span_end_ns - t->span_start_ns);
}

static cJSON *kernel_json(rpl_json_doc *b, const rpl_profile *p, const rpl_kernel_summary *k)
{
    const rpl_kernel_symbol *sym = &p->trace->symbols.items[k->symbol];
    cJSON *o = rpl_json_doc_check(b, cJSON_CreateObject());
    cJSON *res;

    if (!o)
        return NULL;
    rpl_json_doc_add_string(b, o, "name", k->name);
    rpl_json_doc_add_string(b, o, "mangled_name", k->mangled_name);
    rpl_json_doc_add_int64(b, o, "dispatches", (int64_t)k->stats.count);
    rpl_json_doc_add_int64(b, o, "total_ns", k->total_ns);
    rpl_json_doc_add_number(b, o, "mean_ns", k->stats.mean);
    rpl_json_doc_add_number(b, o, "median_ns", k->stats.median);
    rpl_json_doc_add_number(b, o, "min_ns", k->stats.min);
    rpl_json_doc_add_number(b, o, "max_ns", k->stats.max);
    rpl_json_doc_add_number(b, o, "p10_ns", k->stats.p10);
    rpl_json_doc_add_number(b, o, "p90_ns", k->stats.p90);
    rpl_json_doc_add_number(b, o, "stddev_ns", k->stats.stddev);
    rpl_json_doc_add_number(b, o, "cv", k->stats.cv);
    rpl_json_doc_add_string(b, o, "stability", rpl_stability_name(k->stats.stability));
    rpl_json_doc_add_number(b, o, "share", k->share);
    rpl_json_doc_check(b, cJSON_AddBoolToObject(o, "helper", k->helper));
    res = rpl_json_doc_check(b, cJSON_AddObjectToObject(o, "resources"));
    if (res) {
        rpl_json_doc_add_int64(b, res, "vgpr", sym->arch_vgpr_count);
        rpl_json_doc_add_int64(b, res, "agpr", sym->accum_vgpr_count);
        rpl_json_doc_add_int64(b, res, "sgpr", sym->sgpr_count);
        rpl_json_doc_add_int64(b, res, "lds_bytes", sym->group_segment_size);
        rpl_json_doc_add_int64(b, res, "scratch_bytes", sym->private_segment_size);
    }
    return o;
}

static void add_kernels(rpl_json_doc *b, cJSON *doc, const rpl_profile *p)
{
    cJSON *arr = rpl_json_doc_check(b, cJSON_AddArrayToObject(doc, "kernels"));

    for (uint32_t i = 0; arr && i < p->nkernels; i++)
        rpl_json_doc_push(b, arr, kernel_json(b, p, &p->kernels[i]));
}

static void add_copy_totals(rpl_json_doc *b, cJSON *o, const rpl_copy_totals *c)
{
    rpl_json_doc_add_int64(b, o, "count", (int64_t)c->count);
    rpl_json_doc_add_int64(b, o, "bytes", (int64_t)c->bytes);
    rpl_json_doc_add_int64(b, o, "total_ns", c->time_ns);
}

/* Kind names without the "MEMORY_COPY_" prefix of rocpd. */
static const char *copy_kind_label(rpl_copy_kind kind)
{
    static const char prefix[] = "MEMORY_COPY_";
    const char *name = rpl_copy_kind_name(kind);

    return strncmp(name, prefix, sizeof(prefix) - 1) == 0 ? name + sizeof(prefix) - 1 : name;
}

static void add_copies(rpl_json_doc *b, cJSON *doc, const rpl_profile_totals *t)
{
    cJSON *o = rpl_json_doc_check(b, cJSON_AddObjectToObject(doc, "memory_copies"));
    cJSON *kinds;

    if (!o)
        return;
    add_copy_totals(b, o, &t->copies);
    kinds = rpl_json_doc_check(b, cJSON_AddArrayToObject(o, "by_kind"));
    for (int k = 0; kinds && k <= RPL_COPY_DEVICE_TO_DEVICE; k++) {
        cJSON *e;
        if (t->copies_by_kind[k].count == 0)
            continue;
        e = rpl_json_doc_push_object(b, kinds);
        if (!e)
            continue;
        rpl_json_doc_add_string(b, e, "kind", copy_kind_label((rpl_copy_kind)k));
        add_copy_totals(b, e, &t->copies_by_kind[k]);
    }
}

static void add_filter(rpl_json_doc *b, cJSON *doc, const rpl_profile *p)
{
    cJSON *o = rpl_json_doc_check(b, cJSON_AddObjectToObject(doc, "filter"));

    if (!o)
        return;
    add_fact_str(b, o, "kernel_regex", p->kernel_regex);
    rpl_json_doc_add_string(b, o, "helper_regex", p->helper_regex ? p->helper_regex : "");
    rpl_json_doc_check(b, cJSON_AddBoolToObject(o, "include_helpers", p->include_helpers));
}

static void add_counter_sample(rpl_json_doc *b, cJSON *doc, const rpl_counter_sample *s)
{
    cJSON *o = rpl_json_doc_check(b, cJSON_AddObjectToObject(doc, "counter_sample"));

    if (!o)
        return;
    rpl_json_doc_add_int64(b, o, "skip", s->skip);
    if (s->per_kernel == UINT32_MAX)
        rpl_json_doc_add_string(b, o, "dispatches_per_kernel", "all");
    else
        rpl_json_doc_add_int64(b, o, "dispatches_per_kernel", s->per_kernel);
    rpl_json_doc_add_int64(b, o, "dispatches_measured", (int64_t)s->measured);
    rpl_json_doc_add_int64(b, o, "dispatches", (int64_t)s->dispatches);
    rpl_json_doc_check(b, cJSON_AddBoolToObject(o, "stopped_early", s->stopped_early));
}

int rpl_profile_json(cJSON **out, const rpl_profile *p, const rpl_report_inputs *in)
{
    rpl_json_doc b = {false};
    cJSON *doc = rpl_json_doc_begin(&b, RPL_PROFILE_SCHEMA_VERSION, out);

    if (!doc)
        return rpl_error_oom();
    rpl_json_doc_add_tool(&b, doc);
    add_strings(&b, doc, "inputs", in->traces, in->ntraces);
    add_strings(&b, doc, "counter_passes", in->counter_passes, in->ncounter_passes);
    add_devices(&b, doc, p);
    add_totals(&b, doc, &p->totals);
    add_kernels(&b, doc, p);
    add_copies(&b, doc, &p->totals);
    add_filter(&b, doc, p);
    if (in->counter_sample)
        add_counter_sample(&b, doc, in->counter_sample);
    return rpl_json_doc_finish(&b, doc, out);
}
