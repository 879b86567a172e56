/*
 * Kernels: every __global__ function or function template defined in the
 * main file, with its signature, device symbol and exact extent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ks_internal.h"
#include "rpl/error.h"

void ks_kernel_release(rpl_ks_kernel *k)
{
    free(k->name);
    free(k->qualified_name);
    free(k->mangled);
    for (size_t i = 0; i < k->n_params; i++) {
        free(k->params[i].name);
        free(k->params[i].type);
        free(k->params[i].canonical);
    }
    free(k->params);
    for (size_t i = 0; i < k->n_tparams; i++) {
        free(k->tparams[i].name);
        free(k->tparams[i].type);
    }
    free(k->tparams);
    free(k->launch_bounds);
    for (size_t i = 0; i < k->n_loops; i++)
        free(k->loops[i].blocker);
    free(k->loops);
    memset(k, 0, sizeof(*k));
}

/* What a visit of a function's direct children finds. */
typedef struct fn_children {
    const rpl_libclang *lc;
    bool global;
    CXCursor body;
    bool has_body;
    CXCursor *parms;
    size_t n_parms, cap_parms;
    CXCursor tparms[64];
    size_t n_tparms;
    bool oom;
} fn_children;

static enum CXChildVisitResult visit_fn_child(CXCursor c, CXCursor parent, CXClientData data)
{
    fn_children *f = data;
    enum CXCursorKind kind = f->lc->clang_getCursorKind(c);

    (void)parent;
    switch (kind) {
    case CXCursor_CUDAGlobalAttr:
        f->global = true;
        break;
    case CXCursor_CompoundStmt:
        f->body = c;
        f->has_body = true;
        break;
    case CXCursor_ParmDecl:
        if (f->n_parms == f->cap_parms) {
            size_t cap = f->cap_parms ? 2 * f->cap_parms : 8;
            CXCursor *grown = realloc(f->parms, cap * sizeof(*grown));
            if (!grown) {
                f->oom = true;
                return CXChildVisit_Break;
            }
            f->parms = grown;
            f->cap_parms = cap;
        }
        f->parms[f->n_parms++] = c;
        break;
    case CXCursor_TemplateTypeParameter:
    case CXCursor_NonTypeTemplateParameter:
    case CXCursor_TemplateTemplateParameter:
        if (f->n_tparms < sizeof(f->tparms) / sizeof(f->tparms[0]))
            f->tparms[f->n_tparms++] = c;
        break;
    default:
        break;
    }
    return CXChildVisit_Continue;
}

/* "alpha::scale": the enclosing namespaces, classes and the name. */
static char *qualified_name(const rpl_libclang *lc, CXCursor c)
{
    char *name = rpl_libclang_take_string(lc, lc->clang_getCursorSpelling(c));
    CXCursor p = lc->clang_getCursorSemanticParent(c);

    while (name && !lc->clang_Cursor_isNull(p)) {
        enum CXCursorKind kind = lc->clang_getCursorKind(p);
        char *outer, *joined;
        size_t n;

        if (kind != CXCursor_Namespace && kind != CXCursor_StructDecl &&
            kind != CXCursor_ClassDecl && kind != CXCursor_ClassTemplate)
            break;
        outer = rpl_libclang_take_string(lc, lc->clang_getCursorSpelling(p));
        if (!outer) {
            free(name);
            return NULL;
        }
        n = strlen(outer) + strlen(name) + 32;
        joined = malloc(n);
        if (joined)
            snprintf(joined, n, "%s::%s", outer[0] ? outer : "(anonymous namespace)", name);
        free(outer);
        free(name);
        name = joined;
        p = lc->clang_getCursorSemanticParent(p);
    }
    return name;
}

/* The '(' that the ')' at token `close` closes, or n_tokens. */
static size_t open_paren(const ks_unit *u, size_t close)
{
    size_t depth = 0;

    for (size_t i = close + 1; i-- > 0;) {
        if (ks_token_is(u, i, ")"))
            depth++;
        else if (ks_token_is(u, i, "(") && --depth == 0)
            return i;
    }
    return u->n_tokens;
}

/*
 * `NAME(...)` alone on the lines before token `next`: a macro invocation of
 * its own (`DECLARE_COUNTER(c)` with the ';' inside the macro), not part of
 * the declaration, unless NAME is an attribute keyword.
 */
static bool macro_line_before(const ks_unit *u, size_t next)
{
    static const char *const attrs[] = {"__launch_bounds__", "__attribute__", "__declspec",
                                        "alignas"};
    size_t close = next - 1, open, name;

    if (!ks_token_is(u, close, ")") ||
        !memchr(u->text + u->tokens[close].end, '\n', u->tokens[next].begin - u->tokens[close].end))
        return false;
    open = open_paren(u, close);
    if (open == 0 || open >= u->n_tokens)
        return false;
    name = open - 1;
    if (u->tokens[name].kind != CXToken_Identifier ||
        (name > 0 && !memchr(u->text + u->tokens[name - 1].end, '\n',
                             u->tokens[name].begin - u->tokens[name - 1].end)))
        return false;
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++)
        if (ks_token_is(u, name, attrs[i]))
            return false;
    return true;
}

