/*
 * rocpd reader: the record tables (kernel dispatches, memory copies, counter
 * values; API regions are in rocpd_read_regions.c).  Rows are read straight
 * from the base tables and joined here through the id maps of
 * rocpd_read_info.c: the data views' SQL joins are far slower on large
 * traces.  The one join left to SQLite is a record's event (its
 * correlation ids and category), looked up by the event table's primary
 * key in the record's own query: the events are never held in memory.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_int.h"
#include "rocpd_reader_int.h"
#include "rpl/error.h"
#include "rpl/free.h"

/* --- shared column checks -------------------------------------------------- */

/* start and end of a record: 0 <= start <= end, so end - start never overflows. */
int rd_read_times(const rd_row *row, int col, int64_t *start, int64_t *end)
{
    int rc;

    if ((rc = rd_i64(row, col, start)) != 0 || (rc = rd_i64(row, col + 1, end)) != 0)
        return rc;
    if (*start < 0)
        return rd_row_error(row, "start %lld is negative", (long long)*start);
    if (*end < *start)
        return rd_row_error(row, "end %lld is before start %lld", (long long)*end,
                            (long long)*start);
    return 0;
}

/* pid (NOT NULL) and tid columns, checked against the process and thread tables. */
int rd_read_thread(const rd_row *row, int pid_col, int tid_col, bool tid_nullable, int64_t *pid,
                   uint32_t *thread)
{
    rd_reader *r = row->r;
    bool has_tid = true;
    int64_t tid;
    int rc;

    if ((rc = rd_i64(row, pid_col, pid)) != 0)
        return rc;
    if (r->present[RD_PROCESS] && rpl_idmap_get(&r->process_ids, *pid) == RPL_IDMAP_EMPTY)
        return rd_dangling(row, pid_col, *pid, RD_PROCESS);
    rc = tid_nullable ? rd_i64_opt(row, tid_col, &tid, &has_tid) : rd_i64(row, tid_col, &tid);
    if (rc)
        return rc;
    if (has_tid && r->present[RD_THREAD] && rpl_idmap_get(&r->thread_ids, tid) == RPL_IDMAP_EMPTY)
        return rd_dangling(row, tid_col, tid, RD_THREAD);
    return rd_thread(r, *pid, tid, thread);
}

/* A string reference (NOT NULL or nullable), interned; "" for NULL. */
int rd_read_string(const rd_row *row, int col, bool nullable, const char **out)
{
    uint32_t index;
    int rc = nullable ? rd_ref_opt(row, col, &row->r->string_ids, RD_STRING, &index)
                      : rd_ref(row, col, &row->r->string_ids, RD_STRING, &index);

    *out = "";
    if (rc || index == RPL_NONE)
        return rc;
    return rd_string(row->r, index, out);
}

const char *const rd_event_columns[RD_EVENT_NCOLS] = {"id", "category_id", "stack_id",
                                                      "parent_stack_id"};

int rd_read_event(const rd_row *row, int col, int ecol, bool category, int64_t *event_id,
                  bool *has_event, rd_event *e)
{
    rd_reader *r = row->r;
    uint32_t index;
    bool present;
    int rc;

    *e = (rd_event){.category = ""};
    if ((rc = rd_i64_opt(row, col, event_id, has_event)) != 0 || !*has_event ||
        !r->present[RD_EVENT])
        return rc;
    if (sqlite3_value_type(sqlite3_column_value(row->st, ecol)) == SQLITE_NULL)
        return rd_dangling(row, col, *event_id, RD_EVENT);
    if ((rc = rd_ref_opt(row, ecol + 1, &r->string_ids, RD_STRING, &index)) != 0 ||
        (rc = rd_i64_opt(row, ecol + 2, &e->stack_id, &present)) != 0 ||
        (rc = rd_i64_opt(row, ecol + 3, &e->parent_stack_id, &present)) != 0)
        return rc;
    return category && index != RPL_NONE ? rd_string(r, index, &e->category) : 0;
}

/* The columns a record table's scan joins from the event table: none without one. */
static int event_ncols(const rd_reader *r)
{
    return r->present[RD_EVENT] ? RD_EVENT_NCOLS : 0;
}

