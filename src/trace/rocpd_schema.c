/*
 * rocpd schema "3" (see rocpd_schema.h), written from the description in
 * rocprofiler-sdk's rocpd tables and views (ROCm/rocm-systems@1b1610f, projects/rocprofiler-sdk).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "rocpd_schema.h"
#include "rpl/error.h"
#include "rpl/strbuf.h"

/* Column shorthands: the same definitions recur in most tables. */
// clang-format off
#define COL(name, type)          {name, type, false, NULL, NULL}
#define COL_NN(name, type)       {name, type, true, NULL, NULL}
#define COL_X(name, type, extra) {name, type, false, extra, NULL}
#define REF(name, table)         {name, "INTEGER", false, NULL, table}
#define REF_NN(name, table)      {name, "INTEGER", true, NULL, table}
#define ID                       {"id", "INTEGER", true, "PRIMARY KEY AUTOINCREMENT", NULL}
#define GUID                     {"guid", "TEXT", true, NULL, NULL} /* DEFAULT added at creation */
#define NID                      REF_NN("nid", "rocpd_info_node")
#define PID                      REF_NN("pid", "rocpd_info_process")
#define TID                      REF("tid", "rocpd_info_thread")
#define JSON_COL(name)           {name, "JSONB", true, "DEFAULT '{}'", NULL}
#define EXTDATA                  JSON_COL("extdata")
#define TABLE(name, required, cols) {name, required, cols, sizeof(cols) / sizeof(cols[0])}
// clang-format on

static const rpl_rocpd_column metadata_cols[] = {ID, COL_NN("tag", "TEXT"),
                                                 COL_NN("value", "TEXT")};

static const rpl_rocpd_column string_cols[] = {
    ID, GUID, {"string", "TEXT", true, "UNIQUE ON CONFLICT ABORT", NULL}};

static const rpl_rocpd_column node_cols[] = {
    ID,
    GUID,
    {"hash", "BIGINT", true, "UNIQUE", NULL},
    {"machine_id", "TEXT", true, "UNIQUE", NULL},
    COL("system_name", "TEXT"),
    COL("hostname", "TEXT"),
    COL("release", "TEXT"),
    COL("version", "TEXT"),
    COL("hardware_name", "TEXT"),
    COL("domain_name", "TEXT"),
};

static const rpl_rocpd_column process_cols[] = {
    ID,
    GUID,
    NID,
    COL("ppid", "INTEGER"),
    COL_NN("pid", "INTEGER"),
    COL("init", "BIGINT"),
    COL("fini", "BIGINT"),
    COL("start", "BIGINT"),
    COL("end", "BIGINT"),
    COL("command", "TEXT"),
    JSON_COL("environment"),
    EXTDATA,
};

static const rpl_rocpd_column thread_cols[] = {
    ID,
    GUID,
    NID,
    COL("ppid", "INTEGER"),
    PID,
    COL_NN("tid", "INTEGER"),
    COL("name", "TEXT"),
    COL("start", "BIGINT"),
    COL("end", "BIGINT"),
    EXTDATA,
};

static const rpl_rocpd_column agent_cols[] = {
    ID,
    GUID,
    NID,
    PID,
    COL_X("type", "TEXT", "CHECK (\"type\" IN ('CPU', 'GPU'))"),
    COL("absolute_index", "INTEGER"),
    COL("logical_index", "INTEGER"),
    COL("type_index", "INTEGER"),
    COL("uuid", "INTEGER"),
    COL("name", "TEXT"),
    COL("model_name", "TEXT"),
    COL("vendor_name", "TEXT"),
    COL("product_name", "TEXT"),
    COL("user_name", "TEXT"),
    EXTDATA,
};

/* rocpd_info_queue and rocpd_info_stream have the same columns. */
static const rpl_rocpd_column queue_cols[] = {ID, GUID, NID, PID, COL("name", "TEXT"), EXTDATA};

static const rpl_rocpd_column pmc_cols[] = {
    ID,
    GUID,
    NID,
    PID,
    REF("agent_id", "rocpd_info_agent"),
    COL_X("target_arch", "TEXT", "CHECK (\"target_arch\" IN ('CPU', 'GPU'))"),
    COL("event_code", "INT"),
    COL("instance_id", "INTEGER"),
    COL_NN("name", "TEXT"),
    COL_NN("symbol", "TEXT"),
    COL("description", "TEXT"),
    COL_X("long_description", "TEXT", "DEFAULT ''"),
    COL("component", "TEXT"),
    COL_X("units", "TEXT", "DEFAULT ''"),
    COL_X("value_type", "TEXT", "CHECK (\"value_type\" IN ('ABS', 'ACCUM', 'RELATIVE'))"),
    COL("block", "TEXT"),
    COL("expression", "TEXT"),
    COL("is_constant", "INTEGER"),
    COL("is_derived", "INTEGER"),
    EXTDATA,
};

