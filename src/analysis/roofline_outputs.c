/*
 * The files of the roofline analysis: DIR/roofline.json and
 * DIR/analysis.json from `analyze --out DIR`, and the SVG chart that
 * `report DIR --roofline-svg FILE` draws from DIR/roofline.json.
 */
#include <stdlib.h>

#include "rpl/classify.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/log.h"

#define ROOFLINE_JSON_MAX (256u << 20)

static int write_doc(const char *dir, const char *name, const cJSON *doc)
{
    char *path = NULL;
    int rc = rpl_path_join(&path, dir, name);

    if (!rc)
        rc = rpl_json_write_file(path, doc);
    if (!rc)
        rpl_log_info("wrote %s", path);
    free(path);
    return rc;
}

int rpl_roofline_write_outputs(const char *dir, const rpl_trace *trace,
                               const rpl_kernel_filter *filter, const rpl_roofline_opts *opts)
{
    rpl_analysis *a = NULL;
    cJSON *roof = NULL, *analysis = NULL;
    int rc = rpl_analysis_build(&a, trace, filter, opts);

    if (!rc)
        rc = rpl_roofline_json(&roof, a);
    if (!rc)
        rc = rpl_analysis_json(&analysis, a);
    if (!rc)
        rc = write_doc(dir, RPL_ROOFLINE_JSON_NAME, roof);
    if (!rc)
        rc = write_doc(dir, RPL_ANALYSIS_JSON_NAME, analysis);
    for (size_t i = 0; !rc && i < a->count; i++)
        if (!a->kernels[i].point.valid)
            rpl_log_info("no roofline for '%s': %s", a->kernels[i].name,
                         a->kernels[i].point.reason);
    cJSON_Delete(roof);
    cJSON_Delete(analysis);
    rpl_analysis_free(a);
    return rc;
}

int rpl_roofline_svg_from_dir(const char *svg_path, const char *dir)
{
    cJSON *doc = NULL;
    char *path = NULL;
    int rc;

    if (!dir)
        return rpl_error_set(RPL_EUSAGE, "--roofline-svg needs an 'analyze --out' folder, "
                                         "not trace databases");
    rc = rpl_path_join(&path, dir, RPL_ROOFLINE_JSON_NAME);
    if (!rc)
        rc = rpl_json_parse_file(&doc, path, ROOFLINE_JSON_MAX);
    if (rc == RPL_EIO || rc == RPL_ENOTFOUND)
        rc = rpl_error_set(RPL_EINPUT,
                           "'%s' has no readable roofline.json; run 'rocm-perf analyze --out %s' "
                           "first",
                           dir, dir);
    if (!rc)
        rc = rpl_roofline_svg_write(svg_path, doc);
    if (!rc)
        rpl_log_info("wrote %s", svg_path);
    cJSON_Delete(doc);
    free(path);
    return rc;
}
