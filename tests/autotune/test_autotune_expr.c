/*
 * Constraint expressions: precedence, short-circuit logic, arithmetic, and
 * the messages of bad expressions (position, what was expected, unknown
 * names, division by zero).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/autotune.h"
#include "rpl/error.h"

static const char *const names[] = {"BM", "BN", "TM", "K_2"};
static const double vals[] = {64, 32, 4, 0};

static double eval(const char *text)
{
    rpl_expr *e = NULL;
    double v = NAN;

    assert_int_equal(rpl_expr_parse(&e, text, names, 4), 0);
    assert_int_equal(rpl_expr_eval(e, vals, &v), 0);
    assert_string_equal(rpl_expr_text(e), text);
    rpl_expr_free(e);
    return v;
}

static void values(void **state)
{
    (void)state;
    assert_true(eval("BM*BN <= 2048") == 1);
    assert_true(eval("BM*BN <= 1024") == 0);
    assert_true(eval("1 + 2 * 3") == 7);
    assert_true(eval("(1 + 2) * 3") == 9);
    assert_true(eval("10 - 4 - 3") == 3);    /* left associative */
    assert_true(eval("64 / 4 / 2") == 8);    /* left associative */
    assert_true(eval("7 / 2") == 3.5);       /* exact division */
    assert_true(eval("BM % 12") == 4);       /* fmod */
    assert_true(eval("-BN + -(-2)") == -30); /* unary minus */
    assert_true(eval("2.5e1 + .5") == 25.5); /* decimal forms */
    assert_true(eval("BM % TM == 0 && BN >= 32") == 1);
    assert_true(eval("BM < 16 || TM != 4") == 0);
    assert_true(eval("1 || 0 && 0") == 1); /* && binds tighter than || */
    assert_true(eval("!(BM > BN)") == 0);
    assert_true(eval("!!TM") == 1);
    assert_true(eval("BM >= 64 && BM > 63 && BM == 64 && BM != 65") == 1);
    assert_true(eval("K_2 == 0") == 1);
}

static void short_circuit(void **state)
{
    (void)state;
    /* The right side would divide by zero: never evaluated. */
    assert_true(eval("K_2 != 0 && BM / K_2 > 1") == 0);
    assert_true(eval("K_2 == 0 || BM % K_2 == 0") == 1);
}

/* The parse fails with RPL_EINPUT and a message holding each of `parts`. */
static void rejects(const char *text, const char *part1, const char *part2)
{
    rpl_expr *e = NULL;
    const char *msg;

    assert_int_equal(rpl_expr_parse(&e, text, names, 4), RPL_EINPUT);
    assert_null(e);
    msg = rpl_error_last()->message;
    if (!strstr(msg, part1) || (part2 && !strstr(msg, part2)))
        fail_msg("message for '%s' is '%s'", text, msg);
}

static void errors(void **state)
{
    rpl_expr *e = NULL;
    double v;
    char big[5000];

    (void)state;
    rejects("BM * ", "at position 6", "expected a number, a parameter or '('");
    rejects("BM <= 4 )", "at position 9", "expected an operator or the end, found ')'");
    rejects("(BM + 1", "at position 8", "expected ')', found the end");
    rejects("BM & BN", "at position 4", "found '&'");
    rejects("BX * 2", "at position 1", "unknown parameter 'BX'");
    rejects("2 ** 3", "at position 4", "found '*");
    rejects("", "at position 1", "found the end");
    rejects("0x10 > 1", "expected a number", NULL);
    rejects("inf > 1", "unknown parameter 'inf'", NULL);
    memset(big, '(', 100);
    strcpy(big + 100, "1");
    rejects(big, "fewer nested parentheses", NULL);
    memset(big, '1', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    rejects(big, "longer than 4096", NULL);
    /* Division by zero is found at evaluation, with its position. */
    assert_int_equal(rpl_expr_parse(&e, "BM / (TM - 4) > 1", names, 4), 0);
    assert_int_equal(rpl_expr_eval(e, vals, &v), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "at position 4: division by zero"));
    rpl_expr_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(values),
        cmocka_unit_test(short_circuit),
        cmocka_unit_test(errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
