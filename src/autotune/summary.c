/* The summary `rocm-perf autotune` prints: the space, the model, the budget spent, the winner. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>

#include "rpl/autotune.h"
#include "rpl/error.h"

static void describe(char *buf, size_t size, const rpl_tune_result *r, size_t c)
{
    double vals[RPL_TUNE_MAX_PARAMS];

    for (size_t j = 0; j < r->space->nparams; j++)
        vals[j] = rpl_tune_space_value(r->space, c, j);
    rpl_tune_space_describe(buf, size, r->space, vals);
}

int rpl_tune_summary_text(rpl_strbuf *out, const rpl_tune_result *r)
{
    char cfg[512];
    size_t fresh = r->measured - r->cache_hits;

    rpl_strbuf_printf(
        out,
        "autotune%s%s: %zu configs (%zu combinations), %zu build%s, %zu pruned, %zu failed to "
        "build; budget %zu measurement%s%s\n",
        r->space->name ? ": " : "", r->space->name ? r->space->name : "", r->space->nconfigs,
        r->space->total, r->builds, r->builds == 1 ? "" : "s", r->pruned, r->build_failed,
        r->budget, r->budget == 1 ? "" : "s", r->exhaustive ? " (every runnable config)" : "");
    if (r->model) {
        char cv[160] = "CV error n/a (too few seed configs)";
        if (isfinite(r->cv_error))
            snprintf(cv, sizeof(cv),
                     "CV error %.1f %% (median held-out |pred/meas - 1|, %u-fold over the %zu "
                     "seed configs)",
                     100 * r->cv_error, r->cv_folds, r->cv_points);
        rpl_strbuf_printf(
            out, "model: R\xc2\xb2 %.3f over %zu configs (%s, --min-r2 %.2f), %s, %zu terms%s",
            r->model->r2, r->model->n, r->model_trusted ? "trusted" : "LOW, not trusted", r->min_r2,
            cv, r->model->nterms + 1 - r->model->inactive,
            r->model->interactions ? " with pairwise interactions" : "");
        if (r->model->inactive)
            rpl_strbuf_printf(out, " (%zu constant or collinear left out)", r->model->inactive);
        rpl_strbuf_printf(out, "\n");
    }
    rpl_strbuf_printf(
        out,
        "measured %zu of %zu configs (%.1f %%): %zu fresh, %zu from the cache; %zu profiler "
        "run%s; %zu failed or timed out\n",
        r->measured, r->space->nconfigs, 100.0 * (double)r->measured / (double)r->space->nconfigs,
        fresh, r->cache_hits, r->profiler_runs, r->profiler_runs == 1 ? "" : "s", r->run_failed);
    rpl_strbuf_printf(
        out,
        "measurements %zu of the budget's %zu (%.1f %% of the space): %zu configs, %zu confirm "
        "and %zu unstable re-measure%s%s\n",
        r->measurements, r->budget, 100.0 * (double)r->measurements / (double)r->space->nconfigs,
        r->measured, r->confirm_remeasures, r->unstable_remeasures,
        r->unstable_remeasures == 1 ? "" : "s",
        r->confirm_cut ? "; the confirm phase was cut to fit" : "");
    if (r->best != SIZE_MAX) {
        const rpl_tune_config *b = &r->configs[r->best];
        describe(cfg, sizeof(cfg), r, r->best);
        rpl_strbuf_printf(out, "best: %s  median %.3f us", cfg, rpl_tune_config_median(b) / 1000);
        if (isfinite(b->predicted_ns))
            rpl_strbuf_printf(out, " (predicted %.3f us)", b->predicted_ns / 1000);
        rpl_strbuf_printf(out, "%s\n", b->unstable ? " UNSTABLE" : "");
        for (size_t i = 0; i < r->nconfirmed; i++) {
            size_t c = r->confirmed[i];
            if (c == r->best)
                continue;
            describe(cfg, sizeof(cfg), r, c);
            rpl_strbuf_printf(out, "  %s %s  median %.3f us (best/this %.3f, upper bound %.3f)\n",
                              r->tied[i] ? "tie: " : "beats", cfg,
                              rpl_tune_config_median(&r->configs[c]) / 1000,
                              exp(r->cmp[i].log_ratio), exp(r->cmp[i].upper));
        }
    }
    rpl_strbuf_printf(
        out, "wall time %.1f s (builds %.1f s, %.1f s of them while measuring), %u job%s\n",
        r->wall_s, r->build_s, r->build_overlap_s, r->jobs, r->jobs == 1 ? "" : "s");
    return rpl_strbuf_cstr(out)[0] ? 0 : rpl_error_oom();
}
