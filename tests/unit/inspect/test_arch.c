/* Architecture and product lookups, and the consistency of the tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/arch.h"
#include "rpl/error.h"

static void finds_by_name_and_target_id(void **state)
{
    (void)state;
    assert_string_equal(rpl_arch_find("gfx90a")->name, "gfx90a");
    assert_string_equal(rpl_arch_find("GFX942")->name, "gfx942");
    assert_string_equal(rpl_arch_find("gfx942:sramecc+:xnack-")->name, "gfx942");
    assert_string_equal(rpl_arch_find("amdgcn-amd-amdhsa--gfx90a:xnack-")->name, "gfx90a");
    assert_string_equal(rpl_arch_find("hipv4-amdgcn-amd-amdhsa--gfx1030")->name, "gfx1030");
    assert_null(rpl_arch_find("gfx9999"));
    assert_null(rpl_arch_find(""));
    assert_null(rpl_arch_find(NULL));
}

static void finds_nvidia_spellings(void **state)
{
    (void)state;
    assert_string_equal(rpl_arch_find("sm_90")->name, "sm_90");
    assert_string_equal(rpl_arch_find("sm_90a")->name, "sm_90");
    assert_string_equal(rpl_arch_find("compute_80")->name, "sm_80");
    assert_string_equal(rpl_arch_find("8.6")->name, "sm_86");
    assert_string_equal(rpl_arch_find("89")->name, "sm_89");
    assert_null(rpl_arch_find("sm_75"));
    assert_null(rpl_arch_find("sm_9x0"));
    assert_null(rpl_arch_find("9.0.1"));
}

static void finds_by_numbers(void **state)
{
    (void)state;
    assert_string_equal(rpl_arch_find_gfx_version(90402)->name, "gfx942");
    assert_string_equal(rpl_arch_find_gfx_version(90010)->name, "gfx90a");
    assert_string_equal(rpl_arch_find_gfx_version(100300)->name, "gfx1030");
    assert_null(rpl_arch_find_gfx_version(90)); /* a CUDA cc is not a gfx version */
    assert_string_equal(rpl_arch_find_cc(90)->name, "sm_90");
    assert_null(rpl_arch_find_cc(90402));
}

/* --arch lists: names separated by commas, appended; empty, unknown and too many refused. */
static void parses_name_lists(void **state)
{
    const rpl_arch *archs[3];
    size_t n = 0;

    (void)state;
    assert_int_equal(rpl_arch_list_parse(archs, &n, 3, "gfx90a,sm_90"), 0);
    assert_int_equal(rpl_arch_list_parse(archs, &n, 3, "gfx942"), 0);
    assert_int_equal(n, 3);
    assert_ptr_equal(archs[0], rpl_arch_find("gfx90a"));
    assert_ptr_equal(archs[1], rpl_arch_find("sm_90"));
    assert_ptr_equal(archs[2], rpl_arch_find("gfx942"));
    assert_int_equal(rpl_arch_list_parse(archs, &n, 3, "gfx90a"), RPL_EUSAGE);
    assert_string_equal(rpl_error_last()->message, "too many --arch values");
    n = 0;
    assert_int_equal(rpl_arch_list_parse(archs, &n, 3, "gfx90a,,sm_90"), RPL_EUSAGE);
    assert_string_equal(rpl_error_last()->message, "bad --arch value 'gfx90a,,sm_90'");
    assert_int_equal(rpl_arch_list_parse(archs, &n, 3, "gfx9999"), RPL_EUSAGE);
    assert_string_equal(rpl_error_last()->message,
                        "unknown architecture 'gfx9999' (see docs/CLI.md for the list)");
}

