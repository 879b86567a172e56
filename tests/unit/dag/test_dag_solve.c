/*
 * Property tests of the DAG solver on thousands of random graphs: the
 * critical path length, every node's earliest and latest start and slack,
 * and the reported path, against independent brute-force implementations
 * (Bellman-Ford style relaxation; exhaustive path enumeration on small
 * graphs).  Node numbers are not a topological order here, so Kahn's
 * algorithm is exercised; graphs with a cycle must fail with RPL_EINPUT.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <gsl/gsl_rng.h>

#include "dag_internal.h"
#include "radix_sort.h"
#include "dag_test_util.h"

#define TRIALS 3000

static const char *const names[] = {"alpha", "beta", "gamma", "delta"};

typedef struct graph {
    rpl_trace *trace;
    rpl_dag *dag;
    uint32_t n, m;
    uint32_t *src, *dst; /* the edges as added (maybe duplicated) */
    int64_t *dur;
} graph;

/* A graph whose edges follow a random permutation (a topological order). */
static void random_graph(graph *g, gsl_rng *r, uint32_t n, double density, uint32_t *perm)
{
    uint32_t k = (uint32_t)gsl_rng_uniform_int(r, 4) + 1;

    memset(g, 0, sizeof(*g));
    g->n = n;
    g->trace = t_new();
    g->dag = calloc(1, sizeof(*g->dag));
    g->dur = calloc(n, sizeof(*g->dur));
    g->src = calloc((size_t)n * n + 8, sizeof(*g->src));
    g->dst = calloc((size_t)n * n + 8, sizeof(*g->dst));
    assert_non_null(g->dag);
    for (uint32_t s = 0; s < k; s++)
        t_symbol(g->trace, names[s]);
    g->dag->nodes = calloc(n, sizeof(*g->dag->nodes));
    g->dag->node_count = n;
    g->dag->lanes = calloc(1, sizeof(*g->dag->lanes));
    g->dag->lanes[0].name = strdup("lane");
    g->dag->lane_count = 1;
    g->dag->symbols = calloc(k, sizeof(*g->dag->symbols));
    g->dag->symbol_count = k;
    for (uint32_t s = 0; s < k; s++)
        g->dag->symbols[s] = (rpl_dag_symbol){
            .name = names[s], .mangled = names[s], .min_slack_ns = INT64_MAX, .headroom = 1.0};
    for (uint32_t i = 0; i < n; i++) {
        uint32_t sym = (uint32_t)gsl_rng_uniform_int(r, k);

        /* Zero durations now and then: ties everywhere. */
        g->dur[i] = gsl_rng_uniform(r) < 0.15 ? 0 : (int64_t)gsl_rng_uniform_int(r, 100);
        g->dag->nodes[i] =
            (rpl_dag_node){.start = 1000 * (int64_t)i,
                           .end = 1000 * (int64_t)i + g->dur[i],
                           .ref = t_dispatch(g->trace, RPL_NONE, RPL_NONE, sym, 1000 * (int64_t)i,
                                             1000 * (int64_t)i + g->dur[i], 0),
                           .symbol = sym};
        perm[i] = i;
    }
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = (uint32_t)gsl_rng_uniform_int(r, i), tmp = perm[i - 1];

        perm[i - 1] = perm[j];
        perm[j] = tmp;
    }
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = a + 1; b < n; b++)
            if (gsl_rng_uniform(r) < density) {
                g->src[g->m] = perm[a];
                g->dst[g->m++] = perm[b];
                if (gsl_rng_uniform(r) < 0.05) { /* a duplicate now and then */
                    g->src[g->m] = perm[a];
                    g->dst[g->m++] = perm[b];
                }
            }
}

static int solve(graph *g)
{
    rpl_dag_builder b = {.dag = g->dag, .trace = g->trace};

    for (uint32_t e = 0; e < g->m; e++)
        assert_int_equal(rpl_dag_edge_add(&b, g->src[e], g->dst[e], RPL_DAG_EDGE_EVENT_WAIT), 0);
    assert_int_equal(rpl_dag_edges_finish(&b), 0);
    return rpl_dag_solve(g->dag, g->trace);
}

static void graph_free(graph *g)
{
    rpl_dag_free(g->dag);
    rpl_trace_free(g->trace);
    free(g->src);
    free(g->dst);
    free(g->dur);
}

