/* rpl_strbuf: growth, printf and vprintf, detach, reset, release. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/strbuf.h"

static void empty_buffer_reads_as_empty_string(void **state)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;

    assert_string_equal(rpl_strbuf_cstr(&sb), "");
    assert_int_equal(sb.len, 0);
    assert_null(sb.ptr);
}

static void grows_and_keeps_every_byte(void **state)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;

    for (int i = 0; i < 100000; i++)
        assert_int_equal(rpl_strbuf_putc(&sb, (char)('a' + i % 26)), 0);
    assert_int_equal(sb.len, 100000);
    assert_true(sb.cap >= sb.len + 1);
    assert_int_equal(sb.ptr[sb.len], '\0');
    for (int i = 0; i < 100000; i++)
        assert_int_equal(sb.ptr[i], 'a' + i % 26);
    rpl_strbuf_release(&sb);
}

static void put_keeps_binary_data(void **state)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;

    assert_int_equal(rpl_strbuf_put(&sb, "a\0b", 3), 0);
    assert_int_equal(rpl_strbuf_puts(&sb, "cd"), 0);
    assert_int_equal(sb.len, 5);
    assert_memory_equal(sb.ptr, "a\0bcd", 6);
    assert_int_equal(rpl_strbuf_put(&sb, NULL, 0), 0);
    assert_int_equal(sb.len, 5);
    rpl_strbuf_release(&sb);
}

static void printf_appends(void **state)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char big[500];

    assert_int_equal(rpl_strbuf_printf(&sb, "%d-%s", 42, "x"), 0);
    assert_int_equal(rpl_strbuf_printf(&sb, "|%.2f", 1.5), 0);
    assert_string_equal(rpl_strbuf_cstr(&sb), "42-x|1.50");
    memset(big, 'z', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    assert_int_equal(rpl_strbuf_printf(&sb, "[%s]", big), 0);
    assert_int_equal(sb.len, 9 + 2 + 499);
    assert_int_equal(sb.ptr[9], '[');
    assert_int_equal(sb.ptr[sb.len - 1], ']');
    assert_int_equal(strlen(sb.ptr), sb.len);
    assert_int_equal(rpl_strbuf_printf(&sb, "%s", ""), 0);
    assert_int_equal(sb.len, 510);
    rpl_strbuf_release(&sb);
}

/* A caller with its own variadic interface, as co_warn is. */
static int append_line(rpl_strbuf *sb, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = rpl_strbuf_vprintf(sb, fmt, ap);
    va_end(ap);
    return rc == 0 ? rpl_strbuf_putc(sb, '\n') : rc;
}

static void vprintf_formats_the_callers_arguments(void **state)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char big[300];

    assert_int_equal(append_line(&sb, "%s=%u", "n", 7u), 0);
    memset(big, 'q', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    /* Past the first allocation: the arguments are read a second time after growing. */
    assert_int_equal(append_line(&sb, "<%s>%d", big, -3), 0);
    assert_int_equal(sb.len, 4 + 1 + 299 + 3 + 1);
    assert_memory_equal(sb.ptr, "n=7\n<qqq", 8);
    assert_string_equal(sb.ptr + sb.len - 4, ">-3\n");
    rpl_strbuf_release(&sb);
}

static void detach_hands_over_and_resets(void **state)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char *s;

    rpl_strbuf_puts(&sb, "owned");
    s = rpl_strbuf_detach(&sb);
    assert_string_equal(s, "owned");
    assert_null(sb.ptr);
    assert_int_equal(sb.len, 0);
    assert_int_equal(sb.cap, 0);
    free(s);

    s = rpl_strbuf_detach(&sb);
    assert_non_null(s);
    assert_string_equal(s, "");
    free(s);
}

static void reset_keeps_allocation(void **state)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    size_t cap;

    rpl_strbuf_puts(&sb, "some text");
    cap = sb.cap;
    rpl_strbuf_reset(&sb);
    assert_int_equal(sb.len, 0);
    assert_int_equal(sb.cap, cap);
    assert_string_equal(rpl_strbuf_cstr(&sb), "");
    rpl_strbuf_puts(&sb, "new");
    assert_string_equal(rpl_strbuf_cstr(&sb), "new");
    rpl_strbuf_release(&sb);
    assert_null(sb.ptr);
    assert_int_equal(sb.len + sb.cap, 0);
    rpl_strbuf_release(&sb);
}

static void impossible_growth_is_oom(void **state)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;

    rpl_strbuf_puts(&sb, "ab");
    rpl_error_clear();
    assert_int_equal(rpl_strbuf_grow(&sb, SIZE_MAX), RPL_ENOMEM);
    assert_int_equal(rpl_error_last()->code, RPL_ENOMEM);
    assert_int_equal(rpl_strbuf_grow(&sb, SIZE_MAX - 2), RPL_ENOMEM);
    assert_string_equal(rpl_strbuf_cstr(&sb), "ab");
    rpl_strbuf_release(&sb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_buffer_reads_as_empty_string),
        cmocka_unit_test(grows_and_keeps_every_byte),
        cmocka_unit_test(put_keeps_binary_data),
        cmocka_unit_test(printf_appends),
        cmocka_unit_test(vprintf_formats_the_callers_arguments),
        cmocka_unit_test(detach_hands_over_and_resets),
        cmocka_unit_test(reset_keeps_allocation),
        cmocka_unit_test(impossible_growth_is_oom),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
