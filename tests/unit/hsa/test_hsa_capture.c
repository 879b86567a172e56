/*
 * librpl_hsa.so end to end, without an AMD GPU: the library is loaded as
 * ROCr would load it (dlopen, OnLoad with an API table) but the table is
 * the fake runtime of fake_hsa.c (a TEST DOUBLE at the runtime boundary).
 * The test plays the application: it creates queues, allocates, loads the
 * fixture code object and rings doorbells; then it reads the snapshot
 * back with rpl_snapshot_open and checks every part of it against what
 * the "device" held, and checks the packets the queue received: the drain
 * barrier before the copies, the dispatch on the tool's signal, the
 * application's signal fired exactly once afterwards.
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <dlfcn.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "fake_hsa.h"
#include "rpl/error.h"
#include "rpl/fsutil.h"
#include "rpl/hsa.h"
#include "rpl/snapshot.h"

typedef bool (*on_load_fn)(void *, uint64_t, uint64_t, const char *const *);
typedef void (*on_unload_fn)(void);

static char *fixture;
static size_t fixture_len;
static on_load_fn on_load;
static on_unload_fn on_unload;
static char dir[512];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    return remove(path);
}

/* A snapshot path of its own for each test, absent. */
static const char *fresh_dir(const char *name)
{
    snprintf(dir, sizeof(dir), "%s/hsa_capture/%s", RPL_TEST_TMP, name);
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return dir;
}

static bool load_tool(unsigned amd_major, bool zero_plain_kernarg)
{
    fake_hsa_reset(amd_major, (const unsigned char *)fixture, fixture_len);
    assert_int_equal(fake_hsa_add_fixture_symbols(zero_plain_kernarg), 0);
    return on_load(&fake.root, 3, 0, NULL);
}

static void set_env(const char *kernel, const char *dispatch)
{
    setenv("ROCM_PERF_CAPTURE_DIR", dir, 1);
    if (kernel)
        setenv("ROCM_PERF_CAPTURE_KERNEL", kernel, 1);
    else
        unsetenv("ROCM_PERF_CAPTURE_KERNEL");
    if (dispatch)
        setenv("ROCM_PERF_CAPTURE_DISPATCH", dispatch, 1);
    else
        unsetenv("ROCM_PERF_CAPTURE_DISPATCH");
}

/* ---- the application ---- */

static hsa_queue_t *app_queue(void)
{
    hsa_agent_t gpu = {FAKE_GPU_AGENT};
    hsa_queue_t *q = NULL;

    assert_int_equal(fake.root.core_->hsa_queue_create_fn(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL,
                                                          UINT32_MAX, UINT32_MAX, &q),
                     HSA_STATUS_SUCCESS);
    return q;
}

static void *app_allocations[16];
static size_t app_nallocations;

static void *app_alloc(uint64_t pool, size_t size)
{
    hsa_amd_memory_pool_t p = {pool};
    void *ptr = NULL;

    assert_int_equal(fake.root.amd_ext_->hsa_amd_memory_pool_allocate_fn(p, size, 0, &ptr),
                     HSA_STATUS_SUCCESS);
    memset(ptr, 0, size);
    assert_true(app_nallocations < 16);
    app_allocations[app_nallocations++] = ptr;
    return ptr;
}

static void app_free(void *ptr)
{
    size_t i;

    for (i = 0; i < app_nallocations && app_allocations[i] != ptr; i++)
        ;
    assert_true(i < app_nallocations);
    app_allocations[i] = app_allocations[--app_nallocations];
    assert_int_equal(fake.root.amd_ext_->hsa_amd_memory_pool_free_fn(ptr), HSA_STATUS_SUCCESS);
}

/* The application's exit: everything goes back through the (hooked) table. */
static void app_free_all(void)
{
    while (app_nallocations > 0)
        assert_int_equal(
            fake.root.amd_ext_->hsa_amd_memory_pool_free_fn(app_allocations[--app_nallocations]),
            HSA_STATUS_SUCCESS);
}

static void app_load(void)
{
    hsa_executable_t exe = {77};

    assert_int_equal(fake.root.core_->hsa_executable_freeze_fn(exe, NULL), HSA_STATUS_SUCCESS);
}

