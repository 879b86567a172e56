/*
 * The counter formulas pinned on real public counter data
 * (rocprofiler-compute's test workloads, ROCm/rocm-systems@1b1610f).  Every value below is typed
 * from the cited CSV row; the vecCopy kernel copies 2^20 doubles: 8 MiB read, 8 MiB written.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/roofline.h"

#define MIB8 8388608.0

typedef struct kv {
    const char *name;
    double value;
} kv;

/* The lookup over a NULL-terminated name/value table. */
static bool table_get(void *ctx, const char *name, double *value)
{
    for (const kv *p = ctx; p->name; p++)
        if (strcmp(p->name, name) == 0) {
            *value = p->value;
            return true;
        }
    return false;
}

#define ZERO_VALU(p)                                                                               \
    {"SQ_INSTS_VALU_ADD_" p, 0}, {"SQ_INSTS_VALU_MUL_" p, 0}, {"SQ_INSTS_VALU_FMA_" p, 0},         \
    {                                                                                              \
        "SQ_INSTS_VALU_TRANS_" p, 0                                                                \
    }
#define ZERO_MOPS                                                                                  \
    {"SQ_INSTS_VALU_MFMA_MOPS_F16", 0}, {"SQ_INSTS_VALU_MFMA_MOPS_BF16", 0},                       \
        {"SQ_INSTS_VALU_MFMA_MOPS_F32", 0},                                                        \
    {                                                                                              \
        "SQ_INSTS_VALU_MFMA_MOPS_F64", 0                                                           \
    }

static void assert_within(double got, double want, double rel)
{
    if (fabs(got - want) > rel * want)
        fail_msg("%.0f is not within %.1f%% of %.0f", got, rel * 100, want);
}

/* ROCm/rocprofiler-compute@95b600e tests/workloads/vcopy/MI200/pmc_perf.csv, dispatch 0. */
static void test_mi200_vcopy(void **state)
{
    kv t[] = {ZERO_VALU("F16"),
              ZERO_VALU("F32"),
              ZERO_VALU("F64"),
              ZERO_MOPS,
              {"TCC_EA_RDREQ_sum", 131086},
              {"TCC_EA_RDREQ_32B_sum", 0},
              {"TCC_EA_WRREQ_sum", 131072},
              {"TCC_EA_WRREQ_64B_sum", 131072},
              {"TCP_TCC_READ_REQ_sum", 131072},
              {"TCP_TCC_WRITE_REQ_sum", 131072},
              {"TCP_TOTAL_CACHE_ACCESSES_sum", 524288},
              {NULL, 0}};
    rpl_roof_counts c;

    (void)state;
    rpl_roof_counts_compute(&c, rpl_roof_family_of("gfx90a"), 64, table_get, t);
    assert_true(c.has_flops);
    assert_true(c.has_bytes);
    assert_within(c.hbm_read, MIB8, 0.01);
    assert_within(c.hbm_write, MIB8, 0.01);
    assert_true(c.hbm_read == 8389504.0); /* 64 x 131086, counters.md §4 */
    assert_true(c.flops == 0);
    assert_true(c.l2_bytes == 2 * MIB8); /* 16 MiB, counters.md §4 */
    assert_true(c.l1_bytes == 4 * MIB8);
    assert_int_equal(c.clamps, 0);
}

/* ROCm/rocprofiler-compute@95b600e tests/workloads/vcopy/MI300X_A1/pmc_perf.csv, dispatch 0. */
static void test_mi300x_vcopy(void **state)
{
    kv t[] = {ZERO_VALU("F16"),
              ZERO_VALU("F32"),
              ZERO_VALU("F64"),
              ZERO_MOPS,
              {"TCC_EA0_RDREQ_sum", 65775},
              {"TCC_EA0_RDREQ_32B_sum", 0},
              {"TCC_BUBBLE_sum", 65536},
              {"TCC_EA0_WRREQ_sum", 131072},
              {"TCC_EA0_WRREQ_64B_sum", 131072},
              {NULL, 0}};
    rpl_roof_counts c;

    (void)state;
    rpl_roof_counts_compute(&c, rpl_roof_family_of("gfx942"), 64, table_get, t);
    assert_true(c.has_bytes);
    assert_within(c.hbm_read, MIB8, 0.01);
    assert_within(c.hbm_write, MIB8, 0.01);
    assert_true(c.hbm_read == 8403904.0); /* counters.md §4 */
    assert_true(c.l2_bytes < 0);          /* TCP_TCC_* not in this table */
}

