/*
 * The gate run and the baseline update as library calls (rpl/gate_run.h), on
 * a recorded trace: record, gate against the record, and a missing baseline.
 */
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
#include "rpl/gate_measure.h"
#include "rpl/gate_run.h"

#define TRACE RPL_FIXTURES "/recorded/two_streams.db"

static const char *const traces[] = {TRACE};

/* Options of a trace-mode gate of test `test` against baselines below a fresh `dir`. */
static void trace_opts(rpl_gate_opts *o, const char *test, const char *dir)
{
    char cmd[1200];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    memset(o, 0, sizeof(*o));
    o->test = test;
    o->baseline_dir = dir;
    o->in.traces = traces;
    o->in.ntraces = 1;
    o->in.warmup = 1;
    o->in.repetitions = 30;
    rpl_gate_stat_opts_init(&o->stat);
}

static void update_then_gate(void **state)
{
    rpl_gate_opts o;
    rpl_gate_outcome out = {0};
    char json[1100];
    struct stat st;

    (void)state;
    trace_opts(&o, "streams", RPL_TEST_TMP "/gate_run/b");
    o.update = true;
    assert_int_equal(rpl_gate_run(&out, &o), 0);
    assert_null(out.result);
    assert_non_null(strstr(rpl_strbuf_cstr(&out.text), "updated baseline " RPL_TEST_TMP));
    assert_non_null(strstr(rpl_strbuf_cstr(&out.text), "runtime section created"));
    assert_int_equal(out.notice.len, 0);
    rpl_gate_outcome_release(&out);

    /* The same trace against its own record: nothing moved. */
    snprintf(json, sizeof(json), "%s/gate_run/g.json", RPL_TEST_TMP);
    o.update = false;
    o.json = json;
    assert_int_equal(rpl_gate_run(&out, &o), 0);
    assert_non_null(out.result);
    assert_int_equal(out.result->verdict, RPL_VERDICT_PASS);
    assert_true(out.result->nchecks > 0);
    assert_non_null(strstr(rpl_strbuf_cstr(&out.text), "runtime gate 'streams' on "));
    assert_int_equal(stat(json, &st), 0);
    /* The report names itself as an attachment, by its absolute path. */
    assert_true(out.result->nattachments == 1 && out.result->attachments[0][0] == '/');
    rpl_gate_outcome_release(&out);
}

static void missing_baseline(void **state)
{
    rpl_gate_opts o;
    rpl_gate_outcome out = {0};

    (void)state;
    trace_opts(&o, "absent", RPL_TEST_TMP "/gate_run/none");
    assert_int_equal(rpl_gate_run(&out, &o), 0);
    assert_int_equal(out.result->verdict, RPL_VERDICT_FAIL);
    assert_non_null(strstr(rpl_strbuf_cstr(&out.notice), "no baseline '"));
    assert_non_null(strstr(rpl_strbuf_cstr(&out.notice),
                           "create it with:\n  rocm-perf baseline update --test absent"));
    assert_null(strstr(rpl_strbuf_cstr(&out.notice), "allowed"));
    rpl_gate_outcome_release(&out);

    o.allow_missing = true;
    assert_int_equal(rpl_gate_run(&out, &o), 0);
    assert_true(out.result->baseline_missing);
    assert_int_not_equal(out.result->verdict, RPL_VERDICT_FAIL);
    assert_non_null(strstr(rpl_strbuf_cstr(&out.notice), "(allowed: not gated)"));
    rpl_gate_outcome_release(&out);
}

/* The suggested command quotes what the shell would split, and names the input. */
static void update_command(void **state)
{
    rpl_gate_opts o;
    rpl_strbuf cmd = RPL_STRBUF_INIT;

    (void)state;
    trace_opts(&o, "my test", RPL_TEST_TMP "/gate_run/q");
    o.in.kernel_regex = "gemm|relu";
    assert_int_equal(rpl_gate_update_command(&cmd, &o, "sm_90"), 0);
    assert_string_equal(rpl_strbuf_cstr(&cmd),
                        "rocm-perf baseline update --test 'my test' --baseline-dir " RPL_TEST_TMP
                        "/gate_run/q --arch sm_90 --kernel 'gemm|relu' --warmup 1 --trace " TRACE);
    rpl_strbuf_release(&cmd);
}

