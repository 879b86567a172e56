/*
 * librpl_cupti.so: a CUDA injection library.  With
 * CUDA_INJECTION64_PATH=/path/librpl_cupti.so the CUDA driver loads it in
 * cuInit() and calls InitializeInjection(); from then on CUPTI traces the
 * process, and at exit the whole trace is written once, atomically, as a
 * rocpd database at $ROCM_PERF_CUPTI_OUTPUT/<hostname>/<pid>_results.db
 * (the current directory when the variable is unset).  A child that execs
 * inherits the variable, is injected again and writes its own database.
 * With ROCM_PERF_CUPTI_COUNTERS set, no activity record is enabled: the
 * dispatches come from the launch callbacks (launches.c) and carry the
 * range profiler's counters (counters.c).  With ROCM_PERF_CAPTURE_DIR set
 * the library captures one dispatch into a replay snapshot instead
 * (capture.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include "capture_cuda.h"
#include "cupti_int.h"
#include "rpl/capture_env.h"
#include "rpl/clock.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/log.h"
#include "rpl/rocpd.h"

int InitializeInjection(void) __attribute__((visibility("default")));

static struct {
    int initialized;
    int forked_child; /* a fork of a traced process: its records belong to the parent */
    int written;
    CUpti_SubscriberHandle subscriber;
    char *out_dir;
    int64_t start_ns;      /* process start on trace_clock */
    clockid_t trace_clock; /* CLOCK_BOOTTIME, or CUPTI's CLOCK_REALTIME if ours was refused */
    const char *plan;      /* ROCM_PERF_CUPTI_COUNTER_STOP: the counter run's sample plan */
} g;

static int64_t boottime_ns(void)
{
    return rpl_clock_ns(CLOCK_BOOTTIME);
}

/* Now, on the clock of the recorded timestamps. */
static int64_t trace_now_ns(void)
{
    return rpl_clock_ns(g.trace_clock);
}

/* CUPTI's clock: the same CLOCK_BOOTTIME as rocprofv3's timestamps. */
static uint64_t CUPTIAPI timestamp_cb(void)
{
    return (uint64_t)boottime_ns();
}

/* Process start from /proc/self/stat (clock ticks since boot), or `fallback`. */
static int64_t process_start_ns(int64_t fallback)
{
    char buf[1024], *p;
    unsigned long long ticks;
    long hz = sysconf(_SC_CLK_TCK);
    FILE *f = fopen("/proc/self/stat", "r");
    size_t n;

    if (!f)
        return fallback;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    p = strrchr(buf, ')'); /* the command name may hold spaces */
    if (!p || hz <= 0)
        return fallback;
    /* After ") " come fields 3..; starttime is field 22. */
    for (int field = 2; field < 21 && p; field++)
        p = strchr(p + 1, ' ');
    if (!p || sscanf(p + 1, "%llu", &ticks) != 1)
        return fallback;
    return (int64_t)(ticks * (1000000000ULL / (unsigned long long)hz));
}

static void read_cmdline(char *buf, size_t cap)
{
    FILE *f = fopen("/proc/self/cmdline", "r");
    size_t n = 0;

    buf[0] = '\0';
    if (!f)
        return;
    n = fread(buf, 1, cap - 1, f);
    fclose(f);
    while (n > 0 && buf[n - 1] == '\0')
        n--;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    buf[n] = '\0';
}

static void read_cpu_model(char *buf, size_t cap)
{
    char line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");

    buf[0] = '\0';
    if (!f)
        return;
    while (fgets(line, sizeof(line), f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(buf, cap, "%s", colon + 2);
            buf[strcspn(buf, "\n")] = '\0';
            break;
        }
    }
    fclose(f);
}

static const char *api_name(uint8_t domain, uint32_t cbid)
{
    const char *name = NULL;
    CUpti_CallbackDomain d =
        domain == CR_API_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;

    if (cuptiGetCallbackName(d, cbid, &name) != CUPTI_SUCCESS)
        return NULL;
    return name;
}

/* Build the trace and write the database; called once, at exit. */
static void write_database(void)
{
    char host[256] = "", command[4096], cpu[256];
    cr_process_info proc = {0};
    char *path = NULL, *dir = NULL;
    int rc;

    if (gethostname(host, sizeof(host) - 1) != 0 || !host[0])
        snprintf(host, sizeof(host), "localhost");
    read_cmdline(command, sizeof(command));
    read_cpu_model(cpu, sizeof(cpu));
    proc.pid = getpid();
    proc.ppid = getppid();
    proc.start = g.start_ns;
    proc.end = trace_now_ns();
    proc.command = command;
    proc.hostname = host;
    proc.cpu_model = cpu;
    rc = cr_output_path(&path, g.out_dir, host, proc.pid);
    if (!rc)
        rc = rpl_path_join(&dir, g.out_dir, host);
    if (!rc)
        rc = rpl_mkdir_p(dir);
    proc.db_path = path;
    if (!rc)
        rc = cr_build_trace(&cr_g, &proc, api_name);
    if (!rc) {
        rpl_rocpd_write_opts opts = {.hostname = host};
        rc = rpl_rocpd_write(cr_g.trace, path, &opts);
    }
    if (rc)
        rpl_log_error("cupti: no trace written: %s", rpl_error_last()->message);
    else
        rpl_log_info("cupti: wrote %s (%zu kernels, %zu copies, %zu API calls)", path,
                     cr_g.kernels.count, cr_g.copies.count, cr_g.apis.count);
    if (cr_g.dropped_records)
        rpl_log_warn("cupti: %llu activity records were lost or incomplete",
                     (unsigned long long)cr_g.dropped_records);
    if (cr_g.metrics)
        rpl_log_info("cupti: counter run: %zu counter ranges; dispatch times are launch times "
                     "plus gpu__time_duration.sum, not GPU timestamps",
                     cr_g.ranges.count);
    if (cr_g.dropped_ranges)
        rpl_log_warn("cupti: %llu counter ranges were dropped",
                     (unsigned long long)cr_g.dropped_ranges);
    free(path);
    free(dir);
}

