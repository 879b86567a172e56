/* The CUDA-facing half of the capture (see capture.h for the whole picture). */
#ifndef RPL_CUPTI_CAPTURE_CUDA_H
#define RPL_CUPTI_CAPTURE_CUDA_H

#include <cuda.h>
#include <cupti.h>

#include "capture.h"

/* Start capture mode from InitializeInjection; 0 on success. */
int cc_capture_start(void);

/* Set rpl's error to "<what>: <CUDA's message>" and return RPL_ERROR; 0 for CUDA_SUCCESS. */
int cc_cu_check(CUresult r, const char *what);

/* A kernel launch as a driver launch callback describes it. */
typedef struct cc_launch {
    CUfunction f; /* as passed: may be a CUkernel handle (see cr_launch_function) */
    CUstream stream;
    uint32_t grid[3], block[3];
    uint32_t shared; /* dynamic shared memory, bytes */
    uint32_t cluster[3];
    bool cooperative;
    void **params; /* kernelParams, or NULL */
    void **extra;  /* extra, or NULL */
} cc_launch;

/* Fill *l from the parameters of a driver launch callback; false for other callbacks. */
bool cc_launch_read(cc_launch *l, CUpti_CallbackId cbid, const void *params);

/*
 * The parameter layout of `f` (cuFuncGetParamInfo) and the packed buffer
 * the launch passes: each kernelParams[i] copied to its offset, or the
 * caller's CU_LAUNCH_PARAM_BUFFER_POINTER buffer.  *params and *buf are
 * malloc()ed; *size is the end of the last parameter.
 */
int cc_launch_param_buffer(const cc_launch *l, CUfunction f, rpl_snap_param **params,
                           size_t *nparams, uint8_t **buf, uint64_t *size);

/*
 * Stream `size` bytes at device address `src` into the snapshot file
 * `path` through the pinned bounce buffer; *hash gets a 64-bit digest of
 * the bytes (the capture compares pre and post images with it).
 */
int cc_image_write(rpl_snapshot_writer *w, const char *path, CUdeviceptr src, uint64_t size,
                   uint64_t *hash);
/* Release the bounce buffer (after the capture). */
void cc_image_done(void);

#endif
