/*
 * The measurement cache: SHA-256 (a known digest), the digests of a
 * program's GPU code and of a build's inputs, keys that change with every
 * part, entries that survive closing, a version 1 cache migrated, and files
 * that are not an autotune cache (another program's database, a newer
 * schema, not SQLite).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/sha256.h"

#define DIR RPL_TEST_TMP "/cache_test"

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void sha256(void **state)
{
    char hex[65];

    (void)state;
    write_file(RPL_TEST_TMP "/abc.txt", "abc");
    assert_int_equal(rpl_sha256_file(hex, RPL_TEST_TMP "/abc.txt"), 0);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_int_equal(rpl_sha256_file(hex, RPL_TEST_TMP "/no-such-file"), RPL_ENOTFOUND);
}

static void keys(void **state)
{
    const char *argv[] = {"./k", "--bm", "64", NULL}, *argv2[] = {"./k", "--bm", "64 ", NULL};
    const char *build[] = {"cc", "-o", "{OUT}", NULL};
    rpl_tune_key_parts p = {.cmd_template = "./k --bm {BM}",
                            .argv = argv,
                            .build_argv = build,
                            .code_sha256 = "ab",
                            .code_kind = "gpu_code",
                            .inputs_sha256 = "cd",
                            .device = "MI300X",
                            .driver = "6.8",
                            .settings = "s"};
    rpl_tune_key_parts q;
    char k1[65], k2[65];

    (void)state;
    assert_int_equal(rpl_tune_key(k1, &p), 0);
    assert_int_equal(rpl_tune_key(k2, &p), 0);
    assert_string_equal(k1, k2);
    assert_int_equal(strlen(k1), 64);
    /* Each part counts, and word boundaries count. */
    for (int i = 0; i < 10; i++) {
        q = p;
        switch (i) {
        case 0:
            q.cmd_template = "./k --bm  {BM}";
            break;
        case 1:
            q.argv = argv2;
            break;
        case 2:
            q.build_argv = NULL;
            break;
        case 3:
            q.code_sha256 = "ac";
            break;
        case 7:
            q.code_kind = "binary";
            break;
        case 8:
            q.inputs_sha256 = "ce";
            break;
        case 4:
            q.device = "MI300A";
            break;
        case 5:
            q.driver = "6.9";
            break;
        case 6:
            q.settings = "t";
            break;
        default:
            q.device = "MI300X6";
            q.driver = ".8";
            break;
        }
        assert_int_equal(rpl_tune_key(k2, &q), 0);
        assert_string_not_equal(k1, k2);
    }
}

static void round_trip(void **state)
{
    const char *argv[] = {"./k", NULL};
    rpl_tune_key_parts p = {.cmd_template = "./k",
                            .argv = argv,
                            .code_sha256 = "",
                            .code_kind = "",
                            .inputs_sha256 = "",
                            .device = "",
                            .driver = "",
                            .settings = "s"};
    double samples[] = {100.5, 101.25, 99};
    rpl_tune_entry e = {.samples = samples,
                        .nsamples = 3,
                        .kernel = "k(float*)",
                        .device = "MI300X",
                        .unstable = true,
                        .remeasured = true,
                        .runs = 2},
                   got;
    rpl_tune_cache *c = NULL;

    (void)state;
    unlink(DIR "/sub/c.db");
    assert_int_equal(rpl_tune_cache_open(&c, DIR "/sub/c.db"), 0); /* makes the folder */
    assert_int_equal(rpl_tune_cache_get(c, "k1", &got), RPL_ENOTFOUND);
    assert_int_equal(rpl_tune_cache_put(c, "k1", &p, &e), 0);
    rpl_tune_cache_close(c);
    assert_int_equal(rpl_tune_cache_open(&c, DIR "/sub/c.db"), 0);
    assert_int_equal(rpl_tune_cache_get(c, "k1", &got), 0);
    assert_int_equal(got.nsamples, 3);
    assert_memory_equal(got.samples, samples, sizeof(samples));
    assert_string_equal(got.kernel, "k(float*)");
    assert_true(got.unstable);
    assert_true(got.remeasured);
    assert_int_equal(got.runs, 2);
    rpl_tune_entry_release(&got);
    /* Replacing an entry. */
    e.nsamples = 2;
    e.unstable = false;
    e.remeasured = false;
    assert_int_equal(rpl_tune_cache_put(c, "k1", &p, &e), 0);
    assert_int_equal(rpl_tune_cache_get(c, "k1", &got), 0);
    assert_int_equal(got.nsamples, 2);
    assert_false(got.unstable);
    assert_false(got.remeasured);
    rpl_tune_entry_release(&got);
    rpl_tune_cache_close(c);
}

