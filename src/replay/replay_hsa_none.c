/*
 * The HSA replay backend of a rocm-perf built where the HSA headers were
 * missing (no libhsa-runtime-dev): it can only say so.  The real one is
 * replay_hsa.c.
 */
#include "replay_backend.h"
#include "rpl/error.h"

int rpl_replay_hsa_reserve_check(rpl_reserve_report *out, const rpl_snapshot *snap)
{
    return rpl_error_set(RPL_EENV, "this rocm-perf was built without the HSA headers "
                                   "(libhsa-runtime-dev): no HSA replay");
}

int rpl_replay_hsa_run(rpl_replay_result *res, const rpl_snapshot *snap,
                       const rpl_replay_opts *opts)
{
    return rpl_error_set(RPL_EENV, "this rocm-perf was built without the HSA headers "
                                   "(libhsa-runtime-dev): no HSA replay");
}
