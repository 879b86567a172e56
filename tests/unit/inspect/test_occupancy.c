/*
 * Occupancy formulas on hand-worked cases (counters.md §3 for AMD, §5.5 for
 * NVIDIA).  Each expected value is worked in the comment beside it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/occupancy.h"

static rpl_occupancy amd(const char *arch, unsigned wave, unsigned vgprs, unsigned sgprs,
                         unsigned lds, unsigned wg, rpl_lds_rule rule)
{
    rpl_occ_amd_input in = {wave, vgprs, sgprs, lds, wg, 0, rule};
    rpl_occupancy o;

    assert_int_equal(rpl_occ_amd(&o, rpl_arch_find(arch), &in), 0);
    return o;
}

static void amd_vgprs(void **state)
{
    rpl_occupancy o;

    (void)state;
    o = amd("gfx90a", 64, 128, 30, 0, 256, RPL_LDS_RULE_PER_SIMD); /* 512/128 = 4 */
    assert_int_equal(o.waves_per_simd, 4);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_VGPR);
    assert_int_equal(o.waves_per_cu, 16);
    assert_int_equal(o.blocks_per_cu, 4); /* 16 waves / 4 per workgroup */
    assert_true(o.fraction > 0.49 && o.fraction < 0.51);
    o = amd("gfx90a", 64, 7, 8, 0, 256, RPL_LDS_RULE_PER_SIMD); /* below one granule: max */
    assert_int_equal(o.waves_per_simd, 8);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_WAVES);
    o = amd("gfx90a", 64, 261, 8, 0, 256, RPL_LDS_RULE_PER_SIMD); /* 512/264 = 1 */
    assert_int_equal(o.waves_per_simd, 1);
    o = amd("gfx942", 64, 200, 8, 0, 256, RPL_LDS_RULE_PER_SIMD); /* 512/200 = 2 */
    assert_int_equal(o.waves_per_simd, 2);
    o = amd("gfx1030", 32, 98, 8, 0, 1024, RPL_LDS_RULE_LEGACY); /* 1024/112 = 9 */
    assert_int_equal(o.waves_per_simd, 9);
    o = amd("gfx1030", 64, 98, 8, 0, 1024, RPL_LDS_RULE_LEGACY); /* 512/104 = 4 */
    assert_int_equal(o.waves_per_simd, 4);
    o = amd("gfx1100", 32, 98, 8, 0, 1024, RPL_LDS_RULE_PER_SIMD); /* 1536/120 = 12 */
    assert_int_equal(o.waves_per_simd, 12);
    o = amd("gfx908", 64, 84, 30, 0, 256, RPL_LDS_RULE_PER_SIMD); /* 256/84 = 3 */
    assert_int_equal(o.waves_per_simd, 3);
}

static void amd_sgprs(void **state)
{
    rpl_occupancy o;

    (void)state;
    o = amd("gfx908", 64, 24, 81, 0, 256, RPL_LDS_RULE_PER_SIMD); /* <= 88 -> 9 */
    assert_int_equal(o.waves_per_simd, 9);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_SGPR);
    o = amd("gfx908", 64, 24, 102, 0, 256, RPL_LDS_RULE_PER_SIMD); /* > 100 -> 7 */
    assert_int_equal(o.waves_per_simd, 7);
    o = amd("gfx90a", 64, 24, 100, 0, 256, RPL_LDS_RULE_PER_SIMD); /* <= 100 -> 8 = max */
    assert_int_equal(o.waves_per_simd, 8);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_WAVES);
    o = amd("gfx90a", 64, 24, 102, 0, 256, RPL_LDS_RULE_PER_SIMD);
    assert_int_equal(o.waves_per_simd, 7);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_SGPR);
    o = amd("gfx1030", 32, 8, 200, 0, 256, RPL_LDS_RULE_PER_SIMD); /* no SGPR limit on gfx10+ */
    assert_int_equal(o.waves_per_simd, 16);
    assert_int_equal(o.limit_sgpr, 16);
}

