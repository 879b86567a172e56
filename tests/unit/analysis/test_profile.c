/* Runtime summary on traces built in memory: grouping, shares, helpers, merged sources. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rpl/error.h"
#include "rpl/profile.h"
#include "test_util.h"

typedef struct basic {
    rpl_trace *t;
    uint32_t gpu, gemm, saxpy, fill;
} basic;

/* gemm 100 110 90 100 ns, saxpy 10 30 ns, one fillBufferAligned of 50 ns; no overlap. */
static basic make_basic(void)
{
    basic b;
    uint32_t src;

    b.t = tb_new();
    src = tb_source(b.t, "a.db");
    tb_cpu(b.t, src);
    b.gpu = tb_gpu(b.t, src, "gfx942", "AMD Instinct MI300X", 2, 304);
    b.gemm = tb_symbol(b.t, src, "_Z4gemmPf", "gemm(float*)");
    b.saxpy = tb_symbol(b.t, src, "_Z5saxpyPf", "saxpy(float*)");
    b.fill =
        tb_symbol(b.t, src, "__amd_rocclr_fillBufferAligned.kd", "__amd_rocclr_fillBufferAligned");
    tb_symbol(b.t, src, "_Z6unusedv", "unused()");
    tb_dispatch(b.t, b.gemm, b.gpu, 0, 100);
    tb_dispatch(b.t, b.saxpy, b.gpu, 500, 510);
    tb_dispatch(b.t, b.gemm, b.gpu, 1000, 1110);
    tb_dispatch(b.t, b.saxpy, b.gpu, 1500, 1530);
    tb_dispatch(b.t, b.gemm, b.gpu, 2000, 2090);
    tb_dispatch(b.t, b.gemm, b.gpu, 3000, 3100);
    tb_dispatch(b.t, b.fill, b.gpu, 4000, 4050);
    return b;
}

static rpl_profile *build(const rpl_trace *t, const char *kernel_regex, bool include_helpers)
{
    rpl_kernel_filter f;
    rpl_profile *p;

    unsetenv(RPL_HELPER_REGEX_ENV);
    assert_int_equal(rpl_kernel_filter_init(&f, kernel_regex, NULL, include_helpers), 0);
    assert_int_equal(rpl_profile_build(&p, t, &f), 0);
    rpl_kernel_filter_release(&f);
    return p;
}

static void summarises_each_kernel(void **state)
{
    basic b = make_basic();
    rpl_profile *p = build(b.t, NULL, false);
    const rpl_kernel_summary *gemm, *saxpy;

    assert_int_equal(p->nkernels, 2);
    gemm = &p->kernels[0];
    saxpy = &p->kernels[1];
    assert_string_equal(gemm->name, "gemm(float*)");
    assert_string_equal(gemm->mangled_name, "_Z4gemmPf");
    assert_int_equal(gemm->symbol, b.gemm);
    assert_false(gemm->helper);
    assert_int_equal(gemm->stats.count, 4);
    assert_int_equal(gemm->total_ns, 400);
    assert_near(gemm->stats.mean, 100);
    assert_near(gemm->stats.median, 100);
    assert_near(gemm->stats.min, 90);
    assert_near(gemm->stats.max, 110);
    assert_near(gemm->stats.stddev, sqrt(200.0 / 3.0));
    assert_string_equal(saxpy->name, "saxpy(float*)");
    assert_int_equal(saxpy->stats.count, 2);
    assert_int_equal(saxpy->total_ns, 40);
    assert_near(saxpy->stats.median, 20);
    assert_near(gemm->share, 400.0 / 440.0);
    assert_near(saxpy->share, 40.0 / 440.0);
    assert_near(gemm->share + saxpy->share, 1.0);
    rpl_profile_free(p);
    rpl_trace_free(b.t);
}

