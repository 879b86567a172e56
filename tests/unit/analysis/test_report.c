/*
 * profile.json and the human table from in-memory traces.  The documents are
 * also written to RPL_TEST_TMP/unit_profile*.json, which the next ctests
 * validate against docs/schemas/profile.schema.json.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/json.h"
#include "rpl/kernel_filter.h"
#include "rpl/report.h"
#include "test_util.h"

#define LONG_NAME                                                                                  \
    "void very::long_namespace::detail::batched_gemm_kernel<float, 128, 64, true>(float const*, "  \
    "float const*, float*, int, int, int)"

static rpl_trace *make_trace(void)
{
    rpl_trace *t = tb_new();
    uint32_t src = tb_source(t, "a.db");
    uint32_t gpu = tb_gpu(t, src, "gfx942", "AMD Instinct MI300X", 2, 304);
    uint32_t gemm = tb_symbol(t, src, "_Z4gemmPf", "gemm(float*)");
    uint32_t lng =
        tb_symbol(t, src, "_ZN4very14long_namespace6detail19batched_gemm_kernelIfEEvPf", LONG_NAME);
    uint32_t fill =
        tb_symbol(t, src, "__amd_rocclr_fillBufferAligned.kd", "__amd_rocclr_fillBufferAligned");
    uint32_t tmpl = tb_symbol(t, src, "_ZN2ns4axpyIdEEvPKdPdiiii",
                              "void ns::axpy<double>(double const*, double*, int, int, int, int)");

    for (int i = 0; i < 10; i++)
        tb_dispatch(t, gemm, gpu, i * 10000, i * 10000 + 2000 + i);
    tb_dispatch(t, lng, gpu, 200000, 201000);
    tb_dispatch(t, lng, gpu, 210000, 211010);
    tb_dispatch(t, fill, gpu, 300000, 300500);
    tb_dispatch(t, tmpl, gpu, 310000, 310100);
    tb_dispatch(t, tmpl, gpu, 320000, 320101);
    tb_copy(t, RPL_COPY_HOST_TO_DEVICE, 400000, 401000, 1 << 20);
    return t;
}

static rpl_profile *build(const rpl_trace *t, const char *kernel_regex)
{
    rpl_kernel_filter f;
    rpl_profile *p;

    unsetenv(RPL_HELPER_REGEX_ENV);
    assert_int_equal(rpl_kernel_filter_init(&f, kernel_regex, NULL, false), 0);
    assert_int_equal(rpl_profile_build(&p, t, &f), 0);
    rpl_kernel_filter_release(&f);
    return p;
}

static const char *const inputs[] = {"a.db", "b.db"};
static const char *const passes[] = {"pmc_1.db"};

static const cJSON *get(const cJSON *obj, const char *key)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(obj, key);

    if (!item)
        fail_msg("no '%s'", key);
    return item;
}

static void json_document_holds_the_profile(void **state)
{
    rpl_trace *t = make_trace();
    rpl_profile *p = build(t, NULL);
    rpl_report_inputs in = {inputs, 2, passes, 1, NULL};
    const cJSON *k, *dev, *tot, *res;
    cJSON *doc;

    assert_int_equal(rpl_profile_json(&doc, p, &in), 0);
    assert_string_equal(get(doc, "schema_version")->valuestring, "1.0");
    assert_string_equal(get(get(doc, "tool"), "name")->valuestring, "rocm-perf");
    assert_int_equal(cJSON_GetArraySize(get(doc, "inputs")), 2);
    assert_string_equal(cJSON_GetArrayItem(get(doc, "inputs"), 1)->valuestring, "b.db");
    assert_string_equal(cJSON_GetArrayItem(get(doc, "counter_passes"), 0)->valuestring, "pmc_1.db");
    dev = get(doc, "device");
    assert_string_equal(get(dev, "name")->valuestring, "gfx942");
    assert_string_equal(get(dev, "product")->valuestring, "AMD Instinct MI300X");
    assert_int_equal(get(dev, "cu_count")->valueint, 304);
    assert_int_equal(get(dev, "wavefront_size")->valueint, 64);
    assert_true(cJSON_IsNull(get(dev, "model"))); /* unknown facts are null */
    assert_int_equal(cJSON_GetArraySize(get(doc, "agents")), 1);
    tot = get(doc, "totals");
    assert_int_equal(get(tot, "dispatches")->valueint, 15);
    assert_int_equal(get(tot, "selected_dispatches")->valueint, 14);
    assert_int_equal(get(tot, "helper_time_ns")->valueint, 500);
    assert_int_equal(get(get(tot, "span"), "duration_ns")->valueint, 401000);
    assert_int_equal(cJSON_GetArraySize(get(doc, "kernels")), 3);
    k = cJSON_GetArrayItem(get(doc, "kernels"), 0);
    assert_string_equal(get(k, "name")->valuestring, "gemm(float*)");
    assert_string_equal(get(k, "mangled_name")->valuestring, "_Z4gemmPf");
    assert_int_equal(get(k, "dispatches")->valueint, 10);
    assert_int_equal(get(k, "total_ns")->valuedouble, p->kernels[0].total_ns);
    assert_near(get(k, "median_ns")->valuedouble, p->kernels[0].stats.median);
    assert_near(get(k, "p90_ns")->valuedouble, p->kernels[0].stats.p90);
    assert_near(get(k, "cv")->valuedouble, p->kernels[0].stats.cv);
    assert_string_equal(get(k, "stability")->valuestring, "stable");
    assert_true(cJSON_IsFalse(get(k, "helper")));
    res = get(k, "resources");
    assert_int_equal(get(res, "vgpr")->valueint, 32);
    assert_int_equal(get(res, "agpr")->valueint, 4);
    assert_int_equal(get(res, "lds_bytes")->valueint, 1024);
    assert_int_equal(get(get(doc, "memory_copies"), "bytes")->valueint, 1 << 20);
    assert_string_equal(
        get(cJSON_GetArrayItem(get(get(doc, "memory_copies"), "by_kind"), 0), "kind")->valuestring,
        "HOST_TO_DEVICE");
    assert_true(cJSON_IsNull(get(get(doc, "filter"), "kernel_regex")));
    assert_true(cJSON_IsFalse(get(get(doc, "filter"), "include_helpers")));
    assert_int_equal(rpl_json_write_file(RPL_TEST_TMP "/unit_profile.json", doc), 0);
    cJSON_Delete(doc);
    rpl_profile_free(p);
    rpl_trace_free(t);
}

