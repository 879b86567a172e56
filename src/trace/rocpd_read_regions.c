/*
 * rocpd reader: API regions (rocpd_region) and their arguments (rocpd_arg).
 *
 * With runtime API tracing there is a region for every launch, as many as
 * dispatches, so this path is built for size.  The main thread reads both
 * tables while the worker reads dispatches (rocpd_worker.c).  The arguments
 * come first, each with its event looked up in the same query (an argument
 * of a missing event is an error), and are grouped by event in position
 * order; then each region row, joined with its event in the same way, gets
 * the event's correlation ids and category and the event's arguments.
 * Regions and arguments are written straight into the trace's arrays,
 * sized once from the tables' rowid spans (an argument keeps only its
 * event and position beside it until the regions are read); each string is
 * interned once, as it is read, and never again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h"
#include "rocpd_reader_int.h"
#include "rpl/bigmem.h"
#include "rpl/error.h"

/* --- rocpd_arg ------------------------------------------------------------ */

enum { A_ID, A_EVENT, A_POSITION, A_TYPE, A_NAME, A_VALUE, A_NCOLS };
/* The joined event's id, NULL when the argument's event does not exist. */
#define A_EVENT_ROW A_NCOLS

/*
 * The interned copy of s, which is often the previous row's text in the
 * same column (argument types and names repeat row after row): a compare
 * then saves the pool's hash.
 */
static const char *intern_repeated(rpl_trace *t, const char **last, const char *s)
{
    if (!s)
        s = "";
    if (!*last || strcmp(*last, s) != 0)
        *last = rpl_trace_intern(t, s);
    return *last;
}

static int arg_row(rd_row *row)
{
    rd_reader *r = row->r;
    rpl_trace *t = r->trace;
    rd_arg_key *k;
    rpl_arg *a;
    const char *type, *name, *value;
    int rc;

    if ((rc = RPL_TRACE_ROOM(t->args, 1)) != 0 ||
        (rc = rd_grow(r, RD_ARG, (void **)&r->arg_keys, &r->arg_key_cap, r->narg_keys,
                      sizeof(*r->arg_keys))) != 0)
        return rc;
    k = &r->arg_keys[r->narg_keys];
    a = &t->args.items[t->args.count];
    if ((rc = rd_i64(row, A_EVENT, &k->event_id)) != 0)
        return rc;
    if (sqlite3_value_type(sqlite3_column_value(row->st, A_EVENT_ROW)) == SQLITE_NULL)
        return rd_dangling(row, A_EVENT, k->event_id, RD_EVENT);
    if ((rc = rd_i64(row, A_POSITION, &k->position)) != 0 ||
        (rc = rd_text(row, A_TYPE, false, RD_NAME_MAX, &type, NULL)) != 0 ||
        (rc = rd_text(row, A_NAME, false, RD_NAME_MAX, &name, NULL)) != 0 ||
        (rc = rd_text(row, A_VALUE, true, RD_TEXT_MAX, &value, NULL)) != 0)
        return rc;
    if (!(a->type = intern_repeated(t, &r->last_arg[0], type)) ||
        !(a->name = intern_repeated(t, &r->last_arg[1], name)) ||
        !(a->value = intern_repeated(t, &r->last_arg[2], value)))
        return rpl_error_oom();
    r->narg_keys++;
    t->args.count++;
    return 0;
}

/*
 * The rows rpl_rocpd_read_opts keeps: "t.name = '' OR t.name IS NULL OR
 * t.name = 'stream' OR ..." (the filter is SQLite's alone: arg_row sees only
 * these).
 */
static char *kept_args_sql(const char *const *names)
{
    char *sql = sqlite3_mprintf("t.name = '' OR t.name IS NULL"), *more;

    for (const char *const *n = names; sql && *n; n++) {
        more = sqlite3_mprintf("%s OR t.name = %Q", sql, *n);
        sqlite3_free(sql);
        sql = more;
    }
    return sql;
}

static int read_args(rd_reader *r)
{
    static const char *const cols[] = {"id", "event_id", "position", "type", "name", "value"};
    _Static_assert(RD_COLUMNS(cols) == A_NCOLS, "columns and their enum differ");
    rpl_trace *t = r->trace;
    uint32_t rows = rd_rows_hint(r, RD_ARG), room = rows;
    char *where;
    int rc;

    /* A filtered read keeps about one argument per region (a launch's stream; record and wait
     * keep two): room for a little more, grown if need be. */
    if (r->opts->arg_names && r->present[RD_REGION]) {
        uint64_t regions = rd_rows_hint(r, RD_REGION), guess = regions + regions / 64 + 1024;
        room = guess < rows ? (uint32_t)guess : rows;
    }
    r->first_arg = t->args.count;
    if ((rc = RPL_TRACE_ROOM(t->args, room)) != 0)
        return rc;
    if (room && !(r->arg_keys = rpl_bigmem_malloc((size_t)room * sizeof(*r->arg_keys))))
        return rpl_error_oom();
    r->arg_key_cap = room;
    /* Of the event, only whether it exists. */
    if (!r->opts->arg_names)
        return rd_scan_joined(r, RD_ARG, cols, RD_COLUMNS(cols), rd_event_columns, 1, NULL,
                              "API arguments", rows, arg_row);
    /* SQLite leaves out the other rows: on a rocprofv3 trace most of them.  No progress
     * line: the count would not be reached. */
    if (!(where = kept_args_sql(r->opts->arg_names)))
        return rpl_error_oom();
    rc = rd_scan_joined(r, RD_ARG, cols, RD_COLUMNS(cols), rd_event_columns, 1, where, NULL, 0,
                        arg_row);
    sqlite3_free(where);
    return rc;
}

