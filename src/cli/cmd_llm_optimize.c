/*
 * rocm-perf llm-optimize: the LLM closed loop (docs/USER_GUIDE.md section
 * 13.7 on).  Thin: options, the target, the LLM client, the candidate
 * pipeline and the optimization branch are set up here; the loop is
 * rpl/llm_loop.h.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
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
    rpl_optimize_cli cli; /* target, pipeline and git options shared with `optimize` */
    const char *prompt_dir;
    const char *analysis_dir; /* --analysis: an `analyze --out` folder */
    unsigned max_iters, max_repairs;
    bool has_max_repairs;
    int64_t budget_tokens;
    rpl_llm_config llm;
} llmopt_opts;

/* Below RPL_OPTCLI_TEST: the codes of optimize_cli.h start there. */
enum {
    OPT_PROVIDER = 256,
    OPT_MODEL,
    OPT_BASE_URL,
    OPT_TEMPERATURE,
    OPT_MAX_TOKENS,
    OPT_API_KEY_FILE,
    OPT_PROMPT_DIR,
    OPT_MAX_ITERS,
    OPT_MAX_REPAIRS,
    OPT_BUDGET,
    OPT_LLM_TIMEOUT,
    OPT_ANALYSIS,
};

static void usage(FILE *out)
{
    fprintf(out,
            "usage: rocm-perf llm-optimize SOURCE \"APP ARGS\" [options]\n"
            "       rocm-perf llm-optimize --test NAME --build-dir DIR [options]\n"
            "\n"
            "Ask a language model for a faster version of the dominant kernel, put every\n"
            "answer through the candidate pipeline (build, signature, static checks, replay\n"
            "comparison, the program's own check, interleaved timing, whole-application\n"
            "time) and feed the exact reason of each rejection back. Accepted changes are\n"
            "committed, one after the other, to a branch rocm-perf/opt/<kernel>/<time>; the\n"
            "checkout is not touched. When another kernel becomes dominant the loop\n"
            "retargets (not with --kernel).\n"
            "\n"
            "Model:\n"
            "  --provider P           openai (any OpenAI-compatible server) or anthropic\n"
            "  --model M              the model (default gpt-4.1 for openai; required for\n"
            "                         anthropic)\n"
            "  --base-url URL         the API's base URL (vLLM, llama.cpp, Ollama: .../v1)\n"
            "  --temperature T        sent only when given (0-2)\n"
            "  --max-tokens N         sent only when given (anthropic: 8192 when not)\n"
            "  --api-key-file F       the key's file; default OPENAI_API_KEY / ANTHROPIC_API_KEY\n"
            "  --prompt-dir DIR       templates replacing templates/llm/*.md, file by file\n"
            "  --llm-timeout S        limit of one request, the reply included (default 600)\n"
            "Loop:\n"
            "  --max-iters N          proposals (default %d)\n"
            "  --max-repairs N        repair turns per proposal (default %d)\n"
            "  --budget-tokens N      stop cleanly once N tokens (input + output) are used\n"
            "  --analysis DIR         roofline, bottleneck and ATT facts of the target from\n"
            "                         'rocm-perf analyze --out DIR' (a counter-mode profile)\n"
            "                         instead of the counter pass over the replay\n"
            "\n",
            RPL_LLM_LOOP_DEFAULT_MAX_ITERS, RPL_LLM_LOOP_DEFAULT_MAX_REPAIRS);
    rpl_optimize_cli_usage(out);
    fputs("  -v, --verbose / -q, --quiet / -h, --help\n"
          "\n"
          "Exit codes: 0 the run ended (accepted or not: the last lines say), 2 bad usage or\n"
          "input (an unknown prompt placeholder, a request the model's API rejects, a dirty\n"
          "source, a missing or malformed --analysis file), 3 environment (no API key, the\n"
          "model unreachable, no compiler or libclang), 130 interrupted (nothing is left\n"
          "behind).\n",
          out);
}

