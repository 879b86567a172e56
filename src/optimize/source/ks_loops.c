/*
 * The loops of a kernel and what their bodies do, for the seed's unroll
 * guardrails: barriers, atomics, dynamic shared memory, break, return, goto
 * and calls whose bodies cannot be seen.  Calls are followed into functions
 * defined in the translation unit outside system headers (each summarised
 * once); calls into system headers are library functions judged by name.
 * Everything comes from the AST, not from the text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ks_internal.h"
#include "rpl/error.h"

/* Guardrail categories, in the order the blocker message prefers them. */
enum {
    CAT_BARRIER,
    CAT_ATOMIC,
    CAT_DYNSHARED,
    CAT_BREAK,
    CAT_RETURN,
    CAT_GOTO,
    CAT_UNKNOWN,
    N_CAT
};

#define MAX_NEST   256
#define NO_SUMMARY ((size_t)-1)

/* What a called function does, followed transitively; phrases like "calls __syncthreads". */
typedef struct summary {
    CXCursor def; /* a recursive call finds it while it is walked: what is known so far */
    char *what[N_CAT];
} summary;

typedef struct frame {
    bool is_loop; /* else a switch, which a break leaves instead */
    size_t loop;
} frame;

typedef struct walk {
    ks_unit *u;
    const rpl_libclang *lc;
    rpl_ks_kernel *k;
    size_t cap;
    char **evidence; /* N_CAT per loop: the first "calls __syncthreads (line 21)" */
    frame stack[MAX_NEST];
    size_t depth;
    size_t loops_open;
    summary *memo;
    size_t n_memo, cap_memo;
    size_t summarizing; /* the summary being filled, or NO_SUMMARY in the kernel itself */
    int rc;
} walk;

static enum CXChildVisitResult visit_stmt(CXCursor c, CXCursor parent, CXClientData data);

static unsigned line_of_cursor(const walk *w, CXCursor c)
{
    size_t off = 0;

    if (!ks_main_offset(w->u, w->lc->clang_getCursorLocation(c), &off))
        return 0;
    return ks_line_of(w->u, off);
}

static void fail(walk *w, int rc)
{
    if (!w->rc)
        w->rc = rc;
}

/*
 * Record a fact: in the summary being built, or as evidence on the open
 * loops (only the innermost breakable statement for a break).
 */
static void mark(walk *w, int cat, const char *text)
{
    if (w->summarizing != NO_SUMMARY) {
        summary *s = &w->memo[w->summarizing];
        if (!s->what[cat] && !(s->what[cat] = strdup(text)))
            fail(w, rpl_error_oom());
        return;
    }
    for (size_t i = w->depth; i-- > 0;) {
        if (cat == CAT_BREAK && !w->stack[i].is_loop)
            return;
        if (!w->stack[i].is_loop)
            continue;
        char **slot = &w->evidence[w->stack[i].loop * N_CAT + (size_t)cat];
        if (!*slot && !(*slot = strdup(text))) {
            fail(w, rpl_error_oom());
            return;
        }
        if (cat == CAT_BREAK)
            return;
    }
}

static void mark_at(walk *w, int cat, const char *what, CXCursor at)
{
    char buf[600];

    if (w->summarizing != NO_SUMMARY)
        mark(w, cat, what);
    else {
        snprintf(buf, sizeof(buf), "%s (line %u)", what, line_of_cursor(w, at));
        mark(w, cat, buf);
    }
}

