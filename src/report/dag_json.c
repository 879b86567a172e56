/* The dag.json document (docs/schemas/dag.schema.json) and its writer for analyze --out. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/dag_report.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/json_doc.h"
#include "rpl/log.h"

static const char *kind_name(uint8_t kind)
{
    return kind == RPL_DAG_NODE_DISPATCH ? "kernel" : "copy";
}

static double fraction(int64_t part, int64_t whole)
{
    return whole > 0 ? (double)part / (double)whole : 0.0;
}

static void add_inputs(rpl_json_doc *d, cJSON *root, const char *const *inputs, size_t n)
{
    cJSON *arr = rpl_json_doc_check(d, cJSON_AddArrayToObject(root, "inputs"));

    for (size_t i = 0; arr && i < n; i++) {
        char *abs = realpath(inputs[i], NULL);
        cJSON *s = cJSON_CreateString(abs ? abs : inputs[i]);

        free(abs);
        rpl_json_doc_push(d, arr, s);
    }
}

static void add_options(rpl_json_doc *d, cJSON *root, const rpl_dag *dag, const char *helper_regex)
{
    static const char *const infer[] = {"auto", "never", "always"};
    cJSON *o = rpl_json_doc_check(d, cJSON_AddObjectToObject(root, "options"));

    if (!o)
        return;
    rpl_json_doc_add_string(d, o, "infer", infer[dag->opts.infer]);
    rpl_json_doc_add_int64(d, o, "gap_ns", dag->opts.gap_ns);
    rpl_json_doc_add_int64(d, o, "tolerance_ns", dag->opts.tolerance_ns);
    rpl_json_doc_add_string(d, o, "helper_regex", helper_regex);
}

static void add_counts(rpl_json_doc *d, cJSON *root, const rpl_dag *dag)
{
    cJSON *nodes = rpl_json_doc_check(d, cJSON_AddObjectToObject(root, "nodes"));
    cJSON *edges = rpl_json_doc_check(d, cJSON_AddObjectToObject(root, "edges"));
    cJSON *sync = rpl_json_doc_check(d, cJSON_AddObjectToObject(root, "sync"));
    uint32_t copies = 0;

    /* Each node counts in its symbol: no pass over the nodes. */
    for (uint32_t k = 0; k < dag->symbol_count; k++)
        if (dag->symbols[k].kind == RPL_DAG_NODE_COPY)
            copies += dag->symbols[k].count;
    if (nodes) {
        rpl_json_doc_add_int64(d, nodes, "total", dag->node_count);
        rpl_json_doc_add_int64(d, nodes, "dispatches", dag->node_count - copies);
        rpl_json_doc_add_int64(d, nodes, "copies", copies);
    }
    if (edges) {
        for (int k = 0; k < RPL_DAG_EDGE_KINDS; k++)
            rpl_json_doc_add_int64(d, edges, rpl_dag_edge_kind_name((rpl_dag_edge_kind)k),
                                   dag->edge_counts[k]);
        rpl_json_doc_add_int64(d, edges, "total", dag->edge_count);
    }
    if (sync) {
        rpl_json_doc_add_int64(d, sync, "regions", dag->sync_regions);
        rpl_json_doc_add_int64(d, sync, "waits_unresolved", dag->waits_unresolved);
        rpl_json_doc_add_int64(d, sync, "inferred_processes", dag->inferred_processes);
        rpl_json_doc_add_int64(d, sync, "blocking_calls", dag->blocking_calls);
        rpl_json_doc_add_int64(d, sync, "blocking_unresolved", dag->blocking_unresolved);
        rpl_json_doc_add_int64(d, sync, "host_edges_dropped", dag->host_edges_dropped);
        rpl_json_doc_add_int64(d, sync, "legacy_default_lanes", dag->legacy_lanes);
        rpl_json_doc_add_int64(d, sync, "per_thread_default_lanes", dag->per_thread_lanes);
        rpl_json_doc_add_int64(d, sync, "nonblocking_lanes", dag->nonblocking_lanes);
    }
}

