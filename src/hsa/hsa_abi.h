/*
 * The binary interface of the ROCm HSA runtime (ROCr) that Debian's ROCm
 * 5.2 headers do not give a C program, declared here once for the capture
 * library (src/tools/hsa) and the HSA replay backend (src/replay).
 *
 * Sources (ROCm/ROCR-Runtime, runtime/hsa-runtime/inc/, tags rocm-5.2.0 to
 * rocm-6.2.4 and ROCm/rocm-systems projects/rocr-runtime for ROCm 7):
 *  - hsa_api_trace.h: the API tables a tools library receives in OnLoad
 *    (C++ there: decltype members; here the same members through
 *    __typeof__ of the functions Debian's hsa.h/hsa_ext_amd.h declare).
 *    CoreApiTable has one layout for table majors 1 and 2.  AmdExtTable is
 *    declared in its major-2 layout (ROCm 6.0 and later, which appends new
 *    slots and never moves old ones); ROCm 5.x (major 1) inserted slots in
 *    the middle between 5.5 and 5.6, so no single layout fits it and the
 *    capture refuses it.
 *  - hsa_api_trace.h: hsa_amd_queue_intercept_create/_register and the
 *    packet writer/handler types (tools-only functions, reachable only
 *    through the table).
 *  - hsa_ext_amd.h (interface 1.4, ROCm 6.0): the virtual memory API
 *    hsa_amd_vmem_* and its types.  They have their own names here
 *    (rpl_hsa_*) so that this header also builds against ROCm 6 headers,
 *    which declare the originals.
 *  - hsa.h (ROCm 6.0): HSA_AMD_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED.
 */
#ifndef RPL_HSA_ABI_H
#define RPL_HSA_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <hsa/hsa_ven_amd_loader.h>

/* The table major that has the AmdExtTable layout below (ROCm 6.0+). */
#define RPL_HSA_AMD_EXT_MAJOR 2
/* Core table majors with the CoreApiTable layout below (ROCm 5.x and 6.0+). */
#define RPL_HSA_CORE_MAJOR_MIN 1
#define RPL_HSA_CORE_MAJOR_MAX 2

/* hsa.h (ROCm 6.0+): whether hsa_amd_vmem_* work (KFD and libdrm support them). */
#define RPL_HSA_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED ((hsa_system_info_t)0x205)

/* hsa.h (ROCm 6.0+): hsa_access_permission_t's "no access", for hsa_amd_vmem_set_access. */
#define RPL_HSA_ACCESS_PERMISSION_NONE ((hsa_access_permission_t)0)

/* ApiTableVersion: first member of every table; minor_id is the table's size in bytes. */
typedef struct rpl_hsa_table_version {
    uint32_t major_id;
    uint32_t minor_id;
    uint32_t step_id;
    uint32_t reserved;
} rpl_hsa_table_version;

/* A slot this project never calls, kept for the layout. */
typedef void (*rpl_hsa_unused_fn)(void);

/* Queue interception (hsa_api_trace.h). */
typedef void (*rpl_hsa_packet_writer)(const void *pkts, uint64_t pkt_count);
typedef void (*rpl_hsa_intercept_handler)(const void *pkts, uint64_t pkt_count,
                                          uint64_t user_pkt_index, void *data,
                                          rpl_hsa_packet_writer writer);
typedef hsa_status_t (*rpl_hsa_queue_intercept_register_fn)(hsa_queue_t *queue,
                                                            rpl_hsa_intercept_handler callback,
                                                            void *user_data);
typedef hsa_status_t (*rpl_hsa_queue_intercept_create_fn)(
    hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
    void (*callback)(hsa_status_t status, hsa_queue_t *source, void *data), void *data,
    uint32_t private_segment_size, uint32_t group_segment_size, hsa_queue_t **queue);

/* Virtual memory (hsa_ext_amd.h, interface 1.4). */
typedef struct rpl_hsa_vmem_handle {
    uint64_t handle;
} rpl_hsa_vmem_handle; /* hsa_amd_vmem_alloc_handle_t */