/* A baseline of another test at the path is refused and left as it was. */
/* The options as a command gives them: one input, its companions, --reason only to accept. */
static void options_checked(void **state)
{
    static const char *const app[] = {"./app", NULL}, *const no_app[] = {NULL};
    static const char *const statics[] = {"k.hsaco"};
    rpl_gate_opts o;

    (void)state;
    trace_opts(&o, "t", RPL_TEST_TMP "/gate-opts");
    assert_int_equal(rpl_gate_opts_check(&o, false), 0);
    o.in.block = 64;
    assert_int_equal(rpl_gate_opts_check(&o, false), RPL_EUSAGE);
    assert_string_equal(rpl_error_last()->message, "--block applies to --static only");
    o.in.block = 0;
    o.in.app_argv = app;
    assert_int_equal(rpl_gate_opts_check(&o, false), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "give exactly one of"));
    o.in.ntraces = 0;
    o.in.keep_trace = "t.db";
    assert_int_equal(rpl_gate_opts_check(&o, false), 0);
    o.in.app_argv = no_app;
    assert_int_equal(rpl_gate_opts_check(&o, false), RPL_EUSAGE);
    assert_string_equal(rpl_error_last()->message, "no program after '--'");
    o.in.app_argv = NULL;
    o.in.static_files = statics;
    o.in.nstatic = 1;
    assert_int_equal(rpl_gate_opts_check(&o, false), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "--keep-trace keeps the trace"));
    o.in.keep_trace = NULL;
    assert_int_equal(rpl_gate_opts_check(&o, true), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "accept needs --reason"));
    o.reason = "new compiler";
    assert_int_equal(rpl_gate_opts_check(&o, false), RPL_EUSAGE);
    assert_string_equal(rpl_error_last()->message, "--reason belongs to 'baseline accept'");
    assert_int_equal(rpl_gate_opts_check(&o, true), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "records runtime moves"));
    o.test = NULL;
    assert_int_equal(rpl_gate_opts_check(&o, true), RPL_EUSAGE);
    assert_non_null(strstr(rpl_error_last()->message, "--test NAME and --baseline-dir DIR"));
}

static void update_refuses_other_test(void **state)
{
    rpl_gate_opts o;
    rpl_gate_outcome out = {0};
    rpl_gate_measurement m = {0};
    rpl_strbuf report = RPL_STRBUF_INIT;
    char *path = NULL, *before = NULL, *after = NULL;
    size_t nb, na;

    (void)state;
    trace_opts(&o, "one", RPL_TEST_TMP "/gate_run/other");
    o.update = true;
    assert_int_equal(rpl_gate_run(&out, &o), 0);
    rpl_gate_outcome_release(&out);
    assert_int_equal(rpl_gate_measure(&m, &o.in), 0);
    assert_int_equal(rpl_baseline_path(&path, o.baseline_dir, m.arch, "one"), 0);
    assert_int_equal(rpl_file_read_all(path, 1 << 24, &before, &nb), 0);
    o.test = "two";
    assert_int_equal(rpl_gate_update_baseline(&o, path, &m, &report), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "is for test 'one'"));
    assert_int_equal(report.len, 0);
    assert_int_equal(rpl_file_read_all(path, 1 << 24, &after, &na), 0);
    assert_true(na == nb && memcmp(before, after, nb) == 0);
    free(before);
    free(after);
    free(path);
    rpl_strbuf_release(&report);
    rpl_gate_measurement_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(update_then_gate),
        cmocka_unit_test(missing_baseline),
        cmocka_unit_test(update_command),
        cmocka_unit_test(options_checked),
        cmocka_unit_test(update_refuses_other_test),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
