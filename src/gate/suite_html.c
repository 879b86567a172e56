/*
 * The HTML report of a suite of gate results: one self-contained file
 * (inline CSS and SVG, no script, no network) that reads on a phone and
 * prints.  Per result: the verdict table, the GPU state, and per runtime
 * kernel the baseline's history chart with change points, accepted moves
 * and this run marked; every chart has a text alternative (its <title>,
 * <desc> and a caption) and a table of its change points.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/fsutil.h"
#include "rpl/gate.h"
#include "rpl/html.h"
#include "rpl/report.h"
#include "rpl/trend.h"
#include "rpl/version.h"

#define CHART_W 720.0
#define CHART_H 260.0
#define PAD_L   64.0
#define PAD_R   16.0
#define PAD_T   16.0
#define PAD_B   36.0

static const char *verdict_class(const rpl_gate_result *r, rpl_verdict v)
{
    return r->skipped ? "skipped" : rpl_verdict_name(v);
}

static void badge(rpl_strbuf *out, const char *cls)
{
    rpl_strbuf_printf(out, "<span class=\"badge %s\">%s</span>", cls, cls);
}

static void summary_section(rpl_strbuf *out, const rpl_gate_result *const *r, size_t n,
                            const rpl_suite_geomean *g)
{
    rpl_strbuf_puts(out, "<section aria-labelledby=\"suite\"><h2 id=\"suite\">Suite</h2>");
    if (g->kernels)
        rpl_strbuf_printf(out,
                          "<p><span class=\"big\">%.4f&times;</span> geometric mean of the "
                          "runtime ratios (candidate / baseline) over %zu kernel%s of %zu "
                          "test%s; %.0f%% bootstrap interval over tests [%.4f, %.4f].</p>",
                          g->ratio, g->kernels, g->kernels == 1 ? "" : "s", g->tests,
                          g->tests == 1 ? "" : "s", 100.0 * g->confidence, g->ci_low, g->ci_high);
    rpl_strbuf_puts(out, "<div class=\"table-wrap\"><table><caption>Every gate result</caption>"
                         "<thead><tr><th scope=\"col\">test</th><th scope=\"col\">arch</th>"
                         "<th scope=\"col\">device</th><th scope=\"col\">mode</th>"
                         "<th scope=\"col\">verdict</th></tr></thead><tbody>");
    for (size_t i = 0; i < n; i++) {
        rpl_strbuf_printf(out, "<tr><td><a href=\"#r%zu\">", i);
        rpl_html_esc(out, r[i]->test);
        rpl_strbuf_puts(out, "</a></td><td>");
        rpl_html_esc(out, r[i]->arch);
        rpl_strbuf_puts(out, "</td><td>");
        rpl_html_esc(out, r[i]->device ? r[i]->device : "-");
        rpl_strbuf_puts(out, "</td><td>");
        rpl_html_esc(out, r[i]->mode);
        rpl_strbuf_puts(out, "</td><td>");
        badge(out, verdict_class(r[i], r[i]->verdict));
        rpl_strbuf_puts(out, "</td></tr>");
    }
    rpl_strbuf_puts(out, "</tbody></table></div></section>");
}

static void checks_table(rpl_strbuf *out, const rpl_gate_result *r)
{
    char b[48], c[48];

    rpl_strbuf_puts(out, "<h3>Verdicts</h3><div class=\"table-wrap\"><table><caption>Each check: "
                         "baseline, this run, change, one-sided interval, verdict</caption>"
                         "<thead><tr><th scope=\"col\">kernel</th><th scope=\"col\">check</th>"
                         "<th scope=\"col\">baseline</th><th scope=\"col\">this run</th>"
                         "<th scope=\"col\">change</th><th scope=\"col\">interval</th>"
                         "<th scope=\"col\">verdict</th></tr></thead><tbody>");
    for (size_t i = 0; i < r->nchecks; i++) {
        const rpl_gate_check *k = &r->checks[i];
        bool ns = strcmp(k->family, "runtime") == 0;

        if (k->has_base && ns)
            rpl_format_ns(b, sizeof(b), k->base);
        else
            snprintf(b, sizeof(b), k->has_base ? "%.6g" : "-", k->base);
        if (k->has_cand && ns)
            rpl_format_ns(c, sizeof(c), k->cand);
        else
            snprintf(c, sizeof(c), k->has_cand ? "%.6g" : "-", k->cand);
        rpl_strbuf_puts(out, "<tr><td>");
        rpl_html_esc(out, k->kernel);
        rpl_strbuf_puts(out, "</td><td>");
        rpl_html_esc(out, k->family);
        rpl_strbuf_puts(out, " ");
        rpl_html_esc(out, k->metric);
        rpl_strbuf_printf(out, "</td><td class=\"num\">%s</td><td class=\"num\">%s</td>", b, c);
        if (k->has_base && k->has_cand)
            rpl_strbuf_printf(out, "<td class=\"num\">%+.2f%%</td>", 100.0 * k->change);
        else
            rpl_strbuf_puts(out, "<td class=\"num\">-</td>");
        if (k->has_runtime)
            rpl_strbuf_printf(out, "<td class=\"num\">[%+.2f%%, %+.2f%%]</td>",
                              100.0 * expm1(k->rt.lower), 100.0 * expm1(k->rt.upper));
        else
            rpl_strbuf_puts(out, "<td class=\"num\">-</td>");
        rpl_strbuf_puts(out, "<td>");
        badge(out, verdict_class(r, k->verdict));
        if (k->has_runtime)
            rpl_strbuf_printf(out, " %s", rpl_change_name(k->rt.change));
        rpl_strbuf_puts(out, "<div class=\"msg\">");
        rpl_html_esc(out, k->message);
        rpl_strbuf_puts(out, "</div></td></tr>");
    }
    rpl_strbuf_puts(out, "</tbody></table></div>");
}

static void state_cells(rpl_strbuf *out, const rpl_gpu_state *s)
{
    if (!s->valid) {
        rpl_strbuf_puts(out, "<td colspan=\"5\">not recorded</td>");
        return;
    }
    rpl_strbuf_printf(out, "<td class=\"num\">%.0f MHz</td>", s->sm_mhz);
    rpl_strbuf_printf(out, s->mem_mhz >= 0 ? "<td class=\"num\">%.0f MHz</td>" : "<td>-</td>",
                      s->mem_mhz);
    rpl_strbuf_printf(out,
                      s->temperature_c >= 0 ? "<td class=\"num\">%.0f &deg;C</td>" : "<td>-</td>",
                      s->temperature_c);
    rpl_strbuf_printf(out, s->power_w >= 0 ? "<td class=\"num\">%.0f W</td>" : "<td>-</td>",
                      s->power_w);
    rpl_strbuf_printf(out, "<td>%s</td>", s->throttle & RPL_THROTTLE_SLOWING ? "yes" : "no");
}

static void gpu_table(rpl_strbuf *out, const rpl_gate_result *r)
{
    char why[400];
    bool unstable = rpl_gpu_state_unstable(&r->gpu, &r->baseline_gpu, why, sizeof(why));

    rpl_strbuf_puts(out, "<h3>GPU state</h3><div class=\"table-wrap\"><table><caption>Clocks, "
                         "temperature and power while measured (highest sampled), throttling "
                         "seen</caption><thead><tr><th scope=\"col\">run</th><th scope=\"col\">SM "
                         "clock</th><th scope=\"col\">memory clock</th><th scope=\"col\">"
                         "temperature</th><th scope=\"col\">power</th><th scope=\"col\">"
                         "throttled</th></tr></thead><tbody><tr><th scope=\"row\">this run</th>");
    state_cells(out, &r->gpu);
    rpl_strbuf_puts(out, "</tr><tr><th scope=\"row\">baseline</th>");
    state_cells(out, &r->baseline_gpu);
    rpl_strbuf_puts(out, "</tr></tbody></table></div>");
    if (unstable) {
        rpl_strbuf_puts(out, "<p><span class=\"badge warn\">clocks</span> ");
        rpl_html_esc(out, why);
        rpl_strbuf_puts(out, "</p>");
    }
}

typedef struct chart {
    double lo, hi; /* y range, ns */
    size_t n;      /* x slots: history entries and this run */
} chart;