typedef enum rpl_hsa_memory_type {
    RPL_HSA_MEMORY_TYPE_NONE = 0, /* MEMORY_TYPE_NONE */
    RPL_HSA_MEMORY_TYPE_PINNED = 1
} rpl_hsa_memory_type; /* hsa_amd_memory_type_t */

typedef struct rpl_hsa_access_desc {
    hsa_access_permission_t permissions;
    hsa_agent_t agent_handle;
} rpl_hsa_access_desc; /* hsa_amd_memory_access_desc_t */

typedef hsa_status_t (*rpl_hsa_vmem_address_reserve_fn)(void **va, size_t size, uint64_t address,
                                                        uint64_t flags);
typedef hsa_status_t (*rpl_hsa_vmem_address_free_fn)(void *va, size_t size);
typedef hsa_status_t (*rpl_hsa_vmem_handle_create_fn)(hsa_amd_memory_pool_t pool, size_t size,
                                                      rpl_hsa_memory_type type, uint64_t flags,
                                                      rpl_hsa_vmem_handle *handle);
typedef hsa_status_t (*rpl_hsa_vmem_handle_release_fn)(rpl_hsa_vmem_handle handle);
typedef hsa_status_t (*rpl_hsa_vmem_map_fn)(void *va, size_t size, size_t in_offset,
                                            rpl_hsa_vmem_handle handle, uint64_t flags);
typedef hsa_status_t (*rpl_hsa_vmem_unmap_fn)(void *va, size_t size);
typedef hsa_status_t (*rpl_hsa_vmem_set_access_fn)(void *va, size_t size,
                                                   const rpl_hsa_access_desc *desc,
                                                   size_t desc_cnt);

