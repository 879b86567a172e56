/*
 * The DAG as a Chrome trace-event JSON file (opens in ui.perfetto.dev and
 * chrome://tracing): one thread track per lane in its process, "X" complete
 * events in microseconds from the trace's first start, flow arrows ("s" and
 * "f" with "bp":"e", bound to the enclosing slices) for the dependencies
 * between lanes (event waits, inferred edges; program order is the order of
 * a track), and a separate "critical path" process holding the path.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/dag_report.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/strbuf.h"

/* JSON string literals (quoted, escaped by cJSON) for the symbol and lane names. */
static int quote_all(char ***out, const char *(*name)(const rpl_dag *, uint32_t),
                     const rpl_dag *dag, uint32_t n)
{
    char **q = calloc((size_t)n + 1, sizeof(*q));

    *out = q;
    if (!q)
        return rpl_error_oom();
    for (uint32_t i = 0; i < n; i++) {
        cJSON *s = cJSON_CreateString(name(dag, i));

        q[i] = s ? cJSON_PrintUnformatted(s) : NULL;
        cJSON_Delete(s);
        if (!q[i])
            return rpl_error_oom();
    }
    return 0;
}

static void free_all(char **q, uint32_t n)
{
    for (uint32_t i = 0; q && i < n; i++)
        cJSON_free(q[i]);
    free(q);
}

static const char *symbol_name(const rpl_dag *dag, uint32_t i)
{
    return dag->symbols[i].name;
}

static const char *lane_name(const rpl_dag *dag, uint32_t i)
{
    return dag->lanes[i].name;
}

static double us(const rpl_dag *dag, int64_t t)
{
    return (double)(t - dag->t0) / 1000.0;
}

/* Middle of a node, where flow events bind to it. */
static double mid_us(const rpl_dag *dag, const rpl_dag_node *n)
{
    return us(dag, n->start) + (double)rpl_dag_node_duration(n) / 2000.0;
}

typedef struct writer {
    rpl_strbuf sb;
    int rc;
    bool first;
} writer;

static void emit(writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void emit(writer *w, const char *fmt, ...)
{
    va_list ap;
    char buf[512];
    int n;

    if (w->rc)
        return;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(buf))
        w->rc = rpl_error_set(RPL_ERROR, "perfetto event text too long");
    else if ((w->first ? 0 : rpl_strbuf_puts(&w->sb, ",\n")) || rpl_strbuf_put(&w->sb, buf, n))
        w->rc = rpl_error_oom();
    w->first = false;
}

static int64_t path_pid(const rpl_dag *dag)
{
    int64_t pid = 0;
    bool taken = true;

    for (uint32_t l = 0; l < dag->lane_count; l++)
        if (dag->lanes[l].pid >= pid)
            pid = dag->lanes[l].pid + 1;
    while (taken) {
        taken = false;
        for (uint32_t l = 0; l < dag->lane_count && !taken; l++)
            taken = dag->lanes[l].pid == pid;
        pid += taken;
    }
    return pid;
}

static void emit_metadata(writer *w, const rpl_dag *dag, char **lanes, int64_t cp_pid)
{
    for (uint32_t l = 0; l < dag->lane_count; l++) {
        const rpl_dag_lane *lane = &dag->lanes[l];

        if (l == 0 || dag->lanes[l - 1].pid != lane->pid)
            emit(w,
                 "{\"ph\":\"M\",\"pid\":%lld,\"tid\":0,\"name\":\"process_name\","
                 "\"args\":{\"name\":\"GPU work of process %lld\"}}",
                 (long long)lane->pid, (long long)lane->pid);
        emit(w,
             "{\"ph\":\"M\",\"pid\":%lld,\"tid\":%u,\"name\":\"thread_name\",\"args\":{\"name\":",
             (long long)lane->pid, l + 1);
        if (!w->rc && (rpl_strbuf_puts(&w->sb, lanes[l]) || rpl_strbuf_puts(&w->sb, "}}")))
            w->rc = rpl_error_oom();
        emit(w,
             "{\"ph\":\"M\",\"pid\":%lld,\"tid\":%u,\"name\":\"thread_sort_index\","
             "\"args\":{\"sort_index\":%u}}",
             (long long)lane->pid, l + 1, l + 1);
    }
    emit(w,
         "{\"ph\":\"M\",\"pid\":%lld,\"tid\":0,\"name\":\"process_name\","
         "\"args\":{\"name\":\"critical path\"}}",
         (long long)cp_pid);
    emit(w,
         "{\"ph\":\"M\",\"pid\":%lld,\"tid\":0,\"name\":\"process_sort_index\","
         "\"args\":{\"sort_index\":-1}}",
         (long long)cp_pid);
    emit(w,
         "{\"ph\":\"M\",\"pid\":%lld,\"tid\":1,\"name\":\"thread_name\","
         "\"args\":{\"name\":\"critical path (%lld ns)\"}}",
         (long long)cp_pid, (long long)dag->critical_path_ns);
}

