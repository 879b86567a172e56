/*
 * Ceilings (product table or an empirical ceilings file) and the place of a
 * kernel under them.  The compute roof of a precision mix is the one that
 * gives the same time as running each precision at its own peak:
 * t_compute = sum_p flops_p / peak_p; t_memory = bytes / peak_bw.  The time
 * at the roof is max(t_compute, t_memory); roof fraction = that / measured.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/roofline.h"

#define CEILINGS_MAX (1u << 20)

void rpl_roof_ceilings_from_product(rpl_roof_ceilings *out, const rpl_product *p)
{
    memset(out, 0, sizeof(*out));
    snprintf(out->device, sizeof(out->device), "%s", p->name);
    snprintf(out->source, sizeof(out->source), "product table: %s", p->name);
    out->hbm_gbps = p->hbm_tbs * 1e3;
    out->valu_gflops[RPL_PREC_FP64] = p->vector_fp64_tflops * 1e3;
    out->valu_gflops[RPL_PREC_FP32] = p->vector_fp32_tflops * 1e3;
    /* Non-packed FP16 VALU ops issue at the FP32 rate as profilers count them [I]. */
    out->valu_gflops[RPL_PREC_FP16] = p->vector_fp32_tflops * 1e3;
    out->matrix_gflops[RPL_PREC_FP64] = p->matrix_fp64_tflops * 1e3;
    out->matrix_gflops[RPL_PREC_FP32] =
        (p->matrix_fp32_tflops > 0 ? p->matrix_fp32_tflops : p->matrix_tf32_tflops) * 1e3;
    out->matrix_gflops[RPL_PREC_FP16] = p->matrix_fp16_tflops * 1e3;
    out->matrix_gflops[RPL_PREC_BF16] = p->matrix_bf16_tflops * 1e3;
    out->matrix_gflops[RPL_PREC_FP8] = p->matrix_fp8_tflops * 1e3;
}

static int get_rate(const cJSON *obj, const char *key, double *out, const char *path)
{
    int rc = rpl_json_get_number(obj, key, out);

    if (rc == RPL_ENOTFOUND)
        return 0;
    if (rc == 0 && *out < 0)
        rc = RPL_EINPUT;
    if (rc)
        return rpl_error_set(RPL_EINPUT, "ceilings file '%s': '%s' must be a number >= 0", path,
                             key);
    return 0;
}

static int get_precisions(const cJSON *doc, const char *key, double *out, const char *path)
{
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(doc, key), *item;
    int rc = 0;

    if (!obj)
        return 0;
    if (!cJSON_IsObject(obj))
        return rpl_error_set(RPL_EINPUT, "ceilings file '%s': '%s' must be an object", path, key);
    cJSON_ArrayForEach(item, obj)
    {
        int p;
        for (p = 0; p < RPL_PREC_COUNT && strcmp(item->string, rpl_prec_name(p)) != 0; p++)
            ;
        if (p == RPL_PREC_COUNT)
            return rpl_error_set(RPL_EINPUT, "ceilings file '%s': unknown precision '%s' in '%s'",
                                 path, item->string, key);
        rc = get_rate(obj, item->string, &out[p], path);
        if (rc)
            return rc;
    }
    return 0;
}