/* Bellman-Ford style: relax every edge n times, forward for ES, backward for LS. */
static int64_t brute_force(const graph *g, int64_t *es, int64_t *ls)
{
    int64_t cp = 0;

    for (uint32_t i = 0; i < g->n; i++)
        es[i] = 0;
    for (uint32_t round = 0; round < g->n; round++)
        for (uint32_t e = 0; e < g->m; e++)
            if (es[g->src[e]] + g->dur[g->src[e]] > es[g->dst[e]])
                es[g->dst[e]] = es[g->src[e]] + g->dur[g->src[e]];
    for (uint32_t i = 0; i < g->n; i++)
        if (es[i] + g->dur[i] > cp)
            cp = es[i] + g->dur[i];
    for (uint32_t i = 0; i < g->n; i++)
        ls[i] = cp - g->dur[i];
    for (uint32_t round = 0; round < g->n; round++)
        for (uint32_t e = 0; e < g->m; e++)
            if (ls[g->dst[e]] - g->dur[g->src[e]] < ls[g->src[e]])
                ls[g->src[e]] = ls[g->dst[e]] - g->dur[g->src[e]];
    return cp;
}

/* The longest path by enumerating every path from every node (small graphs only). */
static int64_t longest_from(const graph *g, uint32_t v)
{
    int64_t best = 0;

    for (uint32_t e = 0; e < g->m; e++)
        if (g->src[e] == v) {
            int64_t l = longest_from(g, g->dst[e]);

            if (l > best)
                best = l;
        }
    return g->dur[v] + best;
}

static bool has_edge(const graph *g, uint32_t u, uint32_t v)
{
    for (uint32_t e = 0; e < g->m; e++)
        if (g->src[e] == u && g->dst[e] == v)
            return true;
    return false;
}

static void check_against_brute_force(const graph *g)
{
    const rpl_dag *dag = g->dag;
    int64_t *es = calloc(g->n, sizeof(*es)), *ls = calloc(g->n, sizeof(*ls)), sum = 0;
    int64_t cp = brute_force(g, es, ls);
    uint32_t on_path = 0;

    assert_int_equal(dag->critical_path_ns, cp);
    for (uint32_t i = 0; i < g->n; i++) {
        assert_int_equal(dag->nodes[i].earliest_start, es[i]);
        assert_int_equal(dag->nodes[i].latest_start, ls[i]);
        assert_true(rpl_dag_node_slack(&dag->nodes[i]) >= 0);
        on_path += dag->nodes[i].on_path;
    }
    if (g->n <= 14 && g->m <= 30) {
        int64_t best = 0;

        for (uint32_t v = 0; v < g->n; v++)
            if (longest_from(g, v) > best)
                best = longest_from(g, v);
        assert_int_equal(cp, best);
    }
    /* The path: a chain of real edges, from a start to the end, summing to cp, no slack. */
    assert_true(dag->path_len >= 1);
    assert_int_equal(on_path, dag->path_len);
    assert_int_equal(dag->nodes[dag->path[0]].earliest_start, 0);
    for (uint32_t k = 0; k < dag->path_len; k++) {
        const rpl_dag_node *nd = &dag->nodes[dag->path[k]];

        assert_true(nd->on_path);
        assert_int_equal(rpl_dag_node_slack(nd), 0);
        if (k > 0) {
            assert_true(has_edge(g, dag->path[k - 1], dag->path[k]));
            assert_int_equal(nd->earliest_start, dag->nodes[dag->path[k - 1]].earliest_start +
                                                     g->dur[dag->path[k - 1]]);
        }
        sum += g->dur[dag->path[k]];
    }
    assert_int_equal(sum, cp);
    free(es);
    free(ls);
}

static void test_random_dags(void **state)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    uint32_t perm[64];

    (void)state;
    for (unsigned long seed = 1; seed <= TRIALS; seed++) {
        graph g;
        uint32_t n = 1 + (uint32_t)(seed % 40);
        double density = (double)(seed % 7) / 14.0;

        gsl_rng_set(r, seed);
        random_graph(&g, r, n, density, perm);
        if (solve(&g) != 0)
            fail_msg("seed %lu: %s", seed, rpl_error_last()->message);
        check_against_brute_force(&g);
        graph_free(&g);
    }
    gsl_rng_free(r);
}

