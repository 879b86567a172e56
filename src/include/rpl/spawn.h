/*
 * Running child processes with posix_spawn and an argv array (never a shell
 * string), with an optional working directory, extra environment, a time
 * limit and captured stdout/stderr.
 *
 * The child inherits stdin, the process group and (unless captured) stdout
 * and stderr; it starts with an empty signal mask and SIGPIPE at its default
 * action.  Both pipes are read at once with poll(), so a child that fills
 * one while the other is being read never deadlocks.
 */
#ifndef RPL_SPAWN_H
#define RPL_SPAWN_H

#include <stdbool.h>
#include <stddef.h>

typedef struct rpl_spawn_opts {
    const char *const *argv;    /* NULL-terminated; argv[0] without a '/' is looked up in
                                   the caller's PATH (a PATH in env_set reaches only the
                                   child); a relative one with a '/' is taken from cwd */
    const char *const *env_set; /* "NAME=VALUE" entries added to or replacing the
                                   current environment (the last of repeated names
                                   wins); NULL-terminated or NULL */
    const char *cwd;            /* working directory of the child, or NULL */
    int timeout_ms;             /* 0: no limit; else SIGTERM, then SIGKILL 2 s later */
    bool capture_stdout;        /* else inherited */
    bool capture_stderr;        /* else inherited */
    size_t capture_limit;       /* bytes kept per stream (0: 16 MiB); the rest is read
                                   and dropped, so out_len == limit may mean "cut" */
} rpl_spawn_opts;

typedef struct rpl_spawn_result {
    bool exited; /* exited normally (exit_code is valid) */
    int exit_code;
    int term_signal; /* the signal that ended it, when !exited */
    bool timed_out;
    char *out; /* captured stdout, NUL-terminated ("" when silent); NULL when not
                  captured */
    size_t out_len;
    char *err; /* captured stderr, likewise */
    size_t err_len;
} rpl_spawn_result;

/*
 * Run a child to completion.  Returns 0 when it ran (whatever its exit
 * status: look at *res), RPL_ENOTFOUND when argv[0] cannot be executed or
 * cwd does not exist, RPL_EUSAGE for bad options (an env_set entry without
 * '='), RPL_ETIMEOUT when it was killed for the time limit (*res is filled
 * too).  Release *res in every case.
 *
 * Only the child itself is signalled at the time limit.  Output is read
 * until both pipes reach end-of-file; with a time limit, reading stops at
 * the limit when the child has already exited but a descendant of it still
 * holds the pipes, and 1 s after SIGKILL otherwise.  Without a time limit
 * such a descendant keeps the call waiting.
 */
int rpl_spawn_run(rpl_spawn_result *res, const rpl_spawn_opts *opts);

/* Free the captured output and zero *res; NULL is fine. */
void rpl_spawn_result_release(rpl_spawn_result *res);

/*
 * The last non-empty line of `text` (a child's captured output; trailing
 * '\n', '\r' and ' ' dropped) in buf, cut to size - 1 bytes; "" when there
 * is none or text is NULL.  Returns buf.
 */
const char *rpl_spawn_last_line(char *buf, size_t size, const char *text);

#endif
