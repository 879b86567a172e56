/*
 * The HSA replay backend's decisions that need no runtime
 * (src/replay/replay_hsa_plan.h): agent choice by ISA, spans, the
 * placeholders that keep hsa_init off the captured addresses, the
 * dispatch packet and the timestamp conversion.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "replay_hsa_plan.h"
#include "rpl/error.h"

static rh_agent agent(uint64_t handle, bool gpu, const char *isa)
{
    rh_agent a;

    memset(&a, 0, sizeof(a));
    a.handle = handle;
    a.gpu = gpu;
    strncpy(a.isa, isa, sizeof(a.isa) - 1);
    return a;
}

static void agents_are_picked_by_isa(void **state)
{
    const char *mi300 = "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-";
    rh_agent v[4];
    size_t pick = 99;

    v[0] = agent(1, false, "");
    v[1] = agent(2, true, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
    v[2] = agent(3, true, mi300);
    v[3] = agent(4, true, mi300);
    assert_int_equal(rh_pick_agent(&pick, v, 4, mi300), 0);
    assert_int_equal(pick, 2); /* the first that fits */
    assert_int_equal(rh_pick_agent(&pick, v, 4, "amdgcn-amd-amdhsa--gfx90a:xnack-"), 0);
    assert_int_equal(pick, 1);
    /* GPUs, none of the snapshot's kind: bad input, both named. */
    assert_int_equal(rh_pick_agent(&pick, v, 2, mi300), RPL_EINPUT);
    assert_non_null(strstr(rpl_error_last()->message, "gfx942"));
    assert_non_null(strstr(rpl_error_last()->message, "gfx90a"));
    /* XNACK on where the snapshot had it off. */
    v[1] = agent(2, true, "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack+");
    assert_int_equal(rh_pick_agent(&pick, v, 2, mi300), RPL_EINPUT);
    /* No GPU at all. */
    assert_int_equal(rh_pick_agent(&pick, v, 1, mi300), RPL_ENODEV);
    assert_int_equal(rh_pick_agent(&pick, v, 4, "sm_90"), RPL_EINPUT);
}

static rpl_snapshot snapshot_with(rpl_snap_region *regions, size_t n)
{
    rpl_snapshot s;

    memset(&s, 0, sizeof(s));
    s.dir = "snap";
    s.regions = regions;
    s.nregions = n;
    s.grid[0] = 4096;
    s.grid[1] = 2;
    s.grid[2] = 1;
    s.block[0] = 256;
    s.block[1] = 2;
    s.block[2] = 1;
    s.setup_dims = 2;
    s.dynamic_shared_bytes = 4096 + 1024; /* static 4096 + dynamic 1024 */
    s.static_shared_bytes = 4096;
    s.private_segment_bytes = 64;
    return s;
}

static void spans_follow_the_granule(void **state)
{
    rpl_snap_region r[3];
    rpl_snapshot s;
    rpl_range *spans = NULL;
    size_t n = 0;

    memset(r, 0, sizeof(r));
    r[0].base = 0x7f0000000100;
    r[0].size = 0x100;
    r[1].base = 0x7f0000000800; /* same 4 KiB page */
    r[1].size = 0x1000;
    r[2].base = 0x7f0000200000;
    r[2].size = 0x10;
    s = snapshot_with(r, 3);
    assert_int_equal(rh_spans(&spans, &n, &s, 4096), 0);
    assert_int_equal(n, 2);
    assert_true(spans[0].base == 0x7f0000000000 && spans[0].size == 0x2000);
    assert_true(spans[1].base == 0x7f0000200000 && spans[1].size == 0x1000);
    free(spans);
    assert_int_equal(rh_spans(&spans, &n, &s, 2u << 20), 0);
    assert_int_equal(n, 1);
    assert_true(spans[0].base == 0x7f0000000000 && spans[0].size == 0x400000);
    free(spans);
}

/* An address range nobody in this process uses: where an anonymous mapping landed, freed. */
static uint64_t free_range(size_t size)
{
    void *p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    assert_true(p != MAP_FAILED);
    munmap(p, size);
    return (uint64_t)(uintptr_t)p;
}

