/*
 * The roofline and the critical-path timeline of a gate's traces in the
 * HTML report: the analysis and the DAG built by the same library calls as
 * `rocm-perf analyze` and `rocm-perf report`, their SVG inlined, and a
 * caption that says in words what each chart shows.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/analysis_report.h"
#include "rpl/classify.h"
#include "rpl/dag_report.h"
#include "rpl/error.h"
#include "rpl/html.h"
#include "rpl/kernel_filter.h"
#include "rpl/rocpd.h"
#include "rpl/roofline.h"

static void not_available(rpl_strbuf *out, const char *what, const char *why)
{
    rpl_strbuf_printf(out, "<p class=\"msg\">%s not available: ", what);
    rpl_html_esc(out, why);
    rpl_strbuf_puts(out, "</p>");
}

/*
 * Open a figure with its chart, or say why there is none (rc from making
 * it): true when the figure is open and its caption is to follow.
 */
static bool figure_open(rpl_strbuf *out, const char *what, int rc, const rpl_strbuf *svg)
{
    if (rc) {
        not_available(out, what, rpl_error_last()->message);
        rpl_error_clear();
        return false;
    }
    rpl_strbuf_puts(out, "<figure class=\"wide\" role=\"group\">");
    rpl_strbuf_put(out, svg->ptr, svg->len);
    return true;
}

static void roofline_figure(rpl_strbuf *out, const rpl_analysis *a)
{
    rpl_strbuf svg = RPL_STRBUF_INIT;
    cJSON *doc = NULL;
    size_t placed = 0;
    int rc;

    for (size_t i = 0; i < a->count; i++)
        placed += a->kernels[i].with_counters > 0;
    if (!placed) {
        not_available(out, "Roofline",
                      "the trace has no FLOP and HBM-byte counters (record them with "
                      "'rocm-perf profile --counters roofline')");
        return;
    }
    rc = rpl_roofline_json(&doc, a);
    if (!rc)
        rc = rpl_roofline_svg_render(&svg, doc);
    if (figure_open(out, "Roofline", rc, &svg)) {
        rpl_strbuf_puts(out, "<figcaption>Roofline (log-log: FLOP per HBM byte against "
                             "GFLOP/s, under the device's ceilings):");
        for (size_t i = 0; i < a->count; i++) {
            const rpl_analysis_kernel *k = &a->kernels[i];
            rpl_strbuf_puts(out, i ? "; " : " ");
            rpl_html_esc(out, k->name);
            if (k->point.valid)
                rpl_strbuf_printf(out, " %s-bound at %.3g FLOP/byte, %.0f%% of its roof",
                                  k->point.compute_bound ? "compute" : "memory", k->point.ai,
                                  100.0 * k->point.roof_fraction);
            else {
                rpl_strbuf_puts(out, " not placed: ");
                rpl_html_esc(out, k->point.reason);
            }
        }
        rpl_strbuf_puts(out, ".</figcaption></figure>");
    }
    rpl_strbuf_release(&svg);
    cJSON_Delete(doc);
}

static void dag_figure(rpl_strbuf *out, const rpl_dag *dag)
{
    rpl_strbuf svg = RPL_STRBUF_INIT;
    char *words = NULL;
    int rc = rpl_dag_svg_render(&svg, dag);

    if (!rc)
        rc = rpl_dag_dominant_text(&words, dag);
    if (figure_open(out, "Critical-path timeline", rc, &svg)) {
        rpl_strbuf_puts(out, "<figcaption>Critical-path timeline (one lane per stream or "
                             "queue, the critical path highlighted).");
        /* Its summary lines, one line each. */
        for (char *save, *line = strtok_r(words, "\n", &save); line;
             line = strtok_r(NULL, "\n", &save)) {
            rpl_strbuf_puts(out, "<br>");
            rpl_html_esc(out, line);
        }
        rpl_strbuf_puts(out, "</figcaption></figure>");
    }
    free(words);
    rpl_strbuf_release(&svg);
}

void rpl_html_trace_figures(rpl_strbuf *out, const char *const *traces, size_t ntraces,
                            const char *input)
{
    rpl_rocpd_read_opts read = {rpl_dag_arg_names}; /* the DAG reads a few API arguments */
    rpl_roofline_opts ro = {NULL, NULL, NULL};
    rpl_kernel_filter filter;
    bool filter_ready = false;
    rpl_dag_opts dopts;
    rpl_trace *t = NULL;
    rpl_analysis *a = NULL;
    rpl_dag *dag = NULL;
    int rc;

    rpl_strbuf_puts(out, "<h3>Roofline and critical path</h3>");
    if (!ntraces) {
        not_available(out, "Roofline and critical path",
                      strcmp(input, "app") == 0
                          ? "the trace of a program run is removed after the gate; keep it "
                            "with --keep-trace FILE, or gate a recorded trace (--trace)"
                          : "this result names no trace");
        return;
    }
    rc = rpl_kernel_filter_init(&filter, NULL, NULL, false);
    filter_ready = rc == 0;
    if (!rc)
        rc = rpl_trace_new(&t);
    for (size_t i = 0; !rc && i < ntraces; i++)
        rc = rpl_rocpd_read_with(t, traces[i], &read);
    /* The analysis first: the DAG frees the API regions it alone reads. */
    if (!rc)
        rc = rpl_analysis_build_kernels(&a, t, &filter, &ro);
    if (!rc) {
        rpl_dag_opts_init(&dopts);
        dopts.filter = &filter;
        rc = rpl_dag_build_release_api(&dag, t, &dopts);
    }
    if (rc) {
        not_available(out, "Roofline and critical path", rpl_error_last()->message);
        rpl_error_clear();
    } else {
        rpl_analysis_attach_dag(a, dag);
        roofline_figure(out, a);
        dag_figure(out, dag);
    }
    rpl_dag_free(dag);
    rpl_analysis_free(a);
    rpl_trace_free(t);
    if (filter_ready)
        rpl_kernel_filter_release(&filter);
}
