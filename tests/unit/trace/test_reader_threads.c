/*
 * rocpd reader on two threads: a database large enough to be split (the
 * worker checks the arguments' events and reads the dispatch rows from the
 * highest down, while the main thread reads the copies, the API regions and
 * their arguments, each row joined to its event in SQL) reads
 * exactly as on one thread, also with holes in the dispatch rowids;
 * regions get their events' correlation ids and their arguments in
 * position order (table order among equals) however the rows come; errors
 * found by the worker come back as one clear line with nothing added to
 * the trace (the lowest bad row's, as on one thread), and a WAL database
 * is read on one thread.
 */
#include <fcntl.h>
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
#include "rpl/log.h"
#include "rpl/rocpd.h"

#define TMP  RPL_TEST_TMP "/reader_threads"
#define BIG  TMP "/big.db"
#define LOGF TMP "/stderr.txt"

enum { NDISPATCH = 30000, NCOPY = 2000, COUNTER_EVERY = 97, NREGION = 5000 };

static rpl_trace *build_model(void)
{
    rpl_trace *t;
    rpl_process p = {.pid = 7, .ppid = 1, .start = 1, .end = 1000000000, .command = "./app"};
    rpl_agent cpu = {.type = RPL_AGENT_CPU, .name = "cpu"};
    rpl_agent gpu = {.type = RPL_AGENT_GPU, .name = "gfx942", .logical_index = 1};
    rpl_kernel_symbol k[2] = {{.name = "_Z1av", .code_object_id = 1},
                              {.name = "_Z1bv", .code_object_id = 1}};
    uint32_t waves;

    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_trace_add_process(t, &p, NULL), 0);
    assert_int_equal(rpl_trace_add_agent(t, &cpu, NULL), 0);
    assert_int_equal(rpl_trace_add_agent(t, &gpu, NULL), 0);
    for (int i = 0; i < 2; i++) {
        char name[16];
        rpl_queue q = {.id = i + 1, .pid = 7, .name = name};
        snprintf(name, sizeof(name), "Queue %d", i + 1);
        assert_int_equal(rpl_trace_add_symbol(t, &k[i], NULL), 0);
        assert_int_equal(rpl_trace_add_queue(t, &q, NULL), 0);
        assert_int_equal(rpl_trace_add_stream(t, &q, NULL), 0);
    }
    assert_int_equal(rpl_trace_counter_index(t, "SQ_WAVES", &waves), 0);
    for (int i = 0; i < NDISPATCH; i++) {
        int64_t start = 1000 + 3000 * (int64_t)(i / 2);
        rpl_dispatch d = {.dispatch_id = i + 1,
                          .kernel = (uint32_t)(i % 3 == 0),
                          .agent = 1,
                          .queue = (uint32_t)(i % 2),
                          .stream = (uint32_t)(i % 2),
                          .thread = rpl_trace_thread(t, 7, 8 + i % 5),
                          .start = start,
                          .end = start + 1000 + i % 500,
                          .grid = {64u * (uint32_t)(i + 1), 1, 1},
                          .workgroup = {64, 1, 1},
                          .correlation_id = 100000 + i};
        uint32_t index;
        assert_int_equal(rpl_trace_add_dispatch(t, &d, &index), 0);
        if (i % COUNTER_EVERY == 0) {
            rpl_counter_value v = {waves, (double)i};
            assert_int_equal(rpl_trace_set_dispatch_counters(t, index, &v, 1), 0);
        }
    }
    for (int i = 0; i < NCOPY; i++) {
        rpl_memcpy m = {.name = "MEMORY_COPY_HOST_TO_DEVICE",
                        .kind = RPL_COPY_HOST_TO_DEVICE,
                        .thread = rpl_trace_thread(t, 7, 8),
                        .start = 500 + 7000 * (int64_t)i,
                        .end = 600 + 7000 * (int64_t)i,
                        .size = 4096,
                        .src_agent = 0,
                        .dst_agent = 1,
                        .queue = RPL_NONE,
                        .stream = (uint32_t)(i % 2),
                        .correlation_id = 500000 + i};
        assert_int_equal(rpl_trace_add_memcpy(t, &m, NULL), 0);
    }
    /* Launch regions of the first dispatches, each with a stream and a size argument. */
    for (int i = 0; i < NREGION; i++) {
        char size[16];
        rpl_arg args[2] = {{.name = "stream", .type = "hipStream_t", .value = "0x5555a0"},
                           {.name = "sizeBytes", .type = "size_t", .value = size}};
        rpl_region r = {.name = i % 2 ? "hipMemcpyAsync" : "hipLaunchKernel",
                        .category = "HIP_RUNTIME_API_EXT",
                        .thread = rpl_trace_thread(t, 7, 8),
                        .start = 900 + 3000 * (int64_t)(i / 2),
                        .end = 950 + 3000 * (int64_t)(i / 2),
                        .correlation_id = 100000 + i,
                        .parent_correlation_id = i};
        snprintf(size, sizeof(size), "%d", i);
        assert_int_equal(rpl_trace_add_region(t, &r, args, 2, NULL), 0);
    }
    return t;
}

