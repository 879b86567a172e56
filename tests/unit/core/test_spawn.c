/*
 * rpl_spawn_run: capture, exit status, environment, cwd, time limit, big
 * output; rpl_spawn_last_line.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/spawn.h"

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run the test child with the given actions, capturing both streams. */
static int run_child(rpl_spawn_result *res, rpl_spawn_opts *opts, const char *const *actions)
{
    const char *argv[16] = {RPL_SPAWN_CHILD};
    size_t n = 1;

    for (; actions[n - 1]; n++)
        argv[n] = actions[n - 1];
    argv[n] = NULL;
    opts->argv = argv;
    return rpl_spawn_run(res, opts);
}

static void assert_pattern(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != (char)('a' + i % 26))
            fail_msg("byte %zu is '%c'", i, p[i]);
}

static void captures_stdout_and_stderr_apart(void **state)
{
    rpl_spawn_opts o = {.capture_stdout = true, .capture_stderr = true};
    rpl_spawn_result r;

    assert_int_equal(run_child(&r, &o, (const char *[]){"o:to out", "e:to err", "o:!", NULL}), 0);
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 0);
    assert_false(r.timed_out);
    assert_string_equal(r.out, "to out!");
    assert_int_equal(r.out_len, 7);
    assert_string_equal(r.err, "to err");
    assert_int_equal(r.err_len, 6);
    rpl_spawn_result_release(&r);
    assert_null(r.out);
}

static void silent_child_gives_empty_strings(void **state)
{
    rpl_spawn_opts o = {.capture_stdout = true, .capture_stderr = true};
    rpl_spawn_result r;

    assert_int_equal(run_child(&r, &o, (const char *[]){NULL}), 0);
    assert_non_null(r.out);
    assert_non_null(r.err);
    assert_int_equal(r.out_len + r.err_len, 0);
    rpl_spawn_result_release(&r);
}

static void uncaptured_streams_are_null(void **state)
{
    rpl_spawn_opts o = {.capture_stderr = true};
    rpl_spawn_result r;

    assert_int_equal(run_child(&r, &o, (const char *[]){"e:x", NULL}), 0);
    assert_null(r.out);
    assert_string_equal(r.err, "x");
    rpl_spawn_result_release(&r);
}

static void exit_codes_and_signals(void **state)
{
    rpl_spawn_opts o = {0};
    rpl_spawn_result r;
    char sig[16];

    assert_int_equal(run_child(&r, &o, (const char *[]){"exit:3", NULL}), 0);
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 3);
    rpl_spawn_result_release(&r);

    /* 127 from a program that ran is an exit code, not "not found". */
    assert_int_equal(run_child(&r, &o, (const char *[]){"exit:127", NULL}), 0);
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 127);
    rpl_spawn_result_release(&r);

    snprintf(sig, sizeof(sig), "raise:%d", SIGUSR1);
    assert_int_equal(run_child(&r, &o, (const char *[]){sig, NULL}), 0);
    assert_false(r.exited);
    assert_int_equal(r.term_signal, SIGUSR1);
    rpl_spawn_result_release(&r);
}

static void looks_up_path(void **state)
{
    const char *argv[] = {"sh", "-c", "echo \"$0\"", "via-path", NULL};
    rpl_spawn_opts o = {.argv = argv, .capture_stdout = true};
    rpl_spawn_result r;

    assert_int_equal(rpl_spawn_run(&r, &o), 0);
    assert_string_equal(r.out, "via-path\n");
    rpl_spawn_result_release(&r);
}

