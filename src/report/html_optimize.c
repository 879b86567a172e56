/*
 * The HTML report of an optimize run's artifacts folder: its
 * optimize-log.json (docs/schemas/optimize-log.schema.json) as one
 * self-contained page: the target, the ranking, and per candidate its
 * decision, speedup, the evidence of every step that ran and its commit.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/html.h"
#include "rpl/json.h"
#include "rpl/report.h"
#include "rpl/version.h"

#define LOG_NAME "optimize-log.json"
#define LOG_MAX  (64u << 20)

/* The pipeline's steps in the order they run (optimize-log "steps"). */
static const char *const steps[] = {"build", "signature", "static", "replay",
                                    "test",  "measure",   "app"};

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static bool num(const cJSON *o, const char *key, double *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return false;
    *out = v->valuedouble;
    return true;
}

static void text(rpl_strbuf *out, const char *s)
{
    rpl_html_esc(out, s ? s : "-");
}

static void ranking(rpl_strbuf *out, const cJSON *ranked, const char *by)
{
    const cJSON *k;
    double ceiling;

    rpl_strbuf_puts(out, "<section aria-labelledby=\"rank\"><h2 id=\"rank\">Kernels ranked</h2>"
                         "<div class=\"table-wrap\"><table><caption>By ");
    text(out, by);
    rpl_strbuf_puts(out, ", highest speedup ceiling first</caption><thead><tr><th scope=\"col\">"
                         "kernel</th><th scope=\"col\">speedup ceiling</th></tr></thead><tbody>");
    cJSON_ArrayForEach(k, ranked)
    {
        rpl_strbuf_puts(out, "<tr><td>");
        text(out, str(k, "kernel"));
        if (num(k, "speedup_ceiling", &ceiling))
            rpl_strbuf_printf(out, "</td><td class=\"num\">%.3f&times;</td></tr>", ceiling);
        else
            rpl_strbuf_puts(out, "</td><td class=\"num\">-</td></tr>");
    }
    rpl_strbuf_puts(out, "</tbody></table></div></section>");
}

static void evidence(rpl_strbuf *out, const cJSON *c)
{
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(c, "steps"), *s;

    rpl_strbuf_puts(out, "<ul class=\"msg\">");
    for (size_t i = 0; i < sizeof(steps) / sizeof(*steps); i++) {
        if (!cJSON_IsObject(s = cJSON_GetObjectItemCaseSensitive(all, steps[i])))
            continue;
        rpl_strbuf_printf(out, "<li><strong>%s</strong> %s: ", steps[i],
                          cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "passed")) ? "passed"
                                                                                      : "failed");
        text(out, str(s, "evidence"));
        rpl_strbuf_puts(out, "</li>");
    }
    rpl_strbuf_puts(out, "</ul>");
}

static void candidate_row(rpl_strbuf *out, const cJSON *c)
{
    const char *decision = str(c, "decision");
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(c, "speedup_ci");
    bool accepted = decision && strcmp(decision, "accepted") == 0;
    double v, lo, hi;

    rpl_strbuf_puts(out, "<tr><th scope=\"row\">");
    text(out, str(c, "id"));
    rpl_strbuf_puts(out, "</th><td>");
    text(out, str(c, "kernel"));
    rpl_strbuf_puts(out, "</td><td>");
    text(out, str(c, "strategy"));
    rpl_strbuf_puts(out, " <span class=\"msg\">(");
    text(out, str(c, "origin"));
    rpl_strbuf_printf(out, ")</span></td><td><span class=\"badge %s\">",
                      accepted ? "pass" : "fail");
    text(out, decision);
    rpl_strbuf_puts(out, "</span><div class=\"msg\">");
    text(out, str(c, "message"));
    rpl_strbuf_puts(out, "</div></td>");
    if (num(c, "speedup", &v)) {
        rpl_strbuf_printf(out, "<td class=\"num\">%.3f&times;", v);
        if (cJSON_GetArraySize(ci) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(ci, 0)) &&
            cJSON_IsNumber(cJSON_GetArrayItem(ci, 1))) {
            lo = cJSON_GetArrayItem(ci, 0)->valuedouble;
            hi = cJSON_GetArrayItem(ci, 1)->valuedouble;
            rpl_strbuf_printf(out, "<br>[%.3f, %.3f]", lo, hi);
        }
        rpl_strbuf_puts(out, "</td>");
    } else {
        rpl_strbuf_puts(out, "<td class=\"num\">-</td>");
    }
    if (num(c, "time_change_pct", &v))
        rpl_strbuf_printf(out, "<td class=\"num\">%+.1f%%</td>", v);
    else
        rpl_strbuf_puts(out, "<td class=\"num\">-</td>");
    rpl_strbuf_puts(out, "<td>");
    evidence(out, c);
    rpl_strbuf_puts(out, "</td><td><code>");
    text(out, str(c, "commit"));
    rpl_strbuf_puts(out, "</code></td></tr>");
}

