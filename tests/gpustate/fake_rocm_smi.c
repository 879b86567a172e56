/*
 * A test double of librocm_smi64: the entry points rocm-perf opens.
 * FAKE_RSMI_MAJOR (5 or 6) picks the rsmi_frequencies_t layout it writes,
 * as the ROCm 5 and ROCm 6 libraries do.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static unsigned major(void)
{
    const char *v = getenv("FAKE_RSMI_MAJOR");
    return v && v[0] ? (unsigned)atoi(v) : 6;
}

typedef struct {
    uint32_t major, minor, patch;
    const char *build;
} version;

int rsmi_init(uint64_t flags)
{
    return flags == 0 ? 0 : 1;
}

int rsmi_version_get(version *v)
{
    v->major = major();
    v->minor = 0;
    v->patch = 0;
    v->build = "fake";
    return 0;
}

/* Levels 500, 1200, 2100 MHz (system) or 900, 1300 MHz (memory); the current is the last. */
int rsmi_dev_gpu_clk_freq_get(uint32_t dev, int type, void *out)
{
    uint64_t sys[3] = {500000000ull, 1200000000ull, 2100000000ull};
    uint64_t mem[2] = {900000000ull, 1300000000ull};
    const uint64_t *f = type == 0 ? sys : mem;
    uint32_t n = type == 0 ? 3 : 2;

    if (dev != 0 || (type != 0 && type != 4))
        return 2;
    if (major() >= 6) {
        struct {
            bool deep_sleep;
            uint32_t num, current;
            uint64_t freq[33];
        } v6 = {false, n, n - 1, {0}};
        memcpy(v6.freq, f, n * sizeof(*f));
        memcpy(out, &v6, sizeof(v6));
    } else {
        struct {
            uint32_t num, current;
            uint64_t freq[32];
        } v5 = {n, n - 1, {0}};
        memcpy(v5.freq, f, n * sizeof(*f));
        memcpy(out, &v5, sizeof(v5));
    }
    return 0;
}

int rsmi_dev_temp_metric_get(uint32_t dev, uint32_t sensor, int metric, int64_t *mc)
{
    (void)dev;
    *mc = 55000;
    return sensor == 0 && metric == 0 ? 0 : 2;
}

int rsmi_dev_power_ave_get(uint32_t dev, uint32_t sensor, uint64_t *uw)
{
    (void)dev;
    (void)sensor;
    *uw = 450000000ull;
    return 0;
}
