/*
 * SEARCH/REPLACE blocks on a region of a text (no parsing): exact and
 * whitespace-tolerant matches, re-indentation, blocks in order, and each
 * error naming its block.
 */
#include "ks_test.h"

/* A file whose region is the kernel between the markers. */
static const char file[] = "static int helper = 1;\n"
                           "// begin\n"
                           "__global__ void k(float *a)\n"
                           "{\n"
                           "    int i = threadIdx.x;\n"
                           "    if (i < 4) {\n"
                           "        a[i] = 1.0f;\n"
                           "    }\n"
                           "    a[i] += 2.0f;\n"
                           "    a[i] += 2.0f;\n"
                           "}\n"
                           "// end\n"
                           "int main(void) { return helper; }\n";

static void region(size_t *b, size_t *e)
{
    *b = (size_t)(strstr(file, "// begin\n") - file) + 9;
    *e = (size_t)(strstr(file, "// end\n") - file);
}

static rpl_search_replace block(const char *s, const char *r)
{
    rpl_search_replace b = {s, strlen(s), r, strlen(r)};

    return b;
}

static char *apply(const rpl_search_replace *blocks, size_t n, int want_rc, const char *msg)
{
    size_t b, e, len = 0;
    char *out = NULL;
    int rc;

    region(&b, &e);
    rc = rpl_search_replace_apply(&out, &len, file, sizeof(file) - 1, b, e, blocks, n);
    if (want_rc != 0) {
        ks_test_error_has(rc, want_rc, msg);
        assert_null(out);
        return NULL;
    }
    if (rc != 0)
        fail_msg("apply: %s", rpl_error_last()->message);
    assert_int_equal(strlen(out), len);
    return out;
}

static void test_exact(void **state)
{
    rpl_search_replace b[] = {block("a[i] = 1.0f;", "a[i] = 3.0f;")};
    char *out = apply(b, 1, 0, NULL);

    (void)state;
    assert_non_null(strstr(out, "        a[i] = 3.0f;\n"));
    assert_null(strstr(out, "1.0f"));
    assert_int_equal(strncmp(out, "__global__ void k(float *a)\n{\n", 30), 0);
    free(out);
}

static void test_whitespace_tolerant(void **state)
{
    /* The model lost the indentation and added trailing blanks; its REPLACE is
       indented like its SEARCH and takes the kernel's indentation. */
    rpl_search_replace b[] = {
        block("if (i < 4) {  \n    a[i] = 1.0f;\n}\n", "if (i < 8) {\n    a[i] = 5.0f;\n}\n")};
    char *out = apply(b, 1, 0, NULL);

    (void)state;
    assert_non_null(strstr(out, "    int i = threadIdx.x;\n"
                                "    if (i < 8) {\n"
                                "        a[i] = 5.0f;\n"
                                "    }\n"
                                "    a[i] += 2.0f;\n"));
    free(out);
}

static void test_blocks_in_order(void **state)
{
    /* The second block sees what the first made; deletion is an empty REPLACE. */
    rpl_search_replace b[] = {block("a[i] += 2.0f;\n    a[i] += 2.0f;\n", "a[i] += 4.0f;\n"),
                              block("    a[i] += 4.0f;\n", ""),
                              block("int i = threadIdx.x;", "int i = threadIdx.x + 1;")};
    char *out = apply(b, 3, 0, NULL);

    (void)state;
    assert_null(strstr(out, "+= 4.0f"));
    assert_null(strstr(out, "+= 2.0f"));
    assert_non_null(strstr(out, "threadIdx.x + 1;"));
    assert_string_equal(out + strlen(out) - 4, "}\n}\n");
    free(out);
}

static void test_errors(void **state)
{
    rpl_search_replace twice[] = {block("a[i] += 2.0f;", "x")};
    rpl_search_replace outside[] = {block("return helper;", "return 0;")};
    rpl_search_replace outside_lines[] = {block("  int main(void) { return helper; }", "x")};
    rpl_search_replace nowhere[] = {block("a[j] = 7;\nmore", "x")};
    rpl_search_replace empty[] = {block("", "x")};
    rpl_search_replace blank[] = {block("\n  \n", "x")};
    rpl_search_replace second[] = {block("a[i] = 1.0f;", "a[i] = 2.0f;"),
                                   block("a[i] = 1.0f;", "a[i] = 3.0f;")};

    (void)state;
    apply(twice, 1, RPL_EINPUT, "block 1 matches 2 places in the kernel");
    apply(outside, 1, RPL_EINPUT,
          "block 1 matches code outside the kernel ('return helper;'); only the kernel");
    apply(outside_lines, 1, RPL_EINPUT, "block 1 matches code outside the kernel");
    apply(nowhere, 1, RPL_EINPUT,
          "block 1 matches nothing in the kernel (its first line: "
          "'a[j] = 7;')");
    apply(empty, 1, RPL_EINPUT, "block 1 has an empty SEARCH part");
    apply(blank, 1, RPL_EINPUT, "block 1 has an empty SEARCH part");
    /* Block 2 looks for what block 1 already replaced. */
    apply(second, 2, RPL_EINPUT, "block 2 matches nothing in the kernel");
    apply(second, 0, RPL_EINPUT, "no SEARCH/REPLACE blocks");
}

static void test_bad_region(void **state)
{
    rpl_search_replace b[] = {block("x", "y")};
    char *out = NULL;
    size_t len;

    (void)state;
    ks_test_error_has(rpl_search_replace_apply(&out, &len, "abc", 3, 2, 5, b, 1), RPL_EUSAGE,
                      "outside");
    ks_test_error_has(rpl_search_replace_apply(&out, &len, "abc", 3, 2, 1, b, 1), RPL_EUSAGE,
                      "outside");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),           cmocka_unit_test(test_whitespace_tolerant),
        cmocka_unit_test(test_blocks_in_order), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_bad_region),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