static int setup(void **state)
{
    rpl_trace *t;

    (void)state;
    assert_int_equal(rpl_mkdir_p(TMP), 0);
    unlink(BIG);
    t = build_model();
    assert_int_equal(rpl_rocpd_write(t, BIG, NULL), 0);
    rpl_trace_free(t);
    return 0;
}

/* rpl_rocpd_read with the debug log captured; returns the log (caller frees). */
static char *read_logged(rpl_trace *t, const char *path, int *rc)
{
    int saved = dup(2), fd = open(LOGF, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    rpl_log_level level = rpl_log_get_level();
    char *log;
    size_t len;

    assert_true(saved >= 0 && fd >= 0);
    fflush(stderr);
    assert_int_equal(dup2(fd, 2), 2);
    close(fd);
    rpl_log_set_level(RPL_LOG_DEBUG);
    *rc = rpl_rocpd_read(t, path);
    rpl_log_set_level(level);
    fflush(stderr);
    assert_int_equal(dup2(saved, 2), 2);
    close(saved);
    assert_int_equal(rpl_file_read_all(LOGF, 1u << 24, &log, &len), 0);
    return log;
}

/* The same database read on a caller's connection: always one thread. */
static rpl_trace *read_one_thread(const char *path)
{
    rpl_trace *t;
    sqlite3 *db;

    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(rpl_trace_new(&t), 0);
    if (rpl_rocpd_read_db(t, db, path, NULL) != 0)
        fail_msg("reading %s: %s", path, rpl_error_last()->message);
    sqlite3_close(db);
    return t;
}

static void assert_same_records(const rpl_trace *a, const rpl_trace *b)
{
    assert_int_equal(a->dispatches.count, b->dispatches.count);
    assert_int_equal(a->memcpys.count, b->memcpys.count);
    for (uint32_t i = 0; i < a->dispatches.count; i++) {
        const rpl_dispatch *x = &a->dispatches.items[i], *y = &b->dispatches.items[i];
        assert_int_equal(x->id, y->id);
        assert_int_equal(x->start, y->start);
        assert_int_equal(x->end, y->end);
        assert_int_equal(x->kernel, y->kernel);
        assert_int_equal(x->queue, y->queue);
        assert_int_equal(x->stream, y->stream);
        assert_int_equal(x->grid[0], y->grid[0]);
        assert_int_equal(x->correlation_id, y->correlation_id);
        assert_int_equal(x->counters_count, y->counters_count);
        assert_int_equal(rpl_trace_pid(a, x->thread), rpl_trace_pid(b, y->thread));
        assert_int_equal(rpl_trace_tid(a, x->thread), rpl_trace_tid(b, y->thread));
    }
    for (uint32_t i = 0; i < a->memcpys.count; i++) {
        assert_int_equal(a->memcpys.items[i].id, b->memcpys.items[i].id);
        assert_int_equal(a->memcpys.items[i].correlation_id, b->memcpys.items[i].correlation_id);
    }
}

static void test_split_reads_like_one_thread(void **state)
{
    rpl_trace *two, *one;
    char *log;
    int rc;

    (void)state;
    assert_int_equal(rpl_trace_new(&two), 0);
    log = read_logged(two, BIG, &rc);
    if (rc != 0)
        fail_msg("reading %s: %s", BIG, rpl_error_last()->message);
    /* Both parts of the dispatch table were read, the later one by the worker. */
    assert_non_null(strstr(log, "worker used"));
    assert_null(strstr(log, "reading on one thread"));
    one = read_one_thread(BIG);
    assert_same_records(two, one);
    /* The model's values came through: order, correlation ids, counters. */
    assert_int_equal(two->dispatches.count, NDISPATCH);
    for (uint32_t i = 0; i < NDISPATCH; i++) {
        const rpl_dispatch *d = &two->dispatches.items[i];
        assert_int_equal(d->dispatch_id, i + 1);
        assert_int_equal(d->correlation_id, 100000 + i);
        assert_int_equal(d->counters_count, i % COUNTER_EVERY == 0 ? 1 : 0);
        /* Both threads add the host threads they meet to the one table. */
        assert_int_equal(rpl_trace_pid(two, d->thread), 7);
        assert_int_equal(rpl_trace_tid(two, d->thread), 8 + i % 5);
    }
    assert_int_equal(two->threads.count, 5);
    assert_int_equal(two->memcpys.items[NCOPY - 1].correlation_id, 500000 + NCOPY - 1);
    free(log);
    rpl_trace_free(two);
    rpl_trace_free(one);
}

/* Rows with holes in their rowids: the worker's rows still move down next to the main thread's. */
static void test_split_with_rowid_holes(void **state)
{
    const char *path = TMP "/holes.db";
    rpl_trace *two, *one;
    char *log;
    int rc;

    (void)state;
    mutate_db(BIG, path,
              "DELETE FROM rocpd_pmc_event{{uuid}}; DELETE FROM rocpd_kernel_dispatch{{uuid}} "
              "WHERE id % 7 = 3 OR id BETWEEN 14000 AND 16000");
    assert_int_equal(rpl_trace_new(&two), 0);
    log = read_logged(two, path, &rc);
    if (rc != 0)
        fail_msg("reading %s: %s", path, rpl_error_last()->message);
    assert_non_null(strstr(log, "worker used"));
    one = read_one_thread(path);
    assert_same_records(two, one);
    assert_int_equal(two->dispatches.count, 30000 - 4286 - 1715);
    for (uint32_t i = 1; i < two->dispatches.count; i++)
        assert_true(two->dispatches.items[i].id > two->dispatches.items[i - 1].id);
    free(log);
    rpl_trace_free(two);
    rpl_trace_free(one);
}

/* Region i's values as build_model made them; `swapped`: its two arguments in reverse. */
static void assert_region(const rpl_trace *t, uint32_t i, bool swapped)
{
    const rpl_region *r = &t->regions.items[i];
    const rpl_arg *a = &t->args.items[r->args_first];
    char size[16];

    snprintf(size, sizeof(size), "%u", i);
    assert_string_equal(r->name, i % 2 ? "hipMemcpyAsync" : "hipLaunchKernel");
    assert_string_equal(r->category, "HIP_RUNTIME_API_EXT");
    assert_int_equal(r->correlation_id, 100000 + i);
    assert_int_equal(r->parent_correlation_id, i);
    assert_int_equal(r->start, 900 + 3000 * (int64_t)(i / 2));
    assert_int_equal(r->args_count, 2);
    assert_string_equal(a[swapped ? 1 : 0].name, "stream");
    assert_string_equal(a[swapped ? 1 : 0].value, "0x5555a0");
    assert_string_equal(a[swapped ? 0 : 1].name, "sizeBytes");
    assert_string_equal(a[swapped ? 0 : 1].value, size);
}

/* Regions and arguments, read while the worker reads the events. */
static void test_regions(void **state)
{
    const char *reversed = TMP "/args_reversed.db", *moved = TMP "/args_moved.db";
    rpl_trace *t;

    (void)state;
    /* On two threads and on one. */
    for (int threads = 2; threads >= 1; threads--) {
        if (threads == 2) {
            assert_int_equal(rpl_trace_new(&t), 0);
            assert_int_equal(rpl_rocpd_read(t, BIG), 0);
        } else {
            t = read_one_thread(BIG);
        }
        assert_int_equal(t->regions.count, NREGION);
        assert_int_equal(t->args.count, 2 * NREGION);
        for (uint32_t i = 0; i < NREGION; i++)
            assert_region(t, i, false);
        rpl_trace_free(t);
    }

    /* Positions against the table order: each region's arguments are sorted by position. */
    mutate_db(BIG, reversed, "UPDATE rocpd_arg{{uuid}} SET position = 1 - position");
    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_rocpd_read(t, reversed), 0);
    for (uint32_t i = 0; i < NREGION; i++)
        assert_region(t, i, true);
    rpl_trace_free(t);

    /* Equal positions keep the table order, also when a row comes out of place. */
    mutate_db(BIG, moved,
              "UPDATE rocpd_arg{{uuid}} SET position = 0; UPDATE rocpd_arg{{uuid}} SET id = "
              "100000000 WHERE id = (SELECT min(id) FROM rocpd_arg{{uuid}})");
    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_rocpd_read(t, moved), 0);
    assert_region(t, 0, true);
    for (uint32_t i = 1; i < NREGION; i++)
        assert_region(t, i, false);
    rpl_trace_free(t);
}

