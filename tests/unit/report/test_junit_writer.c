/* rpl/junit_writer.h: the document it writes, escaping, and failures that write nothing. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/junit_writer.h"
#include "rpl/strbuf.h"

#define TMP RPL_TEST_TMP "/junit_writer"

static int setup(void **state)
{
    (void)state;
    rpl_remove_tree(TMP);
    return rpl_mkdir_p(TMP);
}

static char *read_text(const char *path)
{
    char *text;
    size_t len;

    assert_int_equal(rpl_file_read_all(path, 1 << 20, &text, &len), 0);
    return text;
}

/* Each timestamp="YYYY-MM-DDTHH:MM:SS" of `text`, checked, becomes timestamp="T". */
static void mask_timestamps(char *text)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:dd";
    const char *key = "timestamp=\"";
    char *p = text;

    while ((p = strstr(p, key)) != NULL) {
        char *v = p + strlen(key);
        for (size_t i = 0; i < sizeof(shape) - 1; i++)
            if (shape[i] == 'd' ? !isdigit((unsigned char)v[i]) : v[i] != shape[i])
                fail_msg("timestamp not in UTC ISO 8601 form: %.30s", v);
        assert_int_equal(v[sizeof(shape) - 1], '"');
        v[0] = 'T';
        memmove(v + 1, v + sizeof(shape) - 1, strlen(v + sizeof(shape) - 1) + 1);
        p = v;
    }
}

static void test_document(void **state)
{
    const char *path = TMP "/doc.xml";
    const char *suite_files[] = {"out/summary.md"}, *case_files[] = {"a.hip", "b.log"};
    rpl_junit_counts all = {.tests = 2, .failures = 1, .skipped = 1, .has_skipped = true};
    rpl_junit_counts suite = {.tests = 2, .failures = 1};
    char host[256] = "", *text;
    rpl_strbuf want = RPL_STRBUF_INIT;
    rpl_junit *j;

    (void)state;
    if (gethostname(host, sizeof(host) - 1) != 0 || !host[0])
        strcpy(host, "localhost");
    assert_int_equal(rpl_junit_open(&j, path), 0);
    rpl_junit_testsuites(j, "all", &all);
    rpl_junit_testsuite(j, "one", &suite, 1.23456);
    rpl_junit_attr(j, "package", "pkg");
    rpl_junit_attr_count(j, "id", 7);
    rpl_junit_start(j, "properties");
    rpl_junit_property(j, "mode", "runtime");
    rpl_junit_propertyf(j, "gain", "%.3f", 0.25);
    rpl_junit_end(j);
    rpl_junit_start(j, "testcase");
    rpl_junit_attr(j, "name", "k.time");
    rpl_junit_attr_seconds(j, "time", 2);
    rpl_junit_failure(j, "slower", "1.5x slower", "details\n");
    rpl_junit_system_out(j, "log line\n", case_files, 2);
    rpl_junit_end(j);
    rpl_junit_start(j, "testcase");
    rpl_junit_attr(j, "name", "k.skip");
    rpl_junit_skipped(j, "no GPU");
    rpl_junit_end(j);
    rpl_junit_testsuite_end(j, suite_files, 1);
    rpl_junit_end(j);
    assert_int_equal(rpl_junit_close(j), 0);

    rpl_strbuf_printf(
        &want,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<testsuites name=\"all\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"1\">\n"
        " <testsuite name=\"one\" tests=\"2\" failures=\"1\" errors=\"0\" time=\"1.235\" "
        "timestamp=\"T\" hostname=\"%s\" package=\"pkg\" id=\"7\">\n"
        "  <properties>\n"
        "   <property name=\"mode\" value=\"runtime\"/>\n"
        "   <property name=\"gain\" value=\"0.250\"/>\n"
        "  </properties>\n"
        "  <testcase name=\"k.time\" time=\"2.000\">\n"
        "   <failure type=\"slower\" message=\"1.5x slower\">details\n</failure>\n"
        "   <system-out>log line\n[[ATTACHMENT|a.hip]]\n[[ATTACHMENT|b.log]]\n</system-out>\n"
        "  </testcase>\n"
        "  <testcase name=\"k.skip\">\n"
        "   <skipped message=\"no GPU\"/>\n"
        "  </testcase>\n"
        "  <system-out>[[ATTACHMENT|out/summary.md]]\n</system-out>\n"
        "  <system-err/>\n"
        " </testsuite>\n"
        "</testsuites>\n",
        host);
    text = read_text(path);
    mask_timestamps(text);
    assert_string_equal(text, rpl_strbuf_cstr(&want));
    free(text);
    rpl_strbuf_release(&want);
}

/* Markup in values and text is escaped; a NULL value is an empty attribute. */
static void test_escaping(void **state)
{
    const char *path = TMP "/escape.xml";
    const char *files[] = {"x&y.log"};
    rpl_junit *j;
    char *text;

    (void)state;
    assert_int_equal(rpl_junit_open(&j, path), 0);
    rpl_junit_testsuites(j, NULL, NULL);
    rpl_junit_property(j, "a<b", "\"q\" & <t>");
    rpl_junit_property(j, "none", NULL);
    rpl_junit_system_out(j, "1 < 2 && 3 > 2\n", files, 1);
    rpl_junit_end(j);
    assert_int_equal(rpl_junit_close(j), 0);
    text = read_text(path);
    assert_string_equal(text,
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                        "<testsuites>\n"
                        " <property name=\"a&lt;b\" value=\"&quot;q&quot; &amp; &lt;t&gt;\"/>\n"
                        " <property name=\"none\" value=\"\"/>\n"
                        " <system-out>1 &lt; 2 &amp;&amp; 3 &gt; 2\n"
                        "[[ATTACHMENT|x&amp;y.log]]\n</system-out>\n"
                        "</testsuites>\n");
    free(text);
}

/* A writer for `path` with <testsuites> open. */
static rpl_junit *open_suites(const char *path)
{
    rpl_junit *j;

    assert_int_equal(rpl_junit_open(&j, path), 0);
    rpl_junit_testsuites(j, NULL, NULL);
    return j;
}

static void assert_absent(const char *path)
{
    struct stat st;

    if (stat(path, &st) == 0)
        fail_msg("'%s' was written", path);
}

/* A libxml2 failure (an end with no element open) writes nothing: the old file stays. */
static void test_broken_document_keeps_old_file(void **state)
{
    const char *path = TMP "/old.xml";
    rpl_junit *j;
    char *text;

    (void)state;
    assert_int_equal(rpl_file_write_atomic(path, "old\n", 4), 0);
    j = open_suites(path);
    rpl_junit_end(j);
    rpl_junit_end(j);
    assert_int_equal(rpl_junit_close(j), RPL_ERROR);
    assert_non_null(strstr(rpl_error_last()->message, path));
    text = read_text(path);
    assert_string_equal(text, "old\n");
    free(text);
}

/* A folder that does not exist: an error, and no file. */
static void test_unwritable_path(void **state)
{
    const char *path = TMP "/missing/j.xml";
    rpl_junit *j = open_suites(path);

    (void)state;
    rpl_junit_end(j);
    assert_true(rpl_junit_close(j) < 0);
    assert_absent(path);
}

/* Discarding writes nothing. */
static void test_discard(void **state)
{
    (void)state;
    rpl_junit_discard(open_suites(TMP "/discarded.xml"));
    assert_absent(TMP "/discarded.xml");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_document),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_broken_document_keeps_old_file),
        cmocka_unit_test(test_unwritable_path),
        cmocka_unit_test(test_discard),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
