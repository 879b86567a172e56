// Shared helpers of the CUPTI recorder's test programs: every CUDA call is
// checked, and a failed one ends the program with a message and status 1.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t err_ = (call);                                                                 \
        if (err_ != cudaSuccess) {                                                                 \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                     \
                         cudaGetErrorString(err_));                                                \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

// After a launch: launch errors now, execution errors at the next synchronisation.
#define CHECK_LAUNCH() CHECK(cudaGetLastError())

static inline void fail(const char *what)
{
    std::fprintf(stderr, "check failed: %s\n", what);
    std::exit(1);
}
