/*
 * The log-log roofline chart of a roofline.json document: decades on both
 * axes fitted to the roofs and the points, the memory roof (GB/s x
 * FLOP/byte) up to each compute roof, the compute roofs as horizontal lines
 * (roofs of equal rate share one line and one label), every kernel as a
 * labelled point.  Kernels without FLOPs (copies) sit on the bottom axis with
 * a hollow marker; kernels without a roofline are listed under the chart.
 *
 * Every label is placed where its box (estimated from the font size and the
 * number of characters) overlaps no tick label, no marker and no other label.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/analysis_report.h"
#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/kernel_filter.h"
#include "rpl/roofline.h"
#include "rpl/strbuf.h"
#include "svg_file.h"

#define LEFT        90.0
#define TOP         50.0
#define PLOT_W      640.0
#define PLOT_H      520.0
#define BOTTOM      70.0 /* below the plot: tick labels and the axis title */
#define MIN_RIGHT   120.0
#define LABEL_CHARS 40  /* kernel labels: unique, elided in the middle */
#define CHAR_W      0.6 /* width of a character in font-size units */
#define MAX_BOXES   1024
#define MAX_ROOFS   64
#define FONT_TICK   12.0
#define FONT_LABEL  11.0

typedef struct box {
    double x0, y0, x1, y1;
} box;

typedef struct segment {
    double x0, y0, x1, y1;
} segment;

typedef struct chart {
    double x0, x1, y0, y1; /* decades (log10) */
    double right;          /* margin right of the plot, wide enough for the roof labels */
    double width, height;
    box taken[MAX_BOXES]; /* labels, tick labels and markers */
    int ntaken;
    segment lines[MAX_ROOFS * 4]; /* roof lines: labels keep off them too */
    int nlines;
} chart;

/* A compute roof: every precision of one ceiling at this rate. */
typedef struct roof {
    double gflops;
    char valu[64], matrix[64]; /* "fp16/fp32" */
    const char *device;        /* when the chart has several ceilings */
    char label[200];
} roof;

static double px(const chart *c, double v)
{
    return LEFT + (log10(v) - c->x0) / (c->x1 - c->x0) * PLOT_W;
}

static double py(const chart *c, double v)
{
    return TOP + PLOT_H - (log10(v) - c->y0) / (c->y1 - c->y0) * PLOT_H;
}

static box plot_box(void)
{
    return (box){LEFT, TOP, LEFT + PLOT_W, TOP + PLOT_H};
}

/* The box of a text at (x, y) (its baseline), anchored at its start, middle or end. */
static box text_box(double x, double y, const char *s, double font, char anchor)
{
    double w = CHAR_W * font * (double)rpl_utf8_columns(s);
    double x0 = anchor == 'e' ? x - w : anchor == 'm' ? x - w / 2 : x;

    return (box){x0, y - 0.8 * font, x0 + w, y + 0.25 * font};
}

