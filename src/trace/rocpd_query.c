/* rocpd reader: statements, steps and the messages for SQLite errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rocpd_reader_int.h"
#include "rpl/clock.h"
#include "rpl/error.h"

const char *rd_printable(char *buf, size_t size, const char *s)
{
    size_t i = 0;

    for (; s && *s && i + 4 < size; s++)
        buf[i++] = ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f) ? '?' : *s;
    if (s && *s && size >= 4) {
        memcpy(buf + i, "...", 3);
        i += 3;
    }
    buf[i] = '\0';
    return buf;
}

int rd_sqlite_error(rd_reader *r, int rc, const char *what)
{
    char msg[200];

    switch (rc & 0xff) {
    case SQLITE_NOMEM:
        /* Corrupt headers make SQLite ask for absurd sizes: far likelier than a real OOM. */
        return rpl_error_set(RPL_EINPUT,
                             "'%s': SQLite ran out of memory reading %s; the file is probably "
                             "corrupt",
                             r->label, what);
    case SQLITE_NOTADB:
        return rpl_error_set(RPL_EINPUT, "'%s' is not a rocpd database: file is not a database",
                             r->label);
    case SQLITE_CORRUPT:
        return rpl_error_set(RPL_EINPUT, "'%s' is corrupt: %s (reading %s)", r->label,
                             sqlite3_errstr(rc), what);
    case SQLITE_INTERRUPT:
        return rpl_error_set(RPL_EINPUT,
                             "'%s': reading %s took more than %llu query steps; the database "
                             "is corrupt or hostile",
                             r->label, what, (unsigned long long)r->max_steps);
    case SQLITE_TOOBIG:
        return rpl_error_set(RPL_EINPUT, "'%s': %s holds a value longer than %u bytes", r->label,
                             what, RD_EXTDATA_MAX);
    default:
        return rpl_error_set(RPL_EINPUT, "'%s': cannot read %s: %s", r->label, what,
                             rd_printable(msg, sizeof(msg), sqlite3_errmsg(r->db)));
    }
}

bool rd_has_column(rd_reader *r, enum rd_table t, const char *column)
{
    sqlite3_stmt *st = NULL;
    bool found = false;

    if (sqlite3_prepare_v2(r->db,
                           "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2 COLLATE NOCASE", -1,
                           &st, NULL) == SQLITE_OK &&
        sqlite3_bind_text(st, 1, r->table[t], -1, SQLITE_STATIC) == SQLITE_OK &&
        sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC) == SQLITE_OK)
        found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return found;
}

/* Fail with a clear message when a column the reader needs is missing. */
static int check_columns(rd_reader *r, enum rd_table t, const char *const *columns, int n)
{
    sqlite3_stmt *st = NULL;
    bool seen[32] = {false};
    int rc;

    rc = sqlite3_prepare_v2(r->db, "SELECT name FROM pragma_table_info(?1)", -1, &st, NULL);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 1, r->table[t], -1, SQLITE_STATIC);
    while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        for (int i = 0; name && i < n && i < 32; i++)
            if (sqlite3_stricmp(name, columns[i]) == 0)
                seen[i] = true;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE)
        return rd_sqlite_error(r, rc, r->table[t]);
    for (int i = 0; i < n && i < 32; i++)
        if (!seen[i])
            return rpl_error_set(RPL_EINPUT,
                                 "'%s' is not a rocpd database: table %s has no column '%s'",
                                 r->label, r->table[t], columns[i]);
    return 0;
}

/* Append `alias."column" AS "column"` for each column (messages name the columns). */
static size_t add_columns(char *sql, size_t size, size_t len, bool first, const char *alias,
                          const char *const *columns, int ncolumns)
{
    for (int i = 0; i < ncolumns && len < size; i++)
        len += (size_t)snprintf(sql + len, size - len, "%s%s.\"%s\" AS \"%s\"",
                                first && i == 0 ? "" : ", ", alias, columns[i], columns[i]);
    return len;
}

int rd_prepare(rd_reader *r, enum rd_table t, const char *const *columns, int ncolumns,
               const char *const *event_columns, int nevent_columns, const char *where,
               sqlite3_stmt **out)
{
    char sql[2048];
    size_t len;
    int rc;

    *out = NULL;
    if ((rc = check_columns(r, t, columns, ncolumns)) != 0 ||
        (nevent_columns && (rc = check_columns(r, RD_EVENT, event_columns, nevent_columns)) != 0))
        return rc;
    len = (size_t)snprintf(sql, sizeof(sql), "SELECT ");
    len = add_columns(sql, sizeof(sql), len, true, "t", columns, ncolumns);
    len = add_columns(sql, sizeof(sql), len, false, "e", event_columns, nevent_columns);
    if (len < sizeof(sql))
        len += (size_t)snprintf(sql + len, sizeof(sql) - len, " FROM \"%s\" AS t", r->table[t]);
    /* The event ids are unique (rd_check_event_ids): a row gets one event or none. */
    if (nevent_columns && len < sizeof(sql))
        len += (size_t)snprintf(sql + len, sizeof(sql) - len,
                                " LEFT JOIN \"%s\" AS e ON e.\"id\" = t.\"event_id\"",
                                r->table[RD_EVENT]);
    if (where && len < sizeof(sql))
        len += (size_t)snprintf(sql + len, sizeof(sql) - len, " WHERE %s", where);
    /* The worker claims dispatch rows from the highest down. */
    if (t == RD_DISPATCH && r->split_side > 0 && len < sizeof(sql))
        len += (size_t)snprintf(sql + len, sizeof(sql) - len, " ORDER BY t.rowid DESC");
    if (len >= sizeof(sql))
        return rpl_error_set(RPL_ERROR, "query on %s is too long", r->table[t]);
    rc = sqlite3_prepare_v2(r->db, sql, -1, out, NULL);
    if (rc != SQLITE_OK) {
        sqlite3_finalize(*out);
        *out = NULL;
        return rd_sqlite_error(r, rc, r->table[t]);
    }
    return 0;
}

