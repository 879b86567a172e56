/*
 * The CUDA capture's parts that make no CUDA call (src/tools/cupti/capture.h):
 * allocation bookkeeping (insert, free, stale overlaps, VMM map/unmap and
 * merging, lookup), parameter types from demangled names and their element
 * types, the kernel pattern and dispatch index, and the cubin symbol walk
 * on a committed cubin (tests/fixtures/capture/globals.cubin).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"

#define MiB (1ull << 20)

static void expect_entry(const cc_allocs *a, size_t i, uint64_t base, uint64_t size, cc_kind kind)
{
    assert_true(i < a->count);
    assert_int_equal(a->items[i].base, base);
    assert_int_equal(a->items[i].size, size);
    assert_int_equal(a->items[i].kind, kind);
}

static void test_allocs_insert_sorted_and_find(void **state)
{
    cc_allocs a = {0};

    (void)state;
    assert_int_equal(cc_allocs_add(&a, 0x700000000000, 4 * MiB, CC_DEVICE), 0);
    assert_int_equal(cc_allocs_add(&a, 0x500000000000, 1 * MiB, CC_POOL), 0);
    assert_int_equal(cc_allocs_add(&a, 0x600000000000, 2 * MiB, CC_MANAGED), 0);
    assert_int_equal(cc_allocs_add(&a, 0x600000400000, 0, CC_DEVICE), 0); /* size 0: ignored */
    assert_int_equal(a.count, 3);
    expect_entry(&a, 0, 0x500000000000, MiB, CC_POOL);
    expect_entry(&a, 1, 0x600000000000, 2 * MiB, CC_MANAGED);
    expect_entry(&a, 2, 0x700000000000, 4 * MiB, CC_DEVICE);

    assert_ptr_equal(cc_allocs_find(&a, 0x600000000000), &a.items[1]);
    assert_ptr_equal(cc_allocs_find(&a, 0x6000001fffff), &a.items[1]);
    assert_null(cc_allocs_find(&a, 0x600000200000)); /* one past the end */
    assert_null(cc_allocs_find(&a, 0x4fffffffffff));
    assert_ptr_equal(cc_allocs_find(&a, 0x700000123456), &a.items[2]);
    assert_null(cc_allocs_find(&a, 0x800000000000));
    cc_allocs_release(&a);
}

static void test_allocs_free(void **state)
{
    cc_allocs a = {0};

    (void)state;
    assert_int_equal(cc_allocs_add(&a, 0x1000000, MiB, CC_DEVICE), 0);
    assert_int_equal(cc_allocs_add(&a, 0x3000000, MiB, CC_DEVICE), 0);
    assert_false(cc_allocs_free(&a, 0x1000010)); /* not a base: nothing happens */
    assert_int_equal(a.count, 2);
    assert_true(cc_allocs_free(&a, 0x1000000));
    assert_false(cc_allocs_free(&a, 0x1000000)); /* runtime and driver both report a free */
    assert_int_equal(a.count, 1);
    expect_entry(&a, 0, 0x3000000, MiB, CC_DEVICE);
    assert_null(cc_allocs_find(&a, 0x1000000));
    cc_allocs_release(&a);
}

static void test_allocs_same_range_twice_is_one(void **state)
{
    cc_allocs a = {0};

    (void)state;
    /* cudaMalloc's runtime callback after the driver's cuMemAlloc_v2 one. */
    assert_int_equal(cc_allocs_add(&a, 0x7f0000000000, 3 * MiB, CC_DEVICE), 0);
    assert_int_equal(cc_allocs_add(&a, 0x7f0000000000, 3 * MiB, CC_DEVICE), 0);
    assert_int_equal(a.count, 1);
    expect_entry(&a, 0, 0x7f0000000000, 3 * MiB, CC_DEVICE);
    cc_allocs_release(&a);
}

static void test_allocs_new_range_cuts_stale_ones(void **state)
{
    cc_allocs a = {0};

    (void)state;
    /* A free the capture never saw: the driver hands part of the range out again. */
    assert_int_equal(cc_allocs_add(&a, 0x10000000, 8 * MiB, CC_POOL), 0);
    assert_int_equal(cc_allocs_add(&a, 0x10200000, 2 * MiB, CC_DEVICE), 0);
    assert_int_equal(a.count, 3);
    expect_entry(&a, 0, 0x10000000, 2 * MiB, CC_POOL);
    expect_entry(&a, 1, 0x10200000, 2 * MiB, CC_DEVICE);
    expect_entry(&a, 2, 0x10400000, 4 * MiB, CC_POOL);
    /* One that covers several old ones removes them all. */
    assert_int_equal(cc_allocs_add(&a, 0x0ff00000, 16 * MiB, CC_DEVICE), 0);
    assert_int_equal(a.count, 1);
    expect_entry(&a, 0, 0x0ff00000, 16 * MiB, CC_DEVICE);
    cc_allocs_release(&a);
}

