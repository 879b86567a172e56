/*
 * Per-architecture facts (the hardware abstraction layer): execution
 * resources and occupancy rules for AMD gfx targets and NVIDIA sm_XX, and
 * peak ceilings for named products.  The tables live in src/arch/; every
 * fact there carries its source ([S] seen in a cited source, [M] measured,
 * [I] inferred).
 *
 * The returned pointers refer to static tables: never free them.
 */
#ifndef RPL_ARCH_H
#define RPL_ARCH_H

#include <stdbool.h>
#include <stddef.h>

typedef enum rpl_vendor { RPL_VENDOR_AMD = 1, RPL_VENDOR_NVIDIA = 2 } rpl_vendor;

/*
 * How the compiler that produced a code object computes the LDS term of
 * occupancy (see src/analysis/occupancy.c).  LEGACY: LLVM up to 16 compares
 * the waves of all resident workgroups with the per-SIMD maximum and uses a
 * 64 KiB pool; PER_SIMD: later LLVM divides by the SIMDs per CU and uses the
 * full LDS of a WGP on gfx10+.
 */
typedef enum rpl_lds_rule { RPL_LDS_RULE_PER_SIMD = 0, RPL_LDS_RULE_LEGACY = 1 } rpl_lds_rule;

/* Register file of one SIMD for one wave size (AMD). */
typedef struct rpl_vgpr_file {
    unsigned total;   /* VGPRs per SIMD lane (LLVM getTotalNumVGPRs) */
    unsigned granule; /* allocation granule (LLVM getVGPRAllocGranule) */
} rpl_vgpr_file;

typedef struct rpl_arch {
    const char *name;            /* "gfx90a", "sm_90" */
    rpl_vendor vendor;           /* AMD or NVIDIA */
    const char *family;          /* "CDNA2", "Hopper" ... */
    unsigned gfx_target_version; /* HSA agent gfx_target_version (90010); 0 on NVIDIA */
    unsigned compute_capability; /* 90 for sm_90; 0 on AMD */

    /* Execution. */
    unsigned wave_size;     /* default wavefront / warp size */
    unsigned alt_wave_size; /* the other supported wave size (gfx10+: 64), or 0 */
    unsigned
        simds_per_cu; /* AMD: LLVM getEUsPerCU (WGP mode on gfx10+); NVIDIA: SM sub-partitions */
    unsigned max_waves_per_simd; /* AMD: LLVM getMaxWavesPerEU; NVIDIA: max warps per SM /
                                    sub-partitions */
    unsigned max_waves_per_cu;   /* waves per CU (WGP) / warps per SM */
    unsigned
        max_blocks_per_cu; /* AMD: barrier-limited workgroups per CU; NVIDIA: max blocks per SM */
    unsigned max_workgroup_size; /* max flat workgroup size / threads per block */

    /* AMD registers (zero on NVIDIA). */
    rpl_vgpr_file vgpr_w64;     /* wave64 register file */
    rpl_vgpr_file vgpr_w32;     /* wave32 register file, or {0,0} */
    unsigned addressable_vgprs; /* per wave, arch + acc on unified files */
    bool unified_agprs;         /* AGPRs share the VGPR file (gfx90a, gfx94x, gfx950) */
    unsigned agprs;             /* separate AGPR file size (gfx908), or 0 */
    unsigned sgprs_per_simd;    /* total SGPRs (LLVM getTotalNumSGPRs) */
    unsigned sgpr_granule;      /* SGPR allocation granule */
    unsigned addressable_sgprs; /* per wave */
    bool
        sgprs_limit_waves; /* gfx8/gfx9: SGPR count caps waves (<=80:10, <=88:9, <=100:8, else 7) */

    /* AMD LDS / NVIDIA shared memory, bytes. */
    unsigned lds_per_cu;           /* per CU (per WGP on gfx10+) / usable shared memory per SM */
    unsigned lds_per_workgroup;    /* max per workgroup / per block (NVIDIA: default, not opt-in) */
    unsigned lds_granule;          /* allocation granule */
    unsigned smem_per_block_optin; /* NVIDIA: opt-in maximum per block */
    unsigned
        reserved_smem_per_block; /* NVIDIA: driver-reserved shared memory per block (cc >= 8) */
    const unsigned *smem_carveouts_kib; /* NVIDIA: SM carveout steps, ascending */
    size_t n_smem_carveouts;

    /* NVIDIA registers (zero on AMD). */
    unsigned regs_per_sm;
    unsigned regs_per_block;
    unsigned max_regs_per_thread;     /* as cuda_occupancy.h checks it */
    unsigned reg_granule;             /* registers per warp allocation unit */
    unsigned barriers_per_block_slot; /* cc >= 9: block barriers available per block slot */

    const char *source; /* where the facts of this row come from */
} rpl_arch;

