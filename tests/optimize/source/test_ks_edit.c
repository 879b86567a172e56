/*
 * The edits: the unroll transform, splicing a model's kernel, and
 * SEARCH/REPLACE blocks.  Every accepted edit leaves the file
 * byte-identical outside the changed extent; every rejection is one line
 * fit to send back to a model.
 */
#include <stdio.h>

#include "ks_test.h"

#define SAXPY RPL_SOURCE_DIR "/ctest/kernels/saxpy.hip"

static const char *const harness_dirs[] = {RPL_SOURCE_DIR "/templates", NULL};
static const rpl_ks_options harness = {.include_dirs = harness_dirs};

/* res equals src outside [b, e) of src, which became [b, b + (len of new)) of res. */
static void same_outside(const rpl_kernel_source *src, const rpl_kernel_source *res, size_t b,
                         size_t e)
{
    size_t tail = src->len - e;

    assert_true(res->len >= b + tail);
    assert_memory_equal(src->text, res->text, b);
    assert_memory_equal(src->text + e, res->text + res->len - tail, tail);
}

static void test_unroll_inserts_pragma(void **state)
{
    rpl_kernel_source *src = ks_test_parse(KS_DIR "/loops.hip", NULL), *res = NULL;
    const rpl_ks_kernel *k = ks_test_kernel(src, "plain_loops");
    const rpl_ks_loop *l = &k->loops[0];
    size_t line_start = l->range.begin - 4; /* the loop is indented by four blanks */
    const char *pragma = "    #pragma unroll 4\n";

    (void)state;
    assert_int_equal(rpl_kernel_source_unroll(&res, src, k, 0, 4), 0);
    assert_int_equal(res->len, src->len + strlen(pragma));
    assert_memory_equal(res->text, src->text, line_start);
    assert_memory_equal(res->text + line_start, pragma, strlen(pragma));
    assert_string_equal(res->text + line_start + strlen(pragma), src->text + line_start);
    assert_int_equal(ks_test_kernel(res, "plain_loops")->loops[0].pragma_unroll, 4);
    assert_int_equal(res->n_kernels, src->n_kernels);
    rpl_kernel_source_free(res);
    rpl_kernel_source_free(src);
}

static void test_unroll_replaces_pragma(void **state)
{
    rpl_kernel_source *src = ks_test_parse(KS_DIR "/loops.hip", NULL), *res = NULL;
    const rpl_ks_kernel *k = ks_test_kernel(src, "pragmas");
    static const struct {
        unsigned loop;
        const char *now;
    } cases[] = {{0, "#pragma unroll 8"}, {4, "#pragma unroll 8"}, {6, "_Pragma(\"unroll 8\")"}};

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const rpl_ks_loop *l = &k->loops[cases[i].loop];
        assert_int_equal(rpl_kernel_source_unroll(&res, src, k, cases[i].loop, 8), 0);
        same_outside(src, res, l->pragma.begin, l->pragma.end);
        assert_memory_equal(res->text + l->pragma.begin, cases[i].now, strlen(cases[i].now));
        assert_int_equal(ks_test_kernel(res, "pragmas")->loops[cases[i].loop].pragma_unroll, 8);
        rpl_kernel_source_free(res);
        res = NULL;
    }
    /* A loop that shares its line: the pragma goes on a line of its own. */
    assert_int_equal(rpl_kernel_source_unroll(&res, src, k, 8, 2), 0);
    assert_non_null(strstr(res->text, "    if (n > 2)\n    #pragma unroll 2\n    for (int i = 0;"));
    assert_int_equal(res->n_errors, src->n_errors);
    rpl_kernel_source_free(res);
    rpl_kernel_source_free(src);
}

static void test_unroll_refusals(void **state)
{
    rpl_kernel_source *src = ks_test_parse(KS_DIR "/loops.hip", NULL), *res = NULL;
    const rpl_ks_kernel *k = ks_test_kernel(src, "pragmas");

    (void)state;
    ks_test_error_has(rpl_kernel_source_unroll(&res, src, k, 7, 4), RPL_EINPUT,
                      "comes from a macro expansion");
    ks_test_error_has(rpl_kernel_source_unroll(&res, src, k, 9, 4), RPL_ENOTFOUND,
                      "has 9 loops, no loop 9");
    ks_test_error_has(rpl_kernel_source_unroll(&res, src, k, 0, 9), RPL_EUSAGE, "expected 2 to 8");
    ks_test_error_has(rpl_kernel_source_unroll(&res, src, k, 0, 1), RPL_EUSAGE, "expected 2 to 8");
    assert_null(res);
    rpl_kernel_source_free(src);
}

static const char new_saxpy[] =
    "__global__ void saxpy(size_t n, float a, const float *__restrict__ x, float *__restrict__ y)\n"
    "{\n"
    "    size_t stride = (size_t)blockDim.x * gridDim.x;\n"
    "    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)\n"
    "        y[i] = a * x[i] + y[i];\n"
    "}";

