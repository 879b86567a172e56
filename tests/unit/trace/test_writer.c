/* rpl_rocpd_write and the schema-3 DDL, checked with plain SQLite queries. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "rocpd_schema.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/rocpd.h"
#include "rpl/trace.h"

#define TMP  RPL_TEST_TMP "/writer"
#define GUID "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"

/* Sizes of the test trace. */
enum { NDISPATCH = 40, NCOPY = 7, NREGION = 5, NARGS_PER_REGION = 2 };

/* A trace with every kind of record: two agents, two symbols, queues and a
 * stream, dispatches (some on no queue / no stream), counters given per
 * instance, copies and regions with arguments. */
static rpl_trace *make_trace(void)
{
    rpl_trace *t;
    rpl_source src = {.path = "test", .schema_version = "3"};
    rpl_process proc = {.pid = 1234, .ppid = 1, .command = "./app", .hostname = "testhost"};
    rpl_agent cpu = {.type = RPL_AGENT_CPU, .name = "cpu", .absolute_index = 0};
    rpl_agent gpu = {.type = RPL_AGENT_GPU,
                     .name = "gfx942",
                     .absolute_index = 1,
                     .logical_index = 1,
                     .product_name = "AMD Instinct MI300X"};
    rpl_kernel_symbol k1 = {.name = "_Z4axpyv", .display_name = "axpy()", .code_object_id = 3};
    rpl_kernel_symbol k2 = {.name = "_Z4gemmv", .code_object_id = 4, .arch_vgpr_count = 128};
    rpl_queue q = {.pid = 1234, .name = "Queue 1"};
    rpl_queue q2 = {.pid = 1234, .name = "Queue 2"};
    rpl_queue s = {.pid = 1234, .name = "Stream 1"};
    uint32_t waves, fetch;

    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_trace_add_source(t, &src, NULL), 0);
    assert_int_equal(rpl_trace_add_process(t, &proc, NULL), 0);
    assert_int_equal(rpl_trace_add_agent(t, &cpu, NULL), 0);
    gpu.extdata = cJSON_Parse("{\"cu_count\": 304, \"wave_front_size\": 64, \"device_id\": 29857}");
    assert_non_null(gpu.extdata);
    assert_int_equal(rpl_trace_add_agent(t, &gpu, NULL), 0);
    assert_int_equal(rpl_trace_add_symbol(t, &k1, NULL), 0);
    assert_int_equal(rpl_trace_add_symbol(t, &k2, NULL), 0);
    assert_int_equal(rpl_trace_add_queue(t, &q, NULL), 0);
    assert_int_equal(rpl_trace_add_queue(t, &q2, NULL), 0);
    assert_int_equal(rpl_trace_add_stream(t, &s, NULL), 0);
    assert_int_equal(rpl_trace_counter_index(t, "SQ_WAVES", &waves), 0);
    assert_int_equal(rpl_trace_counter_index(t, "FETCH_SIZE", &fetch), 0);
    for (uint32_t i = 0; i < NDISPATCH; i++) {
        rpl_dispatch d = {.dispatch_id = 100 + i,
                          .kernel = i % 2,
                          .agent = 1,
                          .queue = i % 5 == 0 ? RPL_NONE : i % 2,
                          .stream = i % 3 ? 0 : RPL_NONE,
                          .thread = rpl_trace_thread(t, 1234, 1234 + i % 3),
                          .start = 1000 + 100 * i,
                          .end = 1050 + 100 * i,
                          .grid = {1024, 1, 1},
                          .workgroup = {64, 1, 1},
                          .correlation_id = i + 1};
        /* Two instances of SQ_WAVES per dispatch: the DB holds their sum. */
        rpl_counter_value v[3] = {{waves, 10.0 * i}, {waves, 5.0}, {fetch, 2.5}};
        uint32_t index;
        assert_int_equal(rpl_trace_add_dispatch(t, &d, &index), 0);
        if (i % 4)
            assert_int_equal(rpl_trace_set_dispatch_counters(t, index, v, 3), 0);
    }
    for (uint32_t i = 0; i < NCOPY; i++) {
        rpl_memcpy m = {.name = "MEMORY_COPY_HOST_TO_DEVICE",
                        .kind = RPL_COPY_HOST_TO_DEVICE,
                        .thread = rpl_trace_thread(t, 1234, 99),
                        .start = 10 * i,
                        .end = 10 * i + 5,
                        .size = 4096,
                        .src_agent = 0,
                        .dst_agent = 1,
                        .queue = RPL_NONE,
                        .stream = i % 2 ? 0 : RPL_NONE};
        assert_int_equal(rpl_trace_add_memcpy(t, &m, NULL), 0);
    }
    for (uint32_t i = 0; i < NREGION; i++) {
        rpl_region r = {.name = i % 2 ? "hipLaunchKernel" : "hipMemcpy",
                        .category = "HIP_RUNTIME_API_EXT",
                        .thread = rpl_trace_thread(t, 1234, 1234),
                        .start = 900 + i,
                        .end = 950 + i,
                        .correlation_id = i + 1};
        rpl_arg args[NARGS_PER_REGION] = {{"stream", "hipStream_t", "0x1"},
                                          {"size", "size_t", "4096"}};
        assert_int_equal(rpl_trace_add_region(t, &r, args, NARGS_PER_REGION, NULL), 0);
    }
    return t;
}