int rpl_roof_ceilings_load(rpl_roof_ceilings *out, const char *path)
{
    static const char *const known[] = {"schema_version", "device",       "hbm_gbps",
                                        "l2_gbps",        "l1_gbps",      "lds_gbps",
                                        "valu_gflops",    "matrix_gflops"};
    cJSON *doc = NULL;
    const cJSON *item;
    const char *s;
    int rc;

    memset(out, 0, sizeof(*out));
    rc = rpl_json_parse_file(&doc, path, CEILINGS_MAX);
    if (rc)
        return rc;
    if (!cJSON_IsObject(doc)) {
        rc = rpl_error_set(RPL_EINPUT, "ceilings file '%s' is not a JSON object", path);
        goto done;
    }
    cJSON_ArrayForEach(item, doc)
    {
        size_t i;
        for (i = 0; i < sizeof(known) / sizeof(known[0]) && strcmp(known[i], item->string); i++)
            ;
        if (i == sizeof(known) / sizeof(known[0])) {
            rc = rpl_error_set(RPL_EINPUT, "ceilings file '%s': unknown key '%s'", path,
                               item->string);
            goto done;
        }
    }
    if (rpl_json_get_string(doc, "schema_version", &s) != 0 || strcmp(s, "1.0") != 0) {
        rc =
            rpl_error_set(RPL_EINPUT, "ceilings file '%s' needs \"schema_version\": \"1.0\"", path);
        goto done;
    }
    rc = get_rate(doc, "hbm_gbps", &out->hbm_gbps, path);
    if (!rc)
        rc = get_rate(doc, "l2_gbps", &out->l2_gbps, path);
    if (!rc)
        rc = get_rate(doc, "l1_gbps", &out->l1_gbps, path);
    if (!rc)
        rc = get_rate(doc, "lds_gbps", &out->lds_gbps, path);
    if (!rc)
        rc = get_precisions(doc, "valu_gflops", out->valu_gflops, path);
    if (!rc)
        rc = get_precisions(doc, "matrix_gflops", out->matrix_gflops, path);
    if (!rc && out->hbm_gbps <= 0)
        rc = rpl_error_set(RPL_EINPUT, "ceilings file '%s' needs \"hbm_gbps\" > 0", path);
    if (!rc) {
        snprintf(out->device, sizeof(out->device), "%s",
                 rpl_json_get_string(doc, "device", &s) == 0 ? s : "");
        snprintf(out->source, sizeof(out->source), "ceilings file: %s", path);
    }
done:
    cJSON_Delete(doc);
    return rc;
}

/* Time at the compute roof in ns; < 0 when a used precision has no ceiling. */
static double compute_time(const rpl_roof_counts *c, const rpl_roof_ceilings *ceil,
                           const char **reason)
{
    static const char *const no_valu[RPL_PREC_COUNT] = {
        "no VALU fp16 ceiling for this device", "no VALU bf16 ceiling for this device",
        "no VALU fp32 ceiling for this device", "no VALU fp64 ceiling for this device",
        "no VALU fp8 ceiling for this device"};
    static const char *const no_matrix[RPL_PREC_COUNT] = {
        "no matrix fp16 ceiling for this device", "no matrix bf16 ceiling for this device",
        "no matrix fp32 ceiling for this device", "no matrix fp64 ceiling for this device",
        "no matrix fp8 ceiling for this device"};
    double t = 0;

    for (int p = 0; p < RPL_PREC_COUNT; p++) {
        if (c->valu_flops[p] > 0) {
            if (ceil->valu_gflops[p] <= 0) {
                *reason = no_valu[p];
                return -1;
            }
            t += c->valu_flops[p] / ceil->valu_gflops[p];
        }
        if (c->matrix_flops[p] > 0) {
            if (ceil->matrix_gflops[p] <= 0) {
                *reason = no_matrix[p];
                return -1;
            }
            t += c->matrix_flops[p] / ceil->matrix_gflops[p];
        }
    }
    return t;
}

