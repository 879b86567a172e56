/*
 * The shape of one loop: the unroll pragma written before it (from the
 * tokens) and, for a counted for loop, its trip count (from the AST, with
 * clang evaluating the constant bounds).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ks_internal.h"

/* The value of an integer literal token, or -1 when it is not one. */
static long literal_value(const ks_unit *u, size_t i)
{
    const ks_token *t;
    char buf[32], *end;
    long v;

    if (i >= u->n_tokens || u->tokens[i].kind != CXToken_Literal)
        return -1;
    t = &u->tokens[i];
    if (t->end - t->begin >= sizeof(buf))
        return -1;
    memcpy(buf, u->text + t->begin, t->end - t->begin);
    buf[t->end - t->begin] = '\0';
    v = strtol(buf, &end, 0);
    end += strspn(end, "uUlL");
    return *end || v < 0 ? -1 : v;
}

/* The count of `unroll N`, `unroll (N)` or a bare `unroll` ending at `last`. */
static int unroll_count(const ks_unit *u, size_t i, size_t last)
{
    long v;

    if (i > last)
        return RPL_KS_PRAGMA_FULL;
    if (ks_token_is(u, i, "(") && i + 2 <= last && ks_token_is(u, i + 2, ")"))
        i++;
    v = literal_value(u, i);
    return v < 0 || v > 1 << 20 ? RPL_KS_PRAGMA_OTHER : (int)v;
}

/* What the pragma directive [hash, last] says about unrolling; NONE when nothing. */
static int directive_unroll(const ks_unit *u, size_t hash, size_t last)
{
    size_t i = hash + 2;

    if (!ks_token_is(u, hash + 1, "pragma") || i > last)
        return RPL_KS_PRAGMA_NONE;
    if (ks_token_is(u, i, "unroll"))
        return unroll_count(u, i + 1, last);
    if (ks_token_is(u, i, "nounroll"))
        return 1;
    if (ks_token_is(u, i, "GCC") && ks_token_is(u, i + 1, "unroll"))
        return unroll_count(u, i + 2, last);
    if (!ks_token_is(u, i, "clang") || !ks_token_is(u, i + 1, "loop"))
        return RPL_KS_PRAGMA_NONE;
    for (i += 2; i + 3 <= last; i++) {
        if (ks_token_is(u, i, "unroll_count") && ks_token_is(u, i + 1, "(")) {
            long v = literal_value(u, i + 2);
            return v < 0 || v > 1 << 20 ? RPL_KS_PRAGMA_OTHER : (int)v;
        }
        if (ks_token_is(u, i, "unroll") && ks_token_is(u, i + 1, "(")) {
            if (ks_token_is(u, i + 2, "full"))
                return RPL_KS_PRAGMA_FULL;
            if (ks_token_is(u, i + 2, "disable"))
                return 1;
            return RPL_KS_PRAGMA_OTHER;
        }
    }
    return RPL_KS_PRAGMA_NONE;
}

/* `_Pragma("unroll 4")` right before the loop (in a string literal). */
static int string_pragma(const ks_unit *u, size_t lit)
{
    const ks_token *t = &u->tokens[lit];
    const char *s = u->text + t->begin, *e = u->text + t->end;
    char *end;
    long v;

    if (e - s < 2 || *s != '"')
        return RPL_KS_PRAGMA_NONE;
    s++;
    s += strspn(s, " \t");
    if (e - s < 7 || strncmp(s, "unroll", 6) != 0)
        return RPL_KS_PRAGMA_NONE;
    s += 6;
    s += strspn(s, " \t(");
    if (*s == '"')
        return RPL_KS_PRAGMA_FULL;
    v = strtol(s, &end, 0);
    return end == s || v < 0 || v > 1 << 20 ? RPL_KS_PRAGMA_OTHER : (int)v;
}

