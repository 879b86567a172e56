/*
 * The parts of librpl_hsa.so that make no HSA call (src/tools/hsa,
 * capture_pure.h): configuration and dispatch counting, region
 * bookkeeping, the kernel table, parameter types and code object URIs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture_pure.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/hsa.h"

static void config_needs_a_directory_and_valid_values(void **state)
{
    ch_config c;

    assert_int_equal(ch_config_init(&c, NULL, NULL, NULL), RPL_EUSAGE);
    assert_int_equal(ch_config_init(&c, "", NULL, NULL), RPL_EUSAGE);
    assert_int_equal(ch_config_init(&c, "/tmp/s", "([", NULL), RPL_EUSAGE);
    assert_int_equal(ch_config_init(&c, "/tmp/s", NULL, "-1"), RPL_EUSAGE);
    assert_int_equal(ch_config_init(&c, "/tmp/s", NULL, "3x"), RPL_EUSAGE);
    assert_int_equal(ch_config_init(&c, "/tmp/s", NULL, "99999999999999999999999"), RPL_EUSAGE);
    assert_int_equal(ch_config_init(&c, "/tmp/s", "", "7"), 0);
    assert_string_equal(c.dir, "/tmp/s");
    assert_int_equal(c.index, 7);
    assert_null(c.filter.kernel_regex);
    ch_config_release(&c);
}

static void pattern_picks_by_either_name_and_skips_helpers_by_default(void **state)
{
    ch_config c;

    assert_int_equal(ch_config_init(&c, "/tmp/s", NULL, NULL), 0);
    /* No pattern: any kernel but the runtime's helpers. */
    assert_true(ch_config_selects(&c, "_Z9incrementPif", "increment(int*, float)"));
    assert_false(ch_config_selects(&c, "__amd_rocclr_fillBufferAligned", NULL));
    ch_config_release(&c);

    assert_int_equal(ch_config_init(&c, "/tmp/s", "^increment\\(", NULL), 0);
    assert_true(ch_config_selects(&c, "_Z9incrementPif", "increment(int*, float)"));
    assert_false(ch_config_selects(&c, "_Z11lds_scratchPfi", "lds_scratch(float*, int)"));
    ch_config_release(&c);

    /* The mangled name matches too, and a pattern may pick a helper on purpose. */
    assert_int_equal(ch_config_init(&c, "/tmp/s", "Pif$|rocclr", NULL), 0);
    assert_true(ch_config_selects(&c, "_Z9incrementPif", NULL));
    assert_true(ch_config_selects(&c, "__amd_rocclr_copyBuffer", NULL));
    ch_config_release(&c);
}

static void count_hits_the_nth_match_only(void **state)
{
    ch_config c;
    uint64_t ord;

    assert_int_equal(ch_config_init(&c, "/tmp/s", NULL, "2"), 0);
    assert_false(ch_config_count(&c, &ord));
    assert_int_equal(ord, 0);
    assert_false(ch_config_count(&c, &ord));
    assert_true(ch_config_count(&c, &ord));
    assert_int_equal(ord, 2);
    assert_false(ch_config_count(&c, &ord));
    assert_int_equal(c.seen, 4);
    ch_config_release(&c);
}

static void allocations_stay_sorted_and_stale_ranges_go(void **state)
{
    ch_regions r = {0};
    ch_alloc a;

    assert_int_equal(ch_regions_alloc(&r, 0x3000, 0x1000, CH_POOL), 0);
    assert_int_equal(ch_regions_alloc(&r, 0x1000, 0x1000, CH_HOST), 0);
    assert_int_equal(ch_regions_alloc(&r, 0x8000, 0x2000, CH_DEVICE), 0);
    assert_int_equal(ch_regions_alloc(&r, 0x9000, 0, CH_DEVICE), 0);        /* size 0: ignored */
    assert_int_equal(ch_regions_alloc(&r, UINT64_MAX - 4, 16, CH_POOL), 0); /* wraps: ignored */
    assert_int_equal(r.nallocs, 3);
    assert_true(r.allocs[0].base == 0x1000 && r.allocs[1].base == 0x3000);
    assert_true(ch_regions_find(&r, 0x3fff, &a));
    assert_int_equal(a.kind, CH_POOL);
    assert_false(ch_regions_find(&r, 0x4000, &a));

    /* A new range over 0x3000 means the old one was freed unseen. */
    assert_int_equal(ch_regions_alloc(&r, 0x2800, 0x1000, CH_KERNARG), 0);
    assert_int_equal(r.nallocs, 3);
    assert_true(ch_regions_find(&r, 0x3000, &a));
    assert_int_equal(a.kind, CH_KERNARG);
    assert_false(ch_regions_find(&r, 0x3900, &a));

    assert_true(ch_regions_free(&r, 0x8000));
    assert_false(ch_regions_free(&r, 0x8000));
    assert_false(ch_regions_free(&r, 0x1800)); /* not the start of an allocation */
    assert_int_equal(r.nallocs, 2);
    ch_regions_release(&r);
}

