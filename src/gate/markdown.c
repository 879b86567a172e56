/*
 * The Markdown summary of a gate result, fit for $GITHUB_STEP_SUMMARY: a
 * heading with the verdict and one table row per check (kernel, metric,
 * baseline, candidate, change, confidence interval, verdict).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/gate.h"
#include "rpl/names.h"
#include "rpl/report.h"

/* Table cells must not break the table: '|' and newlines are escaped. */
static void cell(rpl_strbuf *out, const char *s)
{
    rpl_strbuf_puts(out, " ");
    for (; *s; s++) {
        if (*s == '|')
            rpl_strbuf_puts(out, "\\|");
        else if (*s == '\n')
            rpl_strbuf_puts(out, " ");
        else
            rpl_strbuf_putc(out, *s);
    }
    rpl_strbuf_puts(out, " |");
}

static void value(char *buf, size_t cap, const rpl_gate_check *c, bool has, double v,
                  const char *txt)
{
    if (txt)
        snprintf(buf, cap, "%s", txt);
    else if (!has)
        snprintf(buf, cap, "-");
    else if (strcmp(c->family, "runtime") == 0)
        rpl_format_ns(buf, cap, v);
    else
        snprintf(buf, cap, "%.6g", v);
}

static const char *badge(rpl_verdict v)
{
    static const char *const badges[] = {[RPL_VERDICT_FAIL] = "❌ fail",
                                         [RPL_VERDICT_WARN] = "⚠️ warn",
                                         [RPL_VERDICT_IMPROVED] = "🚀 improved"};

    return RPL_NAME_OF(badges, v, "✅ pass");
}

int rpl_gate_markdown(rpl_strbuf *out, const rpl_gate_result *r)
{
    char b[64], c[64], ch[32], ci[64], verdict[64];

    rpl_strbuf_printf(out, "\n## %s `%s` on %s%s%s%s: %s\n\n", r->mode, r->test, r->arch,
                      r->device ? " (" : "", r->device ? r->device : "", r->device ? ")" : "",
                      r->skipped ? "⏭️ skipped" : badge(r->verdict));
    if (r->baseline_missing)
        rpl_strbuf_printf(out, "No baseline. Create it with:\n\n```\n%s\n```\n\n",
                          r->create_command ? r->create_command : "");
    rpl_strbuf_printf(out,
                      "Tolerance %.2f%%, one-sided confidence %.0f%%, an undecided change "
                      "counts as %s%s.\n\n",
                      100.0 * r->stat.delta, 100.0 * r->stat.confidence,
                      rpl_verdict_name(r->stat.undecided), r->confirmation ? "; " : "");
    if (r->confirmation)
        rpl_strbuf_printf(out, "%s\n\n", r->confirmation);
    rpl_strbuf_puts(out, "| kernel | metric | baseline | candidate | change | CI | verdict |\n"
                         "|---|---|---|---|---:|---|---|\n");
    for (size_t i = 0; i < r->nchecks; i++) {
        const rpl_gate_check *k = &r->checks[i];

        value(b, sizeof(b), k, k->has_base, k->base, k->base_text);
        value(c, sizeof(c), k, k->has_cand, k->cand, k->cand_text);
        if (k->has_base && k->has_cand && !k->base_text)
            snprintf(ch, sizeof(ch), "%+.2f%%", 100.0 * k->change);
        else
            snprintf(ch, sizeof(ch), "-");
        if (k->has_runtime)
            snprintf(ci, sizeof(ci), "[%+.2f%%, %+.2f%%]", 100.0 * expm1(k->rt.lower),
                     100.0 * expm1(k->rt.upper));
        else
            snprintf(ci, sizeof(ci), "-");
        rpl_strbuf_puts(out, "|");
        cell(out, k->kernel);
        cell(out, k->metric);
        cell(out, b);
        cell(out, c);
        cell(out, ch);
        cell(out, ci);
        if (k->has_runtime)
            snprintf(verdict, sizeof(verdict), "%s (%s)", badge(k->verdict),
                     rpl_change_name(k->rt.change));
        else
            snprintf(verdict, sizeof(verdict), "%s", badge(k->verdict));
        cell(out, verdict);
        rpl_strbuf_puts(out, "\n");
    }
    for (size_t i = 0; i < r->nchecks; i++)
        if (r->checks[i].verdict >= RPL_VERDICT_WARN)
            rpl_strbuf_printf(out, "\n- **%s**: %s", rpl_verdict_name(r->checks[i].verdict),
                              r->checks[i].message);
    rpl_strbuf_puts(out, "\n");
    return rpl_strbuf_cstr(out)[0] ? 0 : rpl_error_oom();
}