/* The queue or stream made up for an id when the database has no such table. */
static int implied_queue(rd_reader *r, bool stream, int64_t id, int64_t pid, uint32_t *index)
{
    rpl_idmap *map = stream ? &r->stream_ids : &r->queue_ids;
    rpl_queue q = {.source = r->source, .id = id, .pid = pid};
    char name[48];
    uint32_t existing;
    int rc;

    if ((*index = rpl_idmap_get(map, id)) != RPL_IDMAP_EMPTY)
        return 0;
    /* rocprofv3's names for queue and stream handles. */
    if (id == 0)
        snprintf(name, sizeof(name), "Default %s", stream ? "Stream" : "Queue");
    else
        snprintf(name, sizeof(name), "%s %lld", stream ? "Stream" : "Queue", (long long)id);
    q.name = name;
    rc = stream ? rpl_trace_add_stream(r->trace, &q, index)
                : rpl_trace_add_queue(r->trace, &q, index);
    return rc ? rc : rpl_idmap_put(map, id, *index, &existing);
}

/* A queue_id or stream_id column. */
static int read_queue(const rd_row *row, int col, bool stream, bool nullable, int64_t pid,
                      uint32_t *index)
{
    rd_reader *r = row->r;
    enum rd_table t = stream ? RD_STREAM : RD_QUEUE;
    const rpl_idmap *map = stream ? &r->stream_ids : &r->queue_ids;
    int64_t id;
    bool present;
    int rc;

    if (r->present[t])
        return nullable ? rd_ref_opt(row, col, map, t, index) : rd_ref(row, col, map, t, index);
    *index = RPL_NONE;
    rc = nullable ? rd_i64_opt(row, col, &id, &present) : rd_i64(row, col, &id);
    if (rc || (nullable && !present))
        return rc;
    return implied_queue(r, stream, id, pid, index);
}

/* --- rocpd_kernel_dispatch ------------------------------------------------ */

enum {
    D_ID,
    D_PID,
    D_TID,
    D_AGENT,
    D_KERNEL,
    D_DISPATCH_ID,
    D_QUEUE,
    D_STREAM,
    D_START,
    D_END,
    D_PRIVATE,
    D_GROUP,
    D_WG_X,
    D_GRID_X = D_WG_X + 3,
    D_EVENT = D_GRID_X + 3,
    D_NCOLS
};

/* Whether this side reads the row: always, unless the rows are shared with the worker. */
static bool dispatch_claimed(rd_reader *r, int64_t rowid)
{
    uint64_t off;

    if (!r->split_side)
        return true;
    off = (uint64_t)rowid - (uint64_t)r->claim_base;
    if (r->split_side < 0 ? off < r->claimed : off >= r->claimed)
        return true;
    return rd_claim_dispatch(r, rowid);
}

