/*
 * The per-kernel analysis: dispatches grouped by display name (as the DAG
 * groups them), their counters turned into a roofline point, launch
 * geometry, occupancy, idle gaps, ATT features, the critical-path share and
 * the classification.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/bigmem.h"
#include "rpl/classify.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/kernel_filter.h"
#include "rpl/log.h"
#include "rpl/occupancy.h"
#include "radix_sort.h"

static const char *display(const rpl_kernel_symbol *s)
{
    return s->display_name && s->display_name[0] ? s->display_name : (s->name ? s->name : "");
}

/* What one kernel (group) gathers while the dispatches are scanned. */
typedef struct group_acc {
    uint32_t first; /* its first dispatch in start order */
    rpl_roof_target tg;
    const char *missing; /* the first counter its dispatches lack */
    double counted_ns, gaps, wgs;
    uint32_t ngaps, per_cap;
} group_acc;

typedef struct build {
    const rpl_trace *t;
    const rpl_roof_ceilings *user;
    rpl_roof_names names;
    uint32_t *group_of; /* per symbol: its group (display name), RPL_NONE when not selected */
    uint32_t ngroups;
    rpl_analysis_kernel *kernels; /* per group, while scanning */
    group_acc *acc;               /* per group */
    uint32_t *slot; /* per group: its index in rpl_analysis.kernels, RPL_NONE when empty */
} build;

/* All dispatch indices in start order (a stable radix sort; starts are >= 0). */
static int by_start(const rpl_trace *t, uint32_t **out)
{
    uint32_t n = t->dispatches.count;
    uint64_t *keys = rpl_bigmem_malloc(((size_t)n + 1) * sizeof(*keys));
    uint32_t *order = rpl_bigmem_malloc(((size_t)n + 1) * sizeof(*order));
    uint64_t min = UINT64_MAX;
    int rc;

    if (!keys || !order) {
        free(keys);
        free(order);
        return rpl_error_oom();
    }
    for (uint32_t i = 0; i < n; i++) {
        int64_t start = t->dispatches.items[i].start;
        keys[i] = start > 0 ? (uint64_t)start : 0;
        min = keys[i] < min ? keys[i] : min;
        order[i] = i;
    }
    /* Offsets from the earliest start: fewer key bits, fewer passes. */
    for (uint32_t i = 0; i < n; i++)
        keys[i] -= min;
    rc = rpl_radix_sort_u64(keys, order, n);
    free(keys);
    if (rc) {
        free(order);
        return rc;
    }
    *out = order;
    return 0;
}

/* The last dispatch seen on a queue, for the idle gap before the next one. */
typedef struct queue_last {
    int64_t end;
    uint32_t agent;
    bool seen;
} queue_last;

/* Idle time since the previous dispatch on d's queue and agent (start order), or -1. */
static double queue_gap(queue_last *last, uint32_t nqueues, const rpl_dispatch *d)
{
    queue_last *q;
    double gap = -1;

    if (d->queue >= nqueues)
        return -1;
    q = &last[d->queue];
    if (q->seen && q->agent == d->agent)
        gap = d->start > q->end ? (double)(d->start - q->end) : 0;
    *q = (queue_last){d->end, d->agent, true};
    return gap;
}

static double workgroups_of(const rpl_dispatch *d)
{
    double n = 1;

    for (int i = 0; i < 3; i++) {
        uint32_t g = d->grid[i] ? d->grid[i] : 1, w = d->workgroup[i] ? d->workgroup[i] : 1;
        n *= (double)((g + w - 1) / w);
    }
    return n;
}

static unsigned group_size(const rpl_dispatch *d)
{
    unsigned n = 1;

    for (int i = 0; i < 3; i++)
        n *= d->workgroup[i] ? d->workgroup[i] : 1;
    return n;
}

