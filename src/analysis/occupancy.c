/*
 * Theoretical occupancy.
 *
 * AMD follows LLVM's AMDGPU backend [S: AMDGPUBaseInfo.cpp,
 * AMDGPUSubtarget.cpp; counters.md §3]:
 *   VGPRs: N < granule ? max : min(max(total / alignTo(N, granule), 1), max)
 *   SGPRs (gfx8/9 only): <=80 -> 10, <=88 -> 9, <=100 -> 8, else 7
 *   LDS and workgroup slots (getOccupancyWithLocalMemSize), two generations:
 *     LEGACY (LLVM <= 16; verified against clang 15): groups = min(64 KiB / LDS,
 *       N == 1 ? 40 : min(40 / N, 16)); waves = min(groups * N, max), where N
 *       is the waves per workgroup
 *     PER_SIMD (later LLVM): groups = min(LDS per CU (WGP) / LDS,
 *       N == 1 ? max*EUs : min(max*EUs / N, barrier slots));
 *       waves = clamp(ceil(groups * N / EUs), 1, max)
 *     Both give 1 when the LDS does not fit at all.
 * NVIDIA follows cuda_occupancy.h (CUDA 13.0) [S; counters.md §5.5].
 */
#include "rpl/error.h"
#include "rpl/occupancy.h"

static unsigned umin(unsigned a, unsigned b)
{
    return a < b ? a : b;
}

static unsigned div_ceil(unsigned a, unsigned b)
{
    return (unsigned)(((unsigned long long)a + b - 1) / b);
}

static unsigned align_to(unsigned v, unsigned a)
{
    return div_ceil(v, a) * a;
}

unsigned rpl_occ_amd_total_vgprs(const rpl_arch *arch, unsigned arch_vgprs, unsigned agprs)
{
    if (arch && arch->unified_agprs && agprs)
        return align_to(arch_vgprs, 4) + agprs;
    return arch_vgprs > agprs ? arch_vgprs : agprs;
}

const char *rpl_occ_limit_name(rpl_occ_limit limit, rpl_vendor vendor)
{
    /* Each limit's name in AMD's and in NVIDIA's words. */
    static const char *const names[][2] = {
        [RPL_OCC_LIMIT_WAVES] = {"waves", "warps"},
        [RPL_OCC_LIMIT_VGPR] = {"vgpr", "registers"},
        [RPL_OCC_LIMIT_SGPR] = {"sgpr", "sgpr"},
        [RPL_OCC_LIMIT_LDS] = {"lds", "shared"},
        [RPL_OCC_LIMIT_WORKGROUPS] = {"workgroups", "blocks"},
        [RPL_OCC_LIMIT_BARRIERS] = {"barriers", "barriers"},
        [RPL_OCC_LIMIT_BLOCK_SIZE] = {"block_size", "block_size"},
    };

    if ((unsigned)limit >= sizeof(names) / sizeof(names[0]))
        return "unknown";
    return names[limit][vendor == RPL_VENDOR_NVIDIA];
}

static unsigned amd_waves_by_vgprs(const rpl_vgpr_file *file, unsigned max, unsigned vgprs)
{
    unsigned w;

    if (vgprs < file->granule)
        return max;
    w = file->total / align_to(vgprs, file->granule);
    return umin(w ? w : 1, max);
}

static unsigned amd_waves_by_sgprs(const rpl_arch *arch, unsigned max, unsigned sgprs)
{
    unsigned w;

    if (!arch->sgprs_limit_waves || sgprs == 0)
        return max;
    w = sgprs <= 80 ? 10 : sgprs <= 88 ? 9 : sgprs <= 100 ? 8 : 7;
    return umin(w, max);
}

/* Waves per SIMD when `groups` workgroups of `n` waves are resident on a CU. */
static unsigned amd_waves_for_groups(const rpl_arch *arch, rpl_lds_rule rule, unsigned groups,
                                     unsigned n)
{
    unsigned long long waves = (unsigned long long)groups * n;
    unsigned max = arch->max_waves_per_simd;

    if (rule == RPL_LDS_RULE_LEGACY)
        return waves < max ? (unsigned)waves : max;
    waves = (waves + arch->simds_per_cu - 1) / arch->simds_per_cu;
    if (waves < 1)
        return 1;
    return waves < max ? (unsigned)waves : max;
}

