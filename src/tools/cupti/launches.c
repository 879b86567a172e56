/*
 * Counter runs (ROCM_PERF_CUPTI_COUNTERS): the dispatches and memsets come
 * from the API callbacks, not from activity records.  With the range
 * profiler on, CUDA 13.0's CUPTI either delivered no activity record or
 * aborted on its worker thread (docs/validation/cupti-recorder.md), so a
 * counter run enables no activity kind at all.
 *
 * Every call that makes an auto range (a kernel launch or a memset) becomes
 * one operation, numbered in call order.  Once a launch's kernel name is
 * known, the sample (cr_g.sample) says whether it is measured; the range
 * profiler measures those alone (counters.c), and when the sample's plan is
 * complete the run ends there (cr_end_counter_run).  A runtime call and the driver
 * call the runtime makes for it are one operation: the runtime callback
 * opens it (kernel name from the callback's symbolName, shape from its
 * parameters), the driver callback inside it completes it from the
 * CUfunction (mangled name, registers, static shared and local memory), and
 * the runtime exit records it.  A driver call made directly is one
 * operation by itself.
 *
 * Timestamps are not GPU timestamps: an operation starts when its call is
 * entered (host CLOCK_BOOTTIME, so launch order), and build.c sets a
 * kernel's end to start + gpu__time_duration.sum of its range.  The
 * trace-only run is the source of the timeline.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda.h>
#include <cupti.h>

#include "cupti_int.h"
#include "rpl/clock.h"
#include "rpl/log.h"

typedef struct op {
    int open;      /* between the outermost enter and its exit */
    int runtime;   /* opened by a runtime call */
    int memset;    /* a memset, else a kernel launch */
    int have_func; /* the driver call gave the CUfunction's attributes */
    int decided;   /* the sample has given its verdict (once the name is known) */
    int measured;  /* in the sample: the range profiler measures it */
    CUcontext ctx;
    CUstream stream;
    uint32_t seq;
    cr_kernel k;
    uint64_t bytes;
    const char *name; /* not yet interned */
} op;

static __thread op cur;
static uint32_t next_seq = 1; /* under cr_g.lock */

/* Progress lines on stderr (ROCM_PERF_CUPTI_PROGRESS=LABEL): one every 2 s at most. */
#define PROGRESS_EVERY_NS 2000000000ULL
static int progress = -1; /* -1: not yet read */
static const char *progress_label;
static uint64_t first_ns, last_progress_ns; /* under cr_g.lock */

static uint64_t now_ns(void)
{
    return (uint64_t)rpl_clock_ns(CLOCK_BOOTTIME);
}

static void set_shape(cr_kernel *k, const unsigned grid[3], const unsigned block[3], size_t smem)
{
    for (int i = 0; i < 3; i++) {
        k->grid[i] = (int32_t)grid[i];
        k->block[i] = (int32_t)block[i];
    }
    k->dynamic_smem = (int32_t)smem;
}

/* See cupti_int.h. */
CUfunction cr_launch_function(CUfunction f)
{
    CUfunction g = NULL;
    int v = 0;
    CUresult rc = cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f);

    if (rc == CUDA_SUCCESS)
        return f;
    if (cuKernelGetFunction(&g, (CUkernel)f) == CUDA_SUCCESS && g)
        return g;
    rpl_log_debug("cupti: no attributes for launched function %p (CUresult %d)", (void *)f,
                  (int)rc);
    return f;
}

/* Name, registers, static shared and local memory of a CUfunction. */
static void set_function(op *o, CUfunction f)
{
    const char *name = NULL;
    int v = 0;

    if (!f)
        return;
    f = cr_launch_function(f);
    if (cuFuncGetName(&name, f) == CUDA_SUCCESS && name)
        o->name = name;
    if (cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_NUM_REGS, f) == CUDA_SUCCESS)
        o->k.registers = (uint32_t)v;
    if (cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f) == CUDA_SUCCESS)
        o->k.static_smem = v;
    if (cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, f) == CUDA_SUCCESS)
        o->k.local_per_thread = (uint32_t)v;
    o->have_func = 1;
}

