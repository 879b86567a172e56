/* rpl_json_*: parsing errors, typed getters, printing and atomic writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"

#define TMP RPL_TEST_TMP "/json"

static const char doc_text[] = "{\"n\": 1.5, \"i\": -42, \"big\": 9007199254740992,"
                               " \"huge\": 9007199254740994, \"frac\": 2.5, \"exp\": 1e300,"
                               " \"s\": \"text\", \"b\": true, \"nul\": null, \"arr\": [1]}";

static int setup(void **state)
{
    cJSON *doc;

    if (rpl_mkdir_p(TMP) != 0 || rpl_json_parse(&doc, doc_text, strlen(doc_text), "doc") != 0)
        return -1;
    *state = doc;
    return 0;
}

static int teardown(void **state)
{
    cJSON_Delete(*state);
    return 0;
}

static int parse_text(const char *text)
{
    cJSON *doc = (cJSON *)1;
    int rc = rpl_json_parse(&doc, text, strlen(text), "input.json");

    if (rc)
        assert_null(doc);
    cJSON_Delete(doc);
    return rc;
}

static void parse_accepts_documents(void **state)
{
    assert_int_equal(parse_text("{}"), 0);
    assert_int_equal(parse_text("  [1, 2]\n\n"), 0);
    assert_int_equal(parse_text("\"s\""), 0);
}

static void parse_rejects_malformed(void **state)
{
    const char *bad[] = {"", "   ", "{", "{\"a\":}", "[1,]", "{} x", "{}{}", "nul", "{\"a\":1}]"};

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        rpl_error_clear();
        assert_int_equal(parse_text(bad[i]), RPL_EINPUT);
        assert_non_null(strstr(rpl_error_last()->message, "input.json"));
    }
    assert_int_equal(parse_text("{\"a\": 1} x"), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "byte 9"));
}

static void parse_within_length(void **state)
{
    cJSON *doc;

    /* Only the first 8 bytes count: what follows is not part of the document. */
    assert_int_equal(rpl_json_parse(&doc, "{\"a\": 1}garbage", 8, "slice"), 0);
    cJSON_Delete(doc);
    /* A NUL inside the length ends the text. */
    assert_int_equal(rpl_json_parse(&doc, "{\"a\": 1}\n", 10, "with nul"), 0);
    cJSON_Delete(doc);
}

/* Parse `text` (`len` bytes), expect RPL_EINPUT and a message holding `want`. */
static void refused(const char *text, size_t len, const char *want)
{
    cJSON *doc = (cJSON *)1;

    rpl_error_clear();
    assert_int_equal(rpl_json_parse(&doc, text, len, "'in.json'"), RPL_EINPUT);
    assert_null(doc);
    if (!strstr(rpl_error_last()->message, want))
        fail_msg("'%s' lacks '%s'", rpl_error_last()->message, want);
}

static void duplicate_keys_are_refused(void **state)
{
    const char top[] = "{\"arch\": \"sm_90\", \"arch\": \"gfx942\"}";
    const char nested[] = "{\"regions\": [{\"size\": 1}, {\"size\": 100, \"b\": 0, \"size\": 9}]}";
    const char deep[] = "[{\"a\": {\"k\": {\"x\": 1, \"y\": 2, \"z\": 3, \"x\": 4}}}]";

    refused(top, strlen(top), "'in.json': key 'arch' appears twice in the top-level object");
    refused(nested, strlen(nested), "key 'size' appears twice in regions[1] (");
    refused(deep, strlen(deep), "key 'x' appears twice in [0].a.k (");
    /* The same key in different objects, and differing case, are fine. */
    assert_int_equal(parse_text("{\"a\": {\"a\": 1}, \"b\": [{\"a\": 1}, {\"a\": 2}], \"A\": 0}"),
                     0);
}