/*
 * The first byte of the whole definition: back from clang's start over
 * everything that still belongs to the declaration (extern "C", attribute
 * macros, storage classes) to just after the previous declaration's ';' or
 * '}', an opening '{', a preprocessor line, or a macro invocation on lines
 * of its own.  Comments before it stay out.
 */
static size_t definition_start(const ks_unit *u, size_t clang_start)
{
    size_t i = ks_token_at(u, clang_start), first = i;

    while (i > 0) {
        const ks_token *t = &u->tokens[i - 1];
        if (t->directive || ks_token_is(u, i - 1, ";") || ks_token_is(u, i - 1, "}") ||
            ks_token_is(u, i - 1, "{") ||
            (first < u->n_tokens && i == first && macro_line_before(u, first)))
            break;
        i--;
        if (t->kind != CXToken_Comment)
            first = i;
    }
    return first < u->n_tokens && u->tokens[first].begin < clang_start ? u->tokens[first].begin
                                                                       : clang_start;
}

/* The arguments of a __launch_bounds__(...) between the definition's start and the name. */
static int launch_bounds(const ks_unit *u, size_t from, size_t name_offset, char **out)
{
    size_t end = ks_token_at(u, name_offset);

    *out = NULL;
    for (size_t i = ks_token_at(u, from); i + 1 < end; i++) {
        if (!ks_token_is(u, i, "__launch_bounds__") || !ks_token_is(u, i + 1, "("))
            continue;
        size_t close = ks_token_match(u, i + 1);
        if (close >= u->n_tokens || close == i + 2)
            return 0;
        size_t b = u->tokens[i + 2].begin, e = u->tokens[close - 1].end;
        *out = ks_strndup(u->text + b, e - b);
        return *out ? 0 : rpl_error_oom();
    }
    return 0;
}

static int fill_params(const ks_unit *u, CXCursor c, const fn_children *f, rpl_ks_kernel *k)
{
    const rpl_libclang *lc = u->lc;
    CXType fn = lc->clang_getCursorType(c);
    CXType canon = lc->clang_getCanonicalType(fn);
    int n = lc->clang_getNumArgTypes(fn);

    if (n <= 0)
        return 0;
    k->params = calloc((size_t)n, sizeof(*k->params));
    if (!k->params)
        return rpl_error_oom();
    k->n_params = (size_t)n;
    for (int i = 0; i < n; i++) {
        rpl_ks_param *p = &k->params[i];
        /* The function type's parameters: arrays and functions decayed; the canonical
           function type also drops top-level qualifiers, as mangling does. */
        p->type = rpl_libclang_take_string(
            lc, lc->clang_getTypeSpelling(lc->clang_getArgType(fn, (unsigned)i)));
        p->canonical = rpl_libclang_take_string(
            lc, lc->clang_getTypeSpelling(lc->clang_getArgType(canon, (unsigned)i)));
        p->name = (size_t)i < f->n_parms
                      ? rpl_libclang_take_string(lc, lc->clang_getCursorSpelling(f->parms[i]))
                      : strdup("");
        if (!p->type || !p->canonical || !p->name)
            return rpl_error_oom();
    }
    return 0;
}

static int fill_tparams(const ks_unit *u, const fn_children *f, rpl_ks_kernel *k)
{
    const rpl_libclang *lc = u->lc;

    if (f->n_tparms == 0)
        return 0;
    k->tparams = calloc(f->n_tparms, sizeof(*k->tparams));
    if (!k->tparams)
        return rpl_error_oom();
    k->n_tparams = f->n_tparms;
    for (size_t i = 0; i < f->n_tparms; i++) {
        rpl_ks_tparam *t = &k->tparams[i];
        enum CXCursorKind kind = lc->clang_getCursorKind(f->tparms[i]);
        t->kind = kind == CXCursor_TemplateTypeParameter      ? RPL_KS_TPARAM_TYPE
                  : kind == CXCursor_NonTypeTemplateParameter ? RPL_KS_TPARAM_VALUE
                                                              : RPL_KS_TPARAM_TEMPLATE;
        t->name = rpl_libclang_take_string(lc, lc->clang_getCursorSpelling(f->tparms[i]));
        if (!t->name)
            return rpl_error_oom();
        if (t->kind == RPL_KS_TPARAM_VALUE) {
            CXType ty = lc->clang_getCanonicalType(lc->clang_getCursorType(f->tparms[i]));
            t->type = rpl_libclang_take_string(lc, lc->clang_getTypeSpelling(ty));
            if (!t->type)
                return rpl_error_oom();
        }
    }
    return 0;
}

