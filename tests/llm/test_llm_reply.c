/* Reply and error bodies of both providers: every field, truncation, errors, garbage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "llm_int.h"
#include "rpl/error.h"

static int parse(rpl_llm_reply *r, rpl_llm_provider p, const char *body)
{
    return rpl_llm_reply_parse(r, p, body, strlen(body));
}

static void openai_reply_fields(void **state)
{
    rpl_llm_reply r;
    const char *body =
        "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
        "\"message\":{\"role\":\"assistant\",\"content\":\"```cpp\\nx\\n```\"},"
        "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":120,\"completion_tokens\":45,"
        "\"total_tokens\":165}}";

    assert_int_equal(parse(&r, RPL_LLM_OPENAI, body), 0);
    assert_string_equal(r.text, "```cpp\nx\n```");
    assert_string_equal(r.finish_reason, "stop");
    assert_string_equal(r.id, "chatcmpl-1");
    assert_false(r.truncated);
    assert_false(r.filtered);
    assert_int_equal(r.input_tokens, 120);
    assert_int_equal(r.output_tokens, 45);
    rpl_llm_reply_release(&r);
}

static void openai_truncated_and_filtered(void **state)
{
    rpl_llm_reply r;

    assert_int_equal(parse(&r, RPL_LLM_OPENAI,
                           "{\"choices\":[{\"message\":{\"content\":\"```cpp\\n__global__\"},"
                           "\"finish_reason\":\"length\"}]}"),
                     0);
    assert_true(r.truncated);
    assert_string_equal(r.text, "```cpp\n__global__");
    /* No usage: unknown, not zero. */
    assert_int_equal(r.input_tokens, -1);
    assert_int_equal(r.output_tokens, -1);
    assert_null(r.id);
    rpl_llm_reply_release(&r);

    /* A reasoning model that spent all tokens thinking: null content, length. */
    assert_int_equal(parse(&r, RPL_LLM_OPENAI,
                           "{\"choices\":[{\"message\":{\"content\":null},"
                           "\"finish_reason\":\"length\"}]}"),
                     0);
    assert_true(r.truncated);
    assert_null(r.text);
    rpl_llm_reply_release(&r);

    assert_int_equal(parse(&r, RPL_LLM_OPENAI,
                           "{\"choices\":[{\"message\":{\"content\":null,\"refusal\":\"no\"},"
                           "\"finish_reason\":\"stop\"}]}"),
                     0);
    assert_true(r.filtered);
    rpl_llm_reply_release(&r);
    assert_int_equal(parse(&r, RPL_LLM_OPENAI,
                           "{\"choices\":[{\"message\":{\"content\":\"\"},"
                           "\"finish_reason\":\"content_filter\"}]}"),
                     0);
    assert_true(r.filtered);
    rpl_llm_reply_release(&r);
}

static void anthropic_reply_fields(void **state)
{
    rpl_llm_reply r;
    const char *body =
        "{\"id\":\"msg_01\",\"type\":\"message\",\"role\":\"assistant\",\"content\":["
        "{\"type\":\"thinking\",\"thinking\":\"hmm\",\"signature\":\"s\"},"
        "{\"type\":\"text\",\"text\":\"part one, \"},{\"type\":\"tool_use\",\"id\":\"t\"},"
        "{\"type\":\"text\",\"text\":\"part two\"}],\"stop_reason\":\"end_turn\","
        "\"usage\":{\"input_tokens\":300,\"output_tokens\":80}}";

    assert_int_equal(parse(&r, RPL_LLM_ANTHROPIC, body), 0);
    assert_string_equal(r.text, "part one, part two");
    assert_string_equal(r.finish_reason, "end_turn");
    assert_string_equal(r.id, "msg_01");
    assert_false(r.truncated);
    assert_int_equal(r.input_tokens, 300);
    assert_int_equal(r.output_tokens, 80);
    rpl_llm_reply_release(&r);

    assert_int_equal(parse(&r, RPL_LLM_ANTHROPIC,
                           "{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}],"
                           "\"stop_reason\":\"max_tokens\",\"usage\":{\"input_tokens\":1.5}}"),
                     0);
    assert_true(r.truncated);
    assert_int_equal(r.input_tokens, -1); /* not an integer: unknown */
    rpl_llm_reply_release(&r);

    assert_int_equal(parse(&r, RPL_LLM_ANTHROPIC, "{\"content\":[],\"stop_reason\":\"refusal\"}"),
                     0);
    assert_true(r.filtered);
    assert_string_equal(r.text, "");
    rpl_llm_reply_release(&r);
}

