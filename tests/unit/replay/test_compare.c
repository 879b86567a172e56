/*
 * rpl_compare_*: every element type, the NaN and infinity rules, tolerances,
 * the first differing address and its values, tails shorter than an
 * element, and state carried across chunks.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/snapshot.h"

#define ADDR 0x7f0000001000ull

static rpl_compare_state cmp(rpl_dtype t, const void *got, const void *want, size_t len)
{
    rpl_compare_state st;

    rpl_compare_init(&st, t, rpl_compare_tolerance_default(t));
    rpl_compare_chunk(&st, ADDR, got, want, len);
    return st;
}

static void test_defaults(void **state)
{
    (void)state;
    for (int t = RPL_DTYPE_BYTES; t <= RPL_DTYPE_U64; t++) {
        rpl_tolerance tol = rpl_compare_tolerance_default((rpl_dtype)t);

        assert_true(tol.rtol == 0 && tol.atol == 0);
    }
    assert_true(rpl_compare_tolerance_default(RPL_DTYPE_F16).rtol == 1e-3);
    assert_true(rpl_compare_tolerance_default(RPL_DTYPE_BF16).rtol == 1.6e-2);
    assert_true(rpl_compare_tolerance_default(RPL_DTYPE_F32).rtol == 1e-5);
    assert_true(rpl_compare_tolerance_default(RPL_DTYPE_F32).atol == 1e-6);
    assert_true(rpl_compare_tolerance_default(RPL_DTYPE_F64).rtol == 1e-10);
}

static void test_dtype_names(void **state)
{
    (void)state;
    for (int t = RPL_DTYPE_BYTES; t <= RPL_DTYPE_F64; t++)
        assert_int_equal(rpl_dtype_parse(rpl_dtype_name((rpl_dtype)t)), t);
    assert_int_equal(rpl_dtype_parse("float"), -1);
    assert_int_equal(rpl_dtype_size(RPL_DTYPE_BYTES), 1);
    assert_int_equal(rpl_dtype_size(RPL_DTYPE_BF16), 2);
    assert_int_equal(rpl_dtype_size(RPL_DTYPE_F32), 4);
    assert_int_equal(rpl_dtype_size(RPL_DTYPE_U64), 8);
}

/* Integers: bitwise, and the first difference reported with its signed value. */
static void test_integers(void **state)
{
    const int8_t i8g[] = {1, 2, -1, 4}, i8w[] = {1, 2, 3, 5};
    const uint16_t u16g[] = {7, 65535}, u16w[] = {7, 65534};
    const int32_t i32g[] = {0, -5, 9}, i32w[] = {0, -4, 9};
    const uint32_t u32g[] = {1, 2}, u32w[] = {1, 2};
    const int64_t i64g[] = {INT64_MIN, 3}, i64w[] = {INT64_MIN + 1, 3};
    const uint64_t u64g[] = {9, 1ull << 60}, u64w[] = {9, (1ull << 60) + 1};
    rpl_compare_state st;

    (void)state;
    st = cmp(RPL_DTYPE_I8, i8g, i8w, sizeof(i8g));
    assert_int_equal(st.elements, 4);
    assert_int_equal(st.mismatches, 2);
    assert_int_equal(st.first_addr, ADDR + 2);
    assert_true(st.first_got == -1 && st.first_want == 3);
    assert_int_equal(st.first_got_bits, 0xff);
    assert_int_equal(st.first_want_bits, 3);

    st = cmp(RPL_DTYPE_U16, u16g, u16w, sizeof(u16g));
    assert_int_equal(st.mismatches, 1);
    assert_int_equal(st.first_addr, ADDR + 2);
    assert_true(st.first_got == 65535 && st.first_want == 65534);

    st = cmp(RPL_DTYPE_I32, i32g, i32w, sizeof(i32g));
    assert_int_equal(st.mismatches, 1);
    assert_int_equal(st.first_addr, ADDR + 4);
    assert_true(st.first_got == -5 && st.first_want == -4);

    st = cmp(RPL_DTYPE_U32, u32g, u32w, sizeof(u32g));
    assert_int_equal(st.elements, 2);
    assert_int_equal(st.mismatches, 0);
    assert_false(st.have_first);

    st = cmp(RPL_DTYPE_I64, i64g, i64w, sizeof(i64g));
    assert_int_equal(st.first_addr, ADDR);
    assert_int_equal(st.first_got_bits, (uint64_t)INT64_MIN);
    assert_true(st.first_got < 0);

    /* Values beyond 2^53 differ in the bits even where the doubles coincide. */
    st = cmp(RPL_DTYPE_U64, u64g, u64w, sizeof(u64g));
    assert_int_equal(st.mismatches, 1);
    assert_int_equal(st.first_addr, ADDR + 8);
    assert_int_equal(st.first_got_bits, 1ull << 60);
    assert_int_equal(st.first_want_bits, (1ull << 60) + 1);

    /* i16 and u8 take the same path: one check each. */
    {
        const int16_t g[] = {-2}, w[] = {2};
        const uint8_t bg[] = {0, 200}, bw[] = {0, 201};

        st = cmp(RPL_DTYPE_I16, g, w, 2);
        assert_true(st.first_got == -2 && st.first_want == 2);
        st = cmp(RPL_DTYPE_U8, bg, bw, 2);
        assert_true(st.first_got == 200 && st.first_addr == ADDR + 1);
    }
}