static void amd_lds_rules(void **state)
{
    rpl_occupancy o;

    (void)state;
    /* gfx1030, 64 threads (2 waves), 16 KiB.  Legacy: 64K/16K = 4 groups x 2 = 8 waves
     * (clang 15 reports 8).  Per SIMD: 128K/16K = 8 groups x 2 / 4 SIMDs = 4. */
    o = amd("gfx1030", 32, 8, 8, 16384, 64, RPL_LDS_RULE_LEGACY);
    assert_int_equal(o.waves_per_simd, 8);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_LDS);
    o = amd("gfx1030", 32, 8, 8, 16384, 64, RPL_LDS_RULE_PER_SIMD);
    assert_int_equal(o.waves_per_simd, 4);
    /* gfx90a, 64 threads, 16 KiB: legacy 4 groups x 1 wave = 4; per SIMD ceil(4/4) = 1. */
    assert_int_equal(amd("gfx90a", 64, 8, 8, 16384, 64, RPL_LDS_RULE_LEGACY).waves_per_simd, 4);
    assert_int_equal(amd("gfx90a", 64, 8, 8, 16384, 64, RPL_LDS_RULE_PER_SIMD).waves_per_simd, 1);
    /* gfx90a, 256 threads, 48 KiB: one group of 4 waves: legacy 4, per SIMD 1. */
    assert_int_equal(amd("gfx90a", 64, 8, 8, 49152, 256, RPL_LDS_RULE_LEGACY).waves_per_simd, 4);
    assert_int_equal(amd("gfx90a", 64, 8, 8, 49152, 256, RPL_LDS_RULE_PER_SIMD).waves_per_simd, 1);
    /* More LDS than a CU has: LLVM answers 1. */
    o = amd("gfx90a", 64, 8, 8, 70000, 256, RPL_LDS_RULE_PER_SIMD);
    assert_int_equal(o.waves_per_simd, 1);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_LDS);
    /* gfx950 has 160 KiB: 160K/48K = 3 groups x 4 waves / 4 = 3. */
    assert_int_equal(amd("gfx950", 64, 8, 8, 49152, 256, RPL_LDS_RULE_PER_SIMD).waves_per_simd, 3);
    /* No LDS: the LDS factor sets no limit. */
    assert_int_equal(amd("gfx90a", 64, 8, 8, 0, 256, RPL_LDS_RULE_PER_SIMD).limit_lds,
                     RPL_OCC_UNLIMITED);
}

static void amd_workgroup_slots(void **state)
{
    rpl_occupancy o;

    (void)state;
    /* gfx90a, 448 threads = 7 waves: min(32/7, 16) = 4 groups = 28 waves -> 7 per SIMD. */
    o = amd("gfx90a", 64, 8, 8, 0, 448, RPL_LDS_RULE_PER_SIMD);
    assert_int_equal(o.waves_per_simd, 7);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_WORKGROUPS);
    /* Legacy: min(40/7, 16) = 5 groups = 35 waves -> capped at 8. */
    assert_int_equal(amd("gfx90a", 64, 8, 8, 0, 448, RPL_LDS_RULE_LEGACY).waves_per_simd, 8);
}

static void amd_bad_launches(void **state)
{
    rpl_occ_amd_input in = {64, 8, 8, 0, 512, 256, RPL_LDS_RULE_PER_SIMD};
    rpl_occupancy o;

    (void)state;
    assert_int_equal(rpl_occ_amd(&o, rpl_arch_find("gfx90a"), &in), 0);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_BLOCK_SIZE); /* 512 > the kernel's 256 */
    assert_int_equal(o.waves_per_simd, 0);
    in.kernel_max_workgroup_size = 0;
    in.wave_size = 32;
    assert_int_equal(rpl_occ_amd(&o, rpl_arch_find("gfx90a"), &in), RPL_EUSAGE);
    in.wave_size = 64;
    assert_int_equal(rpl_occ_amd(&o, rpl_arch_find("sm_90"), &in), RPL_EUSAGE);
    in.workgroup_size = 0;
    assert_int_equal(rpl_occ_amd(&o, rpl_arch_find("gfx90a"), &in), RPL_EUSAGE);
}

static void amd_total_vgprs(void **state)
{
    (void)state;
    assert_int_equal(rpl_occ_amd_total_vgprs(rpl_arch_find("gfx90a"), 2, 5), 9);
    assert_int_equal(rpl_occ_amd_total_vgprs(rpl_arch_find("gfx90a"), 16, 64), 80);
    assert_int_equal(rpl_occ_amd_total_vgprs(rpl_arch_find("gfx90a"), 20, 0), 20);
    assert_int_equal(rpl_occ_amd_total_vgprs(rpl_arch_find("gfx908"), 20, 30), 30);
}

static rpl_occupancy nv(const char *arch, unsigned regs, unsigned block, unsigned smem,
                        unsigned dyn, unsigned barriers, bool optin)
{
    rpl_occ_nv_input in = {regs, block, smem, dyn, barriers, 0, optin};
    rpl_occupancy o;

    assert_int_equal(rpl_occ_nv(&o, rpl_arch_find(arch), &in), 0);
    return o;
}

