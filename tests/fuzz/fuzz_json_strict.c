/*
 * libFuzzer target for rpl_json_parse, the parser of every JSON document
 * rocm-perf reads: what it adds to cJSON is the refusal of a key twice in
 * one object and of a NUL in a string.  Checked on the way: an accepted
 * document has no object with a key twice (counted here independently) and
 * prints to text that is accepted again as the same document; a refused one
 * hands nothing back, says why naming the input, and when it blames a
 * duplicate key or a NUL, the input has one.  Its seeds: seeds/json_strict.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A key twice among the members of some object under `item` (pairwise, not sorted). */
static bool has_duplicate(const cJSON *item)
{
    for (const cJSON *a = item->child; a; a = a->next) {
        if (cJSON_IsObject(item))
            for (const cJSON *b = a->next; b; b = b->next)
                if (strcmp(a->string, b->string) == 0)
                    return true;
        if (has_duplicate(a))
            return true;
    }
    return false;
}

/* cJSON prints infinity (1e400 read) as null: such a document does not print back the same. */
static bool has_non_finite(const cJSON *item)
{
    if (cJSON_IsNumber(item) && !isfinite(item->valuedouble))
        return true;
    for (const cJSON *c = item->child; c; c = c->next)
        if (has_non_finite(c))
            return true;
    return false;
}

/* A NUL byte or the escape \u0000 anywhere in the input. */
static bool has_nul(const uint8_t *data, size_t size)
{
    static const char esc[] = "\\u0000";

    if (memchr(data, '\0', size))
        return true;
    for (size_t i = 0; i + 6 <= size; i++)
        if (memcmp(data + i, esc, 6) == 0)
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *doc = (cJSON *)1, *again = NULL, *loose;
    const char *text = (const char *)data;
    char *printed = NULL;

    rpl_error_clear();
    if (rpl_json_parse(&doc, text, size, "fuzz") != 0) {
        const rpl_error *why = rpl_error_last();
        if (doc || why->code != RPL_EINPUT || strncmp(why->message, "fuzz: ", 6) != 0)
            abort();
        /* The reason follows "fuzz: " (keys quoted later may hold any words). */
        loose = cJSON_ParseWithLength(text, size);
        if (strncmp(why->message + 6, "key '", 5) == 0 && !(loose && has_duplicate(loose)))
            abort(); /* blamed a duplicate that cJSON's own tree does not have */
        if (strncmp(why->message + 6, "the string at line ", 19) == 0 && !has_nul(data, size))
            abort();
        cJSON_Delete(loose);
        return 0;
    }
    if (!doc || has_duplicate(doc))
        abort();
    if (rpl_json_print(&printed, doc) != 0)
        abort();
    if (rpl_json_parse(&again, printed, strlen(printed), "printed") != 0 ||
        (!has_non_finite(doc) && !cJSON_Compare(doc, again, true)))
        abort();
    free(printed);
    cJSON_Delete(again);
    cJSON_Delete(doc);
    return 0;
}
