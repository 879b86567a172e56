/* Kernel selection: the default helper list, user kernels it must not catch, overrides. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/kernel_filter.h"

typedef struct name_pair {
    const char *name;    /* mangled (kernel_name) */
    const char *display; /* display_name */
} name_pair;

/* Names as rocprofv3 records them: kernel_name with ".kd", display name demangled. */
static const name_pair helpers[] = {
    {"__amd_rocclr_fillBufferAligned.kd", "__amd_rocclr_fillBufferAligned"},
    {"__amd_rocclr_fillBufferAligned2D.kd", "__amd_rocclr_fillBufferAligned2D"},
    {"__amd_rocclr_copyBuffer.kd", "__amd_rocclr_copyBuffer"},
    {"__amd_rocclr_copyBufferAligned.kd", "__amd_rocclr_copyBufferAligned"},
    {"__amd_rocclr_copyBufferRect.kd", "__amd_rocclr_copyBufferRect"},
    {"__amd_rocclr_copyBufferRectAligned.kd", "__amd_rocclr_copyBufferRectAligned"},
    {"__amd_rocclr_copyImageToBuffer.kd", ""},
    {"__amd_rocclr_streamOpsWait.kd", "__amd_rocclr_streamOpsWait"},
    {"__amd_rocclr_initHeap.kd", "__amd_rocclr_initHeap"},
    {"__amd_rocclr_batchMemOp.kd", "__amd_rocclr_batchMemOp"},
    {"_Z30__amd_rocclr_fillBufferAlignedPvm", ""}, /* mangled only */
    {"hipMemsetKernel", "hipMemsetKernel"},
    {"hip_fill_n", ""},
    {"__hipInternalKernel", ""},
    {"hsa_amd_blit_kernel", ""},
    {"_Z13memset_kernelPvim", "memset_kernel(void*, int, unsigned long)"},
    {"_Z9MyMemsetDPfi", ""},
    {"_Z11fill_kernelPfif", "fill_kernel(float*, int, float)"},
    {"_ZN2at6native11FillFunctorEv", ""},
    {"k", "void thrust::deviceFill<float>(float*, float, int)"},
    {"k", "copyBufferUnaligned(char*, char*)"},
    {"k", "void img::CopyImageKernel<int>(int*)"},
};

static const name_pair users[] = {
    {"_Z5saxpyifPfS_.kd", "saxpy(int, float, float*, float*)"},
    {"_Z10gemm_tiledPKfS0_Pfiii", "gemm_tiled(float const*, float const*, float*, int, int, int)"},
    {"_Z19copy_transpose_userPfPKfii", "copy_transpose_user(float*, float const*, int, int)"},
    {"_Z11copy_kernelPfPKfm", "copy_kernel(float*, float const*, unsigned long)"},
    {"_Z9transposePfPKfi.kd", "transpose(float*, float const*, int)"},
    {"_Z17prefill_attentionPf", "prefill_attention(float*)"},
    {"_Z6refillPf", ""},
    {"_Z4gemm8FillModePf", ""}, /* "Fill" only in a parameter type */
    {"k", "void gemm<(rocblas_fill)121>(float*, FillMode)"},
    {"k", "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)"},
    {"_Z8hipsterKPf", "hipsterK(float*)"},
    {"_Z6memcpyPv", ""}, /* a user's memcpy is real work too */
    {"k", "softmax_kernel"},
};

static void default_catches_runtime_helpers(void **state)
{
    rpl_kernel_filter f;

    unsetenv(RPL_HELPER_REGEX_ENV);
    assert_int_equal(rpl_kernel_filter_init(&f, NULL, NULL, false), 0);
    assert_string_equal(f.helper_regex, RPL_HELPER_REGEX_DEFAULT);
    for (size_t i = 0; i < sizeof(helpers) / sizeof(helpers[0]); i++) {
        if (!rpl_kernel_filter_is_helper(&f, helpers[i].name, helpers[i].display))
            fail_msg("'%s' / '%s' should be a helper", helpers[i].name, helpers[i].display);
        assert_false(rpl_kernel_filter_selects(&f, helpers[i].name, helpers[i].display));
    }
    rpl_kernel_filter_release(&f);
}

static void default_keeps_user_kernels(void **state)
{
    rpl_kernel_filter f;

    unsetenv(RPL_HELPER_REGEX_ENV);
    assert_int_equal(rpl_kernel_filter_init(&f, NULL, NULL, false), 0);
    for (size_t i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
        if (rpl_kernel_filter_is_helper(&f, users[i].name, users[i].display))
            fail_msg("'%s' / '%s' is no helper", users[i].name, users[i].display);
        assert_true(rpl_kernel_filter_selects(&f, users[i].name, users[i].display));
    }
    rpl_kernel_filter_release(&f);
}

