/*
 * CUPTI activity buffers: CUPTI asks for empty buffers, fills them with
 * records and hands them back (often on its own worker thread); each record
 * is copied into cr_g under its lock and the buffer goes back to a pool.
 *
 * The application's threads pay for what happens when CUPTI asks for a
 * buffer, so that is a pop from the pool: buffers are large, zeroed by the
 * worker that returns them (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER
 * tells CUPTI it need not zero them itself, which it would do on the
 * application's thread), and a new one is made only when the pool is empty.
 */
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "cupti_int.h"
#include "rpl/log.h"

#define BUFFER_SIZE   ((size_t)16 << 20)
#define POOL_BUFFERS  4 /* made at start; more when the application outruns the worker */
#define DEVICE_BUFFER ((size_t)8 << 20) /* CUPTI's device-side records: ~250k operations */

static struct {
    pthread_mutex_t lock;
    uint8_t *free[64];
    size_t nfree;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* A zeroed buffer, its pages already touched. */
static uint8_t *buffer_new(void)
{
    uint8_t *b = aligned_alloc(8, BUFFER_SIZE);

    if (b)
        memset(b, 0, BUFFER_SIZE);
    return b;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    uint8_t *b = NULL;

    pthread_mutex_lock(&pool.lock);
    if (pool.nfree)
        b = pool.free[--pool.nfree];
    pthread_mutex_unlock(&pool.lock);
    if (!b)
        b = buffer_new();
    *buffer = b;
    *size = b ? BUFFER_SIZE : 0;
    *max_records = 0; /* as many as fit */
}

/* Zero the buffer and keep it, or free it when the pool is full. */
static void buffer_recycle(uint8_t *b, size_t size)
{
    memset(b, 0, size);
    pthread_mutex_lock(&pool.lock);
    if (pool.nfree < sizeof(pool.free) / sizeof(pool.free[0])) {
        pool.free[pool.nfree++] = b;
        b = NULL;
    }
    pthread_mutex_unlock(&pool.lock);
    free(b);
}

/*
 * Kernel names: CUPTI shares one name string among all records of a kernel,
 * so the interned copy is cached by that pointer (a direct-mapped cache; a
 * miss only costs a hash lookup in the trace's string table).
 */
#define NAME_CACHE 256
static struct {
    const char *cupti;
    const char *interned;
} name_cache[NAME_CACHE];

static const char *kernel_name(const char *name)
{
    size_t slot;

    if (!name)
        name = "";
    slot = ((uintptr_t)name >> 4) % NAME_CACHE;
    if (name_cache[slot].cupti != name || strcmp(name_cache[slot].interned, name) != 0) {
        const char *interned = rpl_trace_intern(cr_g.trace, name);
        if (!interned)
            return NULL;
        name_cache[slot].cupti = name;
        name_cache[slot].interned = interned;
    }
    return name_cache[slot].interned;
}

static cr_copy_dir copy_dir(uint8_t kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
        return CR_COPY_HTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
        return CR_COPY_DTOH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
        return CR_COPY_DTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
        return CR_COPY_HTOH;
    default:
        return CR_COPY_OTHER;
    }
}

/* A GPU record without both timestamps was flushed before it completed. */
static int incomplete(uint64_t start, uint64_t end)
{
    return start == 0 || end == 0 || end < start;
}

static int take_kernel(const CUpti_ActivityKernel10 *r)
{
    cr_kernel *k;

    if (incomplete(r->start, r->end))
        return 1;
    k = CR_PUSH(cr_g.kernels);
    if (!k)
        return 1;
    k->start = r->start;
    k->end = r->end;
    k->device = r->deviceId;
    k->context = r->contextId;
    k->stream = r->streamId;
    k->corr = r->correlationId;
    k->grid[0] = r->gridX;
    k->grid[1] = r->gridY;
    k->grid[2] = r->gridZ;
    k->block[0] = r->blockX;
    k->block[1] = r->blockY;
    k->block[2] = r->blockZ;
    k->static_smem = r->staticSharedMemory;
    k->dynamic_smem = r->dynamicSharedMemory;
    k->local_per_thread = r->localMemoryPerThread;
    k->registers = r->registersPerThread;
    k->name = kernel_name(r->name);
    if (!k->name) {
        cr_g.kernels.count--;
        return 1;
    }
    return 0;
}

