/*
 * Merge a counter pass into a trace (rpl_trace_merge_counter_pass).  Each
 * counter pass reruns the program, so the n-th dispatch of kernel K in the
 * pass is the n-th dispatch of K in the trace; dispatches are taken in
 * array order (databases in the order read, rows in id order).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rocpd_idmap.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/rocpd.h"

/* Dispatches grouped by kernel name: group g holds order[first[g] .. first[g + 1]). */
typedef struct kernel_groups {
    uint32_t ngroups;
    uint32_t *first; /* ngroups + 1 */
    uint32_t *order; /* dispatch indices */
    uint32_t *group; /* per dispatch: its group */
} kernel_groups;

static void free_groups(kernel_groups *g)
{
    RPL_FREE_EACH(g->first, g->order, g->group);
}

/* Counting sort of dispatch indices by group, keeping array order within a group. */
static int sort_groups(kernel_groups *g, uint32_t ndispatches)
{
    uint32_t *next = calloc((size_t)g->ngroups + 1, sizeof(*next));

    g->first = calloc((size_t)g->ngroups + 1, sizeof(*g->first));
    g->order = malloc(((size_t)ndispatches + 1) * sizeof(*g->order));
    if (!next || !g->first || !g->order) {
        free(next);
        return rpl_error_oom();
    }
    for (uint32_t d = 0; d < ndispatches; d++)
        g->first[g->group[d] + 1]++;
    for (uint32_t k = 0; k < g->ngroups; k++)
        g->first[k + 1] += g->first[k];
    memcpy(next, g->first, (size_t)g->ngroups * sizeof(*next));
    for (uint32_t d = 0; d < ndispatches; d++)
        g->order[next[g->group[d]]++] = d;
    free(next);
    return 0;
}

/* Group the trace's dispatches; `names` maps an interned kernel name to its group. */
static int group_trace(const rpl_trace *t, rpl_idmap *names, kernel_groups *g)
{
    uint32_t existing;
    int rc;

    if (!(g->group = malloc(((size_t)t->dispatches.count + 1) * sizeof(*g->group))))
        return rpl_error_oom();
    for (uint32_t d = 0; d < t->dispatches.count; d++) {
        const char *name = t->symbols.items[t->dispatches.items[d].kernel].name;
        if ((rc = rpl_idmap_put(names, (int64_t)(intptr_t)name, g->ngroups, &existing)) != 0)
            return rc;
        g->group[d] = existing != RPL_IDMAP_EMPTY ? existing : g->ngroups++;
    }
    return sort_groups(g, t->dispatches.count);
}

static const char *pass_label(const rpl_trace *pass)
{
    return pass->sources.count ? pass->sources.items[0].path : "counter pass";
}

/* Group the pass's dispatches by the trace's groups; a kernel the trace lacks is an error. */
static int group_pass(rpl_trace *t, const rpl_trace *pass, const rpl_idmap *names, uint32_t ngroups,
                      kernel_groups *g)
{
    g->ngroups = ngroups;
    if (!(g->group = malloc(((size_t)pass->dispatches.count + 1) * sizeof(*g->group))))
        return rpl_error_oom();
    for (uint32_t d = 0; d < pass->dispatches.count; d++) {
        const char *name = pass->symbols.items[pass->dispatches.items[d].kernel].name;
        const char *local = rpl_trace_intern(t, name);
        if (!local)
            return rpl_error_oom();
        g->group[d] = rpl_idmap_get(names, (int64_t)(intptr_t)local);
        if (g->group[d] == RPL_IDMAP_EMPTY)
            return rpl_error_set(RPL_EINPUT,
                                 "'%s': the counter pass dispatches kernel '%.200s', which the "
                                 "trace does not",
                                 pass_label(pass), name);
    }
    return sort_groups(g, pass->dispatches.count);
}

/* Each kernel's dispatch count agrees (or the pass has none of it; with `prefix`, fewer). */
static int check_sequences(const rpl_trace *t, const rpl_trace *pass, const kernel_groups *tg,
                           const kernel_groups *pg, bool prefix)
{
    for (uint32_t k = 0; k < tg->ngroups; k++) {
        uint32_t nt = tg->first[k + 1] - tg->first[k], np = pg->first[k + 1] - pg->first[k];
        if (np == 0 || np == nt || (prefix && np < nt))
            continue;
        return rpl_error_set(
            RPL_EINPUT,
            "'%s': the counter pass dispatches kernel '%.200s' %u times, the "
            "trace %u times; the runs differ",
            pass_label(pass),
            t->symbols.items[t->dispatches.items[tg->order[tg->first[k]]].kernel].name, np, nt);
    }
    return 0;
}

static int cmp_counter(const void *a, const void *b)
{
    const rpl_counter_value *x = a, *y = b;

    return (x->counter > y->counter) - (x->counter < y->counter);
}

/*
 * New counters of trace dispatch td: its own values, replaced where the pass
 * dispatch pd has the same counter.  `buf` has room for both slices.
 */
