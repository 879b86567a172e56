/*
 * Capture mode of librpl_cupti.so: with ROCM_PERF_CAPTURE_DIR set,
 * InitializeInjection subscribes these callbacks instead of the tracer's
 * (CUPTI takes one subscriber per process).
 *
 *  - module loaded: the cubin is valid only during the callback, so a copy
 *    is kept of each cubin that defines a function the kernel pattern
 *    matches (of every cubin when there is no pattern);
 *  - allocations, at their API exit: cuMemAlloc/cudaMalloc and pitch
 *    allocations, stream-ordered allocations and frees, VMM mappings
 *    (cuMemMap/cuMemUnmap/cuMemAddressFree), managed memory, and pinned or
 *    registered host memory (tracked only to refuse a kernel that takes a
 *    pointer into it: its address lies among the application's CPU
 *    mappings, where replay cannot map device memory);
 *  - launches: counted in the driver's launch callbacks, which the runtime's
 *    launch calls make too (a runtime launch is one dispatch, not two).  At
 *    the API enter of the N-th matching launch the context is drained and
 *    the dispatch, its parameter buffer and the pre-images of every tracked
 *    region and module global are written; the launch runs; at its exit the
 *    context is drained again, the post-images are written and the snapshot
 *    is committed.  The application then runs on to its end.
 *
 * Nothing here ends the application: a failed capture prints one line with
 * the "rocm-perf capture:" prefix on stderr and removes its partial files.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <time.h>
#include <unistd.h>

#include "capture_cuda.h"
#include "cupti_int.h"
#include "rpl/capture_env.h"
#include "rpl/error.h"
#include "rpl/free.h"
#include "rpl/log.h"
#include "rpl/version.h"

enum { WAITING, CAPTURING, DONE };

typedef struct cubin {
    void *data;
    size_t len;
} cubin;

/* The dispatch being captured, between its API enter and exit. */
typedef struct target {
    pthread_t thread;
    uint32_t corr; /* CUPTI correlation id of its driver launch call */
    rpl_snapshot_writer *w;
    rpl_snapshot *meta;
    uint64_t *region_hash; /* digests of the pre-images */
    uint64_t *global_hash;
    CUdeviceptr *global_addr; /* where each global lives in this process */
    uint64_t bytes;           /* bytes of one image of every region */
} target;

