/*
 * roofline.json (docs/schemas/roofline.schema.json): per kernel the FLOPs by
 * precision, the bytes per memory level, the ceilings used and where the
 * kernel sits; "roofline": null with a "reason" when it cannot be placed.
 */
#include <math.h>
#include <string.h>

#include "rpl/classify.h"
#include "rpl/error.h"

/* cJSON add helpers that remember an allocation failure. */
typedef struct doc {
    bool oom;
} doc;

static cJSON *chk(doc *d, cJSON *item)
{
    if (!item)
        d->oom = true;
    return item;
}

static void num(doc *d, cJSON *o, const char *key, double v)
{
    chk(d, isfinite(v) ? cJSON_AddNumberToObject(o, key, v) : cJSON_AddNullToObject(o, key));
}

/* v when known, else null. */
static void opt(doc *d, cJSON *o, const char *key, double v, bool known)
{
    if (known)
        num(d, o, key, v);
    else
        chk(d, cJSON_AddNullToObject(o, key));
}

static void str(doc *d, cJSON *o, const char *key, const char *s)
{
    chk(d, s ? cJSON_AddStringToObject(o, key, s) : cJSON_AddNullToObject(o, key));
}

int rpl_analysis_kernel_core_json(cJSON *o, const rpl_analysis_kernel *k)
{
    const rpl_roof_point *p = &k->point;
    bool counted = k->with_counters > 0, timed = counted && p->time_ns > 0;
    doc d = {false};

    str(&d, o, "kernel", k->name);
    num(&d, o, "time_ns", k->time_ns);
    opt(&d, o, "flops", p->flops, counted);
    opt(&d, o, "bytes", p->bytes, counted);
    opt(&d, o, "arithmetic_intensity", p->ai, counted && p->ai >= 0);
    opt(&d, o, "gflops", p->gflops, timed);
    opt(&d, o, "gbps", p->gbps, timed);
    str(&d, o, "bound", p->valid ? (p->compute_bound ? "compute" : "memory") : NULL);
    opt(&d, o, "roof_fraction", p->roof_fraction, p->valid);
    str(&d, o, "bottleneck", rpl_bottleneck_name(k->cls.bottleneck));
    num(&d, o, "confidence", k->cls.confidence);
    num(&d, o, "critical_path_fraction", k->critical_path_fraction);
    opt(&d, o, "headroom", k->headroom, k->headroom >= 0);
    opt(&d, o, "priority", k->priority, k->priority >= 0);
    return d.oom ? rpl_error_oom() : 0;
}

static cJSON *precisions(doc *d, const double *v)
{
    cJSON *o = chk(d, cJSON_CreateObject());

    for (int p = 0; o && p < RPL_PREC_COUNT; p++)
        num(d, o, rpl_prec_name(p), v[p]);
    return o;
}

static cJSON *ceilings(doc *d, const rpl_roof_ceilings *c)
{
    cJSON *o = chk(d, cJSON_CreateObject());

    if (!o)
        return NULL;
    str(d, o, "device", c->device);
    str(d, o, "source", c->source);
    num(d, o, "hbm_gbps", c->hbm_gbps);
    opt(d, o, "l2_gbps", c->l2_gbps, c->l2_gbps > 0);
    opt(d, o, "l1_gbps", c->l1_gbps, c->l1_gbps > 0);
    opt(d, o, "lds_gbps", c->lds_gbps, c->lds_gbps > 0);
    chk(d, cJSON_AddItemToObject(o, "valu_gflops", precisions(d, c->valu_gflops)) ? o : NULL);
    chk(d, cJSON_AddItemToObject(o, "matrix_gflops", precisions(d, c->matrix_gflops)) ? o : NULL);
    return o;
}

