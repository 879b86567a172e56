/*
 * The CUDA driver API as the replay backend uses it: libcuda.so.1 is loaded
 * at run time (rocm-perf starts on machines without a driver), each entry
 * point by its exported, versioned name, typed from cuda.h.  CUPTI, for
 * timing, is loaded the same way (replay_cuda_timer.c).
 */
#ifndef RPL_REPLAY_CUDA_API_H
#define RPL_REPLAY_CUDA_API_H

#include <cuda.h>

/* X(name): every driver function the backend calls, spelled as libcuda exports it. */
#define RPL_CUDA_FUNCTIONS(X)                                                                      \
    X(cuInit)                                                                                      \
    X(cuDriverGetVersion)                                                                          \
    X(cuGetErrorString)                                                                            \
    X(cuDeviceGetCount)                                                                            \
    X(cuDeviceGet)                                                                                 \
    X(cuDeviceGetName)                                                                             \
    X(cuDeviceGetAttribute)                                                                        \
    X(cuDevicePrimaryCtxRetain)                                                                    \
    X(cuDevicePrimaryCtxRelease_v2)                                                                \
    X(cuCtxSetCurrent)                                                                             \
    X(cuCtxSynchronize)                                                                            \
    X(cuMemGetAllocationGranularity)                                                               \
    X(cuMemAddressReserve)                                                                         \
    X(cuMemAddressFree)                                                                            \
    X(cuMemCreate)                                                                                 \
    X(cuMemRelease)                                                                                \
    X(cuMemMap)                                                                                    \
    X(cuMemUnmap)                                                                                  \
    X(cuMemSetAccess)                                                                              \
    X(cuMemGetInfo_v2)                                                                             \
    X(cuMemAlloc_v2)                                                                               \
    X(cuMemFree_v2)                                                                                \
    X(cuMemAllocHost_v2)                                                                           \
    X(cuMemFreeHost)                                                                               \
    X(cuMemcpyHtoD_v2)                                                                             \
    X(cuMemcpyDtoH_v2)                                                                             \
    X(cuMemcpyHtoDAsync_v2)                                                                        \
    X(cuMemcpyDtoDAsync_v2)                                                                        \
    X(cuMemsetD8Async)                                                                             \
    X(cuModuleLoadData)                                                                            \
    X(cuModuleUnload)                                                                              \
    X(cuModuleGetFunction)                                                                         \
    X(cuModuleGetGlobal_v2)                                                                        \
    X(cuFuncGetParamInfo)                                                                          \
    X(cuFuncSetAttribute)                                                                          \
    X(cuLaunchKernel)                                                                              \
    X(cuLaunchKernelEx)                                                                            \
    X(cuStreamCreate)                                                                              \
    X(cuStreamDestroy_v2)                                                                          \
    X(cuStreamSynchronize)                                                                         \
    X(cuEventCreate)                                                                               \
    X(cuEventDestroy_v2)                                                                           \
    X(cuEventRecord)                                                                               \
    X(cuEventSynchronize)                                                                          \
    X(cuEventElapsedTime_v2)

typedef struct rpl_cuda_api {
    void *lib;
#define RPL_CUDA_DECLARE(name) __typeof__(name) *name;
    RPL_CUDA_FUNCTIONS(RPL_CUDA_DECLARE)
#undef RPL_CUDA_DECLARE
} rpl_cuda_api;

/*
 * Load libcuda.so.1 and resolve every function: RPL_EENV when the library
 * or a function is missing (a driver older than CUDA 12.8).  The table
 * lives for the process.
 */
int rpl_cuda_api_load(const rpl_cuda_api **out);

/* 0 for CUDA_SUCCESS, else set "<what>: <driver message>" and return `code`. */
int rpl_cuda_check(const rpl_cuda_api *cu, CUresult r, int code, const char *what);

#endif
