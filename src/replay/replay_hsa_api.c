/* libhsa-runtime64.so.1 loaded at run time for the replay (replay_hsa_api.h). */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "replay_hsa_api.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"

#define HSA_LIB "libhsa-runtime64.so.1"

/* $ROCM_PATH/lib first, then wherever the dynamic linker finds it. */
static void *open_library(char **path)
{
    const char *root = getenv("ROCM_PATH");
    char *p = NULL;
    void *lib;

    if (root && root[0] && rpl_path_join(&p, root, "lib/" HSA_LIB) == 0) {
        lib = dlopen(p, RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            *path = p;
            return lib;
        }
        free(p);
    }
    rpl_error_clear();
    lib = dlopen(HSA_LIB, RTLD_NOW | RTLD_LOCAL);
    if (lib)
        *path = strdup(HSA_LIB);
    return lib;
}

static void *resolve(rh_api *api, const char *name, bool *missing, const char **first)
{
    void *f = dlsym(api->lib, name);

    if (!f && !*missing) {
        *missing = true;
        *first = name;
    }
    return f;
}

int rh_api_open(rh_api *api)
{
    bool missing = false;
    const char *first = NULL;

    memset(api, 0, sizeof(*api));
    api->lib = open_library(&api->path);
    if (!api->lib)
        return rpl_error_set(RPL_EENV, "cannot load %s (the ROCm HSA runtime): %s", HSA_LIB,
                             dlerror());
#define SYM(field, name) *(void **)&api->field = resolve(api, name, &missing, &first)
    SYM(init, "hsa_init");
    SYM(shut_down, "hsa_shut_down");
    SYM(status_string, "hsa_status_string");
    SYM(system_get_info, "hsa_system_get_info");
    SYM(iterate_agents, "hsa_iterate_agents");
    SYM(agent_get_info, "hsa_agent_get_info");
    SYM(agent_iterate_isas, "hsa_agent_iterate_isas");
    SYM(isa_get_info_alt, "hsa_isa_get_info_alt");
    SYM(iterate_pools, "hsa_amd_agent_iterate_memory_pools");
    SYM(pool_get_info, "hsa_amd_memory_pool_get_info");
    SYM(pool_allocate, "hsa_amd_memory_pool_allocate");
    SYM(pool_free, "hsa_amd_memory_pool_free");
    SYM(allow_access, "hsa_amd_agents_allow_access");
    SYM(memory_copy, "hsa_memory_copy");
    SYM(queue_create, "hsa_queue_create");
    SYM(queue_destroy, "hsa_queue_destroy");
    SYM(queue_add_write_index, "hsa_queue_add_write_index_screlease");
    SYM(queue_load_read_index, "hsa_queue_load_read_index_scacquire");
    SYM(signal_create, "hsa_signal_create");
    SYM(signal_destroy, "hsa_signal_destroy");
    SYM(signal_store, "hsa_signal_store_screlease");
    SYM(signal_wait, "hsa_signal_wait_scacquire");
    SYM(profiling_enable, "hsa_amd_profiling_set_profiler_enabled");
    SYM(dispatch_time, "hsa_amd_profiling_get_dispatch_time");
    SYM(reader_create, "hsa_code_object_reader_create_from_memory");
    SYM(reader_destroy, "hsa_code_object_reader_destroy");
    SYM(executable_create, "hsa_executable_create_alt");
    SYM(executable_load, "hsa_executable_load_agent_code_object");
    SYM(executable_freeze, "hsa_executable_freeze");
    SYM(executable_destroy, "hsa_executable_destroy");
    SYM(get_symbol, "hsa_executable_get_symbol_by_name");
    SYM(symbol_get_info, "hsa_executable_symbol_get_info");
#undef SYM
    if (missing) {
        int rc = rpl_error_set(RPL_EENV, "%s lacks %s", api->path, first);

        rh_api_close(api);
        return rc;
    }
    /* Optional: present from ROCm 6.0 on. */
    *(void **)&api->vmem_reserve = dlsym(api->lib, "hsa_amd_vmem_address_reserve");
    *(void **)&api->vmem_free = dlsym(api->lib, "hsa_amd_vmem_address_free");
    *(void **)&api->vmem_handle_create = dlsym(api->lib, "hsa_amd_vmem_handle_create");
    *(void **)&api->vmem_handle_release = dlsym(api->lib, "hsa_amd_vmem_handle_release");
    *(void **)&api->vmem_map = dlsym(api->lib, "hsa_amd_vmem_map");
    *(void **)&api->vmem_unmap = dlsym(api->lib, "hsa_amd_vmem_unmap");
    *(void **)&api->vmem_set_access = dlsym(api->lib, "hsa_amd_vmem_set_access");
    return 0;
}

int rh_api_need_vmem(const rh_api *api)
{
    if (api->vmem_reserve && api->vmem_free && api->vmem_handle_create &&
        api->vmem_handle_release && api->vmem_map && api->vmem_unmap && api->vmem_set_access)
        return 0;
    return rpl_error_set(RPL_EENV,
                         "%s has no virtual memory API (hsa_amd_vmem_*): ROCm 6.0 or newer is "
                         "needed to replay at the captured addresses",
                         api->path);
}

void rh_api_close(rh_api *api)
{
    if (api->lib)
        dlclose(api->lib);
    free(api->path);
    memset(api, 0, sizeof(*api));
}

int rh_failed(const rh_api *api, hsa_status_t st, const char *what)
{
    const char *msg = NULL;

    if (api->status_string)
        api->status_string(st, &msg);
    return rpl_error_set(RPL_ERROR, "%s: %s", what, msg ? msg : "HSA error");
}
