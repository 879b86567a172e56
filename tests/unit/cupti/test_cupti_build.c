/*
 * The CUPTI recorder's conversion of recorded activity into the trace model
 * (src/tools/cupti/build.c): correlation of driver and runtime calls, event
 * record and stream wait arguments, copies and memsets, counters by launch
 * order, and a write/read round trip through rocpd.  No GPU needed: the
 * records are the ones CUPTI would deliver.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "recorder.h"
#include "rpl/error.h"
#include "rpl/rocpd.h"

/* Callback ids of the fake API-name table. */
enum {
    CB_LAUNCH = 211,
    CB_EVENT_RECORD = 135,
    CB_STREAM_WAIT = 147,
    CB_MEMCPY = 31,
    CB_MEMSET = 32,
    CB_DRV_LAUNCH = 307,
    CB_DRV_SYNC = 17
};

static const char *fake_api_name(uint8_t domain, uint32_t cbid)
{
    if (domain == CR_API_RUNTIME) {
        switch (cbid) {
        case CB_LAUNCH:
            return "cudaLaunchKernel_v7000";
        case CB_EVENT_RECORD:
            return "cudaEventRecord_v3020";
        case CB_STREAM_WAIT:
            return "cudaStreamWaitEvent_v3020";
        case CB_MEMCPY:
            return "cudaMemcpy_v3020";
        case CB_MEMSET:
            return "cudaMemset_v3020";
        }
    } else if (cbid == CB_DRV_LAUNCH) {
        return "cuLaunchKernel";
    } else if (cbid == CB_DRV_SYNC) {
        return "cuCtxSynchronize";
    }
    return NULL;
}

static void api(cr_state *st, uint8_t domain, uint32_t cbid, uint32_t corr, uint32_t tid,
                uint64_t start, uint64_t end)
{
    cr_api *a = CR_PUSH(st->apis);

    assert_non_null(a);
    *a = (cr_api){.start = start,
                  .end = end,
                  .corr = corr,
                  .pid = 4242,
                  .tid = tid,
                  .cbid = cbid,
                  .domain = domain};
}

static void kernel(cr_state *st, const char *name, uint32_t ctx, uint32_t stream, uint32_t corr,
                   uint64_t start, uint64_t end)
{
    cr_kernel *k = CR_PUSH(st->kernels);

    assert_non_null(k);
    *k = (cr_kernel){.start = start,
                     .end = end,
                     .device = 0,
                     .context = ctx,
                     .stream = stream,
                     .corr = corr,
                     .grid = {64, 2, 1},
                     .block = {256, 1, 1},
                     .static_smem = 8192,
                     .dynamic_smem = 1024,
                     .local_per_thread = 16,
                     .registers = 40,
                     .name = rpl_trace_intern(st->trace, name)};
}

static void device(cr_state *st)
{
    cr_device *d = CR_PUSH(st->devices);

    assert_non_null(d);
    d->ordinal = 0;
    snprintf(d->name, sizeof(d->name), "NVIDIA H100 80GB HBM3");
    d->cc_major = 9;
    d->cc_minor = 0;
    d->extdata = cJSON_Parse("{\"cu_count\":132,\"wave_front_size\":32,\"simd_per_cu\":4,"
                             "\"max_waves_per_cu\":64,\"max_engine_clk_fcompute\":1980,"
                             "\"chip_name\":\"GH100\",\"l2_cache_bytes\":52428800}");
    assert_non_null(d->extdata);
}

/*
 * Stream 7: kernel A (launched through cudaLaunchKernel -> cuLaunchKernel,
 * the kernel carrying the driver's correlation id), then an event record.
 * Stream 8: a wait on that event, then kernel B.  Then a copy, a memset and
 * a driver call of the application's own.
 */
