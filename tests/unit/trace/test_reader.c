/*
 * rocpd reader: model -> rpl_rocpd_write -> rpl_rocpd_read round trips, the
 * three ways of finding the tables, merging databases and counter passes,
 * the checks on damaged databases, and rollback on failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "mutate_db.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/rocpd.h"

#define TMP  RPL_TEST_TMP "/reader"
#define GOOD TMP "/good.db"

/* ---- a small model ------------------------------------------------------- */

enum { NDISPATCH = 6 };

static const char *const gpu_extdata =
    "{\"cu_count\": 304, \"simd_per_cu\": 4, \"wave_front_size\": 64, "
    "\"max_waves_per_cu\": 32, \"gfx_target_version\": 90402, "
    "\"max_engine_clk_fcompute\": 2100, \"name\": \"gfx942\"}";

static void add_counters(rpl_trace *t, uint32_t dispatch, double waves, double cycles)
{
    uint32_t sq, grbm;
    rpl_counter_value v[3];

    assert_int_equal(rpl_trace_counter_index(t, "SQ_WAVES", &sq), 0);
    assert_int_equal(rpl_trace_counter_index(t, "GRBM_COUNT", &grbm), 0);
    /* Two instances of SQ_WAVES: the model sums them. */
    v[0] = (rpl_counter_value){sq, waves / 2};
    v[1] = (rpl_counter_value){grbm, cycles};
    v[2] = (rpl_counter_value){sq, waves / 2};
    assert_int_equal(rpl_trace_set_dispatch_counters(t, dispatch, v, 3), 0);
}

/* Kernels alternate gemm, reduce; counters on every dispatch when asked. */
static rpl_trace *build_model(bool counters, int extra_gemm)
{
    rpl_trace *t;
    rpl_process p = {.pid = 4242,
                     .ppid = 1,
                     .start = 100,
                     .end = 90000000,
                     .command = "./app -n 3",
                     .hostname = "node01"};
    rpl_agent cpu = {.type = RPL_AGENT_CPU, .name = "EPYC", .product_name = "AMD EPYC 9654"};
    rpl_agent gpu = {.type = RPL_AGENT_GPU,
                     .absolute_index = 2,
                     .logical_index = 2,
                     .type_index = 0,
                     .name = "gfx942",
                     .model_name = "aqua_vanjaram",
                     .vendor_name = "AMD",
                     .product_name = "AMD Instinct MI300X"};
    rpl_kernel_symbol gemm = {.name = "_Z4gemmPfi",
                              .display_name = "gemm(float*, int)",
                              .code_object_id = 1,
                              .kernarg_segment_size = 16,
                              .group_segment_size = 32768,
                              .sgpr_count = 48,
                              .arch_vgpr_count = 128,
                              .accum_vgpr_count = 64};
    rpl_kernel_symbol reduce = {.name = "_Z6reducePf", .code_object_id = 1, .arch_vgpr_count = 32};
    rpl_queue q = {.id = 1, .pid = 4242, .name = "Queue 1"};
    rpl_queue s = {.id = 1, .pid = 4242, .name = "Stream 1"};
    rpl_arg args[2] = {{.name = "stream", .type = "hipStream_t", .value = "0x5555a0"},
                       {.name = "sizeBytes", .type = "size_t", .value = "1048576"}};

    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_trace_add_process(t, &p, NULL), 0);
    assert_int_equal(rpl_trace_add_agent(t, &cpu, NULL), 0);
    gpu.extdata = cJSON_Parse(gpu_extdata);
    assert_non_null(gpu.extdata);
    rpl_agent_refresh_facts(&gpu);
    assert_int_equal(rpl_trace_add_agent(t, &gpu, NULL), 0);
    assert_int_equal(rpl_trace_add_symbol(t, &gemm, NULL), 0);
    assert_int_equal(rpl_trace_add_symbol(t, &reduce, NULL), 0);
    assert_int_equal(rpl_trace_add_queue(t, &q, NULL), 0);
    assert_int_equal(rpl_trace_add_stream(t, &s, NULL), 0);
    for (int i = 0; i < NDISPATCH + extra_gemm; i++) {
        int64_t start = 1000000 + 100000 * i;
        rpl_dispatch d = {.dispatch_id = i + 1,
                          .kernel = i >= NDISPATCH ? 0 : (uint32_t)(i % 2),
                          .agent = 1,
                          .queue = 0,
                          .stream = 0,
                          .thread = rpl_trace_thread(t, 4242, 4243),
                          .start = start,
                          .end = start + 20000 + 1000 * i,
                          .grid = {4096u * (uint32_t)(i + 1), 2, 1},
                          .workgroup = {256, 1, 1},
                          .group_segment_size = 1024,
                          .private_segment_size = 16,
                          .correlation_id = 10 + i};
        uint32_t index;
        assert_int_equal(rpl_trace_add_dispatch(t, &d, &index), 0);
        if (counters)
            add_counters(t, index, 64.0 * (i + 1), 1000.0 + i);
    }
    {
        rpl_memcpy m = {.name = "MEMORY_COPY_HOST_TO_DEVICE",
                        .kind = RPL_COPY_HOST_TO_DEVICE,
                        .thread = rpl_trace_thread(t, 4242, 4243),
                        .start = 500000,
                        .end = 600000,
                        .size = 1048576,
                        .src_agent = 0,
                        .dst_agent = 1,
                        .queue = RPL_NONE,
                        .stream = 0,
                        .correlation_id = 5};
        assert_int_equal(rpl_trace_add_memcpy(t, &m, NULL), 0);
    }
    {
        rpl_region r = {.name = "hipMemcpyAsync",
                        .category = "HIP_RUNTIME_API_EXT",
                        .thread = rpl_trace_thread(t, 4242, 4243),
                        .start = 490000,
                        .end = 495000,
                        .correlation_id = 5,
                        .parent_correlation_id = 0};
        assert_int_equal(rpl_trace_add_region(t, &r, args, 2, NULL), 0);
        r.name = "hipLaunchKernel";
        r.start = 990000;
        r.end = 991000;
        r.correlation_id = 10;
        assert_int_equal(rpl_trace_add_region(t, &r, NULL, 0, NULL), 0);
    }
    return t;
}

