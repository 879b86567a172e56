/*
 * The candidate pipeline (rpl/pipeline.h) as the loop's backend: ranking
 * from the whole-application profile, candidates through every check,
 * accepted ones committed on the optimization branch and made the
 * reference of the next candidates.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/llm_loop.h"
#include "rpl/optgit.h"
#include "rpl/strbuf.h"

static int pb_ranking(void *ctx, rpl_path_kernel **kernels, size_t *n)
{
    rpl_llm_pipe_ctx *pc = ctx;
    const char *const *names = NULL;
    const double *ceilings = NULL;
    size_t count = rpl_pipe_ranked(pc->pipe, &names, &ceilings);

    *kernels = NULL;
    *n = 0;
    if (count == 0)
        return 0;
    if (!(*kernels = calloc(count, sizeof(**kernels))))
        return rpl_error_oom();
    for (size_t i = 0; i < count; i++) {
        /* ceiling = 1/(1-f) */
        double f = isinf(ceilings[i]) ? 1.0 : ceilings[i] > 0 ? 1.0 - 1.0 / ceilings[i] : 0.0;
        (*kernels)[i] = (rpl_path_kernel){names[i], f, true};
    }
    *n = count;
    return 0;
}

static int pb_facts(void *ctx, const char *kernel, rpl_llm_facts *out)
{
    rpl_llm_pipe_ctx *pc = ctx;
    const char *const *names = NULL;
    const double *ceilings = NULL;
    size_t count = rpl_pipe_ranked(pc->pipe, &names, &ceilings);
    unsigned wave = rpl_pipe_wave_size(pc->pipe);
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    for (size_t i = 0; rc == 0 && i < count; i++) {
        double f = isinf(ceilings[i]) ? 1.0 : 1.0 - 1.0 / ceilings[i];
        rc = rpl_strbuf_printf(&sb,
                               "- %s: %.1f%% of the application's critical path; making it "
                               "infinitely fast would speed the application up %.2fx%s\n",
                               names[i], 100.0 * f, ceilings[i],
                               strcmp(names[i], kernel) == 0 ? " (the target)" : "");
    }
    if (rc == 0 && sb.len)
        out->critical_path = rpl_strbuf_detach(&sb);
    rpl_strbuf_release(&sb);
    if (rc == 0 && wave) {
        char text[64];
        snprintf(text, sizeof(text), "Wavefront (warp) size %u.", wave);
        if (!(out->arch_facts = strdup(text)))
            rc = rpl_error_oom();
    }
    return rc;
}

static int pb_run(void *ctx, const rpl_pipe_candidate *c, rpl_pipe_outcome **out)
{
    return rpl_pipe_run(((rpl_llm_pipe_ctx *)ctx)->pipe, c, out);
}

static int pb_reject(void *ctx, const rpl_pipe_candidate *c, rpl_pipe_decision d,
                     const char *message, rpl_pipe_outcome **out)
{
    return rpl_pipe_record(((rpl_llm_pipe_ctx *)ctx)->pipe, c, d, message, out);
}

static int pb_accept(void *ctx, const rpl_pipe_outcome *o, const rpl_pipe_candidate *c, bool commit,
                     char **where)
{
    rpl_llm_pipe_ctx *pc = ctx;
    rpl_git_commit_id id;
    char *message = NULL;
    int rc;

    *where = NULL;
    if (commit && pc->branch) {
        rpl_git_file file = {rpl_pipe_source_relpath(pc->pipe), c->text, c->len};
        if ((rc = rpl_pipe_commit_message(pc->pipe, o, &message)) != 0 ||
            (rc = rpl_optbranch_commit(pc->branch, &file, 1, message, &id)) != 0) {
            free(message);
            return rc;
        }
        free(message);
        rc = rpl_pipe_note_commit(pc->pipe, o, rpl_optbranch_name(pc->branch), id.hex);
        if (rc == 0 && !(*where = malloc(strlen(rpl_optbranch_name(pc->branch)) + 64)))
            rc = rpl_error_oom();
        if (rc == 0)
            sprintf(*where, "committed %s on %s", id.short_hex, rpl_optbranch_name(pc->branch));
    } else {
        const char *why = pc->branch ? "not committed: not approved" : "not committed: dry run";
        rc = rpl_pipe_note_commit(pc->pipe, o, why, NULL);
        if (rc == 0 && !(*where = strdup(why)))
            rc = rpl_error_oom();
    }
    if (rc == 0)
        rc = rpl_pipe_rebase(pc->pipe, o);
    return rc;
}

static int pb_reports(void *ctx)
{
    return rpl_pipe_write_reports(((rpl_llm_pipe_ctx *)ctx)->pipe);
}

void rpl_llm_loop_pipe_backend(rpl_llm_loop_backend *be, rpl_llm_pipe_ctx *ctx)
{
    be->ctx = ctx;
    be->ranking = pb_ranking;
    be->facts = pb_facts;
    be->run = pb_run;
    be->reject = pb_reject;
    be->accept = pb_accept;
    be->reports = pb_reports;
}