static void record_scenario(cr_state *st)
{
    cr_copy *c;
    cr_event *e;
    cr_sync *s;

    device(st);
    api(st, CR_API_RUNTIME, CB_LAUNCH, 10, 100, 1000, 1100);
    api(st, CR_API_DRIVER, CB_DRV_LAUNCH, 11, 100, 1010, 1090);
    kernel(st, "_Z7producePfii", 1, 7, 11, 2000, 5000);
    api(st, CR_API_RUNTIME, CB_EVENT_RECORD, 20, 100, 1200, 1210);
    e = CR_PUSH(st->events);
    *e = (cr_event){.sync_id = 55, .corr = 20, .context = 1, .stream = 7, .event = 3};
    api(st, CR_API_RUNTIME, CB_STREAM_WAIT, 21, 100, 1300, 1310);
    s = CR_PUSH(st->syncs);
    *s = (cr_sync){.start = 1300,
                   .end = 1310,
                   .sync_id = 55,
                   .type = CR_SYNC_STREAM_WAIT_EVENT,
                   .corr = 21,
                   .context = 1,
                   .stream = 8,
                   .event = 3};
    api(st, CR_API_RUNTIME, CB_LAUNCH, 30, 100, 1400, 1500);
    kernel(st, "_Z7consumePKfPfi", 1, 8, 30, 5100, 6000);
    api(st, CR_API_RUNTIME, CB_MEMCPY, 40, 100, 6100, 7000);
    c = CR_PUSH(st->copies);
    *c = (cr_copy){.start = 6200,
                   .end = 6900,
                   .bytes = 1 << 20,
                   .stream = 7,
                   .corr = 41,
                   .runtime_corr = 40,
                   .dir = CR_COPY_HTOD};
    api(st, CR_API_RUNTIME, CB_MEMSET, 42, 100, 7100, 7200);
    c = CR_PUSH(st->copies);
    *c = (cr_copy){
        .start = 7300, .end = 7400, .bytes = 4096, .stream = 7, .corr = 42, .dir = CR_COPY_MEMSET};
    api(st, CR_API_DRIVER, CB_DRV_SYNC, 50, 101, 8000, 8100);
}

static const cr_process_info proc = {.pid = 4242,
                                     .ppid = 1,
                                     .start = 500,
                                     .end = 9000,
                                     .command = "./two_streams",
                                     .hostname = "gpu-host",
                                     .cpu_model = "Test CPU",
                                     .db_path = "mem"};

static const rpl_region *region_named(const rpl_trace *t, const char *name)
{
    for (uint32_t i = 0; i < t->regions.count; i++)
        if (strcmp(t->regions.items[i].name, name) == 0)
            return &t->regions.items[i];
    return NULL;
}

static const char *arg_of(const rpl_trace *t, const rpl_region *r, const char *name)
{
    for (uint32_t i = 0; i < r->args_count; i++)
        if (strcmp(t->args.items[r->args_first + i].name, name) == 0)
            return t->args.items[r->args_first + i].value;
    return NULL;
}

static const rpl_dispatch *dispatch_of(const rpl_trace *t, const char *kernel_name)
{
    for (uint32_t i = 0; i < t->dispatches.count; i++)
        if (strcmp(t->symbols.items[t->dispatches.items[i].kernel].name, kernel_name) == 0)
            return &t->dispatches.items[i];
    return NULL;
}

static uint32_t count_regions(const rpl_trace *t, const char *name)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < t->regions.count; i++)
        n += strcmp(t->regions.items[i].name, name) == 0;
    return n;
}

