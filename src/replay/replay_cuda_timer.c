/* Launch timing for the CUDA replay (replay_cuda_timer.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cupti_activity.h>

#include "replay_cuda_timer.h"
#include "rpl/array.h"
#include "rpl/error.h"
#include "rpl/log.h"

#define RECORD_BUFFER ((size_t)8 << 20)

/* The few CUPTI entry points the timer needs, typed from cupti_activity.h. */
#define RPL_CUPTI_FUNCTIONS(X)                                                                     \
    X(cuptiActivityEnable)                                                                         \
    X(cuptiActivityDisable)                                                                        \
    X(cuptiActivityRegisterCallbacks)                                                              \
    X(cuptiActivityFlushAll)                                                                       \
    X(cuptiActivityGetNextRecord)

typedef struct cupti_api {
    void *lib;
#define RPL_CUPTI_DECLARE(name) __typeof__(name) *name;
    RPL_CUPTI_FUNCTIONS(RPL_CUPTI_DECLARE)
#undef RPL_CUPTI_DECLARE
} cupti_api;

/* Kernel records arrive on CUPTI's thread: kept here under a lock. */
typedef struct span {
    uint64_t start, end;
} span;

static struct {
    pthread_mutex_t lock;
    span *items;
    size_t count, cap;
    uint64_t incomplete;
} records = {.lock = PTHREAD_MUTEX_INITIALIZER};

struct rpl_cuda_timer {
    const rpl_cuda_api *cu;
    cupti_api *cupti; /* NULL: events */
    CUevent start, stop;
    double *event_ns;
    size_t nevents, cap;
};

static cupti_api cupti;
static int cupti_state; /* 0 not tried, 1 loaded, -1 unavailable */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, RECORD_BUFFER);
    *size = *buffer ? RECORD_BUFFER : 0;
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
    CUpti_Activity *rec = NULL;

    (void)ctx;
    (void)stream;
    (void)size;
    pthread_mutex_lock(&records.lock);
    while (valid > 0 && cupti.cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        if (rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
            continue;
        if (k->start == 0 || k->end < k->start) {
            records.incomplete++;
            continue;
        }
        if (RPL_ARRAY_GROW(records.items, records.cap, records.count + 1) != 0) {
            records.incomplete++;
            continue;
        }
        records.items[records.count++] = (span){k->start, k->end};
    }
    pthread_mutex_unlock(&records.lock);
    free(buffer);
}

/* libcupti from the library path, then where CUDA toolkits keep it. */
static int cupti_load(void)
{
    static const char *const names[] = {
        "libcupti.so.13",
        "libcupti.so.12",
        "libcupti.so",
        "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
        "/usr/local/cuda/lib64/libcupti.so",
    };

    if (cupti_state)
        return cupti_state;
    cupti_state = -1;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]) && !cupti.lib; i++)
        cupti.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!cupti.lib) {
        rpl_log_info("replay: libcupti not found; launches are timed with CUDA events");
        return cupti_state;
    }