static bool overlap(box a, box b)
{
    return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

static bool within(box a, box outer)
{
    return a.x0 >= outer.x0 && a.x1 <= outer.x1 && a.y0 >= outer.y0 && a.y1 <= outer.y1;
}

/* The segment passes through the box (tested at 2 px steps: the lines are straight). */
static bool crosses(const segment *l, box b)
{
    double len = hypot(l->x1 - l->x0, l->y1 - l->y0);
    int steps = (int)(len / 2) + 1;

    for (int i = 0; i <= steps; i++) {
        double t = (double)i / steps, x = l->x0 + t * (l->x1 - l->x0);
        double y = l->y0 + t * (l->y1 - l->y0);
        if (x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1)
            return true;
    }
    return false;
}

static bool is_free(const chart *c, box b)
{
    for (int i = 0; i < c->ntaken; i++)
        if (overlap(c->taken[i], b))
            return false;
    for (int i = 0; i < c->nlines; i++)
        if (crosses(&c->lines[i], b))
            return false;
    return true;
}

static void draw_line(rpl_strbuf *sb, chart *c, segment l, const char *color, double width)
{
    rpl_strbuf_printf(sb,
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                      "stroke-width=\"%.1f\"/>\n",
                      l.x0, l.y0, l.x1, l.y1, color, width);
    if (c->nlines < (int)(sizeof(c->lines) / sizeof(c->lines[0])))
        c->lines[c->nlines++] = l;
}

static void take(chart *c, box b)
{
    if (c->ntaken < MAX_BOXES)
        c->taken[c->ntaken++] = b;
}

/* XML-escaped text. */
static void put_text(rpl_strbuf *sb, const char *s)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '<')
            rpl_strbuf_puts(sb, "&lt;");
        else if (ch == '>')
            rpl_strbuf_puts(sb, "&gt;");
        else if (ch == '&')
            rpl_strbuf_puts(sb, "&amp;");
        else if (ch == '"')
            rpl_strbuf_puts(sb, "&quot;");
        else if (ch < 0x20 || ch == 0x7f)
            rpl_strbuf_putc(sb, '?');
        else
            rpl_strbuf_putc(sb, (char)ch);
    }
}

static void emit_text(rpl_strbuf *sb, double x, double y, double font, char anchor,
                      const char *fill, const char *s)
{
    rpl_strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%.0f\"%s%s%s%s>", x, y, font,
                      anchor == 'e'   ? " text-anchor=\"end\""
                      : anchor == 'm' ? " text-anchor=\"middle\""
                                      : "",
                      fill ? " fill=\"" : "", fill ? fill : "", fill ? "\"" : "");
    put_text(sb, s);
    rpl_strbuf_puts(sb, "</text>\n");
}

static double get(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsNumber(v) && isfinite(v->valuedouble) ? v->valuedouble : -1;
}

static const char *get_str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    return cJSON_IsString(v) ? v->valuestring : "";
}

static void widen(double v, double *lo, double *hi)
{
    if (v > 0 && isfinite(v)) {
        if (v < *lo)
            *lo = v;
        if (v > *hi)
            *hi = v;
    }
}

static void rate_text(char *buf, size_t cap, double gflops)
{
    if (gflops >= 1000)
        snprintf(buf, cap, "%.1f TFLOP/s", gflops / 1000);
    else
        snprintf(buf, cap, "%.0f GFLOP/s", gflops);
}

/* The compute roofs of one ceiling, equal rates merged, highest first. */
static int roofs_of(roof *out, int max, const cJSON *ceiling, bool several)
{
    static const char *const groups[] = {"valu_gflops", "matrix_gflops"};
    int n = 0;

    for (int g = 0; g < 2; g++) {
        const cJSON *p, *obj = cJSON_GetObjectItemCaseSensitive(ceiling, groups[g]);
        cJSON_ArrayForEach(p, obj)
        {
            roof *r = NULL;
            char *list;
            if (!cJSON_IsNumber(p) || !(p->valuedouble > 0) || !isfinite(p->valuedouble))
                continue;
            for (int i = 0; i < n && !r; i++)
                if (fabs(out[i].gflops - p->valuedouble) <= 1e-9 * p->valuedouble)
                    r = &out[i];
            if (!r) {
                if (n == max)
                    continue;
                r = &out[n++];
                memset(r, 0, sizeof(*r));
                r->gflops = p->valuedouble;
                r->device = several ? get_str(ceiling, "device") : NULL;
            }
            list = g == 0 ? r->valu : r->matrix;
            snprintf(list + strlen(list), sizeof(r->valu) - strlen(list), "%s%s",
                     list[0] ? "/" : "", p->string);
        }
    }
    for (int i = 0; i < n; i++) {
        roof *r = &out[i];
        char rate[32];
        rate_text(rate, sizeof(rate), r->gflops);
        snprintf(r->label, sizeof(r->label), "%s%s%s%s%s %s%s%.16s", r->valu[0] ? "VALU " : "",
                 r->valu, r->valu[0] && r->matrix[0] ? ", " : "", r->matrix[0] ? "matrix " : "",
                 r->matrix, rate, r->device ? " " : "", r->device ? r->device : "");
    }
    return n;
}