int rd_step(rd_reader *r, sqlite3_stmt *st, enum rd_table t)
{
    int rc = sqlite3_step(st);

    if (rc == SQLITE_ROW)
        return 1;
    if (rc == SQLITE_DONE)
        return 0;
    return rd_sqlite_error(r, rc, r->table[t]);
}

int rd_count(rd_reader *r, enum rd_table t, uint64_t *out)
{
    char sql[RD_TABLE_NAME_MAX + 40];
    sqlite3_stmt *st = NULL;
    int rc;

    *out = 0;
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM \"%s\"", r->table[t]);
    rc = sqlite3_prepare_v2(r->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        sqlite3_int64 n = sqlite3_column_int64(st, 0);
        *out = n > 0 ? (uint64_t)n : 0;
        rc = SQLITE_OK;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_OK ? 0 : rd_sqlite_error(r, rc, r->table[t]);
}

bool rd_query_int(rd_reader *r, const char *sql, int64_t *out)
{
    sqlite3_stmt *st = NULL;
    bool ok = false;

    if (sqlite3_prepare_v2(r->db, sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER) {
        *out = sqlite3_column_int64(st, 0);
        ok = true;
    }
    sqlite3_finalize(st);
    return ok;
}

uint64_t rd_rowid_span(rd_reader *r, enum rd_table t, int64_t *lo, int64_t *hi)
{
    char sql[RD_TABLE_NAME_MAX + 64];
    int64_t a, b;

    if (!r->present[t])
        return 0;
    /* Two statements: each bound alone is one b-tree descent. */
    snprintf(sql, sizeof(sql), "SELECT min(rowid) FROM \"%s\"", r->table[t]);
    if (!rd_query_int(r, sql, &a))
        return 0;
    snprintf(sql, sizeof(sql), "SELECT max(rowid) FROM \"%s\"", r->table[t]);
    if (!rd_query_int(r, sql, &b) || b < a || b - a > (int64_t)UINT32_MAX)
        return 0;
    if (lo)
        *lo = a;
    if (hi)
        *hi = b;
    return (uint64_t)(b - a) + 1;
}

/* The fewest bytes a table row takes in the file (cell pointer, sizes, a few columns). */
#define RD_MIN_ROW_BYTES 8

uint32_t rd_rows_hint(rd_reader *r, enum rd_table t)
{
    uint64_t span = rd_rowid_span(r, t, NULL, NULL), most = r->file_bytes / RD_MIN_ROW_BYTES;

    if (span > most)
        span = most;
    return span < RD_ROWS_MAX ? (uint32_t)span : RD_ROWS_MAX;
}

int rd_grow(rd_reader *r, enum rd_table t, void **items, uint32_t *cap, uint32_t count, size_t size)
{
    uint32_t ncap;
    void *p;

    if (count < *cap)
        return 0;
    if (count >= RD_ROWS_MAX)
        return rpl_error_set(RPL_EINPUT, "'%s': %s has too many rows", r->label, r->table[t]);
    ncap = *cap < 1024 ? 1024 : *cap > RD_ROWS_MAX / 2 ? RD_ROWS_MAX : 2 * *cap;
    if (!(p = realloc(*items, (size_t)ncap * size)))
        return rpl_error_oom();
    *items = p;
    *cap = ncap;
    return 0;
}

rpl_progress *rd_progress_start(const char *what, uint64_t rows)
{
    char label[64];

    if (rows < 100000)
        return NULL;
    snprintf(label, sizeof(label), "reading %s", what);
    return rpl_progress_start(label, rows);
}

int rd_scan(rd_reader *r, enum rd_table t, const char *const *columns, int ncolumns,
            const char *what, uint64_t rows, int (*fn)(rd_row *row))
{
    return rd_scan_joined(r, t, columns, ncolumns, NULL, 0, NULL, what, rows, fn);
}

int rd_scan_where(rd_reader *r, enum rd_table t, const char *const *columns, int ncolumns,
                  const char *where, const char *what, uint64_t rows, int (*fn)(rd_row *row))
{
    return rd_scan_joined(r, t, columns, ncolumns, NULL, 0, where, what, rows, fn);
}

int rd_scan_joined(rd_reader *r, enum rd_table t, const char *const *columns, int ncolumns,
                   const char *const *event_columns, int nevent_columns, const char *where,
                   const char *what, uint64_t rows, int (*fn)(rd_row *row))
{
    rd_row row = {r, NULL, t, 0};
    /* One progress line at a time: the worker draws none. */
    rpl_progress *progress = what && !r->worker ? rd_progress_start(what, rows) : NULL;
    uint64_t done = 0;
    double t0 = rpl_clock_mono_s();
    int rc = rd_prepare(r, t, columns, ncolumns, event_columns, nevent_columns, where, &row.st);

    while (rc == 0 && (rc = rd_step(r, row.st, t)) == 1) {
        if ((rc = rd_row_begin(&row)) == 0)
            rc = fn(&row);
        if (rc == RD_SCAN_STOP) {
            rc = 0;
            break;
        }
        if ((++done & 0xffff) == 0)
            rpl_progress_update(progress, done);
    }
    sqlite3_finalize(row.st);
    rpl_progress_finish(progress);
    rpl_log_debug("'%s': read %llu rows of %s in %.3f s", r->label, (unsigned long long)done,
                  r->table[t], rpl_clock_mono_s() - t0);
    return rc;
}
