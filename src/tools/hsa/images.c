/*
 * Device memory into snapshot files (tool_int.h): chunks go through one
 * pinned host buffer with hsa_memory_copy, so a region of any size is
 * never held whole in host memory.
 */
#include <string.h>

#include "rpl/error.h"
#include "rpl/sha256.h"
#include "tool_int.h"

/* Size of the pinned buffer every copy goes through. */
#define BOUNCE_BYTES ((size_t)64 << 20)

int ch_bounce_init(ch_bounce *b, hsa_agent_t gpu)
{
    const ch_pool *p = ch_pool_host();
    hsa_amd_memory_pool_t pool;
    hsa_status_t st;

    memset(b, 0, sizeof(*b));
    if (!p)
        return rpl_error_set(RPL_EENV, "no system memory pool for the copy buffer");
    pool.handle = p->handle;
    /* The runtime's own allocator: this buffer is the tool's, not the application's. */
    st = ch_g.amd.hsa_amd_memory_pool_allocate_fn(pool, BOUNCE_BYTES, 0, &b->host);
    if (st != HSA_STATUS_SUCCESS)
        return ch_hsa_failed(st, "allocating the copy buffer");
    st = ch_g.amd.hsa_amd_agents_allow_access_fn(1, &gpu, NULL, b->host);
    if (st != HSA_STATUS_SUCCESS) {
        ch_g.amd.hsa_amd_memory_pool_free_fn(b->host);
        b->host = NULL;
        return ch_hsa_failed(st, "giving the GPU access to the copy buffer");
    }
    b->size = BOUNCE_BYTES;
    return 0;
}

void ch_bounce_release(ch_bounce *b)
{
    if (b->host)
        ch_g.amd.hsa_amd_memory_pool_free_fn(b->host);
    memset(b, 0, sizeof(*b));
}

static int copy_in(ch_bounce *b, uint64_t addr, size_t n)
{
    hsa_status_t st = ch_g.core.hsa_memory_copy_fn(b->host, (const void *)(uintptr_t)addr, n);

    if (st != HSA_STATUS_SUCCESS)
        return ch_hsa_failed(st, "hsa_memory_copy from the device");
    return 0;
}

int ch_device_read(ch_bounce *b, void *dst, uint64_t addr, size_t size)
{
    size_t off, n;
    int rc;

    for (off = 0; off < size; off += n) {
        n = size - off < b->size ? size - off : b->size;
        rc = copy_in(b, addr + off, n);
        if (rc)
            return rc;
        memcpy((unsigned char *)dst + off, b->host, n);
    }
    return 0;
}

int ch_image_write(rpl_snapshot_writer *w, ch_bounce *b, const char *path, uint64_t addr,
                   uint64_t size, unsigned char digest[32])
{
    rpl_sha256 *md = NULL;
    uint64_t off;
    size_t n;
    int rc;

    if (digest && (rc = rpl_sha256_new(&md)) != 0)
        return rc;
    rc = rpl_snapshot_writer_open(w, path);
    for (off = 0; rc == 0 && off < size; off += n) {
        n = size - off < b->size ? (size_t)(size - off) : b->size;
        rc = copy_in(b, addr + off, n);
        if (rc == 0)
            rc = rpl_snapshot_writer_write(w, b->host, n);
        if (rc == 0 && md)
            rc = rpl_sha256_update(md, b->host, n);
    }
    if (rc == 0)
        rc = rpl_snapshot_writer_close(w);
    if (rc == 0 && md) {
        rc = rpl_sha256_final_raw(md, digest);
        md = NULL;
    }
    rpl_sha256_free(md);
    if (rc)
        rpl_error_prefix("%s (0x%llx, %llu bytes)", path, (unsigned long long)addr,
                         (unsigned long long)size);
    return rc;
}
