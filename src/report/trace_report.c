/*
 * The trace report (`rocm-perf report DIR|DB...`): the critical-path DAG of
 * rocpd traces as a summary, a Chrome/Perfetto trace and an SVG timeline.
 * Given an `analyze --out` folder it reads the databases listed in
 * DIR/dag.json ("inputs") with the DAG options recorded there; given
 * databases it reads them directly.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rpl/dag_report.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/log.h"
#include "rpl/report.h"
#include "rpl/rocpd.h"
#include "rpl/roofline.h"
#include "rpl/analysis_report.h"
#include "rpl/trace_report.h"

#define DAG_JSON_MAX (64u << 20)

int rpl_dag_infer_parse(const char *arg, rpl_dag_infer *out)
{
    if (strcmp(arg, "auto") == 0)
        *out = RPL_DAG_INFER_AUTO;
    else if (strcmp(arg, "never") == 0)
        *out = RPL_DAG_INFER_NEVER;
    else if (strcmp(arg, "always") == 0)
        *out = RPL_DAG_INFER_ALWAYS;
    else
        return rpl_error_set(RPL_EUSAGE, "--infer takes auto, never or always, not '%s'", arg);
    return 0;
}

typedef struct report_input {
    cJSON *doc; /* dag.json when given a folder */
    const char *const *paths;
    const char **owned; /* the paths of dag.json */
    size_t npaths;
    const char *helper_regex;
    rpl_dag_opts dag;
} report_input;

static int read_dag_json(report_input *in, const char *dir)
{
    char *path = NULL;
    const cJSON *inputs, *options, *item;
    const char *infer;
    int rc = rpl_path_join(&path, dir, RPL_DAG_JSON_NAME);

    if (!rc)
        rc = rpl_json_parse_file(&in->doc, path, DAG_JSON_MAX);
    if (rc) {
        if (rc == RPL_EIO || rc == RPL_ENOTFOUND)
            rc = rpl_error_set(RPL_EINPUT,
                               "'%s' has no readable dag.json; run 'rocm-perf "
                               "analyze --out %s' first, or pass the trace databases",
                               dir, dir);
        free(path);
        return rc;
    }
    inputs = cJSON_GetObjectItemCaseSensitive(in->doc, "inputs");
    in->npaths = cJSON_IsArray(inputs) ? (size_t)cJSON_GetArraySize(inputs) : 0;
    in->owned = calloc(in->npaths + 1, sizeof(*in->owned));
    in->paths = in->owned;
    if (!in->owned)
        rc = rpl_error_oom();
    for (size_t i = 0; !rc && i < in->npaths; i++) {
        item = cJSON_GetArrayItem(inputs, (int)i);
        if (!cJSON_IsString(item) || !item->valuestring[0])
            rc = rpl_error_set(RPL_EINPUT, "'%s': inputs[%zu] is not a path", path, i);
        else
            in->owned[i] = item->valuestring;
    }
    if (!rc && in->npaths == 0)
        rc = rpl_error_set(RPL_EINPUT, "'%s' lists no trace databases in 'inputs'", path);
    options = cJSON_GetObjectItemCaseSensitive(in->doc, "options");
    if (!rc && cJSON_IsObject(options)) {
        if (rpl_json_get_string(options, "infer", &infer) == 0)
            rc = rpl_dag_infer_parse(infer, &in->dag.infer);
        if (!rc && rpl_json_get_int64(options, "gap_ns", &in->dag.gap_ns) == RPL_EINPUT)
            rc = RPL_EINPUT;
        if (!rc && rpl_json_get_int64(options, "tolerance_ns", &in->dag.tolerance_ns) == RPL_EINPUT)
            rc = RPL_EINPUT;
        item = cJSON_GetObjectItemCaseSensitive(options, "helper_regex");
        if (cJSON_IsString(item))
            in->helper_regex = item->valuestring;
        if (rc)
            rpl_error_prefix("'%s'", path);
    }
    free(path);
    return rc;
}

/*
 * A profile output folder whose counters are a sample (profile.json's
 * counter_sample): say so under the summary.  Anything missing or of
 * another shape says nothing: the sample is a note, not an input.
 */