static void test_allocs_vmm_map_merge_unmap(void **state)
{
    cc_allocs a = {0};
    const uint64_t seg = 0x7e0000000000;

    (void)state;
    /* Expandable segments: 2 MiB pages mapped one after another into one reservation. */
    for (int i = 0; i < 4; i++)
        assert_int_equal(cc_allocs_add(&a, seg + (uint64_t)i * 2 * MiB, 2 * MiB, CC_VMM), 0);
    assert_int_equal(a.count, 1);
    expect_entry(&a, 0, seg, 8 * MiB, CC_VMM);
    /* Mapped out of order, a gap closes into one region too. */
    assert_int_equal(cc_allocs_add(&a, seg + 12 * MiB, 2 * MiB, CC_VMM), 0);
    assert_int_equal(a.count, 2);
    assert_int_equal(cc_allocs_add(&a, seg + 8 * MiB, 4 * MiB, CC_VMM), 0);
    assert_int_equal(a.count, 1);
    expect_entry(&a, 0, seg, 14 * MiB, CC_VMM);
    /* A device allocation that touches is not merged with a mapping. */
    assert_int_equal(cc_allocs_add(&a, seg + 14 * MiB, MiB, CC_DEVICE), 0);
    assert_int_equal(a.count, 2);

    /* Unmapping the middle splits; the ends stay. */
    assert_int_equal(cc_allocs_remove_range(&a, seg + 4 * MiB, 2 * MiB), 0);
    assert_int_equal(a.count, 3);
    expect_entry(&a, 0, seg, 4 * MiB, CC_VMM);
    expect_entry(&a, 1, seg + 6 * MiB, 8 * MiB, CC_VMM);
    assert_null(cc_allocs_find(&a, seg + 5 * MiB));
    /* Unmapping the head and tail of pieces trims them. */
    assert_int_equal(cc_allocs_remove_range(&a, seg + 3 * MiB, 4 * MiB), 0);
    expect_entry(&a, 0, seg, 3 * MiB, CC_VMM);
    expect_entry(&a, 1, seg + 7 * MiB, 7 * MiB, CC_VMM);
    /* cuMemAddressFree of the whole reservation drops what is left of it. */
    assert_int_equal(cc_allocs_remove_range(&a, seg, 14 * MiB), 0);
    assert_int_equal(a.count, 1);
    expect_entry(&a, 0, seg + 14 * MiB, MiB, CC_DEVICE);
    cc_allocs_release(&a);
}

static void test_allocs_many(void **state)
{
    cc_allocs a = {0};

    (void)state;
    /* More than any fixed table would hold, inserted in descending order. */
    for (uint64_t i = 5000; i-- > 0;)
        assert_int_equal(cc_allocs_add(&a, 0x100000000 + i * 0x1000, 0x800, CC_DEVICE), 0);
    assert_int_equal(a.count, 5000);
    for (size_t i = 1; i < a.count; i++)
        assert_true(a.items[i - 1].base + a.items[i - 1].size <= a.items[i].base);
    assert_int_equal(cc_allocs_find(&a, 0x100000000 + 4321 * 0x1000 + 0x7ff)->base,
                     0x100000000 + 4321 * 0x1000);
    assert_null(cc_allocs_find(&a, 0x100000000 + 4321 * 0x1000 + 0x800));
    cc_allocs_release(&a);
}

static void test_kind_names(void **state)
{
    (void)state;
    assert_string_equal(cc_kind_name(CC_DEVICE), "device");
    assert_string_equal(cc_kind_name(CC_POOL), "pool");
    assert_string_equal(cc_kind_name(CC_VMM), "vmm");
    assert_string_equal(cc_kind_name(CC_MANAGED), "managed");
    assert_string_equal(cc_kind_name(CC_HOST), "host");
}