static void totals_count_every_dispatch(void **state)
{
    basic b = make_basic();
    rpl_profile *p = build(b.t, NULL, false);
    const rpl_profile_totals *t = &p->totals;

    assert_int_equal(t->dispatches, 7);
    assert_int_equal(t->selected_dispatches, 6);
    assert_int_equal(t->helper_dispatches, 1);
    assert_int_equal(t->kernels, 3); /* "unused()" has no dispatch */
    assert_int_equal(t->selected_kernels, 2);
    assert_int_equal(t->helper_kernels, 1);
    assert_int_equal(t->kernel_time_ns, 490);
    assert_int_equal(t->selected_time_ns, 440);
    assert_int_equal(t->helper_time_ns, 50);
    assert_int_equal(t->busy_ns, 490);
    assert_int_equal(t->selected_busy_ns, 440);
    assert_int_equal(t->span_start_ns, 0);
    assert_int_equal(t->span_end_ns, 4050);
    assert_string_equal(p->top_helper, "__amd_rocclr_fillBufferAligned");
    assert_ptr_equal(rpl_profile_primary_agent(p), &b.t->agents.items[b.gpu]);
    assert_int_equal(p->ndevices, 1);
    assert_int_equal(p->devices[0].dispatches, 7);
    assert_int_equal(p->devices[0].selected_time_ns, 440);
    assert_null(p->kernel_regex);
    assert_string_equal(p->helper_regex, RPL_HELPER_REGEX_DEFAULT);
    assert_false(p->include_helpers);
    rpl_profile_free(p);
    rpl_trace_free(b.t);
}

static void include_helpers_adds_them_as_kernels(void **state)
{
    basic b = make_basic();
    rpl_profile *p = build(b.t, NULL, true);
    double shares = 0;
    int helpers = 0;

    assert_int_equal(p->nkernels, 3);
    assert_int_equal(p->totals.selected_time_ns, 490);
    for (uint32_t i = 0; i < p->nkernels; i++) {
        shares += p->kernels[i].share;
        if (p->kernels[i].helper) {
            helpers++;
            assert_string_equal(p->kernels[i].name, "__amd_rocclr_fillBufferAligned");
            assert_near(p->kernels[i].share, 50.0 / 490.0);
        }
    }
    assert_int_equal(helpers, 1);
    assert_near(shares, 1.0);
    assert_true(p->include_helpers);
    rpl_profile_free(p);
    rpl_trace_free(b.t);
}

static void kernel_regex_selects(void **state)
{
    basic b = make_basic();
    rpl_profile *p = build(b.t, "saxpy", false);

    assert_int_equal(p->nkernels, 1);
    assert_string_equal(p->kernels[0].name, "saxpy(float*)");
    assert_near(p->kernels[0].share, 1.0);
    assert_int_equal(p->totals.selected_dispatches, 2);
    assert_int_equal(p->totals.dispatches, 7);
    assert_string_equal(p->kernel_regex, "saxpy");
    rpl_profile_free(p);

    p = build(b.t, "nothing-like-this", false);
    assert_int_equal(p->nkernels, 0);
    assert_int_equal(p->totals.selected_dispatches, 0);
    rpl_profile_free(p);
    rpl_trace_free(b.t);
}

/*
 * Two databases of the same run (one per process): each has its own agent
 * rows for the same GPU and its own symbol rows for the same kernels.
 */
static void merged_sources_group_by_display_name(void **state)
{
    rpl_trace *t = tb_new();
    uint32_t s0 = tb_source(t, "p0.db"), s1 = tb_source(t, "p1.db");
    uint32_t g0 = tb_gpu(t, s0, "gfx942", "AMD Instinct MI300X", 2, 304);
    uint32_t g1 = tb_gpu(t, s1, "gfx942", "AMD Instinct MI300X", 2, 304);
    uint32_t g2 = tb_gpu(t, s1, "gfx942", "AMD Instinct MI300X", 3, 304);
    uint32_t k0 = tb_symbol(t, s0, "_Z4gemmPf", "gemm(float*)");
    uint32_t k1 = tb_symbol(t, s1, "_Z4gemmPf", "gemm(float*)");
    uint32_t k2 = tb_symbol(t, s1, "_Z4gemmPd", "gemm(float*)"); /* another mangling, same name */
    uint32_t x1 = tb_symbol(t, s1, "_Z5saxpyPf", "saxpy(float*)");
    rpl_profile *p;

    tb_dispatch(t, k0, g0, 0, 100);
    tb_dispatch(t, k1, g1, 50, 250);
    tb_dispatch(t, k2, g1, 300, 400);
    tb_dispatch(t, x1, g2, 0, 1000);
    p = build(t, NULL, false);

    assert_int_equal(p->nkernels, 2);
    assert_string_equal(p->kernels[0].name, "saxpy(float*)");
    assert_int_equal(p->kernels[0].total_ns, 1000);
    assert_string_equal(p->kernels[1].name, "gemm(float*)");
    assert_int_equal(p->kernels[1].stats.count, 3);
    assert_int_equal(p->kernels[1].total_ns, 400);
    assert_int_equal(p->kernels[1].symbol, k0);
    assert_int_equal(p->totals.kernels, 2);
    /* Index 2 in both sources is one GPU; index 3 is another and has the most time. */
    assert_int_equal(p->ndevices, 2);
    assert_ptr_equal(rpl_profile_primary_agent(p), &t->agents.items[g2]);
    assert_int_equal(p->devices[0].selected_time_ns, 1000);
    assert_int_equal(p->devices[1].agent, g0);
    assert_int_equal(p->devices[1].dispatches, 3);
    assert_int_equal(p->devices[1].selected_time_ns, 400);
    /* [0,1000] covers everything. */
    assert_int_equal(p->totals.busy_ns, 1000);
    rpl_profile_free(p);
    rpl_trace_free(t);
}