static double cx(const chart *c, size_t i)
{
    return PAD_L + (CHART_W - PAD_L - PAD_R) * ((double)i + 0.5) / (double)c->n;
}

static double cy(const chart *c, double v)
{
    return PAD_T + (CHART_H - PAD_T - PAD_B) * (1.0 - (v - c->lo) / (c->hi - c->lo));
}

/* One kernel's history as charted. */
typedef struct series {
    const rpl_baseline *b;
    const char *kernel;
    double *x;     /* the kernel's median per entry that has one */
    size_t *entry; /* that entry's index in b->runs */
    size_t n;
    rpl_change_point *cp; /* change points of x */
    size_t ncp;
    double now; /* this run's median, 0: none */
    chart c;
} series;

/* The <svg> element's opening, <title> and <desc> (the chart's text alternative). */
static void chart_head(rpl_strbuf *out, const series *s, size_t id)
{
    const double *x = s->x, now = s->now;
    const char *kernel = s->kernel;
    size_t n = s->n, ncp = s->ncp;
    const rpl_change_point *cp = s->cp;
    char m1[32], m2[32];

    rpl_strbuf_printf(out,
                      "<figure><svg class=\"chart\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
                      "id=\"chart%zu\" xmlns=\"http://www.w3.org/2000/svg\">"
                      "<title>History of ",
                      CHART_W, CHART_H, id);
    rpl_html_esc(out, kernel);
    rpl_strbuf_printf(out,
                      "</title><desc>Median per recorded run, %zu runs from "
                      "%s to %s; %zu change point%s",
                      n, rpl_format_ns(m1, sizeof(m1), x[0]),
                      rpl_format_ns(m2, sizeof(m2), x[n - 1]), ncp, ncp == 1 ? "" : "s");
    for (size_t i = 0; i < ncp; i++)
        rpl_strbuf_printf(out, "; at run %zu %+.1f%%", cp[i].index, 100.0 * cp[i].size);
    if (now > 0)
        rpl_strbuf_printf(out, "; this run %s", rpl_format_ns(m1, sizeof(m1), now));
    rpl_strbuf_puts(out, ".</desc>");
}

