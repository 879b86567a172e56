/*
 * A test double of libnvidia-ml.so.1: the entry points rocm-perf opens, with
 * values from the environment (FAKE_NVML_SM, FAKE_NVML_REASONS, ...).
 * FAKE_NVML_HANDLE_FAIL=1 makes every device lookup fail.
 */
#include <stdlib.h>

static unsigned env(const char *name, unsigned dflt)
{
    const char *v = getenv(name);
    return v && v[0] ? (unsigned)strtoul(v, NULL, 0) : dflt;
}

int nvmlInit_v2(void)
{
    return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void **dev)
{
    static char devices[8];

    if (env("FAKE_NVML_HANDLE_FAIL", 0) || index >= 8)
        return 2; /* NVML_ERROR_INVALID_ARGUMENT */
    *dev = &devices[index];
    return 0;
}

int nvmlDeviceGetClockInfo(void *dev, int type, unsigned *mhz)
{
    (void)dev;
    *mhz = type == 1 ? env("FAKE_NVML_SM", 1980) : env("FAKE_NVML_MEM", 2619);
    return type == 1 || type == 2 ? 0 : 2;
}

int nvmlDeviceGetMaxClockInfo(void *dev, int type, unsigned *mhz)
{
    (void)dev;
    *mhz = type == 1 ? 1980 : 2619;
    return 0;
}

int nvmlDeviceGetTemperature(void *dev, int sensor, unsigned *c)
{
    (void)dev;
    *c = env("FAKE_NVML_TEMP", 41);
    return sensor == 0 ? 0 : 2;
}

int nvmlDeviceGetPowerUsage(void *dev, unsigned *mw)
{
    (void)dev;
    *mw = env("FAKE_NVML_MW", 312500);
    return 0;
}

int nvmlDeviceGetCurrentClocksThrottleReasons(void *dev, unsigned long long *r)
{
    (void)dev;
    *r = env("FAKE_NVML_REASONS", 0);
    return 0;
}