static void add_lanes(rpl_json_doc *d, cJSON *root, const rpl_dag *dag)
{
    cJSON *arr = rpl_json_doc_check(d, cJSON_AddArrayToObject(root, "lanes"));
    uint32_t *on_path = calloc((size_t)dag->lane_count + 1, sizeof(*on_path));

    if (!on_path) {
        d->oom = true;
        return;
    }
    /* The nodes on the path are those marked on_path. */
    for (uint32_t i = 0; i < dag->path_len; i++)
        on_path[dag->nodes[dag->path[i]].lane]++;
    for (uint32_t l = 0; arr && l < dag->lane_count; l++) {
        const rpl_dag_lane *lane = &dag->lanes[l];
        cJSON *o = rpl_json_doc_push_object(d, arr);

        if (!o)
            break;
        rpl_json_doc_add_string(d, o, "name", lane->name);
        rpl_json_doc_add_string(d, o, "kind",
                                rpl_dag_lane_kind_name((rpl_dag_lane_kind)lane->kind));
        rpl_json_doc_add_int64(d, o, "pid", lane->pid);
        rpl_json_doc_add_int64(d, o, "nodes", lane->count);
        rpl_json_doc_add_int64(d, o, "nodes_on_path", on_path[l]);
    }
    free(on_path);
}

typedef struct sym_order {
    int64_t path_ns, total_ns;
    uint32_t index;
} sym_order;

