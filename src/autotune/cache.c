/*
 * The measurement cache: one SQLite table of samples keyed by the SHA-256 of
 * everything that makes a measurement what it is (command template and
 * expanded argv, build argv, the digests of the program's GPU code and of
 * the build's inputs, device, driver, settings).  Concurrent tuners share it
 * safely: WAL journal, a 30 s busy timeout, and every write in its own
 * IMMEDIATE transaction.  The schema version is PRAGMA user_version;
 * application_id marks the file as ours.  Version 1 keyed by the whole
 * program's digest, which changes with every rebuild; its rows cannot be
 * re-keyed, so a version 1 file keeps them aside (measurements_v1).
 */
#define _GNU_SOURCE /* asprintf, gmtime_r */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "rpl/autotune.h"
#include "tune_int.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/sha256.h"
#include "rpl/strbuf.h"

#define APPLICATION_ID  0x52504c54 /* "RPLT" */
#define BUSY_TIMEOUT_MS 30000
#define MAX_SAMPLES     (1u << 20)

struct rpl_tune_cache {
    sqlite3 *db;
    char *path;
    char *note;
};

static const char schema_sql[] =
    "CREATE TABLE IF NOT EXISTS measurements("
    " key TEXT PRIMARY KEY,"
    " cmd_template TEXT NOT NULL, argv TEXT NOT NULL, build_argv TEXT,"
    " code_sha256 TEXT NOT NULL, code_kind TEXT NOT NULL, inputs_sha256 TEXT NOT NULL,"
    " device TEXT NOT NULL, driver TEXT NOT NULL,"
    " settings TEXT NOT NULL, kernel TEXT, measured_device TEXT,"
    " samples TEXT NOT NULL, runs INTEGER NOT NULL, unstable INTEGER NOT NULL,"
    " remeasured INTEGER NOT NULL, updated TEXT NOT NULL);";

/* ---- the key ---- */

/* One part of the key: its length, a colon, the bytes; NULL is "-" (distinct from ""). */
static int key_part(rpl_sha256 *h, const char *s)
{
    char len[32];
    int rc;

    if (!s)
        return rpl_sha256_update(h, "-", 1);
    snprintf(len, sizeof(len), "%zu:", strlen(s));
    if ((rc = rpl_sha256_update(h, len, strlen(len))) != 0)
        return rc;
    return rpl_sha256_update(h, s, strlen(s));
}

static int key_list(rpl_sha256 *h, const char *const *v)
{
    char n[32];
    size_t k = 0;
    int rc;

    while (v && v[k])
        k++;
    snprintf(n, sizeof(n), v ? "[%zu]" : "[-]", k);
    rc = rpl_sha256_update(h, n, strlen(n));
    for (size_t i = 0; rc == 0 && i < k; i++)
        rc = key_part(h, v[i]);
    return rc;
}

int rpl_tune_key(char out[65], const rpl_tune_key_parts *p)
{
    const char *const parts[] = {p->code_sha256, p->code_kind, p->inputs_sha256,
                                 p->device,      p->driver,    p->settings};
    rpl_sha256 *h;
    int rc;

    if ((rc = rpl_sha256_new(&h)) != 0)
        return rc;
    if ((rc = key_part(h, "rocm-perf autotune v2")) == 0 &&
        (rc = key_part(h, p->cmd_template)) == 0 && (rc = key_list(h, p->argv)) == 0)
        rc = key_list(h, p->build_argv);
    for (size_t i = 0; rc == 0 && i < sizeof(parts) / sizeof(parts[0]); i++)
        rc = key_part(h, parts[i]);
    if (rc != 0) {
        rpl_sha256_free(h);
        return rc;
    }
    return rpl_sha256_final(h, out);
}

/* ---- SQLite ---- */

