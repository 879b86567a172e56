/*
 * The contract between the replay front end (replay.c) and the backends,
 * one translation unit each: replay_cuda.c (CUDA driver VMM) and
 * replay_hsa.c (hsa_amd_vmem_* and a hand-built AQL packet).
 *
 * Before a backend is called the front end has opened the snapshot
 * (rpl_snapshot_open), for run also hashed every file
 * (rpl_snapshot_verify), checked the code object that will be launched
 * (rpl_replay_check_code_object: architecture, kernel symbol, parameter
 * layout), and checked the options (iterations >= 1, check_runs >= 1 with
 * check, finite non-negative tolerances).  It has also made sure that the
 * driver library can be dlopen()ed (libcuda.so.1, libhsa-runtime64.so.1)
 * and that the device node exists (/dev/nvidiactl, /dev/kfd).  The process
 * runs with ASLR off where that was possible (rpl_replay_ensure_no_aslr).
 *
 * Status codes, which the CLI turns into exit codes:
 *   RPL_EENV    the driver library cannot be loaded (libcuda.so.1,
 *               libhsa-runtime64.so.1), or lacks an entry point it needs
 *   RPL_ENODEV  the library loads but finds no usable GPU (exit 77), e.g.
 *               cuInit's CUDA_ERROR_NO_DEVICE under CUDA_VISIBLE_DEVICES=""
 *   RPL_EINPUT  the GPU's architecture differs from the snapshot's, or the
 *               device rejects the code object (one line naming both)
 *   RPL_EFAIL   a span could not be reserved or came back at another
 *               address: fill the rpl_reserve_report (failure/relocation,
 *               first_bad, got, detail) and free what was reserved; or
 *               the device failed a launch (the kernel faulted): set
 *               res->fault to the one line
 * A failed comparison is no error: set checked, check_passed and checks[].
 */
#ifndef RPL_REPLAY_BACKEND_H
#define RPL_REPLAY_BACKEND_H

#include "rpl/replay.h"

/*
 * reserve_check: reserve every captured range (merged to the backend's
 * granularity with rpl_ranges_merge) at its address, compare what came
 * back, free everything, and fill *out.
 */
int rpl_replay_cuda_reserve_check(rpl_reserve_report *out, const rpl_snapshot *snap);
int rpl_replay_hsa_reserve_check(rpl_reserve_report *out, const rpl_snapshot *snap);

/*
 * run: the replay itself.  On entry res->code_object holds the path of the
 * code object to load (the captured one or the candidate), res->backend,
 * arch, kernel, iterations, warmup and recopy are filled.  The backend
 * fills device, timer, times_ns/ntimes (one per timed launch), wall_s,
 * restore_bytes, restore_gbps, d2d_gbps, restore_from_device, reserve,
 * and with opts->check: checked, check_passed, deterministic and checks[]
 * (malloc'ed; rpl_replay_result_free releases them).  The front end then
 * computes the statistics of times_ns.
 */
int rpl_replay_cuda_run(rpl_replay_result *res, const rpl_snapshot *snap,
                        const rpl_replay_opts *opts);
int rpl_replay_hsa_run(rpl_replay_result *res, const rpl_snapshot *snap,
                       const rpl_replay_opts *opts);

/* The tolerance for elements of type `t`: --rtol/--atol when given, else the type's default. */
rpl_tolerance rpl_replay_tolerance(const rpl_replay_opts *opts, rpl_dtype t);

/*
 * Compare `got`, the bytes a region (or, with `global`, a module global)
 * holds after a launch, copied to the host, with its captured
 * post-dispatch image streamed from the snapshot, and fill *out (base,
 * size, global, cmp; the caller sets poisoned and identical_runs).
 * RPL_ENOTFOUND when it has no post image (nothing to compare).
 */
int rpl_replay_check_region(rpl_region_check *out, const rpl_snapshot *snap, size_t index,
                            bool global, const void *got, const rpl_replay_opts *opts);

#endif
