/*
 * Throw-away git repositories for the optgit tests, and a snapshot of
 * everything the user would notice (HEAD, the index's bytes and mtime,
 * `git status`, the other refs, every working-tree file) to prove that an
 * operation left the checkout alone.
 */
#ifndef RPL_TEST_GITFIX_H
#define RPL_TEST_GITFIX_H

#include <stddef.h>

/*
 * Empty `root` and point HOME (and libgit2's global/system config search
 * paths) at an empty home inside it, so no developer config leaks in.
 * Nothing configures user.name: the fixture's git commands pass it with -c.
 */
void gitfix_env(const char *root);

/* Run `git -C dir args... NULL`; fail the test unless it exits 0.  Returns stdout (free()). */
char *gitfix_git(const char *dir, ...);

/* Write a file (creating its directory). */
void gitfix_write(const char *path, const char *text);

/* The whole file as a string (free()); fails the test when missing. */
char *gitfix_read(const char *path);

/*
 * A repository at `path` with two commits on main:
 *   1: src/kernel.hip "kernel v1", README "readme"
 *   2: src/kernel.hip "kernel v2", src/util.h "util", run.sh (executable), .gitignore "*.o"
 * and uncommitted state: src/util.h modified, README changed and staged,
 * notes.txt untracked, build.o ignored.
 */
void gitfix_repo(const char *path);

typedef struct gitfix_snapshot gitfix_snapshot;

gitfix_snapshot *gitfix_snapshot_take(const char *repo);
/* What differs between two snapshots ("the mtime of .git/index" ...), or NULL. */
const char *gitfix_snapshot_diff(const gitfix_snapshot *a, const gitfix_snapshot *b);
/* Fail the test, naming what changed, unless `a` and `b` are equal. */
void gitfix_snapshot_assert_same(const gitfix_snapshot *a, const gitfix_snapshot *b);
void gitfix_snapshot_free(gitfix_snapshot *s);

#endif