static const rpl_rocpd_column code_object_cols[] = {
    ID,
    GUID,
    NID,
    PID,
    REF("agent_id", "rocpd_info_agent"),
    COL("uri", "TEXT"),
    COL("load_base", "BIGINT"),
    COL("load_size", "BIGINT"),
    COL("load_delta", "BIGINT"),
    COL_X("storage_type", "TEXT", "CHECK (\"storage_type\" IN ('FILE', 'MEMORY'))"),
    EXTDATA,
};

static const rpl_rocpd_column kernel_symbol_cols[] = {
    ID,
    GUID,
    NID,
    PID,
    REF_NN("code_object_id", "rocpd_info_code_object"),
    COL("kernel_name", "TEXT"),
    COL("display_name", "TEXT"),
    COL("kernel_object", "INTEGER"),
    COL("kernarg_segment_size", "INTEGER"),
    COL("kernarg_segment_alignment", "INTEGER"),
    COL("group_segment_size", "INTEGER"),
    COL("private_segment_size", "INTEGER"),
    COL("sgpr_count", "INTEGER"),
    COL("arch_vgpr_count", "INTEGER"),
    COL("accum_vgpr_count", "INTEGER"),
    EXTDATA,
};

static const rpl_rocpd_column track_cols[] = {
    ID, GUID, NID, REF("pid", "rocpd_info_process"), TID, REF("name_id", "rocpd_string"), EXTDATA,
};

static const rpl_rocpd_column event_cols[] = {
    ID,
    GUID,
    REF("category_id", "rocpd_string"),
    COL("stack_id", "INTEGER"),
    COL("parent_stack_id", "INTEGER"),
    COL("correlation_id", "INTEGER"),
    JSON_COL("call_stack"),
    JSON_COL("line_info"),
    EXTDATA,
};

static const rpl_rocpd_column arg_cols[] = {
    ID,
    GUID,
    REF_NN("event_id", "rocpd_event"),
    COL_NN("position", "INTEGER"),
    COL_NN("type", "TEXT"),
    COL_NN("name", "TEXT"),
    COL("value", "TEXT"),
    EXTDATA,
};

static const rpl_rocpd_column pmc_event_cols[] = {
    ID,
    GUID,
    REF("event_id", "rocpd_event"),
    REF_NN("pmc_id", "rocpd_info_pmc"),
    COL_X("value", "REAL", "DEFAULT 0.0"),
    COL_X("extdata", "JSONB", "DEFAULT '{}'"),
};

static const rpl_rocpd_column region_cols[] = {
    ID,
    GUID,
    NID,
    PID,
    REF_NN("tid", "rocpd_info_thread"),
    COL_NN("start", "BIGINT"),
    COL_NN("end", "BIGINT"),
    REF_NN("name_id", "rocpd_string"),
    REF("event_id", "rocpd_event"),
    EXTDATA,
};

static const rpl_rocpd_column sample_cols[] = {
    ID,
    GUID,
    REF_NN("track_id", "rocpd_track"),
    COL_NN("timestamp", "BIGINT"),
    REF("event_id", "rocpd_event"),
    EXTDATA,
};

static const rpl_rocpd_column kernel_dispatch_cols[] = {
    ID,
    GUID,
    NID,
    PID,
    TID,
    REF_NN("agent_id", "rocpd_info_agent"),
    REF_NN("kernel_id", "rocpd_info_kernel_symbol"),
    COL_NN("dispatch_id", "INTEGER"),
    REF_NN("queue_id", "rocpd_info_queue"),
    REF_NN("stream_id", "rocpd_info_stream"),
    COL_NN("start", "BIGINT"),
    COL_NN("end", "BIGINT"),
    COL("private_segment_size", "INTEGER"),
    COL("group_segment_size", "INTEGER"),
    COL_NN("workgroup_size_x", "INTEGER"),
    COL_NN("workgroup_size_y", "INTEGER"),
    COL_NN("workgroup_size_z", "INTEGER"),
    COL_NN("grid_size_x", "INTEGER"),
    COL_NN("grid_size_y", "INTEGER"),
    COL_NN("grid_size_z", "INTEGER"),
    REF("region_name_id", "rocpd_string"),
    REF("event_id", "rocpd_event"),
    EXTDATA,
};

