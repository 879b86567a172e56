/* Redaction of keys and authorization header values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/llm.h"

#define KEY "k3y-SENTINEL-0123456789"

static void expect(const char *text, const char *secret, const char *want)
{
    char *out = NULL;

    assert_int_equal(rpl_llm_redact(&out, text, secret), 0);
    if (strcmp(out, want) != 0)
        fail_msg("redact('%s')\n  got  '%s'\n  want '%s'", text, out, want);
    free(out);
}

static void every_occurrence_of_the_key(void **state)
{
    expect("a " KEY " b " KEY, KEY, "a [REDACTED] b [REDACTED]");
    expect(KEY KEY, KEY, "[REDACTED][REDACTED]");
    expect("no secret here", KEY, "no secret here");
    expect("", KEY, "");
    expect(NULL, KEY, "");
    /* No secret: only the patterns. */
    expect("plain", NULL, "plain");
    expect("plain", "", "plain");
}

static void header_values(void **state)
{
    expect("Authorization: Bearer abc.def-ghi\r\nAccept: x", NULL,
           "Authorization: Bearer [REDACTED]\r\nAccept: x");
    expect("authorization: bearer    tok123", NULL, "authorization: bearer    [REDACTED]");
    expect("x-api-key: sekrit\nanthropic-version: 2023-06-01", NULL,
           "x-api-key: [REDACTED]\nanthropic-version: 2023-06-01");
    expect("X-Api-Key:sekrit", NULL, "X-Api-Key:[REDACTED]");
    expect("{\"x-api-key\": \"sekrit\", \"a\": 1}", NULL,
           "{\"x-api-key\": \"[REDACTED]\", \"a\": 1}");
    expect("X_API_KEY=1 and x-api-key=abc", NULL, "X_API_KEY=1 and x-api-key=[REDACTED]");
    /* Words that only contain the pattern stay. */
    expect("forbearer of x-api-keys", NULL, "forbearer of x-api-keys");
    expect("a Bearer", NULL, "a Bearer");
}

static void openai_style_keys(void **state)
{
    /* OpenAI's 401 message echoes part of the key. */
    expect("Incorrect API key provided: sk-proj-****************************abcd.", NULL,
           "Incorrect API key provided: [REDACTED]");
    expect("key sk-abcdefgh1234 end", NULL, "key [REDACTED] end");
    /* Too short to be a key, or inside a word. */
    expect("use sk-learn", NULL, "use sk-learn");
    expect("task-abcdefghijkl", NULL, "task-abcdefghijkl");
}

static void key_inside_header_value(void **state)
{
    expect("Authorization: Bearer " KEY, KEY, "Authorization: Bearer [REDACTED]");
    expect("x-api-key: " KEY "\n", KEY, "x-api-key: [REDACTED]\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_occurrence_of_the_key),
        cmocka_unit_test(header_values),
        cmocka_unit_test(openai_style_keys),
        cmocka_unit_test(key_inside_header_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
