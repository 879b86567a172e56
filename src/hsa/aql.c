/* AQL packets: header bits, kernel dispatch and barrier-AND layouts (rpl/hsa.h). */
#include <string.h>

#include "le.h"
#include "rpl/error.h"
#include "rpl/hsa.h"

/* Bit positions and widths of the packet header (hsa_packet_header_t). */
#define HDR_TYPE_SHIFT    0
#define HDR_BARRIER_SHIFT 8
#define HDR_ACQUIRE_SHIFT 9
#define HDR_RELEASE_SHIFT 11
#define HDR_SCOPE_MASK    3u

/* Byte offsets of hsa_kernel_dispatch_packet_t. */
enum {
    OFF_HEADER = 0,
    OFF_SETUP = 2,
    OFF_WORKGROUP = 4, /* 3 x u16 */
    OFF_GRID = 12,     /* 3 x u32 */
    OFF_PRIVATE = 24,
    OFF_GROUP = 28,
    OFF_KERNEL_OBJECT = 32,
    OFF_KERNARG = 40,
    OFF_SIGNAL = 56
};

/* Byte offset of the first dependent signal of hsa_barrier_and_packet_t. */
#define OFF_DEP_SIGNAL 8
#define MAX_DEPS       5

uint16_t rpl_aql_header_encode(rpl_aql_header h)
{
    return (uint16_t)((h.type & 0xffu) << HDR_TYPE_SHIFT |
                      (h.barrier ? 1u : 0u) << HDR_BARRIER_SHIFT |
                      (h.acquire & HDR_SCOPE_MASK) << HDR_ACQUIRE_SHIFT |
                      (h.release & HDR_SCOPE_MASK) << HDR_RELEASE_SHIFT);
}

rpl_aql_header rpl_aql_header_decode(uint16_t bits)
{
    rpl_aql_header h;

    h.type = (bits >> HDR_TYPE_SHIFT) & 0xffu;
    h.barrier = (bits >> HDR_BARRIER_SHIFT) & 1u;
    h.acquire = (bits >> HDR_ACQUIRE_SHIFT) & HDR_SCOPE_MASK;
    h.release = (bits >> HDR_RELEASE_SHIFT) & HDR_SCOPE_MASK;
    return h;
}

unsigned rpl_aql_packet_type(const void *packet)
{
    return ((const unsigned char *)packet)[0];
}

int rpl_aql_dispatch_decode(rpl_aql_dispatch *out, const void *packet, size_t len)
{
    const unsigned char *p = packet;
    int i;

    if (len < RPL_AQL_PACKET_BYTES)
        return rpl_error_set(RPL_EINPUT, "AQL packet: %zu bytes, need %d", len,
                             RPL_AQL_PACKET_BYTES);
    memset(out, 0, sizeof(*out));
    out->header = rpl_aql_header_decode(le16(p + OFF_HEADER));
    if (out->header.type != RPL_AQL_KERNEL_DISPATCH)
        return rpl_error_set(RPL_EINPUT, "AQL packet: type %u is no kernel dispatch",
                             out->header.type);
    if (out->header.acquire > RPL_AQL_SCOPE_SYSTEM || out->header.release > RPL_AQL_SCOPE_SYSTEM)
        return rpl_error_set(RPL_EINPUT, "AQL packet: reserved fence scope");
    out->dims = le16(p + OFF_SETUP) & 3u;
    if (out->dims == 0)
        return rpl_error_set(RPL_EINPUT, "AQL packet: 0 dimensions");
    for (i = 0; i < 3; i++) {
        out->workgroup[i] = le16(p + OFF_WORKGROUP + 2 * i);
        out->grid[i] = le32(p + OFF_GRID + 4 * i);
        if (i < out->dims && (out->workgroup[i] == 0 || out->grid[i] == 0))
            return rpl_error_set(RPL_EINPUT, "AQL packet: dimension %d has size 0", i);
    }
    out->private_segment_size = le32(p + OFF_PRIVATE);
    out->group_segment_size = le32(p + OFF_GROUP);
    out->kernel_object = le64(p + OFF_KERNEL_OBJECT);
    out->kernarg_address = le64(p + OFF_KERNARG);
    out->completion_signal = le64(p + OFF_SIGNAL);
    return 0;
}

int rpl_aql_dispatch_encode(void *packet, const rpl_aql_dispatch *d)
{
    unsigned char *p = packet;
    int i;

    if (d->header.type != RPL_AQL_KERNEL_DISPATCH || d->header.acquire > RPL_AQL_SCOPE_SYSTEM ||
        d->header.release > RPL_AQL_SCOPE_SYSTEM)
        return rpl_error_set(RPL_EUSAGE, "AQL dispatch: bad header");
    if (d->dims < 1 || d->dims > 3)
        return rpl_error_set(RPL_EUSAGE, "AQL dispatch: %u dimensions", (unsigned)d->dims);
    memset(p, 0, RPL_AQL_PACKET_BYTES);
    put16(p + OFF_HEADER, rpl_aql_header_encode(d->header));
    put16(p + OFF_SETUP, d->dims);
    for (i = 0; i < 3; i++) {
        put16(p + OFF_WORKGROUP + 2 * i, d->workgroup[i]);
        put32(p + OFF_GRID + 4 * i, d->grid[i]);
    }
    put32(p + OFF_PRIVATE, d->private_segment_size);
    put32(p + OFF_GROUP, d->group_segment_size);
    put64(p + OFF_KERNEL_OBJECT, d->kernel_object);
    put64(p + OFF_KERNARG, d->kernarg_address);
    put64(p + OFF_SIGNAL, d->completion_signal);
    return 0;
}

int rpl_aql_barrier_and_encode(void *packet, rpl_aql_header h, const uint64_t *deps, size_t ndeps,
                               uint64_t completion_signal)
{
    unsigned char *p = packet;
    size_t i;

    if (h.type != RPL_AQL_BARRIER_AND || h.acquire > RPL_AQL_SCOPE_SYSTEM ||
        h.release > RPL_AQL_SCOPE_SYSTEM || ndeps > MAX_DEPS)
        return rpl_error_set(RPL_EUSAGE, "AQL barrier-AND: bad header or %zu dependencies", ndeps);
    memset(p, 0, RPL_AQL_PACKET_BYTES);
    put16(p + OFF_HEADER, rpl_aql_header_encode(h));
    for (i = 0; i < ndeps; i++)
        put64(p + OFF_DEP_SIGNAL + 8 * i, deps[i]);
    put64(p + OFF_SIGNAL, completion_signal);
    return 0;
}

void rpl_aql_publish(void *slot, const void *packet)
{
    uint32_t first;

    memcpy((unsigned char *)slot + 4, (const unsigned char *)packet + 4, RPL_AQL_PACKET_BYTES - 4);
    memcpy(&first, packet, sizeof(first));
    /* Queue slots are 64-byte aligned, so the first word is an aligned uint32_t. */
    __atomic_store_n((uint32_t *)slot, first, __ATOMIC_RELEASE);
}