static int say_counter_sample(FILE *out, const char *dir)
{
    rpl_counter_sample s = {0};
    rpl_strbuf line = RPL_STRBUF_INIT;
    const cJSON *o, *per;
    cJSON *doc = NULL;
    char *path = NULL;
    int64_t v[3];
    bool early = false;
    int rc = rpl_path_join(&path, dir, "profile.json");

    if (rc)
        return rc;
    if (rpl_json_parse_file(&doc, path, DAG_JSON_MAX) != 0) {
        rpl_error_clear();
        free(path);
        return 0;
    }
    o = cJSON_GetObjectItemCaseSensitive(doc, "counter_sample");
    per = cJSON_GetObjectItemCaseSensitive(o, "dispatches_per_kernel");
    if (cJSON_IsObject(o) && rpl_json_get_int64(o, "skip", &v[0]) == 0 &&
        rpl_json_get_int64(o, "dispatches_measured", &v[1]) == 0 &&
        rpl_json_get_int64(o, "dispatches", &v[2]) == 0 &&
        rpl_json_get_bool(o, "stopped_early", &early) == 0 &&
        (cJSON_IsNumber(per) || cJSON_IsString(per)) && v[0] >= 0 && v[0] < UINT32_MAX &&
        v[1] >= 0 && v[2] >= 0) {
        s.skip = (uint32_t)v[0];
        s.per_kernel = cJSON_IsString(per) ? UINT32_MAX
                       : per->valuedouble >= 1 && per->valuedouble < UINT32_MAX
                           ? (uint32_t)per->valuedouble
                           : 0;
        s.stopped_early = early;
        s.measured = (uint64_t)v[1];
        s.dispatches = (uint64_t)v[2];
        if ((rc = rpl_counter_sample_line(&line, &s)) == 0)
            fputs(rpl_strbuf_cstr(&line), out);
    }
    rpl_error_clear();
    rpl_strbuf_release(&line);
    cJSON_Delete(doc);
    free(path);
    return rc;
}

static void apply_overrides(report_input *in, const rpl_trace_report_opts *o)
{
    if (o->has_infer)
        in->dag.infer = o->infer;
    if (o->has_gap)
        in->dag.gap_ns = o->gap_ns;
    if (o->has_tolerance)
        in->dag.tolerance_ns = o->tolerance_ns;
}

static int run(const rpl_trace_report_opts *o, report_input *in, FILE *out)
{
    struct stat st;
    rpl_rocpd_read_opts read = {rpl_dag_arg_names}; /* the DAG reads a few API arguments */
    rpl_kernel_filter filter;
    bool filter_ready = false;
    rpl_trace *trace = NULL;
    rpl_dag *dag = NULL;
    char *text = NULL;
    int rc = 0;

    rpl_dag_opts_init(&in->dag);
    if (o->ninputs == 1 && stat(o->inputs[0], &st) == 0 && S_ISDIR(st.st_mode)) {
        rc = read_dag_json(in, o->inputs[0]);
    } else {
        in->paths = o->inputs;
        in->npaths = o->ninputs;
    }
    apply_overrides(in, o);
    if (!rc) {
        rc = rpl_kernel_filter_init(&filter, NULL, in->helper_regex, false);
        filter_ready = rc == 0;
        in->dag.filter = &filter;
    }
    if (!rc)
        rc = rpl_trace_new(&trace);
    for (size_t i = 0; !rc && i < in->npaths; i++) {
        rc = rpl_rocpd_read_with(trace, in->paths[i], &read);
        rpl_log_info("read '%s': %u dispatches, %u copies so far", in->paths[i],
                     trace->dispatches.count, trace->memcpys.count);
    }
    /* Nothing here reads the API regions after the DAG: it frees them as soon as it can. */
    if (!rc)
        rc = rpl_dag_build_release_api(&dag, trace, &in->dag);
    if (!rc)
        rc = rpl_dag_summary_text(&text, dag, o->top);
    if (!rc) {
        fputs(text, out);
        if (in->doc)
            rc = say_counter_sample(out, o->inputs[0]);
        if (fflush(out) != 0 || ferror(out))
            rc = rpl_error_set(RPL_EIO, "writing to standard output failed");
    }
    if (!rc && o->perfetto) {
        rc = rpl_dag_perfetto_write(o->perfetto, dag, trace);
        if (!rc)
            rpl_log_info("wrote %s", o->perfetto);
    }
    if (!rc && o->svg) {
        rc = rpl_dag_svg_write(o->svg, dag);
        if (!rc)
            rpl_log_info("wrote %s", o->svg);
    }
    if (!rc && o->roofline_svg)
        rc = rpl_roofline_svg_from_dir(o->roofline_svg, in->doc ? o->inputs[0] : NULL);
    free(text);
    rpl_dag_free(dag);
    rpl_trace_free(trace);
    if (filter_ready)
        rpl_kernel_filter_release(&filter);
    return rc;
}

int rpl_trace_report_run(const rpl_trace_report_opts *o, FILE *out)
{
    report_input in = {0};
    int rc = run(o, &in, out);

    free(in.owned);
    cJSON_Delete(in.doc);
    return rc;
}
