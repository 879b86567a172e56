/* Names and defaults of the candidate pipeline (rpl/pipeline.h). */
#include <string.h>

#include "rpl/pipeline.h"

void rpl_pipe_opts_init(rpl_pipe_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->min_gain = RPL_PIPE_DEFAULT_MIN_GAIN;
    o->rounds = RPL_PIPE_DEFAULT_ROUNDS;
    o->iterations = RPL_PIPE_DEFAULT_ITERATIONS;
    o->seeds = RPL_PIPE_DEFAULT_SEEDS;
    o->app_tolerance = RPL_PIPE_DEFAULT_APP_TOLERANCE;
    o->app_rounds = RPL_PIPE_DEFAULT_APP_ROUNDS;
    o->confidence = 0.95;
    o->build_timeout_ms = RPL_PIPE_DEFAULT_BUILD_TIMEOUT_MS;
    o->run_timeout_ms = RPL_PIPE_DEFAULT_RUN_TIMEOUT_MS;
}

const char *rpl_pipe_step_name(rpl_pipe_step step)
{
    static const char *const names[RPL_PIPE_STEPS] = {"build", "signature", "static", "replay",
                                                      "test",  "measure",   "app"};
    return (unsigned)step < RPL_PIPE_STEPS ? names[step] : "unknown";
}

const char *rpl_pipe_decision_name(rpl_pipe_decision d)
{
    static const char *const names[RPL_PIPE_DECISIONS] = {
        "accepted",         "build",  "signature",       "static", "wrong-result",
        "nondeterministic", "slower", "not-significant", "patch",  "impossible"};
    return (unsigned)d < RPL_PIPE_DECISIONS ? names[d] : "unknown";
}
