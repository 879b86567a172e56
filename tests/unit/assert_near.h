/*
 * assert_near(a, b) for the unit tests: |a - b| <= 1e-9 relative (cmocka's
 * assert_float_equal rounds to float).  Include after <cmocka.h>.
 */
#ifndef RPL_TEST_ASSERT_NEAR_H
#define RPL_TEST_ASSERT_NEAR_H

#include <math.h>

#define assert_near(a, b) assert_near_((double)(a), (double)(b), #a, __FILE__, __LINE__)

static inline void assert_near_(double a, double b, const char *what, const char *file, int line)
{
    if (fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b)))
        return;
    print_error("%s = %.17g, expected %.17g\n", what, a, b);
    _fail(file, line);
}

#endif
