/*
 * The inspect report (`rocm-perf inspect`): per kernel of compiled GPU code
 * its registers, LDS, scratch, spills and theoretical occupancy, as a table
 * or as docs/schemas/inspect.schema.json.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rpl/error.h"
#include "rpl/inspect.h"
#include "rpl/json.h"
#include "rpl/json_doc.h"
#include "rpl/log.h"
#include "rpl/occupancy.h"
#include "rpl/version.h"

#define INSPECT_SCHEMA_VERSION "1.0"

/* One row: a kernel and, when its arch is known, its occupancy. */
typedef struct inspect_row {
    const rpl_kernel_info *k;
    const rpl_arch *arch;
    bool have_occ;
    unsigned block;
    unsigned max_block; /* the largest launchable block (launch bound, arch, registers) */
    const char *rule;
    rpl_occupancy occ;
} inspect_row;

static bool arch_selected(const rpl_inspect_opts *o, const rpl_arch *a, const char *name)
{
    if (o->narchs == 0)
        return true;
    for (size_t i = 0; i < o->narchs; i++)
        if (a ? o->archs[i] == a : strcasecmp(o->archs[i]->name, name) == 0)
            return true;
    return false;
}

static int compute_row(inspect_row *r, const rpl_inspect_opts *o)
{
    rpl_kernel_occupancy ko;
    int rc;

    if (!r->arch)
        return 0;
    rc = rpl_occ_kernel(&ko, r->k, r->arch, o->block, o->dyn_smem);
    if (rc != 0)
        return rc;
    r->max_block = ko.max_block;
    r->block = ko.block;
    r->rule = ko.rule;
    r->occ = ko.occ;
    r->have_occ = ko.known;
    return 0;
}

static void put_count(rpl_strbuf *sb, int64_t v)
{
    if (v < 0)
        rpl_strbuf_printf(sb, " %6s", "-");
    else
        rpl_strbuf_printf(sb, " %6lld", (long long)v);
}

/* libstdc++'s demangler (the C++ ABI's entry point; rocm-perf links libstdc++). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The demangled name of an Itanium-mangled symbol, else NULL (free it). */
static char *demangle(const char *name)
{
    int status = -1;
    char *out;

    if (strncmp(name, "_Z", 2) != 0)
        return NULL;
    out = __cxa_demangle(name, NULL, NULL, &status);
    if (status != 0) {
        free(out);
        return NULL;
    }
    return out;
}

/* Tables show kernels demangled (the JSON keeps the symbol's own, mangled, name). */
static int render_table(rpl_strbuf *sb, const inspect_row *rows, size_t n)
{
    rpl_strbuf_printf(sb, "%-8s %6s %6s %6s %6s %7s %6s %4s %5s %-14s %-10s %s\n", "ARCH", "VGPR",
                      "AGPR", "SGPR", "LDS", "SCRATCH", "SPILL", "WAVE", "BLOCK", "OCCUPANCY",
                      "LIMIT", "KERNEL");
    for (size_t i = 0; i < n; i++) {
        const inspect_row *r = &rows[i];
        const rpl_kernel_info *k = r->k;
        char occ[32] = "-", *demangled;
        int64_t spill = -1;

        if (k->vgpr_spill_count >= 0 || k->sgpr_spill_count >= 0)
            spill = (k->vgpr_spill_count > 0 ? k->vgpr_spill_count : 0) +
                    (k->sgpr_spill_count > 0 ? k->sgpr_spill_count : 0);
        if (r->have_occ && r->occ.limiter == RPL_OCC_LIMIT_BLOCK_SIZE)
            snprintf(occ, sizeof(occ), "no launch");
        else if (r->have_occ && k->vendor == RPL_VENDOR_AMD)
            snprintf(occ, sizeof(occ), "%u/%u w/SIMD", r->occ.waves_per_simd,
                     r->occ.max_waves_per_simd);
        else if (r->have_occ)
            snprintf(occ, sizeof(occ), "%u blk %3.0f%%", r->occ.blocks_per_cu,
                     100.0 * r->occ.fraction);
        rpl_strbuf_printf(sb, "%-8s", k->arch);
        put_count(sb, k->vgpr_count);
        put_count(sb, k->vendor == RPL_VENDOR_AMD ? k->agpr_count : -1);
        put_count(sb, k->sgpr_count);
        put_count(sb, k->group_segment_fixed_size);
        rpl_strbuf_printf(sb, " %7u", k->private_segment_fixed_size);
        put_count(sb, spill);
        rpl_strbuf_printf(sb, " %4u", k->wavefront_size);
        if (r->have_occ)
            rpl_strbuf_printf(sb, " %5u", r->block);
        else
            rpl_strbuf_printf(sb, " %5s", "-");
        demangled = demangle(k->name);
        rpl_strbuf_printf(sb, " %-14s %-10s %s\n", occ,
                          r->have_occ ? rpl_occ_limit_name(r->occ.limiter, k->vendor) : "-",
                          demangled ? demangled : k->name);
        free(demangled);
        if (rpl_log_get_level() >= RPL_LOG_INFO)
            rpl_strbuf_printf(sb, "         from %s\n", k->origin);
    }
    return rpl_strbuf_cstr(sb)[0] ? 0 : rpl_error_oom();
}

