/*
 * rocm-perf inspect: registers, LDS/shared memory, scratch and theoretical
 * occupancy of every kernel in compiled GPU code, with no GPU needed.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "rpl/arch.h"
#include "rpl/codeobj.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/log.h"
#include "rpl/occupancy.h"
#include "rpl/strbuf.h"
#include "rpl/version.h"

#define INSPECT_SCHEMA_VERSION "1.0"
#define MAX_ARCH_FILTERS       32

typedef struct inspect_opts {
    char *const *files;
    size_t nfiles;
    const rpl_arch *archs[MAX_ARCH_FILTERS];
    size_t narchs;
    unsigned block;    /* 0: each kernel's own maximum workgroup size */
    unsigned dyn_smem; /* dynamic LDS / shared memory per block */
    bool json;
    const char *out;
} inspect_opts;

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

static int add_archs(void *value, const rpl_option *opt, const char *arg)
{
    inspect_opts *o = value;
    const char *p = arg;

    (void)opt;
    while (*p) {
        size_t len = strcspn(p, ",");
        char name[64];
        const rpl_arch *a;

        if (len == 0 || len >= sizeof(name))
            return rpl_cli_usage_error("bad --arch value '%s'", arg);
        memcpy(name, p, len);
        name[len] = '\0';
        a = rpl_arch_find(name);
        if (!a)
            return rpl_cli_usage_error("unknown architecture '%s' (see docs/CLI.md for the list)",
                                       name);
        if (o->narchs == MAX_ARCH_FILTERS)
            return rpl_cli_usage_error("too many --arch values");
        o->archs[o->narchs++] = a;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

#define F(m) RPL_FIELD(inspect_opts, m)

static const rpl_option inspect_options[] = {
    OPT_CALLBACK(0, "arch", RPL_WHOLE_STRUCT, add_archs, "A",
                 "only kernels built for A (gfx90a, gfx942, sm_90 ...; repeatable or "
                 "comma-separated)"),
    OPT_UINT(0, "block", F(block), 1, 1024, "N",
             "workgroup / block size for occupancy (default: the kernel's maximum, i.e. its "
             "launch bound or 1024)"),
    OPT_SIZE(0, "smem", F(dyn_smem), 0, 1u << 24, "BYTES",
             "dynamic LDS / shared memory per block (default 0)"),
    OPT_BOOL(0, "json", F(json),
             "print JSON (docs/schemas/inspect.schema.json) instead of the table"),
    OPT_STRING('o', "out", F(out), "FILE",
               "write the output to FILE (atomically) instead of stdout"),
    OPT_END(),
};

static const rpl_command inspect_command = {
    .name = "inspect",
    .usage = "rocm-perf inspect FILE... [--arch A]... [--block N] [--smem BYTES]\n"
             "                  [--json] [-o FILE] [-v|-q]",
    .description =
        "Read compiled GPU code (AMDGPU code objects, clang offload bundles such as\n"
        ".hipfb files, HIP executables and libraries, NVIDIA cubins, fatbins and CUDA\n"
        "executables) and print one row per kernel and architecture: VGPRs (NVIDIA:\n"
        "registers), AGPRs, SGPRs, LDS (shared memory), scratch (stack frame), spills,\n"
        "wave size, workgroup size and theoretical occupancy with its limiting factor.\n"
        "AMD occupancy is waves per SIMD as the LLVM version that built the code computes\n"
        "it; NVIDIA occupancy is blocks per SM as cuda_occupancy.h computes it.  With -v,\n"
        "where each kernel was found and the entries skipped.",
    .options = inspect_options,
    .exit_codes = "0 ok, 2 bad usage, unreadable or malformed input, or no kernel\n"
                  "selected, 3 output could not be written or a needed library is missing.",
};

/* 0 parsed, -1 after --help, else the exit code. */
static int parse_args(inspect_opts *o, int argc, char **argv)
{
    int rc = rpl_parse_options(&inspect_command, o, &argc, &argv);

    if (rc >= 0)
        return rc == 0 ? -1 : rc;
    if (argc == 0)
        return rpl_cli_usage_error("inspect needs at least one FILE; see 'rocm-perf inspect "
                                   "--help'");
    o->files = argv;
    o->nfiles = (size_t)argc;
    return 0;
}

static bool arch_selected(const inspect_opts *o, const rpl_arch *a, const char *name)
{
    if (o->narchs == 0)
        return true;
    for (size_t i = 0; i < o->narchs; i++)
        if (a ? o->archs[i] == a : strcasecmp(o->archs[i]->name, name) == 0)
            return true;
    return false;
}

static int compute_row(inspect_row *r, const inspect_opts *o)
{
    rpl_kernel_occupancy ko;
    int rc;

    if (!r->arch)
        return RPL_OK;
    rc = rpl_occ_kernel(&ko, r->k, r->arch, o->block, o->dyn_smem);
    if (rc != RPL_OK)
        return rc;
    r->max_block = ko.max_block;
    r->block = ko.block;
    r->rule = ko.rule;
    r->occ = ko.occ;
    r->have_occ = ko.known;
    return RPL_OK;
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
    return rpl_strbuf_cstr(sb)[0] ? RPL_OK : rpl_error_oom();
}

/* Add an integer, or null when unknown (negative). */
static cJSON *add_count(cJSON *obj, const char *key, int64_t v)
{
    return v < 0 ? cJSON_AddNullToObject(obj, key) : rpl_json_add_int64(obj, key, v);
}

static cJSON *add_limit(cJSON *obj, const char *key, unsigned v)
{
    return v == RPL_OCC_UNLIMITED ? cJSON_AddNullToObject(obj, key)
                                  : rpl_json_add_int64(obj, key, v);
}

static cJSON *add_str(cJSON *obj, const char *key, const char *s)
{
    return s ? cJSON_AddStringToObject(obj, key, s) : cJSON_AddNullToObject(obj, key);
}

static int json_occupancy(cJSON *kobj, const inspect_row *r)
{
    cJSON *o, *lim;
    const rpl_occupancy *occ = &r->occ;
    rpl_vendor v = r->k->vendor;

    if (!r->have_occ)
        return cJSON_AddNullToObject(kobj, "occupancy") ? RPL_OK : rpl_error_oom();
    o = cJSON_AddObjectToObject(kobj, "occupancy");
    if (!o || !rpl_json_add_int64(o, "block_size", r->block) ||
        !rpl_json_add_int64(o, "max_block_size", r->max_block) ||
        !cJSON_AddStringToObject(o, "rule", r->rule) ||
        !rpl_json_add_int64(o, "waves_per_simd", occ->waves_per_simd) ||
        !rpl_json_add_int64(o, "max_waves_per_simd", occ->max_waves_per_simd) ||
        !rpl_json_add_int64(o, "blocks_per_cu", occ->blocks_per_cu) ||
        !rpl_json_add_int64(o, "waves_per_cu", occ->waves_per_cu) ||
        !rpl_json_add_int64(o, "max_waves_per_cu", occ->max_waves_per_cu) ||
        !cJSON_AddNumberToObject(o, "fraction", occ->fraction) ||
        !cJSON_AddStringToObject(o, "limiter", rpl_occ_limit_name(occ->limiter, v)))
        return rpl_error_oom();
    lim = cJSON_AddObjectToObject(o, "limits");
    if (!lim || !add_limit(lim, rpl_occ_limit_name(RPL_OCC_LIMIT_VGPR, v), occ->limit_vgpr) ||
        !add_limit(lim, "sgpr", occ->limit_sgpr) ||
        !add_limit(lim, rpl_occ_limit_name(RPL_OCC_LIMIT_LDS, v), occ->limit_lds) ||
        !add_limit(lim, rpl_occ_limit_name(RPL_OCC_LIMIT_WORKGROUPS, v), occ->limit_workgroups) ||
        !add_limit(lim, rpl_occ_limit_name(RPL_OCC_LIMIT_WAVES, v), occ->limit_waves) ||
        !add_limit(lim, "barriers", occ->limit_barriers))
        return rpl_error_oom();
    return RPL_OK;
}

static int json_args(cJSON *kobj, const rpl_kernel_info *k)
{
    cJSON *arr = cJSON_AddArrayToObject(kobj, "args");

    if (!arr)
        return rpl_error_oom();
    for (size_t i = 0; i < k->n_args; i++) {
        const rpl_kernarg *a = &k->args[i];
        cJSON *o = cJSON_CreateObject();

        if (!o || !cJSON_AddItemToArray(arr, o) || !add_str(o, "name", a->name) ||
            !add_str(o, "type_name", a->type_name) || !add_str(o, "value_kind", a->value_kind) ||
            !add_str(o, "address_space", a->address_space) ||
            !rpl_json_add_int64(o, "offset", a->offset) || !rpl_json_add_int64(o, "size", a->size))
            return rpl_error_oom();
    }
    return RPL_OK;
}

static int json_kernel(cJSON *arr, const inspect_row *r)
{
    const rpl_kernel_info *k = r->k;
    cJSON *o = cJSON_CreateObject(), *regs, *spills;

    if (!o || !cJSON_AddItemToArray(arr, o))
        return rpl_error_oom();
    if (!add_str(o, "name", k->name) || !add_str(o, "symbol", k->symbol) ||
        !cJSON_AddStringToObject(o, "vendor", rpl_vendor_name(k->vendor)) ||
        !add_str(o, "arch", k->arch) || !add_str(o, "target", k->target) ||
        !add_str(o, "origin", k->origin) ||
        !add_count(o, "code_object_version",
                   k->code_object_version ? (int64_t)k->code_object_version : -1) ||
        !add_count(o, "llvm_major", k->llvm_major ? (int64_t)k->llvm_major : -1) ||
        !rpl_json_add_int64(o, "wavefront_size", k->wavefront_size) ||
        !add_count(o, "max_workgroup_size",
                   k->max_flat_workgroup_size ? (int64_t)k->max_flat_workgroup_size : -1))
        return rpl_error_oom();
    regs = cJSON_AddObjectToObject(o, "registers");
    if (!regs || !add_count(regs, "vgpr", k->vgpr_count) ||
        !add_count(regs, "arch_vgpr", k->arch_vgpr_count) ||
        !add_count(regs, "agpr", k->vendor == RPL_VENDOR_AMD ? k->agpr_count : -1) ||
        !add_count(regs, "sgpr", k->sgpr_count))
        return rpl_error_oom();
    spills = cJSON_AddObjectToObject(o, "spills");
    if (!spills || !add_count(spills, "vgpr", k->vgpr_spill_count) ||
        !add_count(spills, "sgpr", k->sgpr_spill_count))
        return rpl_error_oom();
    if (!rpl_json_add_int64(o, "lds_bytes", k->group_segment_fixed_size) ||
        !rpl_json_add_int64(o, "scratch_bytes", k->private_segment_fixed_size) ||
        !rpl_json_add_int64(o, "kernarg_bytes", k->kernarg_segment_size) ||
        !add_count(o, "barriers", k->num_barriers) ||
        !(k->uses_dynamic_stack < 0
              ? cJSON_AddNullToObject(o, "uses_dynamic_stack")
              : cJSON_AddBoolToObject(o, "uses_dynamic_stack", k->uses_dynamic_stack == 1)))
        return rpl_error_oom();
    if (json_args(o, k) != RPL_OK)
        return rpl_error_oom();
    return json_occupancy(o, r);
}

static int render_json(char **out, const inspect_opts *o, const inspect_row *rows, size_t n,
                       const rpl_codeobj_set *set)
{
    cJSON *doc = cJSON_CreateObject(), *tool, *inputs = NULL, *kernels = NULL, *warn = NULL;
    int rc = RPL_OK;

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
    for (size_t i = 0; rc == RPL_OK && i < o->nfiles; i++)
        if (!cJSON_AddItemToArray(inputs, cJSON_CreateString(o->files[i])))
            rc = rpl_error_oom();
    for (size_t i = 0; rc == RPL_OK && i < n; i++)
        rc = json_kernel(kernels, &rows[i]);
    for (size_t i = 0; rc == RPL_OK && i < set->n_warnings; i++)
        if (!cJSON_AddItemToArray(warn, cJSON_CreateString(set->warnings[i])))
            rc = rpl_error_oom();
    if (rc == RPL_OK)
        rc = rpl_json_print(out, doc);
    cJSON_Delete(doc);
    return rc;
}

static int emit(const inspect_opts *o, const char *text)
{
    if (o->out)
        return rpl_file_write_atomic(o->out, text, strlen(text));
    if (fputs(text, stdout) == EOF || fflush(stdout) != 0)
        return rpl_error_set(RPL_EIO, "cannot write to standard output");
    return RPL_OK;
}

static int run_inspect(const inspect_opts *o, rpl_codeobj_set *set)
{
    inspect_row *rows;
    size_t n = 0;
    char *text = NULL;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = RPL_OK;

    for (size_t i = 0; i < o->nfiles; i++) {
        rc = rpl_codeobj_read_file(set, o->files[i]);
        if (rc != RPL_OK)
            return rc;
    }
    for (size_t i = 0; i < set->n_warnings; i++)
        rpl_log_info("%s", set->warnings[i]);
    rows = calloc(set->count ? set->count : 1, sizeof(*rows));
    if (!rows)
        return rpl_error_oom();
    for (size_t i = 0; i < set->count && rc == RPL_OK; i++) {
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
    if (rc == RPL_OK && n == 0)
        rc = rpl_error_set(RPL_EINPUT, "no kernel%s found in the input%s",
                           o->narchs ? " for the selected architecture" : "",
                           o->nfiles > 1 ? "s" : "");
    if (rc == RPL_OK && o->json) {
        rc = render_json(&text, o, rows, n, set);
        if (rc == RPL_OK)
            rc = emit(o, text);
    } else if (rc == RPL_OK) {
        rc = render_table(&sb, rows, n);
        if (rc == RPL_OK)
            rc = emit(o, rpl_strbuf_cstr(&sb));
    }
    rpl_log_debug("inspect: %zu images, %zu kernels, %zu rows", set->n_images, set->count, n);
    free(text);
    rpl_strbuf_release(&sb);
    free(rows);
    return rc;
}

int cmd_inspect(int argc, char **argv)
{
    inspect_opts o = {0};
    rpl_codeobj_set *set = NULL;
    int rc = parse_args(&o, argc, argv);

    if (rc < 0)
        return RPL_EXIT_OK; /* --help */
    if (rc > 0)
        return rc;
    rc = rpl_codeobj_set_new(&set);
    if (rc == RPL_OK)
        rc = run_inspect(&o, set);
    rpl_codeobj_set_free(set);
    return rc == RPL_OK ? RPL_EXIT_OK : rpl_cli_fail(rc);
}
