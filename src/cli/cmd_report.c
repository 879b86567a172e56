/*
 * rocm-perf report: the critical-path DAG of rocpd traces as a summary, a
 * Chrome/Perfetto trace and an SVG timeline.  Given an `analyze --out`
 * folder it reads the databases listed in DIR/dag.json ("inputs") with the
 * DAG options recorded there; given databases it reads them directly.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "rpl/dag_report.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/log.h"
#include "rpl/report.h"
#include "rpl/rocpd.h"
#include "rpl/roofline.h"

#define DEFAULT_TOP  10
#define DAG_JSON_MAX (64u << 20)

typedef struct report_opts {
    const char *perfetto, *svg, *roofline_svg, *html;
    const char *suite; /* in the help only: --suite is cmd_report_suite's */
    size_t top;
    /* DAG options given on the command line: they override dag.json's. */
    bool has_infer, has_gap, has_tolerance;
    rpl_dag_infer infer;
    int64_t gap, tolerance;
} report_opts;

static int parse_infer(const char *arg, rpl_dag_infer *out)
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

static int infer_option(void *value, const rpl_option *opt, const char *arg)
{
    (void)opt;
    return parse_infer(arg, value) ? rpl_cli_fail(RPL_EUSAGE) : 0;
}

#define F(m) RPL_FIELD(report_opts, m)

static const rpl_option report_options[] = {
    OPT_STRING(0, "perfetto", F(perfetto), "FILE",
               "Chrome/Perfetto trace JSON (open in ui.perfetto.dev)"),
    OPT_STRING(0, "svg", F(svg), "FILE", "static SVG timeline, critical path highlighted"),
    OPT_STRING(0, "roofline-svg", F(roofline_svg), "FILE",
               "log-log roofline chart of DIR/roofline.json (DIR only)"),
    OPT_UINT(0, "top", F(top), 0, 100000, "N", "priorities in the summary (default {})"),
    {.type = RPL_OPT_CALLBACK,
     .long_name = "infer",
     F(infer),
     .fn = infer_option,
     .argh = "MODE",
     .help = "inferred edges: auto (only without record, wait or blocking regions), never, "
             "always",
     RPL_SEEN(report_opts, has_infer)},
    OPT_UINT_SEEN(
        0, "gap-ns", F(gap), RPL_SEEN(report_opts, has_gap), 0, 1e18, "N",
        "largest gap of an inferred edge (default " RPL_STRINGIFY(RPL_DAG_GAP_NS_DEFAULT) ")"),
    OPT_UINT_SEEN(0, "tolerance-ns", F(tolerance), RPL_SEEN(report_opts, has_tolerance), 0, 1e18,
                  "N",
                  "how far a wait may point back in time (default " RPL_STRINGIFY(
                      RPL_DAG_TOLERANCE_NS_DEFAULT) ")"),
    OPT_STRING(0, "suite", F(suite), "DIR",
               "instead: the gate results of a whole ctest run below DIR, with Holm's correction "
               "(docs/CLI.md, 'report --suite')"),
    OPT_STRING(0, "html", F(html), "FILE",
               "with an optimize --artifacts folder: its candidates, decisions, evidence and "
               "commits as one HTML page"),
    OPT_END(),
};

static const rpl_command report_command = {
    .name = "report",
    .usage = "rocm-perf report DIR|DB... [--perfetto FILE] [--svg FILE] [--top N]\n"
             "                 [--roofline-svg FILE]\n"
             "                 [--infer auto|never|always] [--gap-ns N]\n"
             "                 [--tolerance-ns N] [-v|-q]\n"
             "rocm-perf report --suite DIR [--alpha A] [--markdown F] [--junit F]\n"
             "rocm-perf report --html FILE ARTIFACTS_DIR",
    .description = "Critical path of rocpd traces: print a summary (critical path, span,\n"
                   "dominant kernel, speedup ceiling, priorities) and write timelines.\n"
                   "DIR is an 'analyze --out' folder: its dag.json names the databases and the\n"
                   "DAG options; otherwise the arguments are the databases.",
    .options = report_options,
    .exit_codes = "0 ok, 2 bad usage or bad input (unreadable trace, dependency\n"
                  "cycle, contradictory timestamps), 3 output could not be written.",
};

