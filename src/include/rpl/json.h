/* cJSON helpers: typed getters with clear errors, file I/O, stable output. */
#ifndef RPL_JSON_H
#define RPL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

/* Parse a JSON document held in a file (at most `max` bytes). */
int rpl_json_parse_file(cJSON **out, const char *path, size_t max);
/* Parse a buffer; `what` names it in the error message. */
int rpl_json_parse(cJSON **out, const char *text, size_t len, const char *what);

/*
 * Typed getters.  They return RPL_ENOTFOUND when the key is absent (and set
 * no error, so optional fields are cheap), RPL_EINPUT when it has the wrong
 * type or range.
 */
int rpl_json_get_number(const cJSON *obj, const char *key, double *out);
int rpl_json_get_int64(const cJSON *obj, const char *key, int64_t *out);
int rpl_json_get_string(const cJSON *obj, const char *key, const char **out);
int rpl_json_get_bool(const cJSON *obj, const char *key, bool *out);

/* Add helpers that return NULL on allocation failure (cJSON semantics). */
cJSON *rpl_json_add_int64(cJSON *obj, const char *key, int64_t v);

/* Pretty-print with a trailing newline; *out is free()d by the caller. */
int rpl_json_print(char **out, const cJSON *doc);
/* Pretty-print to `path` atomically (temporary file + rename). */
int rpl_json_write_file(const char *path, const cJSON *doc);

#endif
