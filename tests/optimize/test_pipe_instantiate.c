/*
 * The code object of a template kernel that lives in a header (defect 12 of
 * docs/validation/real-world-gpu.md, SGEMM_CUDA's kernels): the real nvcc
 * builds it through the unit pipe_build_codeobj writes, which instantiates
 * what the snapshot launched; the header compiled alone holds no kernel.
 * No GPU is needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "../unit/optgit/gitfix.h"
#include "pipe_int.h"
#include "rpl/codeobj.h"
#include "rpl/fsutil.h"

#define ROOT RPL_TEST_TMP "/pipe_instantiate"
#define REPO ROOT "/repo"

/* The launched instantiation, its symbol and its name as the snapshot demangles it. */
#define SYMBOL    "_Z5tiledILj16EEvPfPKfj"
#define DEMANGLED "void tiled<16u>(float*, float const*, unsigned int)"

static const char header[] = "#pragma once\n"
                             "template <unsigned int Tile>\n"
                             "__global__ void tiled(float *out, const float *in, unsigned int n)\n"
                             "{\n"
                             "    unsigned int i = blockIdx.x * Tile + threadIdx.x;\n"
                             "    if (i < n)\n"
                             "        out[i] = 2.0f * in[i];\n"
                             "}\n";

static int setup(void **state)
{
    (void)state;
    gitfix_env(ROOT);
    gitfix_write(REPO "/kern/tiled.cuh", header);
    free(gitfix_git(REPO, "init", "-q", NULL));
    free(gitfix_git(REPO, "add", ".", NULL));
    free(gitfix_git(REPO, "-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-q", "-m",
                    "header", NULL));
    return 0;
}

/* Build the code object of the header for a kernel the snapshot names `demangled`. */
static void build(const char *demangled, bool *has_symbol, bool *wrote_unit)
{
    char nvcc[] = "nvcc", arch[] = "sm_90", *dm = demangled ? strdup(demangled) : NULL;
    rpl_pipe_target target = {0};
    struct rpl_pipe p = {0};
    pipe_kernel k = {0};
    pipe_build b = {0};
    rpl_git_repo *repo = NULL;
    rpl_scratch_opts so = {.parent = ROOT "/scratch"};
    rpl_codeobj_set *set = NULL;
    char *co = NULL, *unit = NULL, *dir = NULL;
    bool failed = true;
    struct stat st;

    p.target = &target;
    p.compiler = nvcc;
    p.opts.arch = arch;
    p.opts.build_timeout_ms = 300000;
    k.arch = arch;
    k.demangled = dm;
    assert_int_equal(rpl_git_repo_open(&repo, REPO), 0);
    assert_int_equal(rpl_scratch_export(&b.scratch, repo, &so), 0);
    assert_int_equal(rpl_path_join(&b.src, rpl_scratch_path(b.scratch), "kern/tiled.cuh"), 0);
    assert_int_equal(pipe_set(&co, "%s/rocm-perf-build/kern.co", rpl_scratch_path(b.scratch)), 0);
    assert_int_equal(
        pipe_set(&unit, "%s/rocm-perf-build/instantiate.cu", rpl_scratch_path(b.scratch)), 0);
    assert_int_equal(pipe_set(&dir, "%s/rocm-perf-build", rpl_scratch_path(b.scratch)), 0);
    assert_int_equal(rpl_mkdir_p(dir), 0);
    assert_int_equal(pipe_build_codeobj(&p, &b, &k, co, &failed), 0);
    *wrote_unit = stat(unit, &st) == 0;
    *has_symbol = false;
    if (!failed) {
        assert_int_equal(rpl_codeobj_set_new(&set), 0);
        if (rpl_codeobj_read_file(set, co) == 0)
            for (size_t i = 0; i < set->count; i++)
                *has_symbol |= strcmp(set->kernels[i].symbol, SYMBOL) == 0;
        rpl_codeobj_set_free(set);
    }
    if (*wrote_unit) {
        char *text = gitfix_read(unit);
        assert_non_null(strstr(text, "template __global__ " DEMANGLED ";"));
        assert_non_null(strstr(text, b.src));
        free(text);
    }
    free(co);
    free(unit);
    free(dir);
    free(dm);
    pipe_build_release(&b);
    rpl_git_repo_free(repo);
}

static void test_header_instantiated(void **state)
{
    bool has_symbol = false, wrote_unit = false;

    (void)state;
    build(DEMANGLED, &has_symbol, &wrote_unit);
    assert_true(wrote_unit);
    assert_true(has_symbol);
}

/* Without the snapshot's demangled name the header is compiled alone: no kernel (the defect). */
static void test_header_alone(void **state)
{
    bool has_symbol = true, wrote_unit = true;

    (void)state;
    build(NULL, &has_symbol, &wrote_unit);
    assert_false(wrote_unit);
    assert_false(has_symbol);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_instantiated),
        cmocka_unit_test(test_header_alone),
    };

    return cmocka_run_group_tests(tests, setup, NULL);
}
