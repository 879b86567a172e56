/*
 * TEST DOUBLE: the fake HSA runtime described in fake_hsa.h.
 *
 * fake_hsa_runtime.c also plays ROCr, with the same topology (a CPU and a GPU
 * agent; host, kernarg and device pools), but the two are kept apart on
 * purpose: they stand at different boundaries for different code.  This one
 * is the API table that OnLoad hands to librpl_hsa.so (static functions,
 * linked into the capture tests with rpl, state read directly in `fake`); it
 * runs each packet as the intercept queue writes it and plays the capture
 * fixtures' kernels.  fake_hsa_runtime.c is a libhsa-runtime64.so.1 that the
 * replay backend dlopens (exported hsa_* symbols, no rpl), with a ring buffer
 * drained at the doorbell, timestamps, virtual memory on mmap and the replay
 * fixture's kernel.  Where both answer the same query, the answers differ as
 * their tests expect (device name); the functions alike in shape are a few
 * lines each, and sharing them would need wrappers for the exported names.
 * The code the two do share, the ELF symbol lookup, is elf_symbols.c.
 */
#include <stdlib.h>
#include <string.h>

#include "elf_symbols.h"
#include "fake_hsa.h"
#include "rpl/hsa.h"

fake_hsa fake;

typedef struct fake_signal {
    int64_t value;
} fake_signal;

hsa_signal_t fake_signal_new(int64_t value)
{
    fake_signal *s = calloc(1, sizeof(*s));
    hsa_signal_t h;

    s->value = value;
    h.handle = (uint64_t)(uintptr_t)s;
    return h;
}

int64_t fake_signal_value(hsa_signal_t s)
{
    return ((fake_signal *)(uintptr_t)s.handle)->value;
}

static void signal_decrement(uint64_t handle)
{
    if (handle)
        ((fake_signal *)(uintptr_t)handle)->value--;
}

/* ---- core ---- */

