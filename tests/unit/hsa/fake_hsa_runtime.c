/*
 * TEST DOUBLE: a fake libhsa-runtime64.so.1 (see fake_hsa_runtime.h).
 *
 * Kept apart from fake_hsa.c on purpose, though both play ROCr with the same
 * topology: this one is a whole runtime library for the replay backend to
 * dlopen (exported hsa_* symbols, no rpl linked in, what it saw in
 * fake_hsa_stats for dlsym), with a ring buffer drained at the doorbell,
 * profiling timestamps, reservations and maps on mmap, the queries only
 * replay makes (queue minimum size, allocation granule, virtual-memory
 * support) and the replay fixture's kernel.  fake_hsa.c is the API table
 * OnLoad hands to the capture library, linked into its tests, running
 * packets as they are written.  See fake_hsa.c's header for what they share
 * (elf_symbols.c) and why the rest is not.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include "elf_symbols.h"
#include "fake_hsa_runtime.h"
#include "hsa_abi.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT fake_hsa_stats fake_hsa_runtime_stats;
/* Debian's hsa.h declares these two without "(void)". */
EXPORT hsa_status_t hsa_init(void);
EXPORT hsa_status_t hsa_shut_down(void);
#define S fake_hsa_runtime_stats

/* The vmem types: the headers' own where they declare them (ROCm 6), else hsa_abi.h's. */
#if HSA_AMD_INTERFACE_VERSION_MINOR >= 4
typedef hsa_amd_vmem_alloc_handle_t vmem_handle;
typedef hsa_amd_memory_type_t vmem_type;
typedef hsa_amd_memory_access_desc_t vmem_access;
#else
typedef rpl_hsa_vmem_handle vmem_handle;
typedef rpl_hsa_memory_type vmem_type;
typedef rpl_hsa_access_desc vmem_access;
EXPORT hsa_status_t hsa_amd_vmem_address_reserve(void **va, size_t size, uint64_t address,
                                                 uint64_t flags);
EXPORT hsa_status_t hsa_amd_vmem_address_free(void *va, size_t size);
EXPORT hsa_status_t hsa_amd_vmem_handle_create(hsa_amd_memory_pool_t pool, size_t size,
                                               vmem_type type, uint64_t flags, vmem_handle *h);
EXPORT hsa_status_t hsa_amd_vmem_handle_release(vmem_handle h);
EXPORT hsa_status_t hsa_amd_vmem_map(void *va, size_t size, size_t offset, vmem_handle h,
                                     uint64_t flags);
EXPORT hsa_status_t hsa_amd_vmem_unmap(void *va, size_t size);
EXPORT hsa_status_t hsa_amd_vmem_set_access(void *va, size_t size, const vmem_access *desc,
                                            size_t n);
#endif

enum { CPU = 1, GPU = 2, POOL_DEVICE = 0x200, POOL_HOST = 0x100, POOL_KERNARG = 0x101 };

typedef struct fsignal {
    int64_t value;
    struct fqueue *doorbell_of; /* a doorbell rings the packet processor */
    uint64_t start, end;        /* timestamps of the dispatch that completed it */
} fsignal;

typedef struct fqueue {
    hsa_queue_t q; /* first: the hsa_queue_t* handed out is the fqueue* */
    uint64_t read, write;
    fsignal doorbell;
    int profiling;
} fqueue;

typedef struct fexe {
    const unsigned char *code;
    size_t len;
    unsigned char *load; /* the "loaded segments" */
    char symbols[8][64]; /* looked up, index = handle - 1 */
    size_t nsymbols;
} fexe;

#define DEFAULT_ISA "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"
static const char *isa_name = DEFAULT_ISA;
static uint64_t clock_ticks = 1000;

