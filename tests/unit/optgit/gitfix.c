/* Throw-away repositories and checkout snapshots for the optgit tests (gitfix.h). */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <git2.h>

#include "gitfix.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/spawn.h"
#include "rpl/strbuf.h"

#define ARGS_MAX 32

struct gitfix_snapshot {
    char *head_file; /* .git/HEAD */
    char *head;      /* git rev-parse HEAD */
    char *index;     /* .git/index bytes */
    size_t index_len;
    struct timespec index_mtime;
    char *status;   /* git status --porcelain, untracked and ignored included */
    char *refs;     /* every ref but refs/heads/rocm-perf/ */
    char *worktree; /* every file: path, mode, content */
};

void gitfix_env(const char *root)
{
    rpl_strbuf home = RPL_STRBUF_INIT, none = RPL_STRBUF_INIT;

    assert_int_equal(rpl_remove_tree(root), 0);
    assert_int_equal(rpl_strbuf_printf(&home, "%s/home", root), 0);
    assert_int_equal(rpl_strbuf_printf(&none, "%s/home/no-system-config", root), 0);
    assert_int_equal(rpl_mkdir_p(none.ptr), 0);
    setenv("HOME", home.ptr, 1);
    unsetenv("XDG_CONFIG_HOME");
    setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
    setenv("GIT_OPTIONAL_LOCKS", "0", 1); /* `git status` must not refresh the index */
    unsetenv("GIT_DIR");
    unsetenv("GIT_WORK_TREE");
    unsetenv("GIT_INDEX_FILE");
    assert_true(git_libgit2_init() > 0);
    assert_int_equal(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_GLOBAL, home.ptr),
                     0);
    assert_int_equal(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_XDG, none.ptr), 0);
    assert_int_equal(git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_SYSTEM, none.ptr),
                     0);
    rpl_strbuf_release(&home);
    rpl_strbuf_release(&none);
}

static char *run_git(const char *dir, bool must_pass, va_list ap)
{
    const char *argv[ARGS_MAX] = {"git", "-C", dir};
    rpl_spawn_opts o = {.argv = argv, .capture_stdout = true, .capture_stderr = true};
    rpl_spawn_result r;
    size_t n = 3;
    const char *a;
    char *out;

    while ((a = va_arg(ap, const char *)) != NULL) {
        assert_true(n < ARGS_MAX - 1);
        argv[n++] = a;
    }
    argv[n] = NULL;
    assert_int_equal(rpl_spawn_run(&r, &o), 0);
    if (must_pass && !(r.exited && r.exit_code == 0))
        fail_msg("git %s failed: %s", argv[3], r.err);
    out = r.out;
    r.out = NULL;
    rpl_spawn_result_release(&r);
    return out;
}

char *gitfix_git(const char *dir, ...)
{
    va_list ap;
    char *out;

    va_start(ap, dir);
    out = run_git(dir, true, ap);
    va_end(ap);
    return out;
}

static void git_quiet(const char *dir, ...)
{
    va_list ap;

    va_start(ap, dir);
    free(run_git(dir, true, ap));
    va_end(ap);
}

void gitfix_write(const char *path, const char *text)
{
    char *dir = strdup(path), *slash = strrchr(dir, '/');

    if (slash) {
        *slash = '\0';
        assert_int_equal(rpl_mkdir_p(dir), 0);
    }
    free(dir);
    assert_int_equal(rpl_file_write_atomic(path, text, strlen(text)), 0);
}

char *gitfix_read(const char *path)
{
    char *text;
    size_t len;

    if (rpl_file_read_all(path, 1 << 24, &text, &len) != 0)
        fail_msg("cannot read %s: %s", path, rpl_error_last()->message);
    return text;
}

static void write_in(const char *repo, const char *rel, const char *text)
{
    char *p;

    assert_int_equal(rpl_path_join(&p, repo, rel), 0);
    gitfix_write(p, text);
    free(p);
}

static void commit(const char *repo, const char *msg)
{
    git_quiet(repo, "add", "-A", NULL);
    git_quiet(repo, "-c", "user.name=Fixture", "-c", "user.email=fixture@example.com", "commit",
              "-q", "-m", msg, NULL);
}

void gitfix_repo(const char *path)
{
    char *run;

    assert_int_equal(rpl_remove_tree(path), 0);
    assert_int_equal(rpl_mkdir_p(path), 0);
    git_quiet(path, "init", "-q", "-b", "main", NULL);
    write_in(path, "src/kernel.hip", "kernel v1\n");
    write_in(path, "README", "readme\n");
    commit(path, "first");
    write_in(path, "src/kernel.hip", "kernel v2\n");
    write_in(path, "src/util.h", "util\n");
    write_in(path, "run.sh", "#!/bin/sh\n");
    write_in(path, ".gitignore", "*.o\n");
    assert_int_equal(rpl_path_join(&run, path, "run.sh"), 0);
    assert_int_equal(chmod(run, 0755), 0);
    free(run);
    commit(path, "second");
    /* Uncommitted work that must survive every operation. */
    write_in(path, "README", "readme staged\n");
    git_quiet(path, "add", "README", NULL);
    write_in(path, "src/util.h", "util dirty\n");
    write_in(path, "notes.txt", "untracked\n");
    write_in(path, "build.o", "ignored\n");
}