/* Theoretical occupancy of the first dispatch, < 0 when the facts are missing. */
static double occupancy_of(const rpl_roof_target *tg, const rpl_kernel_symbol *s,
                           const rpl_dispatch *d)
{
    rpl_occupancy occ;

    if (!tg->arch || s->arch_vgpr_count == 0)
        return -1;
    if (tg->arch->vendor == RPL_VENDOR_AMD) {
        rpl_occ_amd_input in = {
            .wave_size = tg->wave_size,
            .vgprs = rpl_occ_amd_total_vgprs(tg->arch, s->arch_vgpr_count, s->accum_vgpr_count),
            .sgprs = s->sgpr_count,
            .lds_bytes = s->group_segment_size + d->group_segment_size,
            .workgroup_size = group_size(d),
        };
        if (rpl_occ_amd(&occ, tg->arch, &in))
            return -1;
    } else {
        rpl_occ_nv_input in = {
            .regs_per_thread = s->arch_vgpr_count,
            .block_size = group_size(d),
            .static_smem = s->group_segment_size,
            .dynamic_smem = d->group_segment_size,
        };
        if (rpl_occ_nv(&occ, tg->arch, &in))
            return -1;
    }
    rpl_error_clear();
    return occ.fraction;
}

/* The first dispatch of a group (in start order) names its kernel and target. */
static void start_group(rpl_analysis_kernel *k, group_acc *acc, const build *b, uint32_t idx)
{
    const rpl_trace *t = b->t;
    const rpl_dispatch *d = &t->dispatches.items[idx];
    const rpl_kernel_symbol *sym = &t->symbols.items[d->kernel];
    const rpl_agent *agent = d->agent < t->agents.count ? &t->agents.items[d->agent] : NULL;

    acc->first = idx;
    rpl_roof_target_of(&acc->tg, agent, b->user);
    k->name = display(sym);
    k->mangled = sym->name ? sym->name : "";
    k->arch = agent && agent->name ? agent->name : "";
    k->ceilings = acc->tg.ceilings;
    k->has_ceilings = acc->tg.has_ceilings;
}

/* Keep the first RPL_ROOF_PER_DISPATCH_MAX per-dispatch entries of a kernel. */
static int keep_per_dispatch(rpl_analysis_kernel *k, group_acc *acc, rpl_dispatch_roof entry)
{
    if (k->nper_dispatch == RPL_ROOF_PER_DISPATCH_MAX)
        return 0;
    if (k->nper_dispatch == acc->per_cap) {
        uint32_t cap = acc->per_cap ? 2 * acc->per_cap : 16;
        rpl_dispatch_roof *p;

        cap = cap < RPL_ROOF_PER_DISPATCH_MAX ? cap : RPL_ROOF_PER_DISPATCH_MAX;
        if (!(p = realloc(k->per_dispatch, cap * sizeof(*p))))
            return rpl_error_oom();
        k->per_dispatch = p;
        acc->per_cap = cap;
    }
    k->per_dispatch[k->nper_dispatch++] = entry;
    return 0;
}

/*
 * Add d's counters to its kernel; its per-dispatch entry (-1 where counters
 * are missing) goes to *entry.
 */
static void count_dispatch(rpl_analysis_kernel *k, group_acc *acc, const build *b,
                           const rpl_dispatch *d, rpl_dispatch_roof *entry)
{
    rpl_roof_indexed_ctx ctx = {{b->t, d}, &b->names};
    rpl_roof_counts c;

    *entry = (rpl_dispatch_roof){d->dispatch_id, (double)(d->end - d->start), -1, -1, -1, 0};
    /* A dispatch without counters only needs computing once, to name what is missing. */
    if (d->counters_count == 0 && acc->missing)
        return;
    rpl_roof_counts_compute(&c, acc->tg.family, acc->tg.wave_size, rpl_roof_trace_counter_indexed,
                            &ctx);
    entry->clamps = c.clamps;
    if (!c.has_flops || !c.has_bytes) {
        if (!acc->missing)
            acc->missing = c.missing;
        return;
    }
    rpl_roof_counts_add(&k->counts, &c);
    k->counts.has_flops = k->counts.has_bytes = true;
    k->with_counters++;
    acc->counted_ns += entry->time_ns;
    entry->flops = c.flops;
    entry->hbm_read = c.hbm_read;
    entry->hbm_write = c.hbm_write;
}

/*
 * Add dispatch idx (with its idle gap, or -1) to group g.  Each group sees
 * its dispatches in start order, so every sum is made in that order.
 */
