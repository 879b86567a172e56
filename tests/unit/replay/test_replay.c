/*
 * The replay front end without a GPU: the code-object checks, the
 * comparison of a replayed region with its post image, option checks and
 * everything rpl_replay_run refuses before it would reach a backend, and
 * the text and JSON reports (the JSON is written to a file that ctest
 * validates against docs/schemas/replay-result.schema.json).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../../src/replay/replay_backend.h"
#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/replay.h"

#define TMP    RPL_TEST_TMP "/replay"
#define FX     RPL_REPLAY_FIXTURES
#define REGION 0x7f0000000000ull

#define assert_ok(call)                                                                            \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != 0)                                                                              \
            fail_msg("%s: %d: %s", #call, rc_, rpl_error_last()->message);                         \
    } while (0)

static void expect_error(int rc, int code, const char *want)
{
    assert_int_equal(rc, code);
    if (!strstr(rpl_error_last()->message, want))
        fail_msg("message '%s' lacks '%s'", rpl_error_last()->message, want);
}

/* The metadata of the fixtures' scale(float*, float, int) kernel, in memory. */
static rpl_snapshot *scale_meta(rpl_snap_backend backend)
{
    static rpl_snap_param params[3] = {{0, 8, NULL, true, RPL_DTYPE_F32},
                                       {8, 4, NULL, false, RPL_DTYPE_BYTES},
                                       {12, 4, NULL, false, RPL_DTYPE_BYTES}};
    rpl_snapshot *s = calloc(1, sizeof(*s));

    assert_non_null(s);
    s->backend = backend;
    s->arch = backend == RPL_SNAP_CUDA ? "sm_90" : "gfx90a";
    s->target = backend == RPL_SNAP_CUDA ? "sm_90" : "amdgcn-amd-amdhsa--gfx90a:xnack-";
    s->code_object_symbol = backend == RPL_SNAP_CUDA ? "scale" : "scale.kd";
    s->block[0] = 256, s->block[1] = s->block[2] = 1;
    s->kernarg_size = 16;
    s->params = params;
    s->nparams = 3;
    return s;
}

static void test_code_object_ok(void **state)
{
    rpl_snapshot *s = scale_meta(RPL_SNAP_CUDA);

    (void)state;
    assert_ok(rpl_replay_check_code_object(s, FX "/scale_sm90.cubin"));
    assert_ok(rpl_replay_check_code_object(s, FX "/scale_wrong_sm90.cubin"));
    free(s);
    s = scale_meta(RPL_SNAP_HSA);
    assert_ok(rpl_replay_check_code_object(s, FX "/scale_gfx90a.hsaco"));
    free(s);
}

static void test_code_object_rejects(void **state)
{
    rpl_snapshot *s = scale_meta(RPL_SNAP_CUDA);
    rpl_snap_param two[2] = {{0, 8, NULL, true, RPL_DTYPE_F32}, {8, 4, NULL, false, 0}};

    (void)state;
    expect_error(rpl_replay_check_code_object(s, FX "/scale_sm80.cubin"), RPL_EINPUT,
                 "holds no code for sm_90, the snapshot's architecture (it has sm_80)");
    expect_error(rpl_replay_check_code_object(s, FX "/scale_double_sm90.cubin"), RPL_EINPUT,
                 "parameter 1 is 8 bytes at offset 8, the snapshot's is 4 bytes at offset 8");
    /* Fewer parameters in the snapshot than in the code object. */
    s->params = two;
    s->nparams = 2;
    expect_error(rpl_replay_check_code_object(s, FX "/scale_sm90.cubin"), RPL_EINPUT,
                 "takes more parameters than the snapshot's 2: its signature differs");
    s->nparams = 0;
    expect_error(rpl_replay_check_code_object(s, FX "/scale_sm90.cubin"), RPL_EINPUT,
                 "takes more parameters than the snapshot's 0");
    free(s);
    /* More parameters in the snapshot. */
    s = scale_meta(RPL_SNAP_HSA);
    {
        rpl_snap_param four[4] = {{0, 8, NULL, true, 0},
                                  {8, 4, NULL, false, 0},
                                  {12, 4, NULL, false, 0},
                                  {16, 8, NULL, false, 0}};

        s->params = four;
        s->nparams = 4;
        s->kernarg_size = 24;
        expect_error(rpl_replay_check_code_object(s, FX "/scale_gfx90a.hsaco"), RPL_EINPUT,
                     "takes 3 parameters, the snapshot's 4: its signature differs");
    }
    free(s);
    /* A kernarg segment smaller than the code object reads. */
    s = scale_meta(RPL_SNAP_HSA);
    s->kernarg_size = 12;
    expect_error(rpl_replay_check_code_object(s, FX "/scale_gfx90a.hsaco"), RPL_EINPUT,
                 "reads a 16-byte kernarg segment, the snapshot captured 12 bytes");
    s->kernarg_size = 16;
    /* A block beyond the kernel's launch bound (AMD's default bound is 1024). */
    s->block[0] = 2048;
    expect_error(rpl_replay_check_code_object(s, FX "/scale_gfx90a.hsaco"), RPL_EINPUT,
                 "allows at most 1024 threads per block, the snapshot launches 2048");
    s->block[0] = 256;
    s->code_object_symbol = "scale";
    expect_error(rpl_replay_check_code_object(s, FX "/scale_gfx90a.hsaco"), RPL_EINPUT,
                 "has no kernel 'scale' for gfx90a");
    s->code_object_symbol = "scale.kd";
    expect_error(rpl_replay_check_code_object(s, FX "/scale_gfx90a_xnack.hsaco"), RPL_EINPUT,
                 "is built for xnack+, the snapshot's GPU runs xnack-");
    /* A target that leaves xnack open accepts either. */
    s->target = "amdgcn-amd-amdhsa--gfx90a";
    assert_ok(rpl_replay_check_code_object(s, FX "/scale_gfx90a_xnack.hsaco"));
    expect_error(rpl_replay_check_code_object(s, FX "/README.md"), RPL_EINPUT, "README.md");
    assert_int_equal(rpl_replay_check_code_object(s, FX "/none.hsaco"), RPL_ENOTFOUND);
    free(s);
}

