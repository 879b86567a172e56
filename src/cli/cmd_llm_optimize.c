/*
 * rocm-perf llm-optimize: the LLM closed loop (docs/USER_GUIDE.md section
 * 13.7 on).  Thin: the options are parsed and the shipped prompt templates
 * found here; the run is rpl_llm_optimize_run (rpl/optimize.h), its loop
 * rpl/llm_loop.h.
 */
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "optimize_cli.h"
#include "rpl/cleanup.h"
#include "rpl/error.h"
#include "rpl/llm.h"
#include "rpl/llm_loop.h"
#include "rpl/optimize.h"

typedef struct llmopt_opts {
    rpl_optimize_cli cli; /* first: rpl_optimize_cli_options name its fields */
    rpl_llm_optimize_opts run;
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
    OPT_CALLBACK(0, "provider", F(run.llm.provider), parse_provider, "P",
                 "openai (any OpenAI-compatible server) or anthropic"),
    OPT_STRING(0, "model", F(run.llm.model), "M",
               "the model (default gpt-4.1 for openai; required for anthropic)"),
    OPT_STRING(0, "base-url", F(run.llm.base_url), "URL",
               "the API's base URL (vLLM, llama.cpp, Ollama: .../v1)"),
    OPT_NUMBER_SEEN(0, "temperature", F(run.llm.temperature),
                    RPL_SEEN(llmopt_opts, run.llm.has_temperature), 0, 2, "T",
                    "sent only when given (0-2)"),
    OPT_UINT(0, "max-tokens", F(run.llm.max_tokens), 1, 100000, "N",
             "sent only when given (anthropic: 8192 when not)"),
    OPT_STRING(0, "api-key-file", F(run.llm.api_key_file), "F",
               "the key's file; default OPENAI_API_KEY / ANTHROPIC_API_KEY"),
    OPT_STRING(0, "prompt-dir", F(run.prompt_override), "DIR",
               "templates replacing templates/llm/*.md, file by file"),
    OPT_DURATION(0, "llm-timeout", F(run.llm.timeout_s), 1, 86400, "S",
                 "limit of one request, the reply included (default 600)"),
    OPT_GROUP("Loop:"),
    OPT_UINT(0, "max-iters", F(run.max_iters), 1, 100000, "N",
             "proposals (default " RPL_STRINGIFY(RPL_LLM_LOOP_DEFAULT_MAX_ITERS) ")"),
    OPT_UINT_SEEN(
        0, "max-repairs", F(run.max_repairs), RPL_SEEN(llmopt_opts, run.has_max_repairs), 0, 100000,
        "N",
        "repair turns per proposal (default " RPL_STRINGIFY(RPL_LLM_LOOP_DEFAULT_MAX_REPAIRS) ")"),
    OPT_UINT(0, "budget-tokens", F(run.budget_tokens), 1, 1e15, "N",
             "stop cleanly once N tokens (input + output) are used"),
    OPT_STRING(0, "analysis", F(run.analysis_dir), "DIR",
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
    rpl_llm_config *llm = &o->run.llm;
    int rc;

    rpl_optimize_opts_init(&o->cli.opts);
    if ((rc = rpl_parse_options(&llm_command, o, &argc, &argv)) >= 0)
        return rc == 0 ? 1 : rc;
    if (llm->timeout_s && llm->timeout_s < RPL_LLM_DEFAULT_CONNECT_TIMEOUT_S)
        llm->connect_timeout_s = llm->timeout_s; /* the client wants connect <= total */
    if ((rc = rpl_optimize_opts_finish(&o->cli.opts, "llm-optimize", argc, argv)) != 0)
        return rpl_cli_fail(rc);
    if (!llm->model) {
        if (llm->provider != RPL_LLM_OPENAI)
            return rpl_cli_usage_error("--model is required with --provider %s",
                                       rpl_llm_provider_name(llm->provider));
        llm->model = "gpt-4.1"; /* the seed tool's default */
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

int cmd_llm_optimize(int argc, char **argv)
{
    llmopt_opts o;
    char prompt_dir[PATH_MAX];
    int rc, exit_code;

    memset(&o, 0, sizeof(o));
    if ((rc = parse_args(&o, argc, argv)) != 0)
        return rc == 1 ? RPL_EXIT_OK : rc;
    if (o.cli.check_args)
        return RPL_EXIT_OK;
    default_prompt_dir(prompt_dir, sizeof(prompt_dir));
    o.run.prompt_dir = prompt_dir;
    rc = rpl_llm_optimize_run(&o.cli.opts, &o.run, stdout);
    exit_code = rc == 0 ? RPL_EXIT_OK : rpl_cli_fail(rc);
    rpl_cleanup_exit_if_interrupted();
    return exit_code;
}
