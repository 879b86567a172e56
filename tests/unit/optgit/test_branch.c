/* Optimization branch sessions: refs, chained commits, abort, finish, interrupt (rpl/optgit.h). */
#include <regex.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <git2.h>

#include "gitfix.h"
#include "rpl/cleanup.h"
#include "rpl/error.h"
#include "rpl/optgit.h"

#define ROOT  RPL_TEST_TMP "/optgit_branch"
#define STAMP ((time_t)1700000000) /* 2023-11-14 22:13:20 UTC */
#define NAME  "rocm-perf/opt/gemm/20231114-221320"

static const char *repo_dir; /* a fresh repository per test */
static int repo_count;

static int fresh_repo(void **state)
{
    static char dir[256];

    (void)state;
    snprintf(dir, sizeof(dir), ROOT "/repo%d", ++repo_count);
    gitfix_repo(dir);
    repo_dir = dir;
    return 0;
}

static int setup(void **state)
{
    (void)state;
    gitfix_env(ROOT);
    return 0;
}

static rpl_git_repo *open_repo(void)
{
    rpl_git_repo *repo;

    assert_int_equal(rpl_git_repo_open(&repo, repo_dir), 0);
    return repo;
}

/* libgit2 directly, as a second opinion on what is in the repository. */
static git_repository *raw_repo(void)
{
    git_repository *r;

    assert_int_equal(git_repository_open(&r, repo_dir), 0);
    return r;
}

static bool branch_exists(const char *name)
{
    git_repository *r = raw_repo();
    git_reference *ref = NULL;
    int rc = git_branch_lookup(&ref, r, name, GIT_BRANCH_LOCAL);

    git_reference_free(ref);
    git_repository_free(r);
    assert_true(rc == 0 || rc == GIT_ENOTFOUND);
    return rc == 0;
}

/* Names of the branches under rocm-perf/, one per line. */
static char *opt_branches(void)
{
    return gitfix_git(repo_dir, "for-each-ref", "--format=%(refname:short)",
                      "refs/heads/rocm-perf/", NULL);
}

static git_commit *branch_tip(git_repository *r, const char *name)
{
    git_reference *ref;
    git_commit *c;

    assert_int_equal(git_branch_lookup(&ref, r, name, GIT_BRANCH_LOCAL), 0);
    assert_int_equal(git_commit_lookup(&c, r, git_reference_target(ref)), 0);
    git_reference_free(ref);
    return c;
}

