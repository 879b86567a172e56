/*
 * The predicted-versus-measured chart of an autotune result: log-log axes
 * in microseconds, the diagonal where prediction equals measurement, one
 * point per measured config coloured by the phase that measured it, the
 * best config ringed.  Drawn in the style of the roofline chart
 * (src/report/roofline_svg.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/strbuf.h"

#define W      720.0
#define H      640.0
#define LEFT   90.0
#define RIGHT  170.0
#define TOP    60.0
#define BOTTOM 70.0

typedef struct axes {
    double lo, hi; /* decades (log10 of microseconds), the same on both axes */
} axes;

static double px(const axes *a, double us)
{
    return LEFT + (log10(us) - a->lo) / (a->hi - a->lo) * (W - LEFT - RIGHT);
}

static double py(const axes *a, double us)
{
    return H - BOTTOM - (log10(us) - a->lo) / (a->hi - a->lo) * (H - TOP - BOTTOM);
}

static bool plotted(const rpl_tune_config *c, double *meas, double *pred)
{
    if (c->status != RPL_TUNE_OK || !(c->predicted_ns > 0))
        return false;
    *meas = rpl_tune_config_median(c) / 1000.0;
    *pred = c->predicted_ns / 1000.0;
    return *meas > 0 && isfinite(*pred);
}

static const char *phase_color(const char *phase)
{
    if (phase && strcmp(phase, "guided") == 0)
        return "#e07000";
    if (phase && strcmp(phase, "explore") == 0)
        return "#2a9d4b";
    if (phase && strcmp(phase, "confirm") == 0)
        return "#8040b0";
    return "#3050b0"; /* seed */
}

static void draw_axes(rpl_strbuf *sb, const axes *a)
{
    rpl_strbuf_printf(sb,
                      "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                      "stroke=\"#333\"/>\n",
                      LEFT, TOP, W - LEFT - RIGHT, H - TOP - BOTTOM);
    for (double e = a->lo; e <= a->hi + 1e-9; e++) {
        double v = pow(10, e), x = px(a, v), y = py(a, v);
        rpl_strbuf_printf(sb,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
                          "font-size=\"12\">%g</text>\n",
                          x, TOP, x, H - BOTTOM, x, H - BOTTOM + 18, v);
        rpl_strbuf_printf(sb,
                          "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" "
                          "font-size=\"12\">%g</text>\n",
                          LEFT, y, W - RIGHT, y, LEFT - 6, y + 4, v);
    }
    rpl_strbuf_printf(sb,
                      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\" "
                      "stroke-dasharray=\"6 4\"/>\n"
                      "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"14\">"
                      "measured median (\xc2\xb5s)</text>\n"
                      "<text x=\"20\" y=\"%.1f\" font-size=\"14\" transform=\"rotate(-90 20 "
                      "%.1f)\" text-anchor=\"middle\">predicted (\xc2\xb5s)</text>\n",
                      px(a, pow(10, a->lo)), py(a, pow(10, a->lo)), px(a, pow(10, a->hi)),
                      py(a, pow(10, a->hi)), (LEFT + W - RIGHT) / 2, H - 25, (TOP + H - BOTTOM) / 2,
                      (TOP + H - BOTTOM) / 2);
}

static void draw_legend(rpl_strbuf *sb)
{
    static const char *const phases[] = {"seed", "guided", "explore", "confirm"};
    double x = W - RIGHT + 20, y = TOP + 10;

    for (size_t i = 0; i < 4; i++, y += 20)
        rpl_strbuf_printf(sb,
                          "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">%s</text>\n",
                          x, y, phase_color(phases[i]), x + 10, y + 4, phases[i]);
    rpl_strbuf_printf(sb,
                      "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\" stroke=\"#c00000\" "
                      "stroke-width=\"2\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"12\">best"
                      "</text>\n",
                      x, y, x + 14, y + 4);
}

int rpl_tune_plot_svg(const char *path, const rpl_tune_result *r)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    double lo = INFINITY, hi = -INFINITY, m, p;
    size_t points = 0;
    axes a;
    int rc;

    for (size_t c = 0; c < r->space->nconfigs; c++) {
        if (!plotted(&r->configs[c], &m, &p))
            continue;
        lo = fmin(lo, fmin(m, p));
        hi = fmax(hi, fmax(m, p));
        points++;
    }
    if (!points)
        lo = hi = 1;
    a.lo = floor(log10(lo));
    a.hi = ceil(log10(hi));
    if (a.hi <= a.lo)
        a.hi = a.lo + 1;
    rpl_strbuf_printf(&sb,
                      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                      "viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\">\n"
                      "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
                      "<text x=\"%.1f\" y=\"28\" font-size=\"16\">Autotune: predicted vs "
                      "measured runtime</text>\n",
                      W, H, W, H, LEFT);
    if (r->model)
        rpl_strbuf_printf(&sb,
                          "<text x=\"%.1f\" y=\"48\" font-size=\"12\">R\xc2\xb2 %.3f, %zu of %zu "
                          "configs measured%s</text>\n",
                          LEFT, r->model->r2, r->measured, r->space->nconfigs,
                          r->model_trusted ? "" : " (low R\xc2\xb2: model not trusted)");
    else
        rpl_strbuf_printf(&sb,
                          "<text x=\"%.1f\" y=\"48\" font-size=\"12\">no model (fewer "
                          "than two configs measured)</text>\n",
                          LEFT);
    draw_axes(&sb, &a);
    draw_legend(&sb);
    for (size_t c = 0; c < r->space->nconfigs; c++) {
        const rpl_tune_config *cfg = &r->configs[c];
        if (!plotted(cfg, &m, &p))
            continue;
        rpl_strbuf_printf(&sb,
                          "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\" "
                          "fill-opacity=\"0.8\"><title>config %zu: measured %.3f us, predicted "
                          "%.3f us</title></circle>\n",
                          px(&a, m), py(&a, p), phase_color(cfg->phase), c, m, p);
        if (c == r->best)
            rpl_strbuf_printf(&sb,
                              "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" fill=\"none\" "
                              "stroke=\"#c00000\" stroke-width=\"2\"/>\n",
                              px(&a, m), py(&a, p));
    }
    rc = rpl_strbuf_puts(&sb, "</svg>\n");
    if (rc == 0)
        rc = rpl_file_write_atomic(path, rpl_strbuf_cstr(&sb), sb.len);
    rpl_strbuf_release(&sb);
    return rc;
}
