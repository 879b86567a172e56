/*
 * Kernels found in a HIP fixture (kernels.hip): what counts as a kernel,
 * names, device symbols, linkage, templates, parameters, launch bounds and
 * exact extents; lookup by name; signature comparison; diagnostics.
 */
#include "ks_test.h"

#define FIXTURE KS_DIR "/kernels.hip"

static int setup(void **state)
{
    *state = ks_test_parse(FIXTURE, NULL);
    return 0;
}

static int teardown(void **state)
{
    rpl_kernel_source_free(*state);
    return 0;
}

static void test_kernels_found(void **state)
{
    const rpl_kernel_source *src = *state;
    static const char *const want[] = {"c_linkage",    "c_block",       "templated",
                                       "alpha::scale", "beta::scale",   "via_macro",
                                       "odd_params",   "fill_by_macro", "after_macro_line",
                                       "overloaded",   "overloaded"};

    assert_int_equal(src->mode, RPL_KS_MODE_HIP);
    assert_int_equal(src->n_errors, 0);
    assert_int_equal(src->n_kernels, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < src->n_kernels; i++)
        assert_string_equal(src->kernels[i].qualified_name, want[i]);
    /* __global__ in comments and strings, and __device__ functions, are not kernels. */
    for (size_t i = 0; i < src->n_kernels; i++) {
        assert_null(strstr(src->kernels[i].name, "fake"));
        assert_null(strstr(src->kernels[i].name, "in_a_"));
        assert_null(strstr(src->kernels[i].name, "twice"));
    }
}

static void test_extents(void **state)
{
    const rpl_kernel_source *src = *state;
    const rpl_ks_kernel *k;

    k = ks_test_kernel(src, "c_linkage");
    ks_test_range_is(src, &k->definition, "extern \"C\" __global__ void c_linkage(", "}");
    assert_int_equal(k->definition.line_begin, 16);
    assert_int_equal(k->definition.line_end, 21);
    ks_test_range_is(src, &k->body, "{\n    int i", "twice(in[i]);\n}");
    k = ks_test_kernel(src, "c_block");
    ks_test_range_is(src, &k->definition, "__global__ void c_block(int *p)", "'}';\n}");
    k = ks_test_kernel(src, "templated");
    ks_test_range_is(src, &k->definition, "template <typename T, int N>\n__global__", "}");
    k = ks_test_kernel(src, "via_macro");
    ks_test_range_is(src, &k->definition, "KERNEL_ATTRS void via_macro(", "}");
    assert_false(k->in_macro);
    k = ks_test_kernel(src, "beta::scale");
    ks_test_range_is(src, &k->definition, "__global__ void scale(double *v", "}");
    assert_int_equal(k->name_line, 47);
    k = ks_test_kernel(src, "fill_by_macro");
    assert_true(k->in_macro);
    /* A macro invocation on its own line before the kernel is not part of it. */
    k = ks_test_kernel(src, "after_macro_line");
    ks_test_range_is(src, &k->definition, "__global__ void after_macro_line(int *p)", "}");
}

static void test_symbols_and_linkage(void **state)
{
    const rpl_kernel_source *src = *state;
    const rpl_ks_kernel *k;

    k = ks_test_kernel(src, "c_linkage");
    assert_true(k->extern_c);
    assert_string_equal(k->mangled, "c_linkage");
    k = ks_test_kernel(src, "c_block");
    assert_true(k->extern_c);
    k = ks_test_kernel(src, "alpha::scale");
    assert_false(k->extern_c);
    assert_string_equal(k->mangled, "_ZN5alpha5scaleEPff");
    k = ks_test_kernel(src, "beta::scale");
    assert_string_equal(k->mangled, "_ZN4beta5scaleEPdd");
    k = ks_test_kernel(src, "odd_params");
    assert_string_equal(k->mangled, "_Z10odd_paramsPFviEPA4_fPKPKimPFvPfE");
    k = ks_test_kernel(src, "templated");
    assert_true(k->is_template);
    assert_null(k->mangled);
    assert_int_equal(k->n_tparams, 2);
    assert_int_equal(k->tparams[0].kind, RPL_KS_TPARAM_TYPE);
    assert_string_equal(k->tparams[0].name, "T");
    assert_int_equal(k->tparams[1].kind, RPL_KS_TPARAM_VALUE);
    assert_string_equal(k->tparams[1].name, "N");
    assert_string_equal(k->tparams[1].type, "int");
    assert_string_equal(k->launch_bounds, "BLOCK, 2");
    assert_null(ks_test_kernel(src, "c_linkage")->launch_bounds);
}

static void test_params(void **state)
{
    const rpl_kernel_source *src = *state;
    const rpl_ks_kernel *k = ks_test_kernel(src, "c_linkage");
    static const char *const odd[] = {"void (*)(int)", "float (*)[4]", "const int *const *",
                                      "unsigned long", "void (*)(float *)"};

    assert_int_equal(k->n_params, 3);
    assert_string_equal(k->params[0].name, "out");
    assert_string_equal(k->params[1].name, "in");
    assert_string_equal(k->params[1].type, "const float *__restrict");
    /* The ABI view drops the pointer's own qualifier, as mangling does. */
    assert_string_equal(k->params[1].canonical, "const float *");
    k = ks_test_kernel(src, "odd_params");
    assert_int_equal(k->n_params, 5);
    for (size_t i = 0; i < 5; i++)
        assert_string_equal(k->params[i].canonical, odd[i]);
    assert_string_equal(k->params[3].type, "size_t");
    assert_string_equal(k->params[4].name, "cb");
    k = ks_test_kernel(src, "templated");
    assert_string_equal(k->params[0].type, "T *");
    assert_string_equal(k->params[1].canonical, "const type-parameter-0-0 *");
}

