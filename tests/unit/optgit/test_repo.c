/* Opening a repository, commit ids, repository-relative paths, file status (rpl/optgit.h). */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gitfix.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/optgit.h"

#define ROOT RPL_TEST_TMP "/optgit_repo"
#define REPO ROOT "/repo"

static int setup(void **state)
{
    (void)state;
    gitfix_env(ROOT);
    gitfix_repo(REPO);
    return 0;
}

static void assert_error(int rc, int code, const char *needle)
{
    assert_int_equal(rc, code);
    if (!strstr(rpl_error_last()->message, needle))
        fail_msg("error '%s' does not mention '%s'", rpl_error_last()->message, needle);
}

static char *trimmed(char *s)
{
    s[strcspn(s, "\n")] = '\0';
    return s;
}

static void opens_from_a_file_in_a_subdirectory(void **state)
{
    rpl_git_repo *repo;
    char real[PATH_MAX], want[PATH_MAX + 1];

    (void)state;
    assert_int_equal(rpl_git_repo_open(&repo, REPO "/src/kernel.hip"), 0);
    assert_non_null(realpath(REPO, real));
    snprintf(want, sizeof(want), "%s/", real);
    assert_string_equal(rpl_git_repo_workdir(repo), want);
    rpl_git_repo_free(repo);
}

static void head_id_matches_git(void **state)
{
    gitfix_snapshot *before = gitfix_snapshot_take(REPO), *after;
    char *head = trimmed(gitfix_git(REPO, "rev-parse", "HEAD", NULL));
    char *first = trimmed(gitfix_git(REPO, "rev-parse", "HEAD~1", NULL));
    rpl_git_commit_id id, by_branch, older;
    rpl_git_repo *repo;

    (void)state;
    assert_int_equal(rpl_git_repo_open(&repo, REPO), 0);
    assert_int_equal(rpl_git_commit_resolve(repo, NULL, &id), 0);
    assert_string_equal(id.hex, head);
    assert_true(strlen(id.short_hex) >= 7);
    assert_int_equal(strncmp(id.short_hex, head, strlen(id.short_hex)), 0);
    assert_int_equal(rpl_git_commit_resolve(repo, "main", &by_branch), 0);
    assert_string_equal(by_branch.hex, head);
    assert_int_equal(rpl_git_commit_resolve(repo, "HEAD~1", &older), 0);
    assert_string_equal(older.hex, first);
    assert_error(rpl_git_commit_resolve(repo, "no-such-branch", &id), RPL_ENOTFOUND,
                 "no-such-branch");
    rpl_git_repo_free(repo);
    after = gitfix_snapshot_take(REPO);
    gitfix_snapshot_assert_same(before, after);
    gitfix_snapshot_free(before);
    gitfix_snapshot_free(after);
    free(head);
    free(first);
}

static void relpath_inside_and_outside(void **state)
{
    char cwd[PATH_MAX], *rel;
    rpl_git_repo *repo;

    (void)state;
    assert_int_equal(rpl_git_repo_open(&repo, REPO), 0);
    assert_int_equal(rpl_git_relpath(repo, REPO "/src/kernel.hip", &rel), 0);
    assert_string_equal(rel, "src/kernel.hip");
    free(rel);
    assert_int_equal(rpl_git_relpath(repo, REPO "/src/../src/new-file.hip", &rel), 0);
    assert_string_equal(rel, "src/new-file.hip");
    free(rel);
    /* Relative to the current directory. */
    assert_non_null(getcwd(cwd, sizeof(cwd)));
    assert_int_equal(chdir(REPO "/src"), 0);
    assert_int_equal(rpl_git_relpath(repo, "kernel.hip", &rel), 0);
    assert_string_equal(rel, "src/kernel.hip");
    free(rel);
    assert_int_equal(rpl_git_relpath(repo, "../README", &rel), 0);
    assert_string_equal(rel, "README");
    free(rel);
    assert_int_equal(chdir(cwd), 0);

    gitfix_write(ROOT "/elsewhere/kernel.hip", "x\n");
    assert_error(rpl_git_relpath(repo, ROOT "/elsewhere/kernel.hip", &rel), RPL_EINPUT,
                 "outside the repository");
    assert_null(rel);
    assert_error(rpl_git_relpath(repo, REPO "/.git/config", &rel), RPL_EINPUT, ".git");
    assert_error(rpl_git_relpath(repo, REPO, &rel), RPL_EINPUT, "outside the repository");
    assert_error(rpl_git_relpath(repo, ROOT "/missing-dir/k.hip", &rel), RPL_ENOTFOUND,
                 "missing-dir");
    rpl_git_repo_free(repo);
}

