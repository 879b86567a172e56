/*
 * rocpd reader: the descriptive tables (strings, node, process, thread,
 * agent, kernel symbol, queue, stream).  Each builds an id map that the
 * record tables resolve their references through; the event table is only
 * checked (records join their events in SQL).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rocpd_reader_int.h"
#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/log.h"

/* Record id -> index; a second row with the same id is an error. */
static int put_id(const rd_row *row, rpl_idmap *map, uint32_t index)
{
    uint32_t existing;
    int rc = rpl_idmap_put(map, row->id, index, &existing);

    if (rc)
        return rc;
    if (existing != RPL_IDMAP_EMPTY)
        return rd_row_error(row, "id %lld appears twice", (long long)row->id);
    return 0;
}

/* Reserve maps for the table's row count. */
static int count_rows(rd_reader *r, enum rd_table t, rpl_idmap *map, uint64_t *rows)
{
    int rc = rd_count(r, t, rows);

    if (rc == 0 && *rows > UINT32_MAX - 2)
        return rpl_error_set(RPL_EINPUT, "'%s': %s has too many rows", r->label, r->table[t]);
    if (rc == 0 && map)
        rc = rpl_idmap_reserve(map, *rows);
    return rc;
}

/* A table whose rows go into `map`: the map sized for its row count, then every row to fn. */
static int read_mapped(rd_reader *r, enum rd_table t, rpl_idmap *map, const char *const *cols,
                       int ncols, const char *what, int (*fn)(rd_row *row))
{
    uint64_t rows;
    int rc = count_rows(r, t, map, &rows);

    return rc ? rc : rd_scan(r, t, cols, ncols, what, rows, fn);
}

/* A reference to an optional table: checked when the table exists. */
static int check_ref(const rd_row *row, int col, bool nullable, const rpl_idmap *map,
                     enum rd_table target)
{
    uint32_t index;
    int64_t v;
    bool present;

    if (!row->r->present[target])
        return nullable ? rd_i64_opt(row, col, &v, &present) : rd_i64(row, col, &v);
    return nullable ? rd_ref_opt(row, col, map, target, &index)
                    : rd_ref(row, col, map, target, &index);
}

int rd_string(rd_reader *r, uint32_t index, const char **out)
{
    rd_string_slot *s = &r->strings[index];

    if (!s->interned && !(s->interned = rpl_trace_intern(r->trace, r->text + s->offset)))
        return rpl_error_oom();
    *out = s->interned;
    return 0;
}

/* --- rocpd_string ------------------------------------------------------ */

static int string_row(rd_row *row)
{
    rd_reader *r = row->r;
    const char *s;
    size_t len;
    int rc;

    if (r->nstrings >= r->string_cap)
        return rd_row_error(row, "the table grew while it was read");
    if ((rc = rd_text(row, 1, false, RD_NAME_MAX, &s, &len)) != 0)
        return rc;
    if (len + 1 > r->text_cap - r->text_len) {
        size_t cap = r->text_cap ? r->text_cap : 64 * 1024;
        char *p;
        while (len + 1 > cap - r->text_len)
            cap *= 2;
        if (!(p = realloc(r->text, cap)))
            return rpl_error_oom();
        r->text = p;
        r->text_cap = cap;
    }
    memcpy(r->text + r->text_len, s, len);
    r->text[r->text_len + len] = '\0';
    r->strings[r->nstrings].offset = r->text_len;
    r->strings[r->nstrings].interned = NULL;
    r->text_len += len + 1;
    return put_id(row, &r->string_ids, r->nstrings++);
}

int rd_read_strings(rd_reader *r)
{
    static const char *const cols[] = {"id", "string"};
    uint64_t rows;
    int rc;

    if ((rc = count_rows(r, RD_STRING, &r->string_ids, &rows)) != 0)
        return rc;
    /* Views can return more rows than counted (random()): the row functions check. */
    r->strings = malloc(((size_t)rows + 1) * sizeof(*r->strings));
    if (!r->strings)
        return rpl_error_oom();
    r->nstrings = 0;
    r->string_cap = (uint32_t)rows + 1;
    return rd_scan(r, RD_STRING, cols, RD_COLUMNS(cols), "strings", rows, string_row);
}

/* --- rocpd_info_node ------------------------------------------------------ */

static int node_row(rd_row *row)
{
    rd_reader *r = row->r;
    const char *host;
    int rc;

    if (r->nnodes >= r->node_cap)
        return rd_row_error(row, "the table grew while it was read");
    if ((rc = rd_text(row, 1, true, RD_NAME_MAX, &host, NULL)) != 0)
        return rc;
    if (!(host = rpl_trace_intern(r->trace, host)))
        return rpl_error_oom();
    r->node_hosts[r->nnodes] = host;
    return put_id(row, &r->node_ids, r->nnodes++);
}

