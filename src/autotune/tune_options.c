/*
 * The values of `rocm-perf autotune`'s options that mean more than a number:
 * the budget, the device list, the default cache; and what the command
 * leaves after the search (result document, plot, summary).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/autotune.h"
#include "rpl/error.h"
#include "rpl/json.h"

int rpl_tune_budget_parse(rpl_tune_opts *o, const char *arg)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(arg, &end);
    if (end != arg && !errno && *end == '%' && end[1] == '\0' && v > 0 && v <= 100) {
        o->budget_fraction = v / 100;
        return 0;
    }
    if (end != arg && !errno && *end == '\0' && strchr(arg, '.') && v > 0 && v <= 1) {
        o->budget_fraction = v;
        return 0;
    }
    if (end != arg && !errno && *end == '\0' && !strchr(arg, '.') && v >= 1 && v <= 1e9 &&
        v == floor(v)) {
        o->budget_count = (size_t)v;
        return 0;
    }
    return rpl_error_set(RPL_EUSAGE,
                         "--budget takes a fraction (30%%, 0.3) or a count of configs (60), not "
                         "'%s'",
                         arg);
}

int rpl_tune_devices_parse(char ***devices, const char *arg)
{
    size_t len = strlen(arg), k = 0;
    char *copy = strdup(arg), *save = NULL;

    rpl_argv_free(*devices);
    if (!copy || !(*devices = calloc(len + 2, sizeof(**devices)))) {
        free(copy);
        return rpl_error_oom();
    }
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!tok[0] || strspn(tok, "0123456789abcdefABCDEF-GPU") != strlen(tok)) {
            free(copy);
            return rpl_error_set(RPL_EUSAGE,
                                 "--devices takes GPU indices or UUIDs separated by commas, not "
                                 "'%s'",
                                 arg);
        }
        if (!((*devices)[k++] = strdup(tok))) {
            free(copy);
            return rpl_error_oom();
        }
    }
    free(copy);
    if (k == 0 || k > RPL_TUNE_MAX_JOBS)
        return rpl_error_set(RPL_EUSAGE, "--devices lists 1 to %d GPUs, not '%s'",
                             RPL_TUNE_MAX_JOBS, arg);
    return 0;
}

char *rpl_tune_default_cache_path(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    rpl_strbuf sb = RPL_STRBUF_INIT;
    char *path;

    if (xdg && xdg[0])
        rpl_strbuf_printf(&sb, "%s/rocm-perf/autotune.db", xdg);
    else if (home && home[0])
        rpl_strbuf_printf(&sb, "%s/.cache/rocm-perf/autotune.db", home);
    path = sb.len ? rpl_strbuf_detach(&sb) : NULL;
    rpl_strbuf_release(&sb);
    return path;
}

int rpl_tune_report(rpl_strbuf *summary, const rpl_tune_result *r, const char *json_path,
                    const char *plot_path)
{
    cJSON *doc = NULL;
    int rc = 0;

    if (json_path && (rc = rpl_tune_result_json(&doc, r)) == 0)
        rc = rpl_json_write_file(json_path, doc);
    cJSON_Delete(doc);
    if (rc == 0 && plot_path)
        rc = rpl_tune_plot_svg(plot_path, r);
    if (rc == 0)
        rc = rpl_tune_summary_text(summary, r);
    if (rc != 0)
        rpl_strbuf_reset(summary);
    else if (r->best == SIZE_MAX)
        rc = rpl_error_set(RPL_EFAIL,
                           "no configuration could be measured (%zu failed to build, %zu pruned, "
                           "%zu failed or timed out)",
                           r->build_failed, r->pruned, r->run_failed);
    return rc;
}