static int add_dispatch(build *b, uint32_t g, uint32_t idx, double gap)
{
    rpl_analysis_kernel *k = &b->kernels[g];
    group_acc *acc = &b->acc[g];
    const rpl_dispatch *d = &b->t->dispatches.items[idx];
    rpl_dispatch_roof entry;

    if (k->dispatches++ == 0)
        start_group(k, acc, b, idx);
    count_dispatch(k, acc, b, d, &entry);
    k->time_ns += entry.time_ns;
    acc->wgs += workgroups_of(d);
    if (gap >= 0) {
        acc->gaps += gap;
        acc->ngaps++;
    }
    return keep_per_dispatch(k, acc, entry);
}

/*
 * The records are read in start order, which hops between the queues'
 * records in the trace: ask for each one (up to three cache lines) a few
 * iterations ahead.
 */
#define PREFETCH_AHEAD 16

static inline void prefetch_dispatch(const rpl_dispatch *d)
{
    __builtin_prefetch(d);
    __builtin_prefetch((const char *)d + 64);
    __builtin_prefetch((const char *)(d + 1) - 1);
}

/*
 * One pass over the dispatches in start order: the idle gaps on each queue
 * and every group's sums.
 */
static int scan_dispatches(build *b, const uint32_t *start_order)
{
    const rpl_trace *t = b->t;
    uint32_t nq = t->queues.count, ns = t->symbols.count;
    queue_last *last = calloc((size_t)nq + 1, sizeof(*last));
    int rc = last ? 0 : rpl_error_oom();

    for (uint32_t i = 0; !rc && i < t->dispatches.count; i++) {
        const rpl_dispatch *d = &t->dispatches.items[start_order[i]];
        uint32_t g = d->kernel < ns ? b->group_of[d->kernel] : RPL_NONE;
        double gap;

        if (i + PREFETCH_AHEAD < t->dispatches.count)
            prefetch_dispatch(&t->dispatches.items[start_order[i + PREFETCH_AHEAD]]);
        gap = queue_gap(last, nq, d);
        if (g != RPL_NONE)
            rc = add_dispatch(b, g, start_order[i], gap);
    }
    free(last);
    return rc;
}

/* The roofline point, its reason and the classifier's inputs of a scanned group. */
static void finish_group(rpl_analysis_kernel *k, const group_acc *acc, const build *b)
{
    const rpl_trace *t = b->t;
    const rpl_dispatch *first = &t->dispatches.items[acc->first];
    const rpl_kernel_symbol *sym = &t->symbols.items[first->kernel];
    const rpl_agent *agent = first->agent < t->agents.count ? &t->agents.items[first->agent] : NULL;
    const rpl_roof_target *tg = &acc->tg;
    uint32_t n = k->dispatches;

    if (k->with_counters == 0) {
        k->counts.l2_bytes = k->counts.l1_bytes = k->counts.lds_bytes = -1;
        if (tg->family == RPL_ROOF_FAMILY_NONE)
            snprintf(k->reason, sizeof(k->reason), "no counter formulas for architecture '%s'",
                     k->arch);
        else
            snprintf(k->reason, sizeof(k->reason), "counter '%s' was not collected",
                     acc->missing ? acc->missing : "?");
        memset(&k->point, 0, sizeof(k->point));
        k->point.reason = k->reason;
        k->point.ai = k->point.ridge = -1;
    } else if (!tg->has_ceilings) {
        rpl_roof_point_compute(&k->point, &k->counts, acc->counted_ns, NULL);
        snprintf(k->reason, sizeof(k->reason),
                 "no ceilings for device '%s' (%s); give --ceilings FILE",
                 agent && agent->product_name[0] ? agent->product_name : k->arch, k->arch);
        k->point.reason = k->reason;
    } else {
        rpl_roof_point_compute(&k->point, &k->counts, acc->counted_ns, &tg->ceilings);
    }
    k->headroom = k->point.valid ? 1.0 - k->point.roof_fraction : -1;
    k->cls_in.mean_duration_ns = k->time_ns / n;
    k->cls_in.mean_gap_ns = acc->ngaps ? acc->gaps / acc->ngaps : -1;
    k->cls_in.dispatches = n;
    k->cls_in.workgroups = acc->wgs / n;
    k->cls_in.waves_per_group = (group_size(first) + tg->wave_size - 1) / tg->wave_size;
    k->cls_in.cu_count = agent && agent->cu_count ? agent->cu_count
                         : tg->product            ? tg->product->compute_units
                                                  : 0;
    k->cls_in.max_waves_per_cu = agent && agent->max_waves_per_cu ? agent->max_waves_per_cu
                                 : tg->arch                       ? tg->arch->max_waves_per_cu
                                                                  : 0;
    k->cls_in.occupancy = occupancy_of(tg, sym, first);
}

