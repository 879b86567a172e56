/*
 * librpl_cupti.so internals: what the CUDA injection library records while
 * the application runs, and how it becomes an rpl_trace at the end.
 *
 * The CUPTI callbacks copy each activity record into the compact arrays of
 * cr_state (under its lock; buffers complete on a CUPTI worker thread).  At
 * process exit cr_build_trace() turns them into the trace model: runtime and
 * driver API calls become regions, kernels dispatches, copies and memsets
 * memory copies, CUDA event records and stream waits arguments of their API
 * regions, and range-profiler values dispatch counters.  A counter run
 * fills the kernel and memset arrays from the launch callbacks instead of
 * activity records (launch_times below).  Only cr_build_trace() and the
 * metric list are free of CUPTI calls, so the unit tests exercise them.
 */
#ifndef RPL_CUPTI_RECORDER_H
#define RPL_CUPTI_RECORDER_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "rpl/array.h"
#include "rpl/trace.h"

/* Which API a recorded call belongs to (CUPTI callback domains 1 and 2). */
enum { CR_API_DRIVER = 1, CR_API_RUNTIME = 2 };

typedef struct cr_api {
    uint64_t start, end;
    uint32_t corr, pid, tid;
    uint32_t cbid;
    uint8_t domain; /* CR_API_* */
} cr_api;

typedef struct cr_kernel {
    uint64_t start, end;
    uint32_t device, context, stream, corr;
    int32_t grid[3];  /* blocks per dimension, as CUDA launches them */
    int32_t block[3]; /* threads per block */
    int32_t static_smem, dynamic_smem;
    uint32_t local_per_thread;
    uint32_t registers;
    const char *name; /* mangled, interned in cr_state.trace */
} cr_kernel;

typedef enum cr_copy_dir {
    CR_COPY_OTHER = 0,
    CR_COPY_HTOD,
    CR_COPY_DTOH,
    CR_COPY_DTOD,
    CR_COPY_HTOH,
    CR_COPY_MEMSET
} cr_copy_dir;

typedef struct cr_copy {
    uint64_t start, end, bytes;
    uint32_t device, context, stream, corr, runtime_corr;
    cr_copy_dir dir;
} cr_copy;

/* Synchronisation types, as CUpti_ActivitySynchronizationType numbers them. */
enum {
    CR_SYNC_EVENT_SYNCHRONIZE = 1,
    CR_SYNC_STREAM_WAIT_EVENT = 2,
    CR_SYNC_STREAM_SYNCHRONIZE = 3,
    CR_SYNC_CONTEXT_SYNCHRONIZE = 4
};

typedef struct cr_sync {
    uint64_t start, end, sync_id;
    uint32_t type, corr, context, stream, event;
} cr_sync;

/* One cudaEventRecord (CUPTI_ACTIVITY_KIND_CUDA_EVENT). */
typedef struct cr_event {
    uint64_t sync_id;
    uint32_t corr, context, stream, event, device;
} cr_event;

typedef struct cr_device {
    uint32_t ordinal;
    char name[256]; /* "NVIDIA H100 80GB HBM3" */
    int cc_major, cc_minor;
    void *extdata; /* cJSON object, owned until handed to the trace */
} cr_device;

/* Counter values of one range: one sampled kernel launch. */
typedef struct cr_range {
    uint32_t context;
    uint32_t corr;         /* the launch's operation number (cr_kernel.corr) */
    uint32_t values_first; /* slice of cr_state.range_values, one per metric */
} cr_range;

#define CR_VEC(type)                                                                               \
    struct {                                                                                       \
        type *items;                                                                               \
        size_t count, cap;                                                                         \
    }

/*
 * The sample of a counter run: launch i (from 0) of each kernel, by name,
 * is measured when skip <= i < skip + per_kernel (CR_SAMPLE_ALL: every one
 * from skip on).  ROCM_PERF_CUPTI_COUNTER_SKIP and
 * ROCM_PERF_CUPTI_COUNTER_DISPATCHES ("all" or a count) set it; unset, every
 * launch is measured.
 */
#define CR_SAMPLE_ALL UINT32_MAX

typedef struct cr_sample {
    uint32_t skip, per_kernel;
    uint64_t launches, measured; /* every launch seen; those measured */
    struct sample_entry *slots;  /* per kernel name */
    size_t count, cap;
    bool planned;      /* a plan was loaded */
    size_t unfinished; /* planned kernels not yet measured as often as planned */
} cr_sample;

/* Parse the two variables (NULL or "": the default); RPL_EUSAGE on a bad value. */
int cr_sample_parse(cr_sample *s, const char *skip, const char *per_kernel);
/*
 * Load a plan (ROCM_PERF_CUPTI_COUNTER_STOP): lines "COUNT<TAB>NAME", how
 * many launches of kernel NAME the sample will measure in this run.
 */
int cr_sample_plan_load(cr_sample *s, const char *path);
/* Count one launch of kernel `name` (NULL: a memset); true when it is to be measured. */
bool cr_sample_next(cr_sample *s, const char *name);
/* A plan was loaded and every kernel in it has been measured as often as planned. */
bool cr_sample_complete(const cr_sample *s);
void cr_sample_release(cr_sample *s);