void ks_loop_pragma(const ks_unit *u, size_t kw, rpl_ks_loop *l)
{
    size_t j = kw;

    l->pragma_unroll = RPL_KS_PRAGMA_NONE;
    while (j > 0 && u->tokens[j - 1].kind == CXToken_Comment)
        j--;
    if (j >= 4 && ks_token_is(u, j - 1, ")") && u->tokens[j - 2].kind == CXToken_Literal &&
        ks_token_is(u, j - 3, "(") && ks_token_is(u, j - 4, "_Pragma")) {
        int count = string_pragma(u, j - 2);
        if (count != RPL_KS_PRAGMA_NONE) {
            l->pragma_unroll = count;
            ks_range_set(u, &l->pragma, u->tokens[j - 4].begin, u->tokens[j - 1].end);
        }
        return;
    }
    /* Consecutive directive lines right before the loop: the nearest unroll pragma. */
    while (j > 0 && u->tokens[j - 1].directive) {
        size_t last = j - 1, hash = last;
        while (hash > 0 && !u->tokens[hash].directive_start)
            hash--;
        if (!u->tokens[hash].directive_start)
            return;
        int count = directive_unroll(u, hash, last);
        if (count != RPL_KS_PRAGMA_NONE) {
            l->pragma_unroll = count;
            ks_range_set(u, &l->pragma, u->tokens[hash].begin, u->tokens[last].end);
            return;
        }
        j = hash;
        while (j > 0 && u->tokens[j - 1].kind == CXToken_Comment)
            j--;
    }
}

typedef struct for_parts {
    const rpl_libclang *lc;
    const ks_unit *u;
    size_t semi1, semi2, close; /* offsets of the header's ';', ';' and ')' */
    CXCursor init, cond, inc;
    bool has_init, has_cond, has_inc;
} for_parts;

static enum CXChildVisitResult visit_for_child(CXCursor c, CXCursor parent, CXClientData data)
{
    for_parts *p = data;
    size_t off = 0;

    (void)parent;
    if (!ks_main_offset(p->u, p->lc->clang_getRangeStart(p->lc->clang_getCursorExtent(c)), &off))
        return CXChildVisit_Continue;
    if (off < p->semi1) {
        p->init = c;
        p->has_init = true;
    } else if (off < p->semi2) {
        p->cond = c;
        p->has_cond = true;
    } else if (off < p->close) {
        p->inc = c;
        p->has_inc = true;
    }
    return CXChildVisit_Continue;
}

typedef struct kids {
    CXCursor c[3];
    size_t n;
} kids;

static enum CXChildVisitResult visit_kid(CXCursor c, CXCursor parent, CXClientData data)
{
    kids *k = data;

    (void)parent;
    if (k->n < 3)
        k->c[k->n++] = c;
    return CXChildVisit_Continue;
}

static kids children_of(const rpl_libclang *lc, CXCursor c)
{
    kids k = {.n = 0};

    lc->clang_visitChildren(c, visit_kid, &k);
    return k;
}

static bool evaluate(const rpl_libclang *lc, CXCursor c, int64_t *out)
{
    CXEvalResult r = lc->clang_Cursor_Evaluate(c);
    bool ok = false;

    if (!r)
        return false;
    if (lc->clang_EvalResult_getKind(r) == CXEval_Int) {
        if (lc->clang_EvalResult_isUnsignedInt(r)) {
            unsigned long long v = lc->clang_EvalResult_getAsUnsigned(r);
            ok = v <= (unsigned long long)INT64_MAX;
            *out = (int64_t)v;
        } else {
            *out = (int64_t)lc->clang_EvalResult_getAsLongLong(r);
            ok = true;
        }
    }
    lc->clang_EvalResult_dispose(r);
    return ok;
}

/* The cursor's tokens are exactly the identifier `name`. */
static bool is_name(const ks_unit *u, CXCursor c, const char *name)
{
    const rpl_libclang *lc = u->lc;
    CXSourceRange r = lc->clang_getCursorExtent(c);
    size_t b = 0, e = 0;

    if (!ks_main_offset(u, lc->clang_getRangeStart(r), &b) ||
        !ks_main_offset(u, lc->clang_getRangeEnd(r), &e))
        return false;
    size_t i = ks_token_at(u, b);
    return i < u->n_tokens && u->tokens[i].end == e && ks_token_is(u, i, name);
}

/* The token right after the cursor's extent: a binary operator's operator. */
static size_t token_after(const ks_unit *u, CXCursor c)
{
    size_t e = 0;

    if (!ks_main_offset(u, u->lc->clang_getRangeEnd(u->lc->clang_getCursorExtent(c)), &e))
        return u->n_tokens;
    return ks_token_at(u, e);
}