/*
 * At exit: stop recording API calls (the recorder's own calls are not the
 * application's), let the current context's pending work finish, finish the
 * counters if their own exit handler has not (see cr_counters_finish), take
 * every record, and write.
 */
static void at_exit(void)
{
    if (!g.initialized || g.forked_child || g.written)
        return;
    g.written = 1;
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_DRIVER);
    cuCtxSynchronize();
    if (cr_g.metrics)
        cr_counters_finish();
    cr_activity_flush();
    pthread_mutex_lock(&cr_g.lock);
    write_database();
    pthread_mutex_unlock(&cr_g.lock);
}

void cr_end_counter_run(void)
{
    char mark[4096];
    FILE *f;

    if (g.forked_child || g.written)
        return;
    rpl_log_info("cupti: the sample is measured after %llu launches: ending the counter run",
                 (unsigned long long)cr_g.sample.launches);
    at_exit();
    /* The mark says the database is complete and the program was ended on purpose. */
    if (snprintf(mark, sizeof(mark), "%s.stopped", g.plan) < (int)sizeof(mark) &&
        (f = fopen(mark, "w")) != NULL)
        fclose(f);
    fflush(NULL);
    _exit(0);
}

static void in_forked_child(void)
{
    g.forked_child = 1;
}

/* Describe the device of a new context once. */
static void context_created(CUcontext ctx)
{
    uint32_t device = 0;
    cr_device dev;
    cr_device *slot;

    if (cuptiGetDeviceId(ctx, &device) != CUPTI_SUCCESS)
        return;
    pthread_mutex_lock(&cr_g.lock);
    for (size_t i = 0; i < cr_g.devices.count; i++) {
        if (cr_g.devices.items[i].ordinal == device) {
            pthread_mutex_unlock(&cr_g.lock);
            return;
        }
    }
    pthread_mutex_unlock(&cr_g.lock);
    if (cr_device_describe(&dev, (int)device) != 0) {
        rpl_log_warn("cupti: %s", rpl_error_last()->message);
        return;
    }
    pthread_mutex_lock(&cr_g.lock);
    slot = CR_PUSH(cr_g.devices);
    if (slot)
        *slot = dev;
    pthread_mutex_unlock(&cr_g.lock);
}

/* Runtime and driver calls that make auto ranges (cr_api_makes_range), by callback id. */
static uint8_t counted_runtime[CUPTI_RUNTIME_TRACE_CBID_SIZE];
static uint8_t counted_driver[CUPTI_DRIVER_TRACE_CBID_SIZE];

static int is_counted(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API)
        return cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE && counted_runtime[cbid];
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
        return cbid < CUPTI_DRIVER_TRACE_CBID_SIZE && counted_driver[cbid];
    return 0;
}

/* Enable the callbacks of every call that makes a range, found by name. */
static int enable_counted(CUpti_CallbackDomain domain, uint8_t *mark, uint32_t n)
{
    for (uint32_t cbid = 1; cbid < n; cbid++) {
        const char *name = NULL;
        if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || !cr_api_makes_range(name))
            continue;
        if (cr_cupti_failed(cuptiEnableCallback(1, g.subscriber, domain, cbid),
                            "cuptiEnableCallback"))
            return -1;
        mark[cbid] = 1;
    }
    return 0;
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *data)
{
    if (g.forked_child)
        return;
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        const CUpti_ResourceData *rd = data;
        if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
            context_created(rd->context);
        } else if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) {
            if (cr_g.metrics)
                cr_counters_context_ending(rd->context);
            cr_activity_flush();
        }
    } else if (domain == CUPTI_CB_DOMAIN_RUNTIME_API &&
               cbid == CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020) {
        const CUpti_CallbackData *cd = data;
        /* The reset throws away the device's pending work and records. */
        if (cd->callbackSite == CUPTI_API_ENTER) {
            cuCtxSynchronize();
            cr_activity_flush();
        }
    } else if (is_counted(domain, cbid)) {
        cr_launch_callback(domain, cbid, data);
    }
}