void rpl_roof_point_compute(rpl_roof_point *out, const rpl_roof_counts *c, double time_ns,
                            const rpl_roof_ceilings *ceil)
{
    double t_c, t_m, t_roof;

    memset(out, 0, sizeof(*out));
    out->ai = out->ridge = -1;
    out->time_ns = time_ns;
    out->flops = c->flops;
    out->bytes = c->hbm_read + c->hbm_write;
    if (!c->has_flops || !c->has_bytes) {
        out->reason = "counters missing";
        return;
    }
    if (out->bytes > 0)
        out->ai = out->flops / out->bytes;
    if (time_ns <= 0) {
        out->reason = "zero kernel duration (timestamps missing or truncated)";
        return;
    }
    out->gflops = out->flops / time_ns; /* FLOP/ns = GFLOP/s */
    out->gbps = out->bytes / time_ns;
    if (!ceil || ceil->hbm_gbps <= 0) {
        out->reason = "no memory-bandwidth ceiling for this device";
        return;
    }
    t_c = compute_time(c, ceil, &out->reason);
    if (t_c < 0)
        return;
    t_m = out->bytes / ceil->hbm_gbps;
    out->peak_gbps = ceil->hbm_gbps;
    out->peak_gflops = t_c > 0 ? out->flops / t_c : ceil->valu_gflops[RPL_PREC_FP32];
    if (out->peak_gflops > 0)
        out->ridge = out->peak_gflops / out->peak_gbps;
    out->compute_bound = t_c > t_m;
    t_roof = t_c > t_m ? t_c : t_m;
    out->roof_fraction = t_roof / time_ns;
    if (out->roof_fraction > 1.0) {
        out->exceeds_roof = true;
        out->roof_fraction = 1.0;
    }
    out->bw_fraction = out->gbps / out->peak_gbps;
    out->compute_fraction = out->peak_gflops > 0 ? out->gflops / out->peak_gflops : 0;
    out->valid = true;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(((const struct rpl_roof_name *)a)->name, ((const struct rpl_roof_name *)b)->name);
}

int rpl_roof_names_init(rpl_roof_names *out, const rpl_trace *trace)
{
    uint32_t n = trace->counter_names.count;

    out->count = 0;
    out->items = malloc(((size_t)n + 1) * sizeof(*out->items));
    if (!out->items)
        return rpl_error_oom();
    for (uint32_t i = 0; i < n; i++)
        out->items[i] = (struct rpl_roof_name){trace->counter_names.items[i], i};
    qsort(out->items, n, sizeof(*out->items), cmp_name);
    out->count = n;
    return 0;
}

void rpl_roof_names_release(rpl_roof_names *names)
{
    free(names->items);
    names->items = NULL;
    names->count = 0;
}

bool rpl_roof_trace_counter(void *ctx, const char *name, double *value)
{
    const rpl_roof_dispatch_ctx *c = ctx;
    const rpl_trace *t = c->trace;

    if (c->dispatch->counters_count == 0)
        return false;
    for (uint32_t i = 0; i < t->counter_names.count; i++)
        if (strcmp(t->counter_names.items[i], name) == 0)
            return rpl_dispatch_counter(t, c->dispatch, i, value);
    return false;
}

bool rpl_roof_trace_counter_indexed(void *ctx, const char *name, double *value)
{
    const rpl_roof_indexed_ctx *c = ctx;
    struct rpl_roof_name key = {name, 0}, *hit;

    if (c->base.dispatch->counters_count == 0)
        return false;
    hit = bsearch(&key, c->names->items, c->names->count, sizeof(key), cmp_name);
    return hit && rpl_dispatch_counter(c->base.trace, c->base.dispatch, hit->index, value);
}

void rpl_roof_target_of(rpl_roof_target *out, const rpl_agent *agent, const rpl_roof_ceilings *user)
{
    memset(out, 0, sizeof(*out));
    if (!agent)
        return;
    out->arch = rpl_arch_find(agent->name);
    out->family = rpl_roof_family_of(out->arch ? out->arch->name : agent->name);
    out->wave_size = agent->wave_front_size ? agent->wave_front_size
                     : out->arch            ? out->arch->wave_size
                                            : 64;
    out->product = rpl_product_match(agent->product_name);
    if (user) {
        out->ceilings = *user;
        out->has_ceilings = true;
    } else if (out->product) {
        rpl_roof_ceilings_from_product(&out->ceilings, out->product);
        out->has_ceilings = true;
    }
}