static int parse_uint(const char *opt, const char *text, unsigned min, unsigned *out)
{
    char *end;
    unsigned long v;

    errno = 0;
    v = strtoul(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-' || v < min || v > 100000)
        return rpl_cli_usage_error("%s wants a whole number from %u, not '%s'", opt, min, text);
    *out = (unsigned)v;
    return 0;
}

static int parse_double(const char *opt, const char *text, double lo, double hi, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(text, &end);
    if (errno || end == text || *end || !(v >= lo && v <= hi))
        return rpl_cli_usage_error("%s wants a number from %g to %g, not '%s'", opt, lo, hi, text);
    *out = v;
    return 0;
}

/* One option of this command: 0 applied, an exit code for a bad value, -1 not ours. */
static int own_option(llmopt_opts *o, int opt, const char *arg, bool *has_model)
{
    unsigned u;
    double d;
    int rc = 0;

    switch (opt) {
    case OPT_PROVIDER:
        if (rpl_llm_provider_parse(&o->llm.provider, arg) != 0)
            return rpl_cli_usage_error("--provider wants openai or anthropic, not '%s'", arg);
        return 0;
    case OPT_MODEL:
        o->llm.model = arg;
        *has_model = true;
        return 0;
    case OPT_BASE_URL:
        o->llm.base_url = arg;
        return 0;
    case OPT_TEMPERATURE:
        o->llm.has_temperature = true;
        return parse_double("--temperature", arg, 0, 2, &o->llm.temperature);
    case OPT_MAX_TOKENS:
        if ((rc = parse_uint("--max-tokens", arg, 1, &u)) == 0)
            o->llm.max_tokens = u;
        return rc;
    case OPT_API_KEY_FILE:
        o->llm.api_key_file = arg;
        return 0;
    case OPT_PROMPT_DIR:
        o->prompt_dir = arg;
        return 0;
    case OPT_ANALYSIS:
        o->analysis_dir = arg;
        return 0;
    case OPT_MAX_ITERS:
        return parse_uint("--max-iters", arg, 1, &o->max_iters);
    case OPT_MAX_REPAIRS:
        o->has_max_repairs = true;
        return parse_uint("--max-repairs", arg, 0, &o->max_repairs);
    case OPT_LLM_TIMEOUT:
        if ((rc = parse_double("--llm-timeout", arg, 1, 86400, &o->llm.timeout_s)) == 0 &&
            o->llm.timeout_s < RPL_LLM_DEFAULT_CONNECT_TIMEOUT_S)
            o->llm.connect_timeout_s = o->llm.timeout_s; /* the client wants connect <= total */
        return rc;
    case OPT_BUDGET:
        if ((rc = parse_double("--budget-tokens", arg, 1, 1e15, &d)) == 0)
            o->budget_tokens = (int64_t)d;
        return rc;
    default:
        return -1;
    }
}

/* 1: --help printed; 0: parsed; else an exit code (the message printed). */
static int parse_args(llmopt_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"provider", required_argument, NULL, OPT_PROVIDER},
        {"model", required_argument, NULL, OPT_MODEL},
        {"base-url", required_argument, NULL, OPT_BASE_URL},
        {"temperature", required_argument, NULL, OPT_TEMPERATURE},
        {"max-tokens", required_argument, NULL, OPT_MAX_TOKENS},
        {"api-key-file", required_argument, NULL, OPT_API_KEY_FILE},
        {"prompt-dir", required_argument, NULL, OPT_PROMPT_DIR},
        {"max-iters", required_argument, NULL, OPT_MAX_ITERS},
        {"max-repairs", required_argument, NULL, OPT_MAX_REPAIRS},
        {"budget-tokens", required_argument, NULL, OPT_BUDGET},
        {"llm-timeout", required_argument, NULL, OPT_LLM_TIMEOUT},
        {"analysis", required_argument, NULL, OPT_ANALYSIS},
        RPL_OPTIMIZE_CLI_LONGOPTS,
        RPL_CLI_COMMON_LONGOPTS,
        {NULL, 0, NULL, 0}};
    bool has_model = false;
    int opt, rc;

    rpl_optimize_cli_init(&o->cli);
    optind = 1;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, RPL_OPTIMIZE_CLI_SHORTOPTS RPL_CLI_COMMON_SHORTOPTS,
                              longopts, NULL)) != -1) {
        if (rpl_cli_common_option(opt))
            continue;
        if (opt == 'h') {
            usage(stdout);
            return 1;
        }
        if ((rc = own_option(o, opt, optarg, &has_model)) == 0)
            continue;
        if (rc > 0)
            return rc;
        if ((rc = rpl_optimize_cli_option(&o->cli, opt, optarg)) != 1) {
            if (rc == 0)
                return rpl_cli_usage_error("option '%s' is unknown or lacks its value; see "
                                           "'rocm-perf llm-optimize --help'",
                                           argv[optind - 1]);
            return rc;
        }
    }
    if ((rc = rpl_optimize_cli_finish(&o->cli, "llm-optimize", argc - optind, argv + optind)))
        return rc;
    if (!has_model) {
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