static void many_keys_one_duplicate(void **state)
{
    char text[20000];
    size_t n = 0;

    n += (size_t)snprintf(text + n, sizeof(text) - n, "{");
    for (int i = 0; i < 1000; i++)
        n += (size_t)snprintf(text + n, sizeof(text) - n, "\"k%d\": %d, ", i, i);
    n += (size_t)snprintf(text + n, sizeof(text) - n, "\"k517\": 0}");
    refused(text, n, "key 'k517' appears twice in the top-level object");
}

static void nul_in_strings_is_refused(void **state)
{
    const char value[] = "{\"symbol\": \"scale\\u0000evil\"}";
    const char key[] = "{\"a\\u0000b\": 1}";
    const char raw[] = "{\"s\": \"a\0b\"}";
    const char lines[] = "{\n\"a\": 1,\n\"s\": \"x\\u0000\"}";

    refused(value, strlen(value),
            "'in.json': the string at line 1 (byte 11) holds a NUL character");
    refused(key, strlen(key), "the string at line 1 (byte 1) holds a NUL");
    refused(raw, sizeof(raw) - 1, "(byte 6) holds a NUL");
    refused(lines, strlen(lines), "the string at line 3 (byte 15) holds a NUL");
    /* An escaped backslash before "u0000" is no NUL; an escaped NUL followed by "0" is. */
    assert_int_equal(parse_text("{\"s\": \"\\\\u0000 \\u0001 \\\" \\u00000\"}"), RPL_EINPUT);
    assert_int_equal(parse_text("{\"s\": \"\\\\u0000 \\u0001 \\\"\"}"), 0);
}

static void missing_key_is_not_found_without_error(void **state)
{
    const cJSON *doc = *state;
    double d;
    int64_t i;
    const char *s;
    bool b;

    rpl_error_clear();
    assert_int_equal(rpl_json_get_number(doc, "absent", &d), RPL_ENOTFOUND);
    assert_int_equal(rpl_json_get_int64(doc, "absent", &i), RPL_ENOTFOUND);
    assert_int_equal(rpl_json_get_string(doc, "absent", &s), RPL_ENOTFOUND);
    assert_int_equal(rpl_json_get_bool(doc, "absent", &b), RPL_ENOTFOUND);
    assert_int_equal(rpl_json_get_string(doc, "S", &s), RPL_ENOTFOUND); /* case matters */
    assert_int_equal(rpl_error_last()->code, 0);
}

static void getters_read_values(void **state)
{
    const cJSON *doc = *state;
    double d;
    int64_t i;
    const char *s;
    bool b = false;

    assert_int_equal(rpl_json_get_number(doc, "n", &d), 0);
    assert_true(d == 1.5);
    assert_int_equal(rpl_json_get_int64(doc, "i", &i), 0);
    assert_int_equal(i, -42);
    assert_int_equal(rpl_json_get_int64(doc, "big", &i), 0);
    assert_int_equal(i, INT64_C(9007199254740992));
    assert_int_equal(rpl_json_get_string(doc, "s", &s), 0);
    assert_string_equal(s, "text");
    assert_int_equal(rpl_json_get_bool(doc, "b", &b), 0);
    assert_true(b);
}

static void wrong_type_is_input_error(void **state)
{
    const cJSON *doc = *state;
    double d;
    int64_t i;
    const char *s;
    bool b;

    assert_int_equal(rpl_json_get_number(doc, "s", &d), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "'s'"));
    assert_int_equal(rpl_json_get_number(doc, "nul", &d), RPL_EINPUT);
    assert_int_equal(rpl_json_get_int64(doc, "arr", &i), RPL_EINPUT);
    assert_int_equal(rpl_json_get_string(doc, "n", &s), RPL_EINPUT);
    assert_int_equal(rpl_json_get_bool(doc, "i", &b), RPL_EINPUT);
    assert_int_equal(rpl_error_last()->code, RPL_EINPUT);
}

