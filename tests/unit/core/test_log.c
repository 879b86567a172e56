/* Logging levels, ROCM_PERF_LOG, output format, and the progress line off a TTY. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/log.h"

#define LOG_FILE RPL_TEST_TMP "/log-stderr.txt"

static void level_names_parse(void **state)
{
    assert_int_equal(rpl_log_level_parse("error"), RPL_LOG_ERROR);
    assert_int_equal(rpl_log_level_parse("warn"), RPL_LOG_WARN);
    assert_int_equal(rpl_log_level_parse("warning"), RPL_LOG_WARN);
    assert_int_equal(rpl_log_level_parse("info"), RPL_LOG_INFO);
    assert_int_equal(rpl_log_level_parse("DEBUG"), RPL_LOG_DEBUG);
    assert_int_equal(rpl_log_level_parse("Trace"), RPL_LOG_TRACE);
    assert_int_equal(rpl_log_level_parse("verbose"), -1);
    assert_int_equal(rpl_log_level_parse(""), -1);
    assert_int_equal(rpl_log_level_parse("info "), -1);
    assert_int_equal(rpl_log_level_parse(NULL), -1);
}

static void env_sets_level(void **state)
{
    rpl_log_set_level(RPL_LOG_WARN);
    unsetenv("ROCM_PERF_LOG");
    assert_int_equal(rpl_log_init_from_env(), 0);
    assert_int_equal(rpl_log_get_level(), RPL_LOG_WARN);

    setenv("ROCM_PERF_LOG", "", 1);
    assert_int_equal(rpl_log_init_from_env(), 0);
    assert_int_equal(rpl_log_get_level(), RPL_LOG_WARN);

    setenv("ROCM_PERF_LOG", "debug", 1);
    assert_int_equal(rpl_log_init_from_env(), 0);
    assert_int_equal(rpl_log_get_level(), RPL_LOG_DEBUG);

    setenv("ROCM_PERF_LOG", "error", 1);
    assert_int_equal(rpl_log_init_from_env(), 0);
    assert_int_equal(rpl_log_get_level(), RPL_LOG_ERROR);
    unsetenv("ROCM_PERF_LOG");
    rpl_log_set_level(RPL_LOG_WARN);
}

static void bad_env_value_is_usage_error(void **state)
{
    rpl_log_set_level(RPL_LOG_INFO);
    setenv("ROCM_PERF_LOG", "loud\nx", 1);
    assert_int_equal(rpl_log_init_from_env(), RPL_EUSAGE);
    assert_int_equal(rpl_error_last()->code, RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "ROCM_PERF_LOG='loud x'"));
    assert_int_equal(rpl_log_get_level(), RPL_LOG_INFO);
    unsetenv("ROCM_PERF_LOG");
    rpl_log_set_level(RPL_LOG_WARN);
}

/* Run `fn` with stderr sent to a file; return what it wrote (free()). */
static char *capture_stderr(void (*fn)(void))
{
    int saved = dup(STDERR_FILENO);
    FILE *f;
    char *text;
    size_t len;

    assert_true(saved >= 0);
    fflush(stderr);
    f = fopen(LOG_FILE, "w");
    assert_non_null(f);
    assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
    fclose(f);
    fn();
    fflush(stderr);
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
    assert_int_equal(rpl_file_read_all(LOG_FILE, 1 << 20, &text, &len), 0);
    return text;
}

static void log_some(void)
{
    errno = ENOSPC;
    rpl_log_error("e %d", 1);
    rpl_log_warn("w");
    rpl_log_info("i");
    rpl_log_debug("d");
    rpl_log(RPL_LOG_TRACE, "t");
    rpl_log((rpl_log_level)9, "out of range");
    assert_int_equal(errno, ENOSPC);
}

static void output_follows_level(void **state)
{
    char *text;

    rpl_log_set_level(RPL_LOG_WARN);
    text = capture_stderr(log_some);
    assert_string_equal(text, "rocm-perf: error: e 1\nrocm-perf: warn: w\n");
    free(text);

    rpl_log_set_level(RPL_LOG_ERROR);
    text = capture_stderr(log_some);
    assert_string_equal(text, "rocm-perf: error: e 1\n");
    free(text);

    rpl_log_set_level(RPL_LOG_TRACE);
    text = capture_stderr(log_some);
    assert_string_equal(text, "rocm-perf: error: e 1\nrocm-perf: warn: w\nrocm-perf: info: i\n"
                              "rocm-perf: debug: d\nrocm-perf: trace: t\n");
    free(text);
    rpl_log_set_level(RPL_LOG_WARN);
}

static void progress_some(void)
{
    rpl_progress *p = rpl_progress_start("loading", 10);

    assert_null(p); /* stderr is a file here, not a terminal */
    rpl_progress_update(p, 5);
    rpl_progress_finish(p);
}

static void progress_is_silent_off_a_tty(void **state)
{
    char *text = capture_stderr(progress_some);

    assert_string_equal(text, "");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(level_names_parse),
        cmocka_unit_test(env_sets_level),
        cmocka_unit_test(bad_env_value_is_usage_error),
        cmocka_unit_test(output_follows_level),
        cmocka_unit_test(progress_is_silent_off_a_tty),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