/*
 * Decades that hold every point and every roof, with no empty decade above
 * the highest roof or point, and at least two decades on each axis.
 */
static void fit_axes(chart *c, const cJSON *kernels, const cJSON *ceils)
{
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0, bw_min = INFINITY;
    const cJSON *k, *ce;

    cJSON_ArrayForEach(k, kernels)
    {
        widen(get(k, "arithmetic_intensity"), &xlo, &xhi);
        widen(get(k, "gflops"), &ylo, &yhi);
    }
    cJSON_ArrayForEach(ce, ceils)
    {
        roof r[MAX_ROOFS];
        double bw = get(ce, "hbm_gbps");
        int n = roofs_of(r, MAX_ROOFS, ce, false);
        if (bw <= 0)
            continue;
        if (bw < bw_min)
            bw_min = bw;
        for (int i = 0; i < n; i++) {
            widen(r[i].gflops, &ylo, &yhi);
            widen(r[i].gflops / bw, &xlo, &xhi); /* ridge points */
        }
    }
    if (!(xhi > 0)) {
        xlo = 0.1;
        xhi = 100;
    }
    if (!(yhi > 0)) {
        ylo = 1;
        yhi = 1000;
    }
    c->x0 = floor(log10(xlo));
    c->x1 = ceil(log10(xhi * 1.5)); /* room right of the highest ridge */
    if (c->x1 - c->x0 < 2)
        c->x0 = c->x1 - 2;
    /* The memory roof enters at the left edge when it is inside a decade of the points. */
    if (isfinite(bw_min))
        widen(fmax(bw_min * pow(10, c->x0), ylo / 10), &ylo, &yhi);
    c->y0 = floor(log10(ylo));
    c->y1 = ceil(log10(yhi * 1.3)); /* room above the highest roof for its line */
    if (c->y1 - c->y0 < 2)
        c->y0 = c->y1 - 2;
}

static void draw_axes(rpl_strbuf *sb, chart *c)
{
    char t[16];

    rpl_strbuf_printf(sb,
                      "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                      "stroke=\"#333\"/>\n",
                      LEFT, TOP, PLOT_W, PLOT_H);
    for (double e = c->x0; e <= c->x1; e++) {
        double x = px(c, pow(10, e));
        rpl_strbuf_printf(
            sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x, TOP,
            x, TOP + PLOT_H);
        snprintf(t, sizeof(t), "1e%d", (int)e);
        emit_text(sb, x, TOP + PLOT_H + 18, FONT_TICK, 'm', NULL, t);
        take(c, text_box(x, TOP + PLOT_H + 18, t, FONT_TICK, 'm'));
    }
    for (double e = c->y0; e <= c->y1; e++) {
        double y = py(c, pow(10, e));
        rpl_strbuf_printf(
            sb, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", LEFT,
            y, LEFT + PLOT_W, y);
        snprintf(t, sizeof(t), "1e%d", (int)e);
        emit_text(sb, LEFT - 6, y + 4, FONT_TICK, 'e', NULL, t);
        take(c, text_box(LEFT - 6, y + 4, t, FONT_TICK, 'e'));
    }
    emit_text(sb, LEFT + PLOT_W / 2, TOP + PLOT_H + 45, 14, 'm', NULL,
              "arithmetic intensity (FLOP/byte, HBM)");
    take(c, text_box(LEFT + PLOT_W / 2, TOP + PLOT_H + 45, "arithmetic intensity (FLOP/byte, HBM)",
                     14, 'm'));
    rpl_strbuf_printf(sb,
                      "<text x=\"20\" y=\"%.1f\" font-size=\"14\" transform=\"rotate(-90 20 "
                      "%.1f)\" text-anchor=\"middle\">GFLOP/s</text>\n",
                      TOP + PLOT_H / 2, TOP + PLOT_H / 2);
}