static void dispatch_packet(unsigned char pkt[64], const char *kernel, const void *kernarg,
                            uint32_t grid, uint16_t wg, hsa_signal_t signal)
{
    rpl_aql_dispatch d;

    memset(&d, 0, sizeof(d));
    d.header.type = RPL_AQL_KERNEL_DISPATCH;
    d.header.barrier = true;
    d.header.acquire = RPL_AQL_SCOPE_SYSTEM;
    d.header.release = RPL_AQL_SCOPE_AGENT;
    d.dims = 1;
    d.workgroup[0] = wg;
    d.workgroup[1] = d.workgroup[2] = 1;
    d.grid[0] = grid;
    d.grid[1] = d.grid[2] = 1;
    d.group_segment_size = 512;
    d.private_segment_size = 16;
    d.kernel_object = fake_hsa_address(kernel);
    d.kernarg_address = (uint64_t)(uintptr_t)kernarg;
    d.completion_signal = signal.handle;
    assert_true(d.kernel_object != 0);
    assert_int_equal(rpl_aql_dispatch_encode(pkt, &d), 0);
}

static void app_dispatch(hsa_queue_t *q, const char *kernel, const void *kernarg, uint32_t grid,
                         uint16_t wg, hsa_signal_t signal)
{
    unsigned char pkt[64];

    dispatch_packet(pkt, kernel, kernarg, grid, wg, signal);
    fake_hsa_submit(q, pkt, 1);
}

/* ---- checks ---- */

static void check_drain_barrier(const unsigned char *pkt)
{
    rpl_aql_header h = rpl_aql_header_decode((uint16_t)(pkt[0] | pkt[1] << 8));

    assert_int_equal(h.type, RPL_AQL_BARRIER_AND);
    assert_true(h.barrier);
    assert_int_equal(h.acquire, RPL_AQL_SCOPE_SYSTEM);
    assert_int_equal(h.release, RPL_AQL_SCOPE_SYSTEM);
}

static uint64_t packet_signal(const unsigned char *pkt)
{
    uint64_t s;

    memcpy(&s, pkt + 56, sizeof(s));
    return s;
}

static void read_image(const rpl_snapshot *snap, size_t i, bool global, bool post, void *buf,
                       size_t len)
{
    FILE *f = NULL;

    if (global)
        assert_int_equal(rpl_snapshot_global_open(&f, snap, i, post), 0);
    else
        assert_int_equal(rpl_snapshot_region_open(&f, snap, i, post), 0);
    assert_int_equal(fread(buf, 1, len, f), len);
    assert_int_equal(fgetc(f), EOF);
    fclose(f);
}

static long region_at(const rpl_snapshot *snap, const void *p)
{
    return rpl_snapshot_find_region(snap, (uint64_t)(uintptr_t)p, 1);
}