/* One complete event; `name` is a JSON literal and is appended after the fixed part. */
static void emit_slice(writer *w, const rpl_dag *dag, const rpl_trace *t, uint32_t i, int64_t pid,
                       uint32_t tid, const char *name)
{
    const rpl_dag_node *n = &dag->nodes[i];

    emit(w,
         "{\"ph\":\"X\",\"pid\":%lld,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f,\"cat\":\"%s\","
         "\"args\":{\"id\":%lld,\"node\":%u,\"earliest_start_ns\":%lld,\"latest_start_ns\":%lld,"
         "\"slack_ns\":%lld,\"critical\":%s},\"name\":",
         (long long)pid, tid, us(dag, n->start), (double)rpl_dag_node_duration(n) / 1000.0,
         n->kind == RPL_DAG_NODE_DISPATCH ? "kernel" : "copy",
         (long long)rpl_dag_node_trace_id(t, n), i, (long long)n->earliest_start,
         (long long)n->latest_start, (long long)rpl_dag_node_slack(n),
         n->on_path ? "true" : "false");
    if (!w->rc && (rpl_strbuf_puts(&w->sb, name) || rpl_strbuf_putc(&w->sb, '}')))
        w->rc = rpl_error_oom();
}

static void emit_flows(writer *w, const rpl_dag *dag)
{
    uint64_t id = 0;

    for (uint32_t e = 0; e < dag->edge_count; e++) {
        const rpl_dag_edge *edge = &dag->edges[e];
        const rpl_dag_node *u = &dag->nodes[edge->src], *v = &dag->nodes[edge->dst];
        const char *kind = rpl_dag_edge_kind_name((rpl_dag_edge_kind)edge->kind);

        if (edge->kind == RPL_DAG_EDGE_PROGRAM_ORDER)
            continue;
        id++;
        emit(w,
             "{\"ph\":\"s\",\"id\":%llu,\"pid\":%lld,\"tid\":%u,\"ts\":%.3f,\"cat\":\"%s\","
             "\"name\":\"%s\"}",
             (unsigned long long)id, (long long)dag->lanes[u->lane].pid, u->lane + 1,
             mid_us(dag, u), kind, kind);
        emit(w,
             "{\"ph\":\"f\",\"bp\":\"e\",\"id\":%llu,\"pid\":%lld,\"tid\":%u,\"ts\":%.3f,"
             "\"cat\":\"%s\",\"name\":\"%s\"}",
             (unsigned long long)id, (long long)dag->lanes[v->lane].pid, v->lane + 1,
             mid_us(dag, v), kind, kind);
    }
}

int rpl_dag_perfetto_write(const char *path, const rpl_dag *dag, const rpl_trace *trace)
{
    writer w = {RPL_STRBUF_INIT, 0, true};
    char **syms = NULL, **lanes = NULL;
    int64_t cp_pid = path_pid(dag);

    w.rc = quote_all(&syms, symbol_name, dag, dag->symbol_count);
    if (!w.rc)
        w.rc = quote_all(&lanes, lane_name, dag, dag->lane_count);
    if (!w.rc && rpl_strbuf_puts(&w.sb, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"))
        w.rc = rpl_error_oom();
    emit_metadata(&w, dag, lanes, cp_pid);
    for (uint32_t i = 0; i < dag->node_count && !w.rc; i++)
        emit_slice(&w, dag, trace, i, dag->lanes[dag->nodes[i].lane].pid, dag->nodes[i].lane + 1,
                   syms[dag->nodes[i].symbol]);
    for (uint32_t k = 0; k < dag->path_len && !w.rc; k++)
        emit_slice(&w, dag, trace, dag->path[k], cp_pid, 1, syms[dag->nodes[dag->path[k]].symbol]);
    emit_flows(&w, dag);
    if (!w.rc && rpl_strbuf_puts(&w.sb, "\n]}\n"))
        w.rc = rpl_error_oom();
    if (!w.rc)
        w.rc = rpl_file_write_atomic(path, w.sb.ptr, w.sb.len);
    free_all(syms, dag->symbol_count);
    free_all(lanes, dag->lane_count);
    rpl_strbuf_release(&w.sb);
    return w.rc;
}
