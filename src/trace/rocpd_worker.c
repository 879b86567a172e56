/*
 * rocpd reader: read part of a database on a second thread while the main
 * thread reads the rest.  The largest table is rocpd_kernel_dispatch (each
 * row joined with its event); SQLite decodes rows on one core per
 * connection.  The worker reads dispatch rows from the highest rowid down;
 * the main thread reads the memory copies, the API regions and their
 * arguments, then dispatch rows from the lowest rowid up.  Each side claims
 * rowids in batches under a lock until the two meet, so both finish
 * together however fast each runs.
 *
 * The worker has its own read-only connection to the same file, guarded
 * like the main one (limits, defensive mode, its own step budget), in its
 * own read transaction.  The main connection's read transaction already
 * holds the file's shared lock, so in rollback-journal mode no writer can
 * commit in between and both connections see the same database.  A WAL
 * database gives each connection its own snapshot, so it is read on one
 * thread; so is a caller's connection (no path) and a build of SQLite
 * without threads.  Dispatches are shared only on a plain rowid table with
 * the queue and stream tables present (rows of other tables are never
 * added by the worker).
 *
 * The worker writes only its own copy of the reader and its slots of the
 * trace's dispatch array (and of the raw event ids): room for the rowid
 * span is made before it starts, the main thread appends from the bottom,
 * the worker fills from the top down, and after the join its rows (in
 * rowid order already) move down next to the main thread's.  Nothing is
 * copied between two arrays and the array never grows during the read.
 * It only reads the id maps that the main thread finished before it started.  Its error message is
 * thread-local, so it is carried back and set again on the main thread.
 * A worker that fails gives back the rows below the last one it read, so
 * that the main thread reads them: the error of the lowest bad row is the
 * one reported, as on one thread.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h"
#include "rocpd_reader_int.h"
#include "rpl/error.h"
#include "rpl/log.h"

/* Tables smaller than this are not worth a second connection. */
#define MIN_SPLIT_ROWS 10000
/* Rowids claimed at a time (a few milliseconds of decoding). */
#define CLAIM_ROWS 4096

/*
 * The dispatch rows, as offsets of their rowids from the lowest: the main
 * thread's are below `below`, the worker's from `above` on (below <= above;
 * the rest is unclaimed).  `done` is set when the worker has stopped.
 */
typedef struct rd_claims {
    pthread_mutex_t lock;
    rpl_trace *trace; /* its threads are added under the lock too (rd_thread) */
    pthread_cond_t stopped;
    int64_t lo;
    uint64_t span, below, above;
    bool done;
} rd_claims;

typedef struct rd_worker {
    pthread_t thread;
    rd_reader r; /* a copy of the main reader, on the worker's connection */
    rd_claims claims;
    int rc;
    char message[512];
} rd_worker;

/* Main thread: up to CLAIM_ROWS more rows from below; false when the worker has the rest. */
static bool claim_below(rd_claims *c, uint64_t off)
{
    for (;;) {
        if (off < c->below)
            return true;
        if (c->below < c->above) {
            /* Up to this row or CLAIM_ROWS more, whichever is more, within what is left. */
            uint64_t left = c->above - c->below;
            uint64_t take = off - c->below < left ? off - c->below + 1 : left;

            if (take < CLAIM_ROWS)
                take = left < CLAIM_ROWS ? left : CLAIM_ROWS;
            c->below += take;
            continue;
        }
        /* Wait for the worker: when it fails, it gives back the rows it did not read. */
        if (c->done)
            return false;
        pthread_cond_wait(&c->stopped, &c->lock);
    }
}

/* Worker: up to CLAIM_ROWS more rows from above; false when the main thread has the rest. */
static bool claim_above(rd_claims *c, uint64_t off)
{
    if (off < c->above && c->above > c->below) {
        uint64_t want = c->above - c->below > CLAIM_ROWS ? c->above - CLAIM_ROWS : c->below;
        want = want < off ? want : off;
        c->above = want > c->below ? want : c->below;
    }
    return off >= c->above;
}

int rd_thread(rd_reader *r, int64_t pid, int64_t tid, uint32_t *thread)
{
    uint32_t index;

    if (r->last_thread != RPL_NONE && r->last_pid == pid && r->last_tid == tid) {
        *thread = r->last_thread;
        return 0;
    }
    if (r->claims) {
        pthread_mutex_lock(&r->claims->lock);
        index = rpl_trace_thread(r->claims->trace, pid, tid);
        pthread_mutex_unlock(&r->claims->lock);
    } else {
        index = rpl_trace_thread(r->trace, pid, tid);
    }
    if (index == RPL_NONE)
        return rpl_error_last()->code;
    r->last_pid = pid;
    r->last_tid = tid;
    r->last_thread = *thread = index;
    return 0;
}

bool rd_claim_dispatch(rd_reader *r, int64_t rowid)
{
    rd_claims *c = r->claims;
    uint64_t off = (uint64_t)rowid - (uint64_t)r->claim_base;
    bool mine;

    pthread_mutex_lock(&c->lock);
    mine = r->split_side < 0 ? claim_below(c, off) : claim_above(c, off);
    r->claimed = r->split_side < 0 ? c->below : c->above;
    pthread_mutex_unlock(&c->lock);
    return mine;
}

/* The worker has stopped; after a failure, the rows below the lowest it read go back. */
static void worker_stopped(rd_worker *w)
{
    rd_claims *c = &w->claims;
    const rd_reader *wr = &w->r;

    pthread_mutex_lock(&c->lock);
    if (w->rc)
        c->above = wr->top_count
                       ? (uint64_t)wr->top_items[wr->top_end - wr->top_count].id - (uint64_t)c->lo
                       : c->span;
    c->done = true;
    pthread_cond_signal(&c->stopped);
    pthread_mutex_unlock(&c->lock);
}

