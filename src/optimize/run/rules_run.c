/*
 * rocm-perf optimize (rpl/optimize.h): the kernels ranked by critical-path
 * impact, loop unrolling under the guardrails (or one candidate file), each
 * proposal through the candidate pipeline, accepted ones committed on a
 * branch per kernel.
 */
#include <stdlib.h>
#include <string.h>

#include "rpl/cleanup.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/kernel_source.h"
#include "rpl/optimize_rules.h"
#include "run_int.h"

/* The one kernel whose definition the candidate changes, parsed as the pipeline parses. */
static int changed_kernel(const rpl_pipe *p, const char *text, size_t len, rpl_kernel_source **cand,
                          const char **out)
{
    const rpl_kernel_source *orig = rpl_pipe_original_parsed(p);
    const char *found = NULL;
    size_t n = 0;
    int rc = rpl_kernel_source_parse_buffer(cand, orig->name, text, len, rpl_pipe_parse_options(p));

    if (rc)
        return rc;
    for (size_t i = 0; i < orig->n_kernels; i++) {
        const rpl_ks_kernel *k = &orig->kernels[i], *c = NULL;
        size_t kl = k->definition.end - k->definition.begin;
        if (rpl_kernel_source_find(*cand, k->qualified_name, &c) != 0) {
            rpl_error_clear();
            continue;
        }
        if (kl != c->definition.end - c->definition.begin ||
            memcmp(orig->text + k->definition.begin, (*cand)->text + c->definition.begin, kl)) {
            found = k->qualified_name;
            n++;
        }
    }
    if (n == 1) {
        *out = found;
        return 0;
    }
    return rpl_error_set(RPL_EINPUT,
                         n ? "the candidate changes %zu kernels: name the one to check with "
                             "--kernel"
                           : "the candidate changes no kernel (%zu): name one with --kernel",
                         n);
}

/* --candidate FILE: a source text, read before anything is built or profiled. */
static int read_candidate(const char *path, char **text, size_t *len)
{
    int rc = rpl_file_read_all(path, 16u << 20, text, len);

    if (rc) {
        rpl_error_prefix("--candidate");
        return rc == RPL_ENOTFOUND ? RPL_EINPUT : rc;
    }
    if (memchr(*text, '\0', *len))
        return rpl_error_set(RPL_EINPUT,
                             "--candidate '%s' is not a source file (it holds NUL bytes)", path);
    return 0;
}

/* An outcome, printed; an accepted one offered to the session (committed, or why not). */
static int offer(optimize_run *run, const rpl_pipe_outcome *oc, const char *text, size_t len)
{
    rpl_session_commit c;
    int rc;

    fprintf(run->out, "%s  %s  %s: %s\n", oc->id, oc->kernel, rpl_pipe_decision_name(oc->decision),
            oc->message);
    fflush(run->out);
    if (oc->decision != RPL_PIPE_ACCEPTED)
        return 0;
    if ((rc = rpl_session_offer(run->session, oc, text, len, NULL, &c)) != 0)
        return rc;
    if (c.verdict == RPL_SESSION_DRY_RUN)
        fprintf(run->out,
                "  dry run: not committed (no terminal; pass --auto-approve to commit)\n");
    else if (c.verdict == RPL_SESSION_DECLINED)
        fprintf(run->out, "  not committed: declined\n");
    else
        fprintf(run->out, "  committed %s on %s: %s\n", c.id.short_hex, c.branch, c.subject);
    fflush(run->out); /* before a later Ctrl-C ends the process */
    rpl_session_commit_release(&c);
    return 0;
}

/* A candidate through the pipeline, offered, and the reports written; *accepted says. */
static int try_candidate(optimize_run *run, const rpl_pipe_candidate *c, bool *accepted)
{
    rpl_pipe_outcome *oc = NULL;
    int rc;

    if ((rc = rpl_pipe_run(run->pipe, c, &oc)) == 0 && (rc = offer(run, oc, c->text, c->len)) == 0)
        rc = rpl_pipe_write_reports(run->pipe);
    *accepted = rc == 0 && oc->decision == RPL_PIPE_ACCEPTED;
    return rc;
}

static int run_candidate_file(optimize_run *run, const char *text, size_t len, bool *accepted)
{
    rpl_pipe_candidate c = {.strategy = "hand-written candidate", .origin = RPL_PIPE_ORIGIN_FILE};
    int rc = 0;

    c.text = text;
    c.len = len;
    c.kernel = run->o->kernel;
    if (!c.kernel)
        rc = changed_kernel(run->pipe, text, len, &c.parsed, &c.kernel);
    if (rc == 0)
        rc = try_candidate(run, &c, accepted);
    rpl_kernel_source_free(c.parsed);
    return rc;
}

