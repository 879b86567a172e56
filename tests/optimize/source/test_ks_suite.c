/*
 * Real kernels against real compilers: the device symbols the parse
 * predicts are the ones in compiled code objects.
 *  - always: the .cu files of tests/inspect/kernels against the cubins nvcc built and
 *    tests/inspect/recorded keeps; every perf-suite kernel (ctest/kernels)
 *    and the CUDA fixture parse without errors, and the vendor headers and
 *    the prelude agree on kernels, symbols and loop verdicts;
 *  - with KS_HIPCC / KS_NVCC set (ctest does where the compilers exist):
 *    the perf suite and the fixtures compiled now, and compared.
 */
#include <stdio.h>
#include <unistd.h>

#include "ks_test.h"
#include "rpl/codeobj.h"
#include "rpl/spawn.h"

static const char *const harness_dirs[] = {RPL_SOURCE_DIR "/templates",
                                           RPL_SOURCE_DIR "/tests/inspect/kernels", NULL};

/* The perf suite's kernel sources (saxpy_slow.hip only includes saxpy.hip). */
static const char *const suite[] = {"gemm", "pipeline", "reduce", "saxpy", "softmax"};

static rpl_codeobj_set *read_codeobj(const char *path)
{
    rpl_codeobj_set *set = NULL;

    assert_int_equal(rpl_codeobj_set_new(&set), 0);
    if (rpl_codeobj_read_file(set, path) != 0)
        fail_msg("%s: %s", path, rpl_error_last()->message);
    return set;
}

/* An instantiation of one of the source's kernel templates: _Z<len><name>I... */
static bool instantiates(const rpl_kernel_source *src, const char *sym)
{
    for (size_t i = 0; i < src->n_kernels; i++) {
        char prefix[256];
        const rpl_ks_kernel *k = &src->kernels[i];
        if (!k->is_template || strchr(k->qualified_name, ':'))
            continue;
        snprintf(prefix, sizeof(prefix), "_Z%zu%sI", strlen(k->name), k->name);
        if (strncmp(sym, prefix, strlen(prefix)) == 0)
            return true;
    }
    return false;
}

/* Every symbol predicted is compiled, and every compiled kernel was found. */
static void same_kernels(const rpl_kernel_source *src, const rpl_codeobj_set *set)
{
    size_t predicted = 0;

    for (size_t i = 0; i < src->n_kernels; i++) {
        const rpl_ks_kernel *k = &src->kernels[i];
        bool found = false;
        if (k->is_template)
            continue;
        predicted++;
        for (size_t j = 0; j < set->count && !found; j++)
            found = strcmp(set->kernels[j].name, k->mangled) == 0;
        if (!found)
            fail_msg("%s: %s predicted as %s, not in the code object", src->name, k->qualified_name,
                     k->mangled);
    }
    for (size_t j = 0; j < set->count; j++) {
        bool found = instantiates(src, set->kernels[j].name);
        for (size_t i = 0; i < src->n_kernels && !found; i++)
            found = src->kernels[i].mangled &&
                    strcmp(src->kernels[i].mangled, set->kernels[j].name) == 0;
        if (!found)
            fail_msg("%s: the code object's kernel %s was not found by the parse", src->name,
                     set->kernels[j].name);
    }
    assert_true(predicted > 0);
}

static void test_recorded_cubins(void **state)
{
    static const char *const names[] = {"basic", "regs", "smem", "stack"};

    (void)state;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char cu[512], cubin[512];
        rpl_ks_options o = {.include_dirs = harness_dirs};
        snprintf(cu, sizeof(cu), RPL_SOURCE_DIR "/tests/inspect/kernels/%s.cu", names[i]);
        snprintf(cubin, sizeof(cubin), RPL_SOURCE_DIR "/tests/inspect/recorded/%s.cubin", names[i]);
        rpl_codeobj_set *set = read_codeobj(cubin);
        for (int prelude = 0; prelude < 2; prelude++) {
            o.no_vendor_headers = prelude;
            rpl_kernel_source *src = ks_test_parse(cu, &o);
            assert_int_equal(src->n_errors, 0);
            same_kernels(src, set);
            rpl_kernel_source_free(src);
        }
        rpl_codeobj_set_free(set);
    }
}