/* Roof labels right of the plot, each at its line's height or the nearest free one below. */
static void place_roof_label(rpl_strbuf *sb, chart *c, double line_y, const char *text,
                             const char *color)
{
    box area = {LEFT + PLOT_W + 4, TOP - 20, c->width, c->height};
    double x = LEFT + PLOT_W + 18, y = line_y + 4;

    for (int step = 0; step < 200; step++) {
        /* 0, +1, -1, +2, -2 ... steps of 3 px around the line */
        double dy = (step % 2 ? 1 : -1) * 3.0 * ((step + 1) / 2);
        box b = text_box(x, line_y + 4 + dy, text, FONT_LABEL, 's');
        if (within(b, area) && is_free(c, b)) {
            y = line_y + 4 + dy;
            break;
        }
    }
    take(c, text_box(x, y, text, FONT_LABEL, 's'));
    /* A leader from the line's end to its label. */
    rpl_strbuf_printf(sb,
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                      "stroke-width=\"0.8\"/>\n",
                      LEFT + PLOT_W, line_y, x - 2, y - 4, color);
    emit_text(sb, x, y, FONT_LABEL, 's', color, text);
}

/*
 * The memory roof's label, above and left of a point of its line, at the first
 * point (tried from the middle outwards) where it is clear of everything.
 */
static void place_memory_label(rpl_strbuf *sb, chart *c, double xs, double xe, double bw,
                               const char *text)
{
    static const double at[] = {0.5, 0.65, 0.35, 0.8, 0.2, 0.9, 0.1};
    double lx = log10(xs), rx = log10(xe);

    for (int below = 0; below < 2; below++)
        for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
            double v = pow(10, lx + at[i] * (rx - lx)), x = px(c, v), y = py(c, bw * v);
            double tx = below ? x + 6 : x - 4, ty = below ? y + 14 : y - 5;
            box b = text_box(tx, ty, text, FONT_LABEL, below ? 's' : 'e');
            if (within(b, plot_box()) && is_free(c, b)) {
                take(c, b);
                emit_text(sb, tx, ty, FONT_LABEL, below ? 's' : 'e', NULL, text);
                return;
            }
        }
    /* Nowhere clear on the line: in the plot's top left corner, stacked. */
    for (double ty = TOP + 14; ty < TOP + PLOT_H; ty += 13) {
        box b = text_box(LEFT + 6, ty, text, FONT_LABEL, 's');
        if (is_free(c, b)) {
            take(c, b);
            emit_text(sb, LEFT + 6, ty, FONT_LABEL, 's', NULL, text);
            return;
        }
    }
    emit_text(sb, LEFT + 6, TOP + 14, FONT_LABEL, 's', NULL, text);
}

/* The roof lines (labels false), or their labels (true): lines go under everything. */
static void draw_ceilings(rpl_strbuf *sb, chart *c, const cJSON *ceils, bool labels)
{
    const cJSON *ce;
    double xmin = pow(10, c->x0), xmax = pow(10, c->x1), ymin = pow(10, c->y0);
    bool several = cJSON_GetArraySize(ceils) > 1;

    cJSON_ArrayForEach(ce, ceils)
    {
        roof r[MAX_ROOFS];
        double bw = get(ce, "hbm_gbps"), top = 0, xs, xe;
        int n = roofs_of(r, MAX_ROOFS, ce, several);
        char text[96];

        if (bw <= 0)
            continue;
        for (int i = 0; i < n; i++) {
            const char *color = r[i].valu[0] && r[i].matrix[0] ? "#703090"
                                : r[i].valu[0]                 ? "#3050b0"
                                                               : "#b03030";
            if (r[i].gflops > top)
                top = r[i].gflops;
            if (labels)
                place_roof_label(sb, c, py(c, r[i].gflops), r[i].label, color);
            else
                draw_line(sb, c,
                          (segment){px(c, r[i].gflops / bw), py(c, r[i].gflops), LEFT + PLOT_W,
                                    py(c, r[i].gflops)},
                          color, 1.5);
        }
        /* From the left edge (or where the roof enters the plot) to the highest ridge. */
        xs = fmax(xmin, ymin / bw);
        xe = top > 0 ? top / bw : xmax;
        if (xe <= xs)
            continue;
        if (labels) {
            snprintf(text, sizeof(text), "HBM %.0f GB/s (%.32s)", bw, get_str(ce, "device"));
            place_memory_label(sb, c, xs, xe, bw, text);
            continue;
        }
        draw_line(sb, c, (segment){px(c, xs), py(c, bw * xs), px(c, xe), py(c, bw * xe)}, "#202020",
                  2);
    }
}

