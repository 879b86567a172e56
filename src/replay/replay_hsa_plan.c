/* The HSA replay backend's decisions that need no runtime (replay_hsa_plan.h). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "replay_hsa_plan.h"
#include "rpl/error.h"

int rh_pick_agent(size_t *index, const rh_agent *agents, size_t n, const char *target)
{
    rpl_amd_isa want, have;
    const char *seen = NULL;
    size_t i;
    int rc;

    rc = rpl_amd_isa_parse(&want, target);
    if (rc)
        return rc;
    for (i = 0; i < n; i++) {
        if (!agents[i].gpu)
            continue;
        seen = seen ? seen : agents[i].isa;
        if (rpl_amd_isa_parse(&have, agents[i].isa) == 0 && rpl_amd_isa_compatible(&want, &have)) {
            *index = i;
            rpl_error_clear();
            return 0;
        }
    }
    if (!seen)
        return rpl_error_set(RPL_ENODEV, "no AMD GPU agent");
    return rpl_error_set(RPL_EINPUT, "the snapshot was captured on %s; this machine's GPU is %s",
                         target, seen[0] ? seen : "of unknown ISA");
}

int rh_spans(rpl_range **out, size_t *n, const rpl_snapshot *snap, uint64_t granule)
{
    rpl_range *in;
    size_t i;
    int rc;

    *out = NULL;
    *n = 0;
    in = calloc(snap->nregions ? snap->nregions : 1, sizeof(*in));
    if (!in)
        return rpl_error_oom();
    for (i = 0; i < snap->nregions; i++) {
        in[i].base = snap->regions[i].base;
        in[i].size = snap->regions[i].size;
    }
    rc = rpl_ranges_merge(out, n, in, snap->nregions, granule);
    free(in);
    return rc;
}

int rh_placeholders_map(rh_placeholders *p, const rpl_range *spans, size_t n)
{
    size_t i;

    memset(p, 0, sizeof(*p));
    p->maps = calloc(n ? n : 1, sizeof(*p->maps));
    if (!p->maps)
        return rpl_error_oom();
    for (i = 0; i < n; i++) {
        void *want = (void *)(uintptr_t)spans[i].base;
        void *got = mmap(want, spans[i].size, PROT_NONE,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);

        if (got == want) {
            p->maps[p->n++] = spans[i];
            continue;
        }
        /* Kernels before 4.17 treat the flag as a hint and map elsewhere. */
        if (got != MAP_FAILED)
            munmap(got, spans[i].size);
        if (p->conflicts++ == 0)
            p->first_conflict = spans[i].base;
    }
    return 0;
}

void rh_placeholders_unmap(rh_placeholders *p)
{
    size_t i;

    for (i = 0; i < p->n; i++)
        munmap((void *)(uintptr_t)p->maps[i].base, p->maps[i].size);
    free(p->maps);
    memset(p, 0, sizeof(*p));
}

int rh_dispatch(rpl_aql_dispatch *out, const rpl_snapshot *snap, const rh_kernel *k,
                uint64_t kernarg_address, uint64_t signal)
{
    uint32_t dynamic;
    int i;

    memset(out, 0, sizeof(*out));
    out->header.type = RPL_AQL_KERNEL_DISPATCH;
    out->header.barrier = true;
    out->header.acquire = RPL_AQL_SCOPE_SYSTEM;
    out->header.release = RPL_AQL_SCOPE_SYSTEM;
    out->dims = snap->setup_dims >= 1 && snap->setup_dims <= 3 ? snap->setup_dims : 3;
    for (i = 0; i < 3; i++) {
        if (snap->block[i] == 0 || snap->block[i] > UINT16_MAX || snap->grid[i] == 0)
            return rpl_error_set(RPL_EINPUT,
                                 "snapshot '%s': launch dimension %d (grid %u, block %u) "
                                 "does not fit an AQL packet",
                                 snap->dir ? snap->dir : "", i, snap->grid[i], snap->block[i]);
        out->workgroup[i] = (uint16_t)snap->block[i];
        out->grid[i] = snap->grid[i];
    }
    dynamic = snap->dynamic_shared_bytes > snap->static_shared_bytes
                  ? snap->dynamic_shared_bytes - snap->static_shared_bytes
                  : 0;
    if (dynamic > UINT32_MAX - k->group_static)
        return rpl_error_set(RPL_EINPUT, "group segment size overflows");
    out->group_segment_size = k->group_static + dynamic;
    out->private_segment_size = snap->private_segment_bytes > k->private_fixed
                                    ? snap->private_segment_bytes
                                    : k->private_fixed;
    out->kernel_object = k->kernel_object;
    out->kernarg_address = kernarg_address;
    out->completion_signal = signal;
    return 0;
}

double rh_ticks_ns(uint64_t start, uint64_t end, uint64_t hz)
{
    if (end < start || hz == 0)
        return -1.0;
    return (double)(end - start) * (1e9 / (double)hz);
}
