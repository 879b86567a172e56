/*
 * Running child processes with posix_spawn and an argv array (never a shell
 * string), with an optional working directory, extra environment, a time
 * limit and captured stdout/stderr.
 */
#ifndef RPL_SPAWN_H
#define RPL_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct rpl_spawn_opts {
    const char *const *argv;    /* argv[0] is looked up in PATH; NULL-terminated */
    const char *const *env_set; /* "NAME=VALUE" entries added to or replacing the
                                   current environment; NULL-terminated or NULL */
    const char *cwd;            /* working directory of the child, or NULL */
    int timeout_ms;             /* 0: no limit; else SIGTERM, then SIGKILL 2 s later */
    bool capture_stdout;        /* else inherited */
    bool capture_stderr;        /* else inherited */
    size_t capture_limit;       /* bytes kept per stream (0: 16 MiB); the rest is drained */
} rpl_spawn_opts;

typedef struct rpl_spawn_result {
    bool exited; /* exited normally (exit_code is valid) */
    int exit_code;
    int term_signal; /* the signal that ended it, when !exited */
    bool timed_out;
    char *out; /* captured stdout, NUL-terminated, or NULL */
    size_t out_len;
    char *err; /* captured stderr, NUL-terminated, or NULL */
    size_t err_len;
} rpl_spawn_result;

/*
 * Run a child to completion.  Returns 0 when it ran (whatever its exit
 * status: look at *res), RPL_ENOTFOUND when argv[0] cannot be executed,
 * RPL_ETIMEOUT when it was killed for the time limit (*res is filled too).
 */
int rpl_spawn_run(rpl_spawn_result *res, const rpl_spawn_opts *opts);

void rpl_spawn_result_release(rpl_spawn_result *res);

#endif