int rd_read_nodes(rd_reader *r)
{
    static const char *const cols[] = {"id", "hostname"};
    uint64_t rows;
    int rc;

    if ((rc = count_rows(r, RD_NODE, &r->node_ids, &rows)) != 0)
        return rc;
    if (!(r->node_hosts = malloc(((size_t)rows + 1) * sizeof(*r->node_hosts))))
        return rpl_error_oom();
    r->node_cap = (uint32_t)rows + 1;
    return rd_scan(r, RD_NODE, cols, RD_COLUMNS(cols), NULL, rows, node_row);
}

/* --- rocpd_info_process ------------------------------------------------- */

enum { P_ID, P_NID, P_PPID, P_PID, P_START, P_END, P_COMMAND, P_NCOLS };

static int process_row(rd_row *row)
{
    rd_reader *r = row->r;
    rpl_process p = {.source = r->source, .hostname = ""};
    uint32_t node = RPL_NONE, index;
    bool has_ppid, has_start, has_end;
    int64_t nid;
    int rc;

    if (r->present[RD_NODE])
        rc = rd_ref(row, P_NID, &r->node_ids, RD_NODE, &node);
    else
        rc = rd_i64(row, P_NID, &nid);
    if (rc || (rc = rd_i64_opt(row, P_PPID, &p.ppid, &has_ppid)) != 0 ||
        (rc = rd_i64(row, P_PID, &p.pid)) != 0 ||
        (rc = rd_i64_opt(row, P_START, &p.start, &has_start)) != 0 ||
        (rc = rd_i64_opt(row, P_END, &p.end, &has_end)) != 0 ||
        (rc = rd_text(row, P_COMMAND, true, RD_TEXT_MAX, &p.command, NULL)) != 0)
        return rc;
    if (p.start < 0 || p.end < 0 || (has_start && has_end && p.end < p.start))
        return rd_row_error(row, "start %lld and end %lld do not form a time range",
                            (long long)p.start, (long long)p.end);
    if (node != RPL_NONE)
        p.hostname = r->node_hosts[node];
    if ((rc = rpl_trace_add_process(r->trace, &p, &index)) != 0)
        return rc;
    return put_id(row, &r->process_ids, index);
}

int rd_read_processes(rd_reader *r)
{
    static const char *const cols[] = {"id", "nid", "ppid", "pid", "start", "end", "command"};
    _Static_assert(RD_COLUMNS(cols) == P_NCOLS, "columns and their enum differ");
    return read_mapped(r, RD_PROCESS, &r->process_ids, cols, RD_COLUMNS(cols), NULL, process_row);
}

/* --- rocpd_info_thread ---------------------------------------------------- */

static int thread_row(rd_row *row)
{
    int rc = check_ref(row, 1, false, &row->r->process_ids, RD_PROCESS);

    return rc ? rc : put_id(row, &row->r->thread_ids, 0);
}

int rd_read_threads(rd_reader *r)
{
    static const char *const cols[] = {"id", "pid"};
    return read_mapped(r, RD_THREAD, &r->thread_ids, cols, RD_COLUMNS(cols), NULL, thread_row);
}

/* --- rocpd_info_agent ----------------------------------------------------- */

enum {
    A_ID,
    A_TYPE,
    A_ABS,
    A_LOG,
    A_TYPE_INDEX,
    A_NAME,
    A_MODEL,
    A_VENDOR,
    A_PRODUCT,
    A_EXTDATA,
    A_NCOLS
};

static int i32_opt(const rd_row *row, int col, int32_t *out)
{
    int64_t v;
    bool present;
    int rc = rd_i64_opt(row, col, &v, &present);

    if (rc)
        return rc;
    if (v < INT32_MIN || v > INT32_MAX)
        return rd_bad_range(row, col, v, "a 32-bit integer");
    *out = present ? (int32_t)v : -1;
    return 0;
}

/*
 * Parse the extdata JSON.  A malformed document loses only the facts it
 * would have given: a warning, and the agent keeps NULL extdata.
 */