static void nvidia_limits(void **state)
{
    rpl_occupancy o;

    (void)state;
    /* H100 probe (counters.md §5.2): 16 regs, 256 threads: regs 16, warps 8 -> 8 blocks. */
    o = nv("sm_90", 16, 256, 0, 0, 0, false);
    assert_int_equal(o.blocks_per_cu, 8);
    assert_int_equal(o.limit_vgpr, 16);
    assert_int_equal(o.limit_waves, 8);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_WAVES);
    assert_true(o.fraction > 0.999);
    /* 40 regs = 1280 per warp: 16384/1280 = 12 warps per partition x 4 / 4 warps = 12. */
    o = nv("sm_90", 40, 128, 4096, 0, 1, false);
    assert_int_equal(o.blocks_per_cu, 12);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_VGPR);
    assert_int_equal(o.limit_lds, 45); /* 233472 / (4096 + 1024) */
    /* 72 regs x 32 = 2304 per warp x 32 warps > 65536: the block cannot launch. */
    o = nv("sm_90", 72, 1024, 0, 0, 0, false);
    assert_int_equal(o.blocks_per_cu, 0);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_VGPR);
    /* 48 KiB static: (49152 + 1024) per block; sm_90 233472 / 50176 = 4, sm_80 167936 / 50176 = 3.
     */
    o = nv("sm_90", 32, 256, 49152, 0, 1, false);
    assert_int_equal(o.blocks_per_cu, 4);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_LDS);
    assert_int_equal(nv("sm_80", 32, 256, 49152, 0, 1, false).blocks_per_cu, 3);
    /* 100 KiB dynamic: needs the opt-in; then 233472 / 103424 = 2. */
    assert_int_equal(nv("sm_90", 32, 256, 0, 102400, 1, false).blocks_per_cu, 0);
    assert_int_equal(nv("sm_90", 32, 256, 0, 102400, 1, true).blocks_per_cu, 2);
    /* sm_86: 48 warps per SM, a 1024-thread block fits once. */
    assert_int_equal(nv("sm_86", 16, 1024, 0, 0, 0, false).blocks_per_cu, 1);
    /* Tiny blocks hit the block slots: sm_89 has 24, sm_90 32. */
    o = nv("sm_89", 16, 32, 0, 0, 0, false);
    assert_int_equal(o.blocks_per_cu, 24);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_WORKGROUPS);
    /* sm_90 named barriers: 2 x 32 / 16 = 4 blocks. */
    o = nv("sm_90", 16, 32, 0, 0, 16, false);
    assert_int_equal(o.blocks_per_cu, 4);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_BARRIERS);
    /* Before cc 9 barriers set no limit. */
    assert_int_equal(nv("sm_80", 16, 32, 0, 0, 16, false).blocks_per_cu, 32);
}

static void nvidia_bad_launches(void **state)
{
    rpl_occ_nv_input in = {16, 512, 0, 0, 0, 256, false};
    rpl_occupancy o;

    (void)state;
    assert_int_equal(rpl_occ_nv(&o, rpl_arch_find("sm_90"), &in), 0);
    assert_int_equal(o.limiter, RPL_OCC_LIMIT_BLOCK_SIZE);
    assert_int_equal(o.blocks_per_cu, 0);
    assert_int_equal(rpl_occ_nv(&o, rpl_arch_find("gfx90a"), &in), RPL_EUSAGE);
    in.block_size = 0;
    assert_int_equal(rpl_occ_nv(&o, rpl_arch_find("sm_90"), &in), RPL_EUSAGE);
}

static void nvidia_max_block_size(void **state)
{
    const rpl_arch *sm90 = rpl_arch_find("sm_90");

    (void)state;
    /* Measured on an H200 (docs/validation/inspect-gpu-occupancy.md): 70 regs -> 72 x 32 = 2304
     * per warp; 65536 / 2304 = 28 warps (a multiple of the 4 sub-partitions) = 896 threads. */
    assert_int_equal(rpl_occ_nv_max_block_size(sm90, 70, 0), 896);
    /* 40 regs: 1280 per warp, 51 warps -> 48 (sub-partitions) -> capped at 1024. */
    assert_int_equal(rpl_occ_nv_max_block_size(sm90, 40, 0), 1024);
    /* A launch bound below the register limit wins; no registers known: bound or arch max. */
    assert_int_equal(rpl_occ_nv_max_block_size(sm90, 137, 256), 256);
    assert_int_equal(rpl_occ_nv_max_block_size(sm90, 0, 0), 1024);
    /* 137 regs: 4608 per warp, 14 warps -> 12 (sub-partitions) = 384 threads; consistent with
     * the register limit of rpl_occ_nv, not measured on a GPU. */
    assert_int_equal(rpl_occ_nv_max_block_size(sm90, 137, 0), 384);
}

static void limit_names(void **state)
{
    (void)state;
    assert_string_equal(rpl_occ_limit_name(RPL_OCC_LIMIT_VGPR, RPL_VENDOR_AMD), "vgpr");
    assert_string_equal(rpl_occ_limit_name(RPL_OCC_LIMIT_VGPR, RPL_VENDOR_NVIDIA), "registers");
    assert_string_equal(rpl_occ_limit_name(RPL_OCC_LIMIT_LDS, RPL_VENDOR_NVIDIA), "shared");
    assert_string_equal(rpl_occ_limit_name(RPL_OCC_LIMIT_WAVES, RPL_VENDOR_AMD), "waves");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(amd_vgprs),
        cmocka_unit_test(amd_sgprs),
        cmocka_unit_test(amd_lds_rules),
        cmocka_unit_test(amd_workgroup_slots),
        cmocka_unit_test(amd_bad_launches),
        cmocka_unit_test(amd_total_vgprs),
        cmocka_unit_test(nvidia_limits),
        cmocka_unit_test(nvidia_bad_launches),
        cmocka_unit_test(nvidia_max_block_size),
        cmocka_unit_test(limit_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