static int dispatch_row(rd_row *row)
{
    rd_reader *r = row->r;
    rpl_dispatch d = {.source = r->source, .id = row->id};
    rd_event_ref event;
    rd_event e;
    uint32_t index;
    int64_t pid;
    int rc;

    if (!dispatch_claimed(r, row->id))
        return RD_SCAN_STOP;
    if ((rc = rd_read_thread(row, D_PID, D_TID, true, &pid, &d.thread)) != 0 ||
        (rc = rd_ref(row, D_AGENT, &r->agent_ids, RD_AGENT, &d.agent)) != 0 ||
        (rc = rd_ref(row, D_KERNEL, &r->symbol_ids, RD_SYMBOL, &d.kernel)) != 0 ||
        (rc = rd_i64(row, D_DISPATCH_ID, &d.dispatch_id)) != 0 ||
        (rc = read_queue(row, D_QUEUE, false, false, pid, &d.queue)) != 0 ||
        (rc = read_queue(row, D_STREAM, true, false, pid, &d.stream)) != 0 ||
        (rc = rd_read_times(row, D_START, &d.start, &d.end)) != 0 ||
        (rc = rd_u32(row, D_PRIVATE, true, &d.private_segment_size)) != 0 ||
        (rc = rd_u32(row, D_GROUP, true, &d.group_segment_size)) != 0 ||
        (rc = rd_read_event(row, D_EVENT, D_NCOLS, false, &event.id, &event.set, &e)) != 0)
        return rc;
    if (d.agent == RD_AGENT_SKIPPED)
        return rd_row_error(row, "agent_id is a NIC agent");
    for (int i = 0; i < 3; i++) {
        uint32_t wg;

        if ((rc = rd_u32(row, D_WG_X + i, false, &wg)) != 0 ||
            (rc = rd_u32(row, D_GRID_X + i, false, &d.grid[i])) != 0)
            return rc;
        if (wg == 0 || wg > RPL_WORKGROUP_MAX)
            return rd_bad_range(row, D_WG_X + i, wg, "1..65535");
        d.workgroup[i] = (uint16_t)wg;
    }
    d.correlation_id = e.stack_id;
    if (r->top_items) {
        /* The worker: the next slot down from the top of the shared slots.  More rows than
         * rowids come only from a join on repeated event ids, which the main thread is still
         * checking (rd_check_event_ids): stay within the slots until it stops the read. */
        if (r->top_count >= r->top_end)
            return rd_row_error(row, "the table grew while it was read");
        index = r->top_end - ++r->top_count;
        r->top_items[index] = d;
        if (r->top_event_ids)
            r->top_event_ids[index] = event;
        return 0;
    }
    if ((r->pmc_values &&
         (rc = rd_grow(r, RD_DISPATCH, (void **)&r->dispatch_event_ids, &r->dispatch_cap,
                       r->trace->dispatches.count - r->first_dispatch,
                       sizeof(*r->dispatch_event_ids))) != 0) ||
        (rc = rpl_trace_add_dispatch(r->trace, &d, &index)) != 0)
        return rc;
    if (r->dispatch_event_ids)
        r->dispatch_event_ids[index - r->first_dispatch] = event;
    return 0;
}

int rd_read_dispatches(rd_reader *r)
{
    static const char *const cols[] = {"id",
                                       "pid",
                                       "tid",
                                       "agent_id",
                                       "kernel_id",
                                       "dispatch_id",
                                       "queue_id",
                                       "stream_id",
                                       "start",
                                       "end",
                                       "private_segment_size",
                                       "group_segment_size",
                                       "workgroup_size_x",
                                       "workgroup_size_y",
                                       "workgroup_size_z",
                                       "grid_size_x",
                                       "grid_size_y",
                                       "grid_size_z",
                                       "event_id"};
    _Static_assert(RD_COLUMNS(cols) == D_NCOLS, "columns and their enum differ");

    if (!r->top_items)
        r->first_dispatch = r->trace->dispatches.count;
    return rd_scan_joined(r, RD_DISPATCH, cols, RD_COLUMNS(cols), rd_event_columns, event_ncols(r),
                          NULL, "kernel dispatches", rd_rowid_span(r, RD_DISPATCH, NULL, NULL),
                          dispatch_row);
}

/* --- rocpd_memory_copy ---------------------------------------------------- */

enum {
    M_ID,
    M_PID,
    M_TID,
    M_START,
    M_END,
    M_NAME,
    M_DST_AGENT,
    M_SRC_AGENT,
    M_SIZE,
    M_QUEUE,
    M_STREAM,
    M_EVENT,
    M_NCOLS
};

