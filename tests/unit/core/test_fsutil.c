/* rpl_path_join, rpl_mkdir_p, rpl_file_read_all, rpl_file_write_atomic. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"

#define TMP RPL_TEST_TMP "/fsutil"

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void assert_file_text(const char *path, const char *want)
{
    char *text;
    size_t len;

    assert_int_equal(rpl_file_read_all(path, 1 << 20, &text, &len), 0);
    assert_string_equal(text, want);
    assert_int_equal(len, strlen(want));
    free(text);
}

/* Only the named entries are in `dir` (no temporary file left behind). */
static void assert_dir_holds(const char *dir, const char *only)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;

    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (strcmp(e->d_name, only) != 0)
            fail_msg("unexpected entry '%s' in '%s'", e->d_name, dir);
        found++;
    }
    closedir(d);
    assert_int_equal(found, 1);
}

static int setup(void **state)
{
    char cmd[] = "rm -rf '" TMP "'";

    if (system(cmd) != 0)
        return -1;
    return rpl_mkdir_p(TMP);
}

static void join_accepts_normal_paths(void **state)
{
    const char *ok[][3] = {
        {"base", "a", "base/a"},
        {"base/", "a/b.json", "base/a/b.json"},
        {"/abs/base", "x/./y", "/abs/base/x/./y"},
        {"base", "...", "base/..."},
        {"base", "a..b/..c/d..", "base/a..b/..c/d.."},
        {"base", ".hidden", "base/.hidden"},
        {"", "rel", "rel"},
    };

    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        char *out = NULL;
        assert_int_equal(rpl_path_join(&out, ok[i][0], ok[i][1]), 0);
        assert_string_equal(out, ok[i][2]);
        free(out);
    }
}

static void join_rejects_escapes(void **state)
{
    const char *bad[] = {"/etc/passwd",  "..",       "../x", "a/..", "a/../b",
                         "a/b/../../..", "a//..//b", "",     "//x"};

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *out = (char *)"untouched";
        rpl_error_clear();
        assert_int_equal(rpl_path_join(&out, "base", bad[i]), RPL_EINPUT);
        assert_null(out);
        assert_int_equal(rpl_error_last()->code, RPL_EINPUT);
        assert_true(rpl_error_last()->message[0] != '\0');
    }
}

