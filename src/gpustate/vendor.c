/*
 * Reading the GPU's clocks, temperature, power and throttle reasons through
 * the vendor's management library, opened at run time so that rocm-perf
 * needs neither to build or to run.  The few entry points used are
 * declared here from the public API documentation (NVML reference, ROCm
 * SMI reference); their values are the documented ones.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpl/error.h"
#include "rpl/gpu_state.h"

/* ---- NVML ---- */

typedef struct nvml_device *nvml_device;
#define NVML_CLOCK_SM        1
#define NVML_CLOCK_MEM       2
#define NVML_TEMPERATURE_GPU 0
/* nvmlClocksThrottleReason* bits. */
#define NVML_TR_APP_CLOCKS     0x2ull
#define NVML_TR_SW_POWER       0x4ull
#define NVML_TR_HW_SLOWDOWN    0x8ull
#define NVML_TR_SYNC_BOOST     0x10ull
#define NVML_TR_SW_THERMAL     0x20ull
#define NVML_TR_HW_THERMAL     0x40ull
#define NVML_TR_HW_POWER_BRAKE 0x80ull
#define NVML_TR_KNOWN          0x1ffull /* idle and display clock setting are not throttling */

typedef struct nvml_api {
    int (*init)(void);
    int (*handle)(unsigned, nvml_device *);
    int (*clock)(nvml_device, int, unsigned *);
    int (*max_clock)(nvml_device, int, unsigned *);
    int (*temperature)(nvml_device, int, unsigned *);
    int (*power)(nvml_device, unsigned *);
    int (*reasons)(nvml_device, unsigned long long *);
} nvml_api;

/* ---- ROCm SMI ---- */

#define RSMI_CLK_TYPE_SYS   0
#define RSMI_CLK_TYPE_MEM   4
#define RSMI_TEMP_TYPE_EDGE 0
#define RSMI_TEMP_CURRENT   0

typedef struct rsmi_version {
    uint32_t major, minor, patch;
    const char *build;
} rsmi_version;

/* rsmi_frequencies_t: ROCm 5 {u32 num_supported, current; u64 frequency[32]}, ROCm 6 adds a
 * leading bool has_deep_sleep and a 33rd frequency.  The call gets room for either. */
typedef union rsmi_frequencies {
    struct {
        uint32_t num_supported, current;
        uint64_t frequency[32];
    } v5;
    struct {
        _Bool has_deep_sleep;
        uint32_t num_supported, current;
        uint64_t frequency[33];
    } v6;
    uint64_t room[64];
} rsmi_frequencies;

typedef struct rsmi_api {
    int (*init)(uint64_t);
    int (*version)(rsmi_version *);
    int (*clock)(uint32_t, int, rsmi_frequencies *);
    int (*temperature)(uint32_t, uint32_t, int, int64_t *);
    int (*power)(uint32_t, uint32_t, uint64_t *);
    unsigned major;
} rsmi_api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static nvml_api nvml;
static rsmi_api rsmi;
static bool have_nvml, have_rsmi;

/* The library file to open: the environment's override, or the first name that loads. */
static void *open_library(const char *env, const char *const *names)
{
    const char *o = getenv(env);
    void *h = NULL;

    if (o && o[0])
        return strcmp(o, "none") == 0 ? NULL : dlopen(o, RTLD_NOW | RTLD_LOCAL);
    for (size_t i = 0; names[i] && !h; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    return h;
}

static void *sym(void *h, const char *name, bool *ok)
{
    void *p = dlsym(h, name);

    *ok = *ok && p;
    return p;
}

static void load_nvml(void)
{
    static const char *const names[] = {"libnvidia-ml.so.1", NULL};
    void *h = open_library("ROCM_PERF_NVML_LIBRARY", names);
    bool ok = h != NULL;
    void *reasons;

    if (!h)
        return;
    *(void **)&nvml.init = sym(h, "nvmlInit_v2", &ok);
    *(void **)&nvml.handle = sym(h, "nvmlDeviceGetHandleByIndex_v2", &ok);
    *(void **)&nvml.clock = sym(h, "nvmlDeviceGetClockInfo", &ok);
    *(void **)&nvml.max_clock = sym(h, "nvmlDeviceGetMaxClockInfo", &ok);
    *(void **)&nvml.temperature = sym(h, "nvmlDeviceGetTemperature", &ok);
    *(void **)&nvml.power = sym(h, "nvmlDeviceGetPowerUsage", &ok);
    /* Renamed "clocks event reasons" in CUDA 12.2; the old name stays exported for now. */
    reasons = dlsym(h, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!reasons)
        reasons = sym(h, "nvmlDeviceGetCurrentClocksThrottleReasons", &ok);
    *(void **)&nvml.reasons = reasons;
    have_nvml = ok && nvml.init() == 0;
    if (!have_nvml)
        dlclose(h);
}

static void load_rsmi(void)
{
    static const char *const names[] = {"librocm_smi64.so.1", "librocm_smi64.so.7",
                                        "librocm_smi64.so.6", "librocm_smi64.so.5",
                                        "librocm_smi64.so",   NULL};
    void *h = open_library("ROCM_PERF_ROCM_SMI_LIBRARY", names);
    bool ok = h != NULL;
    rsmi_version v = {0};

    if (!h)
        return;
    *(void **)&rsmi.init = sym(h, "rsmi_init", &ok);
    *(void **)&rsmi.version = sym(h, "rsmi_version_get", &ok);
    *(void **)&rsmi.clock = sym(h, "rsmi_dev_gpu_clk_freq_get", &ok);
    *(void **)&rsmi.temperature = sym(h, "rsmi_dev_temp_metric_get", &ok);
    *(void **)&rsmi.power = sym(h, "rsmi_dev_power_ave_get", &ok);
    have_rsmi = ok && rsmi.init(0) == 0 && rsmi.version(&v) == 0;
    rsmi.major = v.major;
    if (!have_rsmi)
        dlclose(h);
}

static void load(void)
{
    load_nvml();
    if (!have_nvml)
        load_rsmi();
}

/* NVML ignores CUDA_VISIBLE_DEVICES: the CUDA ordinal `index` names the listed device. */
static unsigned nvml_index(unsigned index)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    char *end;
    unsigned long n;

    for (unsigned i = 0; v && *v; i++) {
        n = strtoul(v, &end, 10);
        if (end == v || (*end && *end != ','))
            return index; /* UUIDs or garbage: take the ordinal as it is */
        if (i == index)
            return (unsigned)n;
        v = *end ? end + 1 : end;
    }
    return index;
}

