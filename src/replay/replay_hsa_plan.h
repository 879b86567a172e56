/*
 * The HSA replay backend's decisions that need no runtime (replay_hsa.c
 * makes the calls): which agent, which spans, which placeholders keep the
 * runtime off the captured addresses, and the dispatch packet.  Unit-tested
 * on machines without an AMD GPU (tests/unit/hsa/test_hsa_replay_plan.c).
 */
#ifndef RPL_REPLAY_HSA_PLAN_H
#define RPL_REPLAY_HSA_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rpl/hsa.h"
#include "rpl/snapshot.h"

/* An agent as the runtime lists it. */
typedef struct rh_agent {
    uint64_t handle;
    bool gpu;
    char isa[128]; /* its ISA name, "" for none */
} rh_agent;

/*
 * The first GPU agent whose ISA fits the snapshot's target
 * (rpl_amd_isa_compatible).  RPL_ENODEV when there is no GPU agent,
 * RPL_EINPUT naming both when there are GPUs but none fits.
 */
int rh_pick_agent(size_t *index, const rh_agent *agents, size_t n, const char *target);

/*
 * The snapshot's regions merged into spans aligned to `granule` (a power of
 * two: the page size, or a pool's allocation granule).
 */
int rh_spans(rpl_range **out, size_t *n, const rpl_snapshot *snap, uint64_t granule);

/*
 * Placeholders: PROT_NONE anonymous mappings at the spans' addresses
 * (MAP_FIXED_NOREPLACE), made before hsa_init so that the runtime's own
 * start-up reservations land elsewhere, and removed right before the
 * spans are reserved (reference: replay.md 2.3).  A span that is already
 * mapped in this process gets none: `conflicts` counts them.
 */
typedef struct rh_placeholders {
    rpl_range *maps; /* made */
    size_t n;
    size_t conflicts;
    uint64_t first_conflict;
} rh_placeholders;

int rh_placeholders_map(rh_placeholders *p, const rpl_range *spans, size_t n);
void rh_placeholders_unmap(rh_placeholders *p);

/* What the loaded code object says about the kernel. */
typedef struct rh_kernel {
    uint64_t kernel_object;
    uint32_t group_static;  /* HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE */
    uint32_t private_fixed; /* _PRIVATE_SEGMENT_SIZE */
} rh_kernel;

/*
 * The dispatch packet of a replay launch: the captured geometry and setup
 * dimensions, barrier bit, system-scope acquire and release fences (the
 * memory was restored by copies before it, and is read by copies after).
 * The captured group segment size counts the kernel's static LDS and the
 * launch's dynamic LDS: the dynamic part is kept and the static part taken
 * from the kernel launched, so a candidate with more static LDS still gets
 * its dynamic share.  Scratch is the larger of the captured and the
 * kernel's own.  RPL_EINPUT for a block that does not fit the packet.
 */
int rh_dispatch(rpl_aql_dispatch *out, const rpl_snapshot *snap, const rh_kernel *k,
                uint64_t kernarg_address, uint64_t signal);

/* Device time of a dispatch from its start/end timestamps (ticks at `hz`), in ns; -1 if bogus. */
double rh_ticks_ns(uint64_t start, uint64_t end, uint64_t hz);

#endif
