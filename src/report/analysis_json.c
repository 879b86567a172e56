/*
 * analysis.json (docs/schemas/analysis.schema.json): per kernel the
 * bottleneck with its confidence and evidence, the facts the classifier
 * used, ATT features, headroom and priority; and the kernels in priority
 * order (headroom x critical-path fraction).
 */
#include <stdlib.h>
#include <string.h>

#include "rpl/analysis_report.h"
#include "rpl/classify.h"
#include "rpl/json_doc.h"
#include "rpl/error.h"

static cJSON *att_json(rpl_json_doc *d, const rpl_att_features *f)
{
    cJSON *o = rpl_json_doc_check(d, cJSON_CreateObject()), *mix, *hot;

    if (!o)
        return NULL;
    mix = rpl_json_doc_check(d, cJSON_AddObjectToObject(o, "instruction_mix"));
    for (int c = 0; mix && c < RPL_ISA_CLASSES; c++)
        rpl_json_doc_number(d, mix, rpl_isa_class_name(c), f->mix[c], true);
    rpl_json_doc_number(d, o, "instructions", f->total_hits, true);
    rpl_json_doc_number(d, o, "exec_mask_fraction",
                        f->total_hits > 0 ? f->exec_hits / f->total_hits : 0, true);
    rpl_json_doc_number(d, o, "stall_fraction", f->stall_fraction, true);
    rpl_json_doc_number(d, o, "idle_fraction", f->idle_fraction, true);
    rpl_json_doc_number(d, o, "ipc", f->ipc, true);
    rpl_json_doc_number(d, o, "mem_latency_cycles", f->mem_latency_cycles,
                        f->mem_latency_cycles > 0);
    hot = rpl_json_doc_check(d, cJSON_AddArrayToObject(o, "hottest"));
    for (size_t i = 0; hot && i < f->nhot; i++) {
        cJSON *h = rpl_json_doc_check(d, cJSON_CreateObject());
        if (!h)
            break;
        rpl_json_doc_string(d, h, "isa", f->hot[i].isa);
        rpl_json_doc_string(d, h, "source", f->hot[i].source);
        rpl_json_doc_number(d, h, "hits", f->hot[i].hits, true);
        rpl_json_doc_number(d, h, "latency_cycles", f->hot[i].latency, true);
        rpl_json_doc_number(d, h, "stall_cycles", f->hot[i].stall, true);
        rpl_json_doc_number(d, h, "latency_fraction",
                            f->latency > 0 ? f->hot[i].latency / f->latency : 0, true);
        cJSON_AddItemToArray(hot, h);
    }
    return o;
}

static cJSON *kernel_entry(rpl_json_doc *d, const rpl_analysis_kernel *k)
{
    const rpl_cls_input *in = &k->cls_in;
    cJSON *o = rpl_json_doc_check(d, cJSON_CreateObject()), *ev, *facts, *scores;

    if (!o)
        return NULL;
    if (rpl_analysis_kernel_core_json(o, k))
        d->oom = true;
    ev = rpl_json_doc_check(d, cJSON_AddArrayToObject(o, "evidence"));
    for (size_t i = 0; ev && i < k->cls.nevidence; i++) {
        cJSON *s = rpl_json_doc_check(d, cJSON_CreateString(k->cls.evidence[i]));
        if (s)
            cJSON_AddItemToArray(ev, s);
    }
    scores = rpl_json_doc_check(d, cJSON_AddObjectToObject(o, "scores"));
    for (int b = 1; scores && b < RPL_BN_COUNT; b++)
        rpl_json_doc_number(d, scores, rpl_bottleneck_name(b), k->cls.scores[b], true);
    facts = rpl_json_doc_check(d, cJSON_AddObjectToObject(o, "facts"));
    if (facts) {
        rpl_json_doc_number(d, facts, "dispatches", in->dispatches, true);
        rpl_json_doc_number(d, facts, "mean_duration_ns", in->mean_duration_ns, true);
        rpl_json_doc_number(d, facts, "mean_gap_ns", in->mean_gap_ns, in->mean_gap_ns >= 0);
        rpl_json_doc_number(d, facts, "workgroups", in->workgroups, true);
        rpl_json_doc_number(d, facts, "waves_per_workgroup", in->waves_per_group, true);
        rpl_json_doc_number(d, facts, "cu_count", in->cu_count, in->cu_count > 0);
        rpl_json_doc_number(d, facts, "max_waves_per_cu", in->max_waves_per_cu,
                            in->max_waves_per_cu > 0);
        rpl_json_doc_number(d, facts, "occupancy", in->occupancy, in->occupancy >= 0);
        rpl_json_doc_number(d, facts, "path_ns", k->path_ns, true);
    }
    if (k->has_att)
        cJSON_AddItemToObject(o, "att", att_json(d, &k->att));
    else
        rpl_json_doc_check(d, cJSON_AddNullToObject(o, "att"));
    return o;
}

