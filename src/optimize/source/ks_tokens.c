/*
 * The raw tokens and line starts of a parsed main file: what extents,
 * pragmas and launch bounds are read from (never substrings of the text).
 */
#include <stdlib.h>
#include <string.h>

#include "ks_internal.h"
#include "rpl/error.h"

char *ks_strndup(const char *s, size_t len)
{
    char *copy = malloc(len + 1);

    if (!copy)
        return NULL;
    memcpy(copy, s, len);
    copy[len] = '\0';
    return copy;
}

static int index_lines(ks_unit *u)
{
    size_t n = 1;

    for (size_t i = 0; i < u->len; i++)
        if (u->text[i] == '\n')
            n++;
    u->line_starts = malloc(n * sizeof(*u->line_starts));
    if (!u->line_starts)
        return rpl_error_oom();
    u->line_starts[0] = 0;
    u->n_lines = 1;
    for (size_t i = 0; i < u->len; i++)
        if (u->text[i] == '\n')
            u->line_starts[u->n_lines++] = i + 1;
    return 0;
}

unsigned ks_line_of(const ks_unit *u, size_t offset)
{
    size_t lo = 0, hi = u->n_lines;

    /* The last line start <= offset. */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (u->line_starts[mid] <= offset)
            lo = mid;
        else
            hi = mid;
    }
    return (unsigned)lo + 1;
}

void ks_range_set(const ks_unit *u, rpl_ks_range *r, size_t begin, size_t end)
{
    r->begin = begin;
    r->end = end;
    r->line_begin = ks_line_of(u, begin);
    r->line_end = ks_line_of(u, end > begin ? end - 1 : begin);
}

/* Only blanks between the start of the line and `offset`. */
static bool first_on_line(const ks_unit *u, size_t offset)
{
    while (offset > 0) {
        char c = u->text[offset - 1];
        if (c == '\n')
            return true;
        if (c != ' ' && c != '\t' && c != '\r' && c != '\f' && c != '\v')
            return false;
        offset--;
    }
    return true;
}

/* A line break in [from, to) that is not escaped with a backslash. */
static bool has_line_break(const ks_unit *u, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        if (u->text[i] != '\n')
            continue;
        size_t j = i;
        if (j > from && u->text[j - 1] == '\r')
            j--;
        if (j == 0 || u->text[j - 1] != '\\')
            return true;
    }
    return false;
}

static void mark_directives(ks_unit *u)
{
    bool in_directive = false;

    for (size_t i = 0; i < u->n_tokens; i++) {
        ks_token *t = &u->tokens[i];
        if (in_directive && has_line_break(u, u->tokens[i - 1].end, t->begin))
            in_directive = false;
        if (!in_directive && t->kind == CXToken_Punctuation && t->end - t->begin == 1 &&
            u->text[t->begin] == '#' && first_on_line(u, t->begin))
            in_directive = t->directive_start = true;
        t->directive = in_directive;
    }
}

int ks_unit_tokenize(ks_unit *u)
{
    const rpl_libclang *lc = u->lc;
    CXSourceRange all =
        lc->clang_getRange(lc->clang_getLocationForOffset(u->tu, u->file, 0),
                           lc->clang_getLocationForOffset(u->tu, u->file, (unsigned)u->len));
    CXToken *toks = NULL;
    unsigned n = 0;
    int rc;

    if ((rc = index_lines(u)) != 0)
        return rc;
    lc->clang_tokenize(u->tu, all, &toks, &n);
    u->tokens = calloc(n ? n : 1, sizeof(*u->tokens));
    if (!u->tokens) {
        lc->clang_disposeTokens(u->tu, toks, n);
        return rpl_error_oom();
    }
    for (unsigned i = 0; i < n; i++) {
        CXSourceRange ext = lc->clang_getTokenExtent(u->tu, toks[i]);
        unsigned b = 0, e = 0;
        lc->clang_getSpellingLocation(lc->clang_getRangeStart(ext), NULL, NULL, NULL, &b);
        lc->clang_getSpellingLocation(lc->clang_getRangeEnd(ext), NULL, NULL, NULL, &e);
        if (e < b || e > u->len)
            continue;
        ks_token *t = &u->tokens[u->n_tokens++];
        t->kind = lc->clang_getTokenKind(toks[i]);
        t->begin = b;
        t->end = e;
    }
    lc->clang_disposeTokens(u->tu, toks, n);
    mark_directives(u);
    return 0;
}

void ks_unit_release(ks_unit *u)
{
    free(u->tokens);
    free(u->line_starts);
    u->tokens = NULL;
    u->line_starts = NULL;
    u->n_tokens = u->n_lines = 0;
}

size_t ks_token_at(const ks_unit *u, size_t offset)
{
    size_t lo = 0, hi = u->n_tokens;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u->tokens[mid].begin < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool ks_token_is(const ks_unit *u, size_t i, const char *s)
{
    size_t n = strlen(s);

    return i < u->n_tokens && u->tokens[i].end - u->tokens[i].begin == n &&
           memcmp(u->text + u->tokens[i].begin, s, n) == 0;
}

size_t ks_token_match(const ks_unit *u, size_t open)
{
    static const char pairs[][3] = {"()", "[]", "{}", "<>"};
    char o[2] = {0}, c[2] = {0};
    size_t depth = 0;

    for (size_t p = 0; p < sizeof(pairs) / sizeof(pairs[0]); p++)
        if (ks_token_is(u, open, (char[2]){pairs[p][0], 0})) {
            o[0] = pairs[p][0];
            c[0] = pairs[p][1];
        }
    if (!o[0])
        return u->n_tokens;
    for (size_t i = open; i < u->n_tokens; i++) {
        if (ks_token_is(u, i, o))
            depth++;
        else if (ks_token_is(u, i, c) && --depth == 0)
            return i;
    }
    return u->n_tokens;
}

bool ks_main_offset(const ks_unit *u, CXSourceLocation loc, size_t *offset)
{
    const rpl_libclang *lc = u->lc;
    CXFile file = NULL;
    unsigned off = 0;

    /* The expansion location decides: clang_Location_isFromMainFile looks at the
       spelling, which for `__global__` is in the HIP headers. */
    lc->clang_getExpansionLocation(loc, &file, NULL, NULL, &off);
    if (file != u->file || off > u->len)
        return false;
    *offset = off;
    return true;
}

bool ks_token_spans(const ks_unit *u, size_t begin, size_t end, const char *s)
{
    size_t i = ks_token_at(u, begin);

    return i < u->n_tokens && u->tokens[i].begin == begin && u->tokens[i].end == end &&
           ks_token_is(u, i, s);
}
