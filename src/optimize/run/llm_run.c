/*
 * rocm-perf llm-optimize (rpl/optimize.h): the LLM client, the candidate
 * pipeline as the loop's backend (rpl/llm_loop.h) and the session with one
 * branch for the run.
 */
#include <stdlib.h>
#include <string.h>

#include "rpl/cleanup.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/llm_analysis.h"
#include "rpl/llm_loop.h"
#include "rpl/llm_prompt.h"
#include "rpl/log.h"
#include "run_int.h"

/* What a run works with. */
typedef struct llm_run {
    optimize_run base;
    const rpl_llm_optimize_opts *l;
    rpl_prompt_set *prompts;
    rpl_llm_analysis *analysis;
    rpl_llm_client *client;
    rpl_llm_loop_result result;
    rpl_llm_pipe_ctx pctx;
} llm_run;

/* Ctrl-C stops a request or a retry wait at once (the cleanup handler only notes it). */
static bool llm_interrupted(void *ctx)
{
    (void)ctx;
    return rpl_interrupted() != 0;
}

/* One line per candidate as it is decided, like `optimize` prints them. */
static void print_outcome(void *ctx, int turn, const rpl_pipe_outcome *o)
{
    FILE *out = ctx;

    fprintf(out, "turn %d  %s  %s  %s: %s\n", turn, o->id, o->kernel,
            rpl_pipe_decision_name(o->decision), o->message ? o->message : "");
    fflush(out);
}

static void print_summary(FILE *out, const rpl_llm_loop_result *r, const char *branch,
                          const char *artifacts)
{
    fprintf(out, "llm-optimize: %s: %u turns, %u candidates, %u accepted, %lld tokens; %s%s%s\n",
            r->target ? r->target : "(no target)", r->turns, r->candidates, r->accepted,
            (long long)r->tokens, rpl_llm_loop_stop_name(r->stop), r->stop_message ? ": " : "",
            r->stop_message ? r->stop_message : "");
    if (r->retargets)
        fprintf(out, "retargeted %u time%s after dominance shifts\n", r->retargets,
                r->retargets == 1 ? "" : "s");
    fprintf(out, "branch: %s\n", branch ? branch : "none (no change committed)");
    fprintf(out, "artifacts: %s\n", artifacts);
}

/* The prompts, the analysis, the client, the target and the pipeline. */
static int open_run(llm_run *run)
{
    const rpl_llm_optimize_opts *l = run->l;
    rpl_llm_config llm = l->llm;
    int rc;

    if ((rc = rpl_prompt_set_load(&run->prompts, l->prompt_dir, l->prompt_override)) != 0 ||
        (l->analysis_dir && (rc = rpl_llm_analysis_load(&run->analysis, l->analysis_dir)) != 0))
        return rc;
    llm.interrupted = llm_interrupted;
    if ((rc = rpl_cleanup_install_signals()) != 0 ||
        (rc = rpl_llm_client_new(&run->client, &llm)) != 0 ||
        (rc = optimize_run_open(&run->base)) != 0)
        return rc;
    rpl_log_info("artifacts in %s", rpl_pipe_artifacts(run->base.pipe));
    return 0;
}

/* The session with one branch for the run, named after its first target. */
static int open_session(optimize_run *run)
{
    const char *const *ranked = NULL;
    rpl_session_opts so = {
        .auto_approve = run->o->auto_approve, .push = run->o->push, .rebase = true};
    int rc;

    if (run->o->kernel)
        so.run_branch = run->o->kernel;
    else
        so.run_branch =
            rpl_pipe_ranked(run->pipe, &ranked, NULL) > 0 ? ranked[0] : run->target->name;
    if ((rc = rpl_session_open(&run->session, run->pipe, &so)) != 0)
        return rc;
    if (rpl_session_mode_of(run->session) == RPL_SESSION_MODE_DRY_RUN)
        rpl_log_warn("no terminal to ask and no --auto-approve: accepted changes are reported, "
                     "not committed");
    return 0;
}

/* The loop with the pipeline as its backend and the session taking accepted candidates. */
static int run_loop(llm_run *run)
{
    const optimize_run *b = &run->base;
    const rpl_llm_optimize_opts *l = run->l;
    rpl_llm_loop_backend be;
    char *transcript = NULL;
    size_t original_len;
    const char *original = rpl_pipe_original_source(b->pipe, &original_len);
    int rc;

    if ((rc = rpl_path_join(&transcript, rpl_pipe_artifacts(b->pipe), "llm-transcript.jsonl")) != 0)
        return rc;
    run->pctx = (rpl_llm_pipe_ctx){.pipe = b->pipe,
                                   .session = b->session,
                                   .analysis = run->analysis,
                                   .analysis_dir = l->analysis_dir};
    rpl_llm_loop_pipe_backend(&be, &run->pctx);
    rpl_llm_loop_opts lo = {
        .source_name = b->target->source,
        .source = original,
        .source_len = original_len,
        .kernel = b->o->kernel,
        .model = l->llm.model,
        .max_iters = l->max_iters,
        .max_repairs = l->max_repairs,
        .has_max_repairs = l->has_max_repairs,
        .budget_tokens = l->budget_tokens,
        .transcript = transcript,
        .prompts = run->prompts,
        .parse = rpl_pipe_parse_options(b->pipe), /* candidates parsed as the pipeline does */
        .on_outcome = print_outcome,
        .on_outcome_ctx = b->out,
    };
    rc = rpl_llm_loop_run(run->client, &be, &lo, &run->result);
    free(transcript);
    return rc;
}

/* After the loop: keep the branch, say how the run went, push (--push). */
static int finish_run(llm_run *run, int rc)
{
    optimize_run *b = &run->base;
    const rpl_llm_loop_result *result = &run->result;
    const char *branch;
    int krc;

    if (rc != 0 && result->stop != RPL_LLM_LOOP_LLM_FAILED)
        return rc;
    if ((krc = rpl_session_keep(b->session)) != 0)
        return krc;
    branch = rpl_session_branch_count(b->session) ? rpl_session_branch_name(b->session, 0) : NULL;
    print_summary(b->out, result, branch, rpl_pipe_artifacts(b->pipe));
    if (rc != 0) /* the model failed: the run is reported, then its error */
        return rpl_error_set(rc, "%s",
                             result->stop_message ? result->stop_message : "the model failed");
    if (branch && b->o->push && (rc = rpl_session_push(b->session, branch)) == 0)
        fprintf(b->out, "pushed %s to %s\n", branch, b->o->push);
    return rc;
}

/* Free what the run holds; the run's error survives (a branch deleted on the way may fail). */
static void close_run(llm_run *run, int rc)
{
    char message[1024];

    snprintf(message, sizeof(message), "%s", rpl_error_last()->message);
    rpl_llm_loop_result_release(&run->result);
    rpl_llm_pipe_ctx_release(&run->pctx);
    optimize_run_close(&run->base);
    rpl_llm_client_free(run->client);
    rpl_prompt_set_free(run->prompts);
    rpl_llm_analysis_free(run->analysis);
    if (rc)
        rpl_error_set(rc, "%s", message);
}

int rpl_llm_optimize_run(const rpl_optimize_opts *o, const rpl_llm_optimize_opts *l, FILE *out)
{
    llm_run run = {.base = {.o = o, .out = out}, .l = l};
    int rc;

    if ((rc = open_run(&run)) == 0 && (rc = open_session(&run.base)) == 0) {
        rc = run_loop(&run);
        rpl_cleanup_exit_if_interrupted();
        rc = finish_run(&run, rc);
    }
    close_run(&run, rc);
    return rc;
}
