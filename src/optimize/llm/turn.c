/* Names, the turn record and the token budget (see rpl/llm.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/llm.h"

const char *rpl_llm_provider_name(rpl_llm_provider provider)
{
    return provider == RPL_LLM_ANTHROPIC ? "anthropic" : "openai";
}

int rpl_llm_provider_parse(rpl_llm_provider *out, const char *name)
{
    if (name && strcmp(name, "openai") == 0)
        *out = RPL_LLM_OPENAI;
    else if (name && strcmp(name, "anthropic") == 0)
        *out = RPL_LLM_ANTHROPIC;
    else
        return rpl_error_set(RPL_EUSAGE, "unknown provider '%s' (openai or anthropic)",
                             name ? name : "");
    return 0;
}

const char *rpl_llm_outcome_name(rpl_llm_outcome outcome)
{
    switch (outcome) {
    case RPL_LLM_OK:
        return "ok";
    case RPL_LLM_TRUNCATED:
        return "truncated";
    case RPL_LLM_BAD_REPLY:
        return "bad_reply";
    case RPL_LLM_UNAVAILABLE:
        return "unavailable";
    case RPL_LLM_REJECTED:
        return "rejected";
    case RPL_LLM_AUTH:
        return "auth";
    case RPL_LLM_QUOTA:
        return "quota";
    case RPL_LLM_INTERRUPTED:
        return "interrupted";
    }
    return "unknown";
}

bool rpl_llm_outcome_ends_run(rpl_llm_outcome outcome)
{
    return outcome != RPL_LLM_OK && outcome != RPL_LLM_TRUNCATED && outcome != RPL_LLM_BAD_REPLY;
}

void rpl_llm_turn_release(rpl_llm_turn *turn)
{
    if (!turn)
        return;
    RPL_FREE_EACH(turn->text, turn->finish_reason, turn->request_id, turn->error);
    memset(turn, 0, sizeof(*turn));
    turn->input_tokens = turn->output_tokens = -1;
}

int64_t rpl_llm_turn_tokens(const rpl_llm_turn *turn)
{
    return (turn->input_tokens > 0 ? turn->input_tokens : 0) +
           (turn->output_tokens > 0 ? turn->output_tokens : 0);
}

int rpl_llm_budget_check(int64_t used_tokens, int64_t budget_tokens)
{
    if (budget_tokens <= 0 || used_tokens < budget_tokens)
        return 0;
    return rpl_error_set(RPL_EFAIL, "token budget spent: %" PRId64 " of %" PRId64 " tokens used",
                         used_tokens, budget_tokens);
}
