/* rpl/json_doc.h: numbers print as cJSON prints them, unknowns as null, one flag for failures. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/json_doc.h"
#include "rpl/strbuf.h"
#include "rpl/version.h"

/* The unformatted text of `o`, compared and freed. */
static void assert_prints(cJSON *o, const char *want)
{
    char *text = cJSON_PrintUnformatted(o);

    assert_non_null(text);
    assert_string_equal(text, want);
    cJSON_free(text);
}

static void numbers_print_like_cjson(void **state)
{
    const double values[] = {0, 7, -3, 123456789012345.0, 0.1, 2.5e-7, 1e20, -0.0};
    rpl_json_doc d = {false};

    (void)state;
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        cJSON *ours = cJSON_CreateObject(), *theirs = cJSON_CreateObject();
        char *want;

        rpl_json_doc_number(&d, ours, "v", values[i], true);
        cJSON_AddNumberToObject(theirs, "v", values[i]);
        want = cJSON_PrintUnformatted(theirs);
        assert_prints(ours, want);
        cJSON_free(want);
        cJSON_Delete(ours);
        cJSON_Delete(theirs);
    }
    assert_false(d.oom);
}

static void unknowns_and_missing_strings_are_null(void **state)
{
    rpl_json_doc d = {false};
    cJSON *o = cJSON_CreateObject();

    (void)state;
    rpl_json_doc_number(&d, o, "unknown", 5, false);
    rpl_json_doc_number(&d, o, "nan", NAN, true);
    rpl_json_doc_number(&d, o, "inf", INFINITY, true);
    rpl_json_doc_string(&d, o, "none", NULL);
    rpl_json_doc_string(&d, o, "name", "k\"1");
    assert_prints(o,
                  "{\"unknown\":null,\"nan\":null,\"inf\":null,\"none\":null,\"name\":\"k\\\"1\"}");
    assert_false(d.oom);
    cJSON_Delete(o);
}

static void set_number_keeps_the_place(void **state)
{
    rpl_json_doc d = {false};
    cJSON *o = cJSON_CreateObject();

    (void)state;
    rpl_json_doc_number(&d, o, "a", 1, true);
    rpl_json_doc_number(&d, o, "b", 2, true);
    rpl_json_doc_number(&d, o, "c", 3, true);
    rpl_json_doc_set_number(&d, o, "b", 0.5, true);
    rpl_json_doc_set_number(&d, o, "c", 9, false);
    assert_prints(o, "{\"a\":1,\"b\":0.5,\"c\":null}");
    /* Replacing a member that is not there is a failure the flag records. */
    rpl_json_doc_set_number(&d, o, "missing", 1, true);
    assert_true(d.oom);
    cJSON_Delete(o);
}

static void number_text_matches_the_items(void **state)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;

    (void)state;
    assert_int_equal(rpl_json_doc_number_text(&sb, 42, true), 0);
    assert_int_equal(rpl_strbuf_putc(&sb, ','), 0);
    assert_int_equal(rpl_json_doc_number_text(&sb, 0.25, true), 0);
    assert_int_equal(rpl_strbuf_putc(&sb, ','), 0);
    assert_int_equal(rpl_json_doc_number_text(&sb, 42, false), 0);
    assert_string_equal(rpl_strbuf_cstr(&sb), "42,0.25,null");
    rpl_strbuf_release(&sb);
}

static void check_records_a_missing_item(void **state)
{
    rpl_json_doc d = {false};
    cJSON *item = cJSON_CreateNull();

    (void)state;
    assert_ptr_equal(rpl_json_doc_check(&d, item), item);
    assert_false(d.oom);
    assert_null(rpl_json_doc_check(&d, NULL));
    assert_true(d.oom);
    cJSON_Delete(item);
}

static void push_appends_or_frees(void **state)
{
    rpl_json_doc d = {false};
    cJSON *arr = cJSON_CreateArray();

    (void)state;
    assert_non_null(rpl_json_doc_push(&d, arr, cJSON_CreateString("a")));
    assert_non_null(rpl_json_doc_push_object(&d, arr));
    assert_prints(arr, "[\"a\",{}]");
    assert_false(d.oom);
    /* A missing item (its creation failed) is recorded, the array unchanged. */
    assert_null(rpl_json_doc_push(&d, arr, NULL));
    assert_true(d.oom);
    assert_int_equal(cJSON_GetArraySize(arr), 2);
    cJSON_Delete(arr);
}

static void tool_names_this_program(void **state)
{
    rpl_json_doc d = {false};
    cJSON *o = cJSON_CreateObject();
    const cJSON *tool;

    (void)state;
    rpl_json_doc_add_tool(&d, o);
    tool = cJSON_GetObjectItemCaseSensitive(o, "tool");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(tool, "name")->valuestring, "rocm-perf");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(tool, "version")->valuestring,
                        RPL_VERSION_STRING);
    assert_false(d.oom);
    cJSON_Delete(o);
}

static void begin_and_finish_bracket_a_document(void **state)
{
    rpl_json_doc d = {false};
    cJSON stale, *out = &stale; /* begin clears it */
    cJSON *root = rpl_json_doc_begin(&d, "1.2", &out);

    (void)state;
    assert_non_null(root);
    assert_null(out);
    assert_prints(root, "{\"schema_version\":\"1.2\"}");
    assert_int_equal(rpl_json_doc_finish(&d, root, &out), 0);
    assert_ptr_equal(out, root);
    cJSON_Delete(out);
    /* After a failed adder the document is freed (LeakSanitizer sees it otherwise). */
    out = NULL;
    d.oom = true;
    assert_int_equal(rpl_json_doc_finish(&d, cJSON_CreateObject(), &out), RPL_ENOMEM);
    assert_null(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(numbers_print_like_cjson),
        cmocka_unit_test(unknowns_and_missing_strings_are_null),
        cmocka_unit_test(set_number_keeps_the_place),
        cmocka_unit_test(number_text_matches_the_items),
        cmocka_unit_test(check_records_a_missing_item),
        cmocka_unit_test(push_appends_or_frees),
        cmocka_unit_test(tool_names_this_program),
        cmocka_unit_test(begin_and_finish_bracket_a_document),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
