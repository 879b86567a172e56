/*
 * rocpd reader: API regions (rocpd_region) and their arguments (rocpd_arg).
 *
 * With runtime API tracing there is a region for every launch, as many as
 * dispatches, so this path is built for size.  The main thread reads both
 * tables while the worker reads rocpd_event (rocpd_worker.c): the rows
 * keep their raw event_id until rd_resolve_regions, which runs after the
 * join and gives each region its event's correlation ids and category and
 * its arguments (grouped by event, in position order).  Regions and
 * arguments are written straight into the trace's arrays, sized once from
 * the tables' rowid spans (an argument keeps only its event and position
 * beside it until then);
 * each string is interned once, as it is read, and never again.
 *
 * A dangling event_id is found at resolution; the scans' own errors (types,
 * ranges, other references) come first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h"
#include "rocpd_reader_int.h"
#include "rpl/error.h"

/* --- rocpd_arg ------------------------------------------------------------ */

enum { A_ID, A_EVENT, A_POSITION, A_TYPE, A_NAME, A_VALUE, A_NCOLS };

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
    if ((rc = rd_i64(row, A_EVENT, &k->event_id)) != 0 ||
        (rc = rd_i64(row, A_POSITION, &k->position)) != 0 ||
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
 * The rows rpl_rocpd_read_opts keeps: "name = '' OR name IS NULL OR name =
 * 'stream' OR ..." (the filter is SQLite's alone: arg_row sees only these).
 */
static char *kept_args_sql(const char *const *names)
{
    char *sql = sqlite3_mprintf("name = '' OR name IS NULL"), *more;

    for (const char *const *n = names; sql && *n; n++) {
        more = sqlite3_mprintf("%s OR name = %Q", sql, *n);
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
    if (room && !(r->arg_keys = malloc((size_t)room * sizeof(*r->arg_keys))))
        return rpl_error_oom();
    r->arg_key_cap = room;
    if (!r->opts->arg_names)
        return rd_scan(r, RD_ARG, cols, RD_COLUMNS(cols), "API arguments", rows, arg_row);
    /* SQLite leaves out the other rows: on a rocprofv3 trace most of them.  No progress
     * line: the count would not be reached. */
    if (!(where = kept_args_sql(r->opts->arg_names)))
        return rpl_error_oom();
    rc = rd_scan_where(r, RD_ARG, cols, RD_COLUMNS(cols), where, NULL, 0, arg_row);
    sqlite3_free(where);
    return rc;
}

/* --- rocpd_region --------------------------------------------------------- */

enum { R_ID, R_PID, R_TID, R_START, R_END, R_NAME, R_EVENT, R_NCOLS };

static int region_row(rd_row *row)
{
    rd_reader *r = row->r;
    rpl_trace *t = r->trace;
    rpl_region *g;
    int64_t event_id;
    bool has_event;
    int rc;

    if ((rc = RPL_TRACE_ROOM(t->regions, 1)) != 0 ||
        (rc = rd_grow(r, RD_REGION, (void **)&r->region_has_event, &r->region_cap,
                      t->regions.count - r->first_region, 1)) != 0)
        return rc;
    g = &t->regions.items[t->regions.count];
    *g = (rpl_region){.source = r->source, .id = row->id, .category = ""};
    if ((rc = rd_read_pid_tid(row, R_PID, R_TID, false, &g->pid, &g->tid)) != 0 ||
        (rc = rd_read_times(row, R_START, &g->start, &g->end)) != 0 ||
        (rc = rd_read_string(row, R_NAME, false, &g->name)) != 0 ||
        (rc = rd_i64_opt(row, R_EVENT, &event_id, &has_event)) != 0)
        return rc;
    g->correlation_id = event_id; /* until rd_resolve_regions */
    r->region_has_event[t->regions.count - r->first_region] = has_event && r->present[RD_EVENT];
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

    r->first_region = t->regions.count;
    if (!r->present[RD_REGION])
        return 0;
    /* Arguments hang off events: without regions and events they have no place. */
    if (r->present[RD_ARG] && r->present[RD_EVENT] && (rc = read_args(r)) != 0)
        return rc;
    rows = rd_rows_hint(r, RD_REGION);
    if ((rc = RPL_TRACE_ROOM(t->regions, rows)) != 0)
        return rc;
    if (rows && !(r->region_has_event = malloc(rows)))
        return rpl_error_oom();
    r->region_cap = rows;
    return rd_scan(r, RD_REGION, cols, RD_COLUMNS(cols), "API regions", rows, region_row);
}

/* --- resolution, once the events are read ---------------------------------- */

static int dangling_event(rd_reader *r, enum rd_table t, int64_t row, int64_t event_id)
{
    return rpl_error_set(RPL_EINPUT, "'%s': %s row %lld: event_id %lld does not exist in %s",
                         r->label, r->table[t], (long long)row, (long long)event_id,
                         r->table[RD_EVENT]);
}

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

/* An argument of a missing event: the keys keep no row ids, so the first such row is asked for. */
static int dangling_arg(rd_reader *r, int64_t event_id)
{
    char sql[RD_TABLE_NAME_MAX + 96];
    int64_t row = -1;

    snprintf(sql, sizeof(sql), "SELECT min(id) FROM \"%s\" WHERE event_id = %lld", r->table[RD_ARG],
             (long long)event_id);
    rd_query_int(r, sql, &row);
    return dangling_event(r, RD_ARG, row, event_id);
}

/* Put the arguments (and their keys) in (event, position, table order). */
static int sort_args(rd_reader *r)
{
    rpl_arg *args = r->trace->args.items + r->first_arg, *sorted;
    uint32_t n = r->narg_keys;
    arg_key *keys = malloc((size_t)n * sizeof(*keys));

    if (!keys || !(sorted = malloc((size_t)n * sizeof(*sorted)))) {
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
 * Check every argument's event (in table order, so the first bad row is the
 * one named), then order the arguments by (event, position, table order):
 * they normally come that way, and are sorted only when they do not.
 */
static int group_args(rd_reader *r)
{
    const rd_arg_key *k = r->arg_keys;
    bool in_order = true;

    for (uint32_t i = 0; i < r->narg_keys; i++) {
        if (rpl_idmap_get(&r->event_ids, k[i].event_id) == RPL_IDMAP_EMPTY)
            return dangling_arg(r, k[i].event_id);
        if (i > 0 && (k[i].event_id < k[i - 1].event_id ||
                      (k[i].event_id == k[i - 1].event_id && k[i].position < k[i - 1].position)))
            in_order = false;
    }
    return in_order ? 0 : sort_args(r);
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

int rd_resolve_regions(rd_reader *r)
{
    rpl_trace *t = r->trace;
    const char *empty = rpl_trace_intern(t, "");
    uint32_t cursor = 0;
    int rc = 0;

    if (!empty)
        return rpl_error_oom();
    if (r->narg_keys && (rc = group_args(r)) != 0)
        return rc;
    for (uint32_t i = r->first_region; i < t->regions.count && rc == 0; i++) {
        rpl_region *g = &t->regions.items[i];
        int64_t event_id = g->correlation_id;
        const rd_event *e;
        uint32_t index;

        g->category = empty;
        g->correlation_id = 0;
        g->args_first = g->args_count = 0;
        if (!r->region_has_event[i - r->first_region])
            continue;
        index = rpl_idmap_get(&r->event_ids, event_id);
        if (index == RPL_IDMAP_EMPTY)
            return dangling_event(r, RD_REGION, g->id, event_id);
        e = &r->events[index];
        g->correlation_id = e->stack_id;
        g->parent_correlation_id = e->parent_stack_id;
        if (e->category != RPL_NONE && (rc = rd_string(r, e->category, &g->category)) != 0)
            return rc;
        if (r->narg_keys) {
            /* Its slice of the grouped arguments (regions of one event share it). */
            uint32_t first = cursor, end;

            find_args(r, event_id, &first, &end);
            cursor = end;
            g->args_first = r->first_arg + first;
            g->args_count = end - first;
        }
    }
    /* Done with them: less to hold while the rest is read and analysed. */
    free(r->arg_keys);
    free(r->region_has_event);
    r->arg_keys = NULL;
    r->region_has_event = NULL;
    r->narg_keys = r->arg_key_cap = r->region_cap = 0;
    return rc;
}