static void test_wal_reads_on_one_thread(void **state)
{
    const char *path = TMP "/wal.db";
    rpl_trace *t, *one;
    char *log;
    int rc;

    (void)state;
    mutate_db(BIG, path, "PRAGMA journal_mode = WAL");
    assert_int_equal(rpl_trace_new(&t), 0);
    log = read_logged(t, path, &rc);
    assert_int_equal(rc, 0);
    assert_non_null(strstr(log, "reading on one thread"));
    one = read_one_thread(BIG);
    assert_same_records(t, one);
    free(log);
    rpl_trace_free(t);
    rpl_trace_free(one);
}

typedef struct bad_case {
    const char *sql;
    const char *needle;
} bad_case;

/* Row NDISPATCH is read by the worker (from the top), row 1 by the main thread. */
static const bad_case bad_cases[] = {
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET kernel_id = 999 WHERE id = 30000",
     "row 30000: kernel_id 999 does not exist in rocpd_info_kernel_symbol"},
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET start = 'x' WHERE id = 29999",
     "row 29999: start is text, expected an integer"},
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET event_id = 123456789 WHERE id = 30000",
     "row 30000: event_id 123456789 does not exist in rocpd_event"},
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET event_id = (SELECT event_id FROM "
     "rocpd_kernel_dispatch{{uuid}} WHERE id = 1) WHERE id = 29998",
     "row 29998: event_id"},
    /* Both parts bad: the main thread's error is reported, the worker stopped. */
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET kernel_id = 999 WHERE id IN (1, 30000)",
     "row 1: kernel_id 999"},
    /* The worker meets row 30000 first; the rows it gives back hold the lower error. */
    {"UPDATE rocpd_kernel_dispatch{{uuid}} SET kernel_id = 999 WHERE id IN (20000, 30000)",
     "row 20000: kernel_id 999"},
    {"UPDATE rocpd_event{{uuid}} SET category_id = 99999 WHERE id = (SELECT max(id) FROM "
     "rocpd_event{{uuid}})",
     "category_id 99999 does not exist"},
    /* A region's missing event is found as the row is read; an argument's by the worker's check. */
    {"UPDATE rocpd_region{{uuid}} SET event_id = 77777777 WHERE id IN (40, 41)",
     "row 40: event_id 77777777 does not exist in rocpd_event"},
    {"UPDATE rocpd_arg{{uuid}} SET event_id = 88888888 WHERE id IN (90, 91)",
     "row 90: event_id 88888888 does not exist in rocpd_event"},
    /* Event ids that repeat: the worker's join gives repeated dispatch rows until the main
     * thread's check stops the read. */
    {"ALTER TABLE rocpd_event{{uuid}} RENAME TO ev; CREATE VIEW rocpd_event{{uuid}} AS "
     "SELECT * FROM ev UNION ALL SELECT * FROM ev",
     "appears twice"},
    /* A rocpd_event that never ends: the worker's own step budget stops it. */
    {"PRAGMA legacy_alter_table = ON; DROP VIEW IF EXISTS rocpd_event;"
     "ALTER TABLE rocpd_event{{uuid}} RENAME TO ev;"
     "CREATE VIEW rocpd_event{{uuid}} AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL "
     "SELECT i + 1 FROM n) SELECT ev.* FROM n, ev",
     "query steps"},
};

