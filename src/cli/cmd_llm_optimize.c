/*
 * rocm-perf llm-optimize: the LLM closed loop (docs/USER_GUIDE.md section
 * 13.7 on).  Thin: options, the target, the LLM client, the candidate
 * pipeline and the optimization branch are set up here; the loop is
 * rpl/llm_loop.h.
 */
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "optimize_cli.h"
#include "rpl/cleanup.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/llm.h"
#include "rpl/llm_analysis.h"
#include "rpl/llm_loop.h"
#include "rpl/llm_prompt.h"
#include "rpl/log.h"
#include "rpl/pipeline.h"
#include "rpl/session.h"

typedef struct llmopt_opts {
    rpl_optimize_cli cli; /* first: rpl_optimize_cli_options name its fields */
    const char *prompt_dir;
    const char *analysis_dir; /* --analysis: an `analyze --out` folder */
    unsigned max_iters, max_repairs;
    bool has_max_repairs;
    int64_t budget_tokens;
    rpl_llm_config llm;
} llmopt_opts;

_Static_assert(offsetof(llmopt_opts, cli) == 0, "the shared options' fields start the struct");

static int parse_provider(void *value, const rpl_option *opt, const char *arg)
{
    (void)opt;
    if (rpl_llm_provider_parse(value, arg) != 0)
        return rpl_cli_usage_error("--provider wants openai or anthropic, not '%s'", arg);
    return 0;
}

#define F(m) RPL_FIELD(llmopt_opts, m)

static const rpl_option llm_options[] = {
    OPT_GROUP("Model:"),
    OPT_CALLBACK(0, "provider", F(llm.provider), parse_provider, "P",
                 "openai (any OpenAI-compatible server) or anthropic"),
    OPT_STRING(0, "model", F(llm.model), "M",
               "the model (default gpt-4.1 for openai; required for anthropic)"),
    OPT_STRING(0, "base-url", F(llm.base_url), "URL",
               "the API's base URL (vLLM, llama.cpp, Ollama: .../v1)"),
    OPT_NUMBER_SEEN(0, "temperature", F(llm.temperature),
                    RPL_SEEN(llmopt_opts, llm.has_temperature), 0, 2, "T",
                    "sent only when given (0-2)"),
    OPT_UINT(0, "max-tokens", F(llm.max_tokens), 1, 100000, "N",
             "sent only when given (anthropic: 8192 when not)"),
    OPT_STRING(0, "api-key-file", F(llm.api_key_file), "F",
               "the key's file; default OPENAI_API_KEY / ANTHROPIC_API_KEY"),
    OPT_STRING(0, "prompt-dir", F(prompt_dir), "DIR",
               "templates replacing templates/llm/*.md, file by file"),
    OPT_DURATION(0, "llm-timeout", F(llm.timeout_s), 1, 86400, "S",
                 "limit of one request, the reply included (default 600)"),
    OPT_GROUP("Loop:"),
    OPT_UINT(0, "max-iters", F(max_iters), 1, 100000, "N",
             "proposals (default " RPL_STRINGIFY(RPL_LLM_LOOP_DEFAULT_MAX_ITERS) ")"),
    OPT_UINT_SEEN(
        0, "max-repairs", F(max_repairs), RPL_SEEN(llmopt_opts, has_max_repairs), 0, 100000, "N",
        "repair turns per proposal (default " RPL_STRINGIFY(RPL_LLM_LOOP_DEFAULT_MAX_REPAIRS) ")"),
    OPT_UINT(0, "budget-tokens", F(budget_tokens), 1, 1e15, "N",
             "stop cleanly once N tokens (input + output) are used"),
    OPT_STRING(0, "analysis", F(analysis_dir), "DIR",
               "roofline, bottleneck and ATT facts of the target from 'rocm-perf analyze --out "
               "DIR' (a counter-mode profile) instead of the counter pass over the replay"),
    OPT_INCLUDE(rpl_optimize_cli_options),
    OPT_END(),
};

static const rpl_command llm_command = {
    .name = "llm-optimize",
    .usage = "rocm-perf llm-optimize SOURCE \"APP ARGS\" [options]\n"
             "rocm-perf llm-optimize --test NAME --build-dir DIR [options]",
    .description =
        "Ask a language model for a faster version of the dominant kernel, put every\n"
        "answer through the candidate pipeline (build, signature, static checks, replay\n"
        "comparison, the program's own check, interleaved timing, whole-application\n"
        "time) and feed the exact reason of each rejection back. Accepted changes are\n"
        "committed, one after the other, to a branch rocm-perf/opt/<kernel>/<time>; the\n"
        "checkout is not touched. When another kernel becomes dominant the loop\n"
        "retargets (not with --kernel).",
    .options = llm_options,
    .exit_codes =
        "0 the run ended (accepted or not: the last lines say), 2 bad usage or\n"
        "input (an unknown prompt placeholder, a request the model's API rejects, a dirty\n"
        "source, a missing or malformed --analysis file), 3 environment (no API key, the\n"
        "model unreachable, no compiler or libclang), 130 interrupted (nothing is left\n"
        "behind).",
};

