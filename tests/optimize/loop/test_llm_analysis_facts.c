/* The prompt's facts from `analyze --out DIR` (rpl/llm_analysis.h): matching, text, bad files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/llm_analysis.h"

/* Two kernels of a C++ program, as `analyze --out` names them (trimmed to what is read). */
static const char ROOFLINE[] =
    "{\"schema_version\": \"1.0\", \"units\": \"\", \"ceilings\": [], \"kernels\": ["
    "{\"kernel\": \"void scale<64>(float*, int)\", \"mangled\": \"_Z5scaleILi64EEvPfi\","
    " \"time_ns\": 2000, \"arithmetic_intensity\": 0.25, \"gflops\": 100, \"gbps\": 400,"
    " \"bound\": \"memory\", \"roof_fraction\": 0.25, \"dispatches\": 10,"
    " \"dispatches_with_counters\": 8, \"reason\": null, \"roofline\": {\"peak_gflops\": 20000,"
    " \"peak_gbps\": 1600, \"ridge_point\": 12.5, \"bandwidth_fraction\": 0.25,"
    " \"compute_fraction\": 0.005, \"exceeds_roof\": false}},"
    "{\"kernel\": \"shift(float*, int)\", \"mangled\": \"_Z5shiftPfi\", \"time_ns\": 500,"
    " \"arithmetic_intensity\": null, \"gflops\": null, \"gbps\": null, \"bound\": null,"
    " \"roof_fraction\": null, \"dispatches\": 10, \"dispatches_with_counters\": 0,"
    " \"roofline\": null, \"reason\": \"counters missing\"}]}";

static const char ANALYSIS[] =
    "{\"schema_version\": \"1.0\", \"critical_path_ns\": 3000, \"att\": null, \"kernels\": ["
    "{\"kernel\": \"void scale<64>(float*, int)\", \"bottleneck\": \"memory_bandwidth\","
    " \"confidence\": 0.8, \"headroom\": 0.75, \"critical_path_fraction\": 0.6,"
    " \"evidence\": [\"HBM at 25% of its roof\", \"line\\nbreak\"],"
    " \"facts\": {\"occupancy\": 0.5}, \"att\": {\"instruction_mix\": {\"valu\": 0.5,"
    " \"salu\": 0.005, \"vmem\": 0.3, \"waitcnt\": 0.195}, \"instructions\": 12345,"
    " \"exec_mask_fraction\": 0, \"stall_fraction\": 0.4, \"idle_fraction\": 0.1,"
    " \"ipc\": 0.42, \"mem_latency_cycles\": 480, \"hottest\": ["
    "{\"isa\": \"s_waitcnt vmcnt(0)\", \"source\": \"kern.hip:12\", \"hits\": 1200,"
    " \"latency_cycles\": 50000, \"stall_cycles\": 42500, \"latency_fraction\": 0.38},"
    "{\"isa\": \"global_load_dword v1, v[2:3], off\", \"source\": \"\", \"hits\": 1200,"
    " \"latency_cycles\": 20000, \"stall_cycles\": 0, \"latency_fraction\": 0.152}]}},"
    "{\"kernel\": \"shift(float*, int)\", \"bottleneck\": \"latency\", \"confidence\": 0.5,"
    " \"evidence\": [\"short dispatches\"], \"facts\": {\"occupancy\": null}, \"att\": null}]}";

static rpl_llm_analysis *parse(const char *roofline, const char *analysis)
{
    rpl_llm_analysis *a = NULL;

    if (rpl_llm_analysis_parse(&a, roofline, strlen(roofline), "d/roofline.json", analysis,
                               strlen(analysis), "d/analysis.json") != 0)
        fail_msg("parse: %s", rpl_error_last()->message);
    return a;
}

static void expect_in(const char *text, const char *needle)
{
    if (!text || !strstr(text, needle))
        fail_msg("'%s' lacks '%s'", text ? text : "(null)", needle);
}

