/*
 * rpl/rng.h: the sequences that seeds promise.  The xorshift must give the
 * numbers the optimizer's --seed gave before it moved to core (the
 * generator written out below), and MT19937 the reference output of its
 * author's 2002 initialisation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rpl/rng.h"

/* The optimizer's program seeds before rpl_rng (src/optimize/pipeline/run.c). */
static unsigned long old_step(unsigned long *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void xorshift_keeps_the_old_sequence(void **state)
{
    rpl_rng r;
    unsigned long old = 42;

    (void)state;
    rpl_rng_seed(&r, 42);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(rpl_rng_next(&r), old_step(&old));
    rpl_rng_seed(&r, 1);
    assert_int_equal(rpl_rng_next(&r), UINT64_C(1082269761));
}

static void seed_zero_still_moves(void **state)
{
    rpl_rng r;
    uint64_t a, b;

    (void)state;
    rpl_rng_seed(&r, 0);
    a = rpl_rng_next(&r);
    b = rpl_rng_next(&r);
    assert_true(a != 0 && b != 0 && a != b);
}

static void unit_numbers_stay_in_range(void **state)
{
    rpl_rng r;
    double sum = 0;

    (void)state;
    rpl_rng_seed(&r, rpl_rng_entropy(state));
    for (int i = 0; i < 100000; i++) {
        double u = rpl_rng_unit(&r);

        assert_true(u >= 0.0 && u < 1.0);
        sum += u;
    }
    /* The mean of 1e5 uniforms is 0.5 within ten standard errors (0.009). */
    assert_true(sum / 100000 > 0.491 && sum / 100000 < 0.509);
}

static void mt19937_gives_the_reference_numbers(void **state)
{
    gsl_rng *a = rpl_rng_mt19937(5489), *b = rpl_rng_mt19937(5489);

    (void)state;
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(gsl_rng_get(a), 3499211612ul);
    assert_int_equal(gsl_rng_get(a), 581869302ul);
    gsl_rng_get(b);
    gsl_rng_get(b);
    for (int i = 0; i < 100; i++)
        assert_int_equal(gsl_rng_get(a), gsl_rng_get(b));
    gsl_rng_free(a);
    gsl_rng_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(xorshift_keeps_the_old_sequence),
        cmocka_unit_test(seed_zero_still_moves),
        cmocka_unit_test(unit_numbers_stay_in_range),
        cmocka_unit_test(mt19937_gives_the_reference_numbers),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
