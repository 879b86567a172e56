/*
 * TEST DOUBLE: fake_hsa_runtime.c is built as a libhsa-runtime64.so.1 of its
 * own (tests/unit/hsa/fake_rocm/lib), which the HSA replay backend loads
 * when ROCM_PATH points there.  It stands in for ROCr with host memory for
 * device memory and a packet processor that runs the replay fixtures'
 * scale kernel on the host.  What it saw is kept in fake_hsa_stats, which
 * the test reads through dlsym.
 *
 * Knobs (environment, read at hsa_init):
 *   FAKE_HSA_ISA       the GPU's ISA name (default gfx90a:sramecc+:xnack-)
 *   FAKE_HSA_RESERVE   "relocate": every reservation comes back elsewhere;
 *                      "fail": every reservation fails
 *   FAKE_HSA_PROBE     an address (hex) whose page hsa_init reports as taken
 *                      or free (placeholder_seen)
 *   FAKE_HSA_SCALE_ADDS  the kernel adds instead of multiplying (a wrong candidate)
 */
#ifndef RPL_TEST_FAKE_HSA_RUNTIME_H
#define RPL_TEST_FAKE_HSA_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#define FAKE_RT_MAX     16
#define FAKE_RT_TICK_HZ 100000000u /* timestamps at 100 MHz */
#define FAKE_RT_TICKS   5000u      /* every dispatch: 50 us */

typedef struct fake_hsa_stats {
    bool initialized, shut_down;
    bool placeholder_seen; /* FAKE_HSA_PROBE's page was mapped during hsa_init */
    unsigned reserves, frees, maps, unmaps, set_access;
    uint64_t reserve_asked[FAKE_RT_MAX], reserve_got[FAKE_RT_MAX], reserve_size[FAKE_RT_MAX];
    unsigned dispatches;
    unsigned char last_packet[64];   /* as the packet processor read it */
    unsigned char kernarg[64];       /* the last dispatch's kernarg segment */
    float first_before[FAKE_RT_MAX]; /* element 1 of the array before each dispatch */
    char symbol[64];                 /* the last symbol looked up */
    unsigned queues_live, executables_live, allocations_live;
} fake_hsa_stats;

#endif