static void file_status_tells_dirty_from_clean(void **state)
{
    gitfix_snapshot *before = gitfix_snapshot_take(REPO), *after;
    rpl_git_repo *repo;
    unsigned st = 99;

    (void)state;
    assert_int_equal(rpl_git_repo_open(&repo, REPO), 0);
    assert_int_equal(rpl_git_file_status(repo, "src/kernel.hip", &st), 0);
    assert_int_equal(st, RPL_GIT_FILE_CLEAN);
    assert_string_equal(rpl_git_file_status_describe(st), "clean");
    assert_int_equal(rpl_git_file_status(repo, "src/util.h", &st), 0);
    assert_int_equal(st, RPL_GIT_FILE_MODIFIED);
    assert_string_equal(rpl_git_file_status_describe(st), "modified");
    assert_int_equal(rpl_git_file_status(repo, "README", &st), 0);
    assert_int_equal(st, RPL_GIT_FILE_STAGED);
    assert_string_equal(rpl_git_file_status_describe(st), "staged");
    assert_int_equal(rpl_git_file_status(repo, "notes.txt", &st), 0);
    assert_int_equal(st, RPL_GIT_FILE_UNTRACKED);
    assert_string_equal(rpl_git_file_status_describe(st), "untracked");
    assert_int_equal(rpl_git_file_status(repo, "build.o", &st), 0);
    assert_int_equal(st, RPL_GIT_FILE_IGNORED);
    assert_error(rpl_git_file_status(repo, "src/none.hip", &st), RPL_ENOTFOUND, "src/none.hip");
    assert_error(rpl_git_file_status(repo, "../x", &st), RPL_EINPUT, "'..'");
    rpl_git_repo_free(repo);
    after = gitfix_snapshot_take(REPO);
    gitfix_snapshot_assert_same(before, after);
    gitfix_snapshot_free(before);
    gitfix_snapshot_free(after);
}

static void staged_and_modified_file(void **state)
{
    rpl_git_repo *repo;
    unsigned st;

    (void)state;
    gitfix_repo(ROOT "/both");
    gitfix_write(ROOT "/both/src/kernel.hip", "staged\n");
    free(gitfix_git(ROOT "/both", "add", "src/kernel.hip", NULL));
    gitfix_write(ROOT "/both/src/kernel.hip", "modified after staging\n");
    assert_int_equal(rpl_git_repo_open(&repo, ROOT "/both"), 0);
    assert_int_equal(rpl_git_file_status(repo, "src/kernel.hip", &st), 0);
    assert_int_equal(st, RPL_GIT_FILE_STAGED | RPL_GIT_FILE_MODIFIED);
    assert_string_equal(rpl_git_file_status_describe(st), "staged and modified");
    rpl_git_repo_free(repo);
}

static void refuses_bare_unborn_and_no_repository(void **state)
{
    char outside[] = "/tmp/rpl-optgit-XXXXXX";
    rpl_git_repo *repo = (rpl_git_repo *)1;

    (void)state;
    assert_int_equal(rpl_mkdir_p(ROOT "/bare.git"), 0);
    free(gitfix_git(ROOT "/bare.git", "init", "-q", "--bare", NULL));
    assert_error(rpl_git_repo_open(&repo, ROOT "/bare.git"), RPL_EINPUT, "bare");
    assert_null(repo);

    assert_int_equal(rpl_mkdir_p(ROOT "/unborn"), 0);
    free(gitfix_git(ROOT "/unborn", "init", "-q", NULL));
    gitfix_write(ROOT "/unborn/k.hip", "k\n");
    assert_error(rpl_git_repo_open(&repo, ROOT "/unborn/k.hip"), RPL_EINPUT, "unborn HEAD");

    assert_error(rpl_git_repo_open(&repo, ROOT "/no-such-file"), RPL_ENOTFOUND, "no-such-file");

    /* The build tree lies inside the project's own checkout: go outside it. */
    assert_non_null(mkdtemp(outside));
    assert_error(rpl_git_repo_open(&repo, outside), RPL_ENOTFOUND, "not inside a git repository");
    assert_int_equal(rpl_remove_tree(outside), 0);
}

/* The instrument the other tests rely on sees each kind of change. */
static void snapshot_notices_changes(void **state)
{
    const char *dir = ROOT "/probe";
    gitfix_snapshot *a, *b;
    struct timespec times[2] = {{0, UTIME_OMIT}, {1000000000, 0}};

    (void)state;
    gitfix_repo(dir);
    a = gitfix_snapshot_take(dir);
    b = gitfix_snapshot_take(dir);
    assert_null(gitfix_snapshot_diff(a, b));
    gitfix_snapshot_free(b);

    gitfix_write(ROOT "/probe/notes.txt", "changed\n");
    b = gitfix_snapshot_take(dir);
    assert_string_equal(gitfix_snapshot_diff(a, b), "the working tree");
    gitfix_snapshot_free(b);
    gitfix_write(ROOT "/probe/notes.txt", "untracked\n");

    assert_int_equal(utimensat(AT_FDCWD, ROOT "/probe/.git/index", times, 0), 0);
    b = gitfix_snapshot_take(dir);
    assert_string_equal(gitfix_snapshot_diff(a, b), "the mtime of .git/index");
    gitfix_snapshot_free(b);

    free(gitfix_git(dir, "add", "src/util.h", NULL));
    b = gitfix_snapshot_take(dir);
    assert_string_equal(gitfix_snapshot_diff(a, b), "the bytes of .git/index");
    gitfix_snapshot_free(b);

    free(gitfix_git(dir, "branch", "other", NULL));
    free(gitfix_git(dir, "symbolic-ref", "HEAD", "refs/heads/other", NULL));
    b = gitfix_snapshot_take(dir);
    assert_string_equal(gitfix_snapshot_diff(a, b), ".git/HEAD");
    gitfix_snapshot_free(b);
    gitfix_snapshot_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(snapshot_notices_changes),
        cmocka_unit_test(opens_from_a_file_in_a_subdirectory),
        cmocka_unit_test(head_id_matches_git),
        cmocka_unit_test(relpath_inside_and_outside),
        cmocka_unit_test(file_status_tells_dirty_from_clean),
        cmocka_unit_test(staged_and_modified_file),
        cmocka_unit_test(refuses_bare_unborn_and_no_repository),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