int rpl_optimize_html_page(rpl_strbuf *out, const cJSON *log, const char *path)
{
    const cJSON *cands = cJSON_GetObjectItemCaseSensitive(log, "candidates"), *c;
    const char *target = str(log, "target");
    size_t n = 0, accepted = 0;

    if (!target || !cJSON_IsArray(cands))
        return rpl_error_set(RPL_EINPUT, "'%s' is not an optimize log: no target or candidates",
                             path);
    cJSON_ArrayForEach(c, cands)
    {
        const char *d = str(c, "decision");
        n++;
        accepted += d && strcmp(d, "accepted") == 0;
    }
    rpl_strbuf_printf(out,
                      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">"
                      "\n<meta name=\"viewport\" content=\"width=device-width, "
                      "initial-scale=1\">\n<title>rocm-perf optimize report</title>\n"
                      "<style>%s</style>\n</head>\n<body>\n<header><h1>rocm-perf optimize: ",
                      rpl_html_style);
    text(out, target);
    rpl_strbuf_printf(out, "</h1><p>%zu candidate%s, %zu accepted</p></header>\n<main>\n", n,
                      n == 1 ? "" : "s", accepted);
    rpl_strbuf_puts(out, "<section aria-labelledby=\"run\"><h2 id=\"run\">Run</h2><p class=\""
                         "meta\">source <code>");
    text(out, str(log, "source"));
    rpl_strbuf_puts(out, "</code> at commit <code>");
    text(out, str(log, "baseline_commit"));
    rpl_strbuf_puts(out, "</code> &middot; log ");
    text(out, path);
    rpl_strbuf_puts(out, "</p></section>\n");
    ranking(out, cJSON_GetObjectItemCaseSensitive(log, "ranked"), str(log, "ranked_by"));
    rpl_strbuf_puts(out, "\n<section aria-labelledby=\"cands\"><h2 id=\"cands\">Candidates</h2>"
                         "<div class=\"table-wrap\"><table><caption>Each candidate: decision, "
                         "speedup (original / candidate) with its interval, kernel time change, "
                         "the evidence of every step that ran, commit</caption><thead><tr>"
                         "<th scope=\"col\">id</th><th scope=\"col\">kernel</th><th scope=\"col\">"
                         "strategy</th><th scope=\"col\">decision</th><th scope=\"col\">speedup"
                         "</th><th scope=\"col\">time</th><th scope=\"col\">evidence</th>"
                         "<th scope=\"col\">commit</th></tr></thead><tbody>");
    cJSON_ArrayForEach(c, cands)
    {
        candidate_row(out, c);
    }
    if (!n)
        rpl_strbuf_puts(out, "<tr><td colspan=\"8\">no candidate was tried</td></tr>");
    rpl_strbuf_printf(out,
                      "</tbody></table></div></section>\n</main>\n<footer><p class=\"meta\" "
                      "style=\"text-align:center\">rocm-perf %s</p></footer>\n</body>\n"
                      "</html>\n",
                      RPL_VERSION_STRING);
    return out->ptr ? 0 : rpl_error_oom();
}

int rpl_optimize_html(const char *html_path, const char *artifacts_dir)
{
    rpl_strbuf out = RPL_STRBUF_INIT;
    cJSON *log = NULL;
    char *path = NULL;
    int rc = rpl_path_join(&path, artifacts_dir, LOG_NAME);

    if (!rc && (rc = rpl_json_parse_file(&log, path, LOG_MAX)) != 0 &&
        (rc == RPL_EIO || rc == RPL_ENOTFOUND))
        rc = rpl_error_set(RPL_EINPUT,
                           "'%s' has no readable " LOG_NAME "; give the --artifacts folder "
                           "of an optimize or llm-optimize run",
                           artifacts_dir);
    if (!rc)
        rc = rpl_optimize_html_page(&out, log, path);
    if (!rc)
        rc = rpl_file_write_atomic(html_path, out.ptr, out.len);
    rpl_strbuf_release(&out);
    cJSON_Delete(log);
    free(path);
    return rc;
}