/* A trace without a GPU agent: device is null (unit_profile_nogpu.json is validated too). */
static void json_without_gpu_has_null_device(void **state)
{
    rpl_trace *t = tb_new();
    uint32_t src = tb_source(t, "cpu.db");
    uint32_t cpu = tb_cpu(t, src);
    uint32_t k = tb_symbol(t, src, "_Z1kv", "k()");
    rpl_report_inputs in = {inputs, 1, NULL, 0, NULL};
    rpl_profile *p;
    cJSON *doc;

    tb_dispatch(t, k, cpu, 0, 10);
    p = build(t, "k");
    assert_int_equal(rpl_profile_json(&doc, p, &in), 0);
    assert_true(cJSON_IsNull(get(doc, "device")));
    assert_int_equal(cJSON_GetArraySize(get(doc, "agents")), 0);
    assert_int_equal(cJSON_GetArraySize(get(doc, "counter_passes")), 0);
    assert_string_equal(get(get(doc, "filter"), "kernel_regex")->valuestring, "k");
    assert_null(cJSON_GetObjectItemCaseSensitive(doc, "counter_sample")); /* not a sample */
    assert_int_equal(rpl_json_write_file(RPL_TEST_TMP "/unit_profile_nogpu.json", doc), 0);
    cJSON_Delete(doc);
    rpl_profile_free(p);
    rpl_trace_free(t);
}

/* A profile that measured a sample says which one in profile.json and in the table's line. */
static void a_counter_sample_is_described(void **state)
{
    rpl_trace *t = make_trace();
    rpl_profile *p = build(t, NULL);
    rpl_counter_sample sample = {2, 3, true, 5, 15};
    rpl_report_inputs in = {inputs, 1, NULL, 0, &sample};
    rpl_strbuf sb = RPL_STRBUF_INIT;
    const cJSON *o;
    cJSON *doc;

    assert_int_equal(rpl_profile_json(&doc, p, &in), 0);
    o = get(doc, "counter_sample");
    assert_int_equal(get(o, "skip")->valueint, 2);
    assert_int_equal(get(o, "dispatches_per_kernel")->valueint, 3);
    assert_int_equal(get(o, "dispatches_measured")->valueint, 5);
    assert_int_equal(get(o, "dispatches")->valueint, 15);
    assert_true(cJSON_IsTrue(get(o, "stopped_early")));
    assert_int_equal(rpl_json_write_file(RPL_TEST_TMP "/unit_profile_sample.json", doc), 0);
    cJSON_Delete(doc);
    sample.per_kernel = UINT32_MAX;
    assert_int_equal(rpl_profile_json(&doc, p, &in), 0);
    assert_string_equal(get(get(doc, "counter_sample"), "dispatches_per_kernel")->valuestring,
                        "all");
    cJSON_Delete(doc);

    assert_int_equal(rpl_counter_sample_line(&sb, &sample), 0);
    assert_string_equal(rpl_strbuf_cstr(&sb),
                        "counters: measured on 5 of 15 dispatches (every dispatch of each kernel "
                        "after the first 2; the counter run ended once they were; see "
                        "--counter-dispatches and --counter-skip)\n");
    rpl_strbuf_release(&sb);
    sample = (rpl_counter_sample){0, 3, false, 3, 12006};
    assert_int_equal(rpl_counter_sample_line(&sb, &sample), 0);
    assert_string_equal(rpl_strbuf_cstr(&sb),
                        "counters: measured on 3 of 12006 dispatches (3 dispatches of each kernel; "
                        "see --counter-dispatches and --counter-skip)\n");
    rpl_strbuf_release(&sb);
    sample.per_kernel = 0; /* the rule not known: the count alone */
    assert_int_equal(rpl_counter_sample_line(&sb, &sample), 0);
    assert_string_equal(rpl_strbuf_cstr(&sb), "counters: measured on 3 of 12006 dispatches\n");
    rpl_strbuf_release(&sb);
    rpl_profile_free(p);
    rpl_trace_free(t);
}

