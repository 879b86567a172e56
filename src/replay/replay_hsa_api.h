/*
 * The HSA runtime as the replay backend uses it: libhsa-runtime64.so.1
 * loaded with dlopen (rocm-perf runs where no ROCm is installed), every
 * entry point resolved by name.  $ROCM_PATH/lib is tried before the
 * system's library path.  The virtual memory API (ROCm 6.0+) is optional
 * at load time; the replay needs it, reserve-check too.
 */
#ifndef RPL_REPLAY_HSA_API_H
#define RPL_REPLAY_HSA_API_H

#include <stdbool.h>

#include "hsa_abi.h"

typedef struct rh_api {
    void *lib;
    char *path; /* what was loaded */
    __typeof__(hsa_init) *init;
    __typeof__(hsa_shut_down) *shut_down;
    __typeof__(hsa_status_string) *status_string;
    __typeof__(hsa_system_get_info) *system_get_info;
    __typeof__(hsa_iterate_agents) *iterate_agents;
    __typeof__(hsa_agent_get_info) *agent_get_info;
    __typeof__(hsa_agent_iterate_isas) *agent_iterate_isas;
    __typeof__(hsa_isa_get_info_alt) *isa_get_info_alt;
    __typeof__(hsa_amd_agent_iterate_memory_pools) *iterate_pools;
    __typeof__(hsa_amd_memory_pool_get_info) *pool_get_info;
    __typeof__(hsa_amd_memory_pool_allocate) *pool_allocate;
    __typeof__(hsa_amd_memory_pool_free) *pool_free;
    __typeof__(hsa_amd_agents_allow_access) *allow_access;
    __typeof__(hsa_memory_copy) *memory_copy;
    __typeof__(hsa_queue_create) *queue_create;
    __typeof__(hsa_queue_destroy) *queue_destroy;
    __typeof__(hsa_queue_add_write_index_screlease) *queue_add_write_index;
    __typeof__(hsa_queue_load_read_index_scacquire) *queue_load_read_index;
    __typeof__(hsa_signal_create) *signal_create;
    __typeof__(hsa_signal_destroy) *signal_destroy;
    __typeof__(hsa_signal_store_screlease) *signal_store;
    __typeof__(hsa_signal_wait_scacquire) *signal_wait;
    __typeof__(hsa_amd_profiling_set_profiler_enabled) *profiling_enable;
    __typeof__(hsa_amd_profiling_get_dispatch_time) *dispatch_time;
    __typeof__(hsa_code_object_reader_create_from_memory) *reader_create;
    __typeof__(hsa_code_object_reader_destroy) *reader_destroy;
    __typeof__(hsa_executable_create_alt) *executable_create;
    __typeof__(hsa_executable_load_agent_code_object) *executable_load;
    __typeof__(hsa_executable_freeze) *executable_freeze;
    __typeof__(hsa_executable_destroy) *executable_destroy;
    __typeof__(hsa_executable_get_symbol_by_name) *get_symbol;
    __typeof__(hsa_executable_symbol_get_info) *symbol_get_info;
    /* hsa_ext_amd.h 1.4 (ROCm 6.0): NULL in older runtimes. */
    rpl_hsa_vmem_address_reserve_fn vmem_reserve;
    rpl_hsa_vmem_address_free_fn vmem_free;
    rpl_hsa_vmem_handle_create_fn vmem_handle_create;
    rpl_hsa_vmem_handle_release_fn vmem_handle_release;
    rpl_hsa_vmem_map_fn vmem_map;
    rpl_hsa_vmem_unmap_fn vmem_unmap;
    rpl_hsa_vmem_set_access_fn vmem_set_access;
} rh_api;

/* RPL_EENV when the library or one of its core entry points is missing. */
int rh_api_open(rh_api *api);
/* RPL_EENV naming the runtime when it has no virtual memory API. */
int rh_api_need_vmem(const rh_api *api);
void rh_api_close(rh_api *api);

/* RPL_ERROR "<what>: <runtime's message>" for a failed call. */
int rh_failed(const rh_api *api, hsa_status_t st, const char *what);

#endif
