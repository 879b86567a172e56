/*
 * A compilation database (compile_commands.json, as CMake and Bear write
 * it): the command that compiles one source.  Each entry has "directory",
 * "file" and either "arguments" (the words) or "command" (one string,
 * split with the quoting rules of command templates: no shell).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/kernel_source.h"

#define MAX_DB_BYTES (256u << 20)

/* The entry's file as an absolute path, resolved when it exists (NULL on no memory). */
static char *entry_path(const char *dir, const char *file)
{
    char *joined = NULL, *real;

    if (file[0] == '/' || !dir)
        joined = strdup(file);
    else if (rpl_path_join(&joined, dir, file) != 0)
        return NULL;
    if (joined && (real = realpath(joined, NULL)) != NULL) {
        free(joined);
        return real;
    }
    return joined;
}

static int entry_words(char ***words, const cJSON *entry, const char *db)
{
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(entry, "arguments"), *w;
    const char *command = NULL;
    size_t n = 0, i = 0;
    int rc;

    if (cJSON_IsArray(args)) {
        n = (size_t)cJSON_GetArraySize(args);
        if (!(*words = calloc(n + 1, sizeof(char *))))
            return rpl_error_oom();
        cJSON_ArrayForEach(w, args)
        {
            if (!cJSON_IsString(w))
                return rpl_error_set(RPL_EINPUT, "%s: 'arguments' must hold strings", db);
            if (!((*words)[i++] = strdup(w->valuestring)))
                return rpl_error_oom();
        }
        return 0;
    }
    if (rpl_json_get_string(entry, "command", &command) != 0)
        return rpl_error_set(RPL_EINPUT, "%s: an entry has neither 'arguments' nor 'command'", db);
    if ((rc = rpl_words_split(words, &n, command, "the entry's 'command'")) != 0) {
        rpl_error_prefix("%s", db);
        return RPL_EINPUT;
    }
    return 0;
}

int rpl_compile_db_parse(const char *text, size_t len, const char *db, const char *source,
                         char ***words, char **dir)
{
    cJSON *doc = NULL;
    const cJSON *entry;
    char *want = realpath(source, NULL);
    int rc;

    *words = NULL;
    *dir = NULL;
    if (!want && !(want = strdup(source)))
        return rpl_error_oom();
    if ((rc = rpl_json_parse(&doc, text, len, db)) != 0) {
        free(want);
        return rc;
    }
    if (!cJSON_IsArray(doc))
        rc = rpl_error_set(RPL_EINPUT, "%s: not a compilation database (a JSON array of entries)",
                           db);
    const cJSON *entries = rc ? NULL : doc;
    cJSON_ArrayForEach(entry, entries)
    {
        const char *d = NULL, *file = NULL;
        char *path;
        if (!cJSON_IsObject(entry) || rpl_json_get_string(entry, "directory", &d) ||
            rpl_json_get_string(entry, "file", &file)) {
            rc = rpl_error_set(RPL_EINPUT, "%s: an entry lacks 'directory' or 'file'", db);
            break;
        }
        if (!(path = entry_path(d, file))) {
            rc = rpl_error_oom();
            break;
        }
        bool same = strcmp(path, want) == 0;
        free(path);
        if (!same)
            continue;
        if ((rc = entry_words(words, entry, db)) == 0 && !(*dir = strdup(d)))
            rc = rpl_error_oom();
        break;
    }
    if (rc == 0 && !*words)
        rc = rpl_error_set(RPL_ENOTFOUND, "%s has no entry for %s", db, want);
    if (rc) {
        rpl_argv_free(*words);
        *words = NULL;
        free(*dir);
        *dir = NULL;
    }
    cJSON_Delete(doc);
    free(want);
    return rc;
}

int rpl_compile_db_find(const char *db, const char *source, char ***words, char **dir)
{
    char *text = NULL;
    size_t len = 0;
    int rc;

    *words = NULL;
    *dir = NULL;
    if ((rc = rpl_file_read_all(db, MAX_DB_BYTES, &text, &len)) != 0)
        return rc;
    rc = rpl_compile_db_parse(text, len, db, source, words, dir);
    free(text);
    return rc;
}
