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

#include "rpl/classify.h"
#include "rpl/error.h"
#include "rpl/log.h"
#include "rpl/occupancy.h"
#include "radix_sort.h"

static const char *display(const rpl_kernel_symbol *s)
{
    return s->display_name && s->display_name[0] ? s->display_name : (s->name ? s->name : "");
}

typedef struct build {
    const rpl_trace *t;
    rpl_roof_names names;
    uint32_t *sel; /* selected dispatch indices, grouped by display name, by start within */
    uint32_t nsel;
    uint32_t *group_first; /* group g is sel[group_first[g] .. group_first[g + 1]) */
    uint32_t ngroups;
    uint32_t *start_order; /* every dispatch index, in start order */
    double *gap; /* per trace dispatch: idle time since the previous one on its queue, or -1 */
} build;

/* All dispatch indices in start order (a stable radix sort; starts are >= 0). */
static int by_start(const rpl_trace *t, uint32_t **out)
{
    uint32_t n = t->dispatches.count;
    uint64_t *keys = malloc(((size_t)n + 1) * sizeof(*keys));
    uint32_t *order = malloc(((size_t)n + 1) * sizeof(*order));
    int rc;

    if (!keys || !order) {
        free(keys);
        free(order);
        return rpl_error_oom();
    }
    for (uint32_t i = 0; i < n; i++) {
        int64_t start = t->dispatches.items[i].start;
        keys[i] = start > 0 ? (uint64_t)start : 0;
        order[i] = i;
    }
    rc = rpl_radix_sort_u64(keys, order, n);
    free(keys);
    if (rc) {
        free(order);
        return rc;
    }
    *out = order;
    return 0;
}

/*
 * Stable counting sort of the dispatches listed in start order (`order`, n
 * of them) by key[dispatch] (< nkeys; RPL_NONE drops the dispatch) into
 * `out`: each bucket comes out in start order.  first[k] is where bucket k
 * begins in `out` (first[nkeys] = number kept).
 */
static uint32_t bucket_by_key(const uint32_t *order, uint32_t n, const uint32_t *key,
                              uint32_t nkeys, uint32_t *out, uint32_t *first)
{
    memset(first, 0, ((size_t)nkeys + 1) * sizeof(*first));
    for (uint32_t i = 0; i < n; i++)
        if (key[order[i]] != RPL_NONE)
            first[key[order[i]] + 1]++;
    for (uint32_t k = 0; k < nkeys; k++)
        first[k + 1] += first[k];
    for (uint32_t i = 0; i < n; i++)
        if (key[order[i]] != RPL_NONE)
            out[first[key[order[i]]]++] = order[i];
    /* The placement loop advanced each first[k] to the end of bucket k: shift back. */
    memmove(first + 1, first, (size_t)nkeys * sizeof(*first));
    first[0] = 0;
    return first[nkeys];
}

