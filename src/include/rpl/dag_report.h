/*
 * Reports of the critical-path DAG: dag.json (docs/schemas/dag.schema.json),
 * a Chrome/Perfetto trace and an SVG timeline.
 */
#ifndef RPL_DAG_REPORT_H
#define RPL_DAG_REPORT_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "rpl/dag.h"
#include "rpl/kernel_filter.h"
#include "rpl/strbuf.h"
#include "rpl/trace.h"

#define RPL_DAG_SCHEMA_VERSION "1.1"
#define RPL_DAG_JSON_NAME      "dag.json"
/* Critical-path segments listed in dag.json at most (the rest is summarised). */
#define RPL_DAG_JSON_MAX_SEGMENTS 1000

/*
 * The dag.json document.  `inputs` are the trace databases (written as
 * absolute paths, so that `rocm-perf report DIR` can read them again);
 * `helper_regex` is the helper pattern in effect (NULL: not recorded).
 */
int rpl_dag_json(cJSON **out, const rpl_dag *dag, const char *const *inputs, size_t ninputs,
                 const char *helper_regex);

/*
 * Write DIR/dag.json atomically for `dag`, built with `filter`'s helper
 * classification.  What `rocm-perf analyze --out DIR` calls.
 */
int rpl_dag_json_write(const char *dir, const rpl_dag *dag, const rpl_kernel_filter *filter,
                       const char *const *inputs, size_t ninputs);

/*
 * A Chrome trace-event JSON file that ui.perfetto.dev and chrome://tracing
 * open: one track per lane, flow arrows for dependencies, a "critical path"
 * track.  Written to a temporary sibling and renamed.
 */
int rpl_dag_perfetto_write(const char *path, const rpl_dag *dag, const rpl_trace *trace);

/* A static SVG timeline: one lane per stream/queue, the critical path highlighted. */
int rpl_dag_svg_write(const char *path, const rpl_dag *dag);
/* The same <svg> element appended to *out (no XML declaration), for inlining in HTML. */
int rpl_dag_svg_render(rpl_strbuf *out, const rpl_dag *dag);

/*
 * Three lines on the critical path for `rocm-perf analyze --out`: its
 * length, what it is made of (application kernels, helpers, copies) and
 * the dominant kernel, or why none dominates.  *out is malloc'ed.
 */
int rpl_dag_dominant_text(char **out, const rpl_dag *dag);

/* The human summary printed by `rocm-perf report` (appended to *out, free()). */
int rpl_dag_summary_text(char **out, const rpl_dag *dag, size_t top);

#endif
