/*
 * Container readers on crafted bytes: bundles, compressed bundles and
 * fatbins that lie about their sizes, and the msgpack structure check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codeobj_int.h"
#include "rpl/codeobj.h"
#include "rpl/error.h"

typedef struct buf {
    uint8_t data[4096];
    size_t len;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    assert_true(b->len + n <= sizeof(b->data));
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void put64(buf *b, uint64_t v)
{
    uint8_t le[8];

    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)(v >> (8 * i));
    put(b, le, 8);
}

static void put32(buf *b, uint32_t v)
{
    uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};

    put(b, le, 4);
}

static void put16(buf *b, uint16_t v)
{
    uint8_t le[2] = {(uint8_t)v, (uint8_t)(v >> 8)};

    put(b, le, 2);
}

/* A bundle with one entry whose payload follows the table. */
static void make_bundle(buf *b, const char *id, const void *payload, size_t n)
{
    b->len = 0;
    put(b, "__CLANG_OFFLOAD_BUNDLE__", 24);
    put64(b, 1);
    put64(b, 32 + 24 + strlen(id));
    put64(b, n);
    put64(b, strlen(id));
    put(b, id, strlen(id));
    put(b, payload, n);
}

static int read(rpl_codeobj_set **set, const buf *b)
{
    assert_int_equal(rpl_codeobj_set_new(set), 0);
    return rpl_codeobj_read_buffer(*set, b->data, b->len, "t");
}

static void rejects_nothing_known(void **state)
{
    rpl_codeobj_set *set;
    buf b = {.len = 0};

    (void)state;
    assert_int_equal(read(&set, &b), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "not a code object"));
    rpl_codeobj_set_free(set);
    put(&b, "\177ELF", 4); /* an ELF magic and nothing else */
    assert_int_equal(read(&set, &b), RPL_EINPUT);
    rpl_codeobj_set_free(set);
}

static void bundle_sizes_are_checked(void **state)
{
    rpl_codeobj_set *set;
    buf b;

    (void)state;
    make_bundle(&b, "host-x86_64-unknown-linux", "", 0);
    assert_int_equal(read(&set, &b), 0); /* a host-only bundle holds no kernels */
    assert_int_equal(set->count, 0);
    rpl_codeobj_set_free(set);

    make_bundle(&b, "hipv4-amdgcn-amd-amdhsa--gfx90a", "BC\xc0\xde-bitcode", 12);
    assert_int_equal(read(&set, &b), 0); /* device bitcode is skipped with a warning */
    assert_int_equal(set->n_warnings, 1);
    rpl_codeobj_set_free(set);

    make_bundle(&b, "hipv4-amdgcn-amd-amdhsa--gfx90a", "x", 1);
    b.data[24] = 0xff; /* entry count: 255 entries in a few bytes */
    assert_int_equal(read(&set, &b), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "claims"));
    rpl_codeobj_set_free(set);

    make_bundle(&b, "hipv4-amdgcn-amd-amdhsa--gfx90a", "x", 1);
    b.data[47] = 0x40; /* payload size 2^62 */
    assert_int_equal(read(&set, &b), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "lies outside"));
    rpl_codeobj_set_free(set);

    make_bundle(&b, "hipv4-amdgcn-amd-amdhsa--gfx90a", "x", 1);
    b.data[48 + 5] = 0x01; /* id length 2^40 */
    assert_int_equal(read(&set, &b), RPL_EINPUT);
    rpl_codeobj_set_free(set);
}

static void nesting_is_bounded(void **state)
{
    rpl_codeobj_set *set;
    buf inner, outer;

    (void)state;
    make_bundle(&inner, "host-x86_64-unknown-linux", "", 0);
    for (int i = 0; i < CO_MAX_DEPTH + 2; i++) {
        make_bundle(&outer, "hip-amdgcn-amd-amdhsa--gfx90a", inner.data, inner.len);
        inner = outer;
    }
    assert_int_equal(read(&set, &inner), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "nested too deeply"));
    rpl_codeobj_set_free(set);
}