static void env_set_reaches_child_and_replaces(void **state)
{
    const char *env[] = {"RPL_SPAWN_NEW=fresh", "RPL_SPAWN_OLD=replaced", "RPL_SPAWN_TWICE=1",
                         "RPL_SPAWN_TWICE=2", NULL};
    rpl_spawn_opts o = {.env_set = env, .capture_stdout = true};
    rpl_spawn_result r;

    assert_int_equal(setenv("RPL_SPAWN_OLD", "original", 1), 0);
    assert_int_equal(setenv("RPL_SPAWN_KEPT", "inherited", 1), 0);
    assert_int_equal(
        run_child(&r, &o,
                  (const char *[]){"env:RPL_SPAWN_NEW", "o:|", "env:RPL_SPAWN_OLD", "o:|",
                                   "env:RPL_SPAWN_KEPT", "o:|", "env:RPL_SPAWN_TWICE", "o:|",
                                   "envcount:RPL_SPAWN_OLD", "o:|", "envcount:RPL_SPAWN_TWICE",
                                   NULL}),
        0);
    assert_string_equal(r.out, "fresh|replaced|inherited|2|1|1");
    rpl_spawn_result_release(&r);
    /* The caller's own environment is untouched. */
    assert_string_equal(getenv("RPL_SPAWN_OLD"), "original");
    assert_null(getenv("RPL_SPAWN_NEW"));
    unsetenv("RPL_SPAWN_OLD");
    unsetenv("RPL_SPAWN_KEPT");
}

static void bad_env_entry_is_usage_error(void **state)
{
    const char *env[] = {"NO_EQUALS_SIGN", NULL};
    rpl_spawn_opts o = {.env_set = env};
    rpl_spawn_result r;

    assert_int_equal(run_child(&r, &o, (const char *[]){NULL}), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "NO_EQUALS_SIGN"));
    rpl_spawn_result_release(&r);
}

static void cwd_is_honoured(void **state)
{
    char want[4096];
    rpl_spawn_opts o = {.cwd = RPL_TEST_TMP, .capture_stdout = true};
    rpl_spawn_result r;

    assert_non_null(realpath(RPL_TEST_TMP, want));
    assert_int_equal(run_child(&r, &o, (const char *[]){"cwd", NULL}), 0);
    assert_string_equal(r.out, want);
    rpl_spawn_result_release(&r);

    o.cwd = RPL_TEST_TMP "/no-such-dir";
    assert_int_equal(run_child(&r, &o, (const char *[]){"cwd", NULL}), RPL_ENOTFOUND);
    assert_non_null(strstr(rpl_error_last()->message, "no-such-dir"));
    rpl_spawn_result_release(&r);
}

static void missing_program_is_not_found(void **state)
{
    const char *argv[] = {"rpl-no-such-program-4711", NULL};
    rpl_spawn_opts o = {.argv = argv, .capture_stdout = true};
    rpl_spawn_result r;

    assert_int_equal(rpl_spawn_run(&r, &o), RPL_ENOTFOUND);
    assert_non_null(strstr(rpl_error_last()->message, "'rpl-no-such-program-4711'"));
    assert_null(strchr(rpl_error_last()->message, '\n'));
    rpl_spawn_result_release(&r);

    argv[0] = RPL_TEST_TMP "/no/such/program";
    assert_int_equal(rpl_spawn_run(&r, &o), RPL_ENOTFOUND);
    rpl_spawn_result_release(&r);
}

static void non_executable_file_is_not_found(void **state)
{
    const char *path = RPL_TEST_TMP "/spawn-not-executable";
    const char *argv[] = {path, NULL};
    rpl_spawn_opts o = {.argv = argv};
    rpl_spawn_result r;
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs("#!/bin/sh\nexit 0\n", f);
    fclose(f);
    assert_int_equal(chmod(path, 0644), 0);
    assert_int_equal(rpl_spawn_run(&r, &o), RPL_ENOTFOUND);
    assert_non_null(strstr(rpl_error_last()->message, "spawn-not-executable"));
    rpl_spawn_result_release(&r);
    unlink(path);
}

static void timeout_stops_sleep(void **state)
{
    const char *argv[] = {"sleep", "30", NULL};
    rpl_spawn_opts o = {
        .argv = argv, .timeout_ms = 300, .capture_stdout = true, .capture_stderr = true};
    rpl_spawn_result r;
    double t0 = now_s(), dt;

    assert_int_equal(rpl_spawn_run(&r, &o), RPL_ETIMEOUT);
    dt = now_s() - t0;
    assert_true(r.timed_out);
    assert_false(r.exited);
    assert_int_equal(r.term_signal, SIGTERM);
    assert_true(dt >= 0.29 && dt < 3.0);
    assert_non_null(strstr(rpl_error_last()->message, "'sleep'"));
    rpl_spawn_result_release(&r);
}

