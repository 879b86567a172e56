/*
 * Loops and the unroll guardrails on loops.hip: kinds, nesting, trip
 * counts, pragmas, every forbidden construct (directly, through calls, in
 * nested loops and switches), and the factor rule on wave32 and wave64.
 */
#include "ks_test.h"

#define FIXTURE KS_DIR "/loops.hip"

static int setup(void **state)
{
    rpl_kernel_source *src = ks_test_parse(FIXTURE, NULL);

    /* `#pragma unroll(2)` draws clang's one warning; nothing else. */
    assert_int_equal(src->n_errors, 0);
    assert_int_equal(src->n_warnings, 1);
    *state = src;
    return 0;
}

static int teardown(void **state)
{
    rpl_kernel_source_free(*state);
    return 0;
}

static const rpl_ks_loop *loop_of(const rpl_kernel_source *src, const char *kernel, unsigned i)
{
    const rpl_ks_kernel *k = ks_test_kernel(src, kernel);

    if (i >= k->n_loops)
        fail_msg("%s has %zu loops, no loop %u", kernel, k->n_loops, i);
    assert_int_equal(k->loops[i].index, i);
    return &k->loops[i];
}

static void test_kinds_and_trip_counts(void **state)
{
    const rpl_kernel_source *src = *state;
    static const struct {
        rpl_ks_loop_kind kind;
        long long trip; /* -1: unknown */
        unsigned line;
    } want[] = {
        {RPL_KS_LOOP_FOR, 16, 30},   {RPL_KS_LOOP_FOR, 6, 32}, {RPL_KS_LOOP_FOR, 64, 34},
        {RPL_KS_LOOP_FOR, 6, 36},    {RPL_KS_LOOP_FOR, 8, 38}, {RPL_KS_LOOP_FOR, -1, 40},
        {RPL_KS_LOOP_WHILE, -1, 43}, {RPL_KS_LOOP_DO, -1, 45}, {RPL_KS_LOOP_RANGE_FOR, -1, 49},
        {RPL_KS_LOOP_FOR, 7, 51},    {RPL_KS_LOOP_FOR, 1, 53},
    };
    const rpl_ks_kernel *k = ks_test_kernel(src, "plain_loops");

    assert_int_equal(k->n_loops, sizeof(want) / sizeof(want[0]));
    for (unsigned i = 0; i < k->n_loops; i++) {
        const rpl_ks_loop *l = &k->loops[i];
        if (l->kind != want[i].kind || l->range.line_begin != want[i].line ||
            l->trip_count_known != (want[i].trip >= 0) ||
            (want[i].trip >= 0 && l->trip_count != want[i].trip))
            fail_msg("loop %u: kind %s line %u trip %lld (%s)", i, rpl_ks_loop_kind_name(l->kind),
                     l->range.line_begin, (long long)l->trip_count,
                     l->trip_count_known ? "known" : "unknown");
        assert_null(l->blocker);
        assert_int_equal(l->depth, 0);
    }
    /* warpSize is a constant on AMD: 64 on gfx90a, so 32, 16, 8, 4, 2, 1. */
    assert_int_equal(k->loops[3].trip_count, 6);
    ks_test_range_is(src, &k->loops[0].range, "for (int k = 0; k < TILE; k++)",
                     "helper_plain(in[k + 1]);");
    ks_test_range_is(src, &k->loops[7].range, "do {", "while (w > 0);");
}

static void test_each_blocker(void **state)
{
    const rpl_kernel_source *src = *state;
    static const char *const blockers[] = {
        "calls __syncthreads (line 62)",
        "calls atomicAdd (line 65)",
        "uses dynamic shared memory 'dyn' (line 67)",
        "breaks out of the loop (line 70)",
        "returns from the kernel (line 75)",
        "has a goto (line 79)",
        "calls helper_deeper (line 82), which calls helper_barrier, which calls __syncthreads",
        "calls declared_only, whose body is not visible (line 84)",
    };
    const rpl_ks_kernel *k = ks_test_kernel(src, "guarded");

    assert_int_equal(k->n_loops, 8);
    for (unsigned i = 0; i < 8; i++) {
        if (!k->loops[i].blocker || strcmp(k->loops[i].blocker, blockers[i]) != 0)
            fail_msg("loop %u: blocker '%s', expected '%s'", i,
                     k->loops[i].blocker ? k->loops[i].blocker : "none", blockers[i]);
    }
    assert_true(k->loops[0].has_barrier);
    assert_false(k->loops[0].has_atomic);
    assert_true(k->loops[1].has_atomic);
    assert_true(k->loops[2].has_dynamic_shared);
    assert_true(k->loops[3].has_break);
    assert_true(k->loops[4].has_return);
    assert_true(k->loops[5].has_goto);
    assert_true(k->loops[6].has_barrier);
    assert_true(k->loops[7].has_unknown_call);
    assert_false(k->loops[7].has_barrier);
    /* A visible, harmless helper is followed and found clean. */
    assert_null(loop_of(src, "plain_loops", 0)->blocker);
}

