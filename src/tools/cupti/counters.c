/*
 * Hardware counters through the CUPTI Range Profiler (cupti_range_profiler.h,
 * CUDA 12.6+): auto range (one range per kernel launch) with kernel replay
 * (CUPTI runs each kernel as often as the metric set needs passes, saving
 * and restoring the memory it touches).  The metric names are ncu's.
 *
 * Only the launches of the sample (cr_sample, decided by launches.c) are
 * measured: the profiler runs from the enter of a measured launch until the
 * enter of the next launch or memset that is not measured, so a run of
 * measured launches shares one counter-data image and nothing else makes a
 * range.  Per context: at the first measured launch the host object takes
 * the metrics (unknown ones are dropped with a warning) and builds the
 * config image, and the profiler is enabled; each measured launch's
 * operation number is remembered in launch order, and when the profiler
 * stops (an unmeasured operation, a full image, the context's end) the
 * image is decoded and range i evaluated into cr_g.ranges for the i-th
 * remembered launch.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "cupti_int.h"
#include "rpl/free.h"
#include "rpl/log.h"

/* About 0.5 MB of counter data per range for the roofline set on GH100. */
#define RANGES_PER_IMAGE 64

typedef struct pctx {
    CUcontext ctx;
    uint32_t context_id;
    int failed;   /* set up failed or broke: no counters for this context */
    int running;  /* between Start and Stop */
    int finished; /* drained at process exit: nothing more to do */
    char chip[64];
    uint8_t *avail; /* counter availability image */
    CUpti_Profiler_Host_Object *host;
    CUpti_RangeProfiler_Object *prof;
    uint8_t *config;
    size_t config_size;
    uint8_t *data;
    size_t data_size;
    const char **names; /* the accepted metrics */
    size_t *slot;       /* their positions in cr_g.metrics */
    size_t nnames;
    size_t launches; /* ranges in the current image */
    uint32_t *corrs; /* the measured launches of the current image, in launch order */
    size_t ncorrs, corrs_cap;
} pctx;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pctx *ctxs;
static size_t nctx;
static int profiler_ready; /* cuptiProfilerInitialize done; -1 when it failed */
static pid_t owner;        /* the process that profiles (a fork's child does not) */

static pctx *find(CUcontext ctx, int create)
{
    pctx *n;

    for (size_t i = 0; i < nctx; i++)
        if (ctxs[i].ctx == ctx)
            return &ctxs[i];
    if (!create)
        return NULL;
    n = realloc(ctxs, (nctx + 1) * sizeof(*ctxs));
    if (!n)
        return NULL;
    ctxs = n;
    memset(&ctxs[nctx], 0, sizeof(*ctxs));
    ctxs[nctx].ctx = ctx;
    return &ctxs[nctx++];
}

