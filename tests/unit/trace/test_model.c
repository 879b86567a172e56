/*
 * The trace model's compact records: host threads interned once (the
 * records name them by index), found again after the hash grows, cut back
 * by a rollback; a record naming no thread of the trace is refused.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/trace.h"

static void test_threads_interned(void **state)
{
    rpl_trace *t;
    uint32_t a, b;

    (void)state;
    assert_int_equal(rpl_trace_new(&t), 0);
    a = rpl_trace_thread(t, 100, 101);
    b = rpl_trace_thread(t, 100, 102);
    assert_int_not_equal(a, RPL_NONE);
    assert_int_not_equal(a, b);
    assert_int_equal(rpl_trace_thread(t, 100, 101), a);
    assert_int_not_equal(rpl_trace_thread(t, 101, 101), a); /* the pid counts too */
    assert_int_equal(t->threads.count, 3);
    assert_int_equal(rpl_trace_pid(t, b), 100);
    assert_int_equal(rpl_trace_tid(t, b), 102);
    rpl_trace_free(t);
}

/* Enough threads to grow the hash several times; every one is found where it was put. */
static void test_many_threads(void **state)
{
    enum { N = 5000 };
    rpl_trace *t;
    uint32_t *index = malloc(N * sizeof(*index));

    (void)state;
    assert_non_null(index);
    assert_int_equal(rpl_trace_new(&t), 0);
    for (uint32_t i = 0; i < N; i++)
        index[i] = rpl_trace_thread(t, 7 + i % 3, (int64_t)i * 1000003);
    assert_int_equal(t->threads.count, N);
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(rpl_trace_thread(t, 7 + i % 3, (int64_t)i * 1000003), index[i]);
        assert_int_equal(rpl_trace_pid(t, index[i]), 7 + i % 3);
        assert_int_equal(rpl_trace_tid(t, index[i]), (int64_t)i * 1000003);
    }
    free(index);
    rpl_trace_free(t);
}

/* A rollback forgets the threads added after its mark; those before stay. */
static void test_rollback_cuts_threads(void **state)
{
    rpl_trace *t;
    rpl_trace_mark mark;
    uint32_t kept, gone;

    (void)state;
    assert_int_equal(rpl_trace_new(&t), 0);
    kept = rpl_trace_thread(t, 1, 2);
    rpl_trace_mark_take(t, &mark);
    for (int64_t tid = 10; tid < 200; tid++)
        assert_int_not_equal(rpl_trace_thread(t, 1, tid), RPL_NONE);
    gone = rpl_trace_thread(t, 1, 3);
    assert_int_equal(gone, 191);
    rpl_trace_rollback(t, &mark);
    assert_int_equal(t->threads.count, 1);
    assert_int_equal(rpl_trace_thread(t, 1, 2), kept);
    assert_int_equal(rpl_trace_thread(t, 1, 3), 1);
    rpl_trace_free(t);
}

static void test_record_needs_a_thread(void **state)
{
    rpl_trace *t;
    rpl_dispatch d = {.id = 5, .thread = 3};
    rpl_memcpy m = {.id = 6, .thread = 1};
    rpl_region r = {.id = 7, .name = "hipLaunchKernel", .thread = RPL_NONE - 1};

    (void)state;
    assert_int_equal(rpl_trace_new(&t), 0);
    rpl_trace_thread(t, 1, 1);
    assert_int_equal(rpl_trace_add_dispatch(t, &d, NULL), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "dispatch 5"));
    assert_int_equal(rpl_trace_add_memcpy(t, &m, NULL), RPL_EUSAGE);
    assert_int_equal(rpl_trace_add_region(t, &r, NULL, 0, NULL), RPL_EUSAGE);
    assert_int_equal(t->dispatches.count + t->memcpys.count + t->regions.count, 0);
    d.thread = 0;
    assert_int_equal(rpl_trace_add_dispatch(t, &d, NULL), 0);
    rpl_trace_free(t);
}

/* What the memory of a million-operation trace rests on (docs/validation/bench-analyze.md). */
static void test_record_sizes(void **state)
{
    (void)state;
    assert_true(sizeof(rpl_dispatch) <= 96);
    assert_true(sizeof(rpl_memcpy) <= 80);
    assert_true(sizeof(rpl_region) <= 72);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_interned),      cmocka_unit_test(test_many_threads),
        cmocka_unit_test(test_rollback_cuts_threads), cmocka_unit_test(test_record_needs_a_thread),
        cmocka_unit_test(test_record_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
