/*
 * AQL packets (rpl/hsa.h): header bits, the dispatch and barrier-AND
 * layouts, decoding of bad packets, and the publishing order.  Where the
 * HSA headers exist, the layout is also checked against hsa.h's structs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/hsa.h"

#ifdef RPL_HAVE_HSA_HEADERS
#include <hsa/hsa.h>
#endif

static rpl_aql_dispatch sample_dispatch(void)
{
    rpl_aql_dispatch d;

    memset(&d, 0, sizeof(d));
    d.header.type = RPL_AQL_KERNEL_DISPATCH;
    d.header.barrier = true;
    d.header.acquire = RPL_AQL_SCOPE_SYSTEM;
    d.header.release = RPL_AQL_SCOPE_AGENT;
    d.dims = 2;
    d.workgroup[0] = 256;
    d.workgroup[1] = 4;
    d.workgroup[2] = 1;
    d.grid[0] = 1u << 20;
    d.grid[1] = 4096;
    d.grid[2] = 1;
    d.private_segment_size = 96;
    d.group_segment_size = 65536;
    d.kernel_object = 0x7f12345678c0ull;
    d.kernarg_address = 0x7ffff7e00040ull;
    d.completion_signal = 0x7f00deadbee0ull;
    return d;
}

static void header_bits_follow_the_spec(void **state)
{
    rpl_aql_header h = {RPL_AQL_KERNEL_DISPATCH, true, RPL_AQL_SCOPE_SYSTEM, RPL_AQL_SCOPE_SYSTEM};
    rpl_aql_header back;

    /* type 2 | barrier << 8 | system << 9 | system << 11 */
    assert_int_equal(rpl_aql_header_encode(h), 2 | 1 << 8 | 2 << 9 | 2 << 11);
    h.type = RPL_AQL_BARRIER_AND;
    h.acquire = RPL_AQL_SCOPE_NONE;
    h.release = RPL_AQL_SCOPE_AGENT;
    assert_int_equal(rpl_aql_header_encode(h), 3 | 1 << 8 | 1 << 11);
    back = rpl_aql_header_decode(0x1503); /* 3 | 1<<8 | 2<<9 | 2<<11 */
    assert_int_equal(back.type, RPL_AQL_BARRIER_AND);
    assert_true(back.barrier);
    assert_int_equal(back.acquire, RPL_AQL_SCOPE_SYSTEM);
    assert_int_equal(back.release, RPL_AQL_SCOPE_SYSTEM);
    back = rpl_aql_header_decode(0x0002);
    assert_false(back.barrier);
    assert_int_equal(back.acquire, 0);
}

static void dispatch_round_trips_with_fixed_offsets(void **state)
{
    rpl_aql_dispatch d = sample_dispatch(), back;
    unsigned char pkt[RPL_AQL_PACKET_BYTES];
    uint32_t u32;
    uint64_t u64;
    uint16_t u16;

    memset(pkt, 0xa5, sizeof(pkt));
    assert_int_equal(rpl_aql_dispatch_encode(pkt, &d), 0);
    /* Fields at the offsets of the HSA PRM's kernel dispatch packet. */
    memcpy(&u16, pkt + 2, 2);
    assert_int_equal(u16, 2);
    memcpy(&u16, pkt + 4, 2);
    assert_int_equal(u16, 256);
    memcpy(&u16, pkt + 10, 2); /* reserved0 */
    assert_int_equal(u16, 0);
    memcpy(&u32, pkt + 12, 4);
    assert_int_equal(u32, 1u << 20);
    memcpy(&u32, pkt + 28, 4);
    assert_int_equal(u32, 65536);
    memcpy(&u64, pkt + 32, 8);
    assert_true(u64 == 0x7f12345678c0ull);
    memcpy(&u64, pkt + 48, 8); /* reserved2 */
    assert_true(u64 == 0);
    memcpy(&u64, pkt + 56, 8);
    assert_true(u64 == 0x7f00deadbee0ull);
    assert_int_equal(rpl_aql_packet_type(pkt), RPL_AQL_KERNEL_DISPATCH);

    assert_int_equal(rpl_aql_dispatch_decode(&back, pkt, sizeof(pkt)), 0);
    assert_memory_equal(&back.header, &d.header, sizeof(d.header));
    assert_int_equal(back.dims, 2);
    assert_int_equal(back.workgroup[1], 4);
    assert_int_equal(back.grid[1], 4096);
    assert_int_equal(back.private_segment_size, 96);
    assert_int_equal(back.group_segment_size, 65536);
    assert_true(back.kernarg_address == d.kernarg_address);
    assert_true(back.completion_signal == d.completion_signal);
}