static char *file_in(git_commit *c, const char *path, git_filemode_t *mode)
{
    git_tree *tree;
    git_tree_entry *e;
    git_blob *blob;
    char *text;

    assert_int_equal(git_commit_tree(&tree, c), 0);
    assert_int_equal(git_tree_entry_bypath(&e, tree, path), 0);
    if (mode)
        *mode = git_tree_entry_filemode(e);
    assert_int_equal(git_blob_lookup(&blob, git_commit_owner(c), git_tree_entry_id(e)), 0);
    text = strndup(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
    git_blob_free(blob);
    git_tree_entry_free(e);
    git_tree_free(tree);
    return text;
}

static const rpl_git_file kernel_v3 = {"src/kernel.hip", "kernel v3\n", 10};
static const rpl_git_file kernel_v4 = {"src/kernel.hip", "kernel v4\n", 10};

static void first_commit_creates_the_branch(void **state)
{
    gitfix_snapshot *before = gitfix_snapshot_take(repo_dir), *after;
    rpl_optbranch_opts o = {.stamp = STAMP};
    rpl_git_repo *repo = open_repo();
    rpl_git_commit_id head, made;
    rpl_optbranch *b;
    git_repository *r;
    git_commit *tip;
    char *text, *name, *list;

    (void)state;
    assert_int_equal(rpl_git_commit_resolve(repo, NULL, &head), 0);
    assert_int_equal(rpl_optbranch_begin(&b, repo, "gemm", &o), 0);
    assert_null(rpl_optbranch_name(b));
    assert_string_equal(rpl_optbranch_base(b)->hex, head.hex);
    list = opt_branches();
    assert_string_equal(list, ""); /* no ref before the first commit */
    free(list);

    assert_int_equal(rpl_optbranch_commit(b, &kernel_v3, 1, "perf(gemm): first\n", &made), 0);
    assert_string_equal(rpl_optbranch_name(b), NAME);
    assert_int_equal(rpl_optbranch_count(b), 1);
    r = raw_repo();
    tip = branch_tip(r, NAME);
    assert_string_equal(git_oid_tostr_s(git_commit_id(tip)), made.hex);
    assert_int_equal(git_commit_parentcount(tip), 1);
    assert_string_equal(git_oid_tostr_s(git_commit_parent_id(tip, 0)), head.hex);
    assert_string_equal(git_commit_message(tip), "perf(gemm): first\n");
    text = file_in(tip, "src/kernel.hip", NULL);
    assert_string_equal(text, "kernel v3\n");
    free(text);
    /* Everything else is the base commit's content, not the user's edits. */
    text = file_in(tip, "src/util.h", NULL);
    assert_string_equal(text, "util\n");
    free(text);
    text = file_in(tip, "README", NULL);
    assert_string_equal(text, "readme\n");
    free(text);
    git_commit_free(tip);
    git_repository_free(r);

    assert_int_equal(rpl_optbranch_finish(b, &name), 0);
    assert_string_equal(name, NAME);
    free(name);
    assert_true(branch_exists(NAME));
    after = gitfix_snapshot_take(repo_dir);
    gitfix_snapshot_assert_same(before, after);
    gitfix_snapshot_free(before);
    gitfix_snapshot_free(after);
    rpl_git_repo_free(repo);
}

static void second_commit_chains_onto_the_first(void **state)
{
    gitfix_snapshot *before = gitfix_snapshot_take(repo_dir), *after;
    const rpl_git_file two[] = {{"src/util.h", "util v3\n", 8}, {"src/new.h", "new\n", 4}};
    rpl_optbranch_opts o = {.stamp = STAMP};
    rpl_git_repo *repo = open_repo();
    rpl_git_commit_id first, second;
    rpl_optbranch *b;
    git_repository *r;
    git_commit *tip;
    char *text, *name;

    (void)state;
    assert_int_equal(rpl_optbranch_begin(&b, repo, "gemm", &o), 0);
    assert_int_equal(rpl_optbranch_commit(b, &kernel_v3, 1, "one\n", &first), 0);
    assert_int_equal(rpl_optbranch_commit(b, &kernel_v4, 1, "two\n", NULL), 0);
    assert_int_equal(rpl_optbranch_commit(b, two, 2, "three\n", &second), 0);
    assert_int_equal(rpl_optbranch_count(b), 3);
    r = raw_repo();
    tip = branch_tip(r, NAME);
    assert_string_equal(git_oid_tostr_s(git_commit_id(tip)), second.hex);
    text = file_in(tip, "src/kernel.hip", NULL);
    assert_string_equal(text, "kernel v4\n");
    free(text);
    text = file_in(tip, "src/new.h", NULL);
    assert_string_equal(text, "new\n");
    free(text);
    {
        git_commit *mid, *bottom;
        assert_int_equal(git_commit_parent(&mid, tip, 0), 0);
        assert_string_equal(git_commit_message(mid), "two\n");
        assert_int_equal(git_commit_parent(&bottom, mid, 0), 0);
        assert_string_equal(git_oid_tostr_s(git_commit_id(bottom)), first.hex);
        git_commit_free(mid);
        git_commit_free(bottom);
    }
    git_commit_free(tip);
    git_repository_free(r);
    assert_int_equal(rpl_optbranch_finish(b, &name), 0);
    free(name);
    after = gitfix_snapshot_take(repo_dir);
    gitfix_snapshot_assert_same(before, after);
    gitfix_snapshot_free(before);
    gitfix_snapshot_free(after);
    rpl_git_repo_free(repo);
}

static void abort_deletes_the_branch(void **state)
{
    gitfix_snapshot *before = gitfix_snapshot_take(repo_dir), *after;
    rpl_optbranch_opts o = {.stamp = STAMP};
    rpl_git_repo *repo = open_repo();
    rpl_optbranch *b;
    char *list;

    (void)state;
    assert_int_equal(rpl_optbranch_begin(&b, repo, "gemm", &o), 0);
    assert_int_equal(rpl_optbranch_commit(b, &kernel_v3, 1, "one\n", NULL), 0);
    assert_int_equal(rpl_optbranch_commit(b, &kernel_v4, 1, "two\n", NULL), 0);
    assert_true(branch_exists(NAME));
    assert_int_equal(rpl_optbranch_abort(b), 0);
    assert_false(branch_exists(NAME));
    list = opt_branches();
    assert_string_equal(list, "");
    free(list);
    /* Nothing committed: abort and finish have nothing to do. */
    assert_int_equal(rpl_optbranch_begin(&b, repo, "gemm", &o), 0);
    assert_int_equal(rpl_optbranch_abort(b), 0);
    assert_int_equal(rpl_optbranch_begin(&b, repo, "gemm", &o), 0);
    {
        char *name = (char *)1;
        assert_int_equal(rpl_optbranch_finish(b, &name), 0);
        assert_null(name);
    }
    assert_int_equal(rpl_optbranch_abort(NULL), 0);
    after = gitfix_snapshot_take(repo_dir);
    gitfix_snapshot_assert_same(before, after);
    gitfix_snapshot_free(before);
    gitfix_snapshot_free(after);
    rpl_git_repo_free(repo);
}

static void existing_branch_gets_a_suffix(void **state)
{
    rpl_optbranch_opts o = {.stamp = STAMP};
    rpl_git_repo *repo = open_repo();
    rpl_optbranch *b1, *b2;
    char *before = gitfix_git(repo_dir, "rev-parse", "HEAD~1", NULL), *after, *name;

    (void)state;
    before[strcspn(before, "\n")] = '\0';
    free(gitfix_git(repo_dir, "branch", NAME, "HEAD~1", NULL));
    assert_int_equal(rpl_optbranch_begin(&b1, repo, "gemm", &o), 0);
    assert_int_equal(rpl_optbranch_begin(&b2, repo, "gemm", &o), 0);
    assert_int_equal(rpl_optbranch_commit(b1, &kernel_v3, 1, "one\n", NULL), 0);
    assert_string_equal(rpl_optbranch_name(b1), NAME "-2");
    assert_int_equal(rpl_optbranch_commit(b2, &kernel_v4, 1, "one\n", NULL), 0);
    assert_string_equal(rpl_optbranch_name(b2), NAME "-3");
    assert_int_equal(rpl_optbranch_abort(b2), 0);
    assert_int_equal(rpl_optbranch_finish(b1, &name), 0);
    assert_string_equal(name, NAME "-2");
    free(name);
    /* The branch that was there is untouched. */
    after = gitfix_git(repo_dir, "rev-parse", NAME, NULL);
    after[strcspn(after, "\n")] = '\0';
    assert_string_equal(after, before);
    assert_false(branch_exists(NAME "-3"));
    free(before);
    free(after);
    rpl_git_repo_free(repo);
}

static void kernel_names_become_valid_components(void **state)
{
    const char *cases[][2] = {
        {"gemm<float, 4>", "gemm-float-4"},
        {"void k(float*, int)", "void-k-float-int"},
        {"_Z10gemm_tiledPKfS0_Pfi", "_Z10gemm_tiledPKfS0_Pfi"},
        {"..hidden..name.", "hidden.name"},
        {"ns::k/v2", "ns-k-v2"},
        {"kernel.lock", "kernel-lock"},
        {"@{}~^:?*[\\", "kernel"},
        {"", "kernel"},
        {"r\xc3\xa9"
         "duction",
         "r-duction"},
    };
    rpl_optbranch_opts o = {.stamp = STAMP};
    rpl_git_repo *repo = open_repo();

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rpl_optbranch *b;
        char want[256];

        assert_int_equal(rpl_optbranch_begin(&b, repo, cases[i][0], &o), 0);
        assert_int_equal(rpl_optbranch_commit(b, &kernel_v3, 1, "x\n", NULL), 0);
        snprintf(want, sizeof(want), "rocm-perf/opt/%s/20231114-221320", cases[i][1]);
        if (strcmp(rpl_optbranch_name(b), want) != 0)
            fail_msg("'%s' gave '%s', want '%s'", cases[i][0], rpl_optbranch_name(b), want);
        assert_true(branch_exists(want));
        assert_int_equal(rpl_optbranch_abort(b), 0);
    }
    {
        /* Long names are cut; the default stamp is now, in UTC. */
        char longname[300];
        regex_t re;
        rpl_optbranch *b;

        memset(longname, 'k', sizeof(longname) - 1);
        longname[sizeof(longname) - 1] = '\0';
        assert_int_equal(rpl_optbranch_begin(&b, repo, longname, NULL), 0);
        assert_int_equal(rpl_optbranch_commit(b, &kernel_v3, 1, "x\n", NULL), 0);
        assert_int_equal(regcomp(&re, "^rocm-perf/opt/k{64}/20[0-9]{6}-[0-9]{6}(-[0-9]+)?$",
                                 REG_EXTENDED | REG_NOSUB),
                         0);
        assert_int_equal(regexec(&re, rpl_optbranch_name(b), 0, NULL, 0), 0);
        regfree(&re);
        assert_int_equal(rpl_optbranch_abort(b), 0);
    }
    rpl_git_repo_free(repo);
}

