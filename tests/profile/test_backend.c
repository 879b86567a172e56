/* Backend selection, GPU detection on fake trees, counter plans, the rocprofv3 command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/json.h"
#include "rpl/profile_backend.h"

static void put_file(const char *root, const char *rel, const char *text)
{
    char *path = NULL, *slash;

    assert_int_equal(rpl_path_join(&path, root, rel), 0);
    slash = strrchr(path, '/');
    *slash = '\0';
    assert_int_equal(rpl_mkdir_p(path), 0);
    *slash = '/';
    assert_int_equal(rpl_file_write_atomic(path, text, strlen(text)), 0);
    free(path);
}

/* A fresh fake root below the test's build directory. */
static const char *fake_root(const char *name)
{
    static char root[1024];
    char cmd[1200];

    snprintf(root, sizeof(root), "%s/fake_roots/%s", RPL_TEST_TMP, name);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    assert_int_equal(system(cmd), 0);
    assert_int_equal(rpl_mkdir_p(root), 0);
    return root;
}

static void probe_amd(void **state)
{
    const char *root = fake_root("amd");
    rpl_gpu_probe p;
    rpl_backend b;

    (void)state;
    put_file(root, "dev/kfd", "");
    /* Node 0 is the CPU; node 1 an MI300X; node 10 sorts after 2 numerically. */
    put_file(root, "sys/class/kfd/kfd/topology/nodes/0/properties",
             "cpu_cores_count 96\nsimd_count 0\ngfx_target_version 0\n");
    put_file(root, "sys/class/kfd/kfd/topology/nodes/10/properties",
             "simd_count 440\ngfx_target_version 90010\n");
    put_file(root, "sys/class/kfd/kfd/topology/nodes/2/properties",
             "cpu_cores_count 0\nsimd_count 1216\ngfx_target_version 90402\n");
    assert_int_equal(rpl_gpu_probe_run(&p, root), 0);
    assert_true(p.amd);
    assert_false(p.nvidia);
    assert_string_equal(p.amd_arch, "gfx942");
    assert_int_equal(rpl_backend_select(&b, RPL_BACKEND_AUTO, &p), 0);
    assert_int_equal(b, RPL_BACKEND_ROCPROFV3);
}

static void probe_nvidia_and_none(void **state)
{
    const char *root = fake_root("nvidia");
    rpl_gpu_probe p;
    rpl_backend b;

    (void)state;
    /* A KFD with only a CPU node is no AMD GPU. */
    put_file(root, "dev/kfd", "");
    put_file(root, "sys/class/kfd/kfd/topology/nodes/0/properties", "simd_count 0\n");
    put_file(root, "proc/driver/nvidia/gpus/0000:65:00.0/information", "Model: H100\n");
    put_file(root, "proc/driver/nvidia/gpus/0000:c1:00.0/information",
             "Model: NVIDIA A100-SXM4-80GB\n");
    assert_int_equal(rpl_gpu_probe_run(&p, root), 0);
    assert_false(p.amd);
    assert_true(p.nvidia);
    assert_string_equal(p.nvidia_arch, "sm_90"); /* the lowest bus id's, from its model */
    assert_int_equal(rpl_backend_select(&b, RPL_BACKEND_AUTO, &p), 0);
    assert_int_equal(b, RPL_BACKEND_CUPTI);

    root = fake_root("none");
    assert_int_equal(rpl_gpu_probe_run(&p, root), 0);
    assert_false(p.amd || p.nvidia);
    assert_string_equal(p.nvidia_arch, "");
    assert_int_equal(rpl_backend_select(&b, RPL_BACKEND_AUTO, &p), RPL_ENODEV);
    assert_non_null(strstr(rpl_error_last()->message, "no AMD or NVIDIA GPU found"));
    assert_non_null(strstr(rpl_error_last()->message, "/dev/kfd not found"));
    /* An explicit backend is kept: its own tool says what is missing. */
    assert_int_equal(rpl_backend_select(&b, RPL_BACKEND_CUPTI, &p), 0);
    assert_int_equal(b, RPL_BACKEND_CUPTI);
    assert_int_equal(rpl_backend_parse(&b, "rocprofv3"), 0);
    assert_int_equal(b, RPL_BACKEND_ROCPROFV3);
    assert_int_equal(rpl_backend_parse(&b, "nsight"), RPL_EUSAGE);
}