static void test_worker_errors(void **state)
{
    char path[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad_cases) / sizeof(bad_cases[0]); i++) {
        rpl_trace *t;
        char prefix[300];
        const char *msg;
        char *log;
        int rc;

        snprintf(path, sizeof(path), TMP "/bad_%zu.db", i);
        mutate_db(BIG, path, bad_cases[i].sql);
        assert_int_equal(rpl_trace_new(&t), 0);
        log = read_logged(t, path, &rc);
        assert_int_equal(rc, RPL_EINPUT);
        msg = rpl_error_last()->message;
        snprintf(prefix, sizeof(prefix), "'%s'", path);
        if (strncmp(msg, prefix, strlen(prefix)) != 0 || !strstr(msg, bad_cases[i].needle) ||
            strchr(msg, '\n'))
            fail_msg("case %zu: message '%s' lacks '%s' or the path", i, msg, bad_cases[i].needle);
        /* The worker was used, and the failed read added nothing. */
        assert_non_null(strstr(log, "worker used"));
        assert_int_equal(t->dispatches.count, 0);
        assert_int_equal(t->memcpys.count, 0);
        assert_int_equal(t->sources.count, 0);
        free(log);
        rpl_trace_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_reads_like_one_thread),
        cmocka_unit_test(test_split_with_rowid_holes),
        cmocka_unit_test(test_regions),
        cmocka_unit_test(test_wal_reads_on_one_thread),
        cmocka_unit_test(test_worker_errors),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
