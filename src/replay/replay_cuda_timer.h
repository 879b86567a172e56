/*
 * Device time of each replayed launch.  By default from CUPTI's serial
 * kernel records (CUPTI_ACTIVITY_KIND_KERNEL: start and end of the kernel
 * alone, no launch overhead, no instrumentation of the kernel), the mode the
 * CUPTI recorder uses with --kernel-timing serial, so the two compare like
 * for like; libcupti is loaded at run time.  Without libcupti, or with
 * ROCM_PERF_REPLAY_TIMER=event, from a pair of CUDA events around each
 * launch (which includes the launch's own overhead on the device).
 */
#ifndef RPL_REPLAY_CUDA_TIMER_H
#define RPL_REPLAY_CUDA_TIMER_H

#include <stdbool.h>
#include <stddef.h>

#include "replay_cuda_api.h"

typedef struct rpl_cuda_timer rpl_cuda_timer;

/* Pick the timer (logs why when CUPTI is not used); call after the reservations. */
int rpl_cuda_timer_open(rpl_cuda_timer **out, const rpl_cuda_api *cu);
/* "cupti-kernel" or "cuda-event". */
const char *rpl_cuda_timer_name(const rpl_cuda_timer *t);

/* Around the timed launches: begin before the first, end after the last has been issued. */
int rpl_cuda_timer_begin(rpl_cuda_timer *t);
/* Bracket one launch on `stream` (events; no-ops with CUPTI). */
int rpl_cuda_timer_before(rpl_cuda_timer *t, CUstream stream);
int rpl_cuda_timer_after(rpl_cuda_timer *t, CUstream stream);
/*
 * Wait for the device and collect the durations in launch order: exactly
 * `n` launches were bracketed since begin, else RPL_ERROR.  `ns` has room for n.
 */
int rpl_cuda_timer_end(rpl_cuda_timer *t, double *ns, size_t n);
void rpl_cuda_timer_close(rpl_cuda_timer *t);

#endif