/* A snapshot with one f32 region (pre: i, post: 2i), a byte region without post image, a global. */
static rpl_snapshot *write_snapshot(const char *dir)
{
    rpl_snapshot_writer *w;
    rpl_snapshot *m = calloc(1, sizeof(*m)), *s;
    float pre[1024], post[1024];
    const uint32_t counter = 3, counter_post = 4;
    char cmd[512];
    FILE *co;
    char code[8192];
    size_t n;

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    for (int i = 0; i < 1024; i++) {
        pre[i] = (float)i;
        post[i] = 2.0f * (float)i;
    }
    assert_non_null(m);
    m->backend = RPL_SNAP_CUDA;
    m->arch = strdup("sm_90");
    m->mangled_name = strdup("scale");
    m->code_object_file = strdup("kernel.cubin");
    m->code_object_symbol = strdup("scale");
    m->grid[0] = 4, m->grid[1] = m->grid[2] = 1;
    m->block[0] = 256, m->block[1] = m->block[2] = 1;
    m->kernarg_file = strdup("kernarg.bin");
    m->kernarg_size = 16;
    m->nparams = 3;
    m->params = calloc(3, sizeof(*m->params));
    m->params[0] = (rpl_snap_param){0, 8, NULL, true, RPL_DTYPE_F32};
    m->params[1] = (rpl_snap_param){8, 4, NULL, false, RPL_DTYPE_BYTES};
    m->params[2] = (rpl_snap_param){12, 4, NULL, false, RPL_DTYPE_BYTES};
    m->nregions = 2;
    m->regions = calloc(2, sizeof(*m->regions));
    m->regions[0] =
        (rpl_snap_region){REGION, sizeof(pre), strdup("device"), NULL, NULL, RPL_DTYPE_F32, true};
    assert_ok(rpl_snapshot_region_path(&m->regions[0].file, REGION, false));
    assert_ok(rpl_snapshot_region_path(&m->regions[0].post_file, REGION, true));
    m->regions[1] = (rpl_snap_region){REGION + (2u << 20), 10,   strdup("device"), NULL, NULL,
                                      RPL_DTYPE_BYTES,     false};
    assert_ok(rpl_snapshot_region_path(&m->regions[1].file, REGION + (2u << 20), false));
    m->nglobals = 1;
    m->globals = calloc(1, sizeof(*m->globals));
    m->globals[0].name = strdup("calls");
    m->globals[0].address = 0x7f1000000000ull;
    m->globals[0].size = 4;
    assert_ok(rpl_snapshot_global_path(&m->globals[0].file, 0, false));
    assert_ok(rpl_snapshot_global_path(&m->globals[0].post_file, 0, true));

    co = fopen(FX "/scale_sm90.cubin", "rb");
    assert_non_null(co);
    n = fread(code, 1, sizeof(code), co);
    fclose(co);
    assert_ok(rpl_snapshot_writer_begin(&w, dir));
    assert_ok(rpl_snapshot_writer_add(w, "kernel.cubin", code, n));
    assert_ok(rpl_snapshot_writer_add(w, "kernarg.bin", "0123456789abcdef", 16));
    assert_ok(rpl_snapshot_writer_add(w, m->regions[0].file, pre, sizeof(pre)));
    assert_ok(rpl_snapshot_writer_add(w, m->regions[0].post_file, post, sizeof(post)));
    assert_ok(rpl_snapshot_writer_add(w, m->regions[1].file, "0123456789", 10));
    assert_ok(rpl_snapshot_writer_add(w, m->globals[0].file, &counter, 4));
    assert_ok(rpl_snapshot_writer_add(w, m->globals[0].post_file, &counter_post, 4));
    assert_ok(rpl_snapshot_writer_commit(w, m));
    rpl_snapshot_free(m);
    assert_ok(rpl_snapshot_open(&s, dir));
    return s;
}