static void capture_writes_a_snapshot_that_reads_back(void **state)
{
    hsa_signal_t s0 = fake_signal_new(1), s1 = fake_signal_new(1), s2 = fake_signal_new(1);
    rpl_aql_dispatch app, fwd;
    unsigned char app_pkt[64], kernarg[12];
    rpl_snapshot *snap = NULL;
    hsa_queue_t *q, *later;
    int *a, *r, pre[1024], post[1024], counter[4];
    float *host, s = 3.0f;
    unsigned char *ka;
    char *hsaco = NULL;
    size_t hsaco_len = 0;
    long ia, ih, ir, ik;
    int i;

    fresh_dir("basic");
    set_env("^increment\\(", "1");
    assert_true(load_tool(2, false));
    q = app_queue();
    assert_int_equal(fake.intercept_queues, 1);
    a = app_alloc(FAKE_POOL_DEVICE, sizeof(pre));
    host = app_alloc(FAKE_POOL_HOST, 256);
    assert_int_equal(fake.root.core_->hsa_memory_allocate_fn((hsa_region_t){FAKE_REGION_DEVICE},
                                                             4096, (void **)&r),
                     HSA_STATUS_SUCCESS);
    memset(r, 0, 4096);
    ka = app_alloc(FAKE_POOL_KERNARG, 4096);
    for (i = 0; i < 1024; i++)
        a[i] = i;
    host[0] = 1.5f;
    app_load();
    memcpy(ka, &a, 8);
    memcpy(ka + 8, &s, 4);
    memcpy(ka + 256, &r, 8);

    /* Dispatch 0 of increment and one of another kernel go through as they are. */
    app_dispatch(q, "_Z9incrementPif.kd", ka, 1024, 256, s0);
    app_dispatch(q, "plain.kd", ka + 256, 512, 128, s1);
    assert_int_equal(fake.nlog, 2);
    assert_int_equal(fake_signal_value(s0), 0);
    assert_int_equal(a[5], 8);
    assert_int_equal(r[3], 4);

    /* Dispatch 1 of increment is captured. */
    dispatch_packet(app_pkt, "_Z9incrementPif.kd", ka, 1024, 256, s2);
    fake_hsa_submit(q, app_pkt, 1);
    assert_int_equal(fake.nlog, 5);
    check_drain_barrier(fake.log[2]);
    assert_true(packet_signal(fake.log[2]) != 0 && packet_signal(fake.log[2]) != s2.handle);
    assert_int_equal(rpl_aql_dispatch_decode(&fwd, fake.log[3], 64), 0);
    assert_int_equal(rpl_aql_dispatch_decode(&app, app_pkt, 64), 0);
    assert_true(fwd.completion_signal == packet_signal(fake.log[2])); /* the tool's own signal */
    assert_int_equal(fwd.header.release, RPL_AQL_SCOPE_SYSTEM);
    fwd.completion_signal = app.completion_signal;
    fwd.header.release = app.header.release;
    assert_memory_equal(&fwd, &app, sizeof(app)); /* otherwise the application's packet */
    assert_int_equal(rpl_aql_packet_type(fake.log[4]), RPL_AQL_BARRIER_AND);
    assert_true(packet_signal(fake.log[4]) == s2.handle);
    assert_int_equal(fake_signal_value(s2), 0); /* fired once: 1 -> 0 */
    assert_int_equal(fake.signals_live, 0);
    assert_int_equal(a[5], 11);

    /* The snapshot. */
    assert_int_equal(rpl_snapshot_open(&snap, dir), 0);
    assert_int_equal(rpl_snapshot_verify(snap), 0);
    assert_int_equal(snap->backend, RPL_SNAP_HSA);
    assert_string_equal(snap->arch, "gfx90a");
    assert_string_equal(snap->target, FAKE_ISA_NAME);
    assert_string_equal(snap->device_name, "Fake Instinct MI210");
    assert_string_equal(snap->runtime_version, "1.1 (ROCr fake-1.0)");
    assert_string_equal(snap->mangled_name, "_Z9incrementPif");
    assert_string_equal(snap->demangled_name, "increment(int*, float)");
    assert_string_equal(snap->code_object_symbol, "_Z9incrementPif.kd");
    assert_true(snap->kernel_object == fake_hsa_address("_Z9incrementPif.kd"));
    assert_int_equal(snap->grid[0], 1024);
    assert_int_equal(snap->grid[1], 1);
    assert_int_equal(snap->block[0], 256);
    assert_int_equal(snap->setup_dims, 1);
    assert_int_equal(snap->dynamic_shared_bytes, 512);
    assert_int_equal(snap->private_segment_bytes, 16);
    assert_int_equal(snap->dispatch_index, 1);
    assert_int_equal(snap->capture_pid, getpid());
    assert_int_equal(snap->kernarg_size, 12);
    assert_int_equal(snap->nparams, 2);
    assert_true(snap->params[0].pointer);
    assert_int_equal(snap->params[0].pointee, RPL_DTYPE_I32);
    assert_false(snap->params[1].pointer);

    assert_int_equal(
        rpl_file_read_all(RPL_FIXTURES "/hsa/kernels.hsaco", 1 << 20, &hsaco, &hsaco_len), 0);
    free(hsaco);
    {
        char *path = NULL, *got = NULL;
        size_t len = 0;

        assert_int_equal(rpl_path_join(&path, dir, "kernel.hsaco"), 0);
        assert_int_equal(rpl_file_read_all(path, 1 << 20, &got, &len), 0);
        assert_int_equal(len, fixture_len);
        assert_memory_equal(got, fixture, len);
        free(got);
        free(path);
        assert_int_equal(rpl_path_join(&path, dir, "kernarg.bin"), 0);
        assert_int_equal(rpl_file_read_all(path, 1 << 20, &got, &len), 0);
        memcpy(kernarg, ka, sizeof(kernarg));
        assert_int_equal(len, sizeof(kernarg));
        assert_memory_equal(got, kernarg, len);
        free(got);
        free(path);
    }

    /* Every allocation, with its kind; the tool's own copy buffer is none of them. */
    assert_int_equal(snap->nregions, 4);
    ia = region_at(snap, a);
    ih = region_at(snap, host);
    ir = region_at(snap, r);
    ik = region_at(snap, ka);
    assert_true(ia >= 0 && ih >= 0 && ir >= 0 && ik >= 0);
    assert_string_equal(snap->regions[ia].kind, "pool");
    assert_string_equal(snap->regions[ih].kind, "host");
    assert_string_equal(snap->regions[ir].kind, "device");
    assert_string_equal(snap->regions[ik].kind, "kernarg");
    assert_int_equal(snap->regions[ia].dtype, RPL_DTYPE_I32);
    assert_int_equal(snap->regions[ih].dtype, RPL_DTYPE_BYTES);
    assert_true(snap->regions[ia].written);
    assert_false(snap->regions[ih].written);
    assert_false(snap->regions[ir].written);
    read_image(snap, (size_t)ia, false, false, pre, sizeof(pre));
    read_image(snap, (size_t)ia, false, true, post, sizeof(post));
    for (i = 0; i < 1024; i++) {
        assert_int_equal(pre[i], i + 3);
        assert_int_equal(post[i], i + 6);
    }

    /* The module variable, before and after. */
    assert_int_equal(snap->nglobals, 1);
    assert_string_equal(snap->globals[0].name, "counter");
    assert_int_equal(snap->globals[0].size, 16);
    read_image(snap, 0, true, false, counter, sizeof(counter));
    assert_int_equal(counter[0], 1024);
    read_image(snap, 0, true, true, counter, sizeof(counter));
    assert_int_equal(counter[0], 2048);
    rpl_snapshot_free(snap);

    /* Done: later dispatches and queues pass through untouched. */
    app_dispatch(q, "_Z9incrementPif.kd", ka, 1024, 256, s0);
    assert_int_equal(fake.nlog, 6);
    later = app_queue();
    assert_int_equal(fake.plain_queues, 1);
    assert_int_equal(fake.intercept_queues, 1);
    fake.root.core_->hsa_queue_destroy_fn(later);
    fake.root.core_->hsa_queue_destroy_fn(q);
    assert_int_equal(fake.root.core_->hsa_memory_free_fn(r), HSA_STATUS_SUCCESS);
    app_free_all();
    on_unload();
    free((void *)(uintptr_t)s0.handle);
    free((void *)(uintptr_t)s1.handle);
    free((void *)(uintptr_t)s2.handle);
}

