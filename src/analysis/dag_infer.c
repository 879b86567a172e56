/*
 * Inferred edges, for processes whose trace carries no record/wait regions.
 *
 * Rule: for a node v, look at the other nodes u of the same process that
 * ended no later than v started and started strictly before it
 * (u.end < v.start, or u.end == v.start and u.start < v.start).  Take the
 * latest-ending one (ties: the later start, then the later node in time
 * order).  If it ended at most gap_ns before v started and lies on another
 * lane, add the inferred edge u -> v.  If it lies on v's own lane, v's start
 * is explained by program order and no edge is added.
 *
 * Nodes of each process are sorted once by (end, start, node); a pointer per
 * process then sweeps forward as v runs through the nodes in start order,
 * since the set of candidates only grows with v.start: O(V) after the sort.
 */
#include <stdlib.h>

#include "dag_internal.h"
#include "radix_sort.h"
#include "rpl/error.h"
#include "rpl/free.h"

/* True when node u may precede a node starting at `start`. */
static bool before(const rpl_dag_node *u, int64_t start)
{
    return u->end < start || (u->end == start && u->start < start);
}

int rpl_dag_infer_edges(rpl_dag_builder *b, const uint8_t *infer)
{
    rpl_dag *dag = b->dag;
    uint32_t n = dag->node_count, np = b->process_count, m = 0;
    uint64_t *keys;
    uint32_t *order, *byproc, *first, *ptr;
    int rc = 0;
    bool any = false;

    for (uint32_t p = 0; p < np; p++)
        any = any || infer[p];
    if (!any || n == 0)
        return 0;
    keys = malloc((size_t)n * sizeof(*keys));
    order = malloc((size_t)n * sizeof(*order));
    byproc = malloc((size_t)n * sizeof(*byproc));
    first = calloc((size_t)np + 2, sizeof(*first));
    ptr = malloc(((size_t)np + 1) * sizeof(*ptr));
    if (!keys || !order || !byproc || !first || !ptr) {
        rc = rpl_error_oom();
        goto done;
    }
    /* Nodes are in (start, end, index) order; a stable sort by end gives (end, start, index). */
    for (uint32_t i = 0; i < n; i++)
        if (infer[b->process_of[i]]) {
            keys[m] = (uint64_t)dag->nodes[i].end - (uint64_t)dag->t0;
            order[m++] = i;
        }
    rc = rpl_radix_sort_u64(keys, order, m);
    if (rc)
        goto done;
    /* Stable grouping by process: process p holds byproc[first[p] .. first[p + 1]). */
    for (uint32_t k = 0; k < m; k++)
        first[b->process_of[order[k]] + 1]++;
    for (uint32_t p = 0; p < np; p++)
        first[p + 1] += first[p];
    for (uint32_t p = 0; p < np; p++)
        ptr[p] = first[p];
    for (uint32_t k = 0; k < m; k++)
        byproc[ptr[b->process_of[order[k]]]++] = order[k];
    for (uint32_t p = 0; p < np; p++)
        ptr[p] = first[p];
    /* ptr[p]: first entry of process p not yet known to precede the current v. */
    for (uint32_t v = 0; v < n && rc == 0; v++) {
        uint32_t p = b->process_of[v], end = first[p + 1], u;
        const rpl_dag_node *nv = &dag->nodes[v];

        if (!infer[p])
            continue;
        while (ptr[p] < end && before(&dag->nodes[byproc[ptr[p]]], nv->start))
            ptr[p]++;
        if (ptr[p] == first[p])
            continue;
        u = byproc[ptr[p] - 1];
        if (nv->start - dag->nodes[u].end <= dag->opts.gap_ns && dag->nodes[u].lane != nv->lane)
            rc = rpl_dag_edge_add(b, u, v, RPL_DAG_EDGE_INFERRED);
    }
done:
    RPL_FREE_EACH(keys, order, byproc, first, ptr);
    return rc;
}