static void gfx_names(void **state)
{
    char buf[16];

    (void)state;
    assert_int_equal(rpl_gfx_name(buf, sizeof(buf), 90010), 0);
    assert_string_equal(buf, "gfx90a");
    assert_int_equal(rpl_gfx_name(buf, sizeof(buf), 90500), 0);
    assert_string_equal(buf, "gfx950");
    assert_int_equal(rpl_gfx_name(buf, sizeof(buf), 100300), 0);
    assert_string_equal(buf, "gfx1030");
    assert_int_equal(rpl_gfx_name(buf, sizeof(buf), 0), RPL_EINPUT);
}

/* The pass holding `name`, or -1. */
static int pass_of(const rpl_counter_plan *p, const char *name)
{
    for (uint32_t i = 0; i < p->npasses; i++)
        for (uint32_t j = 0; j < p->passes[i].count; j++)
            if (strcmp(p->passes[i].names[j], name) == 0)
                return (int)i;
    return -1;
}

/* No pass holds more than the block limits: SQ 8, TCC 4. */
static void check_limits(const rpl_counter_plan *p)
{
    for (uint32_t i = 0; i < p->npasses; i++) {
        int sq = 0, tcc = 0;
        for (uint32_t j = 0; j < p->passes[i].count; j++) {
            sq += strncmp(p->passes[i].names[j], "SQ_", 3) == 0;
            tcc += strncmp(p->passes[i].names[j], "TCC_", 4) == 0;
        }
        assert_true(sq <= 8);
        assert_true(tcc <= 4);
    }
}

static void roofline_plans(void **state)
{
    rpl_counter_plan *p;

    (void)state;
    assert_int_equal(rpl_counter_plan_make(&p, "roofline", "gfx942"), 0);
    assert_int_equal(p->npasses, 3);
    check_limits(p);
    /* Counters of one byte formula share a pass. */
    assert_int_equal(pass_of(p, "TCC_EA0_RDREQ_sum"), pass_of(p, "TCC_BUBBLE_sum"));
    assert_int_equal(pass_of(p, "TCC_EA0_RDREQ_sum"), pass_of(p, "TCC_EA0_RDREQ_32B_sum"));
    assert_int_equal(pass_of(p, "TCC_EA0_WRREQ_sum"), pass_of(p, "TCC_EA0_WRREQ_64B_sum"));
    assert_int_equal(pass_of(p, "SQ_INSTS_VALU_ADD_F16"), 0);
    assert_int_equal(pass_of(p, "SQ_INSTS_VALU_MFMA_MOPS_F8"), 2);
    assert_int_equal(p->passes[0].count + p->passes[1].count + p->passes[2].count, 12 + 5 + 5);
    rpl_counter_plan_free(p);

    assert_int_equal(rpl_counter_plan_make(&p, "roofline", "gfx90a"), 0);
    assert_int_equal(p->npasses, 2);
    check_limits(p);
    assert_true(pass_of(p, "TCC_EA_WRREQ_64B_sum") >= 0);
    assert_int_equal(pass_of(p, "TCC_BUBBLE_sum"), -1);
    rpl_counter_plan_free(p);

    assert_int_equal(rpl_counter_plan_make(&p, "roofline", "gfx950"), 0);
    check_limits(p);
    assert_true(pass_of(p, "TCC_EA0_RDREQ_128B_sum") >= 0);
    assert_true(pass_of(p, "SQ_INSTS_VALU_MFMA_MOPS_F6F4") >= 0);
    assert_int_equal(pass_of(p, "TCC_BUBBLE_sum"), -1);
    rpl_counter_plan_free(p);

    assert_int_equal(rpl_counter_plan_make(&p, "roofline", "gfx1030"), RPL_ENOTFOUND);
    assert_non_null(strstr(rpl_error_last()->message, "'gfx1030'"));
    assert_int_equal(rpl_counter_plan_make(&p, "none", NULL), 0);
    assert_int_equal(p->npasses, 0);
    rpl_counter_plan_free(p);
}