static void timeout_escalates_to_sigkill(void **state)
{
    rpl_spawn_opts o = {.timeout_ms = 200, .capture_stdout = true};
    rpl_spawn_result r;
    double t0 = now_s(), dt;

    assert_int_equal(run_child(&r, &o, (const char *[]){"ignterm", "o:ready", "sleep:30000", NULL}),
                     RPL_ETIMEOUT);
    dt = now_s() - t0;
    assert_true(r.timed_out);
    assert_int_equal(r.term_signal, SIGKILL);
    assert_string_equal(r.out, "ready");
    assert_true(dt >= 2.1 && dt < 4.0);
    rpl_spawn_result_release(&r);
}

static void timeout_holds_without_pipes(void **state)
{
    rpl_spawn_opts o = {.timeout_ms = 200, .capture_stdout = true, .capture_stderr = true};
    rpl_spawn_result r;
    double t0 = now_s();

    /* The child closes both pipes first: the limit must still hold. */
    assert_int_equal(run_child(&r, &o, (const char *[]){"close", "sleep:30000", NULL}),
                     RPL_ETIMEOUT);
    assert_true(now_s() - t0 < 3.0);
    assert_int_equal(r.term_signal, SIGTERM);
    rpl_spawn_result_release(&r);

    o.capture_stdout = o.capture_stderr = false;
    t0 = now_s();
    assert_int_equal(run_child(&r, &o, (const char *[]){"sleep:30000", NULL}), RPL_ETIMEOUT);
    assert_true(now_s() - t0 < 3.0);
    assert_true(r.timed_out);
    rpl_spawn_result_release(&r);
}

static void fast_child_is_not_timed_out(void **state)
{
    rpl_spawn_opts o = {.timeout_ms = 10000, .capture_stdout = true};
    rpl_spawn_result r;
    double t0 = now_s();

    assert_int_equal(run_child(&r, &o, (const char *[]){"o:quick", "exit:4", NULL}), 0);
    assert_false(r.timed_out);
    assert_int_equal(r.exit_code, 4);
    assert_string_equal(r.out, "quick");
    assert_true(now_s() - t0 < 1.0);
    rpl_spawn_result_release(&r);
}

static void descendant_holding_pipe_does_not_hang(void **state)
{
    /* sh exits at once; its background sleep keeps the pipes open for 3 s. */
    const char *argv[] = {"sh", "-c", "sleep 3 & echo started", NULL};
    rpl_spawn_opts o = {
        .argv = argv, .timeout_ms = 400, .capture_stdout = true, .capture_stderr = true};
    rpl_spawn_result r;
    double t0 = now_s(), dt;

    assert_int_equal(rpl_spawn_run(&r, &o), 0);
    dt = now_s() - t0;
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 0);
    assert_false(r.timed_out);
    assert_string_equal(r.out, "started\n");
    assert_true(dt < 2.0);
    rpl_spawn_result_release(&r);
}

static void output_beyond_limit_is_drained(void **state)
{
    rpl_spawn_opts o = {
        .capture_stdout = true, .capture_stderr = true, .capture_limit = 1000, .timeout_ms = 20000};
    rpl_spawn_result r;

    assert_int_equal(run_child(&r, &o, (const char *[]){"O:3000000", "e:done", NULL}), 0);
    /* The child wrote everything (no SIGPIPE, no block) and finished normally. */
    assert_true(r.exited);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.out_len, 1000);
    assert_int_equal(strlen(r.out), 1000);
    assert_pattern(r.out, r.out_len);
    assert_string_equal(r.err, "done");
    rpl_spawn_result_release(&r);
}

static void default_limit_is_16_mib(void **state)
{
    rpl_spawn_opts o = {.capture_stdout = true, .timeout_ms = 60000};
    rpl_spawn_result r;

    assert_int_equal(run_child(&r, &o, (const char *[]){"O:17825792", NULL}), 0);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.out_len, (size_t)16 << 20);
    assert_pattern(r.out, r.out_len);
    rpl_spawn_result_release(&r);
}