static cJSON *roofline_detail(doc *d, const rpl_analysis_kernel *k)
{
    const rpl_roof_point *p = &k->point;
    const rpl_roof_counts *c = &k->counts;
    cJSON *o = chk(d, cJSON_CreateObject()), *flops, *notes;

    if (!o)
        return NULL;
    flops = chk(d, cJSON_AddObjectToObject(o, "flops_by_precision"));
    if (flops) {
        cJSON_AddItemToObject(flops, "valu", precisions(d, c->valu_flops));
        cJSON_AddItemToObject(flops, "matrix", precisions(d, c->matrix_flops));
    }
    chk(d, cJSON_AddBoolToObject(o, "flops_are_proxy", c->flops_are_proxy));
    num(d, o, "hbm_read_bytes", c->hbm_read);
    num(d, o, "hbm_write_bytes", c->hbm_write);
    opt(d, o, "l2_bytes", c->l2_bytes, c->l2_bytes >= 0);
    opt(d, o, "l1_bytes", c->l1_bytes, c->l1_bytes >= 0);
    opt(d, o, "lds_bytes", c->lds_bytes, c->lds_bytes >= 0);
    num(d, o, "counted_time_ns", p->time_ns);
    num(d, o, "peak_gflops", p->peak_gflops);
    num(d, o, "peak_gbps", p->peak_gbps);
    opt(d, o, "ridge_point", p->ridge, p->ridge >= 0);
    num(d, o, "bandwidth_fraction", p->bw_fraction);
    num(d, o, "compute_fraction", p->compute_fraction);
    chk(d, cJSON_AddBoolToObject(o, "exceeds_roof", p->exceeds_roof));
    str(d, o, "ceilings_source", k->ceilings.source);
    chk(d, cJSON_AddNumberToObject(o, "clamps", c->clamps));
    notes = chk(d, cJSON_AddArrayToObject(o, "clamp_notes"));
    for (unsigned i = 0; notes && i < c->nnotes; i++) {
        cJSON *s = chk(d, cJSON_CreateString(c->notes[i]));
        if (s)
            cJSON_AddItemToArray(notes, s);
    }
    return o;
}

/* The first dispatches one by one: time, FLOPs and bytes (null without counters). */
static void per_dispatch(doc *d, cJSON *o, const rpl_analysis_kernel *k)
{
    cJSON *arr = chk(d, cJSON_AddArrayToObject(o, "per_dispatch"));

    chk(d, cJSON_AddBoolToObject(o, "per_dispatch_truncated", k->nper_dispatch < k->dispatches));
    for (uint32_t i = 0; arr && i < k->nper_dispatch; i++) {
        const rpl_dispatch_roof *r = &k->per_dispatch[i];
        cJSON *e = chk(d, cJSON_CreateObject());
        if (!e)
            return;
        num(d, e, "dispatch_id", (double)r->dispatch_id);
        num(d, e, "time_ns", r->time_ns);
        opt(d, e, "flops", r->flops, r->flops >= 0);
        opt(d, e, "hbm_read_bytes", r->hbm_read, r->hbm_read >= 0);
        opt(d, e, "hbm_write_bytes", r->hbm_write, r->hbm_write >= 0);
        num(d, e, "clamps", r->clamps);
        cJSON_AddItemToArray(arr, e);
    }
}

static cJSON *kernel_entry(doc *d, const rpl_analysis_kernel *k)
{
    cJSON *o = chk(d, cJSON_CreateObject());

    if (!o)
        return NULL;
    if (rpl_analysis_kernel_core_json(o, k))
        d->oom = true;
    str(d, o, "mangled", k->mangled);
    str(d, o, "arch", k->arch);
    str(d, o, "device", k->has_ceilings ? k->ceilings.device : NULL);
    chk(d, cJSON_AddNumberToObject(o, "dispatches", k->dispatches));
    chk(d, cJSON_AddNumberToObject(o, "dispatches_with_counters", k->with_counters));
    if (k->point.valid)
        chk(d, cJSON_AddItemToObject(o, "roofline", roofline_detail(d, k)) ? o : NULL);
    else
        chk(d, cJSON_AddNullToObject(o, "roofline"));
    str(d, o, "reason", k->point.valid ? NULL : k->point.reason);
    per_dispatch(d, o, k);
    return o;
}

int rpl_roofline_json(cJSON **out, const rpl_analysis *a)
{
    doc d = {false};
    cJSON *root = cJSON_CreateObject(), *kernels, *ceils;

    *out = NULL;
    if (!root)
        return rpl_error_oom();
    str(&d, root, "schema_version", RPL_ROOFLINE_SCHEMA_VERSION);
    str(&d, root, "units", "time ns, FLOP, bytes, GFLOP/s, GB/s, FLOP/byte");
    ceils = chk(&d, cJSON_AddArrayToObject(root, "ceilings"));
    /* Each distinct ceilings set once, in kernel order. */
    for (size_t i = 0; ceils && i < a->count; i++) {
        bool seen = !a->kernels[i].has_ceilings;
        for (size_t j = 0; j < i && !seen; j++)
            seen = a->kernels[j].has_ceilings &&
                   strcmp(a->kernels[j].ceilings.source, a->kernels[i].ceilings.source) == 0;
        if (!seen)
            cJSON_AddItemToArray(ceils, ceilings(&d, &a->kernels[i].ceilings));
    }
    kernels = chk(&d, cJSON_AddArrayToObject(root, "kernels"));
    for (size_t i = 0; kernels && i < a->count; i++)
        cJSON_AddItemToArray(kernels, kernel_entry(&d, &a->kernels[i]));
    if (d.oom) {
        cJSON_Delete(root);
        return rpl_error_oom();
    }
    *out = root;
    return 0;
}