static void test_splice_accepts(void **state)
{
    rpl_kernel_source *src = ks_test_parse(SAXPY, &harness), *res = NULL;
    const rpl_ks_kernel *k = ks_test_kernel(src, "saxpy"), *nk;

    (void)state;
    assert_int_equal(rpl_kernel_source_splice(&res, NULL, src, k, new_saxpy, strlen(new_saxpy)), 0);
    same_outside(src, res, k->definition.begin, k->definition.end);
    assert_memory_equal(res->text + k->definition.begin, new_saxpy, strlen(new_saxpy));
    nk = ks_test_kernel(res, "saxpy");
    assert_string_equal(nk->mangled, k->mangled);
    assert_int_equal(nk->n_loops, 1);
    assert_int_equal(res->n_errors, 0);
    rpl_kernel_source_free(res);
    rpl_kernel_source_free(src);
}

/* Replies a model might send, each with the line it gets back. */
static void test_splice_rejects(void **state)
{
    static const struct {
        const char *reply;
        const char *msg;
        rpl_ks_splice_verdict verdict;
    } cases[] = {
        {"__global__ void saxpy(size_t n, float a, const float *x, float *y) { }\n"
         "__global__ void saxpy(size_t n, float a, const float *x, float *y) { }",
         "the reply defines saxpy twice", RPL_KS_SPLICE_REPLY},
        {"__global__ void saxpy2(size_t n, float a, const float *x, float *y) { }",
         "the reply defines the kernel saxpy2 instead of saxpy", RPL_KS_SPLICE_REPLY},
        {"__device__ void saxpy(size_t n, float a, const float *x, float *y) { }",
         "the reply holds no __global__ definition of saxpy", RPL_KS_SPLICE_REPLY},
        {"__global__ void saxpy(size_t n, float a, float *x, float *y) { }",
         "the reply changes the signature of saxpy: parameter 3: 'const float *__restrict' "
         "became 'float *'",
         RPL_KS_SPLICE_SIGNATURE},
        {"__global__ void saxpy(int n, float a, const float *x, float *y) { }",
         "the reply changes the signature of saxpy: parameter 1: 'size_t' became 'int'",
         RPL_KS_SPLICE_SIGNATURE},
        {"__global__ void saxpy(size_t n, float a, const float *x, float *y)\n{\n"
         "    y[0] = a * x[0]\n}",
         "the reply does not parse: line 3: expected ';' after expression", RPL_KS_SPLICE_PARSE},
        {"__global__ void saxpy(size_t n, float a, const float *x, float *y) { }\n"
         "__global__ void helper_kernel(float *y) { }",
         "the reply also defines the kernel helper_kernel; return only saxpy", RPL_KS_SPLICE_REPLY},
        {"__global__ void saxpy(size_t n, float a, const float *x, float *y) { }\n"
         "int main(int argc, char **argv) { return 0; }",
         "the reply changes code outside the kernel: it has a redefinition of 'main'",
         RPL_KS_SPLICE_REPLY},
        {"__global__ void saxpy(size_t n, float a, const float *x, float *y) {\n"
         "    if (n) {\n        y[0] = 0;\n}",
         "the reply changes code outside the kernel", RPL_KS_SPLICE_REPLY},
        {"   \n\t", "the reply is empty", RPL_KS_SPLICE_REPLY},
    };
    rpl_kernel_source *src = ks_test_parse(SAXPY, &harness), *res = NULL;
    const rpl_ks_kernel *k = ks_test_kernel(src, "saxpy");

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rpl_ks_splice_verdict verdict = RPL_KS_SPLICE_OK;
        int rc = rpl_kernel_source_splice(&res, &verdict, src, k, cases[i].reply,
                                          strlen(cases[i].reply));
        if (rc != RPL_EINPUT || verdict != cases[i].verdict ||
            !strstr(rpl_error_last()->message, cases[i].msg) ||
            strchr(rpl_error_last()->message, '\n'))
            fail_msg("reply %zu: status %d verdict %d '%s', expected %d '%s'", i, rc, (int)verdict,
                     rpl_error_last()->message, (int)cases[i].verdict, cases[i].msg);
        assert_null(res);
    }
    rpl_kernel_source_free(src);
}

static void test_splice_tolerated(void **state)
{
    /* Renamed parameters, restrict added or dropped, a helper function before the kernel. */
    static const char *const replies[] = {
        "__global__ void saxpy(size_t count, float alpha, const float *in, float *out)\n"
        "{\n    size_t i = threadIdx.x;\n    if (i < count) out[i] += alpha * in[i];\n}",
        "__device__ inline float fma_one(float a, float x, float y) { return a * x + y; }\n\n"
        "__global__ void saxpy(size_t n, float a, const float *x, float *y)\n"
        "{\n    size_t i = threadIdx.x;\n    if (i < n) y[i] = fma_one(a, x[i], y[i]);\n}",
    };
    rpl_kernel_source *src = ks_test_parse(SAXPY, &harness), *res = NULL;
    const rpl_ks_kernel *k = ks_test_kernel(src, "saxpy");

    (void)state;
    for (size_t i = 0; i < sizeof(replies) / sizeof(replies[0]); i++) {
        if (rpl_kernel_source_splice(&res, NULL, src, k, replies[i], strlen(replies[i])) != 0)
            fail_msg("reply %zu: %s", i, rpl_error_last()->message);
        same_outside(src, res, k->definition.begin, k->definition.end);
        rpl_kernel_source_free(res);
        res = NULL;
    }
    rpl_kernel_source_free(src);
}

