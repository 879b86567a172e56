/*
 * Private to the rocpd reader: the state of one read and the row helpers
 * that check every column's type and range before a value is used.
 */
#ifndef RPL_TRACE_ROCPD_READER_INT_H
#define RPL_TRACE_ROCPD_READER_INT_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rocpd_idmap.h"
#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/rocpd.h"
#include "rpl/trace.h"

/* The tables the reader knows, in the order they are read. */
enum rd_table {
    RD_STRING,
    RD_NODE,
    RD_PROCESS,
    RD_THREAD,
    RD_AGENT,
    RD_SYMBOL,
    RD_QUEUE,
    RD_STREAM,
    RD_EVENT,
    RD_DISPATCH,
    RD_MEMCPY,
    RD_ARG,
    RD_REGION,
    RD_PMC_INFO,
    RD_PMC_EVENT,
    RD_NTABLES
};

/* Limits on what one value may hold (larger is taken as corrupt or hostile). */
#define RD_NAME_MAX       (64u * 1024u)         /* strings, names, types */
#define RD_TEXT_MAX       (1024u * 1024u)       /* command lines, argument values */
#define RD_EXTDATA_MAX    (16u * 1024u * 1024u) /* extdata JSON */
#define RD_SUFFIX_MAX     100                   /* table-name suffix after "rocpd_X" */
#define RD_TABLE_NAME_MAX 160
/* Rows of one table (trace indices are 32-bit, with RPL_NONE reserved). */
#define RD_ROWS_MAX (UINT32_MAX - 2)
/* rocpd_info_pmc rows: real devices have a few thousand counters at most. */
#define RD_COUNTERS_MAX 16384

/* Agents of a kind the model does not hold ('NIC') map to this index. */
#define RD_AGENT_SKIPPED (UINT32_MAX - 1)

typedef struct rd_string_slot {
    size_t offset;        /* into rd_reader.text */
    const char *interned; /* interned copy, made on first use; NULL before */
} rd_string_slot;

/* What a record takes from the event its event_id names (joined in its query). */
typedef struct rd_event {
    const char *category; /* interned; "" for none */
    int64_t stack_id, parent_stack_id;
} rd_event;

/* A dispatch's raw event_id, which counter values name it by. */
typedef struct rd_event_ref {
    int64_t id;
    bool set; /* false: event_id is NULL */
} rd_event_ref;

/* Where an argument read from rocpd_arg goes, before grouping by event. */
typedef struct rd_arg_key {
    int64_t event_id;
    int64_t position;
} rd_arg_key;

/* A counter value read from rocpd_pmc_event, before grouping by dispatch. */
typedef struct rd_pending_value {
    uint32_t dispatch; /* trace dispatch index */
    rpl_counter_value value;
} rd_pending_value;

struct rd_worker;

