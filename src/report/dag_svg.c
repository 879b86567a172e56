/*
 * A static SVG timeline of the DAG: one lane per stream/queue, operations as
 * bars, the critical path in red with its hops between lanes, a time axis
 * and a legend.  Bars closer than a pixel are merged, so the file stays
 * small (at most a few thousand elements per lane) whatever the trace size.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/dag_report.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/report.h"
#include "rpl/strbuf.h"

#define WIDTH      1400.0
#define LABEL_W    220.0
#define RIGHT_W    30.0
#define TOP_H      64.0
#define LANE_H     18.0
#define LANE_GAP   8.0
#define AXIS_H     40.0
#define LEGEND_H   36.0
#define MIN_BAR_W  0.8
#define COLOR_BAR  "#8fa9c9"
#define COLOR_PATH "#d62728"

typedef struct svg {
    rpl_strbuf sb;
    int rc;
    double plot_w, span;
    int64_t t0;
} svg;

static void put(svg *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(svg *s, const char *fmt, ...)
{
    va_list ap;
    char buf[1024];
    int n;

    if (s->rc)
        return;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(buf))
        s->rc = rpl_error_set(RPL_ERROR, "svg element text too long");
    else if (rpl_strbuf_put(&s->sb, buf, (size_t)n))
        s->rc = rpl_error_oom();
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p)
{
    size_t n = p[0] < 0x80         ? 1
               : (p[0] >> 5) == 6  ? 2
               : (p[0] >> 4) == 14 ? 3
               : (p[0] >> 3) == 30 ? 4
                                   : 0;

    if (n == 0 || (n == 2 && p[0] < 0xc2))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    return n;
}

/* Text content or attribute value: escaped, control bytes and bad UTF-8 as '?'. */
static void put_text(svg *s, const char *text)
{
    const unsigned char *p = (const unsigned char *)text;
    int rc = 0;

    while (*p && !rc && !s->rc) {
        size_t n = utf8_len(p);

        if (*p == '&')
            rc = rpl_strbuf_puts(&s->sb, "&amp;");
        else if (*p == '<')
            rc = rpl_strbuf_puts(&s->sb, "&lt;");
        else if (*p == '>')
            rc = rpl_strbuf_puts(&s->sb, "&gt;");
        else if (*p == '"')
            rc = rpl_strbuf_puts(&s->sb, "&quot;");
        else if (n == 0 || *p < 0x20 || *p == 0x7f)
            rc = rpl_strbuf_putc(&s->sb, '?');
        else
            rc = rpl_strbuf_put(&s->sb, p, n);
        p += n ? n : 1;
    }
    if (rc)
        s->rc = rpl_error_oom();
}

static double xpos(const svg *s, int64_t t)
{
    return LABEL_W + (double)(t - s->t0) / s->span * s->plot_w;
}

static double lane_y(uint32_t lane)
{
    return TOP_H + lane * (LANE_H + LANE_GAP);
}

