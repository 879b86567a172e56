/*
 * The HSA replay backend on a machine without an AMD GPU, with the real
 * runtime library where it is installed (Debian's libhsa-runtime64 loads,
 * its hsa_init fails without /dev/kfd): reserve-check and run stop with
 * RPL_ENODEV (RPL_EENV without the library), and the placeholders made
 * before hsa_init are gone afterwards.  The front end (replay.c) answers
 * such a machine before the backend runs; this calls the backend itself.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay_backend.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"

static rpl_snapshot *snap;
static int expected; /* RPL_ENODEV with the runtime library, RPL_EENV without */

static bool span_is_free(void)
{
    uint64_t base = snap->regions[0].base & ~(uint64_t)4095;
    void *p = mmap((void *)(uintptr_t)base, 4096, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

    if (p == MAP_FAILED)
        return false;
    munmap(p, 4096);
    return p == (void *)(uintptr_t)base;
}

static void reserve_check_stops_without_a_gpu(void **state)
{
    rpl_reserve_report rep;

    assert_true(span_is_free());
    assert_int_equal(rpl_replay_hsa_reserve_check(&rep, snap), expected);
    if (expected == RPL_ENODEV)
        assert_non_null(strstr(rpl_error_last()->message, "hsa_init"));
    assert_int_equal(rep.reserved, 0);
    assert_true(span_is_free());
}

static void run_stops_without_a_gpu(void **state)
{
    rpl_replay_result *res = calloc(1, sizeof(*res));
    rpl_replay_opts opts;

    rpl_replay_opts_init(&opts);
    opts.iterations = 3;
    opts.check = true;
    assert_int_equal(rpl_path_join(&res->code_object, snap->dir, snap->code_object_file), 0);
    assert_int_equal(rpl_replay_hsa_run(res, snap, &opts), expected);
    assert_int_equal(res->ntimes, 0);
    assert_false(res->checked);
    assert_true(span_is_free());
    rpl_replay_result_free(res);
}

/* A ROCM_PATH whose library is no library: the system's is used. */
static void a_broken_rocm_path_falls_back(void **state)
{
    char dir[512], lib[600];
    rpl_reserve_report rep;
    FILE *f;

    snprintf(dir, sizeof(dir), "%s/hsa_replay_rocm/lib", RPL_TEST_TMP);
    assert_int_equal(rpl_mkdir_p(dir), 0);
    snprintf(lib, sizeof(lib), "%s/libhsa-runtime64.so.1", dir);
    f = fopen(lib, "w");
    assert_non_null(f);
    fputs("not a library\n", f);
    fclose(f);
    snprintf(dir, sizeof(dir), "%s/hsa_replay_rocm", RPL_TEST_TMP);
    setenv("ROCM_PATH", dir, 1);
    assert_int_equal(rpl_replay_hsa_reserve_check(&rep, snap), expected);
    unsetenv("ROCM_PATH");
}

static int setup(void **state)
{
    void *lib = dlopen("libhsa-runtime64.so.1", RTLD_NOW | RTLD_LOCAL);

    expected = lib ? RPL_ENODEV : RPL_EENV;
    if (lib)
        dlclose(lib);
    if (access("/dev/kfd", F_OK) == 0) {
        fprintf(stderr, "this machine has /dev/kfd: the test is for machines without one\n");
        return -1;
    }
    return rpl_snapshot_open(&snap, RPL_HSA_SNAPSHOT);
}

static int teardown(void **state)
{
    rpl_snapshot_free(snap);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reserve_check_stops_without_a_gpu),
        cmocka_unit_test(run_stops_without_a_gpu),
        cmocka_unit_test(a_broken_rocm_path_falls_back),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