static void include_helpers_keeps_them(void **state)
{
    rpl_kernel_filter f;

    unsetenv(RPL_HELPER_REGEX_ENV);
    assert_int_equal(rpl_kernel_filter_init(&f, NULL, NULL, true), 0);
    assert_true(rpl_kernel_filter_selects(&f, helpers[0].name, helpers[0].display));
    assert_true(rpl_kernel_filter_is_helper(&f, helpers[0].name, helpers[0].display));
    assert_true(rpl_kernel_filter_selects(&f, users[0].name, users[0].display));
    rpl_kernel_filter_release(&f);
}

static void kernel_regex_matches_display_or_mangled_name(void **state)
{
    rpl_kernel_filter f;

    unsetenv(RPL_HELPER_REGEX_ENV);
    assert_int_equal(rpl_kernel_filter_init(&f, "^gemm|_Z5saxpy", NULL, false), 0);
    assert_string_equal(f.kernel_regex, "^gemm|_Z5saxpy");
    assert_true(rpl_kernel_filter_selects(&f, users[1].name, users[1].display));  /* display */
    assert_true(rpl_kernel_filter_selects(&f, users[0].name, users[0].display));  /* mangled */
    assert_false(rpl_kernel_filter_selects(&f, users[2].name, users[2].display)); /* neither */
    rpl_kernel_filter_release(&f);

    /* A helper matched by --kernel is still left out unless helpers are kept. */
    assert_int_equal(rpl_kernel_filter_init(&f, "fillBuffer", NULL, false), 0);
    assert_false(rpl_kernel_filter_selects(&f, helpers[0].name, helpers[0].display));
    rpl_kernel_filter_release(&f);
    assert_int_equal(rpl_kernel_filter_init(&f, "fillBuffer", NULL, true), 0);
    assert_true(rpl_kernel_filter_selects(&f, helpers[0].name, helpers[0].display));
    assert_false(rpl_kernel_filter_selects(&f, users[0].name, users[0].display));
    rpl_kernel_filter_release(&f);
}

static void helpers_option_replaces_the_default(void **state)
{
    rpl_kernel_filter f;

    setenv(RPL_HELPER_REGEX_ENV, "^transpose$", 1);
    assert_int_equal(rpl_kernel_filter_init(&f, NULL, "^saxpy$", false), 0);
    assert_string_equal(f.helper_regex, "^saxpy$");
    assert_true(rpl_kernel_filter_is_helper(&f, users[0].name, users[0].display));
    assert_false(rpl_kernel_filter_is_helper(&f, users[4].name, users[4].display));
    assert_false(rpl_kernel_filter_is_helper(&f, helpers[0].name, helpers[0].display));
    rpl_kernel_filter_release(&f);
    unsetenv(RPL_HELPER_REGEX_ENV);
}

static void environment_replaces_the_default(void **state)
{
    rpl_kernel_filter f;

    setenv(RPL_HELPER_REGEX_ENV, "^transpose$", 1);
    assert_int_equal(rpl_kernel_filter_init(&f, NULL, NULL, false), 0);
    assert_string_equal(f.helper_regex, "^transpose$");
    assert_true(rpl_kernel_filter_is_helper(&f, users[4].name, users[4].display));
    assert_false(rpl_kernel_filter_is_helper(&f, helpers[0].name, helpers[0].display));
    rpl_kernel_filter_release(&f);

    /* Set but empty counts as unset. */
    setenv(RPL_HELPER_REGEX_ENV, "", 1);
    assert_int_equal(rpl_kernel_filter_init(&f, NULL, NULL, false), 0);
    assert_string_equal(f.helper_regex, RPL_HELPER_REGEX_DEFAULT);
    rpl_kernel_filter_release(&f);
    unsetenv(RPL_HELPER_REGEX_ENV);
}

static void bad_regex_is_a_usage_error(void **state)
{
    rpl_kernel_filter f;

    unsetenv(RPL_HELPER_REGEX_ENV);
    assert_int_equal(rpl_kernel_filter_init(&f, "gemm(", NULL, false), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "--kernel"));
    assert_non_null(strstr(rpl_error_last()->message, "'gemm('"));
    assert_int_equal(rpl_kernel_filter_init(&f, NULL, "[", false), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "--helpers"));
    setenv(RPL_HELPER_REGEX_ENV, "a{2", 1);
    assert_int_equal(rpl_kernel_filter_init(&f, NULL, NULL, false), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, RPL_HELPER_REGEX_ENV));
    unsetenv(RPL_HELPER_REGEX_ENV);
    /* A failed init leaves nothing to release, and release is harmless. */
    rpl_kernel_filter_release(&f);
}