static void int64_range_and_fraction(void **state)
{
    const cJSON *doc = *state;
    int64_t i = 7;

    assert_int_equal(rpl_json_get_int64(doc, "huge", &i), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "'huge'"));
    assert_int_equal(rpl_json_get_int64(doc, "frac", &i), RPL_EINPUT);
    assert_int_equal(rpl_json_get_int64(doc, "exp", &i), RPL_EINPUT);
    assert_int_equal(i, 7);
}

static void non_finite_number_is_rejected(void **state)
{
    cJSON *doc;
    double d;

    assert_int_equal(parse_text("{\"x\": 1e999}"), 0);
    assert_int_equal(rpl_json_parse(&doc, "{\"x\": 1e999}", 12, "inf"), 0);
    assert_int_equal(rpl_json_get_number(doc, "x", &d), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "'x' is a number out of range"));
    cJSON_Delete(doc);
}

static void print_ends_with_newline(void **state)
{
    cJSON *doc = cJSON_CreateObject();
    char *text;

    cJSON_AddStringToObject(doc, "schema_version", "1.0");
    assert_non_null(rpl_json_add_int64(doc, "count", INT64_C(1234567890123)));
    assert_int_equal(rpl_json_print(&text, doc), 0);
    assert_non_null(strstr(text, "\"count\":\t1234567890123"));
    assert_int_equal(text[strlen(text) - 1], '\n');
    free(text);
    cJSON_Delete(doc);
}

static void write_file_round_trips(void **state)
{
    const cJSON *doc = *state;
    cJSON *back;
    const char *s;
    char *text;
    size_t len;

    assert_int_equal(rpl_json_write_file(TMP "/out.json", doc), 0);
    assert_int_equal(rpl_file_read_all(TMP "/out.json", 1 << 20, &text, &len), 0);
    assert_int_equal(text[len - 1], '\n');
    free(text);
    assert_int_equal(rpl_json_parse_file(&back, TMP "/out.json", 1 << 20), 0);
    assert_true(cJSON_Compare(doc, back, 1));
    assert_int_equal(rpl_json_get_string(back, "s", &s), 0);
    assert_string_equal(s, "text");
    cJSON_Delete(back);
}

static void write_file_to_missing_dir_fails_cleanly(void **state)
{
    struct stat st;

    assert_int_equal(rpl_json_write_file(TMP "/no/such/dir/out.json", *state), RPL_EIO);
    assert_int_not_equal(stat(TMP "/no", &st), 0);
}

static void parse_file_errors(void **state)
{
    cJSON *doc = (cJSON *)1;
    FILE *f;

    assert_int_equal(rpl_json_parse_file(&doc, TMP "/absent.json", 100), RPL_ENOTFOUND);
    assert_null(doc);
    f = fopen(TMP "/bad.json", "w");
    assert_non_null(f);
    fputs("{\"a\": [1, 2", f);
    fclose(f);
    assert_int_equal(rpl_json_parse_file(&doc, TMP "/bad.json", 100), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "bad.json"));
    assert_int_equal(rpl_json_parse_file(&doc, TMP "/bad.json", 5), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "larger than 5 bytes"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_accepts_documents),
        cmocka_unit_test(parse_rejects_malformed),
        cmocka_unit_test(parse_within_length),
        cmocka_unit_test(duplicate_keys_are_refused),
        cmocka_unit_test(many_keys_one_duplicate),
        cmocka_unit_test(nul_in_strings_is_refused),
        cmocka_unit_test(missing_key_is_not_found_without_error),
        cmocka_unit_test(getters_read_values),
        cmocka_unit_test(wrong_type_is_input_error),
        cmocka_unit_test(int64_range_and_fraction),
        cmocka_unit_test(non_finite_number_is_rejected),
        cmocka_unit_test(print_ends_with_newline),
        cmocka_unit_test(write_file_round_trips),
        cmocka_unit_test(write_file_to_missing_dir_fails_cleanly),
        cmocka_unit_test(parse_file_errors),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
