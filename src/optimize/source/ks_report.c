/*
 * The kernels report (`rocm-perf kernels`): what the optimizer understands of
 * a kernel source (kernels, signatures, device symbols, loops and the unroll
 * guardrails), as text or as docs/schemas/kernels.schema.json.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/arch.h"
#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/kernel_source.h"
#include "rpl/version.h"

#define KERNELS_SCHEMA_VERSION "1.1"

/* The wavefront size of the parsed architecture, unless --wave says otherwise. */
static unsigned wave_size(unsigned wave, const rpl_kernel_source *src)
{
    const rpl_arch *a = rpl_arch_find(src->arch);

    if (wave)
        return wave;
    if (a)
        return a->wave_size;
    return strncmp(src->arch, "gfx", 3) == 0 ? 64 : 32;
}

static const char *pragma_text(int p, char *buf, size_t size)
{
    if (p == RPL_KS_PRAGMA_NONE)
        return "none";
    if (p == RPL_KS_PRAGMA_FULL)
        return "full";
    if (p == RPL_KS_PRAGMA_OTHER)
        return "other";
    snprintf(buf, size, "%d", p);
    return buf;
}

static int text_loop(rpl_strbuf *sb, const rpl_ks_loop *l, unsigned wave)
{
    char pb[16];
    unsigned factor = 0;
    int rc = rpl_strbuf_printf(sb, "  loop %u  %s  lines %u-%u  depth %u", l->index,
                               rpl_ks_loop_kind_name(l->kind), l->range.line_begin,
                               l->range.line_end, l->depth);

    if (!rc && l->trip_count_known)
        rc = rpl_strbuf_printf(sb, "  trip %lld", (long long)l->trip_count);
    if (!rc && l->pragma_unroll != RPL_KS_PRAGMA_NONE)
        rc = rpl_strbuf_printf(sb, "  pragma unroll %s",
                               pragma_text(l->pragma_unroll, pb, sizeof(pb)));
    if (rc)
        return rc;
    if (rpl_ks_unroll_factor(l, wave, 0, &factor) == 0)
        return rpl_strbuf_printf(sb, "  -> unroll %u\n", factor);
    return rpl_strbuf_printf(sb, "  -> not unrolled: %s\n",
                             l->blocker ? l->blocker : rpl_error_last()->message);
}

/* `symbol` (from the code object) is an instantiation of the template kernel k. */
static bool is_instance(const rpl_kernel_source *src, const rpl_ks_kernel *k, const char *symbol)
{
    const rpl_ks_kernel *found = NULL;
    bool yes = rpl_kernel_source_find(src, symbol, &found) == 0 && found == k;

    rpl_error_clear();
    return yes;
}

static int text_output(rpl_strbuf *sb, const rpl_kernel_source *src, unsigned wave,
                       const rpl_codeobj_set *symbols)
{
    int rc = rpl_strbuf_printf(
        sb, "%s: parsed as %s for %s%s%s%s with %s; %zu error%s, %zu warning%s\n", src->name,
        rpl_ks_mode_name(src->mode), src->arch, src->wanted_arch ? " (asked for " : "",
        src->wanted_arch ? src->wanted_arch : "", src->wanted_arch ? ")" : "", src->clang_version,
        src->n_errors, src->n_errors == 1 ? "" : "s", src->n_warnings,
        src->n_warnings == 1 ? "" : "s");

    for (size_t i = 0; !rc && i < src->n_diags && i < 3; i++)
        rc = rpl_strbuf_printf(sb, "  %s:%u:%u: %s: %s\n", src->diags[i].file, src->diags[i].line,
                               src->diags[i].column,
                               src->diags[i].severity >= 3 ? "error" : "warning",
                               src->diags[i].message);
    for (size_t i = 0; !rc && i < src->n_kernels; i++) {
        const rpl_ks_kernel *k = &src->kernels[i];
        char *sig = NULL;
        rc = rpl_ks_kernel_signature(k, &sig);
        if (!rc)
            rc = rpl_strbuf_printf(sb, "kernel %s  lines %u-%u  symbol %s%s\n  signature: %s\n",
                                   k->qualified_name, k->definition.line_begin,
                                   k->definition.line_end, k->mangled ? k->mangled : "(template)",
                                   k->in_macro ? "  (from a macro)" : "", sig);
        free(sig);
        if (!rc && k->launch_bounds)
            rc = rpl_strbuf_printf(sb, "  launch bounds: %s\n", k->launch_bounds);
        for (size_t j = 0; !rc && k->is_template && symbols && j < symbols->count; j++)
            if (is_instance(src, k, symbols->kernels[j].name))
                rc = rpl_strbuf_printf(sb, "  instantiation: %s\n", symbols->kernels[j].name);
        const rpl_ks_diag *e = rpl_ks_kernel_error(src, k);
        if (!rc && e)
            rc = rpl_strbuf_printf(sb,
                                   "  parse error in the kernel: %s:%u: %s (its loops may be "
                                   "missing)\n",
                                   e->file, e->line, e->message);
        for (size_t j = 0; !rc && j < k->n_loops; j++)
            rc = text_loop(sb, &k->loops[j], wave);
    }
    return rc;
}

