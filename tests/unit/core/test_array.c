/*
 * rpl/array.h: growth keeps the elements, push zeroes the new one, insert
 * moves the later ones up, overflow is refused; the binary search finds
 * the first element not below a key.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/array.h"
#include "rpl/error.h"

typedef struct pair {
    int64_t a;
    double b;
} pair;

static void grow_keeps_every_element(void **state)
{
    uint32_t *v = NULL;
    size_t n = 0, cap = 0;

    (void)state;
    for (uint32_t i = 0; i < 100000; i++) {
        assert_int_equal(RPL_ARRAY_GROW(v, cap, n + 1), 0);
        assert_true(cap >= n + 1);
        v[n++] = i * 7u;
    }
    for (uint32_t i = 0; i < 100000; i++)
        assert_int_equal(v[i], i * 7u);
    /* Doubling: far fewer than one allocation a push leaves little slack. */
    assert_true(cap < 2 * n);
    free(v);
}

static void grow_to_what_is_there_changes_nothing(void **state)
{
    double *v = NULL;
    size_t cap = 0;
    double *before;

    (void)state;
    assert_int_equal(RPL_ARRAY_GROW(v, cap, 0), 0);
    assert_null(v);
    assert_int_equal(RPL_ARRAY_GROW(v, cap, 40), 0);
    assert_true(cap >= 40);
    before = v;
    assert_int_equal(RPL_ARRAY_GROW(v, cap, 40), 0);
    assert_ptr_equal(v, before);
    free(v);
}

static void push_hands_out_zeroed_elements(void **state)
{
    pair *v = NULL, *p;
    size_t n = 0, cap = 0;

    (void)state;
    for (int i = 0; i < 1000; i++) {
        assert_non_null(p = RPL_ARRAY_PUSH(v, n, cap));
        assert_ptr_equal(p, &v[i]);
        assert_int_equal(p->a, 0);
        assert_true(p->b == 0.0);
        p->a = i;
        p->b = i / 2.0;
    }
    assert_int_equal(n, 1000);
    for (int i = 0; i < 1000; i++)
        assert_true(v[i].a == i && v[i].b == i / 2.0);
    free(v);
}

static void insert_moves_later_elements_up(void **state)
{
    uint32_t *v = NULL, *p;
    size_t n = 0, cap = 0;
    /* Each value goes where it keeps v ascending: the end, the front, between. */
    const uint32_t values[] = {10, 30, 5, 20, 40, 1, 25};
    const uint32_t sorted[] = {1, 5, 10, 20, 25, 30, 40};

    (void)state;
    for (size_t k = 0; k < sizeof(values) / sizeof(values[0]); k++) {
        size_t at = 0;

        while (at < n && v[at] < values[k])
            at++;
        assert_non_null(p = RPL_ARRAY_INSERT(v, n, cap, at));
        assert_ptr_equal(p, &v[at]);
        assert_int_equal(*p, 0);
        *p = values[k];
        assert_int_equal(n, k + 1);
    }
    assert_memory_equal(v, sorted, sizeof(sorted));
    free(v);
}

static bool int_below(const void *element, const void *key)
{
    return *(const int *)element < *(const int *)key;
}

static void lower_bound_finds_the_first_element_not_below(void **state)
{
    const int v[] = {2, 4, 4, 4, 9};
    const struct {
        int key;
        size_t want;
    } cases[] = {{1, 0}, {2, 0}, {3, 1}, {4, 1}, {5, 4}, {9, 4}, {10, 5}};

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_int_equal(rpl_lower_bound(v, 5, sizeof(v[0]), &cases[i].key, int_below),
                         cases[i].want);
    assert_int_equal(rpl_lower_bound(NULL, 0, sizeof(int), &cases[0].key, int_below), 0);
}

static void an_overflowing_size_is_refused(void **state)
{
    pair *v = NULL;
    size_t n = 0, cap = 0;

    (void)state;
    assert_non_null(RPL_ARRAY_PUSH(v, n, cap));
    assert_int_equal(RPL_ARRAY_GROW(v, cap, SIZE_MAX / sizeof(*v) + 1), RPL_ENOMEM);
    assert_int_equal(n, 1);
    assert_non_null(v);
    n = SIZE_MAX;
    assert_null(RPL_ARRAY_PUSH(v, n, cap));
    assert_int_equal(rpl_error_last()->code, RPL_ENOMEM);
    assert_null(RPL_ARRAY_INSERT(v, n, cap, 0));
    assert_int_equal(n, SIZE_MAX);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(grow_keeps_every_element),
        cmocka_unit_test(grow_to_what_is_there_changes_nothing),
        cmocka_unit_test(push_hands_out_zeroed_elements),
        cmocka_unit_test(insert_moves_later_elements_up),
        cmocka_unit_test(lower_bound_finds_the_first_element_not_below),
        cmocka_unit_test(an_overflowing_size_is_refused),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
