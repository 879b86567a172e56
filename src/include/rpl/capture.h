/*
 * Capturing one kernel dispatch into a snapshot (rpl/snapshot.h): run an
 * application with the capture library injected and ASLR off, let it run
 * to its end, then check the snapshot it left.
 *
 * The application is started with personality(ADDR_NO_RANDOMIZE) set in
 * the parent just for the spawn (the flag is inherited and takes effect at
 * the child's execve), so that the device addresses of its allocations
 * repeat and a replay, also run without ASLR, can reserve them again
 * (docs/USER_GUIDE.md, "Capture and replay").
 *
 * The environment of the capture libraries is rpl/capture_env.h.
 */
#ifndef RPL_CAPTURE_H
#define RPL_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rpl/capture_env.h"
#include "rpl/snapshot.h"

typedef enum rpl_capture_backend {
    RPL_CAPTURE_AUTO = 0, /* inject every capture library this rocm-perf has */
    RPL_CAPTURE_CUDA,
    RPL_CAPTURE_HSA
} rpl_capture_backend;

/* "auto", "cuda", "hsa"; RPL_EUSAGE for anything else. */
int rpl_capture_backend_parse(rpl_capture_backend *out, const char *name);

typedef struct rpl_capture_opts {
    const char *const *app_argv; /* NULL-terminated */
    const char *out_dir;         /* the snapshot directory; must not exist */
    const char *kernel_regex;    /* NULL or "": any kernel */
    uint64_t dispatch;           /* the N-th matching dispatch, 0-based */
    rpl_capture_backend backend;
} rpl_capture_opts;

typedef struct rpl_capture_result {
    rpl_snapshot *snap; /* the snapshot, opened and verified */
    bool app_exited;    /* the application exited (else a signal ended it) */
    int app_status;     /* its exit status, or the signal */
    bool aslr_disabled; /* it was started without ASLR */
} rpl_capture_result;

/*
 * Run the application and check its snapshot.  RPL_EUSAGE for a bad
 * regex, RPL_EINPUT when out_dir exists or when the application ended
 * without a complete snapshot (no matching dispatch, fewer than N+1, or the
 * application failed first: the message gives its status), RPL_ENOTFOUND
 * when the program cannot be run, RPL_EENV when no capture library is
 * found.  A snapshot written by an application that failed afterwards is
 * returned (look at app_exited/app_status).
 */
int rpl_capture_run(rpl_capture_result *out, const rpl_capture_opts *opts);
void rpl_capture_result_release(rpl_capture_result *r);

/* What was captured, for people: snapshot, kernel, backend, launch, memory, ASLR. */
void rpl_capture_summary_print(FILE *out, const rpl_capture_result *r);

#endif