typedef enum { STEP_ADD, STEP_MUL, STEP_DIV, STEP_SHL, STEP_SHR } step_op;

/* The loop condition `var OP bound` holds for v. */
static bool holds(const char *op, int64_t v, int64_t bound)
{
    if (strcmp(op, "<") == 0)
        return v < bound;
    if (strcmp(op, "<=") == 0)
        return v <= bound;
    if (strcmp(op, ">") == 0)
        return v > bound;
    if (strcmp(op, ">=") == 0)
        return v >= bound;
    return v != bound;
}

/* Iterations of the loop, by stepping (at most `limit` steps); -1 when unknown. */
static int64_t count_steps(const char *op, int64_t start, int64_t bound, step_op sop, int64_t k,
                           int64_t limit)
{
    int64_t v = start, n = 0;

    while (holds(op, v, bound)) {
        if (++n > limit)
            return -1;
        switch (sop) {
        case STEP_ADD:
            if (__builtin_add_overflow(v, k, &v))
                return -1;
            break;
        case STEP_MUL:
            if (__builtin_mul_overflow(v, k, &v))
                return -1;
            break;
        case STEP_DIV:
            v /= k;
            break;
        case STEP_SHL:
            if (v < 0 || v > (INT64_MAX >> k))
                return -1;
            v <<= k;
            break;
        case STEP_SHR:
            v >>= k;
            break;
        }
    }
    return n;
}

/* Additive steps in closed form; the rest by stepping. */
static int64_t trip_count(const char *op, int64_t start, int64_t bound, step_op sop, int64_t k)
{
    int64_t span;

    if (sop != STEP_ADD)
        return count_steps(op, start, bound, sop, k, 64);
    if (k == 0 || __builtin_sub_overflow(bound, start, &span))
        return -1;
    if ((strcmp(op, "<") == 0 || strcmp(op, "<=") == 0) && k > 0) {
        if (strcmp(op, "<=") == 0 && __builtin_add_overflow(span, 1, &span))
            return -1;
        return span <= 0 ? 0 : (span + k - 1) / k;
    }
    if ((strcmp(op, ">") == 0 || strcmp(op, ">=") == 0) && k < 0) {
        span = -span;
        if (strcmp(op, ">=") == 0 && __builtin_add_overflow(span, 1, &span))
            return -1;
        return span <= 0 ? 0 : (span + (-k) - 1) / (-k);
    }
    if (strcmp(op, "!=") == 0 && span % k == 0 && span / k >= 0)
        return span / k;
    return -1;
}

/* The step of `inc`: ++/-- or a compound assignment by a constant. */
static bool read_step(const ks_unit *u, const for_parts *p, const char *var, step_op *sop,
                      int64_t *k)
{
    const rpl_libclang *lc = u->lc;
    size_t b = 0;
    enum CXCursorKind kind = lc->clang_getCursorKind(p->inc);

    if (!ks_main_offset(u, lc->clang_getRangeStart(lc->clang_getCursorExtent(p->inc)), &b))
        return false;
    size_t i = ks_token_at(u, b);
    if (kind == CXCursor_UnaryOperator) {
        bool pre = ks_token_is(u, i, "++") || ks_token_is(u, i, "--");
        size_t op = pre ? i : i + 1, name = pre ? i + 1 : i;
        if (!ks_token_is(u, name, var))
            return false;
        *sop = STEP_ADD;
        *k = ks_token_is(u, op, "++") ? 1 : -1;
        return ks_token_is(u, op, "++") || ks_token_is(u, op, "--");
    }
    if (kind != CXCursor_CompoundAssignOperator)
        return false;
    kids kc = children_of(lc, p->inc);
    if (kc.n != 2 || !is_name(u, kc.c[0], var) || !evaluate(lc, kc.c[1], k))
        return false;
    size_t op = token_after(u, kc.c[0]);
    if (ks_token_is(u, op, "+=") || ks_token_is(u, op, "-=")) {
        *sop = STEP_ADD;
        if (ks_token_is(u, op, "-="))
            *k = -*k;
        return true;
    }
    if (ks_token_is(u, op, "*="))
        *sop = STEP_MUL;
    else if (ks_token_is(u, op, "/="))
        *sop = STEP_DIV;
    else if (ks_token_is(u, op, "<<="))
        *sop = STEP_SHL;
    else if (ks_token_is(u, op, ">>="))
        *sop = STEP_SHR;
    else
        return false;
    return (*sop == STEP_MUL || *sop == STEP_DIV) ? *k >= 2 : (*k >= 1 && *k < 63);
}