/* --- grouping the arguments by event --------------------------------------- */

typedef struct arg_key {
    int64_t event_id, position;
    uint32_t index; /* in table order, which breaks ties of position */
} arg_key;

static int cmp_arg_key(const void *x, const void *y)
{
    const arg_key *a = x, *b = y;

    if (a->event_id != b->event_id)
        return a->event_id < b->event_id ? -1 : 1;
    if (a->position != b->position)
        return a->position < b->position ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* Put the arguments (and their keys) in (event, position, table order). */
static int sort_args(rd_reader *r)
{
    rpl_arg *args = r->trace->args.items + r->first_arg, *sorted;
    uint32_t n = r->narg_keys;
    arg_key *keys = rpl_bigmem_malloc((size_t)n * sizeof(*keys));

    if (!keys || !(sorted = rpl_bigmem_malloc((size_t)n * sizeof(*sorted)))) {
        free(keys);
        return rpl_error_oom();
    }
    for (uint32_t i = 0; i < n; i++)
        keys[i] = (arg_key){r->arg_keys[i].event_id, r->arg_keys[i].position, i};
    qsort(keys, n, sizeof(*keys), cmp_arg_key);
    for (uint32_t i = 0; i < n; i++) {
        sorted[i] = args[keys[i].index];
        r->arg_keys[i] = (rd_arg_key){keys[i].event_id, keys[i].position};
    }
    memcpy(args, sorted, (size_t)n * sizeof(*args));
    free(sorted);
    free(keys);
    return 0;
}

/*
 * Order the arguments by (event, position, table order): they normally come
 * that way, and are sorted only when they do not.
 */
static int group_args(rd_reader *r)
{
    const rd_arg_key *k = r->arg_keys;

    for (uint32_t i = 1; i < r->narg_keys; i++)
        if (k[i].event_id < k[i - 1].event_id ||
            (k[i].event_id == k[i - 1].event_id && k[i].position < k[i - 1].position))
            return sort_args(r);
    return 0;
}

/*
 * The arguments of event `event_id`: keys [*first, *end).  Regions normally
 * come in event order, so the group right after the previous one (*first on
 * entry) is tried before a search.
 */
static void find_args(const rd_reader *r, int64_t event_id, uint32_t *first, uint32_t *end)
{
    const rd_arg_key *k = r->arg_keys;
    uint32_t n = r->narg_keys, lo = *first, hi = n;

    if (!(lo < n && k[lo].event_id == event_id && (lo == 0 || k[lo - 1].event_id < event_id))) {
        lo = 0;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;

            if (k[mid].event_id < event_id)
                lo = mid + 1;
            else
                hi = mid;
        }
    }
    for (hi = lo; hi < n && k[hi].event_id == event_id; hi++)
        ;
    *first = lo;
    *end = hi;
}

/* --- rocpd_region --------------------------------------------------------- */

enum { R_ID, R_PID, R_TID, R_START, R_END, R_NAME, R_EVENT, R_NCOLS };

static int region_row(rd_row *row)
{
    rd_reader *r = row->r;
    rpl_trace *t = r->trace;
    rpl_region *g;
    int64_t event_id, pid;
    bool has_event;
    rd_event e;
    int rc;

    if ((rc = RPL_TRACE_ROOM(t->regions, 1)) != 0)
        return rc;
    g = &t->regions.items[t->regions.count];
    *g = (rpl_region){.source = r->source, .id = row->id, .category = r->empty};
    if ((rc = rd_read_thread(row, R_PID, R_TID, false, &pid, &g->thread)) != 0 ||
        (rc = rd_read_times(row, R_START, &g->start, &g->end)) != 0 ||
        (rc = rd_read_string(row, R_NAME, false, &g->name)) != 0 ||
        (rc = rd_read_event(row, R_EVENT, R_NCOLS, true, &event_id, &has_event, &e)) != 0)
        return rc;
    g->correlation_id = e.stack_id;
    g->parent_correlation_id = e.parent_stack_id;
    if (*e.category)
        g->category = e.category;
    if (has_event && r->narg_keys) {
        /* Its slice of the grouped arguments (regions of one event share it). */
        uint32_t first = r->arg_cursor, end;

        find_args(r, event_id, &first, &end);
        r->arg_cursor = end;
        g->args_first = r->first_arg + first;
        g->args_count = end - first;
    }
    t->regions.count++;
    return 0;
}

int rd_read_regions(rd_reader *r)
{
    static const char *const cols[] = {"id", "pid", "tid", "start", "end", "name_id", "event_id"};
    _Static_assert(RD_COLUMNS(cols) == R_NCOLS, "columns and their enum differ");
    rpl_trace *t = r->trace;
    uint32_t rows;
    int rc;

    if (!(r->empty = rpl_trace_intern(t, "")))
        return rpl_error_oom();
    if (!r->present[RD_REGION])
        return 0;
    /* Arguments hang off events: without regions and events they have no place. */
    if (r->present[RD_ARG] && r->present[RD_EVENT] &&
        ((rc = read_args(r)) != 0 || (rc = group_args(r)) != 0))
        return rc;
    rows = rd_rows_hint(r, RD_REGION);
    if ((rc = RPL_TRACE_ROOM(t->regions, rows)) != 0)
        return rc;
    rc = rd_scan_joined(r, RD_REGION, cols, RD_COLUMNS(cols), rd_event_columns,
                        r->present[RD_EVENT] ? RD_EVENT_NCOLS : 0, NULL, "API regions", rows,
                        region_row);
    /* Done with them: less to hold while the rest is read and analysed. */
    free(r->arg_keys);
    r->arg_keys = NULL;
    r->narg_keys = r->arg_key_cap = 0;
    return rc;
}
