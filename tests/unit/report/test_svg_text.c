/*
 * Chart text fitted to its room (src/report/svg_text.c): width estimates,
 * middle elision, and operation names shortened step by step.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rpl/kernel_filter.h"
#include "svg_text.h"

#define ELLIPSIS "\xe2\x80\xa6"
#define FONT     10.0

static const char flash[] = "void flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, "
                            "false, false, cutlass::half_t>, true, false, false>(Flash_fwd_params)";
static const char softmax[] = "void llm::kernel::softmax<1024>(float const*, float*, int, int)";

static void test_width(void **state)
{
    (void)state;
    /* Never under the checker's 0.6 em a character; capitals and wide letters count more. */
    assert_true(rpl_svg_text_width("a b.c", FONT) >= 0.6 * FONT * 5);
    assert_true(rpl_svg_text_width("MEMORY", FONT) > rpl_svg_text_width("memory", FONT));
    assert_true(rpl_svg_text_width(ELLIPSIS, FONT) >= 0.6 * FONT);
    assert_true(rpl_svg_text_width("", FONT) == 0);
}

static void test_fit_text(void **state)
{
    const char *lane = "Stream 12 of the decoder pipeline, stage three (attention and norms)";
    char *out;

    (void)state;
    assert_int_equal(rpl_svg_fit_text(&out, "Stream 7", 100, 12), 0);
    assert_string_equal(out, "Stream 7");
    free(out);
    assert_int_equal(rpl_svg_fit_text(&out, lane, 150, 12), 0);
    assert_non_null(out);
    assert_true(rpl_svg_text_width(out, 12) <= 150);
    assert_non_null(strstr(out, ELLIPSIS));
    assert_int_equal(strncmp(out, "Stream 1", 8), 0);     /* the front stays */
    assert_string_equal(out + strlen(out) - 6, "norms)"); /* and the end */
    free(out);
    /* Fewer than 5 columns fit: nothing. */
    assert_int_equal(rpl_svg_fit_text(&out, lane, 4 * 0.6 * 12, 12), 0);
    assert_null(out);
}

/* Multibyte characters are never cut: the result is whole UTF-8. */
static void test_fit_text_utf8(void **state)
{
    char *out;

    (void)state;
    assert_int_equal(rpl_svg_fit_text(&out,
                                      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                                      "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9",
                                      60, FONT),
                     0);
    assert_non_null(out);
    assert_true(rpl_svg_text_width(out, FONT) <= 60);
    for (const unsigned char *p = (const unsigned char *)out; *p; p++)
        if (*p == 0xc3)
            assert_int_equal(p[1], 0xa9);
    assert_int_equal(rpl_utf8_columns(out), 6); /* 6 em of 10 px: 5 letters and "…" */
    free(out);
}

static void test_fit_kernel_names(void **state)
{
    char *out;

    (void)state;
    /* Room for all of it: all of it. */
    assert_int_equal(rpl_svg_fit_name(&out, flash, "", true, 2000, FONT), 0);
    assert_string_equal(out, flash);
    free(out);
    /* Less room: the qualified name and the template arguments that fit. */
    assert_int_equal(rpl_svg_fit_name(&out, flash, "", true, 260, FONT), 0);
    assert_non_null(out);
    assert_int_equal(strncmp(out, "flash::flash_fwd_kernel<Flash", 29), 0);
    assert_true(rpl_svg_text_width(out, FONT) <= 260);
    free(out);
    /* Too little for "llm::kernel::softmax": the function name, not "llm::…tmax<…>(…)". */
    assert_int_equal(rpl_svg_fit_name(&out, softmax, "", true, 115, FONT), 0);
    assert_string_equal(out, "softmax");
    free(out);
    /* The function name elided in the middle, then nothing. */
    assert_int_equal(rpl_svg_fit_name(&out, softmax, "", true, 40, FONT), 0);
    assert_non_null(out);
    assert_int_equal(strncmp(out, "so", 2), 0);
    assert_non_null(strstr(out, ELLIPSIS));
    free(out);
    assert_int_equal(rpl_svg_fit_name(&out, softmax, "", true, 20, FONT), 0);
    assert_null(out);
}

static void test_fit_copy_names(void **state)
{
    char *out;

    (void)state;
    assert_int_equal(rpl_svg_fit_name(&out, "MEMORY_COPY_HOST_TO_DEVICE", "", false, 80, FONT), 0);
    assert_string_equal(out, "H2D copy");
    free(out);
    assert_int_equal(rpl_svg_fit_name(&out, "MEMORY_COPY_DEVICE_TO_HOST", "", false, 500, FONT), 0);
    assert_string_equal(out, "MEMORY_COPY_DEVICE_TO_HOST");
    free(out);
    assert_int_equal(rpl_svg_fit_name(&out, "MEMORY_SET", "", false, 60, FONT), 0);
    assert_string_equal(out, "memset");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_width),          cmocka_unit_test(test_fit_text),
        cmocka_unit_test(test_fit_text_utf8),  cmocka_unit_test(test_fit_kernel_names),
        cmocka_unit_test(test_fit_copy_names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
