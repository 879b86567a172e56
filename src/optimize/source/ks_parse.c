/*
 * Parsing a kernel source with libclang: the translation unit, its
 * diagnostics, and the kernels found in it.  The translation unit is
 * disposed of once the kernels and loops are read; an edited text is parsed
 * again from scratch with the same command line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks_internal.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"

#define MAX_SOURCE_BYTES (16u << 20)
#define MAX_VIRTUAL      16

static void diag_release(rpl_ks_diag *d)
{
    free(d->file);
    free(d->message);
}

rpl_kernel_source *rpl_kernel_source_ref(rpl_kernel_source *src)
{
    src->refs++;
    return src;
}

void rpl_kernel_source_free(rpl_kernel_source *src)
{
    if (!src)
        return;
    if (src->refs) {
        src->refs--;
        return;
    }
    for (size_t i = 0; i < src->n_kernels; i++)
        ks_kernel_release(&src->kernels[i]);
    free(src->kernels);
    for (size_t i = 0; i < src->n_diags; i++)
        diag_release(&src->diags[i]);
    free(src->diags);
    free(src->name);
    free(src->text);
    free(src->arch);
    free(src->wanted_arch);
    free(src->clang_version);
    ks_ctx_free(src->ctx);
    free(src);
}

static int read_diag(const ks_unit *u, CXDiagnostic d, rpl_ks_diag *out)
{
    const rpl_libclang *lc = u->lc;
    CXSourceLocation loc = lc->clang_getDiagnosticLocation(d);
    CXFile file = NULL;
    unsigned line = 0, column = 0, offset = 0;

    out->severity = (int)lc->clang_getDiagnosticSeverity(d);
    lc->clang_getExpansionLocation(loc, &file, &line, &column, &offset);
    out->line = line;
    out->column = column;
    out->in_main_file = file && file == u->file;
    out->offset = out->in_main_file && offset <= u->len ? offset : 0;
    out->file = file ? rpl_libclang_take_string(lc, lc->clang_getFileName(file)) : strdup("");
    out->message = rpl_libclang_take_string(lc, lc->clang_getDiagnosticSpelling(d));
    if (!out->file || !out->message)
        return rpl_error_oom();
    return 0;
}

/* Errors first, then warnings, each in clang's order; notes are left out. */
static int read_diags(const ks_unit *u, rpl_kernel_source *src)
{
    const rpl_libclang *lc = u->lc;
    unsigned n = lc->clang_getNumDiagnostics(u->tu);
    int rc = 0;

    src->diags = calloc(RPL_KS_MAX_DIAGS, sizeof(*src->diags));
    if (!src->diags)
        return rpl_error_oom();
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        for (unsigned i = 0; i < n && rc == 0; i++) {
            CXDiagnostic d = lc->clang_getDiagnostic(u->tu, i);
            enum CXDiagnosticSeverity sev = lc->clang_getDiagnosticSeverity(d);
            bool is_error = sev >= CXDiagnostic_Error;
            if (sev >= CXDiagnostic_Warning && is_error == (pass == 0)) {
                if (pass == 0)
                    src->n_errors++;
                else
                    src->n_warnings++;
                if (src->n_diags < RPL_KS_MAX_DIAGS &&
                    (rc = read_diag(u, d, &src->diags[src->n_diags])) == 0)
                    src->n_diags++;
            }
            lc->clang_disposeDiagnostic(d);
        }
    }
    return rc;
}

static const char *parse_failure(enum CXErrorCode e)
{
    switch (e) {
    case CXError_Crashed:
        return "libclang crashed";
    case CXError_InvalidArguments:
        return "libclang refused the arguments";
    case CXError_ASTReadError:
        return "libclang could not read an AST file";
    default:
        return "libclang failed";
    }
}

static int new_source(rpl_kernel_source **out, const rpl_libclang *lc, const rpl_ks_parse_ctx *ctx,
                      const char *name, const char *text, size_t len)
{
    rpl_kernel_source *src = calloc(1, sizeof(*src));
    int rc;

    *out = NULL;
    if (!src)
        return rpl_error_oom();
    src->name = strdup(name);
    src->text = ks_strndup(text, len);
    src->len = len;
    src->mode = ctx->mode;
    src->arch = strdup(ctx->arch);
    src->clang_version = strdup(lc->version);
    if (ctx->wanted_arch && strcmp(ctx->wanted_arch, ctx->arch) != 0 &&
        !(src->wanted_arch = strdup(ctx->wanted_arch))) {
        rpl_kernel_source_free(src);
        return rpl_error_oom();
    }
    if (!src->name || !src->text || !src->arch || !src->clang_version) {
        rpl_kernel_source_free(src);
        return rpl_error_oom();
    }
    if ((rc = ks_ctx_dup(&src->ctx, ctx)) != 0) {
        rpl_kernel_source_free(src);
        return rc;
    }
    *out = src;
    return 0;
}

