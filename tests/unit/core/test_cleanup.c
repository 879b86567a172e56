/* rpl_remove_tree and the cleanup registry: run, unregister, exit, fork, signals. */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rpl/cleanup.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"

#define TMP RPL_TEST_TMP "/cleanup"

static void write_text(const char *path, const char *text)
{
    assert_int_equal(rpl_file_write_atomic(path, text, strlen(text)), 0);
}

static bool exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

/* TMP/<name>/a/b/c.txt, a read-only file, and a link to a file outside that must survive. */
static void make_tree(const char *name)
{
    char path[512];

    snprintf(path, sizeof(path), TMP "/%s/a/b", name);
    assert_int_equal(rpl_mkdir_p(path), 0);
    snprintf(path, sizeof(path), TMP "/%s/a/b/c.txt", name);
    write_text(path, "c\n");
    snprintf(path, sizeof(path), TMP "/%s/a/ro.txt", name);
    write_text(path, "ro\n");
    assert_int_equal(chmod(path, 0444), 0);
    snprintf(path, sizeof(path), TMP "/%s/a/link", name);
    assert_int_equal(symlink(TMP "/outside.txt", path), 0);
    snprintf(path, sizeof(path), TMP "/%s/a/dirlink", name);
    assert_int_equal(symlink(TMP "/outside-dir", path), 0);
}

static int setup(void **state)
{
    (void)state;
    if (rpl_remove_tree(TMP) != 0 || rpl_mkdir_p(TMP "/outside-dir") != 0)
        return -1;
    write_text(TMP "/outside.txt", "keep\n");
    write_text(TMP "/outside-dir/keep.txt", "keep\n");
    return 0;
}

static void remove_tree_removes_without_following_links(void **state)
{
    (void)state;
    make_tree("t1");
    assert_int_equal(rpl_remove_tree(TMP "/t1"), 0);
    assert_false(exists(TMP "/t1"));
    assert_true(exists(TMP "/outside.txt"));
    assert_true(exists(TMP "/outside-dir/keep.txt"));
    /* A missing path is fine; a single file goes. */
    assert_int_equal(rpl_remove_tree(TMP "/t1"), 0);
    write_text(TMP "/single", "x");
    assert_int_equal(rpl_remove_tree(TMP "/single"), 0);
    assert_false(exists(TMP "/single"));
}

static int calls[8];
static int n_calls;

static void record(void *arg)
{
    calls[n_calls++] = (int)(intptr_t)arg;
}

static void runs_newest_first_and_forgets(void **state)
{
    rpl_cleanup_id a, b, c, d;

    (void)state;
    n_calls = 0;
    make_tree("t2");
    assert_int_equal(rpl_cleanup_register_fn(record, (void *)1, &a), 0);
    assert_int_equal(rpl_cleanup_register_path(TMP "/t2", &b), 0);
    assert_int_equal(rpl_cleanup_register_fn(record, (void *)3, &c), 0);
    assert_int_equal(rpl_cleanup_register_fn(record, (void *)4, &d), 0);
    assert_true(a && b && c && d && a != b && b != c && c != d);
    rpl_cleanup_unregister(c);
    rpl_cleanup_run_all();
    assert_int_equal(n_calls, 2);
    assert_int_equal(calls[0], 4);
    assert_int_equal(calls[1], 1);
    assert_false(exists(TMP "/t2"));
    /* Forgotten: a second run does nothing, and old ids are no-ops. */
    rpl_cleanup_run_all();
    assert_int_equal(n_calls, 2);
    assert_int_equal(rpl_cleanup_run(a), 0);
    rpl_cleanup_unregister(d);
    assert_int_equal(n_calls, 2);
}

static void runs_one_entry_on_request(void **state)
{
    rpl_cleanup_id a, b;

    (void)state;
    n_calls = 0;
    make_tree("t3");
    assert_int_equal(rpl_cleanup_register_path(TMP "/t3", &a), 0);
    assert_int_equal(rpl_cleanup_register_fn(record, (void *)7, &b), 0);
    assert_int_equal(rpl_cleanup_run(a), 0);
    assert_false(exists(TMP "/t3"));
    assert_int_equal(n_calls, 0);
    rpl_cleanup_unregister(b);
    rpl_cleanup_run_all();
    assert_int_equal(n_calls, 0);
}