static const rpl_rocpd_column memory_copy_cols[] = {
    ID,
    GUID,
    NID,
    PID,
    TID,
    COL_NN("start", "BIGINT"),
    COL_NN("end", "BIGINT"),
    REF_NN("name_id", "rocpd_string"),
    REF("dst_agent_id", "rocpd_info_agent"),
    COL("dst_address", "INTEGER"),
    REF("src_agent_id", "rocpd_info_agent"),
    COL("src_address", "INTEGER"),
    COL_NN("size", "INTEGER"),
    REF("queue_id", "rocpd_info_queue"),
    REF("stream_id", "rocpd_info_stream"),
    REF("region_name_id", "rocpd_string"),
    REF("event_id", "rocpd_event"),
    EXTDATA,
};

static const rpl_rocpd_column memory_allocate_cols[] = {
    ID,
    GUID,
    NID,
    PID,
    TID,
    REF("agent_id", "rocpd_info_agent"),
    COL_X("type", "TEXT", "CHECK (\"type\" IN ('ALLOC', 'FREE', 'REALLOC', 'RECLAIM'))"),
    COL_X("level", "TEXT", "CHECK (\"level\" IN ('REAL', 'VIRTUAL', 'SCRATCH'))"),
    COL_NN("start", "BIGINT"),
    COL_NN("end", "BIGINT"),
    COL("address", "INTEGER"),
    COL_NN("size", "INTEGER"),
    REF("queue_id", "rocpd_info_queue"),
    REF("stream_id", "rocpd_info_stream"),
    REF("event_id", "rocpd_event"),
    EXTDATA,
};

/*
 * "Required" are the tables without which a trace model cannot be built
 * (names, the process, agents, symbols, dispatches); rocprofv3 creates every
 * table, so a DB missing one of these is damaged.
 */
const rpl_rocpd_table rpl_rocpd_tables[] = {
    TABLE("rocpd_metadata", false, metadata_cols),
    TABLE("rocpd_string", true, string_cols),
    TABLE("rocpd_info_node", true, node_cols),
    TABLE("rocpd_info_process", true, process_cols),
    TABLE("rocpd_info_thread", false, thread_cols),
    TABLE("rocpd_info_agent", true, agent_cols),
    TABLE("rocpd_info_queue", false, queue_cols),
    TABLE("rocpd_info_stream", false, queue_cols),
    TABLE("rocpd_info_pmc", false, pmc_cols),
    TABLE("rocpd_info_code_object", false, code_object_cols),
    TABLE("rocpd_info_kernel_symbol", true, kernel_symbol_cols),
    TABLE("rocpd_track", false, track_cols),
    TABLE("rocpd_event", false, event_cols),
    TABLE("rocpd_arg", false, arg_cols),
    TABLE("rocpd_pmc_event", false, pmc_event_cols),
    TABLE("rocpd_region", false, region_cols),
    TABLE("rocpd_sample", false, sample_cols),
    TABLE("rocpd_kernel_dispatch", true, kernel_dispatch_cols),
    TABLE("rocpd_memory_copy", false, memory_copy_cols),
    TABLE("rocpd_memory_allocate", false, memory_allocate_cols),
};
const size_t rpl_rocpd_ntables = sizeof(rpl_rocpd_tables) / sizeof(rpl_rocpd_tables[0]);

const rpl_rocpd_table *rpl_rocpd_table_find(const char *name)
{
    for (size_t i = 0; i < rpl_rocpd_ntables; i++)
        if (strcmp(rpl_rocpd_tables[i].name, name) == 0)
            return &rpl_rocpd_tables[i];
    return NULL;
}

const rpl_rocpd_column *rpl_rocpd_column_find(const rpl_rocpd_table *table, const char *name)
{
    for (size_t i = 0; i < table->ncolumns; i++)
        if (strcmp(table->columns[i].name, name) == 0)
            return &table->columns[i];
    return NULL;
}

/*
 * Agent columns as the views name them, for an agent joined as `A` with the
 * output prefix `P` (e.g. "dst_").
 */
// clang-format off
#define AGENT_COLS(A, P)                                                                           \
    A ".absolute_index AS " P "agent_abs_index, " A ".logical_index AS " P "agent_log_index, "     \
    A ".type_index AS " P "agent_type_index, " A ".type AS " P "agent_type"

/* Every join also matches guid, so ids stay apart after several DBs are merged. */
#define ON(a, acol, b, bcol) " ON " a "." acol " = " b "." bcol " AND " a ".guid = " b ".guid"

/* The event columns that close regions, samples and operations. */
#define EVENT_TAIL "E.stack_id, E.parent_stack_id, E.correlation_id AS corr_id"