static void test_check_region(void **state)
{
    rpl_snapshot *s = write_snapshot(TMP "/check");
    rpl_replay_opts o;
    rpl_region_check c;
    float got[1024];
    uint32_t counter = 4;

    (void)state;
    rpl_replay_opts_init(&o);
    for (int i = 0; i < 1024; i++)
        got[i] = 2.0f * (float)i;
    assert_ok(rpl_replay_check_region(&c, s, 0, false, got, &o));
    assert_int_equal(c.base, REGION);
    assert_int_equal(c.size, sizeof(got));
    assert_false(c.global);
    assert_int_equal(c.cmp.elements, 1024);
    assert_int_equal(c.cmp.mismatches, 0);
    assert_true(c.cmp.tol.rtol == 1e-5);
    /* Within the default tolerance, then not. */
    got[700] *= 1.000005f;
    assert_ok(rpl_replay_check_region(&c, s, 0, false, got, &o));
    assert_int_equal(c.cmp.mismatches, 0);
    got[700] = 1.0f;
    got[900] = NAN;
    assert_ok(rpl_replay_check_region(&c, s, 0, false, got, &o));
    assert_int_equal(c.cmp.mismatches, 2);
    assert_int_equal(c.cmp.first_addr, REGION + 700 * 4);
    assert_true(c.cmp.first_want == 1400.0);
    /* --rtol/--atol override the float default. */
    got[900] = 1800.0f;
    got[700] = 1400.5f;
    o.have_tolerance = true;
    o.tolerance = (rpl_tolerance){0, 1.0};
    assert_ok(rpl_replay_check_region(&c, s, 0, false, got, &o));
    assert_int_equal(c.cmp.mismatches, 0);
    assert_true(rpl_replay_tolerance(&o, RPL_DTYPE_I32).atol == 0); /* integers stay bitwise */
    /* Globals compare bitwise; a region without a post image has nothing to compare. */
    assert_ok(rpl_replay_check_region(&c, s, 0, true, &counter, &o));
    assert_true(c.global);
    assert_int_equal(c.cmp.mismatches, 0);
    counter = 5;
    assert_ok(rpl_replay_check_region(&c, s, 0, true, &counter, &o));
    assert_int_equal(c.cmp.mismatches, 1);
    assert_int_equal(rpl_replay_check_region(&c, s, 1, false, "0123456789", &o), RPL_ENOTFOUND);
    rpl_snapshot_free(s);
}