static void flush_bar(svg *s, double x0, double x1, double y, const char *title)
{
    put(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", x0, y, x1 - x0, LANE_H);
    if (title) {
        put(s, "><title>");
        put_text(s, title);
        put(s, "</title></rect>\n");
    } else {
        put(s, "/>\n");
    }
}

/* Bars of one lane; only_path: just the critical nodes.  Runs within half a pixel merge. */
static void lane_bars(svg *s, const rpl_dag *dag, uint32_t l, bool only_path)
{
    const rpl_dag_lane *lane = &dag->lanes[l];
    double run0 = 0, run1 = -1, y = lane_y(l);
    uint32_t run_nodes = 0, last = 0;

    for (uint32_t k = 0; k < lane->count; k++) {
        uint32_t i = dag->lane_nodes[lane->first + k];
        const rpl_dag_node *n = &dag->nodes[i];
        double x0 = xpos(s, n->start), x1 = fmax(xpos(s, n->end), x0 + MIN_BAR_W);

        if (only_path && !n->on_path)
            continue;
        if (run_nodes && x0 <= run1 + 0.5) {
            run1 = fmax(run1, x1);
            run_nodes++;
            continue;
        }
        if (run_nodes)
            flush_bar(s, run0, run1, y,
                      run_nodes == 1 ? dag->symbols[dag->nodes[last].symbol].name : NULL);
        run0 = x0, run1 = x1, run_nodes = 1, last = i;
    }
    if (run_nodes)
        flush_bar(s, run0, run1, y,
                  run_nodes == 1 ? dag->symbols[dag->nodes[last].symbol].name : NULL);
}

/* Hops of the critical path between lanes, one line per distinct pixel position. */
static void path_hops(svg *s, const rpl_dag *dag)
{
    long last[4] = {-1, -1, -1, -1};

    put(s, "<g stroke=\"%s\" stroke-width=\"1.2\" fill=\"none\">\n", COLOR_PATH);
    for (uint32_t k = 1; k < dag->path_len; k++) {
        const rpl_dag_node *a = &dag->nodes[dag->path[k - 1]], *b = &dag->nodes[dag->path[k]];
        double x1 = xpos(s, a->end), y1 = lane_y(a->lane) + LANE_H / 2;
        double x2 = xpos(s, b->start), y2 = lane_y(b->lane) + LANE_H / 2;
        long key[4] = {lround(x1), lround(y1), lround(x2), lround(y2)};

        if (a->lane == b->lane || memcmp(key, last, sizeof(key)) == 0)
            continue;
        memcpy(last, key, sizeof(key));
        put(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x1, y1, x2, y2);
    }
    put(s, "</g>\n");
}

static void axis(svg *s, double y)
{
    double raw = s->span / 8, mag = pow(10, floor(log10(raw > 0 ? raw : 1))), step = mag;
    char label[64];

    if (raw > 5 * mag)
        step = 10 * mag;
    else if (raw > 2 * mag)
        step = 5 * mag;
    else if (raw > mag)
        step = 2 * mag;
    put(s, "<g stroke=\"#444\" font-size=\"11\">\n");
    put(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", LABEL_W, y,
        LABEL_W + s->plot_w, y);
    for (double t = 0; t <= s->span + step / 1e6; t += step) {
        double x = LABEL_W + t / s->span * s->plot_w;

        put(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, y, x, y + 5);
        put(s, "<text x=\"%.1f\" y=\"%.1f\" stroke=\"none\" text-anchor=\"middle\">%s</text>\n", x,
            y + 18, t == 0 ? "0" : rpl_format_ns(label, sizeof(label), t));
    }
    put(s,
        "<text x=\"%.1f\" y=\"%.1f\" stroke=\"none\" text-anchor=\"end\">time since the "
        "first operation</text>\n</g>\n",
        LABEL_W + s->plot_w, y + 34);
}

static void legend(svg *s, double y)
{
    put(s, "<g font-size=\"12\">\n");
    put(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n", LABEL_W, y,
        COLOR_PATH);
    put(s, "<text x=\"%.1f\" y=\"%.1f\">critical path</text>\n", LABEL_W + 20, y + 10);
    put(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n", LABEL_W + 130,
        y, COLOR_BAR);
    put(s, "<text x=\"%.1f\" y=\"%.1f\">other operations</text>\n", LABEL_W + 150, y + 10);
    put(s,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
        "stroke-width=\"1.2\"/>\n",
        LABEL_W + 280, y + 5, LABEL_W + 300, y + 5, COLOR_PATH);
    put(s, "<text x=\"%.1f\" y=\"%.1f\">critical-path dependency between lanes</text>\n</g>\n",
        LABEL_W + 306, y + 10);
}

static void header(svg *s, const rpl_dag *dag)
{
    char cp[64], span[64];

    put(s, "<text x=\"10\" y=\"22\" font-size=\"16\">Critical path %s of a %s span",
        rpl_format_ns(cp, sizeof(cp), (double)dag->critical_path_ns),
        rpl_format_ns(span, sizeof(span), (double)dag->span_ns));
    if (dag->dominant != RPL_NONE) {
        put(s, "; dominant: ");
        put_text(s, dag->symbols[dag->dominant].name);
        put(s, " (%.1f%%)", 100.0 * dag->dominant_fraction);
    }
    put(s,
        "</text>\n<text x=\"10\" y=\"42\" fill=\"#555\">%u operations on %u lanes, %u on the "
        "path; edges: %u program order, %u event wait, %u host sync, %u default stream, %u "
        "inferred; overlap %.2f</text>\n",
        dag->node_count, dag->lane_count, dag->path_len,
        dag->edge_counts[RPL_DAG_EDGE_PROGRAM_ORDER], dag->edge_counts[RPL_DAG_EDGE_EVENT_WAIT],
        dag->edge_counts[RPL_DAG_EDGE_HOST_SYNC], dag->edge_counts[RPL_DAG_EDGE_DEFAULT_STREAM],
        dag->edge_counts[RPL_DAG_EDGE_INFERRED], dag->overlap);
}

int rpl_dag_svg_write(const char *path, const rpl_dag *dag)
{
    svg s = {RPL_STRBUF_INIT, 0, WIDTH - LABEL_W - RIGHT_W, 1, dag->t0};
    double lanes_h = dag->lane_count * (LANE_H + LANE_GAP);
    double height = TOP_H + lanes_h + AXIS_H + LEGEND_H;
    bool pids = false;

    s.span = dag->span_ns > 0 ? (double)dag->span_ns : 1.0;
    for (uint32_t l = 1; l < dag->lane_count; l++)
        pids = pids || dag->lanes[l].pid != dag->lanes[0].pid;
    put(&s,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
        "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
        "<title>rocm-perf critical path</title>\n"
        "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
        WIDTH, height, WIDTH, height);
    header(&s, dag);
    for (uint32_t l = 0; l < dag->lane_count; l++) {
        put(&s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f3f3f3\"/>\n",
            LABEL_W, lane_y(l), s.plot_w, LANE_H);
        put(&s, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", LABEL_W - 8,
            lane_y(l) + LANE_H - 5);
        put_text(&s, dag->lanes[l].name);
        if (pids)
            put(&s, " (pid %lld)", (long long)dag->lanes[l].pid);
        put(&s, "</text>\n");
    }
    put(&s, "<g fill=\"%s\">\n", COLOR_BAR);
    for (uint32_t l = 0; l < dag->lane_count; l++)
        lane_bars(&s, dag, l, false);
    put(&s, "</g>\n<g fill=\"%s\">\n", COLOR_PATH);
    for (uint32_t l = 0; l < dag->lane_count; l++)
        lane_bars(&s, dag, l, true);
    put(&s, "</g>\n");
    path_hops(&s, dag);
    axis(&s, TOP_H + lanes_h + 4);
    legend(&s, TOP_H + lanes_h + AXIS_H + 10);
    put(&s, "</svg>\n");
    if (!s.rc)
        s.rc = rpl_file_write_atomic(path, s.sb.ptr, s.sb.len);
    rpl_strbuf_release(&s.sb);
    return s.rc;
}
