/* Which dispatches the pipeline captures for a kernel's other shapes (probes.c), on synthetic
   traces: the first of each launch geometry over the whole run, then the fixed few. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pipe_int.h"
#include "rpl/trace.h"

typedef struct fixture {
    rpl_trace *t;
    uint32_t sgemm, other, thread;
    int64_t clock;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof(*f));
    rpl_kernel_symbol s = {0};

    assert_non_null(f);
    assert_int_equal(rpl_trace_new(&f->t), 0);
    s.name = "_Z18sgemm2DBlocktilingILi128ELi128ELi8ELi8ELi8EEviiifPKfS1_fPf";
    s.display_name = "void sgemm2DBlocktiling<128, 128, 8, 8, 8>(int, int, int, float, const "
                     "float*, const float*, float, float*)";
    assert_int_equal(rpl_trace_add_symbol(f->t, &s, &f->sgemm), 0);
    s.name = s.display_name = "_Z5otherPf";
    assert_int_equal(rpl_trace_add_symbol(f->t, &s, &f->other), 0);
    f->thread = rpl_trace_thread(f->t, 1, 1);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;

    rpl_trace_free(f->t);
    free(f);
    return 0;
}

/* A dispatch of `kernel` with a square grid of `n` threads a side, `block` threads a side. */
static void launch(fixture *f, uint32_t kernel, uint32_t n, uint16_t block, uint32_t lds)
{
    rpl_dispatch d = {0};

    d.id = d.dispatch_id = f->clock + 1;
    d.start = f->clock += 10;
    d.end = d.start + 5;
    d.kernel = kernel;
    d.thread = f->thread;
    d.stream = d.queue = d.agent = RPL_NONE;
    d.grid[0] = d.grid[1] = n;
    d.grid[2] = 1;
    d.workgroup[0] = d.workgroup[1] = block;
    d.workgroup[2] = 1;
    d.group_segment_size = lds;
    assert_int_equal(rpl_trace_add_dispatch(f->t, &d, NULL), 0);
}

static void probes_of(fixture *f, unsigned **v, size_t *n)
{
    char *regex = NULL;

    assert_int_equal(pipe_kernel_regex(&regex, "sgemm2DBlocktiling"), 0);
    assert_int_equal(pipe_shape_probes(f ? f->t : NULL, regex, v, n), 0);
    free(regex);
}

/* SGEMM_CUDA's runner: one check and 50 timed launches per size, six sizes, another kernel
   in between; the replay check must see the six sizes, not dispatches 0-4, 8, 16, 32 of one. */
static void sizes_in_runs(void **state)
{
    fixture *f = *state;
    static const unsigned want[] = {51, 102, 153, 204, 255, 1, 2, 3, 4, 8, 16, 32};
    unsigned *v = NULL;
    size_t n = 0;

    for (uint32_t size = 128; size <= 4096; size *= 2) {
        launch(f, f->other, size * 7, 32, 0);
        for (int i = 0; i < 51; i++)
            launch(f, f->sgemm, size, 16, 0);
    }
    probes_of(f, &v, &n);
    assert_int_equal(n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < n; i++)
        assert_int_equal(v[i], want[i]);
    free(v);
}

/* The block and the dynamic shared memory tell shapes apart too; a size seen before is not a
   new shape; the order is the order the dispatches ran, not the order of the records. */
static void geometry_and_order(void **state)
{
    fixture *f = *state;
    unsigned *v = NULL;
    size_t n = 0;

    launch(f, f->sgemm, 256, 16, 0);  /* 0 */
    launch(f, f->sgemm, 256, 16, 0);  /* 1 */
    launch(f, f->sgemm, 256, 8, 0);   /* 2: another block */
    launch(f, f->sgemm, 256, 16, 0);  /* 3 */
    launch(f, f->sgemm, 256, 16, 64); /* 4: dynamic shared memory */
    launch(f, f->sgemm, 256, 8, 0);   /* 5: seen at 2 */
    /* Recorded last, ran first: it is dispatch 0 and the rest move one on. */
    f->t->dispatches.items[f->t->dispatches.count - 1].start = -5;
    probes_of(f, &v, &n);
    assert_true(n >= 3);
    assert_int_equal(v[0], 1); /* 256/16 at 1 after the 256/8 that ran first */
    assert_int_equal(v[1], 5); /* 256/16 with 64 bytes of shared memory */
    assert_int_equal(v[2], 2); /* then the fixed ones, 1 not twice */
    for (size_t i = 3; i < n; i++)
        assert_int_not_equal(v[i], 1);
    free(v);
}

static void capped(void **state)
{
    fixture *f = *state;
    unsigned *v = NULL;
    size_t n = 0;

    for (uint32_t i = 0; i < 2 * PIPE_SHAPE_PROBES_MAX; i++)
        launch(f, f->sgemm, 64 + i, 16, 0);
    probes_of(f, &v, &n);
    assert_int_equal(v[0], 1);
    assert_int_equal(v[PIPE_SHAPE_PROBES_MAX - 1], PIPE_SHAPE_PROBES_MAX);
    /* 1-32 are all listed already: nothing after the cap. */
    assert_int_equal(n, PIPE_SHAPE_PROBES_MAX);
    free(v);
}

/* No profile (--no-app), or no dispatch of the kernel in it: the fixed dispatches. */
static void fixed_without_trace(void **state)
{
    fixture *f = *state;
    static const unsigned want[] = {1, 2, 3, 4, 8, 16, 32};
    unsigned *v = NULL;
    size_t n = 0;

    probes_of(NULL, &v, &n);
    assert_int_equal(n, 7);
    assert_memory_equal(v, want, sizeof(want));
    free(v);
    launch(f, f->other, 64, 16, 0);
    launch(f, f->other, 128, 16, 0);
    probes_of(f, &v, &n);
    assert_int_equal(n, 7);
    assert_memory_equal(v, want, sizeof(want));
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(sizes_in_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(geometry_and_order, setup, teardown),
        cmocka_unit_test_setup_teardown(capped, setup, teardown),
        cmocka_unit_test_setup_teardown(fixed_without_trace, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
