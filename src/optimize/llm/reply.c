/* Reply and error bodies of both providers (see llm_int.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "llm_int.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/json.h"
#include "rpl/kernel_filter.h"
#include "rpl/strbuf.h"

/* Longest provider message kept for an error line. */
#define MESSAGE_MAX 400

static const char *const spend_limit_codes[] = {
    "insufficient_quota",           /* OpenAI */
    "billing_hard_limit_reached",   /* OpenAI */
    "credit_balance_exhausted",     /* OpenAI-compatible gateways */
    "enforced_spend_limit_reached", /* Anthropic */
};

static const char *string_item(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

    return cJSON_IsString(item) ? item->valuestring : NULL;
}

/* A non-negative integer count, or -1 when absent or not one. */
static int64_t count_item(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

    if (!cJSON_IsNumber(item) || !isfinite(item->valuedouble) || item->valuedouble < 0 ||
        item->valuedouble > 9007199254740992.0 || item->valuedouble != floor(item->valuedouble))
        return -1;
    return (int64_t)item->valuedouble;
}

void rpl_llm_reply_release(rpl_llm_reply *reply)
{
    if (!reply)
        return;
    free(reply->text);
    free(reply->finish_reason);
    free(reply->id);
    memset(reply, 0, sizeof(*reply));
    reply->input_tokens = reply->output_tokens = -1;
}

static int parse_openai(rpl_llm_reply *out, const cJSON *doc)
{
    const cJSON *choices = cJSON_GetObjectItemCaseSensitive(doc, "choices");
    const cJSON *choice, *message, *content, *usage;
    const char *finish;

    if (!cJSON_IsArray(choices) || !(choice = cJSON_GetArrayItem(choices, 0)))
        return rpl_error_set(RPL_EINPUT, "the reply has no 'choices'");
    if (!cJSON_IsObject(choice))
        return rpl_error_set(RPL_EINPUT, "'choices[0]' is not an object");
    finish = string_item(choice, "finish_reason");
    if (finish && !(out->finish_reason = strdup(finish)))
        return rpl_error_oom();
    out->truncated = finish && strcmp(finish, "length") == 0;
    out->filtered = finish && strcmp(finish, "content_filter") == 0;
    message = cJSON_GetObjectItemCaseSensitive(choice, "message");
    if (!cJSON_IsObject(message))
        return rpl_error_set(RPL_EINPUT, "'choices[0]' has no 'message'");
    content = cJSON_GetObjectItemCaseSensitive(message, "content");
    if (cJSON_IsString(content)) {
        if (!(out->text = strdup(content->valuestring)))
            return rpl_error_oom();
    } else if (string_item(message, "refusal")) {
        out->filtered = true;
        if (!(out->text = strdup(string_item(message, "refusal"))))
            return rpl_error_oom();
    } else if (!out->truncated) {
        /* null content: tool calls or nothing at all */
        return rpl_error_set(RPL_EINPUT, "'choices[0].message' has no text content%s%s%s",
                             finish ? " (finish_reason " : "", finish ? finish : "",
                             finish ? ")" : "");
    }
    usage = cJSON_GetObjectItemCaseSensitive(doc, "usage");
    out->input_tokens = count_item(usage, "prompt_tokens");
    out->output_tokens = count_item(usage, "completion_tokens");
    return 0;
}

static int parse_anthropic(rpl_llm_reply *out, const cJSON *doc)
{
    const cJSON *content = cJSON_GetObjectItemCaseSensitive(doc, "content");
    const cJSON *block, *usage;
    const char *stop = string_item(doc, "stop_reason");
    rpl_strbuf text = RPL_STRBUF_INIT;

    if (!cJSON_IsArray(content))
        return rpl_error_set(RPL_EINPUT, "the reply has no 'content' array");
    if (stop && !(out->finish_reason = strdup(stop)))
        return rpl_error_oom();
    out->truncated = stop && strcmp(stop, "max_tokens") == 0;
    out->filtered = stop && strcmp(stop, "refusal") == 0;
    /* Thinking and tool blocks may come before or between the text blocks. */
    cJSON_ArrayForEach(block, content)
    {
        const char *type = string_item(block, "type");
        const char *t = string_item(block, "text");

        if (!type || strcmp(type, "text") != 0)
            continue;
        if (!t) {
            rpl_strbuf_release(&text);
            return rpl_error_set(RPL_EINPUT, "a 'text' block of the reply has no 'text'");
        }
        if (rpl_strbuf_puts(&text, t)) {
            rpl_strbuf_release(&text);
            return rpl_error_oom();
        }
    }
    if (!(out->text = text.ptr ? rpl_strbuf_detach(&text) : strdup("")))
        return rpl_error_oom();
    usage = cJSON_GetObjectItemCaseSensitive(doc, "usage");
    out->input_tokens = count_item(usage, "input_tokens");
    out->output_tokens = count_item(usage, "output_tokens");
    return 0;
}