static void write_model(const char *path, bool counters, int extra_gemm)
{
    rpl_trace *t = build_model(counters, extra_gemm);

    assert_int_equal(rpl_rocpd_write(t, path, NULL), 0);
    rpl_trace_free(t);
}

/* ---- database helpers ------------------------------------------------------ */

static void copy_file(const char *from, const char *to)
{
    char *data;
    size_t len;

    assert_int_equal(rpl_file_read_all(from, 1u << 30, &data, &len), 0);
    assert_int_equal(rpl_file_write_atomic(to, data, len), 0);
    free(data);
}

static rpl_trace *read_ok(const char *path)
{
    rpl_trace *t;

    assert_int_equal(rpl_trace_new(&t), 0);
    if (rpl_rocpd_read(t, path) != 0)
        fail_msg("reading %s: %s", path, rpl_error_last()->message);
    return t;
}

/* Read must fail with RPL_EINPUT and one line starting with the quoted path. */
static void read_fails(const char *path, const char *needle)
{
    rpl_trace *t;
    char prefix[512];
    const char *msg;

    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_rocpd_read(t, path), RPL_EINPUT);
    msg = rpl_error_last()->message;
    snprintf(prefix, sizeof(prefix), "'%s'", path);
    if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, needle) || strchr(msg, '\n'))
        fail_msg("message '%s' lacks '%s' or the path", msg, needle);
    assert_int_equal(t->dispatches.count, 0);
    assert_int_equal(t->sources.count, 0);
    rpl_trace_free(t);
}

static double counter(const rpl_trace *t, const rpl_dispatch *d, const char *name)
{
    double v = -1;

    for (uint32_t c = 0; c < t->counter_names.count; c++)
        if (strcmp(t->counter_names.items[c], name) == 0 && rpl_dispatch_counter(t, d, c, &v))
            return v;
    return -1;
}

static int setup(void **state)
{
    (void)state;
    if (rpl_mkdir_p(TMP) != 0)
        return -1;
    write_model(GOOD, true, 0);
    return 0;
}

/* ---- round trip ------------------------------------------------------------------ */

