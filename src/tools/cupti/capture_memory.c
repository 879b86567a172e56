/*
 * Device memory into snapshot files: each image is copied in chunks into a
 * pinned bounce buffer and streamed to the snapshot writer, so a region of
 * many gigabytes never sits in host memory whole.  The capture runs while
 * the application's context is drained, so plain synchronous copies do.
 */
#include <string.h>

#include "capture_cuda.h"
#include "rpl/error.h"

#define BOUNCE_BYTES ((size_t)64 << 20)

static void *bounce;

static int bounce_get(void)
{
    CUresult r;

    if (bounce)
        return 0;
    r = cuMemAllocHost(&bounce, BOUNCE_BYTES);
    if (r != CUDA_SUCCESS) {
        bounce = NULL;
        return cc_cu_check(r, "cuMemAllocHost (bounce buffer)");
    }
    return 0;
}

void cc_image_done(void)
{
    if (bounce)
        cuMemFreeHost(bounce);
    bounce = NULL;
}

/*
 * A 64-bit digest of the bytes, word by word (multiply, xor-shift): the
 * capture only asks whether an image changed, and the pre and post images
 * of a range are cut into the same chunks.
 */
static uint64_t digest(uint64_t h, const uint8_t *p, size_t n)
{
    size_t i = 0;

    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

int cc_image_write(rpl_snapshot_writer *w, const char *path, CUdeviceptr src, uint64_t size,
                   uint64_t *hash)
{
    uint64_t h = 0xcbf29ce484222325ull;
    int rc;

    if ((rc = bounce_get()) != 0 || (rc = rpl_snapshot_writer_open(w, path)) != 0)
        return rc;
    for (uint64_t off = 0; off < size;) {
        size_t n = size - off < BOUNCE_BYTES ? (size_t)(size - off) : BOUNCE_BYTES;

        if ((rc = cc_cu_check(cuMemcpyDtoH(bounce, src + off, n), "cuMemcpyDtoH")) != 0) {
            rpl_error_prefix("copying 0x%llx", (unsigned long long)(src + off));
            break;
        }
        h = digest(h, bounce, n);
        if ((rc = rpl_snapshot_writer_write(w, bounce, n)) != 0)
            break;
        off += n;
    }
    if (rc == 0)
        rc = rpl_snapshot_writer_close(w);
    *hash = h;
    return rc;
}
