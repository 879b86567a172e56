/*
 * rocpd reader: read part of a database on a second thread while the main
 * thread reads the rest.  The two largest tables are rocpd_event and
 * rocpd_kernel_dispatch; SQLite decodes rows on one core per connection.
 * The worker reads rocpd_event and the dispatch rows from a rowid on; the
 * main thread reads the dispatch rows before it, and the memory copies.
 * The split point balances the rows each side decodes.
 *
 * The worker has its own read-only connection to the same file, guarded
 * like the main one (limits, defensive mode, its own step budget), in its
 * own read transaction.  The main connection's read transaction already
 * holds the file's shared lock, so in rollback-journal mode no writer can
 * commit in between and both connections see the same database.  A WAL
 * database gives each connection its own snapshot, so it is read on one
 * thread; so is a caller's connection (no path) and a build of SQLite
 * without threads.  Dispatches are split only on a plain rowid table with
 * the queue and stream tables present (rows of other tables are never
 * added by the worker).
 *
 * The worker writes only its own copy of the reader: the event table and
 * id map, and its dispatches in a private trace that the main thread
 * appends after its own (rowid order is kept).  It only reads the id maps
 * that the main thread finished before it started.  Its error message is
 * thread-local, so it is carried back and set again on the main thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocpd_reader_int.h"
#include "rpl/error.h"
#include "rpl/log.h"

/*
 * Decoding cost of a row, in dispatch rows (measured on the benchmark's 1M
 * dispatch database: 0.24 s for 1.1M events and 0.04 s for 100k copies,
 * next to 0.8 us per dispatch row while both threads run).
 */
#define EVENT_ROW_COST  0.3
#define MEMCPY_ROW_COST 0.6
/* Tables smaller than this are not worth a second connection. */
#define MIN_SPLIT_ROWS 10000

typedef struct rd_worker {
    pthread_t thread;
    rd_reader r; /* a copy of the main reader, on the worker's connection */
    bool events; /* read rocpd_event */
    int rc;
    char message[512];
} rd_worker;

static void *worker_main(void *arg)
{
    rd_worker *w = arg;

    w->rc = w->events ? rd_read_events(&w->r) : 0;
    if (w->rc == 0 && w->r.split_side)
        w->rc = rd_read_dispatches(&w->r);
    if (w->rc)
        snprintf(w->message, sizeof(w->message), "%s", rpl_error_last()->message);
    return NULL;
}

/* One integer from `sql` (with the table name as ?1 where used); false when it fails or is NULL. */
static bool query_int(rd_reader *r, const char *sql, int64_t *out)
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

/* Estimated rows of table t: its rowid span (each bound is one b-tree descent), or 0. */
static uint64_t rowid_span(rd_reader *r, enum rd_table t, int64_t *lo, int64_t *hi)
{
    char sql[RD_TABLE_NAME_MAX + 64];
    int64_t a, b;

    if (!r->present[t])
        return 0;
    snprintf(sql, sizeof(sql), "SELECT min(rowid) FROM \"%s\"", r->table[t]);
    if (!query_int(r, sql, &a))
        return 0;
    snprintf(sql, sizeof(sql), "SELECT max(rowid) FROM \"%s\"", r->table[t]);
    if (!query_int(r, sql, &b) || b < a || b - a > (int64_t)UINT32_MAX)
        return 0;
    if (lo)
        *lo = a;
    if (hi)
        *hi = b;
    return (uint64_t)(b - a) + 1;
}

/* The dispatch table is an ordinary rowid table, so "rowid" cannot name anything else. */
static bool plain_rowid_table(rd_reader *r)
{
    char sql[RD_TABLE_NAME_MAX + 160];
    int64_t one;

    snprintf(sql, sizeof(sql),
             "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = '%s' AND "
             "sql NOT LIKE 'CREATE VIRTUAL%%'",
             r->table[RD_DISPATCH]);
    return !strchr(r->table[RD_DISPATCH], '\'') && query_int(r, sql, &one) &&
           !rd_has_column(r, RD_DISPATCH, "rowid");
}

/* Where the worker's dispatch rows start; false to read all of them here. */
static bool plan_split(rd_reader *r, bool events, int64_t *split)
{
    int64_t lo = 0, hi = 0;
    uint64_t n, e, m;
    double f;

    if (!r->present[RD_QUEUE] || !r->present[RD_STREAM] || !plain_rowid_table(r) ||
        (n = rowid_span(r, RD_DISPATCH, &lo, &hi)) < MIN_SPLIT_ROWS)
        return false;
    e = events ? rowid_span(r, RD_EVENT, NULL, NULL) : 0;
    m = rowid_span(r, RD_MEMCPY, NULL, NULL);
    /* Main: f n dispatches + m copies; worker: e events + (1 - f) n dispatches. */
    f = (EVENT_ROW_COST * (double)e + (double)n - MEMCPY_ROW_COST * (double)m) / (2.0 * (double)n);
    if (f > 0.95)
        return false;
    if (f < 0.05)
        f = 0.05;
    *split = lo + (int64_t)(f * (double)(hi - lo + 1));
    return true;
}