static void facts_of_the_target(void **state)
{
    rpl_llm_analysis *a = parse(ROOFLINE, ANALYSIS);
    rpl_llm_facts f = {0};

    (void)state;
    /* The loop's plain name finds the template instance through its short name. */
    assert_int_equal(rpl_llm_analysis_facts(a, "scale", 0, &f), 0);
    expect_in(f.roofline, "Measured on the original kernel (the version below)");
    expect_in(f.roofline, "- 10 dispatches, 8 of them with counters\n");
    expect_in(f.roofline, "- arithmetic intensity 0.25 FLOP/byte (the ridge point is at 12.5)\n");
    expect_in(f.roofline, "- achieved 100.0 GFLOP/s and 400.0 GB/s (HBM)\n");
    expect_in(f.roofline, "- memory-bound: the HBM bandwidth roof of 1600.0 GB/s binds; the "
                          "kernel reaches 25.0% of it");
    expect_in(f.bottleneck, "- memory bandwidth (confidence 0.80)\n");
    expect_in(f.bottleneck, "- evidence: HBM at 25% of its roof\n");
    expect_in(f.bottleneck, "- evidence: line break"); /* no line of the file's own making */
    expect_in(f.bottleneck, "- occupancy 50% of the waves a CU can hold\n");
    expect_in(f.bottleneck, "would save 75.0% of its time");
    /* Largest class first; below 1% left out. */
    expect_in(f.att, "- instruction mix of the traced waves: valu 50.0%, vmem 30.0%, waitcnt "
                     "19.5%\n");
    expect_in(f.att, "- stalls: 40.0% of the instructions' latency\n");
    expect_in(f.att, "- 0.42 instructions per wave cycle\n");
    expect_in(f.att, "wait 480 cycles on average\n- the instructions of the most latency cycles:\n"
                     "  - `s_waitcnt vmcnt(0)` (kern.hip:12): 38.0% of the latency cycles, 85% "
                     "of them stalls, 1200 executions\n"
                     "  - `global_load_dword v1, v[2:3], off`: 15.2% of the latency cycles, 0% "
                     "of them stalls, 1200 executions");
    assert_null(f.arch_facts);
    assert_null(f.critical_path);
    rpl_llm_facts_release(&f);
    rpl_llm_analysis_free(a);
}

static void names_that_match(void **state)
{
    static const char *const scale[] = {"void scale<64>(float*, int)", "_Z5scaleILi64EEvPfi",
                                        "scale(float*, int)", "scale<64>"};
    static const char *const shift[] = {"shift", "_Z5shiftPfi", "shift(float*, int)"};
    rpl_llm_analysis *a = parse(ROOFLINE, ANALYSIS);

    (void)state;
    for (size_t i = 0; i < sizeof(scale) / sizeof(scale[0]); i++) {
        rpl_llm_facts f = {0};
        assert_int_equal(rpl_llm_analysis_facts(a, scale[i], 0, &f), 0);
        expect_in(f.roofline, "400.0 GB/s");
        rpl_llm_facts_release(&f);
    }
    for (size_t i = 0; i < sizeof(shift) / sizeof(shift[0]); i++) {
        rpl_llm_facts f = {0};
        assert_int_equal(rpl_llm_analysis_facts(a, shift[i], 0, &f), 0);
        /* No counters: the roofline says why; no ATT. */
        expect_in(f.roofline, "- no roofline: counters missing");
        expect_in(f.bottleneck, "- latency (confidence 0.50)");
        assert_null(f.att);
        rpl_llm_facts_release(&f);
    }
    rpl_llm_analysis_free(a);
}

static void kernel_not_analysed(void **state)
{
    rpl_llm_analysis *a = parse(ROOFLINE, ANALYSIS);
    rpl_llm_facts f = {0};

    (void)state;
    assert_int_equal(rpl_llm_analysis_facts(a, "gemm", 0, &f), RPL_ENOTFOUND);
    assert_int_equal(rpl_llm_analysis_facts(a, "sca", 0, &f), RPL_ENOTFOUND);
    assert_int_equal(rpl_llm_analysis_facts(a, "ns::scale", 0, &f), RPL_ENOTFOUND);
    assert_null(f.roofline);
    assert_null(f.bottleneck);
    assert_null(f.att);
    rpl_llm_analysis_free(a);
}

static void after_accepted_changes(void **state)
{
    rpl_llm_analysis *a = parse(ROOFLINE, ANALYSIS);
    rpl_llm_facts f = {0};

    (void)state;
    assert_int_equal(rpl_llm_analysis_facts(a, "scale", 2, &f), 0);
    expect_in(f.roofline, "before the 2 accepted changes of this run: the version below may "
                          "behave differently");
    expect_in(f.bottleneck, "Measured on the original kernel");
    expect_in(f.att, "Measured on the original kernel");
    rpl_llm_facts_release(&f);
    rpl_llm_analysis_free(a);
}