static void test_round_trip(void **state)
{
    rpl_trace *model = build_model(true, 0), *t = read_ok(GOOD);
    const rpl_agent *gpu = NULL;

    (void)state;
    assert_int_equal(t->sources.count, 1);
    assert_string_equal(t->sources.items[0].path, GOOD);
    assert_string_equal(t->sources.items[0].schema_version, "3");
    assert_string_equal(t->sources.items[0].uuid, db_uuid(GOOD));
    assert_int_equal(t->dispatches.count, model->dispatches.count);
    assert_int_equal(t->symbols.count, 2);
    assert_int_equal(t->agents.count, 2);
    assert_int_equal(t->memcpys.count, 1);
    assert_int_equal(t->regions.count, 2);
    assert_int_equal(t->processes.count, 1);
    assert_int_equal(t->processes.items[0].pid, 4242);
    assert_string_equal(t->processes.items[0].command, "./app -n 3");
    assert_string_equal(t->processes.items[0].hostname, "node01");

    for (uint32_t i = 0; i < t->agents.count; i++)
        if (t->agents.items[i].type == RPL_AGENT_GPU)
            gpu = &t->agents.items[i];
    assert_non_null(gpu);
    assert_string_equal(gpu->name, "gfx942");
    assert_string_equal(gpu->product_name, "AMD Instinct MI300X");
    assert_int_equal(gpu->absolute_index, 2);
    assert_int_equal(gpu->cu_count, 304);
    assert_int_equal(gpu->simd_per_cu, 4);
    assert_int_equal(gpu->wave_front_size, 64);
    assert_int_equal(gpu->max_waves_per_cu, 32);
    assert_int_equal(gpu->gfx_target_version, 90402);
    assert_true(gpu->max_engine_clk_mhz == 2100.0);
    assert_non_null(cJSON_GetObjectItem(gpu->extdata, "name"));

    for (uint32_t i = 0; i < model->dispatches.count; i++) {
        const rpl_dispatch *m = &model->dispatches.items[i], *d = &t->dispatches.items[i];
        const rpl_kernel_symbol *mk = &model->symbols.items[m->kernel],
                                *k = &t->symbols.items[d->kernel];
        assert_string_equal(k->name, mk->name);
        assert_string_equal(k->display_name, mk->display_name);
        assert_int_equal(k->arch_vgpr_count, mk->arch_vgpr_count);
        assert_int_equal(k->accum_vgpr_count, mk->accum_vgpr_count);
        assert_int_equal(k->group_segment_size, mk->group_segment_size);
        assert_int_equal(d->start, m->start);
        assert_int_equal(d->end, m->end);
        assert_int_equal(d->dispatch_id, m->dispatch_id);
        assert_int_equal(rpl_trace_pid(t, d->thread), rpl_trace_pid(model, m->thread));
        assert_int_equal(rpl_trace_tid(t, d->thread), rpl_trace_tid(model, m->thread));
        assert_int_equal(d->correlation_id, m->correlation_id);
        assert_memory_equal(d->grid, m->grid, sizeof(d->grid));
        assert_memory_equal(d->workgroup, m->workgroup, sizeof(d->workgroup));
        assert_int_equal(d->group_segment_size, 1024);
        assert_int_equal(d->private_segment_size, 16);
        assert_string_equal(t->agents.items[d->agent].name, "gfx942");
        assert_string_equal(t->queues.items[d->queue].name, "Queue 1");
        assert_string_equal(t->streams.items[d->stream].name, "Stream 1");
        /* Summed over the two SQ_WAVES instances of the model. */
        assert_true(counter(t, d, "SQ_WAVES") == 64.0 * (i + 1));
        assert_true(counter(t, d, "GRBM_COUNT") == 1000.0 + i);
    }
    {
        const rpl_memcpy *m = &t->memcpys.items[0];
        assert_string_equal(m->name, "MEMORY_COPY_HOST_TO_DEVICE");
        assert_int_equal(m->kind, RPL_COPY_HOST_TO_DEVICE);
        assert_int_equal(m->size, 1048576);
        assert_int_equal(m->start, 500000);
        assert_int_equal(m->end, 600000);
        assert_int_equal(m->correlation_id, 5);
        assert_int_equal(t->agents.items[m->src_agent].type, RPL_AGENT_CPU);
        assert_int_equal(t->agents.items[m->dst_agent].type, RPL_AGENT_GPU);
        assert_string_equal(t->streams.items[m->stream].name, "Stream 1");
    }
    {
        const rpl_region *r = &t->regions.items[0];
        assert_string_equal(r->name, "hipMemcpyAsync");
        assert_string_equal(r->category, "HIP_RUNTIME_API_EXT");
        assert_int_equal(r->start, 490000);
        assert_int_equal(r->end, 495000);
        assert_int_equal(r->correlation_id, 5);
        assert_int_equal(r->args_count, 2);
        assert_string_equal(t->args.items[r->args_first].name, "stream");
        assert_string_equal(t->args.items[r->args_first].type, "hipStream_t");
        assert_string_equal(t->args.items[r->args_first].value, "0x5555a0");
        assert_string_equal(t->args.items[r->args_first + 1].name, "sizeBytes");
        assert_string_equal(t->args.items[r->args_first + 1].value, "1048576");
        assert_int_equal(t->regions.items[1].args_count, 0);
        assert_int_equal(t->regions.items[1].correlation_id, 10);
    }
    rpl_trace_free(model);
    rpl_trace_free(t);
}

/* One pmc_event row per hardware instance: the reader sums them per (dispatch, counter). */
static void test_counter_instances_summed(void **state)
{
    const char *path = TMP "/instances.db";
    rpl_trace *t;

    (void)state;
    /* Double every SQ_WAVES row of dispatch 1, and add an SPM sample row (3.0.3) to ignore. */
    mutate_db(GOOD, path,
              "INSERT INTO rocpd_pmc_event{{uuid}} (event_id, pmc_id, value) "
              "SELECT event_id, pmc_id, value FROM rocpd_pmc_event{{uuid}} E "
              "WHERE pmc_id = (SELECT id FROM rocpd_info_pmc{{uuid}} WHERE name = 'SQ_WAVES') "
              "AND event_id = (SELECT event_id FROM rocpd_kernel_dispatch{{uuid}} WHERE id = 1);"
              "ALTER TABLE rocpd_pmc_event{{uuid}} ADD COLUMN sample_id INTEGER;"
              "INSERT INTO rocpd_pmc_event{{uuid}} (event_id, pmc_id, value, sample_id) "
              "SELECT event_id, pmc_id, 1e6, 1 FROM rocpd_pmc_event{{uuid}} LIMIT 1;"
              "ALTER TABLE rocpd_kernel_dispatch{{uuid}} ADD COLUMN graph_exec_id INTEGER "
              "NOT NULL DEFAULT 0;");
    t = read_ok(path);
    assert_true(counter(t, &t->dispatches.items[0], "SQ_WAVES") == 128.0);
    assert_true(counter(t, &t->dispatches.items[1], "SQ_WAVES") == 128.0);
    assert_true(counter(t, &t->dispatches.items[0], "GRBM_COUNT") == 1000.0);
    rpl_trace_free(t);
}

/* ---- finding the tables ---------------------------------------------------------- */

static void check_found(const char *path, const char *uuid)
{
    rpl_trace *t = read_ok(path);

    assert_int_equal(t->dispatches.count, NDISPATCH);
    assert_int_equal(t->regions.count, 2);
    assert_string_equal(t->sources.items[0].uuid, uuid);
    assert_true(counter(t, &t->dispatches.items[2], "SQ_WAVES") == 192.0);
    rpl_trace_free(t);
}

