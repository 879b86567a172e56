/*
 * Per-kernel runtime summary (see rpl/profile.h).  Built in a fixed number of
 * passes over the dispatches: symbols are grouped by display name first, so
 * each dispatch costs an array lookup; durations are gathered per group into
 * one array, and the statistics run on each group's slice.  Busy time is in
 * busy_time.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "busy_time.h"
#include "rpl/bigmem.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/profile.h"

enum { SYM_SELECTED = 1, SYM_HELPER = 2 };

typedef struct group {
    const char *display;
    uint32_t first_symbol;
    bool helper;
    uint64_t dispatches; /* every dispatch */
    uint64_t selected;   /* selected dispatches */
    int64_t selected_ns;
    int64_t helper_ns;
    size_t fill; /* next free slot of its slice of the durations */
} group;

typedef struct builder {
    const rpl_trace *trace;
    rpl_profile *p;
    uint32_t *sym_group;
    uint8_t *sym_flags;
    group *groups;
    uint32_t ngroups;
    uint32_t *agent_device;
    double *durations;
} builder;

/* Group the symbols by display name (interned strings: equal names are equal pointers). */
static int group_symbols(builder *b, const rpl_kernel_filter *filter)
{
    const rpl_trace *t = b->trace;
    uint32_t nsym = t->symbols.count;
    size_t cap = 16;
    uint32_t *slots;

    while (cap < 2 * (size_t)nsym)
        cap *= 2;
    slots = calloc(cap, sizeof(*slots));
    b->sym_group = malloc((nsym ? nsym : 1) * sizeof(*b->sym_group));
    b->sym_flags = malloc(nsym ? nsym : 1);
    b->groups = calloc(nsym ? nsym : 1, sizeof(*b->groups));
    if (!slots || !b->sym_group || !b->sym_flags || !b->groups) {
        free(slots);
        return rpl_error_oom();
    }
    for (uint32_t i = 0; i < nsym; i++) {
        const rpl_kernel_symbol *s = &t->symbols.items[i];
        size_t h = (size_t)(((uintptr_t)s->display_name >> 3) * 0x9E3779B97F4A7C15ull);

        for (h &= cap - 1; slots[h] && b->groups[slots[h] - 1].display != s->display_name;
             h = (h + 1) & (cap - 1))
            ;
        if (!slots[h]) {
            group *g = &b->groups[b->ngroups++];
            g->display = s->display_name;
            g->first_symbol = i;
            slots[h] = b->ngroups;
        }
        b->sym_group[i] = slots[h] - 1;
        b->sym_flags[i] = 0;
        if (rpl_kernel_filter_selects(filter, s->name, s->display_name))
            b->sym_flags[i] |= SYM_SELECTED;
        if (rpl_kernel_filter_is_helper(filter, s->name, s->display_name)) {
            b->sym_flags[i] |= SYM_HELPER;
            b->groups[b->sym_group[i]].helper = true;
        }
    }
    free(slots);
    return 0;
}

/* One device per distinct GPU (name, product, index); other agents map to RPL_NONE. */
static int map_devices(builder *b)
{
    const rpl_trace *t = b->trace;
    rpl_profile *p = b->p;

    b->agent_device = malloc((t->agents.count ? t->agents.count : 1) * sizeof(uint32_t));
    p->devices = calloc(t->agents.count ? t->agents.count : 1, sizeof(*p->devices));
    if (!b->agent_device || !p->devices)
        return rpl_error_oom();
    for (uint32_t i = 0; i < t->agents.count; i++) {
        const rpl_agent *a = &t->agents.items[i];
        uint32_t d;

        b->agent_device[i] = RPL_NONE;
        if (a->type != RPL_AGENT_GPU)
            continue;
        for (d = 0; d < p->ndevices; d++) {
            const rpl_agent *o = &t->agents.items[p->devices[d].agent];
            if (o->name == a->name && o->product_name == a->product_name &&
                o->absolute_index == a->absolute_index)
                break;
        }
        if (d == p->ndevices)
            p->devices[p->ndevices++].agent = i;
        b->agent_device[i] = d;
    }
    return 0;
}

static void span_add(rpl_profile_totals *tot, bool *seen, int64_t start, int64_t end)
{
    if (!*seen || start < tot->span_start_ns)
        tot->span_start_ns = start;
    if (!*seen || end > tot->span_end_ns)
        tot->span_end_ns = end;
    *seen = true;
}

