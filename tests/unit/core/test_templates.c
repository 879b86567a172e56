/* The templates folder: given, from ROCM_PERF_TEMPLATES, or the source tree's, holding a file. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/templates.h"

#define PROBE "kernel-test/kernel.in"

static void given_or_from_the_environment(void **state)
{
    char dir[PATH_MAX];

    (void)state;
    unsetenv("ROCM_PERF_TEMPLATES");
    assert_int_equal(rpl_templates_dir(dir, sizeof(dir), RPL_TEST_TEMPLATES, PROBE), 0);
    assert_string_equal(dir, RPL_TEST_TEMPLATES);
    assert_int_equal(rpl_templates_dir(dir, sizeof(dir), RPL_TEST_TMP, PROBE), RPL_EENV);
    assert_string_equal(rpl_error_last()->message,
                        "'" RPL_TEST_TMP "' holds no kernel-test/kernel.in template");
    /* The environment is not searched further when it names a folder without the file. */
    setenv("ROCM_PERF_TEMPLATES", RPL_TEST_TMP, 1);
    assert_int_equal(rpl_templates_dir(dir, sizeof(dir), NULL, PROBE), RPL_EENV);
    setenv("ROCM_PERF_TEMPLATES", RPL_TEST_TEMPLATES, 1);
    assert_int_equal(rpl_templates_dir(dir, sizeof(dir), NULL, PROBE), 0);
    assert_string_equal(dir, RPL_TEST_TEMPLATES);
    unsetenv("ROCM_PERF_TEMPLATES");
}

/* Not installed beside this test program: the source tree's, or RPL_EENV for a missing file. */
static void the_source_tree_last(void **state)
{
    char dir[PATH_MAX];

    (void)state;
    unsetenv("ROCM_PERF_TEMPLATES");
    assert_int_equal(rpl_templates_dir(dir, sizeof(dir), NULL, PROBE), 0);
    assert_string_equal(dir, RPL_TEST_TEMPLATES);
    assert_int_equal(rpl_templates_dir(dir, sizeof(dir), NULL, "no/such.in"), RPL_EENV);
    assert_non_null(strstr(rpl_error_last()->message, "templates not found beside the program"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(given_or_from_the_environment),
        cmocka_unit_test(the_source_tree_last),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