/* The header's ';' ';' ')' for the for loop whose keyword is token kw. */
static bool header_split(const ks_unit *u, size_t kw, for_parts *p)
{
    size_t open = kw + 1, close, depth = 0, semis = 0;

    if (!ks_token_is(u, open, "("))
        return false;
    close = ks_token_match(u, open);
    if (close >= u->n_tokens)
        return false;
    for (size_t i = open + 1; i < close; i++) {
        if (ks_token_is(u, i, "(") || ks_token_is(u, i, "[") || ks_token_is(u, i, "{"))
            depth++;
        else if (ks_token_is(u, i, ")") || ks_token_is(u, i, "]") || ks_token_is(u, i, "}"))
            depth--;
        else if (depth == 0 && ks_token_is(u, i, ";")) {
            if (semis == 0)
                p->semi1 = u->tokens[i].begin;
            else
                p->semi2 = u->tokens[i].begin;
            semis++;
        }
    }
    p->close = u->tokens[close].begin;
    return semis == 2;
}

void ks_loop_trip_count(const ks_unit *u, CXCursor loop, size_t kw, rpl_ks_loop *l)
{
    const rpl_libclang *lc = u->lc;
    for_parts p = {.lc = lc, .u = u};
    char var[128];
    int64_t start, bound, k;
    step_op sop;

    l->trip_count_known = false;
    if (l->kind != RPL_KS_LOOP_FOR || !header_split(u, kw, &p))
        return;
    lc->clang_visitChildren(loop, visit_for_child, &p);
    if (!p.has_init || !p.has_cond || !p.has_inc)
        return;

    /* init: `int i = start` or `i = start` */
    CXCursor var_cursor = p.init;
    if (lc->clang_getCursorKind(p.init) == CXCursor_DeclStmt) {
        kids kd = children_of(lc, p.init);
        if (kd.n != 1 || lc->clang_getCursorKind(kd.c[0]) != CXCursor_VarDecl)
            return;
        var_cursor = kd.c[0];
        if (!evaluate(lc, var_cursor, &start))
            return;
    } else if (lc->clang_getCursorKind(p.init) == CXCursor_BinaryOperator) {
        kids ka = children_of(lc, p.init);
        if (ka.n != 2 || !ks_token_is(u, token_after(u, ka.c[0]), "=") ||
            !evaluate(lc, ka.c[1], &start))
            return;
        var_cursor = ka.c[0];
    } else {
        return;
    }
    {
        CXCursor named = lc->clang_getCursorKind(var_cursor) == CXCursor_VarDecl
                             ? var_cursor
                             : lc->clang_getCursorReferenced(var_cursor);
        char *s = rpl_libclang_take_string(lc, lc->clang_getCursorSpelling(named));
        if (!s || !s[0] || strlen(s) >= sizeof(var)) {
            free(s);
            return;
        }
        memcpy(var, s, strlen(s) + 1);
        free(s);
    }

    /* cond: `var OP bound` */
    if (lc->clang_getCursorKind(p.cond) != CXCursor_BinaryOperator)
        return;
    kids kc = children_of(lc, p.cond);
    if (kc.n != 2 || !is_name(u, kc.c[0], var) || !evaluate(lc, kc.c[1], &bound))
        return;
    size_t op = token_after(u, kc.c[0]);
    static const char *const ops[] = {"<", "<=", ">", ">=", "!="};
    const char *which = NULL;
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
        if (ks_token_is(u, op, ops[i]))
            which = ops[i];
    if (!which || !read_step(u, &p, var, &sop, &k))
        return;
    int64_t n = trip_count(which, start, bound, sop, k);
    if (n >= 0) {
        l->trip_count_known = true;
        l->trip_count = n;
    }
}