/* First pass: counts and sums per group, device and trace. */
static int count_dispatches(builder *b, bool *seen)
{
    const rpl_trace *t = b->trace;
    rpl_profile_totals *tot = &b->p->totals;

    for (uint32_t i = 0; i < t->dispatches.count; i++) {
        const rpl_dispatch *d = &t->dispatches.items[i];
        int64_t dur;
        group *g;
        uint8_t flags;
        int rc;

        if (d->kernel >= t->symbols.count)
            return rpl_error_set(RPL_EINPUT, "dispatch %lld names no kernel symbol",
                                 (long long)d->id);
        if ((rc = rpl_trace_interval_ns(&dur, d->start, d->end, "dispatch", d->id)) != 0 ||
            (rc = rpl_add_ns(&tot->kernel_time_ns, dur)) != 0)
            return rc;
        g = &b->groups[b->sym_group[d->kernel]];
        flags = b->sym_flags[d->kernel];
        g->dispatches++;
        tot->dispatches++;
        span_add(tot, seen, d->start, d->end);
        if ((flags & SYM_HELPER) && ((rc = rpl_add_ns(&g->helper_ns, dur)) != 0 ||
                                     (rc = rpl_add_ns(&tot->helper_time_ns, dur)) != 0))
            return rc;
        if ((flags & SYM_SELECTED) && ((rc = rpl_add_ns(&g->selected_ns, dur)) != 0 ||
                                       (rc = rpl_add_ns(&tot->selected_time_ns, dur)) != 0))
            return rc;
        tot->helper_dispatches += (flags & SYM_HELPER) != 0;
        g->selected += (flags & SYM_SELECTED) != 0;
        tot->selected_dispatches += (flags & SYM_SELECTED) != 0;
        if (d->agent < t->agents.count && b->agent_device[d->agent] != RPL_NONE) {
            rpl_profile_device *dev = &b->p->devices[b->agent_device[d->agent]];
            dev->dispatches++;
            if ((flags & SYM_SELECTED) && (rc = rpl_add_ns(&dev->selected_time_ns, dur)) != 0)
                return rc;
        }
    }
    return 0;
}

static int count_copies(builder *b, bool *seen)
{
    const rpl_trace *t = b->trace;
    rpl_profile_totals *tot = &b->p->totals;

    for (uint32_t i = 0; i < t->memcpys.count; i++) {
        const rpl_memcpy *m = &t->memcpys.items[i];
        unsigned kind = (unsigned)m->kind <= RPL_COPY_DEVICE_TO_DEVICE ? m->kind : RPL_COPY_OTHER;
        rpl_copy_totals *k = &tot->copies_by_kind[kind];
        int64_t end = m->end < m->start ? m->start : m->end, dur;
        int rc;

        /* A copy that ends before it starts counts as 0 ns, as it always did. */
        if ((rc = rpl_trace_interval_ns(&dur, m->start, end, "copy", m->id)) != 0 ||
            (rc = rpl_add_ns(&k->time_ns, dur)) != 0 ||
            (rc = rpl_add_ns(&tot->copies.time_ns, dur)) != 0)
            return rc;
        k->count++;
        k->bytes += m->size;
        tot->copies.count++;
        tot->copies.bytes += m->size;
        span_add(tot, seen, m->start, end);
    }
    return 0;
}

static int cmp_kernel(const void *a, const void *b)
{
    const rpl_kernel_summary *x = a, *y = b;

    if (x->total_ns != y->total_ns)
        return x->total_ns < y->total_ns ? 1 : -1;
    return strcmp(x->name, y->name);
}

