/*
 * The bottleneck classifier on constructed cases, one per class, each
 * checking the class, a confidence in range and the evidence it gives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/classify.h"

/* A kernel that fills an MI300X-like GPU for 200 us: no rule fires by itself. */
static rpl_cls_input base(void)
{
    rpl_cls_input in = {
        .mean_duration_ns = 200000,
        .mean_gap_ns = 1000,
        .dispatches = 10,
        .workgroups = 65536,
        .waves_per_group = 4,
        .cu_count = 304,
        .max_waves_per_cu = 32,
        .occupancy = 1.0,
    };
    return in;
}

static rpl_roof_point roof(bool compute, double bw, double cf, double roof_fraction)
{
    rpl_roof_point p = {.valid = true,
                        .compute_bound = compute,
                        .bw_fraction = bw,
                        .compute_fraction = cf,
                        .roof_fraction = roof_fraction,
                        .ai = compute ? 300 : 0.25,
                        .ridge = 15,
                        .gbps = bw * 5300,
                        .peak_gbps = 5300,
                        .gflops = cf * 81700,
                        .peak_gflops = 81700};
    return p;
}

static bool has_evidence(const rpl_cls_result *r, const char *text)
{
    for (size_t i = 0; i < r->nevidence; i++)
        if (strstr(r->evidence[i], text))
            return true;
    return false;
}

static void expect(const rpl_cls_result *r, rpl_bottleneck b, double min_conf, const char *ev)
{
    if (r->bottleneck != b)
        fail_msg("classified %s, expected %s (evidence: %s)", rpl_bottleneck_name(r->bottleneck),
                 rpl_bottleneck_name(b), r->nevidence ? r->evidence[0] : "-");
    assert_true(r->confidence >= min_conf && r->confidence <= 0.95);
    if (!has_evidence(r, ev))
        fail_msg("no evidence containing '%s' (first: %s)", ev, r->evidence[0]);
}

static void test_memory_bandwidth(void **state)
{
    rpl_cls_input in = base();
    rpl_roof_point p = roof(false, 0.85, 0.01, 0.85);
    rpl_cls_result r;

    (void)state;
    in.roof = &p;
    rpl_classify(&r, &in);
    expect(&r, RPL_BN_MEMORY_BANDWIDTH, 0.8, "85% of the 5300 GB/s memory roof");
    assert_true(has_evidence(&r, "below the ridge"));
}

static void test_compute(void **state)
{
    rpl_cls_input in = base();
    rpl_roof_point p = roof(true, 0.05, 0.8, 0.8);
    rpl_cls_result r;

    (void)state;
    in.roof = &p;
    rpl_classify(&r, &in);
    expect(&r, RPL_BN_COMPUTE, 0.8, "80% of the 81700 GFLOP/s compute roof");
}

static void test_latency(void **state)
{
    rpl_cls_input in = base();
    rpl_roof_point p = roof(false, 0.1, 0.0, 0.1);
    rpl_att_features att = {.total_hits = 1000, .stall_fraction = 0.7, .mem_latency_cycles = 900};
    rpl_cls_result r;

    (void)state;
    att.hits[RPL_ISA_VMEM] = 300;
    att.mix[RPL_ISA_VMEM] = 0.3;
    in.roof = &p;
    rpl_classify(&r, &in);
    expect(&r, RPL_BN_LATENCY, 0.5, "only 10% of the memory roof reached");
    in.att = &att;
    rpl_classify(&r, &in);
    expect(&r, RPL_BN_LATENCY, 0.85, "70% of instruction cycles are stalls");
    assert_true(has_evidence(&r, "900 cycles per memory instruction"));
}

static void test_under_occupied_small_grid(void **state)
{
    rpl_cls_input in = base();
    rpl_roof_point p = roof(false, 0.05, 0.0, 0.05);
    rpl_cls_result r;

    (void)state;
    in.workgroups = 64; /* 64 workgroups for 304 CUs */
    in.roof = &p;
    rpl_classify(&r, &in);
    expect(&r, RPL_BN_UNDER_OCCUPIED, 0.85, "64 workgroups for 304 CUs: 240 CUs get no work");
    assert_true(has_evidence(&r, "also latency"));
}

static void test_under_occupied_few_waves(void **state)
{
    rpl_cls_input in = base();
    rpl_cls_result r;

    (void)state;
    in.workgroups = 600; /* 2400 waves for 9728 wave slots */
    rpl_classify(&r, &in);
    expect(&r, RPL_BN_UNDER_OCCUPIED, 0.6, "fill 25% of the 9728 wave slots");
    in = base();
    in.occupancy = 0.125;
    rpl_classify(&r, &in);
    expect(&r, RPL_BN_UNDER_OCCUPIED, 0.5, "theoretical occupancy 12% of the wave slots");
}

static void test_divergence(void **state)
{
    rpl_cls_input in = base();
    rpl_roof_point p = roof(true, 0.02, 0.2, 0.2);
    rpl_att_features att = {.total_hits = 1000, .exec_hits = 120, .stall_fraction = 0.2};
    rpl_cls_result r;

    (void)state;
    att.hits[RPL_ISA_BRANCH] = 130;
    att.hits[RPL_ISA_VALU] = 400;
    att.mix[RPL_ISA_VALU] = 0.4;
    in.roof = &p;
    in.att = &att;
    rpl_classify(&r, &in);
    expect(&r, RPL_BN_DIVERGENCE, 0.8, "25% of instructions are branches or exec-mask changes");
}

static void test_launch_overhead(void **state)
{
    rpl_cls_input in = base();
    rpl_cls_result r;

    (void)state;
    in.mean_duration_ns = 2000;
    in.mean_gap_ns = 6000;
    in.dispatches = 500;
    rpl_classify(&r, &in);
    expect(&r, RPL_BN_LAUNCH_OVERHEAD, 0.9, "mean dispatch duration 2.00 us is below 10 us");
    assert_true(has_evidence(&r, "mean idle gap before a dispatch 6.00 us"));
    /* 8 us with no gaps: short, but only a weak hint. */
    in.mean_duration_ns = 8000;
    in.mean_gap_ns = 100;
    rpl_classify(&r, &in);
    expect(&r, RPL_BN_LAUNCH_OVERHEAD, 0.4, "8.00 us");
    assert_true(r.confidence < 0.5);
}

static void test_unknown(void **state)
{
    rpl_cls_input in = base();
    rpl_roof_point p = {.valid = false, .reason = "counter 'TCC_BUBBLE_sum' was not collected"};
    rpl_cls_result r;

    (void)state;
    in.roof = &p;
    rpl_classify(&r, &in);
    assert_int_equal(r.bottleneck, RPL_BN_UNKNOWN);
    assert_true(r.confidence == 0);
    assert_true(has_evidence(&r, "TCC_BUBBLE_sum"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_bandwidth),
        cmocka_unit_test(test_compute),
        cmocka_unit_test(test_latency),
        cmocka_unit_test(test_under_occupied_small_grid),
        cmocka_unit_test(test_under_occupied_few_waves),
        cmocka_unit_test(test_divergence),
        cmocka_unit_test(test_launch_overhead),
        cmocka_unit_test(test_unknown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
