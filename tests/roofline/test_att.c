/*
 * ATT reading: ISA classes, code.json features, and folders that are
 * missing or malformed (skipped with a warning, never an error).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/att.h"
#include "rpl/error.h"
#include "rpl/log.h"

#define ATT_DIR RPL_ROOFLINE_FIXTURES "/att"

static void test_isa_classes(void **state)
{
    static const struct {
        const char *isa;
        rpl_isa_class c;
    } cases[] = {
        {"v_fma_f32 v1, v2, v3, v4", RPL_ISA_VALU},
        {"  V_ADD_F64 v[0:1], v[2:3], v[4:5]", RPL_ISA_VALU},
        {"v_mfma_f32_32x32x8bf16_1k a[0:15], v[0:1], v[2:3], a[0:15]", RPL_ISA_MFMA},
        {"v_wmma_f32_16x16x16_f16 v[0:7], v[8:11], v[12:15], v[0:7]", RPL_ISA_MFMA},
        {"s_add_u32 s0, s1, s2", RPL_ISA_SALU},
        {"global_load_dwordx4 v[0:3], v[4:5], off", RPL_ISA_VMEM},
        {"buffer_store_dword v0, v1, s[0:3], 0 offen", RPL_ISA_VMEM},
        {"flat_load_dword v0, v[1:2]", RPL_ISA_VMEM},
        {"s_load_dwordx2 s[0:1], s[4:5], 0x0", RPL_ISA_SMEM},
        {"s_buffer_load_dword s0, s[4:7], 0x10", RPL_ISA_SMEM},
        {"ds_read_b128 v[0:3], v4", RPL_ISA_LDS},
        {"s_cbranch_execz BB0_3", RPL_ISA_BRANCH},
        {"s_branch BB0_1", RPL_ISA_BRANCH},
        {"s_waitcnt vmcnt(0) lgkmcnt(0)", RPL_ISA_WAITCNT},
        {"s_barrier", RPL_ISA_WAITCNT},
        {"", RPL_ISA_OTHER},
        {"; vecCopy", RPL_ISA_OTHER},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        if (rpl_isa_classify(cases[i].isa) != cases[i].c)
            fail_msg("'%s' classified %s, expected %s", cases[i].isa,
                     rpl_isa_class_name(rpl_isa_classify(cases[i].isa)),
                     rpl_isa_class_name(cases[i].c));
    assert_true(rpl_isa_sets_exec("s_and_saveexec_b64 s[0:1], vcc"));
    assert_true(rpl_isa_sets_exec("v_cmpx_gt_f32 vcc, v0, v1"));
    assert_false(rpl_isa_sets_exec("v_cmp_gt_f32 vcc, v0, v1"));
}

static void test_parse(void **state)
{
    const char *text = "{\"code\":[[\"; k\",0,0,\"k\",0,0,0,0,0,0],"
                       "[\"global_load_dword v0, v[1:2], off\",0,1,\"a:1\",1,0,10,200,100,0],"
                       "[\"s_waitcnt vmcnt(0)\",0,2,\"a:1\",1,8,10,600,500,0],"
                       "[\"v_add_f32 v0, v0, v0\",0,3,\"a:2\",1,16,20,100,0,50],"
                       "[\"s_and_saveexec_b64 s[0:1], vcc\",0,4,\"a:3\",1,24,10,100,0,50]]}";
    rpl_att_features f;

    (void)state;
    assert_int_equal(rpl_att_parse_code_json(&f, text, strlen(text)), 0);
    assert_string_equal(f.kernel, "k");
    assert_true(f.total_hits == 50);
    assert_true(fabs(f.mix[RPL_ISA_VMEM] - 0.2) < 1e-12);
    assert_true(fabs(f.mix[RPL_ISA_VALU] - 0.4) < 1e-12); /* v_add and nothing else */
    assert_true(fabs(f.mix[RPL_ISA_SALU] - 0.2) < 1e-12);
    assert_true(f.exec_hits == 10);
    assert_true(fabs(f.stall_fraction - 600.0 / 1000) < 1e-12);
    assert_true(fabs(f.idle_fraction - 100.0 / 1100) < 1e-12);
    assert_true(fabs(f.ipc - 50.0 / 1100) < 1e-12);
    assert_true(fabs(f.mem_latency_cycles - 800.0 / 10) < 1e-12);
    /* The hottest instructions: most latency cycles first, with their source line. */
    assert_int_equal(f.nhot, 4);
    assert_string_equal(f.hot[0].isa, "s_waitcnt vmcnt(0)");
    assert_string_equal(f.hot[0].source, "a:1");
    assert_true(f.hot[0].latency == 600 && f.hot[0].stall == 500 && f.hot[0].hits == 10);
    assert_true(f.hot[0].vaddr == 8);
    assert_string_equal(f.hot[1].isa, "global_load_dword v0, v[1:2], off");
}