static bool is_barrier_name(const char *name)
{
    static const char *const names[] = {"__syncthreads",
                                        "__syncthreads_count",
                                        "__syncthreads_and",
                                        "__syncthreads_or",
                                        "__syncwarp",
                                        "__barrier_sync",
                                        "__barrier_sync_count",
                                        "__work_group_barrier",
                                        "__builtin_amdgcn_s_barrier",
                                        "__builtin_amdgcn_wave_barrier",
                                        "__nvvm_bar_sync",
                                        "__nvvm_barrier_sync",
                                        "__nvvm_barrier_sync_cnt",
                                        "__nvvm_bar0_popc",
                                        "__nvvm_bar0_and",
                                        "__nvvm_bar0_or",
                                        "__nvvm_bar_warp_sync"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

static bool contains_nocase(const char *s, const char *word)
{
    size_t n = strlen(word);

    for (; *s; s++)
        if (strncasecmp(s, word, n) == 0)
            return true;
    return false;
}

/* An enclosing namespace or class whose name contains `word`. */
static bool parent_contains(const rpl_libclang *lc, CXCursor c, const char *word)
{
    CXCursor p = lc->clang_getCursorSemanticParent(c);
    bool found = false;

    for (int hops = 0; !found && hops < 16 && !lc->clang_Cursor_isNull(p); hops++) {
        enum CXCursorKind kind = lc->clang_getCursorKind(p);
        if (kind == CXCursor_TranslationUnit)
            break;
        char *name = rpl_libclang_take_string(lc, lc->clang_getCursorSpelling(p));
        found = name && contains_nocase(name, word);
        free(name);
        p = lc->clang_getCursorSemanticParent(p);
    }
    return found;
}

/* Barrier, atomic or neither, by the callee's name (and its class or namespace). */
static int classify_by_name(const rpl_libclang *lc, CXCursor ref, bool have_ref, const char *name)
{
    if (is_barrier_name(name))
        return CAT_BARRIER;
    if (have_ref &&
        (strcmp(name, "sync") == 0 || strcmp(name, "barrier_wait") == 0 ||
         strcmp(name, "arrive_and_wait") == 0) &&
        (parent_contains(lc, ref, "cooperative_groups") || parent_contains(lc, ref, "barrier")))
        return CAT_BARRIER;
    if (contains_nocase(name, "atomic") || (have_ref && parent_contains(lc, ref, "atomic")))
        return CAT_ATOMIC;
    return -1;
}

static bool is_function_kind(enum CXCursorKind kind)
{
    return kind == CXCursor_FunctionDecl || kind == CXCursor_CXXMethod ||
           kind == CXCursor_FunctionTemplate || kind == CXCursor_Constructor ||
           kind == CXCursor_Destructor || kind == CXCursor_ConversionFunction;
}

static bool is_builtin_name(const char *name)
{
    return strncmp(name, "__builtin_", 10) == 0 || strncmp(name, "__nvvm_", 7) == 0 ||
           strncmp(name, "__ockl_", 7) == 0 || strncmp(name, "__ocml_", 7) == 0;
}

static size_t summarize(walk *w, CXCursor def);

/* Add what the function defined at `def` does to the loops (or the summary), as called at `call`.
 */
static void merge_summary(walk *w, CXCursor def, const char *name, CXCursor call)
{
    size_t s = summarize(w, def);

    for (int c = 0; s != NO_SUMMARY && c < N_CAT && !w->rc; c++) {
        const char *what = w->memo[s].what[c];
        char buf[700];
        if (!what)
            continue;
        if (w->summarizing != NO_SUMMARY)
            snprintf(buf, sizeof(buf), "calls %s, which %s", name, what);
        else
            snprintf(buf, sizeof(buf), "calls %s (line %u), which %s", name,
                     line_of_cursor(w, call), what);
        mark(w, c, buf);
    }
}

static enum CXChildVisitResult first_child(CXCursor c, CXCursor parent, CXClientData data)
{
    (void)parent;
    *(CXCursor *)data = c;
    return CXChildVisit_Break;
}

/*
 * The callee's name of a dependent call written as a call, `f(x)`,
 * `ns::f<T>(x)`, `v.f(x)`: its first child starts the call and is followed
 * by '(' (after any template arguments); the name is the last identifier
 * before them.  Empty for an operator on a dependent type (its first child
 * is an operand, or the operator itself before its operand) and for calls
 * outside the main file, whose tokens are not at hand.
 */
static void dependent_callee(const walk *w, CXCursor call, CXCursor *callee, char *name,
                             size_t size)
{
    const rpl_libclang *lc = w->lc;
    const ks_unit *u = w->u;
    CXSourceRange cr = lc->clang_getCursorExtent(call), r;
    size_t call_begin = 0, begin = 0, end = 0, i, last = SIZE_MAX;

    name[0] = '\0';
    *callee = lc->clang_getNullCursor();
    lc->clang_visitChildren(call, first_child, callee);
    if (lc->clang_Cursor_isNull(*callee))
        return;
    r = lc->clang_getCursorExtent(*callee);
    if (!ks_main_offset(u, lc->clang_getRangeStart(cr), &call_begin) ||
        !ks_main_offset(u, lc->clang_getRangeStart(r), &begin) ||
        !ks_main_offset(u, lc->clang_getRangeEnd(r), &end) || begin != call_begin)
        return;
    for (i = ks_token_at(u, begin); i < u->n_tokens && u->tokens[i].begin < end; i++) {
        if (ks_token_is(u, i, "<"))
            break;
        if (u->tokens[i].kind == CXToken_Identifier)
            last = i;
    }
    if (i < u->n_tokens && ks_token_is(u, i, "<"))
        i = ks_token_match(u, i) + 1;
    else
        i = ks_token_at(u, end);
    if (last == SIZE_MAX || !ks_token_is(u, i, "("))
        return;
    snprintf(name, size, "%.*s", (int)(u->tokens[last].end - u->tokens[last].begin),
             u->text + u->tokens[last].begin);
}

/*
 * A named call in a template whose callee depends on a template parameter
 * (`twice(v[i])` over T): judged by its name, and the candidates name
 * lookup found (`ref`, an overload set) are followed where their bodies are
 * visible.
 */
static void on_dependent_call(walk *w, CXCursor call, CXCursor ref, const char *name)
{
    const rpl_libclang *lc = w->lc;
    bool followed = false, library = false;
    char text[300];
    int cat;

    if ((cat = classify_by_name(lc, ref, false, name)) >= 0) {
        snprintf(text, sizeof(text), "calls %s", name);
        mark_at(w, cat, text, call);
        return;
    }
    if (!lc->clang_Cursor_isNull(ref) && lc->clang_getCursorKind(ref) == CXCursor_OverloadedDeclRef)
        for (unsigned i = 0; i < lc->clang_getNumOverloadedDecls(ref) && !w->rc; i++) {
            CXCursor d = lc->clang_getOverloadedDecl(ref, i);
            CXCursor def = lc->clang_getCursorDefinition(d);
            if (lc->clang_Location_isInSystemHeader(lc->clang_getCursorLocation(d)))
                library = true;
            else if (!lc->clang_Cursor_isNull(def)) {
                merge_summary(w, def, name, call);
                followed = true;
            }
        }
    if (!followed && !library && !is_builtin_name(name)) {
        snprintf(text, sizeof(text), "calls %s, which depends on a template parameter", name);
        mark_at(w, CAT_UNKNOWN, text, call);
    }
}

/*
 * A variable, parameter or member called: a function pointer, or a value of a dependent
 * type.  An operator on a dependent type is no call; a callee the parser could not resolve
 * because of an error is said to be unknown; a named call that depends on a template
 * parameter is judged by its name and its candidates.
 */
static void on_value_call(walk *w, CXCursor call, CXCursor ref, enum CXCursorKind kind,
                          const char *name)
{
    const rpl_libclang *lc = w->lc;
    bool have_ref = !lc->clang_Cursor_isNull(ref);
    bool dependent = lc->clang_getCursorType(call).kind == CXType_Dependent;
    bool pointer =
        kind == CXCursor_VarDecl || kind == CXCursor_ParmDecl || kind == CXCursor_FieldDecl;
    const rpl_ks_diag *e = w->u->first_error;
    char callee[200] = "", text[300];
    const char *called = name;
    int cat;

    if (dependent && !name[0]) {
        CXCursor first;
        dependent_callee(w, call, &first, callee, sizeof(callee));
        called = callee;
        if (!have_ref && !lc->clang_Cursor_isNull(first))
            ref = lc->clang_getCursorReferenced(first);
    }
    bool resolved = !lc->clang_Cursor_isNull(ref) &&
                    (lc->clang_getCursorKind(ref) != CXCursor_OverloadedDeclRef ||
                     lc->clang_getNumOverloadedDecls(ref) > 0);
    if (pointer && dependent) {
        snprintf(text, sizeof(text), "calls %s, whose type depends on a template parameter", name);
        mark_at(w, CAT_UNKNOWN, text, call);
    } else if (pointer)
        mark_at(w, CAT_UNKNOWN, "calls through a function pointer", call);
    else if (dependent && (!called[0] || strncmp(called, "operator", 8) == 0))
        ; /* no call until the template is instantiated */
    else if (e && !resolved) {
        snprintf(text, sizeof(text), "unknown callee%s%s: parse error in %s:%u",
                 called[0] ? " " : "", called, e->file[0] ? e->file : "(command line)", e->line);
        mark_at(w, CAT_UNKNOWN, text, call);
    } else if (dependent)
        on_dependent_call(w, call, ref, called);
    else if (!name[0])
        mark_at(w, CAT_UNKNOWN, "calls through a function pointer", call);
    else if ((cat = classify_by_name(lc, ref, false, name)) >= 0) {
        snprintf(text, sizeof(text), "calls %s", name);
        mark_at(w, cat, text, call);
    }
}

/* A call of a function `ref`: judged by its name, else by its body where it is visible. */
static void on_function_call(walk *w, CXCursor call, CXCursor ref, enum CXCursorKind kind,
                             const char *name)
{
    const rpl_libclang *lc = w->lc;
    char text[300];
    int cat;

    if ((cat = classify_by_name(lc, ref, true, name)) >= 0) {
        snprintf(text, sizeof(text), "calls %s", name);
        mark_at(w, cat, text, call);
        return;
    }
    if (lc->clang_Location_isInSystemHeader(lc->clang_getCursorLocation(ref)) ||
        is_builtin_name(name))
        return;
    CXCursor def = lc->clang_getCursorDefinition(ref);
    if (lc->clang_Cursor_isNull(def)) {
        CXCursor tmpl = lc->clang_getSpecializedCursorTemplate(ref);
        if (!lc->clang_Cursor_isNull(tmpl))
            def = lc->clang_getCursorDefinition(tmpl);
    }
    if (!lc->clang_Cursor_isNull(def) &&
        !lc->clang_Location_isInSystemHeader(lc->clang_getCursorLocation(def))) {
        merge_summary(w, def, name, call);
    } else if (kind != CXCursor_Constructor && kind != CXCursor_Destructor &&
               kind != CXCursor_ConversionFunction) {
        /* Implicit constructors and conversions have no body to show; they are harmless. */
        snprintf(text, sizeof(text), "calls %s, whose body is not visible", name);
        mark_at(w, CAT_UNKNOWN, text, call);
    }
}

static void on_call(walk *w, CXCursor call)
{
    const rpl_libclang *lc = w->lc;
    CXCursor ref = lc->clang_getCursorReferenced(call);
    bool have_ref = !lc->clang_Cursor_isNull(ref);
    enum CXCursorKind kind = have_ref ? lc->clang_getCursorKind(ref) : CXCursor_InvalidCode;
    char *name = rpl_libclang_take_string(
        lc, lc->clang_getCursorSpelling(have_ref && is_function_kind(kind) ? ref : call));

    if (!name) {
        fail(w, rpl_error_oom());
        return;
    }
    if (is_function_kind(kind))
        on_function_call(w, call, ref, kind, name);
    else
        on_value_call(w, call, ref, kind, name);
    free(name);
}

typedef struct attr_probe {
    const rpl_libclang *lc;
    bool shared;
} attr_probe;

static enum CXChildVisitResult visit_var_attr(CXCursor c, CXCursor parent, CXClientData data)
{
    attr_probe *p = data;

    (void)parent;
    if (p->lc->clang_getCursorKind(c) == CXCursor_CUDASharedAttr)
        p->shared = true;
    return CXChildVisit_Continue;
}

/* A reference to `extern __shared__ T name[]`: dynamic shared memory (LDS). */
static void on_ref(walk *w, CXCursor refexpr)
{
    const rpl_libclang *lc = w->lc;
    CXCursor var = lc->clang_getCursorReferenced(refexpr);
    attr_probe probe = {.lc = lc};
    char text[300];

    if (lc->clang_Cursor_isNull(var) || lc->clang_getCursorKind(var) != CXCursor_VarDecl ||
        lc->clang_Cursor_getStorageClass(var) != CX_SC_Extern ||
        lc->clang_getCursorType(var).kind != CXType_IncompleteArray)
        return;
    lc->clang_visitChildren(var, visit_var_attr, &probe);
    if (!probe.shared)
        return;
    char *name = rpl_libclang_take_string(lc, lc->clang_getCursorSpelling(var));
    if (!name) {
        fail(w, rpl_error_oom());
        return;
    }
    snprintf(text, sizeof(text), "uses dynamic shared memory '%s'", name);
    free(name);
    mark_at(w, CAT_DYNSHARED, text, refexpr);
}

static size_t summarize(walk *w, CXCursor def)
{
    const rpl_libclang *lc = w->lc;
    size_t s, saved;
    frame saved_stack[MAX_NEST];
    size_t saved_depth = w->depth, saved_open = w->loops_open;

    for (s = 0; s < w->n_memo; s++)
        if (lc->clang_equalCursors(w->memo[s].def, def))
            return s;
    if (w->n_memo == w->cap_memo) {
        size_t cap = w->cap_memo ? 2 * w->cap_memo : 16;
        summary *grown = realloc(w->memo, cap * sizeof(*grown));
        if (!grown) {
            fail(w, rpl_error_oom());
            return NO_SUMMARY;
        }
        w->memo = grown;
        w->cap_memo = cap;
    }
    s = w->n_memo++;
    memset(&w->memo[s], 0, sizeof(w->memo[s]));
    w->memo[s].def = def;
    saved = w->summarizing;
    memcpy(saved_stack, w->stack, w->depth * sizeof(w->stack[0]));
    w->summarizing = s;
    w->depth = w->loops_open = 0;
    lc->clang_visitChildren(def, visit_stmt, w);
    w->summarizing = saved;
    memcpy(w->stack, saved_stack, saved_depth * sizeof(w->stack[0]));
    w->depth = saved_depth;
    w->loops_open = saved_open;
    return s;
}

static int add_loop(walk *w, CXCursor c, rpl_ks_loop_kind kind)
{
    const rpl_libclang *lc = w->lc;
    rpl_ks_kernel *k = w->k;
    CXSourceRange ext = lc->clang_getCursorExtent(c);
    size_t begin = 0, end = 0;
    rpl_ks_loop *l;

    if (k->n_loops == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 8;
        rpl_ks_loop *grown = realloc(k->loops, cap * sizeof(*grown));
        char **ev;
        if (!grown)
            return rpl_error_oom();
        k->loops = grown;
        ev = realloc(w->evidence, cap * N_CAT * sizeof(*ev));
        if (!ev)
            return rpl_error_oom();
        memset(ev + w->cap * N_CAT, 0, (cap - w->cap) * N_CAT * sizeof(*ev));
        w->evidence = ev;
        w->cap = cap;
    }
    l = &k->loops[k->n_loops];
    memset(l, 0, sizeof(*l));
    l->index = (unsigned)k->n_loops;
    l->kind = kind;
    l->depth = (unsigned)w->loops_open;
    l->pragma_unroll = RPL_KS_PRAGMA_NONE;
    ks_main_offset(w->u, lc->clang_getRangeStart(ext), &begin);
    ks_main_offset(w->u, lc->clang_getRangeEnd(ext), &end);
    /* clang's extent of `for (...) x += 1;` and of a do-while stops before the ';'. */
    size_t semi = ks_token_at(w->u, end);
    if (end > begin && semi > 0 && semi < w->u->n_tokens && ks_token_is(w->u, semi, ";") &&
        !ks_token_is(w->u, semi - 1, "}"))
        end = w->u->tokens[semi].end;
    ks_range_set(w->u, &l->range, begin, end < begin ? begin : end);
    k->n_loops++;
    for (size_t i = 0; i < w->depth; i++)
        if (w->stack[i].is_loop)
            k->loops[w->stack[i].loop].n_inner++;
    /* A loop a macro wrote starts at the macro's name, not at its keyword. */
    size_t kw = ks_token_at(w->u, begin);
    const char *keyword = kind == RPL_KS_LOOP_WHILE ? "while"
                          : kind == RPL_KS_LOOP_DO  ? "do"
                                                    : "for";
    l->in_macro =
        !(kw < w->u->n_tokens && w->u->tokens[kw].begin == begin && ks_token_is(w->u, kw, keyword));
    if (!l->in_macro) {
        ks_loop_pragma(w->u, kw, l);
        ks_loop_trip_count(w->u, c, kw, l);
    }
    return 0;
}

/* Visit the children of c with a loop or switch frame pushed. */
static void nested(walk *w, CXCursor c, bool is_loop, size_t loop)
{
    if (w->depth == MAX_NEST) {
        fail(w, rpl_error_set(RPL_EINPUT, "loops and switches nested deeper than %d", MAX_NEST));
        return;
    }
    w->stack[w->depth].is_loop = is_loop;
    w->stack[w->depth].loop = loop;
    w->depth++;
    if (is_loop)
        w->loops_open++;
    w->lc->clang_visitChildren(c, visit_stmt, w);
    w->depth--;
    if (is_loop)
        w->loops_open--;
}

static enum CXChildVisitResult visit_stmt(CXCursor c, CXCursor parent, CXClientData data)
{
    walk *w = data;
    enum CXCursorKind kind = w->lc->clang_getCursorKind(c);
    bool in_kernel = w->summarizing == NO_SUMMARY;
    bool watched = !in_kernel || w->loops_open > 0;
    int rc;

    (void)parent;
    if (w->rc)
        return CXChildVisit_Break;
    switch (kind) {
    case CXCursor_ForStmt:
    case CXCursor_WhileStmt:
    case CXCursor_DoStmt:
    case CXCursor_CXXForRangeStmt:
        if (!in_kernel)
            return CXChildVisit_Recurse;
        if ((rc = add_loop(w, c,
                           kind == CXCursor_ForStmt     ? RPL_KS_LOOP_FOR
                           : kind == CXCursor_WhileStmt ? RPL_KS_LOOP_WHILE
                           : kind == CXCursor_DoStmt    ? RPL_KS_LOOP_DO
                                                        : RPL_KS_LOOP_RANGE_FOR)) != 0) {
            fail(w, rc);
            return CXChildVisit_Break;
        }
        nested(w, c, true, w->k->n_loops - 1);
        return CXChildVisit_Continue;
    case CXCursor_SwitchStmt:
        nested(w, c, false, 0);
        return CXChildVisit_Continue;
    case CXCursor_LambdaExpr:
        /* Its body runs where it is called; the call is followed like any other. */
        return CXChildVisit_Continue;
    case CXCursor_BreakStmt:
        if (in_kernel && watched)
            mark_at(w, CAT_BREAK, "breaks out of the loop", c);
        return CXChildVisit_Continue;
    case CXCursor_ReturnStmt:
        if (in_kernel && watched)
            mark_at(w, CAT_RETURN, "returns from the kernel", c);
        return CXChildVisit_Recurse;
    case CXCursor_GotoStmt:
    case CXCursor_IndirectGotoStmt:
        if (in_kernel && watched)
            mark_at(w, CAT_GOTO, "has a goto", c);
        return CXChildVisit_Recurse;
    case CXCursor_CallExpr:
        if (watched)
            on_call(w, c);
        return CXChildVisit_Recurse;
    case CXCursor_DeclRefExpr:
        if (watched)
            on_ref(w, c);
        return CXChildVisit_Recurse;
    default:
        return CXChildVisit_Recurse;
    }
}

/* Flags and the first blocker, in the order of the categories. */
static int conclude(walk *w)
{
    for (size_t i = 0; i < w->k->n_loops; i++) {
        rpl_ks_loop *l = &w->k->loops[i];
        char **ev = &w->evidence[i * N_CAT];
        l->has_barrier = ev[CAT_BARRIER] != NULL;
        l->has_atomic = ev[CAT_ATOMIC] != NULL;
        l->has_dynamic_shared = ev[CAT_DYNSHARED] != NULL;
        l->has_break = ev[CAT_BREAK] != NULL;
        l->has_return = ev[CAT_RETURN] != NULL;
        l->has_goto = ev[CAT_GOTO] != NULL;
        l->has_unknown_call = ev[CAT_UNKNOWN] != NULL;
        for (int c = 0; c < N_CAT; c++)
            if (ev[c]) {
                if (!(l->blocker = strdup(ev[c])))
                    return rpl_error_oom();
                break;
            }
    }
    return 0;
}

int ks_collect_loops(ks_unit *u, CXCursor body, rpl_ks_kernel *k)
{
    walk w = {.u = u, .lc = u->lc, .k = k, .summarizing = NO_SUMMARY};
    int rc;

    u->lc->clang_visitChildren(body, visit_stmt, &w);
    rc = w.rc ? w.rc : conclude(&w);
    for (size_t i = 0; i < w.cap * N_CAT; i++)
        free(w.evidence[i]);
    free(w.evidence);
    for (size_t s = 0; s < w.n_memo; s++)
        for (int c = 0; c < N_CAT; c++)
            free(w.memo[s].what[c]);
    free(w.memo);
    return rc;
}