/* Per-symbol path time, dominance and the ceiling, recomputed from the path. */
static void test_symbol_totals(void **state)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    uint32_t perm[64];

    (void)state;
    for (unsigned long seed = 1; seed <= 500; seed++) {
        graph g;
        int64_t path_ns[4] = {0}, best = 0;
        uint32_t dom = RPL_NONE;

        gsl_rng_set(r, seed * 7919);
        random_graph(&g, r, 2 + (uint32_t)(seed % 30), 0.2, perm);
        assert_int_equal(solve(&g), 0);
        for (uint32_t k = 0; k < g.dag->path_len; k++)
            path_ns[g.dag->nodes[g.dag->path[k]].symbol] += g.dur[g.dag->path[k]];
        for (uint32_t s = 0; s < g.dag->symbol_count; s++) {
            assert_int_equal(g.dag->symbols[s].path_ns, path_ns[s]);
            if (path_ns[s] > best)
                best = path_ns[s], dom = s;
        }
        assert_int_equal(g.dag->dominant, dom);
        if (dom != RPL_NONE && best == g.dag->critical_path_ns)
            assert_true(isinf(g.dag->speedup_ceiling));
        else if (dom != RPL_NONE)
            assert_near(g.dag->speedup_ceiling,
                        1.0 / (1.0 - (double)best / (double)g.dag->critical_path_ns));
        graph_free(&g);
    }
    gsl_rng_free(r);
}

static void test_cycles_fail(void **state)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    uint32_t perm[64];

    (void)state;
    for (unsigned long seed = 1; seed <= 300; seed++) {
        graph g;
        /* len 1 is a self-loop. */
        uint32_t n = 2 + (uint32_t)(seed % 30), len = 1 + (uint32_t)(seed % 4);

        gsl_rng_set(r, seed * 104729);
        random_graph(&g, r, n, 0.1, perm);
        if (len > n)
            len = n;
        /* A cycle through `len` nodes taken along the topological order. */
        for (uint32_t k = 0; k < len; k++) {
            g.src[g.m] = perm[k];
            g.dst[g.m++] = perm[(k + 1) % len];
        }
        assert_int_equal(solve(&g), RPL_EINPUT);
        assert_non_null(strstr(rpl_error_last()->message, "dependency cycle"));
        graph_free(&g);
    }
    gsl_rng_free(r);
}

/* The edge list is sorted by (src, dst), free of duplicates, indexed by out_first. */
static void test_edges_finish(void **state)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    uint32_t perm[64];
    graph g;
    uint32_t distinct = 0;

    (void)state;
    gsl_rng_set(r, 42);
    random_graph(&g, r, 40, 0.3, perm);
    assert_int_equal(solve(&g), 0);
    for (uint32_t a = 0; a < g.n; a++)
        for (uint32_t b = 0; b < g.n; b++)
            distinct += has_edge(&g, a, b);
    assert_int_equal(g.dag->edge_count, distinct);
    assert_int_equal(g.dag->edge_counts[RPL_DAG_EDGE_EVENT_WAIT], distinct);
    for (uint32_t v = 0; v < g.n; v++)
        for (uint32_t e = g.dag->out_first[v]; e < g.dag->out_first[v + 1]; e++) {
            assert_int_equal(g.dag->edges[e].src, v);
            if (e > g.dag->out_first[v])
                assert_true(g.dag->edges[e - 1].dst < g.dag->edges[e].dst);
        }
    graph_free(&g);
    gsl_rng_free(r);
}

/* The radix sort is a stable sort. */
static void test_radix_sort(void **state)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

    (void)state;
    for (unsigned long seed = 1; seed <= 200; seed++) {
        uint32_t n = (uint32_t)(seed * 37 % 5000), *vals = malloc((n + 1) * sizeof(*vals));
        uint64_t *keys = malloc((n + 1) * sizeof(*keys)), *orig = malloc((n + 1) * sizeof(*orig));
        unsigned bits = 1 + (unsigned)(seed % 63);

        gsl_rng_set(r, seed);
        for (uint32_t i = 0; i < n; i++) {
            orig[i] = keys[i] =
                ((uint64_t)gsl_rng_get(r) << 32 | gsl_rng_get(r)) >> (64 - bits) >> (seed % 3);
            vals[i] = i;
        }
        assert_int_equal(rpl_radix_sort_u64(keys, vals, n), 0);
        for (uint32_t i = 0; i < n; i++) {
            assert_int_equal(keys[i], orig[vals[i]]);
            if (i > 0) {
                assert_true(keys[i - 1] <= keys[i]);
                if (keys[i - 1] == keys[i])
                    assert_true(vals[i - 1] < vals[i]);
            }
        }
        free(vals);
        free(keys);
        free(orig);
    }
    gsl_rng_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_dags), cmocka_unit_test(test_symbol_totals),
        cmocka_unit_test(test_cycles_fail), cmocka_unit_test(test_edges_finish),
        cmocka_unit_test(test_radix_sort),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