static int merge_one(rpl_trace *t, uint32_t td, const rpl_trace *pass, uint32_t pd,
                     const uint32_t *counter_map, rpl_counter_value *buf)
{
    const rpl_dispatch *d = &t->dispatches.items[td], *p = &pass->dispatches.items[pd];
    uint32_t nown = d->counters_count, n = 0, np = p->counters_count, i = 0, j = 0;
    const rpl_counter_value *own;
    rpl_counter_value *theirs = buf + nown;

    if (np == 0)
        return 0;
    own = nown ? t->counter_values.items + d->counters_first : NULL;
    for (uint32_t k = 0; k < np; k++) {
        theirs[k] = pass->counter_values.items[p->counters_first + k];
        theirs[k].counter = counter_map[theirs[k].counter];
    }
    qsort(theirs, np, sizeof(*theirs), cmp_counter);
    /* Both sorted by counter: keep own values the pass does not have. */
    for (; i < nown; i++) {
        while (j < np && theirs[j].counter < own[i].counter)
            j++;
        if (j == np || theirs[j].counter != own[i].counter)
            buf[n++] = own[i];
    }
    memmove(buf + n, theirs, np * sizeof(*buf));
    return rpl_trace_set_dispatch_counters(t, td, buf, n + np);
}

typedef struct slice {
    uint32_t first, count;
} slice;

static int apply(rpl_trace *t, const rpl_trace *pass, const kernel_groups *tg,
                 const kernel_groups *pg, const uint32_t *counter_map)
{
    uint32_t max_own = 0, max_pass = 0;
    rpl_counter_value *buf;
    int rc = 0;

    for (uint32_t d = 0; d < t->dispatches.count; d++)
        if (t->dispatches.items[d].counters_count > max_own)
            max_own = t->dispatches.items[d].counters_count;
    for (uint32_t d = 0; d < pass->dispatches.count; d++)
        if (pass->dispatches.items[d].counters_count > max_pass)
            max_pass = pass->dispatches.items[d].counters_count;
    if (!(buf = malloc(((size_t)max_own + max_pass + 1) * sizeof(*buf))))
        return rpl_error_oom();
    for (uint32_t k = 0; k < tg->ngroups && rc == 0; k++) {
        uint32_t np = pg->first[k + 1] - pg->first[k];
        for (uint32_t i = 0; i < np && rc == 0; i++)
            rc = merge_one(t, tg->order[tg->first[k] + i], pass, pg->order[pg->first[k] + i],
                           counter_map, buf);
    }
    free(buf);
    return rc;
}

/* Trace counter index of every pass counter (names added to the trace when new). */
static int map_counters(rpl_trace *t, const rpl_trace *pass, uint32_t **out)
{
    uint32_t *map = malloc(((size_t)pass->counter_names.count + 1) * sizeof(*map));
    int rc;

    *out = map;
    if (!map)
        return rpl_error_oom();
    for (uint32_t i = 0; i < pass->counter_names.count; i++)
        if ((rc = rpl_trace_counter_index(t, pass->counter_names.items[i], &map[i])) != 0)
            return rc;
    return 0;
}

static int merge_pass(rpl_trace *trace, const rpl_trace *pass, bool prefix)
{
    kernel_groups tg = {0}, pg = {0};
    rpl_idmap names = {0};
    uint32_t *counter_map = NULL, names_before, values_before;
    slice *saved = NULL;
    int rc;

    if (!trace || !pass || trace == pass)
        return rpl_error_set(RPL_EUSAGE, "rpl_trace_merge_counter_pass: bad arguments");
    names_before = trace->counter_names.count;
    values_before = trace->counter_values.count;
    if ((rc = group_trace(trace, &names, &tg)) != 0 ||
        (rc = group_pass(trace, pass, &names, tg.ngroups, &pg)) != 0 ||
        (rc = check_sequences(trace, pass, &tg, &pg, prefix)) != 0)
        goto out;
    saved = malloc(((size_t)trace->dispatches.count + 1) * sizeof(*saved));
    if (!saved) {
        rc = rpl_error_oom();
        goto out;
    }
    for (uint32_t d = 0; d < trace->dispatches.count; d++) {
        saved[d].first = trace->dispatches.items[d].counters_first;
        saved[d].count = trace->dispatches.items[d].counters_count;
    }
    if ((rc = map_counters(trace, pass, &counter_map)) != 0 ||
        (rc = apply(trace, pass, &tg, &pg, counter_map)) != 0) {
        /* Undo: the old slices are still in place below values_before. */
        for (uint32_t d = 0; d < trace->dispatches.count; d++) {
            trace->dispatches.items[d].counters_first = saved[d].first;
            trace->dispatches.items[d].counters_count = saved[d].count;
        }
        trace->counter_names.count = names_before;
        trace->counter_values.count = values_before;
    }
out:
    free(saved);
    free(counter_map);
    free_groups(&tg);
    free_groups(&pg);
    rpl_idmap_free(&names);
    return rc;
}

int rpl_trace_merge_counter_pass(rpl_trace *trace, const rpl_trace *pass)
{
    return merge_pass(trace, pass, false);
}

int rpl_trace_merge_counter_prefix(rpl_trace *trace, const rpl_trace *pass)
{
    return merge_pass(trace, pass, true);
}