/* What every trace of the scenario must hold, freshly built or read back. */
static void check_scenario(const rpl_trace *t)
{
    const rpl_dispatch *a = dispatch_of(t, "_Z7producePfii"),
                       *b = dispatch_of(t, "_Z7consumePKfPfi");
    const rpl_region *rec = region_named(t, "cudaEventRecord");
    const rpl_region *wait = region_named(t, "cudaStreamWaitEvent");
    const rpl_region *drv = region_named(t, "cuCtxSynchronize");
    const rpl_kernel_symbol *sym;
    const rpl_agent *gpu;
    uint32_t set = 0;

    assert_non_null(a);
    assert_non_null(b);
    /* The driver launch folds into the runtime launch: one region, id 10. */
    assert_int_equal(count_regions(t, "cudaLaunchKernel"), 2);
    assert_int_equal(count_regions(t, "cuLaunchKernel"), 0);
    assert_int_equal(a->correlation_id, 10);
    assert_int_equal(b->correlation_id, 30);
    assert_int_equal(rpl_trace_tid(t, a->thread), 100);
    assert_int_equal(a->grid[0], 64 * 256);
    assert_int_equal(a->grid[1], 2);
    assert_int_equal(a->workgroup[0], 256);
    assert_int_equal(a->group_segment_size, 1024);
    assert_int_equal(a->end - a->start, 3000);
    sym = &t->symbols.items[a->kernel];
    assert_int_equal(sym->arch_vgpr_count, 40);
    assert_int_equal(sym->group_segment_size, 8192);
    assert_int_equal(sym->private_segment_size, 16);
    assert_string_equal(t->streams.items[a->stream].name, "Stream 7");
    assert_string_equal(t->streams.items[b->stream].name, "Stream 8");
    gpu = &t->agents.items[a->agent];
    assert_int_equal(gpu->type, RPL_AGENT_GPU);
    assert_string_equal(gpu->name, "sm_90");
    assert_string_equal(gpu->product_name, "NVIDIA H100 80GB HBM3");
    assert_int_equal(gpu->cu_count, 132);

    /* The event record and the wait carry the stream, event and sync ids. */
    assert_non_null(rec);
    assert_non_null(wait);
    assert_string_equal(arg_of(t, rec, "stream"), "7");
    assert_string_equal(arg_of(t, rec, "event"), "3");
    assert_string_equal(arg_of(t, rec, "sync_id"), "55");
    assert_string_equal(arg_of(t, wait, "stream"), "8");
    assert_string_equal(arg_of(t, wait, "event"), "3");
    assert_string_equal(arg_of(t, wait, "sync_id"), "55");
    assert_string_equal(rec->category, CR_CATEGORY_RUNTIME);
    /* A launching call names its stream too, so that handles map to lanes. */
    for (uint32_t i = 0; i < t->regions.count; i++) {
        const rpl_region *r = &t->regions.items[i];
        if (strcmp(r->name, "cudaLaunchKernel") == 0 && r->correlation_id == 30) {
            assert_string_equal(arg_of(t, r, "stream"), "8");
            set++;
        }
    }
    assert_int_equal(set, 1);
    /* A driver call of the application's own stays. */
    assert_non_null(drv);
    assert_string_equal(drv->category, CR_CATEGORY_DRIVER);
    assert_int_equal(rpl_trace_tid(t, drv->thread), 101);

    /* Copies: the H2D with its runtime id, the memset under its own name. */
    assert_int_equal(t->memcpys.count, 2);
    for (uint32_t i = 0; i < t->memcpys.count; i++) {
        const rpl_memcpy *m = &t->memcpys.items[i];
        if (m->kind == RPL_COPY_HOST_TO_DEVICE) {
            assert_int_equal(m->correlation_id, 40);
            assert_int_equal(m->size, 1 << 20);
            assert_int_equal(t->agents.items[m->src_agent].type, RPL_AGENT_CPU);
            assert_int_equal(t->agents.items[m->dst_agent].type, RPL_AGENT_GPU);
        } else {
            assert_string_equal(m->name, CR_MEMSET_NAME);
            assert_int_equal(m->size, 4096);
        }
    }
    assert_int_equal(t->processes.count, 1);
    assert_int_equal(t->processes.items[0].pid, 4242);
}

static void builds_the_scenario(void **unused)
{
    cr_state st;

    assert_int_equal(cr_state_init(&st), 0);
    record_scenario(&st);
    assert_int_equal(cr_build_trace(&st, &proc, fake_api_name), 0);
    check_scenario(st.trace);
    cr_state_release(&st);
}

static void survives_a_rocpd_round_trip(void **unused)
{
    char path[512];
    cr_state st;
    rpl_trace *back;

    snprintf(path, sizeof(path), "%s/cupti_build_%d.db", RPL_TEST_TMP, (int)getpid());
    assert_int_equal(cr_state_init(&st), 0);
    record_scenario(&st);
    assert_int_equal(cr_build_trace(&st, &proc, fake_api_name), 0);
    assert_int_equal(rpl_rocpd_write(st.trace, path, NULL), 0);
    assert_int_equal(rpl_trace_new(&back), 0);
    assert_int_equal(rpl_rocpd_read(back, path), 0);
    check_scenario(back);
    rpl_trace_free(back);
    cr_state_release(&st);
    unlink(path);
}