/* Dispatches given out of start order, overlapping and nested. */
static void busy_time_is_the_union_of_intervals(void **state)
{
    rpl_trace *t = tb_new();
    uint32_t src = tb_source(t, "a.db");
    uint32_t gpu = tb_gpu(t, src, "gfx90a", "AMD Instinct MI250X", 1, 110);
    uint32_t gemm = tb_symbol(t, src, "_Z4gemmPf", "gemm(float*)");
    uint32_t fill = tb_symbol(t, src, "__amd_rocclr_fillBufferAligned.kd", "");
    rpl_profile *p;

    tb_dispatch(t, gemm, gpu, 200, 300);
    tb_dispatch(t, gemm, gpu, 0, 100);
    tb_dispatch(t, fill, gpu, 50, 150);
    tb_dispatch(t, gemm, gpu, 10, 20);
    p = build(t, NULL, false);
    assert_int_equal(p->totals.busy_ns, 250);          /* [0,150] + [200,300] */
    assert_int_equal(p->totals.selected_busy_ns, 200); /* [0,100] + [200,300] */
    assert_int_equal(p->totals.selected_time_ns, 210);
    assert_int_equal(p->totals.span_start_ns, 0);
    assert_int_equal(p->totals.span_end_ns, 300);
    /* A helper with no display name is named by its mangled name. */
    assert_string_equal(p->top_helper, "__amd_rocclr_fillBufferAligned.kd");
    rpl_profile_free(p);
    rpl_trace_free(t);
}

typedef struct ref_interval {
    int64_t start, end;
} ref_interval;

static int cmp_ref(const void *a, const void *b)
{
    const ref_interval *x = a, *y = b;

    return (x->start > y->start) - (x->start < y->start);
}

/* Union length by the obvious method: sort, then merge overlapping intervals. */
static int64_t ref_union(ref_interval *iv, size_t n)
{
    int64_t total = 0, lo, hi;

    qsort(iv, n, sizeof(*iv), cmp_ref);
    for (size_t i = 0; i < n;) {
        lo = iv[i].start;
        hi = iv[i].end;
        for (i++; i < n && iv[i].start <= hi; i++)
            hi = iv[i].end > hi ? iv[i].end : hi;
        total += hi - lo;
    }
    return total;
}

