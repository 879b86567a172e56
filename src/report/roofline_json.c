/*
 * roofline.json (docs/schemas/roofline.schema.json): per kernel the FLOPs by
 * precision, the bytes per memory level, the ceilings used and where the
 * kernel sits; "roofline": null with a "reason" when it cannot be placed.
 */
#include <string.h>

#include "rpl/analysis_report.h"
#include "rpl/classify.h"
#include "rpl/json_doc.h"
#include "rpl/error.h"

int rpl_analysis_kernel_core_json(cJSON *o, const rpl_analysis_kernel *k)
{
    const rpl_roof_point *p = &k->point;
    bool counted = k->with_counters > 0, timed = counted && p->time_ns > 0;
    rpl_json_doc d = {false};

    rpl_json_doc_string(&d, o, "kernel", k->name);
    rpl_json_doc_number(&d, o, "time_ns", k->time_ns, true);
    rpl_json_doc_number(&d, o, "flops", p->flops, counted);
    rpl_json_doc_number(&d, o, "bytes", p->bytes, counted);
    rpl_json_doc_number(&d, o, "arithmetic_intensity", p->ai, counted && p->ai >= 0);
    rpl_json_doc_number(&d, o, "gflops", p->gflops, timed);
    rpl_json_doc_number(&d, o, "gbps", p->gbps, timed);
    rpl_json_doc_string(&d, o, "bound",
                        p->valid ? (p->compute_bound ? "compute" : "memory") : NULL);
    rpl_json_doc_number(&d, o, "roof_fraction", p->roof_fraction, p->valid);
    rpl_json_doc_string(&d, o, "bottleneck", rpl_bottleneck_name(k->cls.bottleneck));
    rpl_json_doc_number(&d, o, "confidence", k->cls.confidence, true);
    /* This and priority come from the DAG: see rpl_roofline_json_set_path. */
    rpl_json_doc_number(&d, o, "critical_path_fraction", k->critical_path_fraction, true);
    rpl_json_doc_number(&d, o, "headroom", k->headroom, k->headroom >= 0);
    rpl_json_doc_number(&d, o, "priority", k->priority, k->priority >= 0);
    return d.oom ? rpl_error_oom() : 0;
}

static cJSON *precisions(rpl_json_doc *d, const double *v)
{
    cJSON *o = rpl_json_doc_check(d, cJSON_CreateObject());

    for (int p = 0; o && p < RPL_PREC_COUNT; p++)
        rpl_json_doc_number(d, o, rpl_prec_name(p), v[p], true);
    return o;
}

static cJSON *ceilings(rpl_json_doc *d, const rpl_roof_ceilings *c)
{
    cJSON *o = rpl_json_doc_check(d, cJSON_CreateObject());

    if (!o)
        return NULL;
    rpl_json_doc_string(d, o, "device", c->device);
    rpl_json_doc_string(d, o, "source", c->source);
    rpl_json_doc_number(d, o, "hbm_gbps", c->hbm_gbps, true);
    rpl_json_doc_number(d, o, "l2_gbps", c->l2_gbps, c->l2_gbps > 0);
    rpl_json_doc_number(d, o, "l1_gbps", c->l1_gbps, c->l1_gbps > 0);
    rpl_json_doc_number(d, o, "lds_gbps", c->lds_gbps, c->lds_gbps > 0);
    rpl_json_doc_check(
        d, cJSON_AddItemToObject(o, "valu_gflops", precisions(d, c->valu_gflops)) ? o : NULL);
    rpl_json_doc_check(
        d, cJSON_AddItemToObject(o, "matrix_gflops", precisions(d, c->matrix_gflops)) ? o : NULL);
    return o;
}