static void test_bytes(void **state)
{
    unsigned char g[100], w[100];
    rpl_compare_state st;

    (void)state;
    memset(g, 0xab, sizeof(g));
    memcpy(w, g, sizeof(w));
    st = cmp(RPL_DTYPE_BYTES, g, w, sizeof(g));
    assert_int_equal(st.elements, 100);
    assert_int_equal(st.mismatches, 0);
    g[61] = 0;
    g[70] = 1;
    st = cmp(RPL_DTYPE_BYTES, g, w, sizeof(g));
    assert_int_equal(st.mismatches, 2);
    assert_int_equal(st.first_addr, ADDR + 61);
    assert_int_equal(st.first_got_bits, 0);
    assert_int_equal(st.first_want_bits, 0xab);
}

static void test_f32(void **state)
{
    const float want[] = {1.0f, 100.0f, 0.0f, 1.0f, NAN, 1.0f, INFINITY, INFINITY, 0.0f, 1e30f};
    const float got[] = {1.000009f, 100.001f, 5e-7f,     1.00002f, NAN,
                         NAN,       INFINITY, -INFINITY, -0.0f,    INFINITY};
    rpl_compare_state st;

    (void)state;
    st = cmp(RPL_DTYPE_F32, got, want, sizeof(got));
    assert_int_equal(st.elements, 10);
    /* 1.00002 (beyond 1e-6 + 1e-5), NaN where 1 was, -inf for inf, inf for 1e30. */
    assert_int_equal(st.mismatches, 4);
    assert_int_equal(st.first_addr, ADDR + 3 * 4);
    assert_true(fabs(st.first_got - 1.00002) < 1e-7);
    assert_true(st.first_want == 1.0);
    assert_true(st.max_abs_err >= 0.001 - 1e-6 && st.max_abs_err < 0.0011);
    assert_true(st.max_rel_err > 1.9e-5 && st.max_rel_err < 2.1e-5);

    /* A number where NaN was captured fails too. */
    {
        const float w1[] = {NAN}, g1[] = {0.0f};

        st = cmp(RPL_DTYPE_F32, g1, w1, 4);
        assert_int_equal(st.mismatches, 1);
        assert_true(isnan(st.first_want));
    }
    /* Zero tolerance: any difference fails, identical bits pass (NaN payloads included). */
    {
        const float w1[] = {1.0f, NAN}, g1[] = {1.0000001f, NAN};

        rpl_compare_init(&st, RPL_DTYPE_F32, (rpl_tolerance){0, 0});
        rpl_compare_chunk(&st, ADDR, g1, w1, sizeof(g1));
        assert_int_equal(st.mismatches, 1);
        assert_int_equal(st.first_addr, ADDR);
    }
}

static void test_f64(void **state)
{
    const double want[] = {1.0, 1e300, 0.0};
    const double got[] = {1.0 + 5e-11, 1e300 * (1 + 1e-9), 5e-13};
    rpl_compare_state st;

    (void)state;
    st = cmp(RPL_DTYPE_F64, got, want, sizeof(got));
    /* 5e-11 is within 1e-12 + 1e-10 * 1, 5e-13 within atol 1e-12; the relative 1e-9 is not. */
    assert_int_equal(st.mismatches, 1);
    assert_int_equal(st.first_addr, ADDR + 8);
}

