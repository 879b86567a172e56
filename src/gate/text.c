/* The gate's summary on the terminal: the verdict, then one line per check that matters. */
#include "rpl/error.h"
#include "rpl/gate.h"

int rpl_gate_text(rpl_strbuf *out, const rpl_gate_result *r)
{
    size_t shown = 0;

    rpl_strbuf_printf(out, "%s gate '%s' on %s: %s\n", r->mode, r->test, r->arch,
                      r->skipped ? "skipped" : rpl_verdict_name(r->verdict));
    for (size_t i = 0; i < r->nchecks; i++) {
        const rpl_gate_check *c = &r->checks[i];
        /* Unchanged deterministic figures are noise here; the JSON report has them all. */
        if (c->verdict == RPL_VERDICT_PASS && !c->has_runtime && !r->skipped)
            continue;
        rpl_strbuf_printf(out, "  %-8s %s\n", r->skipped ? "skipped" : rpl_verdict_name(c->verdict),
                          c->message);
        shown++;
    }
    if (shown == 0)
        rpl_strbuf_printf(out, "  %zu check%s, all unchanged\n", r->nchecks,
                          r->nchecks == 1 ? "" : "s");
    if (r->confirmation)
        rpl_strbuf_printf(out, "  %s\n", r->confirmation);
    return rpl_strbuf_cstr(out)[0] ? 0 : rpl_error_oom();
}