/* Keep the memcpy or memset record c; 1 when it is lost (incomplete, out of memory). */
static int take_copy(const cr_copy *c)
{
    cr_copy *slot;

    if (incomplete(c->start, c->end) || !(slot = CR_PUSH(cr_g.copies)))
        return 1;
    *slot = *c;
    return 0;
}

/* The cr_copy fields of a memcpy or memset record (two structs that name them alike). */
#define COPY_FIELDS(r)                                                                             \
    .start = (r)->start, .end = (r)->end, .bytes = (r)->bytes, .device = (r)->deviceId,            \
    .context = (r)->contextId, .stream = (r)->streamId, .corr = (r)->correlationId

static int take_memcpy(const CUpti_ActivityMemcpy6 *r)
{
    cr_copy c = {COPY_FIELDS(r), .runtime_corr = r->runtimeCorrelationId,
                 .dir = copy_dir(r->copyKind)};

    return take_copy(&c);
}

static int take_memset(const CUpti_ActivityMemset4 *r)
{
    cr_copy c = {COPY_FIELDS(r), .dir = CR_COPY_MEMSET};

    return take_copy(&c);
}

static int take_api(const CUpti_ActivityAPI *r)
{
    cr_api *a = CR_PUSH(cr_g.apis);

    if (!a)
        return 1;
    a->start = r->start;
    a->end = r->end;
    a->corr = r->correlationId;
    a->pid = r->processId;
    a->tid = r->threadId;
    a->cbid = r->cbid;
    a->domain = r->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? CR_API_RUNTIME : CR_API_DRIVER;
    return 0;
}

static int take_sync(const CUpti_ActivitySynchronization2 *r)
{
    cr_sync *s = CR_PUSH(cr_g.syncs);

    if (!s)
        return 1;
    s->start = r->start;
    s->end = r->end;
    s->sync_id = r->cudaEventSyncId;
    s->type = (uint32_t)r->type;
    s->corr = r->correlationId;
    s->context = r->contextId;
    s->stream = r->streamId;
    s->event = r->cudaEventId;
    return 0;
}

static int take_event(const CUpti_ActivityCudaEvent2 *r)
{
    cr_event *e = CR_PUSH(cr_g.events);

    if (!e)
        return 1;
    e->sync_id = r->cudaEventSyncId;
    e->corr = r->correlationId;
    e->context = r->contextId;
    e->stream = r->streamId;
    e->event = r->eventId;
    e->device = r->deviceId;
    return 0;
}

static int take_record(const CUpti_Activity *rec)
{
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
        return take_kernel((const CUpti_ActivityKernel10 *)rec);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        return take_memcpy((const CUpti_ActivityMemcpy6 *)rec);
    case CUPTI_ACTIVITY_KIND_MEMSET:
        return take_memset((const CUpti_ActivityMemset4 *)rec);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
        return take_api((const CUpti_ActivityAPI *)rec);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        return take_sync((const CUpti_ActivitySynchronization2 *)rec);
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:
        return take_event((const CUpti_ActivityCudaEvent2 *)rec);
    default:
        return 0;
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
    CUpti_Activity *rec = NULL;
    size_t dropped = 0;
    uint64_t lost = 0;

    pthread_mutex_lock(&cr_g.lock);
    while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS)
        lost += (uint64_t)take_record(rec);
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
        lost += dropped;
    cr_g.dropped_records += lost;
    pthread_mutex_unlock(&cr_g.lock);
    buffer_recycle(buffer, size);
}