static void both_pipes_full_do_not_deadlock(void **state)
{
    rpl_spawn_opts o = {.capture_stdout = true, .capture_stderr = true, .timeout_ms = 20000};
    rpl_spawn_result r;

    /* 1 MiB to each stream, interleaved, far beyond the 64 KiB pipe buffers. */
    assert_int_equal(run_child(&r, &o, (const char *[]){"B:1048576", NULL}), 0);
    assert_false(r.timed_out);
    assert_int_equal(r.exit_code, 0);
    assert_int_equal(r.out_len, 1048576);
    assert_int_equal(r.err_len, 1048576);
    assert_pattern(r.out, r.out_len);
    assert_pattern(r.err, r.err_len);
    rpl_spawn_result_release(&r);

    /* stderr filled completely before stdout is written at all. */
    assert_int_equal(run_child(&r, &o, (const char *[]){"E:300000", "O:300000", NULL}), 0);
    assert_false(r.timed_out);
    assert_int_equal(r.out_len, 300000);
    assert_int_equal(r.err_len, 300000);
    rpl_spawn_result_release(&r);
}

static void child_gets_default_sigpipe(void **state)
{
    rpl_spawn_opts o = {.capture_stdout = true};
    rpl_spawn_result r;
    void (*old)(int) = signal(SIGPIPE, SIG_IGN);

    assert_int_equal(run_child(&r, &o, (const char *[]){"sigpipe", NULL}), 0);
    assert_string_equal(r.out, "default");
    rpl_spawn_result_release(&r);
    signal(SIGPIPE, old);
}

static void no_program_is_usage_error(void **state)
{
    const char *argv[] = {NULL};
    rpl_spawn_opts o = {.argv = argv};
    rpl_spawn_result r;

    assert_int_equal(rpl_spawn_run(&r, &o), RPL_EUSAGE);
    rpl_spawn_result_release(&r);
    o.argv = (const char *[]){"true", NULL};
    o.timeout_ms = -1;
    assert_int_equal(rpl_spawn_run(&r, &o), RPL_EUSAGE);
    rpl_spawn_result_release(&r);
}

static void last_line_is_the_last_non_empty_one(void **state)
{
    char buf[8];

    (void)state;
    assert_string_equal(rpl_spawn_last_line(buf, sizeof(buf), "one\ntwo\r\n \n\n"), "two");
    assert_string_equal(rpl_spawn_last_line(buf, sizeof(buf), "only"), "only");
    /* Cut to the buffer, from the line's start. */
    assert_string_equal(rpl_spawn_last_line(buf, sizeof(buf), "x\nabcdefghij\n"), "abcdefg");
    assert_string_equal(rpl_spawn_last_line(buf, sizeof(buf), "\n \r\n"), "");
    assert_string_equal(rpl_spawn_last_line(buf, sizeof(buf), NULL), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(captures_stdout_and_stderr_apart),
        cmocka_unit_test(silent_child_gives_empty_strings),
        cmocka_unit_test(uncaptured_streams_are_null),
        cmocka_unit_test(exit_codes_and_signals),
        cmocka_unit_test(looks_up_path),
        cmocka_unit_test(env_set_reaches_child_and_replaces),
        cmocka_unit_test(bad_env_entry_is_usage_error),
        cmocka_unit_test(cwd_is_honoured),
        cmocka_unit_test(missing_program_is_not_found),
        cmocka_unit_test(non_executable_file_is_not_found),
        cmocka_unit_test(timeout_stops_sleep),
        cmocka_unit_test(timeout_escalates_to_sigkill),
        cmocka_unit_test(timeout_holds_without_pipes),
        cmocka_unit_test(fast_child_is_not_timed_out),
        cmocka_unit_test(descendant_holding_pipe_does_not_hang),
        cmocka_unit_test(output_beyond_limit_is_drained),
        cmocka_unit_test(default_limit_is_16_mib),
        cmocka_unit_test(both_pipes_full_do_not_deadlock),
        cmocka_unit_test(child_gets_default_sigpipe),
        cmocka_unit_test(no_program_is_usage_error),
        cmocka_unit_test(last_line_is_the_last_non_empty_one),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