static unsigned amd_max_groups(const rpl_arch *arch, rpl_lds_rule rule, unsigned n)
{
    unsigned slots = arch->max_waves_per_simd * arch->simds_per_cu;

    if (rule == RPL_LDS_RULE_LEGACY)
        return n == 1 ? 40 : umin(40 / n, 16);
    return n == 1 ? slots : umin(slots / n, arch->max_blocks_per_cu);
}

static rpl_occ_limit pick_amd_limiter(const rpl_occupancy *o)
{
    if (o->waves_per_simd >= o->max_waves_per_simd)
        return RPL_OCC_LIMIT_WAVES;
    if (o->limit_vgpr == o->waves_per_simd)
        return RPL_OCC_LIMIT_VGPR;
    if (o->limit_sgpr == o->waves_per_simd)
        return RPL_OCC_LIMIT_SGPR;
    if (o->limit_lds == o->waves_per_simd)
        return RPL_OCC_LIMIT_LDS;
    return RPL_OCC_LIMIT_WORKGROUPS;
}

int rpl_occ_amd(rpl_occupancy *out, const rpl_arch *arch, const rpl_occ_amd_input *in)
{
    const rpl_vgpr_file *file;
    unsigned max, n, pool, lds_groups, kmax;
    rpl_occupancy o = {0};

    if (!arch || arch->vendor != RPL_VENDOR_AMD)
        return rpl_error_set(RPL_EUSAGE, "AMD occupancy asked for a non-AMD architecture");
    file = rpl_arch_vgpr_file(arch, in->wave_size);
    if (!file)
        return rpl_error_set(RPL_EUSAGE, "'%s' has no wave%u mode", arch->name, in->wave_size);
    if (in->workgroup_size == 0)
        return rpl_error_set(RPL_EUSAGE, "workgroup size must be positive");

    max = arch->max_waves_per_simd;
    o.max_waves_per_simd = max;
    o.max_waves_per_cu = max * arch->simds_per_cu;
    o.limit_waves = max;
    o.limit_barriers = RPL_OCC_UNLIMITED;
    kmax = in->kernel_max_workgroup_size ? in->kernel_max_workgroup_size : arch->max_workgroup_size;
    if (in->workgroup_size > kmax || in->workgroup_size > arch->max_workgroup_size) {
        o.limiter = RPL_OCC_LIMIT_BLOCK_SIZE;
        o.limit_vgpr = o.limit_sgpr = o.limit_lds = o.limit_workgroups = 0;
        *out = o;
        return 0;
    }

    n = div_ceil(in->workgroup_size, in->wave_size);
    o.limit_vgpr = amd_waves_by_vgprs(file, max, in->vgprs);
    o.limit_sgpr = amd_waves_by_sgprs(arch, max, in->sgprs);

    pool = in->rule == RPL_LDS_RULE_LEGACY ? arch->lds_per_workgroup : arch->lds_per_cu;
    lds_groups = pool / (in->lds_bytes ? in->lds_bytes : 1);
    o.limit_lds = lds_groups == 0 ? 1 : amd_waves_for_groups(arch, in->rule, lds_groups, n);
    if (in->lds_bytes == 0)
        o.limit_lds = RPL_OCC_UNLIMITED;
    o.limit_workgroups = amd_waves_for_groups(arch, in->rule, amd_max_groups(arch, in->rule, n), n);

    o.waves_per_simd =
        umin(umin(max, o.limit_vgpr), umin(o.limit_sgpr, umin(o.limit_lds, o.limit_workgroups)));
    o.waves_per_cu = o.waves_per_simd * arch->simds_per_cu;
    o.blocks_per_cu = o.waves_per_cu / n;
    o.fraction = (double)o.waves_per_cu / o.max_waves_per_cu;
    o.limiter = pick_amd_limiter(&o);
    *out = o;
    return 0;
}

