/*
 * Theoretical occupancy from static resource usage.
 *
 * AMD: waves per SIMD exactly as LLVM's AMDGPU backend computes the
 * "Occupancy [waves/SIMD]" it reports (GCNSubtarget::computeOccupancy):
 * min(max waves, VGPR limit, SGPR limit, LDS/workgroup-slot limit).
 * NVIDIA: resident blocks per SM as cuda_occupancy.h computes
 * cudaOccMaxActiveBlocksPerMultiprocessor (partitioned global caching off,
 * default carveout).
 */
#ifndef RPL_OCCUPANCY_H
#define RPL_OCCUPANCY_H

#include <stdbool.h>

#include "rpl/arch.h"
#include "rpl/codeobj.h"

/* No limit from this factor. */
#define RPL_OCC_UNLIMITED 0xFFFFFFFFu

typedef enum rpl_occ_limit {
    RPL_OCC_LIMIT_WAVES = 0,  /* hardware maximum of waves per SIMD / warps per SM */
    RPL_OCC_LIMIT_VGPR,       /* AMD VGPRs (AGPRs included) / NVIDIA registers */
    RPL_OCC_LIMIT_SGPR,       /* AMD SGPRs (gfx8/gfx9 only) */
    RPL_OCC_LIMIT_LDS,        /* LDS / shared memory */
    RPL_OCC_LIMIT_WORKGROUPS, /* workgroup (block) slots per CU / SM */
    RPL_OCC_LIMIT_BARRIERS,   /* NVIDIA cc >= 9 block barriers */
    RPL_OCC_LIMIT_BLOCK_SIZE  /* the block is larger than the kernel allows: no launch */
} rpl_occ_limit;

typedef struct rpl_occ_amd_input {
    unsigned wave_size;      /* 64 or 32 */
    unsigned vgprs;          /* VGPRs as the compiler counts them for occupancy
                              * (code-object .vgpr_count: unified arch+acc on gfx90a+,
                              * max(arch, acc) on gfx908); see rpl_occ_amd_total_vgprs */
    unsigned sgprs;          /* .sgpr_count */
    unsigned lds_bytes;      /* LDS per workgroup, static + dynamic */
    unsigned workgroup_size; /* threads per workgroup (the kernel's max flat size by default) */
    unsigned kernel_max_workgroup_size; /* .max_flat_workgroup_size, 0 = the arch maximum */
    rpl_lds_rule rule;                  /* which LLVM generation's LDS rule */
} rpl_occ_amd_input;

typedef struct rpl_occ_nv_input {
    unsigned regs_per_thread;
    unsigned block_size;
    unsigned static_smem; /* static shared memory per block, without the driver's reserve */
    unsigned dynamic_smem;
    unsigned barriers;           /* block barriers the kernel uses (0 = no limit) */
    unsigned kernel_max_threads; /* launch bound, 0 = the arch maximum */
    bool smem_optin;             /* cudaFuncAttributeMaxDynamicSharedMemorySize was raised */
} rpl_occ_nv_input;

typedef struct rpl_occupancy {
    unsigned waves_per_simd; /* AMD: the answer; NVIDIA: warps per SM / sub-partitions */
    unsigned max_waves_per_simd;
    unsigned blocks_per_cu; /* NVIDIA: the answer; AMD: workgroups per CU it implies */
    unsigned waves_per_cu;  /* waves per CU / warps per SM */
    unsigned max_waves_per_cu;
    double fraction; /* waves_per_cu / max_waves_per_cu */
    rpl_occ_limit limiter;
    /*
     * Each factor's own limit, in the unit of the answer (AMD: waves per
     * SIMD; NVIDIA: blocks per SM), RPL_OCC_UNLIMITED when it sets none.
     */
    unsigned limit_vgpr, limit_sgpr, limit_lds, limit_workgroups, limit_waves, limit_barriers;
} rpl_occupancy;

/*
 * AMD occupancy.  Fails with RPL_EUSAGE for a non-AMD arch, a wave size the
 * arch lacks or a zero workgroup size.
 */
int rpl_occ_amd(rpl_occupancy *out, const rpl_arch *arch, const rpl_occ_amd_input *in);

/* NVIDIA occupancy.  Fails with RPL_EUSAGE for a non-NVIDIA arch or a zero block size. */
int rpl_occ_nv(rpl_occupancy *out, const rpl_arch *arch, const rpl_occ_nv_input *in);

/*
 * The largest block an NVIDIA kernel can be launched with, as the driver's
 * cudaFuncAttributes.maxThreadsPerBlock: its launch bound (0 = none) capped
 * by the arch maximum and by the registers one block may hold.
 */
unsigned rpl_occ_nv_max_block_size(const rpl_arch *arch, unsigned regs_per_thread,
                                   unsigned launch_bound);

/* Occupancy of one compiled kernel on one architecture, as inspect and the static gate see it. */
typedef struct rpl_kernel_occupancy {
    bool known;         /* false when the arch cannot run the kernel's wave size */
    unsigned block;     /* the block size computed for */
    unsigned max_block; /* the largest launchable block (launch bound, arch, registers) */
    const char *rule;   /* "llvm-legacy", "llvm" or "cuda_occupancy" */
    rpl_occupancy occ;
} rpl_kernel_occupancy;

/*
 * Theoretical occupancy of kernel `k` on `arch` at `block` work-items (0:
 * the largest launchable block) with `dyn_smem` bytes of dynamic LDS/shared
 * memory: the AMD LDS rule follows the LLVM version that built it.
 */
int rpl_occ_kernel(rpl_kernel_occupancy *out, const rpl_kernel_info *k, const rpl_arch *arch,
                   unsigned block, unsigned dyn_smem);

/*
 * The VGPR count LLVM uses for occupancy from arch and acc VGPR counts:
 * unified files: acc ? alignTo(arch, 4) + acc : max(arch, acc); else max.
 */
unsigned rpl_occ_amd_total_vgprs(const rpl_arch *arch, unsigned arch_vgprs, unsigned agprs);

/* "vgpr", "sgpr", "lds", ... (NVIDIA: "registers", "shared", "warps", "blocks"). */
const char *rpl_occ_limit_name(rpl_occ_limit limit, rpl_vendor vendor);

#endif