/* Two parses of one file agree on kernels, symbols, signatures and loop verdicts. */
static void same_understanding(const rpl_kernel_source *a, const rpl_kernel_source *b)
{
    assert_int_equal(a->n_kernels, b->n_kernels);
    for (size_t i = 0; i < a->n_kernels; i++) {
        const rpl_ks_kernel *x = &a->kernels[i], *y = &b->kernels[i];
        char *diff = NULL;
        if (rpl_ks_signature_diff(x, y, &diff) != 0)
            fail_msg("%s: %s: %s (%s vs %s)", a->name, x->qualified_name, diff,
                     rpl_ks_mode_name(a->mode), rpl_ks_mode_name(b->mode));
        assert_int_equal(x->definition.begin, y->definition.begin);
        assert_int_equal(x->definition.end, y->definition.end);
        assert_int_equal(x->n_loops, y->n_loops);
        for (size_t j = 0; j < x->n_loops; j++) {
            const rpl_ks_loop *p = &x->loops[j], *q = &y->loops[j];
            if ((p->blocker == NULL) != (q->blocker == NULL) ||
                (p->blocker && strcmp(p->blocker, q->blocker) != 0))
                fail_msg("%s: %s loop %zu: '%s' vs '%s'", a->name, x->qualified_name, j,
                         p->blocker ? p->blocker : "none", q->blocker ? q->blocker : "none");
            assert_int_equal(p->trip_count_known, q->trip_count_known);
            assert_int_equal(p->pragma_unroll, q->pragma_unroll);
        }
    }
}

static void test_suite_parses(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(suite) / sizeof(suite[0]); i++) {
        char path[512];
        rpl_ks_options vendor = {.include_dirs = harness_dirs};
        rpl_ks_options cuda = {.include_dirs = harness_dirs, .lang = RPL_KS_LANG_CUDA};
        rpl_ks_options prelude = {.include_dirs = harness_dirs, .no_vendor_headers = true};
        snprintf(path, sizeof(path), RPL_SOURCE_DIR "/ctest/kernels/%s.hip", suite[i]);
        rpl_kernel_source *a = ks_test_parse(path, &vendor);
        rpl_kernel_source *b = ks_test_parse(path, &cuda);
        rpl_kernel_source *c = ks_test_parse(path, &prelude);
        if (a->n_errors || b->n_errors || c->n_errors)
            fail_msg("%s: errors %zu (%s) %zu (%s) %zu (%s): %s", path, a->n_errors,
                     rpl_ks_mode_name(a->mode), b->n_errors, rpl_ks_mode_name(b->mode), c->n_errors,
                     rpl_ks_mode_name(c->mode),
                     a->n_diags   ? a->diags[0].message
                     : b->n_diags ? b->diags[0].message
                                  : "");
        assert_int_equal(a->n_kernels, 1);
        assert_int_equal(c->mode, RPL_KS_MODE_CUDA_PRELUDE);
        same_understanding(a, b);
        same_understanding(a, c);
        rpl_kernel_source_free(a);
        rpl_kernel_source_free(b);
        rpl_kernel_source_free(c);
    }
}

static void test_cuda_fixture(void **state)
{
    rpl_ks_options prelude = {.no_vendor_headers = true};
    rpl_kernel_source *a = ks_test_parse(KS_DIR "/kernels.cu", NULL);
    rpl_kernel_source *b = ks_test_parse(KS_DIR "/kernels.cu", &prelude);
    const rpl_ks_kernel *k;

    (void)state;
    assert_int_equal(a->n_errors, 0);
    assert_int_equal(b->n_errors, 0);
    same_understanding(a, b);
    assert_int_equal(a->n_kernels, 4);
    k = ks_test_kernel(a, "row_sum");
    assert_true(k->extern_c);
    assert_string_equal(k->launch_bounds, "128");
    /* The helper's shuffle loop is not the kernel's; the atomic after the loop is outside it. */
    assert_int_equal(k->n_loops, 1);
    assert_null(k->loops[0].blocker);
    k = ks_test_kernel(a, "gather");
    assert_true(k->is_template);
    assert_int_equal(k->loops[0].pragma_unroll, RPL_KS_PRAGMA_FULL);
    k = ks_test_kernel(a, "ops::histogram");
    assert_true(k->loops[0].has_atomic);
    k = ks_test_kernel(a, "ops::staged");
    assert_true(k->loops[0].has_barrier);
    assert_true(k->loops[0].has_dynamic_shared);
    assert_string_equal(k->params[0].canonical, "float4 *");
    rpl_kernel_source_free(a);
    rpl_kernel_source_free(b);
}