/*
 * ROCm/rocm-systems@1b1610f projects/rocprofiler-compute/tests/workloads/vcopy/MI350/
 * pmc_perf.csv, dispatch 0.  TCC_BUBBLE_sum is 0 there, so the gfx942 formula
 * would give half the reads; the collection has no TCC_EA0_RDREQ_128B_sum.
 */
static void test_mi350_vcopy(void **state)
{
    kv t[] = {ZERO_VALU("F16"),
              ZERO_VALU("F32"),
              ZERO_VALU("F64"),
              ZERO_MOPS,
              {"TCC_EA0_RDREQ_sum", 65640},
              {"TCC_EA0_RDREQ_32B_sum", 0},
              {"TCC_BUBBLE_sum", 0},
              {"TCC_EA0_WRREQ_sum", 131072},
              {"TCC_EA0_WRREQ_64B_sum", 131072},
              {NULL, 0}};
    rpl_roof_counts c, bubble;

    (void)state;
    rpl_roof_counts_compute(&c, rpl_roof_family_of("gfx950"), 64, table_get, t);
    assert_true(c.has_bytes);
    assert_within(c.hbm_read, MIB8, 0.01);
    assert_within(c.hbm_write, MIB8, 0.01);
    assert_int_equal(c.nnotes, 1); /* the 128-byte assumption is reported */
    assert_non_null(strstr(c.notes[0], "TCC_EA0_RDREQ_128B_sum absent"));
    /* The BUBBLE formula on the same data: exactly the half that counters.md §1.2 warns of. */
    rpl_roof_counts_compute(&bubble, RPL_ROOF_FAMILY_GFX942, 64, table_get, t);
    assert_true(bubble.hbm_read == 4200960.0);
}

/* gfx950 with the 128-byte read counter the gfx950 roofline set collects (constructed). */
static void test_gfx950_128b_counter(void **state)
{
    kv t[] = {ZERO_VALU("F16"),
              ZERO_VALU("F32"),
              ZERO_VALU("F64"),
              ZERO_MOPS,
              {"SQ_INSTS_VALU_MFMA_MOPS_F8", 1000},
              {"SQ_INSTS_VALU_MFMA_MOPS_F6F4", 24},
              {"TCC_EA0_RDREQ_128B_sum", 65536},
              {"TCC_EA0_RDREQ_64B_sum", 10},
              {"TCC_EA0_RDREQ_32B_sum", 4},
              {"TCC_EA0_WRREQ_sum", 131072},
              {"TCC_EA0_WRREQ_64B_sum", 131072},
              {NULL, 0}};
    rpl_roof_counts c;

    (void)state;
    rpl_roof_counts_compute(&c, RPL_ROOF_FAMILY_GFX950, 64, table_get, t);
    assert_true(c.has_bytes);
    assert_true(c.hbm_read == 128.0 * 65536 + 64.0 * 10 + 32.0 * 4);
    assert_int_equal(c.nnotes, 0);
    assert_true(c.matrix_flops[RPL_PREC_FP8] == 512.0 * 1024);
}

/*
 * amd/HPCTrainingExamples@4a6bd82 .OmniperfExamples-OpenMP/Fortran/collapse_excercise/
 * 2-openMPGPU_collapse/workloads/problem/MI300A_A1/pmc_perf.csv, dispatch 2
 * (__omp_offloading_32_6b6b__QQmain_l41).
 */
