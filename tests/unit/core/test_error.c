/* rpl_error_*: set/last/prefix/oom, one-line messages, exit-code mapping. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"

static void set_returns_code_and_formats(void **state)
{
    assert_int_equal(rpl_error_set(RPL_EINPUT, "bad '%s' at %d", "x.db", 7), RPL_EINPUT);
    assert_int_equal(rpl_error_last()->code, RPL_EINPUT);
    assert_string_equal(rpl_error_last()->message, "bad 'x.db' at 7");
}

static void clear_gives_empty_message(void **state)
{
    rpl_error_set(RPL_EIO, "something");
    rpl_error_clear();
    assert_int_equal(rpl_error_last()->code, 0);
    assert_non_null(rpl_error_last()->message);
    assert_string_equal(rpl_error_last()->message, "");
}

static void prefix_keeps_code(void **state)
{
    rpl_error_set(RPL_ENOTFOUND, "no table 'x'");
    rpl_error_prefix("reading '%s'", "a.db");
    assert_int_equal(rpl_error_last()->code, RPL_ENOTFOUND);
    assert_string_equal(rpl_error_last()->message, "reading 'a.db': no table 'x'");
}

static void long_messages_are_cut_not_overrun(void **state)
{
    char big[3000];

    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    rpl_error_set(RPL_EINPUT, "%s", big);
    assert_int_equal(strlen(rpl_error_last()->message), 1023);
    rpl_error_prefix("%s", big);
    assert_int_equal(strlen(rpl_error_last()->message), 1023);
    rpl_error_set(RPL_EINPUT, "tail");
    rpl_error_prefix("%s", big);
    assert_int_equal(strlen(rpl_error_last()->message), 1023);
    assert_int_equal(rpl_error_last()->message[1021], ':');
}

static void oom_sets_fixed_message(void **state)
{
    assert_int_equal(rpl_error_oom(), RPL_ENOMEM);
    assert_int_equal(rpl_error_last()->code, RPL_ENOMEM);
    assert_string_equal(rpl_error_last()->message, "out of memory");
}

static void messages_are_one_line(void **state)
{
    rpl_error_set(RPL_EINPUT, "name '%s'", "a\nb\r\nc\td\x1b[31me\x7f");
    assert_string_equal(rpl_error_last()->message, "name 'a b  c d [31me '");
    rpl_error_prefix("in\n%s", "file");
    assert_null(strchr(rpl_error_last()->message, '\n'));
    assert_string_equal(rpl_error_last()->message, "in file: name 'a b  c d [31me '");
}

static void own_message_as_argument(void **state)
{
    rpl_error_set(RPL_EIO, "disk full");
    rpl_error_set(RPL_EIO, "cannot save 'x': %s", rpl_error_last()->message);
    assert_string_equal(rpl_error_last()->message, "cannot save 'x': disk full");
    rpl_error_prefix("%s", rpl_error_last()->message);
    assert_string_equal(rpl_error_last()->message,
                        "cannot save 'x': disk full: cannot save 'x': disk full");
}

static void *other_thread(void *arg)
{
    const rpl_error *e = rpl_error_last();

    *(int *)arg = e->code == 0 && e->message[0] == '\0';
    return NULL;
}

static void error_is_thread_local(void **state)
{
    pthread_t t;
    int clean = 0;

    rpl_error_set(RPL_EINPUT, "main thread");
    assert_int_equal(pthread_create(&t, NULL, other_thread, &clean), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_true(clean);
    assert_string_equal(rpl_error_last()->message, "main thread");
}

static void exit_codes(void **state)
{
    assert_int_equal(rpl_exit_code(0), RPL_EXIT_OK);
    assert_int_equal(rpl_exit_code(RPL_EFAIL), RPL_EXIT_FAIL);
    assert_int_equal(rpl_exit_code(RPL_EUSAGE), RPL_EXIT_INPUT);
    assert_int_equal(rpl_exit_code(RPL_EINPUT), RPL_EXIT_INPUT);
    assert_int_equal(rpl_exit_code(RPL_ENOTFOUND), RPL_EXIT_INPUT);
    assert_int_equal(rpl_exit_code(RPL_EENV), RPL_EXIT_ENV);
    assert_int_equal(rpl_exit_code(RPL_EIO), RPL_EXIT_ENV);
    assert_int_equal(rpl_exit_code(RPL_ETIMEOUT), RPL_EXIT_ENV);
    assert_int_equal(rpl_exit_code(RPL_ENOMEM), RPL_EXIT_ENV);
    assert_int_equal(rpl_exit_code(RPL_ERROR), RPL_EXIT_ENV);
    assert_int_equal(rpl_exit_code(RPL_ENODEV), RPL_EXIT_SKIP);
    assert_int_equal(RPL_EXIT_OK, 0);
    assert_int_equal(RPL_EXIT_FAIL, 1);
    assert_int_equal(RPL_EXIT_INPUT, 2);
    assert_int_equal(RPL_EXIT_ENV, 3);
    assert_int_equal(RPL_EXIT_SKIP, 77);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(set_returns_code_and_formats),
        cmocka_unit_test(clear_gives_empty_message),
        cmocka_unit_test(prefix_keeps_code),
        cmocka_unit_test(long_messages_are_cut_not_overrun),
        cmocka_unit_test(oom_sets_fixed_message),
        cmocka_unit_test(messages_are_one_line),
        cmocka_unit_test(own_message_as_argument),
        cmocka_unit_test(error_is_thread_local),
        cmocka_unit_test(exit_codes),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
