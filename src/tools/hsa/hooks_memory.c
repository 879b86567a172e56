/*
 * Allocation wrappers (tool_int.h): every range the application gets from
 * the runtime is recorded before the wrapper returns, and forgotten before
 * the runtime takes it back, so a capture (which holds the lock) never
 * copies memory that is being freed.  What these hooks cannot see is listed
 * in docs/USER_GUIDE.md ("AMD (HSA)", limits).
 */
#include "rpl/error.h"
#include "tool_int.h"

static void record(uint64_t base, uint64_t size, ch_kind kind)
{
    pthread_mutex_lock(&ch_g.lock);
    if (!ch_g.done && ch_regions_alloc(&ch_g.regions, base, size, kind) != 0) {
        /* Out of memory in the tool: a snapshot would miss this range, so none is taken. */
        ch_say("out of memory tracking allocations; not capturing");
        ch_g.done = true;
    }
    pthread_mutex_unlock(&ch_g.lock);
}

static void forget(uint64_t base)
{
    pthread_mutex_lock(&ch_g.lock);
    ch_regions_free(&ch_g.regions, base);
    pthread_mutex_unlock(&ch_g.lock);
}

static hsa_status_t pool_allocate(hsa_amd_memory_pool_t pool, size_t size, uint32_t flags,
                                  void **ptr)
{
    hsa_status_t st = ch_g.amd.hsa_amd_memory_pool_allocate_fn(pool, size, flags, ptr);
    const ch_pool *p;
    ch_kind kind = CH_POOL;

    if (st != HSA_STATUS_SUCCESS || !ptr || !*ptr)
        return st;
    p = ch_pool_find(pool.handle);
    if (p && p->kernarg)
        kind = CH_KERNARG;
    else if (p && p->cpu)
        kind = CH_HOST;
    record((uint64_t)(uintptr_t)*ptr, size, kind);
    return st;
}

static hsa_status_t pool_free(void *ptr)
{
    forget((uint64_t)(uintptr_t)ptr);
    return ch_g.amd.hsa_amd_memory_pool_free_fn(ptr);
}

static hsa_status_t memory_allocate(hsa_region_t region, size_t size, void **ptr)
{
    hsa_status_t st = ch_g.core.hsa_memory_allocate_fn(region, size, ptr);
    uint32_t flags = 0;

    if (st != HSA_STATUS_SUCCESS || !ptr || !*ptr)
        return st;
    ch_g.core.hsa_region_get_info_fn(region, HSA_REGION_INFO_GLOBAL_FLAGS, &flags);
    record((uint64_t)(uintptr_t)*ptr, size,
           (flags & HSA_REGION_GLOBAL_FLAG_KERNARG) ? CH_KERNARG : CH_DEVICE);
    return st;
}

static hsa_status_t memory_free(void *ptr)
{
    forget((uint64_t)(uintptr_t)ptr);
    return ch_g.core.hsa_memory_free_fn(ptr);
}

/*
 * Virtual memory: a reservation or a handle holds no readable memory by
 * itself; a mapping does once hsa_amd_vmem_set_access has given an agent
 * access to it.  Freeing a reservation drops whatever is still mapped in it.
 */
static hsa_status_t vmem_address_free(void *va, size_t size)
{
    pthread_mutex_lock(&ch_g.lock);
    ch_regions_unmap(&ch_g.regions, (uint64_t)(uintptr_t)va, size);
    pthread_mutex_unlock(&ch_g.lock);
    return ch_g.amd.hsa_amd_vmem_address_free_fn(va, size);
}

static hsa_status_t vmem_map(void *va, size_t size, size_t in_offset, rpl_hsa_vmem_handle handle,
                             uint64_t flags)
{
    hsa_status_t st = ch_g.amd.hsa_amd_vmem_map_fn(va, size, in_offset, handle, flags);

    if (st != HSA_STATUS_SUCCESS)
        return st;
    pthread_mutex_lock(&ch_g.lock);
    if (!ch_g.done && ch_regions_map(&ch_g.regions, (uint64_t)(uintptr_t)va, size, handle.handle)) {
        ch_say("out of memory tracking allocations; not capturing");
        ch_g.done = true;
    }
    pthread_mutex_unlock(&ch_g.lock);
    return st;
}

static hsa_status_t vmem_unmap(void *va, size_t size)
{
    pthread_mutex_lock(&ch_g.lock);
    ch_regions_unmap(&ch_g.regions, (uint64_t)(uintptr_t)va, size);
    pthread_mutex_unlock(&ch_g.lock);
    return ch_g.amd.hsa_amd_vmem_unmap_fn(va, size);
}

static hsa_status_t vmem_set_access(void *va, size_t size, const rpl_hsa_access_desc *desc,
                                    size_t desc_cnt)
{
    hsa_status_t st = ch_g.amd.hsa_amd_vmem_set_access_fn(va, size, desc, desc_cnt);
    bool accessible = false;
    size_t i;

    if (st != HSA_STATUS_SUCCESS)
        return st;
    for (i = 0; i < desc_cnt; i++)
        accessible |= desc[i].permissions != RPL_HSA_ACCESS_PERMISSION_NONE;
    pthread_mutex_lock(&ch_g.lock);
    ch_regions_set_access(&ch_g.regions, (uint64_t)(uintptr_t)va, size, accessible);
    pthread_mutex_unlock(&ch_g.lock);
    return st;
}

void ch_hook_memory(rpl_hsa_api_table *t)
{
    t->amd_ext_->hsa_amd_memory_pool_allocate_fn = pool_allocate;
    t->amd_ext_->hsa_amd_memory_pool_free_fn = pool_free;
    t->core_->hsa_memory_allocate_fn = memory_allocate;
    t->core_->hsa_memory_free_fn = memory_free;
    if (!ch_g.have_vmem)
        return;
    t->amd_ext_->hsa_amd_vmem_address_free_fn = vmem_address_free;
    t->amd_ext_->hsa_amd_vmem_map_fn = vmem_map;
    t->amd_ext_->hsa_amd_vmem_unmap_fn = vmem_unmap;
    t->amd_ext_->hsa_amd_vmem_set_access_fn = vmem_set_access;
}
