/* DAG builder: the edge list, program order, and the edges sorted and indexed by source. */
#include <stdlib.h>
#include <string.h>

#include "dag_internal.h"
#include "rpl/bigmem.h"
#include "rpl/error.h"

int rpl_dag_edge_add(rpl_dag_builder *b, uint32_t src, uint32_t dst, rpl_dag_edge_kind kind)
{
    if (b->edge_count == b->edge_cap) { /* the list grows by a quarter */
        uint64_t ncap = (uint64_t)b->edge_cap + b->edge_cap / 4 + 1024;
        rpl_dag_edge *p;

        if (ncap > UINT32_MAX - 1)
            return rpl_error_set(RPL_EINPUT, "trace has too many dependencies");
        if (!(p = realloc(b->edges, (size_t)ncap * sizeof(*p))))
            return rpl_error_oom();
        b->edges = p;
        b->edge_cap = (uint32_t)ncap;
    }
    b->edges[b->edge_count++] = (rpl_dag_edge){src, dst, (uint8_t)kind};
    return 0;
}

static int cmp_edge_dst(const void *a, const void *b)
{
    const rpl_dag_edge *x = a, *y = b;

    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return (x->kind > y->kind) - (x->kind < y->kind);
}

/*
 * Program order: each lane's neighbours.  They are made here, straight into
 * the sorted array, rather than kept in the list while the dependency
 * tables are built (one edge per node: the list's largest part).
 */
static uint32_t program_order(const rpl_dag *dag, uint32_t *first, rpl_dag_edge *sorted)
{
    uint32_t count = 0;

    for (uint32_t l = 0; l < dag->lane_count; l++) {
        const uint32_t *nodes;

        if (dag->lanes[l].count < 2) /* no neighbours (and lane_nodes may be NULL) */
            continue;
        nodes = dag->lane_nodes + dag->lanes[l].first;
        for (uint32_t k = 1; k < dag->lanes[l].count; k++, count++)
            if (sorted)
                sorted[first[nodes[k - 1]]++] =
                    (rpl_dag_edge){nodes[k - 1], nodes[k], RPL_DAG_EDGE_PROGRAM_ORDER};
            else
                first[nodes[k - 1] + 1]++;
    }
    return count;
}

int rpl_dag_edges_finish(rpl_dag_builder *b)
{
    rpl_dag *dag = b->dag;
    uint32_t n = dag->node_count, m = 0, nprogram;
    rpl_dag_edge *sorted, *shrunk;
    uint32_t *first;

    /* Give back the list's slack before the sorted copy is made. */
    if (b->edge_count && b->edge_count < b->edge_cap &&
        (shrunk = realloc(b->edges, (size_t)b->edge_count * sizeof(*shrunk)))) {
        b->edges = shrunk;
        b->edge_cap = b->edge_count;
    }
    first = calloc((size_t)n + 2, sizeof(*first));
    if (!first)
        return rpl_error_oom();
    rpl_bigmem_advise(first, (size_t)n * sizeof(*first));
    /* Counting sort by source, then each source's edges by (dst, kind). */
    nprogram = program_order(dag, first, NULL);
    for (uint32_t i = 0; i < b->edge_count; i++)
        first[b->edges[i].src + 1]++;
    if (!(sorted = malloc(((size_t)nprogram + b->edge_count + 1) * sizeof(*sorted)))) {
        free(first);
        return rpl_error_oom();
    }
    rpl_bigmem_advise(sorted, ((size_t)nprogram + b->edge_count) * sizeof(*sorted));
    for (uint32_t v = 0; v < n; v++)
        first[v + 1] += first[v];
    program_order(dag, first, sorted);
    for (uint32_t i = 0; i < b->edge_count; i++)
        sorted[first[b->edges[i].src]++] = b->edges[i];
    for (uint32_t v = n; v > 0; v--)
        first[v] = first[v - 1];
    first[0] = 0;
    /* Drop duplicate (src, dst) pairs, keeping the lowest kind (program order first). */
    for (uint32_t v = 0; v < n; v++) {
        uint32_t lo = first[v], hi = first[v + 1];

        if (hi - lo > 1)
            qsort(sorted + lo, hi - lo, sizeof(*sorted), cmp_edge_dst);
        first[v] = m;
        for (uint32_t i = lo; i < hi; i++)
            if (i == lo || sorted[i].dst != sorted[i - 1].dst)
                sorted[m++] = sorted[i];
    }
    first[n] = m;
    free(b->edges);
    b->edges = NULL;
    b->edge_count = b->edge_cap = 0;
    /* Duplicates dropped: keep only the m edges (a failed shrink keeps the larger block). */
    if ((shrunk = realloc(sorted, ((size_t)m + 1) * sizeof(*sorted))))
        sorted = shrunk;
    dag->edges = sorted;
    dag->edge_count = m;
    dag->out_first = first;
    memset(dag->edge_counts, 0, sizeof(dag->edge_counts));
    for (uint32_t i = 0; i < m; i++)
        dag->edge_counts[sorted[i].kind]++;
    return 0;
}
