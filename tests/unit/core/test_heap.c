/*
 * rpl/heap.h: a made heap has its smallest element on top, and popping
 * (last element to the top, sift down) yields every element in order,
 * ties and all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rpl/heap.h"
#include "rpl/rng.h"

typedef struct item {
    int64_t key;
    uint32_t id;
} item;

static inline bool item_less(const item *a, const item *b)
{
    return a->key < b->key;
}

RPL_HEAP_DEFINE(item_heap, item, item_less)

/* Pop all of h[0 .. n), checking that the keys come out in order. */
static void assert_pops_in_order(item *h, uint32_t n)
{
    int64_t last = INT64_MIN;

    while (n > 0) {
        assert_true(h[0].key >= last);
        last = h[0].key;
        h[0] = h[--n];
        item_heap_sift_down(h, n, 0);
    }
}

static void pops_in_key_order(void **state)
{
    enum { N = 1000 };
    item h[N];
    rpl_rng r;

    (void)state;
    rpl_rng_seed(&r, 7);
    for (uint32_t i = 0; i < N; i++)
        h[i] = (item){(int64_t)(rpl_rng_next(&r) % 100) - 50, i}; /* many ties */
    item_heap_make(h, N);
    for (uint32_t i = 1; i < N; i++)
        assert_false(item_less(&h[i], &h[(i - 1) / 2]));
    assert_pops_in_order(h, N);
}

static void small_heaps(void **state)
{
    item one[1] = {{5, 0}}, two[2] = {{9, 0}, {-3, 1}};

    (void)state;
    item_heap_make(one, 0); /* nothing to do, nothing touched */
    assert_int_equal(one[0].key, 5);
    item_heap_make(one, 1);
    assert_int_equal(one[0].key, 5);
    item_heap_make(two, 2);
    assert_int_equal(two[0].key, -3);
    assert_int_equal(two[0].id, 1);
    assert_pops_in_order(two, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pops_in_key_order),
        cmocka_unit_test(small_heaps),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
