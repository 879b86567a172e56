/* Request bodies of both providers: fields, optional fields only when given, message shapes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "llm_int.h"
#include "rpl/error.h"

static cJSON *build(const rpl_llm_body_opts *opts, const rpl_llm_request *req)
{
    char *text = NULL;
    cJSON *doc;

    assert_int_equal(rpl_llm_request_body(&text, opts, req), 0);
    doc = cJSON_Parse(text);
    assert_non_null(doc);
    free(text);
    return doc;
}

static const cJSON *item(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static void assert_message(const cJSON *messages, int i, const char *role, const char *content)
{
    const cJSON *m = cJSON_GetArrayItem(messages, i);

    assert_non_null(m);
    assert_string_equal(item(m, "role")->valuestring, role);
    assert_string_equal(item(m, "content")->valuestring, content);
}

static const rpl_llm_message conversation[] = {
    {RPL_LLM_USER, "optimize saxpy"},
    {RPL_LLM_ASSISTANT, "```cpp\n__global__ void saxpy() {}\n```"},
    {RPL_LLM_USER, "it did not compile:"},
    {RPL_LLM_USER, "error: x"},
};

static void openai_minimal_has_no_optional_fields(void **state)
{
    rpl_llm_body_opts opts = {RPL_LLM_OPENAI, "gpt-4.1", false, 0.0, 0};
    rpl_llm_request req = {NULL, conversation, 1};
    cJSON *doc = build(&opts, &req);

    assert_string_equal(item(doc, "model")->valuestring, "gpt-4.1");
    assert_null(item(doc, "temperature"));
    assert_null(item(doc, "max_completion_tokens"));
    assert_null(item(doc, "max_tokens"));
    assert_null(item(doc, "system"));
    assert_int_equal(cJSON_GetArraySize(item(doc, "messages")), 1);
    assert_message(item(doc, "messages"), 0, "user", "optimize saxpy");
    cJSON_Delete(doc);
}

static void openai_optional_fields_when_given(void **state)
{
    rpl_llm_body_opts opts = {RPL_LLM_OPENAI, "o3", true, 0.0, 4096};
    rpl_llm_request req = {"You are a GPU engineer.", conversation, 4};
    cJSON *doc = build(&opts, &req);
    const cJSON *messages = item(doc, "messages");

    /* Temperature 0 is a value, not "absent". */
    assert_true(cJSON_IsNumber(item(doc, "temperature")));
    assert_true(item(doc, "temperature")->valuedouble == 0.0);
    assert_int_equal(item(doc, "max_completion_tokens")->valueint, 4096);
    assert_null(item(doc, "max_tokens"));
    /* System first, then the turns as they are (no merging for OpenAI). */
    assert_int_equal(cJSON_GetArraySize(messages), 5);
    assert_message(messages, 0, "system", "You are a GPU engineer.");
    assert_message(messages, 1, "user", "optimize saxpy");
    assert_message(messages, 2, "assistant", "```cpp\n__global__ void saxpy() {}\n```");
    assert_message(messages, 4, "user", "error: x");
    cJSON_Delete(doc);
}

static void anthropic_system_top_level_and_merged_turns(void **state)
{
    rpl_llm_body_opts opts = {RPL_LLM_ANTHROPIC, "claude-sonnet-4-5", true, 0.7, 0};
    rpl_llm_request req = {"You are a GPU engineer.", conversation, 4};
    cJSON *doc = build(&opts, &req);
    const cJSON *messages = item(doc, "messages");

    assert_string_equal(item(doc, "system")->valuestring, "You are a GPU engineer.");
    /* max_tokens is required by Anthropic: the default goes in. */
    assert_int_equal(item(doc, "max_tokens")->valueint, RPL_LLM_ANTHROPIC_DEFAULT_MAX_TOKENS);
    assert_null(item(doc, "max_completion_tokens"));
    assert_true(item(doc, "temperature")->valuedouble == 0.7);
    assert_int_equal(cJSON_GetArraySize(messages), 3);
    assert_message(messages, 0, "user", "optimize saxpy");
    assert_message(messages, 1, "assistant", "```cpp\n__global__ void saxpy() {}\n```");
    assert_message(messages, 2, "user", "it did not compile:\n\nerror: x");
    cJSON_Delete(doc);
}

static void anthropic_max_tokens_given_and_no_temperature(void **state)
{
    rpl_llm_body_opts opts = {RPL_LLM_ANTHROPIC, "claude", false, 1.5, 1000};
    rpl_llm_request req = {"", conversation, 1};
    cJSON *doc = build(&opts, &req);

    assert_int_equal(item(doc, "max_tokens")->valueint, 1000);
    assert_null(item(doc, "temperature"));
    assert_null(item(doc, "system")); /* "" means none */
    cJSON_Delete(doc);
}

static void text_is_escaped(void **state)
{
    static const rpl_llm_message m[] = {{RPL_LLM_USER, "quote \" backslash \\ nl \n tab \t \x01"}};
    rpl_llm_body_opts opts = {RPL_LLM_OPENAI, "m", false, 0, 0};
    rpl_llm_request req = {NULL, m, 1};
    cJSON *doc = build(&opts, &req);

    assert_message(item(doc, "messages"), 0, "user", m[0].content);
    cJSON_Delete(doc);
}

static void bad_requests_fail(void **state)
{
    static const rpl_llm_message starts_with_assistant[] = {{RPL_LLM_ASSISTANT, "hi"},
                                                            {RPL_LLM_USER, "x"}};
    static const rpl_llm_message null_content[] = {{RPL_LLM_USER, NULL}};
    rpl_llm_body_opts openai = {RPL_LLM_OPENAI, "m", false, 0, 0};
    rpl_llm_body_opts anthropic = {RPL_LLM_ANTHROPIC, "m", false, 0, 0};
    rpl_llm_body_opts no_model = {RPL_LLM_OPENAI, "", false, 0, 0};
    rpl_llm_request empty = {NULL, NULL, 0};
    rpl_llm_request bad_first = {NULL, starts_with_assistant, 2};
    rpl_llm_request no_content = {NULL, null_content, 1};
    rpl_llm_request fine = {NULL, conversation, 1};
    char *out = (char *)"unchanged";

    assert_int_equal(rpl_llm_request_body(&out, &openai, &empty), RPL_EUSAGE);
    assert_null(out);
    assert_int_equal(rpl_llm_request_body(&out, &anthropic, &bad_first), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "first message"));
    assert_int_equal(rpl_llm_request_body(&out, &openai, &no_content), RPL_EUSAGE);
    assert_int_equal(rpl_llm_request_body(&out, &no_model, &fine), RPL_EUSAGE);
    /* OpenAI accepts an assistant turn first (a prefilled conversation). */
    assert_int_equal(rpl_llm_request_body(&out, &openai, &bad_first), 0);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(openai_minimal_has_no_optional_fields),
        cmocka_unit_test(openai_optional_fields_when_given),
        cmocka_unit_test(anthropic_system_top_level_and_merged_turns),
        cmocka_unit_test(anthropic_max_tokens_given_and_no_temperature),
        cmocka_unit_test(text_is_escaped),
        cmocka_unit_test(bad_requests_fail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
