/*
 * The databases the CUPTI recorder wrote on an NVIDIA H200
 * (tests/fixtures/recorded/README.md) read back through the rocpd reader:
 * the GPU agent, kernel names, grids, blocks, registers, shared memory,
 * durations, copies, and the event record -> stream wait pairs that make
 * the DAG's real dependencies.  They were recorded without counters, and
 * the test checks that too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/rocpd.h"

static rpl_trace *load(const char *name)
{
    char path[1024];
    rpl_trace *t;

    snprintf(path, sizeof(path), "%s/recorded/%s", RPL_FIXTURES, name);
    assert_int_equal(rpl_trace_new(&t), 0);
    if (rpl_rocpd_read(t, path) != 0)
        fail_msg("%s: %s", path, rpl_error_last()->message);
    return t;
}

/* The dispatches of one kernel (by display name prefix), in start order. */
static uint32_t dispatches_of(const rpl_trace *t, const char *prefix, const rpl_dispatch **out,
                              uint32_t cap)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < t->dispatches.count; i++) {
        const rpl_dispatch *d = &t->dispatches.items[i];
        if (strncmp(t->symbols.items[d->kernel].display_name, prefix, strlen(prefix)) == 0 &&
            n < cap)
            out[n++] = d;
    }
    return n;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return (x > y) - (x < y);
}

static int64_t median_ns(const rpl_dispatch **d, uint32_t n)
{
    int64_t v[64];

    assert_true(n > 0 && n <= 64);
    for (uint32_t i = 0; i < n; i++) {
        assert_true(d[i]->end > d[i]->start);
        v[i] = d[i]->end - d[i]->start;
    }
    qsort(v, n, sizeof(v[0]), cmp_i64);
    return v[n / 2];
}

static double extnum(const rpl_agent *a, const char *key)
{
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(a->extdata, key);

    assert_true(cJSON_IsNumber(x));
    return x->valuedouble;
}

/* The H200 the fixtures came from, as the agent and its extdata describe it. */
static const rpl_agent *check_gpu(const rpl_trace *t)
{
    const rpl_agent *gpu = NULL;

    for (uint32_t i = 0; i < t->agents.count; i++)
        if (t->agents.items[i].type == RPL_AGENT_GPU)
            gpu = &t->agents.items[i];
    assert_non_null(gpu);
    assert_string_equal(gpu->name, "sm_90");
    assert_string_equal(gpu->product_name, "NVIDIA H200");
    assert_int_equal(gpu->cu_count, 132);
    assert_int_equal(gpu->wave_front_size, 32);
    assert_true(gpu->max_engine_clk_mhz > 1000);
    assert_true(extnum(gpu, "compute_capability_major") == 9);
    assert_true(extnum(gpu, "l2_cache_bytes") == 62914560);
    assert_true(extnum(gpu, "registers_per_sm") == 65536);
    assert_true(extnum(gpu, "shared_memory_per_sm") == 233472);
    /* 2 x 3201 MHz x 6016 bits / 8: HBM3e at 4.8 TB/s. */
    assert_true(extnum(gpu, "memory_bandwidth_bytes_per_s") > 4.7e12);
    assert_true(extnum(gpu, "memory_bandwidth_bytes_per_s") < 4.9e12);
    return gpu;
}

static const char *arg_of(const rpl_trace *t, const rpl_region *r, const char *name)
{
    for (uint32_t i = 0; i < r->args_count; i++)
        if (strcmp(t->args.items[r->args_first + i].name, name) == 0)
            return t->args.items[r->args_first + i].value;
    return NULL;
}