static void expect_types(const char *name, size_t n, const char *const *want)
{
    char **types = NULL;
    size_t got = 99;

    assert_int_equal(rpl_param_types(&types, &got, name), 0);
    assert_int_equal(got, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(types[i], want[i]);
    rpl_strv_free(types, got);
}

static void test_param_types(void **state)
{
    static const char *const saxpy[] = {"unsigned long", "float", "float const*", "float*"};
    static const char *const tmpl[] = {"double*", "double const*", "unsigned long long", "__half*"};
    static const char *const nested[] = {"cutlass::Params<float, 4, (anonymous namespace)::X>",
                                         "void (*)(int, int)", "Foo<Bar<int, char>, 3>*"};
    static const char *const one[] = {"int"};
    char **types = NULL;
    size_t n = 0;

    (void)state;
    expect_types("saxpy(unsigned long, float, float const*, float*)", 4, saxpy);
    expect_types("void ns::tk<double>(double*, double const*, unsigned long long, __half*)", 4,
                 tmpl);
    expect_types("(anonymous namespace)::k(cutlass::Params<float, 4, (anonymous namespace)::X>, "
                 "void (*)(int, int), Foo<Bar<int, char>, 3>*)",
                 3, nested);
    expect_types("k(int) [clone .kd]", 1, one);
    expect_types("empty()", 0, NULL);
    assert_int_equal(rpl_param_types(&types, &n, "plain_c_kernel"), RPL_EINPUT);
    assert_null(types);
    assert_int_equal(n, 0);
}

static void expect_class(const char *type, bool pointer, rpl_dtype pointee)
{
    bool p = !pointer;
    rpl_dtype d = (rpl_dtype)(RPL_DTYPE_F64 + 1);

    rpl_param_type_classify(type, &p, &d);
    if (p != pointer || d != pointee)
        fail_msg("'%s': pointer %d dtype %d, want %d %d", type, p, (int)d, pointer, (int)pointee);
}

static void test_type_classify(void **state)
{
    (void)state;
    expect_class("float*", true, RPL_DTYPE_F32);
    expect_class("float const*", true, RPL_DTYPE_F32);
    expect_class("const float * __restrict__", true, RPL_DTYPE_F32);
    expect_class("float4*", true, RPL_DTYPE_F32);
    expect_class("double*", true, RPL_DTYPE_F64);
    expect_class("double2 const*", true, RPL_DTYPE_F64);
    expect_class("__half*", true, RPL_DTYPE_F16);
    expect_class("__half2*", true, RPL_DTYPE_F16);
    expect_class("__nv_bfloat16 const*", true, RPL_DTYPE_BF16);
    expect_class("__nv_bfloat162*", true, RPL_DTYPE_BF16);
    expect_class("int*", true, RPL_DTYPE_I32);
    expect_class("int4*", true, RPL_DTYPE_I32);
    expect_class("unsigned int*", true, RPL_DTYPE_U32);
    expect_class("uint2*", true, RPL_DTYPE_U32);
    expect_class("signed char*", true, RPL_DTYPE_I8);
    expect_class("unsigned char volatile*", true, RPL_DTYPE_U8);
    expect_class("bool*", true, RPL_DTYPE_U8);
    expect_class("short*", true, RPL_DTYPE_I16);
    expect_class("unsigned short*", true, RPL_DTYPE_U16);
    expect_class("long*", true, RPL_DTYPE_I64);
    expect_class("long long*", true, RPL_DTYPE_I64);
    expect_class("unsigned long*", true, RPL_DTYPE_U64);
    expect_class("unsigned long long*", true, RPL_DTYPE_U64);
    expect_class("float**", true, RPL_DTYPE_U64);     /* device addresses */
    expect_class("Node*", true, RPL_DTYPE_BYTES);     /* a struct */
    expect_class("void*", true, RPL_DTYPE_BYTES);     /* unknown */
    expect_class("constant*", true, RPL_DTYPE_BYTES); /* "const" only as a whole word */
    expect_class("float", false, RPL_DTYPE_BYTES);
    expect_class("unsigned long", false, RPL_DTYPE_BYTES);
    expect_class("void (*)(int, int)", false, RPL_DTYPE_BYTES);
    expect_class("Params<float*>", false, RPL_DTYPE_BYTES);
    expect_class(NULL, false, RPL_DTYPE_BYTES);
}

static void test_demangle(void **state)
{
    char *d;

    (void)state;
    d = cc_demangle("_ZN2ns2tkIdEEvPT_PKS1_yP6__half");
    assert_non_null(d);
    assert_string_equal(d, "void ns::tk<double>(double*, double const*, unsigned long long, "
                           "__half*)");
    free(d);
    assert_null(cc_demangle("plain_c_kernel"));
    assert_null(cc_demangle("_Zbroken(("));
    assert_null(cc_demangle(NULL));
}

static void test_config(void **state)
{
    cc_config c;

    (void)state;
    assert_int_equal(cc_config_init(&c, "snap", "gemm|saxpy", "3", "/data/x"), 0);
    assert_string_equal(c.dir, "/data/x/snap");
    assert_int_equal(c.index, 3);
    assert_true(cc_config_matches(&c, "_Z5saxpymfPKfPf", "saxpy(unsigned long, float, ...)"));
    /* The mangled name is tried when the demangled one does not match. */
    assert_true(cc_config_matches(&c, "gemm_kernel", NULL));
    assert_false(cc_config_matches(&c, "_Z6reducePKfPfm", "reduce(float const*, float*, ...)"));
    cc_config_release(&c);

    /* Demangled first: a pattern on the C++ spelling matches. */
    assert_int_equal(cc_config_init(&c, "/abs/snap", "^void ns::tk<double>", NULL, "/cwd"), 0);
    assert_string_equal(c.dir, "/abs/snap");
    assert_int_equal(c.index, 0);
    assert_true(
        cc_config_matches(&c, "_ZN2ns2tkIdEEvPT_PKS1_yP6__half", "void ns::tk<double>(double*)"));
    assert_false(cc_config_matches(&c, "_ZN2ns2tkIdEEvPT_PKS1_yP6__half", NULL));
    cc_config_release(&c);

    /* No pattern: every kernel. */
    assert_int_equal(cc_config_init(&c, "s", "", "", "/"), 0);
    assert_true(cc_config_matches(&c, "anything", NULL));
    cc_config_release(&c);

    assert_int_equal(cc_config_init(&c, "s", "(", NULL, "/"), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "bad kernel pattern"));
    assert_int_equal(cc_config_init(&c, "s", NULL, "-1", "/"), RPL_EUSAGE);
    assert_int_equal(cc_config_init(&c, "s", NULL, "2x", "/"), RPL_EUSAGE);
    assert_int_equal(cc_config_init(&c, "", NULL, NULL, "/"), RPL_EUSAGE);
    assert_int_equal(cc_config_init(&c, "../escape", NULL, NULL, "/cwd"), RPL_EINPUT);
}

