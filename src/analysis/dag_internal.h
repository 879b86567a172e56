/* Private pieces shared by the DAG builder's files (dag_*.c). */
#ifndef RPL_DAG_INTERNAL_H
#define RPL_DAG_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "rpl/dag.h"
#include "rpl/trace.h"

typedef struct rpl_dag_builder {
    rpl_dag *dag;
    const rpl_trace *trace;
    const rpl_kernel_filter *filter;
    rpl_dag_edge *edges; /* unsorted, may hold duplicates until rpl_dag_edges_finish */
    uint32_t edge_count, edge_cap;
    /* Processes: node i belongs to pids[process_of[i]] (distinct pids, sorted). */
    int64_t *pids;
    uint32_t process_count;
    uint32_t *process_of;
    /* Node of each operation: dispatch i is operation i, copy j is dispatches.count + j. */
    uint32_t *node_of_op;
} rpl_dag_builder;

int rpl_dag_edge_add(rpl_dag_builder *b, uint32_t src, uint32_t dst, rpl_dag_edge_kind kind);

/* Nodes, lanes and symbols from the trace; nodes sorted in time order. */
int rpl_dag_nodes_build(rpl_dag_builder *b);
/* Program-order edges between neighbours of a lane. */
int rpl_dag_program_order(rpl_dag_builder *b);
/*
 * Event record -> stream wait edges.  Sets has_sync[p] for every process p
 * (index into b->pids) that has a record or wait region.
 */
int rpl_dag_event_waits(rpl_dag_builder *b, uint8_t *has_sync);
/* Inferred edges in the processes p whose infer[p] is set. */
int rpl_dag_infer_edges(rpl_dag_builder *b, const uint8_t *infer);
/* Sort, deduplicate and index the edges (CSR); counts by kind. */
int rpl_dag_edges_finish(rpl_dag_builder *b);
/* Longest path, earliest/latest starts, slack, symbols, dominance, overlap. */
int rpl_dag_solve(rpl_dag *dag, const rpl_trace *trace);

/* Index of `pid` in b->pids, or RPL_NONE. */
uint32_t rpl_dag_process_index(const rpl_dag_builder *b, int64_t pid);

int64_t rpl_dag_node_pid(const rpl_trace *trace, const rpl_dag_node *n);
int64_t rpl_dag_node_correlation(const rpl_trace *trace, const rpl_dag_node *n);
uint32_t rpl_dag_node_source(const rpl_trace *trace, const rpl_dag_node *n);

/* "dispatch 12 'name' on 'Stream 1'" for messages, into buf. */
void rpl_dag_node_describe(char *buf, size_t size, const rpl_dag *dag, const rpl_trace *trace,
                           uint32_t node);

#endif
