/*
 * The driver version of the cache key from every form the tools print:
 * /proc/driver/nvidia/version (proprietary and open kernel module),
 * nvidia-smi's banner and CSV query, the CUDA driver API's integer,
 * rocm-smi and the amdgpu module's version file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/autotune.h"
#include "rpl/error.h"

static void expect(const char *text, const char *version)
{
    char out[64];

    assert_int_equal(rpl_tune_driver_version(out, sizeof(out), text), 0);
    assert_string_equal(out, version);
}

static void nvidia(void **state)
{
    (void)state;
    expect("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 09:45:21 UTC "
           "2025\n",
           "580.95.05");
    /* The open kernel module puts "for x86_64" between the label and the version. */
    expect("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
           "(nixbld@)  \nGCC version:  gcc version 15.3.0 (GCC) \n",
           "580.159.04");
    expect("| NVIDIA-SMI 580.95.05              Driver Version: 580.95.05      CUDA Version: "
           "13.0     |",
           "580.95.05");
    expect("580.95.05\n", "580.95.05");
    expect("535.104.12", "535.104.12");
    expect("CUDA Version: 13.0", "13.0");
    expect("13.0", "13.0");
}

static void cuda_driver_api(void **state)
{
    (void)state;
    expect("13000", "13.0");
    expect("12080\n", "12.8");
    expect(" 12040 ", "12.4");
}

static void amd(void **state)
{
    (void)state;
    expect("Driver version: 6.10.5", "6.10.5");
    expect("======= ROCm System Management Interface =======\n"
           "Driver version: 6.8.5\n=================\n",
           "6.8.5");
    expect("6.10.5\n", "6.10.5");
    expect("kernel 6.8.0-49-generic", "6.8.0-49-generic");
    expect("Driver version: 5.15.0-91-generic.", "5.15.0-91-generic");
}

static void no_version(void **state)
{
    char out[64];

    (void)state;
    assert_int_equal(rpl_tune_driver_version(out, sizeof(out), "Driver version: N/A"), RPL_EINPUT);
    assert_string_equal(out, "");
    assert_int_equal(rpl_tune_driver_version(out, sizeof(out), "x86_64 gfx90a"), RPL_EINPUT);
    assert_int_equal(rpl_tune_driver_version(out, sizeof(out), "580"), RPL_EINPUT);
    assert_int_equal(rpl_tune_driver_version(out, sizeof(out), ""), RPL_EINPUT);
    rpl_error_clear();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nvidia),
        cmocka_unit_test(cuda_driver_api),
        cmocka_unit_test(amd),
        cmocka_unit_test(no_version),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