/* Second pass: gather each selected group's durations, then its statistics. */
static int summarise_kernels(builder *b)
{
    const rpl_trace *t = b->trace;
    rpl_profile *p = b->p;
    const group *top_helper = NULL;
    size_t offset = 0;
    int rc;

    for (uint32_t g = 0; g < b->ngroups; g++) {
        group *gr = &b->groups[g];

        if (gr->dispatches)
            p->totals.kernels++;
        if (gr->helper && gr->dispatches) {
            p->totals.helper_kernels++;
            if (!top_helper || gr->helper_ns > top_helper->helper_ns)
                top_helper = gr;
        }
        gr->fill = offset;
        offset += gr->selected;
        if (gr->selected)
            p->nkernels++;
    }
    p->top_helper = top_helper ? top_helper->display : NULL;
    p->totals.selected_kernels = p->nkernels;
    p->kernels = calloc(p->nkernels ? p->nkernels : 1, sizeof(*p->kernels));
    b->durations = rpl_bigmem_malloc((offset ? offset : 1) * sizeof(*b->durations));
    if (!p->kernels || !b->durations)
        return rpl_error_oom();
    for (uint32_t i = 0; i < t->dispatches.count; i++) {
        const rpl_dispatch *d = &t->dispatches.items[i];
        if (b->sym_flags[d->kernel] & SYM_SELECTED)
            b->durations[b->groups[b->sym_group[d->kernel]].fill++] = (double)(d->end - d->start);
    }
    for (uint32_t g = 0, k = 0; g < b->ngroups; g++) {
        const group *gr = &b->groups[g];
        rpl_kernel_summary *ks;

        if (!gr->selected)
            continue;
        ks = &p->kernels[k++];
        ks->name = gr->display;
        ks->symbol = gr->first_symbol;
        ks->mangled_name = t->symbols.items[gr->first_symbol].name;
        ks->helper = gr->helper;
        ks->total_ns = gr->selected_ns;
        /* Kernels that all took no time have no share to split. */
        ks->share = p->totals.selected_time_ns > 0
                        ? (double)gr->selected_ns / (double)p->totals.selected_time_ns
                        : 0.0;
        rc = rpl_stats_compute(&ks->stats, b->durations + (gr->fill - gr->selected), gr->selected);
        if (rc)
            return rc;
    }
    qsort(p->kernels, p->nkernels, sizeof(*p->kernels), cmp_kernel);
    return 0;
}

static int cmp_device(const void *a, const void *b)
{
    const rpl_profile_device *x = a, *y = b;

    if (x->selected_time_ns != y->selected_time_ns)
        return x->selected_time_ns < y->selected_time_ns ? 1 : -1;
    if (x->dispatches != y->dispatches)
        return x->dispatches < y->dispatches ? 1 : -1;
    return (x->agent > y->agent) - (x->agent < y->agent);
}

static char *dup_or_null(const char *s, int *failed)
{
    char *d = s ? strdup(s) : NULL;

    if (s && !d)
        *failed = 1;
    return d;
}

int rpl_profile_build(rpl_profile **out, const rpl_trace *trace, const rpl_kernel_filter *filter)
{
    builder b = {.trace = trace};
    bool seen = false;
    int failed = 0, rc;

    *out = NULL;
    b.p = calloc(1, sizeof(*b.p));
    if (!b.p)
        return rpl_error_oom();
    b.p->trace = trace;
    b.p->include_helpers = filter->include_helpers;
    b.p->kernel_regex = dup_or_null(filter->kernel_regex, &failed);
    b.p->helper_regex = dup_or_null(filter->helper_regex, &failed);
    rc = failed ? rpl_error_oom() : group_symbols(&b, filter);
    if (!rc)
        rc = map_devices(&b);
    if (!rc)
        rc = count_dispatches(&b, &seen);
    if (!rc)
        rc = count_copies(&b, &seen);
    if (!rc) {
        rc = rpl_busy_time(trace, b.sym_flags, SYM_SELECTED, &b.p->totals.busy_ns,
                           &b.p->totals.selected_busy_ns);
    }
    if (!rc)
        rc = summarise_kernels(&b);
    if (!rc)
        qsort(b.p->devices, b.p->ndevices, sizeof(*b.p->devices), cmp_device);
    RPL_FREE_EACH(b.sym_group, b.sym_flags, b.groups, b.agent_device, b.durations);
    if (rc) {
        rpl_profile_free(b.p);
        return rc;
    }
    *out = b.p;
    return 0;
}

void rpl_profile_free(rpl_profile *p)
{
    if (!p)
        return;
    RPL_FREE_EACH(p->kernels, p->devices, p->kernel_regex, p->helper_regex, p);
}

const rpl_agent *rpl_profile_primary_agent(const rpl_profile *p)
{
    return p->ndevices ? &p->trace->agents.items[p->devices[0].agent] : NULL;
}
