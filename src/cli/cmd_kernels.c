/*
 * rocm-perf kernels: what the optimizer understands of a kernel source
 * (kernels, signatures, device symbols, loops and the unroll guardrails).
 * A debugging aid over src/optimize/source; it changes nothing.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "rpl/arch.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/autotune.h"
#include "rpl/codeobj.h"
#include "rpl/kernel_source.h"
#include "rpl/profile_backend.h"
#include "rpl/strbuf.h"
#include "rpl/version.h"

#define KERNELS_SCHEMA_VERSION "1.1"
#define MAX_LIST               64

typedef struct kernels_opts {
    const char *source;
    rpl_ks_options ks;
    const char *includes[MAX_LIST + 1];
    const char *defines[MAX_LIST + 1];
    size_t n_includes, n_defines;
    unsigned wave; /* 0: the architecture's */
    bool json;
    const char *out;
    const char *build;            /* --build "CMD" */
    const char *compile_commands; /* --compile-commands FILE */
    char **compile_words;         /* from either; owned */
    char *compile_dir;
    char gpu_arch[16];
    const char *code_object; /* --code-object FILE */
    rpl_codeobj_set *symbols;
} kernels_opts;

static int parse_lang(void *value, const rpl_option *opt, const char *arg)
{
    (void)opt;
    if (strcmp(arg, "hip") == 0)
        *(rpl_ks_lang *)value = RPL_KS_LANG_HIP;
    else if (strcmp(arg, "cuda") == 0)
        *(rpl_ks_lang *)value = RPL_KS_LANG_CUDA;
    else
        return rpl_cli_usage_error("--lang wants hip or cuda, not '%s'", arg);
    return 0;
}

static int parse_wave(void *value, const rpl_option *opt, const char *arg)
{
    (void)opt;
    if (strcmp(arg, "32") != 0 && strcmp(arg, "64") != 0)
        return rpl_cli_usage_error("--wave wants 32 or 64, not '%s'", arg);
    *(unsigned *)value = (unsigned)atoi(arg);
    return 0;
}

#define F(m) RPL_FIELD(kernels_opts, m)

static const rpl_option kernels_options[] = {
    OPT_CALLBACK(0, "lang", F(ks.lang), parse_lang, "L",
                 "hip or cuda (default: .cu/.cuh are CUDA, the rest HIP)"),
    OPT_STRING(0, "arch", F(ks.arch), "A",
               "gfx942, sm_90, ... (default: the build's, else this machine's GPU, else gfx90a "
               "for HIP and the newest NVIDIA architecture libclang knows for CUDA)"),
    OPT_STRING_LIST('I', NULL, F(includes), offsetof(kernels_opts, n_includes), "DIR",
                    "include directory, as for the compiler"),
    OPT_STRING_LIST('D', NULL, F(defines), offsetof(kernels_opts, n_defines), "NAME[=V]",
                    "macro, as for the compiler"),
    OPT_STRING(0, "build", F(build), "\"CMD\"",
               "the real compile command (nvcc, hipcc or clang words; no shell): its -I, "
               "-isystem, -D, -U, -include, -std and architecture words are used"),
    OPT_STRING(0, "compile-commands", F(compile_commands), "FILE",
               "take SOURCE's compile command from a compilation database (compile_commands.json "
               "of CMake or Bear)"),
    OPT_STRING(0, "code-object", F(code_object), "FILE",
               "a code object, cubin or program built from SOURCE: list the instantiations of "
               "each template kernel it holds"),
    OPT_CALLBACK(0, "wave", F(wave), parse_wave, "N",
                 "wavefront size for the unroll factor, 32 or 64 (default: the arch's)"),
    OPT_BOOL(0, "no-vendor-headers", F(ks.no_vendor_headers),
             "parse with rocm-perf's CUDA prelude instead of the ROCm or CUDA headers"),
    OPT_BOOL(0, "json", F(json), "print JSON (docs/schemas/kernels.schema.json)"),
    OPT_STRING('o', "out", F(out), "FILE",
               "write the output to FILE (atomically) instead of stdout"),
    OPT_END(),
};

static const rpl_command kernels_command = {
    .name = "kernels",
    .usage = "rocm-perf kernels SOURCE [--lang hip|cuda] [--arch A] [-I DIR]...\n"
             "                  [-D NAME[=VALUE]]... [--build \"CMD\"]\n"
             "                  [--compile-commands FILE] [--code-object FILE]\n"
             "                  [--wave 32|64]\n"
             "                  [--no-vendor-headers] [--json] [-o FILE] [-v|-q]",
    .description =
        "Parse a HIP or CUDA source with libclang, as the optimizer does, and print its\n"
        "__global__ kernels: qualified name, device symbol, signature, extent, launch\n"
        "bounds, and each loop with its nesting, unroll pragma, trip count and the\n"
        "verdict of the unroll guardrails (no unrolling across barriers, atomics,\n"
        "dynamic shared memory, break/return/goto or calls whose body is not visible).",
    .options = kernels_options,
    .notes = "libclang is loaded at run time: ROCM_PERF_LIBCLANG=/path/to/libclang.so picks the\n"
             "library, ROCM_PERF_CLANG_RESOURCE_DIR its resource directory.",
    .exit_codes = "0 ok, 2 bad usage or unreadable source, 3 libclang not found.",
};

