/* cJSON helpers (see rpl/json.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"

int rpl_json_parse(cJSON **out, const char *text, size_t len, const char *what)
{
    const char *end = NULL, *value_end = NULL;
    cJSON *doc;

    *out = NULL;
    /*
     * cJSON's own null-terminated check wants the NUL inside `len`, so
     * trailing garbage ("{} x") is rejected here instead.
     */
    doc = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (doc && end) {
        const char *stop = text + len;
        value_end = end;
        while (end < stop && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
            end++;
        if (end < stop && *end != '\0') {
            cJSON_Delete(doc);
            doc = NULL;
        }
    }
    if (!doc) {
        size_t off = end && end >= text ? (size_t)(end - text) : 0;
        if (!len)
            return rpl_error_set(RPL_EINPUT, "%s: empty JSON document", what);
        return rpl_error_set(RPL_EINPUT, "%s: malformed JSON near byte %zu", what, off);
    }
    if (rpl_json_check_strict(doc, text, value_end ? value_end : text + len, what) != 0) {
        cJSON_Delete(doc);
        return rpl_error_last()->code;
    }
    *out = doc;
    return 0;
}

int rpl_json_parse_file(cJSON **out, const char *path, size_t max)
{
    char *text;
    size_t len;
    int rc;

    *out = NULL;
    if ((rc = rpl_file_read_all(path, max, &text, &len)) != 0)
        return rc;
    rc = rpl_json_parse(out, text, len, path);
    free(text);
    return rc;
}

/* obj's member `key` into *item when it has the type `is` checks; `want` names that type. */
static int typed_member(const cJSON **item, const cJSON *obj, const char *key,
                        cJSON_bool (*is)(const cJSON *), const char *want)
{
    *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!*item)
        return RPL_ENOTFOUND;
    if (!is(*item))
        return rpl_error_set(RPL_EINPUT, "'%s' must be %s", key, want);
    return 0;
}

int rpl_json_get_number(const cJSON *obj, const char *key, double *out)
{
    const cJSON *item;
    int rc = typed_member(&item, obj, key, cJSON_IsNumber, "a number");

    if (rc)
        return rc;
    /* cJSON reads 1e400 as infinity. */
    if (!isfinite(item->valuedouble))
        return rpl_error_set(RPL_EINPUT, "'%s' is a number out of range (beyond ±1.8e308)", key);
    *out = item->valuedouble;
    return 0;
}

int rpl_json_get_int64(const cJSON *obj, const char *key, int64_t *out)
{
    double v;
    int rc = rpl_json_get_number(obj, key, &v);

    if (rc)
        return rc;
    /* Doubles hold integers exactly up to 2^53. */
    if (v != floor(v) || fabs(v) > 9007199254740992.0)
        return rpl_error_set(RPL_EINPUT, "'%s' must be an integer of at most 2^53", key);
    *out = (int64_t)v;
    return 0;
}

int rpl_json_get_string(const cJSON *obj, const char *key, const char **out)
{
    const cJSON *item;
    int rc = typed_member(&item, obj, key, cJSON_IsString, "a string");

    if (!rc)
        *out = item->valuestring;
    return rc;
}

int rpl_json_get_bool(const cJSON *obj, const char *key, bool *out)
{
    const cJSON *item;
    int rc = typed_member(&item, obj, key, cJSON_IsBool, "true or false");

    if (!rc)
        *out = cJSON_IsTrue(item);
    return rc;
}

cJSON *rpl_json_add_int64(cJSON *obj, const char *key, int64_t v)
{
    return cJSON_AddNumberToObject(obj, key, (double)v);
}

int rpl_json_print(char **out, const cJSON *doc)
{
    char *text = cJSON_Print(doc);
    size_t n;
    char *with_nl;

    *out = NULL;
    if (!text)
        return rpl_error_oom();
    n = strlen(text);
    with_nl = realloc(text, n + 2);
    if (!with_nl) {
        cJSON_free(text);
        return rpl_error_oom();
    }
    with_nl[n] = '\n';
    with_nl[n + 1] = '\0';
    *out = with_nl;
    return 0;
}

int rpl_json_write_file(const char *path, const cJSON *doc)
{
    char *text;
    int rc = rpl_json_print(&text, doc);

    if (rc)
        return rc;
    rc = rpl_file_write_atomic(path, text, strlen(text));
    free(text);
    return rc;
}
