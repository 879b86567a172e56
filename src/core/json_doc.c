/* cJSON adders that remember an allocation failure (see rpl/json_doc.h). */
#include <math.h>
#include <stdio.h>

#include "rpl/json.h"
#include "rpl/json_doc.h"
#include "rpl/error.h"
#include "rpl/version.h"

cJSON *rpl_json_doc_check(rpl_json_doc *d, cJSON *item)
{
    if (!item)
        d->oom = true;
    return item;
}

/*
 * An integer that cJSON would print as its plain digits ("%1.15g" writes
 * every digit below 1e15; -0 keeps its sign there, so it is left out).
 */
static bool plain_integer(double v)
{
    return fabs(v) < 1e15 && v == trunc(v) && !(v == 0 && signbit(v));
}

/* A new item for rpl_json_doc_number and rpl_json_doc_set_number, or NULL. */
static cJSON *number_item(double v, bool known)
{
    char digits[24];

    if (!known || !isfinite(v))
        return cJSON_CreateNull();
    if (!plain_integer(v))
        return cJSON_CreateNumber(v);
    /* The same text as a raw item: cJSON prints every number with "%1.15g" and
     * reads it back with sscanf to check the round trip, which was most of the
     * time of writing the per-dispatch lists of roofline.json. */
    snprintf(digits, sizeof(digits), "%lld", (long long)v);
    return cJSON_CreateRaw(digits);
}

int rpl_json_doc_number_text(rpl_strbuf *sb, double v, bool known)
{
    cJSON *item;
    char *text;
    int rc;

    if (!known || !isfinite(v))
        return rpl_strbuf_puts(sb, "null");
    if (plain_integer(v))
        return rpl_strbuf_printf(sb, "%lld", (long long)v);
    /* Anything else as cJSON itself prints it (rare: counters with fractions). */
    if (!(item = cJSON_CreateNumber(v)))
        return rpl_error_oom();
    text = cJSON_PrintUnformatted(item);
    cJSON_Delete(item);
    if (!text)
        return rpl_error_oom();
    rc = rpl_strbuf_puts(sb, text);
    cJSON_free(text);
    return rc;
}

/* item as o's member `key`, which is not copied (see rpl/json_doc.h). */
static void add_item(rpl_json_doc *d, cJSON *o, const char *key, cJSON *item)
{
    if (item && !cJSON_AddItemToObjectCS(o, key, item)) {
        cJSON_Delete(item);
        d->oom = true;
    }
}

void rpl_json_doc_number(rpl_json_doc *d, cJSON *o, const char *key, double v, bool known)
{
    add_item(d, o, key, rpl_json_doc_check(d, number_item(v, known)));
}

void rpl_json_doc_set_number(rpl_json_doc *d, cJSON *o, const char *key, double v, bool known)
{
    cJSON *item = rpl_json_doc_check(d, number_item(v, known));

    if (item && !cJSON_ReplaceItemInObjectCaseSensitive(o, key, item)) {
        cJSON_Delete(item);
        d->oom = true;
    }
}

void rpl_json_doc_string(rpl_json_doc *d, cJSON *o, const char *key, const char *s)
{
    add_item(d, o, key, rpl_json_doc_check(d, s ? cJSON_CreateString(s) : cJSON_CreateNull()));
}

cJSON *rpl_json_doc_add_number(rpl_json_doc *d, cJSON *o, const char *key, double v)
{
    return rpl_json_doc_check(d, isfinite(v) ? cJSON_AddNumberToObject(o, key, v)
                                             : cJSON_AddNullToObject(o, key));
}

cJSON *rpl_json_doc_add_int64(rpl_json_doc *d, cJSON *o, const char *key, int64_t v)
{
    return rpl_json_doc_check(d, rpl_json_add_int64(o, key, v));
}

cJSON *rpl_json_doc_add_string(rpl_json_doc *d, cJSON *o, const char *key, const char *s)
{
    return rpl_json_doc_check(d, s ? cJSON_AddStringToObject(o, key, s)
                                   : cJSON_AddNullToObject(o, key));
}

cJSON *rpl_json_doc_push(rpl_json_doc *d, cJSON *arr, cJSON *item)
{
    if (item && cJSON_AddItemToArray(arr, item))
        return item;
    cJSON_Delete(item);
    d->oom = true;
    return NULL;
}

cJSON *rpl_json_doc_push_object(rpl_json_doc *d, cJSON *arr)
{
    return rpl_json_doc_push(d, arr, cJSON_CreateObject());
}

void rpl_json_doc_add_tool(rpl_json_doc *d, cJSON *o)
{
    cJSON *tool = rpl_json_doc_check(d, cJSON_AddObjectToObject(o, "tool"));

    if (tool) {
        rpl_json_doc_add_string(d, tool, "name", "rocm-perf");
        rpl_json_doc_add_string(d, tool, "version", RPL_VERSION_STRING);
    }
}

cJSON *rpl_json_doc_begin(rpl_json_doc *d, const char *schema_version, cJSON **out)
{
    cJSON *root = cJSON_CreateObject();

    *out = NULL;
    if (root)
        rpl_json_doc_add_string(d, root, "schema_version", schema_version);
    return root;
}

int rpl_json_doc_finish(rpl_json_doc *d, cJSON *root, cJSON **out)
{
    if (d->oom) {
        cJSON_Delete(root);
        return rpl_error_oom();
    }
    *out = root;
    return 0;
}