static int db_error(rpl_tune_cache *c, int rc, const char *what)
{
    if (rc == SQLITE_NOTADB || rc == SQLITE_CORRUPT)
        return rpl_error_set(RPL_EINPUT, "cache '%s' is not an autotune cache (%s)", c->path,
                             sqlite3_errmsg(c->db));
    if (rc == SQLITE_BUSY || rc == SQLITE_LOCKED)
        return rpl_error_set(RPL_EIO, "cache '%s' stayed locked for %d s (%s)", c->path,
                             BUSY_TIMEOUT_MS / 1000, what);
    return rpl_error_set(RPL_EIO, "cache '%s': %s: %s", c->path, what, sqlite3_errmsg(c->db));
}

static int pragma_int(rpl_tune_cache *c, const char *sql, int *out)
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(c->db, sql, -1, &st, NULL);

    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        *out = sqlite3_column_int(st, 0);
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : db_error(c, rc, sql);
}

/* Version 1 to 2 (inside setup's transaction): the old rows aside, a new table. */
static int migrate_v1(rpl_tune_cache *c)
{
    char sql[160];
    int rows = 0, rc = pragma_int(c, "SELECT count(*) FROM measurements", &rows);

    if (rc != 0)
        return rc;
    snprintf(sql, sizeof(sql),
             "ALTER TABLE measurements RENAME TO measurements_v1; PRAGMA user_version=%d",
             RPL_TUNE_CACHE_SCHEMA);
    if ((rc = sqlite3_exec(c->db, sql, NULL, NULL, NULL)) != SQLITE_OK ||
        (rc = sqlite3_exec(c->db, schema_sql, NULL, NULL, NULL)) != SQLITE_OK)
        return db_error(c, rc, "migrating from schema version 1");
    if (asprintf(&c->note,
                 "cache '%s' had schema version 1, whose keys hold the whole program's digest "
                 "(it changes with every rebuild); its %d entries are kept in the table "
                 "measurements_v1 but not used, and measurements are cached anew under "
                 "version %d",
                 c->path, rows, RPL_TUNE_CACHE_SCHEMA) < 0)
        c->note = NULL;
    return 0;
}

/* Create or check the schema, inside one write transaction. */
static int setup(rpl_tune_cache *c)
{
    char sql[128];
    int version = 0, app = 0, rc;

    sqlite3_busy_timeout(c->db, BUSY_TIMEOUT_MS);
    /* WAL lets readers and a writer work at once; a file system without it keeps the default. */
    sqlite3_exec(c->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
    if ((rc = sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL)) != SQLITE_OK)
        return db_error(c, rc, "begin");
    if ((rc = pragma_int(c, "PRAGMA application_id", &app)) == 0)
        rc = pragma_int(c, "PRAGMA user_version", &version);
    if (rc == 0 && app != 0 && app != APPLICATION_ID)
        rc = rpl_error_set(RPL_EINPUT,
                           "'%s' is a SQLite database of another program, not an "
                           "autotune cache",
                           c->path);
    if (rc == 0 && version > RPL_TUNE_CACHE_SCHEMA)
        rc = rpl_error_set(RPL_EINPUT,
                           "cache '%s' has schema version %d; this rocm-perf reads version %d "
                           "(use another --cache or --no-cache)",
                           c->path, version, RPL_TUNE_CACHE_SCHEMA);
    if (rc == 0 && app == APPLICATION_ID && version == 1)
        rc = migrate_v1(c);
    if (rc == 0 && app == 0) {
        sqlite3_stmt *st = NULL;
        /* A database with tables of its own is someone else's, even without an id. */
        int r = sqlite3_prepare_v2(c->db, "SELECT count(*) FROM sqlite_master", -1, &st, NULL);
        if (r == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0)
            rc = rpl_error_set(RPL_EINPUT,
                               "'%s' is a SQLite database of another program, not "
                               "an autotune cache",
                               c->path);
        else if (r != SQLITE_OK)
            rc = db_error(c, r, "reading the schema");
        sqlite3_finalize(st);
        if (rc == 0 && (r = sqlite3_exec(c->db, schema_sql, NULL, NULL, NULL)) != SQLITE_OK)
            rc = db_error(c, r, "creating the table");
        snprintf(sql, sizeof(sql), "PRAGMA application_id=%d; PRAGMA user_version=%d",
                 APPLICATION_ID, RPL_TUNE_CACHE_SCHEMA);
        if (rc == 0 && (r = sqlite3_exec(c->db, sql, NULL, NULL, NULL)) != SQLITE_OK)
            rc = db_error(c, r, "marking the file");
    }
    if (rc == 0 && (rc = sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK)
        return db_error(c, rc, "commit");
    if (rc != 0)
        sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
    return rc;
}

/* The folder of `path`, created when missing. */
static int make_parent(const char *path)
{
    char *dir = strdup(path), *slash;
    int rc = 0;

    if (!dir)
        return rpl_error_oom();
    slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        rc = rpl_mkdir_p(dir);
    }
    free(dir);
    return rc;
}

