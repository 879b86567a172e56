/*
 * clang offload bundles.
 *
 * Plain ("__CLANG_OFFLOAD_BUNDLE__"), all fields little-endian:
 *   magic[24] | u64 entries | entries x (u64 offset, u64 size, u64 id_len, id[id_len]) | payloads
 * with offsets from the start of the bundle.  Entry ids look like
 * "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" or "host-x86_64-unknown-linux".
 *
 * Compressed ("CCOB", clang's CompressedOffloadBundle):
 *   v1: magic[4] u16 version u16 method u32 raw_size u64 hash | data
 *   v2: magic[4] u16 version u16 method u32 total_size u32 raw_size u64 hash | data
 * method 0 = zlib, 1 = zstd; the data inflates to a plain bundle.  Later
 * versions (64-bit sizes) are refused with a clear message rather than guessed.
 */
#include <stdlib.h>
#include <string.h>

#include "codeobj_int.h"
#include "rpl/error.h"

#ifdef RPL_HAVE_ZSTD
#include <zstd.h>
#endif

#define BUNDLE_HDR 32 /* magic + entry count */
#define CCOB_ZLIB  0
#define CCOB_ZSTD  1

typedef struct ccob_hdr {
    unsigned version, method;
    size_t header;  /* bytes before the compressed data */
    uint64_t total; /* whole compressed bundle, 0 when v1 does not say */
    uint64_t raw;   /* inflated size */
} ccob_hdr;

static int ccob_parse(ccob_hdr *h, const uint8_t *data, size_t len, const char *origin)
{
    if (len < 20)
        return rpl_error_set(RPL_EINPUT, "'%s': compressed bundle header is truncated", origin);
    h->version = co_le16(data + 4);
    h->method = co_le16(data + 6);
    switch (h->version) {
    case 1:
        h->header = 20;
        h->total = 0;
        h->raw = co_le32(data + 8);
        break;
    case 2:
        if (len < 24)
            return rpl_error_set(RPL_EINPUT, "'%s': compressed bundle header is truncated", origin);
        h->header = 24;
        h->total = co_le32(data + 8);
        h->raw = co_le32(data + 12);
        break;
    default:
        return rpl_error_set(RPL_EINPUT, "'%s': unknown compressed bundle version %u", origin,
                             h->version);
    }
    if (h->total && (h->total < h->header || h->total > len))
        return rpl_error_set(RPL_EINPUT,
                             "'%s': compressed bundle claims %llu bytes but %zu are there", origin,
                             (unsigned long long)h->total, len);
    if (h->raw == 0 || h->raw > RPL_CODEOBJ_MAX_INFLATE)
        return rpl_error_set(RPL_EINPUT, "'%s': compressed bundle claims an inflated size of %llu",
                             origin, (unsigned long long)h->raw);
    return 0;
}

/* Bytes of compressed data after the header (v1 records no total: one zstd frame). */
static int ccob_data_len(size_t *out, const ccob_hdr *h, const uint8_t *data, size_t len,
                         const char *origin)
{
    if (h->total) {
        *out = (size_t)h->total - h->header;
        return 0;
    }
#ifdef RPL_HAVE_ZSTD
    if (h->method == CCOB_ZSTD) {
        size_t n = ZSTD_findFrameCompressedSize(data + h->header, len - h->header);

        if (ZSTD_isError(n))
            return rpl_error_set(RPL_EINPUT, "'%s': compressed bundle data is corrupt: %s", origin,
                                 ZSTD_getErrorName(n));
        *out = n;
        return 0;
    }
#else
    (void)data;
    (void)origin;
#endif
    *out = len - h->header;
    return 0;
}

int co_zstd_decompress(uint8_t **out, size_t out_len, const uint8_t *data, size_t len,
                       const char *origin)
{
#ifdef RPL_HAVE_ZSTD
    uint8_t *buf = malloc(out_len ? out_len : 1);
    size_t n;

    if (!buf)
        return rpl_error_oom();
    n = ZSTD_decompress(buf, out_len, data, len);
    if (ZSTD_isError(n) || n != out_len) {
        free(buf);
        return rpl_error_set(RPL_EINPUT, "'%s': compressed data is corrupt: %s", origin,
                             ZSTD_isError(n) ? ZSTD_getErrorName(n) : "size differs from header");
    }
    *out = buf;
    return 0;
#else
    (void)out;
    (void)out_len;
    (void)data;
    (void)len;
    return rpl_error_set(RPL_EENV, "'%s' is zstd-compressed and this build has no libzstd", origin);
#endif
}