static void test_find_unsuffixed_views(void **state)
{
    const char *path = TMP "/views_only.db";

    (void)state;
    /* No metadata: the unsuffixed rocpd_X views lead to the data. */
    mutate_db(GOOD, path, "DROP VIEW rocpd_metadata; DROP TABLE rocpd_metadata{{uuid}};");
    check_found(path, "");
}

static void test_find_by_discovery(void **state)
{
    char path[] = TMP "/discovery.db", drop[8192] = "";
    const char *uuid = db_uuid(GOOD);
    sqlite3 *db;
    sqlite3_stmt *st;

    (void)state;
    /* Neither metadata nor any view: the one rocpd_kernel_dispatch_* table names the suffix. */
    copy_file(GOOD, path);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(
        sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'view'", -1, &st, NULL),
        SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW)
        snprintf(drop + strlen(drop), sizeof(drop) - strlen(drop), "DROP VIEW \"%s\";",
                 (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    assert_true(strlen(drop) > 0);
    assert_int_equal(sqlite3_exec(db, drop, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    check_found(path, uuid);
}

static void test_find_plain_tables(void **state)
{
    const char *path = TMP "/plain.db";
    char sql[4096];
    const char *bases[] = {
        "string",      "info_node",   "info_process", "info_thread",      "info_agent",
        "info_queue",  "info_stream", "info_pmc",     "info_code_object", "info_kernel_symbol",
        "event",       "arg",         "pmc_event",    "region",           "kernel_dispatch",
        "memory_copy", "metadata"};
    size_t n;

    (void)state;
    /* Unsuffixed tables (no uuid at all) and a metadata uuid that names no table. */
    n = (size_t)snprintf(sql, sizeof(sql), "PRAGMA legacy_alter_table = ON;");
    for (size_t i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
        n +=
            (size_t)snprintf(sql + n, sizeof(sql) - n,
                             "DROP VIEW rocpd_%s; ALTER TABLE rocpd_%s{{uuid}} RENAME TO rocpd_%s;",
                             bases[i], bases[i], bases[i]);
    mutate_db(GOOD, path, sql);
    check_found(path, "");
}

static void test_schema_versions(void **state)
{
    const char *path = TMP "/version.db";
    rpl_trace *t;

    (void)state;
    mutate_db(GOOD, path,
              "UPDATE rocpd_metadata{{uuid}} SET value = '3.0.2' WHERE tag = 'schema_version'");
    t = read_ok(path);
    assert_string_equal(t->sources.items[0].schema_version, "3.0.2");
    rpl_trace_free(t);
    mutate_db(GOOD, path,
              "UPDATE rocpd_metadata{{uuid}} SET value = '4' WHERE tag = 'schema_version'");
    read_fails(path, "schema_version '4'");
    mutate_db(GOOD, path,
              "UPDATE rocpd_metadata{{uuid}} SET value = '3.1' WHERE tag = 'schema_version'");
    read_fails(path, "schema_version '3.1'");
    mutate_db(
        GOOD, path,
        "INSERT INTO rocpd_metadata{{uuid}} (tag, value) VALUES ('compression', 'lz4-frame-v1')");
    read_fails(path, "compression 'lz4-frame-v1'");
    /* Without views, the suffixed metadata table is found and still checked. */
    mutate_db(GOOD, path,
              "UPDATE rocpd_metadata{{uuid}} SET value = '4' WHERE tag = 'schema_version';"
              "DROP VIEW rocpd_metadata; DROP VIEW rocpd_kernel_dispatch;");
    read_fails(path, "schema_version '4'");
    /* Two candidate dispatch tables and nothing to choose between them. */
    mutate_db(
        GOOD, path,
        "DROP VIEW rocpd_metadata; DROP VIEW rocpd_kernel_dispatch;"
        "CREATE TABLE rocpd_kernel_dispatch_copy AS SELECT * FROM rocpd_kernel_dispatch{{uuid}}");
    read_fails(path, "several rocpd_kernel_dispatch");
}

/* ---- damaged databases: one clear line each ---------------------------------------- */

typedef struct bad_case {
    const char *sql;
    const char *needle;
} bad_case;

/* Drop NOT NULL from a column so a mutation can store NULL there. */
#define NULLABLE(table, col)                                                                       \
    "PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, '\"" col             \
    "\" INTEGER NOT NULL', '\"" col "\" INTEGER') WHERE name = '" table "{{uuid}}';"               \
    "UPDATE sqlite_master SET sql = replace(sql, '" col " INTEGER NOT NULL', '" col                \
    " INTEGER') WHERE name = '" table "{{uuid}}'; PRAGMA writable_schema = RESET;"

static const bad_case bad_cases[] = {
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET start = 'abc' WHERE id = 2",
     "row 2: start is text, expected an integer"},
    {NULLABLE("rocpd_kernel_dispatch", "kernel_id") "UPDATE rocpd_kernel_dispatch{{uuid}} SET "
                                                    "kernel_id = NULL WHERE id = 3",
     "row 3: kernel_id is NULL"},
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET \"end\" = start - 5 WHERE id = 4", "row 4: end"},
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET kernel_id = 999 WHERE id = 1",
     "row 1: kernel_id 999 does not exist in rocpd_info_kernel_symbol"},
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET agent_id = 77 WHERE id = 1",
     "row 1: agent_id 77 does not exist in rocpd_info_agent"},
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET queue_id = 4040 WHERE id = 1",
     "queue_id 4040 does not exist"},
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET pid = 1 WHERE id = 1",
     "pid 1 does not exist in rocpd_info_process"},
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET event_id = 123456 WHERE id = 1",
     "event_id 123456 does not exist in rocpd_event"},
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET grid_size_x = 5000000000 WHERE id = 1",
     "grid_size_x 5000000000 is out of range"},
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET workgroup_size_y = 0 WHERE id = 1",
     "workgroup_size_y 0 is out of range"},
    /* 16-bit, as in the AQL packet (and the trace model). */
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET workgroup_size_x = 65536 WHERE id = 1",
     "workgroup_size_x 65536 is out of range"},
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET start = -7, \"end\" = 5 WHERE id = 1",
     "start -7 is negative"},
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET start = 2.5 WHERE id = 1", "start is a real"},
    {"UPDATE rocpd_memory_copy{{uuid}} SET size = -1", "size -1 is negative"},
    {"UPDATE rocpd_memory_copy{{uuid}} SET name_id = 9999", "name_id 9999 does not exist"},
    {"UPDATE rocpd_region{{uuid}} SET tid = 1 WHERE id = 1", "tid 1 does not exist"},
    {"UPDATE rocpd_arg{{uuid}} SET event_id = 99999", "event_id 99999 does not exist"},
    {"UPDATE rocpd_pmc_event{{uuid}} SET pmc_id = 77 WHERE id = 1",
     "pmc_id 77 does not exist in rocpd_info_pmc"},
    {"UPDATE rocpd_pmc_event{{uuid}} SET value = 'x' WHERE id = 1",
     "value is text, expected a number"},
    {"UPDATE rocpd_pmc_event{{uuid}} SET event_id = (SELECT id FROM rocpd_event{{uuid}} "
     "WHERE id NOT IN (SELECT event_id FROM rocpd_kernel_dispatch{{uuid}}) LIMIT 1) WHERE id = 1",
     "is not the event of a kernel dispatch"},
    {"UPDATE rocpd_info_kernel_symbol{{uuid}} SET kernel_name = "
     "replace(hex(zeroblob(5000000)), '0', 'a') WHERE id = 1",
     "kernel_name is 10000000 bytes long"},
    {"UPDATE rocpd_info_kernel_symbol{{uuid}} SET kernel_name = NULL, display_name = NULL",
     "neither a kernel_name nor a display_name"},
    {"PRAGMA ignore_check_constraints = ON; UPDATE rocpd_info_agent{{uuid}} SET type = 'FPGA'",
     "type 'FPGA' is not CPU, GPU or NIC"},
    {"UPDATE rocpd_string{{uuid}} SET string = x'0102' WHERE id = 1", "string is a blob"},
    {"ALTER TABLE rocpd_info_kernel_symbol{{uuid}} RENAME TO ks; CREATE VIEW "
     "rocpd_info_kernel_symbol{{uuid}} AS SELECT * FROM ks UNION ALL SELECT * FROM ks",
     "appears twice"},
    /* Records join their event by id: an event id twice would make a record twice. */
    {"ALTER TABLE rocpd_event{{uuid}} RENAME TO ev; CREATE VIEW rocpd_event{{uuid}} AS "
     "SELECT * FROM ev UNION ALL SELECT * FROM ev WHERE id = 1",
     "row 1: id 1 appears twice"},
    {"DROP VIEW rocpd_kernel_dispatch; DROP TABLE rocpd_kernel_dispatch{{uuid}}",
     "no rocpd_kernel_dispatch table"},
    {"DROP VIEW rocpd_string; DROP TABLE rocpd_string{{uuid}}", "rocpd_string"},
    {"PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = replace(sql, 'grid_size_z', "
     "'gz') WHERE name = 'rocpd_kernel_dispatch{{uuid}}'; PRAGMA writable_schema = RESET;",
     "has no column 'grid_size_z'"},
    /* A view that never ends: the step budget stops it. */
    {"PRAGMA legacy_alter_table = ON; DROP VIEW rocpd_metadata; DROP VIEW rocpd_kernel_dispatch;"
     "ALTER TABLE rocpd_kernel_dispatch{{uuid}} RENAME TO kd;"
     "CREATE VIEW rocpd_kernel_dispatch{{uuid}} AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
     "SELECT i + 1 FROM n) SELECT kd.* FROM n, kd",
     "query steps"},
};