static void list_plans(void **state)
{
    rpl_counter_plan *p;

    (void)state;
    /* Nine SQ counters need two passes; GRBM fits beside them; duplicates drop. */
    assert_int_equal(rpl_counter_plan_make(&p,
                                           "SQ_A,SQ_B SQ_C,SQ_D,SQ_E,SQ_F,SQ_G,SQ_H,SQ_I,"
                                           "GRBM_COUNT,SQ_A",
                                           NULL),
                     0);
    assert_int_equal(p->npasses, 2);
    assert_int_equal(p->passes[0].count, 9);
    assert_int_equal(p->passes[1].count, 1);
    assert_string_equal(p->passes[1].names[0], "SQ_I");
    rpl_counter_plan_free(p);
    /* Blocks not in the table: one per pass. */
    assert_int_equal(rpl_counter_plan_make(&p, "FETCH_SIZE,FETCH_OTHER", NULL), 0);
    assert_int_equal(p->npasses, 2);
    rpl_counter_plan_free(p);
    assert_int_equal(rpl_counter_plan_make(&p, "SQ_WAVES;rm -rf", NULL), RPL_EUSAGE);
    assert_int_equal(rpl_counter_plan_make(&p, " , ", NULL), RPL_EUSAGE);
}

static void passes_json(void **state)
{
    rpl_counter_plan *p;
    cJSON *doc, *jobs;
    char *text;

    (void)state;
    assert_int_equal(rpl_counter_plan_make(&p, "roofline", "gfx942"), 0);
    assert_int_equal(rpl_rocprofv3_passes_json(&text, p), 0);
    doc = cJSON_Parse(text);
    assert_non_null(doc);
    jobs = cJSON_GetObjectItemCaseSensitive(doc, "jobs");
    assert_int_equal(cJSON_GetArraySize(jobs), 3);
    for (int i = 0; i < 3; i++) {
        cJSON *pmc = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(jobs, i), "pmc");
        assert_int_equal(cJSON_GetArraySize(pmc), (int)p->passes[i].count);
        assert_string_equal(cJSON_GetArrayItem(pmc, 0)->valuestring, p->passes[i].names[0]);
    }
    cJSON_Delete(doc);
    free(text);
    rpl_counter_plan_free(p);
}

static void rocprofv3_argv(void **state)
{
    static const char *const app[] = {"./bench", "--size", "4096", NULL};
    static const char *const want[] = {"/opt/rocm/bin/rocprofv3",
                                       "--kernel-trace",
                                       "--memory-copy-trace",
                                       "--hip-runtime-trace",
                                       "--output-format",
                                       "rocpd",
                                       "-d",
                                       "out/rocprofv3",
                                       "-o",
                                       "%hostname%/%pid%",
                                       "--kernel-include-regex",
                                       "gemm.*",
                                       "--kernel-iteration-range",
                                       "[4-6]",
                                       "--att",
                                       "-i",
                                       "passes.json",
                                       "--",
                                       "./bench",
                                       "--size",
                                       "4096",
                                       NULL};
    rpl_rocprofv3_cmd cmd = {"/opt/rocm/bin/rocprofv3",
                             "out/rocprofv3",
                             "rocpd",
                             "passes.json",
                             "gemm.*",
                             "[4-6]",
                             true,
                             app,
                             NULL};
    const char **argv;
    size_t i;

    (void)state;
    assert_int_equal(rpl_rocprofv3_argv(&argv, &cmd), 0);
    for (i = 0; want[i]; i++)
        assert_string_equal(argv[i], want[i]);
    assert_null(argv[i]);
    free(argv);
    /* Trace only: no -i, no regex, no sample, no --att. */
    cmd.input_file = NULL;
    cmd.kernel_regex = NULL;
    cmd.iteration_range = NULL;
    cmd.att = false;
    assert_int_equal(rpl_rocprofv3_argv(&argv, &cmd), 0);
    for (i = 0; argv[i]; i++) {
        assert_string_not_equal(argv[i], "-i");
        assert_string_not_equal(argv[i], "--att");
        assert_string_not_equal(argv[i], "--kernel-iteration-range");
    }
    assert_int_equal(i, 14);
    free(argv);
    /* ROCm 6.x: CSV output named by pid only. */
    cmd.output_format = "csv";
    cmd.output_file = "%pid%";
    assert_int_equal(rpl_rocprofv3_argv(&argv, &cmd), 0);
    assert_string_equal(argv[5], "csv");
    assert_string_equal(argv[9], "%pid%");
    free(argv);
}