static int compute_gaps(build *b)
{
    const rpl_trace *t = b->t;
    uint32_t n = t->dispatches.count, nq = t->queues.count;
    uint32_t *order = malloc(((size_t)n + 1) * sizeof(*order));
    uint32_t *key = malloc(((size_t)n + 1) * sizeof(*key));
    uint32_t *first = malloc(((size_t)nq + 1) * sizeof(*first));
    uint32_t kept;

    b->gap = malloc(((size_t)n + 1) * sizeof(*b->gap));
    if (!order || !key || !first || !b->gap) {
        free(order);
        free(key);
        free(first);
        return rpl_error_oom();
    }
    for (uint32_t i = 0; i < n; i++) {
        key[i] = t->dispatches.items[i].queue < nq ? t->dispatches.items[i].queue : RPL_NONE;
        b->gap[i] = -1;
    }
    kept = bucket_by_key(b->start_order, n, key, nq, order, first);
    for (uint32_t i = 1; i < kept; i++) {
        const rpl_dispatch *p = &t->dispatches.items[order[i - 1]];
        const rpl_dispatch *d = &t->dispatches.items[order[i]];
        if (p->agent == d->agent && p->queue == d->queue)
            b->gap[order[i]] = d->start > p->end ? (double)(d->start - p->end) : 0;
    }
    free(order);
    free(key);
    free(first);
    return 0;
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

static int fill_kernel(rpl_analysis_kernel *k, const build *b, const uint32_t *idx, uint32_t n,
                       const rpl_roof_ceilings *user)
{
    const rpl_trace *t = b->t;
    const rpl_dispatch *first = &t->dispatches.items[idx[0]];
    const rpl_kernel_symbol *sym = &t->symbols.items[first->kernel];
    const rpl_agent *agent = first->agent < t->agents.count ? &t->agents.items[first->agent] : NULL;
    const char *missing = NULL;
    double counted_ns = 0, gaps = 0, wgs = 0;
    uint32_t ngaps = 0;
    rpl_roof_target tg;

    k->per_dispatch = malloc((n < RPL_ROOF_PER_DISPATCH_MAX ? n : RPL_ROOF_PER_DISPATCH_MAX) *
                             sizeof(*k->per_dispatch));
    if (!k->per_dispatch)
        return rpl_error_oom();
    rpl_roof_target_of(&tg, agent, user);
    k->name = display(sym);
    k->mangled = sym->name ? sym->name : "";
    k->arch = agent && agent->name ? agent->name : "";
    k->ceilings = tg.ceilings;
    k->has_ceilings = tg.has_ceilings;
    k->dispatches = n;
    memset(&k->counts, 0, sizeof(k->counts));
    k->counts.l2_bytes = k->counts.l1_bytes = k->counts.lds_bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        const rpl_dispatch *d = &t->dispatches.items[idx[i]];
        rpl_roof_indexed_ctx ctx = {{t, d}, &b->names};
        rpl_roof_counts c;
        double dur = (double)(d->end - d->start);

        k->time_ns += dur;
        wgs += workgroups_of(d);
        if (b->gap[idx[i]] >= 0) {
            gaps += b->gap[idx[i]];
            ngaps++;
        }
        /* A dispatch without counters only needs computing once, to name what is missing. */
        if (d->counters_count > 0 || !missing)
            rpl_roof_counts_compute(&c, tg.family, tg.wave_size, rpl_roof_trace_counter_indexed,
                                    &ctx);
        else
            memset(&c, 0, sizeof(c));
        if (k->per_dispatch && k->nper_dispatch < RPL_ROOF_PER_DISPATCH_MAX) {
            bool ok = c.has_flops && c.has_bytes;
            k->per_dispatch[k->nper_dispatch++] = (rpl_dispatch_roof){
                d->dispatch_id,        dur,     ok ? c.flops : -1, ok ? c.hbm_read : -1,
                ok ? c.hbm_write : -1, c.clamps};
        }
        if (c.has_flops && c.has_bytes) {
            rpl_roof_counts_add(&k->counts, &c);
            k->counts.has_flops = k->counts.has_bytes = true;
            k->with_counters++;
            counted_ns += dur;
        } else if (!missing) {
            missing = c.missing;
        }
    }
    if (k->with_counters == 0) {
        k->counts.l2_bytes = k->counts.l1_bytes = k->counts.lds_bytes = -1;
        if (tg.family == RPL_ROOF_FAMILY_NONE)
            snprintf(k->reason, sizeof(k->reason), "no counter formulas for architecture '%s'",
                     k->arch);
        else
            snprintf(k->reason, sizeof(k->reason), "counter '%s' was not collected",
                     missing ? missing : "?");
        memset(&k->point, 0, sizeof(k->point));
        k->point.reason = k->reason;
        k->point.ai = k->point.ridge = -1;
    } else if (!tg.has_ceilings) {
        rpl_roof_point_compute(&k->point, &k->counts, counted_ns, NULL);
        snprintf(k->reason, sizeof(k->reason),
                 "no ceilings for device '%s' (%s); give --ceilings FILE",
                 agent && agent->product_name[0] ? agent->product_name : k->arch, k->arch);
        k->point.reason = k->reason;
    } else {
        rpl_roof_point_compute(&k->point, &k->counts, counted_ns, &tg.ceilings);
    }
    k->headroom = k->point.valid ? 1.0 - k->point.roof_fraction : -1;
    k->cls_in.mean_duration_ns = k->time_ns / n;
    k->cls_in.mean_gap_ns = ngaps ? gaps / ngaps : -1;
    k->cls_in.dispatches = n;
    k->cls_in.workgroups = wgs / n;
    k->cls_in.waves_per_group = (group_size(first) + tg.wave_size - 1) / tg.wave_size;
    k->cls_in.cu_count = agent && agent->cu_count ? agent->cu_count
                         : tg.product             ? tg.product->compute_units
                                                  : 0;
    k->cls_in.max_waves_per_cu = agent && agent->max_waves_per_cu ? agent->max_waves_per_cu
                                 : tg.arch                        ? tg.arch->max_waves_per_cu
                                                                  : 0;
    k->cls_in.occupancy = occupancy_of(&tg, sym, first);
    return 0;
}

/* Sum the ATT folders into the kernels they belong to (by dispatch id, else by name). */
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
        rpl_analysis_kernel *hit = NULL;

        for (uint32_t s = 0; s < b->nsel && !hit && f->dispatch_id >= 0; s++) {
            const rpl_dispatch *d = &b->t->dispatches.items[b->sel[s]];
            if (d->dispatch_id == f->dispatch_id) {
                const char *name = display(&b->t->symbols.items[d->kernel]);
                for (size_t k = 0; k < a->count && !hit; k++)
                    if (strcmp(a->kernels[k].name, name) == 0)
                        hit = &a->kernels[k];
            }
        }
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