/* Everything rpl_replay_run refuses happens before a backend is reached. */
static void test_run_refuses(void **state)
{
    rpl_snapshot *s = write_snapshot(TMP "/run");
    rpl_replay_result *r = (rpl_replay_result *)1;
    rpl_replay_opts o;

    (void)state;
    rpl_replay_opts_init(&o);
    assert_int_equal(o.iterations, 1);
    assert_true(o.recopy && o.device_pristine && !o.check);
    o.iterations = 0;
    expect_error(rpl_replay_run(&r, s, &o), RPL_EUSAGE, "at least one iteration");
    assert_null(r);
    rpl_replay_opts_init(&o);
    o.have_tolerance = true;
    o.tolerance = (rpl_tolerance){-1, 0};
    expect_error(rpl_replay_run(&r, s, &o), RPL_EUSAGE, "tolerances must be finite");
    rpl_replay_opts_init(&o);
    o.check = true;
    o.check_runs = 0;
    expect_error(rpl_replay_run(&r, s, &o), RPL_EUSAGE, "--check-runs");
    rpl_replay_opts_init(&o);
    o.code_object = FX "/scale_double_sm90.cubin";
    expect_error(rpl_replay_run(&r, s, &o), RPL_EINPUT, "its signature differs");
    assert_null(r);
    /* A region changed after open: verify catches it before anything else runs. */
    assert_int_equal(system("printf 'x' | dd of='" TMP "/run/memory/region_7f0000000000.bin' "
                            "bs=1 seek=5 conv=notrunc 2>/dev/null"),
                     0);
    rpl_replay_opts_init(&o);
    expect_error(rpl_replay_run(&r, s, &o), RPL_EINPUT, "does not match its SHA-256");
    rpl_snapshot_free(s);
    rpl_replay_result_free(NULL);
}

/* A result as a backend leaves it (the input of the report functions). */
static rpl_replay_result *sample_result(void)
{
    rpl_replay_result *r = calloc(1, sizeof(*r));
    static const double times[] = {105000, 100000, 130000};

    assert_non_null(r);
    r->snapshot = strdup("/tmp/snap");
    r->backend = strdup("cuda");
    r->arch = strdup("sm_90");
    r->device = strdup("NVIDIA H200");
    r->kernel = strdup("scale");
    r->code_object = strdup("/tmp/candidate.cubin");
    r->candidate = true;
    r->aslr_disabled = true;
    r->iterations = 3;
    r->warmup = 1;
    r->recopy = true;
    r->times_ns = malloc(sizeof(times));
    memcpy(r->times_ns, times, sizeof(times));
    r->ntimes = 3;
    r->mean_ns = 111666.67;
    r->median_ns = 105000;
    r->min_ns = 100000;
    r->max_ns = 130000;
    r->stddev_ns = 16072.75;
    r->wall_s = 0.0134;
    r->timer = strdup("cupti-kernel");
    r->restore_bytes = 4096;
    r->restore_gbps = 812.5;
    r->d2d_gbps = 1500.25;
    r->restore_from_device = true;
    r->reserve.nspans = 1;
    r->reserve.reserved = 1;
    snprintf(r->reserve.detail, sizeof(r->reserve.detail), "1 span reserved exactly");
    r->checked = true;
    r->check_runs = 2;
    r->deterministic = true;
    r->nchecks = 2;
    r->checks = calloc(2, sizeof(*r->checks));
    r->checks[0].base = REGION;
    r->checks[0].size = 4096;
    r->checks[0].identical_runs = true;
    rpl_compare_init(&r->checks[0].cmp, RPL_DTYPE_F32,
                     rpl_compare_tolerance_default(RPL_DTYPE_F32));
    {
        const float want[2] = {1.0f, 2.0f}, got[2] = {1.0f, NAN};

        rpl_compare_chunk(&r->checks[0].cmp, REGION, got, want, sizeof(got));
    }
    r->checks[1].base = 0x7f1000000000ull;
    r->checks[1].size = 4;
    r->checks[1].global = true;
    r->checks[1].identical_runs = true;
    rpl_compare_init(&r->checks[1].cmp, RPL_DTYPE_BYTES, (rpl_tolerance){0, 0});
    rpl_compare_chunk(&r->checks[1].cmp, 0x7f1000000000ull, "abcd", "abcd", 4);
    r->check_passed = false;
    return r;
}

static void test_report_text(void **state)
{
    rpl_replay_result *r = sample_result();
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    static const char *const lines[] = {
        "Memory reconstructed.\nIterations: 3\nRecopy between iterations: yes\n"
        "Average GPU time: 0.1117 ms\nTotal wall time: 13.4 ms\n",
        "Median GPU time: 0.1050 ms\n",
        "Min / max GPU time: 0.1000 / 0.1300 ms\n",
        "Restore: 4096 bytes before each launch at 812.5 GB/s from a device-resident copy "
        "(plain device-to-device copy of the same bytes: 1500.2 GB/s)\n",
        "Code object: /tmp/candidate.cubin (candidate)\n",
        "Check: FAILED",
        "  region 0x7f0000000000+4096 f32 (rtol 1e-05, atol 1e-06): 1 of 2 elements differ; "
        "first at 0x7f0000000004: got nan (0x7fc00000), want 2 (0x40000000)",
        "  global 0x7f1000000000+4 bytes (bitwise): ok, 4 elements\n",
    };

    (void)state;
    assert_non_null(f);
    assert_ok(rpl_replay_result_print(f, r));
    fclose(f);
    /* The seed's lines come first, in its order. */
    assert_int_equal(strncmp(text, lines[0], strlen(lines[0])), 0);
    for (size_t i = 1; i < sizeof(lines) / sizeof(lines[0]); i++)
        if (!strstr(text, lines[i]))
            fail_msg("report lacks '%s':\n%s", lines[i], text);
    free(text);
    rpl_replay_result_free(r);
}

