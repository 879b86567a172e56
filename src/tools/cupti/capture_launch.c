/*
 * What a driver launch callback tells about the launch: geometry, dynamic
 * shared memory, thread-block cluster and cooperative attributes, and the
 * parameter bytes packed the way CU_LAUNCH_PARAM_BUFFER_POINTER takes them.
 */
#include <stdlib.h>
#include <string.h>

#include "capture_cuda.h"
#include "rpl/error.h"
#include "rpl/log.h"

int cc_cu_check(CUresult r, const char *what)
{
    const char *msg = NULL;

    if (r == CUDA_SUCCESS)
        return 0;
    if (cuGetErrorString(r, &msg) != CUDA_SUCCESS || !msg)
        msg = "unknown error";
    return rpl_error_set(RPL_ERROR, "%s: %s (CUresult %d)", what, msg, (int)r);
}

static void set_dims(cc_launch *l, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                     unsigned bz, unsigned shared)
{
    l->grid[0] = gx, l->grid[1] = gy, l->grid[2] = gz;
    l->block[0] = bx, l->block[1] = by, l->block[2] = bz;
    l->shared = shared;
}

static void read_config(cc_launch *l, const CUlaunchConfig *c)
{
    if (!c)
        return;
    set_dims(l, c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
             c->sharedMemBytes);
    l->stream = c->hStream;
    for (unsigned i = 0; c->attrs && i < c->numAttrs; i++) {
        const CUlaunchAttribute *a = &c->attrs[i];
        if (a->id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
            l->cluster[0] = a->value.clusterDim.x;
            l->cluster[1] = a->value.clusterDim.y;
            l->cluster[2] = a->value.clusterDim.z;
        } else if (a->id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) {
            l->cooperative = a->value.cooperative != 0;
        } else {
            rpl_log_debug("capture: launch attribute %d is not kept for replay", (int)a->id);
        }
    }
}

/* The cc_launch fields of cuLaunchKernel's and cuLaunchCooperativeKernel's parameters `p`. */
#define KERNEL_LAUNCH(p)                                                                           \
    .f = (p)->f, .stream = (p)->hStream, .grid = {(p)->gridDimX, (p)->gridDimY, (p)->gridDimZ},    \
    .block = {(p)->blockDimX, (p)->blockDimY, (p)->blockDimZ}, .shared = (p)->sharedMemBytes,      \
    .params = (p)->kernelParams

bool cc_launch_read(cc_launch *l, CUpti_CallbackId cbid, const void *params)
{
    memset(l, 0, sizeof(*l));
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz: {
        const cuLaunchKernel_params *p = params;
        *l = (cc_launch){KERNEL_LAUNCH(p), .extra = p->extra};
        return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz: {
        const cuLaunchCooperativeKernel_params *p = params;
        *l = (cc_launch){KERNEL_LAUNCH(p), .cooperative = true};
        return true;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz: {
        const cuLaunchKernelEx_params *p = params;
        l->f = p->f;
        read_config(l, p->config);
        l->params = p->kernelParams;
        l->extra = p->extra;
        return true;
    }
    default:
        return false;
    }
}

/* The caller's packed buffer from `extra`, or NULL. */
static const void *extra_buffer(void **extra, size_t *size)
{
    const void *buf = NULL;

    *size = 0;
    for (size_t i = 0; extra && extra[i] != CU_LAUNCH_PARAM_END && i < 64; i += 2) {
        if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
            buf = extra[i + 1];
        else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE && extra[i + 1])
            *size = *(const size_t *)extra[i + 1];
    }
    return buf;
}

static int layout(CUfunction f, rpl_snap_param **out, size_t *n, uint64_t *size)
{
    rpl_snap_param *v = NULL;
    size_t count = 0, cap = 0;

    *size = 0;
    for (size_t i = 0;; i++) {
        size_t off = 0, len = 0;
        CUresult r = cuFuncGetParamInfo(f, i, &off, &len);

        if (r == CUDA_ERROR_INVALID_VALUE)
            break; /* past the last parameter */
        if (r != CUDA_SUCCESS || i >= RPL_SNAPSHOT_MAX_PARAMS || off > UINT32_MAX ||
            len > UINT32_MAX) {
            free(v);
            if (r != CUDA_SUCCESS)
                return cc_cu_check(r, "cuFuncGetParamInfo");
            return rpl_error_set(RPL_ERROR, "parameter %zu is out of range", i);
        }
        if (count == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            rpl_snap_param *nv = realloc(v, ncap * sizeof(*nv));
            if (!nv) {
                free(v);
                return rpl_error_oom();
            }
            v = nv;
            cap = ncap;
        }
        memset(&v[count], 0, sizeof(v[count]));
        v[count].offset = (uint32_t)off;
        v[count].size = (uint32_t)len;
        if (off + len > *size)
            *size = off + len;
        count++;
    }
    *out = v;
    *n = count;
    return 0;
}

int cc_launch_param_buffer(const cc_launch *l, CUfunction f, rpl_snap_param **params,
                           size_t *nparams, uint8_t **buf, uint64_t *size)
{
    rpl_snap_param *v = NULL;
    size_t n = 0;
    uint64_t total = 0;
    uint8_t *b;
    int rc;

    *params = NULL;
    *nparams = 0;
    *buf = NULL;
    *size = 0;
    if ((rc = layout(f, &v, &n, &total)) != 0)
        return rc;
    b = calloc(1, total ? total : 1);
    if (!b) {
        free(v);
        return rpl_error_oom();
    }
    if (l->params) {
        for (size_t i = 0; i < n; i++)
            if (l->params[i])
                memcpy(b + v[i].offset, l->params[i], v[i].size);
    } else if (n > 0) {
        size_t given = 0;
        const void *packed = extra_buffer(l->extra, &given);
        if (!packed) {
            free(v);
            free(b);
            return rpl_error_set(RPL_ERROR, "the launch passed neither kernelParams nor a "
                                            "CU_LAUNCH_PARAM_BUFFER_POINTER buffer");
        }
        if (given != total)
            rpl_log_warn(CC_PREFIX "the launch's parameter buffer holds %zu bytes, the kernel "
                                   "takes %llu",
                         given, (unsigned long long)total);
        memcpy(b, packed, given < total ? given : total);
    }
    *params = v;
    *nparams = n;
    *buf = b;
    *size = total;
    return 0;
}