static bool is_free(uint64_t base, size_t size)
{
    void *p = mmap((void *)(uintptr_t)base, size, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

    if (p == MAP_FAILED)
        return false;
    munmap(p, size);
    return p == (void *)(uintptr_t)base;
}

static void placeholders_hold_the_spans_until_removed(void **state)
{
    rh_placeholders ph;
    rpl_range spans[2];
    void *taken = malloc(64);

    spans[0].base = free_range(1 << 20);
    spans[0].size = 1 << 20;
    /* The page of a heap block: already mapped in this process. */
    spans[1].base = (uint64_t)(uintptr_t)taken & ~(uint64_t)4095;
    spans[1].size = 4096;
    assert_int_equal(rh_placeholders_map(&ph, spans, 2), 0);
    assert_int_equal(ph.n, 1);
    assert_int_equal(ph.conflicts, 1);
    assert_true(ph.first_conflict == spans[1].base);
    assert_false(is_free(spans[0].base, 4096));  /* held */
    assert_int_equal(((char *)taken)[0] = 5, 5); /* the heap page was left alone */
    rh_placeholders_unmap(&ph);
    assert_true(is_free(spans[0].base, 1 << 20));
    assert_int_equal(ph.n, 0);
    free(taken);
}

static void dispatch_keeps_the_geometry_and_the_dynamic_lds(void **state)
{
    rpl_snapshot s = snapshot_with(NULL, 0);
    rh_kernel k = {0x7f0012340000ull, 4096, 32};
    rpl_aql_dispatch d;

    assert_int_equal(rh_dispatch(&d, &s, &k, 0x1000, 0x2000), 0);
    assert_int_equal(d.header.type, RPL_AQL_KERNEL_DISPATCH);
    assert_true(d.header.barrier);
    assert_int_equal(d.header.acquire, RPL_AQL_SCOPE_SYSTEM);
    assert_int_equal(d.header.release, RPL_AQL_SCOPE_SYSTEM);
    assert_int_equal(d.dims, 2);
    assert_int_equal(d.grid[0], 4096);
    assert_int_equal(d.grid[1], 2);
    assert_int_equal(d.workgroup[0], 256);
    assert_int_equal(d.workgroup[1], 2);
    assert_int_equal(d.group_segment_size, 4096 + 1024);
    assert_int_equal(d.private_segment_size, 64); /* the launch's, larger than the kernel's */
    assert_true(d.kernel_object == k.kernel_object);
    assert_true(d.kernarg_address == 0x1000 && d.completion_signal == 0x2000);

    /* A candidate with 8 KiB of static LDS keeps the 1 KiB dynamic share. */
    k.group_static = 8192;
    k.private_fixed = 256;
    assert_int_equal(rh_dispatch(&d, &s, &k, 0x1000, 0x2000), 0);
    assert_int_equal(d.group_segment_size, 8192 + 1024);
    assert_int_equal(d.private_segment_size, 256);

    /* No setup dimensions recorded: 3. */
    s.setup_dims = 0;
    assert_int_equal(rh_dispatch(&d, &s, &k, 0, 0), 0);
    assert_int_equal(d.dims, 3);

    s.block[0] = 70000;
    assert_int_equal(rh_dispatch(&d, &s, &k, 0, 0), RPL_EINPUT);
    s.block[0] = 256;
    s.grid[2] = 0;
    assert_int_equal(rh_dispatch(&d, &s, &k, 0, 0), RPL_EINPUT);
}

static void ticks_become_nanoseconds(void **state)
{
    assert_true(rh_ticks_ns(1000, 3500, 1000000000u) == 2500.0);
    assert_true(rh_ticks_ns(1000, 3500, 100000000u) == 25000.0); /* 100 MHz: 10 ns a tick */
    assert_true(rh_ticks_ns(3500, 1000, 1000000000u) < 0);
    assert_true(rh_ticks_ns(1, 2, 0) < 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(agents_are_picked_by_isa),
        cmocka_unit_test(spans_follow_the_granule),
        cmocka_unit_test(placeholders_hold_the_spans_until_removed),
        cmocka_unit_test(dispatch_keeps_the_geometry_and_the_dynamic_lds),
        cmocka_unit_test(ticks_become_nanoseconds),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