/* A count, or null when unknown (negative). */
static void add_count(rpl_json_doc *d, cJSON *o, const char *key, int64_t v)
{
    rpl_json_doc_number(d, o, key, (double)v, v >= 0);
}

/* An occupancy limit, or null when the resource does not limit. */
static void add_limit(rpl_json_doc *d, cJSON *o, const char *key, unsigned v)
{
    rpl_json_doc_number(d, o, key, v, v != RPL_OCC_UNLIMITED);
}

static void add_bool(rpl_json_doc *d, cJSON *o, const char *key, bool v)
{
    rpl_json_doc_check(d, cJSON_AddBoolToObject(o, key, v));
}

static void json_occupancy(rpl_json_doc *d, cJSON *kobj, const inspect_row *r)
{
    const rpl_occupancy *occ = &r->occ;
    rpl_vendor v = r->k->vendor;
    cJSON *o, *lim;

    if (!r->have_occ) {
        rpl_json_doc_check(d, cJSON_AddNullToObject(kobj, "occupancy"));
        return;
    }
    o = rpl_json_doc_check(d, cJSON_AddObjectToObject(kobj, "occupancy"));
    add_count(d, o, "block_size", r->block);
    add_count(d, o, "max_block_size", r->max_block);
    rpl_json_doc_string(d, o, "rule", r->rule);
    add_count(d, o, "waves_per_simd", occ->waves_per_simd);
    add_count(d, o, "max_waves_per_simd", occ->max_waves_per_simd);
    add_count(d, o, "blocks_per_cu", occ->blocks_per_cu);
    add_count(d, o, "waves_per_cu", occ->waves_per_cu);
    add_count(d, o, "max_waves_per_cu", occ->max_waves_per_cu);
    rpl_json_doc_number(d, o, "fraction", occ->fraction, true);
    rpl_json_doc_string(d, o, "limiter", rpl_occ_limit_name(occ->limiter, v));
    lim = rpl_json_doc_check(d, cJSON_AddObjectToObject(o, "limits"));
    add_limit(d, lim, rpl_occ_limit_name(RPL_OCC_LIMIT_VGPR, v), occ->limit_vgpr);
    add_limit(d, lim, "sgpr", occ->limit_sgpr);
    add_limit(d, lim, rpl_occ_limit_name(RPL_OCC_LIMIT_LDS, v), occ->limit_lds);
    add_limit(d, lim, rpl_occ_limit_name(RPL_OCC_LIMIT_WORKGROUPS, v), occ->limit_workgroups);
    add_limit(d, lim, rpl_occ_limit_name(RPL_OCC_LIMIT_WAVES, v), occ->limit_waves);
    add_limit(d, lim, "barriers", occ->limit_barriers);
}

static void json_args(rpl_json_doc *d, cJSON *kobj, const rpl_kernel_info *k)
{
    cJSON *arr = rpl_json_doc_check(d, cJSON_AddArrayToObject(kobj, "args"));

    for (size_t i = 0; arr && i < k->n_args; i++) {
        const rpl_kernarg *a = &k->args[i];
        cJSON *o = rpl_json_doc_push_object(d, arr);

        if (!o)
            return;
        rpl_json_doc_string(d, o, "name", a->name);
        rpl_json_doc_string(d, o, "type_name", a->type_name);
        rpl_json_doc_string(d, o, "value_kind", a->value_kind);
        rpl_json_doc_string(d, o, "address_space", a->address_space);
        add_count(d, o, "offset", a->offset);
        add_count(d, o, "size", a->size);
    }
}

static void json_kernel(rpl_json_doc *d, cJSON *arr, const inspect_row *r)
{
    const rpl_kernel_info *k = r->k;
    cJSON *o = rpl_json_doc_push_object(d, arr), *regs, *spills;

    if (!o)
        return;
    rpl_json_doc_string(d, o, "name", k->name);
    rpl_json_doc_string(d, o, "symbol", k->symbol);
    rpl_json_doc_string(d, o, "vendor", rpl_vendor_name(k->vendor));
    rpl_json_doc_string(d, o, "arch", k->arch);
    rpl_json_doc_string(d, o, "target", k->target);
    rpl_json_doc_string(d, o, "origin", k->origin);
    add_count(d, o, "code_object_version",
              k->code_object_version ? (int64_t)k->code_object_version : -1);
    add_count(d, o, "llvm_major", k->llvm_major ? (int64_t)k->llvm_major : -1);
    add_count(d, o, "wavefront_size", k->wavefront_size);
    add_count(d, o, "max_workgroup_size",
              k->max_flat_workgroup_size ? (int64_t)k->max_flat_workgroup_size : -1);
    regs = rpl_json_doc_check(d, cJSON_AddObjectToObject(o, "registers"));
    add_count(d, regs, "vgpr", k->vgpr_count);
    add_count(d, regs, "arch_vgpr", k->arch_vgpr_count);
    add_count(d, regs, "agpr", k->vendor == RPL_VENDOR_AMD ? k->agpr_count : -1);
    add_count(d, regs, "sgpr", k->sgpr_count);
    spills = rpl_json_doc_check(d, cJSON_AddObjectToObject(o, "spills"));
    add_count(d, spills, "vgpr", k->vgpr_spill_count);
    add_count(d, spills, "sgpr", k->sgpr_spill_count);
    add_count(d, o, "lds_bytes", k->group_segment_fixed_size);
    add_count(d, o, "scratch_bytes", k->private_segment_fixed_size);
    add_count(d, o, "kernarg_bytes", k->kernarg_segment_size);
    add_count(d, o, "barriers", k->num_barriers);
    if (k->uses_dynamic_stack < 0)
        rpl_json_doc_check(d, cJSON_AddNullToObject(o, "uses_dynamic_stack"));
    else
        add_bool(d, o, "uses_dynamic_stack", k->uses_dynamic_stack == 1);
    json_args(d, o, k);
    json_occupancy(d, o, r);
}

