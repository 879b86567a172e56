/*
 * PLACEHOLDER until wip/hsa-capture lands: the HSA replay backend
 * (replay_backend.h) is written there; this file only lets wip/replay-core
 * build on its own and is replaced when the branches are merged.
 */
#include "replay_backend.h"
#include "rpl/error.h"

int rpl_replay_hsa_reserve_check(rpl_reserve_report *out, const rpl_snapshot *snap)
{
    (void)out;
    (void)snap;
    return rpl_error_set(RPL_EENV, "the HSA replay backend is not built into this rocm-perf");
}

int rpl_replay_hsa_run(rpl_replay_result *res, const rpl_snapshot *snap,
                       const rpl_replay_opts *opts)
{
    (void)res;
    (void)snap;
    (void)opts;
    return rpl_error_set(RPL_EENV, "the HSA replay backend is not built into this rocm-perf");
}