static void signature_falls_back_without_user_config(void **state)
{
    rpl_optbranch_opts o = {.stamp = STAMP};
    rpl_git_repo *repo = open_repo();
    rpl_optbranch *b;
    git_repository *r;
    git_commit *tip;

    (void)state;
    assert_int_equal(rpl_optbranch_begin(&b, repo, "gemm", &o), 0);
    assert_int_equal(rpl_optbranch_commit(b, &kernel_v3, 1, "x\n", NULL), 0);
    r = raw_repo();
    tip = branch_tip(r, NAME);
    assert_string_equal(git_commit_author(tip)->name, "rocm-perf");
    assert_string_equal(git_commit_author(tip)->email, "rocm-perf@localhost");
    assert_string_equal(git_commit_committer(tip)->name, "rocm-perf");
    git_commit_free(tip);
    git_repository_free(r);
    assert_int_equal(rpl_optbranch_abort(b), 0);
    rpl_git_repo_free(repo);

    /* With user.name and user.email configured, they are used. */
    free(gitfix_git(repo_dir, "config", "user.name", "Ada Dev", NULL));
    free(gitfix_git(repo_dir, "config", "user.email", "ada@example.com", NULL));
    repo = open_repo();
    assert_int_equal(rpl_optbranch_begin(&b, repo, "gemm", &o), 0);
    assert_int_equal(rpl_optbranch_commit(b, &kernel_v3, 1, "x\n", NULL), 0);
    r = raw_repo();
    tip = branch_tip(r, NAME);
    assert_string_equal(git_commit_author(tip)->name, "Ada Dev");
    assert_string_equal(git_commit_author(tip)->email, "ada@example.com");
    git_commit_free(tip);
    git_repository_free(r);
    assert_int_equal(rpl_optbranch_abort(b), 0);
    rpl_git_repo_free(repo);
}