/* xorshift64: the tests' reproducible random numbers. */
static uint64_t next_random(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* The busy times of t against the reference union of `all` and of `sel` (t is freed). */
static void check_busy_time(rpl_trace *t, ref_interval *all, size_t n, ref_interval *sel,
                            size_t nsel)
{
    rpl_profile *p = build(t, NULL, false);

    assert_int_equal(p->totals.busy_ns, ref_union(all, n));
    assert_int_equal(p->totals.selected_busy_ns, ref_union(sel, nsel));
    rpl_profile_free(p);
    rpl_trace_free(t);
}

/* Random overlapping dispatches in no order (negative times too) against the reference. */
static void busy_time_matches_a_reference(void **state)
{
    enum { N = 20000 };
    static ref_interval all[N], sel[N];
    rpl_trace *t = tb_new();
    uint32_t src = tb_source(t, "a.db");
    uint32_t gpu = tb_gpu(t, src, "gfx942", "", 0, 0);
    uint32_t user = tb_symbol(t, src, "_Z4userv", "user()");
    uint32_t helper = tb_symbol(t, src, "__amd_rocclr_copyBuffer.kd", "");
    uint64_t x = 0x9E3779B97F4A7C15ull;
    size_t nsel = 0;

    for (size_t i = 0; i < N; i++) {
        int64_t start, len;
        next_random(&x);
        start = (int64_t)(x % 40000000) - 1000000;
        len = (int64_t)((x >> 40) % 3000);
        all[i] = (ref_interval){start, start + len};
        if (x & 1) {
            tb_dispatch(t, helper, gpu, start, start + len);
        } else {
            tb_dispatch(t, user, gpu, start, start + len);
            sel[nsel++] = all[i];
        }
    }
    check_busy_time(t, all, N, sel, nsel);
}

/*
 * Dispatches of several queues, each queue's in start order, interleaved in
 * the trace (the queues' runs are merged), then with one queue out of order
 * (the radix sort): both against the reference.
 */
static void busy_time_merges_queues(void **state)
{
    enum { N = 12000, Q = 5 };
    static ref_interval all[N], sel[N];
    rpl_trace *t;
    uint64_t x = 0x2545F4914F6CDD1Dull;

    (void)state;
    for (int shuffled = 0; shuffled < 2; shuffled++) {
        int64_t cursor[Q] = {0};
        uint32_t src, gpu, user, helper, queue[Q];
        size_t nsel = 0;

        t = tb_new();
        src = tb_source(t, "q.db");
        gpu = tb_gpu(t, src, "gfx942", "", 0, 0);
        user = tb_symbol(t, src, "_Z4userv", "user()");
        helper = tb_symbol(t, src, "__amd_rocclr_copyBuffer.kd", "");
        for (uint32_t q = 0; q < Q; q++) {
            rpl_queue rq = {src, (int64_t)q + 1, 1, "Queue"};
            assert_int_equal(rpl_trace_add_queue(t, &rq, &queue[q]), 0);
        }
        for (size_t i = 0; i < N; i++) {
            uint32_t q;
            int64_t start, len;

            q = (uint32_t)(next_random(&x) % Q);
            len = (int64_t)((x >> 20) % 5000);
            /* In order within the queue (overlapping its predecessor now and then). */
            start = cursor[q] + (int64_t)((x >> 40) % 3000) - 1000;
            cursor[q] = start > cursor[q] ? start : cursor[q];
            start = cursor[q];
            if (shuffled && q == 2 && i % 97 == 0)
                start -= 20000; /* this queue is out of order: the radix sort takes over */
            all[i] = (ref_interval){start, start + len};
            tb_dispatch(t, (x & 1) ? helper : user, gpu, start, start + len);
            t->dispatches.items[t->dispatches.count - 1].queue = queue[q];
            if (!(x & 1))
                sel[nsel++] = all[i];
        }
        check_busy_time(t, all, N, sel, nsel);
    }
}

static void memory_copies_by_kind_and_in_the_span(void **state)
{
    basic b = make_basic();
    rpl_profile *p;

    tb_copy(b.t, RPL_COPY_HOST_TO_DEVICE, 100, 300, 4096);
    tb_copy(b.t, RPL_COPY_HOST_TO_DEVICE, 400, 500, 1024);
    tb_copy(b.t, RPL_COPY_DEVICE_TO_HOST, 5000, 5600, 2048);
    p = build(b.t, NULL, false);
    assert_int_equal(p->totals.copies.count, 3);
    assert_int_equal(p->totals.copies.bytes, 7168);
    assert_int_equal(p->totals.copies.time_ns, 900);
    assert_int_equal(p->totals.copies_by_kind[RPL_COPY_HOST_TO_DEVICE].count, 2);
    assert_int_equal(p->totals.copies_by_kind[RPL_COPY_HOST_TO_DEVICE].bytes, 5120);
    assert_int_equal(p->totals.copies_by_kind[RPL_COPY_HOST_TO_DEVICE].time_ns, 300);
    assert_int_equal(p->totals.copies_by_kind[RPL_COPY_DEVICE_TO_HOST].count, 1);
    assert_int_equal(p->totals.copies_by_kind[RPL_COPY_DEVICE_TO_DEVICE].count, 0);
    assert_int_equal(p->totals.span_start_ns, 0);
    assert_int_equal(p->totals.span_end_ns, 5600);
    /* Copies are no kernel time. */
    assert_int_equal(p->totals.busy_ns, 490);
    rpl_profile_free(p);
    rpl_trace_free(b.t);
}

static void bad_dispatches_are_input_errors(void **state)
{
    basic b = make_basic();
    rpl_kernel_filter f;
    rpl_profile *p = (rpl_profile *)&f;

    unsetenv(RPL_HELPER_REGEX_ENV);
    assert_int_equal(rpl_kernel_filter_init(&f, NULL, NULL, false), 0);
    b.t->dispatches.items[3].kernel = 99;
    assert_int_equal(rpl_profile_build(&p, b.t, &f), RPL_EINPUT);
    assert_null(p);
    assert_non_null(strstr(rpl_error_last()->message, "no kernel symbol"));
    b.t->dispatches.items[3].kernel = b.saxpy;
    b.t->dispatches.items[5].end = b.t->dispatches.items[5].start - 1;
    assert_int_equal(rpl_profile_build(&p, b.t, &f), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "ends before it starts"));
    /* Starts 2^62 ns apart, out of order: refused rather than mis-sorted. */
    b.t->dispatches.items[5].end = b.t->dispatches.items[5].start;
    b.t->dispatches.items[0].start = (INT64_C(1) << 62) + 1000;
    b.t->dispatches.items[0].end = (INT64_C(1) << 62) + 1001;
    assert_int_equal(rpl_profile_build(&p, b.t, &f), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "2^62"));
    rpl_kernel_filter_release(&f);
    rpl_trace_free(b.t);
}

