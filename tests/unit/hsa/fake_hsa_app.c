/*
 * TEST DOUBLE: an "HSA application" for `rocm-perf capture --backend hsa`
 * on a machine without an AMD GPU.  It plays ROCr's part for the tools
 * library (loads the first library of HSA_TOOLS_LIB and calls its OnLoad
 * with the fake runtime's table, fake_hsa.c) and then the application's:
 * a queue, a buffer, the fixture code object, three dispatches of
 * increment(int*, float).  It exits 0 when every dispatch completed and
 * the buffer holds what three runs make; 1 otherwise.
 *
 *   fake_hsa_app FIXTURE.hsaco
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hsa.h"
#include "rpl/fsutil.h"
#include "rpl/hsa.h"

typedef bool (*on_load_fn)(void *, uint64_t, uint64_t, const char *const *);

static int fail(const char *what)
{
    fprintf(stderr, "fake_hsa_app: %s\n", what);
    return 1;
}

/* The first path of the space-separated HSA_TOOLS_LIB, as ROCr reads it. */
static void *load_tool(void)
{
    const char *list = getenv("HSA_TOOLS_LIB");
    char path[4096];
    size_t n;

    if (!list)
        return NULL;
    n = strcspn(list, " ");
    if (n == 0 || n >= sizeof(path))
        return NULL;
    memcpy(path, list, n);
    path[n] = '\0';
    return dlopen(path, RTLD_NOW | RTLD_LOCAL);
}

int main(int argc, char **argv)
{
    hsa_agent_t gpu = {FAKE_GPU_AGENT};
    hsa_amd_memory_pool_t device = {FAKE_POOL_DEVICE}, kernarg_pool = {FAKE_POOL_KERNARG};
    hsa_executable_t exe = {1};
    hsa_queue_t *q = NULL;
    char *code = NULL;
    size_t len = 0;
    int *a = NULL, run, i;
    unsigned char *ka = NULL;
    float s = 2.0f;
    void *tool;
    on_load_fn on_load;

    if (argc != 2 || rpl_file_read_all(argv[1], 1 << 20, &code, &len) != 0)
        return fail("usage: fake_hsa_app FIXTURE.hsaco");
    fake_hsa_reset(2, (const unsigned char *)code, len);
    if (fake_hsa_add_fixture_symbols(false) != 0)
        return fail("the fixture lacks a symbol");
    tool = load_tool();
    *(void **)&on_load = tool ? dlsym(tool, "OnLoad") : NULL;
    if (!on_load || !on_load(&fake.root, 3, 0, NULL))
        return fail("no tools library loaded from HSA_TOOLS_LIB");

    if (fake.core.hsa_queue_create_fn(gpu, 64, HSA_QUEUE_TYPE_MULTI, NULL, NULL, UINT32_MAX,
                                      UINT32_MAX, &q) != HSA_STATUS_SUCCESS ||
        fake.amd.hsa_amd_memory_pool_allocate_fn(device, 4096, 0, (void **)&a) !=
            HSA_STATUS_SUCCESS ||
        fake.amd.hsa_amd_memory_pool_allocate_fn(kernarg_pool, 64, 0, (void **)&ka) !=
            HSA_STATUS_SUCCESS ||
        fake.core.hsa_executable_freeze_fn(exe, NULL) != HSA_STATUS_SUCCESS)
        return fail("setting up failed");
    for (i = 0; i < 1024; i++)
        a[i] = i;
    memcpy(ka, &a, sizeof(a));
    memcpy(ka + 8, &s, sizeof(s));
    for (run = 0; run < 3; run++) {
        hsa_signal_t done = fake_signal_new(1);
        unsigned char pkt[64];
        rpl_aql_dispatch d;

        memset(&d, 0, sizeof(d));
        d.header.type = RPL_AQL_KERNEL_DISPATCH;
        d.header.barrier = true;
        d.header.acquire = d.header.release = RPL_AQL_SCOPE_SYSTEM;
        d.dims = 1;
        d.workgroup[0] = 256;
        d.grid[0] = 1024;
        d.kernel_object = fake_hsa_address("_Z9incrementPif.kd");
        d.kernarg_address = (uint64_t)(uintptr_t)ka;
        d.completion_signal = done.handle;
        if (rpl_aql_dispatch_encode(pkt, &d) != 0)
            return fail("encoding a packet failed");
        fake_hsa_submit(q, pkt, 1);
        if (fake_signal_value(done) != 0)
            return fail("a dispatch did not complete exactly once");
        free((void *)(uintptr_t)done.handle);
    }
    for (i = 0; i < 1024; i++)
        if (a[i] != i + 6)
            return fail("the buffer does not hold three runs' worth");
    fake.amd.hsa_amd_memory_pool_free_fn(a);
    fake.amd.hsa_amd_memory_pool_free_fn(ka);
    fake.core.hsa_queue_destroy_fn(q);
    free(code);
    return 0;
}