static void refuses_no_change_and_bad_paths(void **state)
{
    const rpl_git_file same = {"src/kernel.hip", "kernel v2\n", 10};
    const rpl_git_file up = {"../x", "x", 1};
    const rpl_git_file git = {".git/hooks/pre-commit", "x", 1};
    const rpl_git_file dir = {"src", "x", 1};
    rpl_optbranch_opts o = {.stamp = STAMP};
    rpl_git_repo *repo = open_repo();
    rpl_optbranch *b;
    char *list;

    (void)state;
    assert_int_equal(rpl_optbranch_begin(&b, repo, "gemm", &o), 0);
    assert_int_equal(rpl_optbranch_commit(b, &same, 1, "x\n", NULL), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "nothing to commit"));
    assert_int_equal(rpl_optbranch_commit(b, &up, 1, "x\n", NULL), RPL_EINPUT);
    assert_int_equal(rpl_optbranch_commit(b, &git, 1, "x\n", NULL), RPL_EINPUT);
    assert_int_equal(rpl_optbranch_commit(b, &dir, 1, "x\n", NULL), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "not a regular file"));
    assert_int_equal(rpl_optbranch_commit(b, &kernel_v3, 1, "", NULL), RPL_EUSAGE);
    assert_int_equal(rpl_optbranch_commit(b, &kernel_v3, 0, "x\n", NULL), RPL_EUSAGE);
    assert_null(rpl_optbranch_name(b));
    list = opt_branches();
    assert_string_equal(list, "");
    free(list);
    assert_int_equal(rpl_optbranch_abort(b), 0);
    rpl_git_repo_free(repo);
}

static void keeps_the_executable_bit(void **state)
{
    const rpl_git_file run = {"run.sh", "#!/bin/sh\necho faster\n", 22};
    rpl_optbranch_opts o = {.stamp = STAMP};
    rpl_git_repo *repo = open_repo();
    git_filemode_t mode;
    rpl_optbranch *b;
    git_repository *r;
    git_commit *tip;

    (void)state;
    assert_int_equal(rpl_optbranch_begin(&b, repo, "gemm", &o), 0);
    assert_int_equal(rpl_optbranch_commit(b, &run, 1, "x\n", NULL), 0);
    r = raw_repo();
    tip = branch_tip(r, NAME);
    free(file_in(tip, "run.sh", &mode));
    assert_int_equal(mode, GIT_FILEMODE_BLOB_EXECUTABLE);
    free(file_in(tip, "src/kernel.hip", &mode));
    assert_int_equal(mode, GIT_FILEMODE_BLOB);
    git_commit_free(tip);
    git_repository_free(r);
    assert_int_equal(rpl_optbranch_abort(b), 0);
    rpl_git_repo_free(repo);
}

