/*
 * The HSA replay backend end to end on a fake runtime: ROCM_PATH points at
 * a libhsa-runtime64.so.1 built from fake_hsa_runtime.c (a TEST DOUBLE in
 * place of ROCr), which runs the replay fixtures' scale kernel on the
 * host.  The backend is called directly (the front end stops earlier on a
 * machine without /dev/kfd).  Checked: placeholders stand during hsa_init,
 * every span is reserved at its captured address and a moved or failed
 * reservation is reported, the packet the queue received, kernarg bytes,
 * timing through the profiling timestamps, restores (each launch starts
 * from the captured memory, or not with --no-recopy), the comparison that
 * tells a right result from a wrong one, poisoning, and that everything
 * is released.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hsa/hsa.h>

#include "fake_hsa_runtime.h"
#include "replay_backend.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"

static rpl_snapshot *snap;
static fake_hsa_stats *stats;
static void *fake_lib;

static rpl_replay_result *new_result(const char *code_object)
{
    rpl_replay_result *res = calloc(1, sizeof(*res));

    assert_non_null(res);
    if (code_object)
        res->code_object = strdup(code_object);
    else
        assert_int_equal(rpl_path_join(&res->code_object, snap->dir, snap->code_object_file), 0);
    return res;
}

static void check_released(void)
{
    assert_true(stats->shut_down);
    assert_int_equal(stats->queues_live, 0);
    assert_int_equal(stats->executables_live, 0);
    assert_int_equal(stats->allocations_live, 0);
    assert_int_equal(stats->unmaps, stats->maps);
    assert_int_equal(stats->frees, stats->reserves);
}

static void reserve_check_reserves_at_the_captured_address(void **state)
{
    rpl_reserve_report rep;
    char probe[32];

    snprintf(probe, sizeof(probe), "%llx", (unsigned long long)snap->regions[0].base);
    setenv("FAKE_HSA_PROBE", probe, 1);
    assert_int_equal(rpl_replay_hsa_reserve_check(&rep, snap), 0);
    unsetenv("FAKE_HSA_PROBE");
    assert_true(stats->placeholder_seen); /* the span was held while hsa_init ran */
    assert_int_equal(rep.nspans, 1);
    assert_int_equal(rep.reserved, 1);
    assert_false(rep.relocation || rep.failure);
    assert_true(stats->reserve_asked[0] == snap->regions[0].base);
    assert_true(stats->reserve_got[0] == snap->regions[0].base);
    assert_int_equal(stats->reserve_size[0], 4096);
    assert_int_equal(stats->maps, 0); /* reserve-check maps nothing */
    check_released();
}

static void relocation_and_failure_are_reported(void **state)
{
    rpl_reserve_report rep;
    rpl_replay_result *res;
    rpl_replay_opts opts;

    setenv("FAKE_HSA_RESERVE", "relocate", 1);
    assert_int_equal(rpl_replay_hsa_reserve_check(&rep, snap), RPL_EFAIL);
    assert_true(rep.relocation);
    assert_false(rep.failure);
    assert_true(rep.first_bad == snap->regions[0].base);
    assert_true(rep.got != 0 && rep.got != rep.first_bad);
    assert_non_null(strstr(rep.detail, "came back at"));
    check_released();

    /* A replay stops there too, with the report in the result. */
    res = new_result(NULL);
    rpl_replay_opts_init(&opts);
    assert_int_equal(rpl_replay_hsa_run(res, snap, &opts), RPL_EFAIL);
    assert_true(res->reserve.relocation);
    assert_int_equal(stats->dispatches, 0);
    rpl_replay_result_free(res);

    setenv("FAKE_HSA_RESERVE", "fail", 1);
    assert_int_equal(rpl_replay_hsa_reserve_check(&rep, snap), RPL_EFAIL);
    assert_true(rep.failure);
    assert_false(rep.relocation);
    assert_non_null(strstr(rep.detail, "fake: out of resources"));
    unsetenv("FAKE_HSA_RESERVE");
}

static void replay_times_restores_and_checks(void **state)
{
    rpl_replay_result *res = new_result(NULL);
    hsa_kernel_dispatch_packet_t p;
    unsigned char kernarg[16];
    char *kpath = NULL, *kbytes = NULL;
    size_t klen = 0, i;
    rpl_replay_opts opts;

    rpl_replay_opts_init(&opts);
    opts.iterations = 5;
    opts.warmup = 2;
    opts.check = true;
    opts.check_runs = 3;
    assert_int_equal(rpl_replay_hsa_run(res, snap, &opts), 0);

    /* 2 warm-up, 5 timed, 2 more compared launches. */
    assert_int_equal(stats->dispatches, 9);
    for (i = 0; i < stats->dispatches; i++)
        assert_true(stats->first_before[i] == 1.0f); /* every launch on restored memory */
    assert_int_equal(res->ntimes, 5);
    for (i = 0; i < res->ntimes; i++)
        assert_true(res->times_ns[i] == 1e9 / FAKE_RT_TICK_HZ * FAKE_RT_TICKS);
    assert_string_equal(res->timer, "hsa-signal");
    assert_string_equal(res->device, "Fake MI210");
    assert_true(res->restore_from_device);
    assert_int_equal(res->restore_bytes, 4096);
    assert_true(res->restore_gbps > 0);
    assert_true(res->d2d_gbps > 0);
    assert_true(res->wall_s >= 0);
    assert_true(res->checked && res->check_passed && res->deterministic);
    assert_int_equal(res->nchecks, 1);
    assert_int_equal(res->checks[0].cmp.mismatches, 0);
    assert_int_equal(res->checks[0].cmp.elements, 1024);
    assert_true(res->checks[0].identical_runs);
    assert_false(res->checks[0].poisoned);

    /* The packet as the packet processor read it. */
    memcpy(&p, stats->last_packet, sizeof(p));
    assert_int_equal(p.header & 0xff, HSA_PACKET_TYPE_KERNEL_DISPATCH);
    assert_true(p.header & (1 << HSA_PACKET_HEADER_BARRIER));
    assert_int_equal((p.header >> HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) & 3,
                     HSA_FENCE_SCOPE_SYSTEM);
    assert_int_equal((p.header >> HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE) & 3,
                     HSA_FENCE_SCOPE_SYSTEM);
    assert_int_equal(p.setup, 3); /* the snapshot has no setup_dims: 3 */
    assert_int_equal(p.grid_size_x, 1024);
    assert_int_equal(p.workgroup_size_x, 256);
    assert_int_equal(p.workgroup_size_y, 1);
    assert_string_equal(stats->symbol, "scale.kd");
    assert_int_equal(rpl_path_join(&kpath, snap->dir, "kernarg.bin"), 0);
    assert_int_equal(rpl_file_read_all(kpath, 64, &kbytes, &klen), 0);
    assert_int_equal(klen, sizeof(kernarg));
    assert_memory_equal(stats->kernarg, kbytes, klen);
    free(kpath);
    free(kbytes);
    check_released();
    rpl_replay_result_free(res);
}