/* Move the groups that have dispatches into a->kernels, in group order, and finish them. */
static void collect_groups(rpl_analysis *a, build *b)
{
    for (uint32_t g = 0; g < b->ngroups; g++) {
        b->slot[g] = RPL_NONE;
        if (b->kernels[g].dispatches == 0)
            continue;
        b->slot[g] = (uint32_t)a->count;
        a->kernels[a->count] = b->kernels[g];
        finish_group(&a->kernels[a->count++], &b->acc[g], b);
    }
}

/* The kernel of the selected dispatch with this id that comes first in group order, or NULL. */
static rpl_analysis_kernel *kernel_of_dispatch_id(rpl_analysis *a, const build *b, int64_t id)
{
    const rpl_trace *t = b->t;
    uint32_t best = RPL_NONE;

    for (uint32_t i = 0; i < t->dispatches.count; i++) {
        const rpl_dispatch *d = &t->dispatches.items[i];
        uint32_t g = d->kernel < t->symbols.count ? b->group_of[d->kernel] : RPL_NONE;
        if (d->dispatch_id == id && g < best)
            best = g;
    }
    return best == RPL_NONE ? NULL : &a->kernels[b->slot[best]];
}

/* s without a ".kd" suffix: its length. */
static size_t without_kd(const char *s)
{
    size_t n = strlen(s);

    return n > 3 && strcmp(s + n - 3, ".kd") == 0 ? n - 3 : n;
}

/*
 * code.json's kernel name (its "; <name>" row: mangled or demangled) names
 * this kernel: equal to its mangled or display name (".kd" aside), or the
 * same short name.  Returns 1 or 0, negative when out of memory.
 */
static int att_names_kernel(const char *att_name, const rpl_analysis_kernel *k)
{
    rpl_strbuf x = RPL_STRBUF_INIT, y = RPL_STRBUF_INIT;
    size_t n = without_kd(att_name);
    int rc;

    if ((n == without_kd(k->mangled) && strncmp(att_name, k->mangled, n) == 0) ||
        strcmp(att_name, k->name) == 0)
        return 1;
    rc = rpl_kernel_short_name(&x, att_name, NULL);
    if (!rc)
        rc = rpl_kernel_short_name(&y, k->mangled, k->name);
    if (!rc)
        rc = x.len > 0 && strcmp(rpl_strbuf_cstr(&x), rpl_strbuf_cstr(&y)) == 0;
    rpl_strbuf_release(&x);
    rpl_strbuf_release(&y);
    return rc;
}

/*
 * Sum the ATT folders into the kernels they belong to: by dispatch id, where
 * the kernel code.json names must be the dispatch's (else the folder is of
 * another run and refused), else by name.
 */
