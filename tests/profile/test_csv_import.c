/* rocprofv3 CSV import (ROCm 6.x) and the CSV record reader under it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "csv.h"
#include "rpl/error.h"
#include "rpl/profile_backend.h"

#define CSV_DIR RPL_PROFILE_TESTDATA "/csv"

/* Every record of `text` joined as "f1|f2;f1|f2;", or the status when it fails. */
static int read_all(const char *text, size_t len, char *out, size_t cap)
{
    FILE *f = fmemopen((void *)text, len, "r");
    rpl_csv_reader *r;
    char **fields;
    size_t n;
    int rc;

    assert_non_null(f);
    assert_int_equal(rpl_csv_open(&r, f, "mem"), 0);
    out[0] = '\0';
    while ((rc = rpl_csv_next(r, &fields, &n)) == 1) {
        for (size_t i = 0; i < n; i++) {
            strncat(out, fields[i], cap - strlen(out) - 1);
            strncat(out, i + 1 < n ? "|" : ";", cap - strlen(out) - 1);
        }
    }
    rpl_csv_close(r);
    fclose(f);
    return rc;
}

static void reader_fields(void **state)
{
    static const char text[] = "a,\"b,c\",\"say \"\"hi\"\"\"\r\n\n,x,\n\"multi\nline\",2";
    char out[256];

    (void)state;
    assert_int_equal(read_all(text, sizeof(text) - 1, out, sizeof(out)), 0);
    assert_string_equal(out, "a|b,c|say \"hi\";|x|;multi\nline|2;");
}

static void reader_rejects(void **state)
{
    static const char *const bad[] = {
        "a,\"unterminated\n", /* quote never closed */
        "a,b\"c\n",           /* quote inside an unquoted field */
        "\"x\"y,1\n",         /* text after a closing quote */
        "a\rb\n",             /* lone carriage return */
    };
    char out[256];

    (void)state;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_int_equal(read_all(bad[i], strlen(bad[i]), out, sizeof(out)), RPL_EINPUT);
        assert_non_null(strstr(rpl_error_last()->message, "mem:"));
    }
    /* A NUL byte is not text. */
    assert_int_equal(read_all("a,b\0c\n", 6, out, sizeof(out)), RPL_EINPUT);
}

static void reader_bounds_record_length(void **state)
{
    size_t len = RPL_CSV_MAX_RECORD + 16;
    char *text = malloc(len), out[64];

    (void)state;
    assert_non_null(text);
    memset(text, 'x', len);
    assert_int_equal(read_all(text, len, out, sizeof(out)), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "longer than"));
    free(text);
}

static uint32_t counter_id(const rpl_trace *t, const char *name)
{
    for (uint32_t i = 0; i < t->counter_names.count; i++)
        if (strcmp(t->counter_names.items[i], name) == 0)
            return i;
    fail_msg("counter %s not in the trace", name);
    return 0;
}

static void import_rocm62(void **state)
{
    rpl_trace *t;
    const rpl_dispatch *d;
    const rpl_agent *gpu;
    double v;

    (void)state;
    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_rocprofv3_csv_import(t, CSV_DIR "/rocm62/1234_kernel_trace.csv"), 0);
    assert_int_equal(t->agents.count, 2);
    assert_int_equal(t->dispatches.count, 4);
    assert_int_equal(t->symbols.count, 2);
    assert_int_equal(t->memcpys.count, 2);
    assert_int_equal(t->processes.items[0].pid, 1234);
    d = &t->dispatches.items[1];
    assert_string_equal(t->symbols.items[d->kernel].name,
                        "void gemm<float, 64>(float const*, float const*, float*, int, int)");
    assert_int_equal(d->start, 5050000);
    assert_int_equal(d->end, 5090100);
    assert_int_equal(d->grid[0], 4096);
    assert_int_equal(d->grid[1], 1024);
    assert_int_equal(d->workgroup[1], 4);
    assert_int_equal(d->group_segment_size, 8192);
    assert_int_equal(d->correlation_id, 11);
    assert_int_equal(d->dispatch_id, 2); /* no Dispatch_Id column: row number */
    gpu = &t->agents.items[d->agent];
    assert_int_equal(gpu->type, RPL_AGENT_GPU);
    assert_string_equal(gpu->name, "gfx90a");
    assert_string_equal(gpu->product_name, "AMD Instinct MI250X");
    assert_int_equal(gpu->cu_count, 110);
    assert_int_equal(gpu->gfx_target_version, 90010);
    assert_int_equal(gpu->wave_front_size, 64);
    assert_true(gpu->max_engine_clk_mhz == 1700);
    assert_int_equal(t->memcpys.items[0].kind, RPL_COPY_HOST_TO_DEVICE);
    assert_int_equal(t->memcpys.items[1].kind, RPL_COPY_DEVICE_TO_HOST);
    assert_int_equal(t->agents.items[t->memcpys.items[0].src_agent].type, RPL_AGENT_CPU);
    assert_ptr_equal(&t->agents.items[t->memcpys.items[0].dst_agent], gpu);
    /* Counters matched by correlation id, even when the rows are not adjacent. */
    assert_true(rpl_dispatch_counter(t, d, counter_id(t, "SQ_INSTS_VALU_FMA_F32"), &v));
    assert_true(v == 1500001.0);
    assert_true(rpl_dispatch_counter(t, d, counter_id(t, "SQ_WAVES"), &v));
    assert_true(v == 16384.0);
    assert_true(rpl_dispatch_counter(t, &t->dispatches.items[3], counter_id(t, "SQ_WAVES"), &v));
    assert_true(v == 0.0);
    assert_false(rpl_dispatch_counter(t, &t->dispatches.items[3],
                                      counter_id(t, "SQ_INSTS_VALU_FMA_F32"), &v));
    rpl_trace_free(t);
}