static void *worker_main(void *arg)
{
    rd_worker *w = arg;

    w->rc = rd_read_dispatches(&w->r);
    if (w->rc)
        snprintf(w->message, sizeof(w->message), "%s", rpl_error_last()->message);
    worker_stopped(w);
    return NULL;
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
    return !strchr(r->table[RD_DISPATCH], '\'') && rd_query_int(r, sql, &one) &&
           !rd_has_column(r, RD_DISPATCH, "rowid");
}

/* The fewest bytes a dispatch row takes in the file: a span beyond this many rows is sparse. */
#define MIN_DISPATCH_ROW_BYTES 16

/*
 * Whether the dispatch rows are shared with the worker; their rowids go to
 * c, and the trace gets room for all of them (and their raw event ids, when
 * kept for counter values).
 */
static bool plan_sharing(rd_reader *r, rd_claims *c)
{
    rpl_trace *t = r->trace;
    int64_t hi;

    if (!r->present[RD_QUEUE] || !r->present[RD_STREAM] || !plain_rowid_table(r) ||
        (c->span = rd_rowid_span(r, RD_DISPATCH, &c->lo, &hi)) < MIN_SPLIT_ROWS ||
        c->span > r->file_bytes / MIN_DISPATCH_ROW_BYTES ||
        RPL_TRACE_ROOM(t->dispatches, c->span) != 0 ||
        (r->pmc_values &&
         !(r->dispatch_event_ids = malloc((size_t)c->span * sizeof(*r->dispatch_event_ids)))))
        return false;
    r->dispatch_cap = (uint32_t)c->span;
    r->first_dispatch = t->dispatches.count;
    c->trace = t;
    c->below = 0;
    c->above = c->span;
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
    rd_guard(r, NULL);
    if (sqlite3_exec(r->db, "BEGIN; SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL) !=
        SQLITE_OK)
        return -1;
    return 0;
}

static void close_worker(rd_worker *w)
{
    if (w->r.db && !sqlite3_get_autocommit(w->r.db))
        sqlite3_exec(w->r.db, "COMMIT", NULL, NULL, NULL);
    sqlite3_close(w->r.db);
    pthread_cond_destroy(&w->claims.stopped);
    pthread_mutex_destroy(&w->claims.lock);
    free(w);
}

/* A worker reading a copy of r (no thread yet) with its share of the dispatches, or NULL. */
static rd_worker *new_worker(rd_reader *r)
{
    rd_worker *w = calloc(1, sizeof(*w));

    if (!w)
        return NULL;
    if (pthread_mutex_init(&w->claims.lock, NULL) != 0) {
        free(w);
        return NULL;
    }
    if (pthread_cond_init(&w->claims.stopped, NULL) != 0) {
        pthread_mutex_destroy(&w->claims.lock);
        free(w);
        return NULL;
    }
    if (!plan_sharing(r, &w->claims)) {
        close_worker(w);
        return NULL;
    }
    w->r = *r;
    w->r.db = NULL;
    w->r.trace = NULL;
    w->r.worker = true;
    r->split_side = -1;
    w->r.split_side = 1;
    r->claims = w->r.claims = &w->claims;
    r->claim_base = w->r.claim_base = w->claims.lo;
    r->claimed = 0;
    w->r.claimed = w->claims.span;
    w->r.top_items = r->trace->dispatches.items + r->first_dispatch;
    w->r.top_event_ids = r->dispatch_event_ids;
    w->r.top_end = (uint32_t)w->claims.span;
    return w;
}

int rd_worker_begin(rd_reader *r)
{
    rd_worker *w = NULL;

    if (r->path && sqlite3_threadsafe() && !is_wal(r) && (w = new_worker(r)) != NULL) {
        if (open_worker(w, r->path) == 0 && pthread_create(&w->thread, NULL, worker_main, w) == 0) {
            r->worker_thread = w;
            return 0;
        }
        r->split_side = 0;
        r->claims = NULL;
        close_worker(w);
    }
    rpl_log_debug("'%s': reading on one thread", r->label);
    return 0;
}

/* Move the worker's dispatches (from the top of the shared slots) down after the main thread's. */
static void take_dispatches(rd_reader *r, const rd_worker *w)
{
    rpl_trace *t = r->trace;
    uint32_t have = t->dispatches.count - r->first_dispatch, n = w->r.top_count;
    uint32_t from = w->r.top_end - n;

    memmove(t->dispatches.items + r->first_dispatch + have,
            t->dispatches.items + r->first_dispatch + from, (size_t)n * sizeof(rpl_dispatch));
    if (r->dispatch_event_ids)
        memmove(r->dispatch_event_ids + have, r->dispatch_event_ids + from,
                (size_t)n * sizeof(*r->dispatch_event_ids));
    t->dispatches.count += n;
}

int rd_worker_end(rd_reader *r, bool cancel)
{
    rd_worker *w = r->worker_thread;
    int rc = 0;

    if (!w)
        return 0;
    r->worker_thread = NULL;
    r->split_side = 0;
    r->claims = NULL;
    if (cancel)
        sqlite3_interrupt(w->r.db);
    pthread_join(w->thread, NULL);
    rpl_log_debug("'%s': worker used %llu of %llu query steps", r->label,
                  (unsigned long long)w->r.steps, (unsigned long long)w->r.max_steps);
    if (!cancel && w->rc)
        rc = rpl_error_set(w->rc, "%s", w->message);
    else if (!cancel)
        take_dispatches(r, w);
    close_worker(w);
    return rc;
}