static cJSON *roofline_detail(rpl_json_doc *d, const rpl_analysis_kernel *k)
{
    const rpl_roof_point *p = &k->point;
    const rpl_roof_counts *c = &k->counts;
    cJSON *o = rpl_json_doc_check(d, cJSON_CreateObject()), *flops, *notes;

    if (!o)
        return NULL;
    flops = rpl_json_doc_check(d, cJSON_AddObjectToObject(o, "flops_by_precision"));
    if (flops) {
        cJSON_AddItemToObject(flops, "valu", precisions(d, c->valu_flops));
        cJSON_AddItemToObject(flops, "matrix", precisions(d, c->matrix_flops));
    }
    rpl_json_doc_check(d, cJSON_AddBoolToObject(o, "flops_are_proxy", c->flops_are_proxy));
    rpl_json_doc_number(d, o, "hbm_read_bytes", c->hbm_read, true);
    rpl_json_doc_number(d, o, "hbm_write_bytes", c->hbm_write, true);
    rpl_json_doc_number(d, o, "l2_bytes", c->l2_bytes, c->l2_bytes >= 0);
    rpl_json_doc_number(d, o, "l1_bytes", c->l1_bytes, c->l1_bytes >= 0);
    rpl_json_doc_number(d, o, "lds_bytes", c->lds_bytes, c->lds_bytes >= 0);
    rpl_json_doc_number(d, o, "counted_time_ns", p->time_ns, true);
    rpl_json_doc_number(d, o, "peak_gflops", p->peak_gflops, true);
    rpl_json_doc_number(d, o, "peak_gbps", p->peak_gbps, true);
    rpl_json_doc_number(d, o, "ridge_point", p->ridge, p->ridge >= 0);
    rpl_json_doc_number(d, o, "bandwidth_fraction", p->bw_fraction, true);
    rpl_json_doc_number(d, o, "compute_fraction", p->compute_fraction, true);
    rpl_json_doc_check(d, cJSON_AddBoolToObject(o, "exceeds_roof", p->exceeds_roof));
    rpl_json_doc_string(d, o, "ceilings_source", k->ceilings.source);
    rpl_json_doc_check(d, cJSON_AddNumberToObject(o, "clamps", c->clamps));
    notes = rpl_json_doc_check(d, cJSON_AddArrayToObject(o, "clamp_notes"));
    for (unsigned i = 0; notes && i < c->nnotes; i++) {
        cJSON *s = rpl_json_doc_check(d, cJSON_CreateString(c->notes[i]));
        if (s)
            cJSON_AddItemToArray(notes, s);
    }
    return o;
}

/* Where per_dispatch's entries are printed: root, "kernels", a kernel, the list. */
#define PER_DISPATCH_DEPTH 5

/*
 * The first dispatches one by one: time, FLOPs and bytes (null without
 * counters).  Up to 1000 entries per kernel: written as the text cJSON
 * prints for them, one raw item per kernel, instead of seven nodes per
 * entry (on a million dispatches over 64 kernels most of the document's
 * memory and of the time to make and print it).
 */
static int per_dispatch_text(rpl_strbuf *sb, const rpl_analysis_kernel *k)
{
    static const char *const keys[] = {"dispatch_id",    "time_ns",         "flops",
                                       "hbm_read_bytes", "hbm_write_bytes", "clamps"};
    char indent[PER_DISPATCH_DEPTH + 1];
    int rc = rpl_strbuf_putc(sb, '[');

    memset(indent, '\t', PER_DISPATCH_DEPTH);
    indent[PER_DISPATCH_DEPTH] = '\0';
    for (uint32_t i = 0; !rc && i < k->nper_dispatch; i++) {
        const rpl_dispatch_roof *r = &k->per_dispatch[i];
        const double v[] = {(double)r->dispatch_id, r->time_ns, r->flops, r->hbm_read,
                            r->hbm_write,           r->clamps};
        const bool known[] = {true, true, r->flops >= 0, r->hbm_read >= 0, r->hbm_write >= 0, true};

        rc = rpl_strbuf_puts(sb, i ? ", {\n" : "{\n");
        for (int f = 0; !rc && f < 6; f++) {
            rc = rpl_strbuf_printf(sb, "%s\"%s\":\t", indent, keys[f]);
            if (!rc)
                rc = rpl_json_doc_number_text(sb, v[f], known[f]);
            if (!rc)
                rc = rpl_strbuf_puts(sb, f < 5 ? ",\n" : "\n");
        }
        if (!rc)
            rc = rpl_strbuf_printf(sb, "%.*s}", PER_DISPATCH_DEPTH - 1, indent);
    }
    return rc ? rc : rpl_strbuf_putc(sb, ']');
}