static void test_bad_databases(void **state)
{
    char path[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        snprintf(path, sizeof(path), TMP "/bad_%zu.db", i);
        mutate_db(GOOD, path, bad_cases[i].sql);
        read_fails(path, bad_cases[i].needle);
    }
}

static void test_bad_files(void **state)
{
    const char *trunc = TMP "/truncated.db", *text = TMP "/text.db", *empty = TMP "/empty.db";
    const char *nodb = TMP "/nodb.db";
    char *data;
    size_t len;
    rpl_trace *t;
    sqlite3 *db;

    (void)state;
    assert_int_equal(rpl_file_read_all(GOOD, 1u << 30, &data, &len), 0);
    assert_int_equal(rpl_file_write_atomic(trunc, data, len / 2), 0);
    free(data);
    read_fails(trunc, "");
    assert_int_equal(rpl_file_write_atomic(text, "hello, this is not SQLite\n", 26), 0);
    read_fails(text, "file is not a database");
    assert_int_equal(rpl_file_write_atomic(empty, "", 0), 0);
    read_fails(empty, "no rocpd_kernel_dispatch table");
    unlink(nodb);
    assert_int_equal(sqlite3_open(nodb, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 1", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    read_fails(nodb, "no rocpd_kernel_dispatch table");

    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_rocpd_read(t, TMP "/missing.db"), RPL_ENOTFOUND);
    assert_string_equal(rpl_error_last()->message,
                        "cannot open '" TMP "/missing.db': no such file");
    assert_int_equal(access(TMP "/missing.db", F_OK), -1); /* read-only: nothing created */
    assert_int_equal(rpl_rocpd_read(t, TMP), RPL_EINPUT);
    rpl_trace_free(t);
}

/* Malformed agent extdata loses its facts with a warning; the read goes on. */
static void test_bad_extdata_warns(void **state)
{
    const char *path = TMP "/extdata.db";
    rpl_trace *t;

    (void)state;
    mutate_db(GOOD, path, "UPDATE rocpd_info_agent{{uuid}} SET extdata = '{\"cu_count\": 30'");
    t = read_ok(path);
    for (uint32_t i = 0; i < t->agents.count; i++) {
        assert_null(t->agents.items[i].extdata);
        assert_int_equal(t->agents.items[i].cu_count, 0);
    }
    assert_int_equal(t->dispatches.count, NDISPATCH);
    rpl_trace_free(t);
}

/* ---- merging ----------------------------------------------------------------------- */

static void test_merge_databases(void **state)
{
    const char *second = TMP "/second.db";
    rpl_trace *t;

    (void)state;
    write_model(second, false, 2);
    t = read_ok(GOOD);
    assert_int_equal(rpl_rocpd_read(t, second), 0);
    assert_int_equal(t->sources.count, 2);
    assert_string_equal(t->sources.items[1].path, second);
    assert_int_equal(t->dispatches.count, 2 * NDISPATCH + 2);
    assert_int_equal(t->symbols.count, 4);
    assert_int_equal(t->agents.count, 4);
    assert_int_equal(t->regions.count, 4);
    for (uint32_t i = NDISPATCH; i < t->dispatches.count; i++) {
        const rpl_dispatch *d = &t->dispatches.items[i];
        assert_int_equal(d->source, 1);
        assert_int_equal(t->symbols.items[d->kernel].source, 1);
        assert_int_equal(t->agents.items[d->agent].source, 1);
        assert_int_equal(t->queues.items[d->queue].source, 1);
        assert_int_equal(d->counters_count, 0);
    }
    assert_int_equal(t->dispatches.items[0].counters_count, 2);
    /* Regions keep their own arguments. */
    assert_int_equal(t->regions.items[2].args_count, 2);
    assert_string_equal(t->args.items[t->regions.items[2].args_first].name, "stream");
    rpl_trace_free(t);
}

/* ---- rollback ------------------------------------------------------------------------ */

static void test_rollback(void **state)
{
    const char *bad = TMP "/late_failure.db";
    rpl_trace *t = read_ok(GOOD);
    uint32_t counts[12];
    char *before;

    (void)state;
    /* The counter values are read last: a dangling pmc_id fails after everything else. */
    mutate_db(GOOD, bad, "UPDATE rocpd_pmc_event{{uuid}} SET pmc_id = 77 WHERE id = 9");
    counts[0] = t->sources.count;
    counts[1] = t->processes.count;
    counts[2] = t->agents.count;
    counts[3] = t->symbols.count;
    counts[4] = t->queues.count;
    counts[5] = t->streams.count;
    counts[6] = t->dispatches.count;
    counts[7] = t->memcpys.count;
    counts[8] = t->regions.count;
    counts[9] = t->args.count;
    counts[10] = t->counter_names.count;
    counts[11] = t->counter_values.count;
    before = malloc(sizeof(rpl_dispatch) * t->dispatches.count);
    assert_non_null(before);
    memcpy(before, t->dispatches.items, sizeof(rpl_dispatch) * t->dispatches.count);

    assert_int_equal(rpl_rocpd_read(t, bad), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "pmc_id 77"));
    assert_int_equal(t->sources.count, counts[0]);
    assert_int_equal(t->processes.count, counts[1]);
    assert_int_equal(t->agents.count, counts[2]);
    assert_int_equal(t->symbols.count, counts[3]);
    assert_int_equal(t->queues.count, counts[4]);
    assert_int_equal(t->streams.count, counts[5]);
    assert_int_equal(t->dispatches.count, counts[6]);
    assert_int_equal(t->memcpys.count, counts[7]);
    assert_int_equal(t->regions.count, counts[8]);
    assert_int_equal(t->args.count, counts[9]);
    assert_int_equal(t->counter_names.count, counts[10]);
    assert_int_equal(t->counter_values.count, counts[11]);
    assert_memory_equal(before, t->dispatches.items, sizeof(rpl_dispatch) * counts[6]);
    free(before);

    /* The trace is still whole: another good read appends as usual. */
    assert_int_equal(rpl_rocpd_read(t, GOOD), 0);
    assert_int_equal(t->sources.count, 2);
    assert_int_equal(t->dispatches.count, 2 * NDISPATCH);
    assert_true(counter(t, &t->dispatches.items[NDISPATCH + 1], "SQ_WAVES") == 128.0);
    rpl_trace_free(t);
}

