/*
 * rpl/free.h: each listed pointer is freed once, in the order given (NULL
 * members included, as free() takes them); a string vector loses its
 * strings, then itself.  The test is linked with -Wl,--wrap=free, so every
 * free() of the library comes through wrap_free below and is recorded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/free.h"

void __real_free(void *p);
void __wrap_free(void *p);

static void *freed[16];
static size_t nfreed;

void __wrap_free(void *p)
{
    if (nfreed < sizeof(freed) / sizeof(freed[0]))
        freed[nfreed++] = p;
    __real_free(p);
}

typedef struct thing {
    char *name;
    double *values;
    char *absent;
} thing;

static void each_listed_pointer_is_freed_in_order(void **state)
{
    thing *t = calloc(1, sizeof(*t));
    void *name, *values;

    (void)state;
    assert_non_null(t);
    t->name = strdup("kernel");
    t->values = calloc(4, sizeof(*t->values));
    assert_non_null(t->name);
    assert_non_null(t->values);
    name = t->name;
    values = t->values;
    nfreed = 0;
    RPL_FREE_EACH(t->name, t->absent, t->values, t);
    assert_int_equal(nfreed, 4);
    assert_ptr_equal(freed[0], name);
    assert_null(freed[1]);
    assert_ptr_equal(freed[2], values);
    assert_ptr_equal(freed[3], t);
}

static void a_string_vector_goes_strings_first(void **state)
{
    char **v = calloc(3, sizeof(*v));
    void *kept[3];

    (void)state;
    assert_non_null(v);
    for (size_t i = 0; i < 3; i++) {
        v[i] = strdup("x");
        assert_non_null(v[i]);
        kept[i] = v[i];
    }
    nfreed = 0;
    rpl_free_strings(v, 3);
    assert_int_equal(nfreed, 4);
    for (size_t i = 0; i < 3; i++)
        assert_ptr_equal(freed[i], kept[i]);
    assert_ptr_equal(freed[3], v);
    nfreed = 0;
    rpl_free_strings(NULL, 0);
    assert_int_equal(nfreed, 1);
    assert_null(freed[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_listed_pointer_is_freed_in_order),
        cmocka_unit_test(a_string_vector_goes_strings_first),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