static const kv mi300a_l41[] = {
    ZERO_VALU("F16"),
    {"SQ_INSTS_VALU_ADD_F32", 0},
    {"SQ_INSTS_VALU_MUL_F32", 3648},
    {"SQ_INSTS_VALU_FMA_F32", 0},
    {"SQ_INSTS_VALU_TRANS_F32", 3648},
    {"SQ_INSTS_VALU_ADD_F64", 12582912},
    {"SQ_INSTS_VALU_MUL_F64", 2097152},
    {"SQ_INSTS_VALU_FMA_F64", 12582912},
    {"SQ_INSTS_VALU_TRANS_F64", 2097152},
    ZERO_MOPS,
    {"TCC_EA0_RDREQ_sum", 31714488},
    {"TCC_EA0_RDREQ_32B_sum", 0},
    {"TCC_BUBBLE_sum", 31255872},
    {"TCC_EA0_WRREQ_sum", 17399050},
    {"TCC_EA0_WRREQ_64B_sum", 16734163},
    {NULL, 0},
};

static void test_mi300a_fp64_flops(void **state)
{
    rpl_roof_counts c;
    rpl_roof_point p;
    rpl_roof_ceilings ceil;

    (void)state;
    rpl_roof_counts_compute(&c, RPL_ROOF_FAMILY_GFX942, 64, table_get, (void *)mi300a_l41);
    assert_true(c.has_flops);
    /* 64 x (ADD + MUL + 2 FMA + TRANS), counters.md §4: 2,684,354,560. */
    assert_true(c.valu_flops[RPL_PREC_FP64] == 2684354560.0);
    assert_true(c.valu_flops[RPL_PREC_FP32] == 64.0 * (3648 + 3648));
    assert_true(c.flops == 2684354560.0 + 64.0 * 7296);
    assert_true(c.hbm_read == 128.0 * 31255872 + 64.0 * (31714488 - 31255872));
    assert_true(c.hbm_write == 64.0 * 16734163 + 32.0 * (17399050 - 16734163));
    /* 1.480 ms (End - Start = 1,480,125 ns): 3.46 TB/s, 65 % of 5.32, AI 0.52, memory-bound. */
    rpl_roof_ceilings_from_product(&ceil, rpl_product_find("MI300A"));
    rpl_roof_point_compute(&p, &c, 1480125.0, &ceil);
    assert_true(p.valid);
    assert_false(p.compute_bound);
    assert_within(p.gbps, 3460.0, 0.01);
    assert_within(p.ai, 0.52, 0.01);
    assert_within(p.bw_fraction, 0.65, 0.01);
    assert_true(p.roof_fraction >= p.bw_fraction - 1e-9);
}

/* Dispatch 3 of the same file: TCC_BUBBLE_sum > TCC_EA0_RDREQ_sum (different passes). */
static void test_mi300a_cross_pass_clamp(void **state)
{
    kv t[sizeof(mi300a_l41) / sizeof(mi300a_l41[0])];
    rpl_roof_counts c;

    (void)state;
    memcpy(t, mi300a_l41, sizeof(t));
    for (kv *p = t; p->name; p++) {
        if (strcmp(p->name, "TCC_EA0_RDREQ_sum") == 0)
            p->value = 32219423;
        if (strcmp(p->name, "TCC_BUBBLE_sum") == 0)
            p->value = 32792954;
    }
    rpl_roof_counts_compute(&c, RPL_ROOF_FAMILY_GFX942, 64, table_get, t);
    assert_true(c.has_bytes);
    assert_int_equal(c.clamps, 1);
    assert_non_null(strstr(c.notes[0], "TCC_BUBBLE_sum"));
    assert_true(c.hbm_read == 128.0 * 32792954); /* the 64-byte term is clamped at 0 */
}

