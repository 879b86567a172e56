/*
 * The gate's view of the history: where a regression began, and slow
 * drifts that each step of which passed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/gate.h"
#include "rpl/trend.h"

/* The history's medians of `kernel` with `last` appended (*x, free()); entry[i] its run. */
static int series(double **x, size_t **entry, size_t *n, const rpl_baseline *b, const char *kernel,
                  double last)
{
    *n = 0;
    *x = malloc((b->nruns + 1) * sizeof(**x));
    *entry = malloc((b->nruns + 1) * sizeof(**entry));
    if (!*x || !*entry)
        return rpl_error_oom();
    for (size_t i = 0; i < b->nruns; i++)
        for (size_t j = 0; j < b->runs[i].nmedians; j++)
            if (strcmp(b->runs[i].medians[j].name, kernel) == 0) {
                (*entry)[*n] = i;
                (*x)[(*n)++] = b->runs[i].medians[j].value;
                break;
            }
    (*entry)[*n] = b->nruns; /* this run */
    (*x)[(*n)++] = last;
    return 0;
}

/* "...; the slower level began at history entry I (commit C, DATE)" appended to *msg. */
static int append_start(char **msg, size_t index, const rpl_history_entry *e)
{
    size_t len = strlen(*msg), add = 160;
    char *m = realloc(*msg, len + add);

    if (!m)
        return rpl_error_oom();
    if (!e)
        snprintf(m + len, add, "; the slower level begins with this run (history entry %zu)",
                 index);
    else
        snprintf(m + len, add, "; the slower level began at history entry %zu (commit %.12s%s%s)",
                 index, e->commit ? e->commit : "not recorded", e->date ? ", " : "",
                 e->date ? e->date : "");
    *msg = m;
    return 0;
}

static int kernel_trend(rpl_gate_result *r, const rpl_baseline *b, rpl_gate_check *c,
                        const rpl_runtime_kernel *k)
{
    double *x = NULL;
    size_t *entry = NULL, n = 0, ncp = 0;
    rpl_change_point *cp = NULL;
    rpl_cp_opts o;
    rpl_drift d;
    int rc = series(&x, &entry, &n, b, k->name, c->rt.median_cand);

    rpl_cp_opts_init(&o);
    if (rc == 0 && n >= 2 * o.min_size)
        rc = rpl_change_points(&cp, &ncp, x, n, &o);
    if (rc != 0 || n < 2 * o.min_size)
        goto done;
    if (ncp && cp[ncp - 1].size > r->stat.delta &&
        (c->rt.change == RPL_CHANGE_SLOWER || c->rt.change == RPL_CHANGE_UNDECIDED)) {
        size_t at = entry[cp[ncp - 1].index];
        const rpl_history_entry *e = at < b->nruns ? &b->runs[at] : NULL;
        rc = append_start(&c->message, cp[ncp - 1].index, e);
        if (rc != 0)
            goto done;
    }
    rpl_drift_find(&d, cp, ncp, x, n, r->stat.delta);
    if (d.found && d.total > 0) {
        size_t at = entry[d.start];
        const char *commit = at < b->nruns ? b->runs[at].commit : NULL;
        rpl_gate_check *t = rpl_gate_result_add_check(
            r, k->name, "trend", "drift", RPL_VERDICT_WARN,
            "%s: slow drift of %+.2f%% over the history (%zu change point%s, a gradual move "
            "rather than one step); it began around entry %zu (commit %.12s)",
            k->name, 100.0 * d.total, d.steps, d.steps == 1 ? "" : "s", d.start,
            commit ? commit : "not recorded");
        /* Adding a check may move r->checks: c is not used from here on. */
        if (!t) {
            rc = rpl_error_oom();
            goto done;
        }
        t->has_base = t->has_cand = true;
        t->base = x[0];
        t->cand = x[n - 1];
        t->change = d.total;
    }
done:
    RPL_FREE_EACH(cp, x, entry);
    return rc;
}

int rpl_gate_trend_checks(rpl_gate_result *r, const rpl_baseline *b, const rpl_runtime_kernel *cand,
                          size_t ncand)
{
    size_t nchecks = r->nchecks;
    int rc = 0;

    if (!b->nruns)
        return 0;
    for (size_t i = 0; i < nchecks && rc == 0; i++) {
        const rpl_runtime_kernel *k = NULL;

        if (!r->checks[i].has_runtime)
            continue;
        for (size_t j = 0; j < ncand && !k; j++)
            if (strcmp(cand[j].name, r->checks[i].kernel) == 0)
                k = &cand[j];
        if (k)
            rc = kernel_trend(r, b, &r->checks[i], k);
    }
    return rc;
}
