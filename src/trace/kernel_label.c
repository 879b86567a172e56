/*
 * Kernel names shortened for table columns (see rpl/kernel_filter.h): the
 * middle goes, the front (what the kernel is) and the end stay, and two
 * different kernels never get the same label.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/kernel_filter.h"

#define ELLIPSIS "\xe2\x80\xa6" /* U+2026, one column */

static const char anon_ns[] = "(anonymous namespace)";

size_t rpl_utf8_columns(const char *s)
{
    size_t n = 0;

    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

size_t rpl_utf8_cut(const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
        max--;
    return max;
}

size_t rpl_utf8_byte_at(const char *s, size_t col)
{
    size_t i = 0;

    for (; s[i]; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && col-- == 0)
            break;
    return i;
}

/* The first '(' outside template arguments and "(anonymous namespace)": the parameters. */
static size_t params_at(const char *name)
{
    size_t depth = 0, i;

    for (i = 0; name[i]; i++) {
        if (name[i] == '<')
            depth++;
        else if (name[i] == '>' && depth > 0)
            depth--;
        else if (name[i] == '(' && depth == 0 &&
                 strncmp(name + i, anon_ns, sizeof(anon_ns) - 1) != 0)
            break;
    }
    return i;
}

/* The first len bytes of s, then `more`: a new string. */
static char *piece(const char *s, size_t len, const char *more)
{
    size_t m = strlen(more);
    char *out = malloc(len + m + 1);

    if (out) {
        memcpy(out, s, len);
        memcpy(out + len, more, m + 1);
    }
    return out;
}

char *rpl_utf8_elide(const char *s, size_t width, size_t head, size_t from)
{
    size_t cols = rpl_utf8_columns(s), rest, a, b, e;
    char *out;

    if (cols <= width)
        return strdup(s);
    rest = width - head - 1;
    if (from == 0 || from + rest >= cols)
        from = cols - rest;
    if (from <= head) /* the window touches the head: one cut at the end */
        return piece(s, rpl_utf8_byte_at(s, width - 1), ELLIPSIS);
    a = rpl_utf8_byte_at(s, head);
    b = rpl_utf8_byte_at(s, from);
    if (from + rest < cols) {
        rest--;
        e = rpl_utf8_byte_at(s, from + rest);
    } else {
        e = strlen(s);
    }
    out = malloc(a + 3 + (e - b) + 3 + 1);
    if (!out)
        return NULL;
    memcpy(out, s, a);
    memcpy(out + a, ELLIPSIS, 3);
    memcpy(out + a + 3, s + b, e - b);
    strcpy(out + a + 3 + (e - b), e < strlen(s) ? ELLIPSIS : "");
    return out;
}

/* Where the template arguments begin: the first '<' of s[0..end), or end. */
static size_t template_at(const char *s, size_t end)
{
    const char *lt = memchr(s, '<', end);

    return lt ? (size_t)(lt - s) : end;
}

/*
 * The label of one name, alone: the name; else without "void " and with
 * the parameters that fit ("f(int, flo…)"); else the qualified name with its template
 * arguments cut at their end ("f<int, 3…>(…)"); else the qualified name
 * elided in its middle, so that namespace and function name stay.
 */
static char *label_of(const char *name, size_t width)
{
    const char *params_text;
    size_t params, lt, pcols;
    char *base, *out;

    if (rpl_utf8_columns(name) <= width)
        return strdup(name);
    if (strncmp(name, "void ", 5) == 0)
        name += 5;
    params = params_at(name);
    params_text = name[params] ? "(" ELLIPSIS ")" : "";
    base = piece(name, params, params_text);
    if (!base)
        return NULL;
    if (rpl_utf8_columns(base) <= width) {
        /* The parameters that fit, cut at their end. */
        free(base);
        if (rpl_utf8_columns(name) <= width)
            return strdup(name);
        return piece(name, rpl_utf8_byte_at(name, width - 2), ELLIPSIS ")");
    }
    free(base);
    lt = template_at(name, params);
    if (lt == params && !name[params]) /* a plain long name: keep more of its front */
        return rpl_utf8_elide(name, width, (width - 1) * 3 / 5, 0);
    /* The qualified name, then as many template arguments as fit, "…>" and "(…)" (names
     * are ASCII here: lt counts columns). */
    pcols = name[params] ? 3 : 0;
    if (lt < params && lt + 1 + 4 + 2 + pcols <= width) {
        size_t k = width - lt - 1 - 2 - pcols;
        char *targs = piece(name, rpl_utf8_byte_at(name, lt + 1 + k), ELLIPSIS ">");
        if (!targs)
            return NULL;
        out = piece(targs, strlen(targs), params_text);
        free(targs);
        return out;
    }
    base = piece(name, lt, lt < params ? "<" ELLIPSIS ">" : "");
    if (!base)
        return NULL;
    out = piece(base, strlen(base), params_text);
    free(base);
    if (!out)
        return NULL;
    base = out;
    out = rpl_utf8_elide(base, width, (width - 1) / 3, 0);
    free(base);
    return out;
}

/* Columns that a and b have in common at their start. */
static size_t common_prefix(const char *a, const char *b)
{
    size_t cols = 0;

    for (; *a && *a == *b; a++, b++)
        cols += ((unsigned char)*a & 0xC0) != 0x80;
    return cols;
}

/*
 * names[i] with the window of its middle at the first column where it
 * differs from every name that shares its label: head, "…", the difference
 * with a little context before it.
 */
static char *label_at_difference(const char *name, size_t width, size_t diff)
{
    const size_t head = (width - 1) / 3, context = 4;
    size_t params;
    char *base = NULL, *out;

    if (strncmp(name, "void ", 5) == 0 && diff > 5) {
        name += 5;
        diff -= 5;
    }
    /* A difference before the parameters: they are left out, as "(…)". */
    params = params_at(name);
    if (diff < params && name[params]) {
        if (!(base = piece(name, params, "(" ELLIPSIS ")")))
            return NULL;
        name = base;
    }
    if (rpl_utf8_columns(name) <= width) {
        out = strdup(name);
    } else if (diff + 1 < width) { /* the difference is within the front: keep enough front */
        size_t front = diff + context + 1;
        if (front < (width - 1) * 3 / 5)
            front = (width - 1) * 3 / 5;
        out = front + 1 >= width ? piece(name, rpl_utf8_byte_at(name, width - 1), ELLIPSIS)
                                 : rpl_utf8_elide(name, width, front, 0);
    } else {
        out = rpl_utf8_elide(name, width, head, diff - context);
    }
    free(base);
    return out;
}

/* Pairs of different names with equal labels. */
static size_t clash_count(char **l, const char *const *names, size_t n)
{
    size_t count = 0;

    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            count += strcmp(l[i], l[j]) == 0 && strcmp(names[i], names[j]) != 0;
    return count;
}

void rpl_kernel_labels_free(char **labels, size_t n)
{
    if (!labels)
        return;
    rpl_free_strings(labels, n);
}

int rpl_kernel_labels(char ***out, const char *const *names, size_t n, size_t width)
{
    char **l = calloc(n ? n : 1, sizeof(*l)), **again = NULL;
    size_t i, j;

    *out = NULL;
    if (!l)
        return rpl_error_oom();
    if (width < 16)
        width = 16;
    for (i = 0; i < n; i++)
        if (!(l[i] = label_of(names[i], width)))
            goto oom;
    /* Equal labels of different names: show where each differs from the others (all
     * compared with the first labels, the new ones kept aside until then). */
    if (!(again = calloc(n ? n : 1, sizeof(*again))))
        goto oom;
    for (i = 0; i < n; i++) {
        size_t diff = 0;
        bool clash = false;

        for (j = 0; j < n; j++)
            if (j != i && strcmp(l[i], l[j]) == 0 && strcmp(names[i], names[j]) != 0) {
                size_t c = common_prefix(names[i], names[j]);
                clash = true;
                if (c > diff)
                    diff = c;
            }
        if (clash && !(again[i] = label_at_difference(names[i], width, diff)))
            goto oom;
    }
    for (i = 0; i < n; i++)
        if (again[i]) {
            free(l[i]);
            l[i] = again[i];
            again[i] = NULL;
        }
    /* Still equal (names that differ only past the window): the later one gets a number
     * unique in the table ("…#2"), until no two differ in name but not in label. */
    for (unsigned round = 0, tag = 2; round < 8 && clash_count(l, names, n) > 0; round++)
        for (i = 0; i < n; i++)
            for (j = i + 1; j < n; j++)
                if (strcmp(l[i], l[j]) == 0 && strcmp(names[i], names[j]) != 0) {
                    char mark[16], *tagged;
                    snprintf(mark, sizeof(mark), ELLIPSIS "#%u", tag++);
                    tagged =
                        piece(l[j], rpl_utf8_byte_at(l[j], width - rpl_utf8_columns(mark)), mark);
                    if (!tagged)
                        goto oom;
                    free(l[j]);
                    l[j] = tagged;
                }
    free(again);
    *out = l;
    return 0;
oom:
    rpl_kernel_labels_free(again, n);
    rpl_kernel_labels_free(l, n);
    return rpl_error_oom();
}
