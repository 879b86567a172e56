/* rpl_parse_u64: digits only, within 64 bits; a refusal leaves the output alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rpl/number.h"

static void whole_numbers_are_read(void **state)
{
    uint64_t v = 7;

    (void)state;
    assert_true(rpl_parse_u64("0", &v));
    assert_int_equal(v, 0);
    assert_true(rpl_parse_u64("0042", &v));
    assert_int_equal(v, 42);
    assert_true(rpl_parse_u64("18446744073709551615", &v));
    assert_true(v == UINT64_MAX);
}

static void anything_else_is_refused(void **state)
{
    const char *bad[] = {"", "-1", "+1", " 1", "1 ", "1x", "0x10", "1.5", "18446744073709551616"};
    uint64_t v = 7;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_false(rpl_parse_u64(bad[i], &v));
        assert_int_equal(v, 7);
    }
    assert_false(rpl_parse_u64(NULL, &v));
    assert_int_equal(v, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_numbers_are_read),
        cmocka_unit_test(anything_else_is_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