/*
 * The views over the unsuffixed rocpd_X views, with the columns and join
 * kinds of rocprofv3's (reference §5).  Kept out of clang-format: the SQL is
 * laid out one clause per line.
 */
const rpl_rocpd_view rpl_rocpd_views[] = {
    {"code_objects",
     "SELECT CO.id, CO.guid, CO.nid, P.pid, A.absolute_index AS agent_abs_index, CO.uri, "
     "CO.load_base, CO.load_size, CO.load_delta, CO.storage_type AS storage_type_str, "
     "JSON_EXTRACT(CO.extdata, '$.size') AS code_object_size, "
     "JSON_EXTRACT(CO.extdata, '$.storage_type') AS storage_type, "
     "JSON_EXTRACT(CO.extdata, '$.memory_base') AS memory_base, "
     "JSON_EXTRACT(CO.extdata, '$.memory_size') AS memory_size "
     "FROM rocpd_info_code_object CO "
     "INNER JOIN rocpd_info_process P" ON("P", "id", "CO", "pid") " "
     "LEFT JOIN rocpd_info_agent A" ON("A", "id", "CO", "agent_id")},
    {"kernel_symbols",
     "SELECT KS.id, KS.guid, KS.nid, P.pid, KS.code_object_id, KS.kernel_name, KS.display_name, "
     "KS.kernel_object, KS.kernarg_segment_size, KS.kernarg_segment_alignment, "
     "KS.group_segment_size, KS.private_segment_size, KS.sgpr_count, KS.arch_vgpr_count, "
     "KS.accum_vgpr_count, JSON_EXTRACT(KS.extdata, '$.size') AS kernel_symbol_size, "
     "JSON_EXTRACT(KS.extdata, '$.kernel_id') AS kernel_id, "
     "JSON_EXTRACT(KS.extdata, '$.kernel_code_entry_byte_offset') "
     "AS kernel_code_entry_byte_offset, "
     "JSON_EXTRACT(KS.extdata, '$.formatted_kernel_name') AS formatted_kernel_name, "
     "JSON_EXTRACT(KS.extdata, '$.demangled_kernel_name') AS demangled_kernel_name, "
     "JSON_EXTRACT(KS.extdata, '$.truncated_kernel_name') AS truncated_kernel_name, "
     "JSON_EXTRACT(KS.extdata, '$.kernel_address.handle') AS kernel_address "
     "FROM rocpd_info_kernel_symbol KS "
     "INNER JOIN rocpd_info_process P" ON("P", "id", "KS", "pid")},
    {"processes",
     "SELECT N.id AS nid, N.machine_id, N.system_name, N.hostname, N.release AS system_release, "
     "N.version AS system_version, P.guid, P.ppid, P.pid, P.init, P.start, P.\"end\", P.fini, "
     "P.command "
     "FROM rocpd_info_process P "
     "INNER JOIN rocpd_info_node N" ON("N", "id", "P", "nid")},
    {"threads",
     "SELECT N.id AS nid, N.machine_id, N.system_name, N.hostname, N.release AS system_release, "
     "N.version AS system_version, P.guid, P.ppid, P.pid, T.tid, T.start, T.\"end\", T.name "
     "FROM rocpd_info_thread T "
     "INNER JOIN rocpd_info_process P" ON("P", "id", "T", "pid") " "
     "INNER JOIN rocpd_info_node N" ON("N", "id", "T", "nid")},
    {"regions",
     "SELECT R.id, R.guid, C.string AS category, S.string AS name, R.nid, P.pid, T.tid, "
     "R.start, R.\"end\", (R.\"end\" - R.start) AS duration, R.event_id, " EVENT_TAIL ", "
     "E.extdata, E.call_stack, E.line_info "
     "FROM rocpd_region R "
     "INNER JOIN rocpd_event E" ON("E", "id", "R", "event_id") " "
     "INNER JOIN rocpd_string S" ON("S", "id", "R", "name_id") " "
     "LEFT JOIN rocpd_string C" ON("C", "id", "E", "category_id") " "
     "INNER JOIN rocpd_info_process P" ON("P", "id", "R", "pid") " "
     "INNER JOIN rocpd_info_thread T" ON("T", "id", "R", "tid")},
    {"region_args",
     "SELECT R.id, R.guid, R.nid, P.pid, A.type, A.name, A.value "
     "FROM rocpd_region R "
     "INNER JOIN rocpd_arg A" ON("A", "event_id", "R", "event_id") " "
     "INNER JOIN rocpd_info_process P" ON("P", "id", "R", "pid")},
    {"samples",
     "SELECT R.id, R.guid, C.string AS category, S.string AS name, TR.nid, P.pid, T.tid, "
     "R.timestamp, R.event_id, " EVENT_TAIL ", E.extdata, E.call_stack, E.line_info "
     "FROM rocpd_sample R "
     "INNER JOIN rocpd_track TR" ON("TR", "id", "R", "track_id") " "
     "INNER JOIN rocpd_event E" ON("E", "id", "R", "event_id") " "
     "LEFT JOIN rocpd_string S" ON("S", "id", "TR", "name_id") " "
     "LEFT JOIN rocpd_string C" ON("C", "id", "E", "category_id") " "
     "LEFT JOIN rocpd_info_process P" ON("P", "id", "TR", "pid") " "
     "LEFT JOIN rocpd_info_thread T" ON("T", "id", "TR", "tid")},
    {"sample_regions",
     "SELECT id, guid, category, name, nid, pid, tid, timestamp AS start, timestamp AS \"end\", "
     "0 AS duration, event_id, stack_id, parent_stack_id, corr_id, extdata, call_stack, "
     "line_info FROM samples"},
    {"regions_and_samples", "SELECT * FROM regions UNION ALL SELECT * FROM sample_regions"},
    {"kernels",
     "SELECT K.id, K.guid, T.tid, C.string AS category, RN.string AS region, "
     "KS.display_name AS name, K.nid, P.pid, " AGENT_COLS("A", "") ", "
     "KS.code_object_id, K.kernel_id, K.dispatch_id, K.stream_id, K.queue_id, Q.name AS queue, "
     "ST.name AS stream, K.start, K.\"end\", (K.\"end\" - K.start) AS duration, "
     "K.grid_size_x AS grid_x, K.grid_size_y AS grid_y, K.grid_size_z AS grid_z, "
     "K.workgroup_size_x AS workgroup_x, K.workgroup_size_y AS workgroup_y, "
     "K.workgroup_size_z AS workgroup_z, K.group_segment_size AS lds_size, "
     "K.private_segment_size AS scratch_size, KS.arch_vgpr_count AS vgpr_count, "
     "KS.accum_vgpr_count AS accum_vgpr_count, KS.sgpr_count AS sgpr_count, "
     "KS.group_segment_size AS static_lds_size, KS.private_segment_size AS static_scratch_size, "
     EVENT_TAIL " "
     "FROM rocpd_kernel_dispatch K "
     "INNER JOIN rocpd_info_agent A" ON("A", "id", "K", "agent_id") " "
     "INNER JOIN rocpd_event E" ON("E", "id", "K", "event_id") " "
     "INNER JOIN rocpd_string RN" ON("RN", "id", "K", "region_name_id") " "
     "INNER JOIN rocpd_info_kernel_symbol KS" ON("KS", "id", "K", "kernel_id") " "
     "LEFT JOIN rocpd_string C" ON("C", "id", "E", "category_id") " "
     "LEFT JOIN rocpd_info_stream ST" ON("ST", "id", "K", "stream_id") " "
     "LEFT JOIN rocpd_info_queue Q" ON("Q", "id", "K", "queue_id") " "
     "INNER JOIN rocpd_info_process P" ON("P", "id", "Q", "pid") " "
     "INNER JOIN rocpd_info_thread T" ON("T", "id", "K", "tid")},
    {"pmc_info",
     "SELECT PI.id, PI.guid, PI.nid, P.pid, A.absolute_index AS agent_abs_index, PI.is_constant, "
     "PI.is_derived, PI.name, PI.description, PI.block, PI.expression "
     "FROM rocpd_info_pmc PI "
     "INNER JOIN rocpd_info_process P" ON("P", "id", "PI", "pid") " "
     "LEFT JOIN rocpd_info_agent A" ON("A", "id", "PI", "agent_id")},
    {"pmc_events",
     "SELECT PE.id, PE.guid, PE.pmc_id, PE.event_id, C.string AS category, "
     "KS.display_name AS name, K.nid, P.pid, K.dispatch_id, K.start, K.\"end\", "
     "(K.\"end\" - K.start) AS duration, PI.name AS counter_name, PE.value AS counter_value "
     "FROM rocpd_pmc_event PE "
     "INNER JOIN rocpd_info_pmc PI" ON("PI", "id", "PE", "pmc_id") " "
     "INNER JOIN rocpd_kernel_dispatch K" ON("K", "event_id", "PE", "event_id") " "
     "INNER JOIN rocpd_info_kernel_symbol KS" ON("KS", "id", "K", "kernel_id") " "
     "INNER JOIN rocpd_event E" ON("E", "id", "PE", "event_id") " "
     "LEFT JOIN rocpd_string C" ON("C", "id", "E", "category_id") " "
     "INNER JOIN rocpd_info_process P" ON("P", "id", "K", "pid")},
    {"events_args",
     "SELECT E.id AS event_id, C.string AS category, E.stack_id, E.parent_stack_id, "
     "E.correlation_id, A.position AS arg_position, A.type AS arg_type, A.name AS arg_name, "
     "A.value AS arg_value, E.call_stack, E.line_info, E.extdata "
     "FROM rocpd_event E "
     "INNER JOIN rocpd_arg A" ON("A", "event_id", "E", "id") " "
     "LEFT JOIN rocpd_string C" ON("C", "id", "E", "category_id")},
    {"stream_args",
     "SELECT A.id AS argument_id, A.event_id, A.position AS arg_position, A.type AS arg_type, "
     "A.value AS arg_value, JSON_EXTRACT(A.extdata, '$.stream_id') AS stream_id, S.nid, S.pid, "
     "S.name AS stream_name, A.extdata "
     "FROM rocpd_arg A "
     "LEFT JOIN rocpd_info_stream S ON S.id = JSON_EXTRACT(A.extdata, '$.stream_id') "
     "AND S.guid = A.guid "
     "WHERE A.name = 'stream'"},
    {"memory_copies",
     "SELECT M.id, M.guid, C.string AS category, M.nid, P.pid, T.tid, M.start, M.\"end\", "
     "(M.\"end\" - M.start) AS duration, S.string AS name, RN.string AS region_name, "
     "M.stream_id, M.queue_id, ST.name AS stream_name, Q.name AS queue_name, M.size, "
     "DA.name AS dst_device, " AGENT_COLS("DA", "dst_") ", M.dst_address, "
     "SA.name AS src_device, " AGENT_COLS("SA", "src_") ", M.src_address, " EVENT_TAIL " "
     "FROM rocpd_memory_copy M "
     "INNER JOIN rocpd_string S" ON("S", "id", "M", "name_id") " "
     "LEFT JOIN rocpd_string RN" ON("RN", "id", "M", "region_name_id") " "
     "INNER JOIN rocpd_info_agent DA" ON("DA", "id", "M", "dst_agent_id") " "
     "INNER JOIN rocpd_info_agent SA" ON("SA", "id", "M", "src_agent_id") " "
     "LEFT JOIN rocpd_info_stream ST" ON("ST", "id", "M", "stream_id") " "
     "LEFT JOIN rocpd_info_queue Q" ON("Q", "id", "M", "queue_id") " "
     "INNER JOIN rocpd_event E" ON("E", "id", "M", "event_id") " "
     "LEFT JOIN rocpd_string C" ON("C", "id", "E", "category_id") " "
     "INNER JOIN rocpd_info_process P" ON("P", "id", "M", "pid") " "
     "INNER JOIN rocpd_info_thread T" ON("T", "id", "M", "tid")},
    {"memory_allocations",
     "SELECT M.id, M.guid, C.string AS category, M.nid, P.pid, T.tid, M.start, M.\"end\", "
     "(M.\"end\" - M.start) AS duration, M.type, M.level, A.name AS agent_name, "
     AGENT_COLS("A", "") ", M.address, M.size, M.queue_id, Q.name AS queue_name, "
     "M.stream_id, ST.name AS stream_name, " EVENT_TAIL " "
     "FROM rocpd_memory_allocate M "
     "LEFT JOIN rocpd_info_agent A" ON("A", "id", "M", "agent_id") " "
     "LEFT JOIN rocpd_info_queue Q" ON("Q", "id", "M", "queue_id") " "
     "LEFT JOIN rocpd_info_stream ST" ON("ST", "id", "M", "stream_id") " "
     "INNER JOIN rocpd_event E" ON("E", "id", "M", "event_id") " "
     "LEFT JOIN rocpd_string C" ON("C", "id", "E", "category_id") " "
     "INNER JOIN rocpd_info_process P" ON("P", "id", "M", "pid") " "
     "INNER JOIN rocpd_info_thread T" ON("T", "id", "M", "tid")},
    {"scratch_memory",
     "SELECT M.id, M.guid, M.nid, P.pid, M.type AS operation, A.name AS agent_name, "
     AGENT_COLS("A", "") ", M.queue_id, T.tid, "
     "JSON_EXTRACT(M.extdata, '$.flags') AS alloc_flags, M.start, M.\"end\", "
     "(M.\"end\" - M.start) AS duration, M.size, M.address, E.correlation_id, " EVENT_TAIL ", "
     "C.string AS category, E.extdata AS event_extdata "
     "FROM rocpd_memory_allocate M "
     "LEFT JOIN rocpd_info_agent A" ON("A", "id", "M", "agent_id") " "
     "INNER JOIN rocpd_event E" ON("E", "id", "M", "event_id") " "
     "LEFT JOIN rocpd_string C" ON("C", "id", "E", "category_id") " "
     "INNER JOIN rocpd_info_process P" ON("P", "id", "M", "pid") " "
     "INNER JOIN rocpd_info_thread T" ON("T", "id", "M", "tid") " "
     "WHERE M.level = 'SCRATCH'"},
    {"counters_collection",
     "SELECT MIN(PE.id) AS id, PE.guid, K.dispatch_id, K.kernel_id, E.id AS event_id, "
     "E.correlation_id, E.stack_id, E.parent_stack_id, P.pid, K.tid, K.agent_id, "
     AGENT_COLS("A", "") ", K.queue_id, K.grid_size_x, K.grid_size_y, K.grid_size_z, "
     "(K.grid_size_x * K.grid_size_y * K.grid_size_z) AS grid_size, "
     "KS.display_name AS kernel_name, RN.string AS kernel_region, K.workgroup_size_x, "
     "K.workgroup_size_y, K.workgroup_size_z, "
     "(K.workgroup_size_x * K.workgroup_size_y * K.workgroup_size_z) AS workgroup_size, "
     "K.group_segment_size AS lds_block_size, K.private_segment_size AS scratch_size, "
     "KS.arch_vgpr_count AS vgpr_count, KS.accum_vgpr_count AS accum_vgpr_count, "
     "KS.sgpr_count AS sgpr_count, PI.name AS counter_name, PI.symbol AS counter_symbol, "
     "PI.component, PI.description, PI.block, PI.expression, PI.value_type, PI.id AS counter_id, "
     "SUM(PE.value) AS value, K.start, K.\"end\", PI.is_constant, PI.is_derived, "
     "(K.\"end\" - K.start) AS duration, C.string AS category, K.nid, E.extdata, "
     "KS.code_object_id "
     "FROM rocpd_pmc_event PE "
     "INNER JOIN rocpd_info_pmc PI" ON("PI", "id", "PE", "pmc_id") " "
     "INNER JOIN rocpd_kernel_dispatch K" ON("K", "event_id", "PE", "event_id") " "
     "INNER JOIN rocpd_event E" ON("E", "id", "PE", "event_id") " "
     "INNER JOIN rocpd_info_agent A" ON("A", "id", "K", "agent_id") " "
     "INNER JOIN rocpd_info_kernel_symbol KS" ON("KS", "id", "K", "kernel_id") " "
     "INNER JOIN rocpd_info_process P" ON("P", "id", "K", "pid") " "
     "LEFT JOIN rocpd_string RN" ON("RN", "id", "K", "region_name_id") " "
     "LEFT JOIN rocpd_string C" ON("C", "id", "E", "category_id") " "
     "GROUP BY PE.guid, K.dispatch_id, PI.name, K.agent_id"},
    /* Summary views: durations in microseconds, shares in percent. */
    {"top_kernels",
     "SELECT name, COUNT(*) AS total_calls, SUM(duration) / 1000.0 AS total_duration, "
     "AVG(duration) / 1000.0 AS average, "
     "100.0 * SUM(duration) / (SELECT SUM(duration) FROM kernels) AS percentage "
     "FROM kernels GROUP BY name ORDER BY total_duration DESC"},
    /* Per agent: summed kernel time over the span of all GPU work in the DB. */
    {"busy",
     "SELECT A.id AS agent_id, A.type, SUM(K.\"end\" - K.start) AS GpuTime, W.WallTime, "
     "1.0 * SUM(K.\"end\" - K.start) / W.WallTime AS Busy "
     "FROM rocpd_kernel_dispatch K "
     "INNER JOIN rocpd_info_agent A" ON("A", "id", "K", "agent_id") " "
     "CROSS JOIN (SELECT MAX(e) - MIN(s) AS WallTime FROM ("
     "SELECT start AS s, \"end\" AS e FROM rocpd_kernel_dispatch UNION ALL "
     "SELECT start, \"end\" FROM rocpd_memory_copy)) W "
     "GROUP BY A.guid, A.id"},
    {"top",
     "SELECT name, COUNT(*) AS total_calls, SUM(duration) / 1000.0 AS total_duration, "
     "AVG(duration) / 1000.0 AS average, "
     "100.0 * SUM(duration) / (SELECT SUM(duration) FROM (SELECT duration FROM kernels "
     "UNION ALL SELECT duration FROM memory_copies UNION ALL SELECT duration FROM regions)) "
     "AS percentage "
     "FROM (SELECT name, duration FROM kernels UNION ALL SELECT name, duration FROM "
     "memory_copies UNION ALL SELECT name, duration FROM regions) "
     "GROUP BY name ORDER BY total_duration DESC"},
};
// clang-format on
const size_t rpl_rocpd_nviews = sizeof(rpl_rocpd_views) / sizeof(rpl_rocpd_views[0]);

