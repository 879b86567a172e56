/*
 * Headroom of the DAG's kernel symbols: the fraction of their time that
 * would go if they ran at their roof, 1 - roof fraction of the counters
 * summed over their dispatches, under the product-table ceilings.
 */
#include <stdlib.h>

#include "rpl/error.h"
#include "rpl/roofline.h"

typedef struct sym_acc {
    rpl_roof_counts counts;
    double time_ns;
    uint32_t agent;
    bool any;
} sym_acc;

int rpl_roofline_dag_headroom(rpl_dag *dag, const rpl_trace *trace)
{
    sym_acc *acc;
    rpl_roof_names names;

    /* No dispatch has counters: every symbol keeps the placeholder. */
    if (trace->counter_values.count == 0)
        return 0;
    acc = calloc((size_t)dag->symbol_count + 1, sizeof(*acc));
    if (!acc || rpl_roof_names_init(&names, trace)) {
        free(acc);
        return rpl_error_oom();
    }
    for (uint32_t i = 0; i < dag->node_count; i++) {
        const rpl_dag_node *n = &dag->nodes[i];
        const rpl_dispatch *d;
        rpl_roof_indexed_ctx ctx;
        rpl_roof_target tg;
        rpl_roof_counts c;
        sym_acc *s;

        if (n->kind != RPL_DAG_NODE_DISPATCH || n->ref >= trace->dispatches.count)
            continue;
        d = &trace->dispatches.items[n->ref];
        if (d->counters_count == 0 || d->agent >= trace->agents.count)
            continue;
        rpl_roof_target_of(&tg, &trace->agents.items[d->agent], NULL);
        ctx = (rpl_roof_indexed_ctx){{trace, d}, &names};
        rpl_roof_counts_compute(&c, tg.family, tg.wave_size, rpl_roof_trace_counter_indexed, &ctx);
        if (!c.has_flops || !c.has_bytes)
            continue;
        s = &acc[n->symbol];
        if (!s->any) {
            s->agent = d->agent;
            s->any = true;
        }
        rpl_roof_counts_add(&s->counts, &c);
        s->counts.has_flops = s->counts.has_bytes = true;
        s->time_ns += (double)(d->end - d->start);
    }
    for (uint32_t i = 0; i < dag->symbol_count; i++) {
        rpl_roof_target tg;
        rpl_roof_point p;

        if (!acc[i].any)
            continue;
        rpl_roof_target_of(&tg, &trace->agents.items[acc[i].agent], NULL);
        if (!tg.has_ceilings)
            continue;
        rpl_roof_point_compute(&p, &acc[i].counts, acc[i].time_ns, &tg.ceilings);
        if (p.valid) {
            dag->symbols[i].headroom = 1.0 - p.roof_fraction;
            dag->symbols[i].headroom_known = true;
        }
    }
    free(acc);
    rpl_roof_names_release(&names);
    return 0;
}
