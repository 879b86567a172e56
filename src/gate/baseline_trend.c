/*
 * `rocm-perf baseline trend`: find a test's baseline and report the change
 * points of its history, as text for people or as the trend document.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/trend.h"

/* The baseline of the test: DIR/<arch>/<test>.json, the only architecture unless --arch. */
int rpl_baseline_find(char **path, const char *dir, const char *arch, const char *test)
{
    rpl_strbuf pattern = RPL_STRBUF_INIT;
    glob_t g;
    int rc;

    if (arch)
        return rpl_baseline_path(path, dir, arch, test);
    rpl_strbuf_printf(&pattern, "%s/*/%s.json", dir, test);
    if (!pattern.ptr)
        return rpl_error_oom();
    rc = glob(pattern.ptr, 0, NULL, &g);
    rpl_strbuf_release(&pattern);
    if (rc != 0)
        return rpl_error_set(RPL_ENOTFOUND, "no baseline of test '%s' in '%s'", test, dir);
    if (g.gl_pathc > 1) {
        rc = rpl_error_set(RPL_EUSAGE,
                           "'%s' holds test '%s' for %zu architectures; choose one "
                           "with --arch",
                           dir, test, (size_t)g.gl_pathc);
    } else {
        rc = (*path = strdup(g.gl_pathv[0])) ? 0 : rpl_error_oom();
    }
    globfree(&g);
    return rc;
}

int rpl_baseline_trend(rpl_strbuf *out, const char *dir, const char *arch, const char *test,
                       bool json, const rpl_trend_opts *opts)
{
    rpl_trend_opts o = *opts;
    rpl_baseline *b = NULL;
    rpl_strbuf text = RPL_STRBUF_INIT;
    cJSON *doc = NULL;
    char *path = NULL, *s = NULL;
    int rc = rpl_baseline_find(&path, dir, arch, test);

    if (rc == 0)
        rc = rpl_baseline_read(&b, path);
    if (rc == 0 && !b->has_runtime)
        rc = rpl_error_set(RPL_EINPUT,
                           "baseline '%s' has no runtime section: no history to "
                           "look at",
                           path);
    if (rc == 0) {
        o.tolerance = b->tolerance;
        rc = rpl_trend_report(&doc, json ? NULL : &text, b, &o);
    }
    if (rc == 0 && json) {
        rc = rpl_json_print(&s, doc);
        if (rc == 0)
            rc = rpl_strbuf_puts(out, s);
    } else if (rc == 0) {
        rc = rpl_strbuf_printf(out, "%s on %s: %zu history entr%s (%s)\n%s", b->test, b->arch,
                               b->nruns, b->nruns == 1 ? "y" : "ies", path, rpl_strbuf_cstr(&text));
    }
    free(s);
    cJSON_Delete(doc);
    rpl_strbuf_release(&text);
    rpl_baseline_free(b);
    free(path);
    return rc;
}