static unsigned throttle_bits(unsigned long long r)
{
    unsigned b = 0;

    b |= r & NVML_TR_SW_POWER ? RPL_THROTTLE_SW_POWER : 0;
    b |= r & NVML_TR_HW_SLOWDOWN ? RPL_THROTTLE_HW_SLOWDOWN : 0;
    b |= r & NVML_TR_SW_THERMAL ? RPL_THROTTLE_SW_THERMAL : 0;
    b |= r & NVML_TR_HW_THERMAL ? RPL_THROTTLE_HW_THERMAL : 0;
    b |= r & NVML_TR_HW_POWER_BRAKE ? RPL_THROTTLE_HW_POWER : 0;
    b |= r & NVML_TR_SYNC_BOOST ? RPL_THROTTLE_SYNC_BOOST : 0;
    b |= r & NVML_TR_APP_CLOCKS ? RPL_THROTTLE_APP_CLOCKS : 0;
    b |= r & ~NVML_TR_KNOWN ? RPL_THROTTLE_OTHER : 0;
    return b;
}

static int read_nvml(rpl_gpu_state *s, unsigned index)
{
    nvml_device d;
    unsigned v;
    unsigned long long r;

    if (nvml.handle(nvml_index(index), &d) != 0 || nvml.clock(d, NVML_CLOCK_SM, &v) != 0)
        return RPL_ENODEV;
    snprintf(s->source, sizeof(s->source), "nvml");
    s->sm_mhz = v;
    s->mem_mhz = nvml.clock(d, NVML_CLOCK_MEM, &v) == 0 ? (double)v : -1;
    s->sm_max_mhz = nvml.max_clock(d, NVML_CLOCK_SM, &v) == 0 ? (double)v : -1;
    s->temperature_c = nvml.temperature(d, NVML_TEMPERATURE_GPU, &v) == 0 ? (double)v : -1;
    s->power_w = nvml.power(d, &v) == 0 ? v / 1000.0 : -1;
    s->throttle = nvml.reasons(d, &r) == 0 ? throttle_bits(r) : 0;
    return 0;
}

/* The current frequency in MHz of a clock domain, or -1; *max the highest supported. */
static double rsmi_clock(unsigned index, int type, double *max)
{
    rsmi_frequencies f;
    uint32_t n, cur;
    const uint64_t *hz;

    memset(&f, 0, sizeof(f));
    if (rsmi.clock(index, type, &f) != 0)
        return -1;
    if (rsmi.major >= 6) {
        n = f.v6.num_supported, cur = f.v6.current, hz = f.v6.frequency;
        n = n > 33 ? 33 : n;
    } else {
        n = f.v5.num_supported, cur = f.v5.current, hz = f.v5.frequency;
        n = n > 32 ? 32 : n;
    }
    if (cur >= n)
        return -1;
    if (max) {
        *max = -1;
        for (uint32_t i = 0; i < n; i++)
            if ((double)hz[i] / 1e6 > *max)
                *max = (double)hz[i] / 1e6;
    }
    return (double)hz[cur] / 1e6;
}

static int read_rsmi(rpl_gpu_state *s, unsigned index)
{
    int64_t t;
    uint64_t p;

    s->sm_mhz = rsmi_clock(index, RSMI_CLK_TYPE_SYS, &s->sm_max_mhz);
    if (s->sm_mhz < 0)
        return RPL_ENODEV;
    snprintf(s->source, sizeof(s->source), "rocm-smi");
    s->mem_mhz = rsmi_clock(index, RSMI_CLK_TYPE_MEM, NULL);
    s->temperature_c = rsmi.temperature(index, RSMI_TEMP_TYPE_EDGE, RSMI_TEMP_CURRENT, &t) == 0
                           ? (double)t / 1000.0
                           : -1;
    s->power_w = rsmi.power(index, 0, &p) == 0 ? (double)p / 1e6 : -1;
    s->throttle = 0; /* ROCm SMI names no throttle reasons; the clocks tell */
    return 0;
}

bool rpl_gpu_state_poll(rpl_gpu_state *out, unsigned index)
{
    memset(out, 0, sizeof(*out));
    pthread_once(&once, load);
    out->valid = have_nvml   ? read_nvml(out, index) == 0
                 : have_rsmi ? read_rsmi(out, index) == 0
                             : false;
    out->samples = out->valid;
    return out->valid;
}

int rpl_gpu_state_read(rpl_gpu_state *out, unsigned index)
{
    if (rpl_gpu_state_poll(out, index))
        return 0;
    if (!have_nvml && !have_rsmi)
        return rpl_error_set(RPL_ENODEV, "no GPU management library (libnvidia-ml.so.1, "
                                         "librocm_smi64) could be opened");
    return rpl_error_set(RPL_ENODEV, "%s has no GPU %u", have_nvml ? "NVML" : "ROCm SMI", index);
}