/* A batch of packets with the target in the middle; a symbol without kernarg size. */
static void batch_and_kernarg_size_from_metadata(void **state)
{
    hsa_signal_t s0 = fake_signal_new(1), s1 = fake_signal_new(1), s2 = fake_signal_new(1);
    rpl_aql_header bh = {RPL_AQL_BARRIER_AND, true, RPL_AQL_SCOPE_NONE, RPL_AQL_SCOPE_NONE};
    unsigned char batch[3][64];
    rpl_snapshot *snap = NULL;
    hsa_queue_t *q;
    int *a;
    unsigned char *ka;

    fresh_dir("batch");
    set_env("^plain$", "1");
    assert_true(load_tool(2, true));
    q = app_queue();
    a = app_alloc(FAKE_POOL_DEVICE, 4096);
    ka = app_alloc(FAKE_POOL_KERNARG, 64);
    memcpy(ka, &a, 8);
    app_load();
    dispatch_packet(batch[0], "plain.kd", ka, 64, 64, s0);
    dispatch_packet(batch[1], "plain.kd", ka, 64, 64, s1);
    assert_int_equal(rpl_aql_barrier_and_encode(batch[2], bh, NULL, 0, s2.handle), 0);
    fake_hsa_submit(q, batch, 3);

    /* plain#0 as is, drain, plain#1 on the tool's signal, its own signal, the barrier. */
    assert_int_equal(fake.nlog, 5);
    assert_memory_equal(fake.log[0], batch[0], 64);
    check_drain_barrier(fake.log[1]);
    assert_int_equal(rpl_aql_packet_type(fake.log[2]), RPL_AQL_KERNEL_DISPATCH);
    assert_true(packet_signal(fake.log[3]) == s1.handle);
    assert_memory_equal(fake.log[4], batch[2], 64);
    assert_int_equal(fake_signal_value(s0), 0);
    assert_int_equal(fake_signal_value(s1), 0);
    assert_int_equal(fake_signal_value(s2), 0);
    assert_int_equal(a[0], 2);

    assert_int_equal(rpl_snapshot_open(&snap, dir), 0);
    assert_string_equal(snap->mangled_name, "plain");
    assert_string_equal(snap->demangled_name, "plain"); /* extern "C" */
    assert_int_equal(snap->kernarg_size, 8);            /* the symbol said 0: from the metadata */
    assert_int_equal(snap->dispatch_index, 1);
    rpl_snapshot_free(snap);
    fake.root.core_->hsa_queue_destroy_fn(q);
    app_free_all();
    on_unload();
    free((void *)(uintptr_t)s0.handle);
    free((void *)(uintptr_t)s1.handle);
    free((void *)(uintptr_t)s2.handle);
}