static void vmem_mappings_count_once_accessible(void **state)
{
    ch_regions r = {0};
    ch_alloc a, *spans = NULL;
    size_t n = 0;

    assert_int_equal(ch_regions_map(&r, 0x100000, 0x10000, 7), 0);
    assert_int_equal(ch_regions_map(&r, 0x110000, 0x10000, 8), 0);
    assert_false(ch_regions_find(&r, 0x100000, &a)); /* mapped, no access yet */
    assert_int_equal(ch_regions_spans(&r, &spans, &n), 0);
    assert_int_equal(n, 0);
    free(spans);

    ch_regions_set_access(&r, 0x100000, 0x20000, true);
    assert_true(ch_regions_find(&r, 0x11ffff, &a));
    assert_int_equal(a.kind, CH_VMM);
    assert_true(a.base == 0x110000 && a.size == 0x10000);

    /* Touching mappings become one span. */
    assert_int_equal(ch_regions_spans(&r, &spans, &n), 0);
    assert_int_equal(n, 1);
    assert_true(spans[0].base == 0x100000 && spans[0].size == 0x20000);
    assert_int_equal(spans[0].kind, CH_VMM);
    free(spans);

    assert_int_equal(ch_regions_unmap(&r, 0x110000, 0x10000), 1);
    assert_false(ch_regions_find(&r, 0x110000, &a));
    /* Freeing the reservation drops what is still mapped in it. */
    assert_int_equal(ch_regions_unmap(&r, 0x0, 0x200000), 1);
    assert_int_equal(r.nmaps, 0);
    ch_regions_release(&r);
}

static void spans_merge_overlaps_and_keep_the_first_kind(void **state)
{
    ch_regions r = {0};
    ch_alloc *spans = NULL;
    size_t n = 0;

    assert_int_equal(ch_regions_alloc(&r, 0x10000, 0x1000, CH_POOL), 0);
    assert_int_equal(ch_regions_alloc(&r, 0x11000, 0x800, CH_HOST), 0); /* touches the first */
    assert_int_equal(ch_regions_alloc(&r, 0x20000, 0x100, CH_DEVICE), 0);
    assert_int_equal(ch_regions_map(&r, 0x40000, 0x1000, 1), 0);
    ch_regions_set_access(&r, 0x40000, 0x1000, true);
    assert_int_equal(ch_regions_map(&r, 0x50000, 0x1000, 2), 0); /* never accessible */
    assert_int_equal(ch_regions_spans(&r, &spans, &n), 0);
    assert_int_equal(n, 3);
    assert_true(spans[0].base == 0x10000 && spans[0].size == 0x1800);
    assert_int_equal(spans[0].kind, CH_POOL);
    assert_true(spans[1].base == 0x20000 && spans[1].size == 0x100);
    assert_int_equal(spans[1].kind, CH_DEVICE);
    assert_true(spans[2].base == 0x40000);
    assert_int_equal(spans[2].kind, CH_VMM);
    assert_string_equal(ch_kind_name(spans[0].kind), "pool");
    assert_string_equal(ch_kind_name(CH_VMM), "vmm");
    assert_string_equal(ch_kind_name(CH_KERNARG), "kernarg");
    free(spans);
    ch_regions_release(&r);
}

static void add_kernel(ch_kernels *t, uint64_t ko, uint64_t exe, const char *name)
{
    ch_kernel k;

    memset(&k, 0, sizeof(k));
    k.kernel_object = ko;
    k.executable = exe;
    k.name = strdup(name);
    assert_int_equal(rpl_amd_kd_symbol(&k.symbol, name), 0);
    assert_int_equal(ch_kernels_add(t, &k), 0);
    assert_null(k.name); /* taken over */
}