static int memcpy_row(rd_row *row)
{
    rd_reader *r = row->r;
    rpl_memcpy m = {.source = r->source, .id = row->id};
    int64_t size, event_id, pid;
    bool has_event;
    rd_event e;
    int rc;

    if ((rc = rd_read_thread(row, M_PID, M_TID, true, &pid, &m.thread)) != 0 ||
        (rc = rd_read_times(row, M_START, &m.start, &m.end)) != 0 ||
        (rc = rd_read_string(row, M_NAME, false, &m.name)) != 0 ||
        (rc = rd_ref_opt(row, M_DST_AGENT, &r->agent_ids, RD_AGENT, &m.dst_agent)) != 0 ||
        (rc = rd_ref_opt(row, M_SRC_AGENT, &r->agent_ids, RD_AGENT, &m.src_agent)) != 0 ||
        (rc = rd_i64(row, M_SIZE, &size)) != 0 ||
        (rc = read_queue(row, M_QUEUE, false, true, pid, &m.queue)) != 0 ||
        (rc = read_queue(row, M_STREAM, true, true, pid, &m.stream)) != 0 ||
        (rc = rd_read_event(row, M_EVENT, M_NCOLS, false, &event_id, &has_event, &e)) != 0)
        return rc;
    if (size < 0)
        return rd_row_error(row, "size %lld is negative", (long long)size);
    m.size = (uint64_t)size;
    m.kind = rpl_copy_kind_from_name(m.name);
    if (m.dst_agent == RD_AGENT_SKIPPED)
        m.dst_agent = RPL_NONE;
    if (m.src_agent == RD_AGENT_SKIPPED)
        m.src_agent = RPL_NONE;
    m.correlation_id = e.stack_id;
    return rpl_trace_add_memcpy(r->trace, &m, NULL);
}

int rd_read_memcpys(rd_reader *r)
{
    static const char *const cols[] = {"id",   "pid",      "tid",          "start",
                                       "end",  "name_id",  "dst_agent_id", "src_agent_id",
                                       "size", "queue_id", "stream_id",    "event_id"};
    _Static_assert(RD_COLUMNS(cols) == M_NCOLS, "columns and their enum differ");
    uint32_t rows;
    int rc;

    if (!r->present[RD_MEMCPY])
        return 0;
    rows = rd_rows_hint(r, RD_MEMCPY);
    if ((rc = RPL_TRACE_ROOM(r->trace->memcpys, rows)) != 0)
        return rc;
    return rd_scan_joined(r, RD_MEMCPY, cols, RD_COLUMNS(cols), rd_event_columns, event_ncols(r),
                          NULL, "memory copies", rows, memcpy_row);
}

/* --- rocpd_info_pmc, rocpd_pmc_event ------------------------------------- */

static int pmc_info_row(rd_row *row)
{
    const char *name;
    uint32_t counter, existing;
    int rc;

    if (row->r->pmc_ids.count >= RD_COUNTERS_MAX)
        return rd_row_error(row, "more than %u counters", RD_COUNTERS_MAX);
    if ((rc = rd_text(row, 1, false, RD_NAME_MAX, &name, NULL)) != 0 ||
        (rc = rpl_trace_counter_index(row->r->trace, name, &counter)) != 0 ||
        (rc = rpl_idmap_put(&row->r->pmc_ids, row->id, counter, &existing)) != 0)
        return rc;
    if (existing != RPL_IDMAP_EMPTY)
        return rd_row_error(row, "id %lld appears twice", (long long)row->id);
    return 0;
}

static int pmc_event_row(rd_row *row)
{
    rd_reader *r = row->r;
    rd_pending_value *v;
    sqlite3_value *value;
    int64_t event_id;
    bool has_event;
    int type, rc;

    /* SPM samples (schema 3.0.3) are not per-dispatch values. */
    if (r->pmc_sample_id && sqlite3_value_type(sqlite3_column_value(row->st, 4)) != SQLITE_NULL)
        return 0;
    if (r->npending_values >= r->pending_value_cap)
        return rd_row_error(row, "the table grew while it was read");
    v = &r->pending_values[r->npending_values];
    if ((rc = rd_i64_opt(row, 1, &event_id, &has_event)) != 0 ||
        (rc = rd_ref(row, 2, &r->pmc_ids, RD_PMC_INFO, &v->value.counter)) != 0)
        return rc;
    value = sqlite3_column_value(row->st, 3);
    type = sqlite3_value_type(value);
    /* Like SUM() in counters_collection: rows without an event or a value add nothing. */
    if (!has_event || type == SQLITE_NULL)
        return 0;
    if (type != SQLITE_FLOAT && type != SQLITE_INTEGER)
        return rd_bad_type(row, 3, "a number");
    v->value.value = sqlite3_value_double(value);
    if (!isfinite(v->value.value))
        return rd_row_error(row, "value is not a finite number");
    v->dispatch = rpl_idmap_get(&r->dispatch_events, event_id);
    if (v->dispatch == RPL_IDMAP_EMPTY)
        return rd_row_error(row, "event_id %lld is not the event of a kernel dispatch",
                            (long long)event_id);
    r->npending_values++;
    return 0;
}