static int skip_dots(const struct dirent *e)
{
    return strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
}

static void walk(rpl_strbuf *out, const char *root, const char *rel)
{
    struct dirent **names;
    char dir[4096];
    int n, i;

    snprintf(dir, sizeof(dir), "%s%s%s", root, rel[0] ? "/" : "", rel);
    n = scandir(dir, &names, skip_dots, alphasort);
    assert_true(n >= 0);
    for (i = 0; i < n; i++) {
        char sub[4096], full[8192];
        struct stat st;

        snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", names[i]->d_name);
        snprintf(full, sizeof(full), "%s/%s", root, sub);
        free(names[i]);
        if (strcmp(sub, ".git") == 0)
            continue;
        assert_int_equal(lstat(full, &st), 0);
        assert_int_equal(rpl_strbuf_printf(out, "%s %o\n", sub, (unsigned)st.st_mode), 0);
        if (S_ISDIR(st.st_mode)) {
            walk(out, root, sub);
        } else if (S_ISREG(st.st_mode)) {
            char *text = gitfix_read(full);
            assert_int_equal(rpl_strbuf_puts(out, text), 0);
            free(text);
        }
    }
    free(names);
}

/* Every ref with its target, but the optimization branches the tests make. */
static char *other_refs(const char *repo)
{
    char *all = gitfix_git(repo, "for-each-ref", "--format=%(refname) %(objectname)", NULL);
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char *line, *save = NULL;

    for (line = strtok_r(all, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        if (strncmp(line, "refs/heads/rocm-perf/", 21) != 0)
            assert_int_equal(rpl_strbuf_printf(&sb, "%s\n", line), 0);
    free(all);
    return sb.ptr ? rpl_strbuf_detach(&sb) : strdup("");
}

gitfix_snapshot *gitfix_snapshot_take(const char *repo)
{
    gitfix_snapshot *s = calloc(1, sizeof(*s));
    rpl_strbuf sb = RPL_STRBUF_INIT, path = RPL_STRBUF_INIT;
    struct stat st;

    assert_non_null(s);
    assert_int_equal(rpl_strbuf_printf(&path, "%s/.git/index", repo), 0);
    assert_int_equal(stat(path.ptr, &st), 0);
    s->index_mtime = st.st_mtim;
    assert_int_equal(rpl_file_read_all(path.ptr, 1 << 24, &s->index, &s->index_len), 0);
    rpl_strbuf_reset(&path);
    assert_int_equal(rpl_strbuf_printf(&path, "%s/.git/HEAD", repo), 0);
    s->head_file = gitfix_read(path.ptr);
    rpl_strbuf_release(&path);
    s->head = gitfix_git(repo, "rev-parse", "HEAD", NULL);
    s->status = gitfix_git(repo, "--no-optional-locks", "status", "--porcelain=v1",
                           "--untracked-files=all", "--ignored", NULL);
    s->refs = other_refs(repo);
    walk(&sb, repo, "");
    s->worktree = rpl_strbuf_detach(&sb);
    return s;
}

const char *gitfix_snapshot_diff(const gitfix_snapshot *a, const gitfix_snapshot *b)
{
    if (strcmp(a->head_file, b->head_file) != 0)
        return ".git/HEAD";
    if (strcmp(a->head, b->head) != 0)
        return "the HEAD commit";
    if (a->index_len != b->index_len || memcmp(a->index, b->index, a->index_len) != 0)
        return "the bytes of .git/index";
    if (a->index_mtime.tv_sec != b->index_mtime.tv_sec ||
        a->index_mtime.tv_nsec != b->index_mtime.tv_nsec)
        return "the mtime of .git/index";
    if (strcmp(a->status, b->status) != 0)
        return "git status";
    if (strcmp(a->refs, b->refs) != 0)
        return "the refs";
    if (strcmp(a->worktree, b->worktree) != 0)
        return "the working tree";
    return NULL;
}

void gitfix_snapshot_assert_same(const gitfix_snapshot *a, const gitfix_snapshot *b)
{
    const char *what = gitfix_snapshot_diff(a, b);

    if (what)
        fail_msg("the user's checkout changed: %s", what);
}

void gitfix_snapshot_free(gitfix_snapshot *s)
{
    if (!s)
        return;
    free(s->head_file);
    free(s->head);
    free(s->index);
    free(s->status);
    free(s->refs);
    free(s->worktree);
    free(s);
}