/* CoreApiTable (hsa_api_trace.h). */
typedef struct rpl_hsa_core_table {
    rpl_hsa_table_version version;
    __typeof__(hsa_init) *hsa_init_fn;
    __typeof__(hsa_shut_down) *hsa_shut_down_fn;
    __typeof__(hsa_system_get_info) *hsa_system_get_info_fn;
    __typeof__(hsa_system_extension_supported) *hsa_system_extension_supported_fn;
    __typeof__(hsa_system_get_extension_table) *hsa_system_get_extension_table_fn;
    __typeof__(hsa_iterate_agents) *hsa_iterate_agents_fn;
    __typeof__(hsa_agent_get_info) *hsa_agent_get_info_fn;
    __typeof__(hsa_queue_create) *hsa_queue_create_fn;
    __typeof__(hsa_soft_queue_create) *hsa_soft_queue_create_fn;
    __typeof__(hsa_queue_destroy) *hsa_queue_destroy_fn;
    __typeof__(hsa_queue_inactivate) *hsa_queue_inactivate_fn;
    __typeof__(hsa_queue_load_read_index_scacquire) *hsa_queue_load_read_index_scacquire_fn;
    __typeof__(hsa_queue_load_read_index_relaxed) *hsa_queue_load_read_index_relaxed_fn;
    __typeof__(hsa_queue_load_write_index_scacquire) *hsa_queue_load_write_index_scacquire_fn;
    __typeof__(hsa_queue_load_write_index_relaxed) *hsa_queue_load_write_index_relaxed_fn;
    __typeof__(hsa_queue_store_write_index_relaxed) *hsa_queue_store_write_index_relaxed_fn;
    __typeof__(hsa_queue_store_write_index_screlease) *hsa_queue_store_write_index_screlease_fn;
    __typeof__(hsa_queue_cas_write_index_scacq_screl) *hsa_queue_cas_write_index_scacq_screl_fn;
    __typeof__(hsa_queue_cas_write_index_scacquire) *hsa_queue_cas_write_index_scacquire_fn;
    __typeof__(hsa_queue_cas_write_index_relaxed) *hsa_queue_cas_write_index_relaxed_fn;
    __typeof__(hsa_queue_cas_write_index_screlease) *hsa_queue_cas_write_index_screlease_fn;
    __typeof__(hsa_queue_add_write_index_scacq_screl) *hsa_queue_add_write_index_scacq_screl_fn;
    __typeof__(hsa_queue_add_write_index_scacquire) *hsa_queue_add_write_index_scacquire_fn;
    __typeof__(hsa_queue_add_write_index_relaxed) *hsa_queue_add_write_index_relaxed_fn;
    __typeof__(hsa_queue_add_write_index_screlease) *hsa_queue_add_write_index_screlease_fn;
    __typeof__(hsa_queue_store_read_index_relaxed) *hsa_queue_store_read_index_relaxed_fn;
    __typeof__(hsa_queue_store_read_index_screlease) *hsa_queue_store_read_index_screlease_fn;
    __typeof__(hsa_agent_iterate_regions) *hsa_agent_iterate_regions_fn;
    __typeof__(hsa_region_get_info) *hsa_region_get_info_fn;
    __typeof__(hsa_agent_get_exception_policies) *hsa_agent_get_exception_policies_fn;
    __typeof__(hsa_agent_extension_supported) *hsa_agent_extension_supported_fn;
    __typeof__(hsa_memory_register) *hsa_memory_register_fn;
    __typeof__(hsa_memory_deregister) *hsa_memory_deregister_fn;
    __typeof__(hsa_memory_allocate) *hsa_memory_allocate_fn;
    __typeof__(hsa_memory_free) *hsa_memory_free_fn;
    __typeof__(hsa_memory_copy) *hsa_memory_copy_fn;
    __typeof__(hsa_memory_assign_agent) *hsa_memory_assign_agent_fn;
    __typeof__(hsa_signal_create) *hsa_signal_create_fn;
    __typeof__(hsa_signal_destroy) *hsa_signal_destroy_fn;
    __typeof__(hsa_signal_load_relaxed) *hsa_signal_load_relaxed_fn;
    __typeof__(hsa_signal_load_scacquire) *hsa_signal_load_scacquire_fn;
    __typeof__(hsa_signal_store_relaxed) *hsa_signal_store_relaxed_fn;
    __typeof__(hsa_signal_store_screlease) *hsa_signal_store_screlease_fn;
    __typeof__(hsa_signal_wait_relaxed) *hsa_signal_wait_relaxed_fn;
    __typeof__(hsa_signal_wait_scacquire) *hsa_signal_wait_scacquire_fn;
    __typeof__(hsa_signal_and_relaxed) *hsa_signal_and_relaxed_fn;
    __typeof__(hsa_signal_and_scacquire) *hsa_signal_and_scacquire_fn;
    __typeof__(hsa_signal_and_screlease) *hsa_signal_and_screlease_fn;
    __typeof__(hsa_signal_and_scacq_screl) *hsa_signal_and_scacq_screl_fn;
    __typeof__(hsa_signal_or_relaxed) *hsa_signal_or_relaxed_fn;
    __typeof__(hsa_signal_or_scacquire) *hsa_signal_or_scacquire_fn;
    __typeof__(hsa_signal_or_screlease) *hsa_signal_or_screlease_fn;
    __typeof__(hsa_signal_or_scacq_screl) *hsa_signal_or_scacq_screl_fn;
    __typeof__(hsa_signal_xor_relaxed) *hsa_signal_xor_relaxed_fn;
    __typeof__(hsa_signal_xor_scacquire) *hsa_signal_xor_scacquire_fn;
    __typeof__(hsa_signal_xor_screlease) *hsa_signal_xor_screlease_fn;
    __typeof__(hsa_signal_xor_scacq_screl) *hsa_signal_xor_scacq_screl_fn;
    __typeof__(hsa_signal_exchange_relaxed) *hsa_signal_exchange_relaxed_fn;
    __typeof__(hsa_signal_exchange_scacquire) *hsa_signal_exchange_scacquire_fn;
    __typeof__(hsa_signal_exchange_screlease) *hsa_signal_exchange_screlease_fn;
    __typeof__(hsa_signal_exchange_scacq_screl) *hsa_signal_exchange_scacq_screl_fn;
    __typeof__(hsa_signal_add_relaxed) *hsa_signal_add_relaxed_fn;
    __typeof__(hsa_signal_add_scacquire) *hsa_signal_add_scacquire_fn;
    __typeof__(hsa_signal_add_screlease) *hsa_signal_add_screlease_fn;
    __typeof__(hsa_signal_add_scacq_screl) *hsa_signal_add_scacq_screl_fn;
    __typeof__(hsa_signal_subtract_relaxed) *hsa_signal_subtract_relaxed_fn;
    __typeof__(hsa_signal_subtract_scacquire) *hsa_signal_subtract_scacquire_fn;
    __typeof__(hsa_signal_subtract_screlease) *hsa_signal_subtract_screlease_fn;
    __typeof__(hsa_signal_subtract_scacq_screl) *hsa_signal_subtract_scacq_screl_fn;
    __typeof__(hsa_signal_cas_relaxed) *hsa_signal_cas_relaxed_fn;
    __typeof__(hsa_signal_cas_scacquire) *hsa_signal_cas_scacquire_fn;
    __typeof__(hsa_signal_cas_screlease) *hsa_signal_cas_screlease_fn;
    __typeof__(hsa_signal_cas_scacq_screl) *hsa_signal_cas_scacq_screl_fn;
    __typeof__(hsa_isa_from_name) *hsa_isa_from_name_fn;
    __typeof__(hsa_isa_get_info) *hsa_isa_get_info_fn;
    __typeof__(hsa_isa_compatible) *hsa_isa_compatible_fn;
    __typeof__(hsa_code_object_serialize) *hsa_code_object_serialize_fn;
    __typeof__(hsa_code_object_deserialize) *hsa_code_object_deserialize_fn;
    __typeof__(hsa_code_object_destroy) *hsa_code_object_destroy_fn;
    __typeof__(hsa_code_object_get_info) *hsa_code_object_get_info_fn;
    __typeof__(hsa_code_object_get_symbol) *hsa_code_object_get_symbol_fn;
    __typeof__(hsa_code_symbol_get_info) *hsa_code_symbol_get_info_fn;
    __typeof__(hsa_code_object_iterate_symbols) *hsa_code_object_iterate_symbols_fn;
    __typeof__(hsa_executable_create) *hsa_executable_create_fn;
    __typeof__(hsa_executable_destroy) *hsa_executable_destroy_fn;
    __typeof__(hsa_executable_load_code_object) *hsa_executable_load_code_object_fn;
    __typeof__(hsa_executable_freeze) *hsa_executable_freeze_fn;
    __typeof__(hsa_executable_get_info) *hsa_executable_get_info_fn;
    __typeof__(hsa_executable_global_variable_define) *hsa_executable_global_variable_define_fn;
    __typeof__(hsa_executable_agent_global_variable_define)
        *hsa_executable_agent_global_variable_define_fn;
    __typeof__(hsa_executable_readonly_variable_define) *hsa_executable_readonly_variable_define_fn;
    __typeof__(hsa_executable_validate) *hsa_executable_validate_fn;
    __typeof__(hsa_executable_get_symbol) *hsa_executable_get_symbol_fn;
    __typeof__(hsa_executable_symbol_get_info) *hsa_executable_symbol_get_info_fn;
    __typeof__(hsa_executable_iterate_symbols) *hsa_executable_iterate_symbols_fn;
    __typeof__(hsa_status_string) *hsa_status_string_fn;
    __typeof__(hsa_extension_get_name) *hsa_extension_get_name_fn;
    __typeof__(hsa_system_major_extension_supported) *hsa_system_major_extension_supported_fn;
    __typeof__(hsa_system_get_major_extension_table) *hsa_system_get_major_extension_table_fn;
    __typeof__(hsa_agent_major_extension_supported) *hsa_agent_major_extension_supported_fn;
    __typeof__(hsa_cache_get_info) *hsa_cache_get_info_fn;
    __typeof__(hsa_agent_iterate_caches) *hsa_agent_iterate_caches_fn;
    __typeof__(hsa_signal_silent_store_relaxed) *hsa_signal_silent_store_relaxed_fn;
    __typeof__(hsa_signal_silent_store_screlease) *hsa_signal_silent_store_screlease_fn;
    __typeof__(hsa_signal_group_create) *hsa_signal_group_create_fn;
    __typeof__(hsa_signal_group_destroy) *hsa_signal_group_destroy_fn;
    __typeof__(hsa_signal_group_wait_any_scacquire) *hsa_signal_group_wait_any_scacquire_fn;
    __typeof__(hsa_signal_group_wait_any_relaxed) *hsa_signal_group_wait_any_relaxed_fn;
    __typeof__(hsa_agent_iterate_isas) *hsa_agent_iterate_isas_fn;
    __typeof__(hsa_isa_get_info_alt) *hsa_isa_get_info_alt_fn;
    __typeof__(hsa_isa_get_exception_policies) *hsa_isa_get_exception_policies_fn;
    __typeof__(hsa_isa_get_round_method) *hsa_isa_get_round_method_fn;
    __typeof__(hsa_wavefront_get_info) *hsa_wavefront_get_info_fn;
    __typeof__(hsa_isa_iterate_wavefronts) *hsa_isa_iterate_wavefronts_fn;
    __typeof__(hsa_code_object_get_symbol_from_name) *hsa_code_object_get_symbol_from_name_fn;
    __typeof__(hsa_code_object_reader_create_from_file) *hsa_code_object_reader_create_from_file_fn;
    __typeof__(hsa_code_object_reader_create_from_memory)
        *hsa_code_object_reader_create_from_memory_fn;
    __typeof__(hsa_code_object_reader_destroy) *hsa_code_object_reader_destroy_fn;
    __typeof__(hsa_executable_create_alt) *hsa_executable_create_alt_fn;
    __typeof__(hsa_executable_load_program_code_object) *hsa_executable_load_program_code_object_fn;
    __typeof__(hsa_executable_load_agent_code_object) *hsa_executable_load_agent_code_object_fn;
    __typeof__(hsa_executable_validate_alt) *hsa_executable_validate_alt_fn;
    __typeof__(hsa_executable_get_symbol_by_name) *hsa_executable_get_symbol_by_name_fn;
    __typeof__(hsa_executable_iterate_agent_symbols) *hsa_executable_iterate_agent_symbols_fn;
    __typeof__(hsa_executable_iterate_program_symbols) *hsa_executable_iterate_program_symbols_fn;

    /* AmdExtTable, major 2 (hsa_api_trace.h, rocm-6.0.0; later releases append slots). */
} rpl_hsa_core_table;