typedef struct rd_reader {
    rpl_trace *trace;
    sqlite3 *db;
    const char *label; /* the file path or caller's label, for messages */
    /* The file, for a second connection that reads part of it on a worker
     * thread; NULL (a caller's connection) reads everything on this thread. */
    const char *path;
    const rpl_rocpd_read_opts *opts; /* never NULL */
    bool worker;                     /* this is the worker's copy: no progress line */
    struct rd_worker *worker_thread; /* running while dispatches and copies are read */
    uint32_t source;                 /* index of this database in trace->sources */

    char suffix[RD_SUFFIX_MAX + 1];
    char schema_version[32];
    char guid[RD_SUFFIX_MAX + 1];
    char table[RD_NTABLES][RD_TABLE_NAME_MAX];
    bool present[RD_NTABLES];

    /* Step budget of the SQLite progress handler (see rocpd_reader.c). */
    uint64_t steps, max_steps;
    uint64_t file_bytes; /* size of the database, which bounds its row counts */

    /* Strings: texts in one buffer, located through string_ids. */
    rpl_idmap string_ids;
    rd_string_slot *strings;
    uint32_t nstrings, string_cap;
    char *text;
    size_t text_len, text_cap;

    rpl_idmap node_ids; /* -> index into node_hosts */
    const char **node_hosts;
    uint32_t nnodes, node_cap;
    rpl_idmap process_ids; /* -> trace process index */
    rpl_idmap thread_ids;  /* -> 0 (a set) */
    rpl_idmap agent_ids;   /* -> trace agent index or RD_AGENT_SKIPPED */
    rpl_idmap symbol_ids;
    rpl_idmap queue_ids;
    rpl_idmap stream_ids;
    const char *empty; /* the interned "", a region's category without an event */
    /* Rows of rocpd_pmc_event, counted before the dispatches are read: only with
     * counter values do dispatches keep their raw event ids (dispatch_event_ids[i]
     * belongs to first_dispatch + i), which rd_read_counters maps in dispatch_events. */
    uint64_t pmc_values;
    rd_event_ref *dispatch_event_ids;
    uint32_t dispatch_cap;
    rpl_idmap dispatch_events; /* dispatch event_id -> trace dispatch index */
    rpl_idmap pmc_ids;         /* -> trace counter index */
    /* Arguments go straight into the trace's array from first_arg on, in table order,
     * then by (event, position, table order); arg_keys[i] belongs to first_arg + i. */
    rd_arg_key *arg_keys;
    uint32_t first_arg, narg_keys, arg_key_cap;
    uint32_t arg_cursor;     /* the key after the last region's arguments */
    const char *last_arg[3]; /* the last interned type, name and value of an argument */
    rd_pending_value *pending_values;
    uint32_t npending_values, pending_value_cap;
    bool pmc_sample_id;      /* rocpd_pmc_event has sample_id (schema 3.0.3) */
    uint32_t first_dispatch; /* trace index of this database's first dispatch */
    /* The dispatch rows this reader scans: all (0), or, shared with the worker
     * (rocpd_worker.c), those this side claims: from the lowest rowid up on the
     * main thread (-1), from the highest down on the worker (1). */
    int split_side;
    struct rd_claims *claims;
    int64_t claim_base; /* the lowest rowid; claims are offsets from it */
    uint64_t claimed;   /* this side's bound as last claimed (see rd_claims) */
    /* Shared dispatch rows go straight into the trace's array, made room for the rowid
     * span before the worker starts: the main thread appends from first_dispatch up,
     * the worker fills top_items[top_end - top_count, top_end) from the top down (the
     * slots after first_dispatch, and their raw event ids in top_event_ids, if kept). */
    rpl_dispatch *top_items;
    rd_event_ref *top_event_ids;
    uint32_t top_end, top_count;
    /* The last thread this side looked up (rd_thread), when last_thread is not RPL_NONE. */
    int64_t last_pid, last_tid;
    uint32_t last_thread;
} rd_reader;

/* One row of a query, for the checked getters and their messages. */
typedef struct rd_row {
    rd_reader *r;
    sqlite3_stmt *st;
    enum rd_table table;
    int64_t id;
} rd_row;

/* A row function's "stop here, no error" (rd_scan ends with 0). */
#define RD_SCAN_STOP 1

/* Number of names in a column list. */
#define RD_COLUMNS(list) ((int)(sizeof(list) / sizeof((list)[0])))

/* rocpd_locate.c: check the file, read rocpd_metadata, find the tables. */
int rd_locate(rd_reader *r);

/* rocpd_query.c: statements, steps and SQLite errors. */
int rd_sqlite_error(rd_reader *r, int rc, const char *what);
bool rd_has_column(rd_reader *r, enum rd_table t, const char *column);
/*
 * SELECT t.columns, e.event_columns FROM table AS t [LEFT JOIN the event
 * table AS e ON e.id = t.event_id] [WHERE where]: the join only with event
 * columns; `where` is SQL of ours on t (NULL for none).
 */
int rd_prepare(rd_reader *r, enum rd_table t, const char *const *columns, int ncolumns,
               const char *const *event_columns, int nevent_columns, const char *where,
               sqlite3_stmt **out);
/* 1: a row, 0: done, < 0: error (message set). */
int rd_step(rd_reader *r, sqlite3_stmt *st, enum rd_table t);
/*
 * Run SELECT columns FROM table and call fn on every row (its id checked
 * first).  `what` labels the progress line drawn for `rows` (the row count)
 * when the table is large; NULL for none.
 */
int rd_scan(rd_reader *r, enum rd_table t, const char *const *columns, int ncolumns,
            const char *what, uint64_t rows, int (*fn)(rd_row *row));
/* rd_scan of the rows that `where` (as for rd_prepare) selects. */
int rd_scan_where(rd_reader *r, enum rd_table t, const char *const *columns, int ncolumns,
                  const char *where, const char *what, uint64_t rows, int (*fn)(rd_row *row));
/* rd_scan_where with each row's event columns joined after its own (see rd_prepare). */
int rd_scan_joined(rd_reader *r, enum rd_table t, const char *const *columns, int ncolumns,
                   const char *const *event_columns, int nevent_columns, const char *where,
                   const char *what, uint64_t rows, int (*fn)(rd_row *row));
int rd_count(rd_reader *r, enum rd_table t, uint64_t *out);
/* One integer from `sql`; false when it fails or is NULL. */
bool rd_query_int(rd_reader *r, const char *sql, int64_t *out);
/*
 * The rowid span of table t (max - min + 1, with the bounds in *lo and *hi
 * where not NULL): an upper bound of its row count from two b-tree
 * descents, where count(*) reads every page.  0 when unknown (no rowid, an
 * empty table) or above UINT32_MAX.
 */