static sqlite3 *open_db(const char *path)
{
    sqlite3 *db = NULL;

    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    return db;
}

static int64_t query_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    int64_t v;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("cannot prepare '%s': %s", sql, sqlite3_errmsg(db));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

/* The first column of the first row as text (copied into `out`). */
static void query_text(sqlite3 *db, const char *sql, char *out, size_t size)
{
    sqlite3_stmt *st = NULL;

    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("cannot prepare '%s': %s", sql, sqlite3_errmsg(db));
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(out, size, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
}

/* Write the standard trace with GUID to TMP/name. */
static void write_standard(const char *name, char *path, size_t size)
{
    rpl_trace *t = make_trace();
    rpl_rocpd_write_opts opts = {.guid = GUID};

    snprintf(path, size, "%s/%s", TMP, name);
    assert_int_equal(rpl_rocpd_write(t, path, &opts), 0);
    rpl_trace_free(t);
}

static int setup(void **state)
{
    (void)state;
    return rpl_mkdir_p(TMP);
}

static void test_metadata(void **state)
{
    char path[512], text[128];
    sqlite3 *db;

    (void)state;
    write_standard("metadata.db", path, sizeof(path));
    db = open_db(path);
    query_text(db, "SELECT value FROM rocpd_metadata WHERE tag = 'schema_version'", text,
               sizeof(text));
    assert_string_equal(text, "3");
    query_text(db, "SELECT value FROM rocpd_metadata WHERE tag = 'uuid'", text, sizeof(text));
    assert_string_equal(text, "_0190a1b2_c3d4_7e5f_8a9b_0c1d2e3f4a5b");
    query_text(db, "SELECT value FROM rocpd_metadata WHERE tag = 'guid'", text, sizeof(text));
    assert_string_equal(text, GUID);
    assert_int_equal(query_int(db, "SELECT count(*) FROM rocpd_metadata"), 3);
    /* Every table is suffixed and has its unsuffixed view. */
    for (size_t i = 0; i < rpl_rocpd_ntables; i++) {
        char sql[256];
        snprintf(sql, sizeof(sql),
                 "SELECT count(*) FROM sqlite_master WHERE (type = 'table' AND name = "
                 "'%s_0190a1b2_c3d4_7e5f_8a9b_0c1d2e3f4a5b') OR (type = 'view' AND name = '%s')",
                 rpl_rocpd_tables[i].name, rpl_rocpd_tables[i].name);
        assert_int_equal(query_int(db, sql), 2);
    }
    /* The guid column defaults to the guid. */
    query_text(db, "SELECT DISTINCT guid FROM rocpd_kernel_dispatch", text, sizeof(text));
    assert_string_equal(text, GUID);
    sqlite3_close(db);
}

static void test_views_keep_every_row(void **state)
{
    char path[512];
    sqlite3 *db;

    (void)state;
    write_standard("views.db", path, sizeof(path));
    db = open_db(path);
    assert_int_equal(query_int(db, "SELECT count(*) FROM rocpd_kernel_dispatch"), NDISPATCH);
    assert_int_equal(query_int(db, "SELECT count(*) FROM kernels"), NDISPATCH);
    assert_int_equal(query_int(db, "SELECT count(*) FROM memory_copies"), NCOPY);
    assert_int_equal(query_int(db, "SELECT count(*) FROM regions"), NREGION);
    assert_int_equal(query_int(db, "SELECT count(*) FROM region_args"), NREGION * NARGS_PER_REGION);
    assert_int_equal(query_int(db, "SELECT count(*) FROM processes"), 1);
    /* Threads 1234..1236 (dispatches, regions) and 99 (copies). */
    assert_int_equal(query_int(db, "SELECT count(*) FROM threads"), 4);
    assert_int_equal(query_int(db, "SELECT count(*) FROM kernel_symbols"), 2);
    assert_int_equal(query_int(db, "SELECT count(*) FROM code_objects"), 2);
    /* Dispatch ids, correlation ids and pids come through unchanged. */
    assert_int_equal(query_int(db, "SELECT sum(dispatch_id) FROM kernels"),
                     NDISPATCH * 100 + NDISPATCH * (NDISPATCH - 1) / 2);
    assert_int_equal(query_int(db, "SELECT sum(stack_id) FROM kernels"),
                     NDISPATCH * (NDISPATCH + 1) / 2);
    assert_int_equal(query_int(db, "SELECT count(*) FROM kernels WHERE pid = 1234"), NDISPATCH);
    /* Dispatches without a queue or stream use the default rows (id 0). */
    assert_int_equal(query_int(db, "SELECT count(*) FROM kernels WHERE queue = 'Default Queue'"),
                     NDISPATCH / 5);
    assert_int_equal(query_int(db, "SELECT count(*) FROM rocpd_info_stream WHERE id = 0"), 1);
    /* Agent extdata is the agent's JSON. */
    assert_int_equal(query_int(db, "SELECT json_extract(extdata, '$.cu_count') FROM "
                                   "rocpd_info_agent WHERE type = 'GPU'"),
                     304);
    assert_int_equal(query_int(db, "SELECT uuid FROM rocpd_info_agent WHERE type = 'GPU'"), 29857);
    assert_int_equal(query_int(db, "SELECT count(*) FROM memory_copies WHERE src_agent_type = "
                                   "'CPU' AND dst_agent_type = 'GPU' AND size = 4096"),
                     NCOPY);
    sqlite3_close(db);
}

static void test_counters_collection_sums(void **state)
{
    char path[512];
    sqlite3 *db;
    int64_t with = 0, sum = 0;

    (void)state;
    write_standard("counters.db", path, sizeof(path));
    db = open_db(path);
    for (int64_t i = 0; i < NDISPATCH; i++) {
        if (i % 4 == 0)
            continue;
        with++;
        sum += 10 * i + 5;
    }
    assert_int_equal(query_int(db, "SELECT count(*) FROM pmc_info"), 2);
    assert_int_equal(query_int(db, "SELECT count(*) FROM counters_collection"), 2 * with);
    assert_int_equal(
        query_int(db, "SELECT sum(value) FROM counters_collection WHERE counter_name = 'SQ_WAVES'"),
        sum);
    assert_int_equal(query_int(db, "SELECT sum(value) * 10 FROM counters_collection WHERE "
                                   "counter_name = 'FETCH_SIZE'"),
                     25 * with);
    /* pmc_event rows link to the dispatch's event. */
    assert_int_equal(query_int(db, "SELECT count(*) FROM pmc_events"), 2 * with);
    sqlite3_close(db);
}

static void test_integrity(void **state)
{
    char path[512], text[64];
    sqlite3 *db;
    sqlite3_stmt *st;

    (void)state;
    write_standard("integrity.db", path, sizeof(path));
    db = open_db(path);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA foreign_key_check", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
    query_text(db, "PRAGMA integrity_check", text, sizeof(text));
    assert_string_equal(text, "ok");
    /* Strings are sorted and numbered from 1, with "" first. */
    assert_int_equal(query_int(db, "SELECT id FROM rocpd_string WHERE string = ''"), 1);
    assert_int_equal(query_int(db, "SELECT count(*) FROM rocpd_string A JOIN rocpd_string B "
                                   "ON B.id = A.id + 1 WHERE NOT A.string < B.string"),
                     0);
    /* One event per dispatch, copy and region, all with a category. */
    assert_int_equal(query_int(db, "SELECT count(*) FROM rocpd_event"),
                     NDISPATCH + NCOPY + NREGION);
    assert_int_equal(query_int(db, "SELECT count(*) FROM rocpd_event E JOIN rocpd_string S "
                                   "ON S.id = E.category_id WHERE S.string = 'KERNEL_DISPATCH'"),
                     NDISPATCH);
    sqlite3_close(db);
}

static void test_summary_views(void **state)
{
    char path[512], text[128];
    sqlite3 *db;

    (void)state;
    write_standard("summary.db", path, sizeof(path));
    db = open_db(path);
    assert_int_equal(query_int(db, "SELECT count(*) FROM top_kernels"), 2);
    assert_int_equal(query_int(db, "SELECT sum(total_calls) FROM top_kernels"), NDISPATCH);
    assert_int_equal(query_int(db, "SELECT round(sum(percentage)) FROM top_kernels"), 100);
    /* The symbol without a display name is shown by its mangled name. */
    query_text(db, "SELECT name FROM top_kernels ORDER BY name LIMIT 1", text, sizeof(text));
    assert_string_equal(text, "_Z4gemmv");
    assert_int_equal(query_int(db, "SELECT count(*) FROM busy"), 1);
    assert_int_equal(query_int(db, "SELECT sum(total_calls) FROM top"),
                     NDISPATCH + NCOPY + NREGION);
    sqlite3_close(db);
}

static void test_generated_guid(void **state)
{
    rpl_trace *t = make_trace();
    char path[512] = TMP "/guid.db", guid[64], uuid[80];
    sqlite3 *db;

    (void)state;
    assert_int_equal(rpl_rocpd_write(t, path, NULL), 0);
    rpl_trace_free(t);
    db = open_db(path);
    query_text(db, "SELECT value FROM rocpd_metadata WHERE tag = 'guid'", guid, sizeof(guid));
    query_text(db, "SELECT value FROM rocpd_metadata WHERE tag = 'uuid'", uuid, sizeof(uuid));
    sqlite3_close(db);
    /* UUIDv7: 8-4-4-4-12 lower-case hex, version 7, variant 10xx. */
    assert_int_equal(strlen(guid), 36);
    assert_true(guid[8] == '-' && guid[13] == '-' && guid[18] == '-' && guid[23] == '-');
    assert_int_equal(guid[14], '7');
    assert_non_null(strchr("89ab", guid[19]));
    assert_int_equal(strspn(guid, "0123456789abcdef-"), 36);
    assert_true(rpl_rocpd_guid_valid(guid));
    assert_int_equal(uuid[0], '_');
    for (int i = 0; i < 36; i++)
        assert_int_equal(uuid[i + 1], guid[i] == '-' ? '_' : guid[i]);
}

/* No "<name>.tmp.*" sibling is left in TMP. */
static void assert_no_temp(const char *name)
{
    DIR *d = opendir(TMP);
    struct dirent *e;
    size_t n = strlen(name);

    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, name, n) == 0 && strncmp(e->d_name + n, ".tmp.", 5) == 0)
            fail_msg("temporary file '%s' left behind", e->d_name);
    closedir(d);
}