static void empty_trace_has_no_kernels(void **state)
{
    rpl_trace *t = tb_new();
    uint32_t src = tb_source(t, "a.db");
    rpl_profile *p;

    tb_cpu(t, src);
    p = build(t, NULL, false);
    assert_int_equal(p->nkernels, 0);
    assert_int_equal(p->totals.dispatches, 0);
    assert_int_equal(p->totals.busy_ns, 0);
    assert_null(rpl_profile_primary_agent(p)); /* a CPU agent is no device */
    assert_null(p->top_helper);
    rpl_profile_free(p);
    rpl_trace_free(t);
}

static void zero_length_dispatches_share_nothing(void **state)
{
    rpl_trace *t = tb_new();
    uint32_t src = tb_source(t, "a.db");
    uint32_t gpu = tb_gpu(t, src, "gfx942", "", 0, 0);
    uint32_t k = tb_symbol(t, src, "_Z1kv", "k()");
    rpl_profile *p;

    tb_dispatch(t, k, gpu, 10, 10);
    tb_dispatch(t, k, gpu, 20, 20);
    p = build(t, NULL, false);
    assert_int_equal(p->nkernels, 1);
    assert_near(p->kernels[0].share, 0);
    assert_near(p->kernels[0].stats.cv, 0);
    rpl_profile_free(p);
    rpl_trace_free(t);
}

/* Equal totals sort by name, so the order never depends on the input order. */
static void ties_sort_by_name(void **state)
{
    rpl_trace *t = tb_new();
    uint32_t src = tb_source(t, "a.db");
    uint32_t gpu = tb_gpu(t, src, "gfx942", "", 0, 0);
    uint32_t kb = tb_symbol(t, src, "_Z1bv", "b()");
    uint32_t ka = tb_symbol(t, src, "_Z1av", "a()");
    rpl_profile *p;

    tb_dispatch(t, kb, gpu, 0, 50);
    tb_dispatch(t, ka, gpu, 100, 150);
    p = build(t, NULL, false);
    assert_string_equal(p->kernels[0].name, "a()");
    assert_string_equal(p->kernels[1].name, "b()");
    rpl_profile_free(p);
    rpl_trace_free(t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(summarises_each_kernel),
        cmocka_unit_test(totals_count_every_dispatch),
        cmocka_unit_test(include_helpers_adds_them_as_kernels),
        cmocka_unit_test(kernel_regex_selects),
        cmocka_unit_test(merged_sources_group_by_display_name),
        cmocka_unit_test(busy_time_is_the_union_of_intervals),
        cmocka_unit_test(busy_time_matches_a_reference),
        cmocka_unit_test(busy_time_merges_queues),
        cmocka_unit_test(memory_copies_by_kind_and_in_the_span),
        cmocka_unit_test(bad_dispatches_are_input_errors),
        cmocka_unit_test(empty_trace_has_no_kernels),
        cmocka_unit_test(zero_length_dispatches_share_nothing),
        cmocka_unit_test(ties_sort_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