static void table_lists_kernels_under_a_header(void **state)
{
    rpl_trace *t = make_trace();
    rpl_profile *p = build(t, NULL);
    rpl_strbuf sb = RPL_STRBUF_INIT;
    const char *text;

    assert_int_equal(rpl_profile_table(&sb, p, 0), 0);
    text = rpl_strbuf_cstr(&sb);
    assert_non_null(strstr(text, "device:     AMD Instinct MI300X (gfx942, 304 CUs"));
    assert_non_null(strstr(text, "dispatches: 14 selected of 15"));
    assert_non_null(strstr(text, "gemm(float*)"));
    /* The long name is elided in its middle: its front and its function name stay. */
    assert_null(strstr(text, "float const*, float const*"));
    assert_non_null(strstr(
        text, "  very::long_na\xe2\x80\xa6:batched_gemm_kernel<\xe2\x80\xa6>(\xe2\x80\xa6) "));
    /* A shorter one keeps its template arguments, loses its return type and keeps the
     * parameters that fit. */
    assert_non_null(strstr(text, "  ns::axpy<double>(double const*, double\xe2\x80\xa6) "));
    assert_non_null(strstr(text, "runtime helpers left out: 1 kernel, 1 dispatch,"));
    assert_non_null(strstr(text, "memory copies: 1, 1.0 MiB"));
    assert_non_null(strstr(text, "stable"));
    rpl_strbuf_release(&sb);

    /* --top 1 shows one row and says how much is not shown. */
    assert_int_equal(rpl_profile_table(&sb, p, 1), 0);
    text = rpl_strbuf_cstr(&sb);
    assert_non_null(strstr(text, "gemm(float*)"));
    assert_null(strstr(text, "batched_gemm_kernel"));
    assert_non_null(strstr(text, "2 more kernels "));
    rpl_strbuf_release(&sb);
    rpl_profile_free(p);
    rpl_trace_free(t);
}

/* Every row lines up: the columns after the name start at the same offset. */
static void table_rows_are_aligned(void **state)
{
    rpl_trace *t = make_trace();
    rpl_profile *p = build(t, NULL);
    rpl_strbuf sb = RPL_STRBUF_INIT;
    const char *line, *header;
    size_t width = 0;

    assert_int_equal(rpl_profile_table(&sb, p, 0), 0);
    header = strstr(rpl_strbuf_cstr(&sb), "  #  kernel");
    assert_non_null(header);
    for (line = header; *line; line = strchr(line, '\n') + 1) {
        const char *eol = strchr(line, '\n');
        const char *stab = strstr(line, line == header ? "stability" : "stable");
        if (line != header && (line[0] != ' ' || line[2] < '0' || line[2] > '9'))
            break;
        assert_non_null(stab);
        assert_true(stab < eol);
        /* Columns, not bytes: an elided name's "…" is three bytes in one column. */
        char *before = strndup(line, (size_t)(stab - line));
        assert_non_null(before);
        if (width == 0)
            width = rpl_utf8_columns(before);
        assert_int_equal(rpl_utf8_columns(before), width);
        free(before);
    }
    rpl_strbuf_release(&sb);
    rpl_profile_free(p);
    rpl_trace_free(t);
}

static void durations_carry_units(void **state)
{
    char buf[32];

    assert_string_equal(rpl_format_ns(buf, sizeof(buf), 850), "850 ns");
    assert_string_equal(rpl_format_ns(buf, sizeof(buf), 12345), "12.35 us");
    assert_string_equal(rpl_format_ns(buf, sizeof(buf), 4.2e6), "4.20 ms");
    assert_string_equal(rpl_format_ns(buf, sizeof(buf), 3.1416e9), "3.142 s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_document_holds_the_profile),
        cmocka_unit_test(json_without_gpu_has_null_device),
        cmocka_unit_test(a_counter_sample_is_described),
        cmocka_unit_test(table_lists_kernels_under_a_header),
        cmocka_unit_test(table_rows_are_aligned),
        cmocka_unit_test(durations_carry_units),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