static void decode_rejects_what_is_no_valid_dispatch(void **state)
{
    rpl_aql_dispatch d = sample_dispatch(), back;
    unsigned char pkt[RPL_AQL_PACKET_BYTES];

    assert_int_equal(rpl_aql_dispatch_encode(pkt, &d), 0);
    assert_int_equal(rpl_aql_dispatch_decode(&back, pkt, 63), RPL_EINPUT);

    pkt[0] = RPL_AQL_BARRIER_AND;
    assert_int_equal(rpl_aql_dispatch_decode(&back, pkt, sizeof(pkt)), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "no kernel dispatch"));

    assert_int_equal(rpl_aql_dispatch_encode(pkt, &d), 0);
    pkt[1] |= 3 << 1; /* acquire scope 3: reserved */
    assert_int_equal(rpl_aql_dispatch_decode(&back, pkt, sizeof(pkt)), RPL_EINPUT);

    assert_int_equal(rpl_aql_dispatch_encode(pkt, &d), 0);
    pkt[2] = 0; /* 0 dimensions */
    assert_int_equal(rpl_aql_dispatch_decode(&back, pkt, sizeof(pkt)), RPL_EINPUT);

    assert_int_equal(rpl_aql_dispatch_encode(pkt, &d), 0);
    memset(pkt + 16, 0, 4); /* grid y = 0 in a 2-D dispatch */
    assert_int_equal(rpl_aql_dispatch_decode(&back, pkt, sizeof(pkt)), RPL_EINPUT);

    /* A zero size in an unused dimension is not the packet processor's business. */
    d.dims = 1;
    d.grid[1] = 0;
    assert_int_equal(rpl_aql_dispatch_encode(pkt, &d), 0);
    assert_int_equal(rpl_aql_dispatch_decode(&back, pkt, sizeof(pkt)), 0);
}

static void encode_refuses_bad_headers(void **state)
{
    rpl_aql_dispatch d = sample_dispatch();
    unsigned char pkt[RPL_AQL_PACKET_BYTES];

    d.dims = 4;
    assert_int_equal(rpl_aql_dispatch_encode(pkt, &d), RPL_EUSAGE);
    d = sample_dispatch();
    d.header.release = 3;
    assert_int_equal(rpl_aql_dispatch_encode(pkt, &d), RPL_EUSAGE);
    d = sample_dispatch();
    d.header.type = RPL_AQL_BARRIER_AND;
    assert_int_equal(rpl_aql_dispatch_encode(pkt, &d), RPL_EUSAGE);
}

static void barrier_and_carries_dependencies_and_signal(void **state)
{
    rpl_aql_header h = {RPL_AQL_BARRIER_AND, true, RPL_AQL_SCOPE_NONE, RPL_AQL_SCOPE_SYSTEM};
    uint64_t deps[2] = {0x1111, 0x2222}, u64;
    unsigned char pkt[RPL_AQL_PACKET_BYTES];
    uint16_t hdr;

    assert_int_equal(rpl_aql_barrier_and_encode(pkt, h, deps, 2, 0xabcd), 0);
    memcpy(&hdr, pkt, 2);
    assert_int_equal(hdr, 3 | 1 << 8 | 2 << 11);
    memcpy(&u64, pkt + 8, 8);
    assert_true(u64 == 0x1111);
    memcpy(&u64, pkt + 16, 8);
    assert_true(u64 == 0x2222);
    memcpy(&u64, pkt + 24, 8);
    assert_true(u64 == 0);
    memcpy(&u64, pkt + 56, 8);
    assert_true(u64 == 0xabcd);
    assert_int_equal(rpl_aql_barrier_and_encode(pkt, h, deps, 6, 0), RPL_EUSAGE);
    h.type = RPL_AQL_KERNEL_DISPATCH;
    assert_int_equal(rpl_aql_barrier_and_encode(pkt, h, NULL, 0, 0), RPL_EUSAGE);
}

