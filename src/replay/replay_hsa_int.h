/*
 * The HSA replay backend (replay_backend.h), in three files:
 *   replay_hsa.c         the session: runtime, placeholders, hsa_init, agent,
 *                        pools, spans reserved at their addresses and mapped;
 *                        reserve-check and the run
 *   replay_hsa_launch.c  code object, module variables, kernarg, queue, the
 *                        hand-built dispatch, restores, checks
 *   replay_hsa_plan.c    the decisions that need no runtime (replay_hsa_plan.h)
 * Nothing here has run on AMD silicon: docs/USER_GUIDE.md says so.
 */
#ifndef RPL_REPLAY_HSA_INT_H
#define RPL_REPLAY_HSA_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "replay_backend.h"
#include "replay_hsa_api.h"
#include "replay_hsa_plan.h"

typedef struct rh_span {
    uint64_t base, size;
    bool reserved, mapped;
    bool have_handle;
    rpl_hsa_vmem_handle handle;
} rh_span;

typedef struct rh_session {
    rh_api api;
    bool initialized; /* hsa_init succeeded */
    hsa_agent_t gpu;
    char device[64];
    hsa_amd_memory_pool_t device_pool, host_pool, kernarg_pool;
    bool have_host_pool, have_kernarg_pool;
    uint64_t granule, timestamp_hz;
    rh_placeholders placeholders;
    rh_span *spans;
    size_t nspans;

    /* What a run adds (replay_hsa_launch.c). */
    char *code;
    size_t code_len;
    bool have_reader, have_exe, have_signal;
    hsa_code_object_reader_t reader;
    hsa_executable_t exe;
    rh_kernel kernel;
    uint64_t *global_addr; /* where each snapshot global lives in the loaded executable */
    void *kernarg;
    hsa_queue_t *queue;
    hsa_signal_t signal;
    void *bounce; /* pinned host memory the GPU can reach */
    size_t bounce_size;
    void *pristine; /* device copy of every region, back to back, or NULL */
} rh_session;

/* replay_hsa.c */
int rh_session_open(rh_session *s, const rpl_snapshot *snap, rpl_reserve_report *rep, bool map);
void rh_session_close(rh_session *s);

/* replay_hsa_launch.c */
int rh_load_code(rh_session *s, const rpl_snapshot *snap, const char *path);
int rh_prepare_launch(rh_session *s, const rpl_snapshot *snap, bool device_pristine);
/* Copy every region's (and global's) pre-dispatch image back; *seconds the time it took. */
int rh_restore(rh_session *s, const rpl_snapshot *snap, double *seconds);
/* Fill the regions the captured dispatch wrote with 0xff bytes (NaN for floating point). */
int rh_poison(rh_session *s, const rpl_snapshot *snap);
/* One dispatch, waited for; *ns (may be NULL) its device time. */
int rh_launch(rh_session *s, const rpl_snapshot *snap, double *ns);
/*
 * After a compared launch: run 0 compares every region and global with
 * its post image into checks[] (digests[] keeps the bytes' SHA-256);
 * later runs only clear checks[i].identical_runs where the bytes differ
 * from run 0's.
 */
int rh_compare(rh_session *s, const rpl_snapshot *snap, const rpl_replay_opts *opts, unsigned run,
               rpl_region_check *checks, unsigned char (*digests)[32], size_t *nchecks);
/* A plain device-to-device copy of `bytes`, in GB/s; 0 when the memory is not there. */
double rh_d2d_gbps(rh_session *s, uint64_t bytes);

#endif
