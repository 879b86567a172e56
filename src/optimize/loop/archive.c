/*
 * The archive of correct candidates shown to the model (GEAK/METR style):
 * the best k by measured speedup, with their strategy and verdict, so the
 * model sees what worked and what did not.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "loop_int.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/strbuf.h"

int rpl_archive_init(rpl_archive *a, size_t k)
{
    memset(a, 0, sizeof(*a));
    if (k == 0)
        return 0;
    if (!(a->items = calloc(k + 1, sizeof(*a->items))))
        return rpl_error_oom();
    a->cap = k;
    return 0;
}

static void entry_release(rpl_archive_entry *e)
{
    RPL_FREE_EACH(e->kernel, e->strategy, e->verdict, e->facts);
    memset(e, 0, sizeof(*e));
}

void rpl_archive_release(rpl_archive *a)
{
    for (size_t i = 0; i < a->count; i++)
        entry_release(&a->items[i]);
    free(a->items);
    memset(a, 0, sizeof(*a));
}

/* Whether x ranks before y: higher speedup, unmeasured last, then earlier turn. */
static bool ranks_before(const rpl_archive_entry *x, const rpl_archive_entry *y)
{
    bool xm = !isnan(x->speedup), ym = !isnan(y->speedup);

    if (xm != ym)
        return xm;
    if (xm && x->speedup != y->speedup)
        return x->speedup > y->speedup;
    return x->turn < y->turn;
}

int rpl_archive_add(rpl_archive *a, const rpl_archive_entry *e)
{
    rpl_archive_entry copy = *e;
    size_t pos;

    if (a->cap == 0)
        return 0;
    copy.kernel = strdup(e->kernel ? e->kernel : "");
    copy.strategy = strdup(e->strategy ? e->strategy : "");
    copy.verdict = strdup(e->verdict ? e->verdict : "");
    copy.facts = e->facts ? strdup(e->facts) : NULL;
    if (!copy.kernel || !copy.strategy || !copy.verdict || (e->facts && !copy.facts)) {
        entry_release(&copy);
        return rpl_error_oom();
    }
    for (pos = 0; pos < a->count && ranks_before(&a->items[pos], &copy); pos++)
        ;
    /* items has room for cap + 1: insert, then drop the last when over. */
    memmove(&a->items[pos + 1], &a->items[pos], (a->count - pos) * sizeof(*a->items));
    a->items[pos] = copy;
    if (++a->count > a->cap)
        entry_release(&a->items[--a->count]);
    return 0;
}

int rpl_archive_set_facts(rpl_archive *a, int turn, const char *facts)
{
    for (size_t i = 0; i < a->count; i++)
        if (a->items[i].turn == turn) {
            free(a->items[i].facts);
            if (!(a->items[i].facts = strdup(facts)))
                return rpl_error_oom();
        }
    return 0;
}

int rpl_archive_format(char **out, const rpl_archive *a)
{
    rpl_strbuf sb = RPL_STRBUF_INIT;
    int rc = 0;

    *out = NULL;
    if (a->count == 0)
        rc = rpl_strbuf_puts(&sb, "None yet: no earlier answer passed the correctness checks.\n");
    for (size_t i = 0; rc == 0 && i < a->count; i++) {
        const rpl_archive_entry *e = &a->items[i];
        rc = rpl_strbuf_printf(&sb, "- turn %d (%s): %s", e->turn, e->kernel, e->verdict);
        if (rc == 0 && !isnan(e->speedup)) {
            rc = rpl_strbuf_printf(&sb, ", speedup %.3fx", e->speedup);
            if (rc == 0 && !isnan(e->ci_lo) && !isnan(e->ci_hi))
                rc = rpl_strbuf_printf(&sb, " (95%% CI %.3f-%.3f)", e->ci_lo, e->ci_hi);
        }
        if (rc == 0 && e->facts)
            rc = rpl_strbuf_printf(&sb, "; %s", e->facts);
        if (rc == 0)
            rc = rpl_strbuf_printf(&sb, "; strategy: %s\n",
                                   e->strategy[0] ? e->strategy : "(not stated)");
    }
    if (rc != 0) {
        rpl_strbuf_release(&sb);
        return rc;
    }
    *out = rpl_strbuf_detach(&sb);
    return 0;
}