static void import_rocm64(void **state)
{
    rpl_trace *t;
    const rpl_dispatch *d;
    const rpl_kernel_symbol *s;

    (void)state;
    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_rocprofv3_csv_import(t, CSV_DIR "/rocm64/4321_kernel_trace.csv"), 0);
    assert_int_equal(t->dispatches.count, 3);
    assert_int_equal(t->symbols.count, 2); /* kernel id 11 twice */
    assert_int_equal(t->queues.count, 2);
    assert_int_equal(t->streams.count, 2);
    d = &t->dispatches.items[1];
    s = &t->symbols.items[d->kernel];
    assert_string_equal(s->name, "void reduce<\"sum\", 256>(float const*, float*, int)");
    assert_int_equal(s->arch_vgpr_count, 32);
    assert_int_equal(s->accum_vgpr_count, 4);
    assert_int_equal(s->sgpr_count, 24);
    assert_int_equal(s->group_segment_size, 2048);
    assert_int_equal(d->private_segment_size, 64);
    assert_int_equal(rpl_trace_tid(t, d->thread), 4330);
    assert_int_equal(d->dispatch_id, 2);
    assert_string_equal(t->agents.items[d->agent].name, "gfx942");
    assert_int_equal(t->agents.items[d->agent].id, 2);
    assert_int_equal(t->agents.items[d->agent].cu_count, 304);
    assert_string_equal(t->streams.items[t->dispatches.items[2].stream].name, "Stream 3");
    assert_string_equal(t->queues.items[t->dispatches.items[2].queue].name, "Queue 2");
    assert_int_equal(t->memcpys.count, 1);
    assert_string_equal(t->streams.items[t->memcpys.items[0].stream].name, "Default Stream");
    assert_int_equal(t->counter_names.count, 0);
    rpl_trace_free(t);
}

/* Bad files fail with RPL_EINPUT naming the file and leave the trace as it was. */
static void import_rejects(void **state)
{
    static const struct {
        const char *file, *msg;
    } cases[] = {
        {"missing_column", "required column 'End_Timestamp' missing"},
        {"unterminated_quote", "quoted field not closed"},
        {"bad_number", "'12x' is not"},
        {"end_before_start", "ends before it starts"},
        {"quote_in_field", "quote inside an unquoted field"},
        {"grid_overflow", "'Grid_Size_X': '99999999999' is not a 32-bit"},
        {"empty", "empty file"},
    };
    rpl_trace *t;

    (void)state;
    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_rocprofv3_csv_import(t, CSV_DIR "/rocm64/4321_kernel_trace.csv"), 0);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/bad/%s_kernel_trace.csv", CSV_DIR, cases[i].file);
        assert_int_equal(rpl_rocprofv3_csv_import(t, path), RPL_EINPUT);
        if (!strstr(rpl_error_last()->message, cases[i].msg) ||
            !strstr(rpl_error_last()->message, cases[i].file))
            fail_msg("%s: message '%s'", cases[i].file, rpl_error_last()->message);
        assert_int_equal(t->dispatches.count, 3);
        assert_int_equal(t->sources.count, 1);
        assert_int_equal(t->agents.count, 2);
        assert_int_equal(t->counter_names.count, 0);
    }
    assert_int_equal(rpl_rocprofv3_csv_import(t, CSV_DIR "/rocm64/4321_agent_info.csv"),
                     RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "is a rocprofv3 agent_info CSV"));
    assert_int_equal(rpl_rocprofv3_csv_import(t, RPL_PROFILE_TESTDATA "/CMakeLists.txt"),
                     RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "is not a rocprofv3 kernel trace"));
    assert_int_equal(rpl_rocprofv3_csv_import(t, CSV_DIR "/nowhere/9_kernel_trace.csv"),
                     RPL_ENOTFOUND);
    rpl_trace_free(t);
}

