/*
 * One optimization session, shared by `optimize` and `llm-optimize`: the
 * user's repository, a branch per kernel or one per run, the approval of
 * each accepted candidate (asked on a terminal, given by --auto-approve,
 * or a dry run), its commit with the pipeline's message and trailers, the
 * note of what became of it in the reports, the rebase of later candidates
 * onto it, and the push of the branches kept.
 *
 * The user's checkout is never touched (rpl/optgit.h): commits are made
 * from trees, and a branch ref appears with its first commit.  Branches of
 * a session that is freed before rpl_session_keep (an error, an interrupt)
 * are deleted again.
 */
#ifndef RPL_SESSION_H
#define RPL_SESSION_H

#include <stdbool.h>
#include <stddef.h>

#include "rpl/optgit.h"
#include "rpl/pipeline.h"

/* How accepted candidates are approved. */
typedef enum rpl_session_mode {
    RPL_SESSION_MODE_ASK = 0, /* a terminal: asked before each commit */
    RPL_SESSION_MODE_COMMIT,  /* --auto-approve: committed without asking */
    RPL_SESSION_MODE_DRY_RUN  /* neither: reported, never committed */
} rpl_session_mode;

typedef struct rpl_session_opts {
    bool auto_approve;
    const char *push; /* a remote's name or URL the kept branches go to; NULL: none */
    /* One branch for the whole run, named after this (llm-optimize); NULL: one branch per
       kernel, named after the outcome's kernel (optimize). */
    const char *run_branch;
    /* An accepted candidate becomes the reference later candidates are measured against
       (rpl_pipe_rebase), committed or not. */
    bool rebase;
} rpl_session_opts;

typedef struct rpl_session rpl_session;

/* A session on the repository that holds the pipeline's source; branches start at its
   baseline commit.  The mode follows opts and whether stdin is a terminal. */
int rpl_session_open(rpl_session **out, rpl_pipe *pipe, const rpl_session_opts *opts);

rpl_session_mode rpl_session_mode_of(const rpl_session *s);

/* What became of an accepted candidate. */
typedef enum rpl_session_verdict {
    RPL_SESSION_COMMITTED = 0,
    RPL_SESSION_DECLINED, /* the terminal said no */
    RPL_SESSION_DRY_RUN   /* no terminal and no --auto-approve */
} rpl_session_verdict;

typedef struct rpl_session_commit {
    rpl_session_verdict verdict;
    char *subject;      /* the commit message's subject line */
    const char *branch; /* COMMITTED: the branch (the session's) */
    rpl_git_commit_id id;
} rpl_session_commit;

void rpl_session_commit_release(rpl_session_commit *c);

/*
 * An accepted outcome of rpl_pipe_run (`text` its candidate's whole
 * source): asked about (`question`, NULL: the commit's subject, answered
 * "[y/N]" on stderr) in RPL_SESSION_MODE_ASK, committed with
 * rpl_pipe_commit_message on its branch when approved, noted in the
 * reports (rpl_pipe_note_commit), and rebased onto with opts.rebase.
 */
int rpl_session_offer(rpl_session *s, const rpl_pipe_outcome *oc, const char *text, size_t len,
                      const char *question, rpl_session_commit *out);

/* The branches begun (at most one per kernel), and the name of the i-th once it has a
   commit (valid until the session is freed; NULL before). */
size_t rpl_session_branch_count(const rpl_session *s);
const char *rpl_session_branch_name(const rpl_session *s, size_t i);

/* Keep the branches made: they outlive the session.  The first error, after trying all. */
int rpl_session_keep(rpl_session *s);

/* Push a kept branch to opts.push (rpl_git_push); nothing without opts.push. */
int rpl_session_push(rpl_session *s, const char *branch);

/* Delete the branches not kept, then free.  NULL is fine. */
void rpl_session_free(rpl_session *s);

#endif