/* Label spots around a point, tried in order: right, then left; above, then below; then
 * further away, one line height at a time (with a leader to the point). */
#define SPOTS 40

typedef struct spot {
    double dx, dy;
    char anchor;
} spot;

static spot label_spot(int i)
{
    int ring = i / 4, right = (i % 4) < 2, above = i % 2 == 0;

    return (spot){right ? 8 : -8, above ? -7 - 13.0 * ring : 15 + 13.0 * ring, right ? 's' : 'e'};
}

static int draw_kernels(rpl_strbuf *sb, chart *c, const cJSON *kernels, double *unplaced_y)
{
    size_t n = (size_t)cJSON_GetArraySize(kernels), i = 0;
    const char **names = calloc(n ? n : 1, sizeof(*names));
    char **labels = NULL;
    const cJSON *k;
    int rc = names ? 0 : rpl_error_oom();

    cJSON_ArrayForEach(k, kernels)
    {
        if (names)
            names[i++] = get_str(k, "kernel");
    }
    if (!rc)
        rc = rpl_kernel_labels(&labels, names, n, LABEL_CHARS);
    /* Markers first: no label may cover one. */
    i = 0;
    cJSON_ArrayForEach(k, kernels)
    {
        double ai = get(k, "arithmetic_intensity"), g = get(k, "gflops");
        bool zero = get(k, "flops") == 0 && get(k, "bytes") > 0;
        double x = zero ? LEFT : px(c, ai), y = zero ? TOP + PLOT_H : py(c, g);
        if (!rc && (zero || (ai > 0 && g > 0)))
            take(c, (box){x - 6, y - 6, x + 6, y + 6});
    }
    cJSON_ArrayForEach(k, kernels)
    {
        double ai = get(k, "arithmetic_intensity"), g = get(k, "gflops"), x, y;
        bool zero = get(k, "flops") == 0 && get(k, "bytes") > 0;
        char text[256];
        size_t s, pick = 0;
        spot at;

        if (rc)
            break;
        if (!zero && (ai <= 0 || g <= 0)) {
            snprintf(text, sizeof(text), "not placed: %s (%.80s)", labels[i], get_str(k, "reason"));
            emit_text(sb, LEFT, *unplaced_y, 10, 's', NULL, text);
            *unplaced_y += 13;
            i++;
            continue;
        }
        x = zero ? LEFT : px(c, ai);
        y = zero ? TOP + PLOT_H : py(c, g);
        rpl_strbuf_printf(sb,
                          "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" stroke=\"#e07000\" "
                          "stroke-width=\"2\"><title>",
                          x, y, zero ? "none" : "#e07000");
        put_text(sb, get_str(k, "kernel"));
        rpl_strbuf_puts(sb, "</title></circle>\n");
        snprintf(text, sizeof(text), "%s%s", labels[i], zero ? " (0 FLOP)" : "");
        for (s = 0; s < SPOTS; s++) {
            spot p = label_spot((int)s);
            box b = text_box(x + p.dx, y + p.dy, text, FONT_LABEL, p.anchor);
            if (within(b, plot_box()) && is_free(c, b)) {
                pick = s;
                break;
            }
        }
        at = label_spot((int)pick);
        take(c, text_box(x + at.dx, y + at.dy, text, FONT_LABEL, at.anchor));
        if (pick >= 4) /* away from its point: a leader says whose label it is */
            rpl_strbuf_printf(sb,
                              "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                              "stroke=\"#e07000\" stroke-width=\"0.6\"/>\n",
                              x, y, x + at.dx, y + at.dy - (at.dy < 0 ? 0 : FONT_LABEL * 0.8));
        emit_text(sb, x + at.dx, y + at.dy, FONT_LABEL, at.anchor, NULL, text);
        i++;
    }
    rpl_kernel_labels_free(labels, n);
    free(names);
    return rc;
}