/* Counter rows of dispatches the kernel trace lacks are left out; the rest are kept. */
static void import_keeps_matched_counters(void **state)
{
    rpl_trace *t;

    (void)state;
    assert_int_equal(rpl_trace_new(&t), 0);
    assert_int_equal(rpl_rocprofv3_csv_import(t, CSV_DIR "/partial/55_kernel_trace.csv"), 0);
    assert_int_equal(t->dispatches.count, 2);
    assert_int_equal(t->counter_names.count, 1);
    for (uint32_t i = 0; i < t->dispatches.count; i++)
        assert_int_equal(t->dispatches.items[i].counters_count, 1);
    rpl_trace_free(t);
}

/* A kernel trace is told by its header row, whatever its file name. */
static void import_by_header(void **state)
{
    static const char *const names[] = {"kernel_trace_truncated.csv", "my_dispatches.csv"};
    rpl_trace *t;

    (void)state;
    for (size_t i = 0; i < 2; i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/renamed/%s", CSV_DIR, names[i]);
        assert_int_equal(rpl_rocprofv3_csv_kind_of(path), RPL_CSV_KERNEL_TRACE);
        assert_int_equal(rpl_trace_new(&t), 0);
        assert_int_equal(rpl_rocprofv3_csv_import(t, path), 0);
        assert_int_equal(t->dispatches.count, 3);
        rpl_trace_free(t);
    }
    assert_int_equal(rpl_rocprofv3_csv_kind_of(CSV_DIR "/rocm62/1234_counter_collection.csv"),
                     RPL_CSV_COUNTERS);
    assert_int_equal(rpl_rocprofv3_csv_kind_of(CSV_DIR "/rocm62/1234_memory_copy_trace.csv"),
                     RPL_CSV_MEMORY_COPY);
    assert_int_equal(rpl_rocprofv3_csv_kind_of(CSV_DIR "/rocm62/1234_agent_info.csv"),
                     RPL_CSV_AGENT_INFO);
}

/* A folder of CSVs from different runs is refused with the list; one run's processes merge. */
static void folder_of_different_runs(void **state)
{
    static const struct {
        const char *dir;
        int rc;
    } cases[] = {{"two_runs", RPL_EINPUT}, {"two_prefixes", RPL_EINPUT}, {"one_run", 0}};

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char dir[512], **files = NULL;
        uint32_t nfiles = 0;
        rpl_trace *t;

        snprintf(dir, sizeof(dir), "%s/%s", CSV_DIR, cases[i].dir);
        assert_int_equal(rpl_trace_new(&t), 0);
        assert_int_equal(rpl_profile_read_dir(t, dir, &files, &nfiles), cases[i].rc);
        if (cases[i].rc) {
            const char *msg = rpl_error_last()->message;
            if (!strstr(msg, "CSVs of different runs") || !strstr(msg, "kernel_trace.csv (from"))
                fail_msg("%s: message '%s'", cases[i].dir, msg);
        } else {
            assert_int_equal(nfiles, 2);
            assert_int_equal(t->dispatches.count, 2);
        }
        for (uint32_t f = 0; f < nfiles; f++)
            free(files[f]);
        free(files);
        rpl_trace_free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reader_fields),
        cmocka_unit_test(reader_rejects),
        cmocka_unit_test(reader_bounds_record_length),
        cmocka_unit_test(import_rocm62),
        cmocka_unit_test(import_rocm64),
        cmocka_unit_test(import_rejects),
        cmocka_unit_test(import_keeps_matched_counters),
        cmocka_unit_test(import_by_header),
        cmocka_unit_test(folder_of_different_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
