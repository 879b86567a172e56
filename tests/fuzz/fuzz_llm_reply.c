/*
 * libFuzzer target for the LLM reply parsers: the input bytes are an HTTP
 * reply body, read as an OpenAI and as an Anthropic reply and as an error
 * body of either, then redacted.  Checked on the way: a parsed reply that is
 * not truncated has text; a truncated one says why; an error body's message
 * is one line of at most 400 bytes; redaction leaves no copy of the key.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llm_int.h"
#include "rpl/llm.h"

#define KEY "fuzz-Key-0123456789abcdef"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_reply(rpl_llm_provider p, const char *body, size_t size)
{
    rpl_llm_reply r;

    if (rpl_llm_reply_parse(&r, p, body, size) == 0) {
        if (!r.truncated && !r.text)
            abort();
        if (r.truncated && !r.finish_reason)
            abort();
        if (r.input_tokens < -1 || r.output_tokens < -1)
            abort();
    } else if (r.text || r.finish_reason || r.id) {
        abort(); /* a failed parse hands nothing back */
    }
    rpl_llm_reply_release(&r);
}

static void check_error(const char *body, size_t size)
{
    rpl_llm_api_error e;

    if (rpl_llm_error_parse(&e, body, size) != 0)
        return;
    if (e.message && (strlen(e.message) > 400 || strchr(e.message, '\n')))
        abort();
    rpl_llm_api_error_release(&e);
}

static void check_redaction(const char *text)
{
    char *out = NULL;

    if (rpl_llm_redact(&out, text, KEY) != 0)
        return;
    if (strstr(out, KEY))
        abort();
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A NUL-terminated copy: redaction works on C strings. */
    char *body = malloc(size + 1);

    if (!body)
        return 0;
    memcpy(body, data, size);
    body[size] = '\0';
    check_reply(RPL_LLM_OPENAI, body, size);
    check_reply(RPL_LLM_ANTHROPIC, body, size);
    check_error(body, size);
    check_redaction(body);
    free(body);
    return 0;
}
