/* libcuda.so.1, loaded once at run time (replay_cuda_api.h). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#include "replay_cuda_api.h"
#include "rpl/error.h"

static rpl_cuda_api api;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[256];

static void load(void)
{
    api.lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!api.lib) {
        snprintf(failure, sizeof(failure),
                 "the CUDA driver library libcuda.so.1 cannot be loaded (%s)", dlerror());
        return;
    }
#define RPL_CUDA_RESOLVE(name)                                                                     \
    if (!failure[0] && !(*(void **)&api.name = dlsym(api.lib, #name)))                             \
        snprintf(failure, sizeof(failure),                                                         \
                 "libcuda.so.1 has no %s: the driver is older than CUDA 12.8", #name);
    RPL_CUDA_FUNCTIONS(RPL_CUDA_RESOLVE)
#undef RPL_CUDA_RESOLVE
}

int rpl_cuda_api_load(const rpl_cuda_api **out)
{
    pthread_once(&once, load);
    *out = NULL;
    if (failure[0])
        return rpl_error_set(RPL_EENV, "%s", failure);
    *out = &api;
    return 0;
}

int rpl_cuda_check(const rpl_cuda_api *cu, CUresult r, int code, const char *what)
{
    const char *msg = NULL;

    if (r == CUDA_SUCCESS)
        return 0;
    if (cu->cuGetErrorString(r, &msg) != CUDA_SUCCESS || !msg)
        msg = "unknown error";
    return rpl_error_set(code, "%s: %s (CUresult %d)", what, msg, (int)r);
}