uint64_t rd_rowid_span(rd_reader *r, enum rd_table t, int64_t *lo, int64_t *hi);
/*
 * Make room for item `count` of a per-row array of table t that grows as
 * its rows are read (*items holds *cap items of `size` bytes).
 */
int rd_grow(rd_reader *r, enum rd_table t, void **items, uint32_t *cap, uint32_t count,
            size_t size);
/*
 * The expected row count of table t, for sizing its arrays once: its rowid
 * span, bounded by what the file can hold (a sparse table must not make a
 * huge array); 0 when unknown.
 */
uint32_t rd_rows_hint(rd_reader *r, enum rd_table t);
/* Printable, bounded copy of text that came from the database, for messages. */
const char *rd_printable(char *buf, size_t size, const char *s);

/* rocpd_row.c: messages of the checked getters. */
int rd_row_begin(rd_row *row);
int rd_bad_type(const rd_row *row, int col, const char *expected);
int rd_bad_range(const rd_row *row, int col, int64_t value, const char *range);
int rd_too_long(const rd_row *row, int col, size_t len, size_t max);
int rd_dangling(const rd_row *row, int col, int64_t value, enum rd_table target);
int rd_row_error(const rd_row *row, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* rocpd_read_records.c: checked columns shared by the record tables. */
/* start and end of a record: 0 <= start <= end. */
int rd_read_times(const rd_row *row, int col, int64_t *start, int64_t *end);
/* pid (NOT NULL) and tid columns, checked against the process and thread tables: the pid,
 * and the trace's index of the thread (rd_thread). */
int rd_read_thread(const rd_row *row, int pid_col, int tid_col, bool tid_nullable, int64_t *pid,
                   uint32_t *thread);
/* A string reference (NOT NULL or nullable), interned; "" for NULL. */
int rd_read_string(const rd_row *row, int col, bool nullable, const char **out);
/*
 * The event columns a record joins after its own: the event's id (NULL when
 * there is no such event), then category_id, stack_id, parent_stack_id.
 */
#define RD_EVENT_NCOLS 4
extern const char *const rd_event_columns[RD_EVENT_NCOLS];
/*
 * A record's event: its event_id column `col` (*event_id, *has_event: not
 * NULL) and, with an event table, the joined columns from `ecol` on, which
 * must hold the event (else the event_id dangles).  *e is zero, category
 * "", without one; `category` false leaves the category unread (checked).
 */
int rd_read_event(const rd_row *row, int col, int ecol, bool category, int64_t *event_id,
                  bool *has_event, rd_event *e);

/* rocpd_read_info.c and rocpd_read_records.c: one function per table. */
int rd_read_strings(rd_reader *r);
int rd_read_nodes(rd_reader *r);
int rd_read_processes(rd_reader *r);
int rd_read_threads(rd_reader *r);
int rd_read_agents(rd_reader *r);
int rd_read_symbols(rd_reader *r);
int rd_read_queues(rd_reader *r, enum rd_table t);
/* The event ids are unique, so that a join gives a record one event at most. */
int rd_check_event_ids(rd_reader *r);
int rd_read_dispatches(rd_reader *r);
int rd_read_memcpys(rd_reader *r);
int rd_read_counters(rd_reader *r);

/* rocpd_read_regions.c: API regions with their events and arguments. */
int rd_read_regions(rd_reader *r);

/*
 * rocpd_worker.c: the trace's index of thread (pid, tid) (rpl_trace_thread).  While the
 * worker runs, both sides add threads under the claims' lock; each side remembers the
 * last thread it saw, which is nearly every row's.
 */
int rd_thread(rd_reader *r, int64_t pid, int64_t tid, uint32_t *thread);

/* rocpd_worker.c: claim more dispatch rows for this side; false when the other has the rest. */
bool rd_claim_dispatch(rd_reader *r, int64_t rowid);

/* rocpd_worker.c: start reading part of the dispatch rows on a worker
 * thread with its own read-only connection to r->path where that is safe
 * and pays (see there); else this thread reads them all later. */
int rd_worker_begin(rd_reader *r);
/* Wait for the worker (stopping it first when `cancel`) and take what it
 * read; returns its error, or 0 (always 0 when cancelled). */
int rd_worker_end(rd_reader *r, bool cancel);

/* rocpd_guard.c: the guards of r->db: limits, defensive settings and r's step budget. */
#define RD_GUARD_LIMITS  7
#define RD_GUARD_CONFIGS 3
typedef struct rd_saved_settings {
    int limit[RD_GUARD_LIMITS];
    int config[RD_GUARD_CONFIGS];
} rd_saved_settings;

/* Set the guards; `saved` gets the previous settings (NULL: a fresh connection, closed
 * afterwards, has nothing to restore). */
void rd_guard(rd_reader *r, rd_saved_settings *saved);
void rd_unguard(rd_reader *r, const rd_saved_settings *saved);

/* The interned text of string `index` (an index into r->strings). */
int rd_string(rd_reader *r, uint32_t index, const char **out);

/* A progress line for tables of many rows (NULL otherwise); see rpl/log.h. */
rpl_progress *rd_progress_start(const char *what, uint64_t rows);

static inline const char *rd_col_name(const rd_row *row, int col)
{
    const char *n = sqlite3_column_name(row->st, col);

    return n ? n : "?";
}

/*
 * A NOT NULL integer column.  The getters read each column once through
 * sqlite3_column_value(): the sqlite3_column_*() calls take the connection's
 * mutex on every call, a third of the time of a large read.
 */
static inline int rd_i64(const rd_row *row, int col, int64_t *out)
{
    sqlite3_value *v = sqlite3_column_value(row->st, col);

    *out = 0;
    if (sqlite3_value_type(v) != SQLITE_INTEGER)
        return rd_bad_type(row, col, "an integer");
    *out = sqlite3_value_int64(v);
    return 0;
}

/* A nullable integer column: *present tells whether it held a value (else *out = 0). */
static inline int rd_i64_opt(const rd_row *row, int col, int64_t *out, bool *present)
{
    sqlite3_value *v = sqlite3_column_value(row->st, col);
    int type = sqlite3_value_type(v);

    *present = type != SQLITE_NULL;
    *out = 0;
    if (type == SQLITE_NULL)
        return 0;
    if (type != SQLITE_INTEGER)
        return rd_bad_type(row, col, "an integer");
    *out = sqlite3_value_int64(v);
    return 0;
}

/* An integer column in [0, UINT32_MAX]; NULL reads as 0 when `nullable`. */
static inline int rd_u32(const rd_row *row, int col, bool nullable, uint32_t *out)
{
    sqlite3_value *value = sqlite3_column_value(row->st, col);
    int type = sqlite3_value_type(value);
    int64_t v;

    *out = 0;
    if (type == SQLITE_NULL && nullable)
        return 0;
    if (type != SQLITE_INTEGER)
        return rd_bad_type(row, col, "an integer");
    v = sqlite3_value_int64(value);
    if (v < 0 || v > (int64_t)UINT32_MAX)
        return rd_bad_range(row, col, v, "0..4294967295");
    *out = (uint32_t)v;
    return 0;
}

/*
 * A text column of at most `max` bytes; NULL gives *out = NULL when
 * `nullable`.  The text stays valid until the next step of the statement.
 */
static inline int rd_text(const rd_row *row, int col, bool nullable, size_t max, const char **out,
                          size_t *len)
{
    sqlite3_value *v = sqlite3_column_value(row->st, col);
    int type = sqlite3_value_type(v);
    size_t n;

    *out = NULL;
    if (len)
        *len = 0;
    if (type == SQLITE_NULL && nullable)
        return 0;
    if (type != SQLITE_TEXT)
        return rd_bad_type(row, col, "text");
    *out = (const char *)sqlite3_value_text(v);
    n = (size_t)sqlite3_value_bytes(v);
    if (!*out)
        return rpl_error_oom();
    if (n > max)
        return rd_too_long(row, col, n, max);
    if (len)
        *len = n;
    return 0;
}

/* A NOT NULL id whose row must exist in `map` (built from table `target`). */
static inline int rd_ref(const rd_row *row, int col, const rpl_idmap *map, enum rd_table target,
                         uint32_t *index)
{
    int64_t id;
    int rc = rd_i64(row, col, &id);

    if (rc)
        return rc;
    *index = rpl_idmap_get(map, id);
    if (*index == RPL_IDMAP_EMPTY)
        return rd_dangling(row, col, id, target);
    return 0;
}

/* A nullable id: RPL_NONE when NULL, else it must exist in `map`. */
static inline int rd_ref_opt(const rd_row *row, int col, const rpl_idmap *map, enum rd_table target,
                             uint32_t *index)
{
    int64_t id;
    bool present;
    int rc = rd_i64_opt(row, col, &id, &present);

    *index = RPL_NONE;
    if (rc || !present)
        return rc;
    *index = rpl_idmap_get(map, id);
    if (*index == RPL_IDMAP_EMPTY)
        return rd_dangling(row, col, id, target);
    return 0;
}

#endif
