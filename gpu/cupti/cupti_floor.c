/*
 * The cost of CUPTI's kernel tracing alone, for the overhead benchmark: a
 * CUDA injection library that enables concurrent-kernel activity (and the
 * runtime API with CUPTI_FLOOR_API=runtime), hands CUPTI large buffers and
 * throws the records away unread.  Whatever the recorder costs beyond this
 * is the recorder's own.
 *   CUDA_INJECTION64_PATH=libcupti_floor.so tiny_kernel_launches 100000
 * CUPTI's activity attributes that might change the cost are set from the
 * environment, to measure them: CUPTI_FLOOR_PINNED=1 (timestamps in pinned
 * host memory, CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED),
 * CUPTI_FLOOR_DEVICE_BUFFER=BYTES (CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE),
 * CUPTI_FLOOR_PER_THREAD=0|1 (CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER);
 * CUPTI_FLOOR_KERNELS=serial enables CUPTI_ACTIVITY_KIND_KERNEL instead of
 * the concurrent kind.
 * CUPTI_FLOOR_PARTS=LIST (comma-separated) adds, one by one, what the
 * recorder asks of CUPTI beyond kernel records, so that its excess over the
 * floor can be split (gpu/cupti/floor.sh with FLOOR_PARTS=1):
 *   clock      a timestamp callback (CLOCK_BOOTTIME), as the recorder's
 *   kinds      memcpy, memset, synchronization and CUDA event records (or one
 *              of them: memcpy, memset, sync, event)
 *   subscribe  a callback subscriber: context created/destroyed, cudaDeviceReset
 *   threadid   system thread ids (cuptiSetThreadIdType)
 *   buffers    zeroed buffers and an 8 MiB device buffer (the recorder's attributes)
 * Build: cc -O2 -shared -fPIC -I$CUDA/include -o libcupti_floor.so cupti_floor.c
 *        -L$CUDA/lib64 -lcupti
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cupti.h>

#define BUFFER_SIZE ((size_t)16 << 20)

int InitializeInjection(void);

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, BUFFER_SIZE);
    *size = *buffer ? BUFFER_SIZE : 0;
    *max_records = 0;
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                               size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    (void)valid;
    free(buffer);
}

static void at_exit(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

/* Set a uint8_t or size_t activity attribute from the environment variable `var`. */
static void attribute_from_env(const char *var, CUpti_ActivityAttribute attr, int is_size)
{
    const char *v = getenv(var);
    uint8_t flag;
    size_t bytes, len;
    CUptiResult rc;

    if (!v || !v[0])
        return;
    if (is_size) {
        bytes = (size_t)strtoull(v, NULL, 10);
        len = sizeof(bytes);
        rc = cuptiActivitySetAttribute(attr, &len, &bytes);
    } else {
        flag = (uint8_t)atoi(v);
        len = sizeof(flag);
        rc = cuptiActivitySetAttribute(attr, &len, &flag);
    }
    fprintf(stderr, "cupti_floor: %s=%s: %s\n", var, v, rc == CUPTI_SUCCESS ? "set" : "refused");
}

static uint64_t CUPTIAPI boottime(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_BOOTTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *data)
{
    (void)userdata;
    (void)domain;
    (void)cbid;
    (void)data;
}

static int has_part(const char *parts, const char *name)
{
    size_t n = strlen(name);

    for (const char *p = parts; p && (p = strstr(p, name)) != NULL; p += n)
        if ((p == parts || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return 0;
}

/* The recorder's requests beyond kernel records that CUPTI_FLOOR_PARTS names. */
static void recorder_parts(const char *parts)
{
    static const struct {
        const char *part;
        CUpti_ActivityKind kind;
    } kinds[] = {
        {"memcpy", CUPTI_ACTIVITY_KIND_MEMCPY},
        {"memset", CUPTI_ACTIVITY_KIND_MEMSET},
        {"sync", CUPTI_ACTIVITY_KIND_SYNCHRONIZATION},
        {"event", CUPTI_ACTIVITY_KIND_CUDA_EVENT},
    };
    CUpti_SubscriberHandle sub;

    if (has_part(parts, "clock"))
        cuptiActivityRegisterTimestampCallback(boottime);
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (has_part(parts, "kinds") || has_part(parts, kinds[i].part))
            cuptiActivityEnable(kinds[i].kind);
    if (has_part(parts, "subscribe") && cuptiSubscribe(&sub, on_callback, NULL) == CUPTI_SUCCESS) {
        cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
        cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);
        cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API,
                            CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
    }
    if (has_part(parts, "threadid"))
        cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    if (has_part(parts, "buffers")) {
        uint8_t zeroed = 1;
        size_t device = (size_t)8 << 20, len = sizeof(zeroed);

        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &len, &zeroed);
        len = sizeof(device);
        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &len, &device);
    }
    if (parts && parts[0])
        fprintf(stderr, "cupti_floor: parts %s\n", parts);
}

int InitializeInjection(void)
{
    const char *api = getenv("CUPTI_FLOOR_API");
    const char *kernels = getenv("CUPTI_FLOOR_KERNELS");
    CUpti_ActivityKind kind = kernels && strcmp(kernels, "serial") == 0
                                  ? CUPTI_ACTIVITY_KIND_KERNEL
                                  : CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;

    attribute_from_env("CUPTI_FLOOR_PER_THREAD", CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, 0);
    attribute_from_env("CUPTI_FLOOR_PINNED", CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED,
                       0);
    attribute_from_env("CUPTI_FLOOR_DEVICE_BUFFER", CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, 1);
    if (cuptiActivityRegisterCallbacks(requested, completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(kind) != CUPTI_SUCCESS)
        return 0;
    if (api && strcmp(api, "runtime") == 0)
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
    recorder_parts(getenv("CUPTI_FLOOR_PARTS"));
    atexit(at_exit);
    return 1;
}