static int attach_att(rpl_analysis *a, const build *b, const char *dir)
{
    rpl_att_set set;
    int rc = rpl_att_read(&set, dir);

    if (rc)
        return rc;
    a->att_folders = set.count;
    a->att_warnings = set.warnings;
    for (size_t i = 0; i < set.count; i++) {
        const rpl_att_features *f = &set.items[i];
        rpl_analysis_kernel *hit =
            f->dispatch_id >= 0 ? kernel_of_dispatch_id(a, b, f->dispatch_id) : NULL;

        if (hit && f->kernel[0] && (rc = att_names_kernel(f->kernel, hit)) <= 0) {
            if (rc == 0)
                rc = rpl_error_set(RPL_EINPUT,
                                   "ATT folder of dispatch %lld holds kernel '%s' (code.json), "
                                   "but dispatch %lld of the trace is '%s': the ATT output is "
                                   "of another run; give that run's trace or its own ATT folder",
                                   (long long)f->dispatch_id, f->kernel, (long long)f->dispatch_id,
                                   hit->name);
            rpl_att_set_release(&set);
            return rc;
        }
        rc = 0;
        for (size_t k = 0; k < a->count && !hit && f->kernel[0]; k++)
            if (strncmp(f->kernel, a->kernels[k].mangled, strlen(a->kernels[k].mangled)) == 0 ||
                strcmp(f->kernel, a->kernels[k].name) == 0)
                hit = &a->kernels[k];
        if (!hit) {
            a->att_unmatched++;
            rpl_log_warn("ATT dispatch %lld ('%s') matches no selected kernel; ignored",
                         (long long)f->dispatch_id, f->kernel);
            continue;
        }
        rpl_att_features_add(&hit->att, f);
        hit->has_att = true;
    }
    rpl_att_set_release(&set);
    return 0;
}

void rpl_analysis_attach_dag(rpl_analysis *a, const rpl_dag *dag)
{
    a->critical_path_ns = dag->critical_path_ns;
    for (size_t k = 0; k < a->count; k++) {
        rpl_analysis_kernel *ak = &a->kernels[k];
        for (uint32_t s = 0; s < dag->symbol_count; s++) {
            const rpl_dag_symbol *ds = &dag->symbols[s];
            if (ds->kind == RPL_DAG_NODE_DISPATCH && strcmp(ds->name, ak->name) == 0) {
                ak->path_ns = (double)ds->path_ns;
                break;
            }
        }
        ak->critical_path_fraction =
            dag->critical_path_ns > 0 ? ak->path_ns / (double)dag->critical_path_ns : 0;
        ak->priority = ak->headroom >= 0 ? ak->headroom * ak->critical_path_fraction : -1;
    }
}

