/* Test helper: a damaged copy of a good rocpd database (see mutate_db.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "mutate_db.h"
#include "rpl/fsutil.h"

const char *db_uuid(const char *path)
{
    static char uuid[128];
    sqlite3 *db;
    sqlite3_stmt *st;

    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT value FROM rocpd_metadata WHERE tag = 'uuid'",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(uuid, sizeof(uuid), "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(db);
    return uuid;
}

void mutate_db(const char *from, const char *to, const char *sql)
{
    char uuid[128], text[4096];
    sqlite3 *db;
    char *data, *err = NULL;
    size_t len, n = 0;

    assert_int_equal(rpl_file_read_all(from, 1u << 30, &data, &len), 0);
    assert_int_equal(rpl_file_write_atomic(to, data, len), 0);
    free(data);
    snprintf(uuid, sizeof(uuid), "%s", db_uuid(to));
    assert_int_equal(sqlite3_open(to, &db), SQLITE_OK);
    for (const char *s = sql; *s && n + sizeof(uuid) < sizeof(text);) {
        if (strncmp(s, "{{uuid}}", 8) == 0) {
            n += (size_t)snprintf(text + n, sizeof(text) - n, "%s", uuid);
            s += 8;
        } else {
            text[n++] = *s++;
        }
    }
    text[n] = '\0';
    if (sqlite3_exec(db, text, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("mutation failed: %s\n%s", err, text);
    sqlite3_close(db);
}