typedef struct cr_state {
    pthread_mutex_t lock;
    rpl_trace *trace; /* receives interned names now, everything at the end */
    CR_VEC(cr_api) apis;
    CR_VEC(cr_kernel) kernels;
    CR_VEC(cr_copy) copies;
    CR_VEC(cr_sync) syncs;
    CR_VEC(cr_event) events;
    CR_VEC(cr_device) devices;
    CR_VEC(cr_range) ranges;
    CR_VEC(double) range_values;
    const char **metrics; /* counter names, NULL-terminated; NULL when tracing only */
    size_t nmetrics;
    uint64_t dropped_records;
    uint64_t dropped_ranges;
    cr_sample sample; /* which launches a counter run measures */
    /*
     * Counter run: kernels come from the launch callbacks with start = the
     * launch call's time, and a dispatch's end becomes start +
     * gpu__time_duration.sum of its range when that metric was measured.
     */
    bool launch_times;
} cr_state;

/* Append one zeroed item to a CR_VEC; returns it, or NULL when out of memory. */
#define CR_PUSH(vec) ((__typeof__((vec).items))RPL_ARRAY_PUSH((vec).items, (vec).count, (vec).cap))

int cr_state_init(cr_state *st);
void cr_state_release(cr_state *st);

/* Facts about the process that the trace records. */
typedef struct cr_process_info {
    int64_t pid, ppid;
    int64_t start, end; /* ns, CLOCK_BOOTTIME */
    const char *command;
    const char *hostname;
    const char *cpu_model; /* "" when unknown */
    const char *db_path;
} cr_process_info;

/* Name of an API function, e.g. (CR_API_RUNTIME, 211) -> "cudaLaunchKernel". */
typedef const char *(*cr_api_name_fn)(uint8_t domain, uint32_t cbid);

/*
 * Move everything recorded into st->trace (the arrays are left as they
 * are).  api_name resolves the callback ids of API records.
 */
int cr_build_trace(cr_state *st, const cr_process_info *proc, cr_api_name_fn api_name);

/* rocpd_event categories of API regions, and the name of memset records. */
#define CR_CATEGORY_RUNTIME "CUDA_RUNTIME_API"
#define CR_CATEGORY_DRIVER  "CUDA_DRIVER_API"
#define CR_MEMSET_NAME      "MEMORY_SET"

/*
 * Metric list for the range profiler from ROCM_PERF_CUPTI_COUNTERS:
 * "roofline" (the metric set of docs/USER_GUIDE.md), or a comma-separated
 * list of ncu metric names.  *out is a NULL-terminated array of strings in
 * one allocation (free() it); "" or "none" gives *out = NULL.
 */
int cr_metrics_parse(const char *spec, const char ***out, size_t *count);

/* Which API calls are recorded (ROCM_PERF_CUPTI_API). */
enum { CR_TRACE_RUNTIME = 1, CR_TRACE_DRIVER = 2 };

/*
 * ROCM_PERF_CUPTI_API: a comma-separated list of "runtime" and "driver", or
 * "none"; unset or "" means the runtime alone (driver records double the
 * per-launch cost and the runtime call already correlates each launch).
 * *out gets CR_TRACE_* bits.
 */
int cr_api_parse(const char *spec, int *out);

/* What a trace-only run asks CUPTI to record besides kernels (cr_record_kinds). */
enum {
    CR_RECORD_COPIES = 1,      /* memory copies and memsets */
    CR_RECORD_RUNTIME = 2,     /* runtime API calls */
    CR_RECORD_DRIVER = 4,      /* driver API calls */
    CR_RECORD_API_DETAILS = 8, /* synchronisations and CUDA events */
};

/*
 * The CR_RECORD_* bits for the API selection `apis` (CR_TRACE_* bits).
 * Synchronisation and CUDA event records say which stream and event an API
 * call named (build.c gives them to the API regions as arguments); with no
 * API recorded they would describe nothing, and CUPTI makes every launch pay
 * for them (on an H100 each kind lengthened a loop of tiny launches by
 * 13-16% of its bare time: docs/validation/cupti-recorder.md), so they come
 * only with API records.
 */
unsigned cr_record_kinds(int apis);

/* How kernel start and end times are taken (ROCM_PERF_CUPTI_KERNELS). */
typedef enum cr_kernel_timing {
    CR_KERNELS_CONCURRENT, /* CUPTI instruments the kernel code; kernels keep overlapping */
    CR_KERNELS_SERIAL,     /* no instrumentation; CUPTI serialises all kernels */
} cr_kernel_timing;

/*
 * ROCM_PERF_CUPTI_KERNELS: "concurrent" (also unset or "") or "serial".
 * Concurrent-kernel tracing instruments every thread block and slows kernels
 * made of many short blocks (5-9% for the memory-bound kernels of
 * docs/validation/cupti-recorder.md); serial tracing measures them as ncu
 * does but runs no two kernels at once.  On a bad value *out is concurrent.
 */
int cr_kernel_timing_parse(const char *spec, cr_kernel_timing *out);

/*
 * True for the API calls that make auto ranges: kernel launches (not host
 * functions) and memsets, by CUPTI callback name.
 */
bool cr_api_makes_range(const char *name);

/* The roofline metric set, NULL-terminated. */
extern const char *const cr_roofline_metrics[];

/* "<dir>/<hostname>/<pid>_results.db" (free()). */
int cr_output_path(char **out, const char *dir, const char *hostname, int64_t pid);

#endif
