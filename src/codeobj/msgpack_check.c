/*
 * A structural check of msgpack bytes before msgpack-c parses them.
 * msgpack-c allocates an array or map for the element count its header
 * claims, before it reads the elements; a hostile note claiming 2^32
 * elements in a few bytes would ask for tens of gigabytes.  Every element
 * takes at least one byte, so a count larger than the bytes left is a lie.
 */
#include "codeobj_int.h"
#include "rpl/error.h"

/* msgpack-c's own nesting limit (MSGPACK_EMBED_STACK_SIZE). */
#define MAX_DEPTH 32

static int truncated(const char *origin)
{
    return rpl_error_set(RPL_EINPUT, "'%s': metadata msgpack is truncated", origin);
}

/* Read a big-endian length of `width` bytes at data[*pos]. */
static int read_len(uint64_t *out, const uint8_t *data, size_t len, size_t *pos, unsigned width,
                    const char *origin)
{
    uint64_t v = 0;

    if (width > len - *pos)
        return truncated(origin);
    for (unsigned i = 0; i < width; i++)
        v = (v << 8) | data[*pos + i];
    *pos += width;
    *out = v;
    return 0;
}

/* What follows a header byte 0xc4..0xdf: a length of `width` bytes, `skip` bytes, or elements. */
typedef struct header {
    uint8_t width;     /* bytes of the big-endian length that follows */
    uint8_t skip;      /* payload bytes besides the length's */
    uint8_t container; /* 1: array of length elements, 2: map of length pairs */
} header;

static const header headers[0xe0 - 0xc4] = {
    [0xc4 - 0xc4] = {1, 0, 0},  /* bin8 */
    [0xc5 - 0xc4] = {2, 0, 0},  /* bin16 */
    [0xc6 - 0xc4] = {4, 0, 0},  /* bin32 */
    [0xc7 - 0xc4] = {1, 1, 0},  /* ext8: length, type */
    [0xc8 - 0xc4] = {2, 1, 0},  /* ext16 */
    [0xc9 - 0xc4] = {4, 1, 0},  /* ext32 */
    [0xca - 0xc4] = {0, 4, 0},  /* float32 */
    [0xcb - 0xc4] = {0, 8, 0},  /* float64 */
    [0xcc - 0xc4] = {0, 1, 0},  /* uint8 */
    [0xcd - 0xc4] = {0, 2, 0},  /* uint16 */
    [0xce - 0xc4] = {0, 4, 0},  /* uint32 */
    [0xcf - 0xc4] = {0, 8, 0},  /* uint64 */
    [0xd0 - 0xc4] = {0, 1, 0},  /* int8 */
    [0xd1 - 0xc4] = {0, 2, 0},  /* int16 */
    [0xd2 - 0xc4] = {0, 4, 0},  /* int32 */
    [0xd3 - 0xc4] = {0, 8, 0},  /* int64 */
    [0xd4 - 0xc4] = {0, 2, 0},  /* fixext 1: type, data */
    [0xd5 - 0xc4] = {0, 3, 0},  /* fixext 2 */
    [0xd6 - 0xc4] = {0, 5, 0},  /* fixext 4 */
    [0xd7 - 0xc4] = {0, 9, 0},  /* fixext 8 */
    [0xd8 - 0xc4] = {0, 17, 0}, /* fixext 16 */
    [0xd9 - 0xc4] = {1, 0, 0},  /* str8 */
    [0xda - 0xc4] = {2, 0, 0},  /* str16 */
    [0xdb - 0xc4] = {4, 0, 0},  /* str32 */
    [0xdc - 0xc4] = {2, 0, 1},  /* array16 */
    [0xdd - 0xc4] = {4, 0, 1},  /* array32 */
    [0xde - 0xc4] = {2, 0, 2},  /* map16 */
    [0xdf - 0xc4] = {4, 0, 2},  /* map32 */
};

/*
 * The element whose header byte b was just read at data[*pos - 1]: *skip
 * bytes of payload after any length (read here), *items elements inside
 * (0: not a container or an empty one).
 */
static int element(uint64_t *skip, uint64_t *items, uint8_t b, const uint8_t *data, size_t len,
                   size_t *pos, const char *origin)
{
    const header *h;
    uint64_t n = 0;
    int rc;

    *skip = *items = 0;
    if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3)
        return 0; /* fixint, nil, bool */
    if (b <= 0x8f)
        *items = 2u * (b & 0x0fu); /* fixmap */
    else if (b <= 0x9f)
        *items = b & 0x0fu; /* fixarray */
    else if (b <= 0xbf)
        *skip = b & 0x1fu; /* fixstr */
    if (b <= 0xbf)
        return 0;
    if (b < 0xc4)
        return rpl_error_set(RPL_EINPUT, "'%s': metadata msgpack has bad byte 0x%02x", origin, b);
    h = &headers[b - 0xc4];
    *skip = h->skip;
    if (!h->width)
        return 0;
    if ((rc = read_len(&n, data, len, pos, h->width, origin)) != 0)
        return rc;
    if (h->container)
        *items = h->container == 2 ? 2 * n : n;
    else
        *skip += n;
    return 0;
}

int co_msgpack_check(const uint8_t *data, size_t len, const char *origin)
{
    uint64_t left[MAX_DEPTH + 1];
    int depth = 0;
    size_t pos = 0;

    left[0] = 1;
    while (depth >= 0) {
        uint64_t skip, items;
        int rc;

        if (left[depth] == 0) {
            depth--;
            continue;
        }
        left[depth]--;
        if (pos >= len)
            return truncated(origin);
        if ((rc = element(&skip, &items, data[pos++], data, len, &pos, origin)) != 0)
            return rc;
        if (skip > len - pos)
            return truncated(origin);
        pos += (size_t)skip;
        if (items == 0)
            continue;
        if (items > len - pos)
            return rpl_error_set(RPL_EINPUT,
                                 "'%s': metadata msgpack claims %llu elements in %zu bytes", origin,
                                 (unsigned long long)items, len - pos);
        if (depth == MAX_DEPTH)
            return rpl_error_set(RPL_EINPUT, "'%s': metadata msgpack nests too deeply", origin);
        left[++depth] = items;
    }
    return 0;
}
