/*
 * What cJSON accepts and other JSON readers read differently (see
 * json_strict.h): a key twice in one object, where cJSON's lookups take the
 * first value and Python's json module and JSON Schema validators the last,
 * and U+0000 inside a string, where cJSON's C string ends so that
 * "scale\u0000evil" reads as "scale".  Refused, so that the document
 * rocm-perf acts on is the one every other tool sees.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "rpl/array.h"
#include "rpl/error.h"
#include "rpl/strbuf.h"

#define SHOWN_KEY    64  /* characters of a key in a message */
#define SHOWN_PATH   200 /* characters of the path to its object */
#define SMALL_OBJECT 16  /* keys compared pairwise; more are sorted */

/* Byte offset of the first string holding a NUL (raw or \u0000), or -1. */
static long long nul_in_string(const char *text, const char *end)
{
    const char *start = NULL;

    for (const char *p = text; p < end; p++) {
        if (!start) {
            if (*p == '"')
                start = p;
            continue;
        }
        if (*p == '"') {
            start = NULL;
        } else if (*p == '\0') {
            return (long long)(start - text);
        } else if (*p == '\\' && p + 1 < end) {
            /* The document parsed, so an escape is complete: \X or \uXXXX. */
            if (p[1] == 'u' && end - p >= 6 && memcmp(p + 2, "0000", 4) == 0)
                return (long long)(start - text);
            p++;
        }
    }
    return -1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

typedef struct walk {
    const char **names; /* the keys of one object, reused */
    size_t cap;
    const cJSON *object; /* where a duplicate was found */
    const char *key;
} walk;

/* Does object `o` hold a key twice?  Sets w->object and w->key if so. */
static int object_has_duplicate(walk *w, const cJSON *o)
{
    size_t n = 0;
    const cJSON *c;
    int rc;

    for (c = o->child; c; c = c->next)
        n++;
    if (n < 2)
        return 0;
    if (n <= SMALL_OBJECT) {
        for (c = o->child; c; c = c->next)
            for (const cJSON *d = c->next; d; d = d->next)
                if (strcmp(c->string, d->string) == 0) {
                    w->object = o;
                    w->key = d->string;
                    return 1;
                }
        return 0;
    }
    if ((rc = RPL_ARRAY_GROW(w->names, w->cap, n)) != 0)
        return rc;
    n = 0;
    for (c = o->child; c; c = c->next)
        w->names[n++] = c->string;
    qsort(w->names, n, sizeof(*w->names), by_name);
    for (size_t i = 1; i < n; i++)
        if (strcmp(w->names[i - 1], w->names[i]) == 0) {
            w->object = o;
            w->key = w->names[i];
            return 1;
        }
    return 0;
}

/* 1 when a duplicate is found under `item`, 0 when none, < 0 on error. */
static int find_duplicate(walk *w, const cJSON *item)
{
    int rc = 0;

    if (cJSON_IsObject(item) && (rc = object_has_duplicate(w, item)) != 0)
        return rc;
    /* cJSON refuses documents nested deeper than CJSON_NESTING_LIMIT: recursion is bounded. */
    for (const cJSON *c = item->child; c && rc == 0; c = c->next)
        rc = find_duplicate(w, c);
    return rc;
}

/* Append the path from `item` down to `target` ("regions[3].meta") to `sb`; true if found. */
static bool path_to(rpl_strbuf *sb, const cJSON *item, const cJSON *target)
{
    size_t index = 0, mark = sb->len;

    if (item == target)
        return true;
    for (const cJSON *c = item->child; c; c = c->next, index++) {
        if (cJSON_IsObject(item))
            rpl_strbuf_printf(sb, "%s%.32s", sb->len ? "." : "", c->string ? c->string : "");
        else
            rpl_strbuf_printf(sb, "[%zu]", index);
        if (path_to(sb, c, target))
            return true;
        sb->len = mark;
        if (sb->ptr)
            sb->ptr[mark] = '\0';
    }
    return false;
}

static int duplicate_error(const cJSON *doc, const walk *w, const char *what)
{
    rpl_strbuf path = RPL_STRBUF_INIT;
    size_t klen = strlen(w->key);
    int rc;

    path_to(&path, doc, w->object);
    rc = rpl_error_set(RPL_EINPUT,
                       "%s: key '%.*s%s' appears twice in %.*s%s (a key may appear once in an "
                       "object: JSON readers differ on which value counts)",
                       what, SHOWN_KEY, w->key, klen > SHOWN_KEY ? "…" : "", SHOWN_PATH,
                       path.len ? path.ptr : "the top-level object",
                       path.len > SHOWN_PATH ? "…" : "");
    rpl_strbuf_release(&path);
    return rc;
}

int rpl_json_check_strict(const cJSON *doc, const char *text, const char *end, const char *what)
{
    walk w = {0};
    long long at = nul_in_string(text, end);
    int rc;

    if (at >= 0) {
        size_t line = 1;
        for (const char *p = text; p < text + at; p++)
            line += *p == '\n';
        return rpl_error_set(RPL_EINPUT,
                             "%s: the string at line %zu (byte %lld) holds a NUL character "
                             "(\\u0000), which rocm-perf does not accept",
                             what, line, at);
    }
    rc = find_duplicate(&w, doc);
    if (rc > 0)
        rc = duplicate_error(doc, &w, what);
    free(w.names);
    return rc;
}
