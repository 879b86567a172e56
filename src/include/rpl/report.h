/*
 * Report writers: the documents and tables rocm-perf prints or writes.
 * Each JSON document carries "schema_version" and has a JSON Schema in
 * docs/schemas/.
 */
#ifndef RPL_REPORT_H
#define RPL_REPORT_H

#include <stddef.h>
#include <cjson/cJSON.h>

#include "rpl/profile.h"
#include "rpl/strbuf.h"

/* profile.json, docs/schemas/profile.schema.json */
#define RPL_PROFILE_SCHEMA_VERSION "1.0"

/*
 * Which dispatches carry counters when a profile measured a sample of them
 * (rocm-perf profile): the first `per_kernel` dispatches of each kernel
 * after `skip` (UINT32_MAX: every one after skip); measured of dispatches
 * carry counters in the trace.
 */
typedef struct rpl_counter_sample {
    uint32_t skip, per_kernel;
    bool stopped_early; /* the counter run ended once the sample was measured */
    uint64_t measured, dispatches;
} rpl_counter_sample;

/* What a report was made from, as the user named it. */
typedef struct rpl_report_inputs {
    const char *const *traces; /* trace databases */
    size_t ntraces;
    const char *const *counter_passes; /* counter-pass databases merged into them */
    size_t ncounter_passes;
    const rpl_counter_sample *counter_sample; /* NULL: not a sampled profile */
} rpl_report_inputs;

/* One line saying which dispatches carry counters ("counters: ..."), appended to `out`. */
int rpl_counter_sample_line(rpl_strbuf *out, const rpl_counter_sample *s);

/* The profile.json document. */
int rpl_profile_json(cJSON **out, const rpl_profile *p, const rpl_report_inputs *in);

/*
 * The human summary: a short header (device, dispatches, span, GPU busy)
 * and an aligned table of the `top` kernels with the most time (0: all),
 * appended to `out`.
 */
int rpl_profile_table(rpl_strbuf *out, const rpl_profile *p, size_t top);

/*
 * A duration for people: "850 ns", "12.35 us", "4.20 ms", "3.142 s".
 * Writes at most `cap` bytes into `buf` and returns it.
 */
const char *rpl_format_ns(char *buf, size_t cap, double ns);

/*
 * `report --html FILE DIR`: the optimize-log.json of an optimize or
 * llm-optimize --artifacts folder as one self-contained HTML page (the
 * candidates with their decisions, evidence and commits).  A folder
 * without a readable log is RPL_EINPUT.
 */
int rpl_optimize_html(const char *html_path, const char *artifacts_dir);
/* The page of an optimize log already parsed (path: what the page calls it). */
int rpl_optimize_html_page(rpl_strbuf *out, const cJSON *log, const char *path);

#endif
