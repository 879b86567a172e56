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

static const char *display(const rpl_kernel_symbol *s)
{
    return s->display_name && s->display_name[0] ? s->display_name : (s->name ? s->name : "");
}

typedef struct build {
    const rpl_trace *t;
    rpl_roof_names names;
    uint32_t *sel; /* selected dispatch indices, by (name, start) */
    uint32_t nsel;
    double *gap; /* per trace dispatch: idle time since the previous one on its queue, or -1 */
} build;

static const rpl_trace *sort_trace;

static int cmp_by_name(const void *a, const void *b)
{
    const rpl_dispatch *x = &sort_trace->dispatches.items[*(const uint32_t *)a];
    const rpl_dispatch *y = &sort_trace->dispatches.items[*(const uint32_t *)b];
    int c = strcmp(display(&sort_trace->symbols.items[x->kernel]),
                   display(&sort_trace->symbols.items[y->kernel]));

    if (c)
        return c;
    return (x->start > y->start) - (x->start < y->start);
}

static int cmp_by_queue(const void *a, const void *b)
{
    const rpl_dispatch *x = &sort_trace->dispatches.items[*(const uint32_t *)a];
    const rpl_dispatch *y = &sort_trace->dispatches.items[*(const uint32_t *)b];

    if (x->agent != y->agent)
        return x->agent < y->agent ? -1 : 1;
    if (x->queue != y->queue)
        return x->queue < y->queue ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

static int compute_gaps(build *b)
{
    uint32_t n = b->t->dispatches.count, *order = malloc(((size_t)n + 1) * sizeof(*order));

    b->gap = malloc(((size_t)n + 1) * sizeof(*b->gap));
    if (!order || !b->gap) {
        free(order);
        return rpl_error_oom();
    }
    for (uint32_t i = 0; i < n; i++) {
        order[i] = i;
        b->gap[i] = -1;
    }
    sort_trace = b->t;
    qsort(order, n, sizeof(*order), cmp_by_queue);
    for (uint32_t i = 1; i < n; i++) {
        const rpl_dispatch *p = &b->t->dispatches.items[order[i - 1]];
        const rpl_dispatch *d = &b->t->dispatches.items[order[i]];
        if (p->agent == d->agent && p->queue == d->queue)
            b->gap[order[i]] = d->start > p->end ? (double)(d->start - p->end) : 0;
    }
    free(order);
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
        rpl_roof_counts_compute(&c, tg.family, tg.wave_size, rpl_roof_trace_counter_indexed, &ctx);
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

static const char *name_of(const build *b, uint32_t i)
{
    return display(&b->t->symbols.items[b->t->dispatches.items[b->sel[i]].kernel]);
}

static int select_dispatches(build *b, const rpl_kernel_filter *filter)
{
    const rpl_trace *t = b->t;

    b->sel = malloc(((size_t)t->dispatches.count + 1) * sizeof(*b->sel));
    if (!b->sel)
        return rpl_error_oom();
    for (uint32_t i = 0; i < t->dispatches.count; i++) {
        const rpl_dispatch *d = &t->dispatches.items[i];
        const rpl_kernel_symbol *s;
        if (d->kernel >= t->symbols.count)
            continue;
        s = &t->symbols.items[d->kernel];
        if (!filter || rpl_kernel_filter_selects(filter, s->name, display(s)))
            b->sel[b->nsel++] = i;
    }
    sort_trace = t;
    qsort(b->sel, b->nsel, sizeof(*b->sel), cmp_by_name);
    return 0;
}

int rpl_analysis_build(rpl_analysis **out, const rpl_trace *trace, const rpl_kernel_filter *filter,
                       const rpl_roofline_opts *opts)
{
    rpl_analysis *a = calloc(1, sizeof(*a));
    rpl_roof_ceilings *user = NULL;
    build b = {.t = trace};
    rpl_dag_opts dopts;
    rpl_dag *dag = NULL;
    size_t groups = 0;
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
        rc = select_dispatches(&b, filter);
    if (!rc)
        rc = compute_gaps(&b);
    for (uint32_t i = 0; !rc && i < b.nsel; i++)
        if (i == 0 || strcmp(name_of(&b, i - 1), name_of(&b, i)) != 0)
            groups++;
    if (!rc && !(a->kernels = calloc(groups + 1, sizeof(*a->kernels))))
        rc = rpl_error_oom();
    for (uint32_t i = 1, start = 0; !rc && i <= b.nsel; i++) {
        if (i < b.nsel && strcmp(name_of(&b, i), name_of(&b, start)) == 0)
            continue;
        rc = fill_kernel(&a->kernels[a->count++], &b, b.sel + start, i - start, user);
        start = i;
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
    if (!rc) {
        rpl_dag_opts_init(&dopts);
        dopts.filter = filter;
        rc = rpl_dag_build(&dag, trace, &dopts);
    }
    if (!rc)
        attach_dag(a, dag);
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