#define RPL_CUPTI_RESOLVE(name)                                                                    \
    if (!(*(void **)&cupti.name = dlsym(cupti.lib, #name))) {                                      \
        rpl_log_info("replay: libcupti has no %s; launches are timed with CUDA events", #name);    \
        return cupti_state;                                                                        \
    }
    RPL_CUPTI_FUNCTIONS(RPL_CUPTI_RESOLVE)
#undef RPL_CUPTI_RESOLVE
    if (cupti.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS) {
        rpl_log_info("replay: CUPTI refused its buffers; launches are timed with CUDA events");
        return cupti_state;
    }
    cupti_state = 1;
    return cupti_state;
}

int rpl_cuda_timer_open(rpl_cuda_timer **out, const rpl_cuda_api *cu)
{
    const char *want = getenv("ROCM_PERF_REPLAY_TIMER");
    rpl_cuda_timer *t;
    int rc;

    *out = NULL;
    if (want && want[0] && strcmp(want, "cupti") != 0 && strcmp(want, "event") != 0)
        return rpl_error_set(RPL_EUSAGE, "ROCM_PERF_REPLAY_TIMER is '%s', not cupti or event",
                             want);
    t = calloc(1, sizeof(*t));
    if (!t)
        return rpl_error_oom();
    t->cu = cu;
    if (!(want && strcmp(want, "event") == 0) && cupti_load() == 1)
        t->cupti = &cupti;
    if ((rc = rpl_cuda_check(cu, cu->cuEventCreate(&t->start, CU_EVENT_DEFAULT), RPL_ERROR,
                             "cuEventCreate")) != 0 ||
        (rc = rpl_cuda_check(cu, cu->cuEventCreate(&t->stop, CU_EVENT_DEFAULT), RPL_ERROR,
                             "cuEventCreate")) != 0) {
        rpl_cuda_timer_close(t);
        return rc;
    }
    *out = t;
    return 0;
}

const char *rpl_cuda_timer_name(const rpl_cuda_timer *t)
{
    return t->cupti ? "cupti-kernel" : "cuda-event";
}

int rpl_cuda_timer_begin(rpl_cuda_timer *t)
{
    t->nevents = 0;
    if (!t->cupti)
        return 0;
    pthread_mutex_lock(&records.lock);
    records.count = 0;
    records.incomplete = 0;
    pthread_mutex_unlock(&records.lock);
    if (t->cupti->cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL) != CUPTI_SUCCESS)
        return rpl_error_set(RPL_ERROR, "CUPTI would not record kernels; set "
                                        "ROCM_PERF_REPLAY_TIMER=event to time with CUDA events");
    return 0;
}

int rpl_cuda_timer_before(rpl_cuda_timer *t, CUstream stream)
{
    if (t->cupti)
        return 0;
    return rpl_cuda_check(t->cu, t->cu->cuEventRecord(t->start, stream), RPL_ERROR,
                          "cuEventRecord");
}

int rpl_cuda_timer_after(rpl_cuda_timer *t, CUstream stream)
{
    const rpl_cuda_api *cu = t->cu;
    float ms = 0;
    int rc;

    if (t->cupti)
        return 0;
    if ((rc = rpl_cuda_check(cu, cu->cuEventRecord(t->stop, stream), RPL_ERROR, "cuEventRecord")) !=
            0 ||
        (rc = rpl_cuda_check(cu, cu->cuEventSynchronize(t->stop), RPL_ERROR,
                             "the replayed launch")) != 0 ||
        (rc = rpl_cuda_check(cu, cu->cuEventElapsedTime_v2(&ms, t->start, t->stop), RPL_ERROR,
                             "cuEventElapsedTime")) != 0)
        return rc;
    if ((rc = RPL_ARRAY_GROW(t->event_ns, t->cap, t->nevents + 1)) != 0)
        return rc;
    t->event_ns[t->nevents++] = (double)ms * 1e6;
    return 0;
}

static int by_start(const void *a, const void *b)
{
    const span *x = a, *y = b;

    return x->start < y->start ? -1 : x->start > y->start;
}

int rpl_cuda_timer_end(rpl_cuda_timer *t, double *ns, size_t n)
{
    const rpl_cuda_api *cu = t->cu;
    int rc = 0;

    if (!t->cupti) {
        if (t->nevents != n)
            return rpl_error_set(RPL_ERROR, "%zu launches timed, %zu expected", t->nevents, n);
        memcpy(ns, t->event_ns, n * sizeof(*ns));
        return 0;
    }
    rc = rpl_cuda_check(cu, cu->cuCtxSynchronize(), RPL_ERROR, "the replayed launches");
    t->cupti->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    t->cupti->cuptiActivityDisable(CUPTI_ACTIVITY_KIND_KERNEL);
    if (rc)
        return rc;
    pthread_mutex_lock(&records.lock);
    if (records.count != n) {
        rc = rpl_error_set(RPL_ERROR,
                           "CUPTI reported %zu kernels (%llu incomplete) for %zu launches; set "
                           "ROCM_PERF_REPLAY_TIMER=event to time with CUDA events",
                           records.count, (unsigned long long)records.incomplete, n);
    } else {
        qsort(records.items, n, sizeof(*records.items), by_start);
        for (size_t i = 0; i < n; i++)
            ns[i] = (double)(records.items[i].end - records.items[i].start);
    }
    pthread_mutex_unlock(&records.lock);
    return rc;
}

void rpl_cuda_timer_close(rpl_cuda_timer *t)
{
    if (!t)
        return;
    if (t->start)
        t->cu->cuEventDestroy_v2(t->start);
    if (t->stop)
        t->cu->cuEventDestroy_v2(t->stop);
    free(t->event_ns);
    free(t);
}