static void malformed_replies_fail_with_a_reason(void **state)
{
    static const struct {
        rpl_llm_provider p;
        const char *body;
        const char *reason;
    } cases[] = {
        {RPL_LLM_OPENAI, "{\"choices\": [ {garbage", "malformed JSON"},
        {RPL_LLM_OPENAI, "", "empty JSON"},
        {RPL_LLM_OPENAI, "[1,2]", "not a JSON object"},
        {RPL_LLM_OPENAI, "{\"choices\":[]}", "no 'choices'"},
        {RPL_LLM_OPENAI, "{\"choices\":{}}", "no 'choices'"},
        {RPL_LLM_OPENAI, "{\"choices\":[3]}", "not an object"},
        {RPL_LLM_OPENAI, "{\"choices\":[{\"finish_reason\":\"stop\"}]}", "no 'message'"},
        {RPL_LLM_OPENAI,
         "{\"choices\":[{\"message\":{\"tool_calls\":[]},\"finish_reason\":"
         "\"tool_calls\"}]}",
         "no text content (finish_reason tool_calls)"},
        {RPL_LLM_OPENAI, "{\"error\":{\"message\":\"boom\"}}", "error object"},
        {RPL_LLM_ANTHROPIC, "{\"type\":\"error\",\"error\":{\"type\":\"x\"}}", "error object"},
        {RPL_LLM_ANTHROPIC, "{\"type\":\"message\"}", "no 'content' array"},
        {RPL_LLM_ANTHROPIC, "{\"content\":[{\"type\":\"text\"}]}", "has no 'text'"},
        {RPL_LLM_ANTHROPIC, "{\"content\":[]} trailing", "malformed JSON"},
        /* A reply that other JSON readers would read otherwise is refused. */
        {RPL_LLM_ANTHROPIC, "{\"content\":[{\"type\":\"text\",\"text\":\"a\",\"text\":\"b\"}]}",
         "key 'text' appears twice in content[0]"},
        {RPL_LLM_OPENAI,
         "{\"choices\":[{\"message\":{\"content\":\"x\\u0000y\"},\"finish_reason\":"
         "\"stop\"}]}",
         "holds a NUL character"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rpl_llm_reply r;

        if (parse(&r, cases[i].p, cases[i].body) != RPL_EINPUT)
            fail_msg("case %zu parsed: %s", i, cases[i].body);
        if (!strstr(rpl_error_last()->message, cases[i].reason))
            fail_msg("case %zu: '%s' lacks '%s'", i, rpl_error_last()->message, cases[i].reason);
        assert_null(r.text);
        assert_null(r.finish_reason);
    }
}

static void error_bodies(void **state)
{
    rpl_llm_api_error e;
    const char *openai_quota = "{\"error\":{\"message\":\"You exceeded your current quota\","
                               "\"type\":\"insufficient_quota\",\"param\":null,"
                               "\"code\":\"insufficient_quota\"}}";
    const char *anthropic_spend =
        "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"spend\","
        "\"details\":{\"error_code\":\"enforced_spend_limit_reached\"}},\"request_id\":\"req_9\"}";
    const char *anthropic_rate = "{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\","
                                 "\"message\":\"Number of request tokens has exceeded\"}}";
    const char *vllm = "{\"object\":\"error\",\"message\":\"model x\\ndoes not exist\","
                       "\"type\":\"NotFoundError\",\"code\":404}";

    assert_int_equal(rpl_llm_error_parse(&e, openai_quota, strlen(openai_quota)), 0);
    assert_true(e.spend_limit);
    assert_string_equal(e.code, "insufficient_quota");
    assert_string_equal(e.message, "You exceeded your current quota");
    rpl_llm_api_error_release(&e);

    assert_int_equal(rpl_llm_error_parse(&e, anthropic_spend, strlen(anthropic_spend)), 0);
    assert_true(e.spend_limit);
    assert_string_equal(e.type, "rate_limit_error");
    assert_string_equal(e.code, "enforced_spend_limit_reached");
    assert_string_equal(e.request_id, "req_9");
    rpl_llm_api_error_release(&e);

    assert_int_equal(rpl_llm_error_parse(&e, anthropic_rate, strlen(anthropic_rate)), 0);
    assert_false(e.spend_limit);
    assert_null(e.code);
    rpl_llm_api_error_release(&e);

    /* vLLM: fields at the top, numeric code; messages come out on one line. */
    assert_int_equal(rpl_llm_error_parse(&e, vllm, strlen(vllm)), 0);
    assert_string_equal(e.message, "model x does not exist");
    assert_string_equal(e.code, "404");
    assert_string_equal(e.type, "NotFoundError");
    rpl_llm_api_error_release(&e);

    /* Ollama: a plain string. */
    assert_int_equal(rpl_llm_error_parse(&e, "{\"error\":\"model not found\"}", 27), 0);
    assert_string_equal(e.message, "model not found");
    rpl_llm_api_error_release(&e);

    /* HTML from a proxy, or nothing: all fields empty. */
    assert_int_equal(rpl_llm_error_parse(&e, "<html>502</html>", 16), 0);
    assert_null(e.message);
    assert_null(e.type);
    assert_false(e.spend_limit);
    assert_int_equal(rpl_llm_error_parse(&e, NULL, 0), 0);
    assert_null(e.message);
}

static void long_error_message_is_capped(void **state)
{
    char body[2000];
    rpl_llm_api_error e;

    memset(body, 0, sizeof(body));
    strcpy(body, "{\"error\":{\"message\":\"");
    /* é is two bytes: the cut must not fall inside one. */
    for (int i = 0; i < 500; i++)
        strcat(body, i % 2 ? "\xc3\xa9" : "a");
    strcat(body, "\"}}");
    assert_int_equal(rpl_llm_error_parse(&e, body, strlen(body)), 0);
    assert_true(strlen(e.message) <= 400);
    assert_true(strlen(e.message) >= 398);
    assert_true(((unsigned char)e.message[strlen(e.message) - 1] & 0xC0) != 0xC0);
    rpl_llm_api_error_release(&e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(openai_reply_fields),
        cmocka_unit_test(openai_truncated_and_filtered),
        cmocka_unit_test(anthropic_reply_fields),
        cmocka_unit_test(malformed_replies_fail_with_a_reason),
        cmocka_unit_test(error_bodies),
        cmocka_unit_test(long_error_message_is_capped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
