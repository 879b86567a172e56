/* The dag.json document (docs/schemas/dag.schema.json) and its writer for analyze --out. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/dag_report.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/log.h"
#include "rpl/version.h"

/* cJSON's add functions return NULL when out of memory; one flag collects that. */
typedef struct doc {
    bool ok;
} doc;

static cJSON *chk(doc *d, cJSON *item)
{
    if (!item)
        d->ok = false;
    return item;
}

static void add_int(doc *d, cJSON *o, const char *key, int64_t v)
{
    chk(d, rpl_json_add_int64(o, key, v));
}

static void add_num(doc *d, cJSON *o, const char *key, double v)
{
    chk(d, isfinite(v) ? cJSON_AddNumberToObject(o, key, v) : cJSON_AddNullToObject(o, key));
}

static void add_str(doc *d, cJSON *o, const char *key, const char *s)
{
    chk(d, s ? cJSON_AddStringToObject(o, key, s) : cJSON_AddNullToObject(o, key));
}

static cJSON *push(doc *d, cJSON *arr)
{
    cJSON *item = cJSON_CreateObject();

    if (item && cJSON_AddItemToArray(arr, item))
        return item;
    cJSON_Delete(item);
    d->ok = false;
    return NULL;
}

static const char *kind_name(uint8_t kind)
{
    return kind == RPL_DAG_NODE_DISPATCH ? "kernel" : "copy";
}

static double fraction(int64_t part, int64_t whole)
{
    return whole > 0 ? (double)part / (double)whole : 0.0;
}

static void add_inputs(doc *d, cJSON *root, const char *const *inputs, size_t n)
{
    cJSON *arr = chk(d, cJSON_AddArrayToObject(root, "inputs"));

    for (size_t i = 0; arr && i < n; i++) {
        char *abs = realpath(inputs[i], NULL);
        cJSON *s = cJSON_CreateString(abs ? abs : inputs[i]);

        free(abs);
        if (!s || !cJSON_AddItemToArray(arr, s)) {
            cJSON_Delete(s);
            d->ok = false;
        }
    }
}

static void add_options(doc *d, cJSON *root, const rpl_dag *dag, const char *helper_regex)
{
    static const char *const infer[] = {"auto", "never", "always"};
    cJSON *o = chk(d, cJSON_AddObjectToObject(root, "options"));

    if (!o)
        return;
    add_str(d, o, "infer", infer[dag->opts.infer]);
    add_int(d, o, "gap_ns", dag->opts.gap_ns);
    add_int(d, o, "tolerance_ns", dag->opts.tolerance_ns);
    add_str(d, o, "helper_regex", helper_regex);
}

static void add_counts(doc *d, cJSON *root, const rpl_dag *dag)
{
    cJSON *nodes = chk(d, cJSON_AddObjectToObject(root, "nodes"));
    cJSON *edges = chk(d, cJSON_AddObjectToObject(root, "edges"));
    cJSON *sync = chk(d, cJSON_AddObjectToObject(root, "sync"));
    uint32_t copies = 0;

    /* Each node counts in its symbol: no pass over the nodes. */
    for (uint32_t k = 0; k < dag->symbol_count; k++)
        if (dag->symbols[k].kind == RPL_DAG_NODE_COPY)
            copies += dag->symbols[k].count;
    if (nodes) {
        add_int(d, nodes, "total", dag->node_count);
        add_int(d, nodes, "dispatches", dag->node_count - copies);
        add_int(d, nodes, "copies", copies);
    }
    if (edges) {
        for (int k = 0; k < RPL_DAG_EDGE_KINDS; k++)
            add_int(d, edges, rpl_dag_edge_kind_name((rpl_dag_edge_kind)k), dag->edge_counts[k]);
        add_int(d, edges, "total", dag->edge_count);
    }
    if (sync) {
        add_int(d, sync, "regions", dag->sync_regions);
        add_int(d, sync, "waits_unresolved", dag->waits_unresolved);
        add_int(d, sync, "inferred_processes", dag->inferred_processes);
        add_int(d, sync, "blocking_calls", dag->blocking_calls);
        add_int(d, sync, "blocking_unresolved", dag->blocking_unresolved);
        add_int(d, sync, "host_edges_dropped", dag->host_edges_dropped);
        add_int(d, sync, "legacy_default_lanes", dag->legacy_lanes);
        add_int(d, sync, "per_thread_default_lanes", dag->per_thread_lanes);
        add_int(d, sync, "nonblocking_lanes", dag->nonblocking_lanes);
    }
}