/* The kernels to try: --kernel, else the ranked ones, else every kernel of the source. */
static size_t kernels_to_try(const optimize_run *run, const char **out, size_t max)
{
    const rpl_kernel_source *src = rpl_pipe_original_parsed(run->pipe);
    const char *const *ranked = NULL;
    size_t n = rpl_pipe_ranked(run->pipe, &ranked, NULL), k = 0;

    if (run->o->kernel) {
        out[0] = run->o->kernel;
        return 1;
    }
    for (size_t i = 0; i < n && k < max; i++)
        out[k++] = ranked[i];
    for (size_t i = 0; n == 0 && i < src->n_kernels && k < max; i++)
        if (!src->kernels[i].in_macro)
            out[k++] = src->kernels[i].qualified_name;
    return k;
}

/* The unroll plan of `kernel`; a kernel with a loop to unroll is captured for its wave size. */
static int unroll_plan(optimize_run *run, const char *kernel, rpl_unroll_plan **plan)
{
    rpl_pipe *p = run->pipe;
    int rc;

    /* A kernel with nothing to unroll is not captured; the wave size needs the capture. */
    if ((rc = rpl_rules_unroll(plan, rpl_pipe_original_parsed(p), kernel, 64)) != 0 ||
        (*plan)->count == 0)
        return rc;
    rpl_unroll_plan_free(*plan);
    *plan = NULL;
    if ((rc = rpl_pipe_prepare(p, kernel)) != 0)
        return rc;
    return rpl_rules_unroll(plan, rpl_pipe_original_parsed(p), kernel, rpl_pipe_wave_size(p));
}

static int run_rules(optimize_run *run, unsigned max_kernels)
{
    const char *kernels[100];
    size_t nk = kernels_to_try(run, kernels, max_kernels);
    int rc = 0;

    if (nk == 0)
        fprintf(run->out,
                "no kernel to optimise: the profile shows none of the source's kernels\n");
    for (size_t i = 0; rc == 0 && i < nk; i++) {
        rpl_unroll_plan *plan = NULL;
        bool kept = false;
        if ((rc = unroll_plan(run, kernels[i], &plan)) != 0)
            break;
        for (size_t j = 0; j < plan->nskipped; j++)
            fprintf(run->out, "%s: %s\n", kernels[i], plan->skipped[j]);
        if (plan->count == 0)
            fprintf(run->out, "%s: no loop to unroll\n", kernels[i]);
        /* One accepted change per kernel: later proposals were made against the original. */
        for (size_t j = 0; rc == 0 && !kept && j < plan->count; j++) {
            rpl_pipe_candidate c = {.kernel = kernels[i],
                                    .text = plan->proposals[j].text,
                                    .len = plan->proposals[j].len,
                                    .strategy = plan->proposals[j].strategy,
                                    .origin = RPL_PIPE_ORIGIN_RULE,
                                    .parsed = plan->proposals[j].parsed};
            rc = try_candidate(run, &c, &kept);
        }
        rpl_unroll_plan_free(plan);
    }
    return rc;
}

/* Keep the branches made and push them (--push). */
static int keep_branches(optimize_run *run)
{
    rpl_session *s = run->session;
    int rc = rpl_session_keep(s);

    for (size_t i = 0; run->o->push && i < rpl_session_branch_count(s); i++) {
        const char *name = rpl_session_branch_name(s, i);
        int r = name ? rpl_session_push(s, name) : 0;
        if (r == 0 && name)
            fprintf(run->out, "pushed %s to %s\n", name, run->o->push);
        if (r && !rc)
            rc = r;
    }
    return rc;
}

int rpl_optimize_run(const rpl_optimize_opts *o, const rpl_optimize_rules_opts *r, FILE *out,
                     bool *accepted)
{
    optimize_run run = {.o = o, .out = out};
    rpl_session_opts so = {.auto_approve = o->auto_approve, .push = o->push};
    char *text = NULL;
    size_t len = 0;
    int rc;

    *accepted = false;
    if (r->candidate && (rc = read_candidate(r->candidate, &text, &len)) != 0) {
        free(text);
        return rc;
    }
    rpl_cleanup_install_signals();
    if ((rc = optimize_run_open(&run)) == 0 &&
        (rc = rpl_session_open(&run.session, run.pipe, &so)) == 0)
        rc = r->candidate ? run_candidate_file(&run, text, len, accepted)
                          : run_rules(&run, r->max_kernels);
    if (rc == 0) {
        rc = keep_branches(&run);
        if (rpl_pipe_write_reports(run.pipe) == 0)
            fprintf(out, "artifacts: %s\n", rpl_pipe_artifacts(run.pipe));
    }
    if (rc && run.pipe)
        rpl_pipe_write_reports(run.pipe);
    optimize_run_close(&run);
    free(text);
    rpl_cleanup_exit_if_interrupted();
    return rc;
}
