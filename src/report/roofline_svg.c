/*
 * The log-log roofline chart of a roofline.json document: decades on both
 * axes, the memory roof (GB/s x FLOP/byte) up to each compute roof, the
 * compute roofs as horizontal lines, every kernel as a labelled point.
 * Kernels without FLOPs (copies) sit on the bottom axis with a hollow
 * marker; kernels without a roofline are listed under the chart.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/roofline.h"
#include "rpl/strbuf.h"

#define W              960.0
#define H              640.0
#define LEFT           90.0
#define RIGHT          230.0
#define TOP            50.0
#define BOTTOM         70.0
#define NAME_MAX_CHARS 48

typedef struct axes {
    double x0, x1, y0, y1; /* decades (log10) */
} axes;

static double px(const axes *a, double v)
{
    return LEFT + (log10(v) - a->x0) / (a->x1 - a->x0) * (W - LEFT - RIGHT);
}

static double py(const axes *a, double v)
{
    return H - BOTTOM - (log10(v) - a->y0) / (a->y1 - a->y0) * (H - TOP - BOTTOM);
}

/* XML-escaped text, at most max characters (an ellipsis marks the cut). */
static void put_text(rpl_strbuf *sb, const char *s, size_t max)
{
    size_t n = 0;

    for (; *s && n < max; s++, n++) {
        unsigned char c = (unsigned char)*s;
        if (c == '<')
            rpl_strbuf_puts(sb, "&lt;");
        else if (c == '>')
            rpl_strbuf_puts(sb, "&gt;");
        else if (c == '&')
            rpl_strbuf_puts(sb, "&amp;");
        else if (c == '"')
            rpl_strbuf_puts(sb, "&quot;");
        else if (c < 0x20 || c == 0x7f)
            rpl_strbuf_putc(sb, '?');
        else
            rpl_strbuf_putc(sb, (char)c);
    }
    if (*s)
        rpl_strbuf_puts(sb, "...");
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

static void compute_axes(axes *a, const cJSON *kernels, const cJSON *ceils)
{
    double xlo = 0.1, xhi = 100, ylo = 1e9, yhi = 1;
    const cJSON *k, *c;

    cJSON_ArrayForEach(k, kernels)
    {
        double ai = get(k, "arithmetic_intensity"), g = get(k, "gflops");
        widen(ai, &xlo, &xhi);
        widen(g, &ylo, &yhi);
    }
    cJSON_ArrayForEach(c, ceils)
    {
        const char *groups[] = {"valu_gflops", "matrix_gflops"};
        double bw = get(c, "hbm_gbps");
        widen(bw, &ylo, &yhi);
        for (int g = 0; g < 2; g++) {
            const cJSON *p, *obj = cJSON_GetObjectItemCaseSensitive(c, groups[g]);
            cJSON_ArrayForEach(p, obj)
            {
                if (cJSON_IsNumber(p) && p->valuedouble > 0 && bw > 0) {
                    widen(p->valuedouble, &ylo, &yhi);
                    widen(p->valuedouble / bw, &xlo, &xhi);
                }
            }
        }
    }
    a->x0 = floor(log10(xlo)) - 1;
    a->x1 = ceil(log10(xhi)) + 1;
    if (ylo > yhi)
        ylo = yhi;
    a->y0 = floor(log10(ylo)) - 1;
    a->y1 = ceil(log10(yhi)) + 1;
}

static void draw_axes(rpl_strbuf *sb, const axes *a)
{
    rpl_strbuf_printf(sb,
                      "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                      "stroke=\"#333\"/>\n",
                      LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM);
    for (double e = a->x0; e <= a->x1; e++) {
        double x = px(a, pow(10, e));
        rpl_strbuf_printf(sb,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                          "font-size=\"12\">1e%d</text>\n",
                          x, TOP, x, H - BOTTOM, x, H - BOTTOM + 18, (int)e);
    }
    for (double e = a->y0; e <= a->y1; e++) {
        double y = py(a, pow(10, e));
        rpl_strbuf_printf(sb,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                          "font-size=\"12\">1e%d</text>\n",
                          LEFT, y, W - RIGHT, y, LEFT - 6, y + 4, (int)e);
    }
    rpl_strbuf_printf(sb,
                      "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"14\">"
                      "arithmetic intensity (FLOP/byte, HBM)</text>\n"
                      "<text x=\"20\" y=\"%.1f\" font-size=\"14\" transform=\"rotate(-90 20 "
                      "%.1f)\" text-anchor=\"middle\">GFLOP/s</text>\n",
                      (LEFT + W - RIGHT) / 2, H - 25, (TOP + H - BOTTOM) / 2,
                      (TOP + H - BOTTOM) / 2);
}

/* Right-hand labels, pushed apart so that none overlap. */
typedef struct slots {
    double y[64];
    int n;
} slots;

static double free_y(slots *s, double y)
{
    for (bool moved = true; moved;) {
        moved = false;
        for (int i = 0; i < s->n; i++)
            if (fabs(s->y[i] - y) < 11.5) {
                y = s->y[i] + 11.5;
                moved = true;
            }
    }
    if (s->n < 64)
        s->y[s->n++] = y;
    return y;
}

static void rate(rpl_strbuf *sb, double gflops)
{
    if (gflops >= 1000)
        rpl_strbuf_printf(sb, "%.1f TFLOP/s", gflops / 1000);
    else
        rpl_strbuf_printf(sb, "%.0f GFLOP/s", gflops);
}

/* One compute roof; precisions of the same rate share a line and a label. */
static void compute_roof(rpl_strbuf *sb, const axes *a, slots *used, const cJSON *obj,
                         const cJSON *p, const char *label, const char *color, double bw,
                         const char *device)
{
    double peak = p->valuedouble, xmax = pow(10, a->x1), y;
    const cJSON *q;

    for (q = obj->child; q != p; q = q->next)
        if (cJSON_IsNumber(q) && q->valuedouble == peak)
            return; /* drawn with the first precision of this rate */
    rpl_strbuf_printf(sb,
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                      "stroke-width=\"1.5\"/>\n",
                      px(a, peak / bw), py(a, peak), px(a, xmax), py(a, peak), color);
    y = free_y(used, py(a, peak) + 4);
    rpl_strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" fill=\"%s\">%s ",
                      px(a, xmax) + 4, y, color, label);
    for (q = p; q; q = q->next)
        if (cJSON_IsNumber(q) && q->valuedouble == peak)
            rpl_strbuf_printf(sb, "%s%s", q == p ? "" : "/", q->string);
    rpl_strbuf_putc(sb, ' ');
    rate(sb, peak);
    if (device) {
        rpl_strbuf_puts(sb, " ");
        put_text(sb, device, 16);
    }
    rpl_strbuf_puts(sb, "</text>\n");
}

