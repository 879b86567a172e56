/*
 * Which dispatches of a kernel to capture for its other shapes: the first
 * dispatch of each distinct launch geometry (grid, block, dynamic shared
 * memory) over the whole run of the original's profile, in the order they
 * ran; then a fixed few (1-4, 8, 16, 32) for shapes that differ in argument
 * values only, which the trace does not hold.  A program that launches one
 * size fifty times before the next is probed where its sizes change.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipe_int.h"
#include "rpl/error.h"
#include "rpl/kernel_filter.h"
#include "rpl/log.h"
#include "rpl/rocpd.h"
#include "rpl/trace.h"

static const unsigned fixed_probes[] = {1, 2, 3, 4, 8, 16, 32};

/* The order the dispatches ran in. */
static int by_start(const void *a, const void *b)
{
    const rpl_dispatch *x = *(const rpl_dispatch *const *)a, *y = *(const rpl_dispatch *const *)b;

    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->dispatch_id > y->dispatch_id) - (x->dispatch_id < y->dispatch_id);
}

static bool same_geometry(const rpl_dispatch *a, const rpl_dispatch *b)
{
    return memcmp(a->grid, b->grid, sizeof(a->grid)) == 0 &&
           memcmp(a->workgroup, b->workgroup, sizeof(a->workgroup)) == 0 &&
           a->group_segment_size == b->group_segment_size;
}

static bool listed(const unsigned *v, size_t n, unsigned x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

/* Symbols the kernel pattern selects (its mangled or display name, as `capture` matches). */
static int matching_symbols(const rpl_trace *t, const char *regex, bool **out)
{
    rpl_kernel_filter filter;
    bool *m;
    int rc = rpl_kernel_filter_init(&filter, regex, NULL, true);

    if (rc)
        return rc;
    if (!(m = calloc(t->symbols.count ? t->symbols.count : 1, sizeof(*m)))) {
        rpl_kernel_filter_release(&filter);
        return rpl_error_oom();
    }
    for (uint32_t i = 0; i < t->symbols.count; i++)
        m[i] = rpl_kernel_filter_selects(&filter, t->symbols.items[i].name,
                                         t->symbols.items[i].display_name);
    rpl_kernel_filter_release(&filter);
    *out = m;
    return 0;
}

int pipe_shape_probes(const rpl_trace *t, const char *regex, unsigned **out, size_t *n)
{
    const size_t cap = PIPE_SHAPE_PROBES_MAX + sizeof(fixed_probes) / sizeof(fixed_probes[0]);
    unsigned *v = malloc(cap * sizeof(*v));
    const rpl_dispatch **order = NULL;
    bool *match = NULL;
    size_t count = 0, nv = 0;
    int rc = 0;

    *out = NULL;
    *n = 0;
    if (!v)
        return rpl_error_oom();
    if (t && regex) {
        rc = matching_symbols(t, regex, &match);
        if (rc == 0 && !(order = malloc((t->dispatches.count + 1) * sizeof(*order))))
            rc = rpl_error_oom();
        for (uint32_t i = 0; rc == 0 && i < t->dispatches.count; i++) {
            const rpl_dispatch *d = &t->dispatches.items[i];
            if (d->kernel < t->symbols.count && match[d->kernel])
                order[count++] = d;
        }
        if (rc == 0)
            qsort(order, count, sizeof(*order), by_start);
        /* Dispatch 0 is the snapshot itself: its geometry is seen. */
        for (size_t i = 1; rc == 0 && i < count && nv < PIPE_SHAPE_PROBES_MAX; i++) {
            bool seen = same_geometry(order[0], order[i]);
            for (size_t j = 0; j < nv && !seen; j++)
                seen = same_geometry(order[v[j]], order[i]);
            if (!seen)
                v[nv++] = (unsigned)i;
        }
    }
    for (size_t i = 0; rc == 0 && i < sizeof(fixed_probes) / sizeof(fixed_probes[0]); i++)
        if (!listed(v, nv, fixed_probes[i]))
            v[nv++] = fixed_probes[i];
    free(order);
    free(match);
    if (rc) {
        free(v);
        return rc;
    }
    *out = v;
    *n = nv;
    return 0;
}

int pipe_shape_probes_of_profile(const rpl_pipe *p, const pipe_kernel *k, unsigned **out, size_t *n)
{
    /* The API calls' named arguments are not needed: only the dispatches. */
    static const char *const no_args[] = {NULL};
    const rpl_rocpd_read_opts ro = {.arg_names = no_args};
    rpl_trace *t = NULL;
    char *db = NULL, *regex = NULL;
    int rc = pipe_kernel_regex(&regex, k->display);

    if (rc == 0 && !p->opts.skip_app &&
        (rc = pipe_set(&db, "%s/profile-original/profile.db", p->artifacts)) == 0 &&
        access(db, F_OK) == 0 && (rc = rpl_trace_new(&t)) == 0 &&
        rpl_rocpd_read_with(t, db, &ro) != 0) {
        rpl_log_warn("%s: other shapes from fixed dispatches only: %s", k->display,
                     rpl_error_last()->message);
        rpl_error_clear();
        rpl_trace_free(t);
        t = NULL;
    }
    if (rc == 0)
        rc = pipe_shape_probes(t, regex, out, n);
    rpl_trace_free(t);
    free(db);
    free(regex);
    return rc;
}