static void attach_dag(rpl_analysis *a, const rpl_dag *dag)
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

static const rpl_trace *sort_trace; /* qsort has no context argument */

static int cmp_symbol_name(const void *a, const void *b)
{
    const char *x = display(&sort_trace->symbols.items[*(const uint32_t *)a]);
    const char *y = display(&sort_trace->symbols.items[*(const uint32_t *)b]);

    return (x > y) - (x < y);
}

/*
 * Select dispatches (the filter runs once per symbol, not per dispatch) and
 * group them by display name.  Names are interned in the trace, so equal
 * names are one pointer and symbols group by pointer.
 */
static int select_dispatches(build *b, const rpl_kernel_filter *filter)
{
    const rpl_trace *t = b->t;
    uint32_t ns = t->symbols.count, n = t->dispatches.count;
    uint32_t *syms = malloc(((size_t)ns + 1) * sizeof(*syms));
    uint32_t *group = malloc(((size_t)ns + 1) * sizeof(*group));
    uint32_t *key = malloc(((size_t)n + 1) * sizeof(*key));
    int rc = 0;

    b->sel = malloc(((size_t)n + 1) * sizeof(*b->sel));
    b->group_first = malloc(((size_t)ns + 1) * sizeof(*b->group_first));
    if (!syms || !group || !key || !b->sel || !b->group_first) {
        rc = rpl_error_oom();
        goto done;
    }
    for (uint32_t i = 0; i < ns; i++)
        syms[i] = i;
    sort_trace = t;
    qsort(syms, ns, sizeof(*syms), cmp_symbol_name);
    for (uint32_t i = 0; i < ns; i++) {
        const rpl_kernel_symbol *s = &t->symbols.items[syms[i]];
        if (i > 0 && display(s) != display(&t->symbols.items[syms[i - 1]]))
            b->ngroups++;
        group[syms[i]] = filter && !rpl_kernel_filter_selects(filter, s->name, display(s))
                             ? RPL_NONE
                             : b->ngroups;
    }
    if (ns > 0)
        b->ngroups++;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = t->dispatches.items[i].kernel;
        key[i] = k < ns ? group[k] : RPL_NONE;
    }
    b->nsel = bucket_by_key(b->start_order, n, key, b->ngroups, b->sel, b->group_first);
done:
    free(syms);
    free(group);
    free(key);
    return rc;
}

int rpl_analysis_build(rpl_analysis **out, const rpl_trace *trace, const rpl_kernel_filter *filter,
                       const rpl_roofline_opts *opts)
{
    rpl_analysis *a = calloc(1, sizeof(*a));
    rpl_roof_ceilings *user = NULL;
    build b = {.t = trace};
    rpl_dag_opts dopts;
    rpl_dag *dag = NULL;
    int rc = 0;

    *out = NULL;
    if (!a)
        return rpl_error_oom();
    if (opts && opts->ceilings_path) {
        user = malloc(sizeof(*user));
        rc = user ? rpl_roof_ceilings_load(user, opts->ceilings_path) : rpl_error_oom();
        a->ceilings_path = opts->ceilings_path;
    }
    if (!rc)
        rc = rpl_roof_names_init(&b.names, trace);
    if (!rc)
        rc = by_start(trace, &b.start_order);
    if (!rc)
        rc = select_dispatches(&b, filter);
    if (!rc)
        rc = compute_gaps(&b);
    if (!rc && !(a->kernels = calloc((size_t)b.ngroups + 1, sizeof(*a->kernels))))
        rc = rpl_error_oom();
    for (uint32_t g = 0; !rc && g < b.ngroups; g++) {
        uint32_t first = b.group_first[g], count = b.group_first[g + 1] - first;
        if (count > 0)
            rc = fill_kernel(&a->kernels[a->count++], &b, b.sel + first, count, user);
    }
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
    if (!rc && opts && opts->dag) {
        attach_dag(a, opts->dag);
    } else if (!rc) {
        rpl_dag_opts_init(&dopts);
        dopts.filter = filter;
        rc = rpl_dag_build(&dag, trace, &dopts);
        if (!rc)
            attach_dag(a, dag);
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
    rpl_dag_free(dag);
    free(b.sel);
    free(b.group_first);
    free(b.start_order);
    free(b.gap);
    rpl_roof_names_release(&b.names);
    if (rc) {
        free(user);
        rpl_analysis_free(a);
        return rc;
    }
    a->user_ceilings = user;
    *out = a;
    return 0;
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