/* The range the profiler measured for launch `corr` on context `ctx`. */
static void add_range(cr_state *st, uint32_t ctx, uint32_t corr, double v0, double v1)
{
    cr_range *r = CR_PUSH(st->ranges);
    double *a = CR_PUSH(st->range_values), *b = CR_PUSH(st->range_values);

    r->context = ctx;
    r->corr = corr;
    r->values_first = (uint32_t)(a - st->range_values.items);
    *a = v0;
    *b = v1;
}

static double counter(const rpl_trace *t, const rpl_dispatch *d, const char *name)
{
    uint32_t idx;
    double v = -1;

    assert_int_equal(rpl_trace_counter_index((rpl_trace *)t, name, &idx), 0);
    if (!rpl_dispatch_counter(t, d, idx, &v))
        return -1;
    return v;
}

static void memset_op(cr_state *st, uint32_t ctx, uint32_t corr, uint64_t start)
{
    cr_copy *c = CR_PUSH(st->copies);

    *c = (cr_copy){.start = start,
                   .end = start + 10,
                   .bytes = 64,
                   .context = ctx,
                   .stream = 7,
                   .corr = corr,
                   .dir = CR_COPY_MEMSET};
}

static void metrics(cr_state *st)
{
    assert_int_equal(cr_metrics_parse("dram__bytes_read.sum, gpu__time_duration.sum", &st->metrics,
                                      &st->nmetrics),
                     0);
}

/* Each range goes to the launch it names, whatever the start order. */
static void counters_follow_launch_order(void **unused)
{
    cr_state st;
    const rpl_dispatch *a, *b, *c;

    assert_int_equal(cr_state_init(&st), 0);
    metrics(&st);
    device(&st);
    kernel(&st, "k_late", 1, 7, 90, 100, 200); /* launched last, started first */
    kernel(&st, "k_first", 1, 7, 10, 300, 400);
    kernel(&st, "k_other_ctx", 2, 9, 50, 500, 600);
    add_range(&st, 1, 10, 111, 1.5);
    add_range(&st, 1, 90, 999, 2.5);
    add_range(&st, 2, 50, 222, 0.0 / 0.0); /* a metric CUPTI could not evaluate */
    assert_int_equal(cr_build_trace(&st, &proc, fake_api_name), 0);
    a = dispatch_of(st.trace, "k_first");
    b = dispatch_of(st.trace, "k_late");
    c = dispatch_of(st.trace, "k_other_ctx");
    assert_true(counter(st.trace, a, "dram__bytes_read.sum") == 111);
    assert_true(counter(st.trace, a, "gpu__time_duration.sum") == 1.5);
    assert_true(counter(st.trace, b, "dram__bytes_read.sum") == 999);
    assert_true(counter(st.trace, c, "dram__bytes_read.sum") == 222);
    assert_true(counter(st.trace, c, "gpu__time_duration.sum") == -1);
    cr_state_release(&st);
}

/*
 * A sample: only some launches were measured.  The others keep no counters,
 * and a range is never given to a launch of the same number on another
 * context.
 */
static void only_measured_launches_get_counters(void **unused)
{
    cr_state st;

    assert_int_equal(cr_state_init(&st), 0);
    metrics(&st);
    kernel(&st, "k_a", 1, 7, 10, 100, 200);
    memset_op(&st, 1, 11, 250);
    kernel(&st, "k_b", 1, 7, 12, 300, 400);
    kernel(&st, "k_c", 1, 7, 14, 500, 600);
    add_range(&st, 1, 12, 102, 1);
    add_range(&st, 2, 14, 555, 1); /* context 2 has no launch 14 */
    add_range(&st, 1, 11, 777, 1); /* a memset: no dispatch */
    assert_int_equal(cr_build_trace(&st, &proc, fake_api_name), 0);
    assert_int_equal(dispatch_of(st.trace, "k_a")->counters_count, 0);
    assert_true(counter(st.trace, dispatch_of(st.trace, "k_b"), "dram__bytes_read.sum") == 102);
    assert_int_equal(dispatch_of(st.trace, "k_c")->counters_count, 0);
    cr_state_release(&st);
}