static int enable_callbacks(void)
{
    if (cr_cupti_failed(cuptiSubscribe(&g.subscriber, on_callback, NULL), "cuptiSubscribe"))
        return -1;
    if (cr_cupti_failed(cuptiEnableCallback(1, g.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                            CUPTI_CBID_RESOURCE_CONTEXT_CREATED),
                        "cuptiEnableCallback") ||
        cr_cupti_failed(cuptiEnableCallback(1, g.subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                            CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING),
                        "cuptiEnableCallback") ||
        cr_cupti_failed(cuptiEnableCallback(1, g.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API,
                                            CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020),
                        "cuptiEnableCallback"))
        return -1;
    if (cr_g.metrics && (enable_counted(CUPTI_CB_DOMAIN_RUNTIME_API, counted_runtime,
                                        CUPTI_RUNTIME_TRACE_CBID_SIZE) != 0 ||
                         enable_counted(CUPTI_CB_DOMAIN_DRIVER_API, counted_driver,
                                        CUPTI_DRIVER_TRACE_CBID_SIZE) != 0))
        return -1;
    return 0;
}

/* The output directory, made absolute now in case the application changes directory. */
static char *output_dir(void)
{
    const char *env = getenv("ROCM_PERF_CUPTI_OUTPUT");
    char cwd[4096];
    char *out = NULL;

    if (env && env[0] == '/')
        return strdup(env);
    if (!getcwd(cwd, sizeof(cwd)))
        return strdup(env && env[0] ? env : ".");
    if (!env || !env[0] || strcmp(env, ".") == 0)
        return strdup(cwd);
    if (rpl_path_join(&out, cwd, env) != 0)
        return strdup(env);
    return out;
}

int InitializeInjection(void)
{
    const char *spec = getenv("ROCM_PERF_CUPTI_COUNTERS");
    cr_kernel_timing timing;
    int apis;

    if (g.initialized)
        return 1;
    /* Capture instead of tracing: CUPTI takes one subscriber (capture.c). */
    if (getenv(RPL_CAPTURE_ENV_DIR)) {
        g.initialized = cc_capture_start() == 0;
        return g.initialized;
    }
    rpl_log_init_from_env();
    if (cr_state_init(&cr_g) != 0) {
        rpl_log_error("cupti: %s", rpl_error_last()->message);
        return 0;
    }
    if (cr_metrics_parse(spec, &cr_g.metrics, &cr_g.nmetrics) != 0) {
        rpl_log_error("cupti: %s; recording without counters", rpl_error_last()->message);
        cr_g.metrics = NULL;
        cr_g.nmetrics = 0;
    }
    if (cr_g.metrics && cr_sample_parse(&cr_g.sample, getenv("ROCM_PERF_CUPTI_COUNTER_SKIP"),
                                        getenv("ROCM_PERF_CUPTI_COUNTER_DISPATCHES")) != 0) {
        rpl_log_error("cupti: %s; measuring every launch", rpl_error_last()->message);
        cr_sample_parse(&cr_g.sample, NULL, NULL);
    }
    g.plan = getenv("ROCM_PERF_CUPTI_COUNTER_STOP");
    if (cr_g.metrics && g.plan && g.plan[0] && cr_sample_plan_load(&cr_g.sample, g.plan) != 0) {
        rpl_log_warn("cupti: %s; the counter run goes to the program's end",
                     rpl_error_last()->message);
        g.plan = NULL;
    }
    cr_g.launch_times = cr_g.metrics != NULL;
    if (cr_api_parse(getenv("ROCM_PERF_CUPTI_API"), &apis) != 0)
        rpl_log_error("cupti: %s; recording runtime calls", rpl_error_last()->message);
    if (cr_kernel_timing_parse(getenv("ROCM_PERF_CUPTI_KERNELS"), &timing) != 0)
        rpl_log_error("cupti: %s; timing kernels concurrently", rpl_error_last()->message);
    else if (timing == CR_KERNELS_SERIAL && !cr_g.metrics)
        rpl_log_info("cupti: kernels timed serially: no two kernels run at once");
    g.out_dir = output_dir();
    if (!g.out_dir)
        return 0;
    g.start_ns = process_start_ns(boottime_ns());
    g.trace_clock = CLOCK_BOOTTIME;
    if (cr_cupti_failed(cuptiActivityRegisterTimestampCallback(timestamp_cb),
                        "cuptiActivityRegisterTimestampCallback")) {
        /* CUPTI keeps its CLOCK_REALTIME: move the process start onto it. */
        g.trace_clock = CLOCK_REALTIME;
        g.start_ns += rpl_clock_ns(CLOCK_REALTIME) - boottime_ns();
    }
    cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    /*
     * A counter run takes its dispatches from the launch callbacks
     * (launches.c): with the range profiler on, CUDA 13.0's CUPTI held back
     * or crashed on activity records.
     */
    if (enable_callbacks() != 0 || (!cr_g.metrics && cr_activity_start(apis, timing) != 0)) {
        rpl_log_error("cupti: tracing is off for process %d", (int)getpid());
        return 0;
    }
    g.initialized = 1;
    atexit(at_exit);
    pthread_atfork(NULL, NULL, in_forked_child);
    return 1;
}