static void branch_moved_by_someone_else_is_left_alone(void **state)
{
    rpl_optbranch_opts o = {.stamp = STAMP};
    rpl_git_repo *repo = open_repo();
    rpl_optbranch *b;

    (void)state;
    assert_int_equal(rpl_optbranch_begin(&b, repo, "gemm", &o), 0);
    assert_int_equal(rpl_optbranch_commit(b, &kernel_v3, 1, "one\n", NULL), 0);
    free(gitfix_git(repo_dir, "branch", "-f", NAME, "HEAD~1", NULL));
    assert_int_equal(rpl_optbranch_commit(b, &kernel_v4, 1, "two\n", NULL), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "changed outside this run"));
    assert_int_equal(rpl_optbranch_abort(b), RPL_EINPUT);
    assert_true(branch_exists(NAME));
    rpl_git_repo_free(repo);
}

static void starts_from_a_given_base(void **state)
{
    rpl_optbranch_opts o = {.stamp = STAMP, .base = "HEAD~1"};
    rpl_git_repo *repo = open_repo();
    rpl_git_commit_id older;
    rpl_optbranch *b;
    git_repository *r;
    git_commit *tip;

    (void)state;
    assert_int_equal(rpl_git_commit_resolve(repo, "HEAD~1", &older), 0);
    assert_int_equal(rpl_optbranch_begin(&b, repo, "gemm", &o), 0);
    assert_string_equal(rpl_optbranch_base(b)->hex, older.hex);
    assert_int_equal(rpl_optbranch_commit(b, &kernel_v3, 1, "x\n", NULL), 0);
    r = raw_repo();
    tip = branch_tip(r, NAME);
    assert_string_equal(git_oid_tostr_s(git_commit_parent_id(tip, 0)), older.hex);
    git_commit_free(tip);
    git_repository_free(r);
    assert_int_equal(rpl_optbranch_abort(b), 0);
    o.base = "no-such-base";
    assert_int_equal(rpl_optbranch_begin(&b, repo, "gemm", &o), RPL_ENOTFOUND);
    rpl_git_repo_free(repo);
}

static int child_mode; /* 0: interrupted by SIGINT; 1: plain exit without finish */

static void child_commits_then_stops(void)
{
    rpl_optbranch_opts o = {.stamp = STAMP};
    rpl_git_repo *repo;
    rpl_optbranch *b;

    if ((child_mode == 0 && rpl_cleanup_install_signals() != 0) ||
        rpl_git_repo_open(&repo, repo_dir) != 0 || rpl_optbranch_begin(&b, repo, "gemm", &o) != 0 ||
        rpl_optbranch_commit(b, &kernel_v3, 1, "one\n", NULL) != 0)
        _exit(90);
    if (child_mode == 1)
        exit(0);
    raise(SIGINT);
    /* The next step's check sees the interrupt; the command unwinds without finishing. */
    if (rpl_interrupt_check() == 0)
        _exit(91);
    rpl_cleanup_exit_if_interrupted();
    _exit(92);
}

static int run_child(int mode)
{
    int status;
    pid_t pid;

    child_mode = mode;
    fflush(NULL);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child_commits_then_stops();
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

/* Global, so that LeakSanitizer in an exiting child still sees it reachable. */
static gitfix_snapshot *before_children;

static void interrupt_or_exit_leaves_no_branch(void **state)
{
    gitfix_snapshot *after;
    int status;
    char *list;

    (void)state;
    before_children = gitfix_snapshot_take(repo_dir);
    status = run_child(0);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGINT);
    list = opt_branches();
    assert_string_equal(list, "");
    free(list);
    status = run_child(1);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    list = opt_branches();
    assert_string_equal(list, "");
    free(list);
    after = gitfix_snapshot_take(repo_dir);
    gitfix_snapshot_assert_same(before_children, after);
    gitfix_snapshot_free(before_children);
    gitfix_snapshot_free(after);
}

#define T(f) cmocka_unit_test_setup(f, fresh_repo)

int main(void)
{
    const struct CMUnitTest tests[] = {
        T(first_commit_creates_the_branch),
        T(second_commit_chains_onto_the_first),
        T(abort_deletes_the_branch),
        T(existing_branch_gets_a_suffix),
        T(kernel_names_become_valid_components),
        T(signature_falls_back_without_user_config),
        T(refuses_no_change_and_bad_paths),
        T(keeps_the_executable_bit),
        T(branch_moved_by_someone_else_is_left_alone),
        T(starts_from_a_given_base),
        T(interrupt_or_exit_leaves_no_branch),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