typedef struct seen {
    char names[16][64];
    uint64_t sizes[16];
    bool function[16];
    int n;
} seen;

static int collect(void *ud, const char *name, uint64_t size, bool function)
{
    seen *s = ud;

    if (s->n < 16) {
        snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
        s->sizes[s->n] = size;
        s->function[s->n] = function;
        s->n++;
    }
    return 0;
}

static int find_name(const seen *s, const char *name, bool function)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->names[i], name) == 0 && s->function[i] == function)
            return i;
    return -1;
}

static void test_cubin_symbols(void **state)
{
    char *path = NULL, *data = NULL;
    size_t len = 0;
    seen s = {0};
    int i;

    (void)state;
    assert_int_equal(rpl_path_join(&path, RPL_FIXTURES, "capture/globals.cubin"), 0);
    assert_int_equal(rpl_file_read_all(path, 1 << 20, &data, &len), 0);
    assert_int_equal(cc_cubin_symbols(data, len, collect, &s), 0);
    /* Two kernels and three globals; no parameter-bank or shared-memory symbol. */
    assert_int_equal(s.n, 5);
    assert_true(find_name(&s, "_Z11use_globalsPfPKfi", true) >= 0);
    assert_true(find_name(&s, "_ZN2ns2tkIdEEvPT_PKS1_yP6__half", true) >= 0);
    assert_true((i = find_name(&s, "scale_dev", false)) >= 0);
    assert_int_equal(s.sizes[i], 4);
    assert_true((i = find_name(&s, "counter_dev", false)) >= 0);
    assert_int_equal(s.sizes[i], 4);
    assert_true((i = find_name(&s, "coeffs", false)) >= 0);
    assert_int_equal(s.sizes[i], 64);

    assert_true(cc_cubin_has_function(data, len, "_Z11use_globalsPfPKfi"));
    assert_false(cc_cubin_has_function(data, len, "scale_dev")); /* a variable */
    assert_false(cc_cubin_has_function(data, len, "_Z11use_globalsPfPKf"));

    /* Not a cubin: bytes, a truncated image. */
    assert_int_equal(cc_cubin_symbols("hello", 5, collect, &s), RPL_EINPUT);
    assert_int_equal(cc_cubin_symbols(data, 64, collect, &s), RPL_EINPUT);
    assert_false(cc_cubin_has_function(data, 64, "_Z11use_globalsPfPKfi"));
    free(data);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allocs_insert_sorted_and_find),
        cmocka_unit_test(test_allocs_free),
        cmocka_unit_test(test_allocs_same_range_twice_is_one),
        cmocka_unit_test(test_allocs_new_range_cuts_stale_ones),
        cmocka_unit_test(test_allocs_vmm_map_merge_unmap),
        cmocka_unit_test(test_allocs_many),
        cmocka_unit_test(test_kind_names),
        cmocka_unit_test(test_param_types),
        cmocka_unit_test(test_type_classify),
        cmocka_unit_test(test_demangle),
        cmocka_unit_test(test_config),
        cmocka_unit_test(test_cubin_symbols),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
