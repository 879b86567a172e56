/*
 * cJSON adders for documents that are built in one go: each remembers
 * an allocation failure in the rpl_json_doc, so the builder checks once at
 * the end instead of after every call.  Keys are not copied: they must
 * outlive the document (string literals and static names).
 */
#ifndef RPL_JSON_DOC_H
#define RPL_JSON_DOC_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#include "rpl/strbuf.h"

typedef struct rpl_json_doc {
    bool oom;
} rpl_json_doc;

/* `item`, noting an allocation failure when it is NULL. */
cJSON *rpl_json_doc_check(rpl_json_doc *d, cJSON *item);
/*
 * `v` when known and finite, else null.  Integers are added as raw JSON
 * text (the digits cJSON prints for them, but faster), so a document built
 * with this is for printing: read back its numbers by parsing the text.
 */
void rpl_json_doc_number(rpl_json_doc *d, cJSON *o, const char *key, double v, bool known);
/* The same for o's existing member `key`, which keeps its place. */
void rpl_json_doc_set_number(rpl_json_doc *d, cJSON *o, const char *key, double v, bool known);
/*
 * Append to sb the text cJSON prints for what rpl_json_doc_number adds, for
 * lists written as one raw item (cJSON_CreateRaw) instead of a node per
 * value.  Returns 0 or RPL_ENOMEM.
 */
int rpl_json_doc_number_text(rpl_strbuf *sb, double v, bool known);
/* `s`, or null for NULL. */
void rpl_json_doc_string(rpl_json_doc *d, cJSON *o, const char *key, const char *s);

/*
 * Adders for documents that are also read as cJSON trees: numbers are
 * cJSON numbers, keys are copied.  Each returns the new item or NULL.
 */
/* `v`, or null when it is not finite. */
cJSON *rpl_json_doc_add_number(rpl_json_doc *d, cJSON *o, const char *key, double v);
/* An integer (exact up to 2^53). */
cJSON *rpl_json_doc_add_int64(rpl_json_doc *d, cJSON *o, const char *key, int64_t v);
/* `s`, or null for NULL. */
cJSON *rpl_json_doc_add_string(rpl_json_doc *d, cJSON *o, const char *key, const char *s);
/* A new empty object at the end of the array `arr`. */
cJSON *rpl_json_doc_push_object(rpl_json_doc *d, cJSON *arr);
/* `item` appended to the array `arr`; on failure `item` is freed and NULL returned. */
cJSON *rpl_json_doc_push(rpl_json_doc *d, cJSON *arr, cJSON *item);
/* The member "tool": {"name": "rocm-perf", "version": ...} that our documents carry. */
void rpl_json_doc_add_tool(rpl_json_doc *d, cJSON *o);
/*
 * Begin a document: *out = NULL and a new object holding its
 * "schema_version"; NULL when out of memory (return rpl_error_oom()).
 */
cJSON *rpl_json_doc_begin(rpl_json_doc *d, const char *schema_version, cJSON **out);
/*
 * End a document: hand `root` to *out and return 0, or, when an adder
 * failed, free it and return RPL_ENOMEM.
 */
int rpl_json_doc_finish(rpl_json_doc *d, cJSON *root, cJSON **out);

#endif