bool rpl_rocpd_guid_valid(const char *guid)
{
    size_t n = 0;

    if (!guid)
        return false;
    for (const char *p = guid; *p; p++, n++) {
        char c = *p;
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              c == '-'))
            return false;
    }
    return n > 0 && n <= RPL_ROCPD_GUID_MAX;
}

void rpl_rocpd_uuid_suffix(char *out, const char *guid)
{
    *out++ = '_';
    for (; *guid; guid++)
        *out++ = *guid == '-' ? '_' : *guid;
    *out = '\0';
}

static int put_table(rpl_strbuf *sb, const rpl_rocpd_table *t, const char *suffix, const char *guid)
{
    int rc = rpl_strbuf_printf(sb, "CREATE TABLE IF NOT EXISTS %s%s (", t->name, suffix);

    for (size_t i = 0; i < t->ncolumns && !rc; i++) {
        const rpl_rocpd_column *c = &t->columns[i];
        rc = rpl_strbuf_printf(sb, "%s\"%s\" %s%s", i ? ", " : "", c->name, c->type,
                               c->not_null ? " NOT NULL" : "");
        if (!rc && c->extra)
            rc = rpl_strbuf_printf(sb, " %s", c->extra);
        if (!rc && strcmp(c->name, "guid") == 0)
            rc = rpl_strbuf_printf(sb, " DEFAULT '%s'", guid);
    }
    for (size_t i = 0; i < t->ncolumns && !rc; i++) {
        const rpl_rocpd_column *c = &t->columns[i];
        if (c->references)
            rc = rpl_strbuf_printf(sb,
                                   ", FOREIGN KEY (\"%s\") REFERENCES %s%s (id) "
                                   "ON UPDATE CASCADE",
                                   c->name, c->references, suffix);
    }
    if (!rc)
        rc = rpl_strbuf_printf(sb, ");\nCREATE VIEW IF NOT EXISTS %s AS SELECT * FROM %s%s;\n",
                               t->name, t->name, suffix);
    return rc;
}

