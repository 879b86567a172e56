/*
 * The cost of CUPTI's kernel tracing alone, for the overhead benchmark: a
 * CUDA injection library that enables concurrent-kernel activity (and the
 * runtime API with CUPTI_FLOOR_API=runtime), hands CUPTI large buffers and
 * throws the records away unread.  Whatever the recorder costs beyond this
 * is the recorder's own.
 *   CUDA_INJECTION64_PATH=libcupti_floor.so tiny_kernel_launches 100000
 * Build: cc -O2 -shared -fPIC -I$CUDA/include -o libcupti_floor.so cupti_floor.c
 *        -L$CUDA/lib64 -lcupti
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#define BUFFER_SIZE ((size_t)16 << 20)

int InitializeInjection(void);

static void CUPTIAPI requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, BUFFER_SIZE);
    *size = *buffer ? BUFFER_SIZE : 0;
    *max_records = 0;
}

static void CUPTIAPI completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                               size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    (void)valid;
    free(buffer);
}

static void at_exit(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

int InitializeInjection(void)
{
    const char *api = getenv("CUPTI_FLOOR_API");

    if (cuptiActivityRegisterCallbacks(requested, completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS)
        return 0;
    if (api && strcmp(api, "runtime") == 0)
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
    atexit(at_exit);
    return 1;
}