int ks_parse(rpl_kernel_source **out, const rpl_ks_parse_ctx *ctx, const char *name,
             const char *text, size_t len)
{
    const rpl_libclang *lc;
    struct CXUnsavedFile files[MAX_VIRTUAL + 1];
    size_t n_files;
    ks_unit u = {0};
    rpl_kernel_source *src = NULL;
    CXIndex index = NULL;
    enum CXErrorCode e;
    int rc;

    *out = NULL;
    if (len > MAX_SOURCE_BYTES || memchr(text, '\0', len))
        return rpl_error_set(RPL_EINPUT, "%s: not a source file (NUL bytes or over 16 MiB)", name);
    if ((rc = rpl_libclang_get(&lc)) != 0)
        return rc;
    if ((rc = new_source(&src, lc, ctx, name, text, len)) != 0)
        return rc;
    files[0].Filename = name;
    files[0].Contents = src->text;
    files[0].Length = (unsigned long)len;
    n_files = 1 + ks_virtual_files(ctx->mode, files + 1, MAX_VIRTUAL);

    index = lc->clang_createIndex(0, 0);
    e = lc->clang_parseTranslationUnit2(
        index, name, (const char *const *)ctx->args, (int)ctx->n_args, files, (unsigned)n_files,
        CXTranslationUnit_KeepGoing | CXTranslationUnit_IgnoreNonErrorsFromIncludedFiles, &u.tu);
    if (e != CXError_Success || !u.tu) {
        rc = rpl_error_set(RPL_EINPUT, "%s: %s to parse it", name, parse_failure(e));
        goto done;
    }
    u.lc = lc;
    u.text = src->text;
    u.len = len;
    u.file = lc->clang_getFile(u.tu, name);
    if (!u.file) {
        rc = rpl_error_set(RPL_EINPUT, "%s: libclang lost the main file", name);
        goto done;
    }
    if ((rc = read_diags(&u, src)) != 0)
        goto done;
    if (src->n_diags && src->diags[0].severity >= CXDiagnostic_Error)
        u.first_error = &src->diags[0];
    if ((rc = ks_unit_tokenize(&u)) != 0 || (rc = ks_collect_kernels(&u, src)) != 0)
        goto done;
    *out = src;
    src = NULL;
done:
    ks_unit_release(&u);
    if (u.tu)
        lc->clang_disposeTranslationUnit(u.tu);
    if (index)
        lc->clang_disposeIndex(index);
    rpl_kernel_source_free(src);
    return rc;
}

int rpl_kernel_source_parse_buffer(rpl_kernel_source **out, const char *name, const char *text,
                                   size_t len, const rpl_ks_options *opts)
{
    const rpl_libclang *lc;
    rpl_ks_parse_ctx *ctx = NULL;
    int rc;

    *out = NULL;
    if ((rc = rpl_libclang_get(&lc)) != 0)
        return rc;
    if ((rc = ks_ctx_new(&ctx, lc, name, opts)) != 0)
        return rc;
    rc = ks_parse(out, ctx, name, text, len);
    ks_ctx_free(ctx);
    return rc;
}

int rpl_kernel_source_parse_file(rpl_kernel_source **out, const char *path,
                                 const rpl_ks_options *opts)
{
    char *text = NULL;
    size_t len = 0;
    int rc;

    *out = NULL;
    if ((rc = rpl_file_read_all(path, MAX_SOURCE_BYTES, &text, &len)) != 0)
        return rc;
    rc = rpl_kernel_source_parse_buffer(out, path, text, len, opts);
    free(text);
    return rc;
}

