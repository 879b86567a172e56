/*
 * The static section of a baseline: per kernel of the code objects, the
 * resources and the theoretical occupancy that `rocm-perf inspect` shows,
 * for one block size.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rpl/baseline.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/occupancy.h"

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

void rpl_static_kernels_free_one(rpl_static_kernel *k)
{
    RPL_FREE_EACH(k->name, k->occ_unit, k->limiter);
}

void rpl_static_kernels_free(rpl_static_kernel *k, size_t n)
{
    for (size_t i = 0; k && i < n; i++)
        rpl_static_kernels_free_one(&k[i]);
    free(k);
}

/* Occupancy as inspect computes it (AMD waves/SIMD, NVIDIA blocks/SM). */
static int occupancy(rpl_static_kernel *s, const rpl_kernel_info *k, const rpl_arch *arch,
                     unsigned block)
{
    rpl_kernel_occupancy ko;
    int rc = rpl_occ_kernel(&ko, k, arch, block, 0);

    if (rc != 0)
        return rc;
    s->block_size = ko.block;
    if (!ko.known)
        return 0;
    s->occupancy = k->vendor == RPL_VENDOR_AMD ? ko.occ.waves_per_simd : ko.occ.blocks_per_cu;
    s->occ_unit = strdup(k->vendor == RPL_VENDOR_AMD ? "waves_per_simd" : "blocks_per_sm");
    s->limiter = strdup(rpl_occ_limit_name(ko.occ.limiter, k->vendor));
    return s->occ_unit && s->limiter ? 0 : rpl_error_oom();
}

static int fill(rpl_static_kernel *s, const rpl_kernel_info *k, const rpl_arch *arch,
                unsigned block)
{
    s->name = dup_or_null(k->name);
    if (!s->name)
        return rpl_error_oom();
    s->vgpr = k->vgpr_count;
    s->agpr = k->vendor == RPL_VENDOR_AMD ? k->agpr_count : -1;
    s->sgpr = k->sgpr_count;
    s->lds_bytes = k->group_segment_fixed_size;
    s->scratch_bytes = k->private_segment_fixed_size;
    if (k->vgpr_spill_count >= 0 || k->sgpr_spill_count >= 0)
        s->spills = (k->vgpr_spill_count > 0 ? k->vgpr_spill_count : 0) +
                    (k->sgpr_spill_count > 0 ? k->sgpr_spill_count : 0);
    else
        s->spills = -1;
    s->occupancy = -1;
    return arch ? occupancy(s, k, arch, block) : 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const rpl_static_kernel *)a)->name, ((const rpl_static_kernel *)b)->name);
}

int rpl_baseline_static_from_codeobj(rpl_static_kernel **out, size_t *n, const rpl_codeobj_set *set,
                                     const char *arch_name, unsigned block)
{
    const rpl_arch *arch = rpl_arch_find(arch_name);
    rpl_static_kernel *k = calloc(set->count ? set->count : 1, sizeof(*k));
    size_t m = 0;
    int rc = 0;

    *out = NULL;
    *n = 0;
    if (!k)
        return rpl_error_oom();
    for (size_t i = 0; i < set->count && rc == 0; i++) {
        const rpl_kernel_info *ki = &set->kernels[i];
        const rpl_arch *ka = rpl_arch_find(ki->arch);
        bool same = arch && ka ? ka == arch : strcasecmp(ki->arch, arch_name) == 0;

        if (!same)
            continue;
        /* The same kernel in several files or bundle entries: keep the first. */
        for (size_t j = 0; j < m && same; j++)
            same = strcmp(k[j].name, ki->name) != 0;
        if (same)
            rc = fill(&k[m++], ki, ka, block);
    }
    if (rc == 0 && m == 0)
        rc = rpl_error_set(RPL_EINPUT, "no kernel for architecture '%s' in the input", arch_name);
    if (rc != 0) {
        rpl_static_kernels_free(k, m);
        return rc;
    }
    qsort(k, m, sizeof(*k), by_name);
    *out = k;
    *n = m;
    return 0;
}