static void chart_axes(rpl_strbuf *out, const series *s)
{
    const chart *c = &s->c;
    size_t n = s->n;
    char m1[32];

    for (int t = 0; t <= 4; t++) {
        double v = c->lo + (c->hi - c->lo) * t / 4.0, y = cy(c, v);
        rpl_strbuf_printf(out,
                          "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                          "stroke=\"#d8dde6\"/><text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
                          "text-anchor=\"end\" fill=\"#5b6577\">%s</text>",
                          PAD_L, CHART_W - PAD_R, y, y, PAD_L - 6, y + 4,
                          rpl_format_ns(m1, sizeof(m1), v));
    }
    for (size_t i = 0; i<n; i += n> 20 ? 5 : 1)
        rpl_strbuf_printf(out,
                          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
                          "text-anchor=\"middle\" fill=\"#5b6577\">%zu</text>",
                          cx(c, i), CHART_H - PAD_B + 16, i);
    rpl_strbuf_printf(out,
                      "<text x=\"%.1f\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" "
                      "fill=\"#5b6577\">history entry</text>",
                      (PAD_L + CHART_W) / 2, CHART_H - 4);
}

/* Levels between change points, and the change points. */
static void chart_changes(rpl_strbuf *out, const series *s)
{
    const rpl_baseline *b = s->b;
    const size_t *entry = s->entry;
    const chart *c = &s->c;
    size_t n = s->n, ncp = s->ncp;
    const rpl_change_point *cp = s->cp;

    for (size_t seg = 0; seg <= ncp; seg++) {
        size_t from = seg ? cp[seg - 1].index : 0, to = seg < ncp ? cp[seg].index : n;
        double level = seg < ncp ? cp[seg].before : (ncp ? cp[ncp - 1].after : 0);
        if (!ncp)
            break;
        rpl_strbuf_printf(out,
                          "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                          "stroke=\"#6639ba\" stroke-width=\"2\" opacity=\"0.6\"/>",
                          cx(c, from), cx(c, to - 1), cy(c, level), cy(c, level));
    }
    for (size_t i = 0; i < ncp; i++) {
        double xx = (cx(c, cp[i].index - 1) + cx(c, cp[i].index)) / 2;
        const rpl_history_entry *e = &b->runs[entry[cp[i].index]];
        rpl_strbuf_printf(out, "<g><title>change point at entry %zu: %+.2f%%, p %.3f, commit ",
                          cp[i].index, 100.0 * cp[i].size, cp[i].p_value);
        rpl_html_esc(out, e->commit ? e->commit : "not recorded");
        rpl_strbuf_printf(out,
                          "</title><line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" "
                          "stroke=\"#cf222e\" stroke-dasharray=\"5 4\" stroke-width=\"2\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#cf222e\">"
                          "%+.1f%% @%zu</text></g>",
                          xx, xx, PAD_T, CHART_H - PAD_B, xx + 4, CHART_H - PAD_B - 8,
                          100.0 * cp[i].size, cp[i].index);
    }
}

