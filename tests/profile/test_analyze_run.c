/*
 * rpl_analyze_run, the pipeline behind `rocm-perf analyze` and `profile`, on
 * a recorded trace: the table, the JSON document, the output folder, the
 * counter sample, and the reasons no kernel is summarised.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "rpl/analyze.h"
#include "rpl/error.h"
#include "rpl/json.h"

#define TRACE RPL_FIXTURES "/recorded/two_streams.db"

static const char *const traces[] = {TRACE};

/* Run the pipeline; what it printed into *text (free()). */
static int run(const rpl_analyze_opts *o, char **text)
{
    FILE *out = tmpfile();
    long len;
    int rc;

    assert_non_null(out);
    rc = rpl_analyze_run(o, out);
    len = ftell(out);
    assert_true(len >= 0);
    *text = calloc(1, (size_t)len + 1);
    assert_non_null(*text);
    rewind(out);
    assert_int_equal(fread(*text, 1, (size_t)len, out), (size_t)len);
    fclose(out);
    return rc;
}

static void opts_init(rpl_analyze_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->traces = traces;
    o->ntraces = 1;
    o->top = RPL_ANALYZE_DEFAULT_TOP;
}

static void table_and_json(void **state)
{
    rpl_analyze_opts o;
    cJSON *doc = NULL;
    char *text = NULL;

    (void)state;
    opts_init(&o);
    assert_int_equal(run(&o, &text), 0);
    assert_non_null(strstr(text, "dispatches: 10 selected of 10, 2 kernels of 2"));
    assert_non_null(strstr(text, "produce(float*, int, int)"));
    assert_null(strstr(text, "details: rocm-perf report")); /* no output folder */
    free(text);

    o.top = 1;
    assert_int_equal(run(&o, &text), 0);
    assert_null(strstr(text, "consume("));
    free(text);

    o.json = true;
    assert_int_equal(run(&o, &text), 0);
    assert_int_equal(rpl_json_parse(&doc, text, strlen(text), "profile.json"), 0);
    assert_string_equal(cJSON_GetObjectItem(doc, "schema_version")->valuestring, "1.0");
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "inputs"), 0)->valuestring,
                        TRACE);
    assert_null(cJSON_GetObjectItem(doc, "counter_sample"));
    cJSON_Delete(doc);
    free(text);
}

/* Every analysis file in the folder, then the critical path's dominant kernel. */
static void output_folder(void **state)
{
    static const char *const files[] = {"profile.json", "dag.json", "roofline.json",
                                        "analysis.json"};
    const char *dir = RPL_TEST_TMP "/analyze_run/out";
    rpl_analyze_opts o;
    char path[1200], *text = NULL;
    struct stat st;

    (void)state;
    assert_int_equal(system("rm -rf '" RPL_TEST_TMP "/analyze_run'"), 0);
    opts_init(&o);
    o.out_dir = dir;
    assert_int_equal(run(&o, &text), 0);
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
        assert_int_equal(stat(path, &st), 0);
        assert_true(st.st_size > 0);
    }
    assert_non_null(strstr(text, "(details: rocm-perf report " RPL_TEST_TMP "/analyze_run/out)\n"));
    free(text);
}

/* A profile's sample: the JSON says which dispatches carry counters. */
static void counter_sample(void **state)
{
    rpl_counter_sample sample = {.skip = 2, .per_kernel = 3};
    rpl_analyze_opts o;
    cJSON *doc = NULL;
    const cJSON *s;
    char *text = NULL;

    (void)state;
    opts_init(&o);
    o.json = true;
    o.sample = &sample;
    assert_int_equal(run(&o, &text), 0);
    assert_int_equal(rpl_json_parse(&doc, text, strlen(text), "profile.json"), 0);
    s = cJSON_GetObjectItem(doc, "counter_sample");
    assert_non_null(s);
    assert_int_equal(cJSON_GetObjectItem(s, "skip")->valueint, 2);
    /* Counted from the trace, not taken from the caller. */
    assert_int_equal(cJSON_GetObjectItem(s, "dispatches")->valueint, 10);
    cJSON_Delete(doc);
    free(text);
}

static void nothing_selected(void **state)
{
    static const char *const missing[] = {RPL_TEST_TMP "/analyze_run/missing.db"};
    rpl_analyze_opts o;
    char *text = NULL;

    (void)state;
    opts_init(&o);
    o.kernel_regex = "^no_such_kernel$";
    assert_int_equal(run(&o, &text), RPL_EINPUT);
    assert_string_equal(rpl_error_last()->message,
                        "no non-helper kernel matches --kernel '^no_such_kernel$' (2 kernels in "
                        "the trace)");
    assert_string_equal(text, "");
    free(text);

    opts_init(&o);
    o.traces = missing;
    assert_int_not_equal(run(&o, &text), 0);
    assert_non_null(strstr(rpl_error_last()->message, "missing.db"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(table_and_json),
        cmocka_unit_test(output_folder),
        cmocka_unit_test(counter_sample),
        cmocka_unit_test(nothing_selected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