/* Peak ceilings of a named product (0 where unknown). */
typedef struct rpl_product {
    const char *name;       /* "MI300X", "H100 SXM" */
    const char *arch;       /* "gfx942", "sm_90" */
    const char *match;      /* '|'-separated substrings matched against agent product names */
    const char *exclude;    /* '|'-separated substrings that rule a match out, or NULL */
    unsigned compute_units; /* CUs or SMs */
    unsigned sclk_mhz;      /* peak engine clock */
    unsigned mclk_mhz;      /* memory clock, or 0 */
    double hbm_tbs;         /* DRAM bandwidth, TB/s */
    double vector_fp64_tflops;
    double vector_fp32_tflops; /* non-packed, as profilers count FLOPs */
    double vector_fp32_packed_tflops;
    double matrix_fp64_tflops;
    double matrix_fp32_tflops;
    double matrix_tf32_tflops;
    double matrix_fp16_tflops; /* dense */
    double matrix_bf16_tflops; /* dense */
    double matrix_fp8_tflops;  /* dense */
    double matrix_int8_tops;   /* dense */
    const char *source;
} rpl_product;

/* All architectures, in table order; *count receives the number. */
const rpl_arch *rpl_arch_all(size_t *count);

/*
 * Look an architecture up by name: "gfx942", "gfx942:sramecc+:xnack-",
 * "amdgcn-amd-amdhsa--gfx90a:xnack-", "sm_90", "sm_90a", "compute_90",
 * "90" or "9.0" (compute capability).  NULL when unknown.
 */
const rpl_arch *rpl_arch_find(const char *name);

/*
 * --arch "gfx90a,sm_90": each name (rpl_arch_find) appended to archs[*n],
 * at most `max` in all.  RPL_EUSAGE for an empty or unknown name, or too
 * many.
 */
int rpl_arch_list_parse(const rpl_arch **archs, size_t *n, size_t max, const char *arg);

/* By HSA gfx_target_version (90402 for gfx942).  NULL when unknown. */
const rpl_arch *rpl_arch_find_gfx_version(unsigned gfx_target_version);

/* By CUDA compute capability (major*10 + minor, 90 for sm_90).  NULL when unknown. */
const rpl_arch *rpl_arch_find_cc(unsigned compute_capability);

/* The register file for a wave size, or NULL when the arch lacks that size. */
const rpl_vgpr_file *rpl_arch_vgpr_file(const rpl_arch *arch, unsigned wave_size);

/* All products; *count receives the number. */
const rpl_product *rpl_product_all(size_t *count);

/* By our short name ("MI300X", case-insensitive).  NULL when unknown. */
const rpl_product *rpl_product_find(const char *name);

/*
 * By an agent's product name as a runtime reports it ("AMD Instinct
 * MI300X", "NVIDIA H100 80GB HBM3").  NULL when no product matches.
 */
const rpl_product *rpl_product_match(const char *agent_product_name);

const char *rpl_vendor_name(rpl_vendor vendor);

#endif