/* One of two kernels with the same name; a template kept a template. */
static void test_splice_namespaces_and_templates(void **state)
{
    static const char beta[] = "__global__ void scale(double *v, double s)\n"
                               "{\n    v[threadIdx.x] = s * v[threadIdx.x];\n}";
    static const char alpha[] = "__global__ void scale(float *v, float s) {}";
    static const char tmpl[] =
        "template <typename U, int M>\n"
        "__global__ void __launch_bounds__(BLOCK, 2) templated(U *d, const U *s)\n"
        "{\n    d[threadIdx.x] = s[threadIdx.x % M];\n}";
    static const char tmpl_bad[] = "template <typename U, unsigned M>\n"
                                   "__global__ void templated(U *d, const U *s) { }";
    rpl_kernel_source *src = ks_test_parse(KS_DIR "/kernels.hip", NULL), *res = NULL;
    const rpl_ks_kernel *k = ks_test_kernel(src, "beta::scale");

    (void)state;
    assert_int_equal(rpl_kernel_source_splice(&res, NULL, src, k, beta, strlen(beta)), 0);
    same_outside(src, res, k->definition.begin, k->definition.end);
    assert_string_equal(ks_test_kernel(res, "alpha::scale")->mangled, "_ZN5alpha5scaleEPff");
    rpl_kernel_source_free(res);
    /* alpha's text in beta's place: another kernel's signature. */
    ks_test_error_has(rpl_kernel_source_splice(&res, NULL, src, k, alpha, strlen(alpha)),
                      RPL_EINPUT, "parameter 1: 'double *' became 'float *'");
    k = ks_test_kernel(src, "templated");
    assert_int_equal(rpl_kernel_source_splice(&res, NULL, src, k, tmpl, strlen(tmpl)), 0);
    rpl_kernel_source_free(res);
    ks_test_error_has(rpl_kernel_source_splice(&res, NULL, src, k, tmpl_bad, strlen(tmpl_bad)),
                      RPL_EINPUT, "template parameter 2: 'int N' became 'unsigned int M'");
    k = ks_test_kernel(src, "fill_by_macro");
    ks_test_error_has(rpl_kernel_source_splice(&res, NULL, src, k, beta, strlen(beta)), RPL_EINPUT,
                      "written by a macro");
    rpl_kernel_source_free(src);
}

static rpl_search_replace block(const char *s, const char *r)
{
    rpl_search_replace b = {s, strlen(s), r, strlen(r)};

    return b;
}

static void test_edits(void **state)
{
    rpl_kernel_source *src = ks_test_parse(SAXPY, &harness), *res = NULL;
    const rpl_ks_kernel *k = ks_test_kernel(src, "saxpy");
    rpl_search_replace ok[] = {
        block("    y[i] = a * x[i] + y[i];\n", "    y[i] = fmaf(a, x[i], y[i]);\n")};
    rpl_search_replace outside[] = {block("const float a = 2.5f;", "const float a = 3.5f;")};
    rpl_search_replace sig[] = {
        block("const float *__restrict__ x", "const double *__restrict__ x")};

    (void)state;
    assert_int_equal(rpl_kernel_source_apply_edits(&res, NULL, src, k, ok, 1), 0);
    assert_non_null(strstr(res->text, "y[i] = fmaf(a, x[i], y[i]);"));
    assert_int_equal(res->len,
                     src->len + strlen("fmaf(a, x[i], y[i])") - strlen("a * x[i] + y[i]"));
    same_outside(src, res, k->definition.begin, k->definition.end);
    rpl_kernel_source_free(res);
    res = NULL;
    ks_test_error_has(rpl_kernel_source_apply_edits(&res, NULL, src, k, outside, 1), RPL_EINPUT,
                      "block 1 matches code outside the kernel");
    ks_test_error_has(rpl_kernel_source_apply_edits(&res, NULL, src, k, sig, 1), RPL_EINPUT,
                      "changes the signature of saxpy: parameter 3");
    assert_null(res);
    rpl_kernel_source_free(src);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unroll_inserts_pragma),
        cmocka_unit_test(test_unroll_replaces_pragma),
        cmocka_unit_test(test_unroll_refusals),
        cmocka_unit_test(test_splice_accepts),
        cmocka_unit_test(test_splice_rejects),
        cmocka_unit_test(test_splice_tolerated),
        cmocka_unit_test(test_splice_namespaces_and_templates),
        cmocka_unit_test(test_edits),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