static void add_lanes(doc *d, cJSON *root, const rpl_dag *dag)
{
    cJSON *arr = chk(d, cJSON_AddArrayToObject(root, "lanes"));
    uint32_t *on_path = calloc((size_t)dag->lane_count + 1, sizeof(*on_path));

    if (!on_path) {
        d->ok = false;
        return;
    }
    /* The nodes on the path are those marked on_path. */
    for (uint32_t i = 0; i < dag->path_len; i++)
        on_path[dag->nodes[dag->path[i]].lane]++;
    for (uint32_t l = 0; arr && l < dag->lane_count; l++) {
        const rpl_dag_lane *lane = &dag->lanes[l];
        cJSON *o = push(d, arr);

        if (!o)
            break;
        add_str(d, o, "name", lane->name);
        add_str(d, o, "kind", rpl_dag_lane_kind_name((rpl_dag_lane_kind)lane->kind));
        add_int(d, o, "pid", lane->pid);
        add_int(d, o, "nodes", lane->count);
        add_int(d, o, "nodes_on_path", on_path[l]);
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

static void add_symbols(doc *d, cJSON *root, const rpl_dag *dag)
{
    cJSON *arr = chk(d, cJSON_AddArrayToObject(root, "symbols"));
    sym_order *order = malloc(((size_t)dag->symbol_count + 1) * sizeof(*order));

    if (!order) {
        d->ok = false;
        return;
    }
    for (uint32_t k = 0; k < dag->symbol_count; k++)
        order[k] = (sym_order){dag->symbols[k].path_ns, dag->symbols[k].total_ns, k};
    qsort(order, dag->symbol_count, sizeof(*order), cmp_symbol);
    for (uint32_t k = 0; arr && k < dag->symbol_count; k++) {
        const rpl_dag_symbol *s = &dag->symbols[order[k].index];
        cJSON *o = push(d, arr);

        if (!o)
            break;
        add_str(d, o, "name", s->name);
        add_str(d, o, "mangled_name", s->kind == RPL_DAG_NODE_DISPATCH ? s->mangled : NULL);
        add_str(d, o, "kind", kind_name(s->kind));
        chk(d, cJSON_AddBoolToObject(o, "helper", s->helper));
        add_int(d, o, "count", s->count);
        add_int(d, o, "total_ns", s->total_ns);
        add_int(d, o, "path_count", s->path_count);
        add_int(d, o, "path_ns", s->path_ns);
        add_num(d, o, "path_fraction", fraction(s->path_ns, dag->critical_path_ns));
        add_int(d, o, "min_slack_ns", s->min_slack_ns);
    }
    free(order);
}

static void add_priorities(doc *d, cJSON *root, const rpl_dag *dag)
{
    cJSON *arr = chk(d, cJSON_AddArrayToObject(root, "priorities"));
    uint32_t top[RPL_DAG_TOP_N_DEFAULT], n = 0;

    if (!arr)
        return;
    if (rpl_dag_priorities(dag, top, RPL_DAG_TOP_N_DEFAULT, &n)) {
        d->ok = false;
        return;
    }
    for (uint32_t k = 0; k < n; k++) {
        const rpl_dag_symbol *s = &dag->symbols[top[k]];
        cJSON *o = push(d, arr);

        if (!o)
            return;
        add_int(d, o, "rank", k + 1);
        add_str(d, o, "name", s->name);
        add_int(d, o, "path_ns", s->path_ns);
        add_num(d, o, "path_fraction", fraction(s->path_ns, dag->critical_path_ns));
        add_num(d, o, "headroom", s->headroom);
        add_str(d, o, "headroom_source", s->headroom_known ? "roofline" : "placeholder");
        add_num(d, o, "score_ns", (double)s->path_ns * s->headroom);
    }
}

/* The critical path as runs of consecutive nodes with the same symbol and lane. */
static void add_path(doc *d, cJSON *root, const rpl_dag *dag)
{
    cJSON *arr = chk(d, cJSON_AddArrayToObject(root, "critical_path"));
    uint32_t segments = 0, i = 0;

    while (arr && i < dag->path_len && segments < RPL_DAG_JSON_MAX_SEGMENTS) {
        const rpl_dag_node *first = &dag->nodes[dag->path[i]];
        int64_t dur = 0;
        uint32_t j = i;
        cJSON *o;

        while (j < dag->path_len && dag->nodes[dag->path[j]].symbol == first->symbol &&
               dag->nodes[dag->path[j]].lane == first->lane)
            dur += rpl_dag_node_duration(&dag->nodes[dag->path[j++]]);
        o = push(d, arr);
        if (!o)
            return;
        add_str(d, o, "name", dag->symbols[first->symbol].name);
        add_str(d, o, "kind", kind_name(first->kind));
        add_str(d, o, "lane", dag->lanes[first->lane].name);
        add_int(d, o, "nodes", j - i);
        add_int(d, o, "start_ns", first->start - dag->t0);
        add_int(d, o, "end_ns", dag->nodes[dag->path[j - 1]].end - dag->t0);
        add_int(d, o, "duration_ns", dur);
        segments++;
        i = j;
    }
    chk(d, cJSON_AddBoolToObject(root, "critical_path_truncated", i < dag->path_len));
}

int rpl_dag_json(cJSON **out, const rpl_dag *dag, const char *const *inputs, size_t ninputs,
                 const char *helper_regex)
{
    doc d = {true};
    cJSON *root = cJSON_CreateObject(), *tool;
    const rpl_dag_symbol *dom = dag->dominant != RPL_NONE ? &dag->symbols[dag->dominant] : NULL;

    *out = NULL;
    if (!root)
        return rpl_error_oom();
    add_str(&d, root, "schema_version", RPL_DAG_SCHEMA_VERSION);
    tool = chk(&d, cJSON_AddObjectToObject(root, "tool"));
    if (tool) {
        add_str(&d, tool, "name", "rocm-perf");
        add_str(&d, tool, "version", RPL_VERSION_STRING);
    }
    add_inputs(&d, root, inputs, ninputs);
    add_options(&d, root, dag, helper_regex);
    add_int(&d, root, "critical_path_ns", dag->critical_path_ns);
    add_int(&d, root, "span_ns", dag->span_ns);
    add_int(&d, root, "t0_ns", dag->t0);
    add_int(&d, root, "gpu_time_ns", dag->gpu_time_ns);
    add_int(&d, root, "active_ns", dag->active_ns);
    add_num(&d, root, "overlap", dag->overlap);
    add_num(&d, root, "utilization", fraction(dag->active_ns, dag->span_ns));
    add_str(&d, root, "dominant_symbol", dom ? dom->name : NULL);
    add_num(&d, root, "dominant_fraction", dag->dominant_fraction);
    add_num(&d, root, "speedup_ceiling", dag->speedup_ceiling);
    add_int(&d, root, "nodes_on_path", dag->path_len);
    add_counts(&d, root, dag);
    add_lanes(&d, root, dag);
    add_symbols(&d, root, dag);
    add_priorities(&d, root, dag);
    add_path(&d, root, dag);
    if (!d.ok) {
        cJSON_Delete(root);
        return rpl_error_oom();
    }
    *out = root;
    return 0;
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
