/* Library-internal parts of the profiling backends (src/profile/). */
#ifndef RPL_PROFILE_INT_H
#define RPL_PROFILE_INT_H

#include <stdbool.h>

#include "rpl/profile_backend.h"
#include "rpl/spawn.h"

/* One rpl_profile_run in progress. */
typedef struct rpl_profile_ctx {
    const rpl_profile_opts *opts;
    rpl_profile_result *result;
    rpl_gpu_probe probe;
    rpl_counter_plan *plan; /* == result->plan */
    const char *run_dir;    /* == result->run_dir */
} rpl_profile_ctx;

int rpl_profile_run_rocprofv3(rpl_profile_ctx *ctx);
int rpl_profile_run_cupti(rpl_profile_ctx *ctx);

/* /dev/kfd exists below the probe root. */
bool rpl_probe_has_kfd(const rpl_profile_ctx *ctx);

/* Empty `dir` of a previous run (it is ours: DIR/rocprofv3 or DIR/cupti) and create it. */
int rpl_profile_reset_dir(const char *dir);

/* Pass a child's captured stderr on to ours, unless -q. */
void rpl_profile_echo_stderr(const rpl_spawn_result *res);

/*
 * Run a backend's command `argv` (NULL-terminated) as the options ask: the
 * launcher's words before it, the backend's `env_set` (or NULL) and then the
 * options' own, their time limit, and with quiet_app the program's output
 * captured (at most a few KiB kept).  stderr is captured also when
 * `capture_stderr` is set.  Returns what rpl_spawn_run returns.
 */
int rpl_profile_spawn(const rpl_profile_ctx *ctx, const char *const *argv,
                      const char *const *env_set, bool capture_stderr, rpl_spawn_result *res);

/* `dir` holds a database or a CSV kernel trace somewhere below it. */
bool rpl_profile_dir_has_output(const char *dir);

#endif
