/* The options optimize and llm-optimize share (rpl/optimize.h): the target's forms, the
   checks across options, the limits of -I/-D and --verify-run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/optimize.h"

/* rpl_optimize_opts_finish on `o` with the words `args`; the status. */
static int finish(rpl_optimize_opts *o, int nargs, char *const *args)
{
    return rpl_optimize_opts_finish(o, "optimize", nargs, args);
}

static void assert_refused(int rc, const char *want)
{
    assert_int_not_equal(rc, 0);
    if (!strstr(rpl_error_last()->message, want))
        fail_msg("message '%s' lacks '%s'", rpl_error_last()->message, want);
}

static void seed_form(void **state)
{
    char *args[] = {"k.hip", "./k -n 4"};
    rpl_optimize_opts o;

    (void)state;
    rpl_optimize_opts_init(&o);
    assert_int_equal(finish(&o, 2, args), 0);
    assert_string_equal(o.source, "k.hip");
    assert_string_equal(o.app_args, "./k -n 4");
    assert_non_null(o.pipe.progress);

    rpl_optimize_opts_init(&o);
    assert_refused(finish(&o, 1, args), "optimize needs SOURCE \"APP ARGS\"");
    char *blank[] = {"k.hip", " \t"};
    assert_refused(finish(&o, 2, blank), "\"APP ARGS\" is empty");
}

static void run_form(void **state)
{
    char *args[] = {"k.hip", "extra"};
    rpl_optimize_opts o;

    (void)state;
    rpl_optimize_opts_init(&o);
    o.run_cmd = "{out} -n 8";
    assert_int_equal(finish(&o, 1, args), 0);
    assert_string_equal(o.source, "k.hip");
    assert_null(o.app_args);
    assert_refused(finish(&o, 2, args), "with --run, optimize takes SOURCE alone");

    rpl_optimize_opts_init(&o);
    o.run_cmd = "./k -n 8"; /* no {out} */
    assert_int_equal(finish(&o, 1, args), RPL_EINPUT);
}

static void test_form(void **state)
{
    char *args[] = {"k.hip"};
    rpl_optimize_opts o;

    (void)state;
    rpl_optimize_opts_init(&o);
    o.test = "saxpy";
    assert_refused(finish(&o, 0, args), "--test needs --build-dir DIR");
    o.build_dir = "build";
    assert_int_equal(finish(&o, 0, args), 0);
    assert_null(o.source);
    assert_refused(finish(&o, 1, args), "--test takes no SOURCE; unexpected 'k.hip'");
    o.compile_commands = "cc.json";
    assert_refused(finish(&o, 0, args), "no --build, --run or --compile-commands");
    o.compile_commands = NULL;
    o.test = "../etc";
    assert_refused(finish(&o, 0, args), "--test '../etc' is not a test name");
}

static void tolerances_together(void **state)
{
    char *args[] = {"k.hip", "./k"};
    rpl_optimize_opts o;

    (void)state;
    rpl_optimize_opts_init(&o);
    o.have_rtol = true;
    assert_refused(finish(&o, 2, args), "--rtol and --atol go together");
    o.have_atol = true;
    o.allow_dirty = true;
    assert_int_equal(finish(&o, 2, args), 0);
    assert_true(o.pipe.have_tolerance);
    assert_true(o.pipe.allow_dirty);
}

static void limits(void **state)
{
    rpl_optimize_opts o;

    (void)state;
    rpl_optimize_opts_init(&o);
    for (int i = 0; i < RPL_OPTIMIZE_MAX_FLAGS / 2; i++)
        assert_int_equal(rpl_optimize_opts_add_cflag(&o, i % 2 ? "-I" : "-D", "x"), 0);
    assert_refused(rpl_optimize_opts_add_cflag(&o, "-I", "y"), "too many -I/-D options");
    assert_int_equal(o.ncflags, RPL_OPTIMIZE_MAX_FLAGS);
    assert_string_equal(o.cflags[0], "-D");
    assert_null(o.cflags[RPL_OPTIMIZE_MAX_FLAGS]);

    assert_refused(rpl_optimize_opts_add_verify_run(&o, " \t"), "wants the program's arguments");
    for (int i = 0; i < RPL_OPTIMIZE_MAX_VERIFY_RUNS; i++)
        assert_int_equal(rpl_optimize_opts_add_verify_run(&o, "-n 4"), 0);
    assert_refused(rpl_optimize_opts_add_verify_run(&o, "-n 4"), "at most 16 --verify-run");
    assert_ptr_equal(o.pipe.verify_runs, o.verify_runs);
    assert_null(o.verify_runs[RPL_OPTIMIZE_MAX_VERIFY_RUNS]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(seed_form), cmocka_unit_test(run_form),
        cmocka_unit_test(test_form), cmocka_unit_test(tolerances_together),
        cmocka_unit_test(limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