typedef struct rpl_hsa_amd_ext_table {
    rpl_hsa_table_version version;
    __typeof__(hsa_amd_coherency_get_type) *hsa_amd_coherency_get_type_fn;
    __typeof__(hsa_amd_coherency_set_type) *hsa_amd_coherency_set_type_fn;
    __typeof__(hsa_amd_profiling_set_profiler_enabled) *hsa_amd_profiling_set_profiler_enabled_fn;
    __typeof__(hsa_amd_profiling_async_copy_enable) *hsa_amd_profiling_async_copy_enable_fn;
    __typeof__(hsa_amd_profiling_get_dispatch_time) *hsa_amd_profiling_get_dispatch_time_fn;
    __typeof__(hsa_amd_profiling_get_async_copy_time) *hsa_amd_profiling_get_async_copy_time_fn;
    __typeof__(hsa_amd_profiling_convert_tick_to_system_domain)
        *hsa_amd_profiling_convert_tick_to_system_domain_fn;
    __typeof__(hsa_amd_signal_async_handler) *hsa_amd_signal_async_handler_fn;
    __typeof__(hsa_amd_async_function) *hsa_amd_async_function_fn;
    __typeof__(hsa_amd_signal_wait_any) *hsa_amd_signal_wait_any_fn;
    __typeof__(hsa_amd_queue_cu_set_mask) *hsa_amd_queue_cu_set_mask_fn;
    __typeof__(hsa_amd_memory_pool_get_info) *hsa_amd_memory_pool_get_info_fn;
    __typeof__(hsa_amd_agent_iterate_memory_pools) *hsa_amd_agent_iterate_memory_pools_fn;
    __typeof__(hsa_amd_memory_pool_allocate) *hsa_amd_memory_pool_allocate_fn;
    __typeof__(hsa_amd_memory_pool_free) *hsa_amd_memory_pool_free_fn;
    __typeof__(hsa_amd_memory_async_copy) *hsa_amd_memory_async_copy_fn;
    rpl_hsa_unused_fn hsa_amd_memory_async_copy_on_engine_fn;
    rpl_hsa_unused_fn hsa_amd_memory_copy_engine_status_fn;
    __typeof__(hsa_amd_agent_memory_pool_get_info) *hsa_amd_agent_memory_pool_get_info_fn;
    __typeof__(hsa_amd_agents_allow_access) *hsa_amd_agents_allow_access_fn;
    __typeof__(hsa_amd_memory_pool_can_migrate) *hsa_amd_memory_pool_can_migrate_fn;
    __typeof__(hsa_amd_memory_migrate) *hsa_amd_memory_migrate_fn;
    __typeof__(hsa_amd_memory_lock) *hsa_amd_memory_lock_fn;
    __typeof__(hsa_amd_memory_unlock) *hsa_amd_memory_unlock_fn;
    __typeof__(hsa_amd_memory_fill) *hsa_amd_memory_fill_fn;
    __typeof__(hsa_amd_interop_map_buffer) *hsa_amd_interop_map_buffer_fn;
    __typeof__(hsa_amd_interop_unmap_buffer) *hsa_amd_interop_unmap_buffer_fn;
    __typeof__(hsa_amd_image_create) *hsa_amd_image_create_fn;
    __typeof__(hsa_amd_pointer_info) *hsa_amd_pointer_info_fn;
    __typeof__(hsa_amd_pointer_info_set_userdata) *hsa_amd_pointer_info_set_userdata_fn;
    __typeof__(hsa_amd_ipc_memory_create) *hsa_amd_ipc_memory_create_fn;
    __typeof__(hsa_amd_ipc_memory_attach) *hsa_amd_ipc_memory_attach_fn;
    __typeof__(hsa_amd_ipc_memory_detach) *hsa_amd_ipc_memory_detach_fn;
    __typeof__(hsa_amd_signal_create) *hsa_amd_signal_create_fn;
    __typeof__(hsa_amd_ipc_signal_create) *hsa_amd_ipc_signal_create_fn;
    __typeof__(hsa_amd_ipc_signal_attach) *hsa_amd_ipc_signal_attach_fn;
    __typeof__(hsa_amd_register_system_event_handler) *hsa_amd_register_system_event_handler_fn;
    rpl_hsa_queue_intercept_create_fn hsa_amd_queue_intercept_create_fn;
    rpl_hsa_queue_intercept_register_fn hsa_amd_queue_intercept_register_fn;
    __typeof__(hsa_amd_queue_set_priority) *hsa_amd_queue_set_priority_fn;
    __typeof__(hsa_amd_memory_async_copy_rect) *hsa_amd_memory_async_copy_rect_fn;
    rpl_hsa_unused_fn hsa_amd_runtime_queue_create_register_fn;
    __typeof__(hsa_amd_memory_lock_to_pool) *hsa_amd_memory_lock_to_pool_fn;
    __typeof__(hsa_amd_register_deallocation_callback) *hsa_amd_register_deallocation_callback_fn;
    __typeof__(hsa_amd_deregister_deallocation_callback)
        *hsa_amd_deregister_deallocation_callback_fn;
    __typeof__(hsa_amd_signal_value_pointer) *hsa_amd_signal_value_pointer_fn;
    __typeof__(hsa_amd_svm_attributes_set) *hsa_amd_svm_attributes_set_fn;
    __typeof__(hsa_amd_svm_attributes_get) *hsa_amd_svm_attributes_get_fn;
    __typeof__(hsa_amd_svm_prefetch_async) *hsa_amd_svm_prefetch_async_fn;
    rpl_hsa_unused_fn hsa_amd_spm_acquire_fn;
    rpl_hsa_unused_fn hsa_amd_spm_release_fn;
    rpl_hsa_unused_fn hsa_amd_spm_set_dest_buffer_fn;
    __typeof__(hsa_amd_queue_cu_get_mask) *hsa_amd_queue_cu_get_mask_fn;
    rpl_hsa_unused_fn hsa_amd_portable_export_dmabuf_fn;
    rpl_hsa_unused_fn hsa_amd_portable_close_dmabuf_fn;
    rpl_hsa_vmem_address_reserve_fn hsa_amd_vmem_address_reserve_fn;
    rpl_hsa_vmem_address_free_fn hsa_amd_vmem_address_free_fn;
    rpl_hsa_vmem_handle_create_fn hsa_amd_vmem_handle_create_fn;
    rpl_hsa_vmem_handle_release_fn hsa_amd_vmem_handle_release_fn;
    rpl_hsa_vmem_map_fn hsa_amd_vmem_map_fn;
    rpl_hsa_vmem_unmap_fn hsa_amd_vmem_unmap_fn;
    rpl_hsa_vmem_set_access_fn hsa_amd_vmem_set_access_fn;
    rpl_hsa_unused_fn hsa_amd_vmem_get_access_fn;
    rpl_hsa_unused_fn hsa_amd_vmem_export_shareable_handle_fn;
    rpl_hsa_unused_fn hsa_amd_vmem_import_shareable_handle_fn;
    rpl_hsa_unused_fn hsa_amd_vmem_retain_alloc_handle_fn;
    rpl_hsa_unused_fn hsa_amd_vmem_get_alloc_properties_from_handle_fn;
} rpl_hsa_amd_ext_table;

