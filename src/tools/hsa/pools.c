/* The memory pools of the agents, classified once at OnLoad (ch_g.pools). */
#include <stdlib.h>

#include "tool_int.h"

const ch_pool *ch_pool_find(uint64_t handle)
{
    size_t i;

    for (i = 0; i < ch_g.npools; i++)
        if (ch_g.pools[i].handle == handle)
            return &ch_g.pools[i];
    return NULL;
}

const ch_pool *ch_pool_host(void)
{
    const ch_pool *coarse = NULL;
    size_t i;

    for (i = 0; i < ch_g.npools; i++) {
        const ch_pool *p = &ch_g.pools[i];

        if (!p->cpu || !p->alloc_allowed || p->kernarg)
            continue;
        if (p->fine)
            return p;
        coarse = coarse ? coarse : p;
    }
    return coarse;
}

static hsa_status_t add_pool(hsa_amd_memory_pool_t pool, void *data)
{
    const hsa_agent_t *agent = data;
    hsa_amd_segment_t segment;
    uint32_t flags = 0;
    bool allowed = false;
    hsa_device_type_t type;
    ch_pool *p;

    if (ch_g.amd.hsa_amd_memory_pool_get_info_fn(pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT,
                                                 &segment) != HSA_STATUS_SUCCESS ||
        segment != HSA_AMD_SEGMENT_GLOBAL)
        return HSA_STATUS_SUCCESS;
    ch_g.amd.hsa_amd_memory_pool_get_info_fn(pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &flags);
    ch_g.amd.hsa_amd_memory_pool_get_info_fn(pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED,
                                             &allowed);
    if (ch_g.core.hsa_agent_get_info_fn(*agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS)
        return HSA_STATUS_SUCCESS;
    p = realloc(ch_g.pools, (ch_g.npools + 1) * sizeof(*p));
    if (!p)
        return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    ch_g.pools = p;
    p = &ch_g.pools[ch_g.npools++];
    p->handle = pool.handle;
    p->agent = *agent;
    p->cpu = type == HSA_DEVICE_TYPE_CPU;
    p->kernarg = (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) != 0;
    p->fine = (flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) != 0;
    p->alloc_allowed = allowed;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t ch_pools_add_agent(hsa_agent_t agent, void *data)
{
    return ch_g.amd.hsa_amd_agent_iterate_memory_pools_fn(agent, add_pool, &agent);
}