static void mkdir_p_creates_parents(void **state)
{
    struct stat st;

    assert_int_equal(rpl_mkdir_p(TMP "/m/a/b/c"), 0);
    assert_int_equal(stat(TMP "/m/a/b/c", &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    /* Existing is fine, trailing and doubled slashes too. */
    assert_int_equal(rpl_mkdir_p(TMP "/m/a/b/c"), 0);
    assert_int_equal(rpl_mkdir_p(TMP "/m//a/d/"), 0);
    assert_int_equal(stat(TMP "/m/a/d", &st), 0);
}

static void mkdir_p_reports_file_in_the_way(void **state)
{
    write_text(TMP "/file", "x");
    assert_int_equal(rpl_mkdir_p(TMP "/file"), RPL_EIO);
    assert_non_null(strstr(rpl_error_last()->message, "file"));
    assert_int_equal(rpl_mkdir_p(TMP "/file/sub"), RPL_EIO);
    assert_int_equal(rpl_mkdir_p(""), RPL_EINPUT);
}

static void read_all_honours_size_limit(void **state)
{
    char *text = (char *)"untouched";
    size_t len = 99;

    write_text(TMP "/ten", "0123456789");
    assert_int_equal(rpl_file_read_all(TMP "/ten", 10, &text, &len), 0);
    assert_string_equal(text, "0123456789");
    assert_int_equal(len, 10);
    free(text);

    assert_int_equal(rpl_file_read_all(TMP "/ten", 9, &text, &len), RPL_EINPUT);
    assert_null(text);
    assert_non_null(strstr(rpl_error_last()->message, "9 bytes"));

    assert_int_equal(rpl_file_read_all(TMP "/missing", 10, &text, NULL), RPL_ENOTFOUND);
    assert_null(text);

    write_text(TMP "/empty", "");
    assert_int_equal(rpl_file_read_all(TMP "/empty", 10, &text, &len), 0);
    assert_string_equal(text, "");
    assert_int_equal(len, 0);
    free(text);

    /* Limits of whole MiB are said in MiB. */
    write_text(TMP "/big", "x");
    assert_int_equal(truncate(TMP "/big", (1 << 20) + 1), 0);
    assert_int_equal(rpl_file_read_all(TMP "/big", 1u << 20, &text, &len), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "big' is larger than 1 MiB"));

    /* A directory where a file is expected is bad input (exit 2), not the environment. */
    assert_int_equal(rpl_file_read_all(TMP, 10, &text, &len), RPL_EINPUT);
    assert_null(text);
    assert_non_null(strstr(rpl_error_last()->message, "is a directory, not a file"));
}

static void write_atomic_replaces(void **state)
{
    assert_int_equal(rpl_mkdir_p(TMP "/w"), 0);
    assert_int_equal(rpl_file_write_atomic(TMP "/w/f", "first", 5), 0);
    assert_file_text(TMP "/w/f", "first");
    assert_int_equal(rpl_file_write_atomic(TMP "/w/f", "second!", 7), 0);
    assert_file_text(TMP "/w/f", "second!");
    assert_dir_holds(TMP "/w", "f");
}

/*
 * A directory nobody may write into.  root ignores permissions, so the write
 * is tried in a child that drops to "nobody" when it runs as root.
 */
static void write_atomic_in_unwritable_dir_keeps_old(void **state)
{
    char top[] = "/tmp/rpl-core-fsutil-XXXXXX", dir[64], file[64];
    int status;
    pid_t pid;

    /* Under /tmp so that "nobody" can reach it; the build tree may be private. */
    assert_non_null(mkdtemp(top));
    assert_int_equal(chmod(top, 0755), 0);
    snprintf(dir, sizeof(dir), "%s/ro", top);
    snprintf(file, sizeof(file), "%s/ro/f", top);
    assert_int_equal(rpl_mkdir_p(dir), 0);
    write_text(file, "old");
    assert_int_equal(chmod(dir, 0555), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
            _exit(2);
        _exit(rpl_file_write_atomic(file, "new", 3) == RPL_EIO ? 0 : 1);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_file_text(file, "old");
    assert_dir_holds(dir, "f");
    chmod(dir, 0755);
    unlink(file);
    rmdir(dir);
    rmdir(top);
}

/* The write itself fails (file size limit): old file kept, temporary removed. */
static void write_atomic_failed_write_keeps_old(void **state)
{
    char data[8192];
    struct rlimit old, small;
    void (*old_handler)(int);
    int rc;

    assert_int_equal(rpl_mkdir_p(TMP "/fw"), 0);
    write_text(TMP "/fw/f", "old");
    memset(data, 'x', sizeof(data));
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = old;
    small.rlim_cur = 100;
    old_handler = signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    rc = rpl_file_write_atomic(TMP "/fw/f", data, sizeof(data));
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, old_handler);
    assert_int_equal(rc, RPL_EIO);
    assert_non_null(strstr(rpl_error_last()->message, "cannot write"));
    assert_file_text(TMP "/fw/f", "old");
    assert_dir_holds(TMP "/fw", "f");
}

/* rename() fails (a non-empty directory has the name): nothing left behind. */
static void write_atomic_failed_rename_cleans_up(void **state)
{
    struct stat st;

    assert_int_equal(rpl_mkdir_p(TMP "/fr/target"), 0);
    write_text(TMP "/fr/target/inner", "keep");
    assert_int_equal(rpl_file_write_atomic(TMP "/fr/target", "data", 4), RPL_EIO);
    assert_non_null(strstr(rpl_error_last()->message, "rename"));
    assert_int_equal(stat(TMP "/fr/target", &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_file_text(TMP "/fr/target/inner", "keep");
    assert_dir_holds(TMP "/fr", "target");
}

static void write_atomic_missing_dir_fails(void **state)
{
    struct stat st;

    assert_int_equal(rpl_file_write_atomic(TMP "/nodir/f", "x", 1), RPL_EIO);
    assert_non_null(strstr(rpl_error_last()->message, "nodir/f"));
    assert_int_not_equal(stat(TMP "/nodir", &st), 0);
}

static void temp_siblings_differ(void **state)
{
    char *a, *b;

    assert_int_equal(rpl_path_temp_sibling(&a, "/x/y"), 0);
    assert_int_equal(rpl_path_temp_sibling(&b, "/x/y"), 0);
    assert_true(strncmp(a, "/x/y.tmp.", 9) == 0);
    assert_string_not_equal(a, b);
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(join_accepts_normal_paths),
        cmocka_unit_test(join_rejects_escapes),
        cmocka_unit_test(mkdir_p_creates_parents),
        cmocka_unit_test(mkdir_p_reports_file_in_the_way),
        cmocka_unit_test(read_all_honours_size_limit),
        cmocka_unit_test(write_atomic_replaces),
        cmocka_unit_test(write_atomic_in_unwritable_dir_keeps_old),
        cmocka_unit_test(write_atomic_failed_write_keeps_old),
        cmocka_unit_test(write_atomic_failed_rename_cleans_up),
        cmocka_unit_test(write_atomic_missing_dir_fails),
        cmocka_unit_test(temp_siblings_differ),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