static int cmp_priority(const void *a, const void *b)
{
    const rpl_analysis_kernel *x = *(const rpl_analysis_kernel *const *)a;
    const rpl_analysis_kernel *y = *(const rpl_analysis_kernel *const *)b;

    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void priorities(rpl_json_doc *d, cJSON *root, const rpl_analysis *a)
{
    const rpl_analysis_kernel **order = malloc((a->count + 1) * sizeof(*order));
    cJSON *arr = rpl_json_doc_check(d, cJSON_AddArrayToObject(root, "priorities"));
    size_t n = 0;

    if (!order) {
        d->oom = true;
        return;
    }
    for (size_t i = 0; i < a->count; i++)
        if (a->kernels[i].priority > 0)
            order[n++] = &a->kernels[i];
    qsort(order, n, sizeof(*order), cmp_priority);
    for (size_t i = 0; arr && i < n; i++) {
        cJSON *o = rpl_json_doc_check(d, cJSON_CreateObject());
        if (!o)
            break;
        rpl_json_doc_check(d, cJSON_AddStringToObject(o, "kernel", order[i]->name));
        rpl_json_doc_number(d, o, "priority", order[i]->priority, true);
        rpl_json_doc_number(d, o, "headroom", order[i]->headroom, true);
        rpl_json_doc_number(d, o, "critical_path_fraction", order[i]->critical_path_fraction, true);
        rpl_json_doc_check(d, cJSON_AddStringToObject(
                                  o, "bottleneck", rpl_bottleneck_name(order[i]->cls.bottleneck)));
        cJSON_AddItemToArray(arr, o);
    }
    free(order);
}

int rpl_analysis_json(cJSON **out, const rpl_analysis *a)
{
    rpl_json_doc d = {false};
    cJSON *root = rpl_json_doc_begin(&d, RPL_ROOFLINE_SCHEMA_VERSION, out), *kernels, *att;

    if (!root)
        return rpl_error_oom();
    rpl_json_doc_number(&d, root, "critical_path_ns", (double)a->critical_path_ns, true);
    if (a->att_dir) {
        att = rpl_json_doc_check(&d, cJSON_AddObjectToObject(root, "att"));
        if (att) {
            rpl_json_doc_check(&d, cJSON_AddStringToObject(att, "dir", a->att_dir));
            rpl_json_doc_number(&d, att, "folders", (double)a->att_folders, true);
            rpl_json_doc_number(&d, att, "unmatched", (double)a->att_unmatched, true);
            rpl_json_doc_number(&d, att, "skipped", a->att_warnings, true);
        }
    } else {
        rpl_json_doc_check(&d, cJSON_AddNullToObject(root, "att"));
    }
    kernels = rpl_json_doc_check(&d, cJSON_AddArrayToObject(root, "kernels"));
    for (size_t i = 0; kernels && i < a->count; i++)
        cJSON_AddItemToArray(kernels, kernel_entry(&d, &a->kernels[i]));
    priorities(&d, root, a);
    return rpl_json_doc_finish(&d, root, out);
}