static void test_f16(void **state)
{
    /* 1.0, 1.0 + 1 ulp, 1.0 + 2 ulp, smallest subnormal, NaN, NaN, +inf, 65504 */
    const uint16_t want[] = {0x3c00, 0x3c00, 0x3c00, 0x0000, 0x7e00, 0x7c00, 0x7bff};
    const uint16_t got[] = {0x3c00, 0x3c01, 0x3c02, 0x0001, 0x7c01, 0x7c00, 0x7c00};
    rpl_compare_state st;

    (void)state;
    st = cmp(RPL_DTYPE_F16, got, want, sizeof(got));
    assert_int_equal(st.elements, 7);
    /* 1+2ulp (1.95e-3 > 1e-5 + 1e-3), 2^-24 vs 0 passes (5.96e-8 < 1e-5), inf vs 65504 fails. */
    assert_int_equal(st.mismatches, 2);
    assert_int_equal(st.first_addr, ADDR + 4);
    assert_true(st.first_got == 1.001953125 && st.first_want == 1.0);
    assert_int_equal(st.first_got_bits, 0x3c02);

    /* Decoding: subnormal, negative, largest normal. */
    {
        const uint16_t w1[] = {0x8001, 0xfbff}, g1[] = {0x0000, 0x0000};

        rpl_compare_init(&st, RPL_DTYPE_F16, (rpl_tolerance){0, 0});
        rpl_compare_chunk(&st, ADDR, g1, w1, sizeof(g1));
        assert_int_equal(st.mismatches, 2);
        assert_true(st.first_want == -ldexp(1, -24));
        assert_true(st.max_abs_err == 65504.0);
    }
}

static void test_bf16(void **state)
{
    /* 1.0 vs 1 + 2^-7 (within 1.6e-2), 1.0 vs 1 + 3 * 2^-7 (not), NaN vs NaN */
    const uint16_t want[] = {0x3f80, 0x3f80, 0x7fc0};
    const uint16_t got[] = {0x3f81, 0x3f83, 0xffc1};
    rpl_compare_state st;

    (void)state;
    st = cmp(RPL_DTYPE_BF16, got, want, sizeof(got));
    assert_int_equal(st.mismatches, 1);
    assert_int_equal(st.first_addr, ADDR + 2);
    assert_true(st.first_got == 1.0234375);
}

/* A region whose size is no multiple of the element: the tail is compared bytewise. */
static void test_tail(void **state)
{
    unsigned char g[10], w[10];
    const float one = 1.0f;
    rpl_compare_state st;

    (void)state;
    memcpy(w, &one, 4);
    memcpy(w + 4, &one, 4);
    w[8] = 1;
    w[9] = 2;
    memcpy(g, w, sizeof(g));
    g[9] = 3;
    st = cmp(RPL_DTYPE_F32, g, w, sizeof(g));
    assert_int_equal(st.elements, 4); /* two floats, two tail bytes */
    assert_int_equal(st.mismatches, 1);
    assert_int_equal(st.first_addr, ADDR + 9);
    assert_true(st.first_got == 3 && st.first_want == 2);
}

/* The state runs across chunks: the first difference stays the first. */
static void test_chunks(void **state)
{
    int32_t g[8] = {0}, w[8] = {0};
    rpl_compare_state st;

    (void)state;
    g[5] = 1;
    g[7] = 1;
    rpl_compare_init(&st, RPL_DTYPE_I32, (rpl_tolerance){0, 0});
    rpl_compare_chunk(&st, ADDR, g, w, 16);
    assert_false(st.have_first);
    rpl_compare_chunk(&st, ADDR + 16, g + 4, w + 4, 16);
    assert_int_equal(st.elements, 8);
    assert_int_equal(st.mismatches, 2);
    assert_int_equal(st.first_addr, ADDR + 20);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults), cmocka_unit_test(test_dtype_names),
        cmocka_unit_test(test_integers), cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_f32),      cmocka_unit_test(test_f64),
        cmocka_unit_test(test_f16),      cmocka_unit_test(test_bf16),
        cmocka_unit_test(test_tail),     cmocka_unit_test(test_chunks),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