/* Registers: cudaOccMaxBlocksPerSMRegsLimit with partitioned global caching off. */
static unsigned nv_blocks_by_regs(const rpl_arch *arch, unsigned regs, unsigned warps)
{
    const unsigned partitions = arch->simds_per_cu;
    unsigned per_warp, per_partition;

    if (regs == 0)
        return RPL_OCC_UNLIMITED;
    per_warp = align_to(regs * arch->wave_size, arch->reg_granule);
    if ((unsigned long long)per_warp * align_to(warps, partitions) > arch->regs_per_block ||
        (unsigned long long)per_warp * warps > arch->regs_per_block ||
        regs > arch->max_regs_per_thread)
        return 0;
    per_partition = arch->regs_per_sm / partitions / per_warp;
    return per_partition * partitions / warps;
}

unsigned rpl_occ_nv_max_block_size(const rpl_arch *arch, unsigned regs_per_thread,
                                   unsigned launch_bound)
{
    const unsigned partitions = arch->simds_per_cu;
    unsigned kmax =
        launch_bound ? umin(launch_bound, arch->max_workgroup_size) : arch->max_workgroup_size;
    unsigned per_warp, warps;

    if (regs_per_thread == 0)
        return kmax;
    /* The same test as nv_blocks_by_regs: warps rounded up to the sub-partitions must fit. */
    per_warp = align_to(regs_per_thread * arch->wave_size, arch->reg_granule);
    warps = arch->regs_per_block / per_warp / partitions * partitions;
    return umin(kmax, warps * arch->wave_size);
}

/* Shared memory: cudaOccMaxBlocksPerSMSmemLimit with the default carveout. */
static unsigned nv_blocks_by_smem(const rpl_arch *arch, const rpl_occ_nv_input *in)
{
    unsigned long long static_smem =
        (unsigned long long)in->static_smem + arch->reserved_smem_per_block;
    unsigned long long per_cta =
        align_to((unsigned)(static_smem + in->dynamic_smem), arch->lds_granule);
    unsigned long long block_limit = arch->lds_per_workgroup;
    unsigned long long sm_smem = 0;

    if (in->smem_optin && static_smem + in->dynamic_smem > arch->lds_per_workgroup)
        block_limit = arch->smem_per_block_optin;
    block_limit += arch->reserved_smem_per_block;
    if (per_cta > block_limit)
        return 0;
    if (per_cta == 0)
        return RPL_OCC_UNLIMITED;
    /* The default preference is the whole SM; a larger need rounds up to a carveout step. */
    if (arch->lds_per_cu >= per_cta) {
        sm_smem = arch->lds_per_cu;
    } else {
        for (size_t i = 0; i < arch->n_smem_carveouts; i++)
            if ((unsigned long long)arch->smem_carveouts_kib[i] * 1024 >= per_cta) {
                sm_smem = (unsigned long long)arch->smem_carveouts_kib[i] * 1024;
                break;
            }
        if (sm_smem == 0)
            return 0;
    }
    return (unsigned)(sm_smem / per_cta);
}

