/*
 * What an API region does for the DAG, from its name: the HIP, CUDA runtime
 * and CUDA driver calls of docs/schemas/dag-dependencies.md.  A name is read
 * without its per-thread default stream suffix ("_ptsz", "_ptds", "_spt")
 * and without CUPTI's version suffix ("_v2", "_v3020"), in either order.
 */
#include <stdlib.h>
#include <string.h>

#include "dag_internal.h"

typedef struct api_name {
    const char *name;
    uint8_t kind;
    bool implicit_stream; /* the call has no stream parameter */
} api_name;

#define REC  RPL_DAG_API_RECORD
#define WAIT RPL_DAG_API_WAIT
#define DEV  RPL_DAG_API_DEVICE_SYNC
#define STR  RPL_DAG_API_STREAM_SYNC
#define EVT  RPL_DAG_API_EVENT_SYNC
#define OP   RPL_DAG_API_BLOCKING_OP

/* Sorted by name (strcmp), for bsearch. */
static const api_name names[] = {
    {"cuCtxSynchronize", DEV, false},
    {"cuEventRecord", REC, false},
    {"cuEventRecordWithFlags", REC, false},
    {"cuEventSynchronize", EVT, false},
    {"cuMemFree", DEV, false},
    {"cuMemFreeHost", DEV, false},
    {"cuMemcpy", OP, true},
    {"cuMemcpy2D", OP, true},
    {"cuMemcpy2DUnaligned", OP, true},
    {"cuMemcpy3D", OP, true},
    {"cuMemcpy3DPeer", OP, true},
    {"cuMemcpyAtoA", OP, true},
    {"cuMemcpyAtoD", OP, true},
    {"cuMemcpyAtoH", OP, true},
    {"cuMemcpyDtoA", OP, true},
    {"cuMemcpyDtoD", OP, true},
    {"cuMemcpyDtoH", OP, true},
    {"cuMemcpyHtoA", OP, true},
    {"cuMemcpyHtoD", OP, true},
    {"cuMemcpyPeer", OP, true},
    {"cuMemsetD16", OP, true},
    {"cuMemsetD2D16", OP, true},
    {"cuMemsetD2D32", OP, true},
    {"cuMemsetD2D8", OP, true},
    {"cuMemsetD32", OP, true},
    {"cuMemsetD8", OP, true},
    {"cuStreamSynchronize", STR, false},
    {"cuStreamWaitEvent", WAIT, false},
    {"cudaDeviceSynchronize", DEV, false},
    {"cudaEventRecord", REC, false},
    {"cudaEventRecordWithFlags", REC, false},
    {"cudaEventSynchronize", EVT, false},
    {"cudaFree", DEV, false},
    {"cudaFreeArray", DEV, false},
    {"cudaFreeHost", DEV, false},
    {"cudaMemcpy", OP, true},
    {"cudaMemcpy2D", OP, true},
    {"cudaMemcpy2DArrayToArray", OP, true},
    {"cudaMemcpy2DFromArray", OP, true},
    {"cudaMemcpy2DToArray", OP, true},
    {"cudaMemcpy3D", OP, true},
    {"cudaMemcpy3DPeer", OP, true},
    {"cudaMemcpyArrayToArray", OP, true},
    {"cudaMemcpyFromArray", OP, true},
    {"cudaMemcpyFromSymbol", OP, true},
    {"cudaMemcpyPeer", OP, true},
    {"cudaMemcpyToArray", OP, true},
    {"cudaMemcpyToSymbol", OP, true},
    {"cudaMemset", OP, true},
    {"cudaMemset2D", OP, true},
    {"cudaMemset3D", OP, true},
    {"cudaStreamSynchronize", STR, false},
    {"cudaStreamWaitEvent", WAIT, false},
    {"cudaThreadSynchronize", DEV, false},
    {"hipCtxSynchronize", DEV, false},
    {"hipDeviceSynchronize", DEV, false},
    {"hipEventRecord", REC, false},
    {"hipEventRecordWithFlags", REC, false},
    {"hipEventSynchronize", EVT, false},
    {"hipFree", DEV, false},
    {"hipFreeArray", DEV, false},
    {"hipFreeHost", DEV, false},
    {"hipHostFree", DEV, false},
    {"hipMemcpy", OP, true},
    {"hipMemcpy2D", OP, true},
    {"hipMemcpy2DFromArray", OP, true},
    {"hipMemcpy2DToArray", OP, true},
    {"hipMemcpy3D", OP, true},
    {"hipMemcpyAtoH", OP, true},
    {"hipMemcpyDtoD", OP, true},
    {"hipMemcpyDtoH", OP, true},
    {"hipMemcpyFromArray", OP, true},
    {"hipMemcpyFromSymbol", OP, true},
    {"hipMemcpyHtoA", OP, true},
    {"hipMemcpyHtoD", OP, true},
    {"hipMemcpyParam2D", OP, true},
    {"hipMemcpyPeer", OP, true},
    {"hipMemcpyToArray", OP, true},
    {"hipMemcpyToSymbol", OP, true},
    {"hipMemcpyWithStream", OP, false},
    {"hipMemset", OP, true},
    {"hipMemset2D", OP, true},
    {"hipMemset3D", OP, true},
    {"hipMemsetD16", OP, true},
    {"hipMemsetD32", OP, true},
    {"hipMemsetD8", OP, true},
    {"hipStreamSynchronize", STR, false},
    {"hipStreamWaitEvent", WAIT, false},
};

static int cmp_name(const void *key, const void *elem)
{
    return strcmp(key, ((const api_name *)elem)->name);
}

static bool strip_suffix(char *s, size_t *len, const char *suffix)
{
    size_t n = strlen(suffix);

    if (*len <= n || memcmp(s + *len - n, suffix, n) != 0)
        return false;
    *len -= n;
    s[*len] = '\0';
    return true;
}

/* Strip a trailing "_v<digits>". */
static void strip_version(char *s, size_t *len)
{
    size_t i = *len;

    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    if (i < *len && i >= 3 && s[i - 1] == 'v' && s[i - 2] == '_') {
        *len = i - 2;
        s[*len] = '\0';
    }
}

static bool strip_per_thread(char *s, size_t *len)
{
    return strip_suffix(s, len, "_ptsz") || strip_suffix(s, len, "_ptds") ||
           strip_suffix(s, len, "_spt");
}

void rpl_dag_api_classify(const char *name, rpl_dag_api *out)
{
    char buf[64];
    size_t len;
    const api_name *hit;

    memset(out, 0, sizeof(*out));
    if (!name || (name[0] != 'h' && name[0] != 'c') || (len = strlen(name)) >= sizeof(buf))
        return;
    memcpy(buf, name, len + 1);
    out->per_thread = strip_per_thread(buf, &len);
    strip_version(buf, &len);
    if (!out->per_thread)
        out->per_thread = strip_per_thread(buf, &len);
    hit = bsearch(buf, names, sizeof(names) / sizeof(names[0]), sizeof(names[0]), cmp_name);
    if (hit) {
        out->kind = hit->kind;
        out->implicit_stream = hit->implicit_stream;
    }
}