int rpl_tune_cache_open(rpl_tune_cache **out, const char *path)
{
    rpl_tune_cache *c = calloc(1, sizeof(*c));
    int rc;

    *out = NULL;
    if (!c || !(c->path = strdup(path))) {
        free(c);
        return rpl_error_oom();
    }
    if ((rc = make_parent(path)) != 0) {
        rpl_tune_cache_close(c);
        return rc;
    }
    rc = sqlite3_open_v2(path, &c->db,
                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, NULL);
    if (rc != SQLITE_OK) {
        rc = rpl_error_set(RPL_EIO, "cannot open the cache '%s': %s", path,
                           c->db ? sqlite3_errmsg(c->db) : "out of memory");
        rpl_tune_cache_close(c);
        return rc;
    }
    if ((rc = setup(c)) != 0) {
        rpl_tune_cache_close(c);
        return rc;
    }
    *out = c;
    return 0;
}

void rpl_tune_cache_close(rpl_tune_cache *c)
{
    if (!c)
        return;
    sqlite3_close(c->db);
    RPL_FREE_EACH(c->path, c->note, c);
}

const char *rpl_tune_cache_note(const rpl_tune_cache *c)
{
    return c ? c->note : NULL;
}

void rpl_tune_entry_release(rpl_tune_entry *e)
{
    RPL_FREE_EACH(e->samples, e->kernel, e->device);
    memset(e, 0, sizeof(*e));
}

static char *column_dup(sqlite3_stmt *st, int col)
{
    const unsigned char *t = sqlite3_column_text(st, col);

    return t ? strdup((const char *)t) : NULL;
}

/* The samples column: a JSON array of positive numbers. */
static int parse_samples(rpl_tune_entry *e, const char *text)
{
    cJSON *doc = NULL, *v;
    size_t n = 0;

    if (text && rpl_json_parse(&doc, text, strlen(text), "the cache's samples") != 0)
        return RPL_EINPUT;

    if (!cJSON_IsArray(doc) || cJSON_GetArraySize(doc) == 0 ||
        (size_t)cJSON_GetArraySize(doc) > MAX_SAMPLES) {
        cJSON_Delete(doc);
        return RPL_EINPUT;
    }
    e->samples = malloc((size_t)cJSON_GetArraySize(doc) * sizeof(*e->samples));
    if (!e->samples) {
        cJSON_Delete(doc);
        return rpl_error_oom();
    }
    cJSON_ArrayForEach(v, doc)
    {
        if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || !isfinite(v->valuedouble)) {
            cJSON_Delete(doc);
            return RPL_EINPUT;
        }
        e->samples[n++] = v->valuedouble;
    }
    e->nsamples = n;
    cJSON_Delete(doc);
    return 0;
}

int rpl_tune_cache_get(rpl_tune_cache *c, const char *key, rpl_tune_entry *out)
{
    sqlite3_stmt *st = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    rc = sqlite3_prepare_v2(c->db,
                            "SELECT samples, kernel, measured_device, unstable, runs, "
                            "remeasured FROM measurements WHERE key = ?",
                            -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_finalize(st);
        return RPL_ENOTFOUND;
    }
    if (rc != SQLITE_ROW) {
        rc = db_error(c, rc, "reading an entry");
        sqlite3_finalize(st);
        return rc;
    }
    rc = parse_samples(out, (const char *)sqlite3_column_text(st, 0));
    if (rc == RPL_EINPUT)
        rpl_error_set(RPL_EINPUT, "cache '%s': the entry %.12s has malformed samples", c->path,
                      key);
    out->kernel = column_dup(st, 1);
    out->device = column_dup(st, 2);
    out->unstable = sqlite3_column_int(st, 3) != 0;
    out->runs = (unsigned)sqlite3_column_int(st, 4);
    out->remeasured = sqlite3_column_int(st, 5) != 0;
    sqlite3_finalize(st);
    if (rc != 0)
        rpl_tune_entry_release(out);
    return rc;
}