static void bad_files(void **state)
{
    static const struct {
        const char *roofline, *analysis, *message;
    } cases[] = {
        {"{", ANALYSIS, "d/roofline.json: malformed JSON"},
        {ROOFLINE, "", "d/analysis.json: empty JSON document"},
        {"[]", ANALYSIS, "d/roofline.json: not a file of 'rocm-perf analyze --out'"},
        {ROOFLINE, "{\"kernels\": {}}", "d/analysis.json: not a file of"},
        {"{\"schema_version\": \"2.0\", \"kernels\": []}", ANALYSIS, "schema_version is not 1.x"},
        {"{\"kernels\": [{\"kernel\": 3}]}", ANALYSIS,
         "d/roofline.json: kernels[0] is not an object with a \"kernel\" name"},
        {"{\"kernels\": [{\"kernel\": \"k\", \"gbps\": \"fast\"}]}", ANALYSIS,
         "d/roofline.json: kernels[0].gbps must be a number or null"},
        {"{\"kernels\": [{\"kernel\": \"k\", \"roofline\": {\"peak_gbps\": true}}]}", ANALYSIS,
         "d/roofline.json: kernels[0].roofline.peak_gbps must be a number or null"},
        {ROOFLINE, "{\"kernels\": [{\"kernel\": \"k\"}, {\"kernel\": \"k\", \"evidence\": [1]}]}",
         "d/analysis.json: kernels[1].evidence must be an array of strings"},
        {ROOFLINE,
         "{\"kernels\": [{\"kernel\": \"k\", \"att\": {\"instruction_mix\": {\"valu\": \"x\"}}}]}",
         "d/analysis.json: kernels[0].att.instruction_mix values must be numbers"},
        {ROOFLINE, "{\"kernels\": [{\"kernel\": \"k\", \"att\": {\"hottest\": {}}}]}",
         "d/analysis.json: kernels[0].att.hottest must be an array"},
        {ROOFLINE, "{\"kernels\": [{\"kernel\": \"k\", \"att\": {\"hottest\": [{\"isa\": 1}]}}]}",
         "d/analysis.json: kernels[0].att.hottest[0].isa must be a string"},
        {ROOFLINE, "{\"kernels\": [{\"kernel\": \"k\", \"confidence\": 1e999}]}",
         "kernels[0].confidence must be a number or null"},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        rpl_llm_analysis *a = (rpl_llm_analysis *)&a; /* must be reset */
        int rc = rpl_llm_analysis_parse(&a, cases[i].roofline, strlen(cases[i].roofline),
                                        "d/roofline.json", cases[i].analysis,
                                        strlen(cases[i].analysis), "d/analysis.json");
        assert_int_equal(rc, RPL_EINPUT);
        assert_null(a);
        expect_in(rpl_error_last()->message, cases[i].message);
        assert_null(strchr(rpl_error_last()->message, '\n'));
    }
}

static void load_folder(void **state)
{
    char *dir = NULL, *path = NULL;
    rpl_llm_analysis *a = NULL;
    rpl_llm_facts f = {0};

    (void)state;
    assert_int_equal(rpl_path_join(&dir, RPL_TEST_TMP, "llm-analysis"), 0);
    assert_int_equal(rpl_mkdir_p(dir), 0);
    assert_int_equal(rpl_path_join(&path, dir, "roofline.json"), 0);
    assert_int_equal(rpl_file_write_atomic(path, ROOFLINE, strlen(ROOFLINE)), 0);
    free(path);
    assert_int_equal(rpl_path_join(&path, dir, "analysis.json"), 0);
    remove(path);
    /* analysis.json missing: named, with the way to make it */
    assert_int_equal(rpl_llm_analysis_load(&a, dir), RPL_ENOTFOUND);
    expect_in(rpl_error_last()->message, path);
    expect_in(rpl_error_last()->message, "rocm-perf analyze --out");
    assert_int_equal(rpl_file_write_atomic(path, ANALYSIS, strlen(ANALYSIS)), 0);
    assert_int_equal(rpl_llm_analysis_load(&a, dir), 0);
    assert_int_equal(rpl_llm_analysis_facts(a, "scale", 0, &f), 0);
    expect_in(f.bottleneck, "memory bandwidth");
    rpl_llm_facts_release(&f);
    rpl_llm_analysis_free(a);
    free(path);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(facts_of_the_target), cmocka_unit_test(names_that_match),
        cmocka_unit_test(kernel_not_analysed), cmocka_unit_test(after_accepted_changes),
        cmocka_unit_test(bad_files),           cmocka_unit_test(load_folder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