static void two_streams_joined_by_an_event(void **unused)
{
    rpl_trace *t = load("two_streams.db");
    const rpl_dispatch *prod[8], *cons[8];
    const rpl_region *rec[8], *wait[8];
    uint32_t np = dispatches_of(t, "produce(", prod, 8), nc = dispatches_of(t, "consume(", cons, 8);
    uint32_t nr = 0, nw = 0;
    char name[32];

    check_gpu(t);
    assert_int_equal(np, 5);
    assert_int_equal(nc, 5);
    /* 2^24 threads in blocks of 256; 16 registers, no shared or local memory. */
    for (uint32_t i = 0; i < 5; i++) {
        assert_int_equal(prod[i]->grid[0], 1u << 24);
        assert_int_equal(prod[i]->grid[1], 1);
        assert_int_equal(prod[i]->workgroup[0], 256);
        assert_int_equal(t->symbols.items[prod[i]->kernel].arch_vgpr_count, 16);
        assert_int_equal(t->symbols.items[prod[i]->kernel].group_segment_size, 0);
        assert_true(prod[i]->correlation_id > 0);
    }
    /* produce runs 256 dependent steps per element, consume one: ~150 us and ~55 us. */
    assert_true(median_ns(prod, np) > 100000 && median_ns(prod, np) < 300000);
    assert_true(median_ns(cons, nc) > 20000 && median_ns(cons, nc) < median_ns(prod, np));

    for (uint32_t i = 0; i < t->regions.count; i++) {
        const rpl_region *r = &t->regions.items[i];
        if (strcmp(r->name, "cudaEventRecord") == 0 && nr < 8)
            rec[nr++] = r;
        if (strcmp(r->name, "cudaStreamWaitEvent") == 0 && nw < 8)
            wait[nw++] = r;
    }
    assert_int_equal(nr, 5);
    assert_int_equal(nw, 5);
    for (uint32_t i = 0; i < 5; i++) {
        /* The record is on produce's stream, the wait on consume's, for the same event. */
        snprintf(name, sizeof(name), "Stream %s", arg_of(t, rec[i], "stream"));
        assert_string_equal(t->streams.items[prod[i]->stream].name, name);
        snprintf(name, sizeof(name), "Stream %s", arg_of(t, wait[i], "stream"));
        assert_string_equal(t->streams.items[cons[i]->stream].name, name);
        assert_string_equal(arg_of(t, rec[i], "event"), arg_of(t, wait[i], "event"));
        assert_string_equal(arg_of(t, rec[i], "sync_id"), arg_of(t, wait[i], "sync_id"));
        assert_string_equal(rec[i]->category, "CUDA_RUNTIME_API");
        /* Host order: launch produce, record, wait; consume starts after produce ends. */
        assert_true(rec[i]->start < wait[i]->start);
        assert_true(cons[i]->start >= prod[i]->end);
    }
    assert_true(prod[0]->stream != cons[0]->stream);
    assert_int_equal(t->counter_values.count, 0); /* recorded without counters */
    rpl_trace_free(t);
}

static void copies_of_every_kind(void **unused)
{
    rpl_trace *t = load("copies.db");
    const rpl_dispatch *scale[8];
    uint32_t n = dispatches_of(t, "scale(", scale, 8), kinds[RPL_COPY_DEVICE_TO_DEVICE + 1] = {0};
    uint32_t memsets = 0;

    check_gpu(t);
    assert_int_equal(n, 3);
    assert_int_equal(scale[0]->grid[0], 1u << 24);
    assert_int_equal(scale[0]->workgroup[0], 256);
    for (uint32_t i = 0; i < t->memcpys.count; i++) {
        const rpl_memcpy *m = &t->memcpys.items[i];
        assert_true(m->end > m->start);
        assert_int_equal(m->size, 64u << 20);
        if (strcmp(m->name, "MEMORY_SET") == 0) {
            memsets++;
            continue;
        }
        kinds[m->kind]++;
        if (m->kind == RPL_COPY_HOST_TO_DEVICE) {
            assert_int_equal(t->agents.items[m->src_agent].type, RPL_AGENT_CPU);
            assert_int_equal(t->agents.items[m->dst_agent].type, RPL_AGENT_GPU);
        }
    }
    assert_int_equal(kinds[RPL_COPY_HOST_TO_DEVICE], 3);
    assert_int_equal(kinds[RPL_COPY_DEVICE_TO_HOST], 3);
    assert_int_equal(kinds[RPL_COPY_DEVICE_TO_DEVICE], 3);
    assert_int_equal(memsets, 3);
    rpl_trace_free(t);
}

static void tiled_gemm_resources(void **unused)
{
    rpl_trace *t = load("gemm_tiled.db");
    const rpl_dispatch *g[8];
    uint32_t n = dispatches_of(t, "gemm_tiled(", g, 8);
    const rpl_kernel_symbol *s;

    check_gpu(t);
    assert_int_equal(n, 5);
    s = &t->symbols.items[g[0]->kernel];
    assert_string_equal(s->name, "_Z10gemm_tiledPKfS0_Pfi");
    /* 2048 x 2048 threads in 32 x 32 blocks; two 32 x 32 float tiles of shared memory. */
    assert_int_equal(g[0]->grid[0], 2048);
    assert_int_equal(g[0]->grid[1], 2048);
    assert_int_equal(g[0]->workgroup[0], 32);
    assert_int_equal(g[0]->workgroup[1], 32);
    assert_int_equal(s->group_segment_size, 8192);
    assert_int_equal(g[0]->group_segment_size, 0);
    assert_int_equal(s->arch_vgpr_count, 32);
    assert_int_equal(s->private_segment_size, 0);
    /* 2 * 2048^3 FLOP at a few TFLOP/s of FFMA: between 1 and 5 ms. */
    assert_true(median_ns(g, n) > 1000000 && median_ns(g, n) < 5000000);
    rpl_trace_free(t);
}