/* scratch: a buffer reused from kernel to kernel (fresh pages for each would cost more). */
static void per_dispatch(rpl_json_doc *d, cJSON *o, const rpl_analysis_kernel *k,
                         rpl_strbuf *scratch)
{
    rpl_strbuf_reset(scratch);
    if (per_dispatch_text(scratch, k) == 0)
        rpl_json_doc_check(d, cJSON_AddRawToObject(o, "per_dispatch", rpl_strbuf_cstr(scratch)));
    else
        d->oom = true;
    rpl_json_doc_check(
        d, cJSON_AddBoolToObject(o, "per_dispatch_truncated", k->nper_dispatch < k->dispatches));
}

static cJSON *kernel_entry(rpl_json_doc *d, const rpl_analysis_kernel *k, rpl_strbuf *scratch)
{
    cJSON *o = rpl_json_doc_check(d, cJSON_CreateObject());

    if (!o)
        return NULL;
    if (rpl_analysis_kernel_core_json(o, k))
        d->oom = true;
    rpl_json_doc_string(d, o, "mangled", k->mangled);
    rpl_json_doc_string(d, o, "arch", k->arch);
    rpl_json_doc_string(d, o, "device", k->has_ceilings ? k->ceilings.device : NULL);
    rpl_json_doc_check(d, cJSON_AddNumberToObject(o, "dispatches", k->dispatches));
    rpl_json_doc_check(d, cJSON_AddNumberToObject(o, "dispatches_with_counters", k->with_counters));
    if (k->point.valid)
        rpl_json_doc_check(d,
                           cJSON_AddItemToObject(o, "roofline", roofline_detail(d, k)) ? o : NULL);
    else
        rpl_json_doc_check(d, cJSON_AddNullToObject(o, "roofline"));
    rpl_json_doc_string(d, o, "reason", k->point.valid ? NULL : k->point.reason);
    per_dispatch(d, o, k, scratch);
    return o;
}

int rpl_roofline_json(cJSON **out, const rpl_analysis *a)
{
    rpl_json_doc d = {false};
    rpl_strbuf scratch = RPL_STRBUF_INIT;
    cJSON *root = rpl_json_doc_begin(&d, RPL_ROOFLINE_SCHEMA_VERSION, out), *kernels, *ceils;

    if (!root)
        return rpl_error_oom();
    rpl_json_doc_string(&d, root, "units", "time ns, FLOP, bytes, GFLOP/s, GB/s, FLOP/byte");
    ceils = rpl_json_doc_check(&d, cJSON_AddArrayToObject(root, "ceilings"));
    /* Each distinct ceilings set once, in kernel order. */
    for (size_t i = 0; ceils && i < a->count; i++) {
        bool seen = !a->kernels[i].has_ceilings;
        for (size_t j = 0; j < i && !seen; j++)
            seen = a->kernels[j].has_ceilings &&
                   strcmp(a->kernels[j].ceilings.source, a->kernels[i].ceilings.source) == 0;
        if (!seen)
            cJSON_AddItemToArray(ceils, ceilings(&d, &a->kernels[i].ceilings));
    }
    kernels = rpl_json_doc_check(&d, cJSON_AddArrayToObject(root, "kernels"));
    for (size_t i = 0; kernels && i < a->count; i++)
        cJSON_AddItemToArray(kernels, kernel_entry(&d, &a->kernels[i], &scratch));
    rpl_strbuf_release(&scratch);
    return rpl_json_doc_finish(&d, root, out);
}

int rpl_roofline_json_set_path(cJSON *doc, const rpl_analysis *a)
{
    const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(doc, "kernels");
    cJSON *o = kernels ? kernels->child : NULL;
    rpl_json_doc d = {false};

    /* The entries are in the order of a->kernels. */
    for (size_t i = 0; o && i < a->count; o = o->next, i++) {
        const rpl_analysis_kernel *k = &a->kernels[i];
        rpl_json_doc_set_number(&d, o, "critical_path_fraction", k->critical_path_fraction, true);
        rpl_json_doc_set_number(&d, o, "priority", k->priority, k->priority >= 0);
    }
    return d.oom ? rpl_error_oom() : 0;
}
