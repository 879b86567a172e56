/* Shared by src/optimize/git: the repository handle and libgit2 error mapping. */
#ifndef RPL_OPTIMIZE_GIT_INTERNAL_H
#define RPL_OPTIMIZE_GIT_INTERNAL_H

#include <git2.h>

#include "rpl/optgit.h"

struct rpl_git_repo {
    git_repository *repo;
    char *workdir; /* realpath, ends with '/' */
};

/* git_libgit2_init, once per process (thread-safe); 0 or RPL_EENV. */
int rpl_git_init(void);

/* The RPL_E* code for a libgit2 error code. */
int rpl_git_status_code(int git_rc);

/*
 * Set the thread's error from libgit2's last error for a failed call that
 * returned `git_rc`: "<context>: <libgit2 message>", code mapped from git_rc.
 */
int rpl_git_fail(int git_rc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Check a repository-relative path: not empty, not absolute, no "." / ".." parts, not in .git. */
int rpl_git_check_relpath(const char *path);

/* Fill an rpl_git_commit_id from an object id. */
int rpl_git_fill_id(git_repository *repo, const git_oid *id, rpl_git_commit_id *out);

/* The commit `rev` names (NULL: HEAD), caller frees with git_commit_free. */
int rpl_git_lookup_commit(git_commit **out, git_repository *repo, const char *rev);

#endif