EXPORT hsa_status_t hsa_status_string(hsa_status_t st, const char **s)
{
    *s = st == HSA_STATUS_ERROR_OUT_OF_RESOURCES ? "fake: out of resources" : "fake: error";
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_init(void)
{
    const char *isa = getenv("FAKE_HSA_ISA"), *probe = getenv("FAKE_HSA_PROBE");

    memset(&S, 0, sizeof(S));
    isa_name = isa && *isa ? isa : DEFAULT_ISA;
    if (probe && *probe) {
        void *want = (void *)(uintptr_t)strtoull(probe, NULL, 16);
        void *got =
            mmap(want, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

        S.placeholder_seen = got != want;
        if (got != MAP_FAILED)
            munmap(got, 4096);
    }
    S.initialized = true;
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_shut_down(void)
{
    S.shut_down = true;
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_system_get_info(hsa_system_info_t what, void *value)
{
    if (what == HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY) {
        *(uint64_t *)value = FAKE_RT_TICK_HZ;
        return HSA_STATUS_SUCCESS;
    }
    if (what == RPL_HSA_SYSTEM_INFO_VIRTUAL_MEM_API_SUPPORTED) {
        *(bool *)value = true;
        return HSA_STATUS_SUCCESS;
    }
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

EXPORT hsa_status_t hsa_iterate_agents(hsa_status_t (*cb)(hsa_agent_t, void *), void *data)
{
    hsa_agent_t cpu = {CPU}, gpu = {GPU};
    hsa_status_t st = cb(cpu, data);

    return st == HSA_STATUS_SUCCESS ? cb(gpu, data) : st;
}

EXPORT hsa_status_t hsa_agent_get_info(hsa_agent_t agent, hsa_agent_info_t what, void *value)
{
    switch ((int)what) {
    case HSA_AGENT_INFO_DEVICE:
        *(hsa_device_type_t *)value =
            agent.handle == GPU ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU;
        return HSA_STATUS_SUCCESS;
    case HSA_AGENT_INFO_NAME:
        strcpy(value, agent.handle == GPU ? "gfx90a" : "cpu");
        return HSA_STATUS_SUCCESS;
    case HSA_AMD_AGENT_INFO_PRODUCT_NAME:
        strcpy(value, "Fake MI210");
        return HSA_STATUS_SUCCESS;
    case HSA_AGENT_INFO_QUEUE_MIN_SIZE:
        *(uint32_t *)value = 64;
        return HSA_STATUS_SUCCESS;
    }
    return HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

EXPORT hsa_status_t hsa_agent_iterate_isas(hsa_agent_t agent, hsa_status_t (*cb)(hsa_isa_t, void *),
                                           void *data)
{
    hsa_isa_t isa = {7};

    return agent.handle == GPU ? cb(isa, data) : HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_isa_get_info_alt(hsa_isa_t isa, hsa_isa_info_t what, void *value)
{
    if (what == HSA_ISA_INFO_NAME_LENGTH)
        *(uint32_t *)value = (uint32_t)strlen(isa_name);
    else if (what == HSA_ISA_INFO_NAME)
        memcpy(value, isa_name, strlen(isa_name));
    else
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_amd_agent_iterate_memory_pools(
    hsa_agent_t agent, hsa_status_t (*cb)(hsa_amd_memory_pool_t, void *), void *data)
{
    hsa_amd_memory_pool_t dev = {POOL_DEVICE}, host = {POOL_HOST}, ka = {POOL_KERNARG};
    hsa_status_t st;

    if (agent.handle == GPU)
        return cb(dev, data);
    st = cb(host, data);
    return st == HSA_STATUS_SUCCESS ? cb(ka, data) : st;
}

EXPORT hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t pool,
                                                 hsa_amd_memory_pool_info_t what, void *value)
{
    switch (what) {
    case HSA_AMD_MEMORY_POOL_INFO_SEGMENT:
        *(hsa_amd_segment_t *)value = HSA_AMD_SEGMENT_GLOBAL;
        return HSA_STATUS_SUCCESS;
    case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS:
        *(uint32_t *)value =
            pool.handle == POOL_DEVICE    ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED
            : pool.handle == POOL_KERNARG ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT |
                                                HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED
                                          : HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED;
        return HSA_STATUS_SUCCESS;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED:
        *(bool *)value = true;
        return HSA_STATUS_SUCCESS;
    case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE:
        *(size_t *)value = 4096;
        return HSA_STATUS_SUCCESS;
    default:
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
}

EXPORT hsa_status_t hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t pool, size_t size,
                                                 uint32_t flags, void **ptr)
{
    *ptr = aligned_alloc(4096, (size + 4095) & ~(size_t)4095);
    if (!*ptr)
        return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    S.allocations_live++;
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_amd_memory_pool_free(void *ptr)
{
    free(ptr);
    S.allocations_live--;
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_amd_agents_allow_access(uint32_t n, const hsa_agent_t *agents,
                                                const uint32_t *flags, const void *ptr)
{
    return n == 1 && agents[0].handle == GPU ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_AGENT;
}

EXPORT hsa_status_t hsa_memory_copy(void *dst, const void *src, size_t size)
{
    memcpy(dst, src, size);
    return HSA_STATUS_SUCCESS;
}

/* ---- virtual memory: reservations are PROT_NONE mappings, maps make them usable ---- */

EXPORT hsa_status_t hsa_amd_vmem_address_reserve(void **va, size_t size, uint64_t address,
                                                 uint64_t flags)
{
    const char *mode = getenv("FAKE_HSA_RESERVE");
    void *want = (void *)(uintptr_t)address, *got = MAP_FAILED;
    int common = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;

    if (mode && strcmp(mode, "fail") == 0)
        return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    if (!(mode && strcmp(mode, "relocate") == 0))
        got = mmap(want, size, PROT_NONE, common | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == MAP_FAILED || got != want) {
        /* ROCr: a fixed address it cannot have, it silently replaces. */
        if (got != MAP_FAILED)
            munmap(got, size);
        got = mmap(NULL, size, PROT_NONE, common, -1, 0);
        if (got == MAP_FAILED)
            return HSA_STATUS_ERROR_OUT_OF_RESOURCES;
    }
    if (S.reserves < FAKE_RT_MAX) {
        S.reserve_asked[S.reserves] = address;
        S.reserve_got[S.reserves] = (uint64_t)(uintptr_t)got;
        S.reserve_size[S.reserves] = size;
    }
    S.reserves++;
    *va = got;
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_amd_vmem_address_free(void *va, size_t size)
{
    S.frees++;
    return munmap(va, size) == 0 ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

EXPORT hsa_status_t hsa_amd_vmem_handle_create(hsa_amd_memory_pool_t pool, size_t size,
                                               vmem_type type, uint64_t flags, vmem_handle *h)
{
    if (pool.handle != POOL_DEVICE || size % 4096)
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    h->handle = 0x4000 + S.maps;
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_amd_vmem_handle_release(vmem_handle h)
{
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_amd_vmem_map(void *va, size_t size, size_t offset, vmem_handle h,
                                     uint64_t flags)
{
    S.maps++;
    return mprotect(va, size, PROT_READ | PROT_WRITE) == 0 ? HSA_STATUS_SUCCESS
                                                           : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

EXPORT hsa_status_t hsa_amd_vmem_unmap(void *va, size_t size)
{
    S.unmaps++;
    return mprotect(va, size, PROT_NONE) == 0 ? HSA_STATUS_SUCCESS
                                              : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

EXPORT hsa_status_t hsa_amd_vmem_set_access(void *va, size_t size, const vmem_access *desc,
                                            size_t n)
{
    S.set_access++;
    return n >= 1 && desc[0].agent_handle.handle == GPU &&
                   desc[0].permissions == HSA_ACCESS_PERMISSION_RW
               ? HSA_STATUS_SUCCESS
               : HSA_STATUS_ERROR_INVALID_ARGUMENT;
}

/* ---- code objects: symbols straight from the ELF ---- */

EXPORT hsa_status_t hsa_code_object_reader_create_from_memory(const void *code, size_t size,
                                                              hsa_code_object_reader_t *reader)
{
    fexe *e = calloc(1, sizeof(*e));

    if (size < 4 || memcmp(code, "\177ELF", 4) != 0) {
        free(e);
        return HSA_STATUS_ERROR_INVALID_CODE_OBJECT;
    }
    e->code = code;
    e->len = size;
    reader->handle = (uint64_t)(uintptr_t)e;
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t reader)
{
    free((void *)(uintptr_t)reader.handle);
    return HSA_STATUS_SUCCESS;
}

static fexe *current; /* the loaded executable: the reader's state, once loaded */

EXPORT hsa_status_t hsa_executable_create_alt(hsa_profile_t profile,
                                              hsa_default_float_rounding_mode_t mode,
                                              const char *options, hsa_executable_t *exe)
{
    exe->handle = 1;
    S.executables_live++;
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_executable_load_agent_code_object(hsa_executable_t exe, hsa_agent_t agent,
                                                          hsa_code_object_reader_t reader,
                                                          const char *options,
                                                          hsa_loaded_code_object_t *lco)
{
    current = (fexe *)(uintptr_t)reader.handle;
    current->load = aligned_alloc(4096, 1 << 16);
    memset(current->load, 0, 1 << 16);
    return agent.handle == GPU ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_INVALID_AGENT;
}

EXPORT hsa_status_t hsa_executable_freeze(hsa_executable_t exe, const char *options)
{
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_executable_destroy(hsa_executable_t exe)
{
    if (current)
        free(current->load);
    current = NULL;
    S.executables_live--;
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t exe, const char *name,
                                                      const hsa_agent_t *agent,
                                                      hsa_executable_symbol_t *sym)
{
    const unsigned char *bytes;
    uint64_t value, size;

    strncpy(S.symbol, name, sizeof(S.symbol) - 1);
    if (!current || current->nsymbols == 8 ||
        test_elf_symbol(current->code, current->len, name, &bytes, &value, &size) != 0)
        return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
    strncpy(current->symbols[current->nsymbols], name, 63);
    sym->handle = ++current->nsymbols;
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t sym,
                                                   hsa_executable_symbol_info_t what, void *value)
{
    const unsigned char *kd;
    uint64_t addr, size;

    if (!current || sym.handle < 1 || sym.handle > current->nsymbols ||
        test_elf_symbol(current->code, current->len, current->symbols[sym.handle - 1], &kd, &addr,
                        &size) != 0)
        return HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL;
    switch (what) {
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
    case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS:
        *(uint64_t *)value = (uint64_t)(uintptr_t)current->load + addr;
        return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE:
        *(uint32_t *)value = (uint32_t)size;
        return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE:
        memcpy(value, kd, 4); /* kernel descriptor offset 0 */
        return HSA_STATUS_SUCCESS;
    case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE:
        memcpy(value, kd + 4, 4);
        return HSA_STATUS_SUCCESS;
    default:
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
}

/* ---- signals, queues and the packet processor ---- */

EXPORT hsa_status_t hsa_signal_create(hsa_signal_value_t value, uint32_t n,
                                      const hsa_agent_t *consumers, hsa_signal_t *signal)
{
    fsignal *s = calloc(1, sizeof(*s));

    s->value = value;
    signal->handle = (uint64_t)(uintptr_t)s;
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_signal_destroy(hsa_signal_t signal)
{
    free((void *)(uintptr_t)signal.handle);
    return HSA_STATUS_SUCCESS;
}

/* The replay fixtures' kernel: scale(float *a, float s, int n), a[i] *= s. */
static void run(const hsa_kernel_dispatch_packet_t *p)
{
    const unsigned char *args = p->kernarg_address;
    float *a, s;
    int n;
    uint32_t i;

    memcpy(S.kernarg, args, sizeof(S.kernarg));
    memcpy(&a, args, sizeof(a));
    memcpy(&s, args + 8, sizeof(s));
    memcpy(&n, args + 12, sizeof(n));
    if (S.dispatches < FAKE_RT_MAX)
        S.first_before[S.dispatches] = a[1];
    for (i = 0; i < p->grid_size_x && (int)i < n; i++)
        a[i] = getenv("FAKE_HSA_SCALE_ADDS") ? a[i] + s : a[i] * s;
}

static void process(fqueue *q, uint64_t upto)
{
    while (q->read <= upto && q->read < q->write) {
        hsa_kernel_dispatch_packet_t *p =
            (hsa_kernel_dispatch_packet_t *)q->q.base_address + (q->read & (q->q.size - 1));
        fsignal *done = (fsignal *)(uintptr_t)p->completion_signal.handle;

        memcpy(S.last_packet, p, sizeof(S.last_packet));
        if ((p->header & 0xff) == HSA_PACKET_TYPE_KERNEL_DISPATCH) {
            run(p);
            S.dispatches++;
        }
        if (done && q->profiling) { /* timestamps only where profiling was asked for */
            done->start = clock_ticks;
            done->end = clock_ticks + FAKE_RT_TICKS;
            clock_ticks += 2 * FAKE_RT_TICKS;
        }
        if (done)
            done->value--;
        p->header = HSA_PACKET_TYPE_INVALID;
        q->read++;
    }
}

EXPORT void hsa_signal_store_screlease(hsa_signal_t signal, hsa_signal_value_t value)
{
    fsignal *s = (fsignal *)(uintptr_t)signal.handle;

    s->value = value;
    if (s->doorbell_of)
        process(s->doorbell_of, (uint64_t)value);
}

EXPORT hsa_signal_value_t hsa_signal_wait_scacquire(hsa_signal_t signal,
                                                    hsa_signal_condition_t cond,
                                                    hsa_signal_value_t compare, uint64_t timeout,
                                                    hsa_wait_state_t state)
{
    return ((fsignal *)(uintptr_t)signal.handle)->value;
}

EXPORT hsa_status_t hsa_queue_create(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                                     void (*cb)(hsa_status_t, hsa_queue_t *, void *), void *data,
                                     uint32_t priv, uint32_t group, hsa_queue_t **queue)
{
    fqueue *q;

    if (agent.handle != GPU || size == 0 || (size & (size - 1)))
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    q = calloc(1, sizeof(*q));
    q->q.size = size;
    q->q.base_address = aligned_alloc(64, (size_t)size * 64);
    memset(q->q.base_address, 0, (size_t)size * 64);
    q->doorbell.doorbell_of = q;
    q->q.doorbell_signal.handle = (uint64_t)(uintptr_t)&q->doorbell;
    S.queues_live++;
    *queue = &q->q;
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_queue_destroy(hsa_queue_t *queue)
{
    fqueue *q = (fqueue *)queue;

    free(q->q.base_address);
    free(q);
    S.queues_live--;
    return HSA_STATUS_SUCCESS;
}

EXPORT uint64_t hsa_queue_add_write_index_screlease(const hsa_queue_t *queue, uint64_t n)
{
    fqueue *q = (fqueue *)(uintptr_t)queue;
    uint64_t old = q->write;

    q->write += n;
    return old;
}

EXPORT uint64_t hsa_queue_load_read_index_scacquire(const hsa_queue_t *queue)
{
    return ((const fqueue *)queue)->read;
}

EXPORT hsa_status_t hsa_amd_profiling_set_profiler_enabled(hsa_queue_t *queue, int enable)
{
    ((fqueue *)queue)->profiling = enable;
    return HSA_STATUS_SUCCESS;
}

EXPORT hsa_status_t hsa_amd_profiling_get_dispatch_time(hsa_agent_t agent, hsa_signal_t signal,
                                                        hsa_amd_profiling_dispatch_time_t *t)
{
    fsignal *s = (fsignal *)(uintptr_t)signal.handle;

    if (agent.handle != GPU || s->end == 0)
        return HSA_STATUS_ERROR_INVALID_SIGNAL;
    t->start = s->start;
    t->end = s->end;
    return HSA_STATUS_SUCCESS;
}
