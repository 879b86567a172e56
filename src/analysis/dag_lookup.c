/* Lookups shared by the DAG builder's files: a node's trace record, its process, its name. */
#include <stdio.h>

#include "dag_internal.h"

/* A field that dispatch and copy records both have, of node n's operation. */
#define OP_FIELD(t, n, field)                                                                      \
    ((n)->kind == RPL_DAG_NODE_DISPATCH ? (t)->dispatches.items[(n)->ref].field                    \
                                        : (t)->memcpys.items[(n)->ref].field)

int64_t rpl_dag_node_trace_id(const rpl_trace *t, const rpl_dag_node *n)
{
    return OP_FIELD(t, n, id);
}

int64_t rpl_dag_node_pid(const rpl_trace *t, const rpl_dag_node *n)
{
    return rpl_trace_pid(t, OP_FIELD(t, n, thread));
}

int64_t rpl_dag_node_correlation(const rpl_trace *t, const rpl_dag_node *n)
{
    return OP_FIELD(t, n, correlation_id);
}

uint32_t rpl_dag_node_source(const rpl_trace *t, const rpl_dag_node *n)
{
    return OP_FIELD(t, n, source);
}

void rpl_dag_node_describe(char *buf, size_t size, const rpl_dag *dag, const rpl_trace *t,
                           uint32_t node)
{
    const rpl_dag_node *n = &dag->nodes[node];

    snprintf(buf, size, "%s %lld '%s' on '%s'",
             n->kind == RPL_DAG_NODE_DISPATCH ? "dispatch" : "copy",
             (long long)rpl_dag_node_trace_id(t, n), dag->symbols[n->symbol].name,
             dag->lanes[n->lane].name);
}

uint32_t rpl_dag_process_index(const rpl_dag_builder *b, int64_t pid)
{
    uint32_t lo = 0, hi = b->process_count;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (b->pids[mid] < pid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < b->process_count && b->pids[lo] == pid ? lo : RPL_NONE;
}
