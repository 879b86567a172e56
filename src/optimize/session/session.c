/* The optimization session of `optimize` and `llm-optimize` (rpl/session.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rpl/array.h"
#include "rpl/error.h"
#include "rpl/kernel_source.h"
#include "rpl/session.h"

typedef struct branch_entry {
    char *name; /* the kernel (or run) it is named after */
    rpl_optbranch *b;
    char *kept; /* its ref's name once kept; NULL: not kept, or no commit */
} branch_entry;

struct rpl_session {
    rpl_session_opts opts;
    char *run_branch; /* opts.run_branch's copy (a ranking's name is gone after a rebase) */
    rpl_session_mode mode;
    rpl_pipe *pipe;
    rpl_git_repo *repo;
    branch_entry *branches;
    size_t nbranches, cap;
};

int rpl_session_open(rpl_session **out, rpl_pipe *pipe, const rpl_session_opts *opts)
{
    rpl_session *s = calloc(1, sizeof(*s));
    int rc;

    *out = NULL;
    if (!s)
        return rpl_error_oom();
    s->opts = *opts;
    s->pipe = pipe;
    if (opts->run_branch && !(s->opts.run_branch = s->run_branch = strdup(opts->run_branch))) {
        free(s);
        return rpl_error_oom();
    }
    s->mode = opts->auto_approve     ? RPL_SESSION_MODE_COMMIT
              : isatty(STDIN_FILENO) ? RPL_SESSION_MODE_ASK
                                     : RPL_SESSION_MODE_DRY_RUN;
    if ((rc = rpl_git_repo_open(&s->repo, rpl_pipe_original_parsed(pipe)->name)) != 0) {
        free(s->run_branch);
        free(s);
        return rc;
    }
    *out = s;
    return 0;
}

rpl_session_mode rpl_session_mode_of(const rpl_session *s)
{
    return s->mode;
}

/* The one approval prompt: `question [y/N]` on stderr, yes only for an answer starting y. */
static bool ask(const char *question)
{
    char line[16];

    fprintf(stderr, "%s [y/N] ", question);
    fflush(stderr);
    if (!fgets(line, sizeof(line), stdin))
        return false;
    return line[0] == 'y' || line[0] == 'Y';
}

/* The branch named `name`, begun from the baseline at its first use. */
static int branch_for(rpl_session *s, const char *name, rpl_optbranch **out)
{
    rpl_optbranch_opts bo = {.base = rpl_pipe_baseline_commit(s->pipe)};
    branch_entry *e;
    int rc;

    for (size_t i = 0; i < s->nbranches; i++)
        if (strcmp(s->branches[i].name, name) == 0) {
            *out = s->branches[i].b;
            return 0;
        }
    if (!(e = RPL_ARRAY_PUSH(s->branches, s->nbranches, s->cap)))
        return RPL_ENOMEM;
    rc =
        (e->name = strdup(name)) ? rpl_optbranch_begin(&e->b, s->repo, name, &bo) : rpl_error_oom();
    if (rc) {
        free(e->name);
        s->nbranches--;
        return rc;
    }
    *out = e->b;
    return 0;
}

static int commit(rpl_session *s, const rpl_pipe_outcome *oc, const char *message, const char *text,
                  size_t len, rpl_session_commit *out)
{
    rpl_git_file file = {.path = rpl_pipe_source_relpath(s->pipe), .data = text, .len = len};
    const char *name = s->opts.run_branch ? s->opts.run_branch : oc->kernel;
    rpl_optbranch *b = NULL;
    int rc;

    if ((rc = branch_for(s, name, &b)) != 0 ||
        (rc = rpl_optbranch_commit(b, &file, 1, message, &out->id)) != 0)
        return rc;
    out->branch = rpl_optbranch_name(b);
    return rpl_pipe_note_commit(s->pipe, oc, out->branch, out->id.hex);
}

void rpl_session_commit_release(rpl_session_commit *c)
{
    free(c->subject);
    memset(c, 0, sizeof(*c));
}

int rpl_session_offer(rpl_session *s, const rpl_pipe_outcome *oc, const char *text, size_t len,
                      const char *question, rpl_session_commit *out)
{
    char *msg = NULL;
    int rc;

    memset(out, 0, sizeof(*out));
    if ((rc = rpl_pipe_commit_message(s->pipe, oc, &msg)) != 0)
        return rc;
    if (!(out->subject = strndup(msg, strcspn(msg, "\n")))) {
        free(msg);
        return rpl_error_oom();
    }
    if (s->mode == RPL_SESSION_MODE_DRY_RUN) {
        out->verdict = RPL_SESSION_DRY_RUN;
        rc = rpl_pipe_note_commit(s->pipe, oc, "not committed: dry run", NULL);
    } else if (s->mode == RPL_SESSION_MODE_ASK && !ask(question ? question : out->subject)) {
        out->verdict = RPL_SESSION_DECLINED;
        rc = rpl_pipe_note_commit(s->pipe, oc, "not committed: declined", NULL);
    } else {
        out->verdict = RPL_SESSION_COMMITTED;
        rc = commit(s, oc, msg, text, len, out);
    }
    free(msg);
    if (rc == 0 && s->opts.rebase)
        rc = rpl_pipe_rebase(s->pipe, oc);
    if (rc)
        rpl_session_commit_release(out);
    return rc;
}

size_t rpl_session_branch_count(const rpl_session *s)
{
    return s->nbranches;
}

const char *rpl_session_branch_name(const rpl_session *s, size_t i)
{
    const branch_entry *e = &s->branches[i];

    return e->b ? rpl_optbranch_name(e->b) : e->kept;
}

int rpl_session_keep(rpl_session *s)
{
    int rc = 0;

    for (size_t i = 0; i < s->nbranches; i++) {
        int r = rpl_optbranch_finish(s->branches[i].b, &s->branches[i].kept);
        s->branches[i].b = NULL;
        if (r && !rc)
            rc = r;
    }
    return rc;
}

int rpl_session_push(rpl_session *s, const char *branch)
{
    return s->opts.push ? rpl_git_push(s->repo, s->opts.push, branch) : 0;
}

void rpl_session_free(rpl_session *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nbranches; i++) {
        rpl_optbranch_abort(s->branches[i].b);
        free(s->branches[i].name);
        free(s->branches[i].kept);
    }
    free(s->branches);
    rpl_git_repo_free(s->repo);
    free(s->run_branch);
    free(s);
}