static void draw_ceilings(rpl_strbuf *sb, const axes *a, const cJSON *ceils)
{
    const cJSON *c;
    double xmin = pow(10, a->x0), xmax = pow(10, a->x1);
    bool several = cJSON_GetArraySize(ceils) > 1;
    slots right = {{0}, 0}, left = {{0}, 0};

    cJSON_ArrayForEach(c, ceils)
    {
        const char *groups[] = {"valu_gflops", "matrix_gflops"}, *label[] = {"VALU", "matrix"};
        const char *color[] = {"#3050b0", "#b03030"};
        double bw = get(c, "hbm_gbps"), top = 0;
        if (bw <= 0)
            continue;
        for (int g = 0; g < 2; g++) {
            const cJSON *p, *obj = cJSON_GetObjectItemCaseSensitive(c, groups[g]);
            cJSON_ArrayForEach(p, obj)
            {
                if (!cJSON_IsNumber(p) || p->valuedouble <= 0)
                    continue;
                if (p->valuedouble > top)
                    top = p->valuedouble;
                compute_roof(sb, a, &right, obj, p, label[g], color[g], bw,
                             several ? get_str(c, "device") : NULL);
            }
        }
        rpl_strbuf_printf(
            sb,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#202020\" "
            "stroke-width=\"2\"/>\n",
            px(a, xmin), py(a, bw * xmin), px(a, top > 0 ? top / bw : xmax),
            py(a, top > 0 ? top : bw * xmax));
        rpl_strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">HBM %.0f GB/s (",
                          px(a, xmin) + 6, free_y(&left, py(a, bw * xmin) - 8), bw);
        put_text(sb, get_str(c, "device"), 32);
        rpl_strbuf_puts(sb, ")</text>\n");
    }
}

static void draw_kernels(rpl_strbuf *sb, const axes *a, const cJSON *kernels)
{
    const cJSON *k;
    double unplaced_y = H - 8;
    int i = 0;

    cJSON_ArrayForEach(k, kernels)
    {
        double ai = get(k, "arithmetic_intensity"), g = get(k, "gflops"), x, y;
        bool zero = get(k, "flops") == 0 && get(k, "bytes") > 0;
        if (!zero && (ai <= 0 || g <= 0)) {
            rpl_strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\">not placed: ", LEFT,
                              unplaced_y);
            put_text(sb, get_str(k, "kernel"), NAME_MAX_CHARS);
            rpl_strbuf_puts(sb, " (");
            put_text(sb, get_str(k, "reason"), 80);
            rpl_strbuf_puts(sb, ")</text>\n");
            unplaced_y -= 12;
            continue;
        }
        x = zero ? LEFT : px(a, ai);
        y = zero ? H - BOTTOM : py(a, g);
        rpl_strbuf_printf(sb,
                          "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" stroke=\"#e07000\" "
                          "stroke-width=\"2\"><title>",
                          x, y, zero ? "none" : "#e07000");
        put_text(sb, get_str(k, "kernel"), 400);
        rpl_strbuf_puts(sb, "</title></circle>\n");
        rpl_strbuf_printf(sb, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\">", x + 7,
                          y - 6 - 11.0 * (i % 3));
        put_text(sb, get_str(k, "kernel"), NAME_MAX_CHARS);
        if (zero)
            rpl_strbuf_puts(sb, " (0 FLOP)");
        rpl_strbuf_puts(sb, "</text>\n");
        i++;
    }
}

int rpl_roofline_svg_write(const char *path, const cJSON *doc)
{
    const cJSON *kernels = cJSON_GetObjectItemCaseSensitive(doc, "kernels");
    const cJSON *ceils = cJSON_GetObjectItemCaseSensitive(doc, "ceilings");
    rpl_strbuf sb = RPL_STRBUF_INIT;
    axes a;
    int rc;

    if (!cJSON_IsArray(kernels) || !cJSON_IsArray(ceils))
        return rpl_error_set(RPL_EINPUT, "roofline.json has no 'kernels' and 'ceilings' arrays");
    compute_axes(&a, kernels, ceils);
    rpl_strbuf_printf(&sb,
                      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
                      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                      "<text x=\"%.1f\" y=\"30\" font-size=\"16\">Roofline</text>\n",
                      W, H, W, H, LEFT);
    draw_axes(&sb, &a);
    draw_ceilings(&sb, &a, ceils);
    draw_kernels(&sb, &a, kernels);
    rc = rpl_strbuf_puts(&sb, "</svg>\n");
    if (!rc)
        rc = rpl_file_write_atomic(path, rpl_strbuf_cstr(&sb), strlen(rpl_strbuf_cstr(&sb)));
    rpl_strbuf_release(&sb);
    return rc;
}