/* Without a pattern runtime helpers are skipped; freed memory and mappings without access are not
 * copied. */
static void what_is_copied(void **state)
{
    hsa_signal_t s0 = fake_signal_new(1), s1 = fake_signal_new(1);
    rpl_hsa_access_desc rw = {HSA_ACCESS_PERMISSION_RW, {FAKE_GPU_AGENT}};
    rpl_hsa_vmem_handle h = {5};
    rpl_snapshot *snap = NULL;
    hsa_queue_t *q;
    int *a, *gone;
    unsigned char *ka, *mapped, *hidden;

    fresh_dir("copied");
    set_env(NULL, NULL);
    assert_true(load_tool(2, false));
    q = app_queue();
    a = app_alloc(FAKE_POOL_DEVICE, 4096);
    gone = app_alloc(FAKE_POOL_DEVICE, 8192);
    app_free(gone);
    ka = app_alloc(FAKE_POOL_KERNARG, 64);
    mapped = aligned_alloc(4096, 65536);
    hidden = aligned_alloc(4096, 65536);
    memset(mapped, 7, 65536);
    assert_int_equal(fake.root.amd_ext_->hsa_amd_vmem_map_fn(mapped, 65536, 0, h, 0),
                     HSA_STATUS_SUCCESS);
    assert_int_equal(fake.root.amd_ext_->hsa_amd_vmem_set_access_fn(mapped, 65536, &rw, 1),
                     HSA_STATUS_SUCCESS);
    assert_int_equal(fake.root.amd_ext_->hsa_amd_vmem_map_fn(hidden, 65536, 0, h, 0),
                     HSA_STATUS_SUCCESS);
    memcpy(ka, &a, 8);
    app_load();
    app_dispatch(q, "__amd_rocclr_fillBufferAligned.kd", ka, 64, 64, s0);
    app_dispatch(q, "plain.kd", ka, 64, 64, s1);

    assert_int_equal(rpl_snapshot_open(&snap, dir), 0);
    assert_string_equal(snap->mangled_name, "plain");
    assert_int_equal(snap->dispatch_index, 0);
    assert_int_equal(snap->nregions, 3);
    assert_true(region_at(snap, a) >= 0);
    assert_true(region_at(snap, ka) >= 0);
    assert_true(region_at(snap, mapped) >= 0);
    assert_string_equal(snap->regions[region_at(snap, mapped)].kind, "vmm");
    assert_int_equal(region_at(snap, hidden), -1);
    rpl_snapshot_free(snap);
    fake.root.core_->hsa_queue_destroy_fn(q);
    app_free_all();
    on_unload();
    free(mapped);
    free(hidden);
    free((void *)(uintptr_t)s0.handle);
    free((void *)(uintptr_t)s1.handle);
}