/* H100 saxpy, counters.md §5.2: FFMA 2^24, DRAM read 134,228,992, write 51,344,384. */
static void test_nvidia_saxpy(void **state)
{
    kv t[] = {{"smsp__sass_thread_inst_executed_op_hadd_pred_on.sum", 0},
              {"smsp__sass_thread_inst_executed_op_hmul_pred_on.sum", 0},
              {"smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", 0},
              {"smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 0},
              {"smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 0},
              {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 16777216},
              {"smsp__sass_thread_inst_executed_op_dadd_pred_on.sum", 0},
              {"smsp__sass_thread_inst_executed_op_dmul_pred_on.sum", 0},
              {"smsp__sass_thread_inst_executed_op_dfma_pred_on.sum", 0},
              {"sm__ops_path_tensor_src_bf16_dst_fp32.sum", 1000},
              {"dram__bytes_read.sum", 134228992},
              {"dram__bytes_write.sum", 51344384},
              {"lts__t_bytes.sum", 303600000},
              {NULL, 0}};
    rpl_roof_counts c;

    (void)state;
    rpl_roof_counts_compute(&c, rpl_roof_family_of("sm_90"), 32, table_get, t);
    assert_true(c.has_flops && c.has_bytes);
    assert_true(c.valu_flops[RPL_PREC_FP32] == 2.0 * 16777216); /* FMA counts 2 */
    assert_true(c.matrix_flops[RPL_PREC_BF16] == 1000);         /* tensor ops as given */
    assert_true(c.hbm_read + c.hbm_write == 134228992.0 + 51344384.0);
    assert_true(c.l2_bytes == 303600000);
    assert_true(c.l1_bytes < 0);
}

/* gfx1030: instruction proxy for FLOPs, GL2C bytes. */
static void test_gfx1030(void **state)
{
    kv t[] = {{"SQ_INSTS_VALU", 1000},       {"GL2C_EA_RDREQ_32B_sum", 1},
              {"GL2C_EA_RDREQ_64B_sum", 2},  {"GL2C_EA_RDREQ_96B_sum", 3},
              {"GL2C_EA_RDREQ_128B_sum", 4}, {"GL2C_MC_WRREQ_sum", 10},
              {"GL2C_EA_WRREQ_64B_sum", 6},  {NULL, 0}};
    rpl_roof_counts c;

    (void)state;
    assert_int_equal(rpl_roof_family_of("gfx1030"), RPL_ROOF_FAMILY_GFX1030);
    rpl_roof_counts_compute(&c, RPL_ROOF_FAMILY_GFX1030, 32, table_get, t);
    assert_true(c.flops_are_proxy);
    assert_true(c.flops == 32000);
    assert_true(c.hbm_read == 32 + 128 + 288 + 512);
    assert_true(c.hbm_write == 64 * 6 + 32 * 4);
}

static void test_missing_counter(void **state)
{
    kv t[] = {ZERO_VALU("F16"), ZERO_VALU("F32"),        ZERO_VALU("F64"),
              ZERO_MOPS,        {"TCC_EA_RDREQ_sum", 5}, {NULL, 0}};
    rpl_roof_counts c;
    rpl_roof_point p;

    (void)state;
    rpl_roof_counts_compute(&c, RPL_ROOF_FAMILY_GFX90A, 64, table_get, t);
    assert_true(c.has_flops);
    assert_false(c.has_bytes);
    assert_string_equal(c.missing, "TCC_EA_RDREQ_32B_sum");
    rpl_roof_point_compute(&p, &c, 1000, NULL);
    assert_false(p.valid);
    assert_non_null(p.reason);
    rpl_roof_counts_compute(&c, rpl_roof_family_of("gfx1100"), 32, table_get, t);
    assert_false(c.has_flops || c.has_bytes);
}

/* Mixed precision: the compute roof is the time-weighted one. */
static void test_point_mixed_precision(void **state)
{
    rpl_roof_ceilings ceil = {.hbm_gbps = 1000};
    rpl_roof_counts c = {.has_flops = true, .has_bytes = true};
    rpl_roof_point p;

    (void)state;
    ceil.valu_gflops[RPL_PREC_FP32] = 1000;
    ceil.matrix_gflops[RPL_PREC_FP16] = 10000;
    c.valu_flops[RPL_PREC_FP32] = 1e6;   /* 1000 ns at the roof */
    c.matrix_flops[RPL_PREC_FP16] = 1e7; /* 1000 ns */
    c.flops = 1.1e7;
    c.hbm_read = 1e5; /* 100 ns */
    rpl_roof_point_compute(&p, &c, 4000, &ceil);
    assert_true(p.valid && p.compute_bound);
    assert_true(fabs(p.peak_gflops - 1.1e7 / 2000) < 1e-6);
    assert_true(fabs(p.roof_fraction - 0.5) < 1e-12);
    /* A precision without a ceiling: no roofline, and the reason says which. */
    c.matrix_flops[RPL_PREC_FP8] = 5;
    rpl_roof_point_compute(&p, &c, 4000, &ceil);
    assert_false(p.valid);
    assert_non_null(strstr(p.reason, "matrix fp8"));
    /* Faster than the roof: capped and flagged. */
    c.matrix_flops[RPL_PREC_FP8] = 0;
    rpl_roof_point_compute(&p, &c, 1000, &ceil);
    assert_true(p.exceeds_roof);
    assert_true(p.roof_fraction == 1.0);
    /* No duration: no rates. */
    rpl_roof_point_compute(&p, &c, 0, &ceil);
    assert_false(p.valid);
    assert_non_null(strstr(p.reason, "duration"));
}

static int write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");

    if (!f)
        return -1;
    fputs(text, f);
    return fclose(f);
}

static void test_ceilings_file(void **state)
{
    char path[512];
    rpl_roof_ceilings c;

    (void)state;
    snprintf(path, sizeof(path), "%s/ceilings_ok.json", RPL_TEST_TMP);
    assert_int_equal(write_file(path, "{\"schema_version\":\"1.0\",\"device\":\"MI210 measured\","
                                      "\"hbm_gbps\":1389,\"valu_gflops\":{\"fp32\":20942,"
                                      "\"fp64\":20273},\"matrix_gflops\":{\"bf16\":170483}}"),
                     0);
    assert_int_equal(rpl_roof_ceilings_load(&c, path), 0);
    assert_true(c.hbm_gbps == 1389 && c.valu_gflops[RPL_PREC_FP64] == 20273 &&
                c.matrix_gflops[RPL_PREC_BF16] == 170483);
    assert_string_equal(c.device, "MI210 measured");
    snprintf(path, sizeof(path), "%s/ceilings_bad.json", RPL_TEST_TMP);
    assert_int_equal(write_file(path, "{\"schema_version\":\"1.0\",\"hbm_gbps\":1,"
                                      "\"valu_gflops\":{\"fp33\":1}}"),
                     0);
    assert_int_equal(rpl_roof_ceilings_load(&c, path), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "fp33"));
    assert_int_equal(write_file(path, "{\"schema_version\":\"1.0\",\"hbm_gbps\":-3}"), 0);
    assert_int_equal(rpl_roof_ceilings_load(&c, path), RPL_EINPUT);
    assert_int_equal(write_file(path, "{\"schema_version\":\"1.0\",\"hbm_gbs\":3}"), 0);
    assert_int_equal(rpl_roof_ceilings_load(&c, path), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "hbm_gbs"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mi200_vcopy),       cmocka_unit_test(test_mi300x_vcopy),
        cmocka_unit_test(test_mi350_vcopy),       cmocka_unit_test(test_gfx950_128b_counter),
        cmocka_unit_test(test_mi300a_fp64_flops), cmocka_unit_test(test_mi300a_cross_pass_clamp),
        cmocka_unit_test(test_nvidia_saxpy),      cmocka_unit_test(test_gfx1030),
        cmocka_unit_test(test_missing_counter),   cmocka_unit_test(test_point_mixed_precision),
        cmocka_unit_test(test_ceilings_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