/* The entries (accepted moves marked), this run, and the caption. */
static void chart_points(rpl_strbuf *out, const series *s)
{
    const rpl_baseline *b = s->b;
    const size_t *entry = s->entry;
    const char *kernel = s->kernel;
    const chart *c = &s->c;
    const double *x = s->x, now = s->now;
    size_t n = s->n;
    char m1[32];

    rpl_strbuf_puts(out, "<polyline fill=\"none\" stroke=\"#0969da\" stroke-width=\"1.5\" "
                         "points=\"");
    for (size_t i = 0; i < n; i++)
        rpl_strbuf_printf(out, "%.1f,%.1f ", cx(c, i), cy(c, x[i]));
    rpl_strbuf_puts(out, "\"/>");
    for (size_t i = 0; i < n; i++) {
        const rpl_history_entry *e = &b->runs[entry[i]];
        rpl_strbuf_printf(out, "<g><title>entry %zu: %s", i, rpl_format_ns(m1, sizeof(m1), x[i]));
        if (e->commit)
            rpl_strbuf_printf(out, ", commit %.12s", e->commit);
        if (e->date) {
            rpl_strbuf_puts(out, ", ");
            rpl_html_esc(out, e->date);
        }
        if (e->accepted) {
            rpl_strbuf_puts(out, ", accepted: ");
            rpl_html_esc(out, e->accepted);
        }
        if (e->accepted)
            rpl_strbuf_printf(out,
                              "</title><path d=\"M%.1f %.1fl6 6l-6 6l-6 -6z\" "
                              "fill=\"#1a7f37\"/></g>",
                              cx(c, i), cy(c, x[i]) - 6);
        else
            rpl_strbuf_printf(out,
                              "</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
                              "fill=\"#0969da\"/></g>",
                              cx(c, i), cy(c, x[i]));
    }
    if (now > 0)
        rpl_strbuf_printf(out,
                          "<g><title>this run: %s</title><circle cx=\"%.1f\" cy=\"%.1f\" "
                          "r=\"6\" fill=\"#fff\" stroke=\"#cf222e\" stroke-width=\"3\"/>"
                          "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\" "
                          "fill=\"#1d2433\">this run</text></g>",
                          rpl_format_ns(m1, sizeof(m1), now), cx(c, n), cy(c, now), cx(c, n),
                          cy(c, now) - 10);
    rpl_strbuf_printf(out, "</svg><figcaption>History of <code>");
    rpl_html_esc(out, kernel);
    rpl_strbuf_printf(out,
                      "</code>: %zu recorded runs (blue), levels between change points "
                      "(purple), change points (red, dashed), accepted moves (green), this "
                      "run (red ring).</figcaption></figure>",
                      n);
}