static void from_launch_config(op *o, const CUlaunchConfig *c)
{
    unsigned grid[3], block[3];

    if (!c)
        return;
    grid[0] = c->gridDimX, grid[1] = c->gridDimY, grid[2] = c->gridDimZ;
    block[0] = c->blockDimX, block[1] = c->blockDimY, block[2] = c->blockDimZ;
    set_shape(&o->k, grid, block, c->sharedMemBytes);
    o->stream = c->hStream;
}

/* Bytes of a driver memset from its name: D8/D16/D32, 1D (N) or 2D (Width x Height). */
static uint64_t driver_memset_bytes(const char *name, const void *params)
{
    uint64_t unit = strstr(name, "D32") ? 4 : strstr(name, "D16") ? 2 : 1;

    if (strstr(name, "D2D")) {
        const cuMemsetD2D8_v2_params *p = params;
        return unit * p->Width * p->Height;
    }
    return unit * ((const cuMemsetD8_v2_params *)params)->N;
}

/* The stream of an async driver memset (the last parameter, after the 1D or 2D shape). */
static CUstream driver_memset_stream(const char *name, const void *params)
{
    if (!strstr(name, "Async"))
        return NULL;
    if (strstr(name, "D2D"))
        return ((const cuMemsetD2D8Async_params *)params)->hStream;
    return ((const cuMemsetD8Async_params *)params)->hStream;
}

static void fill_driver(op *o, CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
    const char *fn = cd->functionName ? cd->functionName : "";

    if (strstr(fn, "Memset")) {
        o->memset = 1;
        o->bytes = driver_memset_bytes(fn, cd->functionParams);
        if (!o->runtime)
            o->stream = driver_memset_stream(fn, cd->functionParams);
        return;
    }
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        /* The cooperative launch takes the same parameters. */
        const cuLaunchKernel_params *p = cd->functionParams;
        unsigned grid[3] = {p->gridDimX, p->gridDimY, p->gridDimZ};
        unsigned block[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
        set_shape(&o->k, grid, block, p->sharedMemBytes);
        o->stream = p->hStream;
        set_function(o, p->f);
        break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_params *p = cd->functionParams;
        from_launch_config(o, p->config);
        set_function(o, p->f);
        break;
    }
    default:
        break;
    }
}

static void fill_runtime(op *o, CUpti_CallbackId cbid, const CUpti_CallbackData *cd)
{
    const char *fn = cd->functionName ? cd->functionName : "";

    if (strstr(fn, "Memset")) {
        o->memset = 1;
        if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020 ||
            cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020 ||
            cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000)
            o->bytes = ((const cudaMemset_v3020_params *)cd->functionParams)->count;
        if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020 ||
            cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000)
            o->stream = ((const cudaMemsetAsync_v3020_params *)cd->functionParams)->stream;
        return;
    }
    o->name = cd->symbolName;
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000) {
        const cudaLaunchKernel_v7000_params *p = cd->functionParams;
        unsigned grid[3] = {p->gridDim.x, p->gridDim.y, p->gridDim.z};
        unsigned block[3] = {p->blockDim.x, p->blockDim.y, p->blockDim.z};
        set_shape(&o->k, grid, block, p->sharedMem);
        o->stream = p->stream;
    }
}