static int json_list(char **out, const char *const *v)
{
    cJSON *a = v ? cJSON_CreateArray() : NULL;

    *out = NULL;
    if (!v)
        return 0;
    if (!a)
        return rpl_error_oom();
    for (size_t i = 0; v[i]; i++) {
        cJSON *s = cJSON_CreateString(v[i]);
        if (!s) {
            cJSON_Delete(a);
            return rpl_error_oom();
        }
        cJSON_AddItemToArray(a, s);
    }
    *out = cJSON_PrintUnformatted(a);
    cJSON_Delete(a);
    return *out ? 0 : rpl_error_oom();
}

static int samples_text(char **out, const rpl_tune_entry *e)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = rpl_strbuf_putc(&sb, '[');

    for (size_t i = 0; rc == 0 && i < e->nsamples; i++)
        rc = rpl_strbuf_printf(&sb, "%s%.17g", i ? "," : "", e->samples[i]);
    if (rc == 0)
        rc = rpl_strbuf_putc(&sb, ']');
    *out = rc == 0 ? rpl_strbuf_detach(&sb) : NULL;
    rpl_strbuf_release(&sb);
    return rc;
}

int rpl_tune_cache_put(rpl_tune_cache *c, const char *key, const rpl_tune_key_parts *p,
                       const rpl_tune_entry *e)
{
    char *argv = NULL, *build = NULL, *samples = NULL, now[32];
    sqlite3_stmt *st = NULL;
    time_t t = time(NULL);
    struct tm tm;
    int rc, col = 1;

    gmtime_r(&t, &tm);
    strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", &tm);
    if ((rc = json_list(&argv, p->argv)) != 0 || (rc = json_list(&build, p->build_argv)) != 0 ||
        (rc = samples_text(&samples, e)) != 0)
        goto out;
    rc = sqlite3_exec(c->db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(c->db,
                                "INSERT OR REPLACE INTO measurements(key, cmd_template, argv, "
                                "build_argv, code_sha256, code_kind, inputs_sha256, device, "
                                "driver, settings, kernel, measured_device, samples, runs, "
                                "unstable, remeasured, updated) VALUES "
                                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                -1, &st, NULL);
    if (rc == SQLITE_OK) {
        const char *text[] = {key,
                              p->cmd_template,
                              argv,
                              build,
                              p->code_sha256 ? p->code_sha256 : "",
                              p->code_kind ? p->code_kind : "",
                              p->inputs_sha256 ? p->inputs_sha256 : "",
                              p->device ? p->device : "",
                              p->driver ? p->driver : "",
                              p->settings ? p->settings : "",
                              e->kernel,
                              e->device,
                              samples};
        for (size_t i = 0; rc == SQLITE_OK && i < sizeof(text) / sizeof(text[0]); i++)
            rc = text[i] ? sqlite3_bind_text(st, col++, text[i], -1, SQLITE_STATIC)
                         : sqlite3_bind_null(st, col++);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_int(st, col++, (int)e->runs);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_int(st, col++, e->unstable);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_int(st, col++, e->remeasured);
        if (rc == SQLITE_OK)
            rc = sqlite3_bind_text(st, col++, now, -1, SQLITE_STATIC);
    }
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_DONE)
        rc = SQLITE_OK;
    sqlite3_finalize(st);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK) {
        int err = db_error(c, rc, "writing an entry");
        sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL);
        rc = err;
    } else {
        rc = 0;
    }
out:
    RPL_FREE_EACH(argv, build, samples);
    return rc;
}
