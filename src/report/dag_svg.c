/*
 * A static SVG timeline of the DAG: one lane per stream/queue, operations as
 * bars, the critical path in red with its hops between lanes, a time axis
 * and a legend.  Bars closer than a pixel are merged, so the file stays
 * small (at most a few thousand elements per lane) whatever the trace size.
 *
 * No text overlaps other text, a hop or the edge of the chart: a bar of one
 * kernel or copy (one operation, or several back to back: " ×N") is
 * labelled with its name only where the name, shortened if need be
 * (svg_text.h), fits inside the bar between the hops that cross it; lane
 * labels and the dominant kernel in the title are shortened to their room.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/array.h"
#include "rpl/dag_report.h"
#include "rpl/error.h"
#include "rpl/report.h"
#include "rpl/strbuf.h"
#include "svg_file.h"
#include "svg_text.h"

#define WIDTH           1400.0
#define MARGIN          10.0  /* left of the title and of the lane labels */
#define LABEL_W         220.0 /* the lane labels' column, left of the plot */
#define LABEL_GAP       8.0   /* between a lane label and its lane */
#define RIGHT_W         30.0
#define TOP_H           64.0
#define LANE_H          18.0
#define LANE_GAP        8.0
#define AXIS_H          44.0 /* tick labels, then the axis title */
#define LEGEND_H        36.0
#define MIN_BAR_W       0.8
#define BAR_PAD         3.0 /* a bar label's inset from the ends of its bar and from hops */
#define MAX_HOPS_IN_BAR 32
#define FONT_TITLE      16.0
#define FONT_TEXT       12.0
#define FONT_TICK       11.0
#define FONT_BAR        10.0
#define COLOR_BAR       "#8fa9c9"
#define COLOR_PATH      "#d62728"

typedef struct hop {
    double x1, y1, x2, y2;
} hop;

