/*
 * NVIDIA fatbins (nvcc -fatbin, .nv_fatbin sections).  The layout is not
 * documented by NVIDIA; this is what CUDA 13.0 writes [M: nvcc 13.0 output
 * read on this project's build machine], little-endian:
 *   header: u32 magic 0xBA55ED50 | u16 version | u16 header_size | u64 entries_size
 *   entry:  u16 kind (1 PTX, 2 ELF) | u16 | u32 entry_header_size | u64 payload_size |
 *           u32 compressed_size | u32 | u16 | u16 | u32 sm (e.g. 90) | u32 | u32 |
 *           u64 flags (0x2000 LZ4, 0x8000 zstd) | u64 | u64 inflated_size | payload
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codeobj_int.h"
#include "rpl/error.h"

#define KIND_PTX      1
#define KIND_ELF      2
#define ENTRY_MIN_HDR 0x40
#define FLAG_LZ4      0x2000u
#define FLAG_ZSTD     0x8000u

static int read_entry(rpl_codeobj_set *set, const uint8_t *e, size_t hdr, const uint8_t *payload,
                      size_t size, const char *origin, int depth)
{
    unsigned sm = co_le32(e + 0x1c);
    uint64_t flags = co_le64(e + 0x28);
    uint64_t csize = co_le32(e + 0x10), raw = co_le64(e + 0x38);
    char tag[32], *where;
    uint8_t *inflated = NULL;
    int rc;

    (void)hdr;
    snprintf(tag, sizeof(tag), "sm_%u", sm);
    where = co_origin(origin, "#", tag);
    if (!where)
        return rpl_error_oom();
    if (flags & FLAG_LZ4) {
        /* Unreadable here, but still code the program carries: its stored bytes. */
        if (set->on_image)
            set->on_image(set->image_ctx, "cubin-lz4", payload, size);
        rc = co_warn(set, "skipped '%s': LZ4-compressed cubin (not supported)", where);
    } else if (flags & FLAG_ZSTD) {
        if (csize == 0 || csize > size)
            csize = size;
        if (raw == 0 || raw > RPL_CODEOBJ_MAX_INFLATE)
            rc = rpl_error_set(RPL_EINPUT, "'%s': compressed cubin claims %llu bytes", where,
                               (unsigned long long)raw);
        else
            rc = co_zstd_decompress(&inflated, (size_t)raw, payload, (size_t)csize, where);
        if (rc == 0)
            rc = co_read_any(set, inflated, (size_t)raw, where, depth + 1);
        free(inflated);
    } else {
        rc = co_read_any(set, payload, size, where, depth + 1);
    }
    free(where);
    return rc;
}

int co_read_fatbin(rpl_codeobj_set *set, const uint8_t *data, size_t len, const char *origin,
                   int depth)
{
    size_t hdr, pos, end;
    uint64_t body;

    if (len < 16)
        return rpl_error_set(RPL_EINPUT, "'%s': fatbin header is truncated", origin);
    hdr = co_le16(data + 6);
    body = co_le64(data + 8);
    if (hdr < 16 || hdr > len || body > len - hdr)
        return rpl_error_set(RPL_EINPUT,
                             "'%s': fatbin header claims %llu bytes of entries but %zu are there",
                             origin, (unsigned long long)body, len - (hdr < len ? hdr : len));
    pos = hdr;
    end = hdr + (size_t)body;
    while (pos < end) {
        const uint8_t *e = data + pos;
        unsigned kind;
        uint64_t ehdr, size;
        int rc;

        if (end - pos < ENTRY_MIN_HDR)
            return rpl_error_set(RPL_EINPUT, "'%s': fatbin entry at offset %zu is truncated",
                                 origin, pos);
        kind = co_le16(e);
        ehdr = co_le32(e + 4);
        size = co_le64(e + 8);
        if (ehdr < ENTRY_MIN_HDR || ehdr > end - pos || size > end - pos - ehdr)
            return rpl_error_set(RPL_EINPUT,
                                 "'%s': fatbin entry at offset %zu lies outside the fatbin", origin,
                                 pos);
        if (kind == KIND_ELF) {
            rc = read_entry(set, e, (size_t)ehdr, e + ehdr, (size_t)size, origin, depth);
            if (rc != 0)
                return rc;
        } else if (kind == KIND_PTX) {
            if (set->on_image)
                set->on_image(set->image_ctx, "ptx", e + ehdr, (size_t)size);
        } else {
            rc = co_warn(set, "skipped an entry of unknown kind %u in '%s'", kind, origin);
            if (rc != 0)
                return rc;
        }
        pos += (size_t)(ehdr + size);
    }
    return 0;
}
