/*
 * Architecture facts.  Tags:
 * [S] seen in the cited source, [M] measured, [I] inferred.
 *
 * AMD rows follow LLVM's AMDGPU rules [S: ROCm/llvm-project@08b7dca
 * llvm/lib/Target/AMDGPU/Utils/AMDGPUBaseInfo.cpp, AMDGPU.td@00421b2;
 * counters.md §3]:
 *   getMaxWavesPerEU: FeatureGFX90AInsts -> 8, pre-gfx10 -> 10, gfx10.3+ -> 16
 *   getEUsPerCU: 4 (gfx9 CU; gfx10+ WGP mode, the HIP default)
 *   getTotalNumVGPRs / getVGPRAllocGranule: gfx90a+ 512/8; gfx9 256/4;
 *     gfx10.3 wave32 1024/16, wave64 512/8; 1.5x-VGPR parts (gfx1100)
 *     wave32 1536/24, wave64 768/12
 *   SGPRs: 800 per SIMD, granule 16 (gfx8/9), addressable 102 (gfx9) / 106 (gfx10+);
 *     SGPR occupancy table on gfx8/9 only
 *   LDS: 64 KiB per workgroup; 160 KiB on gfx950; gfx10+ WGP has 2x per WGP
 *   LDS granule [S: llvm AMDGPUUsage.rst]: 512 B (gfx9), 1280 B (gfx950),
 *     gfx10.3/gfx11 encode 512 B but allocate 1024 B [S, patch, unmerged?]
 *   workgroups per CU: barrier limit 16 (32 in gfx10+ WGP mode)
 *
 * NVIDIA rows follow CUDA 13.0 cuda_occupancy.h [S]: register granule 256
 * per warp, max 256 registers per thread, 4 sub-partitions, shared-memory
 * granule 128 B, 1 KiB reserved per block (cc >= 8), max blocks per SM
 * 32 (8.0, 9.0) / 24 (8.9) / 16 (8.6), carveout steps per cc.  Per-SM
 * capacities of H100 are [M] (counters.md §5.2); those of sm_80/86/89 are
 * [I: CUDA programming guide compute-capability table, not re-checked here].
 */
#include "rpl/arch.h"

/* cuda_occupancy.h cudaOccAlignUpShmemSizeVoltaPlus steps [S]. */
static const unsigned carveouts_cc80[] = {0, 8, 16, 32, 64, 100, 132, 164};
static const unsigned carveouts_cc86[] = {0, 8, 16, 32, 64, 100};
static const unsigned carveouts_cc90[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};

#define NCARVE(a) (sizeof(a) / sizeof((a)[0]))

/* Shared fields of the gfx9 data-centre parts (CDNA). */
#define GFX9_SGPRS                                                                                 \
    .sgprs_per_simd = 800, .sgpr_granule = 16, .addressable_sgprs = 102, .sgprs_limit_waves = true
#define GFX10_SGPRS                                                                                \
    .sgprs_per_simd = 800, .sgpr_granule = 16, .addressable_sgprs = 106, .sgprs_limit_waves = false

/* LDS of the gfx9 data-centre parts before gfx950: 64 KiB, 512 B blocks. */
#define GFX9_LDS .lds_per_cu = 65536, .lds_per_workgroup = 65536, .lds_granule = 512

/*
 * gfx10.3+ in WGP mode (the HIP default: 2 CUs x 2 SIMD32), wave64 the
 * alternative; 32 workgroups is the barrier limit there, 128 KiB LDS per WGP.
 */
#define RDNA_WGP                                                                                   \
    .wave_size = 32, .alt_wave_size = 64, .simds_per_cu = 4, .max_waves_per_simd = 16,             \
    .max_waves_per_cu = 64, .max_blocks_per_cu = 32, .max_workgroup_size = 1024,                   \
    .addressable_vgprs = 256, GFX10_SGPRS, .lds_per_cu = 131072, .lds_per_workgroup = 65536,       \
    .lds_granule = 1024