/* "a, b, c": the qualified names (or symbols) of the kernels that `match` accepts. */
static void list_matches(const rpl_kernel_source *src, const char *name, bool by_qualified,
                         char *list, size_t size)
{
    size_t used = 0;

    list[0] = '\0';
    for (size_t i = 0; i < src->n_kernels && used < size; i++) {
        const rpl_ks_kernel *k = &src->kernels[i];
        if (strcmp(by_qualified ? k->qualified_name : k->name, name) != 0)
            continue;
        int n = snprintf(list + used, size - used, "%s%s", used ? ", " : "",
                         by_qualified && k->mangled ? k->mangled : k->qualified_name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/*
 * The qualified name an Itanium symbol of a template instantiation spells
 * ("_ZN2ns8tiled_mmILj16EEvPKf" -> "ns::tiled_mm"): its <number><name>
 * components up to the template arguments.  false for anything else.
 */
static bool symbol_template_name(const char *sym, char *out, size_t size)
{
    const char *p = sym + 2;
    size_t used = 0;
    bool nested;

    if (strncmp(sym, "_Z", 2) != 0)
        return false;
    nested = *p == 'N';
    p += nested;
    out[0] = '\0';
    while (*p >= '1' && *p <= '9') {
        char *end;
        unsigned long n = strtoul(p, &end, 10);
        if (n == 0 || strnlen(end, n) < n)
            return false;
        int w = snprintf(out + used, size - used, "%s%.*s", used ? "::" : "", (int)n, end);
        if (w < 0 || (size_t)w >= size - used)
            return false;
        used += (size_t)w;
        p = end + n;
        if (!nested)
            break;
    }
    return used > 0 && *p == 'I';
}

/*
 * The qualified name a demangled instantiation spells: "void
 * ns::tiled_mm<16u>(float const*, ...)" or "tiled_mm<16>" -> "ns::tiled_mm".
 */
static bool demangled_template_name(const char *name, char *out, size_t size)
{
    const char *lt = strchr(name, '<'), *begin = lt;

    if (!lt || lt == name)
        return false;
    while (begin > name && begin[-1] != ' ' && begin[-1] != '*' && begin[-1] != '&')
        begin--;
    if (lt - begin <= 0 || (size_t)(lt - begin) >= size)
        return false;
    snprintf(out, size, "%.*s", (int)(lt - begin), begin);
    return true;
}

/* The one template kernel an instantiation's symbol or demangled name belongs to. */
static const rpl_ks_kernel *find_template(const rpl_kernel_source *src, const char *name)
{
    char qualified[512];
    const rpl_ks_kernel *found = NULL;

    if (!symbol_template_name(name, qualified, sizeof(qualified)) &&
        !demangled_template_name(name, qualified, sizeof(qualified)))
        return NULL;
    for (size_t i = 0; i < src->n_kernels; i++) {
        const rpl_ks_kernel *k = &src->kernels[i];
        if (!k->is_template || strcmp(k->qualified_name, qualified) != 0)
            continue;
        if (found)
            return NULL; /* overloaded templates: the signature would have to decide */
        found = k;
    }
    return found;
}

int rpl_kernel_source_find(const rpl_kernel_source *src, const char *name,
                           const rpl_ks_kernel **out)
{
    char list[512];

    *out = NULL;
    for (size_t i = 0; i < src->n_kernels; i++)
        if (src->kernels[i].mangled && strcmp(src->kernels[i].mangled, name) == 0) {
            *out = &src->kernels[i];
            return 0;
        }
    /* A qualified name (overloads share one), then a plain name. */
    for (int by_qualified = 1; by_qualified >= 0; by_qualified--) {
        size_t matches = 0;
        for (size_t i = 0; i < src->n_kernels; i++) {
            const rpl_ks_kernel *k = &src->kernels[i];
            if (strcmp(by_qualified ? k->qualified_name : k->name, name) == 0 && matches++ == 0)
                *out = k;
        }
        if (matches == 1)
            return 0;
        if (matches > 1) {
            *out = NULL;
            list_matches(src, name, by_qualified, list, sizeof(list));
            return rpl_error_set(RPL_EINPUT, "kernel name '%s' is ambiguous in %s: %s", name,
                                 src->name, list);
        }
    }
    if ((*out = find_template(src, name)) != NULL)
        return 0;
    return rpl_error_set(RPL_ENOTFOUND, "%s defines no kernel '%s'", src->name, name);
}

const rpl_ks_diag *rpl_ks_kernel_error(const rpl_kernel_source *src, const rpl_ks_kernel *k)
{
    for (size_t i = 0; i < src->n_diags; i++) {
        const rpl_ks_diag *d = &src->diags[i];
        if (d->severity >= CXDiagnostic_Error && d->in_main_file &&
            d->offset >= k->definition.begin && d->offset < k->definition.end)
            return d;
    }
    return NULL;
}
