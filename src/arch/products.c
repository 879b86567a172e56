/*
 * Peak ceilings of named products, TFLOP/s (TOP/s for INT8), TB/s, MHz.
 * 0 means unknown.  Tags: [S] seen in the cited source, [M] measured, [I] inferred.
 * AMD FLOP rows are per-CU-per-clock constants x CUs x peak sclk [S: ROCm
 * docs/conceptual/gpu-arch/mi300.md and mi250.md "FLOPS/CLOCK/CU"]: MI300X
 * vector FP64 128, vector FP32 256 (packed; 128 as profilers count it),
 * matrix FP64/FP32 256, TF32 1024, FP16/BF16 2048, FP8/INT8 4096; MI200
 * vector FP64/FP32 128, packed FP32 256, matrix FP64/FP32 256, FP16/BF16/INT8 1024.
 *
 * Match order matters: the first row whose pattern matches wins, so the
 * more specific names ("MI250X") come before the shorter ones ("MI250").
 */
#include "rpl/arch.h"

/* The ceilings of 304 CDNA3 CUs at 2100 MHz (MI300X and MI325X). */
#define MI300X_FLOPS                                                                               \
    .vector_fp64_tflops = 81.7, .vector_fp32_tflops = 81.7, .vector_fp32_packed_tflops = 163.4,    \
    .matrix_fp64_tflops = 163.4, .matrix_fp32_tflops = 163.4, .matrix_tf32_tflops = 653.7,         \
    .matrix_fp16_tflops = 1307.4, .matrix_bf16_tflops = 1307.4, .matrix_fp8_tflops = 2614.9,       \
    .matrix_int8_tops = 2614.9

/* The ceilings of 132 Hopper SMs at 1980 MHz (H100 SXM and H200). */
#define H100_FLOPS                                                                                 \
    .vector_fp64_tflops = 33.5, .vector_fp32_tflops = 66.9, .matrix_fp64_tflops = 66.9,            \
    .matrix_tf32_tflops = 494.7, .matrix_fp16_tflops = 989.4, .matrix_bf16_tflops = 989.4,         \
    .matrix_fp8_tflops = 1978.9