int co_read_ccob(rpl_codeobj_set *set, const uint8_t *data, size_t len, const char *origin,
                 int depth)
{
    ccob_hdr h = {0};
    size_t clen = 0;
    uint8_t *raw = NULL;
    int rc = ccob_parse(&h, data, len, origin);

    if (rc == 0)
        rc = ccob_data_len(&clen, &h, data, len, origin);
    if (rc != 0)
        return rc;
    if (h.method == CCOB_ZLIB)
        return rpl_error_set(RPL_EENV, "'%s' is a zlib-compressed bundle; only zstd is supported",
                             origin);
    if (h.method != CCOB_ZSTD)
        return rpl_error_set(RPL_EINPUT, "'%s': unknown compression method %u", origin, h.method);
    rc = co_zstd_decompress(&raw, (size_t)h.raw, data + h.header, clen, origin);
    if (rc != 0)
        return rc;
    if (h.raw < BUNDLE_HDR || memcmp(raw, "__CLANG_OFFLOAD_BUNDLE__", 24) != 0)
        rc = rpl_error_set(RPL_EINPUT, "'%s': compressed bundle does not inflate to a bundle",
                           origin);
    else
        rc = co_read_bundle(set, raw, (size_t)h.raw, origin, depth + 1);
    free(raw);
    return rc;
}

/* Walk the entry table; call `fn` per entry unless it is NULL.  *end gets the extent. */
typedef int (*entry_fn)(rpl_codeobj_set *set, const uint8_t *payload, size_t size, const char *id,
                        size_t id_len, const char *origin, int depth);

static int walk_bundle(rpl_codeobj_set *set, const uint8_t *data, size_t len, const char *origin,
                       int depth, entry_fn fn, size_t *end)
{
    uint64_t n;
    size_t pos = BUNDLE_HDR, extent = BUNDLE_HDR;

    if (len < BUNDLE_HDR)
        return rpl_error_set(RPL_EINPUT, "'%s': offload bundle header is truncated", origin);
    n = co_le64(data + 24);
    if (n > (len - BUNDLE_HDR) / 24)
        return rpl_error_set(RPL_EINPUT, "'%s': offload bundle claims %llu entries", origin,
                             (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t off, size, id_len;
        const char *id;
        int rc;

        if (len - pos < 24)
            return rpl_error_set(RPL_EINPUT, "'%s': offload bundle entry %llu is truncated", origin,
                                 (unsigned long long)i);
        off = co_le64(data + pos);
        size = co_le64(data + pos + 8);
        id_len = co_le64(data + pos + 16);
        pos += 24;
        if (id_len > len - pos)
            return rpl_error_set(RPL_EINPUT, "'%s': offload bundle entry %llu id is truncated",
                                 origin, (unsigned long long)i);
        id = (const char *)data + pos;
        pos += (size_t)id_len;
        if (off > len || size > len - off)
            return rpl_error_set(RPL_EINPUT,
                                 "'%s': offload bundle entry %llu lies outside the bundle "
                                 "(offset %llu, size %llu, bundle %zu bytes)",
                                 origin, (unsigned long long)i, (unsigned long long)off,
                                 (unsigned long long)size, len);
        if (off + size > extent)
            extent = (size_t)(off + size);
        if (fn && size) {
            rc = fn(set, data + off, (size_t)size, id, (size_t)id_len, origin, depth);
            if (rc != 0)
                return rc;
        }
    }
    if (pos > extent)
        extent = pos;
    *end = extent;
    return 0;
}

static int read_entry(rpl_codeobj_set *set, const uint8_t *payload, size_t size, const char *id,
                      size_t id_len, const char *origin, int depth)
{
    char *tag = co_strndup(id, id_len), *where;
    int rc;

    if (!tag)
        return rpl_error_oom();
    if (strncmp(tag, "host-", 5) == 0) {
        free(tag);
        return 0;
    }
    where = co_origin(origin, "#", tag);
    if (!where) {
        free(tag);
        return rpl_error_oom();
    }
    /* Device bitcode (-fgpu-rdc objects) and other payloads carry no resource usage. */
    if (size < 4 || (memcmp(payload, "\177ELF", 4) != 0 && memcmp(payload, "CCOB", 4) != 0 &&
                     memcmp(payload, "__CL", 4) != 0))
        rc = co_warn(set, "skipped '%s': not a code object", where);
    else
        rc = co_read_any(set, payload, size, where, depth + 1);
    free(where);
    free(tag);
    return rc;
}

int co_read_bundle(rpl_codeobj_set *set, const uint8_t *data, size_t len, const char *origin,
                   int depth)
{
    size_t end;

    return walk_bundle(set, data, len, origin, depth, read_entry, &end);
}

int co_bundle_extent(size_t *out, const uint8_t *data, size_t len, const char *origin)
{
    if (len >= 4 && memcmp(data, "CCOB", 4) == 0) {
        ccob_hdr h = {0};
        size_t clen = 0;
        int rc = ccob_parse(&h, data, len, origin);

        if (rc == 0)
            rc = ccob_data_len(&clen, &h, data, len, origin);
        if (rc == 0)
            *out = h.header + clen;
        return rc;
    }
    return walk_bundle(NULL, data, len, origin, 0, NULL, out);
}