static void test_find(void **state)
{
    const rpl_kernel_source *src = *state;
    const rpl_ks_kernel *k = NULL;

    ks_test_error_has(rpl_kernel_source_find(src, "scale", &k), RPL_EINPUT,
                      "ambiguous in " FIXTURE ": alpha::scale, beta::scale");
    assert_null(k);
    assert_int_equal(rpl_kernel_source_find(src, "_ZN4beta5scaleEPdd", &k), 0);
    assert_string_equal(k->qualified_name, "beta::scale");
    assert_int_equal(rpl_kernel_source_find(src, "alpha::scale", &k), 0);
    assert_string_equal(k->mangled, "_ZN5alpha5scaleEPff");
    ks_test_error_has(rpl_kernel_source_find(src, "twice", &k), RPL_ENOTFOUND,
                      "defines no kernel 'twice'");
    /* Overloads share a name: only their symbols tell them apart. */
    ks_test_error_has(rpl_kernel_source_find(src, "overloaded", &k), RPL_EINPUT,
                      "'overloaded' is ambiguous in " FIXTURE
                      ": _Z10overloadedPf, _Z10overloadedPd");
    assert_int_equal(rpl_kernel_source_find(src, "_Z10overloadedPd", &k), 0);
    assert_string_equal(k->params[0].type, "double *");
}

static void test_signature_text(void **state)
{
    const rpl_kernel_source *src = *state;
    char *s = NULL;

    assert_int_equal(rpl_ks_kernel_signature(ks_test_kernel(src, "c_linkage"), &s), 0);
    assert_string_equal(s, "extern \"C\" c_linkage(float *, const float *__restrict, int)");
    free(s);
    assert_int_equal(rpl_ks_kernel_signature(ks_test_kernel(src, "templated"), &s), 0);
    assert_string_equal(s, "template <typename T, int N> templated(T *, const T *)");
    free(s);
}

/* Spelling differences that are not ABI differences, and ones that are. */
static void test_signature_diff(void **state)
{
    static const struct {
        const char *after;
        const char *diff; /* NULL: equal */
    } cases[] = {
        {"__global__ void k(const float* __restrict__ x, float *y, const int n) {}", NULL},
        {"__global__ void k(const float *a, float b[], int n) {}", NULL},
        {"__global__ void k(const float *a, double *b, int n) {}",
         "parameter 2: 'float *' became 'double *'"},
        {"__global__ void k(const float *a, float *b) {}", "the parameters went from 3 to 2"},
        {"__global__ void k2(const float *a, float *b, int n) {}", "the name 'k' became 'k2'"},
        {"extern \"C\" __global__ void k(const float *a, float *b, int n) {}",
         "extern \"C\" was added"},
        {"namespace q { __global__ void k(const float *a, float *b, int n) {} }",
         "the name 'k' became 'q::k'"},
        {"template <int N> __global__ void k(const float *a, float *b, int n) {}",
         "it became a template"},
        {"typedef unsigned long sz; __global__ void k(const float *a, float *b, sz n) {}",
         "parameter 3: 'int' became 'sz'"},
    };
    rpl_kernel_source *before = ks_test_parse_text(
        "before.hip", "__global__ void k(const float *__restrict__ a, float *b, int n) {}", NULL);

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rpl_kernel_source *after = ks_test_parse_text("after.hip", cases[i].after, NULL);
        char *diff = NULL;
        int rc;
        assert_int_equal(after->n_kernels, 1);
        rc = rpl_ks_signature_diff(&before->kernels[0], &after->kernels[0], &diff);
        if (!cases[i].diff && rc != 0)
            fail_msg("'%s': unexpected difference '%s'", cases[i].after, diff);
        if (cases[i].diff && (rc != RPL_EFAIL || !diff || strcmp(diff, cases[i].diff) != 0))
            fail_msg("'%s': difference '%s', expected '%s'", cases[i].after, diff ? diff : "none",
                     cases[i].diff);
        free(diff);
        rpl_kernel_source_free(after);
    }
    rpl_kernel_source_free(before);
}

static void test_diagnostics(void **state)
{
    rpl_kernel_source *src = ks_test_parse_text(
        "broken.hip", "__global__ void k(float *a)\n{\n    a[0] = undefined_thing;\n}\n", NULL);

    (void)state;
    assert_int_equal(src->n_errors, 1);
    assert_true(src->n_diags >= 1);
    assert_int_equal(src->diags[0].severity, 3);
    assert_true(src->diags[0].in_main_file);
    assert_int_equal(src->diags[0].line, 3);
    assert_non_null(strstr(src->diags[0].message, "undefined_thing"));
    /* The kernel is still there, and its extent. */
    assert_int_equal(src->n_kernels, 1);
    assert_int_equal(src->kernels[0].definition.begin, 0);
    rpl_kernel_source_free(src);
}

static void test_missing_file(void **state)
{
    rpl_kernel_source *src = NULL;
    int rc = rpl_kernel_source_parse_file(&src, KS_DIR "/no-such-file.hip", NULL);

    (void)state;
    assert_true(rc == RPL_ENOTFOUND || rc == RPL_EIO);
    assert_null(src);
    ks_test_error_has(rpl_kernel_source_parse_buffer(&src, "nul.hip", "a\0b", 3, NULL), RPL_EINPUT,
                      "NUL bytes");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kernels_found, setup, teardown),
        cmocka_unit_test_setup_teardown(test_extents, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symbols_and_linkage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_params, setup, teardown),
        cmocka_unit_test_setup_teardown(test_find, setup, teardown),
        cmocka_unit_test_setup_teardown(test_signature_text, setup, teardown),
        cmocka_unit_test(test_signature_diff),
        cmocka_unit_test(test_diagnostics),
        cmocka_unit_test(test_missing_file),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