int rpl_rocpd_schema_sql(char **out, const char *guid)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char suffix[RPL_ROCPD_GUID_MAX + 2];
    int rc = 0;

    *out = NULL;
    if (!rpl_rocpd_guid_valid(guid))
        return rpl_error_set(RPL_EUSAGE, "invalid rocpd guid '%.80s'", guid ? guid : "(null)");
    rpl_rocpd_uuid_suffix(suffix, guid);
    for (size_t i = 0; i < rpl_rocpd_ntables && !rc; i++)
        rc = put_table(&sb, &rpl_rocpd_tables[i], suffix, guid);
    for (size_t i = 0; i < rpl_rocpd_nviews && !rc; i++)
        rc = rpl_strbuf_printf(&sb, "CREATE VIEW IF NOT EXISTS %s AS %s;\n",
                               rpl_rocpd_views[i].name, rpl_rocpd_views[i].sql);
    if (!rc)
        rc = rpl_strbuf_printf(&sb,
                               "INSERT INTO rocpd_metadata%s (tag, value) VALUES "
                               "('schema_version', '%s'), ('uuid', '%s'), ('guid', '%s');\n",
                               suffix, RPL_ROCPD_SCHEMA_VERSION, suffix, guid);
    if (rc) {
        rpl_strbuf_release(&sb);
        return rpl_error_oom();
    }
    *out = rpl_strbuf_detach(&sb);
    return 0;
}

int rpl_rocpd_schema_create(sqlite3 *db, const char *guid)
{
    char *sql, *msg = NULL;
    int rc = rpl_rocpd_schema_sql(&sql, guid);

    if (rc)
        return rc;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        rc = rpl_error_set(RPL_EIO, "cannot create the rocpd schema: %s",
                           msg ? msg : sqlite3_errmsg(db));
        sqlite3_free(msg);
    }
    free(sql);
    return rc;
}
