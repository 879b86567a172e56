/*
 * rpl/names.h: a value inside the table gets its name, a gap, a negative
 * value or one past the end gets the fallback; a name maps back to its
 * index and an unknown one (or a gap) to -1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rpl/names.h"

enum colour { RED, GREEN, BLUE = 4 };

static const char *const colour_names[] = {[RED] = "red", [GREEN] = "green", [BLUE] = "blue"};

static void a_value_gets_its_name_or_the_fallback(void **state)
{
    (void)state;
    assert_string_equal(RPL_NAME_OF(colour_names, RED, "?"), "red");
    assert_string_equal(RPL_NAME_OF(colour_names, BLUE, "?"), "blue");
    assert_string_equal(RPL_NAME_OF(colour_names, 2, "?"), "?"); /* a gap */
    assert_string_equal(RPL_NAME_OF(colour_names, 5, "?"), "?");
    assert_string_equal(RPL_NAME_OF(colour_names, -1, "none"), "none");
}

static void a_name_maps_back_to_its_index(void **state)
{
    (void)state;
    assert_int_equal(RPL_NAME_INDEX(colour_names, "green"), GREEN);
    assert_int_equal(RPL_NAME_INDEX(colour_names, "blue"), BLUE);
    assert_int_equal(RPL_NAME_INDEX(colour_names, "mauve"), -1);
    assert_int_equal(RPL_NAME_INDEX(colour_names, ""), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_value_gets_its_name_or_the_fallback),
        cmocka_unit_test(a_name_maps_back_to_its_index),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