/*
 * A counter run builds its dispatches from the launch callbacks: the start is
 * the launch call's time and the end becomes start + gpu__time_duration.sum
 * of the range (counter-run timestamps are not GPU timestamps); a dispatch
 * without that metric keeps the end it was recorded with.
 */
static void counter_runs_take_durations_from_the_counters(void **unused)
{
    cr_state st;
    const rpl_dispatch *a, *b, *c;

    assert_int_equal(cr_state_init(&st), 0);
    metrics(&st);
    st.launch_times = true;
    kernel(&st, "k_a", 1, 7, 10, 1000, 90000);
    kernel(&st, "k_b", 1, 7, 11, 100000, 190000);
    kernel(&st, "k_c", 1, 7, 12, 200000, 290000);
    add_range(&st, 1, 10, 1, 1843.6);
    add_range(&st, 1, 11, 2, 61120.0);
    add_range(&st, 1, 12, 3, 0.0 / 0.0);
    assert_int_equal(cr_build_trace(&st, &proc, fake_api_name), 0);
    a = dispatch_of(st.trace, "k_a");
    b = dispatch_of(st.trace, "k_b");
    c = dispatch_of(st.trace, "k_c");
    assert_int_equal(a->start, 1000);
    assert_int_equal(a->end, 1000 + 1844);
    assert_int_equal(b->end, 100000 + 61120);
    assert_int_equal(c->end, 290000);
    assert_true(counter(st.trace, b, "dram__bytes_read.sum") == 2);
    cr_state_release(&st);
}

/* A trace-only run's (activity) timestamps are never replaced. */
static void activity_times_are_kept(void **unused)
{
    cr_state st;

    assert_int_equal(cr_state_init(&st), 0);
    metrics(&st);
    kernel(&st, "k_a", 1, 7, 10, 1000, 90000);
    add_range(&st, 1, 10, 1, 1843.6);
    assert_int_equal(cr_build_trace(&st, &proc, fake_api_name), 0);
    assert_int_equal(dispatch_of(st.trace, "k_a")->end, 90000);
    cr_state_release(&st);
}

/* --counter-skip 1 --counter-dispatches 2: launches 1 and 2 of each kernel, by name. */
static void samples_the_first_launches_of_each_kernel(void **unused)
{
    cr_sample s;
    const char *order[] = {"a", "b", "a", "a", "b", "a", "b", "b", NULL, "a"};
    const bool want[] = {false, false, true, true, true, false, true, false, false, false};

    assert_int_equal(cr_sample_parse(&s, "1", "2"), 0);
    for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
        assert_int_equal(cr_sample_next(&s, order[i]), want[i]);
    assert_int_equal(s.launches, 10);
    assert_int_equal(s.measured, 4);
    assert_false(cr_sample_complete(&s)); /* no plan: never complete */
    cr_sample_release(&s);
}

/* "all" (and unset) measure every launch from the skipped ones on; many names grow the table. */
static void samples_every_launch_after_the_skipped(void **unused)
{
    cr_sample s;
    char name[32];

    assert_int_equal(cr_sample_parse(&s, NULL, "all"), 0);
    assert_int_equal(s.per_kernel, CR_SAMPLE_ALL);
    for (int i = 0; i < 500; i++) {
        snprintf(name, sizeof(name), "k%d", i % 200);
        assert_true(cr_sample_next(&s, name));
    }
    assert_int_equal(s.count, 200);
    cr_sample_release(&s);
    assert_int_equal(cr_sample_parse(&s, "2", ""), 0);
    assert_false(cr_sample_next(&s, "k"));
    assert_false(cr_sample_next(&s, "k"));
    assert_true(cr_sample_next(&s, "k"));
    assert_true(cr_sample_next(&s, "k"));
    cr_sample_release(&s);
}

