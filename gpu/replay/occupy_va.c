/*
 * liboccupy_va.so: the forced reservation conflict of gpu/replay/check.sh.
 * Preloaded into `rocm-perf replay reserve-check`, its constructor maps
 * RPL_OCCUPY_VA=<hex base>:<hex size> (inaccessible, MAP_FIXED_NOREPLACE)
 * before CUDA starts, so the driver cannot give that range to the replay:
 * the reservation comes back elsewhere and reserve-check must say
 * "relocation" (exit 2).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

__attribute__((constructor)) static void occupy(void)
{
    const char *spec = getenv("RPL_OCCUPY_VA");
    uint64_t base = 0, size = 0;
    void *p;

    if (!spec || sscanf(spec, "%" SCNx64 ":%" SCNx64, &base, &size) != 2 || !size)
        return;
    p = mmap((void *)(uintptr_t)base, size, PROT_NONE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    fprintf(stderr, "occupy_va: 0x%" PRIx64 " (+0x%" PRIx64 "): %s\n", base, size,
            p == (void *)(uintptr_t)base ? "mapped" : "not mapped");
}