static void sql(const char *path, const char *stmt)
{
    sqlite3 *db = NULL;

    unlink(path);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, stmt, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static void not_ours(void **state)
{
    rpl_tune_cache *c = NULL;

    (void)state;
    write_file(DIR "/text.db", "this is not a database, just some text that is long enough");
    assert_int_equal(rpl_tune_cache_open(&c, DIR "/text.db"), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "is not an autotune cache"));
    sql(DIR "/other.db", "CREATE TABLE t(x)");
    assert_int_equal(rpl_tune_cache_open(&c, DIR "/other.db"), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "database of another program"));
    sql(DIR "/newer.db", "PRAGMA application_id=1380994132; PRAGMA user_version=7; CREATE TABLE "
                         "measurements(key)");
    assert_int_equal(rpl_tune_cache_open(&c, DIR "/newer.db"), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "has schema version 7"));
    assert_null(c);
}

/* A version 1 cache: its rows kept aside, a version 2 table, a note saying so; once. */
static void migrates_v1(void **state)
{
    const char *argv[] = {"./k", NULL};
    rpl_tune_key_parts p = {.cmd_template = "./k", .argv = argv, .settings = "s"};
    double samples[] = {5, 6};
    rpl_tune_entry e = {.samples = samples, .nsamples = 2}, got;
    rpl_tune_cache *c = NULL;
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;

    (void)state;
    sql(DIR "/v1.db",
        "PRAGMA application_id=1380994132; PRAGMA user_version=1; CREATE TABLE "
        "measurements(key TEXT PRIMARY KEY, cmd_template TEXT NOT NULL, argv TEXT NOT NULL, "
        "build_argv TEXT, binary_sha256 TEXT NOT NULL, device TEXT NOT NULL, driver TEXT NOT "
        "NULL, settings TEXT NOT NULL, kernel TEXT, measured_device TEXT, samples TEXT NOT NULL, "
        "runs INTEGER NOT NULL, unstable INTEGER NOT NULL, updated TEXT NOT NULL); INSERT INTO "
        "measurements VALUES('old', './k', '[]', NULL, 'ab', '', '', 's', NULL, NULL, '[1]', 1, "
        "0, 'now'), ('old2', './k', '[]', NULL, 'ac', '', '', 's', NULL, NULL, '[1]', 1, 0, "
        "'now')");
    assert_int_equal(rpl_tune_cache_open(&c, DIR "/v1.db"), 0);
    assert_non_null(rpl_tune_cache_note(c));
    assert_non_null(strstr(rpl_tune_cache_note(c), "had schema version 1"));
    assert_non_null(strstr(rpl_tune_cache_note(c), "its 2 entries are kept in the table "
                                                   "measurements_v1"));
    assert_int_equal(rpl_tune_cache_get(c, "old", &got), RPL_ENOTFOUND);
    assert_int_equal(rpl_tune_cache_put(c, "new", &p, &e), 0);
    rpl_tune_cache_close(c);
    assert_int_equal(rpl_tune_cache_open(&c, DIR "/v1.db"), 0);
    assert_null(rpl_tune_cache_note(c));
    assert_int_equal(rpl_tune_cache_get(c, "new", &got), 0);
    rpl_tune_entry_release(&got);
    rpl_tune_cache_close(c);
    assert_int_equal(sqlite3_open(DIR "/v1.db", &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT (SELECT count(*) FROM measurements_v1), "
                                        "(SELECT user_version FROM pragma_user_version)",
                                        -1, &st, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 2);
    assert_int_equal(sqlite3_column_int(st, 1), RPL_TUNE_CACHE_SCHEMA);
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* `src` with `tail` appended at `dst`: the same GPU code, other bytes (a build's stamp). */
static void copy_with_tail(const char *src, const char *dst, const char *tail)
{
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    char buf[4096];
    size_t n;

    assert_non_null(in);
    assert_non_null(out);
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fputs(tail, out);
    fclose(in);
    fclose(out);
}

static void code_digest(void **state)
{
    char a[65], b[65], whole_a[65], whole_b[65], other[65];
    const char *kind = NULL;

    (void)state;
    copy_with_tail(RPL_FIXTURES "/../inspect/recorded/basic.fatbin", DIR "/a.fatbin",
                   "built 2026-11-27T10:00:00");
    copy_with_tail(RPL_FIXTURES "/../inspect/recorded/basic.fatbin", DIR "/b.fatbin",
                   "built 2026-11-27T10:00:07");
    assert_int_equal(rpl_tune_code_digest(a, &kind, DIR "/a.fatbin"), 0);
    assert_string_equal(kind, "gpu_code");
    assert_int_equal(rpl_tune_code_digest(b, &kind, DIR "/b.fatbin"), 0);
    assert_string_equal(a, b);
    assert_int_equal(rpl_sha256_file(whole_a, DIR "/a.fatbin"), 0);
    assert_int_equal(rpl_sha256_file(whole_b, DIR "/b.fatbin"), 0);
    assert_string_not_equal(whole_a, whole_b);
    /* Other GPU code, another digest; an AMDGPU code object is GPU code too. */
    assert_int_equal(
        rpl_tune_code_digest(other, &kind, RPL_FIXTURES "/../inspect/recorded/regs.fatbin"), 0);
    assert_string_not_equal(a, other);
    assert_int_equal(rpl_tune_code_digest(other, &kind, RPL_FIXTURES "/hsa/kernels.hsaco"), 0);
    assert_string_equal(kind, "gpu_code");
    /* No GPU code: the whole file. */
    write_file(DIR "/script", "#!/bin/sh\nexec true\n");
    assert_int_equal(rpl_tune_code_digest(a, &kind, DIR "/script"), 0);
    assert_string_equal(kind, "binary");
    assert_int_equal(rpl_sha256_file(b, DIR "/script"), 0);
    assert_string_equal(a, b);
    assert_int_equal(rpl_tune_code_digest(a, &kind, DIR "/no-such-program"), RPL_ENOTFOUND);
}

static void inputs_digest(void **state)
{
    const char *build[] = {"nvcc", "-DBM=64", "-o", "{OUT}", DIR "/k.cu", NULL};
    const char *build2[] = {"nvcc", "-DBM=32", "-o", "{OUT}", DIR "/k.cu", NULL};
    char a[65], b[65];

    (void)state;
    write_file(DIR "/k.cu", "__global__ void k() {}\n");
    assert_int_equal(rpl_tune_inputs_digest(a, build), 0);
    assert_int_equal(rpl_tune_inputs_digest(b, build), 0);
    assert_string_equal(a, b);
    assert_int_equal(rpl_tune_inputs_digest(b, build2), 0);
    assert_string_not_equal(a, b);
    /* The source's content counts, not only its name. */
    write_file(DIR "/k.cu", "__global__ void k() { }\n");
    assert_int_equal(rpl_tune_inputs_digest(b, build), 0);
    assert_string_not_equal(a, b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sha256),        cmocka_unit_test(keys),
        cmocka_unit_test(round_trip),    cmocka_unit_test(not_ours),
        cmocka_unit_test(migrates_v1),   cmocka_unit_test(code_digest),
        cmocka_unit_test(inputs_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