static void tables_are_consistent(void **state)
{
    size_t n;
    const rpl_arch *all = rpl_arch_all(&n);

    (void)state;
    assert_int_equal(n, 12);
    for (size_t i = 0; i < n; i++) {
        const rpl_arch *a = &all[i];

        assert_non_null(a->source);
        assert_true(a->max_waves_per_simd * a->simds_per_cu == a->max_waves_per_cu);
        assert_true(a->lds_per_workgroup <= a->lds_per_cu);
        if (a->vendor == RPL_VENDOR_AMD) {
            assert_true(a->gfx_target_version > 0);
            assert_int_equal(a->vgpr_w64.total % a->vgpr_w64.granule, 0);
            assert_ptr_equal(rpl_arch_vgpr_file(a, 64), &a->vgpr_w64);
            if (a->alt_wave_size)
                assert_int_equal(a->vgpr_w32.total % a->vgpr_w32.granule, 0);
            else
                assert_null(rpl_arch_vgpr_file(a, 32));
        } else {
            assert_true(a->compute_capability >= 80);
            assert_true(a->smem_per_block_optin <= a->lds_per_cu);
            /* The full SM is one of its carveout steps. */
            assert_int_equal(a->smem_carveouts_kib[a->n_smem_carveouts - 1] * 1024u, a->lds_per_cu);
            assert_null(rpl_arch_vgpr_file(a, 32));
        }
    }
}

static void unified_register_files_match_llvm(void **state)
{
    (void)state;
    /* FeatureGFX90AInsts: 512 unified, granule 8, 8 waves (counters.md §3). */
    assert_true(rpl_arch_find("gfx90a")->unified_agprs);
    assert_true(rpl_arch_find("gfx950")->unified_agprs);
    assert_int_equal(rpl_arch_find("gfx942")->vgpr_w64.granule, 8);
    assert_false(rpl_arch_find("gfx908")->unified_agprs);
    assert_int_equal(rpl_arch_find("gfx908")->max_waves_per_simd, 10);
    assert_int_equal(rpl_arch_find("gfx1030")->vgpr_w32.total, 1024);
    assert_int_equal(rpl_arch_find("gfx1030")->vgpr_w32.granule, 16);
    assert_int_equal(rpl_arch_find("gfx950")->lds_per_cu, 163840);
}

static void matches_agent_product_names(void **state)
{
    (void)state;
    assert_string_equal(rpl_product_match("AMD Instinct MI300X")->name, "MI300X");
    assert_string_equal(rpl_product_match("AMD Instinct MI250X/MI250")->name, "MI250X");
    assert_string_equal(rpl_product_match("AMD Instinct MI250")->name, "MI250");
    assert_string_equal(rpl_product_match("AMD Instinct MI210")->name, "MI210");
    assert_string_equal(rpl_product_match("NVIDIA H100 80GB HBM3")->name, "H100 SXM");
    assert_null(rpl_product_match("NVIDIA H100 PCIe"));
    assert_string_equal(rpl_product_match("NVIDIA H200")->name, "H200");
    assert_string_equal(rpl_product_match("NVIDIA A100-SXM4-80GB")->name, "A100 SXM 80GB");
    assert_null(rpl_product_match("Radeon RX 6900 XT"));
    assert_null(rpl_product_match(NULL));
    assert_string_equal(rpl_product_find("mi325x")->arch, "gfx942");
}

static void products_name_known_archs(void **state)
{
    size_t n;
    const rpl_product *all = rpl_product_all(&n);

    (void)state;
    for (size_t i = 0; i < n; i++) {
        assert_non_null(rpl_arch_find(all[i].arch));
        assert_non_null(all[i].source);
        assert_true(all[i].compute_units > 0);
        assert_true(all[i].hbm_tbs > 0.0);
    }
    /* MI300X: 128 FLOP/clk/CU x 304 CUs x 2.1 GHz = 81.7 TFLOP/s (counters.md §2.2). */
    assert_true(rpl_product_find("MI300X")->vector_fp64_tflops > 81.6);
    assert_true(rpl_product_find("MI300X")->vector_fp64_tflops < 81.8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(finds_by_name_and_target_id),
        cmocka_unit_test(finds_nvidia_spellings),
        cmocka_unit_test(finds_by_numbers),
        cmocka_unit_test(parses_name_lists),
        cmocka_unit_test(tables_are_consistent),
        cmocka_unit_test(unified_register_files_match_llvm),
        cmocka_unit_test(matches_agent_product_names),
        cmocka_unit_test(products_name_known_archs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
