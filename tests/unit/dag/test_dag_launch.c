/*
 * Launch regions found by correlation id, and stream handles resolved
 * through the launches in time order, at a size where the order the trace
 * lists them in differs from time order: a handle reused for another stream
 * half way resolves by time, with dense correlation ids (found in a table)
 * and with sparse ones (sorted and searched), to the same edges.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "dag_test_util.h"

enum { NOPS = 200, SWITCH = 100 };

typedef struct scene {
    rpl_trace *t;
    uint32_t a[NOPS], b[NOPS], c[2];
} scene;

/*
 * Streams A, B and C.  Handle 0x5 launches A's operations before SWITCH
 * and B's from SWITCH on; the others use 0xa and 0xb.  B's operations and
 * their launches are listed in reverse time order.  Events recorded on 0x5
 * at 40050 and 140050 are waited for on C (handle 0xc).  Correlation ids
 * are `step` apart.
 */
static scene make_scene(int64_t step)
{
    scene s;
    uint32_t sa, sb, sc, k;
    int64_t corr = 1;

    s.t = t_new();
    sa = t_stream(s.t, 1, TPID);
    sb = t_stream(s.t, 2, TPID);
    sc = t_stream(s.t, 3, TPID);
    k = t_symbol(s.t, "gemm");
    for (int i = 0; i < NOPS; i++, corr += step) {
        s.a[i] = t_dispatch(s.t, RPL_NONE, sa, k, 1000 * i + 500, 1000 * i + 900, corr);
        t_launch(s.t, 1000 * i + 100, corr, i < SWITCH ? "0x5" : "0xa");
    }
    for (int i = NOPS - 1; i >= 0; i--, corr += step) {
        s.b[i] = t_dispatch(s.t, RPL_NONE, sb, k, 1000 * i + 600, 1000 * i + 950, corr);
        t_launch(s.t, 1000 * i + 200, corr, i < SWITCH ? "0xb" : "0x5");
    }
    for (int j = 0; j < 2; j++, corr += step) {
        int64_t at = 100000 * j + 40500;

        s.c[j] = t_dispatch(s.t, RPL_NONE, sc, k, at + 500, at + 600, corr);
        t_launch(s.t, at, corr, "0xc");
    }
    t_record(s.t, 40050, "0xe1", "0x5");
    t_wait(s.t, 40060, "0xc", "0xe1");
    t_record(s.t, 140050, "0xe2", "0x5");
    t_wait(s.t, 140060, "0xc", "0xe2");
    return s;
}

static void check_scene(int64_t step)
{
    scene s = make_scene(step);
    rpl_dag *dag = t_build(s.t, RPL_DAG_INFER_AUTO, 1000);
    uint32_t c0 = t_node(dag, 0, s.c[0]), c1 = t_node(dag, 0, s.c[1]);

    /* 0x5 named A at 40050 (A's operation 39 was the last enqueued), B at 140050 (B's 139). */
    assert_int_equal(t_edges(dag, t_node(dag, 0, s.a[39]), c0, RPL_DAG_EDGE_EVENT_WAIT), 1);
    assert_int_equal(t_edges(dag, t_node(dag, 0, s.b[139]), c1, RPL_DAG_EDGE_EVENT_WAIT), 1);
    assert_int_equal(dag->edge_counts[RPL_DAG_EDGE_EVENT_WAIT], 2);
    assert_int_equal(dag->waits_unresolved, 0);
    rpl_dag_free(dag);
    rpl_trace_free(s.t);
}

static void test_dense_correlation_ids(void **state)
{
    (void)state;
    check_scene(1);
}

/* Ids far apart: more than four per region, so no table. */
static void test_sparse_correlation_ids(void **state)
{
    (void)state;
    check_scene(1000003);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dense_correlation_ids),
        cmocka_unit_test(test_sparse_correlation_ids),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