static void publish_writes_the_whole_packet(void **state)
{
    rpl_aql_dispatch d = sample_dispatch();
    unsigned char pkt[RPL_AQL_PACKET_BYTES];
    _Alignas(64) unsigned char slot[RPL_AQL_PACKET_BYTES];

    assert_int_equal(rpl_aql_dispatch_encode(pkt, &d), 0);
    /* A slot as the packet processor leaves it: INVALID header, stale body. */
    memset(slot, 0xee, sizeof(slot));
    slot[0] = RPL_AQL_INVALID;
    slot[1] = 0;
    rpl_aql_publish(slot, pkt);
    assert_memory_equal(slot, pkt, sizeof(pkt));
}

#ifdef RPL_HAVE_HSA_HEADERS
/* Our byte layout read through hsa.h's own structs. */
static void layout_matches_hsa_h(void **state)
{
    rpl_aql_dispatch d = sample_dispatch();
    hsa_kernel_dispatch_packet_t k;
    hsa_barrier_and_packet_t b;
    rpl_aql_header h = {RPL_AQL_BARRIER_AND, true, RPL_AQL_SCOPE_SYSTEM, RPL_AQL_SCOPE_SYSTEM};
    uint64_t dep = 77;

    assert_int_equal(sizeof(k), RPL_AQL_PACKET_BYTES);
    assert_int_equal(rpl_aql_dispatch_encode(&k, &d), 0);
    assert_int_equal(k.header,
                     (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                         (1 << HSA_PACKET_HEADER_BARRIER) |
                         (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                         (HSA_FENCE_SCOPE_AGENT << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
    assert_int_equal(k.setup, 2 << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    assert_int_equal(k.workgroup_size_x, 256);
    assert_int_equal(k.workgroup_size_y, 4);
    assert_int_equal(k.workgroup_size_z, 1);
    assert_int_equal(k.grid_size_x, 1u << 20);
    assert_int_equal(k.grid_size_y, 4096);
    assert_int_equal(k.grid_size_z, 1);
    assert_int_equal(k.private_segment_size, 96);
    assert_int_equal(k.group_segment_size, 65536);
    assert_true(k.kernel_object == d.kernel_object);
    assert_true((uint64_t)(uintptr_t)k.kernarg_address == d.kernarg_address);
    assert_true(k.completion_signal.handle == d.completion_signal);

    assert_int_equal(rpl_aql_barrier_and_encode(&b, h, &dep, 1, 99), 0);
    assert_int_equal(b.header & 0xff, HSA_PACKET_TYPE_BARRIER_AND);
    assert_true(b.dep_signal[0].handle == 77);
    assert_true(b.dep_signal[1].handle == 0);
    assert_true(b.completion_signal.handle == 99);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_bits_follow_the_spec),
        cmocka_unit_test(dispatch_round_trips_with_fixed_offsets),
        cmocka_unit_test(decode_rejects_what_is_no_valid_dispatch),
        cmocka_unit_test(encode_refuses_bad_headers),
        cmocka_unit_test(barrier_and_carries_dependencies_and_signal),
        cmocka_unit_test(publish_writes_the_whole_packet),
#ifdef RPL_HAVE_HSA_HEADERS
        cmocka_unit_test(layout_matches_hsa_h),
#endif
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