/* The main connection's journal mode is WAL (each connection has its own snapshot). */
static bool is_wal(rd_reader *r)
{
    sqlite3_stmt *st = NULL;
    bool wal = true; /* when unsure, one thread */

    if (sqlite3_prepare_v2(r->db, "PRAGMA main.journal_mode", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW) {
        const char *mode = (const char *)sqlite3_column_text(st, 0);
        wal = !mode || sqlite3_stricmp(mode, "wal") == 0;
    }
    sqlite3_finalize(st);
    return wal;
}

/*
 * Open the worker's connection and take its shared lock now, without
 * waiting: a writer queued for the file would otherwise make it wait while
 * the main connection holds the lock that the writer waits for.
 */
static int open_worker(rd_worker *w, const char *path)
{
    rd_reader *r = &w->r;

    if (sqlite3_open_v2(path, &r->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK)
        return -1;
    rd_guard_fresh(r);
    if (sqlite3_exec(r->db, "BEGIN; SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL) !=
        SQLITE_OK)
        return -1;
    if (r->split_side && rpl_trace_new(&r->trace) != 0)
        return -1;
    return 0;
}

static void close_worker(rd_worker *w)
{
    if (w->r.db && !sqlite3_get_autocommit(w->r.db))
        sqlite3_exec(w->r.db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(w->r.db);
    if (w->r.split_side) {
        rpl_trace_free(w->r.trace);
        free(w->r.dispatch_has_event);
    }
    free(w);
}

int rd_worker_begin(rd_reader *r)
{
    bool events = r->present[RD_EVENT];
    int64_t split = 0;
    rd_worker *w = NULL;

    if (r->path && sqlite3_threadsafe() && !is_wal(r) && (w = calloc(1, sizeof(*w))) != NULL) {
        w->r = *r;
        w->r.db = NULL;
        w->r.trace = NULL;
        w->r.worker = true;
        w->events = events;
        if (plan_split(r, events, &split)) {
            r->split_side = -1;
            w->r.split_side = 1;
            r->split_rowid = w->r.split_rowid = split;
        }
        if ((events || w->r.split_side) && open_worker(w, r->path) == 0 &&
            pthread_create(&w->thread, NULL, worker_main, w) == 0) {
            r->worker_thread = w;
            return 0;
        }
        r->split_side = 0;
        close_worker(w);
    }
    rpl_log_debug("'%s': reading on one thread", r->label);
    return events ? rd_read_events(r) : 0;
}

/* Append the worker's dispatches (rows from the split on) after the main thread's. */
static int take_dispatches(rd_reader *r, const rd_worker *w)
{
    const rpl_trace *wt = w->r.trace;
    uint32_t have = r->trace->dispatches.count - r->first_dispatch;
    uint8_t *flags;
    int rc;

    if (wt->dispatches.count > UINT32_MAX - 2 - r->trace->dispatches.count)
        return rpl_error_set(RPL_EINPUT, "'%s': %s has too many rows", r->label,
                             r->table[RD_DISPATCH]);
    flags = realloc(r->dispatch_has_event, (size_t)have + wt->dispatches.count + 1);
    if (!flags)
        return rpl_error_oom();
    r->dispatch_has_event = flags;
    memcpy(flags + have, w->r.dispatch_has_event, wt->dispatches.count);
    for (uint32_t i = 0; i < wt->dispatches.count; i++)
        if ((rc = rpl_trace_add_dispatch(r->trace, &wt->dispatches.items[i], NULL)) != 0)
            return rc;
    return 0;
}

int rd_worker_end(rd_reader *r, bool cancel)
{
    rd_worker *w = r->worker_thread;
    int rc = 0;

    if (!w)
        return 0;
    r->worker_thread = NULL;
    if (cancel)
        sqlite3_interrupt(w->r.db);
    pthread_join(w->thread, NULL);
    rpl_log_debug("'%s': worker used %llu of %llu query steps", r->label,
                  (unsigned long long)w->r.steps, (unsigned long long)w->r.max_steps);
    if (w->events) {
        /* Whatever it read is r's to free now. */
        r->event_ids = w->r.event_ids;
        r->events = w->r.events;
        r->nevents = w->r.nevents;
        r->event_cap = w->r.event_cap;
    }
    if (!cancel && w->rc)
        rc = rpl_error_set(w->rc, "%s", w->message);
    else if (!cancel && w->r.split_side)
        rc = take_dispatches(r, w);
    close_worker(w);
    return rc;
}
