/*
 * The files of the roofline analysis: DIR/roofline.json and
 * DIR/analysis.json from `analyze --out DIR`, and the SVG chart that
 * `report DIR --roofline-svg FILE` draws from DIR/roofline.json.
 */
#include <stdlib.h>
#include <string.h>

#include "rpl/analysis_report.h"
#include "rpl/classify.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/log.h"

#define ROOFLINE_JSON_MAX (256u << 20)

/* DIR/name with `text`, the document as rpl_json_print gives it. */
static int write_text(const char *dir, const char *name, const char *text)
{
    char *path = NULL;
    int rc = rpl_path_join(&path, dir, name);

    if (!rc)
        rc = rpl_file_write_atomic(path, text, strlen(text));
    if (!rc)
        rpl_log_info("wrote %s", path);
    free(path);
    return rc;
}

int rpl_roofline_write_outputs(const char *dir, const rpl_analysis *a, const char *roofline)
{
    cJSON *doc = NULL;
    char *analysis = NULL;
    int rc = rpl_analysis_json(&doc, a);

    if (!rc)
        rc = rpl_json_print(&analysis, doc);
    if (!rc)
        rc = write_text(dir, RPL_ROOFLINE_JSON_NAME, roofline);
    if (!rc)
        rc = write_text(dir, RPL_ANALYSIS_JSON_NAME, analysis);
    for (size_t i = 0; !rc && i < a->count; i++)
        if (!a->kernels[i].point.valid)
            rpl_log_info("no roofline for '%s': %s", a->kernels[i].name,
                         a->kernels[i].point.reason);
    cJSON_Delete(doc);
    free(analysis);
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