/* The change points as a table, each with the commit it began at and any move accepted near it. */
static void change_table(rpl_strbuf *out, const series *s)
{
    const rpl_baseline *b = s->b;
    const size_t *entry = s->entry;
    size_t n = s->n, ncp = s->ncp;
    const rpl_change_point *cp = s->cp;
    char m1[32], m2[32];

    rpl_strbuf_puts(out, "<div class=\"table-wrap\"><table><caption>Change points (E-Divisive, "
                         "permutation test)</caption><thead><tr><th scope=\"col\">entry</th>"
                         "<th scope=\"col\">change</th><th scope=\"col\">before</th><th "
                         "scope=\"col\">after</th><th scope=\"col\">p</th><th scope=\"col\">began "
                         "at commit</th><th scope=\"col\">accepted</th></tr></thead><tbody>");
    for (size_t i = 0; i < ncp; i++) {
        const rpl_history_entry *e = &b->runs[entry[cp[i].index]];
        const char *acc = NULL;
        for (size_t k = cp[i].index > 2 ? cp[i].index - 2 : 0; k < n && k <= cp[i].index + 2; k++)
            acc = acc ? acc : b->runs[entry[k]].accepted;
        rpl_strbuf_printf(out,
                          "<tr><td class=\"num\">%zu</td><td class=\"num\">%+.2f%%</td>"
                          "<td class=\"num\">%s</td><td class=\"num\">%s</td>"
                          "<td class=\"num\">%.3f</td><td><code>",
                          cp[i].index, 100.0 * cp[i].size,
                          rpl_format_ns(m1, sizeof(m1), cp[i].before),
                          rpl_format_ns(m2, sizeof(m2), cp[i].after), cp[i].p_value);
        rpl_html_esc(out, e->commit ? e->commit : "not recorded");
        rpl_strbuf_puts(out, "</code></td><td>");
        rpl_html_esc(out, acc ? acc : "-");
        rpl_strbuf_puts(out, "</td></tr>");
    }
    rpl_strbuf_puts(out, "</tbody></table></div>");
}

/* The history chart of one kernel: entries, levels, change points, accepted moves, this run. */
static void history_chart(rpl_strbuf *out, const rpl_baseline *b, const char *kernel, double now,
                          size_t id)
{
    series s = {b,
                kernel,
                malloc((b->nruns + 1) * sizeof(double)),
                malloc((b->nruns + 1) * sizeof(size_t)),
                0,
                NULL,
                0,
                now,
                {0, 0, 0}};
    rpl_cp_opts o;

    if (!s.x || !s.entry)
        goto done;
    for (size_t i = 0; i < b->nruns; i++)
        for (size_t j = 0; j < b->runs[i].nmedians; j++)
            if (strcmp(b->runs[i].medians[j].name, kernel) == 0) {
                s.entry[s.n] = i;
                s.x[s.n++] = b->runs[i].medians[j].value;
            }
    if (s.n == 0)
        goto done;
    rpl_cp_opts_init(&o);
    if (rpl_change_points(&s.cp, &s.ncp, s.x, s.n, &o) != 0) {
        rpl_error_clear();
        s.ncp = 0;
    }
    s.c = (chart){s.x[0], s.x[0], s.n + (now > 0)};
    for (size_t i = 0; i < s.n; i++) {
        s.c.lo = fmin(s.c.lo, s.x[i]);
        s.c.hi = fmax(s.c.hi, s.x[i]);
    }
    if (now > 0) {
        s.c.lo = fmin(s.c.lo, now);
        s.c.hi = fmax(s.c.hi, now);
    }
    s.c.lo *= 0.97;
    s.c.hi *= 1.03;
    chart_head(out, &s, id);
    chart_axes(out, &s);
    chart_changes(out, &s);
    chart_points(out, &s);
    if (s.ncp)
        change_table(out, &s);
done:
    RPL_FREE_EACH(s.cp, s.x, s.entry);
}

