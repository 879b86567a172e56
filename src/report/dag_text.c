/* The human summary of a DAG, printed by `rocm-perf report`. */
#include <math.h>
#include <stdlib.h>

#include "rpl/dag_report.h"
#include "rpl/error.h"
#include "rpl/report.h"
#include "rpl/strbuf.h"

/* Percent of the critical path. */
static double path_pct(const rpl_dag *dag, int64_t ns)
{
    return dag->critical_path_ns > 0 ? 100.0 * (double)ns / (double)dag->critical_path_ns : 0.0;
}

/*
 * What the path is made of, and the dominant kernel or why there is none:
 * copies and runtime helper kernels never dominate.
 */
static int dominant_text(rpl_strbuf *sb, const rpl_dag *dag)
{
    int64_t kernels = 0, helpers = 0, copies = 0;
    int rc;

    for (uint32_t k = 0; k < dag->symbol_count; k++) {
        const rpl_dag_symbol *s = &dag->symbols[k];

        if (s->kind == RPL_DAG_NODE_COPY)
            copies += s->path_ns;
        else if (s->helper)
            helpers += s->path_ns;
        else
            kernels += s->path_ns;
    }
    rc = rpl_strbuf_printf(sb,
                           "path: %.1f%% application kernels, %.1f%% runtime helper kernels, "
                           "%.1f%% memory copies\n",
                           path_pct(dag, kernels), path_pct(dag, helpers), path_pct(dag, copies));
    if (rc)
        return rc;
    if (dag->node_count == 0)
        return rpl_strbuf_puts(sb, "dominant: none (the trace has no operations)\n");
    if (dag->dominant == RPL_NONE)
        return rpl_strbuf_printf(
            sb,
            "dominant: none: no application kernel is on the path (%u of its %u operations are "
            "memory copies or runtime helper kernels)%s\n",
            dag->path_len, dag->path_len,
            dag->blocking_calls == 0 && dag->sync_regions == 0
                ? "; the trace has no API regions saying what the host waited for"
                : "");
    if (isinf(dag->speedup_ceiling))
        return rpl_strbuf_printf(sb, "dominant: %s, 100%% of the path (no speedup ceiling)\n",
                                 dag->symbols[dag->dominant].name);
    return rpl_strbuf_printf(sb, "dominant: %s, %.1f%% of the path, speedup ceiling %.2fx\n",
                             dag->symbols[dag->dominant].name, 100.0 * dag->dominant_fraction,
                             dag->speedup_ceiling);
}

int rpl_dag_dominant_text(char **out, const rpl_dag *dag)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char a[64];

    *out = NULL;
    if (rpl_strbuf_printf(&sb, "critical path: %s, %u of %u operations\n",
                          rpl_format_ns(a, sizeof(a), (double)dag->critical_path_ns), dag->path_len,
                          dag->node_count) ||
        dominant_text(&sb, dag)) {
        rpl_strbuf_release(&sb);
        return rpl_error_oom();
    }
    *out = rpl_strbuf_detach(&sb);
    return 0;
}

int rpl_dag_summary_text(char **out, const rpl_dag *dag, size_t top)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char a[64], b[64];
    uint32_t *prio = malloc((top + 1) * sizeof(*prio)), n = 0;
    int rc = prio ? 0 : rpl_error_oom();

    *out = NULL;
    if (!rc)
        rc = rpl_strbuf_printf(&sb,
                               "critical path: %s of a %s span, %u of %u operations on %u lanes\n",
                               rpl_format_ns(a, sizeof(a), (double)dag->critical_path_ns),
                               rpl_format_ns(b, sizeof(b), (double)dag->span_ns), dag->path_len,
                               dag->node_count, dag->lane_count);
    if (!rc)
        rc = rpl_strbuf_printf(
            &sb,
            "overlap: %.2f (GPU time / span), utilization %.2f\n"
            "edges: %u program order, %u event wait, %u host sync, %u default stream, "
            "%u inferred (%u sync regions, %u waits unresolved; %u blocking calls, "
            "%u unresolved)\n",
            dag->overlap, dag->span_ns > 0 ? (double)dag->active_ns / (double)dag->span_ns : 0.0,
            dag->edge_counts[RPL_DAG_EDGE_PROGRAM_ORDER], dag->edge_counts[RPL_DAG_EDGE_EVENT_WAIT],
            dag->edge_counts[RPL_DAG_EDGE_HOST_SYNC], dag->edge_counts[RPL_DAG_EDGE_DEFAULT_STREAM],
            dag->edge_counts[RPL_DAG_EDGE_INFERRED], dag->sync_regions, dag->waits_unresolved,
            dag->blocking_calls, dag->blocking_unresolved);
    if (!rc)
        rc = dominant_text(&sb, dag);
    if (!rc && top > 0)
        rc = rpl_dag_priorities(dag, prio, (uint32_t)top, &n);
    if (!rc && n > 0)
        rc = rpl_strbuf_puts(&sb, "priorities (time on the path x headroom):\n");
    for (uint32_t k = 0; !rc && k < n; k++) {
        const rpl_dag_symbol *s = &dag->symbols[prio[k]];

        rc = rpl_strbuf_printf(&sb, "  %2u  %10s  %5.1f%%  %s%s\n", k + 1,
                               rpl_format_ns(a, sizeof(a), (double)s->path_ns),
                               dag->critical_path_ns > 0
                                   ? 100.0 * (double)s->path_ns / (double)dag->critical_path_ns
                                   : 0.0,
                               s->name, s->headroom_known ? "" : "  (headroom: placeholder)");
    }
    free(prio);
    if (rc) {
        rpl_strbuf_release(&sb);
        return rpl_error_oom();
    }
    *out = rpl_strbuf_detach(&sb);
    return 0;
}