/* Returns -1 when parsed, with the arguments left in *argc, *argv; else the exit code. */
static int parse_args(report_opts *o, int *argc, char ***argv)
{
    int rc;

    o->top = DEFAULT_TOP;
    if ((rc = rpl_parse_options(&report_command, o, argc, argv)) >= 0)
        return rc;
    if (*argc == 0) {
        rpl_parse_options_usage(&report_command, o, stderr);
        return rpl_cli_usage_error("report needs an analyze --out folder or trace databases");
    }
    if (o->html && (*argc != 1 || o->perfetto || o->svg || o->roofline_svg))
        return rpl_cli_usage_error("report --html FILE takes one optimize --artifacts folder "
                                   "and no other output (or use --suite DIR --html FILE)");
    return -1;
}

/* What to read and how: from DIR/dag.json or from the arguments. */
typedef struct report_input {
    cJSON *doc; /* dag.json when given a folder */
    const char **paths;
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
    in->paths = calloc(in->npaths + 1, sizeof(*in->paths));
    if (!in->paths)
        rc = rpl_error_oom();
    for (size_t i = 0; !rc && i < in->npaths; i++) {
        item = cJSON_GetArrayItem(inputs, (int)i);
        if (!cJSON_IsString(item) || !item->valuestring[0])
            rc = rpl_error_set(RPL_EINPUT, "'%s': inputs[%zu] is not a path", path, i);
        else
            in->paths[i] = item->valuestring;
    }
    if (!rc && in->npaths == 0)
        rc = rpl_error_set(RPL_EINPUT, "'%s' lists no trace databases in 'inputs'", path);
    options = cJSON_GetObjectItemCaseSensitive(in->doc, "options");
    if (!rc && cJSON_IsObject(options)) {
        if (rpl_json_get_string(options, "infer", &infer) == 0)
            rc = parse_infer(infer, &in->dag.infer);
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
static int say_counter_sample(const char *dir)
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
            fputs(rpl_strbuf_cstr(&line), stdout);
    }
    rpl_error_clear();
    rpl_strbuf_release(&line);
    cJSON_Delete(doc);
    free(path);
    return rc;
}

static void apply_overrides(report_input *in, const report_opts *o)
{
    if (o->has_infer)
        in->dag.infer = o->infer;
    if (o->has_gap)
        in->dag.gap_ns = o->gap;
    if (o->has_tolerance)
        in->dag.tolerance_ns = o->tolerance;
}

static int run(const report_opts *o, report_input *in, int argc, char **argv)
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
    if (argc == 1 && stat(argv[0], &st) == 0 && S_ISDIR(st.st_mode)) {
        rc = read_dag_json(in, argv[0]);
    } else {
        in->paths = (const char **)argv;
        in->npaths = (size_t)argc;
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
        fputs(text, stdout);
        if (in->doc)
            rc = say_counter_sample(argv[0]);
        if (fflush(stdout) != 0 || ferror(stdout))
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
        rc = rpl_roofline_svg_from_dir(o->roofline_svg, in->doc ? argv[0] : NULL);
    free(text);
    rpl_dag_free(dag);
    rpl_trace_free(trace);
    if (filter_ready)
        rpl_kernel_filter_release(&filter);
    return rc;
}

int cmd_report(int argc, char **argv)
{
    report_opts o = {0};
    report_input in = {0};
    int rc;

    for (int i = 1; i < argc; i++) /* the gate results of a suite: cmd_gate.c */
        if (strcmp(argv[i], "--suite") == 0 || strncmp(argv[i], "--suite=", 8) == 0)
            return cmd_report_suite(argc, argv);
    rc = parse_args(&o, &argc, &argv);
    if (rc < 0 && o.html) {
        rc = rpl_optimize_html(o.html, argv[0]);
        if (!rc)
            rpl_log_info("wrote %s", o.html);
        return rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
    }
    if (rc < 0) {
        rc = run(&o, &in, argc, argv);
        rc = rc ? rpl_cli_fail(rc) : RPL_EXIT_OK;
    }
    if (in.doc)
        free(in.paths);
    cJSON_Delete(in.doc);
    return rc;
}