/* Compile `source` with argv (the output path goes last) and compare. */
static void compile_and_compare(const char *const *argv, const char *source, const char *out,
                                const rpl_ks_options *o)
{
    rpl_spawn_opts so = {
        .argv = argv, .timeout_ms = 300000, .capture_stdout = true, .capture_stderr = true};
    rpl_spawn_result res;
    int rc = rpl_spawn_run(&res, &so);

    if (rc != 0 || !res.exited || res.exit_code != 0)
        fail_msg("%s failed on %s: %s", argv[0], source, res.err ? res.err : "");
    rpl_spawn_result_release(&res);
    rpl_codeobj_set *set = read_codeobj(out);
    rpl_kernel_source *src = ks_test_parse(source, o);
    same_kernels(src, set);
    rpl_kernel_source_free(src);
    rpl_codeobj_set_free(set);
    unlink(out);
}

static void test_hipcc(void **state)
{
    const char *hipcc = getenv("KS_HIPCC");
    rpl_ks_options o = {.include_dirs = harness_dirs, .arch = "gfx90a"};

    (void)state;
    if (!hipcc)
        fail_msg("KS_HIPCC is not set: run this test through ctest");
    for (size_t i = 0; i <= sizeof(suite) / sizeof(suite[0]); i++) {
        char source[512], out[512];
        if (i < sizeof(suite) / sizeof(suite[0]))
            snprintf(source, sizeof(source), RPL_SOURCE_DIR "/ctest/kernels/%s.hip", suite[i]);
        else
            snprintf(source, sizeof(source), KS_DIR "/kernels.hip");
        snprintf(out, sizeof(out), RPL_TEST_TMP "/ks_hipcc_%zu.co", i);
        const char *argv[] = {hipcc,
                              "--cuda-device-only",
                              "--offload-arch=gfx90a",
                              "-c",
                              "-I",
                              RPL_SOURCE_DIR "/templates",
                              source,
                              "-o",
                              out,
                              NULL};
        compile_and_compare(argv, source, out, &o);
    }
}

static void test_nvcc(void **state)
{
    const char *nvcc = getenv("KS_NVCC");
    rpl_ks_options o = {.include_dirs = harness_dirs, .lang = RPL_KS_LANG_CUDA};

    (void)state;
    if (!nvcc)
        fail_msg("KS_NVCC is not set: run this test through ctest");
    for (size_t i = 0; i <= sizeof(suite) / sizeof(suite[0]); i++) {
        char source[512], out[512];
        if (i < sizeof(suite) / sizeof(suite[0]))
            snprintf(source, sizeof(source), RPL_SOURCE_DIR "/ctest/kernels/%s.hip", suite[i]);
        else
            snprintf(source, sizeof(source), KS_DIR "/kernels.cu");
        snprintf(out, sizeof(out), RPL_TEST_TMP "/ks_nvcc_%zu.cubin", i);
        const char *argv[] = {
            nvcc,   "-cubin", "-arch=sm_80", "-x", "cu", "-I", RPL_SOURCE_DIR "/templates",
            source, "-o",     out,           NULL};
        compile_and_compare(argv, source, out, &o);
    }
}

int main(int argc, char **argv)
{
    const struct CMUnitTest always[] = {
        cmocka_unit_test(test_recorded_cubins),
        cmocka_unit_test(test_suite_parses),
        cmocka_unit_test(test_cuda_fixture),
    };
    const struct CMUnitTest hip[] = {cmocka_unit_test(test_hipcc)};
    const struct CMUnitTest cuda[] = {cmocka_unit_test(test_nvcc)};

    if (argc == 2 && strcmp(argv[1], "hipcc") == 0)
        return cmocka_run_group_tests(hip, NULL, NULL);
    if (argc == 2 && strcmp(argv[1], "nvcc") == 0)
        return cmocka_run_group_tests(cuda, NULL, NULL);
    return cmocka_run_group_tests(always, NULL, NULL);
}