static void passes_text(void **state)
{
    rpl_counter_plan *p;
    char *text, *line2;

    (void)state;
    assert_int_equal(
        rpl_counter_plan_make(&p, "SQ_A,SQ_B,SQ_C,SQ_D,SQ_E,SQ_F,SQ_G,SQ_H,SQ_I", NULL), 0);
    assert_int_equal(rpl_rocprofv3_passes_text(&text, p), 0);
    line2 = strchr(text, '\n');
    assert_non_null(line2);
    assert_memory_equal(text, "pmc: SQ_A SQ_B SQ_C SQ_D SQ_E SQ_F SQ_G SQ_H\n", line2 - text + 1);
    assert_string_equal(line2 + 1, "pmc: SQ_I\n");
    free(text);
    rpl_counter_plan_free(p);
}

/* The GPU list of `rocm-perf gpus`: AMD nodes with SIMDs by number, then NVIDIA GPUs by bus id. */
static void gpu_list_and_spec(void **state)
{
    const char *root = fake_root("list");
    rpl_gpu_list *list = malloc(sizeof(*list));
    char *spec = NULL;
    cJSON *doc = NULL;
    const cJSON *gpus;

    (void)state;
    assert_non_null(list);
    put_file(root, "dev/kfd", "");
    put_file(root, "sys/class/kfd/kfd/topology/nodes/0/properties", "simd_count 0\n");
    put_file(root, "sys/class/kfd/kfd/topology/nodes/10/properties",
             "simd_count 440\ngfx_target_version 90010\n");
    put_file(root, "sys/class/kfd/kfd/topology/nodes/2/properties",
             "simd_count 1216\ngfx_target_version 90402\n");
    put_file(root, "sys/class/kfd/kfd/topology/nodes/3/properties",
             "simd_count 4\ngfx_target_version 7\n"); /* no AMD version: arch unknown */
    put_file(root, "proc/driver/nvidia/gpus/0000:c1:00.0/information",
             "Model: NVIDIA A100-SXM4-80GB\n");
    put_file(root, "proc/driver/nvidia/gpus/0000:65:00.0/information", "Model: H100\n");
    rpl_gpu_list_scan(list, root);
    assert_true(list->kfd);
    assert_int_equal(list->count, 5);
    assert_string_equal(list->gpus[0].vendor, "amd");
    assert_string_equal(list->gpus[0].arch, "gfx942");
    assert_string_equal(list->gpus[0].source, "/sys/class/kfd/kfd/topology/nodes/2");
    assert_string_equal(list->gpus[1].arch, "");
    assert_string_equal(list->gpus[2].arch, "gfx90a");
    assert_string_equal(list->gpus[3].vendor, "nvidia");
    assert_string_equal(list->gpus[3].model, "H100");
    assert_string_equal(list->gpus[3].arch, "sm_90");
    assert_string_equal(list->gpus[3].source, "/proc/driver/nvidia/gpus/0000:65:00.0");
    assert_string_equal(list->gpus[4].arch, "sm_80");

    /* One slot per GPU, ids counting from 0 in list order. */
    assert_int_equal(rpl_path_join(&spec, root, "spec.json"), 0);
    assert_int_equal(rpl_gpu_resource_spec_write(spec, list), 0);
    assert_int_equal(rpl_json_parse_file(&doc, spec, 1 << 20), 0);
    gpus = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "local"), 0), "gpus");
    assert_int_equal(cJSON_GetArraySize(gpus), 5);
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(gpus, 4), "id")->valuestring, "4");
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(gpus, 4), "slots")->valueint, 1);
    cJSON_Delete(doc);

    /* Without /proc/driver/nvidia: the device nodes, as far as they are numbered without a gap. */
    root = fake_root("devnodes");
    put_file(root, "dev/nvidia0", "");
    put_file(root, "dev/nvidia1", "");
    put_file(root, "dev/nvidia3", "");
    rpl_gpu_list_scan(list, root);
    assert_false(list->kfd);
    assert_int_equal(list->count, 2);
    assert_string_equal(list->gpus[1].source, "/dev/nvidia1");
    assert_string_equal(list->gpus[1].arch, "");
    free(spec);
    free(list);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(probe_amd),         cmocka_unit_test(probe_nvidia_and_none),
        cmocka_unit_test(gpu_list_and_spec), cmocka_unit_test(gfx_names),
        cmocka_unit_test(roofline_plans),    cmocka_unit_test(list_plans),
        cmocka_unit_test(passes_json),       cmocka_unit_test(rocprofv3_argv),
        cmocka_unit_test(passes_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