static int cmp_time(const void *a, const void *b)
{
    const rpl_analysis_kernel *x = a, *y = b;

    if (x->time_ns != y->time_ns)
        return x->time_ns > y->time_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

typedef struct sym_name {
    uintptr_t name; /* the interned display name */
    uint32_t sym;
} sym_name;

static int cmp_sym_name(const void *a, const void *b)
{
    uintptr_t x = ((const sym_name *)a)->name, y = ((const sym_name *)b)->name;

    return (x > y) - (x < y);
}

/*
 * Number the display names (the filter runs once per symbol, not per
 * dispatch).  Names are interned in the trace, so equal names are one
 * pointer and symbols group by pointer.
 */
static int group_symbols(build *b, const rpl_kernel_filter *filter)
{
    const rpl_trace *t = b->t;
    uint32_t ns = t->symbols.count;
    sym_name *syms = malloc(((size_t)ns + 1) * sizeof(*syms));

    b->group_of = malloc(((size_t)ns + 1) * sizeof(*b->group_of));
    if (!syms || !b->group_of) {
        free(syms);
        return rpl_error_oom();
    }
    for (uint32_t i = 0; i < ns; i++)
        syms[i] = (sym_name){(uintptr_t)display(&t->symbols.items[i]), i};
    qsort(syms, ns, sizeof(*syms), cmp_sym_name);
    for (uint32_t i = 0; i < ns; i++) {
        const rpl_kernel_symbol *s = &t->symbols.items[syms[i].sym];
        if (i > 0 && syms[i].name != syms[i - 1].name)
            b->ngroups++;
        b->group_of[syms[i].sym] = filter && !rpl_kernel_filter_selects(filter, s->name, display(s))
                                       ? RPL_NONE
                                       : b->ngroups;
    }
    if (ns > 0)
        b->ngroups++;
    free(syms);
    return 0;
}

/* The per-group arrays, and room for every group in a->kernels. */
static int alloc_groups(rpl_analysis *a, build *b)
{
    size_t n = (size_t)b->ngroups + 1;

    b->kernels = calloc(n, sizeof(*b->kernels));
    b->acc = calloc(n, sizeof(*b->acc));
    b->slot = malloc(n * sizeof(*b->slot));
    a->kernels = calloc(n, sizeof(*a->kernels));
    return b->kernels && b->acc && b->slot && a->kernels ? 0 : rpl_error_oom();
}

/* Scan the dispatches into per-group kernels and keep the non-empty ones in a->kernels. */
static int build_kernels(rpl_analysis *a, build *b, const rpl_kernel_filter *filter)
{
    uint32_t *start_order = NULL;
    int rc = rpl_roof_names_init(&b->names, b->t);

    if (!rc)
        rc = by_start(b->t, &start_order);
    if (!rc)
        rc = group_symbols(b, filter);
    if (!rc)
        rc = alloc_groups(a, b);
    if (!rc)
        rc = scan_dispatches(b, start_order);
    if (!rc)
        collect_groups(a, b);
    else
        for (uint32_t g = 0; b->kernels && g < b->ngroups; g++)
            free(b->kernels[g].per_dispatch);
    free(start_order);
    return rc;
}

static void release_build(build *b)
{
    RPL_FREE_EACH(b->group_of, b->kernels, b->acc, b->slot);
    rpl_roof_names_release(&b->names);
}

int rpl_analysis_build_kernels(rpl_analysis **out, const rpl_trace *trace,
                               const rpl_kernel_filter *filter, const rpl_roofline_opts *opts)
{
    rpl_analysis *a = calloc(1, sizeof(*a));
    rpl_roof_ceilings *user = NULL;
    build b = {.t = trace};
    int rc = 0;

    *out = NULL;
    if (!a)
        return rpl_error_oom();
    if (opts && opts->ceilings_path) {
        user = malloc(sizeof(*user));
        rc = user ? rpl_roof_ceilings_load(user, opts->ceilings_path) : rpl_error_oom();
        a->ceilings_path = opts->ceilings_path;
    }
    b.user = user;
    if (!rc)
        rc = build_kernels(a, &b, filter);
    if (!rc && opts && opts->att_dir) {
        a->att_dir = opts->att_dir;
        rc = attach_att(a, &b, opts->att_dir);
    }
    for (size_t k = 0; !rc && k < a->count; k++) {
        rpl_analysis_kernel *ak = &a->kernels[k];
        ak->cls_in.roof = &ak->point;
        ak->cls_in.att = ak->has_att ? &ak->att : NULL;
        rpl_classify(&ak->cls, &ak->cls_in);
    }
    if (!rc) {
        qsort(a->kernels, a->count, sizeof(*a->kernels), cmp_time);
        /* Pointers into the entries moved with them: point them home again. */
        for (size_t k = 0; k < a->count; k++) {
            rpl_analysis_kernel *ak = &a->kernels[k];
            ak->cls_in.roof = &ak->point;
            ak->cls_in.att = ak->has_att ? &ak->att : NULL;
            if (!ak->point.valid)
                ak->point.reason = ak->reason[0] ? ak->reason : ak->point.reason;
        }
    }
    release_build(&b);
    if (rc) {
        free(user);
        rpl_analysis_free(a);
        return rc;
    }
    a->user_ceilings = user;
    *out = a;
    return 0;
}

int rpl_analysis_build(rpl_analysis **out, const rpl_trace *trace, const rpl_kernel_filter *filter,
                       const rpl_roofline_opts *opts)
{
    rpl_dag_opts dopts;
    rpl_dag *dag = NULL;
    int rc = rpl_analysis_build_kernels(out, trace, filter, opts);

    if (rc)
        return rc;
    if (opts && opts->dag) {
        rpl_analysis_attach_dag(*out, opts->dag);
        return 0;
    }
    rpl_dag_opts_init(&dopts);
    dopts.filter = filter;
    rc = rpl_dag_build(&dag, trace, &dopts);
    if (!rc)
        rpl_analysis_attach_dag(*out, dag);
    rpl_dag_free(dag);
    if (rc) {
        rpl_analysis_free(*out);
        *out = NULL;
    }
    return rc;
}

void rpl_analysis_free(rpl_analysis *a)
{
    if (!a)
        return;
    free(a->user_ceilings);
    for (size_t i = 0; i < a->count; i++)
        free(a->kernels[i].per_dispatch);
    free(a->kernels);
    free(a);
}