static void compressed_bundle_headers_are_checked(void **state)
{
    rpl_codeobj_set *set;
    buf b = {.len = 0};

    (void)state;
    put(&b, "CCOB", 4);
    put16(&b, 2);
    put16(&b, 1);
    put32(&b, 100000); /* total size larger than the buffer */
    put32(&b, 64);
    put64(&b, 0);
    put(&b, "zzzz", 4);
    assert_int_equal(read(&set, &b), RPL_EINPUT);
    rpl_codeobj_set_free(set);

    b.len = 0;
    put(&b, "CCOB", 4);
    put16(&b, 9); /* unknown version */
    put16(&b, 1);
    put(&b, "0123456789abcdefghij", 20);
    assert_int_equal(read(&set, &b), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "version 9"));
    rpl_codeobj_set_free(set);

    b.len = 0;
    put(&b, "CCOB", 4);
    put16(&b, 2);
    put16(&b, 0); /* zlib */
    put32(&b, 28);
    put32(&b, 64);
    put64(&b, 0);
    put(&b, "zzzz", 4);
    assert_int_equal(read(&set, &b), RPL_EENV);
    rpl_codeobj_set_free(set);
}

static void fatbin_entries_are_checked(void **state)
{
    rpl_codeobj_set *set;
    buf b = {.len = 0};

    (void)state;
    /* One PTX entry: valid, no kernels. */
    put32(&b, 0xBA55ED50);
    put16(&b, 1);
    put16(&b, 16);
    put64(&b, 64 + 8);
    put16(&b, 1);
    put16(&b, 0x101);
    put32(&b, 64);
    put64(&b, 8);
    while (b.len < 16 + 64)
        put(&b, "", 1);
    put(&b, ".version", 8);
    assert_int_equal(read(&set, &b), 0);
    assert_int_equal(set->count, 0);
    rpl_codeobj_set_free(set);

    b.data[16 + 8] = 0xff; /* payload size runs past the fatbin */
    assert_int_equal(read(&set, &b), RPL_EINPUT);
    rpl_codeobj_set_free(set);

    b.len = 40; /* header claims more than is there */
    assert_int_equal(read(&set, &b), RPL_EINPUT);
    rpl_codeobj_set_free(set);
}

static void msgpack_check(void **state)
{
    static const uint8_t ok[] = {0x82, 0xa1, 'a', 0x01, 0xa1, 'b', 0x92, 0xc3, 0xcd, 0x01, 0x00};
    static const uint8_t lying[] = {0xdd, 0xff, 0xff, 0xff, 0xff, 0x01};
    static const uint8_t short_str[] = {0xd9, 0x10, 'a', 'b'};
    static const uint8_t never_used[] = {0xc1};
    uint8_t nest[40];

    (void)state;
    assert_int_equal(co_msgpack_check(ok, sizeof(ok), "t"), 0);
    assert_int_equal(co_msgpack_check(ok, sizeof(ok) - 1, "t"), RPL_EINPUT);
    assert_int_equal(co_msgpack_check(lying, sizeof(lying), "t"), RPL_EINPUT);
    assert_int_equal(co_msgpack_check(short_str, sizeof(short_str), "t"), RPL_EINPUT);
    assert_int_equal(co_msgpack_check(never_used, sizeof(never_used), "t"), RPL_EINPUT);
    /* 32 nested one-element arrays are what msgpack-c itself accepts; 33 are not. */
    memset(nest, 0x91, sizeof(nest));
    nest[32] = 0x00;
    assert_int_equal(co_msgpack_check(nest, 33, "t"), 0);
    nest[32] = 0x91;
    nest[33] = 0x00;
    assert_int_equal(co_msgpack_check(nest, 34, "t"), RPL_EINPUT);
}

static void missing_file(void **state)
{
    rpl_codeobj_set *set;

    (void)state;
    assert_int_equal(rpl_codeobj_set_new(&set), 0);
    assert_int_equal(rpl_codeobj_read_file(set, RPL_TEST_TMP "/no/such/file.co"), RPL_ENOTFOUND);
    rpl_codeobj_set_free(set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rejects_nothing_known),
        cmocka_unit_test(bundle_sizes_are_checked),
        cmocka_unit_test(nesting_is_bounded),
        cmocka_unit_test(compressed_bundle_headers_are_checked),
        cmocka_unit_test(fatbin_entries_are_checked),
        cmocka_unit_test(msgpack_check),
        cmocka_unit_test(missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
