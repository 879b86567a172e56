/*
 * rocpd reader: open a database, guard the connection against hostile
 * files (rocpd_guard.c), read every table into the trace, and undo it all
 * on failure.  The event table is never read whole: each record's query
 * joins its event.  A file opened here may be read partly on a worker
 * thread with a second read-only connection (rocpd_worker.c); that
 * connection gets the same guards and its own step budget.
 */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rocpd_reader_int.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/log.h"
#include "rpl/rocpd.h"

#define RD_BUSY_MS 5000

static void free_reader(rd_reader *r)
{
    rpl_idmap *maps[] = {&r->string_ids,      &r->node_ids,   &r->process_ids, &r->thread_ids,
                         &r->agent_ids,       &r->symbol_ids, &r->queue_ids,   &r->stream_ids,
                         &r->dispatch_events, &r->pmc_ids};

    for (size_t i = 0; i < sizeof(maps) / sizeof(maps[0]); i++)
        rpl_idmap_free(maps[i]);
    RPL_FREE_EACH(r->strings, r->text, r->node_hosts, r->arg_keys, r->pending_values,
                  r->dispatch_event_ids);
}

static int add_source(rd_reader *r)
{
    rpl_source s = {
        .path = r->label, .schema_version = r->schema_version, .guid = r->guid, .uuid = r->suffix};

    return rpl_trace_add_source(r->trace, &s, &r->source);
}

static int read_tables(rd_reader *r)
{
    int rc, worker_rc;

    if ((rc = rd_locate(r)) != 0 || (rc = add_source(r)) != 0 || (rc = rd_read_strings(r)) != 0 ||
        (r->present[RD_NODE] && (rc = rd_read_nodes(r)) != 0) ||
        (r->present[RD_PROCESS] && (rc = rd_read_processes(r)) != 0) ||
        (r->present[RD_THREAD] && (rc = rd_read_threads(r)) != 0) ||
        (rc = rd_read_agents(r)) != 0 || (rc = rd_read_symbols(r)) != 0 ||
        (r->present[RD_QUEUE] && (rc = rd_read_queues(r, RD_QUEUE)) != 0) ||
        (r->present[RD_STREAM] && (rc = rd_read_queues(r, RD_STREAM)) != 0) ||
        (r->present[RD_PMC_EVENT] && (rc = rd_count(r, RD_PMC_EVENT, &r->pmc_values)) != 0) ||
        (rc = rd_worker_begin(r)) != 0)
        return rc;
    /* The worker reads dispatches from the top; this thread checks the event ids, reads the
     * copies, the API regions and their arguments, then dispatches from the bottom: the
     * shared dispatch rows come last, so that both threads end together.  Every record
     * takes its event's columns in its own query (a join in SQLite). */
    rc = r->present[RD_EVENT] ? rd_check_event_ids(r) : 0;
    if (rc == 0)
        rc = rd_read_memcpys(r);
    if (rc == 0)
        rc = rd_read_regions(r);
    if (rc == 0)
        rc = rd_read_dispatches(r);
    if ((worker_rc = rd_worker_end(r, rc != 0)) != 0)
        return worker_rc;
    return rc ? rc : rd_read_counters(r);
}

/* `path`: the file behind db, for the worker's connection; NULL for none. */
static int read_db(rpl_trace *trace, sqlite3 *db, const char *label, const char *path,
                   const rpl_rocpd_read_opts *opts)
{
    static const rpl_rocpd_read_opts defaults = {NULL};
    rd_reader r = {.trace = trace,
                   .db = db,
                   .label = label ? label : "rocpd database",
                   .path = path,
                   .opts = opts ? opts : &defaults,
                   .last_thread = RPL_NONE};
    rd_saved_settings saved;
    rpl_trace_mark mark;
    bool transaction;
    int rc;

    rpl_trace_mark_take(trace, &mark);
    rd_guard(&r, &saved);
    /* One read transaction: a consistent snapshot and one lock for all queries. */
    transaction =
        sqlite3_get_autocommit(db) && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
    /* Without our own transaction the worker's connection could see another state. */
    if (!transaction)
        r.path = NULL;
    rc = read_tables(&r);
    rpl_log_debug("'%s': %llu of %llu query steps used", r.label, (unsigned long long)r.steps,
                  (unsigned long long)r.max_steps);
    if (transaction)
        sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    rd_unguard(&r, &saved);
    free_reader(&r);
    if (rc)
        rpl_trace_rollback(trace, &mark);
    return rc;
}

int rpl_rocpd_read_db(rpl_trace *trace, sqlite3 *db, const char *label,
                      const rpl_rocpd_read_opts *opts)
{
    if (!trace || !db)
        return rpl_error_set(RPL_EUSAGE, "rpl_rocpd_read_db: no trace or database");
    return read_db(trace, db, label, NULL, opts);
}

int rpl_rocpd_read(rpl_trace *trace, const char *path)
{
    return rpl_rocpd_read_with(trace, path, NULL);
}

int rpl_rocpd_read_with(rpl_trace *trace, const char *path, const rpl_rocpd_read_opts *opts)
{
    struct stat st;
    sqlite3 *db = NULL;
    int rc;

    if (!trace || !path)
        return rpl_error_set(RPL_EUSAGE, "rpl_rocpd_read: no trace or path");
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return rpl_error_set(RPL_ENOTFOUND, "cannot open '%s': no such file", path);
        return rpl_error_set(RPL_EINPUT, "cannot open '%s': %s", path, strerror(errno));
    }
    if (S_ISDIR(st.st_mode))
        return rpl_error_set(RPL_EINPUT, "'%s' is a directory, not a rocpd database", path);
    if (!S_ISREG(st.st_mode))
        return rpl_error_set(RPL_EINPUT, "'%s' is not a regular file", path);
    if (access(path, R_OK) != 0)
        return rpl_error_set(RPL_EINPUT, "cannot open '%s': %s", path, strerror(errno));
    /* Read-only: SQLite never creates or changes the file.  One thread uses it: no mutex
     * (the worker opens its own connection). */
    rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
    if (rc != SQLITE_OK) {
        rc = rc == SQLITE_NOMEM ? rpl_error_oom()
                                : rpl_error_set(RPL_EINPUT, "cannot open '%s': %s", path,
                                                db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
        sqlite3_close(db);
        return rc;
    }
    sqlite3_busy_timeout(db, RD_BUSY_MS);
    rc = read_db(trace, db, path, path, opts);
    sqlite3_close(db);
#ifdef __GLIBC__
    /* The batches, statements and the worker's arena are freed by now, but glibc keeps
     * freed heap pages resident: hand them back before the analysis allocates its own. */
    malloc_trim(0);
#endif
    return rc;
}