/* ---- releasing the API regions -------------------------------------------------------- */
/* Regions "r0".."r3", region i with i arguments "a<i>.<k>" = "v<i>.<k>". */
static rpl_trace *four_regions(void)
{
    rpl_trace *t;

    assert_int_equal(rpl_trace_new(&t), 0);
    for (uint32_t i = 0; i < 4; i++) {
        char name[8], an[4][8], av[4][8];
        rpl_arg args[4];
        rpl_region g = {.id = 10 + i,
                        .name = name,
                        .thread = rpl_trace_thread(t, 1, 1),
                        .start = i,
                        .end = i + 1};

        snprintf(name, sizeof(name), "r%u", i);
        for (uint32_t k = 0; k < i; k++) {
            snprintf(an[k], sizeof(an[k]), "a%u.%u", i, k);
            snprintf(av[k], sizeof(av[k]), "v%u.%u", i, k);
            args[k] = (rpl_arg){an[k], "int", av[k]};
        }
        assert_int_equal(rpl_trace_add_region(t, &g, args, i, NULL), 0);
    }
    return t;
}

static void test_keep_regions(void **state)
{
    static const uint8_t keep_odd[4] = {0, 1, 0, 1}, keep_none[4] = {0};
    rpl_trace *t = four_regions();
    const rpl_region *g;

    (void)state;
    /* Region 3 shares region 2's slice (as regions of one event do), region 1's is corrupt. */
    t->regions.items[3].args_first = t->regions.items[2].args_first;
    t->regions.items[3].args_count = 2;
    t->regions.items[1].args_first = 1000;
    assert_int_equal(rpl_trace_keep_regions(t, keep_odd), 0);
    assert_int_equal(t->regions.count, 2);
    assert_int_equal(t->args.count, 2);
    g = &t->regions.items[0];
    assert_int_equal(g->id, 11);
    assert_int_equal(g->args_count, 0); /* its slice was not in the trace */
    g = &t->regions.items[1];
    assert_int_equal(g->id, 13);
    assert_string_equal(g->name, "r3");
    assert_int_equal(g->args_first, 0);
    assert_int_equal(g->args_count, 2);
    assert_string_equal(t->args.items[0].name, "a2.0");
    assert_string_equal(t->args.items[1].value, "v2.1");
    assert_int_equal(rpl_trace_keep_regions(t, keep_none), 0);
    assert_int_equal(t->regions.count, 0);
    assert_int_equal(t->args.count, 0);
    assert_null(t->regions.items);
    assert_null(t->args.items);
    rpl_trace_free(t);
}