/* CUPTI's kinds for the records besides kernels (whose kind depends on the timing mode). */
static const struct {
    unsigned record; /* CR_RECORD_* */
    CUpti_ActivityKind kind;
} record_kinds[] = {
    {CR_RECORD_COPIES, CUPTI_ACTIVITY_KIND_MEMCPY},
    {CR_RECORD_COPIES, CUPTI_ACTIVITY_KIND_MEMSET},
    {CR_RECORD_RUNTIME, CUPTI_ACTIVITY_KIND_RUNTIME},
    {CR_RECORD_DRIVER, CUPTI_ACTIVITY_KIND_DRIVER},
    {CR_RECORD_API_DETAILS, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION},
    {CR_RECORD_API_DETAILS, CUPTI_ACTIVITY_KIND_CUDA_EVENT},
};

/*
 * Driver calls that only ask for facts (names, attributes, entry points):
 * the runtime makes them around every launch and the recorder itself when it
 * describes a device.  They carry no GPU work, so they are not recorded.
 */
static const CUpti_CallbackId quiet_driver_calls[] = {
    CUPTI_DRIVER_TRACE_CBID_cuDriverGetVersion,    CUPTI_DRIVER_TRACE_CBID_cuDeviceGet,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetCount,      CUPTI_DRIVER_TRACE_CBID_cuDeviceGetName,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceTotalMem,      CUPTI_DRIVER_TRACE_CBID_cuDeviceTotalMem_v2,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,  CUPTI_DRIVER_TRACE_CBID_cuDeviceGetUuid,
    CUPTI_DRIVER_TRACE_CBID_cuDeviceGetUuid_v2,    CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
    CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,        CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,
    CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,   CUPTI_DRIVER_TRACE_CBID_cuKernelGetName,
    CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute,  CUPTI_DRIVER_TRACE_CBID_cuFuncGetName,
    CUPTI_DRIVER_TRACE_CBID_cuFuncGetAttribute,    CUPTI_DRIVER_TRACE_CBID_cuModuleGetLoadingMode,
    CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttribute,
};

/* CUPTI's buffer attributes, and the first buffers of the pool. */
static void buffers_prepare(void)
{
    uint8_t zeroed = 1;
    size_t device = DEVICE_BUFFER, len = sizeof(zeroed);

    cr_cupti_failed(
        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &len, &zeroed),
        "cuptiActivitySetAttribute");
    while (pool.nfree < POOL_BUFFERS && (pool.free[pool.nfree] = buffer_new()))
        pool.nfree++;
    len = sizeof(device);
    cr_cupti_failed(
        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &len, &device),
        "cuptiActivitySetAttribute");
}

static int started;

int cr_activity_start(int apis, cr_kernel_timing timing)
{
    CUpti_ActivityKind kernels = timing == CR_KERNELS_SERIAL
                                     ? CUPTI_ACTIVITY_KIND_KERNEL
                                     : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    unsigned records = cr_record_kinds(apis);

    started = 1;
    buffers_prepare();
    if (cr_cupti_failed(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
                        "cuptiActivityRegisterCallbacks") ||
        cr_cupti_failed(cuptiActivityEnable(kernels), "cuptiActivityEnable"))
        return -1;
    for (size_t i = 0; i < sizeof(record_kinds) / sizeof(record_kinds[0]); i++)
        if ((records & record_kinds[i].record) &&
            cr_cupti_failed(cuptiActivityEnable(record_kinds[i].kind), "cuptiActivityEnable"))
            return -1;
    if (records & CR_RECORD_DRIVER) {
        for (size_t i = 0; i < sizeof(quiet_driver_calls) / sizeof(quiet_driver_calls[0]); i++)
            cr_cupti_failed(cuptiActivityEnableDriverApi(quiet_driver_calls[i], 0),
                            "cuptiActivityEnableDriverApi");
    }
    return 0;
}

void cr_activity_flush(void)
{
    /*
     * A forced flush also hands back buffers whose records CUPTI has not
     * finished.  With the range profiler running, that made CUPTI's
     * activity thread abort with a double free on an H200 (CUDA 13.0), so
     * counter runs take only the buffers CUPTI calls complete.
     */
    uint32_t flag = cr_g.metrics ? 0 : CUPTI_ACTIVITY_FLAG_FLUSH_FORCED;

    if (!started)
        return;
    cr_cupti_failed(cuptiActivityFlushAll(flag), "cuptiActivityFlushAll");
}