/* 1: --help printed; 0: parsed; else an exit code (the message printed). */
static int parse_args(llmopt_opts *o, int argc, char **argv)
{
    int rc;

    rpl_optimize_cli_init(&o->cli);
    if ((rc = rpl_parse_options(&llm_command, o, &argc, &argv)) >= 0)
        return rc == 0 ? 1 : rc;
    if (o->llm.timeout_s && o->llm.timeout_s < RPL_LLM_DEFAULT_CONNECT_TIMEOUT_S)
        o->llm.connect_timeout_s = o->llm.timeout_s; /* the client wants connect <= total */
    if ((rc = rpl_optimize_cli_finish(&o->cli, "llm-optimize", argc, argv)))
        return rc;
    if (!o->llm.model) {
        if (o->llm.provider != RPL_LLM_OPENAI)
            return rpl_cli_usage_error("--model is required with --provider %s",
                                       rpl_llm_provider_name(o->llm.provider));
        o->llm.model = "gpt-4.1"; /* the seed tool's default */
    }
    return 0;
}

static bool has_prompts(const char *dir)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof(path), "%s/user.md", dir);

    return n > 0 && (size_t)n < sizeof(path) && access(path, R_OK) == 0;
}

/* The shipped templates/llm: $ROCM_PERF_TEMPLATES/llm, beside the program, the source tree. */
static void default_prompt_dir(char *out, size_t size)
{
    const char *env = getenv("ROCM_PERF_TEMPLATES");
    char exe[PATH_MAX];
    ssize_t len;

    if (env && *env) {
        snprintf(out, size, "%s/llm", env);
        return;
    }
    len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len > 0) {
        char *slash;
        exe[len] = '\0';
        if ((slash = strrchr(exe, '/')) != NULL) {
            *slash = '\0';
            int n = snprintf(out, size, "%s/%s/llm", exe, RPL_TEMPLATES_FROM_BINDIR);
            if (n > 0 && (size_t)n < size && has_prompts(out))
                return;
        }
    }
    snprintf(out, size, "%s/llm", RPL_SOURCE_TEMPLATES_DIR);
}

/* Ctrl-C stops a request or a retry wait at once (the cleanup handler only notes it). */
static bool llm_interrupted(void *ctx)
{
    (void)ctx;
    return rpl_interrupted() != 0;
}

/* One line per candidate as it is decided, like `optimize` prints them. */
static void print_outcome(void *ctx, int turn, const rpl_pipe_outcome *o)
{
    (void)ctx;
    printf("turn %d  %s  %s  %s: %s\n", turn, o->id, o->kernel, rpl_pipe_decision_name(o->decision),
           o->message ? o->message : "");
    fflush(stdout);
}

static void print_summary(const rpl_llm_loop_result *r, const char *branch, const char *artifacts)
{
    printf("llm-optimize: %s: %u turns, %u candidates, %u accepted, %lld tokens; %s%s%s\n",
           r->target ? r->target : "(no target)", r->turns, r->candidates, r->accepted,
           (long long)r->tokens, rpl_llm_loop_stop_name(r->stop), r->stop_message ? ": " : "",
           r->stop_message ? r->stop_message : "");
    if (r->retargets)
        printf("retargeted %u time%s after dominance shifts\n", r->retargets,
               r->retargets == 1 ? "" : "s");
    printf("branch: %s\n", branch ? branch : "none (no change committed)");
    printf("artifacts: %s\n", artifacts);
}

/* The branch of the run is named after its first target. */
static const char *run_branch_name(const llmopt_opts *o, const rpl_pipe_target *t,
                                   const rpl_pipe *pipe)
{
    const char *const *ranked = NULL;

    if (o->cli.kernel)
        return o->cli.kernel;
    return rpl_pipe_ranked(pipe, &ranked, NULL) > 0 ? ranked[0] : t->name;
}