static void test_release_api(void **state)
{
    rpl_trace *t = read_ok(GOOD);
    uint32_t ndispatch = t->dispatches.count;
    char *before = malloc(sizeof(rpl_dispatch) * ndispatch);

    (void)state;
    assert_non_null(before);
    memcpy(before, t->dispatches.items, sizeof(rpl_dispatch) * ndispatch);
    assert_int_equal(t->regions.count, 2);
    assert_int_equal(t->args.count, 2);
    rpl_trace_release_api(t);
    assert_int_equal(t->regions.count, 0);
    assert_int_equal(t->args.count, 0);
    assert_null(t->regions.items);
    assert_null(t->args.items);
    /* Everything else is untouched. */
    assert_int_equal(t->dispatches.count, ndispatch);
    assert_memory_equal(before, t->dispatches.items, sizeof(rpl_dispatch) * ndispatch);
    assert_int_equal(t->memcpys.count, 1);
    free(before);

    /* The trace still takes regions: a second read brings them with their arguments. */
    assert_int_equal(rpl_rocpd_read(t, GOOD), 0);
    assert_int_equal(t->regions.count, 2);
    assert_int_equal(t->regions.items[0].args_count, 2);
    assert_string_equal(t->args.items[t->regions.items[0].args_first].value, "0x5555a0");
    rpl_trace_free(t);
}

/* ---- keeping only some API arguments ---------------------------------------------------- */

static void test_read_some_args(void **state)
{
    static const char *const names[] = {"stream", NULL};
    const rpl_rocpd_read_opts keep_stream = {names};
    const char *unnamed = TMP "/unnamed_arg.db";
    rpl_trace *t;
    const rpl_region *r;

    (void)state;
    /* Only the named argument listed: sizeBytes is not kept. */
    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_rocpd_read_with(t, GOOD, &keep_stream), 0);
    r = &t->regions.items[0];
    assert_int_equal(t->args.count, 1);
    assert_int_equal(r->args_count, 1);
    assert_string_equal(t->args.items[r->args_first].name, "stream");
    assert_string_equal(t->args.items[r->args_first].value, "0x5555a0");
    assert_int_equal(t->regions.items[1].args_count, 0);
    rpl_trace_free(t);

    /* An argument without a name is read by its position: it is kept. */
    mutate_db(GOOD, unnamed, "UPDATE rocpd_arg{{uuid}} SET name = '' WHERE name = 'sizeBytes'");
    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_rocpd_read_with(t, unnamed, &keep_stream), 0);
    r = &t->regions.items[0];
    assert_int_equal(r->args_count, 2);
    assert_string_equal(t->args.items[r->args_first].name, "stream");
    assert_string_equal(t->args.items[r->args_first + 1].name, "");
    assert_string_equal(t->args.items[r->args_first + 1].value, "1048576");
    rpl_trace_free(t);

    /* NULL options keep every argument. */
    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_rocpd_read_with(t, GOOD, NULL), 0);
    assert_int_equal(t->regions.items[0].args_count, 2);
    rpl_trace_free(t);
}