/* Append the finished operation to cr_g as a kernel or a memset. */
static void record(op *o)
{
    uint32_t context = 0, device = 0, stream = 0;
    uint64_t end = now_ns();

    cuptiGetContextId(o->ctx, &context);
    cuptiGetDeviceId(o->ctx, &device);
    if (cuptiGetStreamIdEx(o->ctx, o->stream, 0, &stream) != CUPTI_SUCCESS)
        stream = 0;
    pthread_mutex_lock(&cr_g.lock);
    if (o->memset) {
        cr_copy *c = CR_PUSH(cr_g.copies);
        if (c) {
            *c = (cr_copy){.start = o->k.start,
                           .end = end,
                           .bytes = o->bytes,
                           .device = device,
                           .context = context,
                           .stream = stream,
                           .corr = o->seq,
                           .dir = CR_COPY_MEMSET};
        } else {
            cr_g.dropped_records++;
        }
    } else {
        cr_kernel *k = CR_PUSH(cr_g.kernels);
        const char *name = rpl_trace_intern(cr_g.trace, o->name ? o->name : "");
        if (k && name) {
            *k = o->k;
            k->end = end;
            k->device = device;
            k->context = context;
            k->stream = stream;
            k->corr = o->seq;
            k->name = name;
        } else {
            if (k)
                cr_g.kernels.count--;
            cr_g.dropped_records++;
        }
    }
    pthread_mutex_unlock(&cr_g.lock);
    if (!o->memset && !o->have_func)
        rpl_log_debug("cupti: launch %u of '%s' had no driver call: registers unknown", o->seq,
                      o->name ? o->name : "");
}

/* A line on stderr every few seconds of a long counter run: launches seen and measured. */
static void say_progress(uint64_t now)
{
    if (progress < 0) {
        progress_label = getenv("ROCM_PERF_CUPTI_PROGRESS");
        progress = progress_label && progress_label[0];
    }
    if (!progress)
        return;
    pthread_mutex_lock(&cr_g.lock);
    if (!first_ns)
        first_ns = last_progress_ns = now;
    if (now - last_progress_ns >= PROGRESS_EVERY_NS) {
        last_progress_ns = now;
        fprintf(stderr, "rocm-perf: %s: %llu dispatches seen, %llu measured, %.0f s\n",
                progress_label, (unsigned long long)cr_g.sample.launches,
                (unsigned long long)cr_g.sample.measured, (double)(now - first_ns) / 1e9);
    }
    pthread_mutex_unlock(&cr_g.lock);
}

/* The sample's verdict, once the operation is known to be a memset or has a kernel name. */
static void decide(op *o)
{
    if (o->decided || (!o->memset && !o->name))
        return;
    o->decided = 1;
    if (o->memset)
        return;
    pthread_mutex_lock(&cr_g.lock);
    o->measured = cr_sample_next(&cr_g.sample, o->name);
    pthread_mutex_unlock(&cr_g.lock);
}

static void open_op(op *o, int runtime, const CUpti_CallbackData *cd)
{
    memset(o, 0, sizeof(*o));
    o->open = 1;
    o->runtime = runtime;
    o->ctx = cd->context;
    o->k.start = now_ns();
    pthread_mutex_lock(&cr_g.lock);
    o->seq = next_seq++;
    pthread_mutex_unlock(&cr_g.lock);
}

void cr_launch_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                        const CUpti_CallbackData *cd)
{
    int runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;

    /* The profiler's own work (replay, decoding) is not the application's. */
    if (cr_counters_busy())
        return;
    if (cd->callbackSite == CUPTI_API_ENTER) {
        if (!cur.open) {
            open_op(&cur, runtime, cd);
            if (runtime)
                fill_runtime(&cur, cbid, cd);
            else
                fill_driver(&cur, cbid, cd);
        } else if (!runtime && cur.runtime) {
            fill_driver(&cur, cbid, cd); /* the driver call of the runtime call */
        }
        decide(&cur);
        if (!cur.ctx)
            cur.ctx = cd->context;
        if (cur.ctx)
            cr_counters_launch_enter(cur.ctx, cur.seq, cur.measured);
        return;
    }
    /* Exit: only the call that opened the operation closes it. */
    if (!cur.open || runtime != cur.runtime)
        return;
    if (!cur.ctx)
        cur.ctx = cd->context;
    if (cur.ctx) {
        record(&cur);
        cr_counters_launch_exit(cur.ctx);
        say_progress(now_ns());
    }
    cur.open = 0;
    if (cur.measured && cr_sample_complete(&cr_g.sample))
        cr_end_counter_run();
}
