/*
 * The CUPTI-facing half of librpl_cupti.so: one recorder per process,
 * activity buffers, the device description and the range profiler.
 */
#ifndef RPL_CUPTI_INT_H
#define RPL_CUPTI_INT_H

#include <cuda.h>
#include <cupti.h>

#include "recorder.h"

/* The recorder of this process. */
extern cr_state cr_g;

/* Log a failed CUPTI call ("cupti: <what>: <CUPTI message>"); returns nonzero on failure. */
int cr_cupti_failed(CUptiResult res, const char *what);

/* Fill *out (name, compute capability, extdata) for CUDA device `ordinal`. */
int cr_device_describe(cr_device *out, int ordinal);

/*
 * Register the buffer callbacks and enable the traced activity kinds: GPU
 * work always (kernels timed as `timing` says), runtime and driver API
 * calls as `apis` says.
 */
int cr_activity_start(int apis, cr_kernel_timing timing);
/*
 * Deliver every buffered record (nothing when cr_activity_start was not
 * called, as in a counter run): complete or not (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)
 * when tracing only, the complete ones when counting (see activity.c).
 */
void cr_activity_flush(void);

/*
 * Range profiler (ROCM_PERF_CUPTI_COUNTERS): auto range, kernel replay, on
 * the launches of the sample only.  Every launch and memset enters here
 * (`corr`: launches.c's operation number; `measured`: the sample's verdict,
 * 0 for memsets): a measured launch starts the profiler on its context (set
 * up at the first one) and is remembered, anything else stops it and
 * decodes what it measured into cr_g.ranges; a full counter-data image is
 * decoded at a launch's exit.
 */
void cr_counters_launch_enter(CUcontext ctx, uint32_t corr, int measured);
void cr_counters_launch_exit(CUcontext ctx);
/* Decode what is left and release the profiler of one context (it is going away). */
void cr_counters_context_ending(CUcontext ctx);
/*
 * Stop and decode the profiler of every context and evaluate what is left,
 * once; the profilers are not disabled (see counters.c).  Runs from an exit
 * handler that the first profiled launch registers, so before the CUDA
 * runtime's own exit handler and while the contexts exist; the recorder's
 * exit handler calls it again, which then does nothing.
 */
void cr_counters_finish(void);
/*
 * The counter run's sample is complete (cr_sample_complete): finish the
 * counters, write the database, mark the plan file (PLAN.stopped) and end
 * the process with status 0, rather than run the program to its end.
 */
void cr_end_counter_run(void);
/* True on a thread that is inside one of the cr_counters_* calls (CUPTI's own work). */
int cr_counters_busy(void);

/*
 * The CUfunction behind a launch's handle.  The runtime launches through
 * CUkernel handles (context-independent loading), which cuLaunchKernel takes
 * in place of a CUfunction but cuFuncGetAttribute does not: on an H200 with
 * CUDA 13.0 it gave no registers for them.
 */
CUfunction cr_launch_function(CUfunction f);

/*
 * Counter runs: a launch or memset callback (enter or exit) of the runtime
 * or driver API becomes a dispatch or memset in cr_g, numbered in call
 * order, and drives the range profiler (launches.c).
 */
void cr_launch_callback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                        const CUpti_CallbackData *cd);

#endif