static double counter_of(rpl_trace *t, const rpl_dispatch *d, const char *name)
{
    uint32_t idx;
    double v = -1;

    assert_int_equal(rpl_trace_counter_index(t, name, &idx), 0);
    assert_true(rpl_dispatch_counter(t, d, idx, &v));
    return v;
}

/*
 * The same GEMM recorded with ROCM_PERF_CUPTI_COUNTERS=roofline (a counter
 * run: dispatches from the launch callbacks, one range each): every dispatch
 * has the 20 roofline metrics, the FFMA count is exactly n^3, the hfma count
 * one per thread (the HFMA2.MMA that zeroes the accumulator), DRAM reads
 * within 1% of A and B read once, and the dispatch lasts exactly its
 * gpu__time_duration.sum.
 */
static void tiled_gemm_counters(void **unused)
{
    rpl_trace *t = load("gemm_counters.db");
    const rpl_dispatch *g[8];
    uint32_t n = dispatches_of(t, "gemm_tiled(", g, 8);
    const double n3 = 2048.0 * 2048.0 * 2048.0, n2 = 2048.0 * 2048.0;
    const rpl_kernel_symbol *s;

    check_gpu(t);
    assert_int_equal(n, 5);
    s = &t->symbols.items[g[0]->kernel];
    assert_string_equal(s->name, "_Z10gemm_tiledPKfS0_Pfi");
    assert_int_equal(s->arch_vgpr_count, 32);
    assert_int_equal(s->group_segment_size, 8192);
    for (uint32_t i = 0; i < n; i++) {
        double read = counter_of(t, g[i], "dram__bytes_read.sum");
        double dur = counter_of(t, g[i], "gpu__time_duration.sum");

        assert_int_equal(g[i]->counters_count, 20);
        assert_int_equal(g[i]->grid[0], 2048);
        assert_int_equal(g[i]->workgroup[1], 32);
        assert_true(counter_of(t, g[i], "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") ==
                    n3);
        assert_true(counter_of(t, g[i], "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum") ==
                    n2);
        assert_true(counter_of(t, g[i], "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum") ==
                    0);
        assert_true(read > 0.99 * 8 * n2 && read < 1.01 * 8 * n2);
        assert_true(dur > 1000000 && dur < 5000000);
        assert_int_equal(g[i]->end - g[i]->start, (int64_t)(dur + 0.5));
        if (i > 0)
            assert_true(g[i - 1]->end <= g[i]->start);
    }
    rpl_trace_free(t);
}

/*
 * The roofline reference kernels (gpu/cupti/saxpy_copy.cu): 3 launches each
 * of saxpy and copy over 2^25 floats in blocks of 256, one after the other
 * on one stream; each moves at least 256 MiB through a ~4.8 TB/s memory.
 */
static void saxpy_and_copy(void **unused)
{
    rpl_trace *t = load("saxpy_copy.db");
    const rpl_dispatch *sx[8], *cp[8];
    uint32_t ns = dispatches_of(t, "saxpy(", sx, 8), nc = dispatches_of(t, "copy(", cp, 8);

    check_gpu(t);
    assert_int_equal(ns, 3);
    assert_int_equal(nc, 3);
    assert_string_equal(t->symbols.items[sx[0]->kernel].name, "_Z5saxpyifPKfPf");
    assert_string_equal(t->symbols.items[cp[0]->kernel].name, "_Z4copyiPKfPf");
    for (uint32_t i = 0; i < 3; i++) {
        assert_int_equal(sx[i]->grid[0], 1 << 25);
        assert_int_equal(sx[i]->workgroup[0], 256);
        assert_int_equal(cp[i]->grid[0], 1 << 25);
        assert_int_equal(sx[i]->counters_count, 0);
        /* saxpy of round i runs before copy of round i, which runs before saxpy of round i + 1. */
        assert_true(sx[i]->end <= cp[i]->start);
        if (i < 2)
            assert_true(cp[i]->end <= sx[i + 1]->start);
    }
    /* 384 MiB (saxpy) and 256 MiB (copy) at no more than 4.8 TB/s: over 50 us, under 1 ms. */
    assert_true(median_ns(sx, 3) > 80000 && median_ns(sx, 3) < 1000000);
    assert_true(median_ns(cp, 3) > 50000 && median_ns(cp, 3) < 1000000);
    rpl_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_streams_joined_by_an_event),
        cmocka_unit_test(copies_of_every_kind),
        cmocka_unit_test(tiled_gemm_resources),
        cmocka_unit_test(tiled_gemm_counters),
        cmocka_unit_test(saxpy_and_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