/* A snapshot directory that exists already: the dispatch runs untouched, nothing is written over.
 */
static void existing_directory_leaves_the_dispatch_alone(void **state)
{
    hsa_signal_t s0 = fake_signal_new(1);
    unsigned char pkt[64];
    hsa_queue_t *q;
    int *a;
    unsigned char *ka;
    struct stat st;

    fresh_dir("exists");
    assert_int_equal(rpl_mkdir_p(dir), 0);
    set_env("plain", NULL);
    assert_true(load_tool(2, false));
    q = app_queue();
    a = app_alloc(FAKE_POOL_DEVICE, 4096);
    ka = app_alloc(FAKE_POOL_KERNARG, 64);
    memcpy(ka, &a, 8);
    app_load();
    dispatch_packet(pkt, "plain.kd", ka, 64, 64, s0);
    fake_hsa_submit(q, pkt, 1);
    assert_int_equal(fake.nlog, 2);
    check_drain_barrier(fake.log[0]);
    assert_memory_equal(fake.log[1], pkt, 64);
    assert_int_equal(fake_signal_value(s0), 0);
    assert_int_equal(fake.signals_live, 0);
    assert_int_equal(a[0], 1);
    assert_int_equal(stat(dir, &st), 0);
    {
        char *path = NULL;

        assert_int_equal(rpl_path_join(&path, dir, "dispatch.json"), 0);
        assert_int_not_equal(stat(path, &st), 0);
        free(path);
    }
    fake.root.core_->hsa_queue_destroy_fn(q);
    app_free_all();
    on_unload();
    free((void *)(uintptr_t)s0.handle);
}

static void refuses_tables_and_settings_it_cannot_use(void **state)
{
    __typeof__(fake.core.hsa_queue_create_fn) before;

    fresh_dir("refused");
    set_env(NULL, NULL);
    assert_false(load_tool(1, false)); /* ROCm 5.x layout */
    before = fake.core.hsa_queue_create_fn;
    assert_false(load_tool(1, false));
    assert_ptr_equal(fake.core.hsa_queue_create_fn, before); /* nothing replaced */

    unsetenv("ROCM_PERF_CAPTURE_DIR");
    assert_false(load_tool(2, false));
    set_env("(", NULL);
    assert_false(load_tool(2, false));
    set_env(NULL, "x");
    assert_false(load_tool(2, false));
    fake.amd.version.minor_id = 100; /* a table too short to hold the intercept slots */
    set_env(NULL, NULL);
    fake_hsa_reset(2, (const unsigned char *)fixture, fixture_len);
    fake.amd.version.minor_id = 100;
    assert_false(on_load(&fake.root, 3, 0, NULL));
}

static int setup(void **state)
{
    void *lib;

    if (rpl_file_read_all(RPL_FIXTURES "/hsa/kernels.hsaco", 1 << 20, &fixture, &fixture_len))
        return -1;
    lib = dlopen(RPL_HSA_TOOL_LIB, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "%s\n", dlerror());
        return -1;
    }
    *(void **)&on_load = dlsym(lib, "OnLoad");
    *(void **)&on_unload = dlsym(lib, "OnUnload");
    return on_load && on_unload ? 0 : -1;
}

static int teardown(void **state)
{
    fake_hsa_reset(2, NULL, 0); /* frees the last executable's segments */
    free(fake.load_base);
    fake.load_base = NULL;
    free(fixture);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(capture_writes_a_snapshot_that_reads_back),
        cmocka_unit_test(batch_and_kernarg_size_from_metadata),
        cmocka_unit_test(what_is_copied),
        cmocka_unit_test(existing_directory_leaves_the_dispatch_alone),
        cmocka_unit_test(refuses_tables_and_settings_it_cannot_use),
    };

    return cmocka_run_group_tests(tests, setup, teardown);
}