/* The right margin: as wide as the widest roof label; the height: room for the unplaced list. */
static void size_chart(chart *c, const cJSON *kernels, const cJSON *ceils)
{
    bool several = cJSON_GetArraySize(ceils) > 1;
    const cJSON *ce, *k;
    int unplaced = 0;

    c->right = MIN_RIGHT;
    cJSON_ArrayForEach(ce, ceils)
    {
        roof r[MAX_ROOFS];
        int n = roofs_of(r, MAX_ROOFS, ce, several);
        for (int i = 0; i < n; i++) {
            double w = 24 + CHAR_W * FONT_LABEL * (double)strlen(r[i].label);
            if (w > c->right)
                c->right = w;
        }
    }
    cJSON_ArrayForEach(k, kernels)
    {
        bool zero = get(k, "flops") == 0 && get(k, "bytes") > 0;
        if (!zero && (get(k, "arithmetic_intensity") <= 0 || get(k, "gflops") <= 0))
            unplaced++;
    }
    c->width = ceil(LEFT + PLOT_W + c->right);
    c->height = TOP + PLOT_H + BOTTOM + 13.0 * unplaced;
}

int rpl_roofline_svg_render(rpl_strbuf *sb, const cJSON *doc)
{
    const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(doc, "kernels");
    const cJSON *ceils = cJSON_GetObjectItemCaseSensitive(doc, "ceilings");
    chart *c;
    double unplaced_y = TOP + PLOT_H + BOTTOM;
    int rc;

    if (!cJSON_IsArray(kernels) || !cJSON_IsArray(ceils))
        return rpl_error_set(RPL_EINPUT, "roofline.json has no 'kernels' and 'ceilings' arrays");
    if (!(c = calloc(1, sizeof(*c))))
        return rpl_error_oom();
    fit_axes(c, kernels, ceils);
    size_chart(c, kernels, ceils);
    rpl_strbuf_printf(sb,
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                      "viewBox=\"0 0 %.0f %.0f\">\n<title>Roofline</title>\n"
                      /* The font on a group: HTML checkers know no font attributes on <svg>. */
                      "<g font-family=\"sans-serif\">\n"
                      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                      "<text x=\"%.1f\" y=\"30\" font-size=\"16\">Roofline</text>\n",
                      c->width, c->height, c->width, c->height, LEFT);
    draw_axes(sb, c);
    draw_ceilings(sb, c, ceils, false);
    /* Points and their labels before the roof labels: they have the first pick of places. */
    rc = draw_kernels(sb, c, kernels, &unplaced_y);
    if (!rc)
        draw_ceilings(sb, c, ceils, true);
    if (!rc)
        rc = rpl_strbuf_puts(sb, "</g>\n</svg>\n");
    free(c);
    return rc;
}

static int render_roofline(rpl_strbuf *out, const void *doc)
{
    return rpl_roofline_svg_render(out, doc);
}

int rpl_roofline_svg_write(const char *path, const cJSON *doc)
{
    return rpl_svg_file_write(path, render_roofline, doc);
}