static int agent_extdata(const rd_row *row, cJSON **out)
{
    int type = sqlite3_column_type(row->st, A_EXTDATA);
    const char *text;
    size_t len;
    int rc;

    *out = NULL;
    if (type == SQLITE_NULL)
        return 0;
    if (type != SQLITE_TEXT) {
        rpl_log_warn("'%s': %s row %lld: extdata is not JSON text; ignored", row->r->label,
                     row->r->table[row->table], (long long)row->id);
        return 0;
    }
    if ((rc = rd_text(row, A_EXTDATA, false, RD_EXTDATA_MAX, &text, &len)) != 0)
        return rc;
    if (rpl_json_parse(out, text, len, "extdata") != 0) {
        rpl_log_warn("'%s': %s row %lld: %s; ignored", row->r->label, row->r->table[row->table],
                     (long long)row->id, rpl_error_last()->message);
        return 0;
    }
    if (!cJSON_IsObject(*out)) {
        rpl_log_warn("'%s': %s row %lld: extdata is not a JSON object; ignored", row->r->label,
                     row->r->table[row->table], (long long)row->id);
        cJSON_Delete(*out);
        *out = NULL;
    }
    return 0;
}

static int agent_row(rd_row *row)
{
    rd_reader *r = row->r;
    rpl_agent a = {.source = r->source, .id = row->id};
    const char *type;
    char shown[40];
    uint32_t index;
    int rc;

    if ((rc = rd_text(row, A_TYPE, false, RD_NAME_MAX, &type, NULL)) != 0)
        return rc;
    if (strcmp(type, "NIC") == 0) /* schema 3.0.1: network cards carry no kernels */
        return put_id(row, &r->agent_ids, RD_AGENT_SKIPPED);
    if (strcmp(type, "GPU") == 0)
        a.type = RPL_AGENT_GPU;
    else if (strcmp(type, "CPU") == 0)
        a.type = RPL_AGENT_CPU;
    else
        return rd_row_error(row, "type '%s' is not CPU, GPU or NIC",
                            rd_printable(shown, sizeof(shown), type));
    if ((rc = i32_opt(row, A_ABS, &a.absolute_index)) != 0 ||
        (rc = i32_opt(row, A_LOG, &a.logical_index)) != 0 ||
        (rc = i32_opt(row, A_TYPE_INDEX, &a.type_index)) != 0 ||
        (rc = rd_text(row, A_NAME, true, RD_NAME_MAX, &a.name, NULL)) != 0 ||
        (rc = rd_text(row, A_MODEL, true, RD_NAME_MAX, &a.model_name, NULL)) != 0 ||
        (rc = rd_text(row, A_VENDOR, true, RD_NAME_MAX, &a.vendor_name, NULL)) != 0 ||
        (rc = rd_text(row, A_PRODUCT, true, RD_NAME_MAX, &a.product_name, NULL)) != 0 ||
        (rc = agent_extdata(row, &a.extdata)) != 0)
        return rc;
    rpl_agent_refresh_facts(&a);
    if ((rc = rpl_trace_add_agent(r->trace, &a, &index)) != 0) {
        cJSON_Delete(a.extdata);
        return rc;
    }
    return put_id(row, &r->agent_ids, index);
}

int rd_read_agents(rd_reader *r)
{
    static const char *const cols[] = {"id",           "type",   "absolute_index", "logical_index",
                                       "type_index",   "name",   "model_name",     "vendor_name",
                                       "product_name", "extdata"};
    _Static_assert(RD_COLUMNS(cols) == A_NCOLS, "columns and their enum differ");
    return read_mapped(r, RD_AGENT, &r->agent_ids, cols, RD_COLUMNS(cols), NULL, agent_row);
}

/* --- rocpd_info_kernel_symbol ------------------------------------------- */

enum {
    K_ID,
    K_CODE_OBJECT,
    K_NAME,
    K_DISPLAY,
    K_KERNARG,
    K_GROUP,
    K_PRIVATE,
    K_SGPR,
    K_VGPR,
    K_AGPR,
    K_NCOLS
};

static int symbol_row(rd_row *row)
{
    rd_reader *r = row->r;
    rpl_kernel_symbol k = {.source = r->source, .id = row->id};
    uint32_t index;
    int rc;

    if ((rc = rd_i64(row, K_CODE_OBJECT, &k.code_object_id)) != 0 ||
        (rc = rd_text(row, K_NAME, true, RD_NAME_MAX, &k.name, NULL)) != 0 ||
        (rc = rd_text(row, K_DISPLAY, true, RD_NAME_MAX, &k.display_name, NULL)) != 0 ||
        (rc = rd_u32(row, K_KERNARG, true, &k.kernarg_segment_size)) != 0 ||
        (rc = rd_u32(row, K_GROUP, true, &k.group_segment_size)) != 0 ||
        (rc = rd_u32(row, K_PRIVATE, true, &k.private_segment_size)) != 0 ||
        (rc = rd_u32(row, K_SGPR, true, &k.sgpr_count)) != 0 ||
        (rc = rd_u32(row, K_VGPR, true, &k.arch_vgpr_count)) != 0 ||
        (rc = rd_u32(row, K_AGPR, true, &k.accum_vgpr_count)) != 0)
        return rc;
    if (!k.name || !k.name[0])
        k.name = k.display_name;
    if (!k.name || !k.name[0])
        return rd_row_error(row, "the kernel has neither a kernel_name nor a display_name");
    if ((rc = rpl_trace_add_symbol(r->trace, &k, &index)) != 0)
        return rc;
    return put_id(row, &r->symbol_ids, index);
}