/* What every NVIDIA row shares (cuda_occupancy.h, cc >= 8 [S]; the reserved 1 KiB [M] on H100). */
#define NVIDIA_SM                                                                                  \
    .vendor = RPL_VENDOR_NVIDIA, .wave_size = 32, .simds_per_cu = 4, .max_workgroup_size = 1024,   \
    .lds_per_workgroup = 49152, .lds_granule = 128, .reserved_smem_per_block = 1024,               \
    .regs_per_sm = 65536, .regs_per_block = 65536, .max_regs_per_thread = 256, .reg_granule = 256
#define CARVEOUTS(steps) .smem_carveouts_kib = steps, .n_smem_carveouts = NCARVE(steps)

#define GFX94X_SOURCE                                                                              \
    "gfx94x carry FeatureGFX90AInsts (FeatureISAVersion9_4_Common) [S counters.md §3]"

/* gfx90a/gfx94x/gfx950: FeatureGFX90AInsts -> unified 512-entry file, granule 8, 8 waves. */
#define CDNA_UNIFIED                                                                               \
    .wave_size = 64, .alt_wave_size = 0, .simds_per_cu = 4, .max_waves_per_simd = 8,               \
    .max_waves_per_cu = 32, .max_blocks_per_cu = 16, .max_workgroup_size = 1024,                   \
    .vgpr_w64 = {512, 8}, .vgpr_w32 = {0, 0}, .addressable_vgprs = 512, .unified_agprs = true,     \
    .agprs = 0, GFX9_SGPRS

