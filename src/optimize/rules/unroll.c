/* Loop-unroll proposals under the seed's guardrails (rpl/optimize_rules.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/optimize_rules.h"

void rpl_unroll_plan_free(rpl_unroll_plan *plan)
{
    if (!plan)
        return;
    for (size_t i = 0; i < plan->count; i++) {
        rpl_kernel_source_free(plan->proposals[i].parsed);
        free(plan->proposals[i].strategy);
    }
    for (size_t i = 0; i < plan->nskipped; i++)
        free(plan->skipped[i]);
    free(plan->proposals);
    free(plan->skipped);
    free(plan);
}

/* A loop not proposed; `named` when `why` names the loop already ("loop 0 (line 15) calls"). */
static int skip(rpl_unroll_plan *plan, const rpl_ks_loop *l, const char *why, bool named)
{
    char **grown = realloc(plan->skipped, (plan->nskipped + 1) * sizeof(char *));
    char line[512];

    if (!grown)
        return rpl_error_oom();
    plan->skipped = grown;
    if (named)
        snprintf(line, sizeof(line), "%s", why);
    else
        snprintf(line, sizeof(line), "loop %u (line %u): %s", l->index, l->range.line_begin, why);
    if (!(grown[plan->nskipped] = strdup(line)))
        return rpl_error_oom();
    plan->nskipped++;
    return 0;
}

static int propose(rpl_unroll_plan *plan, const rpl_kernel_source *src, const rpl_ks_kernel *k,
                   const rpl_ks_loop *l, unsigned factor)
{
    rpl_unroll_proposal *grown = realloc(plan->proposals, (plan->count + 1) * sizeof(*grown));
    rpl_unroll_proposal *p;
    rpl_kernel_source *edited = NULL;
    char strategy[128];
    int rc;

    if (!grown)
        return rpl_error_oom();
    plan->proposals = grown;
    /* Its refusal of a macro's loop names the loop; its other errors do not. */
    if ((rc = rpl_kernel_source_unroll(&edited, src, k, l->index, factor)) != 0)
        return skip(plan, l, rpl_error_last()->message, k->in_macro || l->in_macro);
    p = &grown[plan->count];
    memset(p, 0, sizeof(*p));
    snprintf(strategy, sizeof(strategy), "unroll x%u (loop %u, line %u)", factor, l->index,
             l->range.line_begin);
    p->parsed = edited;
    p->text = edited->text;
    p->len = edited->len;
    p->loop = l->index;
    p->factor = factor;
    if (!(p->strategy = strdup(strategy))) {
        rpl_kernel_source_free(edited);
        return rpl_error_oom();
    }
    plan->count++;
    return 0;
}

int rpl_rules_unroll(rpl_unroll_plan **out, const rpl_kernel_source *src, const char *kernel,
                     unsigned wave_size)
{
    const rpl_ks_kernel *k = NULL;
    rpl_unroll_plan *plan;
    int rc;

    *out = NULL;
    if ((rc = rpl_kernel_source_find(src, kernel, &k)) != 0)
        return rc;
    if (!(plan = calloc(1, sizeof(*plan))))
        return rpl_error_oom();
    for (size_t i = 0; rc == 0 && i < k->n_loops; i++) {
        const rpl_ks_loop *l = &k->loops[i];
        unsigned factor = 0;
        int guard = rpl_ks_unroll_factor(l, wave_size == 32 ? 32 : 64, 0, &factor);
        if (guard != 0) { /* the guardrails' reasons (RPL_EINPUT) name the loop */
            rc = skip(plan, l, rpl_error_last()->message, guard == RPL_EINPUT);
        } else if (l->pragma_unroll == (int)factor) {
            char why[64];
            snprintf(why, sizeof(why), "already unrolled x%u", factor);
            rc = skip(plan, l, why, false);
        } else {
            rc = propose(plan, src, k, l, factor);
        }
    }
    rpl_error_clear();
    if (rc) {
        rpl_unroll_plan_free(plan);
        return rc;
    }
    *out = plan;
    return 0;
}