static cJSON *json_range(const rpl_ks_range *r)
{
    cJSON *o = cJSON_CreateObject();

    if (!o || !rpl_json_add_int64(o, "begin", (int64_t)r->begin) ||
        !rpl_json_add_int64(o, "end", (int64_t)r->end) ||
        !rpl_json_add_int64(o, "line_begin", r->line_begin) ||
        !rpl_json_add_int64(o, "line_end", r->line_end)) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static bool add_string_or_null(cJSON *o, const char *key, const char *s)
{
    return s ? cJSON_AddStringToObject(o, key, s) != NULL : cJSON_AddNullToObject(o, key) != NULL;
}

static cJSON *json_loop(const rpl_ks_loop *l, unsigned wave)
{
    cJSON *o = cJSON_CreateObject();
    unsigned factor = 0;
    bool ok = o != NULL;
    int verdict;

    ok = ok && rpl_json_add_int64(o, "index", l->index) &&
         cJSON_AddStringToObject(o, "kind", rpl_ks_loop_kind_name(l->kind)) &&
         rpl_json_add_int64(o, "depth", l->depth) &&
         rpl_json_add_int64(o, "inner_loops", l->n_inner) &&
         cJSON_AddItemToObject(o, "range", json_range(&l->range)) &&
         cJSON_AddBoolToObject(o, "in_macro", l->in_macro) &&
         cJSON_AddBoolToObject(o, "barrier", l->has_barrier) &&
         cJSON_AddBoolToObject(o, "atomic", l->has_atomic) &&
         cJSON_AddBoolToObject(o, "dynamic_shared", l->has_dynamic_shared) &&
         cJSON_AddBoolToObject(o, "break", l->has_break) &&
         cJSON_AddBoolToObject(o, "return", l->has_return) &&
         cJSON_AddBoolToObject(o, "goto", l->has_goto) &&
         cJSON_AddBoolToObject(o, "unknown_call", l->has_unknown_call);
    if (ok) {
        if (l->pragma_unroll == RPL_KS_PRAGMA_NONE)
            ok = cJSON_AddNullToObject(o, "pragma_unroll") != NULL;
        else if (l->pragma_unroll == RPL_KS_PRAGMA_FULL)
            ok = cJSON_AddStringToObject(o, "pragma_unroll", "full") != NULL;
        else if (l->pragma_unroll == RPL_KS_PRAGMA_OTHER)
            ok = cJSON_AddStringToObject(o, "pragma_unroll", "other") != NULL;
        else
            ok = rpl_json_add_int64(o, "pragma_unroll", l->pragma_unroll) != NULL;
    }
    if (ok)
        ok = l->trip_count_known ? rpl_json_add_int64(o, "trip_count", l->trip_count) != NULL
                                 : cJSON_AddNullToObject(o, "trip_count") != NULL;
    verdict = rpl_ks_unroll_factor(l, wave, 0, &factor);
    ok = ok && add_string_or_null(o, "blocker", l->blocker) &&
         (verdict == 0 ? rpl_json_add_int64(o, "unroll_factor", factor) != NULL
                       : cJSON_AddNullToObject(o, "unroll_factor") != NULL) &&
         cJSON_AddStringToObject(o, "verdict",
                                 verdict == 0 ? "unroll" : rpl_error_last()->message) != NULL;
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* "error": the first error inside the kernel, or null. */
static bool add_error(cJSON *o, const rpl_ks_diag *d)
{
    cJSON *e;

    if (!d)
        return cJSON_AddNullToObject(o, "error") != NULL;
    return (e = cJSON_AddObjectToObject(o, "error")) &&
           cJSON_AddStringToObject(e, "file", d->file) && rpl_json_add_int64(e, "line", d->line) &&
           cJSON_AddStringToObject(e, "message", d->message);
}

static cJSON *json_kernel(const rpl_kernel_source *src, const rpl_ks_kernel *k, unsigned wave,
                          const rpl_codeobj_set *symbols)
{
    cJSON *o = cJSON_CreateObject(), *params, *tparams, *loops, *inst = NULL;
    char *sig = NULL;
    bool ok = o != NULL && rpl_ks_kernel_signature(k, &sig) == 0;

    ok = ok && cJSON_AddStringToObject(o, "name", k->name) &&
         cJSON_AddStringToObject(o, "qualified_name", k->qualified_name) &&
         add_string_or_null(o, "mangled", k->mangled) &&
         cJSON_AddStringToObject(o, "signature", sig) &&
         add_error(o, rpl_ks_kernel_error(src, k)) &&
         cJSON_AddBoolToObject(o, "extern_c", k->extern_c) &&
         cJSON_AddBoolToObject(o, "is_template", k->is_template) &&
         cJSON_AddBoolToObject(o, "in_macro", k->in_macro) &&
         add_string_or_null(o, "launch_bounds", k->launch_bounds) &&
         cJSON_AddItemToObject(o, "definition", json_range(&k->definition)) &&
         cJSON_AddItemToObject(o, "body", json_range(&k->body)) &&
         (params = cJSON_AddArrayToObject(o, "params")) &&
         (tparams = cJSON_AddArrayToObject(o, "template_params")) &&
         (loops = cJSON_AddArrayToObject(o, "loops"));
    free(sig);
    for (size_t i = 0; ok && i < k->n_params; i++) {
        cJSON *p = cJSON_CreateObject();
        ok = p && cJSON_AddItemToArray(params, p) &&
             cJSON_AddStringToObject(p, "name", k->params[i].name) &&
             cJSON_AddStringToObject(p, "type", k->params[i].type) &&
             cJSON_AddStringToObject(p, "canonical", k->params[i].canonical);
    }
    for (size_t i = 0; ok && i < k->n_tparams; i++) {
        static const char *const kinds[] = {"type", "value", "template"};
        cJSON *t = cJSON_CreateObject();
        ok = t && cJSON_AddItemToArray(tparams, t) &&
             cJSON_AddStringToObject(t, "kind", kinds[k->tparams[i].kind]) &&
             cJSON_AddStringToObject(t, "name", k->tparams[i].name) &&
             add_string_or_null(t, "type", k->tparams[i].type);
    }
    for (size_t i = 0; ok && i < k->n_loops; i++)
        ok = cJSON_AddItemToArray(loops, json_loop(&k->loops[i], wave));
    if (ok && symbols && (inst = cJSON_AddArrayToObject(o, "instantiations")) == NULL)
        ok = false;
    for (size_t i = 0; ok && symbols && k->is_template && i < symbols->count; i++)
        if (is_instance(src, k, symbols->kernels[i].name))
            ok = cJSON_AddItemToArray(inst, cJSON_CreateString(symbols->kernels[i].name));
    if (!ok) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

static cJSON *json_output(const rpl_kernel_source *src, unsigned wave,
                          const rpl_codeobj_set *symbols)
{
    cJSON *doc = cJSON_CreateObject(), *tool, *diags, *first, *kernels;
    bool ok = doc != NULL;

    ok = ok && cJSON_AddStringToObject(doc, "schema_version", KERNELS_SCHEMA_VERSION) &&
         (tool = cJSON_AddObjectToObject(doc, "tool")) &&
         cJSON_AddStringToObject(tool, "name", "rocm-perf") &&
         cJSON_AddStringToObject(tool, "version", RPL_VERSION_STRING) &&
         cJSON_AddStringToObject(doc, "source", src->name) &&
         cJSON_AddStringToObject(doc, "mode", rpl_ks_mode_name(src->mode)) &&
         cJSON_AddStringToObject(doc, "arch", src->arch) &&
         add_string_or_null(doc, "asked_arch", src->wanted_arch) &&
         cJSON_AddStringToObject(doc, "clang_version", src->clang_version) &&
         rpl_json_add_int64(doc, "wave_size", wave) &&
         (diags = cJSON_AddObjectToObject(doc, "diagnostics")) &&
         rpl_json_add_int64(diags, "errors", (int64_t)src->n_errors) &&
         rpl_json_add_int64(diags, "warnings", (int64_t)src->n_warnings) &&
         (first = cJSON_AddArrayToObject(diags, "first")) &&
         (kernels = cJSON_AddArrayToObject(doc, "kernels"));
    for (size_t i = 0; ok && i < src->n_diags && i < 10; i++) {
        const rpl_ks_diag *d = &src->diags[i];
        cJSON *j = cJSON_CreateObject();
        ok = j && cJSON_AddItemToArray(first, j) &&
             cJSON_AddStringToObject(j, "severity", d->severity >= 3 ? "error" : "warning") &&
             cJSON_AddStringToObject(j, "file", d->file) &&
             rpl_json_add_int64(j, "line", d->line) && rpl_json_add_int64(j, "column", d->column) &&
             cJSON_AddStringToObject(j, "message", d->message);
    }
    for (size_t i = 0; ok && i < src->n_kernels; i++)
        ok = cJSON_AddItemToArray(kernels, json_kernel(src, &src->kernels[i], wave, symbols));
    if (!ok) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

int rpl_kernel_source_report(rpl_strbuf *out, const rpl_kernel_source *src, unsigned wave,
                             const rpl_codeobj_set *symbols, bool json)
{
    cJSON *doc;
    char *text = NULL;
    int rc;

    wave = wave_size(wave, src);
    if (!json)
        return text_output(out, src, wave, symbols);
    doc = json_output(src, wave, symbols);
    rc = doc ? rpl_json_print(&text, doc) : rpl_error_oom();
    if (!rc)
        rc = rpl_strbuf_puts(out, text);
    free(text);
    cJSON_Delete(doc);
    return rc;
}
