/* Request bodies of both providers, built with cJSON (see llm_int.h). */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "llm_int.h"
#include "rpl/error.h"
#include "rpl/strbuf.h"

static const char *role_name(rpl_llm_role role)
{
    return role == RPL_LLM_ASSISTANT ? "assistant" : "user";
}

static int add_message(cJSON *messages, const char *role, const char *content)
{
    cJSON *m = cJSON_CreateObject();

    if (!m || !cJSON_AddStringToObject(m, "role", role) ||
        !cJSON_AddStringToObject(m, "content", content)) {
        cJSON_Delete(m);
        return rpl_error_oom();
    }
    cJSON_AddItemToArray(messages, m);
    return 0;
}

static int check_request(const rpl_llm_body_opts *opts, const rpl_llm_request *req)
{
    if (!opts->model || !opts->model[0])
        return rpl_error_set(RPL_EUSAGE, "no model given");
    if (!req->n_messages || !req->messages)
        return rpl_error_set(RPL_EUSAGE, "a request needs at least one message");
    for (size_t i = 0; i < req->n_messages; i++) {
        if (!req->messages[i].content)
            return rpl_error_set(RPL_EUSAGE, "message %zu has no content", i + 1);
        if (req->messages[i].role != RPL_LLM_USER && req->messages[i].role != RPL_LLM_ASSISTANT)
            return rpl_error_set(RPL_EUSAGE, "message %zu has an unknown role", i + 1);
    }
    if (opts->provider == RPL_LLM_ANTHROPIC && req->messages[0].role != RPL_LLM_USER)
        return rpl_error_set(RPL_EUSAGE, "anthropic: the first message must be the user's");
    return 0;
}

static int openai_messages(cJSON *messages, const rpl_llm_request *req)
{
    int rc;

    if (req->system && req->system[0] && (rc = add_message(messages, "system", req->system)))
        return rc;
    for (size_t i = 0; i < req->n_messages; i++)
        if ((rc =
                 add_message(messages, role_name(req->messages[i].role), req->messages[i].content)))
            return rc;
    return 0;
}

/* Anthropic wants alternating roles: runs of one role become one message. */
static int anthropic_messages(cJSON *messages, const rpl_llm_request *req)
{
    rpl_strbuf merged = RPL_STRBUF_INIT;
    int rc = 0;

    for (size_t i = 0; i < req->n_messages && !rc; i++) {
        const rpl_llm_message *m = &req->messages[i];
        bool last_of_run = i + 1 == req->n_messages || req->messages[i + 1].role != m->role;

        if (merged.len && (rc = rpl_strbuf_puts(&merged, "\n\n")))
            break;
        if ((rc = rpl_strbuf_puts(&merged, m->content)))
            break;
        if (last_of_run) {
            rc = add_message(messages, role_name(m->role), rpl_strbuf_cstr(&merged));
            rpl_strbuf_reset(&merged);
        }
    }
    rpl_strbuf_release(&merged);
    return rc;
}

int rpl_llm_request_body(char **out, const rpl_llm_body_opts *opts, const rpl_llm_request *req)
{
    cJSON *doc = NULL, *messages;
    int64_t max_tokens = opts->max_tokens;
    int rc;

    *out = NULL;
    if ((rc = check_request(opts, req)))
        return rc;
    if (opts->provider == RPL_LLM_ANTHROPIC && max_tokens <= 0)
        max_tokens = RPL_LLM_ANTHROPIC_DEFAULT_MAX_TOKENS;

    doc = cJSON_CreateObject();
    if (!doc || !cJSON_AddStringToObject(doc, "model", opts->model))
        goto oom;
    if (opts->provider == RPL_LLM_ANTHROPIC) {
        if (!cJSON_AddNumberToObject(doc, "max_tokens", (double)max_tokens))
            goto oom;
        if (req->system && req->system[0] && !cJSON_AddStringToObject(doc, "system", req->system))
            goto oom;
    } else if (max_tokens > 0 &&
               !cJSON_AddNumberToObject(doc, "max_completion_tokens", (double)max_tokens)) {
        goto oom;
    }
    if (opts->has_temperature && !cJSON_AddNumberToObject(doc, "temperature", opts->temperature))
        goto oom;
    if (!(messages = cJSON_AddArrayToObject(doc, "messages")))
        goto oom;
    rc = opts->provider == RPL_LLM_ANTHROPIC ? anthropic_messages(messages, req)
                                             : openai_messages(messages, req);
    if (rc) {
        cJSON_Delete(doc);
        return rc;
    }
    *out = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    return *out ? 0 : rpl_error_oom();
oom:
    cJSON_Delete(doc);
    return rpl_error_oom();
}