static void test_nesting(void **state)
{
    const rpl_kernel_source *src = *state;
    const rpl_ks_kernel *k = ks_test_kernel(src, "nested");

    assert_int_equal(k->n_loops, 4);
    assert_int_equal(k->loops[0].depth, 0);
    assert_int_equal(k->loops[0].n_inner, 2);
    assert_int_equal(k->loops[1].depth, 1);
    assert_int_equal(k->loops[2].depth, 1);
    /* The barrier in the inner loop is also across the outer one. */
    assert_true(k->loops[0].has_barrier);
    assert_true(k->loops[2].has_barrier);
    /* A break leaves only its own loop; a break in a switch leaves the switch. */
    assert_true(k->loops[1].has_break);
    assert_false(k->loops[1].has_barrier);
    assert_false(k->loops[0].has_break);
    assert_int_equal(k->loops[1].trip_count, 16);
    /* The lambda's loop is not a loop of the kernel, and its return is its own. */
    assert_int_equal(k->loops[3].depth, 0);
    assert_null(k->loops[3].blocker);
}

static void test_pragmas(void **state)
{
    const rpl_kernel_source *src = *state;
    static const int want[] = {4,
                               RPL_KS_PRAGMA_FULL,
                               2,
                               1,
                               8,
                               RPL_KS_PRAGMA_OTHER,
                               2,
                               RPL_KS_PRAGMA_NONE,
                               RPL_KS_PRAGMA_NONE};
    const rpl_ks_kernel *k = ks_test_kernel(src, "pragmas");

    assert_int_equal(k->n_loops, 9);
    for (unsigned i = 0; i < 9; i++)
        if (k->loops[i].pragma_unroll != want[i])
            fail_msg("loop %u: pragma %d, expected %d", i, k->loops[i].pragma_unroll, want[i]);
    ks_test_range_is(src, &k->loops[0].pragma, "#pragma unroll 4", "#pragma unroll 4");
    ks_test_range_is(src, &k->loops[4].pragma, "#pragma clang loop unroll_count(8)", "(8)");
    ks_test_range_is(src, &k->loops[6].pragma, "_Pragma(\"unroll 2\")", "\")");
    assert_true(k->loops[7].in_macro);
    assert_false(k->loops[8].in_macro);
    /* Loops of plain_loops have no pragma. */
    assert_int_equal(loop_of(src, "plain_loops", 0)->pragma_unroll, RPL_KS_PRAGMA_NONE);
}

static void expect_factor(const rpl_ks_loop *l, unsigned wave, unsigned wish, unsigned want)
{
    unsigned f = 99;
    int rc = rpl_ks_unroll_factor(l, wave, wish, &f);

    if (rc != 0 || f != want)
        fail_msg("loop %u (trip %lld) wave %u wish %u: %s factor %u, expected %u", l->index,
                 (long long)l->trip_count, wave, wish, rc ? rpl_error_last()->message : "", f,
                 want);
}

static void test_factor_rule(void **state)
{
    const rpl_kernel_source *src = *state;
    const rpl_ks_loop *trip16 = loop_of(src, "plain_loops", 0);
    const rpl_ks_loop *trip6 = loop_of(src, "plain_loops", 1);
    const rpl_ks_loop *unknown = loop_of(src, "plain_loops", 5);
    unsigned f = 0;

    /* Defaults: the same lane-iterations per wave on both sizes. */
    expect_factor(trip16, 64, 0, 4);
    expect_factor(trip16, 32, 0, 8);
    expect_factor(unknown, 64, 0, 4);
    expect_factor(unknown, 32, 0, 8);
    /* A known trip count takes the largest divisor up to the wish. */
    expect_factor(trip6, 64, 0, 3);
    expect_factor(trip6, 32, 8, 6);
    expect_factor(trip16, 64, 7, 4);
    /* An unknown one a power of two. */
    expect_factor(unknown, 64, 6, 4);
    expect_factor(unknown, 32, 3, 2);
    ks_test_error_has(rpl_ks_unroll_factor(loop_of(src, "plain_loops", 9), 64, 4, &f), RPL_EINPUT,
                      "runs 7 times: no factor from 2 to 4 divides it");
    expect_factor(loop_of(src, "plain_loops", 9), 64, 7, 7);
    ks_test_error_has(rpl_ks_unroll_factor(loop_of(src, "plain_loops", 10), 64, 0, &f), RPL_EINPUT,
                      "runs 1 time: nothing to unroll");
    ks_test_error_has(rpl_ks_unroll_factor(loop_of(src, "guarded", 0), 64, 0, &f), RPL_EINPUT,
                      "loop 0 (line 60) calls __syncthreads (line 62)");
    ks_test_error_has(rpl_ks_unroll_factor(loop_of(src, "pragmas", 7), 64, 0, &f), RPL_EINPUT,
                      "comes from a macro expansion");
    ks_test_error_has(rpl_ks_unroll_factor(trip16, 48, 0, &f), RPL_EUSAGE, "expected 32 or 64");
    ks_test_error_has(rpl_ks_unroll_factor(trip16, 64, 9, &f), RPL_EUSAGE, "expected 2 to 8");
    ks_test_error_has(rpl_ks_unroll_factor(trip16, 64, 1, &f), RPL_EUSAGE, "expected 2 to 8");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_and_trip_counts),
        cmocka_unit_test(test_each_blocker),
        cmocka_unit_test(test_nesting),
        cmocka_unit_test(test_pragmas),
        cmocka_unit_test(test_factor_rule),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
