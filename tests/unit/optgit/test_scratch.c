/* Scratch trees: export, overlay, removal, interrupt (rpl/optgit.h, rpl/cleanup.h). */
#include <dirent.h>
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

#include "gitfix.h"
#include "rpl/cleanup.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/optgit.h"

#define ROOT    RPL_TEST_TMP "/optgit_scratch"
#define REPO    ROOT "/repo"
#define SCRATCH ROOT "/build/" RPL_SCRATCH_DIRNAME

static int setup(void **state)
{
    (void)state;
    gitfix_env(ROOT);
    gitfix_repo(REPO);
    return 0;
}

static bool exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

static char *read_in(const rpl_scratch *s, const char *rel)
{
    char path[4096];

    snprintf(path, sizeof(path), "%s/%s", rpl_scratch_path(s), rel);
    return gitfix_read(path);
}

static void assert_in(const rpl_scratch *s, const char *rel, const char *want)
{
    char *text = read_in(s, rel);

    assert_string_equal(text, want);
    free(text);
}

static void assert_absent(const rpl_scratch *s, const char *rel)
{
    char path[4096];

    snprintf(path, sizeof(path), "%s/%s", rpl_scratch_path(s), rel);
    if (exists(path))
        fail_msg("'%s' should not be in the scratch tree", rel);
}

static rpl_git_repo *open_repo(void)
{
    rpl_git_repo *repo;

    assert_int_equal(rpl_git_repo_open(&repo, REPO), 0);
    return repo;
}

static void exports_head_and_leaves_the_checkout_alone(void **state)
{
    gitfix_snapshot *before = gitfix_snapshot_take(REPO), *after;
    rpl_scratch_opts o = {.parent = SCRATCH};
    rpl_git_repo *repo = open_repo();
    rpl_git_commit_id head;
    rpl_scratch *s;
    char *path;
    struct stat st;

    (void)state;
    assert_int_equal(rpl_scratch_export(&s, repo, &o), 0);
    assert_int_equal(rpl_git_commit_resolve(repo, NULL, &head), 0);
    assert_string_equal(rpl_scratch_commit(s)->hex, head.hex);
    /* <parent>/<short sha>-XXXXXX */
    path = realpath(SCRATCH, NULL);
    assert_non_null(path);
    assert_int_equal(strncmp(rpl_scratch_path(s), path, strlen(path)), 0);
    assert_int_equal(
        strncmp(rpl_scratch_path(s) + strlen(path) + 1, head.short_hex, strlen(head.short_hex)), 0);
    free(path);
    /* The committed content, not the user's uncommitted edits. */
    assert_in(s, "src/kernel.hip", "kernel v2\n");
    assert_in(s, "src/util.h", "util\n");
    assert_in(s, "README", "readme\n");
    assert_in(s, ".gitignore", "*.o\n");
    assert_absent(s, "notes.txt");
    assert_absent(s, "build.o");
    assert_absent(s, ".git");
    {
        char run[4096];
        snprintf(run, sizeof(run), "%s/run.sh", rpl_scratch_path(s));
        assert_int_equal(stat(run, &st), 0);
        assert_true(st.st_mode & S_IXUSR);
    }
    after = gitfix_snapshot_take(REPO);
    gitfix_snapshot_assert_same(before, after);
    path = strdup(rpl_scratch_path(s));
    assert_int_equal(rpl_scratch_free(s), 0);
    assert_false(exists(path));
    free(path);
    rpl_git_repo_free(repo);
    gitfix_snapshot_free(before);
    gitfix_snapshot_free(after);
}

static void overlay_replaces_and_adds_files(void **state)
{
    gitfix_snapshot *before = gitfix_snapshot_take(REPO), *after;
    const rpl_git_file files[] = {
        {"src/kernel.hip", "candidate\n", 10},
        {"gen/new/extra.h", "extra\n", 6},
    };
    rpl_scratch_opts o = {.parent = SCRATCH, .overlay = files, .n_overlay = 2};
    const rpl_git_file again = {"src/kernel.hip", "candidate 2\n", 12};
    rpl_git_repo *repo = open_repo();
    rpl_scratch *s;

    (void)state;
    assert_int_equal(rpl_scratch_export(&s, repo, &o), 0);
    assert_in(s, "src/kernel.hip", "candidate\n");
    assert_in(s, "gen/new/extra.h", "extra\n");
    assert_in(s, "src/util.h", "util\n");
    assert_in(s, "README", "readme\n");
    assert_int_equal(rpl_scratch_overlay(s, &again, 1), 0);
    assert_in(s, "src/kernel.hip", "candidate 2\n");
    after = gitfix_snapshot_take(REPO);
    gitfix_snapshot_assert_same(before, after);
    assert_int_equal(rpl_scratch_free(s), 0);
    rpl_git_repo_free(repo);
    gitfix_snapshot_free(before);
    gitfix_snapshot_free(after);
}

static void exports_an_older_commit(void **state)
{
    rpl_scratch_opts o = {.parent = SCRATCH, .rev = "HEAD~1"};
    rpl_git_repo *repo = open_repo();
    rpl_scratch *s;

    (void)state;
    assert_int_equal(rpl_scratch_export(&s, repo, &o), 0);
    assert_in(s, "src/kernel.hip", "kernel v1\n");
    assert_absent(s, "src/util.h");
    assert_absent(s, "run.sh");
    assert_int_equal(rpl_scratch_free(s), 0);
    rpl_git_repo_free(repo);
}

/* How many entries `dir` holds (0 when it does not exist). */
static int entries(const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, NULL);

    if (n < 0)
        return 0;
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return n - 2; /* "." and ".." */
}