int rpl_llm_reply_parse(rpl_llm_reply *out, rpl_llm_provider provider, const char *body, size_t len)
{
    cJSON *doc = NULL;
    const char *id, *type;
    int rc;

    memset(out, 0, sizeof(*out));
    out->input_tokens = out->output_tokens = -1;
    if (rpl_json_parse(&doc, body, len, "the reply") != 0)
        return RPL_EINPUT;
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return rpl_error_set(RPL_EINPUT, "the reply is not a JSON object");
    }
    type = string_item(doc, "type");
    if ((type && strcmp(type, "error") == 0) ||
        (cJSON_GetObjectItemCaseSensitive(doc, "error") &&
         !cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(doc, "error")))) {
        cJSON_Delete(doc);
        return rpl_error_set(RPL_EINPUT, "the reply is an error object");
    }
    id = string_item(doc, "id");
    if (id && !(out->id = strdup(id))) {
        cJSON_Delete(doc);
        return rpl_error_oom();
    }
    rc = provider == RPL_LLM_ANTHROPIC ? parse_anthropic(out, doc) : parse_openai(out, doc);
    cJSON_Delete(doc);
    if (rc)
        rpl_llm_reply_release(out);
    return rc;
}

/* ---- error bodies ----------------------------------------------------- */

void rpl_llm_api_error_release(rpl_llm_api_error *err)
{
    if (!err)
        return;
    RPL_FREE_EACH(err->type, err->code, err->message, err->request_id);
    memset(err, 0, sizeof(*err));
}

/* One line of at most MESSAGE_MAX bytes, not cut inside a UTF-8 sequence. */
static char *one_line(const char *s)
{
    size_t n = strlen(s);
    char *line;

    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++, n--;
    n = rpl_utf8_cut(s, n, MESSAGE_MAX);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    if (!(line = malloc(n + 1)))
        return NULL;
    for (size_t i = 0; i < n; i++)
        line[i] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? ' ' : s[i];
    line[n] = '\0';
    return line;
}

/* A string field, or a number printed as an integer (vLLM's "code": 400); else NULL. */
static int word_item(char **out, const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);
    char num[32];

    *out = NULL;
    if (cJSON_IsString(item)) {
        *out = one_line(item->valuestring);
    } else if (cJSON_IsNumber(item) && fabs(item->valuedouble) < 1e15) {
        snprintf(num, sizeof(num), "%.0f", item->valuedouble);
        *out = strdup(num);
    } else {
        return 0;
    }
    return *out ? 0 : rpl_error_oom();
}

static bool is_spend_limit(const char *word)
{
    if (!word)
        return false;
    for (size_t i = 0; i < sizeof(spend_limit_codes) / sizeof(spend_limit_codes[0]); i++)
        if (strcmp(word, spend_limit_codes[i]) == 0)
            return true;
    return false;
}

static int fill_error(rpl_llm_api_error *out, const cJSON *doc)
{
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(doc, "error");
    const cJSON *details, *src;
    const char *request_id = string_item(doc, "request_id");
    char *detail_code = NULL;

    if (cJSON_IsString(err)) { /* Ollama, llama.cpp: {"error": "..."} */
        if (!(out->message = one_line(err->valuestring)))
            return rpl_error_oom();
        return 0;
    }
    /* {"error": {...}} (OpenAI, Anthropic) or the fields at the top (vLLM). */
    src = cJSON_IsObject(err) ? err : doc;
    if (word_item(&out->message, src, "message") || word_item(&out->type, src, "type") ||
        word_item(&out->code, src, "code"))
        return RPL_ENOMEM;
    details = cJSON_GetObjectItemCaseSensitive(src, "details");
    if (word_item(&detail_code, details, "error_code"))
        return RPL_ENOMEM;
    out->spend_limit = is_spend_limit(out->code) || is_spend_limit(out->type) ||
                       is_spend_limit(detail_code) ||
                       is_spend_limit(string_item(src, "error_code"));
    if (!out->code && detail_code) {
        out->code = detail_code;
        detail_code = NULL;
    }
    free(detail_code);
    if (request_id && !(out->request_id = one_line(request_id)))
        return rpl_error_oom();
    return 0;
}

int rpl_llm_error_parse(rpl_llm_api_error *out, const char *body, size_t len)
{
    cJSON *doc;
    int rc;

    memset(out, 0, sizeof(*out));
    /* A body that is no strict JSON object carries no details. */
    if (!len || rpl_json_parse(&doc, body, len, "the error reply") != 0)
        doc = NULL;
    if (!cJSON_IsObject(doc)) {
        cJSON_Delete(doc);
        return 0;
    }
    rc = fill_error(out, doc);
    cJSON_Delete(doc);
    if (rc)
        rpl_llm_api_error_release(out);
    return rc;
}