static void no_recopy_lets_launches_accumulate(void **state)
{
    rpl_replay_result *res = new_result(NULL);
    rpl_replay_opts opts;

    rpl_replay_opts_init(&opts);
    opts.iterations = 3;
    opts.recopy = false;
    opts.device_pristine = false; /* restores stream from the snapshot files */
    assert_int_equal(rpl_replay_hsa_run(res, snap, &opts), 0);
    assert_int_equal(stats->dispatches, 3);
    assert_true(stats->first_before[0] == 1.0f);
    assert_true(stats->first_before[1] == 2.0f);
    assert_true(stats->first_before[2] == 4.0f);
    assert_false(res->restore_from_device);
    assert_false(res->checked);
    check_released();
    rpl_replay_result_free(res);
}

static void a_wrong_kernel_fails_the_check(void **state)
{
    rpl_replay_result *res = new_result(NULL);
    rpl_replay_opts opts;

    rpl_replay_opts_init(&opts);
    opts.check = true;
    opts.poison = true;
    setenv("FAKE_HSA_SCALE_ADDS", "1", 1);
    assert_int_equal(rpl_replay_hsa_run(res, snap, &opts), 0); /* a failed check is no error */
    unsetenv("FAKE_HSA_SCALE_ADDS");
    assert_true(res->checked);
    assert_false(res->check_passed);
    assert_int_equal(res->nchecks, 1);
    assert_true(res->checks[0].poisoned);
    assert_true(res->checks[0].cmp.mismatches > 0);
    assert_true(res->checks[0].cmp.have_first);
    /* Poisoned with NaN bytes, then a[i] + 2: the first element already differs. */
    assert_true(res->checks[0].cmp.first_addr == snap->regions[0].base);
    rpl_replay_result_free(res);
}

static void unfit_inputs_are_refused(void **state)
{
    rpl_replay_result *res;
    rpl_replay_opts opts;
    char path[512];

    rpl_replay_opts_init(&opts);
    /* A GPU of another kind. */
    setenv("FAKE_HSA_ISA", "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-", 1);
    res = new_result(NULL);
    assert_int_equal(rpl_replay_hsa_run(res, snap, &opts), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "gfx942"));
    rpl_replay_result_free(res);
    unsetenv("FAKE_HSA_ISA");
    check_released();

    /* A code object without the kernel's symbol (the capture fixture's). */
    res = new_result(RPL_FIXTURES "/hsa/kernels.hsaco");
    assert_int_equal(rpl_replay_hsa_run(res, snap, &opts), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "scale.kd"));
    rpl_replay_result_free(res);
    check_released();

    /* Not an ELF. */
    snprintf(path, sizeof(path), "%s/kernarg.bin", snap->dir);
    res = new_result(path);
    assert_int_equal(rpl_replay_hsa_run(res, snap, &opts), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "no ELF"));
    rpl_replay_result_free(res);
}

static int setup(void **state)
{
    char lib[512];

    setenv("ROCM_PATH", RPL_FAKE_ROCM, 1);
    snprintf(lib, sizeof(lib), "%s/lib/libhsa-runtime64.so.1", RPL_FAKE_ROCM);
    /* Held open here, so the backend's dlclose keeps it and its statistics. */
    fake_lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!fake_lib) {
        fprintf(stderr, "%s\n", dlerror());
        return -1;
    }
    stats = dlsym(fake_lib, "fake_hsa_runtime_stats");
    return stats ? rpl_snapshot_open(&snap, RPL_HSA_SNAPSHOT) : -1;
}

static int teardown(void **state)
{
    rpl_snapshot_free(snap);
    dlclose(fake_lib);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reserve_check_reserves_at_the_captured_address),
        cmocka_unit_test(relocation_and_failure_are_reported),
        cmocka_unit_test(replay_times_restores_and_checks),
        cmocka_unit_test(no_recopy_lets_launches_accumulate),
        cmocka_unit_test(a_wrong_kernel_fails_the_check),
        cmocka_unit_test(unfit_inputs_are_refused),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
