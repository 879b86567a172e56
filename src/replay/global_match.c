/* Module globals matched across compilations of a source (global_match.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "global_match.h"
#include "rpl/error.h"

/* Where nvcc writes a translation unit's hash: right after one of these. */
static const char *const hash_marks[] = {"_INTERNAL_", "_GLOBAL__N__"};

/* The length of the hash after `s` ("<hex>_"), 0 when there is none. */
static size_t hash_len(const char *s)
{
    size_t n = strspn(s, "0123456789abcdef");

    return n >= 4 && n <= 16 && s[n] == '_' ? n : 0;
}

/* With -rdc, "__nv_static_<digits>__" and the hash: the length up to the hash, else 0. */
static size_t rdc_mark(const char *s)
{
    static const char prefix[] = "__nv_static_";
    size_t k = sizeof(prefix) - 1, d;

    if (strncmp(s, prefix, k) != 0 || (d = strspn(s + k, "0123456789")) == 0 ||
        strncmp(s + k + d, "__", 2) != 0)
        return 0;
    return k + d + 2;
}

int rpl_global_key(char **out, const char *name)
{
    size_t len = strlen(name), n = 0;
    char *key = malloc(len + 1);

    if (!key)
        return rpl_error_oom();
    for (size_t i = 0; i < len;) {
        size_t mark = rdc_mark(name + i), h;

        for (size_t m = 0; !mark && m < sizeof(hash_marks) / sizeof(hash_marks[0]); m++)
            if (strncmp(name + i, hash_marks[m], strlen(hash_marks[m])) == 0)
                mark = strlen(hash_marks[m]);
        if (mark && (h = hash_len(name + i + mark)) != 0) {
            memcpy(key + n, name + i, mark);
            n += mark;
            key[n++] = '@';
            i += mark + h;
        } else {
            key[n++] = name[i++];
        }
    }
    key[n] = '\0';
    *out = key;
    return 0;
}

int rpl_global_match(const char *want, const char *const *have, size_t n, size_t *index)
{
    char *key = NULL;
    size_t found = n;
    int rc;

    for (size_t i = 0; i < n; i++)
        if (strcmp(have[i], want) == 0) {
            *index = i;
            return 0;
        }
    if ((rc = rpl_global_key(&key, want)) != 0)
        return rc;
    if (strcmp(key, want) == 0) { /* nothing to set aside: only the exact name would do */
        free(key);
        return RPL_ENOTFOUND;
    }
    for (size_t i = 0; i < n; i++) {
        char *k = NULL;
        bool same;

        if ((rc = rpl_global_key(&k, have[i])) != 0)
            break;
        same = strcmp(k, key) == 0;
        free(k);
        /* A fatbin holds the same name once per architecture. */
        if (same && found < n && strcmp(have[found], have[i]) != 0) {
            rc = rpl_error_set(RPL_EINPUT,
                               "module global '%s' of the snapshot could be '%s' or '%s' (they "
                               "differ only in their translation unit's hash)",
                               want, have[found], have[i]);
            break;
        }
        if (same && found == n)
            found = i;
    }
    free(key);
    if (rc)
        return rc;
    if (found == n)
        return RPL_ENOTFOUND;
    *index = found;
    return 0;
}

int rpl_global_resolve(const char *want, bool changed, const char *const *have, size_t n,
                       size_t *index, rpl_global_plan *plan)
{
    int rc = rpl_global_match(want, have, n, index);

    *plan = RPL_GLOBAL_USE;
    if (rc != RPL_ENOTFOUND)
        return rc;
    if (changed)
        return rpl_error_set(RPL_EINPUT,
                             "the code object has no module global '%s' of the snapshot (nor one "
                             "that differs only in its translation unit's hash), and the captured "
                             "dispatch wrote it",
                             want);
    *plan = RPL_GLOBAL_LEAVE_OUT;
    return 0;
}
