/*
 * rpl_fixture DESC.json OUT.db [--sql "SQL"]...
 *
 * Builds a rocpd database from a fixture description (see
 * docs/schemas/fixture-description.md) with rpl_rocpd_write, then runs each
 * --sql statement on it, with {{uuid}} replaced by the table suffix and
 * {{guid}} by the guid, so tests can damage a good database on purpose.
 * OUT.db appears only when every step succeeded.  Exit 0 on success, 2 on a
 * bad description, bad SQL or bad usage, 1 on other failures.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture_desc.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/strbuf.h"

#define DESC_MAX (16u << 20)

static const char usage[] =
    "usage: rpl_fixture DESC.json OUT.db [--sql \"SQL\"]...\n"
    "Write the rocpd database described by DESC.json to OUT.db, then run each SQL\n"
    "statement on it ({{uuid}} becomes the table suffix, {{guid}} the guid).\n";

static int die(int status)
{
    fprintf(stderr, "rpl_fixture: %s\n", rpl_error_last()->message);
    return status == RPL_EINPUT || status == RPL_EUSAGE ? 2 : 1;
}

/* Copy `sql` with every {{uuid}} and {{guid}} replaced. */
static int substitute(rpl_strbuf *sb, const char *sql, const char *uuid, const char *guid)
{
    int rc = 0;

    rpl_strbuf_reset(sb);
    while (*sql && !rc) {
        if (strncmp(sql, "{{uuid}}", 8) == 0) {
            rc = rpl_strbuf_puts(sb, uuid);
            sql += 8;
        } else if (strncmp(sql, "{{guid}}", 8) == 0) {
            rc = rpl_strbuf_puts(sb, guid);
            sql += 8;
        } else {
            rc = rpl_strbuf_putc(sb, *sql++);
        }
    }
    return rc;
}

static int metadata(sqlite3 *db, const char *tag, char *out, size_t size)
{
    sqlite3_stmt *st;
    int rc = RPL_EINPUT;

    if (sqlite3_prepare_v2(db, "SELECT value FROM rocpd_metadata WHERE tag = ?", -1, &st, NULL) !=
        SQLITE_OK)
        return rpl_error_set(RPL_ERROR, "cannot read metadata: %s", sqlite3_errmsg(db));
    sqlite3_bind_text(st, 1, tag, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
        snprintf(out, size, "%s", (const char *)sqlite3_column_text(st, 0));
        rc = 0;
    }
    sqlite3_finalize(st);
    return rc ? rpl_error_set(rc, "written database lacks metadata '%s'", tag) : 0;
}

/* Run the --sql statements on the database at `path`. */
static int mutate(const char *path, char **sqls, int nsql)
{
    char uuid[128], guid[128];
    rpl_strbuf sb = RPL_STRBUF_INIT;
    sqlite3 *db = NULL;
    int rc;

    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
        rc = rpl_error_set(RPL_EIO, "cannot open '%s'", path);
        sqlite3_close(db);
        return rc;
    }
    rc = metadata(db, "uuid", uuid, sizeof(uuid));
    if (!rc)
        rc = metadata(db, "guid", guid, sizeof(guid));
    for (int i = 0; i < nsql && !rc; i++) {
        char *msg = NULL;
        if ((rc = substitute(&sb, sqls[i], uuid, guid)) != 0)
            break;
        if (sqlite3_exec(db, rpl_strbuf_cstr(&sb), NULL, NULL, &msg) != SQLITE_OK)
            rc = rpl_error_set(RPL_EINPUT, "--sql %d failed: %s", i + 1,
                               msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
    }
    if (sqlite3_close(db) != SQLITE_OK && !rc)
        rc = rpl_error_set(RPL_EIO, "cannot close '%s'", path);
    rpl_strbuf_release(&sb);
    return rc;
}

int main(int argc, char **argv)
{
    const char *files[2] = {NULL, NULL};
    char **sqls = calloc((size_t)argc, sizeof(char *));
    int nfiles = 0, nsql = 0, rc;
    rpl_rocpd_write_opts opts = {0};
    rpl_trace *trace = NULL;
    cJSON *doc = NULL;
    char *tmp = NULL;

    if (!sqls)
        return die(rpl_error_oom());
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            free(sqls);
            return 0;
        }
        if (strcmp(argv[i], "--sql") == 0 && i + 1 < argc)
            sqls[nsql++] = argv[++i];
        else if (argv[i][0] != '-' && nfiles < 2)
            files[nfiles++] = argv[i];
        else {
            free(sqls);
            fputs(usage, stderr);
            return 2;
        }
    }
    if (nfiles != 2) {
        free(sqls);
        fputs(usage, stderr);
        return 2;
    }
    if ((rc = rpl_json_parse_file(&doc, files[0], DESC_MAX)) ||
        (rc = rpl_fixture_build(&trace, &opts.guid, doc, files[0])))
        goto out;
    opts.hostname = trace->processes.items[0].hostname;
    if (nsql == 0) {
        rc = rpl_rocpd_write(trace, files[1], &opts);
        goto out;
    }
    /* Mutate a temporary copy so OUT.db is either complete or absent. */
    if ((rc = rpl_path_temp_sibling(&tmp, files[1])) || (rc = rpl_rocpd_write(trace, tmp, &opts)))
        goto out;
    if (!(rc = mutate(tmp, sqls, nsql)) && rename(tmp, files[1]) != 0)
        rc = rpl_error_set(RPL_EIO, "cannot rename '%s' to '%s'", tmp, files[1]);
    if (rc)
        unlink(tmp);
out:
    free(tmp);
    free(sqls);
    rpl_trace_free(trace);
    cJSON_Delete(doc);
    return rc ? die(rc) : 0;
}
