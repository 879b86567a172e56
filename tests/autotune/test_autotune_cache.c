/*
 * The measurement cache: SHA-256 (a known digest), keys that change with
 * every part, entries that survive closing, and files that are not an
 * autotune cache (another program's database, a newer schema, not SQLite).
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
    assert_int_equal(rpl_sha256_file(hex, RPL_TEST_TMP "/abc.txt"), RPL_OK);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_int_equal(rpl_sha256_file(hex, RPL_TEST_TMP "/no-such-file"), RPL_ENOTFOUND);
}

static void keys(void **state)
{
    const char *argv[] = {"./k", "--bm", "64", NULL}, *argv2[] = {"./k", "--bm", "64 ", NULL};
    const char *build[] = {"cc", "-o", "{OUT}", NULL};
    rpl_tune_key_parts p = {"./k --bm {BM}", argv, build, "ab", "MI300X", "6.8", "s"};
    rpl_tune_key_parts q;
    char k1[65], k2[65];

    (void)state;
    assert_int_equal(rpl_tune_key(k1, &p), RPL_OK);
    assert_int_equal(rpl_tune_key(k2, &p), RPL_OK);
    assert_string_equal(k1, k2);
    assert_int_equal(strlen(k1), 64);
    /* Each part counts, and word boundaries count. */
    for (int i = 0; i < 8; i++) {
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
            q.binary_sha256 = "ac";
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
        assert_int_equal(rpl_tune_key(k2, &q), RPL_OK);
        assert_string_not_equal(k1, k2);
    }
}

static void round_trip(void **state)
{
    const char *argv[] = {"./k", NULL};
    rpl_tune_key_parts p = {"./k", argv, NULL, "", "", "", "s"};
    double samples[] = {100.5, 101.25, 99};
    rpl_tune_entry e = {samples, 3, "k(float*)", "MI300X", true, 2}, got;
    rpl_tune_cache *c = NULL;

    (void)state;
    unlink(DIR "/sub/c.db");
    assert_int_equal(rpl_tune_cache_open(&c, DIR "/sub/c.db"), RPL_OK); /* makes the folder */
    assert_int_equal(rpl_tune_cache_get(c, "k1", &got), RPL_ENOTFOUND);
    assert_int_equal(rpl_tune_cache_put(c, "k1", &p, &e), RPL_OK);
    rpl_tune_cache_close(c);
    assert_int_equal(rpl_tune_cache_open(&c, DIR "/sub/c.db"), RPL_OK);
    assert_int_equal(rpl_tune_cache_get(c, "k1", &got), RPL_OK);
    assert_int_equal(got.nsamples, 3);
    assert_memory_equal(got.samples, samples, sizeof(samples));
    assert_string_equal(got.kernel, "k(float*)");
    assert_true(got.unstable);
    rpl_tune_entry_release(&got);
    /* Replacing an entry. */
    e.nsamples = 2;
    e.unstable = false;
    assert_int_equal(rpl_tune_cache_put(c, "k1", &p, &e), RPL_OK);
    assert_int_equal(rpl_tune_cache_get(c, "k1", &got), RPL_OK);
    assert_int_equal(got.nsamples, 2);
    assert_false(got.unstable);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sha256),
        cmocka_unit_test(keys),
        cmocka_unit_test(round_trip),
        cmocka_unit_test(not_ours),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
