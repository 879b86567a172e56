/* The profiler of program runs as the environment chooses it (ROCM_PERF_BACKEND, ...). */
#include <stdlib.h>

#include "rpl/error.h"
#include "rpl/profile_backend.h"

int rpl_profiler_env(int *backend, int *kernel_timing)
{
    const char *b = getenv("ROCM_PERF_BACKEND"), *t = getenv("ROCM_PERF_KERNEL_TIMING");
    rpl_backend be;
    rpl_kernel_timing kt;

    if (b && b[0]) {
        if (rpl_backend_parse(&be, b) != 0)
            return rpl_error_set(RPL_EUSAGE,
                                 "ROCM_PERF_BACKEND is '%s'; it takes auto, rocprofv3 or cupti", b);
        *backend = (int)be;
    }
    if (t && t[0]) {
        if (rpl_kernel_timing_parse(&kt, t) != 0)
            return rpl_error_set(
                RPL_EUSAGE, "ROCM_PERF_KERNEL_TIMING is '%s'; it takes concurrent or serial", t);
        *kernel_timing = (int)kt;
    }
    return 0;
}