/* Counter values find their dispatch by event_id: map the dispatches' raw event ids. */
static int link_dispatch_events(rd_reader *r)
{
    rpl_trace *t = r->trace;
    uint32_t existing;
    int rc;

    if ((rc = rpl_idmap_reserve(&r->dispatch_events, t->dispatches.count - r->first_dispatch)) != 0)
        return rc;
    for (uint32_t i = r->first_dispatch; i < t->dispatches.count; i++) {
        const rd_event_ref *event = &r->dispatch_event_ids[i - r->first_dispatch];
        rd_row row = {r, NULL, RD_DISPATCH, t->dispatches.items[i].id};

        if (!event->set)
            continue;
        if ((rc = rpl_idmap_put(&r->dispatch_events, event->id, i, &existing)) != 0)
            return rc;
        if (existing != RPL_IDMAP_EMPTY)
            return rd_row_error(&row, "event_id %lld is also the event of dispatch row %lld",
                                (long long)event->id, (long long)t->dispatches.items[existing].id);
    }
    return 0;
}

/* Hand each dispatch its values (grouped by a counting sort); the model sums repeats. */
static int attach_values(rd_reader *r)
{
    uint32_t first_dispatch = r->first_dispatch;
    uint32_t n = r->trace->dispatches.count - first_dispatch;
    uint32_t *start = calloc((size_t)n + 1, sizeof(*start)),
             *next = calloc((size_t)n + 1, sizeof(*next));
    rpl_counter_value *grouped = malloc(((size_t)r->npending_values + 1) * sizeof(*grouped));
    int rc = 0;

    if (!start || !next || !grouped) {
        rc = rpl_error_oom();
        goto out;
    }
    for (uint32_t i = 0; i < r->npending_values; i++)
        start[r->pending_values[i].dispatch - first_dispatch + 1]++;
    for (uint32_t d = 0; d < n; d++)
        start[d + 1] += start[d];
    memcpy(next, start, (size_t)n * sizeof(*next));
    for (uint32_t i = 0; i < r->npending_values; i++)
        grouped[next[r->pending_values[i].dispatch - first_dispatch]++] =
            r->pending_values[i].value;
    for (uint32_t d = 0; d < n && rc == 0; d++)
        if (start[d + 1] > start[d])
            rc = rpl_trace_set_dispatch_counters(r->trace, first_dispatch + d, grouped + start[d],
                                                 start[d + 1] - start[d]);
out:
    RPL_FREE_EACH(start, next, grouped);
    return rc;
}

int rd_read_counters(rd_reader *r)
{
    static const char *const info_cols[] = {"id", "name"};
    static const char *const cols[] = {"id", "event_id", "pmc_id", "value", "sample_id"};
    uint64_t rows = r->pmc_values;
    int rc;

    if (!r->present[RD_PMC_EVENT])
        return 0;
    if ((rows && (rc = link_dispatch_events(r)) != 0) ||
        (r->present[RD_PMC_INFO] && (rc = rd_scan(r, RD_PMC_INFO, info_cols, RD_COLUMNS(info_cols),
                                                  NULL, 0, pmc_info_row)) != 0))
        return rc;
    if (rows > UINT32_MAX - 2)
        return rpl_error_set(RPL_EINPUT, "'%s': %s has too many rows", r->label,
                             r->table[RD_PMC_EVENT]);
    r->pmc_sample_id = rd_has_column(r, RD_PMC_EVENT, "sample_id");
    r->npending_values = 0;
    r->pending_value_cap = (uint32_t)rows + 1;
    if (!(r->pending_values = malloc((size_t)r->pending_value_cap * sizeof(*r->pending_values))))
        return rpl_error_oom();
    rc = rd_scan(r, RD_PMC_EVENT, cols, r->pmc_sample_id ? 5 : 4, "counter values", rows,
                 pmc_event_row);
    return rc ? rc : attach_values(r);
}