static void test_parse_malformed(void **state)
{
    static const char *const bad[] = {
        "",
        "{",
        "[]",
        "{\"code\":{}}",
        "{\"code\":[[\"v_add_f32\",0,1]]}",
        "{\"code\":[[1,0,1,\"\",1,0,1,1,0,0]]}",
        "{\"code\":[[\"v_add_f32\",0,1,\"\",1,0,\"many\",1,0,0]]}",
        "{\"code\":[[\"v_add_f32\",0,1,\"\",1,0,1,-1,0,0]]}",
        "{\"code\":[]}",
        "{\"code\":[[\"; only a header\",0,0,\"\",0,0,0,0,0,0]]}",
    };
    rpl_att_features f;

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (rpl_att_parse_code_json(&f, bad[i], strlen(bad[i])) != RPL_EINPUT)
            fail_msg("accepted malformed code.json #%zu: %s", i, bad[i]);
}

/* PC-sampling output has code rows without counts: told apart, not "no instruction". */
static void test_parse_pc_sampling(void **state)
{
    static const char *const pcs[] = {
        "{\"code\":[[\"v_add_f32\",0,1,\"\",1,4096,0,0,0,0]],\"pc_samples\":[[4096,3]]}",
        "{\"code\":[[\"v_add_f32\",0,1,\"\",1,4096,0,0,0,0]],\"header\":\"ISA, Samples\"}",
    };
    const char *plain = "{\"code\":[[\"v_add_f32\",0,1,\"\",1,4096,0,0,0,0]]}";
    rpl_att_features f;

    (void)state;
    for (size_t i = 0; i < sizeof(pcs) / sizeof(pcs[0]); i++) {
        assert_int_equal(rpl_att_parse_code_json(&f, pcs[i], strlen(pcs[i])), RPL_EUSAGE);
        assert_non_null(strstr(rpl_error_last()->message, "PC-sampling output"));
    }
    assert_int_equal(rpl_att_parse_code_json(&f, plain, strlen(plain)), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "no executed instruction"));
}

static void test_read_folders(void **state)
{
    rpl_att_set set;

    (void)state;
    rpl_log_set_level(RPL_LOG_ERROR); /* the skipped folders warn */
    assert_int_equal(rpl_att_read(&set, ATT_DIR), 0);
    assert_int_equal(set.count, 3);    /* dispatches 4, 26, 999 */
    assert_int_equal(set.warnings, 2); /* 5: negative hit count, 6: no code.json */
    assert_true(set.items[0].dispatch_id == 4 && set.items[1].dispatch_id == 26 &&
                set.items[2].dispatch_id == 999);
    assert_true(set.items[1].mix[RPL_ISA_MFMA] > 0.4);
    rpl_att_set_release(&set);

    assert_int_equal(rpl_att_read(&set, ATT_DIR "/ui_output_agent_16744_dispatch_26"), 0);
    assert_int_equal(set.count, 1);
    assert_string_equal(set.items[0].kernel, "_Z9gemm_bf16PK6bf16_tS1_Pf");
    rpl_att_set_release(&set);

    assert_int_equal(rpl_att_read(&set, ATT_DIR "/no_such_folder"), 0);
    assert_int_equal(set.count, 0);
    assert_int_equal(set.warnings, 1);
    rpl_att_set_release(&set);
}

static void test_merge(void **state)
{
    rpl_att_features a = {0}, b = {0};

    (void)state;
    a.hits[RPL_ISA_VALU] = 10;
    a.total_hits = 10;
    a.latency = 100;
    b.hits[RPL_ISA_VMEM] = 30;
    b.total_hits = 30;
    b.latency = 300;
    b.stall = 200;
    b.mem_latency_sum = 300;
    /* the same instruction sums; the coldest falls out past RPL_ATT_HOT */
    for (int i = 0; i < RPL_ATT_HOT; i++) {
        snprintf(a.hot[i].isa, sizeof(a.hot[i].isa), "v_add_f32 v%d", i);
        a.hot[i].vaddr = 4 * i;
        a.hot[i].latency = 50 - i;
    }
    a.nhot = RPL_ATT_HOT;
    b.hot[0] = (rpl_att_hot){"v_add_f32 v4", "", 16, 1, 100, 0};
    b.hot[1] = (rpl_att_hot){"global_load_dword v9", "", 40, 1, 48.5, 40}; /* past v2's 48 */
    b.nhot = 2;
    rpl_att_features_add(&a, &b);
    assert_int_equal(a.nhot, RPL_ATT_HOT);
    assert_string_equal(a.hot[0].isa, "v_add_f32 v4"); /* 46 + 100 */
    assert_true(a.hot[0].latency == 146);
    assert_string_equal(a.hot[1].isa, "v_add_f32 v0");
    assert_string_equal(a.hot[3].isa, "global_load_dword v9");
    assert_string_equal(a.hot[4].isa, "v_add_f32 v2"); /* v3 (47) fell out */
    assert_true(a.total_hits == 40);
    assert_true(fabs(a.mix[RPL_ISA_VMEM] - 0.75) < 1e-12);
    assert_true(fabs(a.stall_fraction - 0.5) < 1e-12);
    assert_true(fabs(a.mem_latency_cycles - 10) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_isa_classes),     cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_malformed), cmocka_unit_test(test_read_folders),
        cmocka_unit_test(test_merge),           cmocka_unit_test(test_parse_pc_sampling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