/* 0 parsed, -1 after --help, else the exit code. */
static int parse_args(kernels_opts *o, int argc, char **argv)
{
    int rc = rpl_parse_options(&kernels_command, o, &argc, &argv);

    if (rc >= 0)
        return rc == 0 ? -1 : rc;
    if (argc != 1)
        return rpl_cli_usage_error("kernels takes one SOURCE; see 'rocm-perf kernels --help'");
    if (o->build && o->compile_commands)
        return rpl_cli_usage_error("--build and --compile-commands both give the compile "
                                   "command: pass one");
    o->source = argv[0];
    o->ks.include_dirs = o->includes;
    o->ks.defines = o->defines;
    return 0;
}

/*
 * --build's words as the build would run them ({src} SOURCE, {out} a scratch
 * output nothing writes, {dir} the working directory, {arch} --arch or the
 * GPU's, else empty: the default architecture), so that libclang gets real
 * paths in -include {src} or -I{dir}/include.
 */
static int build_words(kernels_opts *o)
{
    static const char *const names[] = {"src", "out", "dir", "arch"};
    const char *arch = o->ks.arch ? o->ks.arch : o->gpu_arch;
    const char *values[] = {o->source, "/dev/null", ".", arch};
    rpl_template *t = NULL;
    int rc = rpl_template_parse(&t, o->build, "--build", names, 4);

    if (rc == 0)
        rc = rpl_template_expand(&o->compile_words, t, names, values, 4);
    rpl_template_free(t);
    return rc;
}

/* The architecture of this machine's GPU, and the compile command's words. */
static int compile_context(kernels_opts *o)
{
    rpl_gpu_probe probe;
    int rc = 0;

    if (!o->ks.arch && rpl_gpu_probe_run(&probe, NULL) == 0) {
        snprintf(o->gpu_arch, sizeof(o->gpu_arch), "%s",
                 probe.nvidia_arch[0] ? probe.nvidia_arch : probe.amd_arch);
        o->ks.gpu_arch = o->gpu_arch[0] ? o->gpu_arch : NULL;
    }
    if (o->build && (rc = build_words(o)) != 0)
        return rc == RPL_EUSAGE ? rpl_cli_usage_error("%s", rpl_error_last()->message)
                                : rpl_cli_fail(rc);
    if (o->compile_commands && (rc = rpl_compile_db_find(o->compile_commands, o->source,
                                                         &o->compile_words, &o->compile_dir)) != 0)
        return rpl_cli_fail(rc == RPL_ENOTFOUND ? RPL_EINPUT : rc);
    if (o->code_object && ((rc = rpl_codeobj_set_new(&o->symbols)) != 0 ||
                           (rc = rpl_codeobj_read_file(o->symbols, o->code_object)) != 0))
        return rpl_cli_fail(rc);
    o->ks.compile_words = (const char *const *)o->compile_words;
    o->ks.compile_dir = o->compile_dir;
    return 0;
}

/* The wavefront size of the parsed architecture, unless --wave says otherwise. */
static unsigned wave_size(const kernels_opts *o, const rpl_kernel_source *src)
{
    const rpl_arch *a = rpl_arch_find(src->arch);

    if (o->wave)
        return o->wave;
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

static int text_output(rpl_strbuf *sb, const kernels_opts *o, const rpl_kernel_source *src)
{
    unsigned wave = wave_size(o, src);
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
        for (size_t j = 0; !rc && k->is_template && o->symbols && j < o->symbols->count; j++)
            if (is_instance(src, k, o->symbols->kernels[j].name))
                rc = rpl_strbuf_printf(sb, "  instantiation: %s\n", o->symbols->kernels[j].name);
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

static cJSON *json_output(const kernels_opts *o, const rpl_kernel_source *src)
{
    unsigned wave = wave_size(o, src);
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
        ok = cJSON_AddItemToArray(kernels, json_kernel(src, &src->kernels[i], wave, o->symbols));
    if (!ok) {
        cJSON_Delete(doc);
        return NULL;
    }
    return doc;
}

static int write_output(const kernels_opts *o, const char *text, size_t len)
{
    if (o->out)
        return rpl_file_write_atomic(o->out, text, len);
    if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
        return rpl_error_set(RPL_EIO, "cannot write to stdout: %s", strerror(errno));
    return 0;
}

int cmd_kernels(int argc, char **argv)
{
    kernels_opts o;
    rpl_kernel_source *src = NULL;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char *json = NULL;
    int rc;

    memset(&o, 0, sizeof(o));
    if ((rc = parse_args(&o, argc, argv)) != 0)
        return rc < 0 ? RPL_EXIT_OK : rc;
    if ((rc = compile_context(&o)) != 0 ||
        ((rc = rpl_kernel_source_parse_file(&src, o.source, &o.ks)) != 0 &&
         (rc = rpl_cli_fail(rc)) != 0)) {
        rpl_argv_free(o.compile_words);
        free(o.compile_dir);
        rpl_codeobj_set_free(o.symbols);
        return rc;
    }
    rpl_argv_free(o.compile_words);
    free(o.compile_dir);
    if (o.json) {
        cJSON *doc = json_output(&o, src);
        rc = doc ? rpl_json_print(&json, doc) : rpl_error_oom();
        cJSON_Delete(doc);
        if (!rc)
            rc = write_output(&o, json, strlen(json));
        free(json);
    } else {
        rc = text_output(&sb, &o, src);
        if (!rc)
            rc = write_output(&o, rpl_strbuf_cstr(&sb), sb.len);
        rpl_strbuf_release(&sb);
    }
    rpl_kernel_source_free(src);
    rpl_codeobj_set_free(o.symbols);
    return rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
}