static const rpl_arch arch_table[] = {
    {
        .name = "gfx908",
        .vendor = RPL_VENDOR_AMD,
        .family = "CDNA1",
        .gfx_target_version = 90008,
        .wave_size = 64,
        .simds_per_cu = 4,
        .max_waves_per_simd = 10, /* LLVM; the HIP runtime assumes 8 [S: clr hip_platform.cpp] */
        .max_waves_per_cu = 40,
        .max_blocks_per_cu = 16,
        .max_workgroup_size = 1024,
        .vgpr_w64 = {256, 4},
        .addressable_vgprs = 256,
        .unified_agprs = false,
        .agprs = 256, /* separate AccVGPR file; occupancy uses max(arch, acc) */
        GFX9_SGPRS,
        GFX9_LDS,
        .source = "LLVM AMDGPUBaseInfo.cpp rules for gfx9 without GFX90AInsts [S counters.md §3]",
    },
    {
        .name = "gfx90a",
        .vendor = RPL_VENDOR_AMD,
        .family = "CDNA2",
        .gfx_target_version = 90010,
        CDNA_UNIFIED,
        GFX9_LDS,
        .source =
            "LLVM AMDGPUBaseInfo.cpp FeatureGFX90AInsts rules; LDS 64 KiB (ISAVersion9_0_Common) "
            "[S counters.md §3]",
    },
    {
        .name = "gfx940",
        .vendor = RPL_VENDOR_AMD,
        .family = "CDNA3",
        .gfx_target_version = 90400,
        CDNA_UNIFIED,
        GFX9_LDS,
        .source = GFX94X_SOURCE,
    },
    {
        .name = "gfx941",
        .vendor = RPL_VENDOR_AMD,
        .family = "CDNA3",
        .gfx_target_version = 90401,
        CDNA_UNIFIED,
        GFX9_LDS,
        .source = GFX94X_SOURCE,
    },
    {
        .name = "gfx942",
        .vendor = RPL_VENDOR_AMD,
        .family = "CDNA3",
        .gfx_target_version = 90402,
        CDNA_UNIFIED,
        GFX9_LDS,
        .source = "gfx94x carry FeatureGFX90AInsts; LDS 64 KiB (FeatureISAVersion9_4_2) "
                  "[S counters.md §3]",
    },
    {
        .name = "gfx950",
        .vendor = RPL_VENDOR_AMD,
        .family = "CDNA4",
        .gfx_target_version = 90500,
        CDNA_UNIFIED,
        .lds_per_cu = 163840,
        .lds_per_workgroup = 163840,
        .lds_granule = 1280,
        .source = "FeatureGFX90AInsts rules; LDS 160 KiB (FeatureISAVersion9_5_Common), granule "
                  "1280 B (AMDGPUUsage) [S counters.md §3]",
    },
    {
        .name = "gfx1030",
        .vendor = RPL_VENDOR_AMD,
        .family = "RDNA2",
        .gfx_target_version = 100300,
        RDNA_WGP,
        .vgpr_w64 = {512, 8},
        .vgpr_w32 = {1024, 16},
        .source = "LLVM AMDGPUBaseInfo.cpp GFX10_3Insts rules [S counters.md §3]; 128 KiB LDS per "
                  "WGP [S ROCm gpu-arch-specs.rst]; 1024 B LDS blocks [S, patch, unmerged?]",
    },
    {
        .name = "gfx1100",
        .vendor = RPL_VENDOR_AMD,
        .family = "RDNA3",
        .gfx_target_version = 110000,
        RDNA_WGP,
        .vgpr_w64 = {768, 12},
        .vgpr_w32 = {1536, 24},
        .source = "LLVM rules for Feature1_5xVGPRs (gfx1100/1101/1151) and GFX10_3Insts "
                  "[S counters.md §3; I: feature list of gfx1100 in AMDGPU.td]",
    },
    {
        .name = "sm_80",
        NVIDIA_SM,
        .family = "Ampere",
        .compute_capability = 80,
        .max_waves_per_simd = 16,
        .max_waves_per_cu = 64,
        .max_blocks_per_cu = 32,
        .lds_per_cu = 167936,           /* 164 KiB */
        .smem_per_block_optin = 166912, /* 163 KiB */
        CARVEOUTS(carveouts_cc80),
        .barriers_per_block_slot = 0,
        .source = "cuda_occupancy.h (CUDA 13.0) [S]; per-SM capacities [I: CUDA programming guide]",
    },
    {
        .name = "sm_86",
        NVIDIA_SM,
        .family = "Ampere",
        .compute_capability = 86,
        .max_waves_per_simd = 12,
        .max_waves_per_cu = 48,
        .max_blocks_per_cu = 16,
        .lds_per_cu = 102400,           /* 100 KiB */
        .smem_per_block_optin = 101376, /* 99 KiB */
        CARVEOUTS(carveouts_cc86),
        .barriers_per_block_slot = 0,
        .source = "cuda_occupancy.h (CUDA 13.0) [S]; per-SM capacities [I: CUDA programming guide]",
    },
    {
        .name = "sm_89",
        NVIDIA_SM,
        .family = "Ada",
        .compute_capability = 89,
        .max_waves_per_simd = 12,
        .max_waves_per_cu = 48,
        .max_blocks_per_cu = 24,
        .lds_per_cu = 102400,
        .smem_per_block_optin = 101376,
        CARVEOUTS(carveouts_cc86),
        .barriers_per_block_slot = 0,
        .source = "cuda_occupancy.h (CUDA 13.0) [S]; per-SM capacities [I: CUDA programming guide]",
    },
    {
        .name = "sm_90",
        NVIDIA_SM,
        .family = "Hopper",
        .compute_capability = 90,
        .max_waves_per_simd = 16,
        .max_waves_per_cu = 64,
        .max_blocks_per_cu = 32,
        .lds_per_cu = 233472,           /* 228 KiB [M] */
        .smem_per_block_optin = 232448, /* 227 KiB [M] */
        CARVEOUTS(carveouts_cc90),
        .barriers_per_block_slot = 2,
        .source = "cuda_occupancy.h (CUDA 13.0) [S]; H100 device properties [M counters.md §5.2]",
    },
};

const rpl_arch *rpl_arch_all(size_t *count)
{
    *count = sizeof(arch_table) / sizeof(arch_table[0]);
    return arch_table;
}