static void kernel_table_finds_replaces_and_drops(void **state)
{
    ch_kernels t = {0};
    const ch_kernel *k;
    unsigned char *bytes = malloc(4);
    int i;

    for (i = 0; i < 100; i++) {
        char name[32];

        snprintf(name, sizeof(name), "k%d", i);
        add_kernel(&t, 0x7000 + (uint64_t)(i * 7919 % 100) * 64, i < 50 ? 1 : 2, name);
    }
    assert_int_equal(t.count, 100);
    k = ch_kernels_find(&t, 0x7000 + 13 * 64);
    assert_non_null(k);
    assert_null(ch_kernels_find(&t, 0x7001));
    /* A later load at the same address wins. */
    add_kernel(&t, 0x7000, 3, "again");
    assert_int_equal(t.count, 100);
    assert_string_equal(ch_kernels_find(&t, 0x7000)->symbol, "again.kd");

    assert_int_equal(ch_kernels_add_code(&t, 2, 0x10000, 0x4000, bytes, 4), 0);
    assert_int_equal(ch_kernels_add_code(&t, 1, 0x20000, 0x4000, NULL, 99), 0);
    assert_non_null(ch_kernels_code_at(&t, 2, 0x13fff));
    assert_null(ch_kernels_code_at(&t, 2, 0x14000));
    assert_null(ch_kernels_code_at(&t, 1, 0x13fff)); /* another executable */
    assert_int_equal(ch_kernels_code_at(&t, 1, 0x20000)->len, 0);

    ch_kernels_drop_executable(&t, 1);
    assert_int_equal(t.count, 51); /* 49 of executable 1 left, one was replaced */
    assert_null(ch_kernels_code_at(&t, 1, 0x20000));
    assert_non_null(ch_kernels_code_at(&t, 2, 0x10000));
    for (i = 0; i + 1 < (int)t.count; i++)
        assert_true(t.items[i].kernel_object < t.items[i + 1].kernel_object);
    ch_kernels_release(&t);
}

static void param_types_split_at_top_level(void **state)
{
    char **v = NULL;
    size_t n = 0;

    assert_int_equal(
        rpl_param_types(&v, &n, "void ns::gemm<float, 4>(float const*, Pair<int, long>, int)"), 0);
    assert_int_equal(n, 3);
    assert_string_equal(v[0], "float const*");
    assert_string_equal(v[1], "Pair<int, long>");
    assert_string_equal(v[2], "int");
    rpl_strv_free(v, n);

    assert_int_equal(rpl_param_types(&v, &n, "apply(void (*)(int, int), double*)"), 0);
    assert_int_equal(n, 2);
    assert_string_equal(v[0], "void (*)(int, int)");
    assert_string_equal(v[1], "double*");
    rpl_strv_free(v, n);

    assert_int_equal(rpl_param_types(&v, &n, "k()"), 0);
    assert_int_equal(n, 0);
    rpl_strv_free(v, n);
    assert_int_equal(rpl_param_types(&v, &n, "k(void)"), 0);
    assert_int_equal(n, 0);
    rpl_strv_free(v, n);
    assert_int_equal(rpl_param_types(&v, &n, "plain"), RPL_EINPUT);
    assert_int_equal(rpl_param_types(&v, &n, "broken)"), RPL_EINPUT);
}

static void types_classify(void **state)
{
    bool ptr;
    rpl_dtype t;

    rpl_param_type_classify("float const*", &ptr, &t);
    assert_true(ptr);
    assert_int_equal(t, RPL_DTYPE_F32);
    rpl_param_type_classify("const double* __restrict__", &ptr, &t);
    assert_true(ptr);
    assert_int_equal(t, RPL_DTYPE_F64);
    rpl_param_type_classify("unsigned char*", &ptr, &t);
    assert_int_equal(t, RPL_DTYPE_U8);
    rpl_param_type_classify("__half*", &ptr, &t);
    assert_int_equal(t, RPL_DTYPE_F16);
    rpl_param_type_classify("HIP_vector_type<float, 4u>*", &ptr, &t);
    assert_int_equal(t, RPL_DTYPE_F32);
    rpl_param_type_classify("int**", &ptr, &t);
    assert_true(ptr);
    assert_int_equal(t, RPL_DTYPE_U64);
    rpl_param_type_classify("Node*", &ptr, &t);
    assert_true(ptr);
    assert_int_equal(t, RPL_DTYPE_BYTES);
    rpl_param_type_classify("int", &ptr, &t);
    assert_false(ptr);
    assert_int_equal(t, RPL_DTYPE_BYTES);
    rpl_param_type_classify("constant*", &ptr, &t); /* a type named "constant", not a qualifier */
    assert_true(ptr);
    assert_int_equal(t, RPL_DTYPE_BYTES);
}

