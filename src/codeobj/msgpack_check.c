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
    return RPL_OK;
}

int co_msgpack_check(const uint8_t *data, size_t len, const char *origin)
{
    uint64_t left[MAX_DEPTH + 1];
    int depth = 0;
    size_t pos = 0;

    left[0] = 1;
    while (depth >= 0) {
        uint64_t skip = 0, items = 0, n = 0;
        unsigned width = 0;
        int container = 0, rc = RPL_OK;
        uint8_t b;

        if (left[depth] == 0) {
            depth--;
            continue;
        }
        left[depth]--;
        if (pos >= len)
            return truncated(origin);
        b = data[pos++];
        if (b <= 0x7f || b >= 0xe0 || b == 0xc0 || b == 0xc2 || b == 0xc3) {
            /* fixint, nil, bool */
        } else if (b <= 0x8f) {
            items = 2u * (b & 0x0fu);
            container = 1;
        } else if (b <= 0x9f) {
            items = b & 0x0fu;
            container = 1;
        } else if (b <= 0xbf) {
            skip = b & 0x1fu;
        } else {
            switch (b) {
            case 0xc4:
            case 0xd9:
                width = 1;
                break; /* bin8, str8 */
            case 0xc5:
            case 0xda:
                width = 2;
                break;
            case 0xc6:
            case 0xdb:
                width = 4;
                break;
            case 0xc7:
                width = 1;
                skip = 1;
                break; /* ext8: length, type */
            case 0xc8:
                width = 2;
                skip = 1;
                break;
            case 0xc9:
                width = 4;
                skip = 1;
                break;
            case 0xca:
                skip = 4;
                break;
            case 0xcb:
                skip = 8;
                break;
            case 0xcc:
            case 0xd0:
                skip = 1;
                break;
            case 0xcd:
            case 0xd1:
                skip = 2;
                break;
            case 0xce:
            case 0xd2:
                skip = 4;
                break;
            case 0xcf:
            case 0xd3:
                skip = 8;
                break;
            case 0xd4:
                skip = 2;
                break; /* fixext 1..16 */
            case 0xd5:
                skip = 3;
                break;
            case 0xd6:
                skip = 5;
                break;
            case 0xd7:
                skip = 9;
                break;
            case 0xd8:
                skip = 17;
                break;
            case 0xdc:
                width = 2;
                container = 1;
                break;
            case 0xdd:
                width = 4;
                container = 1;
                break;
            case 0xde:
                width = 2;
                container = 2;
                break;
            case 0xdf:
                width = 4;
                container = 2;
                break;
            default:
                return rpl_error_set(RPL_EINPUT, "'%s': metadata msgpack has bad byte 0x%02x",
                                     origin, b);
            }
            if (width) {
                rc = read_len(&n, data, len, &pos, width, origin);
                if (rc != RPL_OK)
                    return rc;
                if (container)
                    items = container == 2 ? 2 * n : n;
                else
                    skip += n;
            }
        }
        if (skip > len - pos)
            return truncated(origin);
        pos += (size_t)skip;
        if (!container || items == 0)
            continue;
        if (items > len - pos)
            return rpl_error_set(RPL_EINPUT,
                                 "'%s': metadata msgpack claims %llu elements in %zu bytes", origin,
                                 (unsigned long long)items, len - pos);
        if (depth == MAX_DEPTH)
            return rpl_error_set(RPL_EINPUT, "'%s': metadata msgpack nests too deeply", origin);
        left[++depth] = items;
    }
    return RPL_OK;
}
