/*
 * The GPU's state while a measurement ran: SM and memory clocks,
 * temperature, power and throttle reasons, read through the vendor's
 * management library opened at run time (NVML's libnvidia-ml.so.1 on
 * NVIDIA, librocm_smi64 on AMD).  A sampler polls it while the program
 * runs; the state keeps the busiest sample's clocks and the worst of the
 * rest, so that a throttled moment is not averaged away.
 */
#ifndef RPL_GPU_STATE_H
#define RPL_GPU_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <cjson/cJSON.h>

/* Throttle reasons, the same bits for both vendors (NVML's names, shortened). */
enum rpl_throttle {
    RPL_THROTTLE_SW_POWER = 1u << 0,    /* software power cap */
    RPL_THROTTLE_HW_SLOWDOWN = 1u << 1, /* hardware slowdown (thermal or power brake) */
    RPL_THROTTLE_SW_THERMAL = 1u << 2,  /* software thermal slowdown */
    RPL_THROTTLE_HW_THERMAL = 1u << 3,  /* hardware thermal slowdown */
    RPL_THROTTLE_HW_POWER = 1u << 4,    /* hardware power brake */
    RPL_THROTTLE_SYNC_BOOST = 1u << 5,  /* held back to match another GPU */
    RPL_THROTTLE_APP_CLOCKS = 1u << 6,  /* application clocks set below the maximum */
    RPL_THROTTLE_OTHER = 1u << 7        /* a reason this version does not name */
};
#define RPL_THROTTLE_NAMES 8

/* Field absent: a negative value. */
typedef struct rpl_gpu_state {
    bool valid;           /* something was read */
    char source[16];      /* "nvml" or "rocm-smi" */
    double sm_mhz;        /* SM (AMD: system) clock, the highest sampled */
    double mem_mhz;       /* memory clock, the highest sampled */
    double sm_max_mhz;    /* the SM clock's maximum, or -1 */
    double temperature_c; /* the highest sampled, or -1 */
    double power_w;       /* the highest sampled, or -1 */
    unsigned throttle;    /* rpl_throttle bits seen in any sample */
    unsigned samples;     /* how many samples */
} rpl_gpu_state;

/* "sw_power_cap", ... for bit i; NULL beyond. */
const char *rpl_throttle_name(unsigned bit_index);

/* Reasons that slow a kernel down (every bit but application clocks and sync boost). */
#define RPL_THROTTLE_SLOWING                                                                       \
    (RPL_THROTTLE_SW_POWER | RPL_THROTTLE_HW_SLOWDOWN | RPL_THROTTLE_SW_THERMAL |                  \
     RPL_THROTTLE_HW_THERMAL | RPL_THROTTLE_HW_POWER)

/*
 * One reading of GPU `index` (the CUDA/HIP ordinal): NVML first, then
 * rocm-smi.  The libraries are opened by name (libnvidia-ml.so.1,
 * librocm_smi64.so.1 or .so); ROCM_PERF_NVML_LIBRARY and
 * ROCM_PERF_ROCM_SMI_LIBRARY name other files (tests load doubles this
 * way; "none" disables one).  RPL_ENODEV when neither library answers.
 */
int rpl_gpu_state_read(rpl_gpu_state *out, unsigned index);
/* The same without touching the error state (the sampler's): true when read. */
bool rpl_gpu_state_poll(rpl_gpu_state *out, unsigned index);

/* Fold a reading into the running state (highest clocks, worst of the rest). */
void rpl_gpu_state_merge(rpl_gpu_state *acc, const rpl_gpu_state *sample);

/*
 * Sample GPU `index` every `period_ms` on a thread until stopped.  Start
 * never fails the measurement: without a library the state stays invalid.
 */
typedef struct rpl_gpu_sampler rpl_gpu_sampler;
int rpl_gpu_sampler_start(rpl_gpu_sampler **out, unsigned index, unsigned period_ms);
/* Stop, join and free; the merged state into *out (valid only when read). */
void rpl_gpu_sampler_stop(rpl_gpu_sampler *s, rpl_gpu_state *out);

/* JSON object (docs/schemas/gpu-state.schema.json), or null for an invalid state. */
cJSON *rpl_gpu_state_json(const rpl_gpu_state *s);
/* The inverse; a null or absent item is an invalid state.  RPL_EINPUT when malformed. */
int rpl_gpu_state_from_json(rpl_gpu_state *out, const cJSON *item);

/* Why a measurement's clocks are not to be trusted (appended to `why`, "; "-separated). */
#define RPL_GPU_CLOCK_TOLERANCE 0.10 /* an SM clock more than 10 % from the baseline's */
/*
 * True when `s` was throttled (a slowing reason) or its SM clock is more
 * than RPL_GPU_CLOCK_TOLERANCE from `base`'s (when both are known).
 */
bool rpl_gpu_state_unstable(const rpl_gpu_state *s, const rpl_gpu_state *base, char *why,
                            size_t cap);

/* "1980 MHz SM, 2619 MHz memory, 45 C, 310 W, throttled: sw_power_cap" */
void rpl_gpu_state_describe(const rpl_gpu_state *s, char *buf, size_t cap);

#endif
