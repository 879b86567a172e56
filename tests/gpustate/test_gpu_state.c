/*
 * GPU state through the test doubles of NVML and ROCm SMI (fake_nvml.c,
 * fake_rocm_smi.c, opened through ROCM_PERF_NVML_LIBRARY and
 * ROCM_PERF_ROCM_SMI_LIBRARY).  The library is opened once per process, so
 * each vendor runs as its own test: argv[1] is nvml, rsmi5 or rsmi6.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/gpu_state.h"

static void nvml(void **state)
{
    rpl_gpu_state s, acc = {0}, back;
    rpl_gpu_sampler *sm;
    char why[256], text[256];
    cJSON *j;

    (void)state;
    setenv("FAKE_NVML_REASONS", "0x5", 1); /* idle + sw power cap */
    assert_int_equal(rpl_gpu_state_read(&s, 0), 0);
    assert_true(s.valid);
    assert_string_equal(s.source, "nvml");
    assert_true(s.sm_mhz == 1980 && s.mem_mhz == 2619 && s.sm_max_mhz == 1980);
    assert_true(s.temperature_c == 41 && fabs(s.power_w - 312.5) < 1e-9);
    assert_int_equal(s.throttle, RPL_THROTTLE_SW_POWER); /* idle is no throttling */
    assert_true(rpl_gpu_state_unstable(&s, NULL, why, sizeof(why)));
    assert_non_null(strstr(why, "sw_power_cap"));
    /* JSON round trip. */
    j = rpl_gpu_state_json(&s);
    assert_int_equal(rpl_gpu_state_from_json(&back, j), 0);
    assert_true(back.valid && back.sm_mhz == 1980 && back.throttle == RPL_THROTTLE_SW_POWER);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "throttled")));
    cJSON_Delete(j);
    /* Clocks far from the baseline's, no throttling. */
    setenv("FAKE_NVML_REASONS", "0", 1);
    setenv("FAKE_NVML_SM", "1500", 1);
    assert_int_equal(rpl_gpu_state_read(&s, 0), 0);
    back.throttle = 0;
    assert_true(rpl_gpu_state_unstable(&s, &back, why, sizeof(why)));
    assert_non_null(strstr(why, "1500 MHz"));
    setenv("FAKE_NVML_SM", "1900", 1); /* -4 %: within 10 % */
    assert_int_equal(rpl_gpu_state_read(&s, 0), 0);
    assert_false(rpl_gpu_state_unstable(&s, &back, why, sizeof(why)));
    /* Merging keeps the highest clock and every reason seen. */
    rpl_gpu_state_merge(&acc, &s);
    setenv("FAKE_NVML_SM", "1950", 1);
    setenv("FAKE_NVML_REASONS", "0x40", 1);
    assert_int_equal(rpl_gpu_state_read(&s, 0), 0);
    rpl_gpu_state_merge(&acc, &s);
    assert_true(acc.sm_mhz == 1950 && acc.samples == 2 && acc.throttle == RPL_THROTTLE_HW_THERMAL);
    rpl_gpu_state_describe(&acc, text, sizeof(text));
    assert_non_null(strstr(text, "throttled: hw_thermal"));
    /* The sampler polls until stopped. */
    assert_int_equal(rpl_gpu_sampler_start(&sm, 0, 5), 0);
    usleep(60 * 1000);
    rpl_gpu_sampler_stop(sm, &s);
    assert_true(s.valid && s.samples >= 3);
    /* A device NVML does not know is no state. */
    setenv("FAKE_NVML_HANDLE_FAIL", "1", 1);
    assert_int_equal(rpl_gpu_state_read(&s, 0), RPL_ENODEV);
    assert_false(s.valid);
    rpl_error_clear();
}

static void rsmi(void **state)
{
    rpl_gpu_state s;

    (void)state;
    assert_int_equal(rpl_gpu_state_read(&s, 0), 0);
    assert_string_equal(s.source, "rocm-smi");
    /* The same numbers from either frequency layout. */
    assert_true(s.sm_mhz == 2100 && s.sm_max_mhz == 2100 && s.mem_mhz == 1300);
    assert_true(s.temperature_c == 55 && s.power_w == 450 && s.throttle == 0);
    assert_int_equal(rpl_gpu_state_read(&s, 3), RPL_ENODEV);
    rpl_error_clear();
}

static void none(void **state)
{
    rpl_gpu_state s;
    cJSON *j;

    (void)state;
    assert_int_equal(rpl_gpu_state_read(&s, 0), RPL_ENODEV);
    rpl_error_clear();
    j = rpl_gpu_state_json(&s);
    assert_true(cJSON_IsNull(j));
    assert_int_equal(rpl_gpu_state_from_json(&s, j), 0);
    assert_false(s.valid);
    cJSON_Delete(j);
    j = cJSON_Parse("{\"source\": \"nvml\", \"sm_clock_mhz\": -3}");
    assert_int_equal(rpl_gpu_state_from_json(&s, j), RPL_EINPUT);
    cJSON_Delete(j);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest nv[] = {cmocka_unit_test(nvml)};
    const struct CMUnitTest rs[] = {cmocka_unit_test(rsmi)};
    const struct CMUnitTest no[] = {cmocka_unit_test(none)};

    if (argc < 2)
        return 2;
    if (strcmp(argv[1], "nvml") == 0) {
        setenv("ROCM_PERF_NVML_LIBRARY", argv[2], 1);
        return cmocka_run_group_tests(nv, NULL, NULL);
    }
    setenv("ROCM_PERF_NVML_LIBRARY", "none", 1);
    if (strcmp(argv[1], "none") == 0) {
        setenv("ROCM_PERF_ROCM_SMI_LIBRARY", "none", 1);
        return cmocka_run_group_tests(no, NULL, NULL);
    }
    setenv("ROCM_PERF_ROCM_SMI_LIBRARY", argv[2], 1);
    setenv("FAKE_RSMI_MAJOR", strcmp(argv[1], "rsmi5") == 0 ? "5" : "6", 1);
    return cmocka_run_group_tests(rs, NULL, NULL);
}
