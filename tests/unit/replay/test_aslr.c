/* rpl_replay_ensure_no_aslr through a helper program (aslr_child.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/spawn.h"

static bool system_aslr_off(void)
{
    FILE *f = fopen("/proc/sys/kernel/randomize_va_space", "r");
    int c = f ? fgetc(f) : EOF;

    if (f)
        fclose(f);
    return c == '0';
}

/* The child's one line of output (static buffer). */
static const char *child(const char *mode)
{
    static char line[512];
    const char *argv[] = {RPL_ASLR_CHILD, mode, NULL};
    rpl_spawn_opts so = {.argv = argv, .capture_stdout = true, .timeout_ms = 20000};
    rpl_spawn_result res = {0};

    assert_int_equal(rpl_spawn_run(&res, &so), 0);
    assert_true(res.exited);
    assert_int_equal(res.exit_code, 0);
    snprintf(line, sizeof(line), "%s", res.out);
    rpl_spawn_result_release(&res);
    return line;
}

static void test_reexec(void **state)
{
    const char *out;
    char first[512];
    const char *map;

    (void)state;
    out = child("reexec");
    if (system_aslr_off()) {
        /* Nothing to do: no re-execution. */
        assert_non_null(strstr(out, "rc=0 second=0 aslr_off=1 marker=unset"));
        return;
    }
    /* It ran again as its own copy, with ASLR off and the marker gone. */
    if (!strstr(out, "rc=0 second=1 aslr_off=1 marker=unset"))
        fail_msg("child said: %s", out);
    /* And the address space repeats: the same mapping address in a second run. */
    map = strstr(out, "map=");
    assert_non_null(map);
    snprintf(first, sizeof(first), "%s", map);
    out = child("reexec");
    assert_non_null(strstr(out, first));
}

/*
 * After the call every thread allocates from the main heap: a thread arena
 * of its own would be a 64 MiB mapping under the libraries, which pushes the
 * CUDA driver's address arena further down.  Checked in the guard case too,
 * where ASLR stays on.
 */
static void test_one_heap(void **state)
{
#if defined(__SANITIZE_ADDRESS__)
    const char *want = "thread_heap=sanitizer";
#else
    const char *want = "thread_heap=main";
#endif
    const char *out;

    (void)state;
    out = child("reexec");
    if (!strstr(out, want))
        fail_msg("child said: %s", out);
    out = child("guard");
    if (!strstr(out, want))
        fail_msg("child said: %s", out);
}

static void test_loop_guard(void **state)
{
    const char *out;

    (void)state;
    out = child("guard");
    if (system_aslr_off()) {
        assert_non_null(strstr(out, "rc=0"));
        return;
    }
    if (!strstr(out, "rc=-7 second=0 aslr_off=0 marker=unset"))
        fail_msg("child said: %s", out);
    assert_non_null(strstr(out, "msg=ASLR is still on after re-executing"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reexec),
        cmocka_unit_test(test_loop_guard),
        cmocka_unit_test(test_one_heap),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