typedef struct svg {
    rpl_strbuf sb;
    int rc;
    double plot_w, span;
    int64_t t0;
    hop *hops; /* the lines drawn by path_hops: bar labels keep off them */
    size_t nhops, cap_hops;
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

/* <text> with its font size (so that checks need not inherit it), up to its content. */
static void text_open(svg *s, double x, double y, double font, const char *anchor, const char *fill)
{
    put(s, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\"", x, y, font);
    if (anchor)
        put(s, " text-anchor=\"%s\"", anchor);
    if (fill)
        put(s, " fill=\"%s\"", fill);
    put(s, ">");
}

static void text(svg *s, double x, double y, double font, const char *anchor, const char *fill,
                 const char *content)
{
    text_open(s, x, y, font, anchor, fill);
    put_text(s, content);
    put(s, "</text>\n");
}

static double xpos(const svg *s, int64_t t)
{
    return LABEL_W + (double)(t - s->t0) / s->span * s->plot_w;
}

static double lane_y(uint32_t lane)
{
    return TOP_H + lane * (LANE_H + LANE_GAP);
}

/*
 * Bars closer than half a pixel, drawn as one: `nodes` operations from x0
 * to x1, all of kernel or copy `symbol` (else RPL_NONE), all on the
 * critical path (path 1), none (0) or some (2).
 */
typedef struct run {
    uint32_t lane, nodes, symbol;
    int path;
    double x0, x1;
} run;

typedef void (*run_fn)(svg *s, const rpl_dag *dag, const run *r);

/* The runs of one lane, in time order; only_path: of just the critical nodes. */
static void lane_runs(svg *s, const rpl_dag *dag, uint32_t l, bool only_path, run_fn fn)
{
    const rpl_dag_lane *lane = &dag->lanes[l];
    run r = {l, 0, RPL_NONE, 0, 0, -1};

    for (uint32_t k = 0; k < lane->count; k++) {
        const rpl_dag_node *n = &dag->nodes[dag->lane_nodes[lane->first + k]];
        double x0 = xpos(s, n->start), x1 = fmax(xpos(s, n->end), x0 + MIN_BAR_W);

        if (only_path && !n->on_path)
            continue;
        if (r.nodes && x0 <= r.x1 + 0.5) {
            r.x1 = fmax(r.x1, x1);
            r.nodes++;
            r.symbol = r.symbol == n->symbol ? r.symbol : RPL_NONE;
            r.path = r.path == n->on_path ? r.path : 2;
            continue;
        }
        if (r.nodes)
            fn(s, dag, &r);
        r.x0 = x0, r.x1 = x1, r.nodes = 1, r.symbol = n->symbol, r.path = n->on_path;
    }
    if (r.nodes)
        fn(s, dag, &r);
}

/* A bar; one of a single kernel or copy has its name (and count) as a tooltip. */
static void draw_run(svg *s, const rpl_dag *dag, const run *r)
{
    put(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", r->x0, lane_y(r->lane),
        r->x1 - r->x0, LANE_H);
    if (r->symbol != RPL_NONE) {
        put(s, "><title>");
        put_text(s, dag->symbols[r->symbol].name);
        if (r->nodes > 1)
            put(s, " \xc3\x97%u", r->nodes);
        put(s, "</title></rect>\n");
    } else {
        put(s, "/>\n");
    }
}

/* Where hop h passes the band of heights [y0, y1]: its x interval there, or false. */
static bool hop_span(const hop *h, double y0, double y1, double span[2])
{
    double dy = h->y2 - h->y1, ta, tb;

    if (fmax(h->y1, h->y2) < y0 || fmin(h->y1, h->y2) > y1)
        return false;
    if (dy == 0) {
        ta = 0, tb = 1;
    } else {
        ta = fmin(fmax((y0 - h->y1) / dy, 0), 1);
        tb = fmin(fmax((y1 - h->y1) / dy, 0), 1);
    }
    span[0] = h->x1 + ta * (h->x2 - h->x1);
    span[1] = h->x1 + tb * (h->x2 - h->x1);
    if (span[0] > span[1]) {
        double t = span[0];
        span[0] = span[1], span[1] = t;
    }
    return true;
}

static int by_start(const void *a, const void *b)
{
    double d = ((const double *)a)[0] - ((const double *)b)[0];

    return (d > 0) - (d < 0);
}

/*
 * The widest part of [x0, x1] that no hop crosses in the band [y0, y1]
 * (with BAR_PAD around each hop), in *gap; false where too many hops cross
 * the bar to bother.
 */
static bool widest_gap(const svg *s, double x0, double x1, double y0, double y1, double gap[2])
{
    double spans[MAX_HOPS_IN_BAR][2], at = x0;
    size_t n = 0;

    for (size_t i = 0; i < s->nhops; i++) {
        double sp[2];
        if (!hop_span(&s->hops[i], y0, y1, sp) || sp[1] < x0 - BAR_PAD || sp[0] > x1 + BAR_PAD)
            continue;
        if (n == MAX_HOPS_IN_BAR)
            return false;
        spans[n][0] = sp[0] - BAR_PAD, spans[n][1] = sp[1] + BAR_PAD, n++;
    }
    qsort(spans, n, sizeof(spans[0]), by_start);
    gap[0] = gap[1] = x0;
    for (size_t i = 0; i <= n; i++) {
        double end = i < n ? fmin(spans[i][0], x1) : x1;
        if (end - at > gap[1] - gap[0])
            gap[0] = at, gap[1] = end;
        if (i < n)
            at = fmax(at, spans[i][1]);
    }
    return true;
}

/*
 * The name of a bar of one kernel or copy, centred in the widest part of
 * the bar that no hop crosses, shortened to fit, with " ×N" where the bar
 * is N operations back to back; left out where nothing fits.  White on the
 * red of the critical path, dark on the other bars.
 */
static void label_run(svg *s, const rpl_dag *dag, const run *r)
{
    const rpl_dag_symbol *sym;
    double y = lane_y(r->lane) + LANE_H / 2 + 0.35 * FONT_BAR, gap[2], room;
    char count[24] = "", *label = NULL;
    int rc;

    if (s->rc || r->symbol == RPL_NONE || r->path == 2 ||
        r->x1 - r->x0 - 2 * BAR_PAD < 3 * FONT_BAR ||
        !widest_gap(s, r->x0 + BAR_PAD, r->x1 - BAR_PAD, y - 0.8 * FONT_BAR, y + 0.25 * FONT_BAR,
                    gap))
        return;
    sym = &dag->symbols[r->symbol];
    if (r->nodes > 1)
        snprintf(count, sizeof(count), " \xc3\x97%u", r->nodes);
    room = gap[1] - gap[0] - rpl_svg_text_width(count, FONT_BAR);
    rc = rpl_svg_fit_name(&label, sym->name, sym->mangled, sym->kind == RPL_DAG_NODE_DISPATCH, room,
                          FONT_BAR);
    if (rc || !label) {
        s->rc = rc;
        return;
    }
    text_open(s, (gap[0] + gap[1]) / 2, y, FONT_BAR, "middle", r->path ? "white" : "#1a1a1a");
    put_text(s, label);
    put_text(s, count);
    put(s, "</text>\n");
    free(label);
}

/* Hops of the critical path between lanes, one line per distinct pixel position. */
static void path_hops(svg *s, const rpl_dag *dag)
{
    long last[4] = {-1, -1, -1, -1};

    put(s, "<g stroke=\"%s\" stroke-width=\"1.2\" fill=\"none\">\n", COLOR_PATH);
    for (uint32_t k = 1; k < dag->path_len; k++) {
        const rpl_dag_node *a = &dag->nodes[dag->path[k - 1]], *b = &dag->nodes[dag->path[k]];
        hop h = {xpos(s, a->end), lane_y(a->lane) + LANE_H / 2, xpos(s, b->start),
                 lane_y(b->lane) + LANE_H / 2};
        long key[4] = {lround(h.x1), lround(h.y1), lround(h.x2), lround(h.y2)};

        if (a->lane == b->lane || memcmp(key, last, sizeof(key)) == 0)
            continue;
        memcpy(last, key, sizeof(key));
        put(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", h.x1, h.y1, h.x2, h.y2);
        if (RPL_ARRAY_GROW(s->hops, s->cap_hops, s->nhops + 1) != 0) {
            s->rc = RPL_ENOMEM;
            break;
        }
        s->hops[s->nhops++] = h;
    }
    put(s, "</g>\n");
}

/*
 * The time axis at y: ticks at 1, 2 or 5 x 10^n, at most 9 (labels of 10
 * characters at most, far apart), labelled below; the last one ends at its
 * tick where centred it would leave the chart.  The title sits below the
 * tick labels, centred under the plot.
 */
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
    put(s, "<g stroke=\"#444\">\n");
    put(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", LABEL_W, y,
        LABEL_W + s->plot_w, y);
    for (double t = 0; t <= s->span + step / 1e6; t += step) {
        double x = LABEL_W + t / s->span * s->plot_w;
        put(s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", x, y, x, y + 5);
    }
    put(s, "</g>\n");
    for (double t = 0; t <= s->span + step / 1e6; t += step) {
        double x = LABEL_W + t / s->span * s->plot_w;
        const char *tl = t == 0 ? "0" : rpl_format_ns(label, sizeof(label), t);
        bool at_end = x + rpl_svg_text_width(tl, FONT_TICK) / 2 > WIDTH - 2;

        text(s, x, y + 18, FONT_TICK, at_end ? "end" : "middle", "#222", tl);
    }
    text(s, LABEL_W + s->plot_w / 2, y + 36, FONT_TICK, "middle", "#222",
         "time since the first operation");
}

static void legend(svg *s, double y)
{
    double x = LABEL_W;

    put(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n", x, y,
        COLOR_PATH);
    text(s, x + 20, y + 10, FONT_TEXT, NULL, NULL, "critical path");
    x += 20 + rpl_svg_text_width("critical path", FONT_TEXT) + 24;
    put(s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"10\" fill=\"%s\"/>\n", x, y,
        COLOR_BAR);
    text(s, x + 20, y + 10, FONT_TEXT, NULL, NULL, "other operations");
    x += 20 + rpl_svg_text_width("other operations", FONT_TEXT) + 24;
    put(s,
        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
        "stroke-width=\"1.2\"/>\n",
        x, y + 5, x + 20, y + 5, COLOR_PATH);
    text(s, x + 26, y + 10, FONT_TEXT, NULL, NULL, "critical-path dependency between lanes");
}

/* Title line: the path, the span and the dominant kernel, its name shortened to fit. */
static void header(svg *s, const rpl_dag *dag)
{
    char cp[64], span[64], head[256], tail[64];
    char *name = NULL;

    snprintf(head, sizeof(head), "Critical path %s of a %s span",
             rpl_format_ns(cp, sizeof(cp), (double)dag->critical_path_ns),
             rpl_format_ns(span, sizeof(span), (double)dag->span_ns));
    text_open(s, MARGIN, 22, FONT_TITLE, NULL, NULL);
    put_text(s, head);
    if (dag->dominant != RPL_NONE) {
        const rpl_dag_symbol *d = &dag->symbols[dag->dominant];
        double room = WIDTH - 2 * MARGIN - rpl_svg_text_width(head, FONT_TITLE);

        snprintf(tail, sizeof(tail), " (%.1f%%)", 100.0 * dag->dominant_fraction);
        room -=
            rpl_svg_text_width("; dominant: ", FONT_TITLE) + rpl_svg_text_width(tail, FONT_TITLE);
        if (!s->rc)
            s->rc = rpl_svg_fit_name(&name, d->name, d->mangled, d->kind == RPL_DAG_NODE_DISPATCH,
                                     room, FONT_TITLE);
        if (name) {
            put(s, "; dominant: ");
            put_text(s, name);
            put_text(s, tail);
        }
        free(name);
    }
    put(s, "</text>\n");
    text_open(s, MARGIN, 42, FONT_TEXT, NULL, "#555");
    put(s,
        "%u operations on %u lanes, %u on the path; edges: %u program order, %u event wait, "
        "%u host sync, %u default stream, %u inferred; overlap %.2f</text>\n",
        dag->node_count, dag->lane_count, dag->path_len,
        dag->edge_counts[RPL_DAG_EDGE_PROGRAM_ORDER], dag->edge_counts[RPL_DAG_EDGE_EVENT_WAIT],
        dag->edge_counts[RPL_DAG_EDGE_HOST_SYNC], dag->edge_counts[RPL_DAG_EDGE_DEFAULT_STREAM],
        dag->edge_counts[RPL_DAG_EDGE_INFERRED], dag->overlap);
}

/* The lane's name, right-aligned before its lane, elided in the middle to fit the column. */
static void lane_label(svg *s, const rpl_dag *dag, uint32_t l, bool pids)
{
    char pid[48] = "";
    char *name = NULL;
    double room = LABEL_W - LABEL_GAP - MARGIN;

    if (pids)
        snprintf(pid, sizeof(pid), " (pid %lld)", (long long)dag->lanes[l].pid);
    room -= rpl_svg_text_width(pid, FONT_TEXT);
    if (!s->rc)
        s->rc = rpl_svg_fit_text(&name, dag->lanes[l].name, room, FONT_TEXT);
    text_open(s, LABEL_W - LABEL_GAP, lane_y(l) + LANE_H - 5, FONT_TEXT, "end", NULL);
    put_text(s, name ? name : "");
    put_text(s, name ? pid : "");
    put(s, "</text>\n");
    free(name);
}

int rpl_dag_svg_render(rpl_strbuf *out, const rpl_dag *dag)
{
    svg s = {*out, 0, WIDTH - LABEL_W - RIGHT_W, 1, dag->t0, NULL, 0, 0};
    double lanes_h = dag->lane_count * (LANE_H + LANE_GAP);
    double height = TOP_H + lanes_h + AXIS_H + LEGEND_H;
    bool pids = false;

    s.span = dag->span_ns > 0 ? (double)dag->span_ns : 1.0;
    for (uint32_t l = 1; l < dag->lane_count; l++)
        pids = pids || dag->lanes[l].pid != dag->lanes[0].pid;
    put(&s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
        "viewBox=\"0 0 %.0f %.0f\">\n"
        "<title>rocm-perf critical path</title>\n"
        /* The font on a group: HTML checkers know no font attributes on <svg>. */
        "<g font-family=\"sans-serif\" font-size=\"12\">\n"
        "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
        WIDTH, height, WIDTH, height);
    header(&s, dag);
    for (uint32_t l = 0; l < dag->lane_count; l++) {
        put(&s, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"#f3f3f3\"/>\n",
            LABEL_W, lane_y(l), s.plot_w, LANE_H);
        lane_label(&s, dag, l, pids);
    }
    put(&s, "<g fill=\"%s\">\n", COLOR_BAR);
    for (uint32_t l = 0; l < dag->lane_count; l++)
        lane_runs(&s, dag, l, false, draw_run);
    put(&s, "</g>\n<g fill=\"%s\">\n", COLOR_PATH);
    for (uint32_t l = 0; l < dag->lane_count; l++)
        lane_runs(&s, dag, l, true, draw_run);
    put(&s, "</g>\n");
    path_hops(&s, dag);
    put(&s, "<g class=\"bar-labels\">\n");
    for (uint32_t l = 0; l < dag->lane_count; l++)
        lane_runs(&s, dag, l, false, label_run);
    put(&s, "</g>\n");
    axis(&s, TOP_H + lanes_h + 4);
    legend(&s, TOP_H + lanes_h + AXIS_H + 10);
    put(&s, "</g>\n</svg>\n");
    *out = s.sb;
    free(s.hops);
    return s.rc;
}

static int render_dag(rpl_strbuf *out, const void *dag)
{
    return rpl_dag_svg_render(out, dag);
}

int rpl_dag_svg_write(const char *path, const rpl_dag *dag)
{
    return rpl_svg_file_write(path, render_dag, dag);
}
