/*
 * The HEAD commit of the git repository around a folder, for the records
 * that name the commit they were made at (the baseline's run history).
 * The optimizer's own git work is rpl/optgit.h.
 */
#ifndef RPL_GIT_HEAD_H
#define RPL_GIT_HEAD_H

/*
 * *out: the full hex id of HEAD of the repository holding `dir` (free()),
 * or NULL when there is none (no repository, a bare one, no commit yet):
 * that is not an error.  Fails only when out of memory.
 */
int rpl_git_head_commit(char **out, const char *dir);

#endif