/* Parameters of the fixture code object's kernels, from its metadata. */
static void params_come_from_metadata_and_types_from_the_name(void **state)
{
    rpl_codeobj_set *set = NULL;
    const rpl_kernel_info *info = NULL;
    rpl_snap_param *p = NULL;
    char *image = NULL;
    size_t len = 0, n = 0;
    uint32_t size = 0, align = 0;

    assert_int_equal(rpl_file_read_all(RPL_FIXTURES "/hsa/kernels.hsaco", 1 << 20, &image, &len),
                     0);
    assert_int_equal(rpl_codeobj_set_new(&set), 0);
    assert_int_equal(rpl_codeobj_read_buffer(set, image, len, "kernels.hsaco"), 0);
    assert_int_equal(ch_kernarg_from_metadata(&size, &align, &info, set, "_Z9incrementPif"), 0);
    assert_int_equal(size, 12);
    assert_true(align >= 8);
    assert_int_equal(ch_params_build(&p, &n, info, "increment(int*, float)"), 0);
    assert_int_equal(n, 2);
    assert_int_equal(p[0].offset, 0);
    assert_int_equal(p[0].size, 8);
    assert_true(p[0].pointer);
    assert_int_equal(p[0].pointee, RPL_DTYPE_I32);
    assert_string_equal(p[0].type, "int*");
    assert_int_equal(p[1].offset, 8);
    assert_false(p[1].pointer);
    assert_string_equal(p[1].type, "float");
    ch_params_free(p, n);

    /* A name that lists other parameters gives no types, the layout stays. */
    assert_int_equal(ch_params_build(&p, &n, info, "increment(int*)"), 0);
    assert_int_equal(n, 2);
    assert_null(p[0].type);
    assert_true(p[0].pointer);
    assert_int_equal(p[0].pointee, RPL_DTYPE_BYTES);
    ch_params_free(p, n);

    assert_int_equal(ch_kernarg_from_metadata(&size, &align, NULL, set, "nope"), RPL_ENOTFOUND);
    rpl_codeobj_set_free(set);
    free(image);
}

static void uri_ranges(void **state)
{
    uint64_t off = 1, size = 2;

    assert_true(ch_uri_range("file:///opt/app.so#offset=8192&size=4096", &off, &size));
    assert_int_equal(off, 8192);
    assert_int_equal(size, 4096);
    assert_true(ch_uri_range("memory://1234#offset=0x7f0000001000&size=77", &off, &size));
    assert_true(off == 0x7f0000001000ull);
    assert_int_equal(size, 77);
    off = 5;
    assert_false(ch_uri_range("file:///opt/app.hsaco", &off, &size));
    assert_false(ch_uri_range("file:///a#offset=12", &off, &size));
    assert_false(ch_uri_range("file:///a#offset=-1&size=3", &off, &size));
    assert_false(ch_uri_range("file:///a#offset=1x&size=3", &off, &size));
    assert_int_equal(off, 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(config_needs_a_directory_and_valid_values),
        cmocka_unit_test(pattern_picks_by_either_name_and_skips_helpers_by_default),
        cmocka_unit_test(count_hits_the_nth_match_only),
        cmocka_unit_test(allocations_stay_sorted_and_stale_ranges_go),
        cmocka_unit_test(vmem_mappings_count_once_accessible),
        cmocka_unit_test(spans_merge_overlaps_and_keep_the_first_kind),
        cmocka_unit_test(kernel_table_finds_replaces_and_drops),
        cmocka_unit_test(param_types_split_at_top_level),
        cmocka_unit_test(types_classify),
        cmocka_unit_test(params_come_from_metadata_and_types_from_the_name),
        cmocka_unit_test(uri_ranges),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