/* ---- counter passes ---------------------------------------------------------------- */

static void test_counter_pass(void **state)
{
    const char *plain = TMP "/pass0.db", *pass_db = TMP "/pass1.db";
    rpl_trace *t, *pass;
    uint32_t own;
    rpl_counter_value v[2];

    (void)state;
    write_model(plain, false, 0);
    t = read_ok(plain);
    pass = read_ok(GOOD);
    /* A counter of the trace's own survives; one the pass also has is replaced. */
    assert_int_equal(rpl_trace_counter_index(t, "OWN", &own), 0);
    v[0] = (rpl_counter_value){own, 7};
    assert_int_equal(rpl_trace_set_dispatch_counters(t, 0, v, 1), 0);
    {
        uint32_t sq;
        assert_int_equal(rpl_trace_counter_index(t, "SQ_WAVES", &sq), 0);
        v[1] = (rpl_counter_value){sq, 1};
        assert_int_equal(rpl_trace_set_dispatch_counters(t, 1, v, 2), 0);
    }
    assert_int_equal(rpl_trace_merge_counter_pass(t, pass), 0);
    for (uint32_t i = 0; i < t->dispatches.count; i++) {
        assert_true(counter(t, &t->dispatches.items[i], "SQ_WAVES") == 64.0 * (i + 1));
        assert_true(counter(t, &t->dispatches.items[i], "GRBM_COUNT") == 1000.0 + i);
    }
    assert_true(counter(t, &t->dispatches.items[0], "OWN") == 7);
    assert_true(counter(t, &t->dispatches.items[1], "OWN") == 7);
    assert_true(counter(t, &t->dispatches.items[2], "OWN") == -1);
    rpl_trace_free(pass);

    /* A pass with another kernel sequence (two more gemm dispatches) is refused, changing nothing.
     */
    write_model(pass_db, true, 2);
    pass = read_ok(pass_db);
    {
        uint32_t names = t->counter_names.count, values = t->counter_values.count;
        assert_int_equal(rpl_trace_merge_counter_pass(t, pass), RPL_EINPUT);
        assert_non_null(strstr(rpl_error_last()->message, "_Z4gemmPfi"));
        assert_non_null(strstr(rpl_error_last()->message, pass_db));
        assert_int_equal(t->counter_names.count, names);
        assert_int_equal(t->counter_values.count, values);
        assert_true(counter(t, &t->dispatches.items[2], "SQ_WAVES") == 192.0);
    }
    rpl_trace_free(pass);

    /* A pass with a kernel the trace never ran is refused too. */
    pass = build_model(true, 0);
    pass->symbols.items[1].name = rpl_trace_intern(pass, "_Z5otherv");
    assert_int_equal(rpl_trace_merge_counter_pass(t, pass), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "_Z5otherv"));
    rpl_trace_free(pass);
    rpl_trace_free(t);
}

/* rpl_rocpd_read_db on an in-memory copy: what the fuzzer does. */
static void test_read_db_in_memory(void **state)
{
    char *data;
    size_t len;
    sqlite3 *db;
    unsigned char *buf;
    rpl_trace *t;
    int attached;

    (void)state;
    assert_int_equal(rpl_file_read_all(GOOD, 1u << 30, &data, &len), 0);
    assert_int_equal(sqlite3_open(":memory:", &db), SQLITE_OK);
    buf = sqlite3_malloc64(len);
    assert_non_null(buf);
    memcpy(buf, data, len);
    free(data);
    assert_int_equal(
        sqlite3_deserialize(db, "main", buf, (sqlite3_int64)len, (sqlite3_int64)len,
                            SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY),
        SQLITE_OK);
    attached = sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, -1);
    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_rocpd_read_db(t, db, "memory", NULL), 0);
    assert_int_equal(t->dispatches.count, NDISPATCH);
    assert_string_equal(t->sources.items[0].path, "memory");
    /* The connection's limits are restored. */
    assert_int_equal(sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, -1), attached);
    rpl_trace_free(t);
    sqlite3_close(db);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_counter_instances_summed),
        cmocka_unit_test(test_find_unsuffixed_views),
        cmocka_unit_test(test_find_by_discovery),
        cmocka_unit_test(test_find_plain_tables),
        cmocka_unit_test(test_schema_versions),
        cmocka_unit_test(test_bad_databases),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_bad_extdata_warns),
        cmocka_unit_test(test_merge_databases),
        cmocka_unit_test(test_rollback),
        cmocka_unit_test(test_release_api),
        cmocka_unit_test(test_keep_regions),
        cmocka_unit_test(test_read_some_args),
        cmocka_unit_test(test_counter_pass),
        cmocka_unit_test(test_read_db_in_memory),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