static void short_names(void **state)
{
    static const struct {
        const char *name, *display, *expect;
    } cases[] = {
        {"x", "void ns::gemm<float, 4>(float*, int)", "ns::gemm"},
        {"_ZN2ns4gemmIfEEvPf", "", "ns::gemm"},
        {"_ZN2ns4gemmIfEEvPf", "_ZN2ns4gemmIfEEvPf", "ns::gemm"},
        {"__amd_rocclr_copyBuffer.kd", "", "__amd_rocclr_copyBuffer"},
        {"_Z9transposePfPKfi.kd", "", "transpose"},
        {"_ZL6kernelv", "", "kernel"},
        {"_ZNSt6vector4fillEv", "", "std::vector::fill"},
        {"x", "void at::native::(anonymous namespace)::fill_kernel<float>(float*)",
         "at::native::(anonymous namespace)::fill_kernel"},
        {"x", "saxpy(int, float, float*, float*)", "saxpy"},
        {"x", "softmax_kernel", "softmax_kernel"},
        {"_Z99short", "", "_Z99short"}, /* length beyond the string: left as is */
        {"", "", ""},
    };
    rpl_strbuf sb = RPL_STRBUF_INIT;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        assert_int_equal(rpl_kernel_short_name(&sb, cases[i].name, cases[i].display), 0);
        assert_string_equal(rpl_strbuf_cstr(&sb), cases[i].expect);
    }
    rpl_strbuf_release(&sb);
}

/* Table labels: within the width, the front kept, different names never equal. */
static void labels_are_short_and_unique(void **state)
{
    static const char *const names[] = {
        "saxpy(int, float, float*, float*)",
        "sm80_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_"
        "tensor16x8x16_kernel",
        "void mul_mat_vec_q<(ggml_type)2, 1, ggml_cuda_mmvq_parameter_table<(ggml_type)2>::"
        "value, false>(void const*, void const*, float*, int, int, int)",
        "void mul_mat_vec_q<(ggml_type)8, 1, ggml_cuda_mmvq_parameter_table<(ggml_type)8>::"
        "value, false>(void const*, void const*, float*, int, int, int)",
        "void mul_mat_vec_q<(ggml_type)2, 1, ggml_cuda_mmvq_parameter_table<(ggml_type)2>::"
        "value, true>(void const*, void const*, float*, int, int, int)",
        "void very_long_namespace_name::another_long_namespace::kernel_with_a_long_name_one()",
        "void very_long_namespace_name::another_long_namespace::kernel_with_a_long_name_two()",
    };
    const size_t n = sizeof(names) / sizeof(names[0]), width = 40;
    char **labels = NULL;

    (void)state;
    assert_int_equal(rpl_kernel_labels(&labels, names, n, width), 0);
    assert_string_equal(labels[0], names[0]); /* fits: as it is */
    /* Elided in the middle: its front stays. */
    assert_int_equal(strncmp(labels[1], "sm80_xmma_gemm_", 15), 0);
    assert_non_null(strstr(labels[1], "\xe2\x80\xa6"));
    assert_int_equal(strcmp(labels[1] + strlen(labels[1]) - 6, "kernel"), 0);
    for (size_t i = 0; i < n; i++) {
        assert_true(rpl_utf8_columns(labels[i]) <= width);
        assert_null(strstr(labels[i], "void "));
        for (size_t j = i + 1; j < n; j++)
            assert_string_not_equal(labels[i], labels[j]);
    }
    /* Template instances show the template arguments that tell them apart. */
    assert_int_equal(strncmp(labels[2], "mul_mat_vec_q", 13), 0);
    assert_non_null(strstr(labels[2], "false>"));
    assert_non_null(strstr(labels[3], "(ggml_type)8"));
    assert_non_null(strstr(labels[4], "true>"));
    /* The function name stays where the namespaces are long. */
    assert_non_null(strstr(labels[5], "long_name_one"));
    rpl_kernel_labels_free(labels, n);
}

/* Cuts of UTF-8 text never end inside a character. */
static void utf8_cuts_keep_characters_whole(void **state)
{
    const char *s = "ab\xe2\x80\xa6"
                    "cd"; /* "ab…cd": the ellipsis is bytes 2-4 */

    (void)state;
    assert_int_equal(rpl_utf8_cut(s, 7, 10), 7); /* short enough: all of it */
    assert_int_equal(rpl_utf8_cut(s, 7, 5), 5);  /* right after the ellipsis */
    assert_int_equal(rpl_utf8_cut(s, 7, 4), 2);  /* inside it: back to its start */
    assert_int_equal(rpl_utf8_cut(s, 7, 3), 2);
    assert_int_equal(rpl_utf8_cut(s, 7, 2), 2);
    assert_int_equal(rpl_utf8_cut(s, 7, 0), 0);
    assert_int_equal(rpl_utf8_byte_at(s, 3), 5); /* column 3 is "c" */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_catches_runtime_helpers),
        cmocka_unit_test(default_keeps_user_kernels),
        cmocka_unit_test(include_helpers_keeps_them),
        cmocka_unit_test(kernel_regex_matches_display_or_mangled_name),
        cmocka_unit_test(helpers_option_replaces_the_default),
        cmocka_unit_test(environment_replaces_the_default),
        cmocka_unit_test(bad_regex_is_a_usage_error),
        cmocka_unit_test(short_names),
        cmocka_unit_test(labels_are_short_and_unique),
        cmocka_unit_test(utf8_cuts_keep_characters_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
