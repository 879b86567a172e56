/* rpl_ranges_merge: alignment, merging of overlapping and touching ranges, bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/snapshot.h"

#define MIB (1ull << 20)

static void merge(const rpl_range *in, size_t n, uint64_t gran, const rpl_range *want, size_t nwant)
{
    rpl_range *out = NULL;
    size_t nout = 99;

    assert_int_equal(rpl_ranges_merge(&out, &nout, in, n, gran), 0);
    assert_int_equal(nout, nwant);
    for (size_t i = 0; i < nwant; i++) {
        assert_int_equal(out[i].base, want[i].base);
        assert_int_equal(out[i].size, want[i].size);
    }
    free(out);
}

static void test_exact(void **state)
{
    /* Unsorted; overlapping, touching, contained, disjoint and empty ranges. */
    const rpl_range in[] = {{0x5000, 0x10}, {0x1080, 0x100}, {0x1000, 0x100}, {0x2010, 0x10},
                            {0x2000, 0x10}, {0x3000, 0},     {0x1010, 0x20},  {0x4000, 0x1}};
    const rpl_range want[] = {{0x1000, 0x180}, {0x2000, 0x20}, {0x4000, 0x1}, {0x5000, 0x10}};

    (void)state;
    merge(in, 8, 1, want, 4);
}

static void test_granules(void **state)
{
    /* Two small allocations in one 2 MiB granule, a third straddling into the next. */
    const rpl_range in[] = {{0x7f0000100000, 1},
                            {0x7f0000180000, 4096},
                            {0x7f00001ff000, 0x2000},
                            {0x7f0000a00000, 2 * MIB}};
    const rpl_range want[] = {{0x7f0000000000, 4 * MIB}, {0x7f0000a00000, 2 * MIB}};
    const rpl_range page_in[] = {{0x10001, 10}, {0x12fff, 2}};
    const rpl_range page_want[] = {{0x10000, 0x1000}, {0x12000, 0x2000}};

    (void)state;
    merge(in, 4, 2 * MIB, want, 2);
    merge(page_in, 2, 4096, page_want, 2);
}

static void test_empty_input(void **state)
{
    rpl_range *out = NULL;
    size_t n = 5;

    (void)state;
    assert_int_equal(rpl_ranges_merge(&out, &n, NULL, 0, 4096), 0);
    assert_int_equal(n, 0);
    free(out);
}

static void test_bad(void **state)
{
    const rpl_range wrap[] = {{UINT64_MAX - 10, 20}};
    const rpl_range top[] = {{UINT64_MAX - 4096, 10}}; /* its aligned end would be 2^64 */
    const rpl_range ok[] = {{0, 1}};
    rpl_range *out = NULL;
    size_t n = 0;

    (void)state;
    assert_int_equal(rpl_ranges_merge(&out, &n, ok, 1, 0), RPL_EUSAGE);
    assert_int_equal(rpl_ranges_merge(&out, &n, ok, 1, 3000), RPL_EUSAGE);
    assert_int_equal(rpl_ranges_merge(&out, &n, wrap, 1, 1), RPL_EINPUT);
    assert_int_equal(rpl_ranges_merge(&out, &n, top, 1, 2 * MIB), RPL_EINPUT);
    assert_null(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_granules),
        cmocka_unit_test(test_empty_input),
        cmocka_unit_test(test_bad),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