static void test_atomic_failures(void **state)
{
    rpl_trace *t = make_trace();
    rpl_rocpd_write_opts opts = {.guid = GUID};
    const char *missing = TMP "/no/such/dir/out.db";
    char path[512];
    struct stat sb;
    char *text;
    size_t len;

    (void)state;
    /* An unwritable place: nothing is created. */
    assert_int_equal(rpl_rocpd_write(t, missing, &opts), RPL_EIO);
    assert_non_null(strstr(rpl_error_last()->message, "out.db"));
    assert_int_not_equal(stat(TMP "/no", &sb), 0);
    /* A directory in the way of the rename: the error comes back, no temp file stays. */
    assert_int_equal(rpl_mkdir_p(TMP "/isdir.db/inner"), 0);
    assert_int_equal(rpl_rocpd_write(t, TMP "/isdir.db", &opts), RPL_EIO);
    assert_no_temp("isdir.db");
    /* A broken trace leaves an existing file as it was. */
    snprintf(path, sizeof(path), "%s/kept.db", TMP);
    assert_int_equal(rpl_file_write_atomic(path, "old", 3), 0);
    t->dispatches.items[3].kernel = 77;
    assert_int_equal(rpl_rocpd_write(t, path, &opts), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "dispatch 3"));
    assert_int_equal(rpl_file_read_all(path, 64, &text, &len), 0);
    assert_string_equal(text, "old");
    free(text);
    assert_no_temp("kept.db");
    /* An unsafe guid is refused before anything is written. */
    t->dispatches.items[3].kernel = 1;
    opts.guid = "x'; DROP TABLE y; --";
    assert_int_equal(rpl_rocpd_write(t, path, &opts), RPL_EUSAGE);
    rpl_trace_free(t);
}