int rd_read_symbols(rd_reader *r)
{
    static const char *const cols[] = {"id",
                                       "code_object_id",
                                       "kernel_name",
                                       "display_name",
                                       "kernarg_segment_size",
                                       "group_segment_size",
                                       "private_segment_size",
                                       "sgpr_count",
                                       "arch_vgpr_count",
                                       "accum_vgpr_count"};
    _Static_assert(RD_COLUMNS(cols) == K_NCOLS, "columns and their enum differ");
    return read_mapped(r, RD_SYMBOL, &r->symbol_ids, cols, RD_COLUMNS(cols), "kernel symbols",
                       symbol_row);
}

/* --- rocpd_info_queue, rocpd_info_stream ---------------------------------- */

static int queue_row(rd_row *row)
{
    rd_reader *r = row->r;
    rpl_queue q = {.source = r->source, .id = row->id};
    bool stream = row->table == RD_STREAM;
    uint32_t index;
    int rc;

    if ((rc = check_ref(row, 1, false, &r->process_ids, RD_PROCESS)) != 0 ||
        (rc = rd_i64(row, 1, &q.pid)) != 0 ||
        (rc = rd_text(row, 2, true, RD_NAME_MAX, &q.name, NULL)) != 0)
        return rc;
    rc = stream ? rpl_trace_add_stream(r->trace, &q, &index)
                : rpl_trace_add_queue(r->trace, &q, &index);
    if (rc)
        return rc;
    return put_id(row, stream ? &r->stream_ids : &r->queue_ids, index);
}

int rd_read_queues(rd_reader *r, enum rd_table t)
{
    static const char *const cols[] = {"id", "pid", "name"};
    return read_mapped(r, t, t == RD_STREAM ? &r->stream_ids : &r->queue_ids, cols,
                       RD_COLUMNS(cols), NULL, queue_row);
}

/* --- rocpd_event ----------------------------------------------------------- */

/*
 * Records join their event by id (rocpd_query.c), so two events with one id
 * would make two rows of one record.  The id of a rowid table's INTEGER
 * PRIMARY KEY (rocpd's event table) cannot repeat; any other table or view
 * is checked, at the cost of one scan.
 */
int rd_check_event_ids(rd_reader *r)
{
    static const char key_sql[] =
        "SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1 AND "
        "sql NOT LIKE 'CREATE VIRTUAL%' AND "
        "(SELECT count(*) FROM pragma_table_info(?1) WHERE pk > 0) = 1 AND "
        "(SELECT count(*) FROM pragma_table_info(?1) WHERE pk = 1 AND name = 'id' COLLATE NOCASE "
        "AND upper(type) = 'INTEGER') = 1 AND "
        "(SELECT count(*) FROM pragma_index_list(?1) WHERE origin = 'pk') = 0";
    char sql[RD_TABLE_NAME_MAX + 96];
    sqlite3_stmt *st = NULL;
    rd_row row = {r, NULL, RD_EVENT, 0};
    bool rowid_key = false;
    int rc;

    /* The columns the records take from it must be there, even if no record has an event. */
    if ((rc = rd_prepare(r, RD_EVENT, rd_event_columns, RD_EVENT_NCOLS, NULL, 0, NULL, &st)) != 0)
        return rc;
    sqlite3_finalize(st);
    st = NULL;
    if (sqlite3_prepare_v2(r->db, key_sql, -1, &st, NULL) == SQLITE_OK &&
        sqlite3_bind_text(st, 1, r->table[RD_EVENT], -1, SQLITE_STATIC) == SQLITE_OK)
        rowid_key = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (rowid_key)
        return 0;
    rpl_log_debug("'%s': %s has no rowid key: its ids are checked", r->label, r->table[RD_EVENT]);
    snprintf(sql, sizeof(sql), "SELECT id FROM \"%s\" GROUP BY id HAVING count(*) > 1 LIMIT 1",
             r->table[RD_EVENT]);
    if ((rc = sqlite3_prepare_v2(r->db, sql, -1, &st, NULL)) == SQLITE_OK &&
        (rc = sqlite3_step(st)) == SQLITE_ROW)
        row.id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    if (rc == SQLITE_ROW)
        return rd_row_error(&row, "id %lld appears twice", (long long)row.id);
    return rc == SQLITE_DONE ? 0 : rd_sqlite_error(r, rc, r->table[RD_EVENT]);
}
