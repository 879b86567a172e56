/* The checks rpl_json_parse adds to cJSON's parser (json_strict.c). */
#ifndef RPL_JSON_STRICT_H
#define RPL_JSON_STRICT_H

#include <cjson/cJSON.h>

/*
 * RPL_EINPUT naming `what` when the parsed document `doc` (the text from
 * `text` to `end`) has a key twice in one object or a NUL in a string.
 */
int rpl_json_check_strict(const cJSON *doc, const char *text, const char *end, const char *what);

#endif