static rpl_baseline *load_baseline(const rpl_gate_result *r, const char *dir)
{
    rpl_baseline *b = NULL;
    char *path = NULL;

    if (dir && rpl_baseline_path(&path, dir, r->arch, r->test) == 0)
        rpl_baseline_read(&b, path);
    else if (!dir && r->baseline_path)
        rpl_baseline_read(&b, r->baseline_path);
    rpl_error_clear(); /* a missing or unreadable baseline means no chart, said in the page */
    free(path);
    return b;
}

static void result_section(rpl_strbuf *out, const rpl_gate_result *r, size_t i, const char *dir,
                           size_t *chart_id)
{
    rpl_baseline *b = load_baseline(r, dir);

    rpl_strbuf_printf(out, "<section id=\"r%zu\" aria-labelledby=\"r%zu-h\"><h2 id=\"r%zu-h\">", i,
                      i, i);
    rpl_html_esc(out, r->test);
    rpl_strbuf_puts(out, " on ");
    rpl_html_esc(out, r->arch);
    rpl_strbuf_puts(out, " ");
    badge(out, verdict_class(r, r->verdict));
    rpl_strbuf_puts(out, "</h2><p class=\"meta\">");
    rpl_html_esc(out, r->device ? r->device : "device not recorded");
    rpl_strbuf_printf(out, " &middot; %s gate, tolerance %.1f%%, confidence %.0f%%", r->mode,
                      100.0 * r->stat.delta, 100.0 * r->stat.confidence);
    if (r->baseline_path) {
        rpl_strbuf_puts(out, " &middot; baseline ");
        rpl_html_esc(out, r->baseline_path);
    }
    rpl_strbuf_puts(out, "</p>");
    checks_table(out, r);
    gpu_table(out, r);
    if (strcmp(r->mode, "runtime") == 0) {
        rpl_strbuf_puts(out, "<h3>History</h3>");
        if (!b || !b->nruns)
            rpl_strbuf_puts(out, "<p>No recorded history for this baseline.</p>");
        for (size_t k = 0; b && b->nruns && k < r->nchecks; k++)
            if (r->checks[k].has_runtime)
                history_chart(out, b, r->checks[k].kernel, r->checks[k].cand, (*chart_id)++);
        rpl_html_trace_figures(out, (const char *const *)r->traces, r->ntraces, r->input);
    }
    rpl_strbuf_puts(out, "</section>");
    rpl_baseline_free(b);
}

int rpl_suite_html(const char *path, const rpl_gate_result *const *results, size_t n,
                   const rpl_suite_geomean *g, const char *baseline_dir)
{
    rpl_strbuf out = RPL_STRBUF_INIT;
    size_t counts[4] = {0}, chart_id = 0;
    int rc;

    for (size_t i = 0; i < n; i++)
        counts[results[i]->verdict]++;
    rpl_strbuf_printf(&out,
                      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"
                      "\n<meta name=\"viewport\" content=\"width=device-width, "
                      "initial-scale=1\">\n<title>rocm-perf report</title>\n<style>%s</style>"
                      "\n</head>\n<body>\n<header><h1>rocm-perf performance report</h1><p>"
                      "%zu gate result%s: %zu fail, %zu warn, %zu improved, %zu pass</p>"
                      "</header>\n<main>\n",
                      rpl_html_style, n, n == 1 ? "" : "s", counts[RPL_VERDICT_FAIL],
                      counts[RPL_VERDICT_WARN], counts[RPL_VERDICT_IMPROVED],
                      counts[RPL_VERDICT_PASS]);
    summary_section(&out, results, n, g);
    for (size_t i = 0; i < n; i++) {
        rpl_strbuf_puts(&out, "\n");
        result_section(&out, results[i], i, baseline_dir, &chart_id);
    }
    rpl_strbuf_printf(&out,
                      "\n</main>\n<footer><p class=\"meta\" style=\"text-align:center\">"
                      "rocm-perf %s</p></footer>\n</body>\n</html>\n",
                      RPL_VERSION_STRING);
    rc = out.ptr ? rpl_file_write_atomic(path, out.ptr, out.len) : rpl_error_oom();
    rpl_strbuf_release(&out);
    return rc;
}