int rpl_occ_nv(rpl_occupancy *out, const rpl_arch *arch, const rpl_occ_nv_input *in)
{
    unsigned warps, kmax, blocks;
    rpl_occupancy o = {0};

    if (!arch || arch->vendor != RPL_VENDOR_NVIDIA)
        return rpl_error_set(RPL_EUSAGE, "NVIDIA occupancy asked for a non-NVIDIA architecture");
    if (in->block_size == 0)
        return rpl_error_set(RPL_EUSAGE, "block size must be positive");

    o.max_waves_per_cu = arch->max_waves_per_cu;
    o.max_waves_per_simd = arch->max_waves_per_simd;
    kmax = in->kernel_max_threads ? in->kernel_max_threads : arch->max_workgroup_size;
    if (in->block_size > kmax || in->block_size > arch->max_workgroup_size) {
        o.limiter = RPL_OCC_LIMIT_BLOCK_SIZE;
        *out = o;
        return 0;
    }
    warps = div_ceil(in->block_size, arch->wave_size);
    o.limit_waves = arch->max_waves_per_cu / warps;
    o.limit_vgpr = nv_blocks_by_regs(arch, in->regs_per_thread, warps);
    o.limit_lds = nv_blocks_by_smem(arch, in);
    o.limit_workgroups = arch->max_blocks_per_cu;
    o.limit_sgpr = RPL_OCC_UNLIMITED;
    o.limit_barriers = RPL_OCC_UNLIMITED;
    if (arch->barriers_per_block_slot && in->barriers)
        o.limit_barriers = arch->max_blocks_per_cu * arch->barriers_per_block_slot / in->barriers;

    blocks = umin(umin(o.limit_vgpr, o.limit_lds), umin(o.limit_waves, o.limit_workgroups));
    blocks = umin(blocks, o.limit_barriers);
    o.blocks_per_cu = blocks;
    o.waves_per_cu = blocks * warps;
    o.waves_per_simd = o.waves_per_cu / arch->simds_per_cu;
    o.fraction = (double)o.waves_per_cu / o.max_waves_per_cu;
    /* Name one factor, in cuda_occupancy.h's order of its limitingFactors bits. */
    if (blocks == o.limit_waves)
        o.limiter = RPL_OCC_LIMIT_WAVES;
    else if (blocks == o.limit_vgpr)
        o.limiter = RPL_OCC_LIMIT_VGPR;
    else if (blocks == o.limit_lds)
        o.limiter = RPL_OCC_LIMIT_LDS;
    else if (blocks == o.limit_workgroups)
        o.limiter = RPL_OCC_LIMIT_WORKGROUPS;
    else
        o.limiter = RPL_OCC_LIMIT_BARRIERS;
    *out = o;
    return 0;
}

int rpl_occ_kernel(rpl_kernel_occupancy *out, const rpl_kernel_info *k, const rpl_arch *arch,
                   unsigned block, unsigned dyn_smem)
{
    unsigned regs = k->vgpr_count < 0 ? 0 : (unsigned)k->vgpr_count;
    unsigned kmax = k->max_flat_workgroup_size;
    rpl_kernel_occupancy r = {0};
    int rc;

    if (k->vendor == RPL_VENDOR_NVIDIA)
        kmax = rpl_occ_nv_max_block_size(arch, regs, kmax);
    else if (kmax == 0)
        kmax = arch->max_workgroup_size;
    r.max_block = kmax;
    r.block = block ? block : kmax;
    if (k->vendor == RPL_VENDOR_AMD) {
        rpl_occ_amd_input in = {0};

        /* e.g. wave64 on an arch table row without it, or no VGPR count recorded */
        if (!rpl_arch_vgpr_file(arch, k->wavefront_size) || k->vgpr_count < 0) {
            *out = r;
            return 0;
        }
        in.wave_size = k->wavefront_size;
        in.vgprs = regs;
        in.sgprs = k->sgpr_count < 0 ? 0 : (unsigned)k->sgpr_count;
        in.lds_bytes = k->group_segment_fixed_size + dyn_smem;
        in.workgroup_size = r.block;
        in.kernel_max_workgroup_size = kmax;
        in.rule =
            (k->llvm_major && k->llvm_major <= 16) ? RPL_LDS_RULE_LEGACY : RPL_LDS_RULE_PER_SIMD;
        r.rule = in.rule == RPL_LDS_RULE_LEGACY ? "llvm-legacy" : "llvm";
        rc = rpl_occ_amd(&r.occ, arch, &in);
    } else {
        rpl_occ_nv_input in = {0};

        in.regs_per_thread = regs;
        in.block_size = r.block;
        in.static_smem = k->group_segment_fixed_size;
        in.dynamic_smem = dyn_smem;
        in.barriers = k->num_barriers < 0 ? 0 : (unsigned)k->num_barriers;
        in.kernel_max_threads = kmax;
        in.smem_optin = dyn_smem > 0;
        r.rule = "cuda_occupancy";
        rc = rpl_occ_nv(&r.occ, arch, &in);
    }
    if (rc != 0)
        return rc;
    r.known = true;
    *out = r;
    return 0;
}