static void failed_export_leaves_nothing(void **state)
{
    const rpl_git_file escape = {"../escape.txt", "x", 1};
    const rpl_git_file into_git = {".git/config", "x", 1};
    rpl_scratch_opts o = {.parent = ROOT "/failing", .overlay = &escape, .n_overlay = 1};
    rpl_git_repo *repo = open_repo();
    rpl_scratch *s = (rpl_scratch *)1;

    (void)state;
    assert_int_equal(rpl_scratch_export(&s, repo, &o), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "../escape.txt"));
    assert_null(s);
    assert_int_equal(entries(ROOT "/failing"), 0);
    assert_false(exists(ROOT "/escape.txt"));
    o.overlay = &into_git;
    assert_int_equal(rpl_scratch_export(&s, repo, &o), RPL_EINPUT);
    assert_int_equal(entries(ROOT "/failing"), 0);
    o.overlay = NULL;
    o.n_overlay = 0;
    o.rev = "no-such-rev";
    assert_int_equal(rpl_scratch_export(&s, repo, &o), RPL_ENOTFOUND);
    assert_int_equal(entries(ROOT "/failing"), 0);
    rpl_git_repo_free(repo);
}

static void overlay_does_not_follow_a_tracked_link_out(void **state)
{
    const char *dir = ROOT "/linked";
    const rpl_git_file through = {"out/evil.txt", "x", 1};
    rpl_scratch_opts o = {.parent = SCRATCH, .overlay = &through, .n_overlay = 1};
    rpl_git_repo *repo;
    rpl_scratch *s;

    (void)state;
    gitfix_repo(dir);
    assert_int_equal(rpl_mkdir_p(ROOT "/target"), 0);
    assert_int_equal(symlink(ROOT "/target", ROOT "/linked/out"), 0);
    free(gitfix_git(dir, "add", "out", NULL));
    free(gitfix_git(dir, "-c", "user.name=F", "-c", "user.email=f@e", "commit", "-qm", "link",
                    NULL));
    assert_int_equal(rpl_git_repo_open(&repo, dir), 0);
    assert_int_equal(rpl_scratch_export(&s, repo, &o), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "outside the scratch tree"));
    assert_false(exists(ROOT "/target/evil.txt"));
    rpl_git_repo_free(repo);
}

static void default_parent_uses_build_dir_or_tmpdir(void **state)
{
    char *p;

    (void)state;
    assert_int_equal(rpl_scratch_default_parent(&p, "/b/dev"), 0);
    assert_string_equal(p, "/b/dev/rocm-perf-scratch");
    free(p);
    setenv("TMPDIR", ROOT "/tmpdir", 1);
    assert_int_equal(rpl_scratch_default_parent(&p, NULL), 0);
    assert_string_equal(p, ROOT "/tmpdir/rocm-perf-scratch");
    free(p);
    unsetenv("TMPDIR");
    assert_int_equal(rpl_scratch_default_parent(&p, NULL), 0);
    assert_string_equal(p, "/tmp/rocm-perf-scratch");
    free(p);
}

static void run_all_removes_an_unfreed_scratch(void **state)
{
    rpl_scratch_opts o = {.parent = SCRATCH};
    rpl_git_repo *repo = open_repo();
    rpl_scratch *s;
    char *path;

    (void)state;
    assert_int_equal(rpl_scratch_export(&s, repo, &o), 0);
    path = strdup(rpl_scratch_path(s));
    rpl_cleanup_run_all();
    assert_false(exists(path));
    assert_int_equal(rpl_scratch_free(s), 0); /* still safe afterwards */
    free(path);
    rpl_git_repo_free(repo);
}

static int report_fd;

/*
 * A build step in a long loop: export a scratch tree, report its path, and
 * work in steps until the interrupt arrives; then unwind as the command does.
 */
static void child_builds_until_interrupted(void)
{
    rpl_scratch_opts o = {.parent = ROOT "/interrupted"};
    rpl_git_repo *repo;
    rpl_scratch *s;
    size_t len;

    if (rpl_cleanup_install_signals() != 0 || rpl_git_repo_open(&repo, REPO) != 0 ||
        rpl_scratch_export(&s, repo, &o) != 0)
        _exit(90);
    len = strlen(rpl_scratch_path(s)) + 1;
    if (write(report_fd, rpl_scratch_path(s), len) != (ssize_t)len)
        _exit(91);
    close(report_fd);
    for (int step = 0; step < 10000; step++) {
        if (rpl_interrupt_check() < 0)
            break;
        usleep(1000);
    }
    rpl_cleanup_exit_if_interrupted();
    _exit(92);
}

static void interrupt_removes_the_scratch_tree(void **state)
{
    char path[4096] = "";
    int fds[2], status;
    ssize_t n;
    pid_t pid;

    (void)state;
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        report_fd = fds[1];
        child_builds_until_interrupted();
    }
    close(fds[1]);
    n = read(fds[0], path, sizeof(path) - 1);
    close(fds[0]);
    assert_true(n > 1);
    assert_true(exists(path));
    assert_int_equal(kill(pid, SIGINT), 0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGINT);
    assert_false(exists(path));
    assert_int_equal(entries(ROOT "/interrupted"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exports_head_and_leaves_the_checkout_alone),
        cmocka_unit_test(overlay_replaces_and_adds_files),
        cmocka_unit_test(exports_an_older_commit),
        cmocka_unit_test(failed_export_leaves_nothing),
        cmocka_unit_test(overlay_does_not_follow_a_tracked_link_out),
        cmocka_unit_test(default_parent_uses_build_dir_or_tmpdir),
        cmocka_unit_test(run_all_removes_an_unfreed_scratch),
        cmocka_unit_test(interrupt_removes_the_scratch_tree),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