static void rejects_bad_sample_settings(void **unused)
{
    cr_sample s;

    assert_int_equal(cr_sample_parse(&s, "-1", NULL), RPL_EUSAGE);
    assert_int_equal(cr_sample_parse(&s, "3x", NULL), RPL_EUSAGE);
    assert_int_equal(cr_sample_parse(&s, NULL, "0"), RPL_EUSAGE);
    assert_int_equal(cr_sample_parse(&s, NULL, "some"), RPL_EUSAGE);
    assert_int_equal(cr_sample_parse(&s, "99999999999", NULL), RPL_EUSAGE);
}

static void write_plan(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/*
 * The plan of the trace-only run: a counted 3 times, b once, c (0: only
 * skipped launches) never; the sample is complete at the third launch of a
 * once b was measured, whatever else runs.
 */
static void a_plan_says_when_the_sample_is_complete(void **unused)
{
    char path[512];
    cr_sample s;

    snprintf(path, sizeof(path), "%s/cupti_plan_%d.txt", RPL_TEST_TMP, (int)getpid());
    write_plan(path, "3\ta\n1\tb\n0\tc\n2\tb\n");
    assert_int_equal(cr_sample_parse(&s, NULL, "3"), 0);
    assert_int_equal(cr_sample_plan_load(&s, path), 0);
    assert_true(cr_sample_next(&s, "a"));
    assert_true(cr_sample_next(&s, "b"));
    assert_true(cr_sample_next(&s, "x")); /* not planned: measured, not waited for */
    assert_true(cr_sample_next(&s, "a"));
    assert_false(cr_sample_complete(&s));
    assert_true(cr_sample_next(&s, "b")); /* b twice: the larger count of the plan */
    assert_false(cr_sample_complete(&s));
    assert_true(cr_sample_next(&s, "a"));
    assert_true(cr_sample_complete(&s));
    cr_sample_release(&s);
    unlink(path);
}

static void rejects_a_bad_plan(void **unused)
{
    char path[512];
    cr_sample s;

    snprintf(path, sizeof(path), "%s/cupti_badplan_%d.txt", RPL_TEST_TMP, (int)getpid());
    write_plan(path, "3 a\n");
    assert_int_equal(cr_sample_parse(&s, NULL, NULL), 0);
    assert_int_equal(cr_sample_plan_load(&s, path), RPL_EINPUT);
    assert_false(cr_sample_complete(&s));
    cr_sample_release(&s);
    unlink(path);
    assert_int_equal(cr_sample_plan_load(&s, path), RPL_EIO);
    cr_sample_release(&s);
}

/* With counters, the records of replay passes collapse into one dispatch per launch. */
static void replayed_kernels_count_once(void **unused)
{
    cr_state st;

    assert_int_equal(cr_state_init(&st), 0);
    metrics(&st);
    kernel(&st, "k", 1, 7, 10, 100, 200);
    kernel(&st, "k", 1, 7, 10, 300, 410); /* a replay pass of the same launch */
    kernel(&st, "k", 1, 7, 11, 500, 600);
    add_range(&st, 1, 10, 1, 1);
    add_range(&st, 1, 11, 2, 1);
    assert_int_equal(cr_build_trace(&st, &proc, fake_api_name), 0);
    assert_int_equal(st.trace->dispatches.count, 2);
    assert_int_equal(st.trace->dispatches.items[0].start, 100);
    assert_true(counter(st.trace, &st.trace->dispatches.items[1], "dram__bytes_read.sum") == 2);
    cr_state_release(&st);
}

/* Counters reach rocpd_info_pmc / rocpd_pmc_event and come back by dispatch. */
static void counters_survive_a_rocpd_round_trip(void **unused)
{
    char path[512];
    cr_state st;
    rpl_trace *back;
    double v;
    uint32_t idx;

    snprintf(path, sizeof(path), "%s/cupti_counters_%d.db", RPL_TEST_TMP, (int)getpid());
    assert_int_equal(cr_state_init(&st), 0);
    metrics(&st);
    device(&st);
    kernel(&st, "k_a", 1, 7, 10, 100, 200);
    memset_op(&st, 1, 11, 250);
    kernel(&st, "k_b", 1, 7, 12, 300, 400);
    add_range(&st, 1, 10, 4096, 100);
    add_range(&st, 1, 12, 8192, 0.0 / 0.0);
    assert_int_equal(cr_build_trace(&st, &proc, fake_api_name), 0);
    assert_int_equal(rpl_rocpd_write(st.trace, path, NULL), 0);
    assert_int_equal(rpl_trace_new(&back), 0);
    assert_int_equal(rpl_rocpd_read(back, path), 0);
    assert_int_equal(rpl_trace_counter_index(back, "dram__bytes_read.sum", &idx), 0);
    assert_true(rpl_dispatch_counter(back, dispatch_of(back, "k_a"), idx, &v));
    assert_true(v == 4096);
    assert_true(rpl_dispatch_counter(back, dispatch_of(back, "k_b"), idx, &v));
    assert_true(v == 8192);
    assert_int_equal(rpl_trace_counter_index(back, "gpu__time_duration.sum", &idx), 0);
    assert_true(rpl_dispatch_counter(back, dispatch_of(back, "k_a"), idx, &v));
    assert_true(v == 100);
    assert_false(rpl_dispatch_counter(back, dispatch_of(back, "k_b"), idx, &v));
    rpl_trace_free(back);
    cr_state_release(&st);
    unlink(path);
}

static void knows_which_calls_make_ranges(void **unused)
{
    assert_true(cr_api_makes_range("cudaLaunchKernel_v7000"));
    assert_true(cr_api_makes_range("__cudaLaunchKernel_v13000"));
    assert_true(cr_api_makes_range("cuLaunchKernelEx"));
    assert_true(cr_api_makes_range("cudaMemsetAsync_v3020"));
    assert_true(cr_api_makes_range("cuMemsetD32_v2"));
    assert_false(cr_api_makes_range("cuLaunchHostFunc"));
    assert_false(cr_api_makes_range("cudaMemcpy_v3020"));
    assert_false(cr_api_makes_range(NULL));
}

static void parses_metric_lists(void **unused)
{
    const char **m;
    size_t n;

    assert_int_equal(cr_metrics_parse("roofline", &m, &n), 0);
    assert_true(n >= 10);
    assert_string_equal(m[0], "gpu__time_duration.sum");
    assert_null(m[n]);
    free(m);
    assert_int_equal(cr_metrics_parse(" a.sum ,b__c.avg.per_second", &m, &n), 0);
    assert_int_equal(n, 2);
    assert_string_equal(m[0], "a.sum");
    assert_string_equal(m[1], "b__c.avg.per_second");
    free(m);
    assert_int_equal(cr_metrics_parse("none", &m, &n), 0);
    assert_null(m);
    assert_int_equal(cr_metrics_parse("", &m, &n), 0);
    assert_null(m);
    assert_int_equal(cr_metrics_parse("a.sum,,b.sum", &m, &n), RPL_EUSAGE);
    assert_int_equal(cr_metrics_parse("a.sum;rm -rf", &m, &n), RPL_EUSAGE);
    assert_null(m);
}

static void parses_the_api_selection(void **unused)
{
    int apis;

    assert_int_equal(cr_api_parse(NULL, &apis), 0);
    assert_int_equal(apis, CR_TRACE_RUNTIME);
    assert_int_equal(cr_api_parse("", &apis), 0);
    assert_int_equal(apis, CR_TRACE_RUNTIME);
    assert_int_equal(cr_api_parse("none", &apis), 0);
    assert_int_equal(apis, 0);
    assert_int_equal(cr_api_parse("runtime", &apis), 0);
    assert_int_equal(apis, CR_TRACE_RUNTIME);
    assert_int_equal(cr_api_parse("driver,runtime", &apis), 0);
    assert_int_equal(apis, CR_TRACE_RUNTIME | CR_TRACE_DRIVER);
    assert_int_equal(cr_api_parse("runtime,", &apis), RPL_EUSAGE);
    assert_int_equal(cr_api_parse("hip", &apis), RPL_EUSAGE);
    /* A bad value falls back to the default. */
    assert_int_equal(apis, CR_TRACE_RUNTIME);
}

static void records_api_details_only_with_api_calls(void **unused)
{
    (void)unused;
    /* GPU work only: no synchronisation or CUDA event records (nothing would read them). */
    assert_int_equal(cr_record_kinds(0), CR_RECORD_COPIES);
    assert_int_equal(cr_record_kinds(CR_TRACE_RUNTIME),
                     CR_RECORD_COPIES | CR_RECORD_RUNTIME | CR_RECORD_API_DETAILS);
    assert_int_equal(cr_record_kinds(CR_TRACE_DRIVER),
                     CR_RECORD_COPIES | CR_RECORD_DRIVER | CR_RECORD_API_DETAILS);
    assert_int_equal(cr_record_kinds(CR_TRACE_RUNTIME | CR_TRACE_DRIVER),
                     CR_RECORD_COPIES | CR_RECORD_RUNTIME | CR_RECORD_DRIVER |
                         CR_RECORD_API_DETAILS);
}

static void parses_the_kernel_timing(void **unused)
{
    cr_kernel_timing t;

    assert_int_equal(cr_kernel_timing_parse(NULL, &t), 0);
    assert_int_equal(t, CR_KERNELS_CONCURRENT);
    assert_int_equal(cr_kernel_timing_parse("", &t), 0);
    assert_int_equal(t, CR_KERNELS_CONCURRENT);
    assert_int_equal(cr_kernel_timing_parse("serial", &t), 0);
    assert_int_equal(t, CR_KERNELS_SERIAL);
    assert_int_equal(cr_kernel_timing_parse("concurrent", &t), 0);
    assert_int_equal(t, CR_KERNELS_CONCURRENT);
    assert_int_equal(cr_kernel_timing_parse("serial ", &t), RPL_EUSAGE);
    assert_string_equal(rpl_error_last()->message,
                        "ROCM_PERF_CUPTI_KERNELS='serial ': expected 'concurrent' or 'serial'");
    /* A bad value falls back to the default. */
    assert_int_equal(t, CR_KERNELS_CONCURRENT);
}

static void names_the_database_like_rocprofv3(void **unused)
{
    char *p;

    assert_int_equal(cr_output_path(&p, "/tmp/out", "gpu-host", 4242), 0);
    assert_string_equal(p, "/tmp/out/gpu-host/4242_results.db");
    free(p);
    assert_int_equal(cr_output_path(&p, NULL, "h", 7), 0);
    assert_string_equal(p, "./h/7_results.db");
    free(p);
    assert_int_equal(cr_output_path(&p, "/tmp", "a/b", 1), RPL_EINPUT);
    assert_null(p);
    assert_int_equal(cr_output_path(&p, "/tmp", "..", 1), RPL_EINPUT);
    assert_null(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(builds_the_scenario),
        cmocka_unit_test(survives_a_rocpd_round_trip),
        cmocka_unit_test(counters_follow_launch_order),
        cmocka_unit_test(only_measured_launches_get_counters),
        cmocka_unit_test(counter_runs_take_durations_from_the_counters),
        cmocka_unit_test(activity_times_are_kept),
        cmocka_unit_test(samples_the_first_launches_of_each_kernel),
        cmocka_unit_test(samples_every_launch_after_the_skipped),
        cmocka_unit_test(rejects_bad_sample_settings),
        cmocka_unit_test(a_plan_says_when_the_sample_is_complete),
        cmocka_unit_test(rejects_a_bad_plan),
        cmocka_unit_test(replayed_kernels_count_once),
        cmocka_unit_test(counters_survive_a_rocpd_round_trip),
        cmocka_unit_test(knows_which_calls_make_ranges),
        cmocka_unit_test(parses_metric_lists),
        cmocka_unit_test(parses_the_api_selection),
        cmocka_unit_test(records_api_details_only_with_api_calls),
        cmocka_unit_test(parses_the_kernel_timing),
        cmocka_unit_test(names_the_database_like_rocprofv3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