static const rpl_product product_table[] = {
    {
        .name = "MI325X",
        .arch = "gfx942",
        .match = "MI325X",
        .compute_units = 304,
        .sclk_mhz = 2100,
        .hbm_tbs = 6.0,
        MI300X_FLOPS,
        .source = "CUs [S ROCm gpu-arch-specs.rst]; sclk [I same CDNA3 silicon as MI300X]; HBM 6.0 "
                  "TB/s [third-party pages only]; FLOPs = MI300X per-CU constants [I]",
    },
    {
        .name = "MI300X",
        .arch = "gfx942",
        .match = "MI300X",
        .compute_units = 304,
        .sclk_mhz = 2100,
        .mclk_mhz = 1300,
        .hbm_tbs = 5.3,
        MI300X_FLOPS,
        .source = "CUs [S specs table]; sclk 2100, mclk 1300 [S RPC sysinfo.csv]; HBM 5.3 TB/s, "
                  "packed FP32, matrix rates [S mi300.md]; VALU 128 FLOP/clk/CU and TF32 [I]",
    },
    {
        .name = "MI300A",
        .arch = "gfx942",
        .match = "MI300A",
        .compute_units = 228,
        .sclk_mhz = 2100,
        .hbm_tbs = 5.3248,
        .vector_fp64_tflops = 61.3,
        .vector_fp32_tflops = 61.3,
        .vector_fp32_packed_tflops = 122.6,
        .matrix_fp64_tflops = 122.6,
        .matrix_fp32_tflops = 122.6,
        .matrix_tf32_tflops = 490.3,
        .matrix_fp16_tflops = 980.6,
        .matrix_bf16_tflops = 980.6,
        .matrix_fp8_tflops = 1961.2,
        .matrix_int8_tops = 1961.2,
        .source =
            "CUs, sclk, HBM [S RPC sysinfo]; FLOPs = MI300X per-CU constants x 228 x 2.1 GHz [I]",
    },
    {
        .name = "MI350X",
        .arch = "gfx950",
        .match = "MI350X",
        .compute_units = 256,
        .sclk_mhz = 2200,
        .hbm_tbs = 8.0,
        .source = "[I: AMD launch figures, not verified in a primary document here; RPC MI350 test "
                  "sysinfo shows 128 CUs for its partition]; FLOP ceilings unknown",
    },
    {
        .name = "MI250X",
        .arch = "gfx90a",
        .match = "MI250X",
        .compute_units = 220,
        .sclk_mhz = 1700,
        .hbm_tbs = 3.2,
        .vector_fp64_tflops = 47.9,
        .vector_fp32_tflops = 47.9,
        .vector_fp32_packed_tflops = 95.7,
        .matrix_fp64_tflops = 95.7,
        .matrix_fp32_tflops = 95.7,
        .matrix_fp16_tflops = 383.0,
        .matrix_bf16_tflops = 383.0,
        .matrix_int8_tops = 383.0,
        .source =
            "220 CUs (2 GCDs), HBM 3.2 TB/s [S mi250.md]; sclk 1700 [I]; FLOPs = MI200 per-CU "
            "constants [I]",
    },
    {
        .name = "MI250",
        .arch = "gfx90a",
        .match = "MI250",
        .compute_units = 208,
        .sclk_mhz = 1700,
        .hbm_tbs = 3.2,
        .vector_fp64_tflops = 45.3,
        .vector_fp32_tflops = 45.3,
        .vector_fp32_packed_tflops = 90.5,
        .matrix_fp64_tflops = 90.5,
        .matrix_fp32_tflops = 90.5,
        .matrix_fp16_tflops = 362.1,
        .matrix_bf16_tflops = 362.1,
        .matrix_int8_tops = 362.1,
        .source = "[S mi250.md]",
    },
    {
        .name = "MI210",
        .arch = "gfx90a",
        .match = "MI210",
        .compute_units = 104,
        .sclk_mhz = 1700,
        .hbm_tbs = 1.6384,
        .vector_fp64_tflops = 22.6,
        .vector_fp32_tflops = 22.6,
        .vector_fp32_packed_tflops = 45.3,
        .matrix_fp64_tflops = 45.3,
        .matrix_fp32_tflops = 45.3,
        .matrix_fp16_tflops = 181.0,
        .matrix_bf16_tflops = 181.0,
        .matrix_int8_tops = 181.0,
        .source = "CUs [S]; sclk 1700, HBM 1638.4 GB/s [S RPC MI200 sysinfo]; FLOPs = MI200 per-CU "
                  "constants [I]",
    },
    {
        .name = "H200",
        .arch = "sm_90",
        .match = "H200",
        .compute_units = 132,
        .sclk_mhz = 1980,
        .hbm_tbs = 4.8,
        H100_FLOPS,
        .source = "132 SMs [S KINDS.md]; HBM 4.8 TB/s [NVIDIA datasheet, not verified]; compute as "
                  "H100 SXM [I]",
    },
    {
        .name = "H100 SXM",
        .arch = "sm_90",
        .match = "H100 80GB HBM3|H100 SXM",
        .exclude = "PCIe|NVL",
        .compute_units = 132,
        .sclk_mhz = 1980,
        .mclk_mhz = 2619,
        .hbm_tbs = 3.35,
        H100_FLOPS,
        .source = "SMs, clocks, DRAM 3.349 TB/s, FP64/FP32/FP64-TC [M H100 ncu peaks, counters.md "
                  "§5.2]; TF32/FP16/BF16/FP8 dense [third-party copies of NVIDIA datasheet]",
    },
    {
        .name = "A100 SXM 80GB",
        .arch = "sm_80",
        .match = "A100-SXM4-80GB|A100 SXM4 80GB",
        .compute_units = 108,
        .sclk_mhz = 1410,
        .hbm_tbs = 2.039,
        .vector_fp64_tflops = 9.7,
        .vector_fp32_tflops = 19.5,
        .matrix_fp64_tflops = 19.5,
        .matrix_tf32_tflops = 156.0,
        .matrix_fp16_tflops = 312.0,
        .matrix_bf16_tflops = 312.0,
        .matrix_int8_tops = 624.0,
        .source = "[I: NVIDIA A100 datasheet figures, not in counters.md and not verified here]",
    },
};

const rpl_product *rpl_product_all(size_t *count)
{
    *count = sizeof(product_table) / sizeof(product_table[0]);
    return product_table;
}
