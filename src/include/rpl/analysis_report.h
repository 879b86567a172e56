/*
 * Reports of an analysis (analysis/): the roofline.json and analysis.json
 * documents (docs/schemas/{roofline,analysis}.schema.json), the roofline
 * chart, and the files `analyze --out DIR` writes.
 */
#ifndef RPL_ANALYSIS_REPORT_H
#define RPL_ANALYSIS_REPORT_H

#include <cjson/cJSON.h>

#include "rpl/classify.h"
#include "rpl/strbuf.h"

/*
 * The fields both files carry per kernel (kernel, time_ns, flops, bytes,
 * arithmetic_intensity, gflops, gbps, bound, roof_fraction, bottleneck,
 * confidence, critical_path_fraction, headroom, priority), null where unknown.
 */
int rpl_analysis_kernel_core_json(cJSON *obj, const rpl_analysis_kernel *k);

/* roofline.json and analysis.json documents (docs/schemas/{roofline,analysis}.schema.json). */
int rpl_roofline_json(cJSON **out, const rpl_analysis *a);
int rpl_analysis_json(cJSON **out, const rpl_analysis *a);
/*
 * Refresh the critical-path fields (critical_path_fraction, priority) of a
 * roofline.json document made from `a` before rpl_analysis_attach_dag: the
 * document, mostly per-dispatch lists, can be built while the DAG is.
 */
int rpl_roofline_json_set_path(cJSON *doc, const rpl_analysis *a);

/*
 * `analyze --out DIR`: write DIR/roofline.json (`roofline`, the document of
 * `a` as rpl_json_print gives it) and DIR/analysis.json.  Missing counters
 * or ATT give null entries with a reason.
 */
int rpl_roofline_write_outputs(const char *dir, const rpl_analysis *a, const char *roofline);

/* `report DIR --roofline-svg FILE`: draw DIR/roofline.json (dir NULL: usage error). */
int rpl_roofline_svg_from_dir(const char *svg_path, const char *dir);

/* The log-log roofline chart of a roofline.json document. */
int rpl_roofline_svg_write(const char *path, const cJSON *roofline_doc);
/* The same <svg> element appended to *out (no XML declaration), for inlining in HTML. */
int rpl_roofline_svg_render(rpl_strbuf *out, const cJSON *roofline_doc);

#endif