/* HsaApiTable (hsa_api_trace.h): ROCm 6.1+ append tools_ and pc_sampling_ext_. */
typedef struct rpl_hsa_api_table {
    rpl_hsa_table_version version;
    rpl_hsa_core_table *core_;
    rpl_hsa_amd_ext_table *amd_ext_;
    void *finalizer_ext_;
    void *image_ext_;
} rpl_hsa_api_table;

/*
 * Slot numbers (pointer-sized slots after the 16-byte version) counted in
 * ROCR rocm-6.0.0 hsa_api_trace.h, so that an edit of the lists above that
 * moves a slot cannot go unnoticed.
 */
#define RPL_HSA_SLOT(n) (sizeof(rpl_hsa_table_version) + (n) * sizeof(void *))
_Static_assert(offsetof(rpl_hsa_core_table, hsa_queue_create_fn) == RPL_HSA_SLOT(7), "core slot");
_Static_assert(offsetof(rpl_hsa_core_table, hsa_memory_allocate_fn) == RPL_HSA_SLOT(33),
               "core slot");
_Static_assert(offsetof(rpl_hsa_core_table, hsa_executable_freeze_fn) == RPL_HSA_SLOT(86),
               "core slot");
_Static_assert(sizeof(rpl_hsa_core_table) == RPL_HSA_SLOT(125), "core table size");
_Static_assert(offsetof(rpl_hsa_amd_ext_table, hsa_amd_memory_pool_allocate_fn) == RPL_HSA_SLOT(13),
               "amd_ext slot");
_Static_assert(offsetof(rpl_hsa_amd_ext_table, hsa_amd_queue_intercept_create_fn) ==
                   RPL_HSA_SLOT(37),
               "amd_ext slot");
_Static_assert(offsetof(rpl_hsa_amd_ext_table, hsa_amd_vmem_address_reserve_fn) == RPL_HSA_SLOT(55),
               "amd_ext slot");
_Static_assert(sizeof(rpl_hsa_amd_ext_table) == RPL_HSA_SLOT(67), "amd_ext table size (6.0)");

/* True when a table of `version` has the slot that ends at byte `end` (offsetof + size). */
static inline bool rpl_hsa_table_has(const rpl_hsa_table_version *version, size_t end)
{
    return version->minor_id >= end;
}

#define RPL_HSA_SLOT_END(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))

#endif