static int render_json(char **out, const rpl_inspect_opts *o, const inspect_row *rows, size_t n,
                       const rpl_codeobj_set *set)
{
    cJSON *doc = cJSON_CreateObject(), *tool, *inputs = NULL, *kernels = NULL, *warn = NULL;
    rpl_json_doc d = {false};
    int rc = 0;

    if (!doc || !cJSON_AddStringToObject(doc, "schema_version", INSPECT_SCHEMA_VERSION) ||
        !(tool = cJSON_AddObjectToObject(doc, "tool")) ||
        !cJSON_AddStringToObject(tool, "name", "rocm-perf") ||
        !cJSON_AddStringToObject(tool, "version", RPL_VERSION_STRING) ||
        !(o->block ? rpl_json_add_int64(doc, "block_size", o->block)
                   : cJSON_AddNullToObject(doc, "block_size")) ||
        !rpl_json_add_int64(doc, "dynamic_lds_bytes", o->dyn_smem) ||
        !(inputs = cJSON_AddArrayToObject(doc, "inputs")) ||
        !(kernels = cJSON_AddArrayToObject(doc, "kernels")) ||
        !(warn = cJSON_AddArrayToObject(doc, "warnings")))
        rc = rpl_error_oom();
    for (size_t i = 0; rc == 0 && i < o->nfiles; i++)
        if (!cJSON_AddItemToArray(inputs, cJSON_CreateString(o->files[i])))
            rc = rpl_error_oom();
    for (size_t i = 0; rc == 0 && i < n && !d.oom; i++)
        json_kernel(&d, kernels, &rows[i]);
    if (rc == 0 && d.oom)
        rc = rpl_error_oom();
    for (size_t i = 0; rc == 0 && i < set->n_warnings; i++)
        if (!cJSON_AddItemToArray(warn, cJSON_CreateString(set->warnings[i])))
            rc = rpl_error_oom();
    if (rc == 0)
        rc = rpl_json_print(out, doc);
    cJSON_Delete(doc);
    return rc;
}

int rpl_inspect_render(rpl_strbuf *out, const rpl_inspect_opts *o, rpl_codeobj_set *set)
{
    inspect_row *rows;
    size_t n = 0;
    char *text = NULL;
    int rc = 0;

    for (size_t i = 0; i < o->nfiles; i++) {
        rc = rpl_codeobj_read_file(set, o->files[i]);
        if (rc != 0)
            return rc;
    }
    for (size_t i = 0; i < set->n_warnings; i++)
        rpl_log_info("%s", set->warnings[i]);
    rows = calloc(set->count ? set->count : 1, sizeof(*rows));
    if (!rows)
        return rpl_error_oom();
    for (size_t i = 0; i < set->count && rc == 0; i++) {
        const rpl_kernel_info *k = &set->kernels[i];
        const rpl_arch *a = rpl_arch_find(k->arch);

        if (!arch_selected(o, a, k->arch))
            continue;
        rows[n].k = k;
        rows[n].arch = a;
        if (!a)
            rpl_log_warn("no architecture facts for '%s' (kernel '%s'): occupancy not computed",
                         k->arch, k->name);
        rc = compute_row(&rows[n++], o);
    }
    if (rc == 0 && n == 0)
        rc = rpl_error_set(RPL_EINPUT, "no kernel%s found in the input%s",
                           o->narchs ? " for the selected architecture" : "",
                           o->nfiles > 1 ? "s" : "");
    if (rc == 0 && o->json) {
        rc = render_json(&text, o, rows, n, set);
        if (rc == 0)
            rc = rpl_strbuf_puts(out, text);
    } else if (rc == 0) {
        rc = render_table(out, rows, n);
    }
    rpl_log_debug("inspect: %zu images, %zu kernels, %zu rows", set->n_images, set->count, n);
    free(text);
    free(rows);
    return rc;
}
