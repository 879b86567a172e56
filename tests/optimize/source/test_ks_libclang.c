/*
 * Finding libclang at run time: the search, the message when nothing is
 * found, a library that is not libclang, and the resource directory that
 * goes with the loaded version (derived, overridden, or badly overridden).
 */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ks_test.h"
#include "libclang.h"

static bool has_stddef(const char *dir)
{
    char path[4096];
    struct stat st;

    snprintf(path, sizeof(path), "%s/include/stddef.h", dir);
    return stat(path, &st) == 0;
}

static void test_not_found(void **state)
{
    const char *const none[] = {"/nonexistent/libclang.so", "libclang-does-not-exist.so.99", NULL};
    rpl_libclang *lc = NULL;

    (void)state;
    ks_test_error_has(rpl_libclang_load_from(&lc, none), RPL_EENV,
                      "libclang was not found (tried /nonexistent/libclang.so ... "
                      "libclang-does-not-exist.so.99)");
    assert_non_null(strstr(rpl_error_last()->message, "ROCM_PERF_LIBCLANG"));
    assert_null(strchr(rpl_error_last()->message, '\n'));
    assert_null(lc);
}

static void test_not_libclang(void **state)
{
    const char *const libm[] = {"libm.so.6", NULL};
    rpl_libclang *lc = NULL;

    (void)state;
    ks_test_error_has(rpl_libclang_load_from(&lc, libm), RPL_EENV,
                      "libm.so.6 is not a usable libclang: it lacks clang_createIndex");
    assert_null(lc);
}

static void test_default_search(void **state)
{
    rpl_libclang *lc = NULL;

    (void)state;
    unsetenv("ROCM_PERF_CLANG_RESOURCE_DIR");
    if (rpl_libclang_load_from(&lc, rpl_libclang_default_candidates()) != 0)
        fail_msg("%s", rpl_error_last()->message);
    assert_non_null(strstr(lc->version, "clang version"));
    assert_true(lc->major >= 14);
    assert_true(lc->path[0] == '/');
    assert_non_null(lc->resource_dir);
    assert_true(has_stddef(lc->resource_dir));
    /* The resource directory is the loaded version's. */
    char want[32];
    snprintf(want, sizeof(want), "/clang/%u", lc->major);
    assert_non_null(strstr(lc->resource_dir, want));
    rpl_libclang_release(lc);
}

/* Each LLVM tree on this machine: its own version and resource directory. */
static void test_each_installed_version(void **state)
{
    unsigned loaded = 0;

    (void)state;
    unsetenv("ROCM_PERF_CLANG_RESOURCE_DIR");
    for (unsigned v = 14; v <= 20; v++) {
        char path[128], prefix[128];
        snprintf(path, sizeof(path), "/usr/lib/llvm-%u/lib/libclang.so.1", v);
        if (access(path, R_OK) != 0)
            continue;
        const char *one[] = {path, NULL};
        rpl_libclang *lc = NULL;
        if (rpl_libclang_load_from(&lc, one) != 0)
            fail_msg("%s: %s", path, rpl_error_last()->message);
        assert_int_equal(lc->major, v);
        snprintf(prefix, sizeof(prefix), "/usr/lib/llvm-%u/lib/clang/%u", v, v);
        if (!lc->resource_dir || strncmp(lc->resource_dir, prefix, strlen(prefix)) != 0)
            fail_msg("%s: resource directory %s", path,
                     lc->resource_dir ? lc->resource_dir : "none");
        rpl_libclang_release(lc);
        loaded++;
    }
    /* The default search found one above, so at least one tree is here. */
    assert_true(loaded >= 1);
}

static void test_resource_dir_override(void **state)
{
    rpl_libclang *lc = NULL, *again = NULL;

    (void)state;
    unsetenv("ROCM_PERF_CLANG_RESOURCE_DIR");
    assert_int_equal(rpl_libclang_load_from(&lc, rpl_libclang_default_candidates()), 0);
    setenv("ROCM_PERF_CLANG_RESOURCE_DIR", lc->resource_dir, 1);
    assert_int_equal(rpl_libclang_load_from(&again, rpl_libclang_default_candidates()), 0);
    assert_string_equal(again->resource_dir, lc->resource_dir);
    rpl_libclang_release(again);
    again = NULL;
    setenv("ROCM_PERF_CLANG_RESOURCE_DIR", KS_DIR, 1);
    ks_test_error_has(rpl_libclang_load_from(&again, rpl_libclang_default_candidates()), RPL_EENV,
                      "ROCM_PERF_CLANG_RESOURCE_DIR=" KS_DIR " is not a clang resource directory");
    assert_null(again);
    unsetenv("ROCM_PERF_CLANG_RESOURCE_DIR");
    rpl_libclang_release(lc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_not_found),
        cmocka_unit_test(test_not_libclang),
        cmocka_unit_test(test_default_search),
        cmocka_unit_test(test_each_installed_version),
        cmocka_unit_test(test_resource_dir_override),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