/* The chip name and the counter availability image that every host object of p is made with. */
static int availability(pctx *p, uint32_t device)
{
    CUpti_Device_GetChipName_Params chip = {.structSize =
                                                CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    CUpti_Profiler_GetCounterAvailability_Params av = {
        .structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};

    chip.deviceIndex = device;
    if (cr_cupti_failed(cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName"))
        return -1;
    snprintf(p->chip, sizeof(p->chip), "%s", chip.pChipName ? chip.pChipName : "");
    av.ctx = p->ctx;
    if (cr_cupti_failed(cuptiProfilerGetCounterAvailability(&av),
                        "cuptiProfilerGetCounterAvailability"))
        return -1;
    /* Kept for the context's lifetime: the host objects made with it may read it later. */
    p->avail = calloc(1, av.counterAvailabilityImageSize ? av.counterAvailabilityImageSize : 1);
    if (!p->avail)
        return -1;
    av.pCounterAvailabilityImage = p->avail;
    if (cr_cupti_failed(cuptiProfilerGetCounterAvailability(&av),
                        "cuptiProfilerGetCounterAvailability"))
        return -1;
    rpl_log_debug("cupti: chip %s, counter availability image of %zu bytes", p->chip,
                  av.counterAvailabilityImageSize);
    return 0;
}

static CUpti_Profiler_Host_Object *host_new(pctx *p)
{
    CUpti_Profiler_Host_Initialize_Params hi = {
        .structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};

    hi.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    hi.pChipName = p->chip;
    hi.pCounterAvailabilityImage = p->avail;
    if (cr_cupti_failed(cuptiProfilerHostInitialize(&hi), "cuptiProfilerHostInitialize"))
        return NULL;
    return hi.pHostObject;
}

static void host_free(CUpti_Profiler_Host_Object *host)
{
    CUpti_Profiler_Host_Deinitialize_Params h = {
        .structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};

    if (!host)
        return;
    h.pHostObject = host;
    cuptiProfilerHostDeinitialize(&h);
}

static void release(pctx *p)
{
    if (p->prof) {
        CUpti_RangeProfiler_Disable_Params d = {.structSize =
                                                    CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
        d.pRangeProfilerObject = p->prof;
        cr_cupti_failed(cuptiRangeProfilerDisable(&d), "cuptiRangeProfilerDisable");
        p->prof = NULL;
    }
    host_free(p->host);
    p->host = NULL;
    RPL_FREE_EACH(p->avail, p->config, p->data, p->names, p->slot, p->corrs);
    p->config = p->data = p->avail = NULL;
    p->names = NULL;
    p->slot = NULL;
    p->corrs = NULL;
    p->ncorrs = p->corrs_cap = 0;
}

static int host_add(CUpti_Profiler_Host_Object *host, const char **names, size_t n)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params add = {
        .structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};

    add.pHostObject = host;
    add.ppMetricNames = names;
    add.numMetrics = n;
    return cuptiProfilerHostConfigAddMetrics(&add) == CUPTI_SUCCESS ? 0 : -1;
}

/*
 * The metrics go into the config in one call, which lets CUPTI pack them
 * into the fewest passes.  When that fails, each is tried alone on a scratch
 * host object, and the ones this chip knows are added together.
 */
static int add_metrics(pctx *p)
{
    p->names = malloc((cr_g.nmetrics + 1) * sizeof(*p->names));
    p->slot = malloc((cr_g.nmetrics + 1) * sizeof(*p->slot));
    if (!p->names || !p->slot || !(p->host = host_new(p)))
        return -1;
    if (host_add(p->host, cr_g.metrics, cr_g.nmetrics) == 0) {
        for (size_t i = 0; i < cr_g.nmetrics; i++) {
            p->names[i] = cr_g.metrics[i];
            p->slot[i] = i;
        }
        p->nnames = cr_g.nmetrics;
        return 0;
    }
    host_free(p->host);
    p->host = NULL;
    for (size_t i = 0; i < cr_g.nmetrics; i++) {
        CUpti_Profiler_Host_Object *scratch = host_new(p);
        int ok = scratch && host_add(scratch, &cr_g.metrics[i], 1) == 0;
        host_free(scratch);
        if (!ok) {
            rpl_log_warn("cupti: metric '%s' is not available on %s; left out", cr_g.metrics[i],
                         p->chip);
            continue;
        }
        p->names[p->nnames] = cr_g.metrics[i];
        p->slot[p->nnames++] = i;
    }
    if (!p->nnames || !(p->host = host_new(p)))
        return -1;
    return host_add(p->host, p->names, p->nnames);
}

static int config_image(pctx *p)
{
    CUpti_Profiler_Host_GetConfigImageSize_Params sz = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    CUpti_Profiler_Host_GetConfigImage_Params img = {
        .structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    CUpti_Profiler_Host_GetNumOfPasses_Params passes = {
        .structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};

    sz.pHostObject = p->host;
    if (cr_cupti_failed(cuptiProfilerHostGetConfigImageSize(&sz),
                        "cuptiProfilerHostGetConfigImageSize"))
        return -1;
    p->config_size = sz.configImageSize;
    p->config = malloc(p->config_size ? p->config_size : 1);
    if (!p->config)
        return -1;
    img.pHostObject = p->host;
    img.configImageSize = p->config_size;
    img.pConfigImage = p->config;
    if (cr_cupti_failed(cuptiProfilerHostGetConfigImage(&img), "cuptiProfilerHostGetConfigImage"))
        return -1;
    passes.configImageSize = p->config_size;
    passes.pConfigImage = p->config;
    if (cuptiProfilerHostGetNumOfPasses(&passes) == CUPTI_SUCCESS)
        rpl_log_info("cupti: %zu metrics, %zu replay passes per kernel", p->nnames,
                     passes.numOfPasses);
    return 0;
}

/* (Re)initialise the counter-data image and start profiling. */
static int arm(pctx *p)
{
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params init = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    CUpti_RangeProfiler_SetConfig_Params cfg = {
        .structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    CUpti_RangeProfiler_Start_Params start = {.structSize =
                                                  CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};

    init.pRangeProfilerObject = p->prof;
    init.counterDataSize = p->data_size;
    init.pCounterData = p->data;
    if (cr_cupti_failed(cuptiRangeProfilerCounterDataImageInitialize(&init),
                        "cuptiRangeProfilerCounterDataImageInitialize"))
        return -1;
    cfg.pRangeProfilerObject = p->prof;
    cfg.configSize = p->config_size;
    cfg.pConfig = p->config;
    cfg.counterDataImageSize = p->data_size;
    cfg.pCounterDataImage = p->data;
    cfg.range = CUPTI_AutoRange;
    cfg.replayMode = CUPTI_KernelReplay;
    cfg.maxRangesPerPass = RANGES_PER_IMAGE;
    cfg.numNestingLevels = 1;
    cfg.minNestingLevel = 1;
    cfg.passIndex = 0;
    cfg.targetNestingLevel = 1;
    if (cr_cupti_failed(cuptiRangeProfilerSetConfig(&cfg), "cuptiRangeProfilerSetConfig"))
        return -1;
    start.pRangeProfilerObject = p->prof;
    if (cr_cupti_failed(cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart"))
        return -1;
    rpl_log_debug("cupti: range profiler started on context %u", p->context_id);
    p->running = 1;
    p->launches = 0;
    return 0;
}

/*
 * Registered at the first profiled launch, which is after the CUDA runtime
 * registered its own exit handler: so this runs first at exit, while every
 * context still exists.  The profilers are stopped and decoded but not
 * disabled: on an H200 (CUDA 13.0) disabling them at exit made CUPTI's
 * activity thread abort with a double free (two builds of the recorder, when
 * counter runs still enabled activity records; they no longer do).
 */
static void finish_at_exit(void)
{
    if (getpid() != owner)
        return;
    cuCtxSynchronize();
    cr_counters_finish();
    cr_activity_flush();
}

static int setup(pctx *p)
{
    CUpti_Profiler_Initialize_Params pi = {.structSize =
                                               CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CUpti_RangeProfiler_Enable_Params en = {.structSize =
                                                CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    CUpti_RangeProfiler_GetCounterDataSize_Params ds = {
        .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    uint32_t device = 0;

    if (profiler_ready == 0) {
        profiler_ready =
            cr_cupti_failed(cuptiProfilerInitialize(&pi), "cuptiProfilerInitialize") ? -1 : 1;
        owner = getpid();
        if (profiler_ready > 0 && atexit(finish_at_exit) != 0)
            profiler_ready = -1;
    }
    if (profiler_ready < 0)
        return -1;
    rpl_log_debug("cupti: setting up the range profiler for context %p", (void *)p->ctx);
    if (cr_cupti_failed(cuptiGetContextId(p->ctx, &p->context_id), "cuptiGetContextId") ||
        cr_cupti_failed(cuptiGetDeviceId(p->ctx, &device), "cuptiGetDeviceId"))
        return -1;
    if (availability(p, device) || add_metrics(p) || config_image(p))
        return -1;
    en.ctx = p->ctx;
    if (cr_cupti_failed(cuptiRangeProfilerEnable(&en), "cuptiRangeProfilerEnable"))
        return -1;
    p->prof = en.pRangeProfilerObject;
    rpl_log_debug("cupti: range profiler enabled on context %u", p->context_id);
    ds.pRangeProfilerObject = p->prof;
    ds.pMetricNames = p->names;
    ds.numMetrics = p->nnames;
    ds.maxNumOfRanges = RANGES_PER_IMAGE;
    ds.maxNumRangeTreeNodes = RANGES_PER_IMAGE;
    if (cr_cupti_failed(cuptiRangeProfilerGetCounterDataSize(&ds),
                        "cuptiRangeProfilerGetCounterDataSize"))
        return -1;
    p->data_size = ds.counterDataSize;
    p->data = malloc(p->data_size ? p->data_size : 1);
    if (!p->data)
        return -1;
    rpl_log_debug("cupti: counter data image of %zu bytes for %d ranges", p->data_size,
                  RANGES_PER_IMAGE);
    return 0;
}

/*
 * Evaluate every range of the decoded image into cr_g.ranges: range r is
 * the r-th measured launch.  An image with another number of ranges than
 * measured launches gives no counters rather than shifted ones.
 */
static int evaluate(pctx *p)
{
    CUpti_RangeProfiler_GetCounterDataInfo_Params info = {
        .structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    double *vals = malloc((p->nnames + 1) * sizeof(double));

    if (!vals)
        return -1;
    info.pCounterDataImage = p->data;
    info.counterDataImageSize = p->data_size;
    if (cr_cupti_failed(cuptiRangeProfilerGetCounterDataInfo(&info),
                        "cuptiRangeProfilerGetCounterDataInfo")) {
        free(vals);
        return -1;
    }
    if (info.numTotalRanges != p->ncorrs) {
        rpl_log_warn("cupti: context %u: %zu counter ranges for %zu measured launches; their "
                     "counters are left out",
                     p->context_id, info.numTotalRanges, p->ncorrs);
        pthread_mutex_lock(&cr_g.lock);
        cr_g.dropped_ranges += info.numTotalRanges;
        pthread_mutex_unlock(&cr_g.lock);
        free(vals);
        return 0;
    }
    for (size_t r = 0; r < info.numTotalRanges; r++) {
        CUpti_Profiler_Host_EvaluateToGpuValues_Params ev = {
            .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
        cr_range *rg;
        ev.pHostObject = p->host;
        ev.pCounterDataImage = p->data;
        ev.counterDataImageSize = p->data_size;
        ev.rangeIndex = r;
        ev.ppMetricNames = p->names;
        ev.numMetrics = p->nnames;
        ev.pMetricValues = vals;
        if (cr_cupti_failed(cuptiProfilerHostEvaluateToGpuValues(&ev),
                            "cuptiProfilerHostEvaluateToGpuValues"))
            continue;
        pthread_mutex_lock(&cr_g.lock);
        rg = CR_PUSH(cr_g.ranges);
        if (rg) {
            size_t first = cr_g.range_values.count;
            int ok = 1;
            for (size_t m = 0; m < cr_g.nmetrics && ok; m++) {
                double *slot = CR_PUSH(cr_g.range_values);
                ok = slot != NULL;
                if (slot)
                    *slot = NAN;
            }
            for (size_t m = 0; m < p->nnames && ok; m++)
                cr_g.range_values.items[first + p->slot[m]] = vals[m];
            rg->context = p->context_id;
            rg->corr = p->corrs[r];
            rg->values_first = (uint32_t)first;
            if (!ok)
                cr_g.ranges.count--;
        }
        pthread_mutex_unlock(&cr_g.lock);
    }
    rpl_log_debug("cupti: context %u: %zu ranges evaluated", p->context_id, info.numTotalRanges);
    free(vals);
    return 0;
}

/* Stop, decode and evaluate the current image. */
static int drain(pctx *p)
{
    CUpti_RangeProfiler_Stop_Params stop = {.structSize =
                                                CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    CUpti_RangeProfiler_DecodeData_Params dec = {
        .structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    int rc;

    if (!p->running)
        return 0;
    p->running = 0;
    stop.pRangeProfilerObject = p->prof;
    rpl_log_debug("cupti: stopping the range profiler on context %u after %zu launches",
                  p->context_id, p->launches);
    if (cr_cupti_failed(cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop"))
        return -1;
    dec.pRangeProfilerObject = p->prof;
    if (cr_cupti_failed(cuptiRangeProfilerDecodeData(&dec), "cuptiRangeProfilerDecodeData"))
        return -1;
    if (dec.numOfRangeDropped) {
        pthread_mutex_lock(&cr_g.lock);
        cr_g.dropped_ranges += dec.numOfRangeDropped;
        pthread_mutex_unlock(&cr_g.lock);
    }
    rc = evaluate(p);
    p->ncorrs = 0;
    return rc;
}

static void fail(pctx *p)
{
    rpl_log_warn("cupti: counters are off for context %u", p->context_id);
    p->failed = 1;
    p->running = 0;
    release(p);
}

/*
 * The profiler's own work (replaying a kernel, synchronising, decoding) can
 * run CUDA calls whose callbacks land here again on the same thread; they
 * must neither count as the application's launches nor take the lock twice.
 */
static __thread int inside;

static int enter(void)
{
    if (inside)
        return 0;
    inside = 1;
    pthread_mutex_lock(&lock);
    return 1;
}

static void leave(void)
{
    pthread_mutex_unlock(&lock);
    inside = 0;
}

int cr_counters_busy(void)
{
    return inside;
}

/* Remember a measured launch (once: its runtime and driver callbacks both enter). */
static int remember(pctx *p, uint32_t corr)
{
    if (p->ncorrs && p->corrs[p->ncorrs - 1] == corr)
        return 0;
    if (p->ncorrs == p->corrs_cap) {
        size_t cap = p->corrs_cap ? p->corrs_cap * 2 : RANGES_PER_IMAGE;
        uint32_t *n = realloc(p->corrs, cap * sizeof(*n));
        if (!n)
            return -1;
        p->corrs = n;
        p->corrs_cap = cap;
    }
    p->corrs[p->ncorrs++] = corr;
    return 0;
}

void cr_counters_launch_enter(CUcontext ctx, uint32_t corr, int measured)
{
    pctx *p;

    if (!enter())
        return;
    p = find(ctx, measured);
    if (!p || p->failed) {
        leave();
        return;
    }
    if (!measured) {
        /* Whatever runs now must not make a range. */
        if (p->running && drain(p) != 0)
            fail(p);
        leave();
        return;
    }
    if ((!p->prof && setup(p) != 0) || (!p->running && arm(p) != 0) || remember(p, corr) != 0)
        fail(p);
    leave();
}

void cr_counters_launch_exit(CUcontext ctx)
{
    pctx *p;

    if (!enter())
        return;
    p = find(ctx, 0);
    if (p && p->running) {
        rpl_log_debug("cupti: launch %zu on context %u returned", p->launches + 1, p->context_id);
        if (++p->launches >= RANGES_PER_IMAGE && drain(p) != 0)
            fail(p);
    }
    leave();
}

void cr_counters_context_ending(CUcontext ctx)
{
    pctx *p;

    if (!enter())
        return;
    p = find(ctx, 0);
    if (p) {
        if (!p->failed && drain(p) != 0)
            rpl_log_warn("cupti: the last counter ranges of context %u are lost", p->context_id);
        if (!p->finished)
            release(p);
        /* Forget the handle: a new context may get the same one (and a new context id). */
        *p = ctxs[--nctx];
    }
    leave();
}

void cr_counters_finish(void)
{
    if (!enter())
        return;
    for (size_t i = 0; i < nctx; i++) {
        pctx *p = &ctxs[i];
        if (p->failed || p->finished)
            continue;
        if (drain(p) != 0)
            rpl_log_warn("cupti: the last counter ranges of context %u are lost", p->context_id);
        p->failed = p->finished = 1;
        rpl_log_debug("cupti: range profiler of context %u finished", p->context_id);
    }
    leave();
}