static struct {
    pthread_mutex_t lock;
    cc_config cfg;
    cc_allocs allocs;
    cubin *cubins;
    size_t ncubins, cap;
    uint64_t matches; /* matching dispatches so far */
    int state;
    int forked_child;
    target t;
    CUpti_SubscriberHandle sub;
} C = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Nonzero while this thread runs the capture's own CUDA calls. */
static __thread int own_calls;
/* A runtime launch in progress on this thread, and whether it made a driver launch call. */
static __thread int rt_depth, rt_driver_seen;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    fputs(CC_PREFIX, stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static int get_state(void)
{
    int s;

    pthread_mutex_lock(&C.lock);
    s = C.forked_child ? DONE : C.state;
    pthread_mutex_unlock(&C.lock);
    return s;
}

static void set_state(int s)
{
    pthread_mutex_lock(&C.lock);
    C.state = s;
    pthread_mutex_unlock(&C.lock);
}

/* ---- modules ---- */

static int matches_symbol(void *ud, const char *name, uint64_t size, bool function)
{
    char *dem;
    bool hit;

    (void)ud;
    (void)size;
    if (!function)
        return 0;
    dem = cc_demangle(name);
    hit = cc_config_matches(&C.cfg, name, dem);
    free(dem);
    return hit;
}

static void module_loaded(const CUpti_ResourceData *rd)
{
    const CUpti_ModuleResourceData *m = rd->resourceDescriptor;
    void *copy;

    if (!m || !m->pCubin || m->cubinSize == 0 || get_state() == DONE)
        return;
    if (C.cfg.have_re && cc_cubin_symbols(m->pCubin, m->cubinSize, matches_symbol, NULL) != 1)
        return;
    copy = malloc(m->cubinSize);
    if (!copy) {
        say("out of memory keeping a cubin of %zu bytes", m->cubinSize);
        return;
    }
    memcpy(copy, m->pCubin, m->cubinSize);
    pthread_mutex_lock(&C.lock);
    if (C.ncubins == C.cap) {
        size_t cap = C.cap ? C.cap * 2 : 16;
        cubin *v = realloc(C.cubins, cap * sizeof(*v));
        if (v) {
            C.cubins = v;
            C.cap = cap;
        }
    }
    if (C.ncubins < C.cap) {
        C.cubins[C.ncubins++] = (cubin){copy, m->cubinSize};
        copy = NULL;
    }
    pthread_mutex_unlock(&C.lock);
    if (copy) {
        say("out of memory keeping a cubin of %zu bytes", m->cubinSize);
        free(copy);
    }
}

/* The most recently loaded kept cubin that defines `mangled`. */
static bool find_cubin(cubin *out, const char *mangled)
{
    bool found = false;

    pthread_mutex_lock(&C.lock);
    for (size_t i = C.ncubins; i-- > 0 && !found;) {
        if (cc_cubin_has_function(C.cubins[i].data, C.cubins[i].len, mangled)) {
            *out = C.cubins[i];
            found = true;
        }
    }
    pthread_mutex_unlock(&C.lock);
    return found;
}

/* ---- allocations ---- */

static void track_add(uint64_t base, uint64_t size, cc_kind kind)
{
    int rc;

    pthread_mutex_lock(&C.lock);
    rc = cc_allocs_add(&C.allocs, base, size, kind);
    pthread_mutex_unlock(&C.lock);
    if (rc)
        say("allocation at 0x%llx not tracked: %s", (unsigned long long)base,
            rpl_error_last()->message);
}

static void track_free(uint64_t base)
{
    pthread_mutex_lock(&C.lock);
    cc_allocs_free(&C.allocs, base);
    pthread_mutex_unlock(&C.lock);
}

static void track_unmap(uint64_t base, uint64_t size)
{
    int rc;

    pthread_mutex_lock(&C.lock);
    rc = cc_allocs_remove_range(&C.allocs, base, size);
    pthread_mutex_unlock(&C.lock);
    if (rc)
        say("unmap at 0x%llx not tracked: %s", (unsigned long long)base, rpl_error_last()->message);
}

#define ADDR(p) ((uint64_t)(uintptr_t)(p))

static void driver_memory(CUpti_CallbackId cbid, const void *params)
{
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: {
        const cuMemAlloc_v2_params *p = params;
        track_add(*p->dptr, p->bytesize, CC_DEVICE);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2: {
        const cuMemAllocPitch_v2_params *p = params;
        track_add(*p->dptr, (uint64_t)*p->pPitch * p->Height, CC_DEVICE);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz: {
        const cuMemAllocAsync_params *p = params; /* the _ptsz struct is the same */
        track_add(*p->dptr, p->bytesize, CC_POOL);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: {
        const cuMemAllocFromPoolAsync_params *p = params;
        track_add(*p->dptr, p->bytesize, CC_POOL);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged: {
        const cuMemAllocManaged_params *p = params;
        track_add(*p->dptr, p->bytesize, CC_MANAGED);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2: {
        const cuMemAllocHost_v2_params *p = params;
        track_add(ADDR(*p->pp), p->bytesize, CC_HOST);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc: {
        const cuMemHostAlloc_params *p = params;
        track_add(ADDR(*p->pp), p->bytesize, CC_HOST);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2: {
        const cuMemHostRegister_v2_params *p = params;
        track_add(ADDR(p->p), p->bytesize, CC_HOST);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2:
        track_free(((const cuMemFree_v2_params *)params)->dptr);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz:
        track_free(((const cuMemFreeAsync_params *)params)->dptr);
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost:
        track_free(ADDR(((const cuMemFreeHost_params *)params)->p));
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister:
        track_free(ADDR(((const cuMemHostUnregister_params *)params)->p));
        break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap: {
        const cuMemMap_params *p = params;
        track_add(p->ptr, p->size, CC_VMM);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemUnmap: {
        const cuMemUnmap_params *p = params;
        track_unmap(p->ptr, p->size);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAddressFree: {
        const cuMemAddressFree_params *p = params;
        track_unmap(p->ptr, p->size);
        break;
    }
    default:
        break;
    }
}

static void runtime_memory(CUpti_CallbackId cbid, const void *params)
{
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020: {
        const cudaMalloc_v3020_params *p = params;
        track_add(ADDR(*p->devPtr), p->size, CC_DEVICE);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020: {
        const cudaMallocPitch_v3020_params *p = params;
        track_add(ADDR(*p->devPtr), (uint64_t)*p->pitch * p->height, CC_DEVICE);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020: {
        const cudaMallocAsync_v11020_params *p = params;
        track_add(ADDR(*p->devPtr), p->size, CC_POOL);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020: {
        const cudaMallocFromPoolAsync_v11020_params *p = params;
        track_add(ADDR(*p->ptr), p->size, CC_POOL);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000: {
        const cudaMallocManaged_v6000_params *p = params;
        track_add(ADDR(*p->devPtr), p->size, CC_MANAGED);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020: {
        const cudaMallocHost_v3020_params *p = params;
        track_add(ADDR(*p->ptr), p->size, CC_HOST);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020: {
        const cudaHostAlloc_v3020_params *p = params;
        track_add(ADDR(*p->pHost), p->size, CC_HOST);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000: {
        const cudaHostRegister_v4000_params *p = params;
        track_add(ADDR(p->ptr), p->size, CC_HOST);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
        track_free(ADDR(((const cudaFree_v3020_params *)params)->devPtr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020:
        track_free(ADDR(((const cudaFreeAsync_v11020_params *)params)->devPtr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
        track_free(ADDR(((const cudaFreeHost_v3020_params *)params)->ptr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000:
        track_free(ADDR(((const cudaHostUnregister_v4000_params *)params)->ptr));
        break;
    default:
        break;
    }
}

static const CUpti_CallbackId driver_memory_cbids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocPitch_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocManaged,
    CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost,
    CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister,
    CUPTI_DRIVER_TRACE_CBID_cuMemMap,
    CUPTI_DRIVER_TRACE_CBID_cuMemUnmap,
    CUPTI_DRIVER_TRACE_CBID_cuMemAddressFree,
};

static const CUpti_CallbackId runtime_memory_cbids[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000,
    CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000,
    CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020,
    CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000,
};

static const CUpti_CallbackId driver_launch_cbids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};

static const CUpti_CallbackId runtime_launch_cbids[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
};

static bool listed(const CUpti_CallbackId *ids, size_t n, CUpti_CallbackId cbid)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == cbid)
            return true;
    return false;
}

#define LISTED(ids, cbid) listed(ids, sizeof(ids) / sizeof(ids[0]), cbid)

/* ---- the captured dispatch ---- */

/* "580.95.05" from the kernel module, else the driver API version. */
static char *driver_version(int api)
{
    char line[512], buf[64];
    FILE *f = fopen("/proc/driver/nvidia/version", "r");

    if (f) {
        char *p = fgets(line, sizeof(line), f) ? strstr(line, "Kernel Module") : NULL;
        fclose(f);
        if (p && sscanf(p + strlen("Kernel Module"), " %63s", buf) == 1)
            return strdup(buf);
    }
    snprintf(buf, sizeof(buf), "%d.%d", api / 1000, api % 1000 / 10);
    return strdup(buf);
}

static char *utc_now(void)
{
    char buf[32];
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
    return strdup(buf);
}

/* Device, versions and the function's static resources into meta. */
static int describe(rpl_snapshot *meta, CUfunction f)
{
    CUdevice dev;
    char name[256] = "", arch[32], api_version[32];
    int major = 0, minor = 0, api = 0, v = 0;
    int rc;

    if ((rc = cc_cu_check(cuCtxGetDevice(&dev), "cuCtxGetDevice")) != 0 ||
        (rc = cc_cu_check(
             cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
             "cuDeviceGetAttribute")) != 0 ||
        (rc = cc_cu_check(
             cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
             "cuDeviceGetAttribute")) != 0)
        return rc;
    cuDeviceGetName(name, (int)sizeof(name) - 1, dev);
    cuDriverGetVersion(&api);
    snprintf(arch, sizeof(arch), "sm_%d%d", major, minor);
    meta->backend = RPL_SNAP_CUDA;
    meta->arch = strdup(arch);
    meta->target = strdup(arch);
    meta->device_name = strdup(name);
    meta->driver_version = driver_version(api);
    snprintf(api_version, sizeof(api_version), "%d.%d", api / 1000, api % 1000 / 10);
    meta->runtime_version = strdup(api_version);
    meta->tool_version = strdup(RPL_VERSION_STRING);
    meta->captured_at = utc_now();
    if (cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) == CUDA_SUCCESS)
        meta->static_shared_bytes = (uint32_t)v;
    if (cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f) == CUDA_SUCCESS)
        meta->private_segment_bytes = (uint32_t)v;
    if (!meta->arch || !meta->target || !meta->device_name || !meta->driver_version ||
        !meta->runtime_version || !meta->tool_version || !meta->captured_at)
        return rpl_error_oom();
    return 0;
}

/* kernarg.alignment: the largest power of two (4 to 128) that divides every parameter offset. */
static uint32_t param_alignment(const rpl_snap_param *p, size_t n)
{
    uint32_t align = 128;

    for (size_t i = 0; i < n; i++)
        while (align > 4 && p[i].offset % align)
            align /= 2;
    return n ? align : 4;
}

/* Types from the demangled name, when it lists as many parameters as the function has. */
static int type_params(rpl_snapshot *meta, const char *demangled)
{
    char **types = NULL;
    size_t n = 0;

    if (!demangled || rpl_param_types(&types, &n, demangled) != 0)
        return 0; /* an extern "C" kernel: no types */
    if (n != meta->nparams) {
        rpl_log_debug("capture: '%s' names %zu parameters, the function has %zu", demangled, n,
                      meta->nparams);
        rpl_strv_free(types, n);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        rpl_param_type_classify(types[i], &meta->params[i].pointer, &meta->params[i].pointee);
        meta->params[i].type = types[i];
        types[i] = NULL;
    }
    rpl_strv_free(types, n);
    return 0;
}

static uint64_t param_u64(const uint8_t *buf, const rpl_snap_param *p)
{
    uint64_t v = 0;

    if (p->size == 8)
        memcpy(&v, buf + p->offset, 8);
    return v;
}

/*
 * The tracked allocations become the regions (host memory excluded), each
 * with the element type of the pointer parameters into it.  A pointer
 * parameter into host memory refuses the capture.
 */
static int collect_regions(rpl_snapshot *meta, const uint8_t *kernarg)
{
    cc_allocs copy = {0};
    size_t n = 0;
    int rc = 0;

    pthread_mutex_lock(&C.lock);
    copy.items = malloc((C.allocs.count ? C.allocs.count : 1) * sizeof(*copy.items));
    if (copy.items) {
        memcpy(copy.items, C.allocs.items, C.allocs.count * sizeof(*copy.items));
        copy.count = copy.cap = C.allocs.count;
    }
    pthread_mutex_unlock(&C.lock);
    if (!copy.items)
        return rpl_error_oom();

    for (size_t i = 0; i < meta->nparams; i++) {
        const rpl_snap_param *p = &meta->params[i];
        uint64_t v = param_u64(kernarg, p);
        const cc_alloc *a = v ? cc_allocs_find(&copy, v) : NULL;
        if (a && a->kind == CC_HOST) {
            rc = rpl_error_set(RPL_EINPUT,
                               "parameter %zu points into pinned host memory (0x%llx), which "
                               "replay cannot map at its address",
                               i, (unsigned long long)v);
            goto out;
        }
        if (p->pointer && v && !a)
            say("parameter %zu (%s) points to 0x%llx, which no tracked allocation holds; replay "
                "may fault there",
                i, p->type ? p->type : "pointer", (unsigned long long)v);
    }

    meta->regions = calloc(copy.count ? copy.count : 1, sizeof(*meta->regions));
    if (!meta->regions) {
        rc = rpl_error_oom();
        goto out;
    }
    for (size_t i = 0; i < copy.count && rc == 0; i++) {
        const cc_alloc *a = &copy.items[i];
        rpl_snap_region *r;
        bool typed = false;

        if (a->kind == CC_HOST)
            continue;
        r = &meta->regions[n++];
        r->base = a->base;
        r->size = a->size;
        r->kind = strdup(cc_kind_name(a->kind));
        r->dtype = RPL_DTYPE_BYTES;
        if (!r->kind) {
            rc = rpl_error_oom();
            break;
        }
        if ((rc = rpl_snapshot_region_path(&r->file, a->base, false)) != 0 ||
            (rc = rpl_snapshot_region_path(&r->post_file, a->base, true)) != 0)
            break;
        /* One element type when every pointer parameter into the region agrees. */
        for (size_t k = 0; k < meta->nparams; k++) {
            const rpl_snap_param *p = &meta->params[k];
            uint64_t v = param_u64(kernarg, p);
            if (!p->pointer || v < a->base || v >= a->base + a->size)
                continue;
            if (!typed)
                r->dtype = p->pointee;
            else if (r->dtype != p->pointee)
                r->dtype = RPL_DTYPE_BYTES;
            typed = true;
        }
    }
    meta->nregions = n;
out:
    cc_allocs_release(&copy);
    return rc;
}

typedef struct global_list {
    rpl_snapshot *meta;
    CUmodule mod;
    CUdeviceptr *addr;
    size_t cap;
    int rc;
} global_list;

static int add_global(void *ud, const char *name, uint64_t size, bool function)
{
    global_list *gl = ud;
    rpl_snapshot *meta = gl->meta;
    rpl_snap_global *g;
    CUdeviceptr dptr = 0;
    size_t bytes = 0;
    char path[64];

    (void)size;
    if (function)
        return 0;
    if (cuModuleGetGlobal(&dptr, &bytes, gl->mod, name) != CUDA_SUCCESS || bytes == 0) {
        rpl_log_debug("capture: module global '%s' is not reachable; not kept", name);
        return 0;
    }
    if (meta->nglobals == gl->cap) {
        size_t cap = gl->cap ? gl->cap * 2 : 8;
        rpl_snap_global *v = realloc(meta->globals, cap * sizeof(*v));
        CUdeviceptr *a = v ? realloc(gl->addr, cap * sizeof(*a)) : NULL;
        if (v)
            meta->globals = v;
        if (!v || !a)
            return gl->rc = rpl_error_oom();
        gl->addr = a;
        gl->cap = cap;
    }
    g = &meta->globals[meta->nglobals];
    memset(g, 0, sizeof(*g));
    g->name = strdup(name);
    g->address = dptr;
    g->size = bytes;
    snprintf(path, sizeof(path), "globals/%zu.bin", meta->nglobals);
    g->file = strdup(path);
    snprintf(path, sizeof(path), "globals/post/%zu.bin", meta->nglobals);
    g->post_file = strdup(path);
    gl->addr[meta->nglobals++] = dptr;
    if (!g->name || !g->file || !g->post_file)
        return gl->rc = rpl_error_oom();
    return 0;
}

/* The module globals of the kernel's cubin, found in this process's copy of its module. */
static int collect_globals(target *t, CUfunction f, const cubin *cb)
{
    global_list gl = {.meta = t->meta};
    int rc;

    if ((rc = cc_cu_check(cuFuncGetModule(&gl.mod, f), "cuFuncGetModule")) != 0)
        return rc;
    rc = cc_cubin_symbols(cb->data, cb->len, add_global, &gl);
    t->global_addr = gl.addr;
    return rc ? rc : gl.rc;
}

/* Write one image of every region and global: pre (hashes kept) or post (written set). */
static int write_images(target *t, bool post)
{
    rpl_snapshot *m = t->meta;
    int rc = 0;

    for (size_t i = 0; i < m->nregions && rc == 0; i++) {
        rpl_snap_region *r = &m->regions[i];
        uint64_t h = 0;
        rc = cc_image_write(t->w, post ? r->post_file : r->file, r->base, r->size, &h);
        if (!post)
            t->region_hash[i] = h;
        else
            r->written = h != t->region_hash[i];
    }
    for (size_t i = 0; i < m->nglobals && rc == 0; i++) {
        rpl_snap_global *g = &m->globals[i];
        uint64_t h = 0;
        rc = cc_image_write(t->w, post ? g->post_file : g->file, t->global_addr[i], g->size, &h);
        if (!post)
            t->global_hash[i] = h;
    }
    return rc;
}

static void target_release(target *t)
{
    if (t->w)
        rpl_snapshot_writer_abort(t->w);
    rpl_snapshot_free(t->meta);
    RPL_FREE_EACH(t->region_hash, t->global_hash, t->global_addr);
    memset(t, 0, sizeof(*t));
}

/* At the API enter of the chosen launch: everything up to the pre-images. */
static int capture_before(target *t, const cc_launch *l, CUfunction f, const char *mangled,
                          const char *demangled)
{
    CUstreamCaptureStatus cap = CU_STREAM_CAPTURE_STATUS_NONE;
    rpl_snapshot *m;
    uint8_t *kernarg = NULL;
    cubin cb;
    int rc;

    /* Draining a context while a stream records a graph would invalidate the graph. */
    if (cuStreamIsCapturing(l->stream, &cap) != CUDA_SUCCESS ||
        cap != CU_STREAM_CAPTURE_STATUS_NONE)
        return rpl_error_set(RPL_EINPUT, "the launch is recorded into a CUDA graph (stream "
                                         "capture); not synchronizing, not captured");
    if ((rc = cc_cu_check(cuCtxSynchronize(), "cuCtxSynchronize before the launch")) != 0)
        return rc;
    cuFuncLoad(f); /* lazy loading: make the driver load (and report) the module now */
    if (!find_cubin(&cb, mangled))
        return rpl_error_set(RPL_ENOTFOUND, "no loaded cubin defines %s", mangled);

    t->meta = m = calloc(1, sizeof(*m));
    if (!m)
        return rpl_error_oom();
    m->mangled_name = strdup(mangled);
    m->demangled_name = strdup(demangled ? demangled : mangled);
    m->code_object_file = strdup("kernel.cubin");
    m->code_object_symbol = strdup(mangled);
    m->kernarg_file = strdup("kernarg.bin");
    if (!m->mangled_name || !m->demangled_name || !m->code_object_file || !m->code_object_symbol ||
        !m->kernarg_file)
        return rpl_error_oom();
    if ((rc = describe(m, f)) != 0)
        return rc;
    memcpy(m->grid, l->grid, sizeof(m->grid));
    memcpy(m->block, l->block, sizeof(m->block));
    memcpy(m->cluster, l->cluster, sizeof(m->cluster));
    m->dynamic_shared_bytes = l->shared;
    m->setup_dims = 3;
    m->dispatch_index = C.cfg.index;
    m->capture_pid = getpid();
    m->aslr_disabled = (personality(0xffffffff) & ADDR_NO_RANDOMIZE) != 0;
    if (l->cooperative)
        say("%s is a cooperative launch; replay launches it as a plain one", mangled);

    if ((rc = cc_launch_param_buffer(l, f, &m->params, &m->nparams, &kernarg, &m->kernarg_size)) !=
            0 ||
        (rc = type_params(m, demangled)) != 0)
        goto out;
    m->kernarg_align = param_alignment(m->params, m->nparams);
    if ((rc = collect_regions(m, kernarg)) != 0 || (rc = collect_globals(t, f, &cb)) != 0)
        goto out;
    t->region_hash = calloc(m->nregions + 1, sizeof(*t->region_hash));
    t->global_hash = calloc(m->nglobals + 1, sizeof(*t->global_hash));
    if (!t->region_hash || !t->global_hash) {
        rc = rpl_error_oom();
        goto out;
    }
    for (size_t i = 0; i < m->nregions; i++)
        t->bytes += m->regions[i].size;

    if ((rc = rpl_snapshot_writer_begin(&t->w, C.cfg.dir)) != 0 ||
        (rc = rpl_snapshot_writer_add(t->w, m->code_object_file, cb.data, cb.len)) != 0 ||
        (rc = rpl_snapshot_writer_add(t->w, m->kernarg_file, kernarg, m->kernarg_size)) != 0)
        goto out;
    rc = write_images(t, false);
out:
    free(kernarg);
    return rc;
}

/* At the API exit of the chosen launch: post-images and the commit. */
static int capture_after(target *t, CUresult launched)
{
    int rc;

    if ((rc = cc_cu_check(launched, "the captured launch")) != 0 ||
        (rc = cc_cu_check(cuCtxSynchronize(), "cuCtxSynchronize after the launch")) != 0 ||
        (rc = write_images(t, true)) != 0)
        return rc;
    rc = rpl_snapshot_writer_commit(t->w, t->meta);
    t->w = NULL; /* a failed commit removed its directory itself */
    return rc;
}

static void give_up(const char *mangled)
{
    say("dispatch %llu of %s not captured: %s", (unsigned long long)C.cfg.index, mangled,
        rpl_error_last()->message);
    target_release(&C.t);
    cc_image_done();
    set_state(DONE);
}

/* A small per-thread cache of launch handle -> matches the pattern. */
#define MATCH_CACHE 64
static __thread struct {
    CUfunction f;
    bool match;
} match_cache[MATCH_CACHE];

static void launch_enter(CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
    size_t slot;
    cc_launch l;
    CUfunction f;
    const char *mangled = NULL;
    char *demangled;
    bool chosen = false;
    int rc;

    if (!cc_launch_read(&l, cbid, cd->functionParams) || !l.f || get_state() != WAITING)
        return;
    slot = ((uintptr_t)l.f >> 4) % MATCH_CACHE;
    if (match_cache[slot].f == l.f && !match_cache[slot].match)
        return;
    f = cr_launch_function(l.f);
    if (cuFuncGetName(&mangled, f) != CUDA_SUCCESS || !mangled)
        return;
    demangled = cc_demangle(mangled);
    match_cache[slot].f = l.f;
    match_cache[slot].match = cc_config_matches(&C.cfg, mangled, demangled);
    if (!match_cache[slot].match) {
        free(demangled);
        return;
    }
    pthread_mutex_lock(&C.lock);
    if (C.state == WAITING && C.matches++ == C.cfg.index) {
        C.state = CAPTURING;
        C.t.thread = pthread_self();
        C.t.corr = cd->correlationId;
        chosen = true;
    }
    pthread_mutex_unlock(&C.lock);
    if (chosen) {
        own_calls++;
        rc = capture_before(&C.t, &l, f, mangled, demangled);
        own_calls--;
        if (rc)
            give_up(mangled);
    }
    free(demangled);
}

static void launch_exit(const CUpti_CallbackData *cd)
{
    char *name;
    uint64_t bytes = C.t.bytes;
    size_t nregions;
    int rc;

    if (get_state() != CAPTURING || !pthread_equal(C.t.thread, pthread_self()) ||
        cd->correlationId != C.t.corr)
        return;
    name = strdup(C.t.meta->demangled_name);
    nregions = C.t.meta->nregions;
    own_calls++;
    rc = capture_after(&C.t, *(const CUresult *)cd->functionReturnValue);
    own_calls--;
    if (rc) {
        give_up(name ? name : "the kernel");
    } else {
        say("dispatch %llu of %s captured into %s (%zu regions, %.1f MiB per image)",
            (unsigned long long)C.cfg.index, name ? name : "the kernel", C.cfg.dir, nregions,
            (double)bytes / (1 << 20));
        target_release(&C.t);
        cc_image_done();
        set_state(DONE);
    }
    free(name);
}

static void CUPTIAPI on_callback(void *ud, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *data)
{
    const CUpti_CallbackData *cd = data;

    (void)ud;
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        if (cbid == CUPTI_CBID_RESOURCE_MODULE_LOADED)
            module_loaded(data);
        return;
    }
    if (own_calls || get_state() == DONE)
        return;
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        if (LISTED(driver_launch_cbids, cbid)) {
            if (cd->callbackSite == CUPTI_API_ENTER) {
                rt_driver_seen = 1;
                launch_enter(cbid, cd);
            } else {
                launch_exit(cd);
            }
        } else if (cd->callbackSite == CUPTI_API_EXIT &&
                   *(const CUresult *)cd->functionReturnValue == CUDA_SUCCESS) {
            driver_memory(cbid, cd->functionParams);
        }
    } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        if (LISTED(runtime_launch_cbids, cbid)) {
            /* Only to see that the driver call inside counted the launch. */
            if (cd->callbackSite == CUPTI_API_ENTER) {
                if (rt_depth++ == 0)
                    rt_driver_seen = 0;
            } else if (--rt_depth == 0 && !rt_driver_seen) {
                say("a runtime launch of %s made no driver launch call: not counted",
                    cd->symbolName ? cd->symbolName : "a kernel");
            }
        } else if (cd->callbackSite == CUPTI_API_EXIT &&
                   *(const int *)cd->functionReturnValue == 0) {
            runtime_memory(cbid, cd->functionParams);
        }
    }
}

static void at_exit(void)
{
    int state = get_state();

    if (C.forked_child)
        return;
    if (state == WAITING)
        say("the application ended after %llu matching dispatch%s%s%s; dispatch %llu was never "
            "launched",
            (unsigned long long)C.matches, C.matches == 1 ? "" : "es", C.cfg.have_re ? " of " : "",
            C.cfg.have_re ? C.cfg.pattern : "", (unsigned long long)C.cfg.index);
    else if (state == CAPTURING)
        say("the application ended during the capture; nothing written");
    /* The temporary directory of an unfinished capture goes away with it. */
    if (state == CAPTURING && C.t.w)
        rpl_snapshot_writer_abort(C.t.w);
}

static void in_forked_child(void)
{
    C.forked_child = 1;
}

static int enable(CUpti_CallbackDomain domain, const CUpti_CallbackId *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cr_cupti_failed(cuptiEnableCallback(1, C.sub, domain, ids[i]), "cuptiEnableCallback"))
            return -1;
    return 0;
}

#define ENABLE(domain, ids) enable(domain, ids, sizeof(ids) / sizeof(ids[0]))

int cc_capture_start(void)
{
    char cwd[4096];
    int rc;

    rpl_log_init_from_env();
    if (!getcwd(cwd, sizeof(cwd)))
        strcpy(cwd, ".");
    rc = cc_config_init(&C.cfg, getenv(RPL_CAPTURE_ENV_DIR), getenv(RPL_CAPTURE_ENV_KERNEL),
                        getenv(RPL_CAPTURE_ENV_DISPATCH), cwd);
    if (rc) {
        say("%s; capture is off", rpl_error_last()->message);
        return -1;
    }
    if (cr_cupti_failed(cuptiSubscribe(&C.sub, on_callback, NULL), "cuptiSubscribe") ||
        cr_cupti_failed(cuptiEnableCallback(1, C.sub, CUPTI_CB_DOMAIN_RESOURCE,
                                            CUPTI_CBID_RESOURCE_MODULE_LOADED),
                        "cuptiEnableCallback") ||
        ENABLE(CUPTI_CB_DOMAIN_DRIVER_API, driver_launch_cbids) ||
        ENABLE(CUPTI_CB_DOMAIN_RUNTIME_API, runtime_launch_cbids) ||
        ENABLE(CUPTI_CB_DOMAIN_DRIVER_API, driver_memory_cbids) ||
        ENABLE(CUPTI_CB_DOMAIN_RUNTIME_API, runtime_memory_cbids)) {
        say("CUPTI refused the callbacks; capture is off");
        return -1;
    }
    atexit(at_exit);
    pthread_atfork(NULL, NULL, in_forked_child);
    rpl_log_debug("capture: dispatch %llu of %s into %s", (unsigned long long)C.cfg.index,
                  C.cfg.have_re ? C.cfg.pattern : "any kernel", C.cfg.dir);
    return 0;
}