/* Fork; the child runs `body` and must not return. Returns the wait status. */
static int in_child(void (*body)(void))
{
    int status;
    pid_t pid;

    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        body();
        _exit(99);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

static void child_exits(void)
{
    make_tree("t4");
    if (rpl_cleanup_register_path(TMP "/t4", NULL) != 0)
        _exit(98);
    exit(0);
}

static void exit_removes_registered_paths(void **state)
{
    int status;

    (void)state;
    status = in_child(child_exits);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_false(exists(TMP "/t4"));
}

static void child_exits_quietly(void)
{
    exit(0);
}

static void a_forked_child_leaves_its_parents_entries(void **state)
{
    rpl_cleanup_id id;
    int status;

    (void)state;
    make_tree("t5");
    assert_int_equal(rpl_cleanup_register_path(TMP "/t5", &id), 0);
    status = in_child(child_exits_quietly);
    assert_true(WIFEXITED(status));
    assert_true(exists(TMP "/t5/a/b/c.txt"));
    assert_int_equal(rpl_cleanup_run(id), 0);
    assert_false(exists(TMP "/t5"));
}

static void touch_marker(void *arg)
{
    write_text(arg, "cleaned\n");
}

static int signal_to_send;

/*
 * Registers a tree and a callback, gets a signal, and goes on "working" as a
 * long loop does: the next check sees the flag, the program unwinds and
 * re-raises.  Exit codes name what went wrong.
 */
static void child_interrupted(void)
{
    make_tree("t6");
    if (rpl_cleanup_install_signals() != 0 || rpl_cleanup_register_path(TMP "/t6", NULL) != 0 ||
        rpl_cleanup_register_fn(touch_marker, TMP "/marker", NULL) != 0)
        _exit(90);
    if (rpl_interrupted() != 0 || rpl_interrupt_check() != 0)
        _exit(91);
    kill(getpid(), signal_to_send);
    for (int step = 0; step < 1000; step++) {
        if (rpl_interrupt_check() < 0)
            break;
        usleep(1000);
    }
    if (rpl_interrupted() != signal_to_send)
        _exit(92);
    if (rpl_error_last()->code != RPL_ERROR || !strstr(rpl_error_last()->message, "interrupted"))
        _exit(93);
    if (!exists(TMP "/t6"))
        _exit(94); /* the handler must not have removed anything itself */
    rpl_cleanup_exit_if_interrupted();
    _exit(95);
}

static void signal_cleans_up_then_kills(void **state)
{
    const int sigs[] = {SIGINT, SIGTERM, SIGHUP};

    (void)state;
    for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
        int status;

        assert_int_equal(rpl_remove_tree(TMP "/marker"), 0);
        signal_to_send = sigs[i];
        status = in_child(child_interrupted);
        if (WIFEXITED(status))
            fail_msg("child exited with %d for signal %d", WEXITSTATUS(status), sigs[i]);
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), sigs[i]);
        assert_false(exists(TMP "/t6"));
        assert_true(exists(TMP "/marker"));
    }
}

static void child_interrupted_twice(void)
{
    make_tree("t7");
    if (rpl_cleanup_install_signals() != 0 || rpl_cleanup_register_path(TMP "/t7", NULL) != 0)
        _exit(90);
    raise(SIGINT);
    raise(SIGINT); /* the handler was reset: the default action ends the process here */
    _exit(96);
}

static void second_signal_kills_at_once(void **state)
{
    int status;

    (void)state;
    status = in_child(child_interrupted_twice);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGINT);
    /* Documented: a second Ctrl-C does not wait for cleanup. */
    assert_true(exists(TMP "/t7"));
    assert_int_equal(rpl_remove_tree(TMP "/t7"), 0);
}

static void child_with_sighup_ignored(void)
{
    signal(SIGHUP, SIG_IGN);
    if (rpl_cleanup_install_signals() != 0)
        _exit(90);
    raise(SIGHUP);
    _exit(rpl_interrupted() == 0 ? 0 : 91);
}

static void an_ignored_signal_stays_ignored(void **state)
{
    int status;

    (void)state;
    status = in_child(child_with_sighup_ignored);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void no_signal_no_exit(void **state)
{
    (void)state;
    assert_int_equal(rpl_interrupted(), 0);
    assert_int_equal(rpl_interrupt_check(), 0);
    rpl_cleanup_exit_if_interrupted(); /* returns */
    assert_int_equal(rpl_cleanup_register_fn(NULL, NULL, NULL), RPL_EUSAGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(remove_tree_removes_without_following_links),
        cmocka_unit_test(runs_newest_first_and_forgets),
        cmocka_unit_test(runs_one_entry_on_request),
        cmocka_unit_test(exit_removes_registered_paths),
        cmocka_unit_test(a_forked_child_leaves_its_parents_entries),
        cmocka_unit_test(signal_cleans_up_then_kills),
        cmocka_unit_test(second_signal_kills_at_once),
        cmocka_unit_test(an_ignored_signal_stays_ignored),
        cmocka_unit_test(no_signal_no_exit),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