static hsa_status_t status_string(hsa_status_t st, const char **s)
{
    *s = "fake HSA error";
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t system_get_info(hsa_system_info_t what, void *value)
{
    switch ((int)what) {
    case HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY:
        *(uint64_t *)value = 1000000000u;
        return HSA_STATUS_SUCCESS;
    case HSA_SYSTEM_INFO_VERSION_MAJOR:
    case HSA_SYSTEM_INFO_VERSION_MINOR:
        *(uint16_t *)value = 1;
        return HSA_STATUS_SUCCESS;
    case HSA_AMD_SYSTEM_INFO_BUILD_VERSION:
        *(const char **)value = "fake-1.0";
        return HSA_STATUS_SUCCESS;
    }
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

static hsa_status_t get_major_extension_table(uint16_t extension, uint16_t major, size_t size,
                                              void *table)
{
    if (extension != HSA_EXTENSION_AMD_LOADER || major != 1 || size > sizeof(fake.loader))
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    memcpy(table, &fake.loader, size);
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t iterate_agents(hsa_status_t (*cb)(hsa_agent_t, void *), void *data)
{
    hsa_agent_t cpu = {FAKE_CPU_AGENT}, gpu = {FAKE_GPU_AGENT};
    hsa_status_t st = cb(cpu, data);

    return st == HSA_STATUS_SUCCESS ? cb(gpu, data) : st;
}

static hsa_status_t agent_get_info(hsa_agent_t agent, hsa_agent_info_t what, void *value)
{
    switch ((int)what) {
    case HSA_AGENT_INFO_DEVICE:
        *(hsa_device_type_t *)value =
            agent.handle == FAKE_GPU_AGENT ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU;
        return HSA_STATUS_SUCCESS;
    case HSA_AGENT_INFO_NAME:
        strcpy(value, agent.handle == FAKE_GPU_AGENT ? "gfx90a" : "fake CPU");
        return HSA_STATUS_SUCCESS;
    case HSA_AMD_AGENT_INFO_PRODUCT_NAME:
        strcpy(value, "Fake Instinct MI210");
        return HSA_STATUS_SUCCESS;
    }
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

static hsa_status_t agent_iterate_isas(hsa_agent_t agent, hsa_status_t (*cb)(hsa_isa_t, void *),
                                       void *data)
{
    hsa_isa_t isa = {42};

    return agent.handle == FAKE_GPU_AGENT ? cb(isa, data) : HSA_STATUS_SUCCESS;
}

static hsa_status_t isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t what, void *value)
{
    if (what == HSA_ISA_INFO_NAME_LENGTH)
        *(uint32_t *)value = (uint32_t)strlen(FAKE_ISA_NAME);
    else if (what == HSA_ISA_INFO_NAME)
        memcpy(value, FAKE_ISA_NAME, strlen(FAKE_ISA_NAME));
    else
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    return HSA_STATUS_SUCCESS;
}

static fake_queue *new_queue(hsa_agent_t agent)
{
    fake_queue *q = calloc(1, sizeof(*q));

    q->agent = agent;
    q->queue.size = 64;
    return q;
}

static hsa_status_t queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                 void (*cb)(hsa_status_t, hsa_queue_t *, void *), void *data,
                                 uint32_t priv, uint32_t group, hsa_queue_t **queue)
{
    fake.plain_queues++;
    *queue = &new_queue(agent)->queue;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t queue_destroy(hsa_queue_t *queue)
{
    free(queue); /* the hsa_queue_t is the first member of fake_queue */
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t region_get_info(hsa_region_t region, hsa_region_info_t what, void *value)
{
    if (what != HSA_REGION_INFO_GLOBAL_FLAGS)
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *(uint32_t *)value = HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t memory_allocate(hsa_region_t region, size_t size, void **ptr)
{
    *ptr = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
    return *ptr ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_OUT_OF_RESOURCES;
}

static hsa_status_t memory_free(void *ptr)
{
    free(ptr);
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t memory_copy(void *dst, const void *src, size_t size)
{
    memcpy(dst, src, size);
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t signal_create(hsa_signal_value_t value, uint32_t n, const hsa_agent_t *agents,
                                  hsa_signal_t *out)
{
    *out = fake_signal_new(value);
    fake.signals_live++;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t signal_destroy(hsa_signal_t s)
{
    free((void *)(uintptr_t)s.handle);
    fake.signals_live--;
    return HSA_STATUS_SUCCESS;
}

static void signal_store(hsa_signal_t s, hsa_signal_value_t v)
{
    ((fake_signal *)(uintptr_t)s.handle)->value = v;
}

/* Packets run as they are written, so a wait only reads the value. */
static hsa_signal_value_t signal_wait(hsa_signal_t s, hsa_signal_condition_t cond,
                                      hsa_signal_value_t compare, uint64_t timeout,
                                      hsa_wait_state_t state)
{
    return fake_signal_value(s);
}

static hsa_status_t executable_freeze(hsa_executable_t exe, const char *options)
{
    fake.frozen = true;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t executable_destroy(hsa_executable_t exe)
{
    fake.frozen = false;
    return HSA_STATUS_SUCCESS;
}

static const fake_symbol *symbol_of(hsa_executable_symbol_t sym)
{
    return sym.handle >= 1 && sym.handle <= fake.nsymbols ? &fake.symbols[sym.handle - 1] : NULL;
}

static hsa_status_t symbol_get_info(hsa_executable_symbol_t sym, hsa_executable_symbol_info_t what,
                                    void *value)
{
    const fake_symbol *s = symbol_of(sym);

    if (!s)
        return HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL;
    switch (what) {
    case HSA_EXECUTABLE_SYMBOL_INFO_TYPE:
        *(hsa_symbol_kind_t *)value = s->kernel ? HSA_SYMBOL_KIND_KERNEL : HSA_SYMBOL_KIND_VARIABLE;
        return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH:
        *(uint32_t *)value = (uint32_t)strlen(s->name);
        return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_NAME:
        memcpy(value, s->name, strlen(s->name)); /* not NUL-terminated, as in ROCr */
        return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
    case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS:
        *(uint64_t *)value = (uint64_t)(uintptr_t)fake.load_base + s->offset;
        return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE:
        *(uint32_t *)value = s->size;
        return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE:
        *(uint32_t *)value = s->kernarg_size;
        return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT:
        *(uint32_t *)value = s->kernarg_align;
        return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE:
        *(uint32_t *)value = s->group;
        return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE:
        *(uint32_t *)value = s->private_size;
        return HSA_STATUS_SUCCESS;
    default:
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
}

static hsa_status_t iterate_agent_symbols(hsa_executable_t exe, hsa_agent_t agent,
                                          hsa_status_t (*cb)(hsa_executable_t, hsa_agent_t,
                                                             hsa_executable_symbol_t, void *),
                                          void *data)
{
    size_t i;

    for (i = 0; agent.handle == FAKE_GPU_AGENT && i < fake.nsymbols; i++) {
        hsa_executable_symbol_t sym = {i + 1};
        hsa_status_t st = cb(exe, agent, sym, data);

        if (st != HSA_STATUS_SUCCESS)
            return st == HSA_STATUS_INFO_BREAK ? HSA_STATUS_SUCCESS : st;
    }
    return HSA_STATUS_SUCCESS;
}

/* ---- AMD extension ---- */

static hsa_status_t pool_get_info(hsa_amd_memory_pool_t pool, hsa_amd_memory_pool_info_t what,
                                  void *value)
{
    switch (what) {
    case HSA_AMD_MEMORY_POOL_INFO_SEGMENT:
        *(hsa_amd_segment_t *)value = HSA_AMD_SEGMENT_GLOBAL;
        return HSA_STATUS_SUCCESS;
    case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS:
        *(uint32_t *)value =
            pool.handle == FAKE_POOL_DEVICE    ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED
            : pool.handle == FAKE_POOL_KERNARG ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT |
                                                     HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED
                                               : HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED;
        return HSA_STATUS_SUCCESS;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED:
        *(bool *)value = true;
        return HSA_STATUS_SUCCESS;
    default:
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
}

static hsa_status_t iterate_pools(hsa_agent_t agent,
                                  hsa_status_t (*cb)(hsa_amd_memory_pool_t, void *), void *data)
{
    hsa_amd_memory_pool_t host = {FAKE_POOL_HOST}, kernarg = {FAKE_POOL_KERNARG},
                          device = {FAKE_POOL_DEVICE};
    hsa_status_t st;

    if (agent.handle == FAKE_GPU_AGENT)
        return cb(device, data);
    st = cb(host, data);
    return st == HSA_STATUS_SUCCESS ? cb(kernarg, data) : st;
}

static hsa_status_t pool_allocate(hsa_amd_memory_pool_t pool, size_t size, uint32_t flags,
                                  void **ptr)
{
    return memory_allocate((hsa_region_t){0}, size, ptr);
}

static hsa_status_t allow_access(uint32_t n, const hsa_agent_t *agents, const uint32_t *flags,
                                 const void *ptr)
{
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t intercept_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                     void (*cb)(hsa_status_t, hsa_queue_t *, void *), void *data,
                                     uint32_t priv, uint32_t group, hsa_queue_t **queue)
{
    fake.intercept_queues++;
    *queue = &new_queue(agent)->queue;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t intercept_register(hsa_queue_t *queue, rpl_hsa_intercept_handler handler,
                                       void *data)
{
    fake_queue *q = (fake_queue *)queue;

    q->handler = handler;
    q->data = data;
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t vmem_ok(void *va, size_t size)
{
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t vmem_map(void *va, size_t size, size_t offset, rpl_hsa_vmem_handle h,
                             uint64_t flags)
{
    return HSA_STATUS_SUCCESS;
}

static hsa_status_t vmem_set_access(void *va, size_t size, const rpl_hsa_access_desc *desc,
                                    size_t n)
{
    return HSA_STATUS_SUCCESS;
}

/* ---- loader extension: one loaded code object per executable ---- */

static hsa_status_t
iterate_loaded(hsa_executable_t exe,
               hsa_status_t (*cb)(hsa_executable_t, hsa_loaded_code_object_t, void *), void *data)
{
    hsa_loaded_code_object_t lco = {1};

    return cb(exe, lco, data);
}

static hsa_status_t loaded_get_info(hsa_loaded_code_object_t lco,
                                    hsa_ven_amd_loader_loaded_code_object_info_t what, void *value)
{
    switch (what) {
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_AGENT:
        ((hsa_agent_t *)value)->handle = FAKE_GPU_AGENT;
        return HSA_STATUS_SUCCESS;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_TYPE:
        *(uint32_t *)value = HSA_VEN_AMD_LOADER_CODE_OBJECT_STORAGE_TYPE_MEMORY;
        return HSA_STATUS_SUCCESS;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_BASE:
        *(uint64_t *)value = (uint64_t)(uintptr_t)fake.code;
        return HSA_STATUS_SUCCESS;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_CODE_OBJECT_STORAGE_MEMORY_SIZE:
        *(uint64_t *)value = fake.code_len;
        return HSA_STATUS_SUCCESS;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_BASE:
        *(uint64_t *)value = (uint64_t)(uintptr_t)fake.load_base;
        return HSA_STATUS_SUCCESS;
    case HSA_VEN_AMD_LOADER_LOADED_CODE_OBJECT_INFO_LOAD_SIZE:
        *(uint64_t *)value = fake.load_size;
        return HSA_STATUS_SUCCESS;
    default:
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
}

/* ---- the packet processor ---- */

static const fake_symbol *kernel_at(uint64_t kernel_object)
{
    size_t i;

    for (i = 0; i < fake.nsymbols; i++)
        if (fake.symbols[i].kernel &&
            (uint64_t)(uintptr_t)fake.load_base + fake.symbols[i].offset == kernel_object)
            return &fake.symbols[i];
    return NULL;
}

/* Host versions of the fixture kernels, one work-item at a time. */
static void run_dispatch(const rpl_aql_dispatch *d)
{
    const fake_symbol *k = kernel_at(d->kernel_object);
    const unsigned char *args = (const unsigned char *)(uintptr_t)d->kernarg_address;
    int *a;
    uint32_t g;

    if (!k)
        return;
    memcpy(&a, args, sizeof(a));
    if (strcmp(k->name, "plain.kd") == 0) {
        for (g = 0; g < d->grid[0]; g++)
            a[g % d->workgroup[0]] += 1;
    } else if (strcmp(k->name, "_Z9incrementPif.kd") == 0) {
        int *counter = (int *)(uintptr_t)fake_hsa_address("counter");
        float s;

        memcpy(&s, args + 8, sizeof(s));
        for (g = 0; g < d->grid[0]; g++) {
            a[g] += (int)s;
            counter[0]++;
        }
    }
}

static void writer(const void *pkts, uint64_t count)
{
    const unsigned char *p = pkts;
    uint64_t i;

    for (i = 0; i < count; i++, p += 64) {
        rpl_aql_dispatch d;
        uint64_t signal;

        if (fake.nlog < FAKE_MAX_LOG)
            memcpy(fake.log[fake.nlog++], p, 64);
        memcpy(&signal, p + 56, sizeof(signal));
        if (rpl_aql_dispatch_decode(&d, p, 64) == 0)
            run_dispatch(&d);
        signal_decrement(signal);
    }
}

void fake_hsa_submit(hsa_queue_t *queue, const void *packets, size_t n)
{
    fake_queue *q = (fake_queue *)queue;

    if (q->handler)
        q->handler(packets, n, q->next_index, q->data, writer);
    else
        writer(packets, n);
    q->next_index += n;
}

void fake_hsa_add_symbol(const char *name, bool kernel, uint64_t offset, uint32_t size,
                         uint32_t kernarg_size, uint32_t group, uint32_t private_size)
{
    fake_symbol *s = &fake.symbols[fake.nsymbols++];

    memset(s, 0, sizeof(*s));
    strncpy(s->name, name, sizeof(s->name) - 1);
    s->kernel = kernel;
    s->offset = offset;
    s->size = size;
    s->kernarg_size = kernarg_size;
    s->kernarg_align = 16;
    s->group = group;
    s->private_size = private_size;
}

static int add_fixture_symbol(const char *name, bool kernel, bool zero_kernarg)
{
    const unsigned char *bytes;
    uint64_t value, size;
    rpl_amd_kd kd;

    if (test_elf_symbol(fake.code, fake.code_len, name, &bytes, &value, &size) != 0)
        return -1;
    if (!kernel) {
        fake_hsa_add_symbol(name, false, value, (uint32_t)size, 0, 0, 0);
        return 0;
    }
    if (!bytes || rpl_amd_kd_parse(&kd, bytes, size) != 0)
        return -1;
    fake_hsa_add_symbol(name, true, value, 0, zero_kernarg ? 0 : kd.kernarg_size,
                        kd.group_segment_fixed_size, kd.private_segment_fixed_size);
    return 0;
}

int fake_hsa_add_fixture_symbols(bool zero_plain_kernarg)
{
    if (add_fixture_symbol("plain.kd", true, zero_plain_kernarg) ||
        add_fixture_symbol("_Z9incrementPif.kd", true, false) ||
        add_fixture_symbol("_Z11lds_scratchPfi.kd", true, false) ||
        add_fixture_symbol("counter", false, false))
        return -1;
    /* Its descriptor is not in the fixture; the packet processor runs nothing for it. */
    fake_hsa_add_symbol("__amd_rocclr_fillBufferAligned.kd", true, 0x7000, 0, 32, 0, 0);
    return 0;
}

uint64_t fake_hsa_address(const char *name)
{
    size_t i;

    for (i = 0; i < fake.nsymbols; i++)
        if (strcmp(fake.symbols[i].name, name) == 0)
            return (uint64_t)(uintptr_t)fake.load_base + fake.symbols[i].offset;
    return 0;
}

void fake_hsa_reset(unsigned amd_major, const unsigned char *code, size_t len)
{
    free(fake.load_base);
    memset(&fake, 0, sizeof(fake));
    fake.code = code;
    fake.code_len = len;
    fake.load_size = 0x8000;
    fake.load_base = aligned_alloc(4096, fake.load_size);
    memset(fake.load_base, 0, fake.load_size);

    fake.root.version.major_id = 3;
    fake.root.version.minor_id = sizeof(fake.root);
    fake.root.core_ = &fake.core;
    fake.root.amd_ext_ = &fake.amd;
    fake.core.version.major_id = 2;
    fake.core.version.minor_id = sizeof(fake.core);
    fake.amd.version.major_id = amd_major;
    fake.amd.version.minor_id = sizeof(fake.amd);

    fake.core.hsa_status_string_fn = status_string;
    fake.core.hsa_system_get_info_fn = system_get_info;
    fake.core.hsa_system_get_major_extension_table_fn = get_major_extension_table;
    fake.core.hsa_iterate_agents_fn = iterate_agents;
    fake.core.hsa_agent_get_info_fn = agent_get_info;
    fake.core.hsa_agent_iterate_isas_fn = agent_iterate_isas;
    fake.core.hsa_isa_get_info_alt_fn = isa_get_info_alt;
    fake.core.hsa_queue_create_fn = queue_create;
    fake.core.hsa_queue_destroy_fn = queue_destroy;
    fake.core.hsa_region_get_info_fn = region_get_info;
    fake.core.hsa_memory_allocate_fn = memory_allocate;
    fake.core.hsa_memory_free_fn = memory_free;
    fake.core.hsa_memory_copy_fn = memory_copy;
    fake.core.hsa_signal_create_fn = signal_create;
    fake.core.hsa_signal_destroy_fn = signal_destroy;
    fake.core.hsa_signal_store_screlease_fn = signal_store;
    fake.core.hsa_signal_wait_scacquire_fn = signal_wait;
    fake.core.hsa_executable_freeze_fn = executable_freeze;
    fake.core.hsa_executable_destroy_fn = executable_destroy;
    fake.core.hsa_executable_symbol_get_info_fn = symbol_get_info;
    fake.core.hsa_executable_iterate_agent_symbols_fn = iterate_agent_symbols;

    fake.amd.hsa_amd_memory_pool_get_info_fn = pool_get_info;
    fake.amd.hsa_amd_agent_iterate_memory_pools_fn = iterate_pools;
    fake.amd.hsa_amd_memory_pool_allocate_fn = pool_allocate;
    fake.amd.hsa_amd_memory_pool_free_fn = memory_free;
    fake.amd.hsa_amd_agents_allow_access_fn = allow_access;
    fake.amd.hsa_amd_queue_intercept_create_fn = intercept_create;
    fake.amd.hsa_amd_queue_intercept_register_fn = intercept_register;
    fake.amd.hsa_amd_vmem_address_free_fn = vmem_ok;
    fake.amd.hsa_amd_vmem_map_fn = vmem_map;
    fake.amd.hsa_amd_vmem_unmap_fn = vmem_ok;
    fake.amd.hsa_amd_vmem_set_access_fn = vmem_set_access;

    fake.loader.hsa_ven_amd_loader_executable_iterate_loaded_code_objects = iterate_loaded;
    fake.loader.hsa_ven_amd_loader_loaded_code_object_get_info = loaded_get_info;
}