static void test_empty_trace(void **state)
{
    rpl_trace *t;
    char path[512] = TMP "/empty.db";
    sqlite3 *db;

    (void)state;
    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_rocpd_write(t, path, NULL), 0);
    rpl_trace_free(t);
    db = open_db(path);
    assert_int_equal(query_int(db, "SELECT count(*) FROM kernels"), 0);
    assert_int_equal(query_int(db, "SELECT count(*) FROM rocpd_info_node"), 1);
    assert_int_equal(query_int(db, "SELECT count(*) FROM rocpd_string WHERE string = ''"), 1);
    sqlite3_close(db);
}

/* What the reader (rpl_rocpd_read) gets back from a written database. */
static void test_round_trip(void **state)
{
    rpl_trace *orig = make_trace(), *back;
    char path[512];
    double want = 0, got = 0;

    (void)state;
    write_standard("round_trip.db", path, sizeof(path));
    assert_int_equal(rpl_trace_new(&back), 0);
    if (rpl_rocpd_read(back, path) != 0)
        fail_msg("reading back failed: %s", rpl_error_last()->message);
    assert_int_equal(back->dispatches.count, NDISPATCH);
    assert_int_equal(back->memcpys.count, NCOPY);
    assert_int_equal(back->regions.count, NREGION);
    assert_int_equal(back->symbols.count, 2);
    assert_int_equal(back->agents.count, 2);
    assert_int_equal(back->counter_names.count, 2);
    for (uint32_t i = 0; i < NDISPATCH; i++) {
        const rpl_dispatch *a = &orig->dispatches.items[i], *b = &back->dispatches.items[i];
        assert_int_equal(b->dispatch_id, a->dispatch_id);
        assert_int_equal(b->start, a->start);
        assert_int_equal(b->end, a->end);
        assert_int_equal(rpl_trace_tid(back, b->thread), rpl_trace_tid(orig, a->thread));
        assert_int_equal(b->correlation_id, a->correlation_id);
        assert_string_equal(back->symbols.items[b->kernel].name,
                            orig->symbols.items[a->kernel].name);
        for (uint32_t k = 0; k < a->counters_count; k++)
            want += orig->counter_values.items[a->counters_first + k].value;
        for (uint32_t k = 0; k < b->counters_count; k++)
            got += back->counter_values.items[b->counters_first + k].value;
    }
    assert_true(want > 0);
    assert_true(got == want);
    for (uint32_t i = 0; i < back->agents.count; i++)
        if (back->agents.items[i].type == RPL_AGENT_GPU)
            assert_int_equal(back->agents.items[i].cu_count, 304);
    rpl_trace_free(back);
    rpl_trace_free(orig);
}