/* Most time on the path first, then most time in all, then name (symbols are by name). */
static int cmp_symbol(const void *a, const void *b)
{
    const sym_order *x = a, *y = b;

    if (x->path_ns != y->path_ns)
        return x->path_ns > y->path_ns ? -1 : 1;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static void add_symbols(rpl_json_doc *d, cJSON *root, const rpl_dag *dag)
{
    cJSON *arr = rpl_json_doc_check(d, cJSON_AddArrayToObject(root, "symbols"));
    sym_order *order = malloc(((size_t)dag->symbol_count + 1) * sizeof(*order));

    if (!order) {
        d->oom = true;
        return;
    }
    for (uint32_t k = 0; k < dag->symbol_count; k++)
        order[k] = (sym_order){dag->symbols[k].path_ns, dag->symbols[k].total_ns, k};
    qsort(order, dag->symbol_count, sizeof(*order), cmp_symbol);
    for (uint32_t k = 0; arr && k < dag->symbol_count; k++) {
        const rpl_dag_symbol *s = &dag->symbols[order[k].index];
        cJSON *o = rpl_json_doc_push_object(d, arr);

        if (!o)
            break;
        rpl_json_doc_add_string(d, o, "name", s->name);
        rpl_json_doc_add_string(d, o, "mangled_name",
                                s->kind == RPL_DAG_NODE_DISPATCH ? s->mangled : NULL);
        rpl_json_doc_add_string(d, o, "kind", kind_name(s->kind));
        rpl_json_doc_check(d, cJSON_AddBoolToObject(o, "helper", s->helper));
        rpl_json_doc_add_int64(d, o, "count", s->count);
        rpl_json_doc_add_int64(d, o, "total_ns", s->total_ns);
        rpl_json_doc_add_int64(d, o, "path_count", s->path_count);
        rpl_json_doc_add_int64(d, o, "path_ns", s->path_ns);
        rpl_json_doc_add_number(d, o, "path_fraction", fraction(s->path_ns, dag->critical_path_ns));
        rpl_json_doc_add_int64(d, o, "min_slack_ns", s->min_slack_ns);
    }
    free(order);
}

static void add_priorities(rpl_json_doc *d, cJSON *root, const rpl_dag *dag)
{
    cJSON *arr = rpl_json_doc_check(d, cJSON_AddArrayToObject(root, "priorities"));
    uint32_t top[RPL_DAG_TOP_N_DEFAULT], n = 0;

    if (!arr)
        return;
    if (rpl_dag_priorities(dag, top, RPL_DAG_TOP_N_DEFAULT, &n)) {
        d->oom = true;
        return;
    }
    for (uint32_t k = 0; k < n; k++) {
        const rpl_dag_symbol *s = &dag->symbols[top[k]];
        cJSON *o = rpl_json_doc_push_object(d, arr);

        if (!o)
            return;
        rpl_json_doc_add_int64(d, o, "rank", k + 1);
        rpl_json_doc_add_string(d, o, "name", s->name);
        rpl_json_doc_add_int64(d, o, "path_ns", s->path_ns);
        rpl_json_doc_add_number(d, o, "path_fraction", fraction(s->path_ns, dag->critical_path_ns));
        rpl_json_doc_add_number(d, o, "headroom", s->headroom);
        rpl_json_doc_add_string(d, o, "headroom_source",
                                s->headroom_known ? "roofline" : "placeholder");
        rpl_json_doc_add_number(d, o, "score_ns", (double)s->path_ns * s->headroom);
    }
}

/* The critical path as runs of consecutive nodes with the same symbol and lane. */
static void add_path(rpl_json_doc *d, cJSON *root, const rpl_dag *dag)
{
    cJSON *arr = rpl_json_doc_check(d, cJSON_AddArrayToObject(root, "critical_path"));
    uint32_t segments = 0, i = 0;

    while (arr && i < dag->path_len && segments < RPL_DAG_JSON_MAX_SEGMENTS) {
        const rpl_dag_node *first = &dag->nodes[dag->path[i]];
        int64_t dur = 0;
        uint32_t j = i;
        cJSON *o;

        while (j < dag->path_len && dag->nodes[dag->path[j]].symbol == first->symbol &&
               dag->nodes[dag->path[j]].lane == first->lane)
            dur += rpl_dag_node_duration(&dag->nodes[dag->path[j++]]);
        o = rpl_json_doc_push_object(d, arr);
        if (!o)
            return;
        rpl_json_doc_add_string(d, o, "name", dag->symbols[first->symbol].name);
        rpl_json_doc_add_string(d, o, "kind", kind_name(first->kind));
        rpl_json_doc_add_string(d, o, "lane", dag->lanes[first->lane].name);
        rpl_json_doc_add_int64(d, o, "nodes", j - i);
        rpl_json_doc_add_int64(d, o, "start_ns", first->start - dag->t0);
        rpl_json_doc_add_int64(d, o, "end_ns", dag->nodes[dag->path[j - 1]].end - dag->t0);
        rpl_json_doc_add_int64(d, o, "duration_ns", dur);
        segments++;
        i = j;
    }
    rpl_json_doc_check(d,
                       cJSON_AddBoolToObject(root, "critical_path_truncated", i < dag->path_len));
}

int rpl_dag_json(cJSON **out, const rpl_dag *dag, const char *const *inputs, size_t ninputs,
                 const char *helper_regex)
{
    rpl_json_doc d = {false};
    cJSON *root = rpl_json_doc_begin(&d, RPL_DAG_SCHEMA_VERSION, out);
    const rpl_dag_symbol *dom = dag->dominant != RPL_NONE ? &dag->symbols[dag->dominant] : NULL;

    if (!root)
        return rpl_error_oom();
    rpl_json_doc_add_tool(&d, root);
    add_inputs(&d, root, inputs, ninputs);
    add_options(&d, root, dag, helper_regex);
    rpl_json_doc_add_int64(&d, root, "critical_path_ns", dag->critical_path_ns);
    rpl_json_doc_add_int64(&d, root, "span_ns", dag->span_ns);
    rpl_json_doc_add_int64(&d, root, "t0_ns", dag->t0);
    rpl_json_doc_add_int64(&d, root, "gpu_time_ns", dag->gpu_time_ns);
    rpl_json_doc_add_int64(&d, root, "active_ns", dag->active_ns);
    rpl_json_doc_add_number(&d, root, "overlap", dag->overlap);
    rpl_json_doc_add_number(&d, root, "utilization", fraction(dag->active_ns, dag->span_ns));
    rpl_json_doc_add_string(&d, root, "dominant_symbol", dom ? dom->name : NULL);
    rpl_json_doc_add_number(&d, root, "dominant_fraction", dag->dominant_fraction);
    rpl_json_doc_add_number(&d, root, "speedup_ceiling", dag->speedup_ceiling);
    rpl_json_doc_add_int64(&d, root, "nodes_on_path", dag->path_len);
    add_counts(&d, root, dag);
    add_lanes(&d, root, dag);
    add_symbols(&d, root, dag);
    add_priorities(&d, root, dag);
    add_path(&d, root, dag);
    return rpl_json_doc_finish(&d, root, out);
}

int rpl_dag_json_write(const char *dir, const rpl_dag *dag, const rpl_kernel_filter *filter,
                       const char *const *inputs, size_t ninputs)
{
    cJSON *json = NULL;
    char *path = NULL;
    int rc = rpl_dag_json(&json, dag, inputs, ninputs, filter ? filter->helper_regex : NULL);

    if (rc == 0)
        rc = rpl_path_join(&path, dir, RPL_DAG_JSON_NAME);
    if (rc == 0)
        rc = rpl_json_write_file(path, json);
    if (rc == 0)
        rpl_log_info("wrote %s", path);
    else
        rpl_error_prefix("critical-path DAG");
    free(path);
    cJSON_Delete(json);
    return rc;
}