static void test_report_json(void **state)
{
    rpl_replay_result *r = sample_result();
    cJSON *doc = NULL;
    const cJSON *check, *first;

    (void)state;
    assert_ok(rpl_replay_result_json(&doc, r));
    assert_string_equal(cJSON_GetObjectItem(doc, "schema_version")->valuestring, "1.0");
    check = cJSON_GetObjectItem(doc, "check");
    assert_false(cJSON_IsTrue(cJSON_GetObjectItem(check, "passed")));
    first = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(check, "regions"), 0),
                                "first_difference");
    assert_string_equal(cJSON_GetObjectItem(first, "address")->valuestring, "0x7f0000000004");
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(first, "got"))); /* NaN */
    assert_int_equal(
        cJSON_GetArraySize(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "timing"), "times_ns")), 3);
    assert_ok(rpl_json_write_file(RPL_TEST_TMP "/replay_result.json", doc));
    cJSON_Delete(doc);
    /* Without --check, check is null. */
    r->checked = false;
    assert_ok(rpl_replay_result_json(&doc, r));
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(doc, "check")));
    assert_ok(rpl_json_write_file(RPL_TEST_TMP "/replay_result_nocheck.json", doc));
    cJSON_Delete(doc);
    rpl_replay_result_free(r);
}

/*
 * How a replay that ended in RPL_EFAIL is reported.  The first case is the
 * one that was misread on the H200: the reservation had succeeded (its
 * report says so) and then the candidate faulted.
 */
static void test_failure_line(void **state)
{
    rpl_replay_result r;
    char line[512];

    (void)state;
    memset(&r, 0, sizeof(r));
    r.aslr_disabled = true;
    r.reserve.nspans = r.reserve.reserved = 1;
    snprintf(r.reserve.detail, sizeof(r.reserve.detail),
             "1 span of 33554432 bytes granularity reserved at the captured addresses, before "
             "the context was created");
    snprintf(r.fault, sizeof(r.fault),
             "the replayed kernel: an illegal memory access was encountered (CUresult 700)");
    assert_int_equal(rpl_replay_failure(line, sizeof(line), &r), RPL_EXIT_FAIL);
    assert_string_equal(line, "the replayed kernel failed on the device: the replayed kernel: an "
                              "illegal memory access was encountered (CUresult 700)");

    /* A span that moved: the environment's failure, exit 3. */
    r.fault[0] = '\0';
    r.reserve.reserved = 0;
    r.reserve.relocation = true;
    snprintf(r.reserve.detail, sizeof(r.reserve.detail),
             "span 1 of 1 at 0x7fffe4000000 (96.0 MiB) came back at 0x7ffff8000000");
    assert_int_equal(rpl_replay_failure(line, sizeof(line), &r), RPL_EXIT_ENV);
    assert_string_equal(line, "relocation: span 1 of 1 at 0x7fffe4000000 (96.0 MiB) came back "
                              "at 0x7ffff8000000");

    /* One that failed outright, in a process that kept ASLR on. */
    r.reserve.relocation = false;
    r.reserve.failure = true;
    r.aslr_disabled = false;
    snprintf(r.reserve.detail, sizeof(r.reserve.detail), "reserving span 1 of 1 failed");
    assert_int_equal(rpl_replay_failure(line, sizeof(line), &r), RPL_EXIT_ENV);
    assert_string_equal(line, "reservation failed: reserving span 1 of 1 failed (ASLR is on in "
                              "this process)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_code_object_ok), cmocka_unit_test(test_code_object_rejects),
        cmocka_unit_test(test_check_region),   cmocka_unit_test(test_run_refuses),
        cmocka_unit_test(test_report_text),    cmocka_unit_test(test_report_json),
        cmocka_unit_test(test_failure_line),
    };

    if (system("rm -rf '" TMP "' && mkdir -p '" TMP "'") != 0)
        return 1;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