/* The loop with the pipeline as its backend and `session` taking accepted candidates. */
static int run_loop(const llmopt_opts *o, rpl_llm_client *client, rpl_pipe *pipe,
                    const rpl_pipe_target *target, const rpl_prompt_set *prompts,
                    rpl_llm_pipe_ctx *pctx, rpl_llm_loop_result *result)
{
    rpl_llm_loop_backend be;
    char *transcript = NULL;
    size_t original_len;
    const char *original = rpl_pipe_original_source(pipe, &original_len);
    int rc;

    if ((rc = rpl_path_join(&transcript, rpl_pipe_artifacts(pipe), "llm-transcript.jsonl")) != 0)
        return rc;
    rpl_llm_loop_pipe_backend(&be, pctx);
    rpl_llm_loop_opts lo = {
        .source_name = target->source,
        .source = original,
        .source_len = original_len,
        .kernel = o->cli.kernel,
        .model = o->llm.model,
        .max_iters = o->max_iters,
        .max_repairs = o->max_repairs,
        .has_max_repairs = o->has_max_repairs,
        .budget_tokens = o->budget_tokens,
        .transcript = transcript,
        .prompts = prompts,
        .parse = rpl_pipe_parse_options(pipe), /* candidates parsed as the pipeline does */
        .on_outcome = print_outcome,
    };
    rc = rpl_llm_loop_run(client, &be, &lo, result);
    free(transcript);
    return rc;
}

/* After the loop: keep the branch, say how the run went, push (--push). */
static int finish_run(const llmopt_opts *o, rpl_session *session, rpl_pipe *pipe,
                      const rpl_llm_loop_result *result, int rc)
{
    const char *branch;
    int krc;

    if (rc != 0 && result->stop != RPL_LLM_LOOP_LLM_FAILED)
        return rc;
    if ((krc = rpl_session_keep(session)) != 0)
        return krc;
    branch = rpl_session_branch_count(session) ? rpl_session_branch_name(session, 0) : NULL;
    print_summary(result, branch, rpl_pipe_artifacts(pipe));
    if (rc != 0) /* the model failed: the run is reported, then its error */
        return rpl_error_set(rc, "%s",
                             result->stop_message ? result->stop_message : "the model failed");
    if (branch && o->cli.push && (rc = rpl_session_push(session, branch)) == 0)
        printf("pushed %s to %s\n", branch, o->cli.push);
    return rc;
}

int cmd_llm_optimize(int argc, char **argv)
{
    llmopt_opts o;
    rpl_pipe_target *target = NULL;
    rpl_prompt_set *prompts = NULL;
    rpl_llm_analysis *analysis = NULL;
    rpl_llm_client *client = NULL;
    rpl_pipe *pipe = NULL;
    rpl_session *session = NULL;
    rpl_llm_loop_result result = {0};
    rpl_llm_pipe_ctx pctx = {0};
    char prompt_dir[PATH_MAX];
    int rc;

    memset(&o, 0, sizeof(o));
    if ((rc = parse_args(&o, argc, argv)) != 0)
        return rc == 1 ? RPL_EXIT_OK : rc;
    if (o.cli.check_args)
        return RPL_EXIT_OK;

    default_prompt_dir(prompt_dir, sizeof(prompt_dir));
    if ((rc = rpl_prompt_set_load(&prompts, prompt_dir, o.prompt_dir)) != 0)
        return rpl_cli_fail(rc);
    if (o.analysis_dir && (rc = rpl_llm_analysis_load(&analysis, o.analysis_dir)) != 0) {
        rpl_prompt_set_free(prompts);
        return rpl_cli_fail(rc);
    }
    o.llm.interrupted = llm_interrupted;
    if ((rc = rpl_cleanup_install_signals()) != 0 ||
        (rc = rpl_llm_client_new(&client, &o.llm)) != 0 ||
        (rc = rpl_optimize_cli_target(&target, &o.cli)) != 0 ||
        (rc = rpl_pipe_open(&pipe, target, &o.cli.pipe)) != 0)
        goto done;
    rpl_log_info("artifacts in %s", rpl_pipe_artifacts(pipe));
    rpl_session_opts so = {.auto_approve = o.cli.auto_approve,
                           .push = o.cli.push,
                           .run_branch = run_branch_name(&o, target, pipe),
                           .rebase = true};
    if ((rc = rpl_session_open(&session, pipe, &so)) != 0)
        goto done;
    if (rpl_session_mode_of(session) == RPL_SESSION_MODE_DRY_RUN)
        rpl_log_warn("no terminal to ask and no --auto-approve: accepted changes are reported, "
                     "not committed");
    pctx = (rpl_llm_pipe_ctx){
        .pipe = pipe, .session = session, .analysis = analysis, .analysis_dir = o.analysis_dir};
    rc = run_loop(&o, client, pipe, target, prompts, &pctx, &result);
    rpl_cleanup_exit_if_interrupted();
    rc = finish_run(&o, session, pipe, &result, rc);
done:;
    int exit_code = rc == 0 ? RPL_EXIT_OK : rpl_cli_fail(rc);
    rpl_llm_loop_result_release(&result);
    rpl_llm_pipe_ctx_release(&pctx);
    rpl_session_free(session);
    rpl_pipe_close(pipe);
    rpl_pipe_target_free(target);
    rpl_llm_client_free(client);
    rpl_prompt_set_free(prompts);
    rpl_llm_analysis_free(analysis);
    rpl_cleanup_exit_if_interrupted();
    return exit_code;
}
