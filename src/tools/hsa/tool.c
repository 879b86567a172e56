/*
 * librpl_hsa.so: an HSA tools library.  With HSA_TOOLS_LIB=<path>/librpl_hsa.so
 * the runtime (ROCr) loads it at the end of hsa_init and calls OnLoad with
 * its API table; the library then routes queue creation, allocations and
 * executable loading through its own wrappers and captures one kernel
 * dispatch into a replay snapshot (rpl/snapshot.h):
 *
 *   ROCM_PERF_CAPTURE_DIR       the snapshot directory to create (required)
 *   ROCM_PERF_CAPTURE_KERNEL    POSIX ERE on the kernel's demangled or mangled
 *                               name (default: any kernel but runtime helpers)
 *   ROCM_PERF_CAPTURE_DISPATCH  which matching dispatch, 0-based (default 0)
 *
 * `rocm-perf capture` sets all three.  ROCr builds that register with
 * rocprofiler-register ignore HSA_TOOLS_LIB while an SDK tool such as
 * rocprofv3 is active (docs/USER_GUIDE.md, "AMD (HSA)").
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/capture_env.h"
#include "rpl/error.h"
#include "tool_int.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT bool OnLoad(void *table, uint64_t runtime_version, uint64_t failed_tool_count,
                   const char *const *failed_tool_names);
EXPORT void OnUnload(void);

/* The table holds the layout hsa_abi.h declares, and every slot this library uses. */
static int check_table(const rpl_hsa_api_table *t)
{
    if (!t || !t->core_ || !t->amd_ext_)
        return rpl_error_set(RPL_EENV, "the HSA runtime passed no API table");
    if (t->core_->version.major_id < RPL_HSA_CORE_MAJOR_MIN ||
        t->core_->version.major_id > RPL_HSA_CORE_MAJOR_MAX ||
        !rpl_hsa_table_has(
            &t->core_->version,
            RPL_HSA_SLOT_END(rpl_hsa_core_table, hsa_executable_iterate_agent_symbols_fn)))
        return rpl_error_set(RPL_EENV, "unsupported HSA core API table (major %u, %u bytes)",
                             t->core_->version.major_id, t->core_->version.minor_id);
    if (t->amd_ext_->version.major_id != RPL_HSA_AMD_EXT_MAJOR)
        return rpl_error_set(RPL_EENV,
                             "HSA AMD extension table major %u is not supported: ROCm 6.0 or "
                             "newer is needed",
                             t->amd_ext_->version.major_id);
    if (!rpl_hsa_table_has(
            &t->amd_ext_->version,
            RPL_HSA_SLOT_END(rpl_hsa_amd_ext_table, hsa_amd_queue_intercept_register_fn)))
        return rpl_error_set(RPL_EENV, "the HSA AMD extension table has no queue interception");
    return 0;
}

/* Copy the runtime's slots (no more than the table has) into `dst`. */
static void save_table(void *dst, size_t dst_size, const void *src)
{
    const rpl_hsa_table_version *v = src;
    size_t n = v->minor_id < dst_size ? v->minor_id : dst_size;

    memset(dst, 0, dst_size);
    memcpy(dst, src, n);
}

static int load_extensions(void)
{
    hsa_status_t st;

    st = ch_g.core.hsa_system_get_major_extension_table_fn(HSA_EXTENSION_AMD_LOADER, 1,
                                                           sizeof(ch_g.loader), &ch_g.loader);
    if (st != HSA_STATUS_SUCCESS)
        return ch_hsa_failed(st, "the HSA loader extension (hsa_ven_amd_loader 1.01)");
    ch_g.have_loader = true;
    if (ch_g.core.hsa_system_get_info_fn(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &ch_g.timestamp_hz) !=
            HSA_STATUS_SUCCESS ||
        ch_g.timestamp_hz == 0)
        ch_g.timestamp_hz = 1000000000u;
    st = ch_g.core.hsa_iterate_agents_fn(ch_pools_add_agent, NULL);
    if (st != HSA_STATUS_SUCCESS)
        return ch_hsa_failed(st, "listing memory pools");
    return 0;
}

EXPORT bool OnLoad(void *table, uint64_t runtime_version, uint64_t failed_tool_count,
                   const char *const *failed_tool_names)
{
    rpl_hsa_api_table *t = table;
    int rc;

    /* A runtime that shuts down and initialises again loads the library again. */
    ch_g.done = false;
    rc = ch_config_init(&ch_g.cfg, getenv(RPL_CAPTURE_ENV_DIR), getenv(RPL_CAPTURE_ENV_KERNEL),
                        getenv(RPL_CAPTURE_ENV_DISPATCH));
    if (!rc)
        rc = check_table(t);
    if (rc) {
        ch_say("%s; not capturing", rpl_error_last()->message);
        ch_config_release(&ch_g.cfg);
        return false;
    }
    save_table(&ch_g.core, sizeof(ch_g.core), t->core_);
    save_table(&ch_g.amd, sizeof(ch_g.amd), t->amd_ext_);
    ch_g.have_vmem = rpl_hsa_table_has(
        &t->amd_ext_->version, RPL_HSA_SLOT_END(rpl_hsa_amd_ext_table, hsa_amd_vmem_set_access_fn));
    rc = load_extensions();
    if (rc) {
        ch_say("%s; not capturing", rpl_error_last()->message);
        OnUnload();
        return false;
    }
    /* The C++ runtime of a HIP program demangles for us when it is loaded. */
    *(void **)&ch_g.demangle = dlsym(RTLD_DEFAULT, "__cxa_demangle");
    ch_hook_memory(t);
    ch_hook_code(t);
    ch_hook_queues(t);
    return true;
}

EXPORT void OnUnload(void)
{
    size_t i;

    pthread_mutex_lock(&ch_g.lock);
    if (ch_g.cfg.dir && !ch_g.done)
        ch_say("no snapshot: %llu dispatch(es) matched, dispatch %llu was wanted",
               (unsigned long long)ch_g.cfg.seen, (unsigned long long)ch_g.cfg.index);
    ch_g.done = true;
    ch_config_release(&ch_g.cfg);
    ch_regions_release(&ch_g.regions);
    ch_kernels_release(&ch_g.kernels);
    for (i = 0; i < ch_g.nqueues; i++)
        free(ch_g.queues[i]);
    free(ch_g.queues);
    free(ch_g.pools);
    ch_g.queues = NULL;
    ch_g.nqueues = ch_g.cap_queues = ch_g.npools = 0;
    ch_g.pools = NULL;
    pthread_mutex_unlock(&ch_g.lock);
}
