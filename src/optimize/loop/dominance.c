/*
 * Dominance-aware targeting (seed 003 section 7): after every accepted
 * change the application is profiled again; the loop works on the kernel
 * of the source with the largest share of the critical path, says when that
 * is no longer the kernel it was working on, and warns when the dominant
 * share is below 0.7 (the whole-application ceiling 1/(1-f) is then low and
 * shifts are to be expected).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loop_int.h"
#include "rpl/error.h"
#include "rpl/strbuf.h"

void rpl_retarget_release(rpl_retarget *r)
{
    free(r->message);
    memset(r, 0, sizeof(*r));
}

static double ceiling(double f)
{
    return f >= 1.0 ? INFINITY : 1.0 / (1.0 - f);
}

int rpl_retarget_choose(rpl_retarget *out, const rpl_path_kernel *kernels, size_t n,
                        const char *current, bool pinned, bool by_gpu_time)
{
    const char *of = by_gpu_time ? "the GPU's busy time" : "the critical path";
    const rpl_path_kernel *dominant = NULL, *best_in_source = NULL, *cur = NULL;
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = 0;

    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < n; i++) {
        const rpl_path_kernel *k = &kernels[i];
        if (!dominant || k->share > dominant->share)
            dominant = k;
        if (k->in_source && (!best_in_source || k->share > best_in_source->share))
            best_in_source = k;
        if (current && strcmp(k->name, current) == 0)
            cur = k;
    }
    if (!best_in_source && !(pinned && current))
        return rpl_error_set(RPL_ENOTFOUND,
                             "no kernel of the source is on the application's critical path");

    if (pinned && current) {
        out->target = cur ? cur->name : current;
    } else if (cur && cur->in_source && cur->share >= best_in_source->share) {
        out->target = cur->name; /* ties keep the current target */
    } else {
        out->target = best_in_source->name;
    }
    out->shifted = current && dominant && strcmp(dominant->name, current) != 0;
    out->low_fraction = dominant && dominant->share < RPL_DOMINANCE_LOW_FRACTION;

    if (out->shifted) {
        rc = rpl_strbuf_printf(&sb, "dominance shift: %s now holds %.1f%% of %s", dominant->name,
                               100.0 * dominant->share, of);
        if (rc == 0)
            rc = rpl_strbuf_printf(&sb, ", %s %.1f%%", current, cur ? 100.0 * cur->share : 0.0);
        if (rc == 0 && !dominant->in_source)
            rc = rpl_strbuf_printf(&sb, "; %s is not defined in the source", dominant->name);
        if (rc == 0 && strcmp(out->target, current) != 0)
            rc = rpl_strbuf_printf(&sb, "; retargeting to %s", out->target);
        else if (rc == 0)
            rc = rpl_strbuf_printf(&sb, "; staying on %s%s", current, pinned ? " (--kernel)" : "");
    }
    if (rc == 0 && out->low_fraction && by_gpu_time)
        rc = rpl_strbuf_printf(&sb,
                               "%sthe dominant kernel %s holds only %.1f%% of %s (f < 0.7; no "
                               "kernel of the source is on the critical path): expect dominance "
                               "shifts",
                               sb.len ? "; " : "", dominant->name, 100.0 * dominant->share, of);
    else if (rc == 0 && out->low_fraction)
        rc = rpl_strbuf_printf(&sb,
                               "%sthe dominant kernel %s holds only %.1f%% of %s (f < 0.7): "
                               "whole-application ceiling %.2fx, expect dominance shifts",
                               sb.len ? "; " : "", dominant->name, 100.0 * dominant->share, of,
                               ceiling(dominant->share));
    if (rc == 0 && sb.len)
        out->message = rpl_strbuf_detach(&sb);
    rpl_strbuf_release(&sb);
    return rc;
}