static void test_schema_lookup(void **state)
{
    const rpl_rocpd_table *kd = rpl_rocpd_table_find("rocpd_kernel_dispatch");
    const rpl_rocpd_column *c;
    char *sql;

    (void)state;
    assert_non_null(kd);
    assert_true(kd->required);
    assert_false(rpl_rocpd_table_find("rocpd_sample")->required);
    assert_null(rpl_rocpd_table_find("kernels"));
    c = rpl_rocpd_column_find(kd, "kernel_id");
    assert_non_null(c);
    assert_string_equal(c->type, "INTEGER");
    assert_true(c->not_null);
    assert_string_equal(c->references, "rocpd_info_kernel_symbol");
    assert_string_equal(rpl_rocpd_column_find(kd, "start")->type, "BIGINT");
    assert_null(rpl_rocpd_column_find(kd, "nonexistent"));
    assert_false(rpl_rocpd_guid_valid(""));
    assert_false(rpl_rocpd_guid_valid("a b"));
    assert_true(rpl_rocpd_guid_valid("d41d8cd98f00b204e9800998ecf8427e"));
    assert_int_equal(rpl_rocpd_schema_sql(&sql, "bad guid"), RPL_EUSAGE);
    assert_int_equal(rpl_rocpd_schema_sql(&sql, GUID), 0);
    assert_non_null(strstr(sql, "ON UPDATE CASCADE"));
    free(sql);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metadata),
        cmocka_unit_test(test_views_keep_every_row),
        cmocka_unit_test(test_counters_collection_sums),
        cmocka_unit_test(test_integrity),
        cmocka_unit_test(test_summary_views),
        cmocka_unit_test(test_generated_guid),
        cmocka_unit_test(test_atomic_failures),
        cmocka_unit_test(test_empty_trace),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_schema_lookup),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