static int fill_kernel(ks_unit *u, CXCursor c, const fn_children *f, rpl_ks_kernel *k)
{
    const rpl_libclang *lc = u->lc;
    CXSourceRange ext = lc->clang_getCursorExtent(c);
    size_t begin = 0, end = 0, name_off = 0, bb = 0, be = 0;
    int rc;

    k->name = rpl_libclang_take_string(lc, lc->clang_getCursorSpelling(c));
    k->qualified_name = qualified_name(lc, c);
    if (!k->name || !k->qualified_name)
        return rpl_error_oom();
    k->is_template = lc->clang_getCursorKind(c) == CXCursor_FunctionTemplate;
    if (!k->is_template) {
        k->mangled = rpl_libclang_take_string(lc, lc->clang_Cursor_getMangling(c));
        if (!k->mangled)
            return rpl_error_oom();
        if (!k->mangled[0]) {
            free(k->mangled);
            k->mangled = NULL;
        }
    }
    /* Only C++ names are mangled: a plain symbol means C linkage. */
    k->extern_c = k->mangled && strncmp(k->mangled, "_Z", 2) != 0;

    ks_main_offset(u, lc->clang_getRangeStart(ext), &begin);
    ks_main_offset(u, lc->clang_getRangeEnd(ext), &end);
    ks_main_offset(u, lc->clang_getCursorLocation(c), &name_off);
    ks_main_offset(u, lc->clang_getRangeStart(lc->clang_getCursorExtent(f->body)), &bb);
    ks_main_offset(u, lc->clang_getRangeEnd(lc->clang_getCursorExtent(f->body)), &be);
    /* A name or body written by a macro cannot be edited in place: the text at their
       places is the macro's name. */
    k->in_macro = !ks_token_spans(u, name_off, name_off + strlen(k->name), k->name) ||
                  !ks_token_spans(u, bb, bb + 1, "{") || be == 0 ||
                  !ks_token_spans(u, be - 1, be, "}");
    begin = definition_start(u, begin);
    if (end < begin)
        end = begin;
    ks_range_set(u, &k->definition, begin, end);
    ks_range_set(u, &k->body, bb, be < bb ? bb : be);
    k->name_line = ks_line_of(u, name_off);
    if ((rc = launch_bounds(u, begin, name_off, &k->launch_bounds)) != 0 ||
        (rc = fill_params(u, c, f, k)) != 0 || (rc = fill_tparams(u, f, k)) != 0)
        return rc;
    return ks_collect_loops(u, f->body, k);
}

typedef struct collect {
    ks_unit *u;
    rpl_kernel_source *src;
    size_t cap;
    int rc;
} collect;

static enum CXChildVisitResult visit_decl(CXCursor c, CXCursor parent, CXClientData data);

/* A kernel to record: a definition with __global__, not an implicit instantiation. */
static int consider_function(collect *col, CXCursor c)
{
    const rpl_libclang *lc = col->u->lc;
    fn_children f = {.lc = lc};
    rpl_ks_kernel *k;
    int rc;

    if (!lc->clang_isCursorDefinition(c))
        return 0;
    /* An explicit instantiation shows up as a specialization at the template's place. */
    CXCursor tmpl = lc->clang_getSpecializedCursorTemplate(c);
    if (!lc->clang_Cursor_isNull(tmpl)) {
        size_t a = 0, b = 1;
        ks_main_offset(col->u, lc->clang_getCursorLocation(c), &a);
        ks_main_offset(col->u, lc->clang_getCursorLocation(tmpl), &b);
        if (a == b)
            return 0;
    }
    lc->clang_visitChildren(c, visit_fn_child, &f);
    if (f.oom) {
        free(f.parms);
        return rpl_error_oom();
    }
    if (!f.global || !f.has_body) {
        free(f.parms);
        return 0;
    }
    if (col->src->n_kernels == col->cap) {
        size_t cap = col->cap ? 2 * col->cap : 8;
        rpl_ks_kernel *grown = realloc(col->src->kernels, cap * sizeof(*grown));
        if (!grown) {
            free(f.parms);
            return rpl_error_oom();
        }
        col->src->kernels = grown;
        col->cap = cap;
    }
    k = &col->src->kernels[col->src->n_kernels++];
    memset(k, 0, sizeof(*k));
    rc = fill_kernel(col->u, c, &f, k);
    free(f.parms);
    return rc;
}

static enum CXChildVisitResult visit_decl(CXCursor c, CXCursor parent, CXClientData data)
{
    collect *col = data;
    const rpl_libclang *lc = col->u->lc;
    enum CXCursorKind kind = lc->clang_getCursorKind(c);

    size_t off;

    (void)parent;
    if (!ks_main_offset(col->u, lc->clang_getCursorLocation(c), &off))
        return CXChildVisit_Continue;
    switch (kind) {
    case CXCursor_Namespace:
    case CXCursor_LinkageSpec:
    case CXCursor_UnexposedDecl: /* extern "C" { } in libclang before 16 */
        lc->clang_visitChildren(c, visit_decl, col);
        break;
    case CXCursor_FunctionDecl:
    case CXCursor_FunctionTemplate:
        col->rc = consider_function(col, c);
        break;
    default:
        break;
    }
    return col->rc ? CXChildVisit_Break : CXChildVisit_Continue;
}

int ks_collect_kernels(ks_unit *u, rpl_kernel_source *src)
{
    collect col = {.u = u, .src = src};

    u->lc->clang_visitChildren(u->lc->clang_getTranslationUnitCursor(u->tu), visit_decl, &col);
    return col.rc;
}
